#!/usr/bin/env python3
"""study.py — zcoll's collectives on a simulated cluster of 2..512 nodes (docs/scale.md).

One command runs the whole study: calibration (if needed), platforms, the
SMPI simulations, the JSON rows and the plots.

    python3 tools/simscale/study.py --preset must     # 512 nodes x 646 MB Allreduce, every mode, threads 1 and 2
    python3 tools/simscale/study.py --preset paper    # the Figures 9-12 sweeps (documented run time in docs/scale.md)
    python3 tools/simscale/study.py --preset full     # every collective x node count x size (long: hours)
    python3 tools/simscale/study.py --preset smoke --out DIR   # CTest's small sweep (< 2 min)

Needs the SMPI build (cmake -S . -B build-smpi -DZCOLL_SMPI=ON && cmake --build
build-smpi -j2) for zcoll-simscale and a normal build for zcoll-calibrate
(--calibrate-bin). Results: OUT/rows.jsonl (one JSON object per simulated
row: label = topology, nodes, collective, mode, threads, bytes, sim_seconds,
mpi_seconds, speedup_vs_mpi, bytes_sent, bytes_uncompressed, ratio_sent,
charged seconds per kind), OUT/profile.txt + OUT/calibration.json (what was
charged), OUT/logs/, OUT/*.png.

Simulation settings (every run): ideal SMPI network model (bw-factor and
lat-factor 1, no cross-traffic), CPU benchmarking off
(smpi/simulate-computation:no) with the local work charged explicitly from the
calibration profile (ZCOLL_SIM_CODEC=model, src/coll/datapath/sim_cost.h), shared
malloc (local), MPI baselines: allreduce lr (ring), reduce_scatter mpich_pair,
allgather mpich (MPICH's choice by size: recursive doubling for small messages,
ring for large; also what zcoll's own small size exchanges use), bcast
scatter_LR_allgather, scatter ompi_binomial.
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
import platforms as simplatform  # noqa: E402  (tools/simscale/platforms.py)
from calibration import best_of_rounds  # noqa: E402  (tools/simscale/calibration.py)

MPI_ALGOS = {
    "allreduce": "smpi/allreduce:lr",
    "reduce_scatter": "smpi/reduce_scatter:mpich_pair",
    "allgather": "smpi/allgather:mpich",
    "bcast": "smpi/bcast:scatter_LR_allgather",
    "scatter": "smpi/scatter:ompi_binomial",
}
SIM_CFG = [
    "--cfg=smpi/simulate-computation:no", "--cfg=smpi/host-speed:1Gf",
    "--cfg=smpi/bw-factor:0:1", "--cfg=smpi/lat-factor:0:1", "--cfg=network/crosstraffic:0",
    "--cfg=smpi/shared-malloc:local", "--cfg=smpi/test:0", "--cfg=smpi/iprobe:0",
    "--cfg=smpi/wtime:0", "--log=root.thres:warning",
]
ALL_MODES = "mpi,raw,cpr_p2p,doc,hom"
RTM = 646_000_000  # the papers' RTM field, bytes

PRESETS = {
    # (topologies, [(collective, nodes list, sizes list)], threads)
    "smoke": (["crossbar"], [("allreduce", [2, 4, 16], ["1MB", "16MB"]),
                             ("reduce_scatter", [16], ["16MB"]),
                             ("allgather", [16], ["16MB"]),
                             ("bcast", [16], ["16MB"]),
                             ("scatter", [16], ["16MB"])], "1,2"),
    "must": (["crossbar"], [("allreduce", [512], ["646MB"])], "1,2"),
    "paper": (["crossbar"], [
        # Fig. 11 / 9: sizes at 64 nodes; Fig. 12 / 10: node counts at 646 MB
        ("allreduce", [64], ["10MB", "50MB", "100MB", "300MB", "600MB"]),
        ("allreduce", [2, 4, 8, 16, 32, 64, 128, 256], ["646MB"]),
        ("reduce_scatter", [64], ["10MB", "50MB", "100MB", "300MB", "600MB"]),
        ("reduce_scatter", [2, 8, 32, 128, 512], ["646MB"]),
        ("allgather", [64], ["10MB", "100MB", "600MB"]),
        ("bcast", [64], ["10MB", "100MB", "600MB"]),
        ("scatter", [64], ["10MB", "100MB", "600MB"]),
    ], "1,2"),
    "fattree": (["fattree"], [("allreduce", [64, 512], ["646MB"])], "1,2"),
    # the part of Figures 11-12 in the Allreduce report: Allreduce by node count
    # (with the must preset's 512) and by size at 64 nodes
    "allreduce": (["crossbar"], [("allreduce", [2, 8, 32, 64], ["646MB"]),
                                 ("allreduce", [64], ["10MB", "100MB"])], "1,2"),
    # model vs simulator for the crossover map (docs/reports/2026-11-24-crossover-map.md):
    # 64 MiB at 64 nodes; give --profile (crossover.py --sim-profile), --gbps, --threads
    "crossover": (["crossbar"], [("allreduce", [64], ["64MiB"])], "1"),
    "full": (["crossbar", "fattree"], [
        (c, [2, 4, 8, 16, 32, 64, 128, 256, 512], ["1MB", "10MB", "100MB", "646MB"])
        for c in ["allreduce", "reduce_scatter", "allgather", "bcast", "scatter"]], "1,2"),
}


def log(msg):
    print(f"[study {time.strftime('%H:%M:%S')}] {msg}", flush=True)


def calibrate(out, calibrate_bin, data, rel, rounds):
    """Run zcoll-calibrate `rounds` times; keep the best throughput of each entry."""
    runs = []
    for i in range(rounds):
        j = os.path.join(out, f"calibration.run{i}.json")
        cmd = [calibrate_bin, "--data", data, "--rel", str(rel), "--repeat", "7", "--json", j]
        log("calibrate: " + " ".join(cmd))
        subprocess.run(cmd, check=True)
        with open(j) as f:
            runs.append(json.load(f))
        os.remove(j)
    best = best_of_rounds(runs)
    best["rounds_gbps"] = [r["gbps"] for r in runs]
    best["note"] = ("gbps = best of every round (each round: best of 7 passes); "
                    "GB/s of uncompressed bytes on pipeline segments of 65536 values")
    with open(os.path.join(out, "calibration.json"), "w") as f:
        json.dump(best, f, indent=1)
    write_profile(best, os.path.join(out, "profile.txt"))
    return best


def write_profile(cal, path):
    with open(path, "w") as f:
        f.write(f"# zcoll simulation profile from {os.path.basename(cal['data'])}, REL {cal['rel']}\n")
        for t, kinds in sorted(cal["gbps"].items(), key=lambda x: int(x[0])):
            for kind, curve in sorted(kinds.items()):
                for k, g in sorted(curve.items(), key=lambda x: int(x[0])):
                    f.write(f"tput {t} {kind} {k} {g:.6g}\n")
        for k, r in sorted(cal["ratio"].items(), key=lambda x: int(x[0])):
            f.write(f"ratio {k} {r:.6g}\n")


def run_sim(args, topo, nodes, coll, sizes, threads, modes, platdir, rows, logdir):
    px, ph, desc = simplatform.write(nodes, topo, platdir, gbps=args.gbps)
    label = topo if args.gbps == 100 else f"{topo}-{args.gbps:g}gbps"
    env = dict(os.environ, ZCOLL_SIM_CODEC="model", ZCOLL_SIM_PROFILE=os.path.abspath(args.profile),
               OMP_NUM_THREADS="1")
    if args.pipeline_values:
        env["ZCOLL_PIPELINE_VALUES"] = str(args.pipeline_values)
    cmd = (["nice", "-n", str(args.nice), "smpirun", "-np", str(nodes), "-platform", px, "-hostfile", ph]
           + SIM_CFG + [f"--cfg={a}" for a in sorted(set([MPI_ALGOS[coll], MPI_ALGOS["allgather"]]))] + [
                        os.path.join(args.build, "tools/simscale/zcoll-simscale"),
                        "--coll", coll, "--sizes", ",".join(sizes), "--modes", modes, "--threads", threads,
                        "--json", os.path.abspath(rows), "--label", label])
    logf = os.path.join(logdir, f"{label}-{nodes}-{coll}.log")
    log(f"{label} N={nodes} {coll} {','.join(sizes)} modes {modes} threads {threads}")
    t0 = time.time()
    with open(logf, "a") as f:
        f.write("$ " + " ".join(cmd) + "\n")
        f.flush()
        p = subprocess.run(cmd, stdout=f, stderr=subprocess.STDOUT, env=env)
    log(f"  done in {time.time() - t0:.0f} s (rc {p.returncode}), log {logf}")
    if p.returncode != 0:
        with open(logf) as f:
            sys.stderr.write(f.read()[-3000:])
        raise SystemExit(f"simulation failed: {logf}")


def load_rows(path):
    rows = []
    if os.path.exists(path):
        with open(path) as f:
            for line in f:
                line = line.strip()
                if line:
                    rows.append(json.loads(line))
    # the last row of each key wins (re-runs append)
    last = {}
    for r in rows:
        last[(r["label"], r["nodes"], r["collective"], r["mode"], r["threads"], r["bytes"])] = r
    return list(last.values())


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--preset", choices=sorted(PRESETS), default="must")
    ap.add_argument("--build", default=os.path.join(ROOT, "build-smpi"), help="the ZCOLL_SMPI=ON build")
    ap.add_argument("--calibrate-bin", default=os.path.join(ROOT, "build-simcal/tools/simscale/zcoll-calibrate"))
    ap.add_argument("--out", default=os.path.join(ROOT, "bench/results/scale"))
    ap.add_argument("--profile", help="profile to charge (default OUT/profile.txt, made if missing)")
    ap.add_argument("--recalibrate", action="store_true")
    ap.add_argument("--data", default=os.path.join(ROOT, "../shared/data/ferret_fnoc-uwnd_132x73x144.f32"))
    ap.add_argument("--rel", type=float, default=1e-4)
    ap.add_argument("--rounds", type=int, default=3, help="calibration rounds (best of)")
    ap.add_argument("--modes", default=ALL_MODES)
    ap.add_argument("--threads", help="override the preset's thread counts, e.g. 1,2")
    ap.add_argument("--nice", type=int, default=10)
    ap.add_argument("--pipeline-values", type=int, default=0,
                    help="ZCOLL_PIPELINE_VALUES for zcoll (0: the library default, 65536)")
    ap.add_argument("--gbps", type=float, default=100.0,
                    help="link rate per host (Gbit/s); rows of other rates are labelled TOPO-Rgbps")
    ap.add_argument("--nodes", help="override the preset's node counts, e.g. 512")
    ap.add_argument("--no-plots", action="store_true")
    args = ap.parse_args()

    if not shutil.which("smpirun"):
        raise SystemExit("smpirun not found (apt-get install simgrid libsimgrid-dev)")
    os.makedirs(args.out, exist_ok=True)
    if not args.profile:
        args.profile = os.path.join(args.out, "profile.txt")
        if args.recalibrate or not os.path.exists(args.profile):
            data = args.data
            if not os.path.exists(data):
                data = os.path.join(ROOT, "data/ferret_fnoc-uwnd_132x73x144.f32")
            calibrate(args.out, args.calibrate_bin, data, args.rel, args.rounds)
    platdir = os.path.join(args.out, "platforms" if args.gbps == 100 else f"platforms-{args.gbps:g}gbps")
    logdir = os.path.join(args.out, "logs")
    os.makedirs(logdir, exist_ok=True)
    rows = os.path.join(args.out, "rows.jsonl")
    topos, plan, threads = PRESETS[args.preset]
    threads = args.threads or threads
    t0 = time.time()
    for topo in topos:
        for coll, nodes_list, sizes in plan:
            for nodes in ([int(x) for x in args.nodes.split(",")] if args.nodes else nodes_list):
                run_sim(args, topo, nodes, coll, sizes, threads, args.modes, platdir, rows, logdir)
    log(f"simulations done in {time.time() - t0:.0f} s; rows in {rows}")
    if not args.no_plots:
        import plots
        plots.make_all(load_rows(rows), args.out)


if __name__ == "__main__":
    main()
