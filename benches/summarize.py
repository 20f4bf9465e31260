#!/usr/bin/env python3
"""Summarises the criterion results of `cargo bench -p jitson-benches --bench decode`
(and `--bench compile`) as the Markdown tables of docs/benchmarks.md.

Reads <criterion dir>/<group>/<entry>/new/{benchmark.json,estimates.json}; the
criterion dir is the first argument, default target/criterion beside this file's
workspace. Throughput is bytes of input / median time per iteration, in MB/s
(10^6 bytes).

Usage: python3 benches/summarize.py [target/criterion]
"""

import json
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CRIT = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "target", "criterion")

GROUPS = [
    "user", "order", "account",
    "user_array_1000", "order_array_1000", "account_array_1000",
    "twitter", "citm_catalog", "canada",
]
ENTRIES = [
    ("jitson::from_slice/jit", "jitson jit"),
    ("jitson::from_slice/interpreter", "jitson interp"),
    ("serde_json::from_slice", "serde_json from_slice"),
    ("serde_json::from_str", "serde_json from_str"),
    ("sonic_rs::from_slice", "sonic_rs from_slice"),
    ("simd_json::serde::from_slice", "simd_json (decode)"),
    ("simd_json::serde::from_slice (copy)", "simd_json (copy+decode)"),
]
# The from_slice contenders the JIT target compares with (simd-json without the
# copy of its input: the fastest, so the strictest comparison).
RIVALS = ["serde_json::from_slice", "sonic_rs::from_slice", "simd_json::serde::from_slice"]


def load():
    """{(group, function_id): (bytes or None, median ns)}"""
    out = {}
    for group in sorted(os.listdir(CRIT)) if os.path.isdir(CRIT) else []:
        gdir = os.path.join(CRIT, group)
        if not os.path.isdir(gdir):
            continue
        for entry in os.listdir(gdir):
            new = os.path.join(gdir, entry, "new")
            try:
                with open(os.path.join(new, "benchmark.json")) as f:
                    bench = json.load(f)
                with open(os.path.join(new, "estimates.json")) as f:
                    est = json.load(f)
            except OSError:
                continue
            tp = bench.get("throughput") or {}
            nbytes = tp.get("BytesDecimal") or tp.get("Bytes")
            out[(bench["group_id"], bench["function_id"])] = (nbytes, est["median"]["point_estimate"])
    return out


def main():
    res = load()
    if not res:
        sys.exit(f"no criterion results under {CRIT}")

    def mbs(group, fid):
        r = res.get((group, fid))
        return None if r is None or not r[0] else r[0] / r[1] * 1e3  # bytes/ns -> MB/s

    print("Decode throughput, MB/s (median time per iteration):\n")
    print("| data set | bytes | " + " | ".join(label for _, label in ENTRIES) + " |")
    print("|---|---:|" + "---:|" * len(ENTRIES))
    for g in GROUPS:
        if not any(k[0] == g for k in res):
            continue
        nbytes = next(r[0] for k, r in res.items() if k[0] == g)
        cells = []
        for fid, _ in ENTRIES:
            v = mbs(g, fid)
            cells.append("-" if v is None else f"{v:.0f}")
        print(f"| {g} | {nbytes} | " + " | ".join(cells) + " |")

    print("\nRatios (throughput / throughput):\n")
    print("| data set | jit / serde_json::from_slice | jit / fastest rival from_slice (which) "
          "| interpreter / serde_json::from_slice |")
    print("|---|---:|---:|---:|")
    for g in GROUPS:
        jit = mbs(g, "jitson::from_slice/jit")
        interp = mbs(g, "jitson::from_slice/interpreter")
        serde = mbs(g, "serde_json::from_slice")
        rivals = [(mbs(g, r), r) for r in RIVALS if mbs(g, r) is not None]
        if jit is None or serde is None or not rivals:
            continue
        best, best_name = max(rivals)
        interp_ratio = "-" if interp is None else f"{interp / serde:.2f}x"
        print(f"| {g} | {jit / serde:.2f}x | {jit / best:.2f}x ({best_name}) | {interp_ratio} |")

    compile_rows = sorted((k[1], r[1]) for k, r in res.items() if k[0] == "compile")
    if compile_rows:
        print("\nCompile latency (jitson_jit::compile, median):\n")
        print("| layout | ms |")
        print("|---|---:|")
        for fid, ns in compile_rows:
            print(f"| {fid} | {ns / 1e6:.2f} |")


if __name__ == "__main__":
    main()
