/*
 * zcoll_mpi.h — error-bounded compressed MPI collectives (libzcoll_mpi).
 *
 * The calls mirror their MPI counterparts and take a zcoll_comm handle made
 * from an MPI communicator. Each call runs one of five modes:
 *
 *   ZCOLL_MODE_MPI      the MPI library's own collective (exact)
 *   ZCOLL_MODE_RAW      zcoll's algorithm without compression (exact)
 *   ZCOLL_MODE_CPR_P2P  baseline: compress before every send, decompress after
 *                       every receive (the error grows with every hop)
 *   ZCOLL_MODE_DOC      C-Coll: data movement compresses each piece once and
 *                       decompresses once at the end; reductions decompress,
 *                       operate and recompress, with the compression done in
 *                       chunk ranges interleaved with MPI progress polling
 *   ZCOLL_MODE_HOM      hZCCL: compress once, reduce on compressed streams
 *                       (MPI_SUM); MPI_MAX/MIN/PROD run as DOC
 *   ZCOLL_MODE_AUTO     per call, the mode and algorithm (plain MPI included)
 *                       that the cost model predicts to be fastest (the
 *                       default; see "cost model" below)
 *
 * and one algorithm per collective (ring Reduce_scatter / Allgather / Allreduce,
 * recursive-doubling Allreduce, binomial Bcast / Scatter / Reduce / Gather; see
 * docs/algorithms.md for phases, cost and error propagation).
 *
 * A call goes to the plain MPI collective (always correct) when the datatype is
 * not MPI_FLOAT / MPI_DOUBLE (or zcoll's bfloat16/float16 datatypes, below),
 * the op is not MPI_SUM / MAX / MIN / PROD, the message is below the size
 * threshold (min_bytes), or the mode is MPI.
 *
 * Error bounds. The configured bound is turned into one absolute bound `eb`
 * agreed on by all ranks (for ZCOLL_EB_REL: error_bound * (max - min) over the
 * finite inputs of all ranks, found with one small MPI_Allreduce that also checks
 * that every rank uses the same settings). With ZCOLL_BOUND_PER_COMPRESSION, eb
 * bounds each compression and the result's bound grows with the algorithm (for
 * example N*eb for a homomorphic ring Allreduce sum). With ZCOLL_BOUND_RESULT the
 * library divides eb by the algorithm's accumulation factor so that the result
 * stays within eb. Either way the bound of each call is reported in
 * zcoll_report.error_bound. The bound is that of exact arithmetic: the rounding
 * of the reduction in the datatype comes on top, as for MPI itself (at most
 * (N+1)*u*sum_i|x_i| for SUM, u = 2^-24 for float and 2^-53 for double; MAX and
 * MIN round nothing; PROD (N+1)*u relative). NaN and Inf inputs are carried
 * exactly (their chunks are stored raw) and follow IEEE arithmetic; MAX and MIN
 * return NaN where any input is NaN.
 *
 * Settings that differ between ranks (error bound, mode, algorithm, count,
 * datatype, op, root, chunk size) are detected: every rank returns
 * ZCOLL_ERR_MISMATCH and nothing is mixed. Mode and size threshold must agree
 * across ranks like the collective call itself (a rank that goes to MPI while
 * another runs a zcoll algorithm is the same error as calling different
 * collectives).
 *
 * Buffers are host memory. MPI_IN_PLACE is accepted where MPI allows it (noted
 * per call). Counts are size_t; the MPI fallback uses the MPI-4 large-count
 * calls, so counts above INT_MAX work in every mode.
 *
 * Threads: a zcoll_comm is used by one thread at a time (as an MPI communicator
 * in a collective). The codec runs an OpenMP team of `threads` threads inside
 * each call; only the calling thread calls MPI (MPI_THREAD_FUNNELED suffices)
 * — except for the nonblocking calls (below), which run on a progress thread
 * of the handle when MPI provides MPI_THREAD_MULTIPLE.
 *
 * Every function returns a zcoll_status; zcoll_last_error() (zcoll.h) gives the
 * detailed message of the last failure on the calling thread.
 */
#ifndef ZCOLL_MPI_H
#define ZCOLL_MPI_H

#include <mpi.h>
#include <stddef.h>
#include <stdint.h>

#include "zcoll.h"
#include "zcoll_export.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- modes, algorithms, collectives ---------------------------------------- */
typedef enum zcoll_mode {
  ZCOLL_MODE_DEFAULT = 0, /* zcoll_comm_set_mode: back to the configured mode  */
  ZCOLL_MODE_MPI = 1,
  ZCOLL_MODE_RAW = 2,
  ZCOLL_MODE_CPR_P2P = 3,
  ZCOLL_MODE_DOC = 4,
  ZCOLL_MODE_HOM = 5,
  ZCOLL_MODE_AUTO = 6
} zcoll_mode;

/* Algorithms. The library's algorithm table (docs/algorithms.md) is the list:
 * every algorithm of it has its value here, named like it (the library checks
 * both when it is built); zcoll_algorithm_from_name() takes the names,
 * zcoll_algorithms_of() lists a collective's. Numbers never change once
 * released. */
typedef enum zcoll_algorithm {
  ZCOLL_ALGO_AUTO = 0,               /* selection by the library              */
  ZCOLL_ALGO_NATIVE = 1,             /* the MPI library's collective          */
  ZCOLL_ALGO_RING = 2,               /* Allreduce, Reduce_scatter, Allgather  */
  ZCOLL_ALGO_RECURSIVE_DOUBLING = 3, /* Allreduce, any process count          */
  ZCOLL_ALGO_BINOMIAL = 4,           /* Bcast, Scatter, Reduce, Gather        */
  ZCOLL_ALGO_NONE = 5,               /* nothing to do (count 0)               */
  ZCOLL_ALGO_CHAIN = 6,              /* Bcast: pipelined chain, long messages */
  /* Since 1.1 (the algorithm table, zcoll_algorithms_of, lists which apply): */
  ZCOLL_ALGO_PAIRWISE = 7,   /* Reduce_scatter: pairwise exchange     */
  ZCOLL_ALGO_NODE_AWARE = 8, /* every collective: node, then rails    */
  ZCOLL_ALGO_NODE_LEADER = 9 /* Allreduce: through node leaders       */
} zcoll_algorithm;

typedef enum zcoll_collective {
  ZCOLL_COLL_NONE = 0, /* no call made yet                                      */
  ZCOLL_COLL_ALLREDUCE = 1,
  ZCOLL_COLL_REDUCE_SCATTER = 2, /* zcoll_reduce_scatter and _block           */
  ZCOLL_COLL_ALLGATHER = 3,
  ZCOLL_COLL_BCAST = 4,
  ZCOLL_COLL_SCATTER = 5,
  ZCOLL_COLL_REDUCE = 6,
  ZCOLL_COLL_GATHER = 7
} zcoll_collective;

/* Room for collectives in the per-collective arrays (zcoll_comm_config):
 * indices are zcoll_collective values, so new collectives fit without moving a
 * field. */
#define ZCOLL_MAX_COLLECTIVES 16

typedef enum zcoll_bound_semantics {
  ZCOLL_BOUND_PER_COMPRESSION = 0, /* error_bound bounds each compression      */
  ZCOLL_BOUND_RESULT = 1           /* error_bound bounds the final result      */
} zcoll_bound_semantics;

/* Names ("hom", "ring", "allreduce", ...); never NULL ("?" if unknown). */
ZCOLL_API const char* zcoll_mode_name(zcoll_mode mode);
ZCOLL_API const char* zcoll_algorithm_name(zcoll_algorithm algorithm);
ZCOLL_API const char* zcoll_collective_name(zcoll_collective collective);
/* Parse a mode name ("mpi", "raw", "cpr_p2p", "doc", "hom", "auto"). */
ZCOLL_API zcoll_status zcoll_mode_from_name(const char* name, zcoll_mode* mode);
/* Parse a collective name ("allreduce", "reduce_scatter", ...). Since 1.1. */
ZCOLL_API zcoll_status zcoll_collective_from_name(const char* name, zcoll_collective* collective);
/* The algorithm of `collective` called `name` (its name or an alias, any case,
 * as ZCOLL_<COLLECTIVE>_ALGO takes it; "auto" is ZCOLL_ALGO_AUTO); an unknown
 * name is ZCOLL_ERR_INVALID_ARG listing the collective's algorithms. Since 1.1. */
ZCOLL_API zcoll_status zcoll_algorithm_from_name(zcoll_collective collective, const char* name,
                                                 zcoll_algorithm* algorithm);
/* The algorithms `collective` has, in the table's order (the size rule takes
 * the first that applies): up to `cap` written to out; returns how many there
 * are (0 for an unknown collective). Since 1.1. */
ZCOLL_API int zcoll_algorithms_of(zcoll_collective collective, zcoll_algorithm* out, int cap);

/* ---- configuration ---------------------------------------------------------
 * Every field can be overridden by a ZCOLL_* environment variable when the
 * handle is created (docs/env.md; zcoll_mpi_env_help() prints the table).    */
/* codec_flags: the cost model chooses the codec per call (ZCOLL_CODEC=auto);
 * a setting of the handle, never a flag of a stream. Since 1.2. */
#define ZCOLL_CODEC_FLAG_AUTO 0x100u

/* clang-format off */
typedef struct zcoll_comm_config {
  size_t struct_size;                          /* sizeof(zcoll_comm_config)                 */
  zcoll_mode mode;                             /* ZCOLL_MODE (default AUTO)                 */
  zcoll_eb_mode eb_mode;                       /* ZCOLL_EB_MODE abs|rel (default REL)       */
  double error_bound;                          /* ZCOLL_ERROR_BOUND (default 1e-4)          */
  zcoll_bound_semantics bound;                 /* ZCOLL_BOUND per_compression|result        */
  int threads;                                 /* ZCOLL_THREADS: OpenMP team per rank for the
                                     codec and local reductions (default 1;
                                     0 = omp_get_max_threads())                */
  size_t min_bytes;                            /* ZCOLL_MIN_BYTES: messages of fewer bytes
                                     go to MPI (default 65536; 0 = never)      */
  uint32_t chunk_size;                         /* ZCOLL_CHUNK_SIZE: codec chunk in values
                                     (0 = ZCOLL_DEFAULT_CHUNK_SIZE)            */
  size_t pipeline_values;                      /* ZCOLL_PIPELINE_VALUES: values per pipeline
                                     segment (each one compressed stream);
                                     0 = 4 chunks                              */
  zcoll_algorithm algorithm_v1[8];             /* zcoll 1.0's place of `algorithm`: read
                                     only from a struct of 1.0's size (and
                                     written back there); ignore it        */
  uint64_t codec_flags;                        /* ZCOLL_CHECKSUM=1: ZCOLL_FLAG_CHECKSUM, the
                                     zcoll_params.flags of every compressed
                                     message (a CRC-32C per chunk: a corrupt
                                     message is an error, never a wrong value);
                                     0 = none (default). Since 1.1.
                                     ZCOLL_FORMAT_FLAG_DENSE (ZCOLL_CODEC=
                                     dense, since 1.2): the dense codec for
                                     every message; hom runs as doc.
                                     ZCOLL_CODEC_FLAG_AUTO (ZCOLL_CODEC=auto,
                                     since 1.2): the cost model picks fast
                                     or dense per call (wins over DENSE) */
  zcoll_algorithm algorithm[ZCOLL_MAX_COLLECTIVES]; /* per collective, indexed by
                                     zcoll_collective: ZCOLL_<COLLECTIVE>_ALGO
                                     (ZCOLL_ALLREDUCE_ALGO auto|ring|rd, ...);
                                     ZCOLL_ALGO_AUTO = the library's choice;
                                     the last field, so that new collectives
                                     never move another. Since 1.1          */
} zcoll_comm_config;
/* clang-format on */

/* clang-format off */
#define ZCOLL_COMM_CONFIG_INITIALIZER                                                            \
  {                                                                                              \
    sizeof(zcoll_comm_config), ZCOLL_MODE_AUTO, ZCOLL_EB_REL, 1e-4, ZCOLL_BOUND_PER_COMPRESSION, \
        1, 65536, 0u, 0, {ZCOLL_ALGO_AUTO}, 0u, {ZCOLL_ALGO_AUTO}                               \
  }
/* clang-format on */

/* Fill *config with the defaults above. */
ZCOLL_API void zcoll_comm_config_init(zcoll_comm_config* config);

/* A text table of every ZCOLL_* environment variable: name, default, meaning
 * (static storage, never NULL). */
ZCOLL_API const char* zcoll_mpi_env_help(void);

/* ---- the handle -------------------------------------------------------------
 * Collective over comm (an intra-communicator): duplicates comm, applies the
 * environment to *config (NULL = defaults) and validates the result. The handle
 * owns the duplicate, its reusable buffers and the settings. */
typedef struct zcoll_comm zcoll_comm;
ZCOLL_API zcoll_status zcoll_comm_create(MPI_Comm comm, const zcoll_comm_config* config,
                                         zcoll_comm** out);
/* Collective over the communicator (frees the duplicate). NULL is a no-op. */
ZCOLL_API zcoll_status zcoll_comm_free(zcoll_comm* zc);
/* The effective configuration (after the environment). */
ZCOLL_API zcoll_status zcoll_comm_get_config(const zcoll_comm* zc, zcoll_comm_config* config);

/* Per-call settings: they apply to the following calls on this handle until
 * changed again (all ranks must set the same values).
 *   set_mode: ZCOLL_MODE_DEFAULT returns to the configured mode.
 *   set_algorithm: the algorithm of one collective (ZCOLL_ALGO_AUTO: the
 *     library's choice; otherwise one the collective has: Allreduce RING or
 *     RECURSIVE_DOUBLING, Reduce_scatter and Allgather RING, the rooted
 *     collectives BINOMIAL; anything else is ZCOLL_ERR_INVALID_ARG).
 *   set_error_bound: eb_mode + value for the following calls.
 *   set_average: with MPI_SUM, Allreduce / Reduce / Reduce_scatter return the
 *     sum divided by the communicator size (on compressed streams the divisor
 *     is applied at decompression); ignored for other ops.
 *   set_shape (since 1.2): the shape of one rank's block in the data-movement
 *     collectives (Bcast: the buffer; Allgather, Gather, Scatter: one rank's
 *     count), ndims dims slowest first as zcoll_params.dims (ndims 0: none;
 *     each dim > 0, ndims <= ZCOLL_MAX_DIMS). A call whose block count is the
 *     product cuts its pipeline segments at whole rows or planes of the block
 *     and gives each piece its dims, so the dense codec predicts along them
 *     (a smooth 2-D field: up to 2x the ratio, but in the default 16384-value
 *     chunks about a quarter of the 1-D codec's speed: it pays where the link,
 *     not the codec, bounds the call); other calls, and the reduction
 *     collectives, stay 1-D. The streams decode without it; the segmentation
 *     follows it, so ranks whose shapes cut a call differently fail it
 *     (ZCOLL_ERR_MISMATCH) as for the other settings. With ZCOLL_CODEC=auto
 *     the pieces stay 1-D: the model prices the 1-D codec's ratio and rates,
 *     and the codec with dims is slower (zcoll_report.reason: "shape not used
 *     (codec auto)"); set ZCOLL_CODEC=dense to use the shape. */
ZCOLL_API zcoll_status zcoll_comm_set_mode(zcoll_comm* zc, zcoll_mode mode);
ZCOLL_API zcoll_status zcoll_comm_set_algorithm(zcoll_comm* zc, zcoll_collective collective,
                                                zcoll_algorithm algorithm);
ZCOLL_API zcoll_status zcoll_comm_set_error_bound(zcoll_comm* zc, zcoll_eb_mode eb_mode,
                                                  double error_bound);
ZCOLL_API zcoll_status zcoll_comm_set_average(zcoll_comm* zc, int average);
ZCOLL_API zcoll_status zcoll_comm_set_shape(zcoll_comm* zc, uint32_t ndims, const uint64_t* dims);
ZCOLL_API zcoll_status zcoll_comm_size(const zcoll_comm* zc, int* size);
ZCOLL_API zcoll_status zcoll_comm_rank(const zcoll_comm* zc, int* rank);

/* ---- per-call report --------------------------------------------------------
 * Filled by every call (also by one that fails) and readable after it. Times
 * and byte counts are this rank's. */
/* clang-format off */
typedef struct zcoll_report {
  size_t struct_size; /* set by the caller: sizeof(zcoll_report)       */
  zcoll_collective collective;
  zcoll_mode mode; /* the mode that ran (after fallbacks)           */
  zcoll_algorithm algorithm;
  zcoll_status status;
  int comm_size;
  char reason[160];            /* why this mode and algorithm                   */
  uint64_t count;              /* values of the call (per-rank block for the
                                  gather/scatter family, total for reduce_scatter) */
  uint64_t bytes_sent;         /* bytes this rank sent (0 for mode MPI)        */
  uint64_t bytes_uncompressed; /* bytes the same algorithm sends uncompressed   */
  double time_total;           /* seconds                                      */
  double time_compress;        /* compression + decompression                  */
  double time_comm;            /* in MPI calls (sending, receiving, waiting)   */
  double time_reduce;          /* local reduction, homomorphic additions       */
  double eb_per_compression;   /* absolute bound of one compression (0: none)  */
  double error_bound;          /* guaranteed |result - exact| of the values
                                  this rank received (exact arithmetic)       */
  double error_factor;         /* error_bound / eb_per_compression (sum/max of
                                  the compressions on the worst path)         */
  uint32_t compressions;       /* compressions this rank ran                   */
  uint32_t hom_adds;           /* homomorphic additions this rank ran          */
  double time_predicted;       /* the cost model's prediction for the mode and
                                  algorithm that ran (0: no model calibrated)  */
  double ratio_estimate;       /* compression ratio the model used (0: none)   */
  /* timeline of the call on this rank (seconds; 0: none, e.g. mode mpi): */
  double time_range;           /* the pass over the input for the agreement
                                  (REL value range, PROD magnitude, AUTO ratio) */
  double time_first_send;      /* call start -> the algorithm's first message
                                  (range pass, agreement, first compression:
                                  the link is idle until then)                 */
  double time_after_recv;      /* the last completed receive -> call end (work
                                  left when the wire is done: final decoding)  */
  zcoll_codec codec;           /* the codec of the call's messages (ZCOLL_CODEC;
                                  with auto, the one chosen; FAST when nothing
                                  was compressed: mpi, raw; since 1.2)         */
} zcoll_report;
/* clang-format on */

/* A zcoll_report ready for zcoll_comm_last_report (struct_size set). */
#define ZCOLL_REPORT_INITIALIZER                                                                  \
  {                                                                                               \
    sizeof(zcoll_report), ZCOLL_COLL_NONE, ZCOLL_MODE_DEFAULT, ZCOLL_ALGO_AUTO, ZCOLL_SUCCESS, 0, \
        "", 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, ZCOLL_CODEC_FAST                   \
  }

ZCOLL_API zcoll_status zcoll_comm_last_report(const zcoll_comm* zc, zcoll_report* report);

/* ---- cost model ---------------------------------------------------------------
 * Mode AUTO chooses with a cost model whose parameters come from the
 * environment (docs/env.md), a tuning file (ZCOLL_TUNE_FILE, written by
 * zcoll-tune) or a probe. Inspecting and setting the model, and predicting a
 * call's time, are in the experimental header zcoll_tuner.h.               */

/* ---- collectives --------------------------------------------------------------
 * datatype: any MPI datatype (MPI_FLOAT and MPI_DOUBLE are compressed, and
 * zcoll's bfloat16/float16 datatypes through float32; others go to MPI).
 * op: any MPI_Op (SUM/MAX/MIN/PROD are ours, others go to MPI).
 * All ranks call with matching arguments, as in MPI.                         */

/* ---- bfloat16 and float16 (since 1.1) -------------------------------------------
 * MPI has no bfloat16 datatype. zcoll_mpi_datatype(ZCOLL_BFLOAT16 or
 * ZCOLL_FLOAT16, &dt) gives zcoll's: a committed contiguous datatype of 2
 * bytes (named "ZCOLL_BFLOAT16" / "ZCOLL_FLOAT16"), created on the first call
 * (MPI must be initialized), the same handle on every later call, freed by
 * MPI_Finalize; ZCOLL_FLOAT32 / ZCOLL_FLOAT64 give MPI_FLOAT / MPI_DOUBLE.
 * Pass it as the datatype of any collective below, with buffers of 16-bit
 * values (their IEEE bits). The call runs as the same call on float32: the
 * inputs are widened exactly into float32 copies owned by the handle, the
 * float32 call runs in the configured mode and algorithm (compressed streams
 * are float32 streams; sums accumulate in float32, homomorphically on the
 * integer codes in mode hom; the MPI fallback runs MPI_FLOAT), and the result
 * is rounded once to 16 bits (to nearest, ties to even; NaNs arrive quiet;
 * Bcast leaves the root's buffer untouched). zcoll_report is the
 * float32 call's (sizes, bytes and the size threshold count float32 values),
 * with error_bound raised by the largest rounding error of this rank's result
 * values: error_bound = (the float32 call's bound, exact arithmetic on the
 * widened inputs) + max_i |to16(r_i) - r_i| over this rank's finite float32
 * results r_i. It bounds |result - exact result of the 16-bit inputs| up to
 * the float32 arithmetic's own rounding, which comes on top as for float32
 * (above: (N+1)*2^-24*sum|x| for SUM). A finite result beyond float16's range
 * rounds to Inf and the bound is Inf; bfloat16 has float32's range, so a sum
 * that overflows float32 is Inf as in float32. Ops other than SUM/PROD/MAX/MIN:
 * a user-defined op goes to MPI on the 16-bit datatype itself (it sees the
 * 16-bit values); MPI's other predefined ops (MPI_BAND, MPI_LAND, MPI_MAXLOC,
 * ...) are not defined on it and return ZCOLL_ERR_UNSUPPORTED on every rank,
 * before any MPI call. A 16-bit datatype that differs across ranks (bfloat16
 * vs float16, or vs MPI_FLOAT) is ZCOLL_ERR_MISMATCH on every rank in the
 * zcoll modes (raw, cpr_p2p, doc, hom, AUTO when it runs one); in mode mpi
 * and below the size threshold, as with MPI itself, it is not detected. With
 * MPI itself the datatype only moves bytes: MPI_Allreduce(..., MPI_SUM) on it
 * fails rather than summing integers. Device handles (zcoll_cuda_mpi.h)
 * refuse it (ZCOLL_ERR_UNSUPPORTED). */
ZCOLL_API zcoll_status zcoll_mpi_datatype(zcoll_dtype dtype, MPI_Datatype* datatype);

/* recvbuf = op over ranks of sendbuf (count values). sendbuf may be
 * MPI_IN_PLACE (input taken from recvbuf). Every rank gets a bit-identical
 * result (cpr_p2p: see docs/algorithms.md; mode mpi and the fallback: what the
 * MPI library gives, and MPICH's may differ between ranks in NaN payloads and
 * the sign of zero). */
ZCOLL_API zcoll_status zcoll_allreduce(zcoll_comm* zc, const void* sendbuf, void* recvbuf,
                                       size_t count, MPI_Datatype datatype, MPI_Op op);

/* MPI_Reduce_scatter_block: sendbuf holds size*recvcount values; rank i gets
 * block i (recvcount values) of the reduction. sendbuf may be MPI_IN_PLACE
 * (input in recvbuf, which then holds size*recvcount values; the result is
 * written to its start). */
ZCOLL_API zcoll_status zcoll_reduce_scatter_block(zcoll_comm* zc, const void* sendbuf,
                                                  void* recvbuf, size_t recvcount,
                                                  MPI_Datatype datatype, MPI_Op op);

/* MPI_Reduce_scatter: sendbuf holds sum(recvcounts) values; rank i gets the
 * recvcounts[i] values at offset sum(recvcounts[0..i-1]) of the reduction.
 * recvcounts has comm-size entries, identical on all ranks. MPI_IN_PLACE as
 * for zcoll_reduce_scatter_block. */
ZCOLL_API zcoll_status zcoll_reduce_scatter(zcoll_comm* zc, const void* sendbuf, void* recvbuf,
                                            const size_t* recvcounts, MPI_Datatype datatype,
                                            MPI_Op op);

/* recvbuf (size*count values) = every rank's sendbuf in rank order. sendbuf
 * may be MPI_IN_PLACE (each rank's block already at recvbuf + rank*count). */
ZCOLL_API zcoll_status zcoll_allgather(zcoll_comm* zc, const void* sendbuf, void* recvbuf,
                                       size_t count, MPI_Datatype datatype);

/* buffer (count values) of root to every rank. */
ZCOLL_API zcoll_status zcoll_bcast(zcoll_comm* zc, void* buffer, size_t count,
                                   MPI_Datatype datatype, int root);

/* Root's sendbuf (size*count values, significant at root only): block i goes
 * to rank i's recvbuf (count values). At root recvbuf may be MPI_IN_PLACE
 * (root's block stays in sendbuf). */
ZCOLL_API zcoll_status zcoll_scatter(zcoll_comm* zc, const void* sendbuf, void* recvbuf,
                                     size_t count, MPI_Datatype datatype, int root);

/* recvbuf at root = op over ranks of sendbuf (count values); recvbuf is
 * significant at root only. At root sendbuf may be MPI_IN_PLACE. */
ZCOLL_API zcoll_status zcoll_reduce(zcoll_comm* zc, const void* sendbuf, void* recvbuf,
                                    size_t count, MPI_Datatype datatype, MPI_Op op, int root);

/* Root's recvbuf (size*count values) = every rank's sendbuf in rank order. At
 * root sendbuf may be MPI_IN_PLACE (root's block already in place). */
ZCOLL_API zcoll_status zcoll_gather(zcoll_comm* zc, const void* sendbuf, void* recvbuf,
                                    size_t count, MPI_Datatype datatype, int root);

/* ---- nonblocking collectives (Since 1.1) ----------------------------------------
 * zcoll_iallreduce & co. start the collective of the same name and return at
 * once with a request in *request; zcoll_test / zcoll_wait complete it. The
 * arguments, modes, bounds, MPI fallback and MPI_IN_PLACE rules are those of
 * the blocking call, and so are the results and the report: a nonblocking call
 * gives the same bits as the blocking call in its place (docs/nonblocking.md).
 *
 * Order (as MPI's): every rank starts the calls of a handle, blocking and
 * nonblocking, in the same order; they run, and complete, in that order. A
 * blocking call, zcoll_comm_calibrate, zcoll_comm_last_report and
 * zcoll_comm_get_model issued while requests are pending first wait for them.
 * A per-call setting (zcoll_comm_set_mode, _algorithm, _error_bound, _average,
 * zcoll_comm_set_model) applies to the calls started after it; the pending
 * ones keep the settings they were started with.
 *
 * Buffers: sendbuf and recvbuf (buffer) belong to the library from the start
 * until the request is complete (zcoll_test says done, or zcoll_wait has
 * returned): do not change the input nor read the result before. recvcounts
 * is copied at the start.
 *
 * Progress: when MPI provides MPI_THREAD_MULTIPLE (MPI_Query_thread at
 * zcoll_comm_create) and ZCOLL_PROGRESS is `thread` (the default), each
 * handle runs its nonblocking calls on a progress thread of its own, started
 * at the first one: the calling thread computes, or calls MPI, meanwhile.
 * Otherwise a nonblocking call runs to completion inside its start (the
 * request is complete at once: correct, no overlap), and the first such call
 * of the process says so in one line on stderr (not when ZCOLL_PROGRESS=inline
 * asked for it). zcoll_comm_progress tells which applies.
 *
 * Threads: the handle is used by one thread at a time (starting calls,
 * blocking calls, settings, zcoll_comm_free); zcoll_test, zcoll_wait and
 * zcoll_request_free may be called from any thread, on one request by one
 * thread at a time.
 *
 * Errors: a NULL handle or request pointer is returned by the start, with no
 * request. Every other failure, including those a blocking call returns at
 * once (a bad root, a settings mismatch), is the request's: zcoll_test (once
 * done) and zcoll_wait return it and set the calling thread's
 * zcoll_last_error() to the call's text. A call that fails, fails on every
 * rank, and the handle's later calls run as usual (docs/reliability.md).
 *
 * Freeing: zcoll_request_free releases a request; one still pending runs to
 * completion anyway (its buffers stay the library's until then: the
 * completion of a later request of the handle, a later blocking call or
 * zcoll_comm_free shows it has). zcoll_comm_free first waits for the handle's
 * pending requests (they are collective: every rank must have started them),
 * then stops its thread; the requests stay valid, complete, until freed. */
typedef struct zcoll_request zcoll_request;

ZCOLL_API zcoll_status zcoll_iallreduce(zcoll_comm* zc, const void* sendbuf, void* recvbuf,
                                        size_t count, MPI_Datatype datatype, MPI_Op op,
                                        zcoll_request** request);
ZCOLL_API zcoll_status zcoll_ireduce_scatter_block(zcoll_comm* zc, const void* sendbuf,
                                                   void* recvbuf, size_t recvcount,
                                                   MPI_Datatype datatype, MPI_Op op,
                                                   zcoll_request** request);
ZCOLL_API zcoll_status zcoll_ireduce_scatter(zcoll_comm* zc, const void* sendbuf, void* recvbuf,
                                             const size_t* recvcounts, MPI_Datatype datatype,
                                             MPI_Op op, zcoll_request** request);
ZCOLL_API zcoll_status zcoll_iallgather(zcoll_comm* zc, const void* sendbuf, void* recvbuf,
                                        size_t count, MPI_Datatype datatype,
                                        zcoll_request** request);
ZCOLL_API zcoll_status zcoll_ibcast(zcoll_comm* zc, void* buffer, size_t count,
                                    MPI_Datatype datatype, int root, zcoll_request** request);
ZCOLL_API zcoll_status zcoll_iscatter(zcoll_comm* zc, const void* sendbuf, void* recvbuf,
                                      size_t count, MPI_Datatype datatype, int root,
                                      zcoll_request** request);
ZCOLL_API zcoll_status zcoll_ireduce(zcoll_comm* zc, const void* sendbuf, void* recvbuf,
                                     size_t count, MPI_Datatype datatype, MPI_Op op, int root,
                                     zcoll_request** request);
ZCOLL_API zcoll_status zcoll_igather(zcoll_comm* zc, const void* sendbuf, void* recvbuf,
                                     size_t count, MPI_Datatype datatype, int root,
                                     zcoll_request** request);

/* *done = 1 when the request is complete (and then returns the call's status),
 * 0 while it runs (returns ZCOLL_SUCCESS). Never blocks. */
ZCOLL_API zcoll_status zcoll_test(zcoll_request* request, int* done);
/* Block until the request is complete; returns the call's status and writes
 * its report to *report (NULL: not wanted; struct_size set by the caller, as
 * for zcoll_comm_last_report). May be called again on a complete request. */
ZCOLL_API zcoll_status zcoll_wait(zcoll_request* request, zcoll_report* report);
/* Release the request (NULL is a no-op); see "Freeing" above. */
ZCOLL_API zcoll_status zcoll_request_free(zcoll_request* request);
/* *threaded = 1 when the handle's nonblocking calls run on a progress thread
 * (overlap), 0 when each runs to completion inside its start. */
ZCOLL_API zcoll_status zcoll_comm_progress(const zcoll_comm* zc, int* threaded);

#ifdef __cplusplus
}
#endif

#endif /* ZCOLL_MPI_H */
