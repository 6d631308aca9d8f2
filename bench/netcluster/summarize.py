#!/usr/bin/env python3
"""summarize.py - Markdown tables from a bench/netcluster/sweep.py results directory.

    python3 bench/netcluster/summarize.py RESULTS_DIR [--hosts 4 --rate 1gbit] > tables.md

Prints, from the zcoll-bench JSON of every run in RESULTS_DIR/manifest.json:
  1. speedup over MPI per collective, size and mode (one table per hosts x rate),
     with what `auto` ran;
  2. `auto` against the best mode of the same run at every size: its time over the
     best one's (the issue's acceptance: within 1.10 across 4 hosts at 1 Gbit/s);
  3. the cost model against the measurements: predicted / measured mean time per
     mode (median and range over sizes), from zcoll-bench's t_model column.
Times are zcoll-bench's means over ranks and iterations. Standard library only.
"""
import argparse
import json
import os
import statistics
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tools", "common"))
import zcoll_units  # noqa: E402  (tools/common/zcoll_units.py)

human = zcoll_units.format_size


def load(results):
    man = json.load(open(os.path.join(results, "manifest.json")))
    runs = []
    for cl in man["clusters"]:
        rates = [m["achieved_mbps"] for m in cl.get("check", {}).get("measurements", [])
                 if m.get("direction") == "receive" and "achieved_mbps" in m]
        for run in cl["runs"]:
            path = os.path.join(results, run["json"])
            if not os.path.exists(path):
                continue
            j = json.load(open(path))
            runs.append(dict(hosts=cl["hosts"], rate=cl["rate"], achieved=min(rates) if rates else None,
                             coll=run["collective"], rows=j["rows"], data=j.get("data")))
    return man, runs


def by_size(rows):
    out = {}
    for r in rows:
        out.setdefault(r["bytes"], {})[r["mode"]] = r
    return out


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

    # 1. speedups
    groups = {}
    for r in runs:
        groups.setdefault((r["hosts"], r["rate"], r["achieved"]), []).append(r)
    for (hosts, rate, achieved), rs in sorted(groups.items(), key=lambda kv: (kv[0][0], kv[0][1])):
        modes = [m for m in ("raw", "cpr_p2p", "doc", "hom", "auto") if any(m == x["mode"] for r in rs for x in r["rows"])]
        ach = f", achieved {achieved:.0f} Mbit/s (lowest receive rate of the check)" if achieved else ""
        print(f"\n**{hosts} hosts, {rate}{ach}** — speedup over MPI (MPI's mean time in ms)\n")
        print("| collective | size | MPI ms | " + " | ".join(modes) + " | auto ran |")
        print("|---|---|---|" + "---|" * len(modes) + "---|")
        for r in rs:
            for size, m in sorted(by_size(r["rows"]).items()):
                if "mpi" not in m:
                    continue
                cells = []
                for mode in modes:
                    x = m.get(mode)
                    cells.append("" if x is None else f'{x["speedup_vs_mpi"]:.2f}' + ("" if x["pass"] else " FAIL"))
                ran = m.get("auto", {}).get("algorithm", "")
                print(f'| {r["coll"]} | {human(size)} | {m["mpi"]["time_us"]["avg"] / 1e3:.1f} | ' + " | ".join(cells) + f" | {ran} |")

    # 2. auto vs the best mode
    print("\n`auto` vs the best mode of the same run (auto's mean time / the best one's; "
          "best among mpi, raw, cpr_p2p, doc, hom)\n")
    print("| hosts | rate | collective | " + " | ".join(human(s) for s in sorted({x['bytes'] for r in runs for x in r['rows']})) + " |")
    sizes = sorted({x["bytes"] for r in runs for x in r["rows"]})
    print("|---|---|---|" + "---|" * len(sizes))
    worst = []
    for r in sorted(runs, key=lambda r: (r["hosts"], r["rate"], r["coll"])):
        cells = []
        for size in sizes:
            m = by_size(r["rows"]).get(size, {})
            if "auto" not in m:
                cells.append("")
                continue
            best_mode, best = min(((k, v["time_us"]["avg"]) for k, v in m.items() if k != "auto"), key=lambda kv: kv[1])
            q = m["auto"]["time_us"]["avg"] / best
            worst.append(q)
            cells.append(f"{q:.2f}" + (f" ({best_mode})" if q > 1.10 else ""))
        print(f'| {r["hosts"]} | {r["rate"]} | {r["coll"]} | ' + " | ".join(cells) + " |")
    if worst:
        within = sum(q <= 1.10 for q in worst)
        print(f"\n{within} of {len(worst)} (run, size) points within 1.10 of the best mode; "
              f"median {statistics.median(worst):.2f}, worst {max(worst):.2f}.")

    # 3. model vs measurement
    print("\nCost model: predicted / measured mean time (zcoll-bench t_model / t_avg), over all runs and sizes\n")
    print("| mode | points | median | min | max |")
    print("|---|---|---|---|---|")
    per = {}
    for r in runs:
        for x in r["rows"]:
            if x.get("time_model_us", 0) > 0 and x["time_us"]["avg"] > 0:
                per.setdefault(x["mode"], []).append(x["time_model_us"] / x["time_us"]["avg"])
    for mode in ("mpi", "raw", "cpr_p2p", "doc", "hom", "auto"):
        v = per.get(mode)
        if v:
            print(f"| {mode} | {len(v)} | {statistics.median(v):.2f} | {min(v):.2f} | {max(v):.2f} |")


if __name__ == "__main__":
    main()
