#!/usr/bin/env bash
# Installs every Debian package tunefarm needs to build, test and benchmark.
# Safe to run again: apt-get skips what is already there.
set -euo pipefail
SUDO=""
if [ "$(id -u)" != 0 ]; then SUDO=sudo; fi
PACKAGES=(
  cmake ninja-build g++ ccache pkg-config
  llvm-19-dev liblld-19-dev
  libgrpc++-dev protobuf-compiler-grpc libprotobuf-dev protobuf-compiler
  libxgboost-dev xgboost libabsl-dev libonnx-dev libsqlite3-dev nlohmann-json3-dev
  libssl-dev openssl libgtest-dev libgmock-dev libbenchmark-dev
  libopenblas-dev libdnnl-dev
)
missing=()
for p in "${PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing ${missing[*]}"
  $SUDO apt-get update -q
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q "${missing[@]}"
else
  echo "setup: all packages present"
fi
