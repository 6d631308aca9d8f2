#!/usr/bin/env python3
"""ZCOLL_REL_RANGE exact against sampled (rel-range/): per (hosts, collective, field, REL)
hom's ratio, the per-compression bound it used, the range pass and first send (timeline,
mean over ranks and calls), and the fraction of the wire limit (hom's speedup over MPI in
the same repeat / ratio, median [min-max] over 5 repeats).
    python3 rel_range_table.py [DIR]   (DIR: bench/results/2026-11-24-quiet2, read from its
    archive unless unpacked)"""
import os
import statistics
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
import results_data as rd  # noqa: E402  (bench/results_data.py: the packed raw results)

here = sys.argv[1] if len(sys.argv) > 1 else rd.path("2026-11-24-quiet2")
res = {}
for d in rd.glob(os.path.join(here, "rel-range", "h*-*")):
    if not rd.isdir(d):
        continue
    variant = d.rsplit("-", 1)[1]
    for js in rd.glob(os.path.join(d, "runs", "*.json")):
        j = rd.load_json(js)
        rows = {r["mode"]: r for r in j["rows"]}
        if "hom" not in rows or "mpi" not in rows:
            continue
        h, m = rows["hom"], rows["mpi"]
        sp = [a / b for a, b in zip(m["time_coll_us"]["repeats"], h["time_coll_us"]["repeats"])]
        f = [x / h["ratio"] for x in sp]
        key = (j["ranks"], j["collective"], os.path.basename(j["data"]).split("_")[1], float(j["error_bound"]))
        res.setdefault(key, {})[variant] = (h["ratio"], h["eb_per_compression"], h["timeline_us"], f)


def fmt(f):
    return f"{statistics.median(f):.2f} [{min(f):.2f}–{max(f):.2f}]"


print("| hosts | collective | field | REL | ratio exact → sampled | eb sampled / exact | range pass ms exact → sampled | first send ms exact → sampled | fraction exact | fraction sampled |")
print("|---|---|---|---|---|---|---|---|---|---|")
for key in sorted(res):
    v = res[key]
    if "exact" not in v or "sampled" not in v:
        continue
    e, s = v["exact"], v["sampled"]
    print(f"| {key[0]} | {key[1]} | {key[2]} | {key[3]:g} | {e[0]:.2f} → {s[0]:.2f} | {s[1] / e[1]:.3f} | "
          f"{e[2]['range'] / 1e3:.1f} → {s[2]['range'] / 1e3:.1f} | {e[2]['first_send'] / 1e3:.1f} → {s[2]['first_send'] / 1e3:.1f} | "
          f"{fmt(e[3])} | {fmt(s[3])} |")
