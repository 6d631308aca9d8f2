#!/usr/bin/env python3
"""The tables of docs/reports/2026-11-29-codec-frontier-3.md from the packed results
(bench/results/2026-11-29-codec-frontier-3.tar.xz, member frontier.json)."""
import math
import os
import statistics
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", ".."))
import results_data as rd  # noqa: E402

METHODS = ["zcoll-fast", "zcoll-dense", "zcoll-dense-64k", "zcoll-dense-nd", "sz3-1d", "sz3-nd",
           "zfp-nd"]
DENSE_GOALS = {"compress_gbps_cpu": 1.0, "decompress_gbps_cpu": 1.5}


def geomean(v):
    return math.exp(sum(math.log(x) for x in v) / len(v))


def med_range(v, fmt="{:.2f}"):
    return (fmt + " [" + fmt + ", " + fmt + "]").format(statistics.median(v), min(v), max(v))


def main(path="bench/results/2026-11-29-codec-frontier-3/run/frontier.json"):
    """The tables of the run at path (part 3's by default; part 4 reuses them)."""
    r = rd.load_json(path)
    rows = [x for x in r["rows"] if "ratio" in x and x["method"] in METHODS]
    rels = sorted({x["rel"] for x in rows}, reverse=True)
    print("| REL | " + " | ".join(METHODS) + " | dense / SZ3 1-D | dense-nd / SZ3 n-D |")
    print("|---|" + "---:|" * (len(METHODS) + 2))
    for rel in rels:
        g = {m: geomean([x["ratio"] for x in rows if x["rel"] == rel and x["method"] == m])
             for m in METHODS}
        print(f"| {rel:g} | " + " | ".join(f"{g[m]:.2f}" for m in METHODS)
              + f" | {g['zcoll-dense'] / g['sz3-1d']:.3f}"
              + f" | {g['zcoll-dense-nd'] / g['sz3-nd']:.3f} |")
    print()
    print("| method | compress GB/s, CPU time | decompress GB/s, CPU time | compress GB/s, wall "
          "| decompress GB/s, wall | max err/eb |")
    print("|---|---|---|---|---|---:|")
    for m in METHODS:
        s = [x for x in rows if x["method"] == m]
        cols = [med_range([x[k]["median"] for x in s]) for k in
                ("compress_gbps_cpu", "decompress_gbps_cpu", "compress_gbps", "decompress_gbps")]
        err = max(x["err_over_eb"] for x in s)
        print(f"| {m} | " + " | ".join(cols) + f" | {err:.3f} |")
    mc = [x["copy_gbps"]["median"] for x in r["rows"] if x["method"] == "memcpy"]
    print(f"| memcpy (wall) | | | {med_range(mc)} | | |")
    print()
    print("Dense rows meeting the speed goals (median of the repeats, CPU time):")
    print()
    print("| method | REL | compress >= 1.0 | decompress >= 1.5 | slowest compress | "
          "slowest decompress |")
    print("|---|---|---|---|---|---|")
    for m in ("zcoll-dense", "zcoll-dense-nd"):
        for rel in rels:
            s = [x for x in rows if x["method"] == m and x["rel"] == rel]
            c = [x["compress_gbps_cpu"]["median"] for x in s]
            d = [x["decompress_gbps_cpu"]["median"] for x in s]
            print(f"| {m} | {rel:g} | {sum(v >= 1.0 for v in c)}/{len(c)} | "
                  f"{sum(v >= 1.5 for v in d)}/{len(d)} | {min(c):.2f} | {min(d):.2f} |")
    print()
    g = [x for x in r["rows"] if x["method"] == "zcoll-fast-goals"]
    if g:
        print("| fast-codec goal | rows met (median of the repeats) | worst row | median row |")
        print("|---|---|---|---|")
        goals = {"decompress_over_memcpy": 0.7, "hom_add_over_memcpy": 1.0,
                 "compress_2t_over_1t": 1.8, "decompress_2t_over_1t": 1.8,
                 "hom_add_2t_over_1t": 1.8}
        for k, v in goals.items():
            med = [x["goals"][k]["median"] for x in g]
            print(f"| {k} >= {v} | {sum(m >= v for m in med)}/{len(med)} | {min(med):.2f} | "
                  f"{statistics.median(med):.2f} |")
        print()
    print("| file | REL | fast | dense | dense-nd | SZ3 1-D | SZ3 n-D | ZFP n-D | "
          "dense / SZ3 1-D | dense-nd / SZ3 n-D |")
    print("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    pick = ["zcoll-fast", "zcoll-dense", "zcoll-dense-nd", "sz3-1d", "sz3-nd", "zfp-nd"]
    for rel in rels:
        for f in sorted({x["file"] for x in rows}):
            by = {x["method"]: x["ratio"] for x in rows if x["file"] == f and x["rel"] == rel}
            v = [by[m] for m in pick]
            print(f"| {f} | {rel:g} | " + " | ".join(f"{x:.2f}" for x in v)
                  + f" | {v[1] / v[3]:.2f} | {v[2] / v[4]:.2f} |")


if __name__ == "__main__":
    main()
