"""numcodecs codec "zcoll": zcoll's error-bounded compressor for numcodecs users,
and the compressor of Zarr format 2 arrays.

    from zcoll.numcodecs import Zcoll
    codec = Zcoll(mode="abs", error_bound=1e-3)
    numcodecs.get_codec({"id": "zcoll", "mode": "abs", "error_bound": 1e-3})

Registered when zcoll is imported and through the ``numcodecs.codecs`` entry
point. Chunks must be float32, float64, float16 or ml_dtypes.bfloat16; a REL
bound is resolved on each chunk alone (its own value range), so prefer ABS for
stores. A bfloat16 chunk decodes to its bits (uint16) without ``out``, as
zcoll.decompress gives them.
"""

import numpy as np
from numcodecs.abc import Codec
from numcodecs.compat import ensure_contiguous_ndarray_like, ensure_ndarray_like, ndarray_copy
from numcodecs.registry import register_codec

from . import codec as _zc


class Zcoll(Codec):
    """Error-bounded lossy codec for float32/float64/float16/bfloat16 chunks.

    mode: "abs" (|x - x'| <= error_bound) or "rel" (error_bound * (max - min) of
    each chunk); chunk_size: zcoll's internal chunk in values (0 = 16384);
    threads: OpenMP team per call (0 = all); codec: "fast" or "dense" (format 1.3:
    a higher ratio at a lower speed; zcoll.compress). The config omits codec when it
    is "fast", so stores written before it existed keep their config. The dense
    codec predicts along the chunk's shape (an n-D chunk's ``shape``, as Zarr
    passes it; a flat buffer is 1-D) and, with chunk_size 0, takes zcoll chunks
    of 262144 values (or four planes) for it; decoding needs no shape.
    """

    codec_id = "zcoll"

    def __init__(self, mode="abs", error_bound=1e-3, chunk_size=0, threads=1, codec="fast"):
        if mode not in ("abs", "rel"):
            raise ValueError(f"mode must be 'abs' or 'rel', got {mode!r}")
        _zc._codec_code(codec)  # ValueError for an unknown codec
        self.codec = codec
        self.mode = mode
        self.error_bound = float(error_bound)
        self.chunk_size = int(chunk_size)
        self.threads = int(threads)

    def get_config(self):
        cfg = {"id": self.codec_id, "mode": self.mode, "error_bound": self.error_bound,
               "chunk_size": self.chunk_size, "threads": self.threads}
        if self.codec != "fast":
            cfg["codec"] = self.codec
        return cfg

    def encode(self, buf):
        a = np.asarray(buf)
        if a.dtype.name != "bfloat16" and a.dtype not in (np.float32, np.float64, np.float16):
            raise TypeError("zcoll codec: dtype must be float32, float64, float16 or "
                            f"bfloat16 (ml_dtypes), got {a.dtype}")
        if not a.dtype.isnative:
            a = a.astype(a.dtype.newbyteorder("="))
        a = np.ascontiguousarray(a)  # layout only, never the dtype
        kw = {self.mode: self.error_bound}
        return _zc.compress(a, chunk_size=self.chunk_size, threads=self.threads,
                            codec=self.codec, **kw)

    def decode(self, buf, out=None):
        if out is None:
            return _zc.decompress(ensure_contiguous_ndarray_like(buf), threads=self.threads)
        dec = _zc.decompress(ensure_contiguous_ndarray_like(buf), threads=self.threads)
        if dec.dtype.itemsize == 2:
            # ndarray_copy reinterprets the bytes as out's dtype: 16-bit values
            # only into their own type (bfloat16 bits: uint16, int16, bfloat16)
            o = ensure_ndarray_like(out).dtype
            bits = dec.dtype == np.uint16
            fits = (o.name == "bfloat16" or o in (np.uint16, np.int16)) if bits else o == dec.dtype
            if not fits:
                raise TypeError(f"zcoll codec: the chunk holds {'bfloat16' if bits else dec.dtype}"
                                f", out is {o}")
        return ndarray_copy(dec, out)

    def __repr__(self):
        return (f"Zcoll(mode={self.mode!r}, error_bound={self.error_bound!r}, "
                f"chunk_size={self.chunk_size}, threads={self.threads}, codec={self.codec!r})")


register_codec(Zcoll)
