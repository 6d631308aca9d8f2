"""The "zcoll" torch.distributed backend (zcoll.torch_backend) under
`mpirun -np 2` (or more): every collective it serves through zcoll against an
exact float64 reference computed by a gloo group over the same ranks, within
the call's reported bound; the calls it hands to gloo bit for bit against gloo;
the async path; errors raised on every rank; an unmodified DDP training loop
on init_process_group("zcoll") against the same loop on gloo. One process:
skipped (the backend needs two ranks to be worth testing)."""

import os

import numpy as np
import pytest

MPI = pytest.importorskip("mpi4py.MPI")
torch = pytest.importorskip("torch")
dist = pytest.importorskip("torch.distributed")

import zcoll  # noqa: E402
import zcoll.torch as zt  # noqa: E402

W = MPI.COMM_WORLD
P, R = W.size, W.rank
pytestmark = pytest.mark.skipif(P < 2, reason="run under mpirun -np 2")

EB = 1e-4
DTYPES = [torch.float32, torch.float64, torch.float16, torch.bfloat16]
DT_IDS = ["f32", "f64", "f16", "bf16"]
N = 20_000


@pytest.fixture(scope="module")
def gloo():
    """The default group on the "zcoll" backend (mode hom, ABS 1e-4, every call
    compressed), and a gloo group over the same ranks for the references."""
    if R == 0:
        import socket

        s = socket.socket()
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
        s.close()
    else:
        port = None
    os.environ["MASTER_ADDR"] = "127.0.0.1"
    os.environ["MASTER_PORT"] = str(W.bcast(port, root=0))
    torch.set_num_threads(1)  # the ranks share the machine
    dist.init_process_group("zcoll", rank=R, world_size=P, init_method="env://",
                            pg_options={"mode": "hom", "eb_mode": "abs", "error_bound": EB,
                                        "min_bytes": 0, "record": True})
    g = dist.new_group(backend="gloo")
    yield g
    dist.destroy_process_group()


def data(n, dtype, lo=-1.0, hi=1.0, salt=0):
    g = torch.Generator().manual_seed(1000 * salt + R)
    return (lo + (hi - lo) * torch.rand(n, generator=g, dtype=torch.float64)).to(dtype)


def f64(x):
    """A float64 copy (x.double() is x itself for float64)."""
    return x.to(torch.float64, copy=True)


def check(got, want, what):
    """|got - want| within the last call's reported bound (plus, for float32 and
    float64, the accumulation's own rounding; 16-bit results count their
    rounding in the bound)."""
    rep = zt.last_report()
    bound = rep["error_bound"]
    slack = 0.0
    if got.dtype in (torch.float32, torch.float64):
        slack = 4 * torch.finfo(got.dtype).eps * float(want.abs().max()) if want.numel() else 0
    err = float((got.double() - want.double()).abs().max()) if want.numel() else 0.0
    assert err <= bound * (1 + 1e-9) + slack, f"{what}: error {err} > bound {bound} + {slack}"
    assert rep["status"] in ("ok", "OK", 0) or rep.get("reason") is not None


def test_backend_is_zcoll(gloo):
    assert dist.get_backend() == "zcoll"
    pg = dist.distributed_c10d._get_default_group()
    assert isinstance(pg, zt.torch_backend.ProcessGroupZcoll)
    cfg = pg.comm.config()
    assert (cfg["mode"], cfg["eb_mode"], cfg["error_bound"], cfg["min_bytes"]) == \
        ("hom", "abs", EB, 0)  # the pg_options given to init_process_group


@pytest.mark.parametrize("dtype", DTYPES, ids=DT_IDS)
@pytest.mark.parametrize("op", ["SUM", "AVG", "MAX", "MIN", "PRODUCT"])
def test_allreduce(gloo, dtype, op):
    lo, hi = (0.5, 1.5) if op == "PRODUCT" else (-1.0, 1.0)
    x = data(N, dtype, lo, hi)
    ref = f64(x)
    dist.all_reduce(ref, op=dist.ReduceOp.SUM if op == "AVG" else getattr(dist.ReduceOp, op),
                    group=gloo)
    if op == "AVG":
        ref /= P
    y = x.clone()
    dist.all_reduce(y, op=getattr(dist.ReduceOp, op))
    assert zt.last_report()["collective"] == "allreduce"
    check(y, ref, f"allreduce {op}")


@pytest.mark.parametrize("dtype", DTYPES, ids=DT_IDS)
def test_reduce_scatter(gloo, dtype):
    k = N // P
    x = data(k * P, dtype)
    ref = f64(x)
    dist.all_reduce(ref, group=gloo)  # gloo 1.13 has no reduce_scatter
    want = ref[R * k:(R + 1) * k]
    out = torch.empty(k, dtype=dtype)
    dist.reduce_scatter(out, list(x.split(k)))
    check(out, want, "reduce_scatter")
    out2 = torch.empty(k, dtype=dtype)
    dist.reduce_scatter_tensor(out2, x)  # _reduce_scatter_base
    check(out2, want, "reduce_scatter_tensor")
    out3 = torch.empty(k, dtype=dtype)
    dist.reduce_scatter_tensor(out3, x, op=dist.ReduceOp.AVG)
    check(out3, want / P, "reduce_scatter_tensor AVG")


@pytest.mark.parametrize("dtype", DTYPES, ids=DT_IDS)
def test_allgather_broadcast_reduce_gather_scatter(gloo, dtype):
    n = 6000  # divisible by 2 and 3 ranks
    x = data(n, dtype, salt=1)
    refs = [torch.empty(n, dtype=torch.float64) for _ in range(P)]
    dist.all_gather(refs, f64(x), group=gloo)
    outs = [torch.empty(n, dtype=dtype) for _ in range(P)]
    dist.all_gather(outs, x)
    for o, r in zip(outs, refs):
        check(o, r, "all_gather")
    flat = torch.empty(P * n, dtype=dtype)
    dist.all_gather_into_tensor(flat, x)  # _allgather_base (gloo 1.13 has none)
    check(flat, torch.cat(refs), "all_gather_into_tensor")

    root = P - 1
    b = x.clone()
    dist.broadcast(b, src=root)
    check(b, refs[root], "broadcast")

    red = f64(x)
    dist.reduce(red, dst=root, group=gloo)
    y = x.clone()
    dist.reduce(y, dst=root)
    if R == root:
        check(y, red, "reduce")

    got = [torch.empty(n, dtype=dtype) for _ in range(P)] if R == root else None
    dist.gather(x, got, dst=root)
    if R == root:
        for o, r in zip(got, refs):
            check(o, r, "gather")

    s = torch.empty(n // P, dtype=dtype)
    dist.scatter(s, list(x.split(n // P)) if R == root else None, src=root)
    want = refs[root][R * (n // P):(R + 1) * (n // P)]
    check(s, want, "scatter")
    dist.barrier()


@pytest.mark.parametrize("shape", [(0,), (), (3, 700)], ids=["empty", "scalar", "2d"])
def test_shapes(gloo, shape):
    """Empty, 0-dim and 2-D tensors through the collectives, against mpi4py's
    float64 results (gloo 1.13's all_gather of empty tensors dies of SIGFPE)."""
    x = data(int(np.prod(shape)), torch.float32, salt=5).reshape(shape)
    refs = [torch.from_numpy(a) for a in W.allgather(f64(x).numpy())]
    ref = sum(refs)
    y = x.clone()
    dist.all_reduce(y)
    check(y, ref, "all_reduce")
    assert y.shape == shape
    outs = [torch.empty(shape) for _ in range(P)]
    dist.all_gather(outs, x)
    for o, r in zip(outs, refs):
        check(o, r, "all_gather")
    flat = torch.empty((P,) + shape)
    dist.all_gather_into_tensor(flat, x)
    check(flat, torch.stack(refs), "all_gather_into_tensor")
    out = torch.empty(shape)
    dist.reduce_scatter(out, [x] * P)  # every block is x: each rank gets the sum of x
    check(out, ref, "reduce_scatter")
    b = x.clone()
    dist.broadcast(b, src=0)
    check(b, refs[0], "broadcast")


def test_subgroup_with_its_own_options(gloo):
    """new_group(backend="zcoll") over two of the ranks, with its own settings:
    its MPI communicator holds those ranks' processes in the group's order."""
    ranks = [0, P - 1]
    sub = dist.new_group(ranks, backend="zcoll",
                         pg_options={"mode": "doc", "eb_mode": "abs", "error_bound": 1e-3,
                                     "min_bytes": 0})
    ref_g = dist.new_group(ranks, backend="gloo")
    if R not in ranks:
        assert sub == dist.GroupMember.NON_GROUP_MEMBER
        return
    assert sub.size() == 2 and sub.rank() == ranks.index(R)
    x = data(N, torch.float32, salt=4)
    ref = f64(x)
    dist.all_reduce(ref, group=ref_g)
    dist.all_reduce(x, group=sub)
    rep = zt.last_report(sub)
    assert (rep["mode"], sub.comm.config()["error_bound"]) == ("doc", 1e-3)
    err = float((x.double() - ref).abs().max())
    assert 0 < err <= rep["error_bound"] + 4 * torch.finfo(torch.float32).eps * 2


def test_ddp_buckets_run_nonblocking(gloo):
    """async_op: the work is pending while this rank computes, then wait()
    gives the result; the future carries it too."""
    x = data(200_000, torch.float32, salt=2)
    ref = f64(x)
    dist.all_reduce(ref, group=gloo)
    y = x.clone()
    work = dist.all_reduce(y, async_op=True)
    a = torch.rand(200, 200)
    for _ in range(20):
        a = torch.tanh(a @ a / 200)  # some compute meanwhile
    assert work.wait() is True
    assert work.is_completed() and work.is_success()
    check(y, ref, "async allreduce")
    fut = dist.all_reduce(x.clone(), async_op=True).get_future()
    (res,) = fut.wait()
    check(res, ref, "async allreduce future")


@pytest.mark.parametrize("dtype", [torch.int32, torch.int64, torch.uint8], ids=["i32", "i64", "u8"])
def test_integer_tensors_go_to_gloo(gloo, dtype):
    x = (torch.arange(1000) * (R + 3) % 97).to(dtype)
    for op in (dist.ReduceOp.SUM, dist.ReduceOp.MAX, dist.ReduceOp.BAND):
        a, b = x.clone(), x.clone()
        dist.all_reduce(a, op=op)
        dist.all_reduce(b, op=op, group=gloo)
        assert torch.equal(a, b)
    outs = [torch.empty_like(x) for _ in range(P)]
    refs = [torch.empty_like(x) for _ in range(P)]
    dist.all_gather(outs, x)
    dist.all_gather(refs, x, group=gloo)
    assert all(torch.equal(o, r) for o, r in zip(outs, refs))
    b = x.clone()
    dist.broadcast(b, src=0)
    c = x.clone()
    dist.broadcast(c, src=0, group=gloo)
    assert torch.equal(b, c)


def test_alltoall_send_recv_noncontiguous_go_to_gloo(gloo):
    x = torch.arange(4.0 * P) + 100 * R
    a, b = torch.empty_like(x), torch.empty_like(x)
    dist.all_to_all_single(a, x)
    dist.all_to_all_single(b, x, group=gloo)
    assert torch.equal(a, b)
    # gloo 1.13 has no list all_to_all: the same error as on gloo
    for group in (None, gloo):
        with pytest.raises(RuntimeError, match="does not support alltoall"):
            dist.all_to_all([torch.empty(2) for _ in range(P)],
                            [torch.full((2,), float(R * P + i)) for i in range(P)], group=group)
    # send/recv around a ring
    t = torch.full((3,), float(R))
    r = torch.empty(3)
    reqs = [dist.isend(t, (R + 1) % P), dist.irecv(r, (R - 1) % P)]
    for q in reqs:
        q.wait()
    assert torch.equal(r, torch.full((3,), float((R - 1) % P)))
    # a non-contiguous float tensor: gloo's result, bit for bit
    m = data(64, torch.float32, salt=3).reshape(8, 8)
    a, b = m.clone().t(), m.clone().t()
    assert not a.is_contiguous()
    dist.all_reduce(a)
    dist.all_reduce(b, group=gloo)
    assert torch.equal(a, b)


def _raises_everywhere(fn, match):
    """fn raises on this rank; every rank saw its own exception (none hangs)."""
    with pytest.raises((RuntimeError, zcoll.ZcollError), match=match):
        fn()
    assert W.allreduce(1) == P  # every rank is here, with the group still usable
    y = torch.ones(100)
    dist.all_reduce(y)
    assert torch.allclose(y, torch.full((100,), float(P)), atol=1e-3)


def test_errors_on_every_rank(gloo):
    # sizes that differ across ranks
    _raises_everywhere(lambda: dist.all_reduce(torch.ones(100 + R)), "different input size")
    # float on one rank, int on the other: zcoll there, gloo here
    t = torch.ones(100) if R == 0 else torch.ones(100, dtype=torch.int32)
    _raises_everywhere(lambda: dist.all_reduce(t), "different route")
    # a roots that differ
    _raises_everywhere(lambda: dist.broadcast(torch.ones(10), src=R), "different root")
    # a local error on one rank only (output of the wrong size)
    out = torch.empty(P * 10 + (R == 0))
    _raises_everywhere(lambda: dist.all_gather_into_tensor(out, torch.ones(10)),
                       "failed on some rank")
    # settings that differ: zcoll's own check, raised by wait() on every rank
    zt.set_options(eb_mode="abs", error_bound=EB * (1 + R))
    try:
        w = dist.all_reduce(torch.ones(1000), async_op=True)
        with pytest.raises(zcoll.ZcollError, match="settings differ"):
            w.wait()
        assert w.is_completed() and not w.is_success()
        assert isinstance(w.exception(), zcoll.ZcollError)
    finally:
        zt.set_options(eb_mode="abs", error_bound=EB)
    _raises_everywhere(lambda: dist.all_reduce(torch.ones(7, dtype=torch.bfloat16),
                                               op=dist.ReduceOp.BAND), "Invalid scalar type|BAND")


STEPS, LR = 8, 0.05


def _train(group):
    from torch.nn.parallel import DistributedDataParallel as DDP

    torch.manual_seed(0)  # the same initial parameters on every rank and both runs
    model = torch.nn.Sequential(torch.nn.Linear(32, 512), torch.nn.Tanh(),
                                torch.nn.Linear(512, 512), torch.nn.Tanh(),
                                torch.nn.Linear(512, 1))
    # 1.1 MB of parameters: more than one bucket a step
    ddp = DDP(model, process_group=group, bucket_cap_mb=0.25)
    opt = torch.optim.SGD(ddp.parameters(), lr=LR)
    g = torch.Generator().manual_seed(100 + R)
    w_true = torch.randn(32, 1, generator=torch.Generator().manual_seed(1))
    losses = []
    for _ in range(STEPS):
        x = torch.randn(128, 32, generator=g)
        y = torch.tanh(x @ w_true / 4)
        opt.zero_grad()
        loss = torch.nn.functional.mse_loss(ddp(x), y)
        loss.backward()
        opt.step()
        losses.append(loss.item())
    return losses, torch.cat([p.detach().flatten() for p in model.parameters()])


def test_ddp_training_on_the_zcoll_backend(gloo):
    pg = dist.distributed_c10d._get_default_group()
    before = len(pg.reports)
    losses, params = _train(None)  # the default group: "zcoll"
    reports = pg.reports[before:]
    ref_losses, ref_params = _train(gloo)
    # DDP's buckets went through zcoll's compressed allreduce
    buckets = [r for r in reports if r["collective"] == "allreduce"]
    assert len(buckets) > STEPS, len(buckets)  # more than one bucket a step
    assert all(r["mode"] == "hom" for r in buckets)
    assert losses[-1] < 0.8 * losses[0], losses
    # each step moves every parameter by LR x (its averaged gradient), whose
    # error is within the bucket's bound: over STEPS steps the parameters stay
    # within LR x the summed bounds of the gloo run's (x2 for the gradients'
    # own change with the slightly different parameters)
    per_step = max(r["error_bound"] for r in buckets)
    diff = float((params - ref_params).abs().max())
    if R == 0:
        print(f"\nDDP on zcoll: loss {losses[0]:.4g} -> {losses[-1]:.4g} "
              f"(gloo {ref_losses[-1]:.4g}), {len(buckets)} buckets, bound {per_step:.3g}, "
              f"largest parameter difference {diff:.3g} (allowed {2 * LR * STEPS * per_step:.3g})")
    assert diff <= 2 * LR * STEPS * per_step, (diff, per_step)
    assert np.allclose(losses, ref_losses, rtol=1e-3, atol=1e-5)
    # the group let go of every Work DDP used (their futures' callbacks may lag a little)
    import time

    for _ in range(100):
        if not zt.torch_backend._alive:
            break
        time.sleep(0.01)
    assert not zt.torch_backend._alive
