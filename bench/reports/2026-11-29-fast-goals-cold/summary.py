#!/usr/bin/env python3
"""summary.py GOALS_JSON — per caches setting, over the rows of fast_goals.py's JSON:
the median, min and max of each goal's row medians, and for each 2-thread goal the
rows whose median is above that row's memcpy 2t / 1t (the memory's own scaling)."""
import json
import statistics
import sys

d = json.load(open(sys.argv[1]))
for caches in ("cold", "warm"):
    rows = [r for r in d["rows"] if r["caches"] == caches]
    mc = [statistics.median(r["memcpy_gbps"]) for r in rows]
    print(f"{caches}: {len(rows)} rows; memcpy 1 thread, row medians {min(mc):.2f}-{max(mc):.2f} GB/s")
    for k in d["goals"]:
        meds = [r["goals"][k]["median"] for r in rows]
        line = (f"  {k}: median of the rows' medians {statistics.median(meds):.2f}, "
                f"range {min(meds):.2f}-{max(meds):.2f}")
        if "2t" in k:
            above = sum(r["goals"][k]["median"] > statistics.median(r["memcpy_2t_over_1t"])
                        for r in rows)
            line += f"; above the row's memcpy 2t / 1t: {above}/{len(rows)}"
        print(line)
