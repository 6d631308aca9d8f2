"""est_table.py EST_TXT — the medians and ranges of est.txt (lines "RUN BUILD REL FIELD choose
X ns/value code_bits Y ns/value ..."), before (est-wt-base) and after (est-new)."""
import collections
import statistics
import sys

d = collections.defaultdict(list)
for line in open(sys.argv[1]):
    p = line.split()
    d[(p[1], p[2], p[3], "choose")].append(float(p[5]))
    d[(p[1], p[2], p[3], "code_bits")].append(float(p[8]))
for field, rel, kind in sorted({(k[2], k[1], k[3]) for k in d}):
    b, n = d[("est-wt-base", rel, field, kind)], d[("est-new", rel, field, kind)]
    mb, mn = statistics.median(b), statistics.median(n)
    print(f"{field:6s} {rel} {kind:9s} before {mb:.3f} [{min(b):.3f}, {max(b):.3f}]  "
          f"after {mn:.3f} [{min(n):.3f}, {max(n):.3f}]  {mb / mn:.2f}x")
