"""The codec API: round trips on data/, bounds checked in float64, 16-bit arrays
(float16, bfloat16) on ../shared/data, bad input, threads (GIL released) and
reference counts."""

import functools
import gc
import json
import pathlib
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


@pytest.mark.parametrize("rel", [1e-2, 1e-4])
def test_dense_codec(field, rel):
    fast = zcoll.compress(field, rel=rel)
    # flat (dims=()): with the shape a chunk may interpolate values instead (below)
    dense = zcoll.compress(field, rel=rel, codec="dense", dims=())
    assert len(dense) < len(fast)  # the smooth test field: a higher ratio
    assert zcoll.info(dense)["format_flags"] == 2  # ZCOLL_FORMAT_FLAG_DENSE
    assert zcoll.info(dense)["codec"] == "dense" and zcoll.info(fast)["codec"] == "fast"
    b = zcoll.decompress(dense, shape=field.shape)
    # the same quantization: the same values as the fast codec
    assert np.array_equal(b, zcoll.decompress(fast, shape=field.shape))
    assert max_err(field, b) <= zcoll.info(dense)["error_bound"]
    out = bytearray(zcoll.compress_bound(field.size, field.dtype))
    assert bytes(zcoll.compress(field, rel=rel, codec="dense", dims=(), out=out)) == dense
    with pytest.raises(ValueError, match="codec"):
        zcoll.compress(field, rel=rel, codec="zstd")


def dense_predictors(buf):
    """The predictor id of each chunk of a stream (format.md §5.3; 0: not dense)."""
    info = zcoll.info(buf)
    b = bytes(buf)
    sizes = np.frombuffer(b, dtype="<u4", count=info["chunks"], offset=48)
    at, ids = info["header_size"], []
    for size in sizes:
        ids.append(b[at + 1] if b[at] == 2 else 0)
        at += int(size)
    return ids


@pytest.mark.parametrize("rel", [1e-2, 1e-3, 1e-4])
def test_dense_codec_uses_the_shape(field, rel):
    """An n-D array: the dense codec predicts along a.shape (2-D/3-D Lorenzo, or
    interpolation of values), takes 262144-value chunks, and in the chunks that
    predict codes decodes to the 1-D codec's values (the same codes) at the same
    chunk size; dims=() is the flat array."""
    assert field.ndim >= 2
    nd = zcoll.compress(field, rel=rel, codec="dense")
    assert nd == zcoll.compress(field, rel=rel, codec="dense", dims=field.shape)
    assert nd == zcoll.compress(field.reshape((1,) + field.shape), rel=rel, codec="dense")
    info = zcoll.info(nd)
    assert info["chunk_size"] == 262144
    flat = zcoll.compress(field, rel=rel, codec="dense", dims=(), chunk_size=262144)
    assert flat == zcoll.compress(field.ravel(), rel=rel, codec="dense", chunk_size=262144)
    # n-D prediction pays on these smooth fields at 1e-3 and 1e-4; at 1e-2 order 1
    # may take every chunk (the codes are long runs: docs/design.md)
    assert len(nd) < len(flat) if rel < 1e-2 else len(nd) <= len(flat)
    b = zcoll.decompress(nd, shape=field.shape)
    assert max_err(field, b) <= info["error_bound"]
    f, bf = zcoll.decompress(flat).ravel(), b.ravel()
    for c, pred in enumerate(dense_predictors(nd)):
        part = slice(c * 262144, (c + 1) * 262144)
        if pred != 5:  # predictor 5: fine codes (only the bound holds)
            assert np.array_equal(bf[part], f[part]), (c, pred)
    assert zcoll.compress(field, rel=rel, codec="dense", threads=3) == nd
    # an explicit chunk size wins
    assert zcoll.info(zcoll.compress(field, rel=rel, codec="dense",
                                     chunk_size=4096))["chunk_size"] == 4096
    # the fast codec ignores the shape
    assert zcoll.compress(field, rel=rel) == zcoll.compress(field.ravel(), rel=rel)


def test_dense_dims_errors(field):
    with pytest.raises(zcoll.ZcollError, match="dims") as e:
        zcoll.compress(field, abs=1e-3, codec="dense", dims=(field.size + 1,))
    assert e.value.status == zcoll.STATUS["INVALID_ARG"]
    with pytest.raises(zcoll.ZcollError, match="dims"):
        zcoll.compress(field, abs=1e-3, codec="dense", dims=(0, field.size))
    with pytest.raises((OverflowError, TypeError, ValueError)):
        zcoll.compress(field, abs=1e-3, codec="dense", dims=(-1, -field.size))
    # more than 8 dims: the slowest fold together, the fastest stay
    a = np.ascontiguousarray(np.broadcast_to(field, (1,) * 8 + field.shape))
    assert zcoll.compress(a, abs=1e-3, codec="dense") == zcoll.compress(field, abs=1e-3,
                                                                         codec="dense")


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


def test_hom_operations_into_out():
    rng = np.random.default_rng(2)
    xs = [rng.standard_normal(40_000).astype(np.float32) for _ in range(3)]
    bufs = [zcoll.compress(x, abs=1e-3) for x in xs]
    cap = zcoll.compress_bound(40_000, np.float32)
    out = bytearray(cap)
    arr = np.zeros(cap + 100, np.uint8)
    for k in (1, 2, 3):  # the sums' three paths: a copy, one addition, a scratch stream
        assert bytes(zcoll.hom_sum(bufs[:k], out=out)) == zcoll.hom_sum(bufs[:k])
        assert bytes(zcoll.mean(bufs[:k], out=arr)) == zcoll.mean(bufs[:k])
    mv = zcoll.hom_add(bufs[0], bufs[1], out=out)
    assert isinstance(mv, memoryview) and bytes(mv) == zcoll.hom_add(bufs[0], bufs[1])
    mv.release()
    assert bytes(zcoll.hom_sub(bufs[0], bufs[1], out=arr)) == zcoll.hom_sub(bufs[0], bufs[1])
    # an out reused for another sum: only its stream's bytes count
    assert max_err(zcoll.decompress(zcoll.hom_add(bufs[1], bufs[2], out=out)),
                   xs[1].astype(np.float64) + xs[2]) <= 2e-3
    with pytest.raises(ValueError, match="needs compress_bound"):
        zcoll.hom_add(bufs[0], bufs[1], out=bytearray(cap - 1))
    with pytest.raises(ValueError, match="writable"):
        zcoll.hom_sub(bufs[0], bufs[1], out=bytes(cap))
    # the inputs are read while out is written: out may not share their bytes
    shared = bytearray(bufs[0]) + bytearray(cap)
    with pytest.raises(ValueError, match="overlaps"):
        zcoll.hom_add(memoryview(shared)[:len(bufs[0])], bufs[1], out=shared)
    with pytest.raises(ValueError, match="overlaps"):
        zcoll.hom_sum([bufs[1], memoryview(shared)[:len(bufs[0])]], out=shared)
    # a failing operation raises as without out
    with pytest.raises(zcoll.ZcollError) as e:
        zcoll.hom_add(bufs[0], zcoll.compress(xs[1], abs=2e-3), out=out)
    assert e.value.status == zcoll.STATUS["MISMATCH"]


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

@pytest.mark.parametrize("dtype", [np.int32, np.uint16, np.complex64, np.uint8, ">f4", ">f2"])
def test_wrong_dtype_is_type_error(dtype):
    with pytest.raises(TypeError, match="float32, float64 or float16"):
        zcoll.compress(np.zeros(100, dtype=dtype), abs=1)


def test_not_an_array():
    with pytest.raises(TypeError, match="float32, float64 or float16"):
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


# ---- 16-bit arrays: float16 and bfloat16 --------------------------------------------

SHARED = pathlib.Path(__file__).resolve().parents[3] / "shared" / "data"
SHARED_FILES = (json.loads((SHARED / "manifest.json").read_text())["files"]
                if (SHARED / "manifest.json").is_file() else [])
F16_MAX = 65504.0


def bf16_bits(a):
    """float32 -> bfloat16 bits, rounded to nearest even (NaN kept, made quiet)."""
    u = np.ascontiguousarray(a, np.float32).view(np.uint32)
    r = ((u + np.uint32(0x7FFF) + ((u >> 16) & np.uint32(1))) >> 16).astype(np.uint16)
    nan = np.isnan(a)
    r[nan] = ((u[nan] >> 16) | 0x40).astype(np.uint16)
    return r


def values64(x, bf16):
    """The values of a 16-bit array in float64 (exact)."""
    if bf16:
        return (np.asarray(x).astype(np.uint32) << 16).view(np.float32).astype(np.float64)
    return np.asarray(x, np.float64)


def bits(x):
    return np.asarray(x).view(np.uint16)


@functools.lru_cache(maxsize=2)
def sixteen_bit(name):
    """(float16 array, its note, bfloat16 bits) of a shared/data field. bfloat16
    holds every float32 field's range. float16 does not always: fill values
    (missing data, e.g. -1e10 in levitus-temp) become NaN, as a mask would
    make them, and a field still beyond 65504 (hst-acs, up to 1.6e5) is scaled
    by a power of two (exact), so every field is tested with its own values."""
    meta = next(m for m in SHARED_FILES if m["file"] == name)
    a = np.fromfile(SHARED / name, dtype="<f4")
    assert a.size * 4 == meta["bytes"]
    b = bf16_bits(a)
    note = []
    if meta.get("fill_count"):
        a = np.where(a == np.float32(meta["fill_value"]), np.float32(np.nan), a)
        note.append(f"{meta['fill_count']} fill values as NaN")
    scale = 1.0
    while np.nanmax(np.abs(a)) * scale > F16_MAX / 2:
        scale /= 2
    if scale != 1.0:
        note.append(f"scaled by {scale}")
    h = (a * np.float32(scale)).astype(np.float16)
    assert np.isfinite(h).sum() == np.isfinite(a).sum()  # nothing overflowed
    return h, ", ".join(note), b


def check_16bit_round_trip(x, bf16, kind, value, **kw):
    """Compress, decompress, and check the bound in float64 against the 16-bit
    input; returns the stream."""
    dt = {"dtype": "bfloat16"} if bf16 else {}
    buf = zcoll.compress(x, **{kind: value}, **dt, **kw)
    info = zcoll.info(buf)
    assert info["dtype"] == ("bfloat16" if bf16 else "float16")
    assert info["n"] == x.size and info["stream_size"] == len(buf)
    y = zcoll.decompress(buf, shape=x.shape)
    assert y.dtype == (np.uint16 if bf16 else np.float16) and y.shape == x.shape
    x64, y64 = values64(x, bf16), values64(y, bf16)
    finite = np.isfinite(x64)
    # NaN and +-Inf travel bit for bit
    assert np.array_equal(bits(x)[~finite], bits(y)[~finite])
    eb = info["error_bound"]
    if kind == "abs":
        assert eb == value
    elif finite.any():  # REL: of the finite 16-bit values' range (constants: of max(|x|, 1))
        lo, hi = x64[finite].min(), x64[finite].max()
        expected = value * (hi - lo) if hi > lo else value * max(abs(lo), 1.0)
        assert eb == pytest.approx(expected, rel=1e-12)
    if finite.any():
        err = float(np.max(np.abs(x64[finite] - y64[finite])))
        assert err <= eb, f"max error {err} > bound {eb}"
        q = zcoll.quality(x, y, buf, **dt)
        assert q["max_abs_error"] == pytest.approx(err, rel=1e-12, abs=0)
        assert q["nonfinite"] == int((~finite).sum()) and q["nonfinite_mismatch"] == 0
    return buf


@pytest.mark.skipif(not SHARED_FILES, reason=f"no {SHARED}/manifest.json")
@pytest.mark.parametrize("bound", [("rel", 1e-2), ("rel", 1e-3), ("rel", 1e-4), ("abs", 1e-2)],
                         ids=lambda b: f"{b[0]}{b[1]:g}")
@pytest.mark.parametrize("kind", ["float16", "bfloat16"])
@pytest.mark.parametrize("name", [m["file"] for m in SHARED_FILES] or ["none"])
def test_16bit_round_trip_shared_data(name, kind, bound):
    h, note, b = sixteen_bit(name)
    x = b if kind == "bfloat16" else h
    buf = check_16bit_round_trip(x, kind == "bfloat16", *bound)
    if bound == ("rel", 1e-2) and not note:
        assert len(buf) < x.nbytes, "these fields compress at REL 1e-2"


@pytest.mark.parametrize("bf16", [False, True], ids=["float16", "bfloat16"])
def test_16bit_lengths(bf16):
    for n in (0, 1, 2, 3, 31, 33, 1023, 1025, 16385):
        v = np.linspace(-3, 5, n, dtype=np.float32)
        x = bf16_bits(v) if bf16 else v.astype(np.float16)
        for bound in (("abs", 1e-2), ("rel", 1e-3)):
            buf = check_16bit_round_trip(x, bf16, *bound, chunk_size=1024)
            assert zcoll.decompress(buf).shape == (n,)


def special_16bit(bf16):
    """NaN, +-Inf, -0.0, +0.0, the smallest and largest subnormals, the smallest
    normal and ordinary values, as 16-bit bits."""
    if bf16:
        sp = [0x7FC0, 0x7F80, 0xFF80, 0x8000, 0x0000, 0x0001, 0x007F, 0x8001, 0x0080]
    else:
        sp = [0x7E00, 0x7C00, 0xFC00, 0x8000, 0x0000, 0x0001, 0x03FF, 0x8001, 0x0400]
    v = np.linspace(-2, 2, 3000, dtype=np.float32)
    x = bf16_bits(v) if bf16 else v.astype(np.float16).view(np.uint16)
    x[::97][:len(sp)] = sp
    x[2000:2100] = sp[5]  # a run of subnormals
    return x if bf16 else x.view(np.float16)


@pytest.mark.parametrize("bf16", [False, True], ids=["float16", "bfloat16"])
@pytest.mark.parametrize("bound", [("abs", 1e-2), ("abs", 1e-9), ("rel", 1e-4)])
def test_16bit_special_values(bf16, bound):
    x = special_16bit(bf16)
    buf = check_16bit_round_trip(x, bf16, *bound)
    y = zcoll.decompress(buf)
    # -0.0 decodes to a zero (its sign is not kept in quantized blocks, as
    # for float32); subnormals within the bound (checked above)
    neg_zero = bits(x) == 0x8000
    assert neg_zero.any() and np.all(values64(y, bf16)[neg_zero] == 0.0)
    if bound[1] < 1e-8:  # below the subnormals' spacing: every value exact
        assert np.array_equal(bits(x), bits(y))


@pytest.mark.parametrize("bf16", [False, True], ids=["float16", "bfloat16"])
def test_16bit_constants(bf16):
    for c in (0.0, -0.0, 3.0, -1e-6, 1e4):
        v = np.full(5000, c, np.float32)
        x = bf16_bits(v) if bf16 else v.astype(np.float16)
        buf = check_16bit_round_trip(x, bf16, "abs", 1e-3)
        assert len(buf) < x.nbytes // 4  # a constant compresses
        y = zcoll.decompress(buf)
        if c == 0.0:  # +-0.0: exact zeros (the sign of -0.0 not kept, as for float32)
            assert np.all(values64(y, bf16) == 0.0)


@pytest.mark.parametrize("bf16", [False, True], ids=["float16", "bfloat16"])
def test_16bit_out_buffers(bf16):
    v = np.sin(np.linspace(0, 30, 40_000, dtype=np.float32)).reshape(200, 200)
    x = bf16_bits(v) if bf16 else v.astype(np.float16)
    dt = {"dtype": "bfloat16"} if bf16 else {}
    n = x.size
    expected = zcoll.compress(x, abs=1e-3, **dt)
    cap = zcoll.compress_bound(n, "bfloat16" if bf16 else np.float16)
    assert cap == zcoll.compress_bound(n, np.float16) < zcoll.compress_bound(n, np.float32)
    out = bytearray(cap)
    assert bytes(zcoll.compress(x, abs=1e-3, out=out, **dt)) == expected
    y = zcoll.decompress(expected)
    outs = ([np.empty((200, 200), np.uint16), np.empty(n, np.int16)] if bf16
            else [np.empty((200, 200), np.float16), np.empty(n, np.float16)])
    for o in outs:
        assert zcoll.decompress(expected, out=o) is o
        assert np.array_equal(bits(o).ravel(), bits(y))
    # a float16 array given as bfloat16 bits (as zcoll.Comm takes them) gives the same stream
    if bf16:
        assert zcoll.compress(x.view(np.float16), abs=1e-3, dtype="bfloat16") == expected


def test_16bit_wrong_types():
    h = np.linspace(0, 1, 1000, dtype=np.float16)
    b = bf16_bits(np.linspace(0, 1, 1000, dtype=np.float32))
    sh, sb = zcoll.compress(h, abs=1e-3), zcoll.compress(b, abs=1e-3, dtype="bfloat16")
    # bits are not values unless said so, and only 2-byte integers are bits
    with pytest.raises(TypeError, match="float32, float64 or float16.*dtype='bfloat16'"):
        zcoll.compress(b, abs=1e-3)
    for bad in (np.zeros(1000, np.float32), np.zeros(1000, np.int32), np.zeros(1000, ">u2")):
        with pytest.raises(TypeError, match="bfloat16 takes the bits in a uint16, int16"):
            zcoll.compress(bad, abs=1e-3, dtype="bfloat16")
    with pytest.raises(ValueError, match="'bfloat16'"):
        zcoll.compress(h, abs=1e-3, dtype="float16")
    with pytest.raises(ValueError, match="C-contiguous"):
        zcoll.compress(np.zeros((64, 64), np.float16)[:, ::2], abs=1)
    with pytest.raises(ValueError, match="C-contiguous"):
        zcoll.compress(np.zeros((64, 64), np.uint16)[:, ::2], abs=1, dtype="bfloat16")
    # out of the stream's type, size and writability
    with pytest.raises(TypeError, match="stream holds float16, out is float32"):
        zcoll.decompress(sh, out=np.empty(1000, np.float32))
    with pytest.raises(TypeError, match="float32, float64 or float16"):
        zcoll.decompress(sh, out=np.empty(1000, np.uint16))
    with pytest.raises(TypeError, match="bits in a uint16 or int16 array"):
        zcoll.decompress(sb, out=np.empty(1000, np.float16))  # would read as other values
    with pytest.raises(TypeError, match="bits in a uint16 or int16 array"):
        zcoll.decompress(sb, out=np.empty(1000, np.float32))
    with pytest.raises(ValueError, match="1000 values"):
        zcoll.decompress(sb, out=np.empty(999, np.uint16))
    with pytest.raises(ValueError, match="1000 values"):
        zcoll.decompress(sh, out=np.empty(1001, np.float16))
    ro = np.empty(1000, np.uint16)
    ro.setflags(write=False)
    with pytest.raises(ValueError, match="read-only"):
        zcoll.decompress(sb, out=ro)
    # quality: the same type on both sides
    with pytest.raises(TypeError):
        zcoll.quality(h, h.astype(np.float32))
    with pytest.raises(TypeError, match="bits"):
        zcoll.quality(b, h.astype(np.float32), dtype="bfloat16")
    with pytest.raises(TypeError):
        zcoll.compress_bound(10, np.int16)


@pytest.mark.parametrize("bf16", [False, True], ids=["float16", "bfloat16"])
def test_16bit_hom_operations(bf16):
    rng = np.random.default_rng(5)
    vs = [rng.standard_normal(20_000).astype(np.float32) for _ in range(3)]
    xs = [bf16_bits(v) if bf16 else v.astype(np.float16) for v in vs]
    dt = {"dtype": "bfloat16"} if bf16 else {}
    eb = 1e-2
    bufs = [zcoll.compress(x, abs=eb, **dt) for x in xs]
    x64 = [values64(x, bf16) for x in xs]
    half_ulp = 2.0**-8 if bf16 else 2.0**-11  # the 16-bit rounding of the result

    def check(stream, exact, bound):
        r = values64(zcoll.decompress(stream), bf16)
        assert np.all(np.abs(r - exact) <= bound + half_ulp * np.abs(r) + 2.0**-24)

    check(zcoll.hom_add(bufs[0], bufs[1]), x64[0] + x64[1], 2 * eb)
    check(zcoll.hom_sub(bufs[0], bufs[1]), x64[0] - x64[1], 2 * eb)
    check(zcoll.hom_sum(bufs), sum(x64), 3 * eb)
    m = zcoll.mean(bufs)
    assert zcoll.info(m)["divisor"] == 3 and zcoll.info(m)["dtype"] == zcoll.info(bufs[0])["dtype"]
    check(m, sum(x64) / 3, eb)
    # a float16 and a bfloat16 stream do not combine
    other = (zcoll.compress(xs[0].astype(np.float32).astype(np.float16), abs=eb) if bf16
             else zcoll.compress(bf16_bits(vs[0]), abs=eb, dtype="bfloat16"))
    with pytest.raises(zcoll.ZcollError) as e:
        zcoll.hom_add(bufs[0], other)
    assert e.value.status == zcoll.STATUS["MISMATCH"]


def test_ml_dtypes_bfloat16():
    ml_dtypes = pytest.importorskip("ml_dtypes")
    v = np.sin(np.linspace(0, 30, 10_000, dtype=np.float32))
    a = v.astype(ml_dtypes.bfloat16)
    assert np.array_equal(a.view(np.uint16), bf16_bits(v))  # the same rounding
    buf = zcoll.compress(a, rel=1e-3)
    assert buf == zcoll.compress(a.view(np.uint16), rel=1e-3, dtype="bfloat16")
    y = zcoll.decompress(buf)
    assert y.dtype == np.uint16  # the bits, with or without ml_dtypes
    out = np.empty(a.shape, ml_dtypes.bfloat16)
    assert zcoll.decompress(buf, out=out) is out
    assert np.array_equal(out.view(np.uint16), y)
    assert zcoll.quality(a, out)["max_abs_error"] <= zcoll.info(buf)["error_bound"]
    assert zcoll.compress_bound(10, ml_dtypes.bfloat16) == zcoll.compress_bound(10, "bfloat16")
