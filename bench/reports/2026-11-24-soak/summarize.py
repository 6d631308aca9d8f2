"""Totals and coverage of the soak logs (figure.log from run.sh): python3 summarize.py figure.log
(a log under bench/results/ is read from its archive unless unpacked)"""
import os
import re
import sys
from collections import defaultdict

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
import results_data as rd  # noqa: E402  (bench/results_data.py: the packed raw results)

tot = defaultdict(int)
cover = defaultdict(int)  # (coll, mode) -> {N: calls}
ns = set()
runs = []
for line in rd.open(sys.argv[1]):
    m = re.match(r"zcoll-soak: seeds (\d+)\.\.(\d+) on (\d+) ranks: (\d+) cases, (\d+) group calls "
                 r"\((\d+) rank calls\), (\d+) values checked, (\d+) failed cases, (\d+) error returns, "
                 r"(\d+) mismatches detected, (\d+) hangs, ([\d.]+) s", line)
    if m:
        g = list(map(float, m.groups()))
        runs.append((int(g[2]), int(g[0]), int(g[1]), g[11]))
        for k, i in (("cases", 3), ("group_calls", 4), ("rank_calls", 5), ("values", 6), ("failed", 7),
                     ("errors", 8), ("mismatch", 9), ("hangs", 10)):
            tot[k] += int(g[i])
        tot["seconds"] += g[11]
        continue
    m = re.match(r"\s+(\w+)\s+(\w+)\s+((?:N\d+=\d+ ?)+)$", line)
    if m:
        for cell in m.group(3).split():
            n, v = cell[1:].split("=")
            if int(v):
                cover[(m.group(1), m.group(2))] += int(v)
                ns.add(int(n))
print("runs (np, first seed, last seed, seconds):", runs)
for k in ("cases", "group_calls", "rank_calls", "values", "failed", "errors", "mismatch", "hangs"):
    print(f"{k}: {tot[k]}")
print(f"seconds: {tot['seconds']:.0f}")
print(f"collective x mode cells covered: {len(cover)}; group sizes N seen: {sorted(ns)}")
colls = sorted({c for c, _ in cover})
modes = ["mpi", "raw", "cpr_p2p", "doc", "hom"]
print("| collective | " + " | ".join(modes) + " |")
print("|---|" + "---|" * len(modes))
for c in colls:
    print(f"| {c} | " + " | ".join(str(cover.get((c, m), 0)) for m in modes) + " |")
