#!/usr/bin/env python3
"""table.py OUT — per-row medians over the rounds of run.sh, then median [min, max] over rows."""
import glob, os, statistics, sys
out = sys.argv[1]
rows = {}
for f in sorted(glob.glob(os.path.join(out, "*.txt"))):
    b = os.path.basename(f).split("-")[0]
    for line in open(f):
        p = line.split()
        if len(p) >= 8 and p[0].endswith(".f32"):
            rows.setdefault((p[0], p[1]), {}).setdefault(b, []).append((float(p[2]), float(p[3]), float(p[5])))
print(f"{'file':40s} {'rel':6s} {'ratio base':>10s} {'ratio new':>10s} {'comp base':>9s} {'comp new':>9s} {'dec base':>9s} {'dec new':>9s}")
agg = {"base": ([], []), "new": ([], [])}
for (f, r), v in rows.items():
    m = {b: (v[b][0][0], statistics.median(x[1] for x in v[b]), statistics.median(x[2] for x in v[b])) for b in v}
    for b in m: agg[b][0].append(m[b][1]); agg[b][1].append(m[b][2])
    print(f"{f:40s} {r:6s} {m['base'][0]:10.2f} {m['new'][0]:10.2f} {m['base'][1]:9.3f} {m['new'][1]:9.3f} {m['base'][2]:9.3f} {m['new'][2]:9.3f}")
for b, (c, d) in agg.items():
    print(f"{b}: compress {statistics.median(c):.3f} [{min(c):.3f}, {max(c):.3f}]  decompress {statistics.median(d):.3f} [{min(d):.3f}, {max(d):.3f}]  rounds {len(glob.glob(os.path.join(out, b + '-*.txt')))}")
