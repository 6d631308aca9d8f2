"""The compressor (include/zcoll.h) for numpy: compress, decompress, info, quality
and the homomorphic operations on compressed streams. Every call releases the GIL
while the library runs; arrays must be float32, float64, float16 or bfloat16 and
C-contiguous (anything else is a TypeError or ValueError, never a silent copy or
cast).

bfloat16, as in zcoll.Comm: numpy has no bfloat16, so ``dtype="bfloat16"`` says
that a uint16/int16 array (or a float16 view) holds bfloat16 bits; an
``ml_dtypes.bfloat16`` array is taken as such without it. Decompressing a
bfloat16 stream gives the bits in a uint16 array (``.view(ml_dtypes.bfloat16)``
for the values), whether or not ml_dtypes is installed, or fills an ``out`` of
uint16, int16 or ml_dtypes.bfloat16."""

import numpy as np

from . import _codec
from .comm import _bf16

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


def _ml_bf16(array):
    """An ml_dtypes.bfloat16 array (told by its dtype's name: no import)."""
    return isinstance(array, np.ndarray) and array.dtype.name == "bfloat16"


def _values(array, dtype):
    """(what the extension takes, bfloat16?): an ml_dtypes.bfloat16 array goes
    as its bits, a dtype="bfloat16" array as it is (checked there)."""
    bf16 = _bf16(dtype)
    if _ml_bf16(array):
        return array.view(np.uint16), True
    return array, bf16


#: numpy dtype of a new decompressed array, by stream dtype (bfloat16: the bits)
_RESULT_DTYPES = {"float32": np.float32, "float64": np.float64, "float16": np.float16,
                  "bfloat16": np.uint16}


_CODECS = {"fast": 0, "dense": 1}


def _codec_code(codec):
    if codec not in _CODECS:
        raise ValueError(f"codec must be 'fast' or 'dense', got {codec!r}")
    return _CODECS[codec]


_MAX_DIMS = 8  # ZCOLL_MAX_DIMS


def _dims(array, dims):
    """The shape the codec is told: ``dims`` if given (``()`` = flat), else the
    array's shape when it has two or more dimensions; more than 8 dims fold
    their slowest ones together (the prediction uses the fastest three)."""
    if dims is None:
        shape = tuple(np.shape(array))
        dims = shape if len(shape) >= 2 and int(np.prod(shape)) > 0 else ()
    dims = [int(d) for d in dims]
    if len(dims) > _MAX_DIMS:
        dims = [int(np.prod(dims[:len(dims) - _MAX_DIMS + 1]))] + dims[len(dims) - _MAX_DIMS + 1:]
    return dims


def compress(array, *, abs=None, rel=None, chunk_size=0, threads=1, out=None, dtype=None,
             codec="fast", dims=None):
    """Compress a float32/float64/float16 C-contiguous array; returns the stream (bytes).

    bfloat16: an ``ml_dtypes.bfloat16`` array, or with ``dtype="bfloat16"`` a
    uint16/int16 (or float16) array holding the bits, as zcoll.Comm takes them.
    float16 and bfloat16 give 16-bit streams; the bound holds for the decoded
    16-bit values against the 16-bit input (docs/format.md).

    Exactly one bound: ``abs`` (|x - x'| <= abs) or ``rel`` (|x - x'| <= rel *
    (max - min) over the finite values of *this* array). ``chunk_size`` in values
    (0 = 16384; a multiple of 32 in [1024, 1048576]); ``threads`` is the OpenMP
    team (0 = all). The stream records dtype, length and bound, not the shape.

    With ``out`` (a writable bytes-like object of at least
    ``compress_bound(array.size, array.dtype)`` bytes, e.g. a bytearray or a numpy
    uint8 array, reused across calls) the stream is written there and a
    memoryview of its bytes is returned: no allocation per call.

    ``codec``: ``"fast"`` (bit planes: the fastest, and the only one the
    homomorphic operations take) or ``"dense"`` (the same quantization, Lorenzo
    prediction and rANS coding: a higher ratio at a lower speed; format 1.3).

    ``dims``: the shape the dense codec predicts along (slowest first; their
    product must be the array's size). ``None`` (default) takes ``array.shape``
    when the array has two or more dimensions; ``()`` compresses it as flat
    (``(n,)`` gives a 1-D array's shape). With dims the dense codec chooses per
    chunk among 1-D Lorenzo, 2-D/3-D Lorenzo along the fastest dimensions and
    interpolation of reconstructed values (as SZ3 predicts: a higher ratio at
    loose bounds on smooth fields, slower to compress; the same bound, values
    other than the fast codec's) and, with ``chunk_size=0``, takes chunks that
    hold several rows or planes. The fast codec ignores them. The
    stream records what each chunk used, not the shape: pass ``shape`` to
    ``decompress`` to get it back.
    """
    eb_mode, eb = _bound(abs, rel)
    code = _codec_code(codec)
    shape = _dims(array, dims)
    array, bf16 = _values(array, dtype)
    if out is None:
        return _codec.compress(array, eb_mode, eb, int(chunk_size), int(threads), bf16, code,
                               shape)
    size = _codec.compress_into(array, out, eb_mode, eb, int(chunk_size), int(threads), bf16,
                                code, shape)
    return memoryview(out).cast("B")[:size]


def decompress(buf, out=None, shape=None, *, threads=1):
    """Decompress a stream (any contiguous bytes-like object).

    Without ``out`` a new 1-D array of the stream's dtype and length is returned,
    reshaped to ``shape`` if given. With ``out`` (a writable C-contiguous array of
    the stream's dtype and exactly its number of values, any shape) the values
    are written there and ``out`` is returned.

    A bfloat16 stream gives its bits in a uint16 array (numpy has no bfloat16;
    ``.view(ml_dtypes.bfloat16)`` for the values); ``out`` is then a uint16,
    int16 or ml_dtypes.bfloat16 array (a float16 one is a TypeError).
    """
    if out is None:
        dtype, n = _codec.header(buf)
        out = np.empty(n, dtype=_RESULT_DTYPES[dtype])
        _codec.decompress_into(buf, out, int(threads))
        return out if shape is None else out.reshape(shape)
    if shape is not None and tuple(np.shape(out)) != tuple(np.atleast_1d(shape)):
        raise ValueError(f"shape {shape} does not match out's shape {np.shape(out)}")
    _codec.decompress_into(buf, out.view(np.uint16) if _ml_bf16(out) else out, int(threads))
    return out


def info(buf):
    """The stream's header as a dict (dtype, n, chunk_size, error_bound, quantum,
    divisor, terms, sizes, ratio, ...); validates the header, index and framing."""
    return _codec.info(buf)


def quality(original, reconstructed, compressed_bytes=0, *, threads=1, dtype=None):
    """Compare two arrays of the same dtype and size (computed in double): max_abs_error,
    rmse, value_range, nrmse, psnr, non-finite counts; compression_ratio and
    bits_per_value when ``compressed_bytes`` is given (an int, or the stream).
    bfloat16 as in compress: ml_dtypes.bfloat16 arrays, or bits with
    ``dtype="bfloat16"``."""
    if not isinstance(compressed_bytes, int):
        compressed_bytes = len(memoryview(compressed_bytes).cast("B"))
    a, bf16_a = _values(original, dtype)
    b, bf16_b = _values(reconstructed, dtype)
    return _codec.quality(a, b, compressed_bytes, int(threads), bf16_a or bf16_b)


def _stream_in(out, result):
    """A homomorphic operation's result: the new bytes, or with ``out`` a
    memoryview of the stream's bytes written there."""
    return result if out is None else memoryview(out).cast("B")[:result]


def hom_add(a, b, *, threads=1, out=None):
    """a + b on compressed streams (no decompression). The streams must share
    dtype, length, chunk size, quantum (so: the same absolute bound) and divisor;
    the result's bound is the sum of theirs (16-bit streams: the decoded sum is
    rounded to 16 bits, half an ulp on top, docs/format.md).

    Returns ``bytes``; with ``out`` (a writable bytes-like object of at least
    ``compress_bound(n, dtype)`` bytes, sharing no byte with the inputs) writes
    the stream there and returns a memoryview of it: no allocation per call
    (a new large ``bytes`` costs its first touch of fresh pages, which can take
    longer than the addition)."""
    return _stream_in(out, _codec.hom_add(a, b, out, int(threads)))


def hom_sub(a, b, *, threads=1, out=None):
    """a - b on compressed streams (as hom_add)."""
    return _stream_in(out, _codec.hom_sub(a, b, out, int(threads)))


def hom_sum(streams, *, threads=1, out=None):
    """The sum of one or more compressed streams (as hom_add; with more than
    two, a scratch stream alternates with ``out`` as the running sum)."""
    return _stream_in(out, _codec.hom_sum(list(streams), out, int(threads)))


def mean(streams, *, threads=1, out=None):
    """The mean of one or more compressed streams: their sum with its divisor
    multiplied by their number (decompression divides); ``out`` as hom_add."""
    return _stream_in(out, _codec.mean(list(streams), out, int(threads)))


def compress_bound(n, dtype):
    """The largest stream n values of dtype (float32, float64, float16, or
    bfloat16: "bfloat16" or ml_dtypes.bfloat16) can give."""
    if isinstance(dtype, str) and dtype == "bfloat16":  # numpy does not know the name
        return _codec.compress_bound(int(n), _codec.BFLOAT16)
    dt = np.dtype(dtype)
    for numpy_dtype, code in ((np.float32, _codec.FLOAT32), (np.float64, _codec.FLOAT64),
                              (np.float16, _codec.FLOAT16)):
        if dt == numpy_dtype:
            return _codec.compress_bound(int(n), code)
    if dt.name == "bfloat16":
        return _codec.compress_bound(int(n), _codec.BFLOAT16)
    raise TypeError(f"dtype must be float32, float64, float16 or bfloat16, got {dt}")
