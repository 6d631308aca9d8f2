#!/usr/bin/env python3
"""profile_table.py OUT_DIR — Markdown tables from profile.sh's per-run JSON files:
per operation, instructions per value of every stage before and after (all files
and bounds together: the sum of the instructions over the sum of the values), and
the total per file and bound. An OUT_DIR under bench/results/ is read from its archive unless
unpacked."""
import collections
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
import results_data as rd  # noqa: E402  (bench/results_data.py: the packed raw results)

OPS = ["compress_abs", "value_range", "decompress", "decompress_accumulate", "hom_add"]
NAMES = {"compress_abs": "compress (ABS)", "value_range": "range pass (REL adds it)",
         "decompress": "decompress", "decompress_accumulate": "decompress-accumulate",
         "hom_add": "hom add (per value of one input)"}


def load(out, side):
    runs = {}
    for p in rd.glob(os.path.join(out, side, "*.json")):
        stem = os.path.basename(p)[:-5]  # <file>-<rel like 1e-3>-<op>
        op = next(o for o in OPS if stem.endswith("-" + o))
        field, mant, exp = stem[:-len(op) - 1].rsplit("-", 2)
        runs[(field, f"{mant}-{exp}", op)] = rd.load_json(p)
    return runs


def main():
    out = sys.argv[1]
    b, a = load(out, "before"), load(out, "after")
    commits = {s: rd.open(os.path.join(out, s + ".commit")).read().strip()[:7]
               for s in ("before", "after") if rd.exists(os.path.join(out, s + ".commit"))}
    print(f"Instructions per value (callgrind Ir, 1 thread), before {commits.get('before')} / "
          f"after {commits.get('after')}, every file and REL bound of the run.\n")
    for op in OPS:
        keys = sorted(k for k in b if k[2] == op and k in a)
        if not keys:
            continue
        tot = {s: collections.Counter() for s in ("before", "after")}
        vals = {"before": 0, "after": 0}
        for k in keys:
            for s, runs in (("before", b), ("after", a)):
                tot[s].update(runs[k]["stages"])
                vals[s] += runs[k]["values"]
        stages = sorted(set(tot["before"]) | set(tot["after"]),
                        key=lambda st: -(tot["before"][st] + tot["after"][st]))
        print(f"### {NAMES[op]}\n")
        print("| stage | before Ir/value | after Ir/value |")
        print("|---|---|---|")
        for st in stages:
            x, y = tot["before"][st] / vals["before"], tot["after"][st] / vals["after"]
            if x >= 0.005 or y >= 0.005:
                print(f"| {st} | {x:.2f} | {y:.2f} |")
        print(f"| **total** | **{sum(tot['before'].values()) / vals['before']:.2f}** | "
              f"**{sum(tot['after'].values()) / vals['after']:.2f}** |\n")
        print("| file | REL | before Ir/value | after Ir/value | after/before |")
        print("|---|---|---|---|---|")
        for k in keys:
            x, y = b[k]["total"] / b[k]["values"], a[k]["total"] / a[k]["values"]
            print(f"| {k[0]} | {k[1]} | {x:.2f} | {y:.2f} | {y / x:.2f} |")
        print()


if __name__ == "__main__":
    main()
