#!/usr/bin/env python3
"""plot_stack.py — the picture of an image_stacking run.

Reads the JSON written by `image_stacking --json FILE --dump DIR` and the images
it dumped into DIR (the first tile of the mean stacks, float32), and draws, for
one mode and bound:

  top row:    one noisy frame | exact stack (MPI_Allreduce) | zcoll stack |
              |zcoll - exact| in units of the reported error bound
  bottom row: the same four, zoomed on the window where |zcoll - exact| is
              largest (averaged over a small box, so one pixel does not decide)

Images share one asinh stretch (faint stars and bright cores both visible); the
difference panel has its own colour bar from 0 to 1 bound.

  python plot_stack.py run.json --dump DIR --mode hom --eb 1e-4 --out stack.png
"""
import argparse
import json
import os
import sys

import matplotlib
import matplotlib.ticker
import numpy as np

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib import colors  # noqa: E402
from matplotlib.patches import Rectangle  # noqa: E402


def load(path, rows, cols):
    a = np.fromfile(path, dtype="<f4")
    if a.size != rows * cols:
        sys.exit(f"plot_stack: {path}: {a.size} values, expected {rows}x{cols}")
    return a.reshape(rows, cols)


def box_mean(a, k):
    """Mean of a over k x k windows (same shape, edges clamped), with cumulative sums."""
    p = np.pad(a.astype(np.float64), ((k // 2, k - k // 2), (k // 2, k - k // 2)), mode="edge")
    c = p.cumsum(0).cumsum(1)
    c = np.pad(c, ((1, 0), (1, 0)))
    s = c[k:, k:] - c[:-k, k:] - c[k:, :-k] + c[:-k, :-k]
    return (s / (k * k))[: a.shape[0], : a.shape[1]]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("json", help="image_stacking --json output")
    ap.add_argument("--dump", required=True, help="the --dump directory of the same run")
    ap.add_argument("--mode", default="hom", help="mode as requested (hom, doc, auto)")
    ap.add_argument("--eb", type=float, default=1e-4, help="bound per compression (ABS)")
    ap.add_argument("--zoom", type=int, default=96, help="side of the zoomed window (pixels)")
    ap.add_argument("--out", required=True, help="PNG to write")
    args = ap.parse_args()

    run = json.load(open(args.json))
    rows, cols = run["rows"], run["cols"]
    row = next((r for r in run["results"] if r["kind"] == "mean" and r["mode"] == args.mode
                and abs(r["eb"] - args.eb) <= 1e-9 * args.eb), None)
    if row is None or not row["dump"]:
        sys.exit(f"plot_stack: no dumped mean row for mode {args.mode} eb {args.eb:g} in {args.json}")
    frame = load(os.path.join(args.dump, "frame0.f32"), rows, cols)
    exact = load(os.path.join(args.dump, "exact_mean.f32"), rows, cols)
    stack = load(os.path.join(args.dump, row["dump"]), rows, cols)
    bound = row["error_bound"]
    diff = np.abs(stack.astype(np.float64) - exact) / bound if bound > 0 else np.zeros_like(exact)

    # where the difference is largest: the centre of the k x k box of largest mean |diff|
    k = 8
    cy, cx = np.unravel_index(np.argmax(box_mean(diff, k)), diff.shape)
    h = min(args.zoom, rows, cols) // 2
    y0 = int(np.clip(cy - h, 0, rows - 2 * h))
    x0 = int(np.clip(cx - h, 0, cols - 2 * h))
    win = (slice(y0, y0 + 2 * h), slice(x0, x0 + 2 * h))

    # one asinh stretch for the images: linear below about one noise sigma of a frame
    lo = float(np.percentile(exact, 0.5))
    hi = float(np.percentile(exact, 99.95))
    norm = colors.AsinhNorm(linear_width=max(run["sigma"], 1e-6), vmin=lo, vmax=hi)
    dnorm = colors.Normalize(vmin=0.0, vmax=1.0)

    n_ranks, n_exp = run["ranks"], run["exposures"]
    fmt = lambda v: "inf" if v is None else f"{v:.2f}"  # noqa: E731
    titles = [
        f"one exposure (rank 0)\nclean + N(0, {run['sigma']:g}²)",
        f"exact stack: MPI_Allreduce\nmean of {run['frames']} frames ({n_ranks} ranks × {n_exp})\n"
        f"PSNR vs clean {fmt(row['psnr_exact_vs_clean'])} dB",
        f"zcoll stack: {row['mode_ran']}, ABS {row['eb']:g}\nratio {row['ratio']:.2f}, "
        f"PSNR vs exact {fmt(row['psnr'])} dB\nPSNR vs clean {fmt(row['psnr_zcoll_vs_clean'])} dB",
        f"|zcoll − exact| / bound\nbound {bound:.3g} (max {row['max_abs_error'] / bound if bound else 0:.3f})\n"
        f"NRMSE {row['nrmse']:.2e}",
    ]
    # panel width w; the full image keeps its aspect, the zoom is square
    w = 3.6
    fig, axes = plt.subplots(2, 4, figsize=(4 * w + 2.6, w * rows / cols + w + 2.4), constrained_layout=True,
                             gridspec_kw={"height_ratios": [rows / cols, 1.0]})
    panels = [(frame, norm, "gray"), (exact, norm, "gray"), (stack, norm, "gray"), (diff, dnorm, "magma")]
    for j, (img, nm, cmap) in enumerate(panels):
        for i, sub in enumerate([(slice(None), slice(None)), win]):
            ax = axes[i, j]
            im = ax.imshow(img[sub], norm=nm, cmap=cmap, origin="lower", interpolation="nearest")
            ax.set_xticks([])
            ax.set_yticks([])
            if i == 0:
                ax.set_title(titles[j], fontsize=11)
                ax.add_patch(Rectangle((x0, y0), 2 * h, 2 * h, fill=False, ec="cyan", lw=1.2))
            else:
                ax.set_title(f"zoom: rows {y0}..{y0 + 2 * h - 1}, cols {x0}..{x0 + 2 * h - 1}", fontsize=10)
        if j == 3:
            cb = fig.colorbar(im, ax=axes[:, 3], shrink=0.8)
            cb.set_label("|zcoll − exact| in units of the reported bound", fontsize=11)
        elif j == 2:
            cb = fig.colorbar(im, ax=axes[:, 2], shrink=0.8)
            cb.ax.yaxis.set_major_formatter(matplotlib.ticker.FormatStrFormatter("%.3g"))
            cb.ax.yaxis.set_minor_formatter(matplotlib.ticker.NullFormatter())
            cb.set_label("normalised intensity (asinh stretch)", fontsize=11)
    name = os.path.basename(run["image"]).removesuffix(".f32")
    fig.suptitle(f"{name}: stacking with MPI_Allreduce vs zcoll_allreduce ({row['mode_ran']}, "
                 f"predicted PSNR {fmt(row['psnr_predicted'])} dB, measured {fmt(row['psnr'])} dB)",
                 fontsize=13)
    fig.savefig(args.out, dpi=80)
    print(args.out)


if __name__ == "__main__":
    main()
