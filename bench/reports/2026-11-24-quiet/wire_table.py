#!/usr/bin/env python3
"""The wire-limit table of the quiet runs: hom's speedup over MPI / its compression ratio
(median [min-max] over the repeats, per repeat as summarize.py computes it), before (the
libraries of 0228f23) and after (this session's merge) at 1 Gbit/s, and after at 0.5 and
2 Gbit/s.   python3 wire_table.py [DIR]   (DIR: bench/results/2026-11-24-quiet,
read from its archive unless unpacked)"""
import os
import statistics
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
import results_data as rd  # noqa: E402  (bench/results_data.py: the packed raw results)

here = sys.argv[1] if len(sys.argv) > 1 else rd.path("2026-11-24-quiet")


def rows(path):
    """(rate, coll, field, rel) -> (speedup reps, ratio, algo) from one sweep directory."""
    out = {}
    for js in rd.glob(os.path.join(path, "runs", "*.json")):
        j = rd.load_json(js)
        rate = os.path.basename(js).split("_")[1]
        field = os.path.basename(j.get("data", "?")).split("_")[1]
        rel = float(j["error_bound"])
        for r in j["rows"]:
            if r["mode"] != "hom":
                continue
            reps = r.get("speedup_repeats", {}).get("values") or [r["speedup"]]
            out[(rate, j["collective"], field, rel)] = (reps, r["ratio"], r.get("algorithm", ""))
    return out


def cell(reps, ratio):
    f = [x / ratio for x in reps]
    return f"{statistics.median(f):.2f} [{min(f):.2f}–{max(f):.2f}]"


before, after = {}, {}
for d in rd.glob(os.path.join(here, "wire-1gbit", "*")):
    (before if os.path.basename(d).startswith("before") else after).update(rows(d))
after.update(rows(os.path.join(here, "wire-rates")))
print("| rate | collective | field | REL | ratio | before: speedup | before: fraction | after: algo | after: speedup | after: fraction |")
print("|---|---|---|---|---:|---|---|---|---|---|")
for key in sorted(after, key=lambda k: ({"500mbit": 0, "1gbit": 1, "2gbit": 2}.get(k[0], 9), k[1], k[2], k[3])):
    reps, ratio, algo = after[key]
    b = before.get(key)
    bs = (f"{statistics.median(b[0]):.2f} [{min(b[0]):.2f}–{max(b[0]):.2f}]", cell(b[0], b[1])) if b else ("–", "–")
    print(f"| {key[0]} | {key[1]} | {key[2]} | {key[3]:g} | {ratio:.2f} | {bs[0]} | {bs[1]} | {algo} | "
          f"{statistics.median(reps):.2f} [{min(reps):.2f}–{max(reps):.2f}] | {cell(reps, ratio)} |")
