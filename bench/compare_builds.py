#!/usr/bin/env python3
"""compare_builds.py OUT_DIR — the table of bench/compare_builds.sh: for each
measured figure, the median and range over the rounds of the old and the new
build, their ratio, and whether the two ranges overlap (then the difference is
noise). Also checks that both builds wrote the same compressed sizes."""
import glob
import json
import os
import statistics
import sys


def load(out, kind, side):
    return [json.load(open(f)) for f in sorted(glob.glob(os.path.join(out, f"{kind}_{side}_*.json")))]


def series(runs, key_of, value_of):
    acc = {}
    for run in runs:
        for row in run["rows"]:
            k = key_of(row)
            if k is None:
                continue
            acc.setdefault(k, []).append(value_of(row))
    return acc


def main():
    out = sys.argv[1]
    figures = [
        ("codec", lambda r: (r["dataset"], "compress GB/s"), lambda r: r["compress_rel_gbps"]),
        ("codec", lambda r: (r["dataset"], "decompress GB/s"), lambda r: r["decompress_gbps"]),
        ("codec", lambda r: (r["dataset"], "ratio"), lambda r: r["ratio"]),
        ("hom", lambda r: (r["dataset"], "hom add GB/s"), lambda r: r["hom_gbps"]),
        ("allreduce", lambda r: (f"{r['bytes'] >> 20} MiB {r['mode']}", "allreduce mean us"),
         lambda r: r["time_us"]["avg"]),
    ]
    print(f"{'figure':44s} {'old median (range)':>26s} {'new median (range)':>26s} {'new/old':>8s}  verdict")
    summary = []
    for kind, key_of, value_of in figures:
        old = series(load(out, kind, "old"), key_of, value_of)
        new = series(load(out, kind, "new"), key_of, value_of)
        for k in sorted(old):
            if k not in new:
                continue
            o, n = old[k], new[k]
            mo, mn = statistics.median(o), statistics.median(n)
            overlap = max(min(o), min(n)) <= min(max(o), max(n))
            same = "identical" if o == n else None
            verdict = same or ("noise (ranges overlap)" if overlap else "differs")
            name = f"{k[0]} {k[1]}"
            print(f"{name:44s} {mo:10.4g} ({min(o):.4g}-{max(o):.4g}) {mn:10.4g} ({min(n):.4g}-{max(n):.4g}) "
                  f"{mn / mo if mo else float('nan'):8.3f}  {verdict}")
            summary.append({"figure": name, "old": o, "new": n, "old_median": mo, "new_median": mn,
                            "ranges_overlap": overlap})
    with open(os.path.join(out, "summary.json"), "w") as f:
        json.dump(summary, f, indent=1)


if __name__ == "__main__":
    main()
