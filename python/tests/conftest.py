"""pytest setup for zcoll's Python tests.

Single process: `python -m pytest python/tests`. Under MPI (the collectives):
`mpirun -np 3 python -m pytest python/tests/test_comm.py`: every rank runs the
same tests in the same order. A test that fails on one rank would leave the
others waiting in its next collective, so the failing rank prints the failure
and calls MPI_Abort: mpirun then exits non-zero at once. At the end the ranks
also agree on the worst exit status (for failures in collection or setup).
"""

import os
import pathlib

import numpy as np
import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
DATA = ROOT / "data"

# (file, dtype, shape) of the bundled fields (data/README.md)
FIELDS = [
    ("ncarg_rect3d-t_17x96x192.f32", (17, 96, 192)),
    ("proj_egm96-geoid_721x1440.f32", (721, 1440)),
    ("ferret_fnoc-uwnd_132x73x144.f32", (132, 73, 144)),
]


def load_field(name, shape):
    return np.fromfile(DATA / name, dtype="<f4").reshape(shape)


@pytest.fixture(params=FIELDS, ids=[f[0].split("_")[0] + "-" + f[0].split("_")[1] for f in FIELDS])
def field(request):
    name, shape = request.param
    return load_field(name, shape)


def _under_mpi():
    return any(k in os.environ for k in ("PMI_RANK", "PMI_SIZE", "OMPI_COMM_WORLD_SIZE",
                                          "HYDRA_CONTROL_FD", "MPI_LOCALNRANKS"))


def _world():
    if not _under_mpi():
        return None
    from mpi4py import MPI

    return MPI.COMM_WORLD if MPI.COMM_WORLD.size > 1 else None


def pytest_runtest_logreport(report):
    if not report.failed:
        return
    w = _world()
    if w is None:
        return
    import sys

    sys.stderr.write(f"\n==== rank {w.rank}: {report.nodeid} FAILED ({report.when}) ====\n"
                     f"{report.longreprtext}\n")
    sys.stderr.flush()
    sys.stdout.flush()
    w.Abort(1)


def pytest_sessionfinish(session, exitstatus):
    if not _under_mpi():
        return
    from mpi4py import MPI

    w = MPI.COMM_WORLD
    if w.size < 2:
        return
    worst = w.allreduce(int(exitstatus), op=MPI.MAX)
    if worst != 0 and int(exitstatus) == 0:
        print(f"\nrank {w.rank}: another rank failed (exit status {worst})")
    session.exitstatus = worst
