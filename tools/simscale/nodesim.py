#!/usr/bin/env python3
"""nodesim.py -- many ranks per node in SimGrid: MPI's flat and SMP-aware
Allreduce algorithms next to flat and node-aware zcoll (docs/scale.md, "Many
ranks per node"; results: docs/reports/2026-11-26-node-aware-scale.md).

For each (nodes M, ranks per node P, link rate): a crossbar of M hosts with P
cores each, P ranks per host (ranks by node), intra-host messages at the
shared-memory rate of nodeaware.py's node model (the loopback link; SimGrid
gives every intra-host flow that rate), every rank charged the per-rank rates
of its profile (nodeaware.py --sim-profile). Variants, one smpirun each:

  mpi-lr, mpi-rab_rdb           SMPI's flat ring / Rabenseifner (MPICH's long-message default)
  mpi-smp_rsag_lr               reduce-scatter in the node, ring among nodes, allgather (MVAPICH2 style)
  mpi-mvapich2_two_level        reduce to a leader, allreduce among leaders, bcast (MPICH's SMP shape)
  hom/ring, hom/node_aware      zcoll's hom Allreduce, flat ring / node-aware (ZCOLL_ALLREDUCE_ALGO)
  raw/node_aware                zcoll's uncompressed node-aware schedule

MPI's reductions are charged at the profile's per-rank float SUM rate
(zcoll-simscale's costed SUM). Rows: OUT/rows.jsonl, each zcoll-simscale row
plus ranks_per_node, gbps and variant; logs in OUT/logs/.

    nodesim.py --profiles D/profiles.json --nodes 16 --ranks-per-node 4,8 --gbps 25,100,400 --out D/sim
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
import platforms as simplatform  # noqa: E402
from study import SIM_CFG  # noqa: E402  (the settings of every simulation)

VARIANTS = ["mpi-lr", "mpi-rab_rdb", "mpi-smp_rsag_lr", "mpi-mvapich2_two_level",
            "hom/ring", "hom/node_aware", "raw/node_aware"]


def run(args, M, P, gbps, variant, prof, platdir, logdir, rows_out):
    px, ph, _ = simplatform.write(M, "crossbar", platdir, gbps=gbps, ranks_per_host=P,
                                  loopback_gbps=prof["loopback_gbps"], loopback_lat_us=prof["node_lat_us"])
    env = dict(os.environ, ZCOLL_SIM_CODEC="model", ZCOLL_SIM_PROFILE=os.path.abspath(prof["profile"]),
               OMP_NUM_THREADS="1")
    if variant.startswith("mpi-"):
        modes, mpi_algo = "mpi", variant[4:]
    else:
        modes, algo = variant.split("/")
        mpi_algo = "lr"
        env["ZCOLL_ALLREDUCE_ALGO"] = algo
    if args.pipeline_values:
        env["ZCOLL_PIPELINE_VALUES"] = str(args.pipeline_values)
    label = f"P{P}-{gbps:g}gbps-{variant}"
    with tempfile.NamedTemporaryFile("r", suffix=".jsonl") as tmp:
        cmd = (["nice", "-n", str(args.nice), "smpirun", "-np", str(M * P), "-platform", px, "-hostfile", ph]
               + SIM_CFG + [f"--cfg=smpi/allreduce:{mpi_algo}", "--cfg=smpi/allgather:mpich",
                            os.path.join(args.build, "tools/simscale/zcoll-simscale"), "--coll", "allreduce",
                            "--sizes", args.sizes, "--modes", modes, "--threads", "1",
                            "--json", tmp.name, "--label", label])
        logf = os.path.join(logdir, f"{M}x{P}-{gbps:g}gbps-{variant.replace('/', '-')}.log")
        t0 = time.time()
        with open(logf, "w") as f:
            f.write("$ " + " ".join(f"{k}={v}" for k, v in env.items() if k.startswith("ZCOLL_")) + " "
                    + " ".join(cmd) + "\n")
            f.flush()
            p = subprocess.run(cmd, stdout=f, stderr=subprocess.STDOUT, env=env)
        print(f"[nodesim] {M}x{P} {gbps:g} Gb/s {variant}: {time.time() - t0:.0f} s, rc {p.returncode}",
              flush=True)
        if p.returncode != 0:
            raise SystemExit(f"simulation failed: {logf}")
        new = [json.loads(line) for line in tmp if line.strip()]
    with open(rows_out, "a") as f:
        for r in new:
            if r["mode"] != modes:
                continue
            r.update({"ranks_per_node": P, "gbps": gbps, "variant": variant})
            f.write(json.dumps(r) + "\n")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--profiles", required=True, help="profiles.json of nodeaware.py --sim-profile")
    ap.add_argument("--nodes", default="16")
    ap.add_argument("--ranks-per-node", default="4,8")
    ap.add_argument("--gbps", default="25,100,400")
    ap.add_argument("--sizes", default="64MiB")
    ap.add_argument("--variants", default=",".join(VARIANTS))
    ap.add_argument("--build", default=os.path.join(ROOT, "build-smpi"))
    ap.add_argument("--pipeline-values", type=int, default=0)
    ap.add_argument("--nice", type=int, default=10)
    ap.add_argument("--out", required=True)
    args = ap.parse_args()
    with open(args.profiles) as f:
        profiles = json.load(f)
    os.makedirs(os.path.join(args.out, "logs"), exist_ok=True)
    rows = os.path.join(args.out, "rows.jsonl")
    for M in [int(x) for x in args.nodes.split(",")]:
        for P in [int(x) for x in args.ranks_per_node.split(",")]:
            for g in [float(x) for x in args.gbps.split(",")]:
                for v in args.variants.split(","):
                    run(args, M, P, g, v, profiles[str(P)], os.path.join(args.out, "platforms"),
                        os.path.join(args.out, "logs"), rows)


if __name__ == "__main__":
    main()
