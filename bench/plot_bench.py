#!/usr/bin/env python3
"""plot_bench.py - plots of zcoll-bench JSON results (PNG), e.g. from bench/netcluster/sweep.py.

    python3 bench/plot_bench.py RESULTS_DIR                 # reads RESULTS_DIR/manifest.json
    python3 bench/plot_bench.py RESULTS_DIR --size 16M --out plots/
    python3 bench/plot_bench.py a.json b.json --out plots/  # JSON files (no link rates known)

Makes, in OUT (default RESULTS_DIR/plots):
  speedup_size_h{K}_{RATE}.png   speedup over MPI vs message size, one line per mode, one
                                 panel per collective, for each (hosts, rate);
  speedup_rate_h{K}_{SIZE}.png   speedup over MPI vs link rate at one message size (--size,
                                 default the largest size every run has), for each host count;
  summary.csv                    every row: hosts, rate, achieved rate, collective, size,
                                 mode, mean time, speedup, ratio, pass.
Speedup is, for runs with --repeats, the median over the repeats of MPI's time / the mode's
time in the same repeat, with error bars from the smallest to the largest (the range);
for older JSON, zcoll-bench's speedup_vs_mpi (MPI's mean time / the mode's) without bars.
Rows that failed their bound check are drawn with an x. The achieved link rate is the lowest
receive rate `netcluster.sh check` measured (when the sweep ran the check).
Needs matplotlib (python3 -m pip install matplotlib).
"""
import argparse
import csv
import glob
import json
import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tools", "common"))
import matplotlib  # noqa: E402

import zcoll_units  # noqa: E402  (tools/common/zcoll_units.py)

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

MODE_STYLE = {  # stable colours and markers per mode
    "mpi": ("black", "", "--"), "raw": ("tab:gray", "s", "-"), "cpr_p2p": ("tab:blue", "^", "-"),
    "doc": ("tab:green", "v", "-"), "hom": ("tab:red", "o", "-"), "auto": ("tab:purple", "D", "-"),
}


def parse_size(s):
    try:
        return zcoll_units.parse_size(s)
    except ValueError as e:
        raise argparse.ArgumentTypeError(str(e)) from e


human = zcoll_units.format_size


def rate_bps(r):
    """A run's link rate in bit/s, None when unknown."""
    try:
        return zcoll_units.rate_bps(str(r))
    except ValueError:
        return None


def load(inputs):
    """-> list of runs: dict(hosts, rate, rate_bps, achieved_bps, coll, rows), and the default out dir."""
    runs, outdir = [], None
    if len(inputs) == 1 and os.path.isdir(inputs[0]):
        d = inputs[0]
        outdir = os.path.join(d, "plots")
        mpath = os.path.join(d, "manifest.json")
        if os.path.exists(mpath):
            man = json.load(open(mpath))
            for cl in man.get("clusters", []):
                recv = [m["achieved_mbps"] * 1e6 for m in cl.get("check", {}).get("measurements", [])
                        if m.get("direction") == "receive"]
                for r in cl.get("runs", []):
                    if not r.get("json"):
                        continue
                    j = json.load(open(os.path.join(d, r["json"])))
                    runs.append({"hosts": cl["hosts"], "rate": cl["rate"], "rate_bps": cl["rate_bps"],
                                 "achieved_bps": min(recv) if recv else None,
                                 "coll": j["collective"], "rows": j["rows"]})
            return runs, outdir
        inputs = sorted(glob.glob(os.path.join(d, "**", "*.json"), recursive=True))
    for path in inputs:
        j = json.load(open(path))
        if "rows" not in j:
            continue
        m = re.search(r"h(\d+)_([0-9.]+[kmgt]?bit)_", os.path.basename(path))
        rate = m.group(2) if m else "?"
        runs.append({"hosts": j.get("ranks"), "rate": rate, "rate_bps": rate_bps(rate),
                     "achieved_bps": None, "coll": j["collective"], "rows": j["rows"]})
        outdir = outdir or os.path.dirname(os.path.abspath(path))
    return runs, outdir


def speedup_of(r):
    """(median, min, max) of a row's speedup over MPI: per-repeat values when present."""
    v = r.get("speedup_repeats", {}).get("values")
    if v:
        v = sorted(v)
        n = len(v)
        m = v[n // 2] if n % 2 else 0.5 * (v[n // 2 - 1] + v[n // 2])
        return m, v[0], v[-1]
    return r["speedup_vs_mpi"], r["speedup_vs_mpi"], r["speedup_vs_mpi"]


def rows_of(run, threads):
    return [r for r in run["rows"] if threads is None or r["threads"] == threads]


def modes_in(runs, threads):
    seen = []
    for run in runs:
        for r in rows_of(run, threads):
            if r["mode"] not in seen:
                seen.append(r["mode"])
    return seen


def style(mode):
    return MODE_STYLE.get(mode, (None, "o", "-"))


def panel_grid(n):
    cols = min(n, 3)
    rows = (n + cols - 1) // cols
    fig, axes = plt.subplots(rows, cols, figsize=(3.6 * cols, 2.9 * rows + 0.5), squeeze=False)
    for ax in axes.flat[n:]:
        ax.set_visible(False)
    return fig, list(axes.flat[:n])


def save(fig, path, dpi):
    fig.tight_layout()
    fig.savefig(path, dpi=dpi)
    plt.close(fig)
    print(f"plot_bench: {path} ({os.path.getsize(path) // 1024} KB)")


def plot_vs_size(runs, outdir, threads, dpi, with_mpi):
    groups = {}
    for run in runs:
        groups.setdefault((run["hosts"], run["rate"]), []).append(run)
    for (hosts, rate), grp in sorted(groups.items(), key=lambda kv: (kv[0][0], rate_bps(kv[0][1]) or 0)):
        grp.sort(key=lambda r: r["coll"])
        modes = [m for m in modes_in(grp, threads) if with_mpi or m != "mpi"]
        fig, axes = panel_grid(len(grp))
        for ax, run in zip(axes, grp):
            rows = rows_of(run, threads)
            sizes = sorted({r["bytes"] for r in rows})
            for mode in modes:
                pts = sorted((r["bytes"], *speedup_of(r), r["pass"]) for r in rows if r["mode"] == mode)
                if not pts:
                    continue
                plot_line(ax, mode, pts)
            ax.axhline(1.0, color="k", lw=0.8, ls=":")
            ax.set_xscale("log", base=2)
            ax.set_xticks(sizes)
            ax.set_xticklabels([human(s) for s in sizes], fontsize=8)
            ax.tick_params(axis="y", labelsize=8)
            ax.set_title(run["coll"], fontsize=10)
            ax.set_xlabel("message size (bytes)", fontsize=8)
            ax.set_ylabel("speedup over MPI", fontsize=8)
            ax.set_ylim(bottom=0)
            ax.grid(alpha=0.3)
        ach = grp[0].get("achieved_bps")
        title = f"{hosts} hosts, link {rate}" + (f" (achieved {ach / 1e6:.0f} Mbit/s)" if ach else "")
        fig.suptitle(title, fontsize=11)
        axes[0].legend(fontsize=7, loc="best")
        save(fig, os.path.join(outdir, f"speedup_size_h{hosts}_{rate}.png"), dpi)


def plot_line(ax, mode, pts):
    """One mode's line of (x, speedup median, min, max, pass) points with the range as error
    bars; failed rows get an x."""
    c, mk, ls = style(mode)
    x, y = [p[0] for p in pts], [p[1] for p in pts]
    err = [[p[1] - p[2] for p in pts], [p[3] - p[1] for p in pts]]
    if any(e > 0 for side in err for e in side):
        ax.errorbar(x, y, yerr=err, fmt=ls, color=c, marker=mk, ms=4, lw=1.3, capsize=2.5, elinewidth=0.9,
                    label=mode)
    else:
        ax.plot(x, y, ls, color=c, marker=mk, ms=4, lw=1.3, label=mode)
    bad = [(p[0], p[1]) for p in pts if not p[4]]
    if bad:
        ax.plot([p[0] for p in bad], [p[1] for p in bad], "x", color="k", ms=8)


def plot_vs_rate(runs, outdir, threads, dpi, size, with_mpi):
    by_hosts = {}
    for run in runs:
        if run["rate_bps"]:
            by_hosts.setdefault(run["hosts"], []).append(run)
    for hosts, grp in sorted(by_hosts.items()):
        rates = sorted({r["rate_bps"] for r in grp})
        if len(rates) < 2:
            print(f"plot_bench: {hosts} hosts: one link rate only, no speedup-vs-rate plot")
            continue
        sz = size
        if sz is None:  # the largest size that every run has
            common = set.intersection(*[{r["bytes"] for r in rows_of(run, threads)} for run in grp])
            if not common:
                print(f"plot_bench: {hosts} hosts: no size common to all runs; use --size")
                continue
            sz = max(common)
        colls = sorted({r["coll"] for r in grp})
        modes = [m for m in modes_in(grp, threads) if with_mpi or m != "mpi"]
        fig, axes = panel_grid(len(colls))
        for ax, coll in zip(axes, colls):
            for mode in modes:
                pts = []
                for run in grp:
                    if run["coll"] != coll:
                        continue
                    for r in rows_of(run, threads):
                        if r["bytes"] == sz and r["mode"] == mode:
                            pts.append((run["rate_bps"] / 1e9, *speedup_of(r), r["pass"]))
                pts.sort()
                if not pts:
                    continue
                plot_line(ax, mode, pts)
            ax.axhline(1.0, color="k", lw=0.8, ls=":")
            ax.set_xticks([r / 1e9 for r in rates])
            ax.set_xticklabels([f"{r / 1e9:g}" for r in rates], fontsize=8)
            ax.tick_params(axis="y", labelsize=8)
            ax.set_title(coll, fontsize=10)
            ax.set_xlabel("link rate (Gbit/s, configured)", fontsize=8)
            ax.set_ylabel("speedup over MPI", fontsize=8)
            ax.set_ylim(bottom=0)
            ax.grid(alpha=0.3)
        fig.suptitle(f"{hosts} hosts, {human(sz)} messages", fontsize=11)
        axes[0].legend(fontsize=7, loc="best")
        save(fig, os.path.join(outdir, f"speedup_rate_h{hosts}_{human(sz)}.png"), dpi)


def write_csv(runs, outdir, threads):
    path = os.path.join(outdir, "summary.csv")
    with open(path, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["hosts", "rate", "achieved_mbps", "collective", "bytes", "threads", "mode", "algorithm",
                    "t_avg_us", "speedup_vs_mpi", "t_coll_median_us", "speedup_median", "speedup_min",
                    "speedup_max", "ratio", "pass"])
        for run in sorted(runs, key=lambda r: (r["hosts"], r["rate_bps"] or 0, r["coll"])):
            ach = f"{run['achieved_bps'] / 1e6:.1f}" if run.get("achieved_bps") else ""
            for r in rows_of(run, threads):
                w.writerow([run["hosts"], run["rate"], ach, run["coll"], r["bytes"], r["threads"], r["mode"],
                            r["algorithm"], f"{r['time_us']['avg']:.1f}", f"{r['speedup_vs_mpi']:.3f}",
                            f"{r.get('time_coll_us', {}).get('median', 0):.1f}",
                            *(f"{x:.3f}" for x in speedup_of(r)),
                            f"{r['ratio']:.3f}", r["pass"]])
    print(f"plot_bench: {path}")


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter, epilog=__doc__)
    p.add_argument("inputs", nargs="+", help="a results directory (with manifest.json) or JSON files")
    p.add_argument("--out", help="output directory (default RESULTS_DIR/plots)")
    p.add_argument("--size", type=parse_size, help="message size of the speedup-vs-rate plot")
    p.add_argument("--threads", type=int, default=None,
                   help="plot only rows with this thread count (default: the first one found)")
    p.add_argument("--with-mpi", action="store_true", help="also draw the mpi line (always 1)")
    p.add_argument("--dpi", type=int, default=90, help="PNG resolution (default 90: small files)")
    a = p.parse_args()
    runs, outdir = load(a.inputs)
    if not runs:
        sys.exit("plot_bench: no zcoll-bench JSON found")
    threads = a.threads
    if threads is None:
        threads = runs[0]["rows"][0]["threads"] if runs[0]["rows"] else None
    outdir = a.out or outdir
    os.makedirs(outdir, exist_ok=True)
    plot_vs_size(runs, outdir, threads, a.dpi, a.with_mpi)
    plot_vs_rate(runs, outdir, threads, a.dpi, a.size, a.with_mpi)
    write_csv(runs, outdir, threads)


if __name__ == "__main__":
    main()
