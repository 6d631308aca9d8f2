"""nc_rates.py NC_DIR — the emulated cluster's table of docs/reports/2026-11-29-codec-frontier-6.md.

NC_DIR holds three sweeps of bench/netcluster/sweep.py (2 hosts, one rank each): codec-fast
(modes mpi,doc,hom), codec-dense (mpi,doc) and codec-auto (mpi,auto). Per link rate, collective
and bound: each compressed mode's speedup over MPI (MPI's time / the mode's in the same repeat;
median [min-max] of the repeats), what `auto` ran, and auto against the best of the fixed
choices: "within" when auto's median is the best's or their ranges overlap (the noise), "below"
otherwise; "under MPI" when even auto's best repeat is slower than MPI.
"""
import glob
import json
import os
import re
import sys

nc = sys.argv[1]
cells = {}  # (rate, coll, rel) -> {label: (median, min, max, ran)}
for sweep in ("codec-fast", "codec-dense", "codec-auto"):
    for f in sorted(glob.glob(os.path.join(nc, sweep, "runs", "*.json"))):
        m = re.match(r"h2_(\w+?)_(\w+?)_.*_rel(1e-\d)\.json", os.path.basename(f))
        rate, coll, rel = m.groups()
        for r in json.load(open(f))["rows"]:
            if r["mode"] == "mpi":
                continue
            s = r["speedup_repeats"]
            label = "auto" if r["mode"] == "auto" else f"{sweep[6:]} {r['mode']}"
            alg = r["algorithm"]  # mode/algorithm, and /dense where it ran the dense codec
            ran = alg if alg.endswith("/" + r["codec"]) else f"{alg}/{r['codec']}"
            err = r["max_error"] / r["error_bound"] if r["error_bound"] else 0.0
            cells.setdefault((rate, coll, rel), {})[label] = (s["median"], s["min"], s["max"], ran,
                                                              err)

order = {"100mbit": 0, "1gbit": 1, "10gbit": 2}
labels = ["fast doc", "fast hom", "dense doc", "auto"]
print("| rate | collective | REL | " + " | ".join(labels) + " | auto ran | auto / best | verdict |")
print("|---|---|---|" + "---|" * (len(labels) + 3))
worst = 0.0
for key in sorted(cells, key=lambda k: (order[k[0]], k[1], k[2])):
    c = cells[key]
    fixed = {k: v for k, v in c.items() if k != "auto"}
    best = max(fixed, key=lambda k: fixed[k][0])
    a = c["auto"]
    b = fixed[best]
    within = a[0] >= b[0] or a[2] >= b[1]
    verdict = ("within" if within else "below") + (", under MPI" if a[2] < 1.0 else "")
    worst = max([worst] + [v[4] for v in c.values()])
    fmt = lambda v: f"{v[0]:.2f} [{v[1]:.2f}-{v[2]:.2f}]"
    print(f"| {key[0]} | {key[1]} | {key[2]} | " + " | ".join(fmt(c[k]) for k in labels) +
          f" | {a[3]} | {a[0] / b[0]:.2f} of {best} | {verdict} |")
print(f"\nlargest max error / bound over every compressed row: {worst:.3f}")
