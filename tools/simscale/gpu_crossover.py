#!/usr/bin/env python3
"""gpu_crossover.py -- the GPU crossover map (docs/scale.md, "GPU nodes"): where
does zcoll's Allreduce on GPU nodes beat an NCCL ring at wire speed, over link
rate x GPU count? It runs gpu_study.py (the SimGrid study with the device rates
measured by `zcoll-gpu-coll-bench calibrate`) once per link rate and gathers the
speedups of its tables into one map.

    python3 tools/simscale/gpu_crossover.py --bench-json RESULTS/calibrate.json \\
        --out bench/results/DATE-gpu-crossover [--links 10,25,50,100,200,400] \\
        [--nodes 8,16,32,64] [--way synced|async] [--size 646MB]

Output: OUT/link-G/ (gpu_study's output for G Gbit/s), OUT/crossover.json and
OUT/crossover.md (speedup over the NCCL ring model and the best mode per cell;
above 1: zcoll is faster).
"""
import argparse
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--bench-json", required=True, help="zcoll-gpu-coll-bench calibrate JSON")
    ap.add_argument("--out", required=True)
    ap.add_argument("--links", default="10,25,50,100,200,400", help="Gbit/s per GPU")
    ap.add_argument("--nodes", default="8,16,32,64")
    ap.add_argument("--way", choices=["synced", "async"], default="synced")
    ap.add_argument("--size", default="646MB")
    ap.add_argument("--build", default=None, help="the SMPI build (gpu_study.py's default if unset)")
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    links = [float(x) for x in a.links.split(",")]
    cells = {}
    for g in links:
        sub = os.path.join(a.out, f"link-{g:g}")
        cmd = [sys.executable, os.path.join(HERE, "gpu_study.py"), "--bench-json", a.bench_json,
               "--out", sub, "--nodes", a.nodes, "--way", a.way, "--size", a.size,
               "--link-gbps", str(g)]
        if a.build:
            cmd += ["--build", a.build]
        subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
        with open(os.path.join(sub, "gpu_table.json")) as f:
            table = json.load(f)
        for row in table["rows"]:
            cells[(g, row["gpus"])] = row
    nodes = [int(x) for x in a.nodes.split(",")]
    out = {"bench_json": a.bench_json, "way": a.way, "size": a.size, "links_gbps": links,
           "nodes": nodes, "device": table["device"], "data": table["data"], "rel": table["rel"],
           "cells": [dict(link_gbps=g, **cells[(g, n)]) for g in links for n in nodes
                     if (g, n) in cells]}
    with open(os.path.join(a.out, "crossover.json"), "w") as f:
        json.dump(out, f, indent=1)
    with open(os.path.join(a.out, "crossover.md"), "w") as f:
        f.write(f"Allreduce {a.size}: zcoll on GPU nodes ({table['device']}, {a.way} rates) over an "
                f"NCCL ring at wire speed; data {os.path.basename(table['data'])} REL {table['rel']}. "
                "Cell: speedup (best mode).\n\n")
        f.write("| link (Gbit/s) | " + " | ".join(f"{n} GPUs" for n in nodes) + " |\n")
        f.write("|---|" + "---|" * len(nodes) + "\n")
        for g in links:
            row = [f"{cells[(g, n)]['speedup']:.2f}x ({cells[(g, n)]['best_mode']})"
                   if (g, n) in cells else "-" for n in nodes]
            f.write(f"| {g:g} | " + " | ".join(row) + " |\n")
    print(open(os.path.join(a.out, "crossover.md")).read())


if __name__ == "__main__":
    main()
