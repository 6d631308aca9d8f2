"""A PyTorch DDP communication hook that averages gradient buckets with zcoll's
compressed Allreduce over an mpi4py communicator.

    from mpi4py import MPI
    import zcoll.torch
    state = zcoll.torch.AllreduceState(MPI.COMM_WORLD, mode="hom", eb_mode="abs",
                                       error_bound=1e-4)
    ddp_model.register_comm_hook(state, zcoll.torch.allreduce_hook)

As torch's default hook, each bucket is divided by the world size and then
summed, in place, on a zero-copy numpy view of the bucket (a flat CPU tensor,
float32, float64, float16 or bfloat16, the 16-bit ones accumulated in float32,
docs/python.md);
the returned future is already completed. The process
group DDP runs on (e.g. gloo) is not used by the hook: the mpi4py communicator
must hold the same processes in the same order. ``state.last_report`` holds the
report of the last bucket (``record=True`` keeps them all in ``state.reports``).
"""

import torch

from .comm import IN_PLACE, Comm


class AllreduceState:
    """The hook's state: a zcoll.Comm over ``comm`` (an mpi4py communicator) with
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

    def free(self):
        self.comm.free()


def allreduce_hook(state, bucket):
    """DDP communication hook: the bucket's mean over ranks through zcoll."""
    t = bucket.buffer()
    if t.device.type != "cpu":
        raise TypeError(f"zcoll.torch.allreduce_hook: the bucket is on {t.device}, not the CPU")
    if t.dtype not in (torch.float32, torch.float64, torch.float16, torch.bfloat16):
        raise TypeError(f"zcoll.torch.allreduce_hook: bucket dtype {t.dtype} "
                        "(float32/float64/float16/bfloat16)")
    if not t.is_contiguous():
        raise ValueError("zcoll.torch.allreduce_hook: the bucket is not contiguous")
    t.div_(state.size)  # as torch's allreduce_hook: divide first, then sum
    if t.dtype == torch.bfloat16:  # numpy has no bfloat16: the bits, shared
        state.comm.allreduce(IN_PLACE, t.detach().view(torch.int16).numpy(), dtype="bfloat16")
    else:
        view = t.detach().numpy()  # shares the bucket's memory
        state.comm.allreduce(IN_PLACE, view)
    state.buckets += 1
    state.last_report = state.comm.last_report()
    if state.record:
        state.reports.append(state.last_report)
    fut = torch.futures.Future()
    fut.set_result(t)
    return fut
