#!/usr/bin/env bash
# The ARM deploy path under emulation (issue 15): the deploy runtime and its C API example
# cross-built for aarch64 with Debian's cross compiler, and every shared model compiled here
# for a Cortex-A72, run under qemu-aarch64 and compared with its reference output. Timings under
# emulation mean nothing, so this checks correctness only; it also prints each artifact's count
# of NEON vector instructions beside the x86 build's SSE/AVX count, and fails when there are no
# NEON ones (the kernels must be vectorized).
# Then a quantized model (make_quantized_model's mlp: two QLinearMatMuls on the packed int8
# kernels) compiled for three cores: Neoverse V1 (usdot, +i8mm), Neoverse N1 (sdot only,
# +dotprod: the unsigned bytes are shifted into the signed range and corrected) and Cortex-A72
# (neither), run under qemu's "max" CPU, which has both instructions; each output must equal the
# x86 build's (exact integer arithmetic), and the V1 and N1 artifacts must use their instruction.
#
#   run_models_under_qemu.sh SOURCE_DIR TUNEFARM_BIN SHARED_DIR MAKE_QUANTIZED_MODEL_BIN
set -euo pipefail
src=$1 tunefarm=$2 shared=$3 make_quantized=$4
for tool in aarch64-linux-gnu-g++ aarch64-linux-gnu-objdump qemu-aarch64-static; do
  command -v "$tool" > /dev/null || {
    echo "FAIL: $tool not found: install g++-aarch64-linux-gnu and qemu-user-static (scripts/setup.sh)"; exit 1; }
done
work=$(mktemp -d /tmp/tunefarm-arm-XXXXXX)
trap 'rm -rf "$work"' EXIT

cmake -S "$src" -B "$work/build" -G Ninja -DCMAKE_TOOLCHAIN_FILE="$src/cmake/aarch64-linux-gnu.cmake" \
  -DTUNEFARM_RUNTIME_ONLY=ON > "$work/configure.log" 2>&1 || { cat "$work/configure.log"; exit 1; }
cmake --build "$work/build" > "$work/build.log" 2>&1 || { cat "$work/build.log"; exit 1; }
example="$work/build/deploy/tunefarm_run_model_example"
file -b "$example" | grep -q "ARM aarch64" || { echo "FAIL: $example is not an aarch64 program"; exit 1; }

# qemu finds the arm64 C library through multiarch (/lib/aarch64-linux-gnu, with the agent's
# packages) or the cross compiler's copy. Never both: the cross ld.so with the multiarch libc
# (the host's ld.so.cache lists it) spins forever.
qemu=(qemu-aarch64-static)
[ -e /lib/aarch64-linux-gnu/libc.so.6 ] || qemu+=(-L /usr/aarch64-linux-gnu)

target="llvm -mtriple=aarch64-linux-gnu -mcpu=cortex-a72"
failed=0
for model in resnet18 mobilenet_v2 squeezenet1_1 transformer_encoder; do
  artifact="$work/$model.so"
  "$tunefarm" compile "$shared/models/$model.onnx" --target "$target" --threads 2 -o "$artifact" > "$work/compile.log" 2>&1 ||
    { cat "$work/compile.log"; exit 1; }
  timeout 120 "${qemu[@]}" "$example" --threads 2 --save "$work/$model.out" "$artifact" \
    "$shared/models/$model.input.bin" > "$work/run.log" 2>&1 || { cat "$work/run.log"; exit 1; }
  error=$(/usr/bin/python3 - "$work/$model.out0.bin" "$shared/models/$model.output.bin" <<'PY'
import sys
from array import array
got, want = array('f'), array('f')
got.frombytes(open(sys.argv[1], 'rb').read())
want.frombytes(open(sys.argv[2], 'rb').read())
print(max(abs(a - b) for a, b in zip(got, want)) if len(got) == len(want) and got else 'size-mismatch')
PY
)
  neon=$(aarch64-linux-gnu-objdump -d --no-show-raw-insn "$artifact" | grep -cE '\sv[0-9]+\.(4s|2d|8h|16b)' || true)
  # The same model for this x86 machine, for its count of SIMD-register instructions beside.
  "$tunefarm" compile "$shared/models/$model.onnx" --threads 2 -o "$work/$model.x86.so" > "$work/compile.log" 2>&1 ||
    { cat "$work/compile.log"; exit 1; }
  x86=$(objdump -d --no-show-raw-insn "$work/$model.x86.so" | grep -cE '%[xyz]mm[0-9]+' || true)
  verdict=$(/usr/bin/python3 -c "import sys; e=sys.argv[1]; print('ok' if e != 'size-mismatch' and float(e) <= 1e-3 else 'FAIL')" "$error")
  [ "$neon" -gt 0 ] || verdict=FAIL
  echo "$model: aarch64 ($target) under qemu: max abs error $error against the reference: $verdict;" \
       "NEON vector instructions in the artifact: $neon (the x86 build's SSE/AVX ones: $x86)"
  [ "$verdict" = ok ] || failed=1
done

"$make_quantized" mlp "$work/int8.onnx" 16 64 > "$work/make.log" 2>&1 || { cat "$work/make.log"; exit 1; }
/usr/bin/python3 -c "
import random, struct, sys
random.seed(5)
open(sys.argv[1], 'wb').write(struct.pack('<1024f', *[random.uniform(-2, 2) for _ in range(1024)]))" "$work/int8.in.bin"
"$tunefarm" compile "$work/int8.onnx" --threads 2 -o "$work/int8.x86.so" > "$work/compile.log" 2>&1 ||
  { cat "$work/compile.log"; exit 1; }
"$tunefarm" run "$work/int8.x86.so" -i "$work/int8.in.bin" -o "$work/int8.x86.out.bin" > "$work/run.log" 2>&1 ||
  { cat "$work/run.log"; exit 1; }
for cpu in neoverse-v1 neoverse-n1 cortex-a72; do
  artifact="$work/int8.$cpu.so"
  "$tunefarm" compile "$work/int8.onnx" --target "llvm -mtriple=aarch64-linux-gnu -mcpu=$cpu" --threads 2 \
    -o "$artifact" > "$work/compile.log" 2>&1 || { cat "$work/compile.log"; exit 1; }
  timeout 120 "${qemu[@]}" -cpu max "$example" --threads 2 --save "$work/int8.$cpu.out" "$artifact" \
    "$work/int8.in.bin" > "$work/run.log" 2>&1 || { cat "$work/run.log"; exit 1; }
  error=$(/usr/bin/python3 - "$work/int8.$cpu.out0.bin" "$work/int8.x86.out.bin" <<'PY'
import sys
from array import array
got, want = array('f'), array('f')
got.frombytes(open(sys.argv[1], 'rb').read())
want.frombytes(open(sys.argv[2], 'rb').read())
# A reference of zeros would make any match vacuous.
print(max(abs(a - b) for a, b in zip(got, want)) if len(got) == len(want) and any(want) else 'size-mismatch')
PY
)
  usdot=$(aarch64-linux-gnu-objdump -d --no-show-raw-insn "$artifact" | grep -cE '\susdot\s' || true)
  sdot=$(aarch64-linux-gnu-objdump -d --no-show-raw-insn "$artifact" | grep -cE '\ssdot\s' || true)
  verdict=$(/usr/bin/python3 -c "import sys; e=sys.argv[1]; print('ok' if e != 'size-mismatch' and float(e) <= 1e-5 else 'FAIL')" "$error")
  case $cpu in
    neoverse-v1) [ "$usdot" -gt 0 ] || verdict=FAIL ;;
    neoverse-n1) [ "$sdot" -gt 0 ] && [ "$usdot" -eq 0 ] || verdict=FAIL ;;
    *) [ "$sdot" -eq 0 ] && [ "$usdot" -eq 0 ] || verdict=FAIL ;;
  esac
  echo "int8 mlp for $cpu under qemu -cpu max: max abs error $error against the x86 build: $verdict;" \
       "usdot $usdot, sdot $sdot instructions in the artifact"
  [ "$verdict" = ok ] || failed=1
done
exit $failed
