#!/usr/bin/env python3
"""Python call overhead against the C call: zcoll.compress / zcoll.decompress
(with and without out=) against zcoll_compress / zcoll_decompress from C
(bench/python/c_call.c, buffers allocated once), one thread, for 1 KiB, 1 MiB and 64 MiB of float32.
The plain calls allocate their result (bytes, ndarray) per call; the "_out" rows
reuse a buffer as the C program does. Each round runs the C program, then the Python calls; per round the median
per-call time; over --rounds rounds the median and range.

    cc -O2 bench/python/c_call.c -Iinclude -IBUILD/include BUILD/libzcoll.a -fopenmp -o c_call
    python bench/python/overhead.py --c-call ./c_call --rounds 7 --json out.json
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np

import zcoll

SIZES = [(1 << 10, 4000), (1 << 20, 60), (64 << 20, 4)]  # bytes, calls per round
EB = 1e-3


def py_round(x, bytes_, calls):
    """Two loops: the allocating calls (compress -> bytes, decompress -> new array),
    then the reusing ones (compress(out=), decompress(out=)), which mirror the C
    loop (compress then decompress into buffers allocated once)."""
    a = x[: bytes_ // 4]
    out = np.empty_like(a)
    sbuf = bytearray(zcoll.compress_bound(a.size, a.dtype))
    buf = zcoll.compress(a, abs=EB)
    zcoll.decompress(buf)
    tc, td = [], []
    for _ in range(calls):
        t0 = time.perf_counter()
        buf = zcoll.compress(a, abs=EB)
        t1 = time.perf_counter()
        zcoll.decompress(buf)
        t2 = time.perf_counter()
        tc.append(t1 - t0)
        td.append(t2 - t1)
    zcoll.compress(a, abs=EB, out=sbuf).release()
    tco, tdo = [], []
    for _ in range(calls):
        t0 = time.perf_counter()
        mv = zcoll.compress(a, abs=EB, out=sbuf)
        t1 = time.perf_counter()
        zcoll.decompress(mv, out=out)
        t2 = time.perf_counter()
        mv.release()
        tco.append(t1 - t0)
        tdo.append(t2 - t1)
    return dict(stream=len(buf), compress_s=statistics.median(tc),
                compress_out_s=statistics.median(tco),
                decompress_s=statistics.median(td), decompress_out_s=statistics.median(tdo))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--c-call", required=True)
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--json", default=None)
    args = ap.parse_args()

    n = (64 << 20) // 4
    i = np.arange(n, dtype=np.float64)
    x = (np.sin(i * 1e-3) + 0.25 * np.sin(i * 0.0173) + 1e-3 * (i % 7)).astype(np.float32)
    with tempfile.NamedTemporaryFile(suffix=".f32", delete=False) as f:
        x.tofile(f)
        path = f.name
    rounds = []
    try:
        for r in range(args.rounds):
            c = subprocess.run([args.c_call, path, str(EB)] + [f"{k}:{b}" for b, k in SIZES],
                               check=True, capture_output=True, text=True).stdout
            c_rows = {row["bytes"]: row for row in map(json.loads, c.splitlines())}
            for b, k in SIZES:
                py = py_round(x, b, k)
                rounds.append(dict(round=r, bytes=b, calls=k, c=c_rows[b], py=py))
    finally:
        os.unlink(path)

    summary = []
    print(f"{'size':>8} {'op':>16} {'C median s':>12} {'Py median s':>12} {'overhead':>9} "
          f"{'range':>17}")
    for b, _ in SIZES:
        rs = [r for r in rounds if r["bytes"] == b]
        for op, cop in (("compress_s", "compress_s"), ("compress_out_s", "compress_s"),
                        ("decompress_s", "decompress_s"),
                        ("decompress_out_s", "decompress_s")):
            ratios = [r["py"][op] / r["c"][cop] - 1 for r in rs]
            cmed = statistics.median(r["c"][cop] for r in rs)
            pmed = statistics.median(r["py"][op] for r in rs)
            row = dict(bytes=b, op=op.replace("_s", ""), c_median_s=cmed, py_median_s=pmed,
                       overhead_median=statistics.median(ratios), overhead_min=min(ratios),
                       overhead_max=max(ratios), rounds=len(rs))
            summary.append(row)
            print(f"{b:>8} {row['op']:>16} {cmed:12.3e} {pmed:12.3e} "
                  f"{100 * row['overhead_median']:8.1f}% "
                  f"[{100 * min(ratios):6.1f}%, {100 * max(ratios):6.1f}%]", flush=True)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(dict(python=sys.version.split()[0], numpy=np.__version__,
                           zcoll=zcoll.__version__, eb=EB, sizes=SIZES, rounds=rounds,
                           summary=summary), f, indent=1)


if __name__ == "__main__":
    main()
