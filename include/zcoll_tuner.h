/*
 * zcoll_tuner.h — EXPERIMENTAL: the cost model behind mode AUTO (libzcoll_mpi).
 *
 * Kept out of zcoll_mpi.h on purpose (as NCCL keeps its tuner interface out of
 * nccl.h): the model's parameters and the prediction call expose internals
 * that will change as the model learns new effects. Nothing here is covered
 * by the stability promise of zcoll_mpi.h; a program that uses it should
 * check zcoll_get_version(). zcoll_model follows the struct_size rule of
 * zcoll.h (set struct_size = sizeof(zcoll_model)).
 */
#ifndef ZCOLL_TUNER_H
#define ZCOLL_TUNER_H

#include "zcoll_mpi.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- cost model and automatic selection ------------------------------------
 * An alpha-beta-gamma model of every algorithm and mode, and of the MPI
 * library's own collectives (docs/algorithms.md, "Cost model"). Mode AUTO
 * evaluates it per call and runs the fastest prediction. Its parameters come,
 * in this order of precedence, from the ZCOLL_NET_* / ZCOLL_*_BW environment
 * variables, a tuning file (ZCOLL_TUNE_FILE, written by zcoll-tune), or a
 * probe that the handle runs at its first AUTO call (a few ms: a ring exchange
 * of 8 B and 1 MiB, and the codec on 1 MiB of smooth data). All ranks agree on
 * one set of values (the slowest rank's), so all make the same choice.
 * Throughputs are bytes of uncompressed data per second with `threads`
 * OpenMP threads per rank.                                                   */
typedef enum zcoll_model_source {
  ZCOLL_MODEL_SOURCE_NONE = 0,      /* not calibrated                            */
  ZCOLL_MODEL_SOURCE_PROBE = 1,     /* the handle's probe (and the environment) */
  ZCOLL_MODEL_SOURCE_TUNE_FILE = 2, /* ZCOLL_TUNE_FILE (and the environment)    */
  ZCOLL_MODEL_SOURCE_SET = 3        /* zcoll_comm_set_model, or the environment
                                       alone                                    */
} zcoll_model_source;

typedef struct zcoll_model {
  size_t struct_size;        /* sizeof(zcoll_model)                              */
  double latency;            /* alpha: seconds per message                       */
  double sync_latency;       /* seconds of zcoll's per-call agreement (one small
                              MPI_Allreduce); 0 = 2 * ceil(log2 N) * latency */
  double bandwidth;          /* 1/beta: bytes/s a rank sends while it receives   */
  double compress_bw;        /* compression                                      */
  double decompress_bw;      /* decompression                                    */
  double hom_bw;             /* homomorphic addition of two streams              */
  double reduce_bw;          /* local reduction of two float arrays              */
  double overlap;            /* 0..1: how much of the shorter of codec and
                              transfer time pipelined modes hide when the two
                              are balanced (1 = all of it; the rest is charged
                              in proportion to shorter / longer)            */
  double growth_bits;        /* bits per value a k-term compressed sum grows by
                              per doubling of k                             */
  double mpi_scale;          /* measured / modelled time of the MPI library's
                              collectives for long messages (the probe times
                              a 4 MiB MPI_Allreduce); 0 = 1                 */
  double mpi_scale_small;    /* the same at 256 KiB; in between, interpolated
                              on log size; 0 = mpi_scale                    */
  int threads;               /* threads the throughputs were measured with       */
  zcoll_model_source source; /* where the values came from                   */
  /* The two-level model of the node-aware algorithms (docs/algorithms.md,
   * "Node-aware algorithms"); 0 = not set. A program built against an older
   * zcoll_model (a smaller struct_size) leaves them 0. */
  double node_latency;   /* alpha between ranks of one node; 0 = latency    */
  double node_bandwidth; /* bytes/s a rank sends to a rank of its node while
                            every rank of the node does; 0 = bandwidth    */
  double rail_bandwidth; /* bytes/s a rank sends to the rank of its local
                            index on another node while every rank does;
                            0 = bandwidth / (the smallest node's ranks)   */
  int ranks_per_node;    /* the layout zcoll_predict assumes: ranks by node,
                            this many per node (the last node takes the
                            rest); 0 or 1 = a node per rank. The probe
                            sets the handle's largest node.               */
  /* The dense codec's rates (ZCOLL_CODEC=auto chooses between the codecs);
   * 0 = not known: auto keeps the fast codec. Since 1.2. */
  double dense_compress_bw;   /* the dense codec's compression                */
  double dense_decompress_bw; /* the dense codec's decompression              */
} zcoll_model;

/* A zcoll_model with struct_size set and every value 0 (to be filled). */
#define ZCOLL_MODEL_INITIALIZER                                                                   \
  {                                                                                               \
    sizeof(zcoll_model), 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, ZCOLL_MODEL_SOURCE_NONE, 0, 0, 0, 0, \
        0, 0                                                                                      \
  }

/* Run the probe now (collective; also re-runs it). */
ZCOLL_API zcoll_status zcoll_comm_calibrate(zcoll_comm* zc);
/* The handle's model (ZCOLL_ERR_INVALID_ARG if not calibrated yet). */
ZCOLL_API zcoll_status zcoll_comm_get_model(const zcoll_comm* zc, zcoll_model* model);
/* Replace the handle's model (all ranks must pass the same values; AUTO
 * checks this with the settings of every call). */
ZCOLL_API zcoll_status zcoll_comm_set_model(zcoll_comm* zc, const zcoll_model* model);

/* Save / load a model as a tuning file (JSON; what ZCOLL_TUNE_FILE reads). */
ZCOLL_API zcoll_status zcoll_model_save(const zcoll_model* model, const char* path);
ZCOLL_API zcoll_status zcoll_model_load(const char* path, zcoll_model* model);

/* Predicted seconds of one call with the fast codec (zcoll_predict_codec
 * below for the dense codec and ZCOLL_CODEC=auto): `count` as in the collective's call
 * (Allreduce/Bcast/Reduce: values; Reduce_scatter (block), Allgather,
 * Scatter, Gather: values per rank); ratio = compression ratio of one
 * compressed input (ignored for MPI and RAW); algorithm AUTO = the one the
 * library would select. Mode AUTO: the fastest mode, returned in *chosen_mode
 * and *chosen_algorithm (either may be NULL). Pure function, no MPI. */
ZCOLL_API zcoll_status zcoll_predict(const zcoll_model* model, zcoll_collective collective,
                                     zcoll_mode mode, zcoll_algorithm algorithm, int nranks,
                                     size_t count, zcoll_dtype dtype, double ratio, double* seconds,
                                     zcoll_mode* chosen_mode, zcoll_algorithm* chosen_algorithm);

/* The codec of zcoll_predict_codec: ZCOLL_CODEC_FAST or ZCOLL_CODEC_DENSE
 * (zcoll.h), as ZCOLL_CODEC=fast|dense, or this, as ZCOLL_CODEC=auto: the
 * model chooses the codec as a handle with that setting does (the value of
 * ZCOLL_CODEC_FLAG_AUTO, outside zcoll_codec's values). Since 1.2. */
#define ZCOLL_PREDICT_CODEC_AUTO 0x100

/* zcoll_predict with the codec of the call's messages (the handle's
 * ZCOLL_CODEC), from the same cost function the library's own choice uses.
 * ratio: the fast codec's ratio of one compressed input, ratio_dense the dense
 * codec's (<= 0: 1; with ZCOLL_PREDICT_CODEC_AUTO, <= 0 = no estimate: the
 * fast codec, as a call without one). codec:
 *   ZCOLL_CODEC_FAST   what zcoll_predict predicts (ratio_dense is ignored);
 *   ZCOLL_CODEC_DENSE  the dense codec's rates (dense_compress_bw,
 *                      dense_decompress_bw; ZCOLL_ERR_INVALID_ARG if the
 *                      model has none) at ratio_dense; mode HOM runs as DOC
 *                      (dense streams have no homomorphic addition) and
 *                      *chosen_mode says so; mode AUTO chooses among MPI and
 *                      the dense codec's DOC rows;
 *   ZCOLL_PREDICT_CODEC_AUTO  modes DOC and CPR_P2P take the dense codec
 *                      where it is predicted 3 % faster than the fast one;
 *                      HOM stays on the fast codec; mode AUTO chooses mode,
 *                      algorithm and codec together; both fast where the
 *                      model has no dense rates;
 *   anything else      ZCOLL_ERR_INVALID_ARG.
 * *chosen_codec (may be NULL): the codec of the predicted call (FAST for MPI
 * and RAW, which send no compressed streams). Assumes SUM for reductions, as
 * zcoll_predict. Pure function, no MPI. Since 1.2. */
ZCOLL_API zcoll_status zcoll_predict_codec(const zcoll_model* model, zcoll_collective collective,
                                           zcoll_mode mode, zcoll_algorithm algorithm, int nranks,
                                           size_t count, zcoll_dtype dtype, int codec, double ratio,
                                           double ratio_dense, double* seconds,
                                           zcoll_mode* chosen_mode,
                                           zcoll_algorithm* chosen_algorithm,
                                           zcoll_codec* chosen_codec);

#ifdef __cplusplus
}
#endif

#endif /* ZCOLL_TUNER_H */
