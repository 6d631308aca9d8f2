#!/usr/bin/env python3
"""decode_ab_table.py OUT BASE — per file: BASE's median GB/s and each other
build's speed relative to BASE's in the same round: median [min, max]."""
import collections
import statistics as st
import sys

rows = [line.split() for line in open(sys.argv[1])]
base = sys.argv[2]
runs = collections.defaultdict(dict)
for rnd, f, v, g in rows:
    runs[(f, rnd)][v] = float(g)
others = sorted({r[2] for r in rows} - {base})
for f in sorted({k[0] for k in runs}):
    keys = [k for k in runs if k[0] == f]
    out = [f"{f[:30]:30}", f"{base} {st.median(runs[k][base] for k in keys):.3f}"]
    for v in others:
        r = [runs[k][v] / runs[k][base] for k in keys]
        out.append(f"{v} {st.median(r):.3f} [{min(r):.3f}, {max(r):.3f}]")
    print("  ".join(out))
