"""An ordinary mpi4py script (it knows nothing of zcoll): large Allreduce and
Bcast of real fields from data/, plus small reductions that must stay exact.
tests/pmpi runs it with libzcoll_pmpi.so preloaded; bench/pmpi runs it for
timing. Each rank checks its results against the exact values, which it can
compute itself (every rank reads the whole file):

  --expect exact   every result bit-identical to the exact one in the datatype
                   for the Bcast (the shim absent or off); the float32 sum
                   within float32 rounding of the exact sum (MPI's summation
                   order is its own)
  --expect lossy   large results within --bound (absolute, for the result;
                   run with ZCOLL_EB_MODE=abs ZCOLL_BOUND=result) plus the
                   float32 rounding allowance, and not all bit-identical
  --expect bound   the same without the last condition (ZCOLL_MODE=auto may
                   choose the MPI library's collective)

Exit status 0 when every check passes. --repeat N times each large call and
prints one JSON line per call on rank 0 (for bench/pmpi): the slowest rank's time.
--nonblocking makes the large calls Iallreduce / Ibcast, with numpy work between
the start and the Wait.
"""
import argparse
import json
import os
import sys
import time

import numpy as np
from mpi4py import MPI


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--data", default=os.path.join(os.path.dirname(__file__), "..", "..", "data"))
    ap.add_argument("--expect", choices=["exact", "lossy", "bound"], required=True)
    ap.add_argument("--bound", type=float, default=0.0)
    ap.add_argument("--repeat", type=int, default=1)
    ap.add_argument("--label", default="")
    ap.add_argument("--nonblocking", action="store_true")
    a = ap.parse_args()

    comm = MPI.COMM_WORLD
    rank, size = comm.Get_rank(), comm.Get_size()
    fails = []

    # wind: 132 monthly snapshots of 73 x 144; rank r reduces its own slice of
    # snapshots (the same number on every rank), every rank knows them all
    wind = np.fromfile(os.path.join(a.data, "ferret_fnoc-uwnd_132x73x144.f32"), dtype="<f4")
    wind = wind.reshape(132, 73 * 144)
    per = 132 // size
    slices = [wind[r * per:(r + 1) * per].ravel() for r in range(size)]
    mine = np.ascontiguousarray(slices[rank])
    exact64 = np.sum(np.stack(slices).astype(np.float64), axis=0)
    absum = np.sum(np.abs(np.stack(slices).astype(np.float64)), axis=0)
    u = 2.0 ** -24

    # geoid: 721 x 1440 from rank 0
    geoid = np.fromfile(os.path.join(a.data, "proj_egm96-geoid_721x1440.f32"), dtype="<f4")

    timings = []
    for it in range(a.repeat):
        out = np.empty_like(mine)
        comm.Barrier()
        t0 = time.perf_counter()
        if a.nonblocking:
            req = comm.Iallreduce(mine, out, op=MPI.SUM)
            work = float(np.sum(np.sqrt(np.abs(wind[:8]))))  # computation meanwhile
            req.Wait()
            assert work > 0
        else:
            comm.Allreduce(mine, out, op=MPI.SUM)
        t1 = time.perf_counter()
        buf = geoid.copy() if rank == 0 else np.zeros_like(geoid)
        comm.Barrier()
        t2 = time.perf_counter()
        if a.nonblocking:
            req = comm.Ibcast(buf, root=0)
            while not req.Test():
                pass
        else:
            comm.Bcast(buf, root=0)
        t3 = time.perf_counter()
        # the slowest rank's time (the root of a Bcast finishes first)
        timings.append((comm.allreduce(t1 - t0, op=MPI.MAX), comm.allreduce(t3 - t2, op=MPI.MAX)))

        err = np.abs(out.astype(np.float64) - exact64)
        allowed = a.bound + (size + 1) * u * absum + 2 * u * np.abs(exact64)
        if not np.all(err <= allowed):
            fails.append(f"allreduce: max |error| {err.max():.4g} > allowed")
        berr = np.abs(buf.astype(np.float64) - geoid.astype(np.float64))
        if a.expect == "exact":
            if not np.array_equal(buf, geoid):
                fails.append("bcast not bit-identical")
        else:
            if not np.all(berr <= a.bound + u * np.abs(geoid)):
                fails.append(f"bcast: max |error| {berr.max():.4g} > bound {a.bound:g}")
            if a.expect == "lossy" and rank != 0 and berr.max() == 0:
                fails.append("bcast bit-identical: the shim did not run")
        if it == 0 and rank == 0:
            print(f"allreduce {mine.size} values: max |error| {err.max():.4g}; "
                  f"bcast {geoid.size} values: max |error| {berr.max():.4g}", flush=True)

    # small reductions: a norm and a count stay exact (bit-identical to the
    # value every rank computes in the same order from the gathered inputs)
    norm2 = np.array([float(np.dot(mine[:1000].astype(np.float64), mine[:1000]))])
    tot = np.empty(1)
    comm.Allreduce(norm2, tot, op=MPI.SUM)
    parts = np.empty(size)
    comm.Allgather(norm2, parts)
    if abs(tot[0] - sum(parts)) > 1e-12 * abs(tot[0]):
        fails.append("small allreduce of a norm beyond float64 rounding")
    cnt = comm.allreduce(int(mine.size), op=MPI.SUM)
    if cnt != per * 73 * 144 * size:
        fails.append("integer count wrong")
    small = np.ascontiguousarray(mine[:4096])
    sout = np.empty_like(small)
    comm.Allreduce(small, sout, op=MPI.SUM)
    exact_small = np.sum(np.stack([s[:4096] for s in slices]).astype(np.float64), axis=0)
    if not np.all(np.abs(sout - exact_small) <= (size + 1) * u * np.abs(
            np.stack([s[:4096] for s in slices])).sum(axis=0).astype(np.float64)):
        fails.append("small allreduce beyond float32 rounding: was it compressed?")

    allfails = comm.gather(fails, root=0)
    if rank == 0:
        for r, f in enumerate(allfails):
            for m in f:
                print(f"rank {r}: FAIL {m}", flush=True)
        if a.repeat > 1 or a.label:
            for i, (ta, tb) in enumerate(timings):
                print(json.dumps({"label": a.label, "np": size, "iter": i,
                                  "allreduce_bytes": int(mine.nbytes), "allreduce_s": ta,
                                  "bcast_bytes": int(geoid.nbytes), "bcast_s": tb}), flush=True)
        print("OK" if not any(allfails) else "FAIL", flush=True)
    ok = comm.bcast(not any(allfails) if rank == 0 else None, root=0)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
