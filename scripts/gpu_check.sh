#!/usr/bin/env bash
# Issue 16's check on a GPU machine lent by the `device` tool (one short run; docs/gpu.md):
#   1. a tracker and a GPU agent (--device cuda:0) on loopback;
#   2. tune GEMM 4096^3 float32 and ResNet-18's 3x3 conv at 56x56 for a few hundred trials each;
#   3. print their GFLOP/s beside cuBLAS and cuDNN (PyTorch, TF32 off), timed in the same run;
#   4. compile ResNet-18 for the GPU untuned, with the default GPU programs and with one thread
#      per output point, run each against PyTorch's output, and time them beside PyTorch's
#      eager model (cuDNN).
# It runs the binaries packed by scripts/gpu_bundle.sh on this machine, so run that first here:
#   scripts/gpu_bundle.sh
#   device run: carry [".gpu/tunefarm-gpu.tar.xz"], command "bash scripts/gpu_check.sh"
# Everything it writes, logs and the tuning database included, goes to $OUT (or /tmp/gpu-check).
#
# usage: scripts/gpu_check.sh [GEMM_TRIALS] [CONV_TRIALS] [SECONDS_PER_TUNE]
set -uo pipefail
cd "$(dirname "$0")/.."
gemm_trials=${1:-256}
conv_trials=${2:-256}
# Two tunes of at most 150 s (and 30 s more to finish the batch in flight before a kill), the
# rest about 100 s (the peers, the ResNet-18 export, two builds, runs and benches; each build,
# run and bench stopped after a minute at most, should one hang): within one 600 s command.
tune_limit=${3:-150}
out=${OUT:-/tmp/gpu-check}
mkdir -p "$out"
exec > >(tee "$out/gpu_check.log") 2>&1

root=/tmp/tunefarm-gpu
rm -rf "$root" && mkdir -p "$root/work"
[ -f .gpu/tunefarm-gpu.tar.xz ] || { echo "no .gpu/tunefarm-gpu.tar.xz: run scripts/gpu_bundle.sh and carry it"; exit 1; }
if command -v xz > /dev/null; then
  tar -xJf .gpu/tunefarm-gpu.tar.xz -C "$root"
else  # no xz-utils on the machine: Python's lzma reads it
  python3 -c 'import sys, tarfile; tarfile.open(sys.argv[1]).extractall(sys.argv[2])' .gpu/tunefarm-gpu.tar.xz "$root"
fi || { echo "cannot unpack .gpu/tunefarm-gpu.tar.xz"; exit 1; }
# The bundle's libraries for tunefarm's processes only (the agent passes them on to its measure
# helper), ahead of the machine's own path, which may be how its driver is found: never for
# python3 or nvidia-smi, whose libraries they would shadow.
tf=(env "LD_LIBRARY_PATH=$root/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" "$root/bin/tunefarm")
echo "== machine"
cat "$root/BUILT_WITH"
ldd --version | head -1
echo "LD_LIBRARY_PATH=${LD_LIBRARY_PATH:-}"
ldconfig -p 2> /dev/null | grep -E 'libcuda\.so|libnvidia-ml' | head -4
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv,noheader
lscpu | grep -E 'Model name|^CPU\(s\)'
"${tf[@]}" version || { echo "the bundled tunefarm does not start here"; "${tf[@]:0:2}" ldd "$root/bin/tunefarm" | grep 'not found'; exit 1; }

echo "== farm: tracker and GPU agent on loopback"
token=$root/token
head -c 24 /dev/urandom | od -An -tx1 | tr -d ' \n' > "$token"
chmod 600 "$token"
"${tf[@]}" tracker --host 127.0.0.1 --port 19190 --token-file "$token" --quiet > "$out/tracker.log" 2>&1 &
tracker=$!
agent=
# On every exit: the servers go, or the lease would run on until its time limit.
trap 'kill $tracker $agent 2> /dev/null' EXIT
sleep 1
# TUNEFARM_CUDA_DRIVER: another driver library (the tests' fake one, for a dry run of this
# script on a machine without a GPU).
"${tf[@]}" agent --key gpu --device cuda:0 --cuda-driver "${TUNEFARM_CUDA_DRIVER:-libcuda.so.1}" --host 127.0.0.1 --port 19191 --tracker 127.0.0.1:19190 \
  --token-file "$token" --measure-helper "$root/bin/tunefarm-measure" > "$out/agent.log" 2>&1 &
agent=$!
sleep 3
cat "$out/agent.log"
kill -0 $agent 2> /dev/null || { echo "the GPU agent did not start"; exit 1; }
"${tf[@]}" devices --tracker 127.0.0.1:19190 --token-file "$token"

echo "== workloads"
if [ -n "${GPU_CHECK_WORKLOADS:-}" ]; then  # a dry run: DIR with gemm4096.onnx and resnet18_conv.onnx
  # (and resnet18.onnx, resnet18.input.npy, resnet18.output.npy for the end-to-end step)
  cp "$GPU_CHECK_WORKLOADS"/*.onnx "$GPU_CHECK_WORKLOADS"/*.npy "$root/work/" 2> /dev/null
else
  python3 bench/gpu/gpu_workloads.py "$root/work" kernels || exit 1
fi

best_seconds() {  # DB: the best valid cost of its one workload, in seconds
  "${tf[@]}" db stats --db "$1" | awk '/^tfdag/ && $3 > 0 {
    s = ($5 == "ms") ? $4 / 1e3 : ($5 == "us") ? $4 / 1e6 : ($5 == "ns") ? $4 / 1e9 : $4; print s }'
}
tune() {  # NAME TRIALS: tunes $root/work/NAME.onnx into $out/NAME.db
  echo "== tuning $1: $2 trials (at most ${tune_limit}s)"
  timeout -k 30 "$tune_limit" "${tf[@]}" tune "$root/work/$1.onnx" --tracker 127.0.0.1:19190 --key gpu --token-file "$token" \
    --db "$out/$1.db" --trials "$2" --threads 1 --population 512 --per-round 32 --batch 16 \
    --curves "$out/$1.svg" 2>&1 | tail -15
  "${tf[@]}" db stats --db "$out/$1.db"
}
tune gemm4096 "$gemm_trials"
tune resnet18_conv "$conv_trials"

echo "== peers (same GPU, same run)"
python3 bench/gpu/gpu_peers.py | tee "$out/peers.txt"

echo "== tunefarm against the peers"
[ -n "${TUNEFARM_CUDA_DRIVER:-}" ] && echo "(a dry run on the driver $TUNEFARM_CUDA_DRIVER: the figures below measure nothing)"
report() {  # NAME FLOPS PEER LABEL
  local sec peer
  sec=$(best_seconds "$out/$1.db")
  peer=$(awk -v p="$3" '$1 == p {print $3}' "$out/peers.txt")
  if [ -z "$sec" ]; then echo "$4: no valid tuned record"; return; fi
  awk -v f="$2" -v s="$sec" -v p="${peer:-0}" -v l="$4" -v n="$3" 'BEGIN {
    g = f / s / 1e9; printf "%s: tunefarm %.1f GFLOP/s (%.3g ms), %s %.1f GFLOP/s, ratio %.2f\n", l, g, s * 1e3, n, p, (p > 0 ? g / p : 0) }'
}
report gemm4096 $((2 * 4096 * 4096 * 4096)) cublas_gemm4096 "GEMM 4096^3 f32"
report resnet18_conv $((2 * 64 * 56 * 56 * 64 * 9)) cudnn_resnet18_conv "ResNet-18 conv 64x56x56 3x3"

echo "== padded shared rows against none (the same tuning runs' records)"
for w in gemm4096:$((2 * 4096 * 4096 * 4096)) resnet18_conv:$((2 * 64 * 56 * 56 * 64 * 9)); do
  echo "${w%%:*}:"
  "${tf[@]}" db export --db "$out/${w%%:*}.db" | python3 bench/gpu/padding_report.py "${w##*:}"
done

echo "== ResNet-18 end to end on the GPU, untuned"
# Exported here, after the tuning: a failed export costs this step only.
[ -z "${GPU_CHECK_WORKLOADS:-}" ] && { python3 bench/gpu/gpu_workloads.py "$root/work" resnet18 || echo "the ResNet-18 export failed"; }
if [ -f "$root/work/resnet18.onnx" ]; then
  # The GPU's arch from the agent's first line ("compute capability 9.0" -> sm_90).
  # Its SM count too ("132 SMs"): the default programs size their tiles to fill the GPU.
  arch=$(grep -o 'compute capability [0-9]*\.[0-9]*' "$out/agent.log" | head -1 | awk '{split($3, v, "."); print "sm_" v[1] v[2]}')
  sms=$(grep -o '[0-9]* SMs' "$out/agent.log" | head -1 | awk '{print $1}')
  target="cuda -arch=${arch:-sm_90}${sms:+ -num-sms=$sms}"
  # Untuned both ways: the default GPU programs (with the time of each kernel call), and one
  # thread per output point, to see what the default programs gain.
  # A kernel whose default program does not build falls back to one thread per point with a
  # warning: the build's log keeps them, and the warnings are shown.
  for untuned in program thread-per-point; do
    echo "-- untuned GPU kernels: $untuned"
    so=$root/resnet18.$untuned.so
    timeout -k 5 60 "${tf[@]}" compile "$root/work/resnet18.onnx" --target "$target" --untuned-gpu "$untuned" -o "$so" \
      > "$out/resnet18.$untuned.compile.log" 2>&1
    grep -E 'warn|wrote|error' "$out/resnet18.$untuned.compile.log" | tail -8
    # Random weights give logits of a few units: 2e-3 absolute is the float32 order-of-sums noise.
    timeout -k 5 30 "${tf[@]}" run "$so" --input "$root/work/resnet18.input.npy" \
      --expect "$root/work/resnet18.output.npy" --tolerance 2e-3
    case $? in 124 | 137) echo "the run did not end in 30 s: no bench"; continue ;; esac
    if [ "$untuned" = program ]; then
      timeout -k 5 60 "${tf[@]}" bench "$so" --runs 50 --warmup 5 --profile | head -40
    else
      timeout -k 5 45 "${tf[@]}" bench "$so" --runs 20 --warmup 3
    fi
  done
  grep pytorch_resnet18 "$out/peers.txt" | awk '{printf "PyTorch eager ResNet-18 (cuDNN, host clock as tunefarm bench): %.3f ms\n", $2 * 1e3}'
else
  echo "no resnet18.onnx (a dry run, or the export failed)"
fi
# Not a bare `wait`: it would also wait for the `tee` above, which waits for this script.
kill $agent $tracker 2> /dev/null
wait $agent $tracker 2> /dev/null
echo "== done"
