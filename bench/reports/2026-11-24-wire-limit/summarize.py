#!/usr/bin/env python3
"""summarize.py DIR...: per (field, bound, collective, build) over the runs of run_pair.sh:
hom's speedup over MPI in the same run (median and range), the compression ratio, the
fraction of the wire limit (speedup / ratio), and hom's breakdown and timeline (medians, ms).
A DIR under bench/results/ is read from its archive unless unpacked."""
import os, re, statistics, sys
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
import results_data as rd  # noqa: E402  (bench/results_data.py: the packed raw results)

rows = {}
for d in sys.argv[1:]:
    for f in rd.glob(os.path.join(d, "*.json")):
        m = re.match(r"(.+?)_(1e-\d)_(allreduce|reduce_scatter|bcast)_(.+)_(\d+)\.json", os.path.basename(f))
        if not m:
            continue
        field, rel, coll, build, _ = m.groups()
        j = rd.load_json(f)
        by = {r["mode"]: r for r in j["rows"]}
        if "mpi" not in by or "hom" not in by:
            continue
        mpi, hom = by["mpi"], by["hom"]
        rows.setdefault((field, rel, coll, build), []).append((mpi, hom))

def med(xs):
    return statistics.median(xs) if xs else float("nan")

print("| field | REL | collective | build | runs | MPI ms | hom ms | algo | speedup (range) | ratio | fraction of wire limit | t_comp | t_mpi | t_reduce | t_other | range | first send | after last recv |")
print("|---|---|---|---|---:|---:|---:|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
for (field, rel, coll, build), v in sorted(rows.items()):
    sp = [m["time_us"]["avg"] / h["time_us"]["avg"] for m, h in v]
    ratio = med([h["ratio"] for _, h in v])
    bd = lambda k: med([h["breakdown_us"][k] / 1e3 for _, h in v])
    tl = lambda k: (med([h["timeline_us"][k] / 1e3 for _, h in v]) if "timeline_us" in v[0][1] else None)
    fmt = lambda x: "–" if x is None else f"{x:.1f}"
    print(f"| {field} | {rel} | {coll} | {build} | {len(v)} | {med([m['time_us']['avg']/1e3 for m,_ in v]):.0f} | "
          f"{med([h['time_us']['avg']/1e3 for _,h in v]):.0f} | {v[0][1]['algorithm']} | {med(sp):.2f} ({min(sp):.2f}–{max(sp):.2f}) | {ratio:.2f} | "
          f"{med(sp)/ratio:.2f} | {bd('compress'):.0f} | {bd('mpi'):.0f} | {bd('reduce'):.0f} | {bd('other'):.0f} | "
          f"{fmt(tl('range'))} | {fmt(tl('first_send'))} | {fmt(tl('after_last_recv'))} |")
