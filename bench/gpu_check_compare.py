"""Two runs of scripts/gpu_check.sh side by side: each bench row's speeds as a ratio.

    python3 bench/results_data.py extract OLD NEW
    python3 bench/gpu_check_compare.py OLD NEW      # names under bench/results/

Prints one line per row of bench.json, bench-f64.json and bench-data.json (NEW / OLD
for copy, compress, decompress, hom add, DOC sum; whether the compression ratio, that
is the stream size, is the same), the range of each ratio over the rows, and the
correctness columns of both runs (the calibration's wrong values and max error/bound;
the collective benchmark's statuses and wrong values).
"""
import argparse
import json
import pathlib
import sys

RESULTS = pathlib.Path(__file__).resolve().parent / "results"
BENCH_FILES = ["bench.json", "bench-f64.json", "bench-data.json"]
KEYS = ["copy_gbs", "compress_gbs", "decompress_gbs", "hom_add_gbs", "doc_sum_gbs"]


def load(run, name):
    path = RESULTS / run / name
    if not path.exists():
        sys.exit(f"{path} not found (python3 bench/results_data.py extract {run})")
    return json.loads(path.read_text())


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("old")
    ap.add_argument("new")
    args = ap.parse_args()
    ranges = {k: [] for k in KEYS}
    same_ratio = True
    for name in BENCH_FILES:
        old, new = load(args.old, name)["rows"], load(args.new, name)["rows"]
        if len(old) != len(new):
            sys.exit(f"{name}: {len(old)} rows in {args.old}, {len(new)} in {args.new}")
        for a, b in zip(old, new):
            if (a["input"], a["type"], a["rel"]) != (b["input"], b["type"], b["rel"]):
                sys.exit(f"{name}: rows differ: {a['input']} / {b['input']}")
            cells = []
            for k in KEYS:
                r = b[k] / a[k]
                ranges[k].append(r)
                cells.append(f"{k[:-4]} {r:.2f}")
            same = a["ratio"] == b["ratio"]
            same_ratio &= same
            print(f"{a['input'][-24:]:24} {a['type']} {a['rel']:<7} " + "  ".join(cells)
                  + f"  ratio {'same' if same else 'DIFFERS'} ({b['ratio']})")
    print("range over rows: " + "  ".join(
        f"{k[:-4]} {min(v):.2f}-{max(v):.2f}" for k, v in ranges.items()))
    print("every ratio the same:", same_ratio)
    for run in (args.old, args.new):
        check = load(run, "calibrate.json")["check"]
        colls = []
        for n in ("coll-np2.json", "coll-np4.json"):
            rows = load(run, n)["rows"]
            # wrong: values outside the bound (Allreduce rows); -1: not checked
            bad = sum(1 for r in rows if r["status"] != 0 or r["wrong"] > 0)
            checked = sum(1 for r in rows if r["wrong"] >= 0)
            colls.append(f"{n}: {len(rows)} rows ({checked} checked), {bad} failed")
        print(f"{run}: calibrate wrong {check['wrong']}, max error/bound "
              f"{check['max_error_over_bound']}; " + "; ".join(colls))


if __name__ == "__main__":
    main()
