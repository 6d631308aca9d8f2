// quality.cc — zcoll_quality_compare: error metrics of a reconstruction
// against its original (max abs error, RMSE, NRMSE, PSNR, ratio, bits/value).
#include <omp.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <vector>

#include "codec/value_types.h"
#include "core/error.h"
#include "core/struct_io.h"
#include "zcoll.h"

namespace zcoll {
namespace {
// Whether the n bytes at a and at b are equal: a non-finite value reproduced
// bit for bit (its NaN payload and sign), which == does not compare.
bool same_bytes(const void* a, const void* b, size_t n) { return std::memcmp(a, b, n) == 0; }

// Values per partial sum. Partial sums are combined in block order after the
// parallel loop, so the result is the same for every thread count.
constexpr size_t kQualityBlock = 65536;

struct Partial {
  double sum_sq = 0;   // sum of squared errors over finite originals
  double max_err = 0;  // max |x - x'| over finite originals
  double lo = std::numeric_limits<double>::infinity();
  double hi = -std::numeric_limits<double>::infinity();
  uint64_t finite = 0;
  uint64_t nonfinite = 0;
  uint64_t nonfinite_mismatch = 0;
};

template <typename T>
Partial compare_block(const T* xs, const T* ys, size_t n) {
  using V = ValueTraits<T>;
  Partial p;
  for (size_t i = 0; i < n; ++i) {
    const auto xi = V::widen(xs[i]), yi = V::widen(ys[i]);  // exact (16-bit: to float)
    if (!std::isfinite(xi)) {
      // NaN/Inf cannot be quantized; a correct codec copies their bits exactly
      ++p.nonfinite;
      p.nonfinite_mismatch += !same_bytes(&xs[i], &ys[i], sizeof(T));
      continue;
    }
    const double xv = static_cast<double>(xi);
    double err = std::fabs(xv - static_cast<double>(yi));
    // a NaN reconstruction of a finite value is an unbounded error, not a skip
    if (std::isnan(err)) err = std::numeric_limits<double>::infinity();
    p.sum_sq += err * err;
    p.max_err = std::max(p.max_err, err);
    p.lo = std::min(p.lo, xv);
    p.hi = std::max(p.hi, xv);
    ++p.finite;
  }
  return p;
}

template <typename T>
void compare_typed(const T* x, const T* y, size_t n, int threads, zcoll_quality* q) {
  const size_t blocks = (n + kQualityBlock - 1) / kQualityBlock;
  std::vector<Partial> parts(blocks);
  const int nt = threads > 0 ? threads : omp_get_max_threads();
#pragma omp parallel for schedule(static) num_threads(nt)
  for (int64_t b = 0; b < static_cast<int64_t>(blocks); ++b) {
    const size_t begin = static_cast<size_t>(b) * kQualityBlock;
    parts[b] = compare_block(x + begin, y + begin, std::min(kQualityBlock, n - begin));
  }
  Partial t;
  for (const Partial& p : parts) {
    t.sum_sq += p.sum_sq;
    t.max_err = std::max(t.max_err, p.max_err);
    t.lo = std::min(t.lo, p.lo);
    t.hi = std::max(t.hi, p.hi);
    t.finite += p.finite;
    t.nonfinite += p.nonfinite;
    t.nonfinite_mismatch += p.nonfinite_mismatch;
  }
  q->nonfinite = t.nonfinite;
  q->nonfinite_mismatch = t.nonfinite_mismatch;
  q->max_abs_error = t.max_err;
  q->rmse = t.finite ? std::sqrt(t.sum_sq / static_cast<double>(t.finite)) : 0.0;
  q->value_range = t.finite ? t.hi - t.lo : 0.0;
  q->nrmse = q->value_range > 0 ? q->rmse / q->value_range : 0.0;
  q->psnr = q->rmse > 0 ? 20.0 * std::log10(q->value_range / q->rmse)
                        : std::numeric_limits<double>::infinity();
}

zcoll_status quality_compare(zcoll_dtype dtype, const void* original, const void* reconstructed,
                             size_t n, size_t compressed_bytes, zcoll_quality* out, int threads) {
  const size_t vb = zcoll_dtype_size(dtype);
  if (vb == 0)
    return fail(ZCOLL_ERR_UNSUPPORTED, "unsupported dtype code %d", static_cast<int>(dtype));
  ZCOLL_CHECK(
      check_out_struct(out, ZCOLL_STRUCT_V1_SIZE(zcoll_quality, bits_per_value), "quality"));
  if (n && (original == nullptr || reconstructed == nullptr))
    return fail(ZCOLL_ERR_INVALID_ARG, "NULL data pointer with n = %zu", n);
  if (threads < 0) return fail(ZCOLL_ERR_INVALID_ARG, "threads must be >= 0, got %d", threads);
  zcoll_quality q = ZCOLL_QUALITY_INITIALIZER;
  q.n = n;
  with_value_type(dtype, [&](auto tag) {
    using T = decltype(tag);
    compare_typed(static_cast<const T*>(original), static_cast<const T*>(reconstructed), n, threads,
                  &q);
  });
  if (compressed_bytes > 0) {
    q.compression_ratio = static_cast<double>(n) * static_cast<double>(vb) /
                          static_cast<double>(compressed_bytes);
    if (n > 0)
      q.bits_per_value = 8.0 * static_cast<double>(compressed_bytes) / static_cast<double>(n);
  }
  write_struct(out, q);
  return ZCOLL_SUCCESS;
}

}  // namespace
}  // namespace zcoll

extern "C" zcoll_status zcoll_quality_compare(zcoll_dtype dtype, const void* original,
                                              const void* reconstructed, size_t n,
                                              size_t compressed_bytes, zcoll_quality* q,
                                              int threads) {
  return zcoll::guarded("zcoll_quality_compare", [&] {
    zcoll::clear_error();
    return zcoll::quality_compare(dtype, original, reconstructed, n, compressed_bytes, q, threads);
  });
}
