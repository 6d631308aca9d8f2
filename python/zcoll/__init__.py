"""zcoll: error-bounded lossy compression of float arrays, compressed MPI
collectives, a numcodecs/Zarr codec, a PyTorch DDP hook and a torch.distributed
backend "zcoll" (zcoll.torch; docs/python.md).

    import zcoll
    buf = zcoll.compress(a, abs=1e-3)          # bytes
    b = zcoll.decompress(buf, shape=a.shape)   # |a - b| <= 1e-3

    comm = zcoll.Comm(MPI.COMM_WORLD, mode="hom", eb_mode="abs", error_bound=1e-4)
    comm.allreduce(x, y)                       # y = sum over ranks, within the reported bound
"""

from ._codec import version as _version
from ._error import ZcollError
from .codec import (
    DEFAULT_CHUNK_SIZE,
    STATUS,
    compress,
    compress_bound,
    decompress,
    hom_add,
    hom_sub,
    hom_sum,
    info,
    mean,
    quality,
)

__version__ = _version()

__all__ = [
    "ZcollError", "STATUS", "DEFAULT_CHUNK_SIZE", "compress", "decompress", "info", "quality",
    "hom_add", "hom_sub", "hom_sum", "mean", "compress_bound", "Comm", "IN_PLACE", "algorithms",
    "Request",
]


def __getattr__(name):
    # the MPI part loads libmpi and mpi4py only when it is used
    if name in ("Comm", "IN_PLACE", "algorithms", "Request"):
        from . import comm

        return getattr(comm, name)
    raise AttributeError(f"module 'zcoll' has no attribute {name!r}")


# numcodecs: register codec_id "zcoll" when numcodecs is installed (the
# numcodecs.codecs entry point registers it too, without importing zcoll first)
try:
    import numcodecs as _numcodecs  # noqa: F401
except ImportError:  # pragma: no cover - numcodecs is optional
    pass
else:
    from . import numcodecs as _zcoll_numcodecs  # noqa: F401
