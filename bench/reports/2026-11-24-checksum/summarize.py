"""Median and range over the interleaved repeats of zcoll-codec-bench with and
without --checksum (files run<i>-<off|on>.json of bench/results/2026-11-24-checksum,
read from its archive unless unpacked)."""
import os
import statistics
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
import results_data as rd  # noqa: E402  (bench/results_data.py: the packed raw results)

here = rd.path("2026-11-24-checksum")
rows = {}
for path in rd.glob(os.path.join(here, "run*-*.json")):
    cs = path.rsplit("-", 1)[1][:-5]
    for r in rd.load_json(path)["rows"]:
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
