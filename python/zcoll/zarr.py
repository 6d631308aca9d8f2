"""Zarr v3 array-to-bytes codec "zcoll" (the serializer: it sees the dtype).

    import zarr, zcoll.zarr
    z = zarr.create_array(store, shape=a.shape, chunks=(...), dtype="float32",
                          serializer=zcoll.zarr.ZcollCodec(mode="abs", error_bound=1e-3),
                          compressors=None)

Registered under the name "zcoll" when this module is imported and through
zarr's ``zarr.codecs`` entry point (so stores written with it open without an
import). Arrays must be float32 or float64. A REL bound is resolved per Zarr
chunk (each chunk's own value range), so the error differs between chunks:
prefer ABS for stores.
"""

import asyncio
from dataclasses import dataclass

import numpy as np
from zarr.abc.codec import ArrayBytesCodec
from zarr.core.common import parse_named_configuration
from zarr.registry import register_codec

from . import codec as _zc

_FLOATS = (np.dtype("float32"), np.dtype("float64"))


@dataclass(frozen=True)
class ZcollCodec(ArrayBytesCodec):
    """mode "abs" or "rel", error_bound > 0, chunk_size: zcoll's chunk in values
    (0 = 16384; the Zarr chunk is split into zcoll chunks of this size); codec:
    "fast" or "dense" (zcoll.compress; the dense codec predicts along the Zarr
    chunk's shape and, with chunk_size 0, takes zcoll chunks of 262144 values or four
    planes).
    The configuration omits codec when it is "fast"."""

    is_fixed_size = False

    mode: str
    error_bound: float
    chunk_size: int
    codec: str

    def __init__(self, *, mode="abs", error_bound=1e-3, chunk_size=0, codec="fast"):
        if mode not in ("abs", "rel"):
            raise ValueError(f"zcoll: mode must be 'abs' or 'rel', got {mode!r}")
        eb = float(error_bound)
        if not (eb > 0 and np.isfinite(eb)):
            raise ValueError(f"zcoll: error_bound must be positive and finite, got {error_bound!r}")
        object.__setattr__(self, "mode", mode)
        object.__setattr__(self, "error_bound", eb)
        object.__setattr__(self, "chunk_size", int(chunk_size))
        _zc._codec_code(codec)  # ValueError for an unknown codec
        object.__setattr__(self, "codec", codec)

    @classmethod
    def from_dict(cls, data):
        _, config = parse_named_configuration(data, "zcoll", require_configuration=False)
        return cls(**(config or {}))

    def to_dict(self):
        config = {"mode": self.mode, "error_bound": self.error_bound, "chunk_size": self.chunk_size}
        if self.codec != "fast":
            config["codec"] = self.codec
        return {"name": "zcoll", "configuration": config}

    def validate(self, *, shape, dtype, chunk_grid):
        native = np.dtype(dtype.to_native_dtype())
        if native.newbyteorder("=") not in _FLOATS:
            raise TypeError(f"zcoll codec: the array's dtype must be float32 or float64, got {native}")

    def _compress(self, a):
        a = np.ascontiguousarray(a)
        if not a.dtype.isnative:
            a = a.astype(a.dtype.newbyteorder("="))
        return _zc.compress(a, chunk_size=self.chunk_size, codec=self.codec,
                            **{self.mode: self.error_bound})

    async def _encode_single(self, chunk_array, chunk_spec):
        a = chunk_array.as_numpy_array()
        data = await asyncio.to_thread(self._compress, a)
        return chunk_spec.prototype.buffer.from_bytes(data)

    async def _decode_single(self, chunk_bytes, chunk_spec):
        raw = chunk_bytes.as_numpy_array()
        a = await asyncio.to_thread(_zc.decompress, raw)
        want = np.dtype(chunk_spec.dtype.to_native_dtype())
        if a.dtype != want:
            a = a.astype(want)  # only a byte-order change (validate() allows floats only)
        return chunk_spec.prototype.nd_buffer.from_numpy_array(a.reshape(chunk_spec.shape))

    def compute_encoded_size(self, input_byte_length, chunk_spec):
        raise NotImplementedError  # variable size


register_codec("zcoll", ZcollCodec)
