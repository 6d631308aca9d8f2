"""Train a small model with DistributedDataParallel on the "zcoll"
torch.distributed backend: DDP's gradient buckets go through zcoll's
compressed Allreduce (here mode "hom", absolute error bound 1e-4), everything
else through gloo. The training loop is plain PyTorch.

    mpirun -np 2 python python/examples/torch_backend_ddp.py
    mpirun -np 2 python -m mpi4py python/examples/torch_backend_ddp.py   # an uncaught
                                  # exception on one rank aborts all (MPI_Abort)

Rank and world size come from the launcher (torchrun's RANK/WORLD_SIZE, MPICH's
PMI_RANK/PMI_SIZE, Open MPI's OMPI_COMM_WORLD_RANK/SIZE), MASTER_ADDR/MASTER_PORT
default to 127.0.0.1 and a free port chosen by rank 0. The processes must be
MPI processes (docs/python.md, "torch.distributed backend").
"""

import os
import socket

import torch
import torch.distributed as dist
from mpi4py import MPI
from torch.nn.parallel import DistributedDataParallel as DDP

import zcoll.torch  # registers the "zcoll" backend


def env_int(*names):
    for n in names:
        if n in os.environ:
            return int(os.environ[n])
    return None


def main():
    world = MPI.COMM_WORLD
    rank = env_int("RANK", "PMI_RANK", "OMPI_COMM_WORLD_RANK")
    size = env_int("WORLD_SIZE", "PMI_SIZE", "OMPI_COMM_WORLD_SIZE")
    rank = world.rank if rank is None else rank
    size = world.size if size is None else size
    os.environ.setdefault("MASTER_ADDR", "127.0.0.1")
    if "MASTER_PORT" not in os.environ:  # a free port on rank 0's host, told to all
        port = None
        if world.rank == 0:
            with socket.socket() as s:
                s.bind(("", 0))
                port = s.getsockname()[1]
        os.environ["MASTER_PORT"] = str(world.bcast(port, root=0))

    dist.init_process_group("zcoll", rank=rank, world_size=size, init_method="env://",
                            pg_options={"mode": "hom", "eb_mode": "abs", "error_bound": 1e-4})
    torch.set_num_threads(1)

    torch.manual_seed(0)  # the same initial model everywhere (DDP broadcasts it anyway)
    model = torch.nn.Sequential(torch.nn.Linear(32, 512), torch.nn.Tanh(),
                                torch.nn.Linear(512, 512), torch.nn.Tanh(),
                                torch.nn.Linear(512, 1))
    ddp = DDP(model)
    opt = torch.optim.SGD(ddp.parameters(), lr=0.05, momentum=0.9)

    g = torch.Generator().manual_seed(100 + rank)  # each rank its own data
    w_true = torch.randn(32, 1, generator=torch.Generator().manual_seed(1))
    for step in range(30):
        x = torch.randn(128, 32, generator=g)
        y = torch.tanh(x @ w_true / 4)
        opt.zero_grad()
        loss = torch.nn.functional.mse_loss(ddp(x), y)
        loss.backward()  # the buckets' allreduces overlap the backward pass
        opt.step()
        rep = zcoll.torch.last_report()  # the step's last gradient bucket
        mean = loss.detach().clone()
        dist.all_reduce(mean, op=dist.ReduceOp.AVG)  # 4 bytes: below min_bytes, plain MPI
        if rank == 0 and (step == 0 or step % 5 == 4):
            print(f"step {step + 1:2d}  loss {mean.item():.5f}  last bucket: {rep['count']} "
                  f"values, mode {rep['mode']}, {rep['bytes_uncompressed']} -> "
                  f"{rep['bytes_sent']} bytes sent, error bound {rep['error_bound']:.3g}")

    dist.destroy_process_group()


if __name__ == "__main__":
    main()
