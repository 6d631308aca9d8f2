#!/usr/bin/env python3
"""adders_table.py FILE.jsonl: adders.cc's lines as a table (ns a block with each adder, the
AVX-512 / AVX2 ratio as median [p10, p90] of the rounds, same bytes), then the median and
range of the rows' median ratios."""
import json
import os
import statistics as st
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
import results_data as rd  # noqa: E402 (the archives: bench/reports/README.md)

rows = [json.loads(line) for line in rd.read_bytes(sys.argv[1]).decode().splitlines() if line.strip()]
print("| field | REL | blocks | AVX2 ns/block | AVX-512 ns/block | AVX-512 / AVX2 | same bytes |")
print("|---|---|---|---|---|---|---|")
for d in rows:
    r = d["avx512_over_avx2"]
    print(f"| {os.path.basename(d['file'])[:-4]} | {d['rel']:g} | {d['blocks']} | "
          f"{d['avx2_ns_per_block']:.2f} | {d['avx512_ns_per_block']:.2f} | "
          f"{r['median']:.3f} [{r['p10']:.3f}, {r['p90']:.3f}] | {d['same_bytes']} |")
meds = [d["avx512_over_avx2"]["median"] for d in rows]
below = sum(d["avx512_over_avx2"]["p90"] < 1 for d in rows)
print(f"\nrows' medians {st.median(meds):.3f} [{min(meds):.3f}, {max(meds):.3f}]; "
      f"p90 below 1.0 on {below}/{len(rows)} rows; same bytes on "
      f"{sum(d['same_bytes'] for d in rows)}/{len(rows)}")
