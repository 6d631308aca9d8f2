"""nc_table.py NC_DIR — the emulated cluster's rows of docs/reports/2026-11-29-codec-frontier-5.md:
per sweep directory under NC_DIR and compressed mode, the algorithm, the speedup over MPI
(median [min-max] of the repeats), the model's time over the measured median, the first send
and the time split (ms)."""
import glob
import json
import os
import sys

for d in sorted(glob.glob(os.path.join(sys.argv[1], "*", "runs"))):
    for f in sorted(glob.glob(os.path.join(d, "*.json"))):
        rel = "1e-4" if "rel1e-4" in f else "1e-3"
        for r in json.load(open(f))["rows"]:
            if r.get("algorithm") == "native":
                continue
            s, t = r["speedup_repeats"], r["time_coll_us"]["median"]
            split = " ".join(f"{k} {v / 1e3:.1f}" for k, v in sorted(r["breakdown_us"].items()))
            print(f"{os.path.basename(os.path.dirname(d)):10s} {rel} {r['mode']:4s} "
                  f"{r['algorithm']:24s} {s['median']:.2f} [{s['min']:.2f}-{s['max']:.2f}]  "
                  f"model/measured {r['time_model_us'] / t:.2f}  median {t / 1e3:.1f} ms  "
                  f"first send {r['timeline_us']['first_send'] / 1e3:.1f}  {split}  "
                  f"err/eb {r['max_error'] / r['error_bound']:.3f}")
