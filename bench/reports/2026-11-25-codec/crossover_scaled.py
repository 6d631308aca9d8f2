#!/usr/bin/env python3
"""crossover_scaled.py OUT_DIR — the crossover map of 2026-11-24 with the codec rates
scaled by the speedups of this session's code (this machine's load made its own
128 MiB calibrations useless: memcpy there ran at 1.5-3.3 GB/s instead of 15).

Takes the 2026-11-24 calibrations (bench/results/2026-11-24-crossover/calib-*-r*.json,
measured at load 2-5 on the base code), multiplies every compress, decompress,
accumulate and hom_add rate (1 and 2 threads, every partial sum) by after/before of
the same kernel measured interleaved in this session, writes the scaled JSONs to
OUT_DIR/<variant>/ and runs crossover.py on them (B_mem 320 GB/s, MPI's reduction on
one thread, overlap 1, as the main map of 2026-11-24), and prints the per-thread
Allreduce payload rate 1 / (1/c + 1/d + 1/h). Variants: "base" (factors 1: the
2026-11-24 map again), "measure" (the 1-thread speedups of measure.py on FNOC REL
1e-4, CPU clock, rates-cpu-1.json) and "calib1mib" (the 1 MiB calibrations of
crossover.sh in this session: median over terms of the best round). The inputs are read from
bench/results/2026-11-24-crossover.tar.xz and 2026-11-25-codec.tar.xz unless unpacked."""
import json
import os
import statistics
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.abspath(os.path.join(HERE, "..", "..", ".."))
sys.path.insert(0, os.path.join(REPO, "bench"))
import results_data as rd  # noqa: E402  (bench/results_data.py: the packed raw results)

DATA = rd.path("2026-11-25-codec")
OLD = rd.path("2026-11-24-crossover")
KINDS = {"compress": "compress_abs", "decompress": "decompress", "accumulate": "decompress_acc",
         "hom_add": "hom_add"}


def measure_factors():
    j = rd.load_json(os.path.join(DATA, "rates-cpu-1.json"))
    c = next(c for c in j["cases"] if c["file"].startswith("ferret_fnoc") and c["rel"] == 1e-4
             and c["threads"] == 1)
    rows = {r["op"]: r for r in c["rows"]}
    return {k: rows[op]["after"]["gbps"]["median"] / rows[op]["before"]["gbps"]["median"]
            for k, op in KINDS.items()}


def calib_factors():
    def rate(side, kind):
        runs = [rd.load_json(p) for p in
                rd.glob(os.path.join(DATA, "crossover", f"calib-{side}-256K-r*.json"))]
        terms = runs[0]["gbps"]["1"][kind]
        return statistics.median(max(r["gbps"]["1"][kind][t] for r in runs) for t in terms)
    return {k: rate("after", k) / rate("before", k) for k in KINDS}


def best(paths, t, kind):
    runs = [json.load(open(p)) for p in paths]
    terms = runs[0]["gbps"][t][kind]
    return statistics.median(max(r["gbps"][t][kind][k] for r in runs) for k in terms)


def main():
    out = sys.argv[1]
    lib = os.path.join(REPO, "build", "src", "coll", "libzcoll_mpi.so")
    py = sys.executable
    print("| variant | factors c / d / a / h | c | d | h (128 MiB, 1 thread) | "
          "1/(1/c + 1/d + 1/h) GB/s |")
    print("|---|---|---|---|---|---|")
    for name, f in (("base", {k: 1.0 for k in KINDS}), ("measure", measure_factors()),
                    ("calib1mib", calib_factors())):
        d = os.path.join(out, name)
        os.makedirs(d, exist_ok=True)
        paths = {"32M": [], "256K": []}
        for p in rd.glob(os.path.join(OLD, "calib-*-r*.json")):
            size = os.path.basename(p).split("-")[1]
            if size not in paths:
                continue
            j = rd.load_json(p)
            for t in j["gbps"]:
                for k in KINDS:
                    for term in j["gbps"][t].get(k, {}):
                        j["gbps"][t][k][term] *= f[k]
            q = os.path.join(d, os.path.basename(p))
            json.dump(j, open(q, "w"), indent=1)
            paths[size].append(q)
        c, dd, h = (best(paths["32M"], "1", k) for k in ("compress", "decompress", "hom_add"))
        print(f"| {name} | {f['compress']:.2f} / {f['decompress']:.2f} / {f['accumulate']:.2f} / "
              f"{f['hom_add']:.2f} | {c:.2f} | {dd:.2f} | {h:.2f} | "
              f"{1 / (1 / c + 1 / dd + 1 / h):.2f} |")
        subprocess.run([py, os.path.join(REPO, "tools", "simscale", "crossover.py"), "--lib", lib,
                        "--calib-dram", ",".join(paths["32M"]), "--calib-cache",
                        ",".join(paths["256K"]), "--mem-gbps", "320", "--out", d],
                       check=True, stdout=open(os.path.join(d, "crossover.log"), "w"),
                       stderr=subprocess.STDOUT)


if __name__ == "__main__":
    main()
