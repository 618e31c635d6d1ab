#!/usr/bin/env bash
# Packs what scripts/gpu_check.sh runs on a GPU machine lent by the `device` tool: that machine
# has the CUDA driver and PyTorch but none of this project's Debian packages, and cannot fetch
# any, so the tunefarm binaries travel with every shared library they need except the C and
# C++ runtime (which are newer there). Writes .gpu/tunefarm-gpu.tar.xz (about 55 MB; the device
# tool carries at most 64 MiB with the working tree) and keeps .gpu/ out of git.
#
# usage: scripts/gpu_bundle.sh     then: device run, carry [".gpu/tunefarm-gpu.tar.xz"],
#                                  command "bash scripts/gpu_check.sh"
set -euo pipefail
cd "$(dirname "$0")/.."
grep -qx '/.gpu/' .git/info/exclude 2>/dev/null || echo '/.gpu/' >> .git/info/exclude
cmake -S . -B build -G Ninja > build-configure.log 2>&1 || { cat build-configure.log; exit 1; }
cmake --build build -j"$(nproc)" --target tunefarm tunefarm-measure

stage=.gpu/stage
rm -rf "$stage" && mkdir -p "$stage/bin" "$stage/lib"
for bin in build/cli/tunefarm build/cli/tunefarm-measure; do strip -o "$stage/bin/$(basename "$bin")" "$bin"; done
# Every library the binaries load, but the C and C++ runtime and the loader: the GPU machine's
# are newer, and a program must use the machine's own libc.
ldd build/cli/tunefarm build/cli/tunefarm-measure | awk '/=> \// {print $3}' | sort -u |
  grep -Ev '/(libc|libm|libdl|librt|libpthread|libstdc\+\+|libgcc_s|ld-linux-x86-64)\.so' |
  while read -r lib; do cp -L "$lib" "$stage/lib/"; done
echo "glibc $(ldd --version | head -1 | awk '{print $NF}')" > "$stage/BUILT_WITH"
git rev-parse --short HEAD >> "$stage/BUILT_WITH"
tar -C "$stage" -cf - . | xz -T0 -6 > .gpu/tunefarm-gpu.tar.xz
rm -rf "$stage"
ls -la .gpu/tunefarm-gpu.tar.xz
