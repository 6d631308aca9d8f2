#!/usr/bin/env python3
"""ab_hom.py DIR — tabulate ab_hom.sh's runs: per OpenMP wait policy and build, over
the 33 rows (file x REL), the 2-thread / 1-thread ratio of hom add (zcoll_hom_add)
and of DOCf (zcoll_doc_combine), each row's median over the rounds (a round's ratio:
of its rows' medians), and the 1-thread hom add and DOCf GB/s of the fused build over
the base build's (medians over the rounds)."""
import glob
import json
import os
import statistics
import sys

d = sys.argv[1]
runs = {}  # (build, policy) -> [ {(dataset, rel, threads): {op: median_s}} per round ]
for p in sorted(glob.glob(os.path.join(d, "hom-*-*-*.json"))):
    _, build, policy, _r = os.path.basename(p)[:-5].split("-")
    rows = json.load(open(p))["rows"]
    runs.setdefault((build, policy), []).append(
        {(x["dataset"], x["rel"], x["threads"]): {"hom": x["hom"]["median_s"],
                                                   "docf": x["doc_fused"]["median_s"]}
         for x in rows})


def per_row(rounds, f):
    """{(dataset, rel): [f(round's rows, dataset, rel) per round]}"""
    out = {}
    for r in rounds:
        for (name, rel, t) in r:
            if t == 1 and (name, rel, 2) in r:
                out.setdefault((name, rel), []).append(f(r, name, rel))
    return out


def fmt(v):
    return f"{statistics.median(v):.2f} [{min(v):.2f}, {max(v):.2f}]"


print("| policy | build | rounds | hom add 2t / 1t: median of rows [min, max]; rows >= 1.8 "
      "| DOCf 2t / 1t; rows >= 1.8 |")
print("|---|---|---|---|---|")
for (build, policy), rounds in sorted(runs.items(), key=lambda kv: (kv[0][1], kv[0][0])):
    cells = []
    for op in ("hom", "docf"):
        rows = per_row(rounds, lambda r, n, rel, op=op: r[(n, rel, 1)][op] / r[(n, rel, 2)][op])
        meds = [statistics.median(v) for v in rows.values()]
        cells.append(f"{fmt(meds)}; {sum(m >= 1.8 for m in meds)}/{len(meds)}")
    print(f"| {policy} | {build} | {len(rounds)} | " + " | ".join(cells) + " |")
print()
print("| policy | threads | hom add fused / base GB/s: median of rows [min, max] "
      "| DOCf fused / base |")
print("|---|---|---|---|")
for policy in sorted({p for _, p in runs}):
    base, fused = runs.get(("base", policy), []), runs.get(("fused", policy), [])
    for t in (1, 2):
        cells = []
        for op in ("hom", "docf"):
            ratios = {}
            for rb, rf in zip(base, fused):
                for (name, rel, tt), v in rb.items():
                    if tt == t and (name, rel, tt) in rf:
                        ratios.setdefault((name, rel), []).append(v[op] / rf[(name, rel, tt)][op])
            cells.append(fmt([statistics.median(v) for v in ratios.values()]))
        print(f"| {policy} | {t} | " + " | ".join(cells) + " |")
