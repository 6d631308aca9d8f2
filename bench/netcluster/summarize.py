#!/usr/bin/env python3
"""summarize.py - Markdown tables from a bench/netcluster/sweep.py results directory.

    python3 bench/netcluster/summarize.py RESULTS_DIR [--hosts 4 --rate 1gbit] > tables.md

Prints, from the zcoll-bench JSON of every run in RESULTS_DIR/manifest.json:
  1. per (hosts, rate): MPI's median time and range, and every mode's speedup over MPI as
     median [min-max] over the repeats, with what `auto` ran; a "~" after a speedup marks a
     point whose time range overlaps MPI's (noise: the ranges overlap, no ranking);
  2. `auto` against MPI and the best mode at every point, with spreads: auto's median over
     MPI's and over the best mode's, and the verdicts of the issue's goal (auto no more than
     5% slower than MPI, within 10% of the best), each marked "noise" where the ranges
     overlap;
  3. the wire limit (when the runs have hom and a compression ratio): speedup over MPI,
     the compression ratio, and their quotient (the fraction of the wire limit), median
     [min-max] over the repeats, per collective, field, bound and rate;
  4. the cost model against the measurements (predicted / measured median time per mode).
A point's time is zcoll-bench's per-repeat collective time (time_coll_us: max over ranks,
mean over iterations), median and range over the repeats. Runs without repeats (older
JSON) fall back to the mean over ranks and iterations, as one "repeat". Standard library.
"""
import argparse
import json
import os
import statistics
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tools", "common"))
import zcoll_units  # noqa: E402  (tools/common/zcoll_units.py)

human = zcoll_units.format_size
MODES = ("raw", "cpr_p2p", "doc", "hom", "auto")


def load(results):
    man = json.load(open(os.path.join(results, "manifest.json")))
    runs = []
    for cl in man["clusters"]:
        rates = [m["achieved_mbps"] for m in cl.get("check", {}).get("measurements", [])
                 if m.get("direction") == "receive" and "achieved_mbps" in m]
        for run in cl["runs"]:
            if not run.get("json"):
                continue
            path = os.path.join(results, run["json"])
            if not os.path.exists(path):
                continue
            j = json.load(open(path))
            runs.append(dict(hosts=cl["hosts"], rate=cl["rate"], rate_bps=cl.get("rate_bps", 0),
                             achieved=min(rates) if rates else None, coll=run["collective"],
                             rows=j["rows"], data=j.get("data"), rel=j.get("error_bound"),
                             repeats=j.get("repeats", 1)))
    return man, runs


def times(row):
    """Per-repeat times (us) of a row: time_coll_us's repeats, else the old mean."""
    t = row.get("time_coll_us", {}).get("repeats")
    return [x for x in t if x > 0] if t else [row["time_us"]["avg"]]


def speedups(row, mpi_row):
    """Per-repeat speedups over MPI (same repeat), else the ratio of the old means."""
    s = row.get("speedup_repeats", {}).get("values")
    if s:
        return s
    return [mpi_row["time_us"]["avg"] / row["time_us"]["avg"]] if row["time_us"]["avg"] > 0 else [0]


def med(v):
    return statistics.median(v) if v else 0.0


def overlap(a, b):
    """Whether the ranges of two lists of times overlap."""
    return min(a) <= max(b) and min(b) <= max(a)


def spread(v, fmt="{:.2f}"):
    return (fmt + " [" + fmt + "-" + fmt + "]").format(med(v), min(v), max(v))


def by_size(rows):
    out = {}
    for r in rows:
        out.setdefault((r["bytes"], r["threads"]), {})[r["mode"]] = r
    return out


def label(r):
    """A run's name in a table: the collective, and field and bound when a sweep had several."""
    return r["coll"]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("results")
    ap.add_argument("--hosts", type=int, help="only this host count")
    ap.add_argument("--rate", help="only this link rate (e.g. 1gbit)")
    a = ap.parse_args()
    _, runs = load(a.results)
    runs = [r for r in runs if (a.hosts is None or r["hosts"] == a.hosts) and (a.rate is None or r["rate"] == a.rate)]
    if not runs:
        sys.exit("summarize: no runs")
    multi = len({(r["data"], r["rel"]) for r in runs}) > 1
    name = (lambda r: f'{r["coll"]} {r["data"].split("_")[1] if "_" in (r["data"] or "") else r["data"]} '
            f'{r["rel"]:g}') if multi else label
    reps = sorted({r["repeats"] for r in runs})
    print(f"Repeats per point: {', '.join(map(str, reps))}. Times: the collective's time (max over ranks), "
          "median [min-max] over the repeats; speedups: MPI's time / the mode's in the same repeat. "
          "`~`: the mode's and MPI's time ranges overlap (noise: no ranking).")

    # 1. speedups with spreads
    groups = {}
    for r in runs:
        groups.setdefault((r["hosts"], r["rate"], r["achieved"]), []).append(r)
    for (hosts, rate, achieved), rs in sorted(groups.items(),
                                              key=lambda kv: (kv[0][0], zcoll_units.rate_bps(kv[0][1]))):
        modes = [m for m in MODES if any(m == x["mode"] for r in rs for x in r["rows"])]
        ach = f", achieved {achieved:.0f} Mbit/s (lowest receive rate of the check)" if achieved else ""
        print(f"\n**{hosts} hosts, {rate}{ach}** — speedup over MPI, median [min-max] over the repeats\n")
        print("| run | size | MPI ms | " + " | ".join(modes) + " | auto ran |")
        print("|---|---|---|" + "---|" * len(modes) + "---|")
        for r in rs:
            for (size, _), m in sorted(by_size(r["rows"]).items()):
                if "mpi" not in m:
                    continue
                tm = times(m["mpi"])
                cells = []
                for mode in modes:
                    x = m.get(mode)
                    if x is None:
                        cells.append("")
                        continue
                    c = spread(speedups(x, m["mpi"])) + (" ~" if overlap(times(x), tm) else "")
                    cells.append(c + ("" if x["pass"] else " FAIL"))
                ran = m.get("auto", {}).get("algorithm", "")
                print(f"| {name(r)} | {human(size)} | {spread([t / 1e3 for t in tm], '{:.1f}')} | "
                      + " | ".join(cells) + f" | {ran} |")

    # 2. auto vs MPI vs the best mode
    print("\n`auto` against MPI and the best mode (median times; ratio of medians; spreads: min-max over "
          "the repeats). Goal: auto/MPI <= 1.05 and auto/best <= 1.10.\n")
    print("| hosts | rate | run | size | auto ran | auto ms | MPI ms | best | best ms | auto/MPI | auto/best "
          "| verdict |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    n = slow = slow_noise = far = far_noise = 0
    for r in sorted(runs, key=lambda r: (r["hosts"], zcoll_units.rate_bps(r["rate"]), r["coll"])):
        for (size, _), m in sorted(by_size(r["rows"]).items()):
            if "auto" not in m or "mpi" not in m:
                continue
            ta, tm = times(m["auto"]), times(m["mpi"])
            best = min((k for k in m if k != "auto"), key=lambda k: med(times(m[k])))
            tb = times(m[best])
            q_mpi, q_best = med(ta) / med(tm), med(ta) / med(tb)
            n += 1
            v = []
            if q_mpi > 1.05:
                if overlap(ta, tm):
                    slow_noise += 1
                    v.append("slower than MPI (noise: ranges overlap)")
                else:
                    slow += 1
                    v.append("**slower than MPI**")
            if q_best > 1.10:
                if overlap(ta, tb):
                    far_noise += 1
                    v.append("off the best (noise: ranges overlap)")
                else:
                    far += 1
                    v.append("**>10% off the best**")
            print(f'| {r["hosts"]} | {r["rate"]} | {name(r)} | {human(size)} | {m["auto"]["algorithm"]} | '
                  f"{spread([t / 1e3 for t in ta], '{:.1f}')} | {spread([t / 1e3 for t in tm], '{:.1f}')} | "
                  f"{best} | {med(tb) / 1e3:.1f} | {q_mpi:.2f} | {q_best:.2f} | {'; '.join(v) or 'ok'} |")
    if n:
        print(f"\n{n} points: auto's median more than 5% slower than MPI's at {slow} "
              f"(+{slow_noise} within overlapping ranges); more than 10% off the best mode's at {far} "
              f"(+{far_noise} within overlapping ranges).")

    # 3. the wire limit
    wl = []
    for r in runs:
        for (size, _), m in sorted(by_size(r["rows"]).items()):
            if "hom" in m and "mpi" in m and m["hom"].get("ratio", 0) > 1:
                s = speedups(m["hom"], m["mpi"])
                ratio = m["hom"]["ratio"]
                wl.append((r, size, s, ratio))
    if wl:
        print("\nThe wire limit: hom's speedup over MPI, its compression ratio (uncompressed / sent bytes), "
              "and speedup / ratio (the fraction of the wire limit reached), median [min-max] over the repeats\n")
        print("| hosts | rate | collective | field | REL | size | speedup | ratio | fraction of the limit |")
        print("|---|---|---|---|---|---|---|---|---|")
        def order(x):
            return (x[0]["hosts"], x[0]["coll"], x[0]["data"] or "", x[0]["rel"] or 0,
                    zcoll_units.rate_bps(x[0]["rate"]), x[1])

        for r, size, s, ratio in sorted(wl, key=order):
            print(f'| {r["hosts"]} | {r["rate"]} | {r["coll"]} | {r["data"]} | {r["rel"]:g} | {human(size)} | '
                  f"{spread(s)} | {ratio:.2f} | {spread([x / ratio for x in s])} |")

    # 4. model vs measurement
    print("\nCost model: predicted / measured median time (zcoll-bench t_model / time_coll_us median), "
          "over all runs and sizes\n")
    print("| mode | points | median | min | max |")
    print("|---|---|---|---|---|")
    per = {}
    for r in runs:
        for x in r["rows"]:
            t = med(times(x))
            if x.get("time_model_us", 0) > 0 and t > 0:
                per.setdefault(x["mode"], []).append(x["time_model_us"] / t)
    for mode in ("mpi",) + MODES:
        v = per.get(mode)
        if v:
            print(f"| {mode} | {len(v)} | {med(v):.2f} | {min(v):.2f} | {max(v):.2f} |")


if __name__ == "__main__":
    main()
