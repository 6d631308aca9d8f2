"""Call 6 against call 5 of the GPU check: each bench row's speeds as a ratio.

    python3 bench/results_data.py extract 2026-11-28-gpu-check-5 2026-11-29-gpu-check-6
    python3 bench/reports/2026-11-29-gpu-check-6/compare.py

Prints one line per row of bench.json, bench-f64.json and bench-data.json
(call 6 / call 5 for copy, compress, decompress, hom add, DOC sum; whether the
compression ratio, i.e. the stream size, is the same) and the range of each.
"""
import json
import pathlib
import sys

RESULTS = pathlib.Path(__file__).resolve().parents[2] / "results"
OLD = RESULTS / "2026-11-28-gpu-check-5"
NEW = RESULTS / "2026-11-29-gpu-check-6"
KEYS = ["copy_gbs", "compress_gbs", "decompress_gbs", "hom_add_gbs", "doc_sum_gbs"]


def main():
    ranges = {k: [] for k in KEYS}
    same_ratio = True
    for name in ["bench.json", "bench-f64.json", "bench-data.json"]:
        old = json.loads((OLD / name).read_text())["rows"]
        new = json.loads((NEW / name).read_text())["rows"]
        if len(old) != len(new):
            sys.exit(f"{name}: {len(old)} rows in call 5, {len(new)} in call 6")
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
            print(f"{a['input'][:24]:24} {a['type']} {a['rel']:<7} " + "  ".join(cells)
                  + f"  ratio {'same' if same else 'DIFFERS'} ({b['ratio']})")
    print("range over rows: " + "  ".join(
        f"{k[:-4]} {min(v):.2f}-{max(v):.2f}" for k, v in ranges.items()))
    print("every ratio the same:", same_ratio)


if __name__ == "__main__":
    main()
