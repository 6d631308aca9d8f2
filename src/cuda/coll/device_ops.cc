// device_ops.cc — the primitives of the collective algorithms on a CUDA
// device (coll/datapath/data_ops.h): the codec through libzcoll_cuda, reduce / scale /
// statistics through elementwise.cu, all on the call's stream.
#include "cuda/coll/device_ops.h"

#include <mpi.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <new>
#include <vector>

#include "coll/control/algorithms.h"
#include "coll/control/calibrate.h"
#include "coll/control/collective.h"
#include "coll/control/comm.h"
#include "core/error.h"
#include "cuda/coll/kernels.h"
#include "transport/clock.h"

namespace zcoll::cuda::coll {

using zcoll::coll::Call;
using zcoll::coll::Ctx;

namespace {
zcoll_status cuda_status(cudaError_t e, const char* what) {
  if (e == cudaSuccess) return ZCOLL_SUCCESS;
  return fail(ZCOLL_ERR_INTERNAL, "%s: %s", what, cudaGetErrorString(e));
}
}  // namespace

// ---- DeviceBufferSource ---------------------------------------------------------
DeviceBufferSource::~DeviceBufferSource() {
  for (Buf& b : bufs_)
    if (b.p) cudaFree(b.p);
}

uint8_t* DeviceBufferSource::get(int slot, bool data, size_t bytes) {
  if (!data || slot < 0 || slot >= zcoll::coll::Workspace::kCount) return nullptr;  // host
  Buf& b = bufs_[slot];
  if (b.cap < bytes || !b.p) {
    if (b.p) cudaFree(b.p);  // synchronizes: no kernel still uses the old buffer
    b.p = nullptr;
    b.cap = 0;
    const size_t want = std::max<size_t>(bytes + bytes / 8, 256);
    if (cudaMalloc(&b.p, want) != cudaSuccess) {
      // Workspace::get would fall back to host memory on nullptr, which the
      // kernels cannot use: fail the call instead (zcoll::guarded at the C API
      // turns bad_alloc into ZCOLL_ERR_NO_MEMORY).
      cudaGetLastError();
      b.p = nullptr;
      fail(ZCOLL_ERR_NO_MEMORY, "cudaMalloc of %zu bytes for workspace slot %d failed", want, slot);
      throw std::bad_alloc();
    }
    b.cap = want;
  }
  return static_cast<uint8_t*>(b.p);
}

size_t DeviceBufferSource::bytes_held() const {
  size_t t = 0;
  for (const Buf& b : bufs_) t += b.cap;
  return t;
}

// ---- CudaOps --------------------------------------------------------------------
CudaOps::~CudaOps() {
  if (result_) cudaFree(result_);
  if (partial_) cudaFree(partial_);
  for (Pinned& p : pinned_)
    if (p.p) cudaFreeHost(p.p);
}

zcoll_status CudaOps::init() {
  ZCOLL_CHECK(
      cuda_status(cudaMalloc(reinterpret_cast<void**>(&result_), sizeof *result_), "cudaMalloc"));
  return cuda_status(
      cudaMalloc(reinterpret_cast<void**>(&partial_), 3 * sizeof(double) * kStatsBlocks),
      "cudaMalloc");
}

void* CudaOps::pinned(int which, size_t bytes) {
  Pinned& p = pinned_[which];
  if (p.cap < bytes || !p.p) {
    if (p.p) cudaFreeHost(p.p);
    p.p = nullptr;
    p.cap = 0;
    const size_t want = std::max<size_t>(bytes + bytes / 8, 256);
    if (cudaMallocHost(&p.p, want) != cudaSuccess) return nullptr;
    p.cap = want;
  }
  return p.p;
}

// A codec call was enqueued with status `enqueued`: wait for its result.
zcoll_status CudaOps::finish(zcoll_status enqueued, size_t* size, double t0) {
  if (enqueued != ZCOLL_SUCCESS) {
    cudaStreamSynchronize(stream_);
    return enqueued;
  }
  size_t got = 0;
  zcoll_status s = zcoll_cuda_result_get(result_, &got, stream_);
  if (size) *size = got;
  t_kernels += now_seconds() - t0;
  ++kernels;
  return s;
}

zcoll_status CudaOps::compress(Ctx& c, const void* src, size_t n, uint8_t* dst, size_t cap,
                               size_t* size) {
  const double t0 = now_seconds();
  if (c.poll()) c.tp->progress();  // transfers in flight keep moving (one poll per piece)
  return finish(zcoll_cuda_compress(&c.params, c.dtype, src, n, dst, cap, result_, stream_), size,
                t0);
}

zcoll_status CudaOps::decompress(Ctx& c, const uint8_t* src, size_t size, void* dst, size_t n,
                                 bool accumulate) {
  const double t0 = now_seconds();
  // The device checks the stream's header and its n against dst (dtype,
  // chunk size and bound were agreed across ranks before the algorithm ran).
  zcoll_status s = accumulate
                       ? zcoll_cuda_decompress_accumulate(src, size, dst, n, result_, stream_)
                       : zcoll_cuda_decompress(src, size, dst, n, result_, stream_);
  size_t got = 0;
  ZCOLL_CHECK(finish(s, &got, t0));
  if (got != n)
    return fail(ZCOLL_ERR_MISMATCH, "received stream has %zu values, this rank expects %zu", got,
                n);
  (void)c;
  return ZCOLL_SUCCESS;
}

zcoll_status CudaOps::hom_add(Ctx& c, const uint8_t* a, size_t a_size, const uint8_t* b,
                              size_t b_size, uint8_t* out, size_t cap, size_t* out_size) {
  (void)c;
  const double t0 = now_seconds();
  return finish(zcoll_cuda_hom_add(a, a_size, b, b_size, out, cap, result_, stream_), out_size, t0);
}

zcoll_status CudaOps::set_divisor(Ctx& c, uint8_t* stream, size_t size, uint32_t divisor) {
  (void)c;
  const double t0 = now_seconds();
  return finish(zcoll_cuda_hom_set_divisor(stream, size, divisor, result_, stream_), nullptr, t0);
}

zcoll_status CudaOps::stream_size(Ctx& c, const uint8_t* src, size_t bytes, size_t n,
                                  size_t* size) {
  const size_t head = std::min(bytes, zcoll_header_size(n, c.params.chunk_size));
  void* h = pinned(2, head);
  if (!h) return fail(ZCOLL_ERR_NO_MEMORY, "cudaMallocHost of %zu bytes failed", head);
  ZCOLL_CHECK(cuda_status(cudaMemcpyAsync(h, src, head, cudaMemcpyDeviceToHost, stream_),
                          "reading a stream header"));
  ZCOLL_CHECK(cuda_status(cudaStreamSynchronize(stream_), "reading a stream header"));
  return zcoll_stream_size(h, head, size);
}

zcoll_status CudaOps::reduce_ordered(Ctx& c, void* out, const void* lo, const void* hi, size_t n) {
  return cuda_status(launch_reduce(c.dtype, c.op, out, lo, hi, n, stream_), "reduce kernel");
}

zcoll_status CudaOps::scale(Ctx& c, void* data, size_t n, double divisor) {
  return cuda_status(launch_scale(c.dtype, data, n, divisor, stream_), "scale kernel");
}

zcoll_status CudaOps::move_bytes(Ctx& c, void* dst, const void* src, size_t bytes) {
  (void)c;
  if (dst == src || bytes == 0) return ZCOLL_SUCCESS;
  auto* d = static_cast<uint8_t*>(dst);
  const auto* s = static_cast<const uint8_t*>(src);
  const size_t gap = d > s ? static_cast<size_t>(d - s) : static_cast<size_t>(s - d);
  if (gap >= bytes)
    return cuda_status(cudaMemcpyAsync(d, s, bytes, cudaMemcpyDefault, stream_), "device copy");
  // overlapping (memmove): pieces of at most `gap` bytes, in the safe order
  for (size_t done = 0; done < bytes;) {
    const size_t len = std::min(gap, bytes - done);
    const size_t off = d < s ? done : bytes - done - len;
    ZCOLL_CHECK(cuda_status(cudaMemcpyAsync(d + off, s + off, len, cudaMemcpyDefault, stream_),
                            "device copy"));
    done += len;
  }
  return ZCOLL_SUCCESS;
}

bool CudaOps::peek(void* host_dst, const void* src, size_t bytes) {
  void* h = pinned(2, bytes);
  if (!h) return false;
  if (cudaMemcpyAsync(h, src, bytes, cudaMemcpyDefault, stream_) != cudaSuccess ||
      cudaStreamSynchronize(stream_) != cudaSuccess)
    return false;
  std::memcpy(host_dst, h, bytes);
  return true;
}

zcoll_status CudaOps::stats(Ctx& c, const void* data, size_t n, bool, double* mn, double* mx,
                            double* maxabs) {
  int blocks = 0;
  ZCOLL_CHECK(
      cuda_status(launch_stats(c.dtype, data, n, partial_, &blocks, stream_), "statistics kernel"));
  const size_t bytes = 3 * sizeof(double) * static_cast<size_t>(blocks);
  auto* h = static_cast<double*>(pinned(2, bytes));
  if (!h) return fail(ZCOLL_ERR_NO_MEMORY, "cudaMallocHost of %zu bytes failed", bytes);
  ZCOLL_CHECK(cuda_status(cudaMemcpyAsync(h, partial_, bytes, cudaMemcpyDeviceToHost, stream_),
                          "statistics"));
  ZCOLL_CHECK(cuda_status(cudaStreamSynchronize(stream_), "statistics"));
  double lo = std::numeric_limits<double>::infinity(), hi = -lo, ma = 0;
  for (int b = 0; b < blocks; ++b) {
    lo = std::min(lo, h[3 * b]);
    hi = std::max(hi, h[3 * b + 1]);
    ma = std::max(ma, h[3 * b + 2]);
  }
  *mn = lo;
  *mx = hi;
  *maxabs = ma;
  return ZCOLL_SUCCESS;
}

double CudaOps::estimate_ratio(const void* data, size_t n, zcoll_dtype dtype, double eb) {
  // calibrate.cc's estimate compresses at most 16 windows of 4096 values,
  // evenly spread: copy exactly those windows, back to back, to the host (the
  // estimate on the copy looks at the same values).
  const size_t win = 4096, windows = 16, vs = zcoll_dtype_size(dtype);
  if (!data || n == 0) return 0;
  const size_t count = std::min(windows, (n + win - 1) / win);
  const size_t take = count == 1 ? n : count * win;
  auto* h = static_cast<uint8_t*>(pinned(2, take * vs));
  if (!h) return 0;
  for (size_t w = 0; w < count; ++w) {
    const size_t start = count == 1 ? 0 : (n - std::min(n, win)) * w / (count - 1);
    const size_t len = count == 1 ? n : win;
    if (cudaMemcpyAsync(h + w * win * vs, static_cast<const uint8_t*>(data) + start * vs, len * vs,
                        cudaMemcpyDeviceToHost, stream_) != cudaSuccess)
      return 0;
  }
  if (cudaStreamSynchronize(stream_) != cudaSuccess) return 0;
  return zcoll::coll::estimate_ratio(h, take, dtype, eb);
}

// The MPI library's collective on device buffers: the inputs are copied to
// pinned host buffers, MPI runs there, the outputs are copied back. MPI_IN_PLACE
// becomes an explicit copy, so that run_native never touches device memory.
// The sizes, and where MPI_IN_PLACE puts the input, are the collective traits
// table's (collective.h).
zcoll_status CudaOps::run_native(zcoll_comm* zc, const Call& k, bool average, zcoll_dtype dtype) {
  using zcoll::coll::InPlace;
  if (!zcoll::coll::is_collective(k.coll))
    return fail(ZCOLL_ERR_INTERNAL, "unknown collective %d", static_cast<int>(k.coll));
  const int N = zc->tp->size(), r = zc->tp->rank();
  MPI_Aint lb = 0, extent = 0;
  if (MPI_Type_get_extent(k.datatype, &lb, &extent) != MPI_SUCCESS)
    return fail(ZCOLL_ERR_INVALID_ARG, "not a valid MPI datatype");
  const size_t ext = static_cast<size_t>(extent);
  const zcoll::coll::CollectiveTraits& t = zcoll::coll::traits(k.coll);
  std::vector<size_t> counts(static_cast<size_t>(N)), displs(static_cast<size_t>(N));
  const zcoll::coll::Args a = zcoll::coll::bind_args(k, N, r, ext, counts.data(), displs.data());
  // One buffer (Bcast): no send buffer; the root's contents go in through the
  // receive buffer (pre) and need not come back.
  const bool one_buffer = t.in_place == InPlace::kNone;
  const bool pre = one_buffer && r == k.root;
  // Scatter in place at the root: its block stays in sendbuf, nothing to receive.
  const bool keeps_block = a.in_place && t.in_place == InPlace::kRootSendBlock;
  const size_t in_bytes = one_buffer ? 0 : zcoll::coll::input_values(k, N, r) * ext;
  const size_t out_bytes = keeps_block ? 0 : zcoll::coll::output_values(k, N, r) * ext;
  void* hs = in_bytes ? pinned(0, in_bytes) : nullptr;
  void* hr = out_bytes ? pinned(1, out_bytes) : nullptr;
  if ((in_bytes && !hs) || (out_bytes && !hr))
    return fail(ZCOLL_ERR_NO_MEMORY, "cudaMallocHost for staging failed");
  if (in_bytes)  // a.in: the send buffer, or where MPI_IN_PLACE puts the input
    ZCOLL_CHECK(cuda_status(cudaMemcpyAsync(hs, a.in, in_bytes, cudaMemcpyDefault, stream_),
                            "staging the input"));
  if (pre)
    ZCOLL_CHECK(cuda_status(cudaMemcpyAsync(hr, k.recvbuf, out_bytes, cudaMemcpyDefault, stream_),
                            "staging the input"));
  ZCOLL_CHECK(cuda_status(cudaStreamSynchronize(stream_), "staging the input"));
  Call h = k;
  h.sendbuf = in_bytes ? hs : (one_buffer ? hr : nullptr);
  h.recvbuf = out_bytes || one_buffer ? hr : (keeps_block ? MPI_IN_PLACE : nullptr);
  zcoll_status s = zcoll::coll::run_native(zc, h, average, dtype);
  if (s != ZCOLL_SUCCESS) return s;
  if (out_bytes && !pre) {
    ZCOLL_CHECK(cuda_status(cudaMemcpyAsync(k.recvbuf, hr, out_bytes, cudaMemcpyDefault, stream_),
                            "copying the result back"));
    ZCOLL_CHECK(cuda_status(cudaStreamSynchronize(stream_), "copying the result back"));
  }
  return ZCOLL_SUCCESS;
}

}  // namespace zcoll::cuda::coll
