#!/usr/bin/env python3
"""Whether padded shared rows paid, from one tuning database's records (docs/gpu.md, "Bank
conflicts and padded rows"): reads `tunefarm db export` JSON lines on stdin and prints, for the
records whose schedule pads a shared tile (an "SA" step) and for those that do not, how many
were measured valid and the best cost (the median of a record's repeats, as records rank).
usage: tunefarm db export --db FILE | bench/gpu/padding_report.py [FLOPS]
"""
import json
import statistics
import sys


def main():
    flops = float(sys.argv[1]) if len(sys.argv) > 1 else 0.0
    best = {True: None, False: None}
    valid = {True: 0, False: 0}
    for line in sys.stdin:
        if not line.strip():
            continue
        record = json.loads(line)
        if record["error_kind"] != "none" or not record["costs_sec"]:
            continue
        padded = '["SA",' in record["schedule_json"].replace(" ", "")
        cost = statistics.median(record["costs_sec"])
        valid[padded] += 1
        if best[padded] is None or cost < best[padded]:
            best[padded] = cost
    for padded in (True, False):
        label = "padded rows" if padded else "no padding "
        if best[padded] is None:
            print(f"{label}: no valid record")
            continue
        rate = f", {flops / best[padded] / 1e9:.1f} GFLOP/s" if flops > 0 else ""
        print(f"{label}: {valid[padded]} valid records, best {best[padded] * 1e3:.3f} ms{rate}")


if __name__ == "__main__":
    main()
