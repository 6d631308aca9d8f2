// dense_predict_avx2.cc — the Lorenzo predictors' residuals in AVX2, eight
// positions at a time (dense_predict.h: the scalar kernels' counterparts, the
// same results): the encoder's residual pass of predictors 1 to 4
// (dense_lorenzo_residuals), the decoder's inverse of predictors 3 and 4
// (dense_unpredict_range) and the histograms behind its choices
// (dense_sample_histograms, dense_code_histogram, dense_residual_histogram).
//
// The scalar estimate spends most of its time on each sample's bin: a
// zigzag, a compare and, for a residual of 64 or more, a bit scan behind a
// branch that is a coin toss at tight bounds. Here eight samples go at once:
// the residuals of eight consecutive positions (loads at the predictor's
// offsets; where the sample is every 2nd or 4th position, its lanes packed
// into one vector), their bins, then eight increments. A bin of a wide
// residual is the exponent of a float (bins_of below); the increments rotate over four
// tables so that a run of one bin (most residuals at loose bounds) is not one
// chain of increments of one counter.
#include "codec/dense_predict.h"

#if defined(ZCOLL_HAVE_AVX2_KERNELS)

#include <immintrin.h>

#include <algorithm>
#include <type_traits>

#include "codec/dense.h"

#if defined(__clang__)
#pragma clang attribute push(__attribute__((target("avx2"))), apply_to = function)
#else
#pragma GCC push_options
#pragma GCC target("avx2")
#endif

namespace zcoll {
namespace {

constexpr uint32_t kBins = kDenseEstSymbols;

inline __m256i load8(const int32_t* p) {
  return _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p));
}

// dense_estimate_put's bins of eight residuals: u = zigzag(r); u for u < 64,
// else 65 + floor(log2(u)). floor(log2(u)) = 1 + the exponent of
// float(w >> 1), w = u & ~(u >> 1) (u's top bit and no two adjacent ones below
// it: the conversion cannot round up to the next power of two; w >> 1 is a
// positive i32 and >= 32 here), so the bin is the float's biased exponent - 61.
inline __m256i bins_of(__m256i r) {
  const __m256i u = _mm256_xor_si256(_mm256_slli_epi32(r, 1), _mm256_srai_epi32(r, 31));
  const __m256i w = _mm256_andnot_si256(_mm256_srli_epi32(u, 1), u);
  const __m256i e =
      _mm256_srli_epi32(_mm256_castps_si256(_mm256_cvtepi32_ps(_mm256_srli_epi32(w, 1))), 23);
  const __m256i wide = _mm256_sub_epi32(e, _mm256_set1_epi32(61));
  const __m256i small = _mm256_cmpeq_epi32(_mm256_srli_epi32(u, 6), _mm256_setzero_si256());
  return _mm256_blendv_epi8(wide, u, small);
}

// Four tables of one histogram; the increments of a vector rotate over them.
struct Tables {
  uint32_t t[4][kBins] = {};
  void add(__m256i bins) {
    alignas(32) uint32_t b[8];
    _mm256_store_si256(reinterpret_cast<__m256i*>(b), bins);
    for (int k = 0; k < 8; ++k) ++t[k & 3][b[k]];
  }
  void sum_into(uint32_t* h) const {
    for (uint32_t s = 0; s < kBins; ++s) h[s] += t[0][s] + t[1][s] + t[2][s] + t[3][s];
  }
};

// Lanes 0, 2, 4, 6 of a and of b (positions i, i + 2, ..., i + 14 of two
// vectors of eight consecutive positions; the order does not matter to a
// histogram).
inline __m256i even_lanes(__m256i a, __m256i b) {
  return _mm256_castps_si256(
      _mm256_shuffle_ps(_mm256_castsi256_ps(a), _mm256_castsi256_ps(b), _MM_SHUFFLE(2, 0, 2, 0)));
}
// Lanes 0 and 4 of each of four vectors (positions i, i + 4, ..., i + 28).
inline __m256i every_4th(__m256i a, __m256i b, __m256i c, __m256i d) {
  const __m256 ab = _mm256_shuffle_ps(_mm256_castsi256_ps(a), _mm256_castsi256_ps(b), 0);
  const __m256 cd = _mm256_shuffle_ps(_mm256_castsi256_ps(c), _mm256_castsi256_ps(d), 0);
  return _mm256_castps_si256(_mm256_shuffle_ps(ab, cd, _MM_SHUFFLE(2, 0, 2, 0)));
}

// The residuals at positions i..i+7 of order 1, order 2, 2-D and 3-D Lorenzo
// (dense_residuals' formulas; the caller keeps i - P - R - 1 >= 0 where it
// asks for the 3-D one, and so on).
enum Kind { kOrder1, kOrder2, k2D, k3D };
template <Kind kK>
inline __m256i residuals8(const int32_t* q, uint32_t i, uint32_t R, uint32_t P) {
  const int32_t* at = q + i;
  const __m256i d1 = _mm256_sub_epi32(load8(at), load8(at - 1));
  if (kK == kOrder1) return d1;
  if (kK == kOrder2) return _mm256_sub_epi32(d1, _mm256_sub_epi32(load8(at - 1), load8(at - 2)));
  const __m256i two = _mm256_sub_epi32(d1, _mm256_sub_epi32(load8(at - R), load8(at - R - 1)));
  if (kK == k2D) return two;
  const __m256i back = _mm256_add_epi32(_mm256_sub_epi32(load8(at - P), load8(at - P - 1)),
                                        _mm256_sub_epi32(load8(at - P - R - 1), load8(at - P - R)));
  return _mm256_sub_epi32(two, back);
}

// The candidates of choose_dense_predictor at positions i..i+7 in one region
// of the chunk (dense_regions; kN = the n-D predictors' formula there: order 1
// on the chunk's first row, then 2-D, then 3-D): c[0..3] = order 1, order 2,
// 2-D and 3-D (the compiler shares their loads and differences).
template <Kind kN>
inline void candidates8(const int32_t* q, uint32_t i, uint32_t R, uint32_t P, __m256i* c) {
  c[0] = residuals8<kOrder1>(q, i, R, P);
  c[1] = residuals8<kOrder2>(q, i, R, P);
  c[2] = kN == kOrder1 ? c[0] : residuals8<k2D>(q, i, R, P);
  c[3] = kN == k3D ? residuals8<k3D>(q, i, R, P) : c[2];
}

// The sample (dense_sample_of) in one region [i, end), i a position of it that
// starts a run, into the candidates' tables, eight positions at a time: every
// 4th (four vectors of residuals, a quarter of their lanes), or runs of eight
// (one vector each); returns where the scalar loop takes over.
template <Kind kN>
uint32_t sample_region(const int32_t* q, uint32_t i, uint32_t end, const DenseSample& sample,
                       uint32_t R, uint32_t P, int nc, Tables* t) {
  __m256i c[4][4];
  if (sample.run == 1) {
    for (; i + 32 <= end; i += 32) {  // (period 4)
      for (uint32_t k = 0; k < 4; ++k) candidates8<kN>(q, i + 8 * k, R, P, c[k]);
      for (int m = 0; m < nc; ++m) t[m].add(bins_of(every_4th(c[0][m], c[1][m], c[2][m], c[3][m])));
    }
    return i;
  }
  for (; i + 8 <= end; i += sample.period) {  // (run 8)
    candidates8<kN>(q, i, R, P, c[0]);
    for (int m = 0; m < nc; ++m) t[m].add(bins_of(c[0][m]));
  }
  return i;
}

// Samples i, i + 2, ... of one region [i, end) of one predictor, 8 at a time;
// returns the first sample left.
template <Kind kK>
uint32_t code_region(const int32_t* q, uint32_t i, uint32_t end, uint32_t R, uint32_t P,
                     Tables* t) {
  for (; i + 16 <= end; i += 16)
    t->add(bins_of(even_lanes(residuals8<kK>(q, i, R, P), residuals8<kK>(q, i + 8, R, P))));
  return i;
}

// The first sample at or after end of the progression i, i + step, ...
inline uint32_t next_sample(uint32_t i, uint32_t end, uint32_t step) {
  return i < end ? i + (end - i + step - 1) / step * step : i;
}

}  // namespace

void dense_sample_histograms_avx2(const int32_t* q, uint32_t len, uint32_t row, uint32_t plane,
                                  uint32_t (*h)[kDenseEstSymbols]) {
  const int nc = plane ? 4 : 3;
  const uint32_t R = row, P = plane;
  const DensePredictor nd{P ? kDenseLorenzo3D : kDenseLorenzo2D, R, P};
  const auto [e1, e2] = dense_regions(nd, len);
  const DenseSample sample = dense_sample_of(len);
  Tables t[4];
  // each region [a, b): the scalar loop up to its first whole run, the vector
  // loop over the whole runs, the scalar loop after them
  const auto region = [&](auto kind, uint32_t a, uint32_t b) {
    a = std::max(a, 2u);
    if (a >= b) return;
    const uint32_t run = std::min(sample.run_at_or_after(a), b);
    dense_sample_histograms_range(q, len, R, P, a, run, h);
    const uint32_t i = sample_region<decltype(kind)::value>(q, run, b, sample, R, P, nc, t);
    dense_sample_histograms_range(q, len, R, P, i, b, h);
  };
  region(std::integral_constant<Kind, kOrder1>{}, 2, e1);
  region(std::integral_constant<Kind, k2D>{}, e1, e2);
  if (P) region(std::integral_constant<Kind, k3D>{}, e2, len);
  for (int m = 0; m < nc; ++m) t[m].sum_into(h[m]);
}

uint32_t dense_code_histogram_avx2(const int32_t* q, uint32_t len, const DensePredictor& p,
                                   uint32_t every, uint32_t* h) {
  if (every != 2) return dense_code_histogram_scalar(q, len, p, every, h);
  const uint32_t R = p.row, P = p.plane;
  Tables t;
  uint32_t i = 2, total = 0;
  // the scalar loop from where the vector one stopped, up to end; i moves on
  const auto tail = [&](uint32_t from, uint32_t end) {
    total += (from - i) / 2 + dense_code_histogram_range(q, len, p, 2, from, end, h);
    i = next_sample(from, end, 2);
  };
  if (p.id == kDenseOrder1 || p.id == kDenseOrder2) {
    tail(p.id == kDenseOrder1 ? code_region<kOrder1>(q, i, len, R, P, &t)
                              : code_region<kOrder2>(q, i, len, R, P, &t),
         len);
  } else {
    const auto [e1, e2] = dense_regions(p, len);
    tail(code_region<kOrder1>(q, i, e1, R, P, &t), e1);
    tail(code_region<k2D>(q, i, e2, R, P, &t), e2);
    if (p.id == kDenseLorenzo3D) tail(code_region<k3D>(q, i, len, R, P, &t), len);
  }
  t.sum_into(h);
  return total;
}

namespace {

// r[i..end) of one region with the formula kK, eight at a time; returns where
// the scalar loop takes over.
template <Kind kK>
uint32_t residual_region(const int32_t* q, uint32_t i, uint32_t end, uint32_t R, uint32_t P,
                         uint32_t* r) {
  for (; i + 8 <= end; i += 8)
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(r + i), residuals8<kK>(q, i, R, P));
  return i;
}

}  // namespace

void dense_lorenzo_residuals_avx2(const int32_t* q, uint32_t len, const DensePredictor& p,
                                  uint32_t* r) {
  const uint32_t R = p.row, P = p.plane;
  if (p.id == kDenseOrder1 || p.id == kDenseOrder2) {
    dense_lorenzo_residuals_range(q, len, p, 0, std::min(len, 2u), r);
    if (len <= 2) return;
    const uint32_t i = p.id == kDenseOrder1 ? residual_region<kOrder1>(q, 2, len, R, P, r)
                                            : residual_region<kOrder2>(q, 2, len, R, P, r);
    dense_lorenzo_residuals_range(q, len, p, i, len, r);
    return;
  }
  const auto [e1, e2] = dense_regions(p, len);
  dense_lorenzo_residuals_range(q, len, p, 0, std::min(len, 1u), r);
  uint32_t i = residual_region<kOrder1>(q, 1, e1, R, P, r);
  dense_lorenzo_residuals_range(q, len, p, i, e1, r);
  i = residual_region<k2D>(q, e1, e2, R, P, r);
  dense_lorenzo_residuals_range(q, len, p, i, e2, r);
  if (p.id == kDenseLorenzo3D) {
    i = residual_region<k3D>(q, e2, len, R, P, r);
    dense_lorenzo_residuals_range(q, len, p, i, len, r);
  }
}

namespace {

// t[0..7] + carry (all lanes), inclusive prefix sums: in each 128-bit half,
// then the low half's total into the high one.
inline __m256i prefix8(__m256i t, __m256i carry) {
  t = _mm256_add_epi32(t, _mm256_slli_si256(t, 4));
  t = _mm256_add_epi32(t, _mm256_slli_si256(t, 8));
  const __m256i low_total =
      _mm256_permutevar8x32_epi32(t, _mm256_setr_epi32(0, 0, 0, 0, 3, 3, 3, 3));
  t = _mm256_add_epi32(t, _mm256_blend_epi32(_mm256_setzero_si256(), low_total, 0xF0));
  return _mm256_add_epi32(t, carry);
}

// The codes of region [i, end) of a 2-D (kK = k2D) or 3-D chunk, in place,
// eight at a time: q[i] = q[i - 1] + (r[i] + the terms of earlier rows and
// planes), a prefix sum once those terms are added (R >= 8: they lie before
// the eight). Returns where the scalar loop takes over.
template <Kind kK>
uint32_t unpredict_region(uint32_t* q, uint32_t i, uint32_t end, uint32_t R, uint32_t P) {
  if (i + 8 > end) return i;
  const auto* c = reinterpret_cast<const int32_t*>(q);
  __m256i carry = _mm256_set1_epi32(static_cast<int32_t>(q[i - 1]));
  for (; i + 8 <= end; i += 8) {
    const int32_t* at = c + i;
    __m256i t = _mm256_add_epi32(load8(at), _mm256_sub_epi32(load8(at - R), load8(at - R - 1)));
    if (kK == k3D)
      t = _mm256_add_epi32(
          t, _mm256_add_epi32(_mm256_sub_epi32(load8(at - P), load8(at - P - 1)),
                              _mm256_sub_epi32(load8(at - P - R - 1), load8(at - P - R))));
    const __m256i codes = prefix8(t, carry);
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(q + i), codes);
    carry = _mm256_permutevar8x32_epi32(codes, _mm256_set1_epi32(7));
  }
  return i;
}

}  // namespace

void dense_unpredict_range_avx2(uint32_t* q, uint32_t from, uint32_t to, const DensePredictor& p) {
  if ((p.id != kDenseLorenzo2D && p.id != kDenseLorenzo3D) || p.row < 8)
    return dense_unpredict_range_scalar(q, from, to, p);
  const uint32_t R = p.row, P = p.plane;
  const auto [e1, e2] = dense_regions(p, to);  // (the same ends for any to, cut at to)
  // the chunk's first row (order 1) as the scalar kernel does it
  uint32_t i = std::max(from, e1);
  if (from < e1) dense_unpredict_range_scalar(q, from, e1, p);
  if (i < e2) {
    const uint32_t v = unpredict_region<k2D>(q, i, e2, R, P);
    dense_unpredict_range_scalar(q, v, e2, p);
    i = e2;
  }
  if (p.id == kDenseLorenzo3D && i < to) {
    const uint32_t v = unpredict_region<k3D>(q, i, to, R, P);
    dense_unpredict_range_scalar(q, v, to, p);
  }
}

uint32_t dense_residual_histogram_avx2(const uint32_t* r, uint32_t len, uint32_t every,
                                       uint32_t* h) {
  if (every != 2) return dense_residual_histogram_scalar(r, len, every, h);
  const auto* v = reinterpret_cast<const int32_t*>(r);
  Tables t;
  uint32_t i = 0;
  for (; i + 16 <= len; i += 16) t.add(bins_of(even_lanes(load8(v + i), load8(v + i + 8))));
  t.sum_into(h);
  return i / 2 + dense_residual_histogram_scalar(r + i, len - i, 2, h);
}

}  // namespace zcoll

#if defined(__clang__)
#pragma clang attribute pop
#else
#pragma GCC pop_options
#endif

#endif
