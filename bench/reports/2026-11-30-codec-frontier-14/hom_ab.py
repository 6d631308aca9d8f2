#!/usr/bin/env python3
"""hom_ab.py DIR A B — an interleaved A/B of the hom mode (COMMANDS.txt: zcoll-codec-bench
--hom --cold, one thread, builds A and B alternating first per round, DIR/NAME-R.json):
per field and bound, B / A of the hom add's GB/s in the same round and each build's hom add
/ memcpy, median [min, max] over the rounds."""
import glob
import json
import os
import statistics as st
import sys


def cell(v):
    return f"{st.median(v):.3f} [{min(v):.3f}, {max(v):.3f}]"


def load(d, name):
    runs = {}
    for path in glob.glob(os.path.join(d, f"{name}-*.json")):
        r = int(path.rsplit("-", 1)[1].split(".")[0])
        runs[r] = {(x["dataset"], x["rel"]): (x["hom"]["median_s"], x["memcpy"]["median_s"])
                   for x in json.load(open(path))["rows"] if x["threads"] == 1}
    return runs


def main(d, a, b):
    ra, rb = load(d, a), load(d, b)
    rounds = sorted(set(ra) & set(rb))
    print(f"| field | REL | {b} / {a} hom GB/s | {a} hom / memcpy | {b} hom / memcpy |")
    print("|---|---|---|---|---|")
    for key in sorted(ra[rounds[0]], key=lambda k: (k[0], -k[1])):
        q = [ra[r][key][0] / rb[r][key][0] for r in rounds]
        ha = [ra[r][key][1] / ra[r][key][0] for r in rounds]
        hb = [rb[r][key][1] / rb[r][key][0] for r in rounds]
        print(f"| {key[0]} | {key[1]:g} | {cell(q)} | {cell(ha)} | {cell(hb)} |")


if __name__ == "__main__":
    main(*sys.argv[1:4])
