"""Median and range over the interleaved repeats of zcoll-codec-bench with and
without --checksum (files run<i>-<off|on>.json in this directory)."""
import glob
import json
import os
import statistics

here = os.path.dirname(os.path.abspath(__file__))
rows = {}
for path in sorted(glob.glob(os.path.join(here, "run*-*.json"))):
    cs = path.rsplit("-", 1)[1][:-5]
    for r in json.load(open(path))["rows"]:
        key = (r["dataset"], cs)
        for m in ("compress_abs_gbps", "decompress_gbps", "compressed_bytes"):
            rows.setdefault(key + (m,), []).append(r[m])
print("| dataset | metric | without: median [min, max] | with checksum: median [min, max] | change of median |")
print("|---|---|---|---|---|")
for ds in sorted({k[0] for k in rows}):
    for m in ("compress_abs_gbps", "decompress_gbps", "compressed_bytes"):
        a, b = rows[(ds, "off", m)], rows[(ds, "on", m)]
        ma, mb = statistics.median(a), statistics.median(b)
        f = (lambda v: "%d" % v) if m == "compressed_bytes" else (lambda v: "%.3f" % v)
        print("| %s | %s | %s [%s, %s] | %s [%s, %s] | %+.1f %% |" % (
            ds, m, f(ma), f(min(a)), f(max(a)), f(mb), f(min(b)), f(max(b)), 100 * (mb / ma - 1)))
