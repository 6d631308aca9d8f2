#!/usr/bin/env python3
"""summarize.py RUN_DIR — the table of measure.sh: per algorithm (flat ring,
node_aware) and size, hom's speedup over MPI's Allreduce (t_MPI / t_hom of the same
repeat: zcoll-bench's speedup_repeats), pooled over the rounds: median [min-max] and
the number of repeats; hom's collective time (time_coll_us, median of the repeats);
the cost model's prediction for the row (time_model_us, median over the rounds); the
compression ratio it sent (uncompressed bytes / bytes sent by all ranks, the raw
steps inside a node included); the largest error against the reported bound. A RUN_DIR under
bench/results/ is read from its archive unless unpacked."""
import os
import statistics
import sys
from collections import defaultdict

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
import results_data as rd  # noqa: E402  (bench/results_data.py: the packed raw results)


def main():
    base = sys.argv[1]
    pooled = defaultdict(lambda: {"speedup": [], "t_hom": [], "t_mpi": [], "ratio": [], "err": [],
                                  "model": []})
    for f in rd.glob(os.path.join(base, "*-*", "runs", "*.json")):
        algo = os.path.basename(os.path.dirname(os.path.dirname(f))).rsplit("-", 1)[0]
        j = rd.load_json(f)
        for r in j["rows"]:
            if r["mode"] != "hom":
                continue
            mpi = next(m for m in j["rows"] if m["mode"] == "mpi" and m["bytes"] == r["bytes"])
            p = pooled[(algo, r["bytes"])]
            p["speedup"] += r["speedup_repeats"]["values"]
            p["t_hom"] += r["time_coll_us"]["repeats"]
            p["t_mpi"] += mpi["time_coll_us"]["repeats"]
            p["ratio"].append(r["ratio"])
            p["model"].append(r["time_model_us"])
            p["err"].append((r["max_error"], r["error_bound"], r["algorithm"]))
    print("| algorithm (ran) | size | hom speedup over MPI, median [min–max] (repeats) | "
          "hom time, ms median | hom model, ms | MPI time, ms median | ratio sent | max error / bound |")
    print("|---|---|---|---|---|---|---|---|")
    for (algo, size), p in sorted(pooled.items(), key=lambda kv: (kv[0][1], kv[0][0])):
        s = p["speedup"]
        ran = sorted({e[2] for e in p["err"]})
        worst = max(e[0] / e[1] for e in p["err"] if e[1] > 0)
        print(f"| {algo} ({','.join(ran)}) | {size >> 20} MiB | {statistics.median(s):.2f} "
              f"[{min(s):.2f}–{max(s):.2f}] ({len(s)}) | {statistics.median(p['t_hom']) / 1e3:.1f} | "
              f"{statistics.median(p['model']) / 1e3:.1f} | "
              f"{statistics.median(p['t_mpi']) / 1e3:.1f} | {statistics.median(p['ratio']):.2f} | "
              f"{worst:.3f} |")


if __name__ == "__main__":
    main()
