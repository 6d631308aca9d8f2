#!/usr/bin/env python3
"""ab_time.py DIR: the A/B of ab_fast.sh (part 13) by time, not by goal. DIR/{base,new}/
{codec,hom}-cold-ROUND.json; per row and thread count, new / base of the median time of each
operation in the same round, as median [min, max] over the rounds; then the medians of the
rows' medians per operation and thread count. memcpy runs the same code in both builds: its
ratio shows how much the rounds drifted between them."""
import collections
import os
import statistics as st
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
import results_data as rd  # noqa: E402 (the archives: bench/reports/README.md)

d = sys.argv[1]
t = collections.defaultdict(dict)
for b in ("base", "new"):
    for f in rd.glob(os.path.join(d, b, "*-cold-*.json")):
        mode = "hom" if os.path.basename(f).startswith("hom") else "codec"
        r = f.rsplit("-", 1)[1][:-5]
        ops = ["hom", "memcpy"] if mode == "hom" else ["compress_abs", "decompress", "memcpy"]
        for x in rd.load_json(f)["rows"]:
            for op in ops:
                t[(x["dataset"][:22], x["rel"], x["threads"], mode + ":" + op)][(b, r)] = x[op]["median_s"]


def fmt(xs):
    return f"{st.median(xs):.3f} [{min(xs):.3f}, {max(xs):.3f}]"


ops = ["hom:hom", "codec:decompress", "codec:compress_abs", "hom:memcpy"]
per_op = collections.defaultdict(list)
print("| field | REL | threads | " + " | ".join(o.split(":")[1] + " new/base" for o in ops) + " |")
print("|---|---|---|" + "---|" * len(ops))
for key in sorted({k[:3] for k in t}):
    cells = []
    for o in ops:
        v = t[key + (o,)]
        rounds = sorted({r for (_, r) in v})
        xs = [v[("new", r)] / v[("base", r)] for r in rounds if ("new", r) in v and ("base", r) in v]
        per_op[(key[2], o)].append(st.median(xs))
        cells.append(fmt(xs))
    print(f"| {key[0]} | {key[1]:g} | {key[2]} | " + " | ".join(cells) + " |")
print()
for (th, o), xs in sorted(per_op.items()):
    print(f"threads {th} {o}: the rows' medians {fmt(xs)}")
