"""zcoll.Comm: the seven collectives on numpy arrays, every mode, in place, bad
input, float16. Runs on one process and under `mpirun -np 2` / `-np 3`
(conftest.py makes a failure on any rank fail all)."""

import numpy as np
import pytest

MPI = pytest.importorskip("mpi4py.MPI")
import zcoll  # noqa: E402
from zcoll import IN_PLACE  # noqa: E402

W = MPI.COMM_WORLD
P, R = W.size, W.rank
MODES = ["mpi", "raw", "cpr_p2p", "doc", "hom", "auto"]
EXACT = ("mpi", "raw")
DTYPES = [np.float32, np.float64]
COUNTS = [0, 1, 1001, 40_001]
EB = 1e-3
OPS = {"sum": MPI.SUM, "max": MPI.MAX, "min": MPI.MIN, "prod": MPI.PROD}


@pytest.fixture(scope="module")
def comms():
    cs = {m: zcoll.Comm(W, mode=m, eb_mode="abs", error_bound=EB, min_bytes=0) for m in MODES}
    yield cs
    for c in cs.values():
        c.free()


def data(count, dtype, rank=R, salt=0):
    rng = np.random.default_rng(1000 * salt + rank)
    return (rng.standard_normal(count) * 10).astype(dtype)


def exact_reduce(x, op):
    """The reduction over ranks in float64 (mpi4py's buffer Allreduce)."""
    out = np.empty(x.size, np.float64)
    W.Allreduce(np.ascontiguousarray(x, np.float64), out, op=OPS[op])
    return out


def abs_sum(x):
    return exact_reduce(np.abs(np.asarray(x, np.float64)), "sum")


def check(got, want, rep, dtype, mode, absum=None):
    """|got - want| within the reported bound plus the rounding of the reduction."""
    got = np.asarray(got, np.float64)
    want = np.asarray(want, np.float64)
    if got.size == 0:
        return
    u = np.finfo(dtype).eps / 2
    slack = 0.0 if absum is None else (P + 1) * u * absum
    err = np.abs(got - want)
    bound = (0.0 if mode in EXACT else rep["error_bound"]) + slack
    if mode in EXACT and absum is None:
        assert np.array_equal(got, want)
    assert np.all(err <= bound * (1 + 1e-12) + 1e-300), (
        f"max error {err.max()} > bound {bound} (mode {rep['mode']}, {rep['algorithm']})")


def test_mpi_is_the_one_zcoll_was_built_with():
    from zcoll import _mpi

    name, version = _mpi.built_with()
    assert name in MPI.Get_library_version() and version in MPI.Get_library_version()
    assert _mpi.library_version().strip() == MPI.Get_library_version().strip()


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("count", COUNTS)
@pytest.mark.parametrize("op", ["sum", "max"])
def test_allreduce(comms, mode, dtype, count, op):
    c = comms[mode]
    x = data(count, dtype)
    y = c.allreduce(x, op=op)
    rep = c.last_report()
    assert rep["collective"] == "allreduce" and rep["status"] == 0 and rep["comm_size"] == P
    absum = abs_sum(x) if op == "sum" else None
    check(y, exact_reduce(x, op), rep, dtype, mode, absum)
    # every rank holds the same result
    assert np.array_equal(W.bcast(y, root=0), y) or mode == "cpr_p2p"
    # in place gives the same bytes
    z = x.copy()
    c.allreduce(IN_PLACE, z, op=op)
    assert np.array_equal(z, y)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("k", [0, 1, 333, 10_000])
def test_reduce_scatter_block(comms, mode, dtype, k):
    c = comms[mode]
    x = data(k * P, dtype, salt=1)
    y = c.reduce_scatter_block(x)
    rep = c.last_report()
    full = exact_reduce(x, "sum")
    absum = abs_sum(x)
    check(y, full[R * k:(R + 1) * k], rep, dtype, mode, absum[R * k:(R + 1) * k])
    z = x.copy()
    c.reduce_scatter_block(IN_PLACE, z)
    assert np.array_equal(z[:k], y)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("dtype", DTYPES)
def test_reduce_scatter(comms, mode, dtype):
    c = comms[mode]
    counts = [5000 + 17 * i for i in range(P)]
    counts[-1] = 0 if P > 1 else counts[-1]
    x = data(sum(counts), dtype, salt=2)
    y = c.reduce_scatter(x, recvcounts=counts)
    assert y.size == counts[R]
    off = sum(counts[:R])
    full = exact_reduce(x, "sum")
    absum = abs_sum(x)
    check(y, full[off:off + counts[R]], c.last_report(), dtype, mode,
          absum[off:off + counts[R]])


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("count", COUNTS)
def test_allgather(comms, mode, dtype, count):
    c = comms[mode]
    x = data(count, dtype, salt=3)
    y = c.allgather(x)
    assert y.shape == (P, count)
    want = np.stack([data(count, dtype, rank=r, salt=3) for r in range(P)])
    check(y, want, c.last_report(), dtype, mode)
    z = np.zeros((P, count), dtype)
    z[R] = x
    c.allgather(IN_PLACE, z)
    check(z, want, c.last_report(), dtype, mode)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("count", COUNTS)
def test_bcast(comms, mode, dtype, count):
    c = comms[mode]
    root = P - 1
    want = data(count, dtype, rank=root, salt=4)
    buf = want.copy() if R == root else np.zeros(count, dtype)
    c.bcast(buf, root=root)
    if R != root:
        check(buf, want, c.last_report(), dtype, mode)
    else:
        assert np.array_equal(buf, want)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("count", [0, 1, 7777])
def test_scatter(comms, mode, dtype, count):
    c = comms[mode]
    root = 0
    full = data(count * P, dtype, rank=root, salt=5)
    if R == root:
        y = c.scatter(full, root=root)
    else:
        y = c.scatter(None, np.empty(count, dtype), root=root)
    check(y, full[R * count:(R + 1) * count], c.last_report(), dtype, mode)
    if R == root:  # in place at the root: its block stays in sendbuf
        src = full.copy()
        assert c.scatter(src, IN_PLACE, root=root) is src
        assert np.array_equal(src, full)
    else:
        y2 = c.scatter(None, np.empty(count, dtype), root=root)
        assert np.array_equal(y2, y)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("count", [0, 1, 20_001])
def test_reduce(comms, mode, dtype, count):
    c = comms[mode]
    root = P // 2
    x = data(count, dtype, salt=6)
    y = c.reduce(x, op="sum", root=root)
    want = exact_reduce(x, "sum")
    absum = abs_sum(x)
    if R == root:
        check(y, want, c.last_report(), dtype, mode, absum)
    else:
        assert y is None
    # in place at the root
    if R == root:
        z = x.copy()
        c.reduce(IN_PLACE, z, op="sum", root=root)
        check(z, want, c.last_report(), dtype, mode, absum)
    else:
        c.reduce(x, op="sum", root=root)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("count", [0, 1, 9999])
def test_gather(comms, mode, dtype, count):
    c = comms[mode]
    root = 0
    x = data(count, dtype, salt=7)
    y = c.gather(x, root=root)
    want = np.stack([data(count, dtype, rank=r, salt=7) for r in range(P)])
    if R == root:
        check(y, want, c.last_report(), dtype, mode)
        z = np.zeros((P, count), dtype)
        z[root] = x
        c.gather(IN_PLACE, z, root=root)
        check(z, want, c.last_report(), dtype, mode)
    else:
        assert y is None
        c.gather(x, root=root)


def test_report_and_config(comms):
    c = comms["hom"]
    x = data(100_000, np.float32)
    c.allreduce(x)
    rep = c.last_report()
    for key in ("collective", "mode", "algorithm", "status", "reason", "count", "bytes_sent",
                "bytes_uncompressed", "time_total", "eb_per_compression", "error_bound"):
        assert key in rep
    assert rep["count"] == 100_000
    if P > 1:
        assert rep["mode"] == "hom" and 0 < rep["bytes_sent"] < rep["bytes_uncompressed"]
    cfg = c.config()
    assert cfg["mode"] == "hom" and cfg["eb_mode"] == "abs" and cfg["error_bound"] == EB


def test_average(comms):
    c = comms["mpi"]
    x = data(1000, np.float64)
    c.set_average(True)
    try:
        y = c.allreduce(x)
    finally:
        c.set_average(False)
    assert np.allclose(y, exact_reduce(x, "sum") / P, rtol=1e-12, atol=1e-12)


def test_bad_input_is_local_and_clear(comms):
    # checked before any communication, so every rank raises and none blocks
    c = comms["hom"]
    with pytest.raises(TypeError, match="float32, float64 or float16"):
        c.allreduce(np.zeros(10, np.int32))
    with pytest.raises(ValueError, match="C-contiguous"):
        c.allreduce(np.zeros((10, 10), np.float32)[:, ::2])
    with pytest.raises(TypeError, match="recvbuf is float64"):
        c.allreduce(np.zeros(10, np.float32), np.zeros(10, np.float64))
    with pytest.raises(ValueError, match="expected 10 values"):
        c.allreduce(np.zeros(10, np.float32), np.zeros(11, np.float32))
    ro = np.zeros(10, np.float32)
    ro.setflags(write=False)
    with pytest.raises(ValueError, match="read-only"):
        c.allreduce(np.zeros(10, np.float32), ro)
    with pytest.raises(ValueError, match="op must be"):
        c.allreduce(np.zeros(10, np.float32), op="xor")
    with pytest.raises(ValueError, match="mode must be"):
        zcoll.Comm(W, mode="fast")


def check16(got, want, rep, slack=0.0):
    """float16 results: within the reported bound (which counts the final
    rounding to 16 bits) plus float32's own arithmetic (zcoll_mpi.h)."""
    assert got.dtype == np.float16
    got = np.asarray(got, np.float64)
    if got.size == 0:
        return
    err = np.abs(got - want)
    bound = rep["error_bound"] + slack
    assert np.all(err <= bound * (1 + 1e-12) + 1e-300), (
        f"max error {err.max()} > bound {bound} (mode {rep['mode']}, {rep['algorithm']})")


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("count", COUNTS)
@pytest.mark.parametrize("op", ["sum", "max", "min", "prod"])
def test_float16_allreduce(comms, mode, count, op):
    """numpy float16: the call runs on float32 copies and rounds once to 16 bits."""
    c = comms[mode]
    x = data(count, np.float32)
    if op == "prod":
        x = 1 + x / 640
    x = x.astype(np.float16)
    y = c.allreduce(x, op=op)
    rep = c.last_report()
    assert rep["status"] == 0 and "float16 via float32" in rep["reason"]
    want = exact_reduce(x, op)
    u = 2.0**-24
    slack = ((P + 1) * u * abs_sum(x) if op == "sum"
             else (P + 1) * u * np.abs(want) if op == "prod" else 0.0)
    check16(y, want, rep, slack)
    z = x.copy()
    c.allreduce(IN_PLACE, z, op=op)
    assert np.array_equal(z.view(np.uint16), y.view(np.uint16)) or mode == "cpr_p2p"


def to_bf16_bits(x):
    """float32 -> bfloat16 bits (round to nearest even; finite inputs)."""
    u = np.asarray(x, np.float32).view(np.uint32).astype(np.uint64)
    return ((u + 0x7FFF + ((u >> 16) & 1)) >> 16).astype(np.uint16)


def bf16_value(b):
    return (np.asarray(b, np.uint16).astype(np.uint32) << 16).view(np.float32).astype(np.float64)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("count", COUNTS)
@pytest.mark.parametrize("op", ["sum", "max", "prod"])
def test_bfloat16_allreduce(comms, mode, count, op):
    """dtype="bfloat16": bfloat16 bits in uint16 arrays, summed in float32, rounded once."""
    c = comms[mode]
    x = data(count, np.float32, salt=9)
    if op == "prod":
        x = 1 + x / 640
    bits = to_bf16_bits(x)
    y = c.allreduce(bits, op=op, dtype="bfloat16")
    assert y.dtype == np.uint16
    rep = c.last_report()
    assert rep["status"] == 0 and "bfloat16 via float32" in rep["reason"]
    xv = bf16_value(bits)
    want = exact_reduce(xv, op)
    u = 2.0**-24
    slack = ((P + 1) * u * abs_sum(xv) if op == "sum"
             else (P + 1) * u * np.abs(want) if op == "prod" else 0.0)
    if count:
        err = np.abs(bf16_value(y) - want)
        bound = rep["error_bound"] + slack
        assert np.all(err <= bound * (1 + 1e-12) + 1e-300), f"max error {err.max()} > {bound}"
    z = bits.copy()
    c.allreduce(IN_PLACE, z, op=op, dtype="bfloat16")
    assert np.array_equal(z, y) or mode == "cpr_p2p"


def test_bfloat16_bad_input(comms):
    c = comms["hom"]
    with pytest.raises(TypeError, match="uint16, int16 or float16"):
        c.allreduce(np.zeros(10, np.float32), dtype="bfloat16")
    with pytest.raises(ValueError, match="dtype must be"):
        c.allreduce(np.zeros(10, np.uint16), dtype="int16")


@pytest.mark.parametrize("mode", MODES)
def test_float16_other_collectives(comms, mode):
    c = comms[mode]
    k = 1001
    x = data(k * P, np.float32, salt=8).astype(np.float16)
    y = c.reduce_scatter_block(x)
    full = exact_reduce(x, "sum")
    check16(y, full[R * k:(R + 1) * k], c.last_report(),
            (P + 1) * 2.0**-24 * abs_sum(x)[R * k:(R + 1) * k])
    counts = [300 + 17 * i for i in range(P)]
    off = sum(counts[:R])
    v = x[:sum(counts)].copy()
    y = c.reduce_scatter(v, recvcounts=counts)
    full = exact_reduce(v, "sum")
    check16(y, full[off:off + counts[R]], c.last_report(),
            (P + 1) * 2.0**-24 * abs_sum(v)[off:off + counts[R]])
    g = c.allgather(x[:k])
    want = np.stack([data(k * P, np.float32, rank=r, salt=8).astype(np.float16)[:k]
                     for r in range(P)])
    check16(g, np.asarray(want, np.float64), c.last_report())
    root = P - 1
    b = x.copy() if R == root else np.zeros(k * P, np.float16)
    c.bcast(b, root=root)
    want = data(k * P, np.float32, rank=root, salt=8).astype(np.float16)
    check16(b, np.asarray(want, np.float64), c.last_report())


def check_bf16(got, want, rep, slack=0.0):
    """bfloat16 bits: their values within the reported bound plus float32's
    arithmetic (as check16)."""
    assert got.dtype == np.uint16
    if got.size == 0:
        return
    err = np.abs(bf16_value(got) - np.asarray(want, np.float64))
    bound = rep["error_bound"] + slack
    assert np.all(err <= bound * (1 + 1e-12) + 1e-300), (
        f"max error {err.max()} > bound {bound} (mode {rep['mode']}, {rep['algorithm']})")
    assert "bfloat16 via float32" in rep["reason"]


@pytest.mark.parametrize("mode", MODES)
def test_bfloat16_other_collectives(comms, mode):
    """dtype="bfloat16" in every collective besides allreduce (blocking and
    nonblocking): values within the reported bound of the exact result."""
    c = comms[mode]
    k = 1001
    u = 2.0**-24

    def bits_of(rank):
        return to_bf16_bits(data(k * P, np.float32, rank=rank, salt=10))

    x = bits_of(R)
    xv = bf16_value(x)
    y = c.reduce_scatter_block(x, dtype="bfloat16")
    full = exact_reduce(xv, "sum")
    check_bf16(y, full[R * k:(R + 1) * k], c.last_report(),
               (P + 1) * u * abs_sum(xv)[R * k:(R + 1) * k])
    counts = [300 + 17 * i for i in range(P)]
    off = sum(counts[:R])
    v = x[:sum(counts)].copy()
    y = c.ireduce_scatter(v, recvcounts=counts, dtype="bfloat16").wait()
    full = exact_reduce(bf16_value(v), "sum")
    check_bf16(y, full[off:off + counts[R]], c.last_report(),
               (P + 1) * u * abs_sum(bf16_value(v))[off:off + counts[R]])
    root = P - 1
    y = c.reduce(x, op="max", root=root, dtype="bfloat16")
    want = exact_reduce(xv, "max")  # collective: on every rank
    if R == root:
        check_bf16(y, want, c.last_report())
    else:
        assert y is None
    everyone = np.stack([bits_of(r)[:k] for r in range(P)])
    g = c.allgather(x[:k], dtype="bfloat16")
    check_bf16(g, bf16_value(everyone), c.last_report())
    g = c.iallgather(x[:k], dtype="bfloat16").wait()
    check_bf16(g, bf16_value(everyone), c.last_report())
    g = c.gather(x[:k], root=root, dtype="bfloat16")
    if R == root:
        check_bf16(g, bf16_value(everyone), c.last_report())
    b = x.copy() if R == root else np.zeros(k * P, np.uint16)
    c.bcast(b, root=root, dtype="bfloat16")
    check_bf16(b, bf16_value(bits_of(root)), c.last_report())
    if R == root:
        s = c.scatter(x, root=root, dtype="bfloat16")
    else:
        s = c.scatter(None, np.zeros(k, np.uint16), root=root, dtype="bfloat16")
    check_bf16(s, bf16_value(bits_of(root)[R * k:(R + 1) * k]), c.last_report())
    with pytest.raises(TypeError, match="uint16, int16 or float16"):
        c.allgather(np.zeros(k, np.float32), dtype="bfloat16")
    with pytest.raises(ValueError, match="dtype must be"):
        c.bcast(b, root=root, dtype="float8")


@pytest.mark.skipif(P < 2, reason="needs two ranks")
def test_float16_against_float32_is_a_mismatch_on_every_rank(comms):
    x = data(10_000, np.float16 if R == 0 else np.float32)
    with pytest.raises(zcoll.ZcollError) as e:
        comms["hom"].allreduce(x)
    assert e.value.status == zcoll.STATUS["MISMATCH"]


@pytest.mark.skipif(P < 2, reason="needs two ranks")
def test_settings_that_differ_are_a_mismatch_on_every_rank():
    c = zcoll.Comm(W, mode="hom", eb_mode="abs", error_bound=1e-3 * (1 + R), min_bytes=0)
    try:
        with pytest.raises(zcoll.ZcollError) as e:
            c.allreduce(data(10_000, np.float32))
        assert e.value.status == zcoll.STATUS["MISMATCH"]
    finally:
        c.free()


@pytest.mark.parametrize("codec", ["dense", "auto"])
def test_codec_dense_and_auto(codec):
    """codec="dense" / "auto": results within the reported bound, the codec in
    the config and the report; a bad name is a ValueError."""
    with zcoll.Comm(W, mode="doc", eb_mode="abs", error_bound=EB, min_bytes=0,
                    codec=codec) as c:
        assert c.config()["codec"] == codec
        x = data(40_001, np.float32, salt=3)
        y = c.allreduce(x)
        rep = c.last_report()
        assert rep["codec"] in ("fast", "dense")
        if codec == "dense" and P > 1:
            assert rep["codec"] == "dense"
        err = np.max(np.abs(y.astype(np.float64) - exact_reduce(x, "sum")))
        assert err <= rep["error_bound"] * (1 + 1e-6) + 1e-5 * P
    with pytest.raises(ValueError, match="codec"):
        zcoll.Comm(W, codec="densest")


def test_set_shape():
    """set_shape(a.shape) with the dense codec: bcast and allgather of a smooth
    2-D field within the reported bound, fewer bytes sent than without the
    shape; None clears it; a bad dim is an error."""
    rows, cols = 96, 256
    i, j = np.meshgrid(np.arange(rows), np.arange(cols), indexing="ij")
    field = (100 * np.sin(0.05 * i) * np.cos(0.07 * j) + 0.3 * i).astype(np.float32)
    with zcoll.Comm(W, mode="doc", eb_mode="rel", error_bound=1e-3, min_bytes=0,
                    codec="dense", chunk_size=4096) as c:
        sent = {}
        for shape in (None, field.shape):
            c.set_shape(shape)
            buf = field.copy() if R == 0 else np.zeros_like(field)
            c.bcast(buf, root=0)
            rep = c.last_report()
            assert np.max(np.abs(buf.astype(np.float64) - field)) <= rep["error_bound"]
            sent[shape] = W.allreduce(rep["bytes_sent"] if R == 0 else 0)
            got = c.allgather(field + R)
            rep = c.last_report()
            for r in range(P):
                assert np.max(np.abs(got[r].astype(np.float64) - (field + r))) <= rep["error_bound"]
        if P > 1:
            assert 0 < sent[field.shape] < 0.8 * sent[None], sent
            assert "pieces of whole" in rep["reason"]
        with pytest.raises((TypeError, ValueError, RuntimeError)):
            c.set_shape((4, 0))


def test_free_and_context_manager():
    with zcoll.Comm(W, mode="mpi") as c:
        assert c.size == P and c.rank == R
    with pytest.raises(ValueError, match="freed"):
        c.allreduce(np.zeros(4, np.float32))
    c.free()  # twice is fine


def test_algorithms_come_from_the_library_table(comms):
    """Every algorithm the library lists for a collective can be set and runs;
    an unknown name is an error naming the collective's algorithms."""
    x = data(5003, np.float64, salt=7)
    want = exact_reduce(x, "sum")
    assert "ring" in zcoll.algorithms("allreduce")
    assert "recursive_doubling" in zcoll.algorithms("allreduce")
    c = comms["hom"]
    for algo in zcoll.algorithms("allreduce"):
        c.set_algorithm("allreduce", algo)
        got = c.allreduce(x)
        rep = c.last_report()
        assert rep["algorithm"] == algo
        check(got, want, rep, np.float64, "hom", abs_sum(x))
    c.set_algorithm("allreduce", "auto")
    with pytest.raises(zcoll.ZcollError, match="binomial"):
        c.set_algorithm("bcast", "ring")
    with pytest.raises(zcoll.ZcollError):
        zcoll.algorithms("alltoall")
