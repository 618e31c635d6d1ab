#!/usr/bin/env bash
# The main job: install, build, then tune a model from ../shared/models/ on an embedded local
# farm (`tunefarm tune` without --tracker runs a tracker and one agent of this machine on
# loopback) into tunefarm.db, compile it with the tuned schedules, check its output against the
# reference, and time it beside the default schedules and ONNX Runtime.
#
# usage: scripts/run.sh [MODEL] [TRIALS]      (default: resnet18, 1536 trials: about 8 minutes of
# tuning on 2 cores)
# A second run continues from tunefarm.db: nothing measured is measured again, and the cost
# model starts from the earlier records.
set -euo pipefail
cd "$(dirname "$0")/.."
model=${1:-resnet18}
trials=${2:-1536}
threads=$(nproc)
shared=$(cd ../shared && pwd)

./scripts/setup.sh --peers
cmake -S . -B build -G Ninja > build-configure.log 2>&1 || { cat build-configure.log; exit 1; }
cmake --build build -j"$threads" --target tunefarm
tf=build/cli/tunefarm

onnx=$shared/models/$model.onnx
input_name=$(sed -n "/\"$model\"/,/input_name/s/.*\"input_name\": \"\(.*\)\".*/\1/p" "$shared/models/MANIFEST.json")
echo "== tuning $model: $trials trials, $threads threads, records in tunefarm.db"
# A population of 512 (the default is 2048) keeps the search between rounds short on a small
# machine; rounds of 32 let the budget reach every kernel more than once.
"$tf" tune "$onnx" --db tunefarm.db --trials "$trials" --threads "$threads" --population 512 --per-round 32

echo "== compiling with the tuned schedules, and with the default rules"
# --choose-in-model: per kernel, whichever of its default, best and second-best schedule runs
# fastest inside the model here (the tuner times kernels alone; docs/cli.md).
"$tf" compile "$onnx" --db tunefarm.db --choose-in-model --threads "$threads" -o "build/$model.tuned.so" \
  2> /dev/null
"$tf" compile "$onnx" --threads "$threads" -o "build/$model.default.so" 2> /dev/null
"$tf" run "build/$model.tuned.so" --input "$input_name=$shared/models/$model.input.bin" \
  --expect "$shared/models/$model.output.bin"
for kind in default tuned; do "$tf" bench "build/$model.$kind.so" --runs 20 2> /dev/null; done

echo "== beside ONNX Runtime (tuned schedules)"
bench/models/model_bench.sh --tunefarm "$tf" --artifact "build/$model.tuned.so" --models "$model" --threads "$threads"
