#!/usr/bin/env python3
"""rounds.py DIR: per round of a fast_goals.py run (DIR/goals/ and DIR/goals.json, the
table's --json), the median over the 33 rows of each 2-thread ratio: the ceiling mode's
(in cache) and the cold goals' (with memcpy's own 2t / 1t), and of hom add / memcpy."""
import glob
import json
import os
import statistics as st
import sys


def main(d):
    print("ceiling (in cache), median [min, max] over the rows of each round:")
    for p in sorted(glob.glob(os.path.join(d, "goals", "ceiling-*.json"))):
        rows = {(x["dataset"], x["rel"], x["threads"]): x for x in json.load(open(p))["rows"]}
        cells = []
        for k in ("compress", "decompress", "hom", "alu"):
            r = [rows[(n, rel, 2)][k]["median_gbps"] / x[k]["median_gbps"]
                 for (n, rel, t), x in rows.items() if t == 1]
            cells.append(f"{k} {st.median(r):.2f} [{min(r):.2f}, {max(r):.2f}]")
        print(f"  {os.path.basename(p)}: " + " | ".join(cells))
    cold = [r for r in json.load(open(os.path.join(d, "goals.json")))["rows"]
            if r["caches"] == "cold"]
    keys = ("compress_2t_over_1t", "decompress_2t_over_1t", "hom_add_2t_over_1t",
            "hom_add_over_memcpy")
    print("cold goals, median over the rows of each round:")
    for i in range(len(cold[0]["memcpy_2t_over_1t"])):
        cells = [f"{k} {st.median(r['goals'][k]['rounds'][i] for r in cold):.2f}" for k in keys]
        cells.append(f"memcpy_2t_over_1t {st.median(r['memcpy_2t_over_1t'][i] for r in cold):.2f}")
        print(f"  round {i}: " + " | ".join(cells))


if __name__ == "__main__":
    main(sys.argv[1])
