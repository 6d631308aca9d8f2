#!/usr/bin/env python3
"""hom_ab_table.py OUT BASE — per field@REL: BASE's median, and each other build's median
[min, max] of its runs relative to BASE's median (hom_ab.sh's lines)."""
import collections
import statistics as st
import sys

d = collections.defaultdict(lambda: collections.defaultdict(list))
for line in open(sys.argv[1]):
    _, f, lib, v = line.split()
    d[f][lib].append(float(v))
base = sys.argv[2]
for f, libs in d.items():
    b = st.median(libs[base])
    rest = "  ".join(f"{k} {st.median(v) / b:.3f} [{min(v) / b:.3f}, {max(v) / b:.3f}]"
                     for k, v in libs.items() if k != base)
    print(f"{f:38s} {base} {b:.3f}  {rest}")
