#!/usr/bin/env python3
"""gpu_study.py -- the SimGrid scale study with GPU nodes (docs/scale.md, "GPU
nodes"). Each simulated node is one GPU whose local steps (compress, decompress,
decompress-accumulate, homomorphic add, reduce, copy) cost the rates measured on a
real device by `zcoll-gpu-coll-bench calibrate` (never assumed: without that JSON
this script stops), on a crossbar of links at --link-gbps (default 400: one
400 Gbit/s NIC per GPU, as on an H100 cluster with one ConnectX-7 per GPU) and
--lat-us latency. zcoll's real Allreduce algorithms run in SMPI (study.py,
zcoll-simscale); the baseline is an NCCL ring modelled at wire speed:

    t_nccl(N, S) = 2 (N-1)/N * S / B + 2 (N-1) * latency

(bandwidth-optimal ring, no compute cost), so the speedup is an upper-bound
comparison against NCCL. Output: OUT/rows.jsonl (study.py's rows) and
OUT/gpu_table.md / .json: per GPU count the best zcoll mode, its time, the NCCL
model's, the speedup and the compression ratio of the data (the bound on the
speedup when the network is the bottleneck), next to the papers' figures.

    python3 tools/simscale/gpu_study.py --bench-json RESULTS/calibrate.json \\
        --out bench/results/DATE-gpu-scale [--nodes 8,16,32,64,128,256,512] [--size 646MB]
"""
import argparse
import functools
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import gpu_profile  # noqa: E402
import platforms  # noqa: E402
import study  # noqa: E402

PAPERS = ("ghZCCL: Allreduce 5.81x over NCCL at 512 A100 GPUs, 2.29x over gZCCL; "
          "gZCCL: Allreduce up to 3.21x over NCCL at 64 GPUs")


def size_bytes(s):
    units = {"KB": 1e3, "MB": 1e6, "GB": 1e9}
    for u, m in units.items():
        if s.upper().endswith(u):
            return int(float(s[:-2]) * m)
    return int(s)


def nccl_ring(n, nbytes, gbps, lat_us):
    return 2 * (n - 1) / n * nbytes / (gbps * 1e9 / 8) + 2 * (n - 1) * lat_us * 1e-6


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--bench-json", required=True, help="zcoll-gpu-coll-bench calibrate JSON")
    ap.add_argument("--way", choices=["synced", "async"], default="synced")
    ap.add_argument("--out", required=True)
    ap.add_argument("--build", default=os.path.join(study.ROOT, "build-smpi"))
    ap.add_argument("--nodes", default="8,16,32,64,128,256,512")
    ap.add_argument("--size", default="646MB")
    ap.add_argument("--link-gbps", type=float, default=400.0)
    ap.add_argument("--lat-us", type=float, default=2.0)
    ap.add_argument("--modes", default="raw,cpr_p2p,doc,hom")
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    prof = os.path.join(a.out, f"profile-gpu-{a.way}.txt")
    cal = gpu_profile.convert(a.bench_json, prof, a.way)
    nodes = [int(x) for x in a.nodes.split(",")]
    # every simulated platform gets the GPU cluster's links: the rate through study.py's
    # --gbps (it passes gbps= to platforms.write itself, which would override a bound
    # gbps: the first GPU study ran on study.py's default 100 Gbit/s), the latency bound here
    study.simplatform.write = functools.partial(platforms.write, lat_us=a.lat_us)
    study.PRESETS["gpu"] = (["crossbar"], [("allreduce", nodes, [a.size])], "1")
    sys.argv = ["study.py", "--preset", "gpu", "--profile", prof, "--out", a.out, "--build", a.build,
                "--modes", a.modes, "--gbps", f"{a.link_gbps:g}", "--no-plots"]
    study.main()
    # the simulator rounds the size down to a multiple of the node count times 4 bytes
    want = size_bytes(a.size)
    rows = [r for r in study.load_rows(os.path.join(a.out, "rows.jsonl"))
            if r["collective"] == "allreduce" and abs(r["bytes"] - want) <= 1e-3 * want
            and not r.get("failed")]
    ratio = max(cal["ratio"].values())
    table = []
    for n in nodes:
        mine = [r for r in rows if r["nodes"] == n and r["mode"] != "mpi"]
        if not mine:
            continue
        best = min(mine, key=lambda r: r["sim_seconds"])
        t_n = nccl_ring(n, best["bytes"], a.link_gbps, a.lat_us)
        table.append({"gpus": n, "best_mode": best["mode"], "zcoll_s": best["sim_seconds"],
                      "nccl_ring_model_s": t_n, "speedup": t_n / best["sim_seconds"],
                      "ratio_sent": best["ratio_sent"]})
    with open(os.path.join(a.out, "gpu_table.json"), "w") as f:
        json.dump({"device": cal["device"], "data": cal["data"], "rel": cal["rel"], "way": a.way,
                   "link_gbps": a.link_gbps, "lat_us": a.lat_us, "size": a.size,
                   "max_ratio_measured": ratio, "papers": PAPERS, "rows": table}, f, indent=1)
    with open(os.path.join(a.out, "gpu_table.md"), "w") as f:
        f.write(f"Allreduce {a.size}, GPU node rates from {cal['device']} ({a.way}), "
                f"{a.link_gbps:g} Gbit/s links, {a.lat_us:g} us; data {os.path.basename(cal['data'])} "
                f"REL {cal['rel']}\n\n| GPUs | best mode | zcoll (s) | NCCL ring model (s) | speedup | "
                f"ratio on the wire |\n|---|---|---|---|---|---|\n")
        for t in table:
            f.write(f"| {t['gpus']} | {t['best_mode']} | {t['zcoll_s']:.4g} | {t['nccl_ring_model_s']:.4g} | "
                    f"{t['speedup']:.2f}x | {t['ratio_sent']:.2f} |\n")
        f.write(f"\nPapers: {PAPERS}.\n")
    print(open(os.path.join(a.out, "gpu_table.md")).read())


if __name__ == "__main__":
    main()
