/*
 * zcoll_cuda_mpi.h — the seven compressed collectives on GPU buffers
 * (libzcoll_cuda_mpi; docs/gpu.md). The same algorithms, modes, error bounds
 * and per-call report as zcoll_mpi.h; the data stays in device memory and is
 * compressed, added (homomorphically, in the compressed form) and decompressed
 * by the kernels of libzcoll_cuda (zcoll_cuda.h), on the caller's stream.
 *
 * This header is apart from zcoll_cuda.h so that the codec API needs no MPI.
 *
 * Transports, chosen at handle creation:
 *   ZCOLL_CUDA_TRANSPORT_MPI_STAGED      MPI point-to-point through pinned host
 *       buffers: any MPI library, several ranks may share one GPU (the tested one)
 *   ZCOLL_CUDA_TRANSPORT_MPI_CUDA_AWARE  the same, device pointers handed to MPI
 *       directly (needs an MPI library built with CUDA support; zcoll cannot
 *       check that: a library without it crashes or fails inside MPI)
 *   ZCOLL_CUDA_TRANSPORT_NCCL            reserved: not implemented yet (the
 *       create call returns ZCOLL_ERR_UNSUPPORTED)
 *
 * Semantics. Buffers are device (or managed) memory; a host pointer is
 * ZCOLL_ERR_INVALID_ARG. Work that produced the inputs on `stream` is ordered
 * before the collective (the collective's kernels and copies run on `stream`).
 * With the MPI transports a call RETURNS WHEN THE COLLECTIVE IS COMPLETE on this
 * rank: the outputs are written and `stream` has been synchronized (unlike
 * NCCL, where a call returns once the work is enqueued): host staging and the
 * compressed sizes the algorithms exchange need the host in the loop. Like MPI
 * collectives, every rank of the communicator must make the same calls in the
 * same order; argument errors found on one rank only (a host pointer) return
 * on that rank before any communication, as an MPI library's would.
 * report (may be NULL) receives the call's zcoll_report (zcoll_mpi.h).
 * Datatypes, ops, MPI_IN_PLACE and the fallback to MPI (mode mpi, other
 * datatypes and ops, small messages) are as in zcoll_mpi.h; the MPI fallback
 * stages the device buffers through host memory.
 */
#ifndef ZCOLL_CUDA_MPI_H
#define ZCOLL_CUDA_MPI_H

#include <cuda_runtime_api.h>
#include <mpi.h>

#include "zcoll_cuda.h"
#include "zcoll_mpi.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum zcoll_cuda_transport {
  ZCOLL_CUDA_TRANSPORT_MPI_STAGED = 0,
  ZCOLL_CUDA_TRANSPORT_MPI_CUDA_AWARE = 1,
  ZCOLL_CUDA_TRANSPORT_NCCL = 2
} zcoll_cuda_transport;

typedef struct zcoll_cuda_comm zcoll_cuda_comm;

/* Collective over comm. Every rank must see a CUDA device (the current one is
 * used); otherwise every rank returns ZCOLL_ERR_UNSUPPORTED ("no CUDA device").
 * config may be NULL (defaults and ZCOLL_* environment, as zcoll_comm_create).
 * Chunk checksums (ZCOLL_CHECKSUM=1 or ZCOLL_FLAG_CHECKSUM in codec_flags, on
 * any rank) are not implemented by the GPU codec: every rank returns
 * ZCOLL_ERR_UNSUPPORTED. */
ZCOLL_API zcoll_status zcoll_cuda_comm_create(MPI_Comm comm, const zcoll_comm_config* config,
                                              zcoll_cuda_transport transport,
                                              zcoll_cuda_comm** out);
/* Collective. NULL is a no-op. */
ZCOLL_API zcoll_status zcoll_cuda_comm_free(zcoll_cuda_comm* zcc);

/* Per-call settings, as zcoll_comm_set_* (zcoll_mpi.h). */
ZCOLL_API zcoll_status zcoll_cuda_comm_set_mode(zcoll_cuda_comm* zcc, zcoll_mode mode);
ZCOLL_API zcoll_status zcoll_cuda_comm_set_algorithm(zcoll_cuda_comm* zcc,
                                                     zcoll_collective collective,
                                                     zcoll_algorithm algorithm);
ZCOLL_API zcoll_status zcoll_cuda_comm_set_error_bound(zcoll_cuda_comm* zcc, zcoll_eb_mode eb_mode,
                                                       double error_bound);
ZCOLL_API zcoll_status zcoll_cuda_comm_set_average(zcoll_cuda_comm* zcc, int average);

/* Device-side accounting of the last call on this rank: seconds in device
 * operations (each timed from enqueue to completion: codec kernels and their
 * result read-back; reduce/scale kernels are enqueued without a wait and are
 * counted in the next synchronizing operation), the number of codec
 * operations, bytes copied through pinned host memory and seconds spent doing
 * so. Any pointer may be NULL. */
ZCOLL_API zcoll_status zcoll_cuda_comm_device_stats(const zcoll_cuda_comm* zcc,
                                                    double* kernel_seconds, uint64_t* kernel_calls,
                                                    uint64_t* staged_bytes,
                                                    double* staging_seconds);

ZCOLL_API zcoll_status zcoll_cuda_allreduce(zcoll_cuda_comm* zcc, const void* sendbuf,
                                            void* recvbuf, size_t count, MPI_Datatype datatype,
                                            MPI_Op op, cudaStream_t stream, zcoll_report* report);
ZCOLL_API zcoll_status zcoll_cuda_reduce_scatter_block(zcoll_cuda_comm* zcc, const void* sendbuf,
                                                       void* recvbuf, size_t recvcount,
                                                       MPI_Datatype datatype, MPI_Op op,
                                                       cudaStream_t stream, zcoll_report* report);
ZCOLL_API zcoll_status zcoll_cuda_allgather(zcoll_cuda_comm* zcc, const void* sendbuf,
                                            void* recvbuf, size_t count, MPI_Datatype datatype,
                                            cudaStream_t stream, zcoll_report* report);
ZCOLL_API zcoll_status zcoll_cuda_bcast(zcoll_cuda_comm* zcc, void* buffer, size_t count,
                                        MPI_Datatype datatype, int root, cudaStream_t stream,
                                        zcoll_report* report);
ZCOLL_API zcoll_status zcoll_cuda_scatter(zcoll_cuda_comm* zcc, const void* sendbuf, void* recvbuf,
                                          size_t count, MPI_Datatype datatype, int root,
                                          cudaStream_t stream, zcoll_report* report);
ZCOLL_API zcoll_status zcoll_cuda_reduce(zcoll_cuda_comm* zcc, const void* sendbuf, void* recvbuf,
                                         size_t count, MPI_Datatype datatype, MPI_Op op, int root,
                                         cudaStream_t stream, zcoll_report* report);
ZCOLL_API zcoll_status zcoll_cuda_gather(zcoll_cuda_comm* zcc, const void* sendbuf, void* recvbuf,
                                         size_t count, MPI_Datatype datatype, int root,
                                         cudaStream_t stream, zcoll_report* report);

/* The baseline beside them: the MPI library's MPI_Allreduce on the device
 * buffers (staged through pinned host memory, or handed to a CUDA-aware MPI
 * directly), whatever the handle's mode. */
ZCOLL_API zcoll_status zcoll_cuda_baseline_allreduce(zcoll_cuda_comm* zcc, const void* sendbuf,
                                                     void* recvbuf, size_t count,
                                                     MPI_Datatype datatype, MPI_Op op,
                                                     cudaStream_t stream);

/* The other baseline: ncclAllReduce over the handle's ranks (NCCL semantics:
 * enqueued on stream, returns at once). The first call creates an NCCL
 * communicator (collective over the handle's ranks; NCCL needs one GPU per rank,
 * so several ranks on one GPU get ZCOLL_ERR_UNSUPPORTED). Built when NCCL is
 * found (ZCOLL_ENABLE_NCCL); otherwise ZCOLL_ERR_UNSUPPORTED. MPI_FLOAT/DOUBLE,
 * MPI_SUM/PROD/MAX/MIN. */
ZCOLL_API zcoll_status zcoll_cuda_nccl_baseline_allreduce(zcoll_cuda_comm* zcc, const void* sendbuf,
                                                          void* recvbuf, size_t count,
                                                          MPI_Datatype datatype, MPI_Op op,
                                                          cudaStream_t stream);

#ifdef __cplusplus
}
#endif

#endif /* ZCOLL_CUDA_MPI_H */
