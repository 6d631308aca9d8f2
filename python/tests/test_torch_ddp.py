"""zcoll.torch's DDP hooks: two ranks (mpirun -np 2) train a small model on
synthetic data with the default DDP allreduce and with zcoll's hooks, the
blocking allreduce_hook and nonblocking_allreduce_hook (which returns a pending
future); the loss curves stay close, every bucket's error is within its
reported bound, and mode "mpi" gives bit-identical parameters to the default."""

import os

import numpy as np
import pytest

MPI = pytest.importorskip("mpi4py.MPI")
torch = pytest.importorskip("torch")
dist = pytest.importorskip("torch.distributed")

import zcoll.torch as zt  # noqa: E402

W = MPI.COMM_WORLD
STEPS = 30
BATCH = 64
pytestmark = pytest.mark.skipif(W.size != 2, reason="run under mpirun -np 2")


@pytest.fixture(scope="module")
def gloo():
    """A gloo process group over the same ranks as MPI.COMM_WORLD."""
    if W.rank == 0:
        import socket

        s = socket.socket()
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
        s.close()
    else:
        port = None
    os.environ["MASTER_ADDR"] = "127.0.0.1"
    os.environ["MASTER_PORT"] = str(W.bcast(port, root=0))
    dist.init_process_group("gloo", rank=W.rank, world_size=W.size)
    yield
    dist.destroy_process_group()


def model():
    torch.set_num_threads(1)  # two ranks share the machine (and MPI polls)
    torch.manual_seed(0)  # the same initial parameters on every rank and every run
    # 1.2 MB of parameters: DDP's first bucket holds 1 MB, so two buckets per step
    return torch.nn.Sequential(torch.nn.Linear(64, 512), torch.nn.Tanh(),
                               torch.nn.Linear(512, 512), torch.nn.Tanh(), torch.nn.Linear(512, 1))


def batches():
    g = torch.Generator().manual_seed(100 + W.rank)  # each rank its own data
    w_true = torch.randn(64, 1, generator=torch.Generator().manual_seed(1))
    # BATCH samples a step: the gradients (what the hooks reduce) have the model's size
    # whatever the batch; a small batch keeps the reference BLAS's compute short
    for _ in range(STEPS):
        x = torch.randn(BATCH, 64, generator=g)
        yield x, torch.tanh(x @ w_true / 8) + 0.05 * torch.randn(BATCH, 1, generator=g)


def train(hook=None, state=None):
    from torch.nn.parallel import DistributedDataParallel as DDP

    ddp = DDP(model(), bucket_cap_mb=0.5)  # several buckets per step
    if hook is not None:
        ddp.register_comm_hook(state, hook)
    opt = torch.optim.SGD(ddp.parameters(), lr=0.02, momentum=0.9)
    losses = []
    for x, y in batches():
        opt.zero_grad()
        loss = torch.nn.functional.mse_loss(ddp(x), y)
        loss.backward()
        opt.step()
        losses.append(loss.item())
    # the mean loss over ranks, once at the end (no MPI call inside the training loop)
    losses = np.array(W.allreduce(np.array(losses))) / W.size
    params = torch.cat([p.detach().flatten() for p in ddp.module.parameters()]).numpy().copy()
    return losses, params


class CheckedState(zt.AllreduceState):
    """Records, per bucket, the error against an exact float64 mean (mpi4py)."""

    def __init__(self, *a, **kw):
        super().__init__(*a, **kw)
        self.checks = []


def checked_hook(state, bucket):
    before = bucket.buffer().detach().numpy().astype(np.float64)
    fut = zt.allreduce_hook(state, bucket)
    got = fut.value().detach().numpy().astype(np.float64)
    exact = np.empty_like(before)
    W.Allreduce(before / W.size, exact, op=MPI.SUM)
    absum = np.empty_like(before)
    W.Allreduce(np.abs(before) / W.size, absum, op=MPI.SUM)
    rep = state.last_report
    # the rounding of the division and of the float32 sum come on top of the bound
    slack = (W.size + 2) * np.finfo(np.float32).eps / 2 * absum
    state.checks.append((float(np.max(np.abs(got - exact) - slack)), rep["error_bound"],
                         rep["mode"], got.size))
    return fut


@pytest.fixture(scope="module")
def reference(gloo):
    """The default DDP allreduce (gloo): losses, parameters, seconds."""
    import time

    t0 = time.perf_counter()
    losses, params = train()
    return losses, params, time.perf_counter() - t0


def test_ddp_hook(reference, capsys):
    import time

    ref_losses, ref_params, t_ref = reference
    t0 = time.perf_counter()

    mpi_state = zt.AllreduceState(W, mode="mpi")
    mpi_losses, mpi_params = train(zt.allreduce_hook, mpi_state)
    assert mpi_state.buckets >= 2 * STEPS - 1  # two buckets a step (one before DDP's rebuild)
    assert np.array_equal(mpi_params, ref_params), "mode mpi must match the default bit for bit"
    assert np.array_equal(mpi_losses, ref_losses)
    mpi_state.free()
    t_mpi = time.perf_counter() - t0

    eb = 1e-4
    hom = CheckedState(W, mode="hom", eb_mode="abs", error_bound=eb)
    hom_losses, hom_params = train(checked_hook, hom)
    assert len(hom.checks) == hom.buckets >= 2 * STEPS - 1
    for excess, bound, mode, n in hom.checks:
        assert mode == "hom"
        assert 0 < bound <= W.size * eb * (1 + 1e-9)
        assert excess <= bound, f"bucket of {n} values: error {excess} over its bound {bound}"
    gap = np.abs(hom_losses - ref_losses)
    rel = gap / np.abs(ref_losses)
    # the loss falls and the compressed run follows the default closely
    assert ref_losses[-1] < 0.5 * ref_losses[0]
    assert rel.max() < 0.02, f"loss gap {rel.max():.3g} (relative)"
    if W.rank == 0:
        with capsys.disabled():
            print(f"\nDDP {STEPS} steps, 2 ranks: loss {ref_losses[0]:.4f} -> {ref_losses[-1]:.6f}"
                  f" (default); zcoll hom abs {eb}: max |loss gap| {gap.max():.3g} "
                  f"(relative {rel.max():.3g}), final gap {gap[-1]:.3g}; "
                  f"max |param diff| {np.abs(hom_params - ref_params).max():.3g}; "
                  f"{len(hom.checks)} buckets within bound; "
                  f"{t_ref:.1f} s default, {t_mpi:.1f} s mode mpi")
    hom.free()


def checked_nonblocking_hook(state, bucket):
    """The exact mean first (mpi4py, blocking), then the nonblocking hook; the
    check runs when the hook's future completes (on the waiter thread)."""
    before = bucket.buffer().detach().numpy().astype(np.float64)
    exact = np.empty_like(before)
    W.Allreduce(before / W.size, exact, op=MPI.SUM)
    absum = np.empty_like(before)
    W.Allreduce(np.abs(before) / W.size, absum, op=MPI.SUM)
    fut = zt.nonblocking_allreduce_hook(state, bucket)

    def check(f):
        t = f.value()
        got = t.detach().numpy().astype(np.float64)
        rep = state.last_report  # this bucket's: set just before the future completed
        slack = (W.size + 2) * np.finfo(np.float32).eps / 2 * absum
        state.checks.append((float(np.max(np.abs(got - exact) - slack)), rep["error_bound"],
                             rep["mode"], got.size, rep["count"]))
        return t

    return fut.then(check)


def test_ddp_nonblocking_hook(reference, capsys):
    import time

    ref_losses, ref_params, t_ref = reference

    # mode mpi through the nonblocking hook: bit for bit the default
    mpi_state = zt.AllreduceState(W, mode="mpi")
    t0 = time.perf_counter()
    mpi_losses, mpi_params = train(zt.nonblocking_allreduce_hook, mpi_state)
    t_mpi = time.perf_counter() - t0
    assert mpi_state.comm.progress_thread
    assert mpi_state.buckets >= 2 * STEPS - 1
    assert np.array_equal(mpi_params, ref_params), "mode mpi must match the default bit for bit"
    assert np.array_equal(mpi_losses, ref_losses)
    mpi_state.free()

    # hom: every bucket within its reported bound, the loss follows the default
    eb = 1e-4
    hom = CheckedState(W, mode="hom", eb_mode="abs", error_bound=eb, record=True)
    hom_losses, hom_params = train(checked_nonblocking_hook, hom)
    assert len(hom.checks) == hom.buckets == len(hom.reports) >= 2 * STEPS - 1
    for excess, bound, mode, n, count in hom.checks:
        assert mode == "hom" and count == n
        assert 0 < bound <= W.size * eb * (1 + 1e-9)
        assert excess <= bound, f"bucket of {n} values: error {excess} over its bound {bound}"
    gap = np.abs(hom_losses - ref_losses)
    rel = gap / np.abs(ref_losses)
    assert ref_losses[-1] < 0.5 * ref_losses[0] and hom_losses[-1] < 0.5 * hom_losses[0]
    assert rel.max() < 0.02, f"loss gap {rel.max():.3g} (relative)"
    if W.rank == 0:
        with capsys.disabled():
            print(f"\nDDP {STEPS} steps, 2 ranks, nonblocking hook: zcoll hom abs {eb}: max |loss "
                  f"gap| {gap.max():.3g} (relative {rel.max():.3g}), final gap {gap[-1]:.3g}; "
                  f"max |param diff| {np.abs(hom_params - ref_params).max():.3g}; "
                  f"{len(hom.checks)} buckets within bound; "
                  f"{t_ref:.1f} s default, {t_mpi:.1f} s mode mpi")
    hom.free()


class _Bucket:
    """The one thing the hook uses of a torch.distributed.GradBucket."""

    def __init__(self, t):
        self._t = t

    def buffer(self):
        return self._t


def test_hook_takes_float16_buckets():
    """A float16 bucket: divided in float16 (as torch's hook), summed in float32, rounded
    once; within the reported bound (which counts that rounding) plus float32's own."""
    state = zt.AllreduceState(W, mode="hom", eb_mode="abs", error_bound=1e-3)
    try:
        rng = np.random.default_rng(50 + W.rank)
        x = torch.from_numpy(rng.standard_normal(30_001).astype(np.float16))
        divided = (x / W.size).numpy().astype(np.float64)  # what the hook sums
        exact = np.empty_like(divided)
        W.Allreduce(divided, exact, op=MPI.SUM)
        absum = np.empty_like(divided)
        W.Allreduce(np.abs(divided), absum, op=MPI.SUM)
        out = zt.allreduce_hook(state, _Bucket(x)).value()
        assert out.dtype == torch.float16
        rep = state.last_report
        err = np.abs(out.numpy().astype(np.float64) - exact)
        assert np.all(err <= rep["error_bound"] + (W.size + 1) * 2.0**-24 * absum)
    finally:
        state.free()


def test_hook_takes_bfloat16_buckets():
    """As float16, on bfloat16 buckets (their bits go through a zero-copy int16 view)."""
    state = zt.AllreduceState(W, mode="hom", eb_mode="abs", error_bound=1e-3)
    try:
        rng = np.random.default_rng(60 + W.rank)
        x = torch.from_numpy(rng.standard_normal(30_001).astype(np.float32)).to(torch.bfloat16)
        divided = (x / W.size).float().numpy().astype(np.float64)  # what the hook sums
        exact = np.empty_like(divided)
        W.Allreduce(divided, exact, op=MPI.SUM)
        absum = np.empty_like(divided)
        W.Allreduce(np.abs(divided), absum, op=MPI.SUM)
        out = zt.allreduce_hook(state, _Bucket(x)).value()
        assert out.dtype == torch.bfloat16 and out.data_ptr() == x.data_ptr()
        rep = state.last_report
        assert "bfloat16 via float32" in rep["reason"]
        err = np.abs(out.float().numpy().astype(np.float64) - exact)
        assert np.all(err <= rep["error_bound"] + (W.size + 1) * 2.0**-24 * absum)
        with pytest.raises(TypeError, match="bucket dtype"):
            zt.allreduce_hook(state, _Bucket(torch.zeros(8, dtype=torch.int32)))
    finally:
        state.free()


def test_nonblocking_hook_takes_bfloat16_buckets():
    """The nonblocking hook on a bfloat16 bucket: the future's tensor is the bucket,
    within the reported bound (with float32's own rounding) once it completes."""
    state = zt.AllreduceState(W, mode="hom", eb_mode="abs", error_bound=1e-3)
    try:
        rng = np.random.default_rng(70 + W.rank)
        x = torch.from_numpy(rng.standard_normal(20_001).astype(np.float32)).to(torch.bfloat16)
        divided = (x / W.size).float().numpy().astype(np.float64)
        exact = np.empty_like(divided)
        W.Allreduce(divided, exact, op=MPI.SUM)
        absum = np.empty_like(divided)
        W.Allreduce(np.abs(divided), absum, op=MPI.SUM)
        out = zt.nonblocking_allreduce_hook(state, _Bucket(x)).wait()
        assert out.dtype == torch.bfloat16 and out.data_ptr() == x.data_ptr()
        rep = state.last_report
        err = np.abs(out.float().numpy().astype(np.float64) - exact)
        assert np.all(err <= rep["error_bound"] + (W.size + 1) * 2.0**-24 * absum)
    finally:
        state.free()
