#!/usr/bin/env bash
# Builds the ARM device bundle: tunefarm-agent, tunefarm-measure, the deploy runtime and its C
# API example, cross-compiled for 64-bit ARM Linux with Debian's cross compiler and the arm64
# multiarch libraries (scripts/setup.sh installs both). Writes
#   dist/tunefarm-device-aarch64/{bin,lib,include}  and  dist/tunefarm-device-aarch64.tar.gz
# Copy the tarball to the board, unpack it, and start bin/tunefarm-agent (docs/arm.md). The
# board needs Debian 12's runtime packages of gRPC, protobuf and Abseil, which this prints.
#
#   scripts/build-arm.sh [BUILD_DIR]      (default build-arm)
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build-arm}
log=$(mktemp)
trap 'rm -f "$log"' EXIT
./scripts/setup.sh
cmake -S . -B "$build" -G Ninja -DCMAKE_TOOLCHAIN_FILE=cmake/aarch64-linux-gnu.cmake \
  -DTUNEFARM_DEVICE_ONLY=ON > "$log" 2>&1 || { cat "$log"; exit 1; }
cmake --build "$build" -j"$(nproc)"
bundle=dist/tunefarm-device-aarch64
rm -rf "$bundle"
cmake --install "$build" --prefix "$bundle" > /dev/null
tar -C dist -czf "$bundle.tar.gz" tunefarm-device-aarch64

# The Debian packages on the board that provide the bundle's shared libraries.
packages=$(for f in "$bundle"/bin/* "$bundle"/lib/*.so; do aarch64-linux-gnu-readelf -d "$f"; done |
  sed -n 's/.*Shared library: \[\(.*\)\]/\1/p' | sort -u | grep -v '^libtunefarm_runtime' |
  while read -r lib; do
    path=$(ls /usr/lib/aarch64-linux-gnu/"$lib" /lib/aarch64-linux-gnu/"$lib" 2> /dev/null | head -1)
    [ -n "$path" ] && dpkg -S "$(readlink -f "$path")" 2> /dev/null | cut -d: -f1
  done | sort -u | tr '\n' ' ')
echo "built $bundle.tar.gz ($(du -h "$bundle.tar.gz" | cut -f1)):"
(cd "$bundle" && find . -type f | sort | sed 's|^\./|  |')
echo "on the board (Debian 12 arm64): apt-get install $packages"
echo "then: bin/tunefarm-agent --key <pool, e.g. arm-a72> --tracker <tracker host>:9190"
