#!/usr/bin/env python3
"""codec_frontier.py — zcoll's fast and dense codecs against SZ3 and ZFP (issue 34).

On every file of a data directory (shared/data: its manifest.json gives the
shapes) at REL bounds (the absolute bound eb = rel * (max - min) over the
finite values, the same absolute bound for every compressor), on one core:
compression ratio, compress and decompress GB/s (of the uncompressed bytes),
max |x - x'| / eb and PSNR, for

  zcoll-fast   zcoll.compress(a, abs=eb, threads=1)                 (1-D)
  zcoll-dense  zcoll.compress(a, abs=eb, threads=1, codec="dense")  (1-D)
  zcoll-dense-64k  the same with chunk_size=65536 (fewer frequency tables and
               rANS states per value; the chunk size is the user's choice)
  zcoll-dense-nd  zcoll.compress(a, abs=eb, threads=1, codec="dense",
               dims=a.shape) of the shaped array (also a 1-D file's shape:
               given dims, the codec may interpolate; per chunk 2-D/3-D Lorenzo or
               interpolation of values, and the codec's chunk size for dims,
               262144 values)
  sz3-1d       pysz defaults (ALGO_INTERP_LORENZO), ABS eb, the flattened array
  sz3-nd       the same with the array's shape
  zfp-nd       zfpy fixed accuracy (tolerance = eb) with the array's shape
  zcoll-fast-alloc, zcoll-dense-alloc  zcoll-fast and zcoll-dense taking their
               results as new objects (a bytes object, an array) as the peers'
               calls do

The zcoll rows above the -alloc ones write into buffers they reuse from call to
call (compress(..., out=), decompress(..., out=)), as a collective does: a new
large object per call adds the first touch of its fresh pages (a page fault
per 4 KiB), which on a 37 MB field is a fifth of a dense decode's time.

and memcpy (numpy.copyto of the same array) as the machine's reference. Speeds
are taken twice: on the wall clock and on the thread's CPU time (which a shared,
oversubscribed machine distorts less: a preempted call's wall time grows, its
CPU time does not; caches and memory bandwidth are still shared). Every
repeat runs every method once, in turn (interleaved), so that a slow spell of
a shared machine hits all of them; the JSON keeps every sample, the table
their median and range.

The fast codec's goals (issue 34, item 2: decompress >= 0.7x memcpy, hom add
>= 1.0x memcpy per byte of one input, 2 threads >= 1.8x one thread), on the
same files and bounds, a row `zcoll-fast-goals` per field and bound (not with
--no-fast-goals). Each repeat times, in an order rotated per repeat, a memcpy
of the field, compress (into a reused buffer), decompress (into a reused
array) and hom add (zcoll.hom_add of the field's stream and the stream of the
field shifted by one step along its first axis, both at the same absolute
bound, into a reused buffer: a new bytes object per call would time the
first touch of its fresh pages, up to twice the addition on a 37 MB field)
with 1 and with 2 threads, one call each (the other operations' buffers push
the field out of the caches between two memcpys only where it is larger than
the caches: on a 32 MiB L3, ETOPO5 alone; the other fields' rows are warm, and
they pay Python's per-call cost. The goals' measurement at the memory limit is
bench/fast_goals.py, on zcoll-codec-bench --cold); the ratios are taken per repeat (decompress / memcpy, hom
add / memcpy, 2 threads / 1 thread of each operation), the table gives their
median and range. Wall clock only (the CPU time of one thread does not count
a team's). GB/s of one input's uncompressed bytes throughout. Two threads need
two idle cores: where other work holds one, every 2-thread call waits for a
scheduler slice (the JSON keeps the load average at the start and the end);
OMP_WAIT_POLICY is left as the caller sets it (passive: the team's idle worker
sleeps instead of spinning beside the 1-thread calls that follow, at the
price of a wake-up per parallel region).
--fast-goals-only runs these rows alone (no peers needed).

The peers come from PyPI into the bench's own venv, never into zcoll's
dependencies:

  python3 bench/codec_frontier.py --setup      # creates /opt/zcoll-bench-venv
  /opt/zcoll-bench-venv/bin/python bench/codec_frontier.py \
      --zcoll-path DIR --data ../shared/data --repeats 7 --out FILE.json

DIR holds the zcoll package with its built _codec module (e.g. a copy of
python/zcoll with build-py/python/_codec*.so, or a pip-installed zcoll: then
omit --zcoll-path).
"""
import argparse
import json
import math
import os
import platform
import statistics
import subprocess
import sys
import time

VENV = "/opt/zcoll-bench-venv"
PEERS = ["numpy", "pysz==1.1.0", "zfpy==1.0.1.post0"]


def setup():
    if not os.path.exists(os.path.join(VENV, "bin", "python")):
        subprocess.check_call([sys.executable, "-m", "venv", VENV])
    subprocess.check_call([os.path.join(VENV, "bin", "pip"), "install", "-q"] + PEERS)
    print(f"{VENV}: " + ", ".join(PEERS))


def load(data_dir):
    import numpy as np

    man = json.load(open(os.path.join(data_dir, "manifest.json")))
    for f in man["files"]:
        a = np.fromfile(os.path.join(data_dir, f["file"]), dtype=f["dtype"])
        yield f["file"], a.reshape(f["shape"])


def methods(zcoll, np):
    """name -> (compress(a, eb) -> blob, decompress(blob, a) -> array, nbytes(blob))."""
    import zfpy
    from pysz import sz, szConfig, szErrorBoundMode

    def sz3(shape_of):
        def comp(a, eb):
            c = szConfig()
            c.errorBoundMode = szErrorBoundMode.ABS
            c.absErrorBound = eb
            return sz.compress(a.reshape(shape_of(a)), c)[0]

        def decomp(blob, a):
            return sz.decompress(blob, a.dtype, shape_of(a))[0]

        return comp, decomp, lambda b: b.nbytes

    def zc(codec, chunk_size=0, shaped=False):
        # into buffers reused from call to call (the method's own: its last stream
        # and values stay readable): a new bytes object or array per call would
        # time the first touch of fresh pages too (its own table row, -alloc)
        bufs = {}

        def comp(a, eb):
            bound = zcoll.compress_bound(a.size, a.dtype)
            if len(bufs.get("stream", b"")) < bound:  # (the files differ in size)
                bufs["stream"] = bytearray(bound)
            # the shape, also a 1-D one (which compress's default leaves out)
            dims = a.shape if shaped else ()
            return zcoll.compress(a, abs=eb, threads=1, codec=codec, chunk_size=chunk_size,
                                  dims=dims, out=bufs["stream"])

        def decomp(blob, a):
            if bufs.get("values") is None or bufs["values"].shape != a.shape:
                bufs["values"] = np.empty_like(a)
            return zcoll.decompress(blob, out=bufs["values"], threads=1)

        return comp, decomp, len

    def zc_alloc(codec):
        # as a caller who takes the results as new objects does
        return (lambda a, eb: zcoll.compress(a.ravel(), abs=eb, threads=1, codec=codec),
                lambda blob, a: zcoll.decompress(blob, threads=1), len)

    return {
        "zcoll-fast": zc("fast"),
        "zcoll-dense": zc("dense"),
        "zcoll-dense-64k": zc("dense", 65536),
        "zcoll-dense-nd": zc("dense", shaped=True),
        "zcoll-fast-alloc": zc_alloc("fast"),
        "zcoll-dense-alloc": zc_alloc("dense"),
        "sz3-1d": sz3(lambda a: (a.size,)),
        "sz3-nd": sz3(lambda a: a.shape),
        "zfp-nd": (lambda a, eb: zfpy.compress_numpy(a, tolerance=eb),
                   lambda blob, a: zfpy.decompress_numpy(blob), len),
    }


def quality(np, a, b, eb):
    x = a.astype(np.float64).ravel()
    y = np.asarray(b, dtype=np.float64).ravel()
    fin = np.isfinite(x)
    err = np.abs(x[fin] - y[fin])
    rng = float(x[fin].max() - x[fin].min())
    rmse = float(np.sqrt(np.mean(err * err)))
    psnr = float("inf") if rmse == 0 else 20 * math.log10(rng / rmse)
    return float(err.max()) / eb, psnr


def stats(v):
    return {"median": statistics.median(v), "min": min(v), "max": max(v), "samples": v}


def rounded(x, digits=6):
    """x with every float to `digits` significant digits (what the JSON keeps: the
    timings are not more precise, and the archive of a run is a third the size)."""
    if isinstance(x, float):
        return float(f"{x:.{digits}g}")
    if isinstance(x, dict):
        return {k: rounded(v, digits) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [rounded(v, digits) for v in x]
    return x


def run_field(name, a, rel, ms, repeats, np):
    fin = a[np.isfinite(a)].astype(np.float64)
    eb = rel * float(fin.max() - fin.min())
    gb = a.nbytes / 1e9
    t = {m: ([], []) for m in ms}  # wall-clock GB/s: compress, decompress
    cpu = {m: ([], []) for m in ms}  # the same on the thread's CPU time
    t["memcpy"] = ([], [])
    dst = np.empty_like(a)
    last = {}
    for _ in range(repeats):
        t0 = time.perf_counter()
        np.copyto(dst, a)
        t["memcpy"][0].append(gb / (time.perf_counter() - t0))
        for m, (comp, decomp, _) in ms.items():
            c0, t0 = time.thread_time(), time.perf_counter()
            blob = comp(a, eb)
            c1, t1 = time.thread_time(), time.perf_counter()
            out = decomp(blob, a)
            c2, t2 = time.thread_time(), time.perf_counter()
            t[m][0].append(gb / (t1 - t0))
            t[m][1].append(gb / (t2 - t1))
            cpu[m][0].append(gb / max(c1 - c0, 1e-9))
            cpu[m][1].append(gb / max(c2 - c1, 1e-9))
            last[m] = (blob, out)
    rows = []
    for m, (_comp, _decomp, nbytes) in ms.items():
        blob, out = last[m]
        err_eb, psnr = quality(np, a, out, eb)
        rows.append({"file": name, "rel": rel, "abs_eb": eb, "method": m,
                     "ratio": a.nbytes / nbytes(blob), "err_over_eb": err_eb, "psnr": psnr,
                     "compress_gbps": stats(t[m][0]), "decompress_gbps": stats(t[m][1]),
                     "compress_gbps_cpu": stats(cpu[m][0]),
                     "decompress_gbps_cpu": stats(cpu[m][1])})
    rows.append({"file": name, "rel": rel, "method": "memcpy",
                 "copy_gbps": stats(t["memcpy"][0])})
    return rows


# ---- the fast codec's goals (issue 34, item 2) --------------------------------

FAST_GOALS = {"decompress_over_memcpy": 0.7, "hom_add_over_memcpy": 1.0,
              "compress_2t_over_1t": 1.8, "decompress_2t_over_1t": 1.8,
              "hom_add_2t_over_1t": 1.8}


def run_fast_goals(name, a, rel, repeats, np, zcoll):
    """The fast codec's rates against memcpy and 2 threads against 1 (see the
    module's docstring); one row."""
    fin = a[np.isfinite(a)].astype(np.float64)
    eb = rel * float(fin.max() - fin.min())
    gb = a.nbytes / 1e9
    flat = a.ravel()
    other = np.ascontiguousarray(np.roll(a, 1, axis=0)).ravel()
    sa = zcoll.compress(flat, abs=eb, threads=1)
    sb = zcoll.compress(other, abs=eb, threads=1)
    cbuf = bytearray(zcoll.compress_bound(flat.size, flat.dtype))
    hbuf = bytearray(len(cbuf))
    dst = np.empty_like(flat)
    copy_dst = np.empty_like(a)
    ops = {"memcpy": lambda: np.copyto(copy_dst, a)}
    for t in (1, 2):
        ops[f"compress_{t}t"] = lambda t=t: zcoll.compress(flat, abs=eb, threads=t, out=cbuf)
        ops[f"decompress_{t}t"] = lambda t=t: zcoll.decompress(sa, out=dst, threads=t)
        ops[f"hom_add_{t}t"] = lambda t=t: zcoll.hom_add(sa, sb, threads=t, out=hbuf)
    names = list(ops)
    for k in names:  # warm-up: first touch of the buffers, the OpenMP team
        ops[k]()
    rates = {k: [] for k in names}
    for r in range(repeats):
        for k in names[r % len(names):] + names[:r % len(names)]:
            t0 = time.perf_counter()
            ops[k]()
            rates[k].append(gb / (time.perf_counter() - t0))
    # the results are right: the stream decodes within the bound, the sum within 2 eb
    err_eb, _ = quality(np, a, zcoll.decompress(sa, threads=2), eb)
    s = np.asarray(zcoll.decompress(zcoll.hom_add(sa, sb, threads=2)), dtype=np.float64)
    exact = flat.astype(np.float64) + other.astype(np.float64)
    ok = np.isfinite(exact)
    hom_err_eb = float(np.abs(s[ok] - exact[ok]).max()) / eb if ok.any() else 0.0

    def per_repeat(num, den):
        return stats([x / y for x, y in zip(rates[num], rates[den])])

    pairs = {"decompress_over_memcpy": ("decompress_1t", "memcpy"),
             "hom_add_over_memcpy": ("hom_add_1t", "memcpy")}
    for op in ("compress", "decompress", "hom_add"):
        pairs[f"{op}_2t_over_1t"] = (f"{op}_2t", f"{op}_1t")
    goals = {k: per_repeat(*v) for k, v in pairs.items()}
    # the same from each operation's fastest sample: what a quiet machine would
    # give where the load preempted some calls (a busy machine's samples are
    # bimodal: a preempted call waits a scheduler slice)
    best = {k: max(rates[a]) / max(rates[b]) for k, (a, b) in pairs.items()}
    return {"file": name, "rel": rel, "abs_eb": eb, "method": "zcoll-fast-goals",
            "ratio_a": a.nbytes / len(sa), "ratio_b": a.nbytes / len(sb),
            "err_over_eb": err_eb, "hom_add_err_over_eb": hom_err_eb,
            "gbps": {k: stats(v) for k, v in rates.items()}, "goals": goals,
            "goals_of_best_samples": best,
            "met": {k: goals[k]["median"] >= v for k, v in FAST_GOALS.items()}}


def fast_goals_summary(rows):
    """Per goal: rows whose median meets it, and the worst and median medians."""
    g = [x for x in rows if x.get("method") == "zcoll-fast-goals"]
    out = {}
    for k, v in FAST_GOALS.items():
        med = sorted(x["goals"][k]["median"] for x in g)
        if med:
            best = sorted(x["goals_of_best_samples"][k] for x in g)
            out[k] = {"goal": v, "met": sum(m >= v for m in med), "rows": len(med),
                      "worst": med[0], "median": statistics.median(med),
                      "best_samples_met": sum(b >= v for b in best),
                      "best_samples_worst": best[0]}
    return out


def fast_goals_table(rows):
    """The goals' table: each ratio's median [min, max] over the repeats."""
    g = [x for x in rows if x.get("method") == "zcoll-fast-goals"]
    if not g:
        return ""
    cols = list(FAST_GOALS)
    lines = ["| file | REL | memcpy GB/s | decompress / memcpy (>= 0.7) | "
             "hom add / memcpy (>= 1.0) | compress 2t / 1t (>= 1.8) | "
             "decompress 2t / 1t (>= 1.8) | hom add 2t / 1t (>= 1.8) |",
             "|---|---|---|---|---|---|---|---|"]
    f = "{:.2f} [{:.2f}, {:.2f}]"
    for x in g:
        m = x["gbps"]["memcpy"]
        cells = [f.format(m["median"], m["min"], m["max"])]
        for k in cols:
            v = x["goals"][k]
            cells.append(f.format(v["median"], v["min"], v["max"])
                         + ("" if x["met"][k] else " ✗"))
        lines.append(f"| {x['file']} | {x['rel']:g} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def geomean(v):
    return math.exp(sum(math.log(x) for x in v) / len(v))


def summary(rows, rels):
    """Per bound: geometric-mean ratios and the dense codec's against SZ3's."""
    out = {}
    for rel in rels:
        r = [x for x in rows if x["rel"] == rel and "ratio" in x]
        by = {}
        for x in r:
            by.setdefault(x["method"], []).append(x)
        g = {m: geomean([x["ratio"] for x in v]) for m, v in by.items()}
        dense = by.get("zcoll-dense", [])
        pairs = {"dense_over_sz3_1d": ("zcoll-dense", "sz3-1d"),
                 "dense_over_sz3_nd": ("zcoll-dense", "sz3-nd"),
                 "dense64k_over_sz3_1d": ("zcoll-dense-64k", "sz3-1d"),
                 "dense_nd_over_sz3_nd": ("zcoll-dense-nd", "sz3-nd")}
        out[str(rel)] = {"geomean_ratio": g}
        out[str(rel)].update({k: g[a] / g[b] for k, (a, b) in pairs.items() if a in g and b in g})
        if not dense:
            continue
        out[str(rel)].update({
            "dense_min_compress_gbps": min(x["compress_gbps"]["median"] for x in dense),
            "dense_min_decompress_gbps": min(x["decompress_gbps"]["median"] for x in dense),
            "dense_min_compress_gbps_cpu": min(x["compress_gbps_cpu"]["median"] for x in dense),
            "dense_min_decompress_gbps_cpu": min(x["decompress_gbps_cpu"]["median"]
                                                 for x in dense),
            "all_zcoll_within_bound": all(x["err_over_eb"] <= 1 for x in r
                                          if x["method"].startswith("zcoll")),
        })
    return out


def table(rows):
    lines = ["| file | REL | method | ratio | compress GB/s (median [min, max]) | "
             "decompress GB/s | compress / decompress GB/s of CPU time (median) | err/eb | "
             "PSNR dB |", "|---|---|---|---:|---|---|---|---:|---:|"]
    f = "{:.2f} [{:.2f}, {:.2f}]"
    for x in rows:
        if x["method"] == "zcoll-fast-goals":
            continue  # fast_goals_table
        if "ratio" not in x:
            c = x["copy_gbps"]
            lines.append(f"| {x['file']} | {x['rel']:g} | memcpy | | "
                         + f.format(c["median"], c["min"], c["max"]) + " | | | | |")
            continue
        c, d = x["compress_gbps"], x["decompress_gbps"]
        lines.append(f"| {x['file']} | {x['rel']:g} | {x['method']} | {x['ratio']:.2f} | "
                     + f.format(c["median"], c["min"], c["max"]) + " | "
                     + f.format(d["median"], d["min"], d["max"])
                     + f" | {x['compress_gbps_cpu']['median']:.2f} / "
                     + f"{x['decompress_gbps_cpu']['median']:.2f}"
                     + f" | {x['err_over_eb']:.3f} | {x['psnr']:.1f} |")
    return "\n".join(lines)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--setup", action="store_true", help=f"create {VENV} with the peers")
    ap.add_argument("--zcoll-path", help="directory holding the zcoll package")
    ap.add_argument("--data", default=os.path.join(os.path.dirname(__file__), "..", "..",
                                                    "shared", "data"))
    ap.add_argument("--rel", type=float, nargs="+", default=[1e-2, 1e-3, 1e-4])
    ap.add_argument("--repeats", type=int, default=7)
    ap.add_argument("--files", nargs="*", help="only these files (names from the manifest)")
    ap.add_argument("--methods", nargs="*", help="only these methods (default: all)")
    ap.add_argument("--out", help="JSON results file")
    ap.add_argument("--table", help="markdown table file")
    ap.add_argument("--no-fast-goals", action="store_true",
                    help="leave out the fast codec's goals (memcpy ratios, 2 threads)")
    ap.add_argument("--fast-goals-only", action="store_true",
                    help="only the fast codec's goals (no other method, no peers)")
    args = ap.parse_args()
    if args.setup:
        setup()
        return
    if args.zcoll_path:
        sys.path.insert(0, args.zcoll_path)
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    import numpy as np

    import zcoll

    ms = {} if args.fast_goals_only else methods(zcoll, np)
    if args.methods:
        ms = {m: f for m, f in ms.items() if m in args.methods}
    rows = []
    load_start = os.getloadavg()
    for name, a in load(args.data):
        if args.files and name not in args.files:
            continue
        for rel in args.rel:
            if ms:
                rows += run_field(name, a, rel, ms, args.repeats, np)
            if not args.no_fast_goals:
                rows.append(run_fast_goals(name, a, rel, args.repeats, np, zcoll))
            print(f"{name} REL {rel:g} done", file=sys.stderr, flush=True)
    commit = subprocess.run(["git", "rev-parse", "HEAD"], capture_output=True, text=True,
                            cwd=os.path.dirname(os.path.abspath(__file__))).stdout.strip()
    result = {"commit": commit, "host": platform.node(), "cpu": platform.processor(),
              "cores": os.cpu_count(), "loadavg_start": load_start, "loadavg_end": os.getloadavg(),
              "python": platform.python_version(), "repeats": args.repeats,
              "peers": PEERS, "data": os.path.abspath(args.data), "argv": sys.argv,
              "rows": rows, "summary": summary(rows, args.rel) if ms else {},
              "fast_goals": fast_goals_summary(rows)}
    if args.out:
        with open(args.out, "w") as f:
            json.dump(rounded(result), f, indent=1)
    md = table(rows) if ms else ""
    goals_md = fast_goals_table(rows)
    if goals_md:
        md += ("\n\n" if md else "") + ("The fast codec's goals (issue 34, item 2; ✗: the "
                                         "median misses it):\n\n" + goals_md)
    if args.table:
        with open(args.table, "w") as f:
            f.write(md + "\n")
    print(md)
    print(json.dumps(result["summary"], indent=1))
    print(json.dumps(result["fast_goals"], indent=1))


if __name__ == "__main__":
    main()
