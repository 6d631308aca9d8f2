"""The compressor (include/zcoll.h) for numpy: compress, decompress, info, quality
and the homomorphic operations on compressed streams. Every call releases the GIL
while the library runs; arrays must be float32 or float64 and C-contiguous
(anything else is a TypeError or ValueError, never a silent copy or cast)."""

import numpy as np

from . import _codec

#: status codes of zcoll_status, by name
STATUS = {
    "SUCCESS": 0, "INVALID_ARG": 1, "BUFFER_TOO_SMALL": 2, "CORRUPT": 3, "TRUNCATED": 4,
    "UNSUPPORTED": 5, "MISMATCH": 6, "NO_MEMORY": 7, "INTERNAL": 8, "MPI": 9,
}
DEFAULT_CHUNK_SIZE = _codec.DEFAULT_CHUNK_SIZE


def _bound(abs, rel):
    if (abs is None) == (rel is None):
        raise TypeError("give exactly one of abs= or rel= (the error bound)")
    if abs is not None:
        return _codec.EB_ABS, float(abs)
    return _codec.EB_REL, float(rel)


def compress(array, *, abs=None, rel=None, chunk_size=0, threads=1, out=None):
    """Compress a float32/float64 C-contiguous array; returns the stream (bytes).

    Exactly one bound: ``abs`` (|x - x'| <= abs) or ``rel`` (|x - x'| <= rel *
    (max - min) over the finite values of *this* array). ``chunk_size`` in values
    (0 = 16384; a multiple of 32 in [1024, 1048576]); ``threads`` is the OpenMP
    team (0 = all). The stream records dtype, length and bound, not the shape.

    With ``out`` (a writable bytes-like object of at least
    ``compress_bound(array.size, array.dtype)`` bytes, e.g. a bytearray or a numpy
    uint8 array, reused across calls) the stream is written there and a
    memoryview of its bytes is returned: no allocation per call.
    """
    eb_mode, eb = _bound(abs, rel)
    if out is None:
        return _codec.compress(array, eb_mode, eb, int(chunk_size), int(threads))
    size = _codec.compress_into(array, out, eb_mode, eb, int(chunk_size), int(threads))
    return memoryview(out).cast("B")[:size]


def decompress(buf, out=None, shape=None, *, threads=1):
    """Decompress a stream (any contiguous bytes-like object).

    Without ``out`` a new 1-D array of the stream's dtype and length is returned,
    reshaped to ``shape`` if given. With ``out`` (a writable C-contiguous array of
    the stream's dtype and exactly its number of values, any shape) the values
    are written there and ``out`` is returned.
    """
    if out is None:
        dtype, n = _codec.header(buf)
        out = np.empty(n, dtype=dtype)
        _codec.decompress_into(buf, out, int(threads))
        return out if shape is None else out.reshape(shape)
    if shape is not None and tuple(np.shape(out)) != tuple(np.atleast_1d(shape)):
        raise ValueError(f"shape {shape} does not match out's shape {np.shape(out)}")
    _codec.decompress_into(buf, out, int(threads))
    return out


def info(buf):
    """The stream's header as a dict (dtype, n, chunk_size, error_bound, quantum,
    divisor, terms, sizes, ratio, ...); validates the header, index and framing."""
    return _codec.info(buf)


def quality(original, reconstructed, compressed_bytes=0, *, threads=1):
    """Compare two arrays of the same dtype and size (computed in double): max_abs_error,
    rmse, value_range, nrmse, psnr, non-finite counts; compression_ratio and
    bits_per_value when ``compressed_bytes`` is given (an int, or the stream)."""
    if not isinstance(compressed_bytes, int):
        compressed_bytes = len(memoryview(compressed_bytes).cast("B"))
    return _codec.quality(original, reconstructed, compressed_bytes, int(threads))


def hom_add(a, b, *, threads=1):
    """a + b on compressed streams (no decompression). The streams must share
    dtype, length, chunk size, quantum (so: the same absolute bound) and divisor;
    the result's bound is the sum of theirs."""
    return _codec.hom_add(a, b, int(threads))


def hom_sub(a, b, *, threads=1):
    """a - b on compressed streams (as hom_add)."""
    return _codec.hom_sub(a, b, int(threads))


def hom_sum(streams, *, threads=1):
    """The sum of one or more compressed streams (as hom_add)."""
    return _codec.hom_sum(list(streams), int(threads))


def mean(streams, *, threads=1):
    """The mean of one or more compressed streams: their sum with its divisor
    multiplied by their number (decompression divides)."""
    return _codec.mean(list(streams), int(threads))


def compress_bound(n, dtype):
    """The largest stream n values of dtype (float32/float64) can give."""
    dt = np.dtype(dtype)
    if dt == np.float32:
        return _codec.compress_bound(int(n), 1)
    if dt == np.float64:
        return _codec.compress_bound(int(n), 2)
    raise TypeError(f"dtype must be float32 or float64, got {dt}")
