// kernels.h — the element-wise device steps of the GPU collectives
// (elementwise.cu): the CPU's reduce / scale (primitives.cc) and the agree
// stage's value statistics (dispatch.cc), stream-ordered on a CUDA stream.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>

#include "zcoll.h"

namespace zcoll::cuda::coll {

// out[i] = lo[i] op hi[i] (NaN propagates for MAX/MIN as on the CPU).
cudaError_t launch_reduce(zcoll_dtype dtype, zcoll_op op, void* out, const void* lo, const void* hi,
                          size_t n, cudaStream_t stream);
// data[i] /= divisor (f32: divided by (float)divisor, as on the CPU).
cudaError_t launch_scale(zcoll_dtype dtype, void* data, size_t n, double divisor,
                         cudaStream_t stream);
// Per-block finite min, max and max |x| into partial[3 * blocks] (device
// memory); blocks <= kStatsBlocks. The host finishes the reduction.
constexpr int kStatsBlocks = 256;
cudaError_t launch_stats(zcoll_dtype dtype, const void* data, size_t n, double* partial,
                         int* blocks, cudaStream_t stream);

}  // namespace zcoll::cuda::coll
