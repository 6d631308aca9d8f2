#!/usr/bin/env python3
"""escapes.py DATA — how often the dense codec's 1-D decoder meets values with extra
bits (and how many values would still have them with 128 direct symbols), and whether storing each residual's low b bits raw (the rest coded as now)
would make them rare. Per field and bound: the codes q = round(x / (2 eb)) (eb = REL
x range), per chunk of 16384 the Lorenzo residuals of order 1 or 2 (the smaller sum
of magnitudes), u = zigzag(r); the share of values with u >= 64 (a symbol with extra
bits) and of groups of sixteen with one; then with b = max(0, floor(mean log2(u + 1)
on every 4th value) - off) for off = 2, 3, 4: those shares for u >> b and the
estimated size (order-0 entropy of the symbols + extra bits + b bits a value + a byte
per used symbol) relative to b = 0. An estimate of the codec, not the codec."""
import json
import sys

import numpy as np

D = sys.argv[1].rstrip("/") + "/"
CH = 16384


def cost(u):
    u = u.astype(np.uint64)
    e = np.floor(np.log2(np.maximum(u, 1))).astype(np.int64)
    big = u >= 64
    k = np.where(big, e - 2, 0)
    sym = np.where(big, 64 + 4 * (e - 6) + ((u >> np.maximum(k, 0).astype(np.uint64)) & 3).astype(np.int64),
                   u.astype(np.int64))
    c = np.bincount(sym)
    c = c[c > 0]
    return -(c * np.log2(c / len(u))).sum() + k.sum() + 8 * len(c)


def shift_of(u, off):
    if off is None:
        return 0
    return max(0, int(np.floor(np.mean(np.log2(u[::4].astype(np.float64) + 1)))) - off)


print("| file | REL | values with extra bits | values above 127 | groups with one | "
      "b-2: groups, size | b-3: groups, size | b-4: groups, size |")
print("|---|---|---:|---:|---:|---|---|---|")
for f in json.load(open(D + "manifest.json"))["files"]:
    x = np.fromfile(D + f["file"], dtype=np.float32).astype(np.float64)
    for rel in (1e-3, 1e-4):
        eb = rel * (x.max() - x.min())
        q = np.round(x / (2 * eb)).astype(np.int64)
        out = {}
        for off in (None, 2, 3, 4):
            size = size0 = 0.0
            vals = groups = ng = above = 0
            for c0 in range(0, len(q), CH):
                c = q[c0:c0 + CH]
                r1 = np.diff(c, prepend=0)
                r2 = np.diff(r1, prepend=0)
                r2[0] = c[0]
                r = r1 if np.abs(r1).sum() <= np.abs(r2).sum() else r2
                u = ((r << 1) ^ (r >> 63)).astype(np.uint64)
                b = shift_of(u, off)
                h = u >> np.uint64(b)
                size += cost(h) + b * len(u)
                size0 += cost(u)
                vals += int((h >= 64).sum())
                above += int((h >= 128).sum())
                n = len(h) // 16 * 16
                g = (h[:n].reshape(-1, 16) >= 64).any(axis=1)
                groups += int(g.sum())
                ng += len(g)
            out[off] = (vals / len(q), groups / ng, size / size0, above / len(q))
        cells = [f"{out[o][1]:.3f}, {out[o][2]:.4f}" for o in (2, 3, 4)]
        print(f"| {f['file'].rsplit('_', 1)[0]} | {rel:g} | {out[None][0]:.3f} | {out[None][3]:.3f} | "
              f"{out[None][1]:.3f} | "
              + " | ".join(cells) + " |", flush=True)
