"""summarize.py [DIR] — base (bcf2391) vs new from measure.sh's JSON: per collective,
mode and size, the median over the rounds of each run's time (zcoll-bench's
time_coll_us: the slowest rank's mean over the iterations), the range of the rounds,
new/base, and "noise" where the two ranges overlap. DIR (default
bench/results/2026-11-26-control-layer) is read from its archive unless unpacked; writes
summary.json beside when DIR is a directory on disk."""
import json, os, statistics, sys
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
import results_data as rd  # noqa: E402  (bench/results_data.py: the packed raw results)

d = sys.argv[1] if len(sys.argv) > 1 else rd.path("2026-11-26-control-layer")
t = {}
for f in rd.glob(os.path.join(d, "*-r*.json")):
    which = os.path.basename(f).split("-")[0]
    j = rd.load_json(f)
    for r in j["rows"]:
        assert r["pass"], (f, r["mode"], r["bytes"])
        key = (j["collective"], r["mode"], r["bytes"])
        t.setdefault(key, {}).setdefault(which, []).append(r["time_coll_us"]["median"])
out = []
print(f"{'collective':15} {'mode':8} {'bytes':>9} {'base ms (range)':>24} {'new ms (range)':>24} {'new/base':>8}")
for (coll, mode, b), v in sorted(t.items()):
    bs, ns = v["base"], v["new"]
    mb, mn = statistics.median(bs), statistics.median(ns)
    overlap = max(min(bs), min(ns)) <= min(max(bs), max(ns))
    row = dict(collective=coll, mode=mode, bytes=b, base_us=bs, new_us=ns, base_median_us=mb,
               new_median_us=mn, ratio=mn / mb, ranges_overlap=overlap)
    out.append(row)
    print(f"{coll:15} {mode:8} {b:>9} {mb/1e3:8.2f} ({min(bs)/1e3:6.2f}..{max(bs)/1e3:6.2f}) "
          f"{mn/1e3:8.2f} ({min(ns)/1e3:6.2f}..{max(ns)/1e3:6.2f}) {mn/mb:8.2f}"
          f"{'  noise' if overlap else ''}")
if os.path.isdir(d):
    json.dump(out, open(os.path.join(d, "summary.json"), "w"), indent=1)
