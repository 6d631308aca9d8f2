#!/usr/bin/env python3
"""The tables of docs/reports/2026-11-28-codec-frontier.md from the packed results
(bench/results/2026-11-28-codec-frontier.tar.xz, member frontier.json)."""
import math
import os
import statistics
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", ".."))
import results_data as rd  # noqa: E402

METHODS = ["zcoll-fast", "zcoll-dense", "zcoll-dense-64k", "sz3-1d", "sz3-nd", "zfp-nd"]


def geomean(v):
    return math.exp(sum(math.log(x) for x in v) / len(v))


def main():
    r = rd.load_json("bench/results/2026-11-28-codec-frontier/frontier.json")
    rows = r["rows"]
    rels = sorted({x["rel"] for x in rows}, reverse=True)
    print("| REL | " + " | ".join(METHODS) + " | dense / SZ3 1-D | dense-64k / SZ3 1-D | "
          "dense / SZ3 n-D |")
    print("|---|" + "---:|" * (len(METHODS) + 3))
    for rel in rels:
        g = {m: geomean([x["ratio"] for x in rows if x["rel"] == rel and x["method"] == m])
             for m in METHODS}
        print(f"| {rel:g} | " + " | ".join(f"{g[m]:.2f}" for m in METHODS)
              + f" | {g['zcoll-dense'] / g['sz3-1d']:.3f}"
              + f" | {g['zcoll-dense-64k'] / g['sz3-1d']:.3f}"
              + f" | {g['zcoll-dense'] / g['sz3-nd']:.3f} |")
    print()
    print("| method | compress GB/s, CPU time | decompress GB/s, CPU time | compress GB/s, wall "
          "| decompress GB/s, wall | max err/eb |")
    print("|---|---|---|---|---|---:|")
    for m in METHODS:
        s = [x for x in rows if x["method"] == m]

        def col(key, s=s):
            v = [x[key]["median"] for x in s]
            return f"{statistics.median(v):.2f} [{min(v):.2f}, {max(v):.2f}]"
        err = max(x["err_over_eb"] for x in s)
        print(f"| {m} | {col('compress_gbps_cpu')} | {col('decompress_gbps_cpu')} | "
              f"{col('compress_gbps')} | {col('decompress_gbps')} | {err:.3f} |")
    mc = [x["copy_gbps"]["median"] for x in rows if x["method"] == "memcpy"]
    print(f"| memcpy (wall) | | | {statistics.median(mc):.2f} [{min(mc):.2f}, {max(mc):.2f}] | | |")
    print()
    print("| file | REL | fast | dense | dense-64k | SZ3 1-D | SZ3 n-D | ZFP n-D | dense / SZ3 1-D |")
    print("|---|---|---:|---:|---:|---:|---:|---:|---:|")
    for rel in rels:
        for f in sorted({x["file"] for x in rows}):
            by = {x["method"]: x for x in rows if x["file"] == f and x["rel"] == rel}
            v = [by[m]["ratio"] for m in METHODS]
            print(f"| {f} | {rel:g} | " + " | ".join(f"{x:.2f}" for x in v)
                  + f" | {v[1] / v[3]:.2f} |")


if __name__ == "__main__":
    main()
