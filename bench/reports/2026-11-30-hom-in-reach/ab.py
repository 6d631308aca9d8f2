#!/usr/bin/env python3
"""ab.py DIR [--json OUT] — tabulate ab.sh's runs of the hom mode, base and new builds.

Per row (field, REL, threads) and round, the ratio of the row's medians (the
calls of a row are interleaved). Prints, per caches (cold, warm) and threads:
new / base hom add GB/s, as the median of the rows' medians [min, max of the
rows' medians]; then, cold and warm, per build, the rows meeting issue 34's
hom goals (hom add >= 1.0x memcpy on 1 thread, 2 threads >= 1.8x one thread);
then the per-row table (cold, 1 thread)."""
import glob
import json
import os
import statistics
import sys

d = sys.argv[1]
runs = {}  # (build, caches) -> [{(dataset, rel, threads): (hom_s, memcpy_s)} per round]
for p in sorted(glob.glob(os.path.join(d, "hom-*-*-*.json"))):
    _, build, caches, _r = os.path.basename(p)[:-5].split("-")
    rows = json.load(open(p))["rows"]
    bad = [x["dataset"] for x in rows if not x.get("ok", True)]
    if bad:
        sys.exit(f"{p}: rows not ok: {bad}")
    runs.setdefault((build, caches), []).append(
        {(x["dataset"], x["rel"], x["threads"]): (x["hom"]["median_s"], x["memcpy"]["median_s"])
         for x in rows})


def fmt(v):
    return f"{statistics.median(v):.2f} [{min(v):.2f}, {max(v):.2f}]"


def per_row(rounds, f):
    """{row: [f(round, row) per round]} over the rows every round has."""
    keys = set.intersection(*(set(r) for r in rounds))
    return {k: [f(r, k) for r in rounds] for k in sorted(keys)}


out = {"speedup": {}, "goals": {}, "rows": []}
print("| caches | threads | rounds | new / base hom add GB/s: median of rows [min, max] "
      "| rows faster in every round |")
print("|---|---|---|---|---|")
for caches in ("cold", "warm"):
    base, new = runs.get(("base", caches), []), runs.get(("new", caches), [])
    if not base or not new:
        continue
    pairs = list(zip(base, new))
    for t in (1, 2):
        keys = [k for k in set(base[0]) if k[2] == t]
        meds, beyond = [], 0
        for k in keys:
            ratios = [rb[k][0] / rn[k][0] for rb, rn in pairs if k in rb and k in rn]
            meds.append(statistics.median(ratios))
            beyond += min(ratios) > 1.0
        out["speedup"][f"{caches}-{t}t"] = {"median": statistics.median(meds), "min": min(meds),
                                            "max": max(meds), "rows": len(meds),
                                            "rows_min_above_1": beyond}
        print(f"| {caches} | {t} | {len(pairs)} | {fmt(meds)} | {beyond}/{len(meds)} |")
print()
print("| caches | build | hom add / memcpy >= 1.0 (1 thread) | hom add 2t / 1t >= 1.8 |")
print("|---|---|---|---|")
for caches in ("cold", "warm"):
    for build in ("base", "new"):
        rounds = runs.get((build, caches))
        if not rounds:
            continue
        mc = per_row(rounds, lambda r, k: r[k][1] / r[k][0])
        sc = per_row(rounds, lambda r, k: r[k][0] / r[(k[0], k[1], 2)][0]
                     if k[2] == 1 and (k[0], k[1], 2) in r else None)
        mc1 = {k: statistics.median(v) for k, v in mc.items() if k[2] == 1}
        sc1 = {k: statistics.median(v) for k, v in sc.items() if k[2] == 1}
        g = {"hom_over_memcpy": sum(v >= 1.0 for v in mc1.values()),
             "hom_2t_over_1t": sum(v >= 1.8 for v in sc1.values()), "rows": len(mc1)}
        out["goals"][f"{caches}-{build}"] = g
        print(f"| {caches} | {build} | {g['hom_over_memcpy']}/{g['rows']} "
              f"| {g['hom_2t_over_1t']}/{g['rows']} |")
        for k in sorted(mc1):
            out["rows"].append({"caches": caches, "build": build, "dataset": k[0], "rel": k[1],
                                "hom_over_memcpy": mc[k], "hom_2t_over_1t": sc[k]})
print()
print("Cold, 1 thread, per row: hom add / memcpy (base, new) and new / base hom add GB/s, "
      "median [min, max] over the rounds:")
print()
print("| field | REL | base hom / memcpy | new hom / memcpy | new / base |")
print("|---|---|---|---|---|")
base, new = runs.get(("base", "cold"), []), runs.get(("new", "cold"), [])
if base and new:
    for k in sorted(k for k in base[0] if k[2] == 1):
        b = [r[k][1] / r[k][0] for r in base]
        n = [r[k][1] / r[k][0] for r in new]
        s = [rb[k][0] / rn[k][0] for rb, rn in zip(base, new)]
        print(f"| {k[0]} | {k[1]:g} | {fmt(b)} | {fmt(n)}{'' if statistics.median(n) >= 1 else ' ✗'} "
              f"| {fmt(s)} |")
if len(sys.argv) > 3 and sys.argv[2] == "--json":
    with open(sys.argv[3], "w") as f:
        json.dump(out, f, indent=1)
