#!/usr/bin/env python3
"""gpu_profile.py -- turn the device rates measured by
`zcoll-gpu-coll-bench calibrate` (bench JSON) into a SimGrid profile for
zcoll-simscale (the format zcoll-calibrate writes: `tput THREADS KIND TERMS GB/s`
and `ratio TERMS RATIO`), so that a simulated node charges its local steps at the
GPU's measured rates.

    python3 tools/simscale/gpu_profile.py BENCH.json OUT/profile-gpu.txt [--way synced]

--way synced (default): the rates with one host wait per pipeline segment, as
libzcoll_cuda_mpi runs today; --way async: the kernels' own rate (what a
multi-stream implementation could reach). The rates are written for THREADS = 1
(run the study with --threads 1). Nothing here measures or assumes a rate: every
number comes from the JSON; a kind or a term count missing there is an error.
"""
import argparse
import json
import sys

KINDS = ["accumulate", "compress", "copy", "decompress", "hom_add", "reduce"]


def convert(bench, out, way="synced"):
    with open(bench) as f:
        cal = json.load(f)
    if cal.get("tool") != "zcoll-gpu-coll-bench calibrate":
        raise SystemExit(f"{bench}: not a zcoll-gpu-coll-bench calibrate JSON")
    g = cal["gbps"].get(way)
    if not g:
        raise SystemExit(f"{bench}: no '{way}' rates")
    missing = [k for k in KINDS if k not in g]
    if missing:
        raise SystemExit(f"{bench}: rates missing for {', '.join(missing)}")
    with open(out, "w") as f:
        f.write(f"# zcoll simulation profile of a GPU node: {cal['device']}, {way} rates from "
                f"{bench}\n# data {cal['data']}, REL {cal['rel']}, segments of "
                f"{cal['segment_values']} values; THREADS 1 stands for the GPU\n")
        for kind in sorted(g):
            for k, v in sorted(g[kind].items(), key=lambda x: int(x[0])):
                f.write(f"tput 1 {kind} {k} {v:.6g}\n")
        for k, r in sorted(cal["ratio"].items(), key=lambda x: int(x[0])):
            f.write(f"ratio {k} {r:.6g}\n")
    return cal


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("bench")
    ap.add_argument("out")
    ap.add_argument("--way", choices=["synced", "async"], default="synced")
    a = ap.parse_args()
    convert(a.bench, a.out, a.way)
    print(f"wrote {a.out}", file=sys.stderr)


if __name__ == "__main__":
    main()
