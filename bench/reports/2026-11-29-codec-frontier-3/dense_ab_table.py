#!/usr/bin/env python3
"""ab_table.py DIR — per-row medians of the dense_speed runs DIR/{base,new}-R.txt
(alternating rounds), the median [min,max] across rows, rows meeting the goals."""
import glob, statistics as st, sys, os
d = sys.argv[1]
def parse(f):
    rows = {}
    for line in open(f):
        p = line.split()
        if len(p) == 8 and p[0].endswith('.f32'):
            rows[(p[0], p[1])] = (float(p[3]), float(p[5]), p[-1], float(p[2]))
    return rows
runs = {b: [parse(f) for f in sorted(glob.glob(os.path.join(d, b + '-*.txt')))] for b in ('base', 'new')}
keys = list(runs['base'][0].keys())
med = {b: {k: (st.median(r[k][0] for r in runs[b]), st.median(r[k][1] for r in runs[b])) for k in keys} for b in runs}
print(f"rounds: base {len(runs['base'])}, new {len(runs['new'])}")
print(f"{'file':40s} {'rel':6s} {'comp base':>9s} {'comp new':>9s} {'x':>5s} {'dec base':>9s} {'dec new':>9s} {'x':>5s} fnv-same")
for k in keys:
    cb, db = med['base'][k]; cn, dn = med['new'][k]
    same = all(r[k][2] == runs['base'][0][k][2] for b in runs for r in runs[b])
    print(f"{k[0]:40s} {k[1]:6s} {cb:9.3f} {cn:9.3f} {cn/cb:5.2f} {db:9.3f} {dn:9.3f} {dn/db:5.2f} {same}")
for b in ('base', 'new'):
    c = [med[b][k][0] for k in keys]; dd = [med[b][k][1] for k in keys]
    print(f"{b}: compress {st.median(c):.3f} [{min(c):.3f}, {max(c):.3f}]  decompress {st.median(dd):.3f} [{min(dd):.3f}, {max(dd):.3f}]"
          f"  rows >= 1.0 comp: {sum(x >= 1.0 for x in c)}/{len(c)}  rows >= 1.5 dec: {sum(x >= 1.5 for x in dd)}/{len(dd)}")
