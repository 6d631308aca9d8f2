"""The table of docs/reports/2026-11-29-auto-overlap.md: speedups over MPI (median
[min-max] of 5 repeats) of the fast codec (best of doc/hom), the dense codec (doc) and
auto before the change (2026-11-28's three sweeps), and auto after it (this report's
sweep), on the emulated 2-host cluster.

  python3 table.py OLD_DIR NEW_DIR
OLD_DIR: 2026-11-28-codec-auto-netcluster/ of bench/results/2026-11-28-codec-auto-netcluster.tar.xz;
NEW_DIR: codec-auto-pipe/ of bench/results/2026-11-29-auto-overlap.tar.xz
(python3 bench/results_data.py extract NAME DIR unpacks an archive)."""
import json
import sys
from pathlib import Path

old, new = Path(sys.argv[1]), Path(sys.argv[2])


def rows(path):
    return json.loads(path.read_text())["rows"]


def cell(r):
    s = r["speedup_repeats"]
    return f"{s['median']:.2f} [{s['min']:.2f}–{s['max']:.2f}]"


print("| rate | run | fast: best of doc/hom | dense: doc | auto before | ran | auto after | ran |")
print("|---|---|---|---|---|---|---|---|")
for rate in ("100mbit", "1gbit", "10gbit"):
    for coll in ("allreduce", "bcast"):
        for rel in ("1e-3", "1e-4"):
            name = f"runs/h2_{rate}_{coll}_ferret_fnoc-uwnd_132x73x144_rel{rel}.json"
            fast = [r for r in rows(old / "codec-fast" / name) if r["mode"] in ("doc", "hom")]
            best = max(fast, key=lambda r: r["speedup_repeats"]["median"])
            dense = next(r for r in rows(old / "codec-dense" / name) if r["mode"] == "doc")
            before = next(r for r in rows(old / "codec-auto" / name) if r["mode"] == "auto")
            after = next(r for r in rows(new / name) if r["mode"] == "auto")
            print(f"| {rate} | {coll} {rel} | {cell(best)} ({best['mode']}) | {cell(dense)} | "
                  f"{cell(before)} | {before['algorithm']} ({before['codec']}) | {cell(after)} | "
                  f"{after['algorithm']} ({after['codec']}) |")
