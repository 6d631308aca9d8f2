// elementwise.cu — reduce, scale and value statistics on the device (kernels.h).
#include <cmath>
#include <cstdint>

#include "cuda/coll/kernels.h"
#include "cuda/launch.cuh"

namespace zcoll::cuda::coll {
namespace {

constexpr int kThreads = 256;

int grid_for(size_t n) {
  size_t b = (n + kThreads - 1) / kThreads;
  return static_cast<int>(b < 65535 * 4 ? (b == 0 ? 1 : b) : 65535 * 4);
}

template <typename T, zcoll_op OP>
__device__ __forceinline__ T apply(T a, T b) {
  if constexpr (OP == ZCOLL_OP_SUM) return a + b;
  if constexpr (OP == ZCOLL_OP_PROD) return a * b;
  if constexpr (OP == ZCOLL_OP_MAX) return (a > b || isnan(a)) ? a : b;
  return (a < b || isnan(a)) ? a : b;
}

template <typename T, zcoll_op OP>
__global__ void k_reduce(T* out, const T* lo, const T* hi, size_t n) {
  for (size_t i = blockIdx.x * size_t{blockDim.x} + threadIdx.x; i < n;
       i += size_t{gridDim.x} * blockDim.x)
    out[i] = apply<T, OP>(lo[i], hi[i]);
}

template <typename T>
__global__ void k_scale(T* x, size_t n, T d) {
  for (size_t i = blockIdx.x * size_t{blockDim.x} + threadIdx.x; i < n;
       i += size_t{gridDim.x} * blockDim.x)
    x[i] /= d;
}

template <typename T>
__global__ void k_stats(const T* x, size_t n, double* partial) {
  __shared__ double s_lo[kThreads], s_hi[kThreads], s_ma[kThreads];
  const double inf = INFINITY;
  double lo = inf, hi = -inf, ma = 0;
  for (size_t i = blockIdx.x * size_t{blockDim.x} + threadIdx.x; i < n;
       i += size_t{gridDim.x} * blockDim.x) {
    const T v = x[i];
    if (isfinite(v)) {
      const double d = static_cast<double>(v);
      lo = d < lo ? d : lo;
      hi = d > hi ? d : hi;
      const double a = d < 0 ? -d : d;
      ma = a > ma ? a : ma;
    }
  }
  s_lo[threadIdx.x] = lo;
  s_hi[threadIdx.x] = hi;
  s_ma[threadIdx.x] = ma;
  __syncthreads();
  for (unsigned s = kThreads / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s) {
      s_lo[threadIdx.x] = fmin(s_lo[threadIdx.x], s_lo[threadIdx.x + s]);
      s_hi[threadIdx.x] = fmax(s_hi[threadIdx.x], s_hi[threadIdx.x + s]);
      s_ma[threadIdx.x] = fmax(s_ma[threadIdx.x], s_ma[threadIdx.x + s]);
    }
    __syncthreads();
  }
  if (threadIdx.x == 0) {
    partial[3 * blockIdx.x] = s_lo[0];
    partial[3 * blockIdx.x + 1] = s_hi[0];
    partial[3 * blockIdx.x + 2] = s_ma[0];
  }
}

template <typename T>
cudaError_t reduce_typed(zcoll_op op, T* out, const T* lo, const T* hi, size_t n, cudaStream_t st) {
  const int g = grid_for(n);
  switch (op) {
    case ZCOLL_OP_SUM:
      return ZCOLL_LAUNCH((k_reduce<T, ZCOLL_OP_SUM>), g, kThreads, st, out, lo, hi, n);
    case ZCOLL_OP_PROD:
      return ZCOLL_LAUNCH((k_reduce<T, ZCOLL_OP_PROD>), g, kThreads, st, out, lo, hi, n);
    case ZCOLL_OP_MAX:
      return ZCOLL_LAUNCH((k_reduce<T, ZCOLL_OP_MAX>), g, kThreads, st, out, lo, hi, n);
    case ZCOLL_OP_MIN:
      return ZCOLL_LAUNCH((k_reduce<T, ZCOLL_OP_MIN>), g, kThreads, st, out, lo, hi, n);
  }
  return cudaErrorInvalidValue;
}

}  // namespace

cudaError_t launch_reduce(zcoll_dtype dtype, zcoll_op op, void* out, const void* lo, const void* hi,
                          size_t n, cudaStream_t stream) {
  if (n == 0) return cudaSuccess;
  if (dtype == ZCOLL_FLOAT32)
    return reduce_typed(op, static_cast<float*>(out), static_cast<const float*>(lo),
                        static_cast<const float*>(hi), n, stream);
  return reduce_typed(op, static_cast<double*>(out), static_cast<const double*>(lo),
                      static_cast<const double*>(hi), n, stream);
}

cudaError_t launch_scale(zcoll_dtype dtype, void* data, size_t n, double divisor,
                         cudaStream_t stream) {
  if (n == 0) return cudaSuccess;
  if (dtype == ZCOLL_FLOAT32)
    return ZCOLL_LAUNCH(k_scale<float>, grid_for(n), kThreads, stream, static_cast<float*>(data), n,
                        static_cast<float>(divisor));
  return ZCOLL_LAUNCH(k_scale<double>, grid_for(n), kThreads, stream, static_cast<double*>(data), n,
                      divisor);
}

cudaError_t launch_stats(zcoll_dtype dtype, const void* data, size_t n, double* partial,
                         int* blocks, cudaStream_t stream) {
  size_t b = (n + kThreads - 1) / kThreads;
  *blocks = static_cast<int>(b < kStatsBlocks ? (b == 0 ? 1 : b) : kStatsBlocks);
  if (dtype == ZCOLL_FLOAT32)
    return ZCOLL_LAUNCH(k_stats<float>, *blocks, kThreads, stream, static_cast<const float*>(data),
                        n, partial);
  return ZCOLL_LAUNCH(k_stats<double>, *blocks, kThreads, stream, static_cast<const double*>(data),
                      n, partial);
}

}  // namespace zcoll::cuda::coll
