"""The codec API: round trips on data/, bounds checked in float64, bad input,
threads (GIL released) and reference counts."""

import gc
import sys
import threading
import time

import numpy as np
import pytest

import zcoll


def max_err(a, b):
    return float(np.max(np.abs(np.asarray(a, np.float64) - np.asarray(b, np.float64))))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("bound", [("abs", 1e-2), ("abs", 1e-4), ("rel", 1e-3), ("rel", 1e-5)])
def test_round_trip_data(field, dtype, bound):
    a = np.ascontiguousarray(field.astype(dtype))
    kind, value = bound
    buf = zcoll.compress(a, **{kind: value})
    assert isinstance(buf, bytes)
    b = zcoll.decompress(buf, shape=a.shape)
    assert b.dtype == a.dtype and b.shape == a.shape
    a64 = a.astype(np.float64)
    eb = value if kind == "abs" else value * (a64.max() - a64.min())
    info = zcoll.info(buf)
    assert info["dtype"] == np.dtype(dtype).name
    assert info["n"] == a.size
    assert info["stream_size"] == len(buf)
    assert info["error_bound"] == pytest.approx(eb, rel=1e-12)
    assert max_err(a, b) <= eb
    q = zcoll.quality(a, b, buf)
    assert q["max_abs_error"] == pytest.approx(max_err(a, b), rel=1e-12)
    assert q["compression_ratio"] == pytest.approx(a.nbytes / len(buf))
    if kind == "abs" and value == 1e-2:
        assert len(buf) < a.nbytes  # these fields compress at this bound


def test_decompress_into_out(field):
    buf = zcoll.compress(field, abs=1e-3, chunk_size=4096)
    out = np.full(field.shape, np.nan, dtype=np.float32)
    r = zcoll.decompress(buf, out=out)
    assert r is out
    assert max_err(field, out) <= 1e-3
    # the same values as without out
    assert np.array_equal(out.ravel(), zcoll.decompress(buf))


def test_threads_give_the_same_bytes(field):
    assert zcoll.compress(field, rel=1e-4, threads=1) == zcoll.compress(field, rel=1e-4, threads=2)


def test_hom_operations():
    rng = np.random.default_rng(1)
    xs = [rng.standard_normal(50_000) for _ in range(4)]
    eb = 1e-3
    bufs = [zcoll.compress(x, abs=eb) for x in xs]
    s = zcoll.hom_add(bufs[0], bufs[1])
    assert max_err(zcoll.decompress(s), xs[0] + xs[1]) <= 2 * eb
    assert zcoll.info(s)["error_bound"] == pytest.approx(2 * eb)
    d = zcoll.hom_sub(bufs[0], bufs[1])
    assert max_err(zcoll.decompress(d), xs[0] - xs[1]) <= 2 * eb
    total = zcoll.hom_sum(bufs)
    assert max_err(zcoll.decompress(total), sum(xs)) <= 4 * eb
    assert zcoll.info(total)["terms"] == 4
    m = zcoll.mean(bufs)
    info = zcoll.info(m)
    assert info["divisor"] == 4 and info["error_bound"] == pytest.approx(eb)
    assert max_err(zcoll.decompress(m), sum(xs) / 4) <= eb * (1 + 1e-12)
    assert zcoll.hom_sum([bufs[2]]) == bufs[2]
    # streams of different bounds cannot be added
    other = zcoll.compress(xs[1], abs=2 * eb)
    with pytest.raises(zcoll.ZcollError) as e:
        zcoll.hom_add(bufs[0], other)
    assert e.value.status == zcoll.STATUS["MISMATCH"]
    with pytest.raises(ValueError):
        zcoll.hom_sum([])


def test_special_sizes():
    for n in (0, 1, 31, 33, 1023, 16385):
        a = np.linspace(-1, 1, n, dtype=np.float32)
        buf = zcoll.compress(a, abs=1e-3)
        b = zcoll.decompress(buf)
        assert b.shape == (n,)
        if n:
            assert max_err(a, b) <= 1e-3


def test_nonfinite_values_are_kept():
    a = np.linspace(0, 1, 5000)
    a[[3, 100, 4000]] = [np.nan, np.inf, -np.inf]
    b = zcoll.decompress(zcoll.compress(a, abs=1e-6))
    assert np.isnan(b[3]) and b[100] == np.inf and b[4000] == -np.inf
    q = zcoll.quality(a, b)
    assert q["nonfinite"] == 3 and q["nonfinite_mismatch"] == 0


# ---- bad input -------------------------------------------------------------------

@pytest.mark.parametrize("dtype", [np.int32, np.float16, np.complex64, np.uint8, ">f4"])
def test_wrong_dtype_is_type_error(dtype):
    with pytest.raises(TypeError, match="float32 or float64"):
        zcoll.compress(np.zeros(100, dtype=dtype), abs=1)


def test_not_an_array():
    with pytest.raises(TypeError, match="float32 or float64"):
        zcoll.compress([1.0, 2.0], abs=1)
    with pytest.raises(TypeError, match="bytes-like"):
        zcoll.decompress("not bytes")


def test_non_contiguous_is_value_error():
    a = np.zeros((64, 64), dtype=np.float32)
    with pytest.raises(ValueError, match="C-contiguous"):
        zcoll.compress(a[:, ::2], abs=1)
    with pytest.raises(ValueError, match="C-contiguous"):
        zcoll.compress(a.T, abs=1)
    buf = zcoll.compress(np.zeros(64 * 32, np.float32), abs=1)
    with pytest.raises(ValueError, match="C-contiguous"):
        zcoll.decompress(buf, out=a[:, ::2])


def test_bound_arguments():
    a = np.zeros(10, np.float32)
    with pytest.raises(TypeError, match="exactly one"):
        zcoll.compress(a)
    with pytest.raises(TypeError, match="exactly one"):
        zcoll.compress(a, abs=1, rel=1)
    for bad in (0.0, -1.0, float("nan"), float("inf")):
        with pytest.raises(zcoll.ZcollError) as e:
            zcoll.compress(a, abs=bad)
        assert e.value.status == zcoll.STATUS["INVALID_ARG"]
    with pytest.raises(zcoll.ZcollError):
        zcoll.compress(a, abs=1, chunk_size=1000)  # not a multiple of 32


def test_bad_out():
    a = np.arange(1000, dtype=np.float32)
    buf = zcoll.compress(a, abs=1e-3)
    ro = np.empty(1000, np.float32)
    ro.setflags(write=False)
    with pytest.raises(ValueError, match="read-only"):
        zcoll.decompress(buf, out=ro)
    with pytest.raises(TypeError, match="float32"):
        zcoll.decompress(buf, out=np.empty(1000, np.float64))
    with pytest.raises(ValueError, match="1000 values"):
        zcoll.decompress(buf, out=np.empty(999, np.float32))
    with pytest.raises(ValueError):
        zcoll.decompress(buf, shape=(10, 10))


def test_corrupt_bytes():
    a = np.sin(np.linspace(0, 20, 40_000)).astype(np.float32)
    buf = zcoll.compress(a, abs=1e-4)
    with pytest.raises(zcoll.ZcollError) as e:
        zcoll.decompress(buf[: len(buf) // 2])
    assert e.value.status == zcoll.STATUS["TRUNCATED"]
    assert "truncated" in str(e.value) and e.value.message
    bad = bytearray(buf)
    bad[0:4] = b"XXXX"
    with pytest.raises(zcoll.ZcollError) as e:
        zcoll.decompress(bytes(bad))
    assert e.value.status in (zcoll.STATUS["CORRUPT"], zcoll.STATUS["UNSUPPORTED"])
    with pytest.raises(zcoll.ZcollError):
        zcoll.info(b"\x00" * 200)
    with pytest.raises(zcoll.ZcollError):
        zcoll.decompress(b"")
    # random damage: a clean exception or a stream that still decodes; never a crash
    rng = np.random.default_rng(7)
    failures = 0
    for _ in range(300):
        d = bytearray(buf)
        for pos in rng.integers(0, len(d), size=3):
            d[pos] ^= 1 << int(rng.integers(0, 8))
        try:
            r = zcoll.decompress(bytes(d))
            assert r.shape == a.shape
        except zcoll.ZcollError:
            failures += 1
    assert failures > 0
    # the error can be pickled (for multiprocessing users)
    import pickle

    err = pickle.loads(pickle.dumps(e.value))
    assert isinstance(err, zcoll.ZcollError) and err.status == e.value.status


def test_buffer_released_after_errors():
    # a bytearray cannot be resized while a buffer export is held
    ba = bytearray(b"\x01" * 64)
    with pytest.raises(zcoll.ZcollError):
        zcoll.decompress(ba)
    ba.extend(b"\x00")  # BufferError if the failed call leaked its export


# ---- threads and reference counts ---------------------------------------------------

def test_two_threads_compress_at_once(field):
    big = np.tile(field.ravel(), max(1, 4_000_000 // field.size))
    expected = zcoll.compress(big, abs=1e-3)
    results = [None, None]

    def work(i):
        results[i] = zcoll.compress(big, abs=1e-3)

    ts = [threading.Thread(target=work, args=(i,)) for i in range(2)]
    for t in ts:
        t.start()
    for t in ts:
        t.join(timeout=120)
    assert results[0] == expected and results[1] == expected


def test_gil_is_released_during_compress():
    big = np.random.default_rng(3).standard_normal(16_000_000).astype(np.float32)
    started = threading.Event()
    elapsed = []

    def work():
        started.set()
        t0 = time.perf_counter()
        zcoll.compress(big, abs=1e-4)
        elapsed.append(time.perf_counter() - t0)

    t = threading.Thread(target=work)
    t.start()
    started.wait()
    spins = 0
    while t.is_alive():
        spins += 1
    t.join()
    # with the GIL held for the whole call this loop could not run during it
    assert elapsed[0] > 0.02, "the call was too short to tell"
    assert spins > 1000, f"main thread ran only {spins} iterations in {elapsed[0]:.3f} s"


def test_no_reference_leak():
    a = np.linspace(0, 1, 2048, dtype=np.float32)
    buf = zcoll.compress(a, abs=1e-3)
    out = np.empty_like(a)
    bad = np.zeros((64, 64), np.float32)[:, ::2]
    base = bad.base
    refs = (sys.getrefcount(a), sys.getrefcount(buf), sys.getrefcount(out), sys.getrefcount(base))
    gc.collect()
    objects = len(gc.get_objects())
    for _ in range(10_000):
        zcoll.compress(a, abs=1e-3)
        zcoll.decompress(buf, out=out)
        zcoll.decompress(buf)
        zcoll.info(buf)
        try:
            zcoll.compress(bad, abs=1)
        except ValueError:
            pass
        try:
            zcoll.decompress(buf[:50])
        except zcoll.ZcollError:
            pass
    gc.collect()
    assert (sys.getrefcount(a), sys.getrefcount(buf), sys.getrefcount(out),
            sys.getrefcount(base)) == refs
    assert len(gc.get_objects()) - objects < 100


def test_compress_into_out():
    a = np.sin(np.linspace(0, 50, 100_000))
    expected = zcoll.compress(a, abs=1e-5)
    out = bytearray(zcoll.compress_bound(a.size, a.dtype))
    mv = zcoll.compress(a, abs=1e-5, out=out)
    assert bytes(mv) == expected
    mv.release()
    arr = np.empty(zcoll.compress_bound(a.size, a.dtype), np.uint8)
    assert bytes(zcoll.compress(a, abs=1e-5, out=arr)) == expected
    with pytest.raises(zcoll.ZcollError) as e:
        zcoll.compress(a, abs=1e-5, out=bytearray(100))
    assert e.value.status == zcoll.STATUS["BUFFER_TOO_SMALL"]
    with pytest.raises(ValueError, match="writable"):
        zcoll.compress(a, abs=1e-5, out=bytes(len(out)))
