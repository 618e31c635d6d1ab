#!/usr/bin/env bash
# Groups saved inputs by their first sanitizer line: fuzz/triage.sh [FILES...]
# (default: fuzz/findings/*). Prints "count  signature  example".
set -uo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
bin="$root/build-fuzz/fuzz/onnx_import_fuzzer"
[ $# -gt 0 ] || set -- "$root"/fuzz/findings/{crash,leak,timeout,oom,slow-unit}-*
for f in "$@"; do
  [ -e "$f" ] || continue
  out="$(timeout 60 "$bin" -runs=1 -timeout=10 -rss_limit_mb=4096 "$f" 2>&1)"
  # The signature: the report line plus the first frame inside the project.
  sig="$(grep -m1 -E 'runtime error|ERROR: (AddressSanitizer|LeakSanitizer|libFuzzer)|Assertion|TF_CHECK' <<<"$out" | sed 's/^.*\/work\/main\///; s/0x[0-9a-f]*//g; s/==[0-9]*==//g')"
  frame="$(grep -m1 -E '#[0-9]+ .* in tunefarm::' <<<"$out" | sed 's/.* in //; s/(.*//')"
  [ -n "$sig" ] || sig="ok"
  printf '%s | %s\t%s\n' "$sig" "$frame" "$f"
done | sort | awk -F'\t' '{c[$1]++; if (!($1 in ex)) ex[$1]=$2} END {for (k in c) printf "%4d  %s  %s\n", c[k], k, ex[k]}' | sort -rn
