// cpu_ops.cc — the CPU implementation of DataOps (data_ops.h): libzcoll's
// codec, with the compression and decompression of doc and hom run in chunk
// ranges that let MPI progress in between (C-Coll's PIPE-SZx); element-wise
// reductions in OpenMP loops; the MPI library's own collective (native.cc).
#include <omp.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

#include "coll/control/calibrate.h"
#include "coll/control/comm.h"
#include "core/error.h"

namespace zcoll::coll {

zcoll_status DataOps::copy_values(Ctx& c, void* dst, const void* src, size_t n) {
  return move_bytes(c, dst, src, n * c.vsize);
}

namespace {

// OpenMP threads for an element-wise loop over n values.
int team(const Ctx& c, size_t n) {
  if (n < 65536) return 1;
  int t = c.threads > 0 ? c.threads : omp_get_max_threads();
  return std::max(1, t);
}

template <typename T>
inline T apply(zcoll_op op, T a, T b) {
  switch (op) {
    case ZCOLL_OP_SUM: return a + b;
    case ZCOLL_OP_PROD: return a * b;
    case ZCOLL_OP_MAX: return (a > b || std::isnan(a)) ? a : b;  // NaN propagates
    case ZCOLL_OP_MIN: return (a < b || std::isnan(a)) ? a : b;
  }
  return a;
}

template <typename T, zcoll_op OP>
void reduce_kernel(T* out, const T* a, const T* b, size_t n, int nt) {
#pragma omp parallel for num_threads(nt) schedule(static) if (nt > 1)
  for (int64_t i = 0; i < static_cast<int64_t>(n); ++i) out[i] = apply<T>(OP, a[i], b[i]);
}

template <typename T>
void reduce_typed(zcoll_op op, T* out, const T* a, const T* b, size_t n, int nt) {
  switch (op) {
    case ZCOLL_OP_SUM: reduce_kernel<T, ZCOLL_OP_SUM>(out, a, b, n, nt); break;
    case ZCOLL_OP_PROD: reduce_kernel<T, ZCOLL_OP_PROD>(out, a, b, n, nt); break;
    case ZCOLL_OP_MAX: reduce_kernel<T, ZCOLL_OP_MAX>(out, a, b, n, nt); break;
    case ZCOLL_OP_MIN: reduce_kernel<T, ZCOLL_OP_MIN>(out, a, b, n, nt); break;
  }
}

template <typename T>
void divide(T* x, size_t n, T d, int nt) {
#pragma omp parallel for num_threads(nt) schedule(static) if (nt > 1)
  for (int64_t i = 0; i < static_cast<int64_t>(n); ++i) x[i] /= d;
}

// MPI progress between compression ranges; its time counts as communication
// (the transport's own clock), not as compression.
void poll(Ctx& c) {
  const double before = c.tp->time_in_calls;
  c.tp->progress();
  c.t_codec -= c.tp->time_in_calls - before;
}

// ---- this rank's finite range and magnitude (the settings agreement) ------------
// libzcoll's range pass (its SIMD kernels: one copy of that loop in the tree);
// the largest |x| of the finite values is max(|min|, |max|). Below a million
// values one thread reads them faster than a team starts.
zcoll_status finite_stats(const Ctx& c, const void* x, size_t n, double* mn, double* mx,
                          double* maxabs) {
  const int threads = n >= (size_t{1} << 20) ? std::max(1, c.threads) : 1;
  ZCOLL_CHECK(zcoll_value_range_finite(c.dtype, x, n, mn, mx, threads));
  *maxabs = *mn <= *mx ? std::max(std::fabs(*mn), std::fabs(*mx)) : 0;
  return ZCOLL_SUCCESS;
}

// ZCOLL_REL_RANGE=sampled: the same over one 64-byte line in kSampleStride
// (plus the last values), gathered first. A sampled range is at most the exact
// one, so the bound derived from it is at most the requested one.
constexpr size_t kSampleStride = 16;
constexpr size_t kSampleMin = size_t{1} << 16;  // values; below: the exact pass

zcoll_status sampled_stats(Ctx& c, const void* x, size_t n, double* mn, double* mx,
                           double* maxabs) {
  const size_t line = 64 / c.vsize;  // values per cache line
  const size_t lines = n / (line * kSampleStride) + 2;
  auto* sample = c.ws->get(Workspace::kTemp, lines * 64 + 8);
  const auto* src = static_cast<const uint8_t*>(x);
  size_t m = 0;  // values gathered
  for (size_t i = 0; i + line <= n; i += line * kSampleStride, m += line)
    std::memcpy(sample + m * c.vsize, src + i * c.vsize, 64);
  const size_t tail = std::min(n, line);  // the last values
  std::memcpy(sample + m * c.vsize, src + (n - tail) * c.vsize, tail * c.vsize);
  return finite_stats(c, sample, m + tail, mn, mx, maxabs);
}

// The call's parameters for a piece of n values: with the dense codec and a
// shape (Ctx::pieces) whose units n is made of, the piece's dims.
zcoll_params piece_params(const Ctx& c, size_t n) {
  zcoll_params p = c.params;
  const PieceShape& s = c.pieces;
  if (p.codec != ZCOLL_CODEC_DENSE || s.unit == 0 || n % s.unit != 0) return p;
  p.ndims = 1 + s.ndims;
  p.dims[0] = n / s.unit;
  for (uint32_t d = 0; d < s.ndims; ++d) p.dims[1 + d] = s.dims[d];
  return p;
}

class CpuOps final : public DataOps {
 public:
  zcoll_status compress(Ctx& c, const void* src, size_t n, uint8_t* dst, size_t cap,
                        size_t* size) override {
    const zcoll_params p = piece_params(c, n);
    if (!c.poll()) return zcoll_compress(&p, c.dtype, src, n, dst, cap, size, c.threads);
    // Chunk ranges with progress polling in between (PIPE-SZx).
    const uint32_t cs = c.params.chunk_size;
    const size_t chunks = zcoll_chunk_count(n, cs);
    const size_t head = zcoll_header_size(n, cs);
    uint32_t* sizes = c.ws->get_as<uint32_t>(Workspace::kSizes, chunks + 1);
    const size_t step = static_cast<size_t>(std::max(c.threads, 1)) * 2;
    size_t pos = head;
    for (size_t a = 0; a < chunks; a += step) {
      size_t b = std::min(chunks, a + step);
      size_t w = 0;
      ZCOLL_CHECK(zcoll_compress_chunks(&p, c.dtype, src, n, a, b, dst + pos, cap - pos, &w,
                                        sizes + a, c.threads));
      pos += w;
      if (b < chunks) poll(c);
    }
    ZCOLL_CHECK(zcoll_compress_finish(&p, c.dtype, n, sizes, dst, cap));
    // with ZCOLL_FLAG_CHECKSUM the trailer (one u32 per chunk, as big as the index) follows
    *size = (c.params.flags & ZCOLL_FLAG_CHECKSUM) ? pos + (head - 48) : pos;
    return ZCOLL_SUCCESS;
  }

  zcoll_status decompress(Ctx& c, const uint8_t* src, size_t size, void* dst, size_t n,
                          bool accumulate) override {
    zcoll_info info = ZCOLL_INFO_INITIALIZER;
    ZCOLL_CHECK(zcoll_inspect(src, size, &info));
    if ((info.format_flags & ZCOLL_FLAG_CHECKSUM) != (c.params.flags & ZCOLL_FLAG_CHECKSUM))
      return fail(ZCOLL_ERR_MISMATCH, "received stream %s a checksum, this rank's settings %s",
                  info.format_flags ? "has" : "lacks", c.params.flags ? "ask for one" : "do not");
    if (info.dtype != c.dtype || info.n != n || info.chunk_size != c.params.chunk_size ||
        info.quantum != c.quantum)
      return fail(ZCOLL_ERR_MISMATCH,
                  "received stream (dtype %d, n %llu, chunk %u, quantum %.17g) does not match this "
                  "rank's settings (dtype %d, n %zu, chunk %u, quantum %.17g): error bounds or "
                  "counts differ across ranks",
                  static_cast<int>(info.dtype), static_cast<unsigned long long>(info.n),
                  info.chunk_size, info.quantum, static_cast<int>(c.dtype), n, c.params.chunk_size,
                  c.quantum);
    if (!c.poll() || info.chunks <= 2) {
      if (accumulate) return zcoll_decompress_accumulate(src, size, dst, n, c.threads);
      return zcoll_decompress(src, size, dst, n, c.threads);
    }
    const size_t step = static_cast<size_t>(std::max(c.threads, 1)) * 2;
    for (size_t a = 0; a < info.chunks; a += step) {
      size_t b = std::min<size_t>(info.chunks, a + step);
      ZCOLL_CHECK(accumulate
                      ? zcoll_decompress_accumulate_chunks(src, size, a, b, dst, n, c.threads)
                      : zcoll_decompress_chunks(src, size, a, b, dst, n, c.threads));
      if (b < info.chunks) poll(c);
    }
    return ZCOLL_SUCCESS;
  }

  zcoll_status hom_add(Ctx& c, const uint8_t* a, size_t a_size, const uint8_t* b, size_t b_size,
                       uint8_t* out, size_t cap, size_t* out_size) override {
    return zcoll_hom_add(a, a_size, b, b_size, out, cap, out_size, nullptr, c.threads);
  }

  zcoll_status set_divisor(Ctx&, uint8_t* stream, size_t size, uint32_t divisor) override {
    return zcoll_hom_set_divisor(stream, size, divisor);
  }

  zcoll_status stream_size(Ctx&, const uint8_t* src, size_t bytes, size_t, size_t* size) override {
    return zcoll_stream_size(src, bytes, size);
  }

  zcoll_status reduce_ordered(Ctx& c, void* out, const void* lo, const void* hi,
                              size_t n) override {
    const int nt = team(c, n);
    if (c.dtype == ZCOLL_FLOAT32)
      reduce_typed(c.op, static_cast<float*>(out), static_cast<const float*>(lo),
                   static_cast<const float*>(hi), n, nt);
    else
      reduce_typed(c.op, static_cast<double*>(out), static_cast<const double*>(lo),
                   static_cast<const double*>(hi), n, nt);
    return ZCOLL_SUCCESS;
  }

  zcoll_status scale(Ctx& c, void* data, size_t n, double divisor) override {
    const int nt = team(c, n);
    if (c.dtype == ZCOLL_FLOAT32)
      divide(static_cast<float*>(data), n, static_cast<float>(divisor), nt);
    else
      divide(static_cast<double*>(data), n, divisor, nt);
    return ZCOLL_SUCCESS;
  }

  zcoll_status move_bytes(Ctx&, void* dst, const void* src, size_t bytes) override {
    std::memmove(dst, src, bytes);
    return ZCOLL_SUCCESS;
  }

  bool peek(void* host_dst, const void* src, size_t bytes) override {
    std::memcpy(host_dst, src, bytes);
    return true;
  }

  zcoll_status stats(Ctx& c, const void* data, size_t n, bool sampled, double* mn, double* mx,
                     double* maxabs) override {
    if (sampled && n >= kSampleMin) return sampled_stats(c, data, n, mn, mx, maxabs);
    return finite_stats(c, data, n, mn, mx, maxabs);
  }

  double estimate_ratio(const void* data, size_t n, zcoll_dtype dtype, double eb) override {
    return coll::estimate_ratio(data, n, dtype, eb);
  }
  double estimate_ratio_dense(const void* data, size_t n, zcoll_dtype dtype, double eb,
                              uint32_t chunk) override {
    return coll::estimate_ratio(data, n, dtype, eb, ZCOLL_CODEC_DENSE, chunk);
  }

  zcoll_status run_native(zcoll_comm* zc, const Call& call, bool average,
                          zcoll_dtype dtype) override {
    return coll::run_native(zc, call, average, dtype);
  }
};

}  // namespace

DataOps& cpu_ops() {
  static CpuOps ops;
  return ops;
}

}  // namespace zcoll::coll
