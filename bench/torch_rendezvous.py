"""The rendezvous of the PyTorch benchmarks (bench/ddp, bench/train): MPI processes
(mpiexec, or tools/netcluster's hosts) start torch.distributed's default gloo group."""

import os
import socket

import torch.distributed as dist


def gloo_address():
    """Rank 0's address for gloo: its address towards tools/netcluster's switch
    (10.77.0.254) when it has one, else 127.0.0.1 (one machine)."""
    if "MASTER_ADDR" in os.environ:
        return os.environ["MASTER_ADDR"]
    try:
        s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        s.connect(("10.77.0.254", 9))  # no packet is sent: only the route is looked up
        addr = s.getsockname()[0]
        s.close()
        if addr.startswith("10.77.0."):
            return addr
    except OSError:
        pass
    return "127.0.0.1"


def init_gloo(comm):
    """init_process_group("gloo") over the MPI communicator's processes: rank 0 picks its
    address and a free port, every rank learns them by MPI broadcast."""
    addr = gloo_address() if comm.rank == 0 else None
    port = None
    if comm.rank == 0:
        s = socket.socket()
        s.bind((addr, 0))
        port = s.getsockname()[1]
        s.close()
    os.environ["MASTER_ADDR"] = comm.bcast(addr, root=0)
    os.environ["MASTER_PORT"] = str(comm.bcast(port, root=0))
    if os.environ["MASTER_ADDR"].startswith("10.77.0."):
        # tools/netcluster: gloo would announce the address of the host name (zc-hN,
        # which resolves to nothing here, so loopback); the hosts' interface is zc0
        os.environ.setdefault("GLOO_SOCKET_IFNAME", "zc0")
    dist.init_process_group("gloo", rank=comm.rank, world_size=comm.size)
