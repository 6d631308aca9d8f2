#!/usr/bin/env python3
"""hom_memcpy.py DIR [FIELD...] — from an ab_fast.sh run (part 13's script): per build,
field and bound, one thread, the hom add's GB/s and the same run's memcpy GB/s (median
[min, max] over the rounds), each by itself: the goal hom add >= 1.0x memcpy is their
ratio, and this shows which of the two moved. DIR/BUILD/hom-cold-R.json, BUILD = base, new."""
import glob
import json
import os
import statistics as st
import sys


def cell(v):
    return f"{st.median(v):.1f} [{min(v):.1f}, {max(v):.1f}]"


def main(d, fields):
    print("| build | field | REL | hom add GB/s | memcpy GB/s |")
    print("|---|---|---|---|---|")
    for b in ("base", "new"):
        per = {}
        for path in sorted(glob.glob(os.path.join(d, b, "hom-cold-*.json"))):
            for x in json.load(open(path))["rows"]:
                if x["threads"] != 1 or (fields and not any(f in x["dataset"] for f in fields)):
                    continue
                r = per.setdefault((x["dataset"], x["rel"]), ([], []))
                r[0].append(x["hom_gbps"])
                r[1].append(x["memcpy_gbps"])
        for (name, rel), (h, m) in sorted(per.items(), key=lambda kv: (kv[0][0], -kv[0][1])):
            print(f"| {b} | {name} | {rel:g} | {cell(h)} | {cell(m)} |")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2:])
