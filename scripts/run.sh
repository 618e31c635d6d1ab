#!/usr/bin/env bash
# The main job: install, build, then on a local farm (a tracker and one agent on loopback, a
# tunefarm.db SQLite file) tune a model from ../shared/models/, compile it with the tuned
# schedules, check its output against the reference, and time it beside the default schedules
# and ONNX Runtime.
#
# usage: scripts/run.sh [MODEL] [TRIALS]      (default: resnet18, 72 trials)
set -euo pipefail
cd "$(dirname "$0")/.."
model=${1:-resnet18}
trials=${2:-72}
threads=$(nproc)
shared=$(cd ../shared && pwd)

./scripts/setup.sh --peers
cmake -S . -B build -G Ninja > build-configure.log 2>&1 || { cat build-configure.log; exit 1; }
cmake --build build -j"$threads" --target tunefarm
tf=build/cli/tunefarm

# A token for this run only; the agent's measure helper never sees it.
export TUNEFARM_TOKEN=$(head -c 24 /dev/urandom | base64)
work=$(mktemp -d)
pids=()
cleanup() {
  for pid in "${pids[@]}"; do kill "$pid" 2> /dev/null || true; done
  wait 2> /dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT

# Starts a server with --port 0 and prints the address from its "listening on" line.
start_server() {
  local log=$1; shift
  "$@" > "$log" 2>&1 &
  pids+=($!)
  for _ in $(seq 100); do
    local address
    address=$(sed -n 's/.* listening on //p' "$log")
    if [ -n "$address" ]; then echo "$address"; return; fi
    sleep 0.1
  done
  echo "run.sh: $* did not start:" >&2; cat "$log" >&2; exit 1
}
tracker=$(start_server "$work/tracker.log" "$tf" tracker --host 127.0.0.1 --port 0)
start_server "$work/agent.log" "$tf" agent --tracker "$tracker" --key local --host 127.0.0.1 --port 0 > /dev/null
echo "== local farm: tracker $tracker, agent 'local'"
"$tf" devices --tracker "$tracker"

onnx=$shared/models/$model.onnx
input_name=$(sed -n "/\"$model\"/,/input_name/s/.*\"input_name\": \"\(.*\)\".*/\1/p" "$shared/models/MANIFEST.json")
echo "== tuning $model: $trials trials, $threads threads, records in tunefarm.db"
"$tf" tune "$onnx" --tracker "$tracker" --key local --db tunefarm.db --trials "$trials" --threads "$threads" |
  grep -v '^trial '

echo "== compiling with the tuned schedules, and with the default rules"
"$tf" compile "$onnx" --db tunefarm.db --threads "$threads" -o "build/$model.tuned.so" 2> /dev/null
"$tf" compile "$onnx" --threads "$threads" -o "build/$model.default.so" 2> /dev/null
"$tf" run "build/$model.tuned.so" --input "$input_name=$shared/models/$model.input.bin" \
  --expect "$shared/models/$model.output.bin"
for kind in default tuned; do "$tf" bench "build/$model.$kind.so" --runs 20 2> /dev/null; done

echo "== beside ONNX Runtime (tuned schedules)"
bench/models/model_bench.sh --tunefarm "$tf" --db tunefarm.db --models "$model" --threads "$threads"
