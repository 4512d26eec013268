#!/usr/bin/env python3
"""Markdown tables for BENCHMARKS.md from Skylight result files.

Usage: scripts/bench-table.py benchmarks/<device>-<date>/*.json
Prints, per app, the best variant of each kernel and precision (median GFLOP/s
and GB/s, % of the measured roofline ceiling) and a CUDA reference where one
exists: the issues' H100 figures, replaced for the stream kernels by a
same-device baseline when a `cuda-stream.json` (scripts/cuda-stream-ref.py)
is among the files.
"""
import json
import sys

# CUDA figures measured on an H100 80GB HBM3 (BabelStream 5.0, 2^25 elements;
# su3_bench nvcc -O3 sm_90, L = 32), as given in the project's issues.
CUDA = {
    ("stream", "copy", "f32"): 2524.052, ("stream", "mul", "f32"): 2369.266,
    ("stream", "add", "f32"): 2691.190, ("stream", "triad", "f32"): 2700.322,
    ("stream", "dot", "f32"): 2426.579, ("stream", "copy", "f64"): 2910.485,
    ("stream", "mul", "f64"): 2802.143, ("stream", "add", "f64"): 2940.673,
    ("stream", "triad", "f64"): 2931.628, ("stream", "dot", "f64"): 2828.152,
    ("su3", "mat-mul", "f32"): 4007.0, ("su3", "mat-mul", "f64"): 2214.0,
}


def atoms(r):
    """The atom count of an MD record, else an empty string."""
    return str(r.get("params", {}).get("atoms", ""))


def main(paths):
    records = []
    for p in paths:
        with open(p) as f:
            data = json.load(f)
        if "records" in data:
            records += data["records"]
        else:
            for row in data["rows"]:
                CUDA[("stream", row["kernel"], row["precision"])] = round(row["gb_s"], 1)
    ok = [r for r in records if r["validation"]["passed"]]
    bw = max((r["gbps"] for r in ok if r["app"] == "stream"), default=0.0)
    peak = {}
    for r in ok:
        if r["app"] == "peak" and r["kernel"] == "fma":
            peak[r["precision"]] = max(peak.get(r["precision"], 0.0), r["gflops"])
    best = {}
    for r in ok:
        # Sizes that differ in kind (comd's 32,000 and 2,048,000 atoms) get a row each.
        key = (r["app"], r["kernel"], r["precision"], atoms(r))
        metric = r["gflops"] if r["model"]["flops"] > 0 and r["app"] != "stream" else r["gbps"]
        if key not in best or metric > best[key][0]:
            best[key] = (metric, r)
    if ok:
        p = ok[0]["platform"]
        print(f"Device: {p['name']} ({p['backend']}, driver {p['driver']} {p['driver_info']})\n")
    print(f"Measured ceilings: bandwidth {bw:.0f} GB/s; " +
          ", ".join(f"{k} {v:.0f} GFLOP/s" for k, v in sorted(peak.items())) + "\n")
    print("| app | kernel | best variant | prec | median | GFLOP/s | GB/s | % of ceiling | CUDA ref | % of CUDA |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for (app, kernel, prec, _), (_, r) in sorted(best.items(), key=lambda kv: tuple(map(str, kv[0]))):
        attain = None
        if app == "stream" or r["model"]["flops"] == 0:
            frac = r["gbps"] / bw if bw else None
        elif app == "peak" and kernel == "fma":
            frac = None
        else:
            p = peak.get(prec)
            attain = min(p, r["arithmetic_intensity"] * bw) if p else None
            frac = r["gflops"] / attain if attain else None
        ref = CUDA.get((app, kernel, prec))
        value = r["gbps"] if app == "stream" else r["gflops"]
        t = r["stats"]["median"]
        variant = r["variant"] + (f" @{atoms(r)} atoms" if atoms(r) else "")
        print(f"| {app} | {kernel} | {variant} | {prec} | {t*1e3:.3f} ms | {r['gflops']:.1f} | {r['gbps']:.1f} | "
              f"{'' if frac is None else f'{100*frac:.1f}%'} | {'' if ref is None else ref} | "
              f"{'' if ref is None else f'{100*value/ref:.1f}%'} |")


if __name__ == "__main__":
    main(sys.argv[1:])
