"""zcoll.Comm's nonblocking collectives (iallreduce & co., docs/nonblocking.md):
each against the blocking call on a twin handle (the same bits, the same report)
and the exact result (within the reported bound); several in flight, waited in
another order, test() polling; the request keeps its arrays alive; errors on
every rank. Runs on one process and under `mpirun -np 2` / `-np 3`."""

import gc
import threading

import numpy as np
import pytest

MPI = pytest.importorskip("mpi4py.MPI")
import zcoll  # noqa: E402
from zcoll import IN_PLACE  # noqa: E402

W = MPI.COMM_WORLD
P, R = W.size, W.rank
EB = 1e-3


def data(count, dtype, rank=R, salt=0):
    rng = np.random.default_rng(1000 * salt + rank)
    return (np.sin(np.arange(count) * 1e-3 + rank) * 10 + rng.standard_normal(count) * 0.01
            ).astype(dtype)


@pytest.fixture(scope="module", params=["hom", "mpi"])
def twins(request):
    """Two handles with the same configuration: blocking calls on one,
    nonblocking ones on the other, in the same order."""
    mk = lambda: zcoll.Comm(W, mode=request.param, eb_mode="abs", error_bound=EB,  # noqa: E731
                            min_bytes=0)
    a, b = mk(), mk()
    yield a, b
    a.free()
    b.free()


def same_report(ra, rb):
    for k in ("collective", "mode", "algorithm", "status", "count", "bytes_sent",
              "eb_per_compression", "error_bound", "reason"):
        assert ra[k] == rb[k], (k, ra[k], rb[k])


def test_progress_thread():
    # mpi4py initializes MPI with MPI_THREAD_MULTIPLE unless told otherwise
    with zcoll.Comm(W, mode="mpi") as c:
        assert c.progress_thread == (MPI.Query_thread() == MPI.THREAD_MULTIPLE)


@pytest.mark.parametrize("dtype,count", [(np.float32, 0), (np.float64, 1), (np.float32, 2 * P + 1),
                                         (np.float32, 30_011), (np.float64, 30_011)])
def test_every_collective_same_as_blocking(twins, dtype, count):
    a, b = twins
    root = (count + 1) % P
    # allreduce (also in place), the exact result within the reported bound
    x = data(count, dtype, salt=1)
    ya = a.allreduce(x)
    rep_a = a.last_report()
    q = b.iallreduce(x)
    yb = q.wait()
    assert q.done and np.array_equal(ya, yb)
    same_report(rep_a, q.report())
    exact = np.empty(count, np.float64)
    W.Allreduce(x.astype(np.float64), exact, op=MPI.SUM)
    absum = np.empty(count, np.float64)
    W.Allreduce(np.abs(x.astype(np.float64)), absum, op=MPI.SUM)
    slack = (P + 1) * np.finfo(dtype).eps / 2 * absum
    assert np.all(np.abs(yb - exact) <= rep_a["error_bound"] * (1 + 1e-12) + slack + 1e-300)
    z = x.copy()
    assert b.iallreduce(IN_PLACE, z).wait() is z
    a.allreduce(IN_PLACE, x.copy())
    assert np.array_equal(z, ya)
    # reduce_scatter_block, reduce_scatter
    k = max(count // P, 1) if count else 0
    xs = data(k * P, dtype, salt=2)
    assert np.array_equal(a.reduce_scatter_block(xs), b.ireduce_scatter_block(xs).wait())
    counts = [(k + 3 * i) % (k + 2) for i in range(P)]
    xv = data(sum(counts), dtype, salt=3)
    assert np.array_equal(a.reduce_scatter(xv, recvcounts=counts),
                          b.ireduce_scatter(xv, recvcounts=counts).wait())
    # allgather, bcast, scatter, reduce, gather
    xg = data(k, dtype, salt=4)
    assert np.array_equal(a.allgather(xg), b.iallgather(xg).wait())
    buf_a = data(count, dtype, rank=root, salt=5) if R == root else np.zeros(count, dtype)
    buf_b = buf_a.copy()
    a.bcast(buf_a, root=root)
    assert b.ibcast(buf_b, root=root).wait() is buf_b
    assert np.array_equal(buf_a, buf_b)
    full = data(k * P, dtype, rank=root, salt=6)
    if R == root:
        sa, sb = a.scatter(full, root=root), b.iscatter(full, root=root).wait()
    else:
        sa = a.scatter(None, np.empty(k, dtype), root=root)
        sb = b.iscatter(None, np.empty(k, dtype), root=root).wait()
    assert np.array_equal(sa, sb)
    ra, rb = a.reduce(x, root=root), b.ireduce(x, root=root).wait()
    assert (ra is None and rb is None) if R != root else np.array_equal(ra, rb)
    ga, gb = a.gather(xg, root=root), b.igather(xg, root=root).wait()
    assert (ga is None and gb is None) if R != root else np.array_equal(ga, gb)
    same_report(a.last_report(), b.last_report())


def test_several_in_flight_waited_in_another_order(twins):
    a, b = twins
    xs = [data(20_000 + 1000 * i, np.float32, salt=10 + i) for i in range(5)]
    want = [a.allreduce(x) for x in xs]
    want.append(a.allgather(xs[0][:777]))
    reqs = [b.iallreduce(x) for x in xs]
    reqs.append(b.iallgather(xs[0][:777]))
    while not reqs[-1].test():  # polling the last; the others complete before it
        pass
    assert all(r.test() for r in reqs)
    for i in reversed(range(len(reqs))):
        assert np.array_equal(reqs[i].wait(), want[i])


def test_settings_between_starts_apply_to_later_calls():
    with zcoll.Comm(W, mode="doc", eb_mode="abs", error_bound=EB, min_bytes=0) as c:
        x = data(50_000, np.float64, salt=20)
        q1 = c.iallreduce(x)
        c.set_mode("raw")
        c.set_error_bound("abs", 1e-2)
        q2 = c.iallreduce(x)
        c.set_mode(None)
        q3 = c.iallreduce(x)
        for q in (q1, q2, q3):
            q.wait()
        r1, r2, r3 = (q.report() for q in (q1, q2, q3))
        if P > 1:
            assert (r1["mode"], r2["mode"], r3["mode"]) == ("doc", "raw", "doc")
            assert r1["eb_per_compression"] == EB and r3["eb_per_compression"] == 1e-2


def test_request_keeps_its_arrays_alive():
    with zcoll.Comm(W, mode="hom", eb_mode="abs", error_bound=EB, min_bytes=0) as c:
        want = c.allreduce(data(200_000, np.float32, salt=30))
        q = c.iallreduce(data(200_000, np.float32, salt=30))  # no other reference to the input
        gc.collect()
        got = q.wait()
        assert np.array_equal(got, want)
        # a pending request dropped without a wait: the call still completes first
        c.iallreduce(data(100_000, np.float32, salt=31))
        gc.collect()
        assert np.array_equal(c.allreduce(data(1000, np.float32)),
                              c.iallreduce(data(1000, np.float32)).wait())


def test_wait_from_another_thread():
    with zcoll.Comm(W, mode="hom", eb_mode="abs", error_bound=EB, min_bytes=0) as c:
        x = data(300_000, np.float32, salt=40)
        want = c.allreduce(x)
        q = c.iallreduce(x)
        out = {}
        t = threading.Thread(target=lambda: out.setdefault("y", q.wait()))
        t.start()
        t.join()
        assert np.array_equal(out["y"], want)


@pytest.mark.skipif(P < 2, reason="needs two ranks")
def test_mismatch_fails_the_request_on_every_rank_and_the_next_works():
    with zcoll.Comm(W, mode="hom", eb_mode="abs", error_bound=EB * (1 + R), min_bytes=0) as c:
        x = data(10_000, np.float32, salt=50)
        q = c.iallreduce(x)
        c.set_error_bound("abs", EB)
        q2 = c.iallreduce(x)
        with pytest.raises(zcoll.ZcollError) as e:
            q.wait()
        assert e.value.status == zcoll.STATUS["MISMATCH"]
        with pytest.raises(zcoll.ZcollError):
            q.test()  # asked again: the same error
        assert q2.wait() is not None and q2.report()["status"] == 0


def test_bad_input_raises_at_the_start():
    with zcoll.Comm(W, mode="hom") as c:
        with pytest.raises(TypeError, match="float32, float64 or float16"):
            c.iallreduce(np.zeros(10, np.int32))
        with pytest.raises(RuntimeError, match="not complete"):
            q = c.iallreduce(data(10, np.float32))
            try:
                q.report()
            finally:
                q.wait()


def test_example_overlap_halfprecision(capsys):
    # python/examples/overlap_halfprecision.py, run on every rank (collective):
    # float16 and bfloat16 iallreduce behind work, every value within the bound
    import importlib.util
    import pathlib

    path = pathlib.Path(__file__).resolve().parents[1] / "examples" / "overlap_halfprecision.py"
    spec = importlib.util.spec_from_file_location("overlap_halfprecision", path)
    ex = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(ex)
    assert ex.main(["--rel", "1e-3", "--work", "0.01"]) == 0
    out = capsys.readouterr().out
    if W.Get_rank() == 0:
        assert "float16:" in out and "bfloat16:" in out and "-> ok" in out
