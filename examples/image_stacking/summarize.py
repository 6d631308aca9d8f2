#!/usr/bin/env python3
"""summarize.py — one Markdown table from one or more image_stacking --json runs.

Per (kind, bound, mode): the time of MPI_Allreduce and of zcoll_allreduce as the
median over every timed repeat of every run (range min..max in brackets), the
speedup of the medians, and the quality figures (identical across runs with the
same seed; with different seeds the median is shown).

  python summarize.py run1.json run2.json > table.md
"""
import json
import statistics
import sys


def fmt(v, spec):
    return "inf" if v is None else format(v, spec)


def main():
    runs = [json.load(open(p)) for p in sys.argv[1:]]
    if not runs:
        sys.exit("usage: summarize.py RUN.json ...")
    r0 = runs[0]
    print(f"{r0['ranks']} ranks x {r0['exposures']} exposures = {r0['frames']} frames, "
          f"{r0['bytes_per_rank'] / 2**20:.0f} MiB per rank, sigma {r0['sigma']:g}, "
          f"{len(runs)} run(s) x {r0['repeats']} repeats; {r0['mpi_library']}\n")
    print("| kind | ABS eb | mode (ran) | MPI ms | zcoll ms | speedup | ratio | PSNR dB | NRMSE "
          "| predicted PSNR | PSNR vs clean: MPI / zcoll | max err / bound |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    keys = [(r["kind"], r["eb"], r["mode"]) for r in r0["results"]]
    for key in keys:
        rows = [r for run in runs for r in run["results"] if (r["kind"], r["eb"], r["mode"]) == key]
        tm = [t for r in rows for t in r["times_mpi_s"]]
        tz = [t for r in rows for t in r["times_zcoll_s"]]
        mm, mz = statistics.median(tm), statistics.median(tz)

        def med(k, rows=rows):  # the median of field k over the runs (None if any has none)
            return None if any(r[k] is None for r in rows) else statistics.median(r[k] for r in rows)

        eb_ratio = med("max_abs_error") / rows[0]["error_bound"] if rows[0]["error_bound"] else 0.0
        ran = ",".join(sorted({f"{r['mode_ran']}/{r['algorithm']}" for r in rows}))
        print(f"| {key[0]} | {key[1]:g} | {key[2]} ({ran}) "
              f"| {mm * 1e3:.0f} [{min(tm) * 1e3:.0f}..{max(tm) * 1e3:.0f}] "
              f"| {mz * 1e3:.0f} [{min(tz) * 1e3:.0f}..{max(tz) * 1e3:.0f}] "
              f"| {mm / mz:.2f} | {med('ratio'):.2f} | {fmt(med('psnr'), '.2f')} | {med('nrmse'):.2e} "
              f"| {fmt(med('psnr_predicted'), '.2f')} "
              f"| {fmt(med('psnr_exact_vs_clean'), '.2f')} / {fmt(med('psnr_zcoll_vs_clean'), '.2f')} "
              f"| {eb_ratio:.3f} |")


if __name__ == "__main__":
    main()
