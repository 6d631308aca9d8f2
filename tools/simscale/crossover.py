#!/usr/bin/env python3
"""crossover.py -- where does compression pay? A node model and the library's
cost model, over link rate x threads per rank (docs/scale.md, "Node model";
results: docs/reports/2026-11-24-crossover-map.md).

Node model (every number below is an input, printed into the output JSON):

* per-thread rates: what zcoll-calibrate measured on THIS machine with one
  thread on a working set that does not fit in the caches (--calib-dram, e.g.
  --values 32M = 128 MiB per buffer); one rate per kernel = the median over the
  measured partial-sum sizes (terms 1, 8, 64);
* thread scaling: T threads run T x the per-thread rate x eta, where eta is
  the kernel's 1 -> 2 thread efficiency (rate(2) / (2 rate(1))) measured with
  the working set in cache (--calib-cache, e.g. --values 256K = 1 MiB), so that
  this machine's own memory bandwidth does not enter it; eta = 1 at T = 1, and
  clamped to [0.5, 1];
* memory cap: the aggregate rate of a kernel is at most B_mem / traffic, with
  B_mem the node's memory bandwidth (--mem-gbps, a STREAM-triad-class figure)
  and traffic the bytes the kernel moves to and from memory per uncompressed
  byte (STREAM's counting: reads + writes, no write-allocate):
      compress 1 + 1/r1, decompress 1/rN + 1, hom add 3/r (two streams in,
      one out), float reduce a+b->o 3, memcpy 2;
* MPI's reduction (MPICH's MPI_SUM: a loop on the calling thread, one thread
  per rank) runs on the same node model with 1 thread (--mpi-reduce single,
  the default) or T threads (--mpi-reduce node: as if the MPI library used
  the whole node, generous to MPI).

Times come from the library's own cost model: zcoll_predict() in
libzcoll_mpi (include/zcoll_tuner.h), loaded with ctypes; MPI's time from the
same call with mode MPI and the MPI reduction rate. Speedup = MPI time / the
fastest compressed zcoll mode (hom and doc, ring and recursive doubling, and
cpr_p2p).

    crossover.py --lib build-h/src/coll/libzcoll_mpi.so \\
        --calib-dram D/calib-32M.json --calib-cache D/calib-256K.json --out D
    crossover.py ... --sim-profile T1,T2 --out D     # SimGrid profile of the node model
    crossover.py ... --check D/sim-rows.jsonl        # model vs simulator
    crossover.py --selftest LIBZCOLL_MPI.so          # CTest simscale.crossover
"""
import argparse
import ctypes
import json
import math
import os
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from calibration import best_of_rounds  # noqa: E402  (tools/simscale/calibration.py)

KINDS = ["compress", "decompress", "accumulate", "hom_add", "reduce", "copy"]
FLOAT32 = 1  # zcoll_dtype ZCOLL_FLOAT32 (zcoll.h)
COMPRESSED = [("hom", "ring"), ("hom", "rd"), ("doc", "ring"), ("doc", "rd"), ("cpr_p2p", "ring")]


class Model(ctypes.Structure):
    _fields_ = [("struct_size", ctypes.c_size_t), ("latency", ctypes.c_double),
                ("sync_latency", ctypes.c_double), ("bandwidth", ctypes.c_double),
                ("compress_bw", ctypes.c_double), ("decompress_bw", ctypes.c_double),
                ("hom_bw", ctypes.c_double), ("reduce_bw", ctypes.c_double),
                ("overlap", ctypes.c_double), ("growth_bits", ctypes.c_double),
                ("mpi_scale", ctypes.c_double), ("mpi_scale_small", ctypes.c_double),
                ("threads", ctypes.c_int), ("source", ctypes.c_int),
                # the two-level (node-aware) part of zcoll_model; 0 = not set
                ("node_latency", ctypes.c_double), ("node_bandwidth", ctypes.c_double),
                ("rail_bandwidth", ctypes.c_double), ("ranks_per_node", ctypes.c_int)]


class CostModel:
    """zcoll_predict() of the built library. Modes, collectives and algorithms are
    named as the library names them (zcoll_mode_from_name, zcoll_collective_from_name,
    zcoll_algorithm_from_name: its algorithm table's names and aliases, "rd" too), so
    that a number here never differs from the library's."""

    def __init__(self, lib):
        self.lib = ctypes.CDLL(lib)
        f = self.lib.zcoll_predict
        f.argtypes = [ctypes.POINTER(Model), ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_int,
                      ctypes.c_size_t, ctypes.c_int, ctypes.c_double, ctypes.POINTER(ctypes.c_double),
                      ctypes.c_void_p, ctypes.c_void_p]
        f.restype = ctypes.c_int
        for name in ("zcoll_mode_from_name", "zcoll_collective_from_name"):
            getattr(self.lib, name).argtypes = [ctypes.c_char_p, ctypes.POINTER(ctypes.c_int)]
            getattr(self.lib, name).restype = ctypes.c_int
        self.lib.zcoll_algorithm_from_name.argtypes = [ctypes.c_int, ctypes.c_char_p,
                                                       ctypes.POINTER(ctypes.c_int)]
        self.lib.zcoll_algorithm_from_name.restype = ctypes.c_int
        self.lib.zcoll_algorithm_name.argtypes = [ctypes.c_int]
        self.lib.zcoll_algorithm_name.restype = ctypes.c_char_p
        self.numbers = {}

    def _number(self, what, *args):
        key = (what,) + args
        if key not in self.numbers:
            v = ctypes.c_int(-1)
            if what == "algorithm":
                coll, name = args
                rc = self.lib.zcoll_algorithm_from_name(coll, name.encode(), ctypes.byref(v))
                if rc != 0:  # not a row of the table: "native" (MPI's own), "none"
                    v.value = next((a for a in range(64)
                                    if self.lib.zcoll_algorithm_name(a) == name.encode()), -1)
                    rc = 0 if v.value >= 0 else rc
            else:
                rc = getattr(self.lib, f"zcoll_{what}_from_name")(args[0].encode(), ctypes.byref(v))
            if rc != 0:
                raise ValueError(f"the library has no {what} {args[-1]!r}")
            self.numbers[key] = v.value
        return self.numbers[key]

    def mode(self, name):
        return self._number("mode", name)

    def collective(self, name):
        return self._number("collective", name)

    def algorithm(self, name, coll="allreduce"):
        return self._number("algorithm", self.collective(coll), name)

    def predict(self, m, mode, algo, nranks, count, ratio, coll="allreduce"):
        s = ctypes.c_double(-1)
        rc = self.lib.zcoll_predict(ctypes.byref(m), self.collective(coll), self.mode(mode),
                                    self.algorithm(algo, coll), nranks, count, FLOAT32, ratio,
                                    ctypes.byref(s), None, None)
        if rc != 0:
            raise RuntimeError(f"zcoll_predict({mode}, {algo}) failed: {rc}")
        return s.value


def model_struct(link_Bps, rates, reduce_gbps, nranks, lat, overlap, growth):
    m = Model()
    m.struct_size = ctypes.sizeof(Model)
    m.latency = lat
    m.sync_latency = 2 * math.ceil(math.log2(max(2, nranks))) * lat
    m.bandwidth = link_Bps
    m.compress_bw = rates["compress"] * 1e9
    m.decompress_bw = rates["decompress"] * 1e9
    m.hom_bw = rates["hom_add"] * 1e9
    m.reduce_bw = reduce_gbps * 1e9
    m.overlap = overlap
    m.growth_bits = growth
    m.mpi_scale = 1.0
    m.mpi_scale_small = 1.0
    m.threads = 1
    return m


def load(paths):
    """One calibration, or the best per entry of several rounds (comma list):
    other work on the machine only ever slows a run down."""
    runs = []
    for path in paths.split(","):
        with open(path) as f:
            runs.append(json.load(f))
    return best_of_rounds(runs)


def median_over_terms(curve):
    return statistics.median(curve.values())


def per_thread_overrides(text):
    """--per-thread "copy=15,reduce=9.85": a what-if on the measured per-thread
    rates (GB/s), stated in the output's argv and node model."""
    return {k: float(v) for k, v in (kv.split("=") for kv in filter(None, (text or "").split(",")))}


class NodeModel:
    def __init__(self, dram, cache, mem_gbps, ratio_cal=None, per_thread=None):
        self.mem = mem_gbps
        self.ratio = {int(k): v for k, v in (ratio_cal or dram)["ratio"].items()}
        self.r1 = {k: median_over_terms(dram["gbps"]["1"][k]) for k in KINDS}
        self.r1.update(per_thread or {})
        c1 = {k: median_over_terms(cache["gbps"]["1"][k]) for k in KINDS}
        c2 = {k: median_over_terms(cache["gbps"]["2"][k]) for k in KINDS}
        self.eta = {k: min(1.0, max(0.5, c2[k] / (2 * c1[k]))) for k in KINDS}
        # zcoll-calibrate times memcpy with one std::memmove whatever the thread
        # count: no scaling was measured; linear up to the memory ceiling
        self.eta["copy"] = 1.0
        r1 = self.ratio[min(self.ratio)]
        rN = self.ratio[max(self.ratio)]
        rmid = statistics.median(self.ratio.values())
        # bytes moved to/from memory per uncompressed byte
        self.traffic = {"compress": 1 + 1 / r1, "decompress": 1 / rN + 1, "accumulate": 1 / rN + 2,
                        "hom_add": 3 / rmid, "reduce": 3.0, "copy": 2.0}

    def rate(self, kind, T):
        eta = 1.0 if T == 1 else self.eta[kind]
        return min(T * self.r1[kind] * eta, self.mem / self.traffic[kind])

    def rates(self, T):
        return {k: self.rate(k, T) for k in KINDS}

    def bound_by_memory(self, kind, T):
        eta = 1.0 if T == 1 else self.eta[kind]
        return T * self.r1[kind] * eta > self.mem / self.traffic[kind]

    def describe(self):
        return {"mem_gbps": self.mem, "per_thread_gbps": self.r1, "eta_2threads": self.eta,
                "traffic_bytes_per_byte": self.traffic, "ratio": self.ratio,
                "mem_cap_gbps": {k: self.mem / self.traffic[k] for k in KINDS}}


def growth_bits(ratio):
    """Bits per value a k-term sum grows by per doubling of k (least squares of
    32/ratio(k) on log2 k over the calibrated points)."""
    pts = sorted(ratio.items())
    xs = [math.log2(k) for k, _ in pts]
    ys = [32.0 / r for _, r in pts]
    mx, my = statistics.mean(xs), statistics.mean(ys)
    return sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sum((x - mx) ** 2 for x in xs)


def point(cm, node, gbps, T, nranks, count, args, growth):
    link = gbps * 1e9 / 8
    rates = node.rates(T)
    mpi_red = node.rate("reduce", 1 if args.mpi_reduce == "single" else T)
    m_mpi = model_struct(link, rates, mpi_red, nranks, args.latency, args.overlap, growth)
    m_z = model_struct(link, rates, rates["reduce"], nranks, args.latency, args.overlap, growth)
    r1 = node.ratio[min(node.ratio)]
    t_mpi = cm.predict(m_mpi, "mpi", "native", nranks, count, r1)
    times = {f"{mo}/{al}": cm.predict(m_z, mo, al, nranks, count, r1) for mo, al in COMPRESSED}
    times["raw/ring"] = cm.predict(m_z, "raw", "ring", nranks, count, r1)
    best = min((k for k in times if not k.startswith("raw")), key=lambda k: times[k])
    return {"gbps": gbps, "threads": T, "nodes": nranks, "bytes": count * 4, "mpi_s": t_mpi,
            "times_s": times, "best": best, "speedup": t_mpi / times[best],
            "raw_speedup": t_mpi / times["raw/ring"],
            "rates_gbps": rates, "mpi_reduce_gbps": mpi_red}


def short(key):
    """hom/ring -> hom, hom/rd -> hom rd (the table's mode names)."""
    mode, algo = key.split("/")
    return mode if algo == "ring" else f"{mode} {algo}"


def crossing(rows, T, nodes):
    """Link rate (Gbit/s) above which the speedup falls below 1, interpolated on
    log rate; None if it never does on the grid, 0 if it never exceeds 1."""
    pts = sorted((r["gbps"], r["speedup"]) for r in rows if r["threads"] == T and r["nodes"] == nodes)
    if pts[0][1] < 1:
        return 0.0
    for (g0, s0), (g1, s1) in zip(pts, pts[1:]):
        if s0 >= 1 > s1:
            f = math.log(s0) / (math.log(s0) - math.log(s1))
            return math.exp(math.log(g0) + f * (math.log(g1) - math.log(g0)))
    return None


def speedup_map(speedup, gbps_grid, y_grid, ylabel, cblabel, title, path):
    """A heatmap of speedup[(y, gbps)] on log axes with the speedup-1 contour
    (crossover.py's thread map, nodeaware.py's ranks-per-node map)."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import numpy as np
    from matplotlib.colors import TwoSlopeNorm
    Z = np.array([[speedup[(y, g)] for g in gbps_grid] for y in y_grid])
    fig, ax = plt.subplots(figsize=(7.5, 5))
    X, Y = np.meshgrid(gbps_grid, y_grid)
    lz = np.log2(Z)
    lim = max(abs(lz.min()), abs(lz.max()), 0.1)
    pc = ax.pcolormesh(X, Y, lz, shading="nearest", cmap="RdBu", norm=TwoSlopeNorm(0, -lim, lim))
    if Z.min() < 1 < Z.max():
        cs = ax.contour(X, Y, Z, levels=[1.0], colors="k", linewidths=2)
        ax.clabel(cs, fmt={1.0: "speedup 1"}, fontsize=8)
    ax.contour(X, Y, Z, levels=[0.5, 1.5, 2, 3], colors="0.4", linewidths=0.7, linestyles="--")
    ax.set_xscale("log", base=2)
    ax.set_yscale("log", base=2)
    ax.set_xticks([10, 25, 50, 100, 200, 400])
    ax.set_xticklabels(["10", "25", "50", "100", "200", "400"])
    ax.set_yticks(y_grid)
    ax.set_yticklabels([str(y) for y in y_grid])
    ax.set_xlabel("link rate per node (Gbit/s)")
    ax.set_ylabel(ylabel)
    cb = fig.colorbar(pc, ax=ax)
    ticks = [t for t in [-3, -2, -1, 0, 1, 2, 3] if abs(t) <= lim]
    cb.set_ticks(ticks)
    cb.set_ticklabels([f"{2.0 ** t:g}x" for t in ticks])
    cb.set_label(cblabel)
    ax.set_title(title, fontsize=9)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


def heatmap(rows, nodes, gbps_grid, thr_grid, title, path):
    speedup_map({(r["threads"], r["gbps"]): r["speedup"] for r in rows if r["nodes"] == nodes},
                gbps_grid, thr_grid, "threads per rank (one rank per node)",
                "best compressed zcoll mode / MPI (speedup)", title, path)


def write_sim_profile(node, dram, threads, mpi_single, path, rate=None, comment=None):
    """A ZCOLL_SIM_PROFILE holding the node model at the given thread counts.
    zcoll-simscale charges MPI's reduction with 'tput 1 reduce 1'. rate(kind, T)
    in GB/s: node.rate unless given (nodeaware.py: per-rank rates)."""
    rate = rate or node.rate
    comment = comment or (f"node model: per-thread rates of {os.path.basename(dram['data'])} "
                          f"(REL {dram['rel']}), {dram['values']} values; memory {node.mem} GB/s; crossover.py")
    with open(path, "w") as f:
        f.write(f"# {comment}\n")
        f.write(f"tput 1 reduce 1 {mpi_single:.6g}\n")
        for T in threads:
            for kind in KINDS:
                if T == 1 and kind == "reduce":
                    continue
                terms = sorted(int(k) for k in dram["gbps"]["1"][kind])
                for k in terms:
                    f.write(f"tput {T} {kind} {k} {rate(kind, T):.6g}\n")
        for k, r in sorted(node.ratio.items()):
            f.write(f"ratio {k} {r:.6g}\n")


def selftest(lib):
    """Checks that need no calibration: the ctypes layout against the cost
    model's closed forms, and the node model's ceiling. Exit status 1 on a
    failure (CTest simscale.crossover)."""
    cm = CostModel(lib)
    bad = []

    def near(what, got, want, tol=1e-9):
        if not abs(got - want) <= tol * max(1.0, abs(want)):
            bad.append(f"{what}: {got!r} != {want!r}")

    # the names this study and nodeaware.py use, resolved by the library
    for al in ("native", "ring", "rd", "recursive_doubling", "node_aware", "node_leader"):
        try:
            cm.algorithm(al)
        except ValueError as e:
            bad.append(str(e))
    near("rd is recursive_doubling", cm.algorithm("rd"), cm.algorithm("recursive_doubling"))
    N, count = 64, 1 << 24
    D = count * 4.0
    a, B, g, cc, cd, ch = 2e-6, 12.5e9, 10e9, 4e9, 5e9, 6e9
    rates = {"compress": cc / 1e9, "decompress": cd / 1e9, "hom_add": ch / 1e9}
    m = model_struct(B, rates, g / 1e9, N, a, 1.0, 0.0)
    f = (N - 1) / N
    # MPICH's Allreduce for long messages at a power of two: Rabenseifner
    near("mpi", cm.predict(m, "mpi", "native", N, count, 4.0),
         2 * math.log2(N) * a + 2 * f * D / B + f * D / g)
    # hom ring, growth 0, overlap 1: the two small allreduces (settings before,
    # status after) + latency + max(wire, codec)
    sync = 2 * (2 * math.ceil(math.log2(N)) * a)
    wire = 2 * f * D / 4.0 / B
    codec = D / cc + f * D / ch + D / cd
    near("hom ring", cm.predict(m, "hom", "ring", N, count, 4.0), sync + 2 * (N - 1) * a + max(wire, codec))
    # node model: T = 1 is the per-thread rate; the ceiling binds for many threads
    curve = {"1": 1.0, "8": 1.0}
    cal = {"ratio": {"1": 4.0, "8": 2.0}, "gbps": {t: {k: dict(curve) for k in KINDS} for t in ("1", "2")}}
    for k in KINDS:
        cal["gbps"]["2"][k] = {"1": 1.5, "8": 1.5}
    node = NodeModel(cal, cal, 100.0)
    near("T=1", node.rate("compress", 1), 1.0)
    near("T=2", node.rate("compress", 2), 1.5)
    near("ceiling", node.rate("compress", 4096), 100.0 / (1 + 1 / 4.0))
    near("reduce ceiling", node.rate("reduce", 4096), 100.0 / 3)
    prev = 0
    for T in range(1, 300):
        r = node.rate("decompress", T)
        if r < prev:
            bad.append(f"decompress rate falls at T={T}")
        prev = r
    near("growth", growth_bits({1: 4.0, 2: 32 / 9.0, 4: 3.2}), 1.0)
    for b in bad:
        print("FAIL", b)
    print("crossover selftest:", "FAILED" if bad else "ok")
    return 1 if bad else 0


def rates_table(groups):
    """Markdown: per kernel and working set, GB/s at 1 and 2 threads (median
    over terms of the best round; in parentheses the range over rounds)."""
    print("| kernel | " + " | ".join(f"{name}: 1 thread | {name}: 2 threads" for name, _ in groups) + " |")
    print("|---" * (2 * len(groups) + 1) + "|")
    for kind in KINDS:
        cells = []
        for _, paths in groups:
            runs = [load(p) for p in paths.split(",")]
            best = load(paths)
            for t in ("1", "2"):
                per_round = [median_over_terms(r["gbps"][t][kind]) for r in runs]
                cells.append(f"{median_over_terms(best['gbps'][t][kind]):.2f} "
                             f"({min(per_round):.2f}–{max(per_round):.2f})")
        print(f"| {kind} | " + " | ".join(cells) + " |")


def main():
    if len(sys.argv) == 3 and sys.argv[1] == "--selftest":
        sys.exit(selftest(sys.argv[2]))
    if len(sys.argv) > 2 and sys.argv[1] == "--rates-table":  # NAME=JSON,JSON ...
        rates_table([a.split("=", 1) for a in sys.argv[2:]])
        return
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--lib", required=True, help="libzcoll_mpi.so (zcoll_predict)")
    ap.add_argument("--calib-dram", required=True,
                    help="zcoll-calibrate JSON(s), working set > caches (comma list: best per entry)")
    ap.add_argument("--calib-cache", required=True, help="zcoll-calibrate JSON(s), working set in cache (comma list)")
    ap.add_argument("--mem-gbps", type=float, default=320.0, help="node memory bandwidth (STREAM triad)")
    ap.add_argument("--mpi-reduce", choices=["single", "node"], default="single")
    ap.add_argument("--nodes", default="64,512")
    ap.add_argument("--mib", type=float, default=64.0, help="Allreduce buffer per rank (MiB)")
    ap.add_argument("--latency", type=float, default=1e-6)
    ap.add_argument("--overlap", type=float, default=1.0)
    ap.add_argument("--gbps", default="10,12.5,16,20,25,32,40,50,64,80,100,125,160,200,250,320,400")
    ap.add_argument("--threads", default="1,2,3,4,6,8,12,16,24,32,48,64")
    ap.add_argument("--ratio-from", help="take the ratio curve from this calibration JSON (another "
                    "field); the codec rates stay those of --calib-dram")
    ap.add_argument("--per-thread", help="replace measured per-thread rates, e.g. copy=15,reduce=9.85 (GB/s)")
    ap.add_argument("--tag", default="", help="suffix of the output files")
    ap.add_argument("--out", required=True)
    ap.add_argument("--sim-profile", help="write OUT/profile-node.txt for these thread counts and exit")
    ap.add_argument("--check", help="rows.jsonl of zcoll-simscale runs: model vs simulator")
    args = ap.parse_args()

    dram, cache = load(args.calib_dram), load(args.calib_cache)
    ratio_cal = load(args.ratio_from) if args.ratio_from else None
    node = NodeModel(dram, cache, args.mem_gbps, ratio_cal, per_thread_overrides(args.per_thread))
    growth = growth_bits(node.ratio)
    os.makedirs(args.out, exist_ok=True)
    if args.sim_profile:
        p = os.path.join(args.out, f"profile-node{args.tag}.txt")
        write_sim_profile(node, dram, [int(t) for t in args.sim_profile.split(",")], node.rate("reduce", 1), p)
        print(p)
        return
    cm = CostModel(args.lib)
    count = int(args.mib * 1048576 / 4)
    if args.check:
        return check(cm, node, growth, args)
    gbps_grid = [float(g) for g in args.gbps.split(",")]
    thr_grid = [int(t) for t in args.threads.split(",")]
    nodes = [int(n) for n in args.nodes.split(",")]
    rows = [point(cm, node, g, T, N, count, args, growth) for N in nodes for T in thr_grid for g in gbps_grid]
    tag = args.tag
    meta = {"node_model": node.describe(), "growth_bits": growth, "latency_s": args.latency,
            "overlap": args.overlap, "mpi_reduce": args.mpi_reduce, "bytes": count * 4,
            "ratio_from": args.ratio_from, "calib_dram": args.calib_dram, "calib_cache": args.calib_cache,
            "lib": args.lib,
            "argv": sys.argv[1:]}
    with open(os.path.join(args.out, f"crossover{tag}.json"), "w") as f:
        # meta indented, one grid point per line
        f.write('{"meta": ' + json.dumps(meta, indent=1) + ',\n"rows": [\n')
        f.write(",\n".join(json.dumps(r, separators=(",", ":")) for r in rows) + "\n]}\n")
    lines = []
    for N in nodes:
        lines.append(f"\n{N} nodes, {args.mib:g} MiB, MPI reduction: {args.mpi_reduce}, memory {args.mem_gbps:g} GB/s,"
                     f" overlap {args.overlap:g}: speedup of the best compressed mode over MPI\n")
        show = [g for g in gbps_grid if g in (10, 25, 50, 100, 200, 400)]
        lines.append("| threads | " + " | ".join(f"{g:g} Gb/s" for g in show) + " | speedup 1 at |")
        lines.append("|---" * (len(show) + 2) + "|")
        for T in thr_grid:
            idx = {r["gbps"]: r for r in rows if r["nodes"] == N and r["threads"] == T}
            c = crossing(rows, T, N)
            cs = "never below (grid)" if c is None else ("never above" if c == 0 else f"{c:.0f} Gb/s")
            lines.append(f"| {T} | " + " | ".join(
                f"{idx[g]['speedup']:.2f} {short(idx[g]['best'])}" for g in show) + f" | {cs} |")
        heatmap(rows, N, gbps_grid, thr_grid,
                f"Allreduce {args.mib:g} MiB, {N} nodes: best compressed zcoll mode vs MPI\n"
                f"(cost model; node: measured per-thread rates, {args.mem_gbps:g} GB/s memory; "
                f"MPI reduction {args.mpi_reduce}-thread)".replace("single-thread", "1-thread")
                .replace("node-thread", "T-thread"),
                os.path.join(args.out, f"crossover-N{N}{tag}.png"))
    with open(os.path.join(args.out, f"crossover{tag}.md"), "w") as f:
        f.write("\n".join(lines) + "\n")
    print("\n".join(lines))


def check(cm, node, growth, args):
    """Model vs zcoll-simscale rows (nodes, threads, link rate in the label)."""
    rows = []
    with open(args.check) as f:
        for line in f:
            if line.strip():
                rows.append(json.loads(line))
    out = []
    for r in rows:
        if r["mode"] == "mpi" or r.get("failed"):
            continue
        # study.py labels rows of link rates other than 100 Gbit/s TOPO-Rgbps
        gbps = float(r["label"].split("gbps")[0].split("-")[-1]) if "gbps" in r["label"] else 100.0
        N, T = r["nodes"], r["threads"]
        count = r["bytes"] // 4
        p = point(cm, node, gbps, T, N, count, args, growth)
        key = f"{r['mode']}/{'ring' if r['algorithm'] == 'ring' else 'rd'}"
        model_s = p["times_s"].get(key)
        out.append({"gbps": gbps, "nodes": N, "threads": T, "mode": key, "sim_s": r["sim_seconds"],
                    "model_s": model_s, "sim_mpi_s": r["mpi_seconds"], "model_mpi_s": p["mpi_s"],
                    "sim_speedup": r["speedup_vs_mpi"], "model_speedup": p["mpi_s"] / model_s,
                    "pipeline_values": r.get("pipeline_values")})
    with open(os.path.join(args.out, f"check{args.tag}.json"), "w") as f:
        json.dump(out, f, indent=1)
    print("| link | nodes | threads | mode | MPI model / sim (ms) | zcoll model / sim (ms) | speedup model / sim |")
    print("|---|---|---|---|---|---|---|")
    for o in out:
        print(f"| {o['gbps']:g} Gb/s | {o['nodes']} | {o['threads']} | {o['mode']} | "
              f"{o['model_mpi_s'] * 1e3:.2f} / {o['sim_mpi_s'] * 1e3:.2f} | "
              f"{o['model_s'] * 1e3:.2f} / {o['sim_s'] * 1e3:.2f} | "
              f"{o['model_speedup']:.2f} / {o['sim_speedup']:.2f} |")


if __name__ == "__main__":
    main()
