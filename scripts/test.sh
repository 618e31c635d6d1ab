#!/usr/bin/env bash
# Installs what is needed, builds the test suite from scratch or incrementally, and runs it.
# Prints the build and test wall times (CI's budget: build < 25 min, tests < 15 min on 2 cores).
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/setup.sh
jobs=$(nproc)
t0=$(date +%s)
cmake -S . -B build -G Ninja -DTUNEFARM_TESTS=ON -DTUNEFARM_BENCH=OFF > build-configure.log 2>&1 || {
  cat build-configure.log; exit 1; }
cmake --build build -j"$jobs"
# The device build (runtime and agent, no LLVM) must stay buildable on its own (docs/arm.md).
cmake -S . -B build-device -G Ninja -DTUNEFARM_DEVICE_ONLY=ON > build-device-configure.log 2>&1 || {
  cat build-device-configure.log; exit 1; }
cmake --build build-device -j"$jobs"
t1=$(date +%s)
status=0
ctest --test-dir build --output-on-failure -j"$jobs" --timeout 600 || status=$?
t2=$(date +%s)
echo "tunefarm: build wall time $((t1 - t0)) s, test wall time $((t2 - t1)) s"
exit $status
