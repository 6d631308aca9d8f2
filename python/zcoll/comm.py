"""zcoll.Comm: the compressed collectives (include/zcoll_mpi.h) on numpy arrays
over an mpi4py communicator. All ranks call with matching arguments, as in MPI;
arrays must be float32/float64 (or float16: accumulated in float32, rounded once,
the rounding counted in the reported bound) and C-contiguous; every call releases
the GIL. Each collective has a nonblocking twin (``iallreduce`` & co.) that
returns a :class:`Request` (docs/nonblocking.md)."""

import numpy as np

from ._error import ZcollError  # noqa: F401  (raised by the extension)


class _InPlace:
    def __repr__(self):
        return "zcoll.IN_PLACE"


#: pass as sendbuf (or recvbuf of scatter at the root) for MPI_IN_PLACE;
#: mpi4py's MPI.IN_PLACE is accepted too
IN_PLACE = _InPlace()

_MODES = ("mpi", "raw", "cpr_p2p", "doc", "hom", "auto")
_OPS = {"sum": 0, "prod": 1, "max": 2, "min": 3}

_checked = False


def _mpi_module():
    """Import the extension, after checking that mpi4py runs on the MPI it was built with."""
    global _checked
    try:
        from . import _mpi
    except ImportError as e:  # built without MPI, or libmpi missing
        raise ImportError(f"zcoll was built without its MPI module or cannot load it: {e}") from e
    if not _checked:
        from mpi4py import MPI

        name, version = _mpi.built_with()
        theirs = MPI.Get_library_version()
        first = theirs.strip().splitlines()[0] if theirs.strip() else ""
        if name not in first or version not in first:
            raise RuntimeError(
                f"mpi4py runs on another MPI than zcoll: zcoll was built with {name} {version}, "
                f"mpi4py reports {first!r}. Build mpi4py from source against the same MPI: "
                "MPICC=mpicc pip install --no-binary=mpi4py --force-reinstall mpi4py "
                "(scripts/setup_python.sh does)")
        ours = _mpi.library_version()
        if ours.strip() != theirs.strip():
            raise RuntimeError(
                "zcoll's MPI library and mpi4py's differ at run time:\n"
                f"  zcoll:  {ours.strip().splitlines()[0]}\n  mpi4py: {first}")
        _checked = True
    return _mpi


def algorithms(collective):
    """The algorithms of `collective` ("allreduce", ...) by name, in the order of
    the library's algorithm table (what set_algorithm and ZCOLL_<COLL>_ALGO take,
    besides "auto")."""
    m = _mpi_module()
    return list(m.algorithms_of(m.collective_from_name(collective)))


def _is_in_place(x):
    if x is IN_PLACE:
        return True
    try:
        from mpi4py import MPI

        return x is MPI.IN_PLACE
    except ImportError:  # pragma: no cover
        return False


def _op(op):
    if isinstance(op, str):
        key = op.lower()
    else:  # mpi4py's MPI.SUM etc.
        from mpi4py import MPI

        key = {MPI.SUM: "sum", MPI.PROD: "prod", MPI.MAX: "max", MPI.MIN: "min"}.get(op)
    if key not in _OPS:
        raise ValueError(f"op must be one of {sorted(_OPS)} (or MPI.SUM/PROD/MAX/MIN), got {op!r}")
    return _OPS[key]


def _mode(mode):
    if mode is None:
        return -1
    if mode not in _MODES:
        raise ValueError(f"mode must be one of {_MODES}, got {mode!r}")
    return _mpi_module().mode_from_name(mode)


def _eb_mode(eb_mode):
    if eb_mode is None:
        return -1
    if eb_mode not in ("abs", "rel"):
        raise ValueError(f"eb_mode must be 'abs' or 'rel', got {eb_mode!r}")
    return 0 if eb_mode == "abs" else 1


def _bf16(dtype):
    """dtype argument of the collectives: None (the arrays' own dtype) or
    "bfloat16" (the arrays hold bfloat16 bits in 2-byte items)."""
    if dtype not in (None, "bfloat16"):
        raise ValueError(f"dtype must be None (the arrays' own) or 'bfloat16', got {dtype!r}")
    return dtype == "bfloat16"


def _send(x):
    return None if _is_in_place(x) else x


class Request:
    """A nonblocking collective in flight (``Comm.iallreduce`` & co.).

    ``test()`` returns True once the call is complete (never blocks); ``wait()``
    blocks, with the GIL released, and returns what the blocking call returns
    (the result array). Both raise ZcollError if the call failed (on every rank,
    as the blocking call). The request holds the call's arrays until it is
    complete: do not change the input or read the result before. ``report()``
    gives the call's report (as ``Comm.last_report()``) once complete. A pending
    request that is dropped waits for its call first.
    """

    __slots__ = ("_r", "_result")

    def __init__(self, req, result):
        self._r = req
        self._result = result

    def test(self):
        return self._r.test()

    def wait(self):
        self._r.wait()
        return self._result

    @property
    def done(self):
        """True once test() or wait() has seen the call complete."""
        return self._r.done

    def report(self):
        return self._r.report()


def _finish(req, result):
    return result if req is None else Request(req, result)


_CODECS = ("fast", "dense", "auto")  # the index is the extension's codec argument


class Comm:
    """Compressed collectives over an mpi4py intra-communicator.

    ``Comm(comm, mode=None, eb_mode=None, error_bound=None, threads=None,
    min_bytes=None, chunk_size=None, bound=None, codec=None)``: arguments left
    None take the library's defaults (mode "auto", REL 1e-4, threads 1,
    min_bytes 65536, codec "fast") and then the ``ZCOLL_*`` environment
    (docs/env.md). ``bound`` is "per_compression" or "result"; ``codec`` is
    "fast", "dense" or "auto" (the cost model picks per call; ``last_report()``
    names the codec that ran). Creating and freeing are collective; use
    ``free()`` or ``with`` to free at a point all ranks reach.
    """

    def __init__(self, comm, mode=None, eb_mode=None, error_bound=None, threads=None,
                 min_bytes=None, chunk_size=None, bound=None, codec=None):
        mpi = _mpi_module()
        if bound not in (None, "per_compression", "result"):
            raise ValueError(f"bound must be 'per_compression' or 'result', got {bound!r}")
        if codec not in (None,) + _CODECS:
            raise ValueError(f"codec must be one of {', '.join(_CODECS)}, got {codec!r}")
        self._comm = comm
        self._c = mpi.Comm(
            int(comm.py2f()), _mode(mode), _eb_mode(eb_mode),
            -1.0 if error_bound is None else float(error_bound),
            -1 if threads is None else int(threads),
            -1 if min_bytes is None else int(min_bytes),
            -1 if chunk_size is None else int(chunk_size),
            -1 if bound is None else (0 if bound == "per_compression" else 1),
            -1 if codec is None else _CODECS.index(codec))

    # -- handle -------------------------------------------------------------
    def free(self):
        """Free the handle (collective over the communicator)."""
        self._c.free()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.free()

    @property
    def size(self):
        return self._c.size

    @property
    def rank(self):
        return self._c.rank

    def config(self):
        """The effective configuration (after the environment) as a dict."""
        return self._c.config()

    def last_report(self):
        """The report of the last call on this handle as a dict: collective, mode,
        algorithm, status, reason, count, bytes_sent, bytes_uncompressed, times,
        eb_per_compression, error_bound (guaranteed |result - exact|), ...
        (waits for the handle's pending nonblocking calls first)."""
        return self._c.last_report()

    @property
    def progress_thread(self):
        """True when nonblocking calls run on a progress thread of the handle
        (MPI_THREAD_MULTIPLE, as mpi4py initializes MPI by default); False when
        each runs to completion inside its start."""
        return self._c.progress_thread

    def set_mode(self, mode):
        """Mode for the following calls (None: back to the configured one)."""
        self._c.set_mode(0 if mode is None else _mode(mode))

    def set_error_bound(self, eb_mode, error_bound):
        self._c.set_error_bound(_eb_mode(eb_mode), float(error_bound))

    def set_average(self, on=True):
        """With op sum, allreduce/reduce/reduce_scatter return the mean over ranks."""
        self._c.set_average(bool(on))

    def set_shape(self, shape):
        """Shape of one rank's block in the data-movement collectives for the
        following calls (bcast: the buffer; allgather, gather, scatter: one
        rank's count), e.g. ``a.shape``; None or () for none. With the dense
        codec a block of that shape is compressed along its rows and planes
        (zcoll_comm_set_shape): fewer bytes, slower compression, for slow links;
        other calls stay 1-D, and so do all with codec "auto" (its model prices
        the 1-D codec). Every rank sets the same."""
        dims = [] if shape is None else [int(d) for d in shape]
        self._c.set_shape(dims)

    def set_algorithm(self, collective, algorithm):
        """Algorithm of one collective for the following calls: "auto" or one of
        algorithms(collective) (names from the library's algorithm table)."""
        m = _mpi_module()
        coll = m.collective_from_name(collective)
        self._c.set_algorithm(coll, m.algorithm_from_name(coll, algorithm))

    # -- collectives ----------------------------------------------------------
    # Each has a nonblocking twin with the same arguments (iallreduce, ...)
    # returning a Request whose wait() returns what the blocking call returns.
    # dtype="bfloat16" (every collective): the arrays hold bfloat16 bits in
    # 2-byte items; the call runs on float32 copies and rounds once, like
    # float16 arrays (allreduce's docstring).
    def allreduce(self, sendbuf, recvbuf=None, op="sum", dtype=None):
        """recvbuf = op over ranks of sendbuf; returns recvbuf (new if None).
        sendbuf may be IN_PLACE (input and result in recvbuf). dtype="bfloat16":
        the arrays hold bfloat16 bits in 2-byte items (numpy has no bfloat16: a
        uint16/int16 view, e.g. ``tensor.view(torch.int16).numpy()``), summed in
        float32 and rounded once like float16 arrays."""
        return self._allreduce(sendbuf, recvbuf, op, False, dtype)

    def iallreduce(self, sendbuf, recvbuf=None, op="sum", dtype=None):
        """Nonblocking allreduce: a Request; wait() returns recvbuf."""
        return self._allreduce(sendbuf, recvbuf, op, True, dtype)

    def _allreduce(self, sendbuf, recvbuf, op, nb, dtype):
        bf16 = _bf16(dtype)
        if recvbuf is None:
            if _is_in_place(sendbuf):
                raise TypeError("allreduce(IN_PLACE, recvbuf): recvbuf is required")
            recvbuf = np.empty_like(sendbuf)
        return _finish(self._c.allreduce(_send(sendbuf), recvbuf, _op(op), nb, bf16), recvbuf)

    def reduce_scatter_block(self, sendbuf, recvbuf=None, op="sum", dtype=None):
        """sendbuf holds size*k values; this rank gets block rank (k values) of the
        reduction. IN_PLACE: recvbuf holds size*k values, the result lands in recvbuf[:k]."""
        return self._reduce_scatter_block(sendbuf, recvbuf, op, False, dtype)

    def ireduce_scatter_block(self, sendbuf, recvbuf=None, op="sum", dtype=None):
        """Nonblocking reduce_scatter_block: a Request; wait() returns recvbuf."""
        return self._reduce_scatter_block(sendbuf, recvbuf, op, True, dtype)

    def _reduce_scatter_block(self, sendbuf, recvbuf, op, nb, dtype):
        bf16 = _bf16(dtype)
        p = self.size
        if _is_in_place(sendbuf):
            if recvbuf is None:
                raise TypeError("reduce_scatter_block(IN_PLACE, recvbuf): recvbuf is required")
            k = np.size(recvbuf) // p
        else:
            k = np.size(sendbuf) // p
            if recvbuf is None:
                recvbuf = np.empty(k, dtype=np.asarray(sendbuf).dtype)
        req = self._c.reduce_scatter_block(_send(sendbuf), recvbuf, int(k), _op(op), nb, bf16)
        return _finish(req, recvbuf)

    def reduce_scatter(self, sendbuf, recvbuf=None, recvcounts=None, op="sum", dtype=None):
        """MPI_Reduce_scatter with per-rank counts (identical on all ranks)."""
        return self._reduce_scatter(sendbuf, recvbuf, recvcounts, op, False, dtype)

    def ireduce_scatter(self, sendbuf, recvbuf=None, recvcounts=None, op="sum", dtype=None):
        """Nonblocking reduce_scatter: a Request; wait() returns recvbuf."""
        return self._reduce_scatter(sendbuf, recvbuf, recvcounts, op, True, dtype)

    def _reduce_scatter(self, sendbuf, recvbuf, recvcounts, op, nb, dtype):
        bf16 = _bf16(dtype)
        if recvcounts is None:
            raise TypeError("reduce_scatter: recvcounts is required")
        counts = [int(c) for c in recvcounts]
        if recvbuf is None:
            if _is_in_place(sendbuf):
                raise TypeError("reduce_scatter(IN_PLACE, recvbuf): recvbuf is required")
            recvbuf = np.empty(counts[self.rank], dtype=np.asarray(sendbuf).dtype)
        return _finish(self._c.reduce_scatter(_send(sendbuf), recvbuf, counts, _op(op), nb, bf16),
                       recvbuf)

    def allgather(self, sendbuf, recvbuf=None, dtype=None):
        """recvbuf (size*count values) = every rank's sendbuf in rank order. IN_PLACE:
        each rank's block is already at recvbuf[rank*count:(rank+1)*count]."""
        return self._allgather(sendbuf, recvbuf, False, dtype)

    def iallgather(self, sendbuf, recvbuf=None, dtype=None):
        """Nonblocking allgather: a Request; wait() returns recvbuf."""
        return self._allgather(sendbuf, recvbuf, True, dtype)

    def _allgather(self, sendbuf, recvbuf, nb, dtype):
        bf16 = _bf16(dtype)
        if recvbuf is None:
            if _is_in_place(sendbuf):
                raise TypeError("allgather(IN_PLACE, recvbuf): recvbuf is required")
            a = np.asarray(sendbuf)
            recvbuf = np.empty((self.size,) + a.shape, dtype=a.dtype)
        return _finish(self._c.allgather(_send(sendbuf), recvbuf, nb, bf16), recvbuf)

    def bcast(self, buf, root=0, dtype=None):
        """buf of root to every rank (in place); returns buf."""
        return _finish(self._c.bcast(buf, int(root), False, _bf16(dtype)), buf)

    def ibcast(self, buf, root=0, dtype=None):
        """Nonblocking bcast: a Request; wait() returns buf."""
        return _finish(self._c.bcast(buf, int(root), True, _bf16(dtype)), buf)

    def scatter(self, sendbuf, recvbuf=None, root=0, count=None, dtype=None):
        """Block i of root's sendbuf (size*count values) to rank i; returns recvbuf.
        Non-roots pass sendbuf None and a recvbuf of count values; the root may
        omit recvbuf (a new one) or pass IN_PLACE (its block stays in sendbuf,
        which is returned). ``count``, if given, is checked against the buffers."""
        return self._scatter(sendbuf, recvbuf, root, count, False, dtype)

    def iscatter(self, sendbuf, recvbuf=None, root=0, count=None, dtype=None):
        """Nonblocking scatter: a Request; wait() returns what scatter returns."""
        return self._scatter(sendbuf, recvbuf, root, count, True, dtype)

    def _scatter(self, sendbuf, recvbuf, root, count, nb, dtype):
        bf16 = _bf16(dtype)
        root = int(root)
        in_place = _is_in_place(recvbuf)
        if self.rank == root:
            if sendbuf is None:
                raise TypeError("scatter: sendbuf is required at the root")
            n = np.size(sendbuf) // self.size
            if recvbuf is None:
                recvbuf = np.empty(n, dtype=np.asarray(sendbuf).dtype)
        else:
            if recvbuf is None or in_place:
                raise TypeError("scatter: recvbuf is required on every non-root")
            n = np.size(recvbuf)
            sendbuf = None
        if count is not None and int(count) != n:
            raise ValueError(f"scatter: count {count} does not match the buffers ({n})")
        req = self._c.scatter(sendbuf, None if in_place else recvbuf, int(n), root, nb, bf16)
        return _finish(req, sendbuf if in_place else recvbuf)

    def reduce(self, sendbuf, recvbuf=None, op="sum", root=0, dtype=None):
        """recvbuf at root = op over ranks of sendbuf; returns recvbuf at the root,
        None elsewhere. At the root sendbuf may be IN_PLACE (input in recvbuf)."""
        return self._reduce(sendbuf, recvbuf, op, root, False, dtype)

    def ireduce(self, sendbuf, recvbuf=None, op="sum", root=0, dtype=None):
        """Nonblocking reduce: a Request; wait() returns what reduce returns."""
        return self._reduce(sendbuf, recvbuf, op, root, True, dtype)

    def _reduce(self, sendbuf, recvbuf, op, root, nb, dtype):
        bf16 = _bf16(dtype)
        root = int(root)
        if self.rank == root:
            if recvbuf is None:
                if _is_in_place(sendbuf):
                    raise TypeError("reduce(IN_PLACE, recvbuf): recvbuf is required")
                recvbuf = np.empty_like(sendbuf)
            return _finish(self._c.reduce(_send(sendbuf), recvbuf, _op(op), root, nb, bf16),
                           recvbuf)
        return _finish(self._c.reduce(_send(sendbuf), None, _op(op), root, nb, bf16), None)

    def gather(self, sendbuf, recvbuf=None, root=0, dtype=None):
        """root's recvbuf (size*count values) = every rank's sendbuf in rank order;
        returns recvbuf at the root, None elsewhere. At the root sendbuf may be
        IN_PLACE (root's block already in place)."""
        return self._gather(sendbuf, recvbuf, root, False, dtype)

    def igather(self, sendbuf, recvbuf=None, root=0, dtype=None):
        """Nonblocking gather: a Request; wait() returns what gather returns."""
        return self._gather(sendbuf, recvbuf, root, True, dtype)

    def _gather(self, sendbuf, recvbuf, root, nb, dtype):
        bf16 = _bf16(dtype)
        root = int(root)
        if self.rank == root:
            if recvbuf is None:
                if _is_in_place(sendbuf):
                    raise TypeError("gather(IN_PLACE, recvbuf): recvbuf is required")
                a = np.asarray(sendbuf)
                recvbuf = np.empty((self.size,) + a.shape, dtype=a.dtype)
            count = np.size(recvbuf) // self.size
            req = self._c.gather(_send(sendbuf), recvbuf, int(count), root, nb, bf16)
            return _finish(req, recvbuf)
        req = self._c.gather(_send(sendbuf), None, int(np.size(sendbuf)), root, nb, bf16)
        return _finish(req, None)
