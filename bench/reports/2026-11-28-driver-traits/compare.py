#!/usr/bin/env python3
"""compare.py BEFORE AFTER: the soak's and the bench's outputs, timing removed, must match."""
import json, re, sys, pathlib

TIMING = {"time_us", "algbw_GBps", "busbw_GBps", "speedup_vs_mpi", "breakdown_us",
          "time_coll_us", "speedup_repeats", "timeline_us", "time_model_us"}

def bench(path):
    j = json.loads(path.read_text())
    for r in j.get("rows", []):
        for k in TIMING:
            r.pop(k, None)
    return j

def text(path):  # the binaries' directories differ
    return re.sub(r"/tmp/cmp/[a-z_]+/zcoll-", "BIN/zcoll-", path.read_text())

def soak(path):
    out = []
    for line in text(path).splitlines():
        line = re.sub(r", [0-9.]+ s$", ", T s", line)  # the run's seconds
        out.append(line)
    return out

def bench_txt(path):  # the table's non-timing columns: size count thr mode algo ... ratio max_err bound psnr status
    out = []
    for line in text(path).splitlines():
        f = line.split()
        if line.startswith("#") or not f or f[0] == "size":
            out.append(line if not line.startswith("# zcoll-bench") else line)
            continue
        out.append(" ".join(f[:5] + f[-5:]))
    return out

def main(a, b):
    a, b = pathlib.Path(a), pathlib.Path(b)
    bad = 0
    names = sorted(p.name for p in a.iterdir())
    for n in names:
        pa, pb = a / n, b / n
        if not pb.exists():
            print("MISSING", n); bad += 1; continue
        if n.endswith(".json"):
            same = bench(pa) == bench(pb)
        elif n.startswith("soak"):
            same = soak(pa) == soak(pb)
        else:
            same = bench_txt(pa) == bench_txt(pb)
        print(("same   " if same else "DIFFER ") + n)
        bad += not same
    print(f"{len(names) - bad} of {len(names)} outputs identical (timing fields removed)")
    return 1 if bad else 0

sys.exit(main(*sys.argv[1:]))
