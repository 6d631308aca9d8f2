"""A ``torch.distributed`` backend named "zcoll": the collectives of a process
group through zcoll's compressed collectives (zcoll.Comm over mpi4py), the rest
through an inner gloo process group (docs/python.md, "torch.distributed backend").

    import torch.distributed as dist
    import zcoll.torch          # registers the backend
    dist.init_process_group("zcoll", rank=..., world_size=..., init_method="env://",
                            pg_options={"mode": "hom", "eb_mode": "abs", "error_bound": 1e-4})

Through zcoll (CPU, contiguous, float32/float64/float16/bfloat16 tensors, one
tensor per rank): allreduce (SUM, AVG, PRODUCT, MIN, MAX), reduce_scatter and
_reduce_scatter_base, allgather and _allgather_base, broadcast, reduce, gather,
scatter; barrier is MPI's. Everything else (other dtypes, other ops, CUDA or
non-contiguous tensors, alltoall, send/recv, the coalesced calls) goes unchanged
to the inner gloo group.

The processes must have been started by an MPI launcher (mpirun): the group's
MPI communicator holds the MPI processes of the group's ranks, in the group's
rank order (found through the process group's store).

Before each call that zcoll may serve, the ranks agree on what they are doing
(one small MPI allreduce): a call whose kind, dtype, size, op or root differs
across ranks, or that fails a local check on one rank, raises RuntimeError on
every rank instead of hanging. ``check=False`` in the options skips this step.
"""

import atexit
import datetime
import queue
import threading
import weakref

import numpy as np
import torch
import torch.distributed as dist
from torch._C._distributed_c10d import ProcessGroupGloo

from .comm import IN_PLACE, Comm

BACKEND = "zcoll"

_FLOATS = (torch.float32, torch.float64, torch.float16, torch.bfloat16)
_DTYPE_CODE = {torch.float32: 1, torch.float64: 2, torch.float16: 3, torch.bfloat16: 4}
_OPTION_KEYS = ("mode", "eb_mode", "error_bound", "threads", "min_bytes", "chunk_size",
                "bound", "check", "record")
_KINDS = ("allreduce", "broadcast", "allgather", "_allgather_base", "reduce_scatter",
          "_reduce_scatter_base", "reduce", "gather", "scatter", "barrier")

#: options for the process groups created from now on (set_default_options)
_defaults = {}


def _red_op(op):
    """zcoll's op name for a torch ReduceOp (or None: not served by zcoll)."""
    R = dist.ReduceOp
    table = [(R.SUM, "sum"), (R.PRODUCT, "prod"), (R.MIN, "min"), (R.MAX, "max")]
    if hasattr(R, "AVG"):
        table.append((R.AVG, "avg"))
    for k, v in table:
        if op == k:
            return v
    return None


_OP_CODE = {None: 0, "sum": 1, "prod": 2, "min": 3, "max": 4, "avg": 5}


def _np(t):
    """A numpy view sharing t's memory and the dtype argument of zcoll's calls."""
    t = t.detach()
    if t.dtype == torch.bfloat16:
        return t.view(torch.int16).numpy(), "bfloat16"
    return t.numpy(), None


def _ok(*tensors):
    """True when zcoll can take these tensors: CPU, contiguous, one float dtype."""
    if not tensors:
        return False
    d = tensors[0].dtype
    return all(isinstance(t, torch.Tensor) and t.device.type == "cpu" and t.is_contiguous()
               and t.dtype == d and d in _FLOATS for t in tensors)


class _Pending:
    """A call in flight: its zcoll/mpi4py request, what runs once it is
    complete (copies out), and the torch future handed to the caller."""

    __slots__ = ("req", "post", "fut", "result")

    def __init__(self, req, post, fut, result):
        self.req, self.post, self.fut, self.result = req, post, fut, result


class ProcessGroupZcoll(dist.ProcessGroup):
    """The "zcoll" process group (torch.distributed.ProcessGroup subclass)."""

    def __init__(self, store, rank, size, timeout=None, options=None):
        super().__init__(rank, size)
        from mpi4py import MPI

        self._MPI = MPI
        if timeout is None:
            timeout = datetime.timedelta(minutes=30)
        opts = dict(_defaults)
        opts.update(options or {})
        bad = sorted(set(opts) - set(_OPTION_KEYS))
        if bad:
            raise ValueError(f"zcoll backend: unknown options {bad} (known: {list(_OPTION_KEYS)})")
        self._check = bool(opts.pop("check", True))
        self.record = bool(opts.pop("record", False))
        self.reports = []
        self._gloo = ProcessGroupGloo(dist.PrefixStore("zcoll-gloo", store), rank, size, timeout)

        # the MPI processes of this group's ranks, in rank order, through the store
        world = MPI.COMM_WORLD
        store.set(f"zcoll-mpi-rank/{rank}", str(world.rank))
        store.set(f"zcoll-mpi-size/{rank}", str(world.size))
        sizes = {int(store.get(f"zcoll-mpi-size/{r}")) for r in range(size)}
        if sizes != {world.size} or world.size < size:
            raise RuntimeError(
                f"zcoll backend: the process group has {size} ranks but MPI.COMM_WORLD has "
                f"{sorted(sizes)} processes; start the processes with an MPI launcher "
                f"(mpirun -np N python ...), one MPI process per rank (torchrun: one agent per "
                f"MPI process, mpirun -pmi-port -np N torchrun --nproc_per_node=1 ...)")
        ranks = [int(store.get(f"zcoll-mpi-rank/{r}")) for r in range(size)]
        if len(set(ranks)) != size:
            raise RuntimeError(f"zcoll backend: two ranks share an MPI process ({ranks})")
        self._mpi = world.Create_group(world.Get_group().Incl(ranks))
        self._ctl = self._mpi.Dup()  # agreement checks and barriers
        self._comm = Comm(self._mpi, **opts)
        self._threaded = MPI.Query_thread() == MPI.THREAD_MULTIPLE
        self._queue = None
        self._waiter = None
        self._lock = threading.Lock()
        self._inflight = 0  # calls handed to the waiter thread and not finished
        _groups.append(weakref.ref(self))

    # -- bookkeeping -----------------------------------------------------------
    def getBackendName(self):  # noqa: N802 - the C++ name (PyProcessGroup's override)
        return BACKEND

    def _get_backend_name(self):
        return BACKEND

    def __repr__(self):
        return f"ProcessGroupZcoll(rank={self.rank()}, size={self.size()})"

    @property
    def comm(self):
        """The zcoll.Comm the collectives run on (set_mode, set_error_bound, last_report)."""
        return self._comm

    def _agree(self, kind, route, dtype, numel, out_numel=0, root=-1, op=None, error=None):
        """Every rank the same call, or RuntimeError on every rank."""
        if not self._check:
            if error is not None:
                raise error
            return
        MPI = self._MPI
        sig = np.array([_KINDS.index(kind), route, _DTYPE_CODE.get(dtype, 9), numel, out_numel,
                        root, _OP_CODE.get(op, 9), error is not None], dtype=np.int64)
        both = np.concatenate([sig, -sig])
        out = np.empty_like(both)
        self._ctl.Allreduce(both, out, op=MPI.MAX)
        hi, lo = out[:len(sig)], -out[len(sig):]
        if hi[7]:  # a rank failed its local checks: every rank gets its message
            mine = None if error is None else f"{type(error).__name__}: {error}"
            msgs = self._ctl.allgather(mine)
            text = "; ".join(f"rank {r}: {m}" for r, m in enumerate(msgs) if m is not None)
            raise RuntimeError(f"zcoll backend: {kind} failed on some rank ({text})")
        names = ("kind", "route (zcoll or gloo: dtype/device/layout)", "dtype", "input size",
                 "output size", "root", "op")
        differ = [names[i] for i in range(7) if hi[i] != lo[i]]
        if differ:
            raise RuntimeError(f"zcoll backend: the ranks called {kind} with different "
                               f"{', '.join(differ)} (this rank: {kind}, {dtype}, "
                               f"{numel} values, root {root}, op {op})")

    def _start(self, req, post, result):
        """A torch Work for a started request; post() runs once it is complete."""
        fut = torch.futures.Future()
        if not self._threaded or req is None:
            self._finish(_Pending(req, post, fut, result))
        else:
            with self._lock:
                if self._waiter is None:
                    self._queue = queue.Queue()
                    self._waiter = threading.Thread(target=self._wait_loop, daemon=True,
                                                    name="zcoll-pg-waiter")
                    self._waiter.start()
            with self._lock:
                self._inflight += 1
            self._queue.put(_Pending(req, post, fut, result))
        return _Work(self, fut)

    def _finish(self, p):
        try:
            if p.req is not None:
                p.req.wait()  # zcoll.Request.wait / mpi4py Request.Wait, GIL released
            if p.post is not None:
                p.post()
        except Exception as e:  # noqa: BLE001 - handed to the caller through the future
            # without the traceback, whose frames would keep the request alive
            p.fut.set_exception(e.with_traceback(None))
        else:
            if self.record and hasattr(p.req, "report"):
                self.reports.append(p.req.report())
            p.fut.set_result(p.result)

    def _wait_loop(self):
        # requests complete in the order they started: wait for them in that order
        while True:
            p = self._queue.get()
            if p is None:
                return
            self._finish(p)
            p = None  # the request and its arrays go now, not at the next call
            with self._lock:
                self._inflight -= 1

    def _shutdown(self):
        """At exit: end the waiter thread, free the zcoll handle and the MPI
        communicators (local in effect: MPICH frees a communicator locally and
        zcoll's handle only stops its thread). A group with calls still pending
        (a rank leaving in the middle, e.g. after an exception) is left as it is
        rather than waited for, which could hang."""
        if self._inflight:
            return
        if self._waiter is not None:
            self._queue.put(None)
            self._waiter.join()
            self._waiter = None
        if self._comm is not None:
            self._comm.free()
            self._ctl.Free()
            self._mpi.Free()
            self._comm = None

    # -- collectives through zcoll ----------------------------------------------
    def allreduce(self, tensors, opts=None):
        opts = opts if opts is not None else dist.AllreduceOptions()
        op = _red_op(opts.reduceOp)
        use = len(tensors) == 1 and _ok(tensors[0]) and op is not None
        t = tensors[0] if len(tensors) == 1 else None
        self._agree("allreduce", int(use), getattr(t, "dtype", None),
                    -1 if t is None else t.numel(), op=op)
        if not use:
            return self._gloo.allreduce(tensors, opts)
        v, dt = _np(t)
        c = self._comm
        if op == "avg":
            c.set_average(True)
            try:
                req = c.iallreduce(IN_PLACE, v, op="sum", dtype=dt)
            finally:
                c.set_average(False)
        else:
            req = c.iallreduce(IN_PLACE, v, op=op, dtype=dt)
        return self._start(req, None, tensors)

    def broadcast(self, tensors, opts=None):
        opts = opts if opts is not None else dist.BroadcastOptions()
        use = len(tensors) == 1 and _ok(tensors[0]) and opts.rootTensor == 0
        t = tensors[0] if len(tensors) == 1 else None
        self._agree("broadcast", int(use), getattr(t, "dtype", None),
                    -1 if t is None else t.numel(), root=opts.rootRank)
        if not use:
            return self._gloo.broadcast(tensors, opts)
        v, dt = _np(t)
        return self._start(self._comm.ibcast(v, root=opts.rootRank, dtype=dt), None, tensors)

    def allgather(self, output_tensors, input_tensors, opts=None):
        p = self.size()
        use = (len(input_tensors) == 1 and len(output_tensors) == 1
               and len(output_tensors[0]) == p and _ok(input_tensors[0], *output_tensors[0]))
        error = None
        if use:
            n = input_tensors[0].numel()
            if any(o.numel() != n for o in output_tensors[0]):
                error = ValueError("allgather: output tensors must have the input's size")
        t = input_tensors[0] if len(input_tensors) == 1 else None
        self._agree("allgather", int(use), getattr(t, "dtype", None),
                    -1 if t is None else t.numel(), error=error)
        if not use:
            return self._gloo.allgather(output_tensors, input_tensors)
        outs = output_tensors[0]
        flat = torch.empty(p * t.numel(), dtype=t.dtype)
        vi, dt = _np(t)
        vo, _ = _np(flat)
        req = self._comm.iallgather(vi.reshape(-1), vo, dtype=dt)

        def post():
            for o, piece in zip(outs, flat.split(t.numel())):
                o.copy_(piece.view(o.shape))
        return self._start(req, post, output_tensors)

    def _allgather_base(self, output, input, opts=None):
        use = _ok(input, output)
        error = None
        if use and output.numel() != self.size() * input.numel():
            error = ValueError(f"_allgather_base: output has {output.numel()} values, "
                               f"not world size x {input.numel()}")
        self._agree("_allgather_base", int(use), input.dtype, input.numel(), output.numel(),
                    error=error)
        if not use:
            return self._gloo._allgather_base(output, input)
        vi, dt = _np(input)
        vo, _ = _np(output)
        req = self._comm.iallgather(vi.reshape(-1), vo.reshape(-1), dtype=dt)
        return self._start(req, None, [output])

    def reduce_scatter(self, output_tensors, input_tensors, opts=None):
        opts = opts if opts is not None else dist.ReduceScatterOptions()
        p = self.size()
        op = _red_op(opts.reduceOp)
        use = (len(output_tensors) == 1 and len(input_tensors) == 1
               and len(input_tensors[0]) == p and op is not None
               and _ok(output_tensors[0], *input_tensors[0]))
        error = None
        out = output_tensors[0] if len(output_tensors) == 1 else None
        if use and any(i.numel() != out.numel() for i in input_tensors[0]):
            error = ValueError("reduce_scatter: input tensors must have the output's size")
        self._agree("reduce_scatter", int(use), getattr(out, "dtype", None),
                    -1 if out is None else out.numel(), op=op, error=error)
        if not use:
            return self._gloo.reduce_scatter(output_tensors, input_tensors, opts)
        send = torch.cat([i.reshape(-1) for i in input_tensors[0]])
        return self._reduce_scatter_flat(out, send, op, output_tensors)

    def _reduce_scatter_base(self, output, input, opts=None):
        opts = opts if opts is not None else dist.ReduceScatterOptions()
        op = _red_op(opts.reduceOp)
        use = _ok(output, input) and op is not None
        error = None
        if use and input.numel() != self.size() * output.numel():
            error = ValueError(f"_reduce_scatter_base: input has {input.numel()} values, "
                               f"not world size x {output.numel()}")
        self._agree("_reduce_scatter_base", int(use), output.dtype, output.numel(),
                    input.numel(), op=op, error=error)
        if not use:
            return self._gloo._reduce_scatter_base(output, input, opts)
        return self._reduce_scatter_flat(output, input, op, [output])

    def _reduce_scatter_flat(self, out, send, op, result):
        vs, dt = _np(send)
        vo, _ = _np(out)
        c = self._comm
        if op == "avg":
            c.set_average(True)
        try:
            req = c.ireduce_scatter_block(vs.reshape(-1), vo.reshape(-1),
                                          op="sum" if op == "avg" else op, dtype=dt)
        finally:
            if op == "avg":
                c.set_average(False)
        # the request holds send (a copy for reduce_scatter) until complete
        return self._start(req, None, result)

    def reduce(self, tensors, opts=None):
        opts = opts if opts is not None else dist.ReduceOptions()
        op = _red_op(opts.reduceOp)
        use = len(tensors) == 1 and _ok(tensors[0]) and op is not None and opts.rootTensor == 0
        t = tensors[0] if len(tensors) == 1 else None
        self._agree("reduce", int(use), getattr(t, "dtype", None),
                    -1 if t is None else t.numel(), root=opts.rootRank, op=op)
        if not use:
            return self._gloo.reduce(tensors, opts)
        v, dt = _np(t)
        c = self._comm
        root = opts.rootRank
        zop = "sum" if op == "avg" else op
        if op == "avg":
            c.set_average(True)
        try:
            if self.rank() == root:
                req = c.ireduce(IN_PLACE, v.reshape(-1), op=zop, root=root, dtype=dt)
            else:
                req = c.ireduce(v.reshape(-1), op=zop, root=root, dtype=dt)
        finally:
            if op == "avg":
                c.set_average(False)
        return self._start(req, None, tensors)

    def gather(self, output_tensors, input_tensors, opts=None):
        opts = opts if opts is not None else dist.GatherOptions()
        p, root = self.size(), opts.rootRank
        is_root = self.rank() == root
        t = input_tensors[0] if len(input_tensors) == 1 else None
        outs = output_tensors[0] if is_root and len(output_tensors) == 1 else []
        use = t is not None and _ok(t) and (not is_root or (len(outs) == p and _ok(t, *outs)))
        error = None
        if use and is_root and any(o.numel() != t.numel() for o in outs):
            error = ValueError("gather: output tensors must have the input's size")
        self._agree("gather", int(use), getattr(t, "dtype", None),
                    -1 if t is None else t.numel(), root=root, error=error)
        if not use:
            return self._gloo.gather(output_tensors, input_tensors, opts)
        vi, dt = _np(t)
        if not is_root:
            req = self._comm.igather(vi.reshape(-1), root=root, dtype=dt)
            return self._start(req, None, [])
        flat = torch.empty(p * t.numel(), dtype=t.dtype)
        vo, _ = _np(flat)
        req = self._comm.igather(vi.reshape(-1), vo, root=root, dtype=dt)

        def post():
            for o, piece in zip(outs, flat.split(t.numel())):
                o.copy_(piece.view(o.shape))
        return self._start(req, post, output_tensors)

    def scatter(self, output_tensors, input_tensors, opts=None):
        opts = opts if opts is not None else dist.ScatterOptions()
        p, root = self.size(), opts.rootRank
        is_root = self.rank() == root
        out = output_tensors[0] if len(output_tensors) == 1 else None
        ins = input_tensors[0] if is_root and len(input_tensors) == 1 else []
        use = out is not None and _ok(out) and (not is_root or (len(ins) == p and _ok(out, *ins)))
        error = None
        if use and is_root and any(i.numel() != out.numel() for i in ins):
            error = ValueError("scatter: input tensors must have the output's size")
        self._agree("scatter", int(use), getattr(out, "dtype", None),
                    -1 if out is None else out.numel(), root=root, error=error)
        if not use:
            return self._gloo.scatter(output_tensors, input_tensors, opts)
        vo, dt = _np(out)
        if is_root:
            send = torch.cat([i.reshape(-1) for i in ins])
            vs, _ = _np(send)
            req = self._comm.iscatter(vs, vo.reshape(-1), root=root, dtype=dt)
        else:
            req = self._comm.iscatter(None, vo.reshape(-1), root=root, dtype=dt)
        return self._start(req, None, output_tensors)

    def barrier(self, opts=None):
        self._agree("barrier", 1, None, 0)
        if self._threaded:
            return self._start(_MpiRequest(self._ctl.Ibarrier()), None, [])
        self._ctl.Barrier()
        return self._start(None, None, [])

    # -- everything else: the inner gloo group, unchanged --------------------------
    def alltoall(self, *args, **kw):
        return self._gloo.alltoall(*args, **kw)

    def alltoall_base(self, *args, **kw):
        return self._gloo.alltoall_base(*args, **kw)

    def allreduce_coalesced(self, *args, **kw):
        return self._gloo.allreduce_coalesced(*args, **kw)

    def allgather_coalesced(self, *args, **kw):
        return self._gloo.allgather_coalesced(*args, **kw)

    def send(self, *args, **kw):
        return self._gloo.send(*args, **kw)

    def recv(self, *args, **kw):
        return self._gloo.recv(*args, **kw)

    def recv_anysource(self, *args, **kw):
        return self._gloo.recv_anysource(*args, **kw)

    def monitored_barrier(self, *args, **kw):
        return self._gloo.monitored_barrier(*args, **kw)

    def _set_sequence_number_for_group(self):
        return self._gloo._set_sequence_number_for_group()

    def _get_sequence_number_for_group(self):
        return self._gloo._get_sequence_number_for_group()


class _MpiRequest:
    def __init__(self, r):
        self._r = r

    def wait(self):
        self._r.Wait()


class _Work(dist.Work):
    """What the zcoll calls return: wait() (raises the call's error),
    is_completed(), is_success(), exception(), result(), get_future().

    torch 1.13's trampoline (PyProcessGroup::PyWork) dispatches C++ callers
    (DDP's Reducer, broadcast_coalesced) to the Python wait and get_future only
    while the Python object lives, so the process group keeps each work alive
    until it is complete and has been waited on or had its future taken."""

    def __init__(self, pg, fut):
        super().__init__()
        self._pg = pg
        self._fut = fut
        self._used = False
        with pg._lock:
            _alive.add(self)
        fut.add_done_callback(lambda _f: self._release())

    def _release(self, used=False):
        with self._pg._lock:
            if used:
                self._used = True
            if self._used and self._fut.done():
                _alive.discard(self)

    def wait(self, timeout=None):
        try:
            self._fut.wait()  # raises the call's error
        finally:
            self._release(used=True)
        return True

    def get_future(self):
        self._release(used=True)
        return self._fut

    def is_completed(self):
        return self._fut.done()

    def is_success(self):
        if not self._fut.done():
            return False
        try:
            self._fut.value()
        except Exception:  # noqa: BLE001
            return False
        return True

    def exception(self):
        if not self._fut.done():
            return None
        try:
            self._fut.value()
        except Exception as e:  # noqa: BLE001
            return e
        return None

    def result(self):
        self.wait()
        return self._fut.value()

    def synchronize(self):
        pass

    def source_rank(self):
        raise RuntimeError("zcoll backend: source_rank is for recv_anysource")


#: the zcoll process groups created, oldest first (freed at exit, newest first)
_groups = []


@atexit.register
def _free_groups():
    # before mpi4py finalizes MPI (its handler was registered first, runs last); every
    # rank created the same groups in the same order, as torch.distributed requires
    if not _groups:
        return
    from mpi4py import MPI

    if MPI.Is_finalized():
        return
    for ref in reversed(_groups):
        pg = ref()
        if pg is not None:
            pg._shutdown()
    _groups.clear()
    _alive.clear()


#: works handed out and not yet complete and used (see _Work)
_alive = set()


def _create(dist_opts, pg_options=None):
    """The creator registered with torch.distributed.Backend (extended API)."""
    pg = ProcessGroupZcoll(dist_opts.store, dist_opts.group_rank, dist_opts.group_size,
                           dist_opts.timeout, options=pg_options)
    return pg


def set_default_options(**options):
    """Options for the "zcoll" process groups created from now on (as pg_options):
    mode, eb_mode, error_bound, threads, min_bytes, chunk_size, bound (zcoll.Comm's
    settings; left out: the library's defaults and the ZCOLL_* environment), check
    (agree across ranks before each call, default True), record (keep every
    call's report in pg.reports). Returns the previous defaults."""
    bad = sorted(set(options) - set(_OPTION_KEYS))
    if bad:
        raise ValueError(f"unknown options {bad} (known: {list(_OPTION_KEYS)})")
    global _defaults
    old, _defaults = _defaults, dict(options)
    return old


def _pg(pg):
    pg = pg if pg is not None else dist.distributed_c10d._get_default_group()
    if not isinstance(pg, ProcessGroupZcoll):
        raise TypeError(f"not a zcoll process group: {pg!r}")
    return pg


def set_options(pg=None, mode=None, eb_mode=None, error_bound=None):
    """Change a zcoll process group's mode and error bound for its following calls
    (pg None: the default group). Collective in effect: every rank must set the same."""
    pg = _pg(pg)
    if mode is not None:
        pg.comm.set_mode(mode)
    if (eb_mode is None) != (error_bound is None):
        raise ValueError("set eb_mode and error_bound together")
    if eb_mode is not None:
        pg.comm.set_error_bound(eb_mode, error_bound)


def last_report(pg=None):
    """The report of the group's last zcoll call (its ``error_bound`` bounds that
    call's error); waits for the group's pending calls first."""
    return _pg(pg).comm.last_report()


def register():
    """Register the "zcoll" backend with torch.distributed (done on import)."""
    if BACKEND.upper() not in dist.Backend._plugins:
        dist.Backend.register_backend(BACKEND, _create, extended_api=True)


register()
