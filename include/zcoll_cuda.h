/*
 * zcoll_cuda.h — the zcoll codec and homomorphic operations on NVIDIA GPUs
 * (libzcoll_cuda). The streams are format v1 (docs/format.md), byte for byte the
 * ones of the CPU library: a stream compressed here decompresses, adds or
 * inspects with zcoll.h, and the reverse.
 *
 * Conventions (like NCCL and cuSZp):
 *  - every pointer except `params` is device memory (cudaMalloc or managed
 *    memory); a host pointer or an unknown pointer is ZCOLL_ERR_INVALID_ARG;
 *    `result` is aligned to 8 bytes (as cudaMalloc's memory is);
 *  - every call is stream-ordered and asynchronous: it enqueues work on
 *    `stream` and returns. The returned status covers what the host can check at
 *    once (arguments, pointers, capacities known on the host, launch failures).
 *    What only the device can check (a stream's header, checksum and chunks, n
 *    of a stream against an output buffer) is written, with the output size, to
 *    the zcoll_cuda_result at `result` (device memory) when the work runs;
 *    zcoll_cuda_result_get() waits for the stream and returns both to the host.
 *    A failed operation leaves its outputs unwritten (a failed compression may
 *    leave partial bytes in dst);
 *  - temporary device memory is taken stream-ordered on `stream` from a memory
 *    pool of libzcoll_cuda (one per device, made at the first call; the
 *    application's default pool is not touched) and given back to it with
 *    cudaFreeAsync: the pool keeps it for later calls (no release threshold),
 *    so it holds the most that one call needed until the process ends;
 *  - size output buffers with zcoll_compress_bound() (zcoll.h, shared with the
 *    CPU library);
 *  - statuses are zcoll_status values; nothing aborts or throws.
 *
 * Thread safety: calls on different streams may run concurrently.
 */
#ifndef ZCOLL_CUDA_H
#define ZCOLL_CUDA_H

#include <cuda_runtime_api.h>
#include <stddef.h>
#include <stdint.h>

#include "zcoll.h"

#ifdef __cplusplus
extern "C" {
#endif

/* What an asynchronous operation reports, in device memory. */
typedef struct zcoll_cuda_result {
  int32_t status;  /* zcoll_status of the operation (ZCOLL_SUCCESS = 0)          */
  uint32_t reason; /* internal code of the failed check (0 on success)          */
  uint64_t size;   /* bytes of the output stream; values for decompression      */
  uint64_t detail; /* on failure: the chunk index or the size that was needed   */
} zcoll_cuda_result;

/* Number of CUDA devices (0 when there is none or no driver). */
ZCOLL_API int zcoll_cuda_device_count(void);

/* Wait for `stream`, then copy *result to the host: returns its status (and sets
 * zcoll_last_error's message); *size (may be NULL) receives its size. */
ZCOLL_API zcoll_status zcoll_cuda_result_get(const zcoll_cuda_result* result, size_t* size,
                                             cudaStream_t stream);

/* Compress n values at src (aligned to their size) into dst, which holds
 * dst_capacity >= zcoll_compress_bound(n, dtype) bytes. REL bounds take a device
 * min/max reduction first. result->size = the stream's size. */
ZCOLL_API zcoll_status zcoll_cuda_compress(const zcoll_params* params, zcoll_dtype dtype,
                                           const void* src, size_t n, void* dst,
                                           size_t dst_capacity, zcoll_cuda_result* result,
                                           cudaStream_t stream);

/* Decompress the stream at src (src_size bytes, any alignment) into dst, which
 * holds dst_count values of the stream's type (aligned to their size).
 * result->size = n. The accumulate form adds into dst: dst[i] = dst[i] + x'[i]. */
ZCOLL_API zcoll_status zcoll_cuda_decompress(const void* src, size_t src_size, void* dst,
                                             size_t dst_count, zcoll_cuda_result* result,
                                             cudaStream_t stream);
ZCOLL_API zcoll_status zcoll_cuda_decompress_accumulate(const void* src, size_t src_size, void* dst,
                                                        size_t dst_count, zcoll_cuda_result* result,
                                                        cudaStream_t stream);

/* Homomorphic a + b, a - b and -a (zcoll_hom_add, _sub, _negate): out holds
 * out_capacity >= zcoll_compress_bound(n, dtype) bytes; result->size = its size. */
ZCOLL_API zcoll_status zcoll_cuda_hom_add(const void* a, size_t a_size, const void* b,
                                          size_t b_size, void* out, size_t out_capacity,
                                          zcoll_cuda_result* result, cudaStream_t stream);
ZCOLL_API zcoll_status zcoll_cuda_hom_sub(const void* a, size_t a_size, const void* b,
                                          size_t b_size, void* out, size_t out_capacity,
                                          zcoll_cuda_result* result, cudaStream_t stream);
ZCOLL_API zcoll_status zcoll_cuda_hom_negate(const void* in, size_t in_size, void* out,
                                             size_t out_capacity, zcoll_cuda_result* result,
                                             cudaStream_t stream);

/* acc = acc + b in acc's buffer (acc_capacity bytes). The sum is built in work
 * (work_size >= zcoll_compress_bound(n, dtype) bytes, not overlapping acc or b)
 * and copied back; when it needs more than acc_capacity bytes, acc is left
 * unchanged and result->status is ZCOLL_ERR_BUFFER_TOO_SMALL (result->detail =
 * the bytes needed). result->size = the new size of acc. */
ZCOLL_API zcoll_status zcoll_cuda_hom_accumulate(void* acc, size_t acc_size, size_t acc_capacity,
                                                 const void* b, size_t b_size, void* work,
                                                 size_t work_size, zcoll_cuda_result* result,
                                                 cudaStream_t stream);

/* zcoll_hom_set_divisor in place (header only). result->size = the stream size. */
ZCOLL_API zcoll_status zcoll_cuda_hom_set_divisor(void* stream_bytes, size_t size, uint32_t divisor,
                                                  zcoll_cuda_result* result, cudaStream_t stream);

/* zcoll_doc_combine: decode both, apply op, re-encode at the same quantum. */
ZCOLL_API zcoll_status zcoll_cuda_doc_combine(const void* a, size_t a_size, const void* b,
                                              size_t b_size, zcoll_op op, void* out,
                                              size_t out_capacity, zcoll_cuda_result* result,
                                              cudaStream_t stream);

#ifdef __cplusplus
}
#endif

#endif /* ZCOLL_CUDA_H */
