#!/usr/bin/env python3
"""ab_codec.py DIR — tabulate ab_codec.sh's runs: per build, over the 33 rows, the
2-thread / 1-thread ratio of compression (ABS) and decompression (each row's median
over the rounds of the round's ratio of medians), and the fused build's 2-thread
GB/s over the base build's."""
import glob
import json
import os
import statistics
import sys

runs = {}
for p in sorted(glob.glob(os.path.join(sys.argv[1], "codec-*-*-*.json"))):
    build = os.path.basename(p).split("-")[1]
    runs.setdefault(build, []).append(
        {(x["dataset"], x["rel"], x["threads"]): {"compress": x["compress_abs"]["median_s"],
                                                   "decompress": x["decompress"]["median_s"]}
         for x in json.load(open(p))["rows"]})


def fmt(v):
    return f"{statistics.median(v):.2f} [{min(v):.2f}, {max(v):.2f}]"


print("| build | rounds | compress 2t / 1t: median of rows [min, max]; rows >= 1.8 "
      "| decompress 2t / 1t; rows >= 1.8 |")
print("|---|---|---|---|")
for build, rounds in sorted(runs.items()):
    cells = []
    for op in ("compress", "decompress"):
        rows = {}
        for r in rounds:
            for (n, rel, t), v in r.items():
                if t == 1:
                    rows.setdefault((n, rel), []).append(v[op] / r[(n, rel, 2)][op])
        meds = [statistics.median(v) for v in rows.values()]
        cells.append(f"{fmt(meds)}; {sum(m >= 1.8 for m in meds)}/{len(meds)}")
    print(f"| {build} | {len(rounds)} | " + " | ".join(cells) + " |")
if "base" in runs and "fused" in runs:
    for op in ("compress", "decompress"):
        ratios = {}
        for rb, rf in zip(runs["base"], runs["fused"]):
            for k, v in rb.items():
                if k[2] == 2:
                    ratios.setdefault(k, []).append(v[op] / rf[k][op])
        print(f"\n{op}, 2 threads, fused / base GB/s: median of rows "
              f"{fmt([statistics.median(v) for v in ratios.values()])}")
