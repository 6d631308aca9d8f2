#!/usr/bin/env python3
"""Nonblocking compressed Allreduce of 16-bit data, overlapped with work.

Every rank holds its own slice of a real field from data/ as float16 and as
bfloat16 (numpy has no bfloat16: the arrays hold its bits, dtype="bfloat16").
Each rank starts ``iallreduce`` on both, does unrelated work while the library
runs the calls (on the handle's progress thread when MPI gives
MPI_THREAD_MULTIPLE), then waits and checks every value against the exact sum,
computed in float64 from the same 16-bit inputs, and the bound the call reports.

    mpiexec -n 3 python python/examples/overlap_halfprecision.py [--rel 1e-3]
"""

import argparse
import pathlib
import time

import numpy as np
from mpi4py import MPI

import zcoll

ROOT = pathlib.Path(__file__).resolve().parents[2]


def to_bfloat16_bits(x):
    """float32 -> bfloat16 bits, rounded to nearest even (NaN kept quiet)."""
    u = np.ascontiguousarray(x, dtype=np.float32).view(np.uint32)
    rounded = (u + 0x7FFF + ((u >> 16) & 1)) >> 16
    return np.where(np.isnan(x), (u >> 16) | 0x40, rounded).astype(np.uint16)


def from_bfloat16_bits(b):
    return (b.astype(np.uint32) << 16).view(np.float32)


def ratio16(rep):
    """The report counts the bytes of the float32 call the 16-bit call runs as
    (docs/algorithms.md): the 16-bit data sent raw is half of them."""
    if not rep["bytes_sent"]:
        return "(nothing sent)"
    return f"{rep['bytes_uncompressed'] / 2 / rep['bytes_sent']:.2f}x fewer bytes than raw 16-bit,"


def busy_work(seconds):
    """Stand-in for the application's computation (a stencil, a backward pass)."""
    a = np.random.default_rng(0).random(1 << 16)
    end = time.perf_counter() + seconds
    while time.perf_counter() < end:
        a = np.sqrt(a * a + 1.0)
    return float(a[0])


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--field", default=str(ROOT / "data/ferret_fnoc-uwnd_132x73x144.f32"))
    ap.add_argument("--rel", type=float, default=1e-3)
    ap.add_argument("--work", type=float, default=0.05, help="seconds of work while the calls run")
    args = ap.parse_args(argv)

    world = MPI.COMM_WORLD
    rank, size = world.Get_rank(), world.Get_size()
    field = np.fromfile(args.field, dtype="<f4")
    n = len(field) // 2  # each rank: its own window of half the field
    start = rank * (len(field) - n) // max(1, size - 1) if size > 1 else 0
    x32 = field[start:start + n]
    f16 = x32.astype(np.float16)
    bf16 = to_bfloat16_bits(x32)

    with zcoll.Comm(world, mode="hom", eb_mode="rel", error_bound=args.rel) as comm:
        t0 = time.perf_counter()
        req_f16 = comm.iallreduce(f16)                  # returns at once
        req_bf16 = comm.iallreduce(bf16, dtype="bfloat16")
        work = busy_work(args.work)                     # overlapped with both calls
        sum_f16 = req_f16.wait()
        rep_f16 = req_f16.report()
        sum_bf16 = req_bf16.wait()
        rep_bf16 = req_bf16.report()
        elapsed = time.perf_counter() - t0
        progress = comm.progress_thread

    ok = True
    for name, inp, out, rep, widen in (
            ("float16", f16, sum_f16, rep_f16, lambda a: a.astype(np.float64)),
            ("bfloat16", bf16, sum_bf16, rep_bf16, lambda a: from_bfloat16_bits(a).astype(np.float64))):
        exact = world.allreduce(widen(inp), op=MPI.SUM)  # float64, from the 16-bit inputs
        err = float(np.max(np.abs(widen(out) - exact)))
        bound = rep["error_bound"]
        ok &= err <= bound
        if rank == 0:
            print(f"{name}: {n} values x {size} ranks, mode {rep['mode']} ({rep['algorithm']}), "
                  f"sent {rep['bytes_sent']} B, {ratio16(rep)} "
                  f"max error {err:.4g} <= reported bound {bound:.4g}: {'ok' if err <= bound else 'FAILED'}")
    ok = world.allreduce(ok, op=MPI.LAND)
    if rank == 0:
        print(f"both calls and {args.work:g} s of work in {elapsed:.3f} s "
              f"(progress thread: {progress}; work result {work:.3f}) -> {'ok' if ok else 'FAILED'}")
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
