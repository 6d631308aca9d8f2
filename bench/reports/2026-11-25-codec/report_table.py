#!/usr/bin/env python3
"""report_table.py RESULT.json — the compact per-field table of the 2026-11-25 report:
per file and REL bound (1 thread), for each operation the median rate before → after
(GB/s) and the ratio to memcpy of the same repeats before → after (median, after's
[min–max] over the repeats). A RESULT.json under bench/results/ is read from its archive unless
unpacked."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
import results_data as rd  # noqa: E402  (bench/results_data.py: the packed raw results)

OPS = [("compress_abs", "compress (ABS)"), ("compress_rel", "compress (REL)"),
       ("decompress", "decompress"), ("decompress_acc", "decompress-acc."),
       ("hom_add", "hom add")]

j = rd.load_json(sys.argv[1])
print("| field | REL | ratio | memcpy GB/s | " + " | ".join(n for _, n in OPS) + " |")
print("|---" * (4 + len(OPS)) + "|")
for c in j["cases"]:
    if c["threads"] != 1:
        continue
    row = {r["op"]: r for r in c["rows"]}
    cells = []
    for op, _ in OPS:
        b, a = row[op]["before"], row[op]["after"]
        cells.append(f"{b['gbps']['median']:.2f} → {a['gbps']['median']:.2f}; "
                     f"{b['over_memcpy']['median']:.2f} → **{a['over_memcpy']['median']:.2f}** "
                     f"[{a['over_memcpy']['min']:.2f}–{a['over_memcpy']['max']:.2f}]")
    print(f"| {c['file'].split('_')[1]} | {c['rel']:g} | {c['ratio']:.2f} | "
          f"{row['compress_abs']['memcpy_gbps']['median']:.2f} | " + " | ".join(cells) + " |")
