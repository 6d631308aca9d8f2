"""The numcodecs codec and the Zarr v3 serializer, and zcoll as the compressor of
Zarr format 2 arrays."""

import importlib.metadata as md

import numpy as np
import pytest

numcodecs = pytest.importorskip("numcodecs")
zarr = pytest.importorskip("zarr")

import zcoll  # noqa: E402  (registers the numcodecs codec)
import zcoll.zarr  # noqa: E402
from zcoll.numcodecs import Zcoll  # noqa: E402


def max_err(a, b):
    return float(np.max(np.abs(np.asarray(a, np.float64) - np.asarray(b, np.float64))))


def test_entry_points_are_installed():
    eps = md.entry_points()
    assert "zcoll" in [e.name for e in eps.select(group="numcodecs.codecs")]
    assert "zcoll" in [e.name for e in eps.select(group="zarr.codecs")]


def test_numcodecs_get_codec(field):
    codec = numcodecs.get_codec({"id": "zcoll", "mode": "abs", "error_bound": 1e-2})
    assert isinstance(codec, Zcoll)
    assert numcodecs.get_codec(codec.get_config()) == codec
    enc = codec.encode(field)
    assert enc == zcoll.compress(field, abs=1e-2)
    dec = codec.decode(enc)
    assert max_err(field.ravel(), dec) <= 1e-2
    out = np.empty(field.shape, np.float32)
    codec.decode(enc, out=out)
    assert np.array_equal(out.ravel(), dec)
    # non-contiguous chunks are laid out, never cast
    assert codec.decode(codec.encode(field[:, ::2])).size == field[:, ::2].size
    with pytest.raises(TypeError):
        codec.encode(field.astype(np.int32))
    with pytest.raises(ValueError):
        Zcoll(mode="bogus")


def test_numcodecs_dense_codec(field):
    codec = numcodecs.get_codec({"id": "zcoll", "mode": "abs", "error_bound": 1e-2,
                                 "codec": "dense"})
    assert codec.codec == "dense" and codec.get_config()["codec"] == "dense"
    assert "codec" not in Zcoll().get_config()  # fast: the config of older stores
    assert numcodecs.get_codec(codec.get_config()) == codec
    enc = codec.encode(field)
    assert enc == zcoll.compress(field, abs=1e-2, codec="dense")
    # the chunk's shape: n-D prediction, smaller than the same values flat
    assert enc == zcoll.compress(field, abs=1e-2, codec="dense", dims=field.shape)
    assert len(enc) < len(codec.encode(field.ravel()))
    assert max_err(field.ravel(), codec.decode(enc)) <= 1e-2
    with pytest.raises(ValueError):
        Zcoll(codec="bogus")


def test_numcodecs_16bit():
    codec = Zcoll(mode="abs", error_bound=1e-2)
    h = np.linspace(-3, 3, 5000, dtype=np.float16).reshape(50, 100)
    enc = codec.encode(h)
    assert enc == zcoll.compress(h, abs=1e-2)
    dec = codec.decode(enc)
    assert dec.dtype == np.float16 and max_err(h.ravel(), dec) <= 1e-2
    out = np.empty(h.shape, np.float16)
    assert codec.decode(enc, out=out) is out and np.array_equal(out.ravel(), dec)
    assert codec.decode(codec.encode(h[:, ::2])).size == h[:, ::2].size
    # bfloat16 (bits) streams decode to uint16 bits, into 2-byte integer outs
    bits = np.arange(0x3F80, 0x3F80 + 5000, dtype=np.uint16)  # 1.0 and up
    benc = zcoll.compress(bits, abs=1e-2, dtype="bfloat16")
    assert np.array_equal(codec.decode(benc), zcoll.decompress(benc))
    bout = np.empty(5000, np.int16)
    assert np.array_equal(codec.decode(benc, out=bout).view(np.uint16), zcoll.decompress(benc))
    # 16-bit values never go into another type's bytes, and bits are not values
    with pytest.raises(TypeError, match="holds float16, out is uint16"):
        codec.decode(enc, out=np.empty(h.shape, np.uint16))
    with pytest.raises(TypeError, match="holds bfloat16, out is float16"):
        codec.decode(benc, out=np.empty(5000, np.float16))
    with pytest.raises(TypeError, match="float16 or bfloat16"):
        codec.encode(bits)


def test_numcodecs_ml_dtypes_bfloat16():
    ml_dtypes = pytest.importorskip("ml_dtypes")
    codec = Zcoll(mode="rel", error_bound=1e-3)
    a = np.sin(np.linspace(0, 10, 5000, dtype=np.float32)).astype(ml_dtypes.bfloat16)
    enc = codec.encode(a)
    assert enc == zcoll.compress(a, rel=1e-3)
    out = np.empty(a.shape, ml_dtypes.bfloat16)
    codec.decode(enc, out=out)
    assert max_err(a.astype(np.float32), out.astype(np.float32)) <= zcoll.info(enc)["error_bound"]


def test_zarr_v2_float16(tmp_path):
    h = np.sin(np.linspace(0, 20, 6000, dtype=np.float32)).astype(np.float16).reshape(60, 100)
    z = zarr.create_array(str(tmp_path / "h.zarr"), shape=h.shape, chunks=(30, 100),
                          dtype="float16", compressors=Zcoll(error_bound=1e-3), zarr_format=2)
    z[...] = h
    back = zarr.open_array(str(tmp_path / "h.zarr"), mode="r")[...]
    assert back.dtype == np.float16 and max_err(h, back) <= 1e-3


def test_zarr_v3_serializer(tmp_path, field):
    eb = 1e-2
    chunks = tuple(max(1, s // 2) for s in field.shape)
    z = zarr.create_array(str(tmp_path / "v3.zarr"), shape=field.shape, chunks=chunks,
                          dtype="float32", serializer=zcoll.zarr.ZcollCodec(error_bound=eb),
                          compressors=None, zarr_format=3)
    z[...] = field
    r = zarr.open_array(str(tmp_path / "v3.zarr"), mode="r")
    assert r.metadata.to_dict()["codecs"][0]["name"] == "zcoll"
    back = r[...]
    assert back.shape == field.shape and back.dtype == np.float32
    assert max_err(field, back) <= eb
    # a partial read through the codec
    assert max_err(field[1:3], r[1:3]) <= eb


def test_zarr_v3_dense_serializer(tmp_path, field):
    """codec="dense": the configuration names it, each Zarr chunk is predicted
    along its own shape, the store reads back within the bound."""
    eb = 1e-3
    chunks = tuple(max(1, s // 2) for s in field.shape)
    codec = zcoll.zarr.ZcollCodec(error_bound=eb, codec="dense")
    assert codec.to_dict()["configuration"]["codec"] == "dense"
    assert "codec" not in zcoll.zarr.ZcollCodec().to_dict()["configuration"]
    assert zcoll.zarr.ZcollCodec.from_dict(codec.to_dict()) == codec
    with pytest.raises(ValueError):
        zcoll.zarr.ZcollCodec(codec="bogus")
    z = zarr.create_array(str(tmp_path / "d.zarr"), shape=field.shape, chunks=chunks,
                          dtype="float32", serializer=codec, compressors=None, zarr_format=3)
    z[...] = field
    r = zarr.open_array(str(tmp_path / "d.zarr"), mode="r")
    assert r.metadata.to_dict()["codecs"][0]["configuration"]["codec"] == "dense"
    assert max_err(field, r[...]) <= eb
    part = np.ascontiguousarray(field[tuple(slice(0, c) for c in chunks)])
    assert codec._compress(part) == zcoll.compress(part, abs=eb, codec="dense")
    assert zcoll.info(codec._compress(part))["chunk_size"] == 262144


def test_zarr_v3_rejects_integers(tmp_path):
    with pytest.raises(TypeError, match="float32 or float64"):
        zarr.create_array(str(tmp_path / "i.zarr"), shape=(10,), chunks=(5,), dtype="int32",
                          serializer=zcoll.zarr.ZcollCodec(), compressors=None)


def test_zarr_v3_float64_rel(tmp_path, field):
    a = field.astype(np.float64)
    z = zarr.create_array(str(tmp_path / "rel.zarr"), shape=a.shape, chunks=a.shape,
                          dtype="float64",
                          serializer=zcoll.zarr.ZcollCodec(mode="rel", error_bound=1e-4),
                          compressors=None)
    z[...] = a
    # one Zarr chunk: the REL bound is that of the whole array
    assert max_err(a, z[...]) <= 1e-4 * (a.max() - a.min())


def test_zarr_v2_compressor(tmp_path, field):
    eb = 1e-3
    z = zarr.create_array(str(tmp_path / "v2.zarr"), shape=field.shape, chunks=field.shape,
                          dtype="float32", compressors=Zcoll(error_bound=eb), zarr_format=2)
    z[...] = field
    r = zarr.open_array(str(tmp_path / "v2.zarr"), mode="r")
    assert max_err(field, r[...]) <= eb


def test_example_runs(tmp_path):
    import pathlib
    import subprocess
    import sys

    ex = pathlib.Path(__file__).resolve().parents[1] / "examples" / "zarr_field.py"
    out = subprocess.run([sys.executable, str(ex), "--abs", "0.05",
                          "--store", str(tmp_path / "f.zarr")],
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stdout + out.stderr
    assert "ratio" in out.stdout and "-> ok" in out.stdout


def test_entry_points_load_without_importing_zcoll(tmp_path):
    import subprocess
    import sys

    z = zarr.create_array(str(tmp_path / "ep.zarr"), shape=(5000,), chunks=(2500,),
                          dtype="float32", serializer=zcoll.zarr.ZcollCodec(error_bound=1e-3),
                          compressors=None)
    z[...] = np.linspace(0, 1, 5000, dtype=np.float32)
    code = (
        "import sys, numpy as np, zarr, numcodecs\n"
        f"a = zarr.open_array({str(tmp_path / 'ep.zarr')!r}, mode='r')[...]\n"
        "assert float(np.abs(a - np.linspace(0, 1, 5000, dtype=np.float32)).max()) <= 1e-3\n"
        "assert type(numcodecs.get_codec({'id': 'zcoll'})).__module__ == 'zcoll.numcodecs'\n"
        "print('ok')\n")
    out = subprocess.run([sys.executable, "-W", "ignore", "-c", code], capture_output=True,
                         text=True, timeout=120)
    assert out.returncode == 0 and "ok" in out.stdout, out.stdout + out.stderr
