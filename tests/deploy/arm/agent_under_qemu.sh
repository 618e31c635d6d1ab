#!/usr/bin/env bash
# An ARM board in the farm, under emulation (issue 15): tunefarm-agent and tunefarm-measure
# cross-built for aarch64 (the device-only build with Debian's cross compiler and the arm64
# multiarch gRPC packages), run under qemu-aarch64 beside an x86 tracker, tuner and agent.
# It checks that the ARM agent
#   - registers under its own key, described as a Cortex-A72 (qemu-user shows the host's
#     /proc/cpuinfo, so the agent is given a board's description with --cpuinfo);
#   - receives AArch64 kernels from the tuner, measures them and returns valid results for a
#     whole tuning job of its key, while the job of the x86 key goes to the x86 agent only;
#   - refuses an x86 kernel with an error that names both architectures: a job built for x86
#     (refused from the upload's target) and a bare x86 .so (refused from its ELF header).
# Timings under emulation mean nothing: this checks correctness and routing only.
#
#   agent_under_qemu.sh SOURCE_DIR TUNEFARM_BIN SHARED_DIR BUILD_DIR PROBE_BIN X86_KERNEL
# BUILD_DIR keeps the cross build between runs (incremental). PROBE_BIN is
# foreign_kernel_probe; X86_KERNEL an x86 test kernel with a "vadd" entry.
set -euo pipefail
src=$1 tunefarm=$2 shared=$3 arm_build=$4 probe=$5 x86_kernel=$6
for tool in aarch64-linux-gnu-g++ qemu-aarch64-static; do
  command -v "$tool" > /dev/null || {
    echo "FAIL: $tool not found: install g++-aarch64-linux-gnu and qemu-user-static (scripts/setup.sh)"; exit 1; }
done
[ -e /usr/lib/aarch64-linux-gnu/cmake/grpc/gRPCConfig.cmake ] || {
  echo "FAIL: the arm64 gRPC packages are missing: run scripts/setup.sh (libgrpc++-dev:arm64 and friends)"; exit 1; }

work=$(mktemp -d /tmp/tunefarm-arm-agent-XXXXXX)
pids=()
cleanup() {
  for pid in "${pids[@]}"; do kill "$pid" 2> /dev/null || true; done
  wait 2> /dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT
fail() {
  echo "FAIL: $*"
  for log in "$work"/*.log; do echo "--- $log"; tail -20 "$log"; done
  exit 1
}

cmake -S "$src" -B "$arm_build" -G Ninja -DCMAKE_TOOLCHAIN_FILE="$src/cmake/aarch64-linux-gnu.cmake" \
  -DTUNEFARM_DEVICE_ONLY=ON > "$work/configure.log" 2>&1 || fail "configuring the aarch64 device build"
cmake --build "$arm_build" > "$work/build.log" 2>&1 || fail "building the aarch64 device build"
agent="$arm_build/device_agent/tunefarm-agent"
file -b "$agent" | grep -q "ARM aarch64" || fail "$agent is not an aarch64 program"

# Without binfmt_misc (containers, CI) the kernel cannot exec an aarch64 helper itself: the
# agent spawns this host script, which runs the helper under qemu.
cat > "$work/measure-under-qemu" <<EOF
#!/bin/sh
exec qemu-aarch64-static "$arm_build/device_agent/tunefarm-measure" "\$@"
EOF
chmod +x "$work/measure-under-qemu"
# A Raspberry Pi 4's description (ARM Ltd, Cortex-A72, NEON), for two processors.
for processor in 0 1; do
  printf 'processor\t: %s\nBogoMIPS\t: 108.00\nFeatures\t: fp asimd evtstrm crc32 cpuid\n' "$processor"
  printf 'CPU implementer\t: 0x41\nCPU architecture: 8\nCPU variant\t: 0x0\nCPU part\t: 0xd08\nCPU revision\t: 3\n\n'
done > "$work/cpuinfo"

export TUNEFARM_TOKEN="arm-agent-test-$$-$RANDOM"
# The port a server printed in "... listening on HOST:PORT".
port_of() {
  for _ in $(seq 100); do
    port=$(sed -n 's/.*listening on .*:\([0-9][0-9]*\)$/\1/p' "$1" | head -1)
    [ -n "$port" ] && { echo "$port"; return; }
    sleep 0.1
  done
  fail "no 'listening on' line in $1"
}
"$tunefarm" tracker --host 127.0.0.1 --port 0 > "$work/tracker.log" 2>&1 & pids+=($!)
tracker=127.0.0.1:$(port_of "$work/tracker.log")
qemu-aarch64-static "$agent" --key arm-a72 --tracker "$tracker" --host 127.0.0.1 --port 0 \
  --cpuinfo "$work/cpuinfo" --measure-helper "$work/measure-under-qemu" > "$work/arm-agent.log" 2>&1 & pids+=($!)
"$tunefarm" agent --key x86 --tracker "$tracker" --host 127.0.0.1 --port 0 > "$work/x86-agent.log" 2>&1 & pids+=($!)
arm_agent=127.0.0.1:$(port_of "$work/arm-agent.log")
port_of "$work/x86-agent.log" > /dev/null
for _ in $(seq 100); do
  grep -q registered "$work/arm-agent.log" && grep -q registered "$work/x86-agent.log" && break
  sleep 0.1
done

"$tunefarm" devices --tracker "$tracker" > "$work/devices.log" 2>&1 || fail "tunefarm devices"
grep -E "^arm-a72 .*cortex-a72 \(0x41 0xd08\)" "$work/devices.log" > /dev/null ||
  fail "the ARM agent is not listed as a cortex-a72 under key arm-a72"
echo "registered: $(grep -E '^arm-a72 .*cortex-a72' "$work/devices.log" | tr -s ' ')"

# One tuning job per key, at the same time: a conv of the ONNX suite, 16 programs each.
model="$shared/onnx-tests/node/test_basic_conv_with_padding/model.onnx"
tune() {  # KEY DB LOG
  "$tunefarm" tune "$model" --tracker "$tracker" --key "$1" --db "$2" --trials 16 --per-round 8 \
    --population 64 --generations 1 --batch 4 --wait-timeout 240 > "$3" 2>&1
}
tune arm-a72 "$work/arm.db" "$work/tune-arm.log" & arm_job=$!
tune x86 "$work/x86.db" "$work/tune-x86.log" & x86_job=$!
wait $arm_job || fail "the tuning job for arm-a72 failed"
wait $x86_job || fail "the tuning job for x86 failed"

# Every record of the ARM job is an AArch64 program measured and checked on the ARM agent.
records() {  # DB -> "target<TAB>device key<TAB>valid<TAB>max abs error" lines
  "$tunefarm" db export --db "$1" | /usr/bin/python3 -c '
import json, sys
for line in sys.stdin:
    r = json.loads(line)
    print("%s\t%s\t%s\t%g" % (r["target"], r["device_key"], r["error_kind"] == "none",
                               r["max_abs_error"]))'
}
records "$work/arm.db" > "$work/arm-records.txt" || fail "exporting the ARM job's records"
records "$work/x86.db" > "$work/x86-records.txt" || fail "exporting the x86 job's records"
arm_count=$(wc -l < "$work/arm-records.txt")
[ "$arm_count" -ge 16 ] || fail "the ARM job stored $arm_count records, not 16"
grep -v -- "-mtriple=aarch64-linux-gnu -mcpu=cortex-a72" "$work/arm-records.txt" | head -3 | grep . &&
  fail "an ARM record was not built for aarch64 / cortex-a72"
# Valid means checked against the reference on the agent (a wrong output is a WRONG_RESULT).
valid=$(grep -c -P "\tTrue\t" "$work/arm-records.txt" || true)
[ "$valid" -ge 1 ] || fail "no ARM program was measured valid"
grep -v -P "\tarm-a72\t" "$work/arm-records.txt" | head -3 | grep . && fail "an ARM record has another device key"
grep -q -- "aarch64" "$work/x86-records.txt" && fail "the x86 job got an AArch64 program"
worst=$(awk -F'\t' '$3 == "True" && $4 > m { m = $4 } END { print m + 0 }' "$work/arm-records.txt")
echo "arm-a72 job: $arm_count records, $valid valid (checked against the reference on the agent," \
     "largest max abs error $worst), every one built for aarch64 (cortex-a72)"
echo "x86 job: $(wc -l < "$work/x86-records.txt") records, none for aarch64"
# The board's records build its artifact: compile for the job's target with its database.
arm_target=$(cut -f1 "$work/arm-records.txt" | head -1)
"$tunefarm" compile "$model" --db "$work/arm.db" --target "$arm_target" --threads 2 -o "$work/conv-a72.so" \
  > "$work/compile.log" 2>&1 || fail "compiling with the ARM job's records"
grep -q "(1 tuned)" "$work/compile.log" || fail "the compiled artifact did not use the ARM job's record"
file -b "$work/conv-a72.so" | grep -q "ARM aarch64" || fail "the artifact is not an aarch64 object"
echo "compiled with the arm-a72 records for \"$arm_target\": $(grep -o '1 kernels (1 tuned)' "$work/compile.log")"
# Routing: the tracker leased the ARM agent to the ARM job only.
grep -q "arm-a72" "$work/tune-x86.log" && fail "the x86 job mentions the ARM pool"

# An x86 kernel sent to the ARM agent: refused, naming both architectures.
if "$tunefarm" tune "$model" --tracker "$tracker" --key arm-a72 --db "$work/wrong.db" --trials 4 \
     --per-round 4 --population 16 --generations 1 --wait-timeout 120 \
     --target "llvm -mtriple=x86_64-linux-gnu -mcpu=x86-64" > "$work/tune-wrong.log" 2>&1; then
  grep -E "x86_64.*aarch64|aarch64.*x86_64" "$work/tune-wrong.log" > /dev/null ||
    fail "a job of x86 kernels on the ARM agent passed without naming the mismatch"
else
  grep -E "x86_64.*aarch64|aarch64.*x86_64" "$work/tune-wrong.log" > /dev/null ||
    fail "a job of x86 kernels on the ARM agent failed without naming both architectures"
fi
echo "x86 kernels of a job on the ARM agent: $(grep -m1 -oE "[^:]*x86_64[^;]*aarch64[^;]*" "$work/tune-wrong.log" | head -1)"
# A bare x86 .so, with no target in the upload: the ELF header is what refuses it.
"$probe" "$arm_agent" "$x86_kernel" vadd > "$work/probe.log" 2>&1 || fail "foreign_kernel_probe"
grep -q "^ERROR_KIND_LOAD .*is an ELF for x86_64, this host is aarch64" "$work/probe.log" ||
  fail "the ARM agent did not refuse an x86 .so by its ELF machine: $(cat "$work/probe.log")"
echo "a bare x86 kernel on the ARM agent: $(cut -c1-160 "$work/probe.log")"
grep -q "registered" "$work/arm-agent.log" && kill -0 "${pids[1]}" || fail "the ARM agent is not running any more"
echo "(timings under qemu mean nothing; this test checks correctness and routing only)"
