#!/usr/bin/env bash
# The main job, for now: install, build, compile GEMMs with tunefarm and print their GFLOP/s
# beside OpenBLAS sgemm measured in the same run (bench/compiler/gemm_bench.cc).
# It grows into tune -> compile -> run of a model from ../shared/models/ as the tuner lands.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/setup.sh
cmake -S . -B build -G Ninja -DTUNEFARM_BENCH=ON > build-configure.log 2>&1 || { cat build-configure.log; exit 1; }
cmake --build build -j"$(nproc)" --target gemm_bench replay_lower_bench
# This machine's environment may pin OpenBLAS to an older kernel (OPENBLAS_CORETYPE) to work
# around old builds; the peer runs at its best here, and the bench checks its results against
# ours (max|diff|), so a wrong peer shows.
env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE ./build/bench/compiler/gemm_bench
./build/bench/compiler/replay_lower_bench | tail -2
