#!/usr/bin/env python3
"""nodeaware.py -- many ranks per node: where do node-aware and flat zcoll beat
MPI's best? The crossover map with ranks per node as an axis (docs/scale.md,
"Many ranks per node"; results: docs/reports/2026-11-26-node-aware-scale.md).

MPI-everywhere node model (every number is an input, printed into the JSON):

* a node runs P ranks of one thread each and has one NIC of B Gbit/s;
* per-rank kernel rate = the node's aggregate rate for P threads / P, with the
  aggregate from crossover.py's NodeModel: min(P x r1 x eta, B_mem / traffic)
  (r1 measured here on one thread, eta the measured 1 -> 2 thread efficiency,
  B_mem the node's memory bandwidth). MPI's reduction and zcoll's reduction
  both get the per-rank float SUM rate (one thread per rank either way);
* shared memory inside the node (MPI's and zcoll's intra-node steps): a
  message is copied twice (into the shared segment and out), so a rank sends
  to a rank of its node at the node's aggregate memcpy rate / (2P) while every
  rank does; latency --node-lat-us;
* the link: flat algorithms whose ranks are ordered by node cross the NIC one
  flow at a time (zcoll's flat ring; it still cannot run faster than its
  intra-node hops: its rate is min(B, the shared-memory rate)); MPI's flat
  Rabenseifner crosses it with all P ranks at once (the library's model); the
  rails of node-aware zcoll share it: B / P per rail.

Candidates (times from zcoll_predict() of the built libzcoll_mpi, ctypes):
MPI's best = the fastest of (a) the library's model of MPICH's Allreduce with
the layout, itself the better of flat Rabenseifner and the SMP composition
(MPI_Reduce to a leader, Allreduce among leaders, MPI_Bcast, each step by
MPICH's size rules), (b) an uncompressed ring (Open MPI's large-message
algorithm; predicted as zcoll's raw ring, the same schedule) and (c) the SMP
reduce-scatter, rail ring, allgather (MVAPICH2 / SMPI smp_rsag_lr; predicted
as zcoll's raw node-aware, the same schedule); flat zcoll = hom and doc on the ring;
node-aware zcoll = hom and doc with ZCOLL_ALGO_NODE_AWARE (reduce-scatter in
the node, compressed ring on each rail, allgather in the node) and
ZCOLL_ALGO_NODE_LEADER.

    nodeaware.py --lib build/src/coll/libzcoll_mpi.so --calib-dram D/calib-32M-r1.json,... \\
        --calib-cache D/calib-256K-r1.json,... --out D
    nodeaware.py ... --sim-profile 4,8 --out D      # SimGrid profiles profile-P{P}.txt + loopback rates
    nodeaware.py ... --check D/sim/rows.jsonl       # model vs simulator
    nodeaware.py --selftest LIBZCOLL_MPI.so         # CTest simscale.nodeaware
"""
import argparse
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import crossover as xo  # noqa: E402  (tools/simscale/crossover.py)

FLAT = [("hom", "ring"), ("doc", "ring")]
NODE = [("hom", "node_aware"), ("doc", "node_aware"), ("hom", "node_leader"), ("doc", "node_leader")]


class RankModel:
    """The per-rank rates of P one-thread ranks sharing a node."""

    def __init__(self, node, P, node_lat_us):
        self.P = P
        self.rates = {k: node.rate(k, P) / P for k in xo.KINDS}
        self.shm_Bps = node.rate("copy", P) / (2 * P) * 1e9
        self.node_lat = node_lat_us * 1e-6

    def struct(self, link_Bps, nranks, lat, overlap, growth, flat_ring=False):
        bw = min(link_Bps, self.shm_Bps) if flat_ring else link_Bps
        m = xo.model_struct(bw, self.rates, self.rates["reduce"], nranks, lat, overlap, growth)
        if self.P > 1:
            m.node_latency = self.node_lat
            m.node_bandwidth = self.shm_Bps
            m.rail_bandwidth = link_Bps / self.P
            m.ranks_per_node = self.P
        return m


def point(cm, node, gbps, M, P, count, args, growth):
    link = gbps * 1e9 / 8
    rm = RankModel(node, P, args.node_lat_us)
    N = M * P
    r1 = node.ratio[min(node.ratio)]
    m = rm.struct(link, N, args.latency, args.overlap, growth)
    mf = rm.struct(link, N, args.latency, args.overlap, growth, flat_ring=True)
    # MPI's best: MPICH's choice (the library's model), a ring (Open MPI's
    # large-message choice; zcoll's raw ring is that schedule) and the SMP
    # reduce-scatter / rail ring / allgather (MVAPICH's and SMPI's smp_rsag_lr;
    # zcoll's raw node-aware is that schedule)
    mpi = {"mpich": cm.predict(m, "mpi", "native", N, count, r1),
           "ring": cm.predict(mf, "raw", "ring", N, count, r1)}
    if P > 1:
        mpi["smp_rsag"] = cm.predict(m, "raw", "node_aware", N, count, r1)
    mpi_best = min(mpi, key=mpi.get)
    t_mpi = mpi[mpi_best]
    times = {f"{mo}/{al}": cm.predict(mf, mo, al, N, count, r1) for mo, al in FLAT}
    if P > 1:
        times.update({f"{mo}/{al}": cm.predict(m, mo, al, N, count, r1) for mo, al in NODE})
    flat_best = min(("/".join(k) for k in FLAT), key=times.get)
    node_best = min(("/".join(k) for k in NODE), key=times.get) if P > 1 else None
    best = flat_best if node_best is None or times[flat_best] <= times[node_best] else node_best
    return {"gbps": gbps, "nodes": M, "ranks_per_node": P, "ranks": N, "bytes": count * 4,
            "mpi_s": t_mpi, "mpi_best": mpi_best, "mpi_times_s": mpi, "times_s": times, "flat_best": flat_best,
            "node_best": node_best,
            "best": best, "speedup": t_mpi / times[best],
            "flat_speedup": t_mpi / times[flat_best],
            "node_speedup": t_mpi / times[node_best] if node_best else None,
            "rank_rates_gbps": rm.rates, "shm_gbps_per_rank": rm.shm_Bps / 1e9}


def win_ranges(rows, key):
    """The link rates of the grid where rows' `key` speedup is >= 1, as
    intervals ("10-16, 200-400"; "none"): the speedup need not fall
    monotonically with the link rate (MPI's best stops improving once its
    shared-memory steps dominate, zcoll's rails keep improving)."""
    pts = sorted((r["gbps"], r[key]) for r in rows if r[key] is not None)
    runs, cur = [], None
    for g, sp in pts:
        if sp >= 1:
            cur = [g, g] if cur is None else [cur[0], g]
        elif cur is not None:
            runs.append(cur)
            cur = None
    if cur is not None:
        runs.append(cur)
    if not runs:
        return "none"
    return ", ".join(f"{a:g}" if a == b else f"{a:g}–{b:g}" for a, b in runs)


def short(key):
    mode, algo = key.split("/")
    return {"ring": mode, "node_aware": f"{mode} na", "node_leader": f"{mode} leader"}.get(algo, key)


def heatmap(rows, M, gbps_grid, P_grid, title, path):
    xo.speedup_map({(r["ranks_per_node"], r["gbps"]): r["speedup"] for r in rows if r["nodes"] == M},
                   gbps_grid, P_grid, "ranks per node (one thread each)",
                   "best zcoll (flat or node-aware) / MPI's best", title, path)


def write_profiles(node, dram, P_list, out, node_lat_us):
    """One ZCOLL_SIM_PROFILE per ranks-per-node count (every rank: 1 thread at
    the per-rank rates of P ranks sharing the node), and the loopback rate the
    platform needs. Returns {P: {"profile": path, "loopback_gbps": ...}}."""
    res = {}
    for P in P_list:
        rm = RankModel(node, P, node_lat_us)
        path = os.path.join(out, f"profile-P{P}.txt")
        xo.write_sim_profile(node, dram, [1], rm.rates["reduce"], path,
                             rate=lambda kind, T, rates=rm.rates: rates[kind],
                             comment=f"MPI-everywhere node model, {P} ranks per node: per-rank rates of "
                             f"{os.path.basename(dram['data'])} (REL {dram['rel']}), memory {node.mem} GB/s; "
                             "nodeaware.py")
        res[P] = {"profile": path, "loopback_gbps": rm.shm_Bps * 8 / 1e9, "node_lat_us": node_lat_us}
    with open(os.path.join(out, "profiles.json"), "w") as f:
        json.dump({str(k): v for k, v in res.items()}, f, indent=1)
    return res


def selftest(lib):
    """CTest simscale.nodeaware: the ctypes layout of zcoll_model's two-level
    fields (each must reach the library) and the per-rank node model."""
    cm = xo.CostModel(lib)
    bad = []
    a, B = 1e-6, 12.5e9
    rates = {"compress": 4.0, "decompress": 5.0, "hom_add": 6.0}
    N, P, count = 64, 8, 1 << 24

    def mpi(**kw):
        m = xo.model_struct(B, rates, 10.0, N, a, 1.0, 0.0)
        for k, v in kw.items():
            setattr(m, k, v)
        return cm.predict(m, "mpi", "native", N, count, 4.0)

    flat = mpi()
    two = mpi(ranks_per_node=P, node_bandwidth=5e9, node_latency=5e-7)
    if not two != flat:
        bad.append("ranks_per_node does not reach zcoll_predict")
    if not mpi(ranks_per_node=P, node_bandwidth=1e9, node_latency=5e-7) > two:
        bad.append("node_bandwidth does not reach zcoll_predict")
    m = xo.model_struct(B, rates, 10.0, N, a, 1.0, 0.0)
    m.ranks_per_node, m.node_bandwidth, m.node_latency = P, 5e9, 5e-7
    na = cm.predict(m, "hom", "node_aware", N, count, 4.0)
    m.node_latency = 1e-3
    if not cm.predict(m, "hom", "node_aware", N, count, 4.0) > na:
        bad.append("node_latency does not reach zcoll_predict")
    m.node_latency, m.rail_bandwidth = 5e-7, B / P / 10
    if not cm.predict(m, "hom", "node_aware", N, count, 4.0) > na:
        bad.append("rail_bandwidth does not reach zcoll_predict")
    # per-rank rates: P ranks share the node's aggregate; memcpy twice per message
    curve = {"1": 1.0, "8": 1.0}
    cal = {"ratio": {"1": 4.0, "8": 2.0}, "gbps": {t: {k: dict(curve) for k in xo.KINDS} for t in ("1", "2")}}
    node = xo.NodeModel(cal, cal, 100.0)
    rm = RankModel(node, 1000, 0.5)
    if abs(rm.rates["reduce"] - 100.0 / 3 / 1000) > 1e-12:
        bad.append(f"per-rank reduce {rm.rates['reduce']}")
    if abs(rm.shm_Bps - 100.0 / 2 / 2000 * 1e9) > 1:
        bad.append(f"shared-memory rate {rm.shm_Bps}")
    for b in bad:
        print("FAIL", b)
    print("nodeaware selftest:", "FAILED" if bad else "ok")
    return 1 if bad else 0


def main():
    if len(sys.argv) == 3 and sys.argv[1] == "--selftest":
        sys.exit(selftest(sys.argv[2]))
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--lib", help="libzcoll_mpi.so (zcoll_predict)")
    ap.add_argument("--calib-dram", required=True)
    ap.add_argument("--calib-cache", required=True)
    ap.add_argument("--mem-gbps", type=float, default=320.0)
    ap.add_argument("--nodes", default="16,64,128,512")
    ap.add_argument("--ranks-per-node", default="1,4,8,16,32")
    ap.add_argument("--mib", default="64", help="Allreduce buffer per rank (MiB), comma list")
    ap.add_argument("--latency", type=float, default=1e-6)
    ap.add_argument("--node-lat-us", type=float, default=0.5)
    ap.add_argument("--overlap", type=float, default=1.0)
    ap.add_argument("--gbps", default="10,12.5,16,20,25,32,40,50,64,80,100,125,160,200,250,320,400")
    ap.add_argument("--per-thread", help="replace measured per-thread rates, e.g. copy=15,reduce=9.85 "
                    "(GB/s; a what-if, stated in the JSON's argv)")
    ap.add_argument("--tag", default="")
    ap.add_argument("--out", required=True)
    ap.add_argument("--sim-profile", help="write OUT/profile-P{P}.txt for these P and exit")
    ap.add_argument("--check", help="rows.jsonl of the simulations (sim.py): model vs simulator")
    args = ap.parse_args()

    dram, cache = xo.load(args.calib_dram), xo.load(args.calib_cache)
    node = xo.NodeModel(dram, cache, args.mem_gbps, per_thread=xo.per_thread_overrides(args.per_thread))
    growth = xo.growth_bits(node.ratio)
    os.makedirs(args.out, exist_ok=True)
    if args.sim_profile:
        res = write_profiles(node, dram, [int(p) for p in args.sim_profile.split(",")], args.out,
                             args.node_lat_us)
        print(json.dumps(res, indent=1))
        return
    cm = xo.CostModel(args.lib)
    if args.check:
        return check(cm, node, growth, args)
    gbps_grid = [float(g) for g in args.gbps.split(",")]
    P_grid = [int(p) for p in args.ranks_per_node.split(",")]
    nodes = [int(n) for n in args.nodes.split(",")]
    sizes = [float(s) for s in args.mib.split(",")]
    rows = [point(cm, node, g, M, P, int(mib * 1048576 / 4), args, growth)
            for mib in sizes for M in nodes for P in P_grid for g in gbps_grid]
    meta = {"node_model": node.describe(), "growth_bits": growth, "latency_s": args.latency,
            "node_latency_s": args.node_lat_us * 1e-6, "overlap": args.overlap,
            "calib_dram": args.calib_dram, "calib_cache": args.calib_cache, "lib": args.lib,
            "argv": sys.argv[1:]}
    tag = args.tag
    with open(os.path.join(args.out, f"nodeaware{tag}.json"), "w") as f:
        f.write('{"meta": ' + json.dumps(meta, indent=1) + ',\n"rows": [\n')
        f.write(",\n".join(json.dumps(r, separators=(",", ":")) for r in rows) + "\n]}\n")
    show = [g for g in gbps_grid if g in (10, 25, 100, 200, 400)]
    lines = []
    for mib in sizes:
        b = int(mib * 1048576 / 4) * 4
        lines.append(f"\n## {mib:g} MiB per rank: link rates (Gbit/s, of the grid) where zcoll beats MPI's best\n")
        lines.append("(flat zcoll; node-aware zcoll; the grid: " + ", ".join(f"{g:g}" for g in gbps_grid) + ")\n")
        lines.append("| ranks per node | " + " | ".join(f"{M} nodes" for M in nodes) + " |")
        lines.append("|---" * (len(nodes) + 1) + "|")
        for P in P_grid:
            cells = []
            for M in nodes:
                rs = [r for r in rows if r["bytes"] == b and r["nodes"] == M and r["ranks_per_node"] == P]
                cells.append("; ".join(win_ranges(rs, k) for k in ("flat_speedup", "node_speedup")))
            lines.append(f"| {P} | " + " | ".join(cells) + " |")
        for M in nodes:
            lines.append(f"\n{M} nodes, {mib:g} MiB: speedup over MPI's best, flat zcoll / node-aware zcoll "
                         f"(best mode)\n")
            lines.append("| ranks per node | " + " | ".join(f"{g:g} Gb/s" for g in show) + " |")
            lines.append("|---" * (len(show) + 1) + "|")
            for P in P_grid:
                idx = {r["gbps"]: r for r in rows
                       if r["bytes"] == b and r["nodes"] == M and r["ranks_per_node"] == P}
                cells = []
                for g in show:
                    r = idx[g]
                    na = (f"{r['node_speedup']:.2f} ({short(r['node_best'])})" if r["node_best"] else "–")
                    cells.append(f"{r['flat_speedup']:.2f} / {na}")
                lines.append(f"| {P} | " + " | ".join(cells) + " |")
            if mib == sizes[0]:
                heatmap([r for r in rows if r["bytes"] == b], M, gbps_grid, P_grid,
                        f"Allreduce {mib:g} MiB per rank, {M} nodes, one thread per rank: best zcoll vs MPI's best\n"
                        f"(cost model; per-rank rates of P ranks sharing a node, {args.mem_gbps:g} GB/s memory)",
                        os.path.join(args.out, f"nodeaware-N{M}{tag}.png"))
    with open(os.path.join(args.out, f"nodeaware{tag}.md"), "w") as f:
        f.write("\n".join(lines) + "\n")
    print("\n".join(lines))


def check(cm, node, growth, args):
    """Model vs the simulated rows of sim.py (label: P{P}-{gbps}gbps-{variant})."""
    rows = [json.loads(line) for line in open(args.check) if line.strip()]
    out = []
    for r in rows:
        if r.get("failed"):
            continue
        P, gbps = r["ranks_per_node"], r["gbps"]
        M = r["nodes"] // P
        p = point(cm, node, gbps, M, P, r["bytes"] // 4, args, growth)
        key = r["variant"]
        # the MPI variants against the model's row of the same schedule; the
        # library's MPICH model is the better of Rabenseifner and the leader shape
        mpi_row = {"mpi-lr": "ring", "mpi-smp_rsag_lr": "smp_rsag", "raw/node_aware": "smp_rsag",
                   "mpi-rab_rdb": "mpich", "mpi-mvapich2_two_level": "mpich"}.get(key)
        model_s = p["mpi_times_s"].get(mpi_row) if mpi_row else p["times_s"].get(key)
        out.append({"gbps": gbps, "nodes": M, "ranks_per_node": P, "variant": key, "sim_s": r["sim_seconds"],
                    "model_s": model_s})
    with open(os.path.join(args.out, f"check{args.tag}.json"), "w") as f:
        json.dump(out, f, indent=1)
    # the simulated answer: MPI's best (its four algorithms, and the uncompressed
    # node-aware schedule an MPI could run) against flat and node-aware hom
    print("| link | nodes x ranks | MPI's best, simulated (ms) | which | hom ring (ms) | hom node-aware (ms) "
          "| speedup flat / node-aware |")
    print("|---|---|---|---|---|---|---|")
    pts = sorted({(o["gbps"], o["nodes"], o["ranks_per_node"]) for o in out}, key=lambda k: (k[1], k[2], k[0]))
    for g, M, P in pts:
        v = {o["variant"]: o["sim_s"] for o in out if (o["gbps"], o["nodes"], o["ranks_per_node"]) == (g, M, P)}
        mpi = {k: t for k, t in v.items() if k.startswith("mpi-") or k.startswith("raw/")}
        if not mpi or "hom/ring" not in v or "hom/node_aware" not in v:
            continue
        best = min(mpi, key=mpi.get)
        print(f"| {g:g} Gb/s | {M} x {P} | {mpi[best] * 1e3:.2f} | {best} | {v['hom/ring'] * 1e3:.2f} | "
              f"{v['hom/node_aware'] * 1e3:.2f} | {mpi[best] / v['hom/ring']:.2f} / "
              f"{mpi[best] / v['hom/node_aware']:.2f} |")
    print()
    print("| link | nodes x ranks | variant | simulated (ms) | model (ms) | model / sim |")
    print("|---|---|---|---|---|---|")
    for o in out:
        ms = f"{o['model_s'] * 1e3:.2f}" if o["model_s"] else "–"
        q = f"{o['model_s'] / o['sim_s']:.2f}" if o["model_s"] else "–"
        print(f"| {o['gbps']:g} Gb/s | {o['nodes']} x {o['ranks_per_node']} | {o['variant']} | "
              f"{o['sim_s'] * 1e3:.2f} | {ms} | {q} |")


if __name__ == "__main__":
    main()
