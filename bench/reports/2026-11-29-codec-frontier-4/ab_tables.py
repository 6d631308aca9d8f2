#!/usr/bin/env python3
"""The A/B tables of docs/reports/2026-11-29-codec-frontier-4.md from the packed results
(bench/results/2026-11-29-codec-frontier-4.tar.xz):

* nd-ab3/: nd_speed.cc (part 3) of three builds, interleaved, 8 rounds: the session's
  start (base, 362e1cb), before predictor 5's AVX2 runs (sym, 8f7b69c) and the end (final,
  b3020bd); per-row medians over the rounds, then median [min, max] over the rows.
* tried/pair-gather/dec_only.txt: decompress time (user s) of dec_only.cc (part 3) at
  8f7b69c (sym), with two chunks at once (pair) and with gathers for the table (gath).
* tried/estimate-every-8/: the compressed bytes (and SHA-256 prefix) of every file with
  dims at three bounds, `zcoll compress --codec dense --dims`, at 8f7b69c (sizes_base)
  and with predictor 5's whole-chunk estimates on every 8th residual (sizes_8).

(dense-ab/, nd-ab/ and tried/line-values/: part 3's dense_ab_table.py and nd_ab_table.py.)"""
import os
import statistics as st
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", ".."))
import results_data as rd  # noqa: E402

D = "bench/results/2026-11-29-codec-frontier-4"


def nd_ab3():
    rows = {}
    for p in sorted(rd.glob(D + "/nd-ab3/*.txt")):
        b = os.path.basename(p).split("-")[0]
        for line in rd.open(p):
            f = line.split()
            if len(f) >= 8 and f[0].endswith(".f32"):
                rows.setdefault(b, {}).setdefault((f[0], f[1]), []).append(
                    (float(f[3]), float(f[5])))
    print("| build | compress GB/s, median [min, max] over rows | decompress GB/s |")
    print("|---|---|---|")
    for b in ("base", "sym", "final"):
        c = [st.median(x[0] for x in v) for v in rows[b].values()]
        d = [st.median(x[1] for x in v) for v in rows[b].values()]
        print(f"| {b} | {st.median(c):.3f} [{min(c):.3f}, {max(c):.3f}] | "
              f"{st.median(d):.3f} [{min(d):.3f}, {max(d):.3f}] |")
    print()


def pair_gather():
    t = {}
    for line in rd.open(D + "/tried/pair-gather/dec_only.txt"):
        if line.startswith("#"):
            continue
        f, rel, _, b, s = line.split()
        t.setdefault((f, rel), {}).setdefault(b, []).append(float(s))
    print("| file | REL | sym (s) | pair / sym | gath / sym |")
    print("|---|---|---:|---:|---:|")
    q = {"pair": [], "gath": []}
    for (f, rel), v in sorted(t.items()):
        m = {b: st.median(x) for b, x in v.items()}
        for b in q:
            q[b].append(m[b] / m["sym"])
        print(f"| {f} | {rel} | {m['sym']:.2f} | {m['pair'] / m['sym']:.2f} | "
              f"{m['gath'] / m['sym']:.2f} |")
    for b, v in q.items():
        print(f"\n{b} / sym: median {st.median(v):.3f} [{min(v):.2f}, {max(v):.2f}]")


def estimate_every_8():
    def sizes(name):
        return {(f[0], f[1]): int(f[2]) for f in
                (line.split() for line in rd.open(D + "/tried/estimate-every-8/" + name))}
    a, b = sizes("sizes_base.txt"), sizes("sizes_8.txt")
    print("\n| file | REL | bytes, every 2nd | every 8th | change |")
    print("|---|---|---:|---:|---:|")
    for k in a:
        if a[k] != b[k]:
            print(f"| {k[0]} | {k[1]} | {a[k]} | {b[k]} | {100 * (b[k] - a[k]) / a[k]:+.2f} % |")


if __name__ == "__main__":
    nd_ab3()
    pair_gather()
    estimate_every_8()
