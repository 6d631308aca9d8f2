"""hom_goal.py DIR [CACHES]: issue 34's hom goal (hom add >= 1.0x the same run's memcpy,
one thread, caches emptied before every call) per build of an A/B (ab_hom.sh):
DIR/{base,new}/hom-CACHES-ROUND.json (CACHES: cold, the default, or warm). Per row,
memcpy / hom of the round's medians, as median [min, max] over the rounds, x where the
median misses; then the rows that meet it per build. Then by time: per row, new / base of
the hom add's and of memcpy's median time in the same round (memcpy runs the same code in
both builds: its ratio is the drift between them), median [min, max] over the rounds, and
the medians of the rows' medians."""hom_goal.py DIR [CACHES]: issue 34's hom goal (hom add >= 1.0x the same run's memcpy, one thread,
caches emptied before every call) per build of an A/B (ab_hom.sh): DIR/{base,new}/
hom-CACHES-ROUND.json (CACHES: cold, the default, or warm). Per row, memcpy / hom of the round's medians, as median [min, max] over
the rounds, x where the median misses; then the rows that meet it per build. Then by time:
per row, new / base of the hom add's and of memcpy's median time in the same round (memcpy
runs the same code in both builds: its ratio is the drift between them), median [min, max]
over the rounds, and the medians of the rows' medians."""
import collections
import os
import statistics as st
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
import results_data as rd  # noqa: E402 (the archives: bench/reports/README.md)

d = sys.argv[1]
caches = sys.argv[2] if len(sys.argv) > 2 else "cold"
builds = ("base", "new")
ratio = collections.defaultdict(list)  # (build, dataset, rel) -> [memcpy / hom per round]
time = {}  # (build, round, dataset, rel, op) -> median seconds
for b in builds:
    for f in rd.glob(os.path.join(d, b, f"hom-{caches}-*.json")):
        r = f.rsplit("-", 1)[1][:-5]
        for x in rd.load_json(f)["rows"]:
            if x["threads"] == 1:
                ratio[(b, x["dataset"], x["rel"])].append(
                    x["memcpy"]["median_s"] / x["hom"]["median_s"])
                for op in ("hom", "memcpy"):
                    time[(b, r, x["dataset"], x["rel"], op)] = x[op]["median_s"]


def cell(xs):
    return f"{st.median(xs):.2f} [{min(xs):.2f}, {max(xs):.2f}]" + (
        " ✗" if st.median(xs) < 1.0 else "")


rows = sorted({k[1:] for k in ratio})
print("| field | REL | " + " | ".join(f"hom / memcpy, {b}" for b in builds) + " |")
print("|---|---|" + "---|" * len(builds))
for name, rel in rows:
    print(f"| {name} | {rel:g} | " + " | ".join(cell(ratio[(b, name, rel)]) for b in builds) + " |")
print()
for b in builds:
    met = sum(st.median(ratio[(b,) + r]) >= 1.0 for r in rows)
    rounds = len(ratio[(b,) + rows[0]])
    print(f"{b}: the goal met on {met}/{len(rows)} rows ({rounds} rounds)")

print()
print("| field | REL | hom new / base | memcpy new / base |")
print("|---|---|---|---|")
rounds = sorted({k[1] for k in time})
medians = collections.defaultdict(list)
for name, rel in rows:
    cells = []
    for op in ("hom", "memcpy"):
        xs = [time[("new", r, name, rel, op)] / time[("base", r, name, rel, op)] for r in rounds]
        medians[op].append(st.median(xs))
        cells.append(f"{st.median(xs):.3f} [{min(xs):.3f}, {max(xs):.3f}]")
    print(f"| {name} | {rel:g} | " + " | ".join(cells) + " |")
print()
for op, xs in medians.items():
    print(f"{op} new / base: the rows' medians {st.median(xs):.3f} [{min(xs):.3f}, {max(xs):.3f}]")
