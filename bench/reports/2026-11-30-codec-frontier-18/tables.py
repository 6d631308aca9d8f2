#!/usr/bin/env python3
"""tables.py DIR: part 18's tables (markdown) from its data directory
(bench/results/2026-11-30-codec-frontier-18 unpacked): code_prefetch/*.json,
wait_policy/*.json, two_threads/*.json, steal/*.json and barriers/*.json. Times in us:
median [p10, p90] per run; steal/ and barriers/: new / base time, median [p10, p90] of the
rounds."""
import glob
import json
import os
import statistics
import sys


def cell(c):
    return f"{c['median']:.1f} [{c['p10']:.1f}, {c['p90']:.1f}]"


def runs_table(paths, cases, title):
    print(f"### {title}\n")
    print("| run | " + " | ".join(cases) + " |")
    print("|---" * (len(cases) + 1) + "|")
    for p in paths:
        d = json.load(open(p))["cases_us"]
        print(f"| {os.path.basename(p)[:-5]} | " + " | ".join(cell(d[k]) for k in cases) + " |")
    print()


def main(root):
    runs_table(sorted(glob.glob(f"{root}/code_prefetch/*.json")),
               ["hom_cold", "hom_cold_after_hint", "hom_cold_after_hint_wait",
                "hom_cold_after_touch", "hom_code_warm", "hint_only", "touch_only",
                "memcpy_cold"],
               "code_prefetch: rect3d-rhumidity, REL 1e-4, one thread (us)")
    print("### wait_policy: zcoll-codec-bench --hom --cold, rect3d-t, REL 1e-2 "
          "(median of 11 calls, us)\n")
    print("| policy | rounds | 1 thread | 2 threads | 2t / 1t time |")
    print("|---|---|---|---|---|")
    for pol in ("passive", "default"):
        t = {1: [], 2: []}
        for p in sorted(glob.glob(f"{root}/wait_policy/{pol}-*.json")):
            for r in json.load(open(p))["rows"]:
                t[r["threads"]].append(1e6 * r["hom"]["median_s"])
        ratio = [b / a for a, b in zip(t[1], t[2])]
        fmt = lambda v: f"{statistics.median(v):.1f} [{min(v):.1f}, {max(v):.1f}]"
        print(f"| {pol} | {len(t[1])} | {fmt(t[1])} | {fmt(t[2])} | "
              f"{statistics.median(ratio):.2f} [{min(ratio):.2f}, {max(ratio):.2f}] |")
    print()
    runs_table(sorted(glob.glob(f"{root}/two_threads/*.json")),
               ["1t_cold", "2t_cold", "2t_cold_team_awake", "1t_warm", "2t_warm",
                "empty_region_cold"],
               "two_threads: 1 and 2 threads, cold and warm (us)")
    ratio_table(root, "steal", ["hom_2t_warm", "hom_2t_cold", "hom_1t_cold", "dec_2t_warm",
                                "dec_2t_cold"], "steal: trial / base time (ab_libs.cc, 61 rounds)")
    ratio_table(root, "barriers", ["hom_2t_cold", "hom_2t_warm", "cmp_2t_cold", "cmp_2t_warm",
                                   "dec_2t_warm"],
                "barriers: 4f2771f / 5f548fc time (ab_libs.cc compress, 41 rounds)")


def ratio_table(root, sub, cases, title):
    print(f"### {title}\n")
    print("| row | " + " | ".join(cases) + " |")
    print("|---" * (len(cases) + 1) + "|")
    for p in sorted(glob.glob(f"{root}/{sub}/*.json")):
        d = json.load(open(p))["cases_us"]
        print(f"| {os.path.basename(p)[:-5]} | " + " | ".join(
            f"{d[k]['b_over_a_median']:.3f} [{d[k]['b_over_a_p10']:.3f}, {d[k]['b_over_a_p90']:.3f}]"
            for k in cases) + " |")
    print()


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "bench/results/2026-11-30-codec-frontier-18")
