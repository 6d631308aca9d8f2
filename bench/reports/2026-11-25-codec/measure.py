#!/usr/bin/env python3
"""measure.py — codec rates of two builds against memcpy, interleaved in one process.

Loads libzcoll.so of a BEFORE and an AFTER build directory side by side (ctypes,
RTLD_LOCAL: each library calls its own code) and times, for every *.f32 file of the
data directory, every REL bound and every thread count, one call at a time:

  compress_abs   zcoll_compress with the ABS bound that the REL bound resolves to
                 (what the collectives call)
  compress_rel   zcoll_compress with the REL bound (includes the range pass)
  range          zcoll_value_range alone (the pass REL adds)
  decompress     zcoll_decompress of the ABS stream
  decompress_acc zcoll_decompress_accumulate of the ABS stream
  hom_add        zcoll_hom_add of two inputs of the field (those of
                 `zcoll-codec-bench --hom`: 3-D, the halves along the slowest axis;
                 2-D, the field without its last / first row), rate over ONE input
  memcpy         memcpy of the input (of one hom input for hom_add), 1 thread

Every repeat runs memcpy, then each (operation, build) pair, in an order rotated by
one per repeat, so that a drift of a shared machine falls on all of them; the ratio
to memcpy is taken per repeat (the operation's time against the memcpy of the same
repeat) and reported as the median and range over the repeats. GB/s = 1e9 bytes of
uncompressed input per second. --clock cpu times the calling thread's CPU time
instead of the wall clock (1 thread only: a 2-thread team's other thread is not
counted): on a loaded machine it leaves out the time the thread was descheduled. Both builds' streams and decoded values are compared
byte for byte (the "identical" fields of the JSON). Builds nothing: each build
directory needs libzcoll.so (cmake --build DIR --target zcoll_shared).

  measure.py --before build-base --after build --data-dir data --json out.json
"""
import argparse
import ctypes
import glob
import json
import os
import platform
import re
import subprocess
import sys
import time

import numpy as np

F32 = 1
EB_ABS, EB_REL = 0, 1


class Params(ctypes.Structure):
    _fields_ = [("struct_size", ctypes.c_size_t), ("eb_mode", ctypes.c_int),
                ("error_bound", ctypes.c_double), ("chunk_size", ctypes.c_uint32),
                ("flags", ctypes.c_uint64)]


def params(mode, eb):
    return Params(ctypes.sizeof(Params), mode, eb, 0, 0)


class Lib:
    """One build's libzcoll.so and the buffers of its calls."""

    def __init__(self, build_dir):
        self.path = os.path.realpath(os.path.join(build_dir, "libzcoll.so"))
        self.so = ctypes.CDLL(self.path, mode=os.RTLD_LOCAL | os.RTLD_NOW)
        sz, vp, i = ctypes.c_size_t, ctypes.c_void_p, ctypes.c_int
        self.so.zcoll_compress_bound.restype = sz
        self.so.zcoll_compress_bound.argtypes = [sz, i]
        for name, args in {
                "zcoll_compress": [vp, i, vp, sz, vp, sz, vp, i],
                "zcoll_decompress": [vp, sz, vp, sz, i],
                "zcoll_decompress_accumulate": [vp, sz, vp, sz, i],
                "zcoll_hom_add": [vp, sz, vp, sz, vp, sz, vp, vp, i],
                "zcoll_value_range": [i, vp, sz, vp, vp, i],
                "zcoll_resolve_error_bound": [vp, i, vp, sz, vp, i]}.items():
            f = getattr(self.so, name)
            f.argtypes, f.restype = args, i
        self.source = source_commit(build_dir)

    def check(self, status, what):
        if status != 0:
            raise RuntimeError(f"{self.path}: {what} failed with status {status}")


def source_commit(build_dir):
    """The git commit (and dirty flag) of the source tree a CMake build directory was made from."""
    try:
        cache = open(os.path.join(build_dir, "CMakeCache.txt")).read()
        src = re.search(r"^CMAKE_HOME_DIRECTORY:INTERNAL=(.*)$", cache, re.M).group(1)
        commit = subprocess.run(["git", "-C", src, "rev-parse", "HEAD"], capture_output=True,
                                text=True).stdout.strip()
        dirty = subprocess.run(["git", "-C", src, "status", "--porcelain", "--untracked-files=no"],
                               capture_output=True, text=True).stdout.strip() != ""
        return {"source_dir": src, "commit": commit, "dirty": dirty}
    except (OSError, AttributeError):
        return {"source_dir": None, "commit": None, "dirty": None}


def ptr(a):
    return a.ctypes.data_as(ctypes.c_void_p)


def hom_inputs(x, name):
    """The two inputs zcoll-codec-bench --hom uses (bench/datasets.cc make_input_pair)."""
    dims = [int(d) for d in re.search(r"_(\d+(?:x\d+)*)\.f32$", name).group(1).split("x")]
    n = x.size
    if len(dims) >= 3 and dims[0] >= 2:
        half = dims[0] // 2 * (n // dims[0])
        return x[:half].copy(), x[half:2 * half].copy()
    if len(dims) == 2 and dims[0] >= 2:
        return x[:n - dims[1]].copy(), x[dims[1]:].copy()
    return x[:n // 2].copy(), x[n // 2:2 * (n // 2)].copy()


CLOCK = time.perf_counter_ns  # --clock cpu: time.thread_time_ns


class Case:
    """Buffers and calls of one (file, REL bound, threads) for one library."""

    def __init__(self, lib, x, a, b, rel, threads):
        self.lib, self.x, self.n, self.threads = lib, x, x.size, threads
        so = lib.so
        eb = ctypes.c_double()
        lib.check(so.zcoll_resolve_error_bound(ctypes.byref(params(EB_REL, rel)), F32, ptr(x),
                                               self.n, ctypes.byref(eb), threads), "resolve")
        self.eb = eb.value
        self.p_abs, self.p_rel = params(EB_ABS, self.eb), params(EB_REL, rel)
        self.cap = so.zcoll_compress_bound(self.n, F32)
        self.s_abs = np.zeros(self.cap, np.uint8)
        self.s_rel = np.zeros(self.cap, np.uint8)
        self.out = np.zeros(self.n, np.float32)
        self.acc = np.zeros(self.n, np.float32)
        self.size_abs, self.size_rel = ctypes.c_size_t(), ctypes.c_size_t()
        self.a, self.b = a, b
        capa = so.zcoll_compress_bound(a.size, F32)
        self.sa, self.sb, self.sh = (np.zeros(capa, np.uint8) for _ in range(3))
        self.na, self.nb, self.nh = ctypes.c_size_t(), ctypes.c_size_t(), ctypes.c_size_t()
        for arr, buf, size in ((a, self.sa, self.na), (b, self.sb, self.nb)):
            lib.check(so.zcoll_compress(ctypes.byref(self.p_abs), F32, ptr(arr), arr.size,
                                        ptr(buf), capa, ctypes.byref(size), threads), "compress")
        self.lo, self.hi = ctypes.c_double(), ctypes.c_double()
        self.ops = {
            "compress_abs": lambda: so.zcoll_compress(
                ctypes.byref(self.p_abs), F32, ptr(self.x), self.n, ptr(self.s_abs), self.cap,
                ctypes.byref(self.size_abs), threads),
            "compress_rel": lambda: so.zcoll_compress(
                ctypes.byref(self.p_rel), F32, ptr(self.x), self.n, ptr(self.s_rel), self.cap,
                ctypes.byref(self.size_rel), threads),
            "range": lambda: so.zcoll_value_range(F32, ptr(self.x), self.n, ctypes.byref(self.lo),
                                                  ctypes.byref(self.hi), threads),
            "decompress": lambda: so.zcoll_decompress(ptr(self.s_abs), self.size_abs.value,
                                                      ptr(self.out), self.n, threads),
            "decompress_acc": lambda: so.zcoll_decompress_accumulate(
                ptr(self.s_abs), self.size_abs.value, ptr(self.acc), self.n, threads),
            "hom_add": lambda: so.zcoll_hom_add(
                ptr(self.sa), self.na.value, ptr(self.sb), self.nb.value, ptr(self.sh), capa,
                ctypes.byref(self.nh), None, threads),
        }
        self.run("compress_abs")  # the stream the decoders read
        self.run("decompress")

    def run(self, op):
        t0 = CLOCK()
        status = self.ops[op]()
        t1 = CLOCK()
        self.lib.check(status, op)
        return (t1 - t0) * 1e-9

    def stream(self, which):
        buf, size = {"abs": (self.s_abs, self.size_abs), "rel": (self.s_rel, self.size_rel),
                     "hom": (self.sh, self.nh)}[which]
        return buf[:size.value].tobytes()


def loadavg():
    try:
        return open("/proc/loadavg").read().split()[:3]
    except OSError:
        return None


def stats(v):
    v = sorted(v)
    m = len(v) // 2
    med = v[m] if len(v) % 2 else 0.5 * (v[m - 1] + v[m])
    return {"median": med, "min": v[0], "max": v[-1]}


def measure_case(libs, x, a, b, rel, threads, repeat, warmup, ops):
    cases = {k: Case(lib, x, a, b, rel, threads) for k, lib in libs.items()}
    bytes_of = {op: (a.nbytes if op == "hom_add" else x.nbytes) for op in ops}
    dst = np.empty_like(x)
    pairs = [(op, k) for op in ops for k in libs]
    samples = {p: [] for p in pairs}
    mc_full, mc_half = [], []
    for r in range(warmup + repeat):
        t0 = CLOCK()
        ctypes.memmove(ptr(dst), ptr(x), x.nbytes)
        t1 = CLOCK()
        ctypes.memmove(ptr(dst), ptr(a), a.nbytes)
        t2 = CLOCK()
        rot = r % len(pairs)
        times = {p: cases[p[1]].run(p[0]) for p in pairs[rot:] + pairs[:rot]}
        if r < warmup:
            continue
        mc_full.append((t1 - t0) * 1e-9)
        mc_half.append((t2 - t1) * 1e-9)
        for p, t in times.items():
            samples[p].append(t)
    rows = []
    for op in ops:
        mc = mc_half if op == "hom_add" else mc_full
        row = {"op": op, "bytes": bytes_of[op], "memcpy_s": mc}
        row["memcpy_gbps"] = {"median": bytes_of[op] / stats(mc)["median"] / 1e9,
                              "min": bytes_of[op] / stats(mc)["max"] / 1e9,
                              "max": bytes_of[op] / stats(mc)["min"] / 1e9}
        for k in libs:
            s = samples[(op, k)]
            st = stats(s)
            ratio = [m / t for m, t in zip(mc, s)]  # rate / memcpy rate, same repeat
            row[k] = {"samples_s": s,
                      "gbps": {"median": bytes_of[op] / st["median"] / 1e9,
                               "min": bytes_of[op] / st["max"] / 1e9,
                               "max": bytes_of[op] / st["min"] / 1e9},
                      "over_memcpy": stats(ratio)}
        rows.append(row)
    # the two builds must agree byte for byte
    k0, k1 = list(libs)
    ident = {w: cases[k0].stream(w) == cases[k1].stream(w) for w in ("abs", "rel", "hom")}
    ident["decoded"] = bool(np.array_equal(cases[k0].out.view(np.uint32),
                                           cases[k1].out.view(np.uint32)))
    c = cases[k1]
    info = {"abs_eb": c.eb, "ratio": x.nbytes / c.size_abs.value,
            "hom_ratio": a.nbytes / c.nh.value if c.nh.value else None,  # --ops without hom_add
            "identical": ident}
    return rows, info


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--before", required=True, help="build directory of the base commit")
    ap.add_argument("--after", required=True, help="build directory of the new commit")
    ap.add_argument("--data-dir", default="data")
    ap.add_argument("--rel", default="1e-2,1e-3,1e-4")
    ap.add_argument("--threads", default="1,2")
    ap.add_argument("--repeat", type=int, default=15)
    ap.add_argument("--warmup", type=int, default=2)
    ap.add_argument("--ops", default="compress_abs,compress_rel,range,decompress,decompress_acc,"
                    "hom_add")
    ap.add_argument("--clock", choices=["wall", "cpu"], default="wall",
                    help="wall clock, or the calling thread's CPU time (1 thread only)")
    ap.add_argument("--json", required=True)
    a = ap.parse_args()
    if a.repeat < 9:
        sys.exit("--repeat must be at least 9")
    if a.clock == "cpu":
        if a.threads != "1":
            sys.exit("--clock cpu measures 1 thread only (--threads 1)")
        global CLOCK
        CLOCK = time.thread_time_ns
    libs = {"before": Lib(a.before), "after": Lib(a.after)}
    files = sorted(glob.glob(os.path.join(a.data_dir, "*.f32")))
    if not files:
        sys.exit(f"no *.f32 in {a.data_dir}")
    out = {"tool": "bench/reports/2026-11-25-codec/measure.py", "argv": sys.argv,
           "date_utc": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
           "machine": {"cpu": platform.processor() or cpu_model(), "cpus": os.cpu_count(),
                       "kernel": platform.release(), "loadavg_start": loadavg()},
           "builds": {k: {"lib": v.path, **v.source} for k, v in libs.items()},
           "settings": vars(a), "cases": []}
    ops = a.ops.split(",")
    t_start = time.time()
    for f in files:
        x = np.fromfile(f, dtype=np.float32)
        a_in, b_in = hom_inputs(x, os.path.basename(f))
        for rel in [float(r) for r in a.rel.split(",")]:
            for th in [int(t) for t in a.threads.split(",")]:
                load0 = loadavg()
                rows, info = measure_case(libs, x, a_in, b_in, rel, th, a.repeat, a.warmup, ops)
                case = {"file": os.path.basename(f), "n": int(x.size), "rel": rel, "threads": th,
                        "loadavg_before": load0, "loadavg_after": loadavg(), **info, "rows": rows}
                out["cases"].append(case)
                med = {r["op"]: r["after"]["over_memcpy"]["median"] for r in rows}
                print(f"{os.path.basename(f)[:28]:28s} rel={rel:g} thr={th} load={load0[0]} "
                      + " ".join(f"{op}={v:.2f}" for op, v in med.items())
                      + ("" if all(info["identical"].values()) else "  NOT IDENTICAL"),
                      flush=True)
    out["machine"]["loadavg_end"] = loadavg()
    out["seconds"] = time.time() - t_start
    with open(a.json, "w") as fh:
        json.dump(out, fh, indent=1)
    bad = [c for c in out["cases"] if not all(c["identical"].values())]
    print(f"wrote {a.json} ({out['seconds']:.0f} s); "
          + ("streams and values identical in every case" if not bad
             else f"{len(bad)} cases DIFFER between the builds"))
    return 1 if bad else 0


def cpu_model():
    try:
        for line in open("/proc/cpuinfo"):
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return "unknown"


if __name__ == "__main__":
    sys.exit(main())
