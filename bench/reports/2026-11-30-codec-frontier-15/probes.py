#!/usr/bin/env python3
"""probes.py DIR: summaries of probes.sh's output (memcpy's drift; the cores' 2t / 1t)."""
import statistics as st
import sys


def pct(v, q):
    v = sorted(v)
    return v[min(len(v) - 1, int(q * len(v)))]


def main(d):
    rows = [tuple(map(float, line.split())) for line in open(f"{d}/memcpy-drift.txt")]
    t, r = [x[0] for x in rows], [x[1] for x in rows]
    print(f"memcpy drift: {len(r)} copies over {t[-1]:.1f} s; GB/s median {st.median(r):.2f}, "
          f"p10 {pct(r, 0.1):.2f}, p90 {pct(r, 0.9):.2f}")
    q = [b / a for a, b in zip(r, r[1:])]
    print(f"  next copy / this copy: p10 {pct(q, 0.1):.3f}, median {st.median(q):.3f}, "
          f"p90 {pct(q, 0.9):.3f}")
    m = st.mean(r)
    var = sum((x - m) ** 2 for x in r)
    per_s = len(r) / t[-1]
    lags = [1, 5, 20, 100, int(per_s)]
    print("  autocorrelation at lag " + ", ".join(
        f"{lag}: {sum((r[i] - m) * (r[i + lag] - m) for i in range(len(r) - lag)) / var:.2f}"
        for lag in lags) + f" (copies; {per_s:.0f} a second)")
    windows = {}
    for ti, ri in zip(t, r):
        windows.setdefault(int(ti // 5), []).append(ri)
    med = [st.median(v) for k, v in sorted(windows.items()) if len(v) > 50]
    print(f"  medians of 5-s windows: {min(med):.2f} .. {max(med):.2f} GB/s")
    runs = {}
    for line in open(f"{d}/core-scaling.txt"):
        kind, threads, _, rate = line.split()
        runs.setdefault(kind, {}).setdefault(int(threads), []).append(float(rate))
    for kind, v in runs.items():
        ratio = [b / a for a, b in zip(v[1], v[2])]
        print(f"core scaling {kind}: 1 thread {st.median(v[1]):.3f} G it/s, 2 threads / 1 "
              f"(same repeat) median {st.median(ratio):.2f} [{min(ratio):.2f}, {max(ratio):.2f}]")


if __name__ == "__main__":
    main(sys.argv[1])
