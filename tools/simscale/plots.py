#!/usr/bin/env python3
"""plots.py — PNG plots of the simulated study (docs/scale.md), in the style of the
papers' Figures 9-12: simulated time of one call against message size (at a
fixed node count) and against node count (at 646 MB), one line per mode and
thread count, MPI in black; plus the 512-node Allreduce speedups next to hZCCL's.

    python3 tools/simscale/plots.py bench/results/scale     # reads rows.jsonl, writes *.png,
                                                            # prints the 512-node table of docs/scale.md
(the committed study: tar -xJf bench/results/scale.tar.xz -C bench/results first)
"""
import os
import sys

STYLE = {  # mode -> (colour, label)
    "mpi": ("black", "MPI (SMPI)"),
    "raw": ("tab:gray", "zcoll raw"),
    "cpr_p2p": ("tab:orange", "CPR-P2P"),
    "doc": ("tab:blue", "doc (C-Coll)"),
    "hom": ("tab:red", "hom (hZCCL)"),
}
ORDER = ["mpi", "raw", "cpr_p2p", "doc", "hom"]


def _plt():
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    return plt


def _series(rows, x_key, **fixed):
    out = {}
    for r in rows:
        if all(r.get(k) == v for k, v in fixed.items()):
            out.setdefault((r["mode"], r["threads"]), []).append((r[x_key], r["sim_seconds"]))
    return {k: sorted(v) for k, v in out.items()}


def _line_plot(rows, x_key, title, path, xlabel, xfmt, **fixed):
    s = _series(rows, x_key, **fixed)
    if not s or len({x for v in s.values() for x, _ in v}) < 2:
        return None
    plt = _plt()
    fig, ax = plt.subplots(figsize=(6.4, 4.0), dpi=100)
    for mode in ORDER:
        for th in (1, 2):
            pts = s.get((mode, th))
            if not pts:
                continue
            col, lab = STYLE[mode]
            ax.plot([p[0] for p in pts], [p[1] for p in pts], marker="o", ms=3, color=col,
                    ls="-" if th == 1 or mode == "mpi" else "--",
                    label=lab if mode == "mpi" else f"{lab}, {th} thr")
    ax.set_xscale("log", base=2 if x_key == "nodes" else 10)
    ax.set_yscale("log")
    ax.set_xlabel(xlabel)
    ax.set_ylabel("simulated time of one call (s)")
    ax.set_title(title, fontsize=10)
    xs = sorted({x for v in s.values() for x, _ in v})
    ax.set_xticks(xs)
    ax.set_xticklabels([xfmt(x) for x in xs], fontsize=8)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=7, ncol=2)
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)
    return path


def speedup_bar(rows, path, nodes=512, size=646_000_000, label="crossbar"):
    sel = [r for r in rows if r["collective"] == "allreduce" and r["nodes"] == nodes and r["label"] == label
           and abs(r["bytes"] - size) < size * 0.01 and r["mode"] != "mpi"]
    if not sel:
        return None
    plt = _plt()
    fig, ax = plt.subplots(figsize=(7.2, 3.8), dpi=100)
    names, vals, cols = [], [], []
    for mode in ORDER[1:]:
        for th in sorted({x["threads"] for x in sel}):
            r = [x for x in sel if x["mode"] == mode and x["threads"] == th]
            if r:
                names.append(f"{mode}\n{th} thr")
                vals.append(r[0]["speedup_vs_mpi"])
                cols.append(STYLE[mode][0])
    ax.bar(range(len(vals)), vals, color=cols, alpha=0.8)
    for i, v in enumerate(vals):
        ax.text(i, v, f"{v:.2f}x", ha="center", va="bottom", fontsize=8)
    ax.axhline(1.0, color="black", lw=1)
    ax.axhline(2.12, color="tab:red", ls=":", lw=1)
    ax.text(len(vals) - 0.5, 2.12, "hZCCL 1 thr: 2.12x", color="tab:red", fontsize=7, ha="right", va="bottom")
    ax.axhline(6.77, color="tab:red", ls="--", lw=1)
    ax.text(len(vals) - 0.5, 6.77, "hZCCL multi-thread: 6.77x", color="tab:red", fontsize=7, ha="right", va="bottom")
    ax.set_xticks(range(len(vals)))
    ax.set_xticklabels(names, fontsize=7)
    ax.set_ylabel("speedup over MPI (simulated)")
    ax.set_ylim(0, 7.5)
    ax.set_title(f"Allreduce, {nodes} nodes ({label}), 646 MB, 100 Gbit/s", fontsize=10)
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)
    return path


def mb(x):
    return f"{x / 1e6:.0f}MB" if x >= 1e6 else f"{x / 1e3:.0f}KB"


def make_all(rows, out):
    made = []
    try:
        _plt()
    except ImportError:
        print("plots: matplotlib not installed (python3 -m pip install matplotlib); no PNGs")
        return made
    for coll, fig in [("allreduce", "11"), ("reduce_scatter", "9"), ("allgather", ""), ("bcast", ""),
                      ("scatter", "")]:
        nodes_with_sizes = {}
        for r in rows:
            if r["collective"] == coll and r["label"] == "crossbar":
                nodes_with_sizes.setdefault(r["nodes"], set()).add(r["bytes"])
        for n, sz in nodes_with_sizes.items():
            if len(sz) >= 3:
                p = _line_plot(rows, "bytes", f"{coll}, {n} nodes, by size" + (f" (cf. Fig. {fig})" if fig else ""),
                               os.path.join(out, f"{coll}_N{n}_sizes.png"), "message size", mb,
                               collective=coll, nodes=n, label="crossbar")
                if p:
                    made.append(p)
        big = [r for r in rows if r["collective"] == coll and abs(r["bytes"] - 646e6) < 646e6 * 0.01
               and r["label"] == "crossbar"]
        if len({r["nodes"] for r in big}) >= 3:
            figs = {"allreduce": "12", "reduce_scatter": "10"}
            fixed = dict(collective=coll, label="crossbar")
            sub = [r for r in big]
            p = _line_plot(sub, "nodes", f"{coll}, 646 MB, by node count"
                           + (f" (cf. Fig. {figs[coll]})" if coll in figs else ""),
                           os.path.join(out, f"{coll}_646MB_nodes.png"), "nodes", str, **fixed)
            if p:
                made.append(p)
    p = speedup_bar(rows, os.path.join(out, "allreduce_512_speedup.png"))
    if p:
        made.append(p)
    for p in made:
        print(f"plots: {p} ({os.path.getsize(p) // 1024} KB)")
    return made


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else "bench/results/scale"
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from study import load_rows
    rows = load_rows(os.path.join(out, "rows.jsonl"))
    make_all(rows, out)
    print(table_512(rows))  # the table of docs/scale.md



def table_512(rows, nodes=512, size=646_000_000, label="crossbar"):
    """Markdown table of the Allreduce rows at `nodes` and 646 MB (docs/scale.md)."""
    sel = [r for r in rows if r["collective"] == "allreduce" and r["nodes"] == nodes and r["label"] == label
           and abs(r["bytes"] - size) < size * 0.01]
    ref = {1: 2.12}  # hZCCL's Allreduce speedups: 1 thread, and multi-threaded (any other count)
    lines = ["| mode | threads | simulated time (s) | speedup over MPI | ratio sent | "
             "speedup / hZCCL (2.12x at 1 thread, 6.77x multi-thread) |",
             "|---|---|---|---|---|---|"]
    for r in sorted(sel, key=lambda r: (r["threads"], ORDER.index(r["mode"]))):
        th = r["threads"]
        if r["mode"] == "mpi":
            lines.append(f"| mpi (SMPI lr ring, 1-thread SUM) | 1 | {r['sim_seconds']:.4f} | 1.00 | 1.00 | |")
            continue
        h = ref.get(th, 6.77)
        lines.append(f"| {r['mode']} | {th} | {r['sim_seconds']:.4f} | "
                     f"{r['speedup_vs_mpi']:.3f} | {r['ratio_sent']:.2f} | "
                     f"{r['speedup_vs_mpi'] / h:.3f} of {h}x |")
    return "\n".join(lines)


if __name__ == "__main__":
    main()
