#!/usr/bin/env python3
"""The frontier tables of docs/reports/2026-11-29-codec-frontier-5.md (part 3's tables, its
summary.py) from the packed results, bench/results/2026-11-29-codec-frontier-5.tar.xz, or
from the frontier.json given as the argument."""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "2026-11-29-codec-frontier-3"))
import summary as part3  # noqa: E402

if __name__ == "__main__":
    part3.main(sys.argv[1] if len(sys.argv) > 1
               else "bench/results/2026-11-29-codec-frontier-5/run/frontier.json")
