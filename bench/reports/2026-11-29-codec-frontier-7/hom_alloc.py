#!/usr/bin/env python3
"""hom_alloc.py — the fast codec's hom add with a new bytes object per call
(zcoll.hom_add(a, b)) against writing into a reused buffer (out=), and memcpy,
on every field of shared/data at REL 1e-2, 1e-3, 1e-4 (the streams of the
field and of the field shifted one step along its first axis, as
bench/codec_frontier.py's fast goals). One thread, wall clock, GB/s of one
input's bytes; per repeat the three in an order rotated per repeat; JSON with
every sample.

  /opt/zcoll-venv/bin/python hom_alloc.py --data ../shared/data --repeats 7 --out F.json
"""
import argparse
import json
import os
import statistics
import subprocess
import time

import numpy as np
import zcoll


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--data", required=True)
    ap.add_argument("--repeats", type=int, default=7)
    ap.add_argument("--out", required=True)
    args = ap.parse_args()
    man = json.load(open(os.path.join(args.data, "manifest.json")))
    rows = []
    for f in man["files"]:
        a = np.fromfile(os.path.join(args.data, f["file"]), dtype=f["dtype"]).reshape(f["shape"])
        fin = a[np.isfinite(a)].astype(np.float64)
        for rel in (1e-2, 1e-3, 1e-4):
            eb = rel * float(fin.max() - fin.min())
            flat = a.ravel()
            other = np.ascontiguousarray(np.roll(a, 1, axis=0)).ravel()
            sa = zcoll.compress(flat, abs=eb)
            sb = zcoll.compress(other, abs=eb)
            hbuf = bytearray(zcoll.compress_bound(flat.size, flat.dtype))
            copy_dst = np.empty_like(a)
            ops = {"memcpy": lambda: np.copyto(copy_dst, a),
                   "hom_add_new": lambda: zcoll.hom_add(sa, sb),
                   "hom_add_out": lambda: zcoll.hom_add(sa, sb, out=hbuf)}
            assert bytes(ops["hom_add_out"]()) == ops["hom_add_new"]()
            names = list(ops)
            for k in names:
                ops[k]()
            gbps = {k: [] for k in names}
            for r in range(args.repeats):
                for k in names[r % 3:] + names[:r % 3]:
                    t0 = time.perf_counter()
                    ops[k]()
                    gbps[k].append(a.nbytes / 1e9 / (time.perf_counter() - t0))
            med = {k: statistics.median(v) for k, v in gbps.items()}
            rows.append({"file": f["file"], "rel": rel, "gbps": gbps, "median": med})
            print(f'{f["file"][:28]:28} {rel:g}  memcpy {med["memcpy"]:.2f}  new {med["hom_add_new"]:.2f}'
                  f'  out {med["hom_add_out"]:.2f} GB/s')
    commit = subprocess.run(["git", "rev-parse", "HEAD"], capture_output=True, text=True,
                            cwd=os.path.dirname(os.path.abspath(__file__))).stdout.strip()
    json.dump({"commit": commit, "argv": os.sys.argv, "repeats": args.repeats, "rows": rows},
              open(args.out, "w"), indent=1)


if __name__ == "__main__":
    main()
