#!/usr/bin/env bash
# Every shared model at 1 and 2 threads, in one run: tunefarm's latency (default schedules, or
# tuned ones with --db) beside ONNX Runtime's on the same input, as a ratio, and tunefarm's
# planned activation memory beside the naive sum of all intermediates.
#
# The two are timed in turns, --rounds times (default 3), and each keeps its best median: on a
# shared host whose speed drifts within minutes (2x was seen on a 2-vCPU VM), one run of each
# could land in different phases; turns give both the same chances.
#
# usage: bench/models/model_bench.sh [--tunefarm PATH] [--db FILE [--choose-in-model]] [--models "a b.onnx"]
#                                    [--threads "1 2"] [--rounds N] [--artifact MODEL.so]
# --choose-in-model compiles with it (docs/cli.md): per kernel, the schedule fastest in the model.
# --artifact times that compiled model instead of compiling one (one model, one thread count):
# the very artifact a script has just built and checked.
# Needs node and the ONNX Runtime peer (../shared/peers/setup.sh; installed here on first use).
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
shared=$root/../shared
tunefarm=$root/build/cli/tunefarm
db_flag=()
models="resnet18 mobilenet_v2 squeezenet1_1 transformer_encoder"
threads_list="1 2"
rounds=3
artifact=""
while [ $# -gt 0 ]; do
  case $1 in
    --tunefarm) tunefarm=$2; shift 2 ;;
    --db) db_flag+=(--db "$2"); shift 2 ;;
    --choose-in-model) db_flag+=(--choose-in-model); shift ;;
    --models) models=$2; shift 2 ;;
    --threads) threads_list=$2; shift 2 ;;
    --rounds) rounds=$2; shift 2 ;;
    --artifact) artifact=$2; shift 2 ;;
    *) echo "model_bench: unknown argument $1" >&2; exit 2 ;;
  esac
done
if [ -n "$artifact" ] && { [ "$(echo $models | wc -w)" != 1 ] || [ "$(echo $threads_list | wc -w)" != 1 ]; }; then
  echo "model_bench: --artifact needs one model (--models) and one thread count (--threads)" >&2; exit 2
fi
if [ -n "$artifact" ] && [ ${#db_flag[@]} -gt 0 ]; then
  echo "model_bench: --artifact is already compiled: --db and --choose-in-model do not apply" >&2; exit 2
fi
[ -x "$tunefarm" ] || { echo "model_bench: no tunefarm binary at $tunefarm (build the 'tunefarm' target)" >&2; exit 1; }
peers=$root/.peers/ort_peer  # npm needs a valid package name for the folder
node_path=$("$shared/peers/setup.sh" "$peers" | sed -n 's/^NODE_PATH=//p')
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# One field of a one-line JSON document on stdin.
field() { node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>{const j=JSON.parse(s);console.log(process.argv[1].split(".").reduce((o,k)=>o[k],j))})' "$1"; }

printf '%-20s %3s %12s %12s %10s %14s %14s %8s\n' model thr "tunefarm ms" "ORT ms" "ORT/tf" "arena MB" "no-reuse MB" "saved"
for model in $models; do
  # A shared model by name (its input from the manifest), or any .onnx file by path (ONNX
  # Runtime fills its float inputs with seeded random values).
  if [[ $model == *.onnx ]]; then
    file=$model
    input_flag=()
    model=$(basename "$model" .onnx)
  else
    file=$shared/models/$model.onnx
    input_flag=(--input "$(node -e 'const m=require(process.argv[1]).models[process.argv[2]];console.log(m.input_name+"="+process.argv[3]+"/"+m.input_file)' \
      "$shared/models/MANIFEST.json" "$model" "$shared/models")")
  fi
  memory=$("$tunefarm" inspect "$file" --json)
  arena=$(echo "$memory" | field memory.arena_bytes)
  naive=$(echo "$memory" | field memory.naive_bytes)
  for t in $threads_list; do
    so=$work/$model.$t.so
    if [ -n "$artifact" ]; then
      so=$artifact
    else
      "$tunefarm" compile "$file" --threads "$t" -o "$so" "${db_flag[@]}" > /dev/null 2> "$work/compile.log" || {
        cat "$work/compile.log" >&2; exit 1; }
    fi
    tf_ms=""
    ort_ms=""
    for ((r = 0; r < rounds; ++r)); do
      # Each result is parsed after its run ends: a parser started in the same pipe (node) would
      # compete for the cores while the model runs (a sub-millisecond model measured 2x slower).
      tf_json=$("$tunefarm" bench "$so" --threads "$t" --runs 20 --json 2>/dev/null)
      tf=$(echo "$tf_json" | field median_s | awk '{print $1 * 1000}')
      ort_json=$(NODE_PATH=$node_path node "$shared/peers/ort_bench.js" "$file" --threads "$t" \
        "${input_flag[@]}" --runs 20 --seconds 2)
      ort=$(echo "$ort_json" | field median_ms)
      tf_ms=$(awk -v a="$tf" -v b="$tf_ms" 'BEGIN { print (b == "" || a < b) ? a : b }')
      ort_ms=$(awk -v a="$ort" -v b="$ort_ms" 'BEGIN { print (b == "" || a < b) ? a : b }')
    done
    awk -v m="$model" -v t="$t" -v a="$tf_ms" -v o="$ort_ms" -v ar="$arena" -v n="$naive" 'BEGIN {
      printf "%-20s %3d %12.2f %12.2f %9.2fx %14.2f %14.2f %7.1fx\n", m, t, a, o, o / a, ar / 1e6, n / 1e6, n / ar }'
  done
done
echo "Best median of $rounds turns each. ORT/tf > 1: tunefarm is faster. Arena: tunefarm's planned activation memory; no-reuse: every intermediate kept."
