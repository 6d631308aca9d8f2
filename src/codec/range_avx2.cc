// range_avx2.cc — the range pass of REL bounds (min and max of the finite values)
// with AVX2: the lanes of range_scalar (chunk_scalar.h) in 2 (float) or 4 (double)
// vectors, so that the result is the same to the sign of a zero, then the
// reference's own tail and lane reduction.
#include "codec/kernels_avx2.h"

#if defined(ZCOLL_HAVE_AVX2_KERNELS)

#include <immintrin.h>

#include "codec/chunk_scalar.h"

// Only the functions below are compiled for AVX2 (see chunk_avx2.cc).
#if defined(__clang__)
#pragma clang attribute push(__attribute__((target("avx2"))), apply_to = function)
#else
#pragma GCC push_options
#pragma GCC target("avx2")
#endif

namespace zcoll {
namespace {

// min/max of one vector into the lanes: non-finite values (v - v is not 0) are
// replaced by +inf / -inf by a blend, which keeps every other value's bits;
// min(a, lo) returns lo unless a < lo, as the reference's a < lo ? a : lo.
inline void range_step(__m256 v, __m256* lo, __m256* hi) {
  const __m256 finite = _mm256_cmp_ps(_mm256_sub_ps(v, v), _mm256_setzero_ps(), _CMP_EQ_OQ);
  const __m256 inf = _mm256_set1_ps(std::numeric_limits<float>::infinity());
  *lo = _mm256_min_ps(_mm256_blendv_ps(inf, v, finite), *lo);
  *hi = _mm256_max_ps(
      _mm256_blendv_ps(_mm256_set1_ps(-std::numeric_limits<float>::infinity()), v, finite), *hi);
}
inline void range_step(__m256d v, __m256d* lo, __m256d* hi) {
  const __m256d finite = _mm256_cmp_pd(_mm256_sub_pd(v, v), _mm256_setzero_pd(), _CMP_EQ_OQ);
  const __m256d inf = _mm256_set1_pd(std::numeric_limits<double>::infinity());
  *lo = _mm256_min_pd(_mm256_blendv_pd(inf, v, finite), *lo);
  *hi = _mm256_max_pd(
      _mm256_blendv_pd(_mm256_set1_pd(-std::numeric_limits<double>::infinity()), v, finite), *hi);
}

// The same without the blends, for data without infinities: min(v, lo) keeps lo
// for a NaN v, as the reference's v < lo ? v : lo does; only an infinite v
// differs (it is taken), and then a lane holds an infinity of that sign, which
// a finite value never puts there: the caller sees it and redoes the pass.
inline void range_step_plain(__m256 v, __m256* lo, __m256* hi) {
  *lo = _mm256_min_ps(v, *lo), *hi = _mm256_max_ps(v, *hi);
}
inline void range_step_plain(__m256d v, __m256d* lo, __m256d* hi) {
  *lo = _mm256_min_pd(v, *lo), *hi = _mm256_max_pd(v, *hi);
}
inline bool any_infinite(__m256 lo, __m256 hi) {
  const __m256 inf = _mm256_set1_ps(std::numeric_limits<float>::infinity());
  return _mm256_movemask_ps(_mm256_or_ps(_mm256_cmp_ps(lo, -inf, _CMP_EQ_OQ),
                                         _mm256_cmp_ps(hi, inf, _CMP_EQ_OQ))) != 0;
}
inline bool any_infinite(__m256d lo, __m256d hi) {
  const __m256d inf = _mm256_set1_pd(std::numeric_limits<double>::infinity());
  return _mm256_movemask_pd(_mm256_or_pd(_mm256_cmp_pd(lo, -inf, _CMP_EQ_OQ),
                                         _mm256_cmp_pd(hi, inf, _CMP_EQ_OQ))) != 0;
}

inline __m256 load(const float* p) { return _mm256_loadu_ps(p); }
inline __m256d load(const double* p) { return _mm256_loadu_pd(p); }
inline __m256 splat(float v) { return _mm256_set1_ps(v); }
inline __m256d splat(double v) { return _mm256_set1_pd(v); }
inline void store(float* p, __m256 v) { _mm256_storeu_ps(p, v); }
inline void store(double* p, __m256d v) { _mm256_storeu_pd(p, v); }

// The full groups into the lanes: kPlain, range_step_plain; else range_step.
// Returns whether the plain pass met an infinity (its lanes are then wrong).
template <bool kPlain, typename T, typename V>
bool range_lanes(const T* x, size_t full, V* lo, V* hi) {
  constexpr int kPer = 32 / sizeof(T), kVecs = kRangeLanes / kPer;  // lanes per vector
  const T inf = std::numeric_limits<T>::infinity();
  for (int v = 0; v < kVecs; ++v) lo[v] = splat(inf), hi[v] = splat(-inf);
  for (size_t i = 0; i < full; i += kRangeLanes)
    for (int v = 0; v < kVecs; ++v) {
      if (kPlain)
        range_step_plain(load(x + i + kPer * v), &lo[v], &hi[v]);
      else
        range_step(load(x + i + kPer * v), &lo[v], &hi[v]);
    }
  bool inf_seen = false;
  for (int v = 0; kPlain && v < kVecs; ++v) inf_seen |= any_infinite(lo[v], hi[v]);
  return inf_seen;
}

template <typename T>
void range_avx2(const T* x, size_t n, T* lo_out, T* hi_out) {
  constexpr int kPer = 32 / sizeof(T), kVecs = kRangeLanes / kPer;  // lanes per vector
  decltype(splat(T())) lo[kVecs], hi[kVecs];
  const size_t full = n / kRangeLanes * kRangeLanes;
  if (range_lanes<true>(x, full, lo, hi)) range_lanes<false>(x, full, lo, hi);
  T l[kRangeLanes], h[kRangeLanes];
  for (int v = 0; v < kVecs; ++v) store(l + kPer * v, lo[v]), store(h + kPer * v, hi[v]);
  range_finish(x + full, n - full, l, h, lo_out, hi_out);
}

}  // namespace

void range_avx2_f32(const float* x, size_t n, float* lo, float* hi) { range_avx2(x, n, lo, hi); }
void range_avx2_f64(const double* x, size_t n, double* lo, double* hi) { range_avx2(x, n, lo, hi); }

}  // namespace zcoll

#if defined(__clang__)
#pragma clang attribute pop
#else
#pragma GCC pop_options
#endif

#endif  // ZCOLL_HAVE_AVX2_KERNELS
