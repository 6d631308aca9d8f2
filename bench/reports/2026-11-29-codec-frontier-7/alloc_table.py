#!/usr/bin/env python3
"""alloc_table.py FRONTIER.json — zcoll's rows into reused buffers against the
-alloc rows of the same run (bench/codec_frontier.py): per codec the ratio
reuse / alloc of the per-row medians (CPU time), median [min, max] over the
rows, the etopo5 rows, and the dense rows at the speed goals either way."""
import json
import statistics as st
import sys

d = json.load(open(sys.argv[1]))
rows = {(x["file"], x["rel"], x["method"]): x for x in d["rows"] if "compress_gbps_cpu" in x}


def med(x, op):
    return x[f"{op}_gbps_cpu"]["median"]


for codec in ("fast", "dense"):
    m, a = f"zcoll-{codec}", f"zcoll-{codec}-alloc"
    for op in ("compress", "decompress"):
        r = [med(x, op) / med(rows[(f, rel, a)], op)
             for (f, rel, mm), x in rows.items() if mm == m]
        print(f"{m:12} {op:10} reuse / alloc {st.median(r):.3f} [{min(r):.3f}, {max(r):.3f}]"
              f" over {len(r)} rows")
    for (f, rel, mm), x in sorted(rows.items()):
        if mm == m and f.startswith("ferret_etopo5"):
            y = rows[(f, rel, a)]
            print(f"  etopo5 {rel:g}: compress {med(x, 'compress'):.2f} / {med(y, 'compress'):.2f},"
                  f" decompress {med(x, 'decompress'):.2f} / {med(y, 'decompress'):.2f} GB/s")
for m in ("zcoll-dense", "zcoll-dense-alloc"):
    for rel in (1e-2, 1e-3, 1e-4):
        xs = [x for (f, r, mm), x in rows.items() if mm == m and r == rel]
        print(f"{m:18} {rel:g}: compress >= 1.0 {sum(med(x, 'compress') >= 1 for x in xs)}/{len(xs)},"
              f" decompress >= 1.5 {sum(med(x, 'decompress') >= 1.5 for x in xs)}/{len(xs)};"
              f" slowest {min(med(x, 'compress') for x in xs):.2f}, "
              f"{min(med(x, 'decompress') for x in xs):.2f}")
