#!/usr/bin/env bash
# Fuzzes the ONNX importer, or the model-artifact loader, with libFuzzer (docs/fuzzing.md).
#   fuzz/run_fuzz.sh [SECONDS] [onnx_import|artifact_loader]
#                                   default 600 s, onnx_import; extra libFuzzer flags via FUZZ_ARGS="..."
# Builds build-fuzz/ with clang-19 + ASan + UBSan, seeds a corpus from the conformance models and
# the shared models (weights stripped), and keeps crashes in fuzz/findings/.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
shared="${TUNEFARM_SHARED:-$root/../shared}"
seconds="${1:-600}"
target="${2:-onnx_import}"
case "$target" in onnx_import|artifact_loader) ;; *) echo "run_fuzz: unknown target $target" >&2; exit 2 ;; esac
build="$root/build-fuzz"

# Fuzzing is not part of CI, so its toolchain is installed here, not by scripts/setup.sh.
if ! command -v clang++-19 >/dev/null || [ ! -e /usr/lib/llvm-19/lib/clang/19/lib/linux/libclang_rt.fuzzer-x86_64.a ]; then
  sudo=""; [ "$(id -u)" -ne 0 ] && sudo="sudo"
  $sudo apt-get install -y clang-19 libclang-rt-19-dev
fi

# Ninja builds only what the fuzzer links; components downstream of the importer are skipped. libstdc++ (not
# libc++) so that Debian's protobuf/onnx/abseil link. -fno-sanitize-recover: a UBSan report
# must stop the run like a crash, or libFuzzer would not save the input.
san="-fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer"
if [ ! -f "$build/build.ninja" ]; then
  CC=clang-19 CXX=clang++-19 cmake -S "$root" -B "$build" -G Ninja \
    -DCMAKE_BUILD_TYPE=RelWithDebInfo -DTUNEFARM_FUZZ=ON -DTUNEFARM_TESTS=OFF -DTUNEFARM_BENCH=OFF \
    -DTUNEFARM_SKIP="compiler/passes;compiler/codegen;compiler/build;db;proto;tracker;device_agent;cli" \
    -DCMAKE_C_FLAGS="$san" -DCMAKE_CXX_FLAGS="$san"
fi
extra=(); [ "$target" = onnx_import ] && extra=(strip_weights)  # the importer's seeds need it
ninja -C "$build" -j "${FUZZ_BUILD_JOBS:-2}" "${target}_fuzzer" "${extra[@]}"

# Seeds: for the importer, every conformance case plus the shared models with large
# initializers turned into graph inputs (the full 5-47 MB files would make each execution take
# seconds); for the artifact loader, the metadata and plan of a small model (fuzz/seeds/).
corpus="$build/corpus/$target"
mkdir -p "$corpus" "$root/fuzz/findings"
if [ "$target" = onnx_import ]; then
  for m in "$shared"/onnx-tests/node/*/model.onnx; do
    cp -n "$m" "$corpus/$(basename "$(dirname "$m")").onnx"
  done
  for m in "$shared"/models/*.onnx; do
    [ -e "$corpus/$(basename "$m")" ] || "$build/fuzz/strip_weights" "$m" "$corpus/$(basename "$m")"
  done
else
  cp -n "$root"/fuzz/seeds/artifact_loader/* "$corpus/"
fi

# One job: the machine is shared. max_len covers the largest seed; rss/timeout limits turn
# blow-ups (huge constant folds, quadratic loops) into findings.
cd "$root/fuzz/findings"
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1:allocator_may_return_null=1}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}"
# shellcheck disable=SC2086
exec "$build/fuzz/${target}_fuzzer" "$corpus" \
  -max_total_time="$seconds" -max_len=65536 -timeout=10 -rss_limit_mb=4096 \
  -artifact_prefix="$root/fuzz/findings/" -print_final_stats=1 ${FUZZ_ARGS:-}
