"""PyTorch DDP communication hooks that average gradient buckets with zcoll's
compressed Allreduce over an mpi4py communicator.

    from mpi4py import MPI
    import zcoll.torch
    state = zcoll.torch.AllreduceState(MPI.COMM_WORLD, mode="hom", eb_mode="abs",
                                       error_bound=1e-4)
    ddp_model.register_comm_hook(state, zcoll.torch.nonblocking_allreduce_hook)

As torch's default hook, each bucket is divided by the world size and then
summed, in place, on a zero-copy numpy view of the bucket (a flat CPU tensor,
float32, float64, float16 or bfloat16, the 16-bit ones accumulated in float32,
docs/python.md). The process group DDP runs on (e.g. gloo) is not used by
the hooks: the mpi4py communicator must hold the same processes in the same
order.

Two hooks (docs/python.md, docs/nonblocking.md):

* ``nonblocking_allreduce_hook`` starts the bucket's Allreduce
  (``Comm.iallreduce``) and returns a ``torch.futures.Future`` that the state's
  waiter thread completes when the call has run, so that the backward pass
  goes on computing the next buckets' gradients meanwhile, as with DDP's own
  hook. It needs MPI_THREAD_MULTIPLE (mpi4py's default) for the overlap;
  without it each call runs at its start.
* ``allreduce_hook`` runs the whole Allreduce inside the hook and returns an
  already-completed future (no overlap with the backward pass).

``state.last_report`` holds the report of the last bucket completed (with its
``error_bound``); ``record=True`` keeps them all, in bucket order, in
``state.reports``. ``state.free()`` (collective) ends the waiter thread and
frees the handle.

Importing this module also registers the torch.distributed backend "zcoll"
(zcoll.torch_backend): ``dist.init_process_group("zcoll", ...)`` runs the
process group's collectives through zcoll, with no hook to register;
``set_options``, ``set_default_options`` and ``last_report`` are its settings
and reports.
"""

import queue
import threading

import torch

from .comm import IN_PLACE, Comm


class AllreduceState:
    """The hooks' state: a zcoll.Comm over ``comm`` (an mpi4py communicator) with
    the given settings (as zcoll.Comm; min_bytes defaults to 0 here so that every
    bucket is compressed)."""

    def __init__(self, comm, mode="hom", eb_mode="abs", error_bound=1e-4, threads=1,
                 min_bytes=0, chunk_size=None, bound=None, record=False):
        self.comm = Comm(comm, mode=mode, eb_mode=eb_mode, error_bound=error_bound,
                         threads=threads, min_bytes=min_bytes, chunk_size=chunk_size,
                         bound=bound)
        self.size = self.comm.size
        self.record = record
        self.reports = []
        self.last_report = None
        self.buckets = 0
        self._pending = None  # the waiter's queue, made at the first nonblocking bucket
        self._waiter = None

    def _report(self, rep):
        self.last_report = rep
        if self.record:
            self.reports.append(rep)

    def _submit(self, req, fut, tensor):
        if self._waiter is None:
            self._pending = queue.Queue()
            self._waiter = threading.Thread(target=self._wait_loop, name="zcoll-ddp-waiter",
                                            daemon=True)
            self._waiter.start()
        self._pending.put((req, fut, tensor))

    def _wait_loop(self):
        # requests complete in the order they started: wait for them in that order
        while True:
            item = self._pending.get()
            if item is None:
                return
            req, fut, tensor = item
            try:
                req.wait()  # the GIL is released while waiting
                self._report(req.report())
            except Exception as e:  # noqa: BLE001 - handed to DDP through the future
                fut.set_exception(e)
            else:
                fut.set_result(tensor)

    def free(self):
        """Wait for the pending buckets, end the waiter thread, free the handle
        (collective over the communicator)."""
        if self._waiter is not None:
            self._pending.put(None)
            self._waiter.join()
            self._waiter = None
        self.comm.free()


def _bucket_view(bucket, hook, size):
    """The bucket, divided by the world size first (as torch's allreduce_hook),
    a numpy view of its memory and the dtype argument of the call (bfloat16:
    the bits as int16)."""
    t = bucket.buffer()
    if t.device.type != "cpu":
        raise TypeError(f"zcoll.torch.{hook}: the bucket is on {t.device}, not the CPU")
    if t.dtype not in (torch.float32, torch.float64, torch.float16, torch.bfloat16):
        raise TypeError(f"zcoll.torch.{hook}: bucket dtype {t.dtype} "
                        "(float32/float64/float16/bfloat16)")
    if not t.is_contiguous():
        raise ValueError(f"zcoll.torch.{hook}: the bucket is not contiguous")
    t.div_(size)  # as torch's allreduce_hook: divide first, then sum
    if t.dtype == torch.bfloat16:  # numpy has no bfloat16: the bits, shared
        return t, t.detach().view(torch.int16).numpy(), "bfloat16"
    return t, t.detach().numpy(), None  # the view shares the bucket's memory


def allreduce_hook(state, bucket):
    """DDP communication hook: the bucket's mean over ranks through zcoll,
    complete when the hook returns."""
    t, view, dtype = _bucket_view(bucket, "allreduce_hook", state.size)
    state.comm.allreduce(IN_PLACE, view, dtype=dtype)
    state.buckets += 1
    state._report(state.comm.last_report())
    fut = torch.futures.Future()
    fut.set_result(t)
    return fut


def nonblocking_allreduce_hook(state, bucket):
    """DDP communication hook: starts the bucket's mean over ranks through zcoll
    and returns a future that completes when it has run (the backward pass
    goes on meanwhile)."""
    t, view, dtype = _bucket_view(bucket, "nonblocking_allreduce_hook", state.size)
    req = state.comm.iallreduce(IN_PLACE, view, dtype=dtype)  # the request holds the bucket's memory
    state.buckets += 1
    fut = torch.futures.Future()
    state._submit(req, fut, t)
    return fut


__all__ = ["AllreduceState", "allreduce_hook", "nonblocking_allreduce_hook"]

# the "zcoll" torch.distributed backend (zcoll.torch_backend) registers on import,
# where torch is built with torch.distributed
if torch.distributed.is_available():
    from . import torch_backend  # noqa: E402
    from .torch_backend import (  # noqa: E402
        last_report,
        set_default_options,
        set_options,
    )

    __all__ += ["torch_backend", "set_options", "set_default_options", "last_report"]
