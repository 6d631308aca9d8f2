/*
 * zcoll.h — the error-bounded float compressor of zcoll (no MPI here).
 *
 * Streams produced by this API follow docs/format.md (format version 1.2:
 * version byte 1; a float32/float64 stream without header flags is a 1.0
 * stream; 1.2 adds the bfloat16 and float16 dtypes).
 * Every function returns a zcoll_status; zcoll_status_string() names a code and
 * zcoll_last_error() gives the detailed message of the last failure on the calling
 * thread. No function aborts or exits.
 *
 * Threads: all functions are reentrant. Every call that runs an OpenMP team
 * takes the team size as its last argument, `int threads` (0 =
 * omp_get_max_threads()); no struct carries a thread count. The bytes produced
 * never depend on the thread count or on the SIMD path taken.
 *
 * Buffers: all pointers are host memory. Compressed streams need no alignment on
 * the host (8-byte alignment is recommended; the format keeps every field aligned
 * relative to the stream start so that a GPU decoder can use word loads).
 *
 * Extensible structs (zcoll_params, zcoll_info, zcoll_quality, zcoll_hom_stats,
 * and the structs of zcoll_mpi.h) begin with `size_t struct_size`. One rule for
 * all of them:
 *   - the caller sets struct_size = sizeof(T), or starts from the struct's
 *     ZCOLL_*_INITIALIZER or *_init function, which do;
 *   - the library reads and writes only the first min(struct_size, its own
 *     sizeof(T)) bytes, so a program built against an older header (smaller
 *     struct) works with a newer library and the other way round;
 *   - a smaller (older) struct is accepted: fields it lacks take their defaults
 *     (input) or are not written (output);
 *   - a larger (newer) struct is accepted if its tail unknown to the library is
 *     all zero (input); for output the library zeroes that tail;
 *   - struct_size below the size of the struct's first version (zcoll 1.0) is
 *     ZCOLL_ERR_INVALID_ARG.
 */
#ifndef ZCOLL_H
#define ZCOLL_H

#include <stddef.h>
#include <stdint.h>

#include "zcoll_export.h"
#include "zcoll_version.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Version of the compressed format written by this library (docs/format.md):
 * the version byte of every stream. Minor 1 (zcoll 1.1) defines the header
 * flag ZCOLL_FLAG_CHECKSUM; a stream without flags is byte-identical to 1.0.
 * Minor 2 (zcoll 1.1) adds the dtype codes 3 (bfloat16) and 4 (float16);
 * float32/float64 streams are unchanged. Minor 3 (zcoll 1.2) adds the dense
 * chunk kind (codec ZCOLL_CODEC_DENSE) under the header flag
 * ZCOLL_FORMAT_FLAG_DENSE; streams of the fast codec are unchanged. */
#define ZCOLL_FORMAT_VERSION 1
#define ZCOLL_FORMAT_VERSION_MINOR 3

/* zcoll_params.flags (and the stream header's flags byte, zcoll_info.format_flags).
 * ZCOLL_FLAG_CHECKSUM: a CRC-32C of every chunk, in a trailer after the chunks
 * (4 bytes per chunk, padded to 8); every decoder and homomorphic operation
 * verifies it (a changed byte anywhere in the stream: ZCOLL_ERR_CORRUPT), and
 * the homomorphic operations write it on their output when an input has it. */
#define ZCOLL_FLAG_CHECKSUM 0x1u
/* The stream header's flag of a stream written by the dense codec (format 1.3;
 * zcoll_info.format_flags): its chunks may be dense (kind 2). Not a value of
 * zcoll_params.flags: choose the codec with zcoll_params.codec. */
#define ZCOLL_FORMAT_FLAG_DENSE 0x2u

/* zcoll_params.codec (since 1.2).
 * ZCOLL_CODEC_FAST: the bit-plane codec (format 1.0-1.2 chunks), the fastest, and
 *   the only one the homomorphic operations and the GPU codec take.
 * ZCOLL_CODEC_DENSE: the same quantization (the bound means the same), Lorenzo
 *   prediction of order 1 or 2 (or 2-D/3-D with zcoll_params.dims) chosen per
 *   chunk and rANS entropy coding: a higher
 *   ratio at a lower speed. zcoll_hom_add/_sub/_negate/_accumulate refuse its
 *   streams (ZCOLL_ERR_UNSUPPORTED); zcoll_doc_combine takes them. */
typedef enum zcoll_codec { ZCOLL_CODEC_FAST = 0, ZCOLL_CODEC_DENSE = 1 } zcoll_codec;

/* ---- status codes -------------------------------------------------------- */
typedef enum zcoll_status {
  ZCOLL_SUCCESS = 0,
  ZCOLL_ERR_INVALID_ARG = 1,      /* a bad parameter (null pointer, eb <= 0, ...) */
  ZCOLL_ERR_BUFFER_TOO_SMALL = 2, /* an output buffer is smaller than required    */
  ZCOLL_ERR_CORRUPT = 3,          /* the compressed bytes are not a valid stream  */
  ZCOLL_ERR_TRUNCATED = 4,        /* the compressed bytes end before the stream   */
  ZCOLL_ERR_UNSUPPORTED = 5,      /* unknown format version, dtype or op          */
  ZCOLL_ERR_MISMATCH = 6,         /* streams that cannot be combined (dtype, n,
                                     chunk size or quantization step differ)      */
  ZCOLL_ERR_NO_MEMORY = 7,        /* an allocation failed                          */
  ZCOLL_ERR_INTERNAL = 8,         /* a bug: an unexpected internal failure         */
  ZCOLL_ERR_MPI = 9               /* an MPI call failed (zcoll_mpi.h only)                      */
} zcoll_status;

/* Short fixed text for a status code (never NULL). */
ZCOLL_API const char* zcoll_status_string(zcoll_status status);
/* Detailed message of the last failing call on this thread ("" if none). */
ZCOLL_API const char* zcoll_last_error(void);

/* ---- version --------------------------------------------------------------
 * ZCOLL_VERSION_MAJOR/MINOR/PATCH, ZCOLL_VERSION_CODE and ZCOLL_VERSION_STRING
 * (zcoll_version.h) describe the headers; these describe the library loaded. */
/* *version = ZCOLL_VERSION_CODE of the library (major*10000 + minor*100 + patch). */
ZCOLL_API zcoll_status zcoll_get_version(int* version);
/* "major.minor.patch" of the library (static, never NULL). */
ZCOLL_API const char* zcoll_version_string(void);

/* ---- data types and error-bound modes ------------------------------------ */
/* ZCOLL_BFLOAT16 and ZCOLL_FLOAT16 (library since 1.1, stream format 1.2): 16-bit values stored
 * as their IEEE bits (2 bytes, little-endian; bfloat16 = the top half of a
 * float32, float16 = IEEE-754 binary16). The codec quantizes each value
 * converted to float32 (exactly), and guarantees the bound against the 16-bit
 * input for the decoded 16-bit values (docs/format.md §6-7); as for float32,
 * NaN and +-Inf travel bit for bit (in raw chunks) and -0.0 decodes as +0.0
 * where its chunk is quantized (docs/format.md §6). Arithmetic on them (accumulate, the
 * homomorphic float paths, DOC) is done in float32 and rounded once to 16 bits
 * (round to nearest, ties to even). The GPU codec (zcoll_cuda.h) has no 16-bit
 * kernels: it returns ZCOLL_ERR_UNSUPPORTED for them. */
typedef enum zcoll_dtype {
  ZCOLL_FLOAT32 = 1,
  ZCOLL_FLOAT64 = 2,
  ZCOLL_BFLOAT16 = 3, /* since 1.1 */
  ZCOLL_FLOAT16 = 4   /* since 1.1 */
} zcoll_dtype;

typedef enum zcoll_eb_mode {
  ZCOLL_EB_ABS = 0, /* |x - x'| <= error_bound                                    */
  ZCOLL_EB_REL = 1  /* |x - x'| <= error_bound * (max - min) over finite values    */
} zcoll_eb_mode;

/* Values per block (fixed by format version 1). */
#define ZCOLL_BLOCK_SIZE 32u
/* Values per chunk: a multiple of 32 in [ZCOLL_MIN_CHUNK_SIZE, ZCOLL_MAX_CHUNK_SIZE]. */
#define ZCOLL_DEFAULT_CHUNK_SIZE 16384u
#define ZCOLL_MIN_CHUNK_SIZE 1024u
#define ZCOLL_MAX_CHUNK_SIZE 1048576u
/* Entries of zcoll_params.dims. */
#define ZCOLL_MAX_DIMS 8u

typedef struct zcoll_params {
  size_t struct_size;    /* sizeof(zcoll_params): lets the struct grow          */
  zcoll_eb_mode eb_mode; /* ABS or REL                                          */
  double error_bound;    /* > 0 and finite                                      */
  uint32_t chunk_size;   /* 0 = ZCOLL_DEFAULT_CHUNK_SIZE                         */
  uint64_t flags;        /* ZCOLL_FLAG_* (since 1.1; 0 = none, a 1.0 stream)     */
  zcoll_codec codec;     /* ZCOLL_CODEC_FAST (default) or _DENSE (since 1.2)     */
  /* The array's shape (since 1.2): ndims entries of dims, slowest dimension
   * first (C order, as numpy's shape), their product the compressed count n
   * (else ZCOLL_ERR_INVALID_ARG); ndims 0 = a flat array. The dense codec
   * predicts along the fastest two or three dimensions (2-D/3-D Lorenzo, or
   * with any ndims >= 1 interpolation of reconstructed values, chosen per
   * chunk; the chunk records it, so decoding needs no dims) and, with
   * chunk_size 0, takes chunks of max(2^18, 4 planes) values, at most 2^20
   * (zcoll_inspect reports it; with the chunk-range API give chunk_size
   * explicitly, since zcoll_header_size(n, 0) assumes the default). The fast
   * codec checks dims and does not use them (the same bytes). */
  uint64_t dims[ZCOLL_MAX_DIMS]; /* dims[0..ndims-1]; the rest 0 (after codec's
                                    padding, which a 1.2 caller may leave unset) */
  uint32_t ndims;                /* 0..ZCOLL_MAX_DIMS                        */
} zcoll_params;

#define ZCOLL_PARAMS_INITIALIZER \
  { sizeof(zcoll_params), ZCOLL_EB_REL, 1e-3, 0u, 0u, ZCOLL_CODEC_FAST, {0u}, 0u }

/* Fill *params with the defaults (REL 1e-3, default chunk size). */
ZCOLL_API void zcoll_params_init(zcoll_params* params);

/* ---- sizes ---------------------------------------------------------------- */
/* Bytes of a single value of dtype (4, 8, or 2 for the 16-bit types; 0 for an
 * unknown dtype). */
ZCOLL_API size_t zcoll_dtype_size(zcoll_dtype dtype);
/* Upper bound on the compressed size of n values of dtype, valid for every
 * allowed chunk size: 64 + 16*ceil(n/1024) + n*sizeof(value). */
ZCOLL_API size_t zcoll_compress_bound(size_t n, zcoll_dtype dtype);
/* Number of chunks of a stream of n values (chunk_size 0 = the default; 0 for an
 * invalid chunk size). */
ZCOLL_API size_t zcoll_chunk_count(size_t n, uint32_t chunk_size);
/* Bytes of the header plus the chunk index, where chunk data begins. */
ZCOLL_API size_t zcoll_header_size(size_t n, uint32_t chunk_size);

/* ---- error bounds --------------------------------------------------------- */
/* Minimum and maximum over the finite values (NaN and +-Inf are skipped).
 * With no finite value, *min = *max = 0. */
ZCOLL_API zcoll_status zcoll_value_range(zcoll_dtype dtype, const void* src, size_t n, double* min,
                                         double* max, int threads);
/* The same, but with no finite value *min = +Inf and *max = -Inf (so that ranges
 * of several parts combine with min and max). Since 1.1. */
ZCOLL_API zcoll_status zcoll_value_range_finite(zcoll_dtype dtype, const void* src, size_t n,
                                                double* min, double* max, int threads);
/* The absolute bound that params give for this data: error_bound for ABS,
 * error_bound * (max - min) for REL. For REL on constant data (max == min) the
 * bound is error_bound * max(|min|, 1) so that it stays positive; a REL bound is
 * clamped into [smallest subnormal, DBL_MAX] (extreme ranges still compress, with
 * the chunks that cannot be quantized stored raw). */
ZCOLL_API zcoll_status zcoll_resolve_error_bound(const zcoll_params* params, zcoll_dtype dtype,
                                                 const void* src, size_t n, double* abs_bound,
                                                 int threads);

/* ---- whole-stream compression -------------------------------------------- */
/* Compress n values at src into dst. dst_capacity must be at least
 * zcoll_compress_bound(n, dtype) (which covers the checksum trailer too). On
 * success *dst_size holds the stream size. */
ZCOLL_API zcoll_status zcoll_compress(const zcoll_params* params, zcoll_dtype dtype,
                                      const void* src, size_t n, void* dst, size_t dst_capacity,
                                      size_t* dst_size, int threads);

/* Decompress a stream into dst, which holds room for dst_count values of the
 * stream's dtype (dst_count >= the stream's n). */
ZCOLL_API zcoll_status zcoll_decompress(const void* src, size_t src_size, void* dst,
                                        size_t dst_count, int threads);

/* Fused decompress-and-accumulate: dst[i] += x'[i] in one pass, in the stream's
 * dtype. For bfloat16/float16, dst holds 16-bit values and each sum is computed
 * in float32 and rounded once to 16 bits: dst[i] = to16(float(dst[i]) +
 * float(x'[i])), so |result - (dst[i] + x[i])| <= error_bound + half a 16-bit
 * ulp of the result (at most 2^-8 |result| for bfloat16, 2^-11 |result| for
 * float16 in the normal range). To accumulate in float32, decompress into a 16-bit
 * buffer and add it to a float32 one yourself. */
ZCOLL_API zcoll_status zcoll_decompress_accumulate(const void* src, size_t src_size, void* dst,
                                                   size_t dst_count, int threads);

/* ---- header inspection ---------------------------------------------------- */
typedef struct zcoll_info {
  size_t struct_size; /* set by the caller: sizeof(zcoll_info)                */
  uint32_t format_version;
  zcoll_dtype dtype;
  uint32_t block_size;
  uint32_t chunk_size;
  uint64_t n; /* values in the stream                                 */
  uint64_t chunks;
  uint64_t raw_chunks;   /* chunks stored uncompressed (escape)                   */
  double error_bound;    /* guaranteed |x - x'| of the represented data (for a
                              homomorphic sum of k streams: the sum of their bounds,
                              divided by the divisor)                               */
  double quantum;        /* quantization step (bin width) shared by combinable
                              streams                                               */
  uint32_t divisor;      /* decompression divides by this (mean of a sum)         */
  uint32_t terms;        /* number of compressed inputs summed into this stream   */
  uint64_t header_size;  /* header + index bytes                                  */
  uint64_t stream_size;  /* total bytes of the stream                             */
  uint32_t format_flags; /* the header's flags (ZCOLL_FLAG_CHECKSUM; since 1.1)   */
} zcoll_info;

#define ZCOLL_INFO_INITIALIZER \
  { sizeof(zcoll_info), 0u, (zcoll_dtype)0, 0u, 0u, 0u, 0u, 0u, 0.0, 0.0, 0u, 0u, 0u, 0u, 0u }

/* Validate the header, the index and every chunk's framing, and describe the
 * stream. src_size may exceed the stream (trailing bytes are ignored). */
ZCOLL_API zcoll_status zcoll_inspect(const void* src, size_t src_size, zcoll_info* info);

/* The total stream size from its header and index alone (needs only the first
 * zcoll_header_size() bytes; does not look at chunk data). */
ZCOLL_API zcoll_status zcoll_stream_size(const void* src, size_t src_size, size_t* stream_size);

/* ---- chunk-range API (for interleaving with communication) ---------------
 * A stream is built as: header+index (zcoll_header_size bytes), then chunk data.
 *   pos = zcoll_header_size(n, cs);
 *   for each range [a,b): zcoll_compress_chunks(p, dt, src, n, a, b,
 *                              dst + pos, cap - pos, &w, sizes + a, threads);
 *                         pos += w;
 *   zcoll_compress_finish(p, dt, n, sizes, dst, cap);
 * params->eb_mode must be ZCOLL_EB_ABS (resolve REL first), and every range
 * must use the same params. chunk_sizes receives one entry per chunk of the
 * range. The stream is then identical to what zcoll_compress produces. With
 * ZCOLL_FLAG_CHECKSUM, finish also writes the checksum trailer after the
 * chunks: the stream then ends zcoll_header_size(n, cs) - 48 bytes after pos
 * (zcoll_stream_size gives the total either way).                            */
ZCOLL_API zcoll_status zcoll_compress_chunks(const zcoll_params* params, zcoll_dtype dtype,
                                             const void* src, size_t n, size_t first_chunk,
                                             size_t last_chunk, void* dst, size_t dst_capacity,
                                             size_t* written, uint32_t* chunk_sizes, int threads);
ZCOLL_API zcoll_status zcoll_compress_finish(const zcoll_params* params, zcoll_dtype dtype,
                                             size_t n, const uint32_t* chunk_sizes, void* dst,
                                             size_t dst_capacity);

/* Decode chunks [first_chunk, last_chunk) of a stream into dst, which is the
 * base of the whole output array (chunk c lands at dst + c*chunk_size values). */
ZCOLL_API zcoll_status zcoll_decompress_chunks(const void* src, size_t src_size, size_t first_chunk,
                                               size_t last_chunk, void* dst, size_t dst_count,
                                               int threads);
/* The same, adding into dst instead of storing (as zcoll_decompress_accumulate). */
ZCOLL_API zcoll_status zcoll_decompress_accumulate_chunks(const void* src, size_t src_size,
                                                          size_t first_chunk, size_t last_chunk,
                                                          void* dst, size_t dst_count, int threads);

/* ---- homomorphic operations (compressed in, compressed out) --------------
 * Two streams combine when dtype, n, chunk size, quantum and divisor match.
 * Output capacity must be at least zcoll_compress_bound(n, dtype).          */
typedef struct zcoll_hom_stats {
  size_t struct_size;      /* set by the caller: sizeof(zcoll_hom_stats)       */
  uint64_t pipeline[4];    /* blocks by pipeline: 0 both constant, 1 only a
                                constant, 2 only b constant, 3 both non-constant */
  uint64_t raw_chunks;     /* chunks that went through floats (escape/raw)     */
  uint64_t widened_chunks; /* chunks whose code range overflowed -> raw        */
} zcoll_hom_stats;

#define ZCOLL_HOM_STATS_INITIALIZER \
  { sizeof(zcoll_hom_stats), {0u, 0u, 0u, 0u}, 0u, 0u }

/* out = a + b. stats may be NULL; counts are added to it. */
ZCOLL_API zcoll_status zcoll_hom_add(const void* a, size_t a_size, const void* b, size_t b_size,
                                     void* out, size_t out_capacity, size_t* out_size,
                                     zcoll_hom_stats* stats, int threads);
/* out = a - b. */
ZCOLL_API zcoll_status zcoll_hom_sub(const void* a, size_t a_size, const void* b, size_t b_size,
                                     void* out, size_t out_capacity, size_t* out_size,
                                     zcoll_hom_stats* stats, int threads);
/* acc = acc + b, written back into acc (through a temporary stream of
 * zcoll_compress_bound bytes). If the sum does not fit in acc_capacity, acc is
 * left unchanged and ZCOLL_ERR_BUFFER_TOO_SMALL is returned. */
ZCOLL_API zcoll_status zcoll_hom_accumulate(void* acc, size_t acc_size, size_t acc_capacity,
                                            size_t* acc_new_size, const void* b, size_t b_size,
                                            zcoll_hom_stats* stats, int threads);
/* out = -in, without decoding (the planes go through the same adder). */
ZCOLL_API zcoll_status zcoll_hom_negate(const void* in, size_t in_size, void* out,
                                        size_t out_capacity, size_t* out_size, int threads);
/* Set the divisor in place: decompression yields the represented sum divided by
 * it (divisor = terms gives the mean of a sum); error_bound scales with it. */
ZCOLL_API zcoll_status zcoll_hom_set_divisor(void* stream, size_t size, uint32_t divisor);

/* Reduction operators for the decompress-operate-compress (DOC) path. */
typedef enum zcoll_op {
  ZCOLL_OP_SUM = 0,
  ZCOLL_OP_PROD = 1,
  ZCOLL_OP_MAX = 2,
  ZCOLL_OP_MIN = 3
} zcoll_op;

/* "SUM", "PROD", "MAX", "MIN" ("?" if unknown; static, never NULL). */
ZCOLL_API const char* zcoll_op_name(zcoll_op op);

/* out = compress(decompress(a) op decompress(b)), chunk by chunk in one fused
 * pass, at the quantum of a (b must match a as for zcoll_hom_add); the output has
 * divisor 1. Every op is supported; for SUM prefer zcoll_hom_add, which never
 * decodes to floats. The output's error_bound: SUM ea+eb, MAX/MIN max(ea,eb),
 * PROD max_i(|b'_i| ea + (|a'_i| + ea) eb), plus one compression bound; the
 * rounding of the operation itself in float (half an ulp) comes on top. */
ZCOLL_API zcoll_status zcoll_doc_combine(const void* a, size_t a_size, const void* b, size_t b_size,
                                         zcoll_op op, void* out, size_t out_capacity,
                                         size_t* out_size, int threads);

/* ---- quality metrics ------------------------------------------------------ */
typedef struct zcoll_quality {
  size_t struct_size;          /* set by the caller: sizeof(zcoll_quality)         */
  uint64_t n;                  /* values compared                                  */
  uint64_t nonfinite;          /* positions where the original is NaN or +-Inf     */
  uint64_t nonfinite_mismatch; /* of those, positions not reproduced bit-exactly */
  double max_abs_error;        /* over finite originals, computed in double         */
  double rmse;
  double value_range;       /* max - min of the finite originals                 */
  double nrmse;             /* rmse / value_range (0 if the range is 0)          */
  double psnr;              /* 20 log10(range / rmse) dB (+inf if rmse == 0)     */
  double compression_ratio; /* n*sizeof(value) / compressed_bytes (0 if unknown) */
  double bits_per_value;    /* 8*compressed_bytes / n (0 if unknown)             */
} zcoll_quality;

#define ZCOLL_QUALITY_INITIALIZER \
  { sizeof(zcoll_quality), 0u, 0u, 0u, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0 }

/* Compare reconstructed values with the originals. compressed_bytes may be 0
 * (ratio and bits per value are then left 0). */
ZCOLL_API zcoll_status zcoll_quality_compare(zcoll_dtype dtype, const void* original,
                                             const void* reconstructed, size_t n,
                                             size_t compressed_bytes, zcoll_quality* q,
                                             int threads);

#ifdef __cplusplus
}
#endif

#endif /* ZCOLL_H */
