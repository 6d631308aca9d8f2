#!/usr/bin/env python3
"""cold_call_table.py DIR: the table of cold_call's runs (DIR/FIELD_REL_BUILD_REP.json):
per field, bound and build, the median over the repetitions of each case's median (us), and the
cold call's parts: code warm - warm (data not overlapped), cold - code warm (code and the
runtime's state), against the traffic floor and memcpy."""
import os
import statistics
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
import results_data as rd  # noqa: E402 (the archives: bench/reports/README.md)
from collections import defaultdict

runs = defaultdict(list)
for path in rd.glob(os.path.join(sys.argv[1], "*.json")):
    field, rel, build, _rep = os.path.basename(path)[:-5].split("_")
    runs[(field, rel, build)].append(rd.load_json(path))
cases = ["hom_cold", "hom_code_warm", "hom_warm", "hom_traffic_cold", "decompress_cold",
         "decompress_code_warm", "decompress_warm", "decompress_traffic_cold", "memcpy_cold"]
print("| field | REL | build | " + " | ".join(cases) + " | hom cold - code warm | decompress cold - code warm |")
print("|---|---|---|" + "---|" * (len(cases) + 2))
for (field, rel, build), rs in sorted(runs.items(), key=lambda kv: (kv[0][0], -float(kv[0][1]), kv[0][2])):
    med = {c: statistics.median(r["cases_us"][c]["median"] for r in rs) for c in cases}
    cells = [f"{med[c]:.1f}" for c in cases]
    cells.append(f"{med['hom_cold'] - med['hom_code_warm']:.1f}")
    cells.append(f"{med['decompress_cold'] - med['decompress_code_warm']:.1f}")
    print(f"| {field} | {rel} | {build} | " + " | ".join(cells) + " |")
print()
print("Microseconds; each cell the median over %s repetitions of a run's median of its rounds."
      % ", ".join(sorted({str(len(v)) for v in runs.values()})))
