#!/usr/bin/env python3
"""The tables of docs/reports/2026-11-29-codec-frontier-4.md from the packed results
(bench/results/2026-11-29-codec-frontier-4.tar.xz): the frontier run (part 3's tables,
its summary.py) and the two A/B runs (part 3's dense_ab_table.py and nd_ab_table.py,
run on the extracted directories)."""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "2026-11-29-codec-frontier-3"))
import summary as part3  # noqa: E402

if __name__ == "__main__":
    part3.main("bench/results/2026-11-29-codec-frontier-4/run/frontier.json")
