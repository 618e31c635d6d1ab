#!/usr/bin/env bash
# Installs every Debian package tunefarm needs to build, test and benchmark.
# Safe to run again: apt-get skips what is already there.
# `setup.sh --peers` also installs Node.js and npm, which the ONNX Runtime peer of the model
# benchmark needs (scripts/run.sh); the test suite does not.
set -euo pipefail
SUDO=""
if [ "$(id -u)" != 0 ]; then SUDO=sudo; fi
PACKAGES=(
  cmake ninja-build g++ ccache pkg-config
  llvm-19-dev liblld-19-dev
  libgrpc++-dev protobuf-compiler-grpc libprotobuf-dev protobuf-compiler
  libxgboost-dev xgboost libabsl-dev libonnx-dev libsqlite3-dev nlohmann-json3-dev
  libjemalloc-dev  # the tuner's allocator (cmake/FastAllocator.cmake)
  libssl-dev openssl libgtest-dev libgmock-dev libbenchmark-dev
  libopenblas-dev libdnnl-dev
  g++-aarch64-linux-gnu qemu-user-static
  # The ARM agent's cross build (docs/arm.md): the arm64 libraries beside the host's, through
  # Debian multiarch (they are Multi-Arch: same, so apt keeps both at one version).
  libgrpc++-dev:arm64 libprotobuf-dev:arm64 libabsl-dev:arm64 libssl-dev:arm64
)
# (A Node.js from elsewhere that already brings npm is kept: Debian's npm would conflict with it.)
if [ "${1:-}" = --peers ] && ! command -v npm > /dev/null; then PACKAGES+=(nodejs npm); fi
missing=()
for p in "${PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing ${missing[*]}"
  dpkg --print-foreign-architectures | grep -qx arm64 || $SUDO dpkg --add-architecture arm64
  $SUDO apt-get update -q
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q "${missing[@]}"
else
  echo "setup: all packages present"
fi
