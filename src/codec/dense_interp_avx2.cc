// dense_interp_avx2.cc — predictor 5's runs of step 2 in AVX2 (dense_interp_step.h:
// encode_run, decode_run), eight values at a time, and the copies to and from
// the coarse array. A grid's finest level holds 1/2 (1-D) to 7/8 (3-D) of its
// values (and the coarse levels run as the finest of their coarse arrays:
// dense_interp.cc), every one of them predicted from neighbours decoded before
// it, so a run's values do not depend on each other.
//
// The arithmetic is i32, exact where the values involved are below 2^26 in
// magnitude (checked per step; else that step's eight go one at a time):
// 9 (b + c) - a - d + 8 then stays below 2^31. A residual's division by 255 is
// a multiply by the 2^39 / 255 reciprocal (the 32 x 32 -> 64 multiply, on the
// even and the odd lanes; exact below 2^31). The next step's loads are issued
// before this step's stores, which they overlap when off is 1: a load that
// reads a store in flight would wait for it.
#include "codec/dense_interp_step.h"

#if defined(ZCOLL_HAVE_AVX2_KERNELS)

#include <immintrin.h>

#include <algorithm>

#include "codec/dense.h"

#if defined(__clang__)
#pragma clang attribute push(__attribute__((target("avx2"))), apply_to = function)
#else
#pragma GCC push_options
#pragma GCC target("avx2")
#endif

namespace zcoll {
namespace {

inline __m256i load8(const int32_t* p) {
  return _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p));
}
inline void store8(int32_t* p, __m256i x) { _mm256_storeu_si256(reinterpret_cast<__m256i*>(p), x); }
inline __m256i set1(int32_t x) { return _mm256_set1_epi32(x); }

// A step is eight values of the run, j + 2 t (t < 8): the even lanes of the
// sixteen values at j. Each stream of a step (the values, and their neighbours
// at -off, +off, -3 off, +3 off: the even lanes of the sixteen at j - off, ...)
// is packed by one shuffle, in the lane order (0 1 4 5 | 2 3 6 7) of t; the
// arithmetic is per lane, so only the residuals (in order) and the values
// (back among the odd ones) pay a permute.
inline __m256i evens_of(__m256i lo, __m256i hi) {
  return _mm256_castps_si256(
      _mm256_shuffle_ps(_mm256_castsi256_ps(lo), _mm256_castsi256_ps(hi), _MM_SHUFFLE(2, 0, 2, 0)));
}
inline __m256i evens(const int32_t* p) { return evens_of(load8(p), load8(p + 8)); }
constexpr int kInOrder = 0xD8;  // 64-bit lanes (0 2 1 3): the shuffle's order <-> t's (both ways)

// The loads of one step: the two windows of values, and the streams.
struct Step {
  __m256i lo, hi, b, c, a, d;  // v[j..j+7], v[j+8..j+15]; the neighbours' streams
};
// The step's sources: the values at j, their neighbours at j - off, j + off
// (and j - 3 off, j + 3 off), each a pointer at the run's first step plus one
// index that moves 16 values a step (one add a step; indices j - off etc. in
// u32 would be recomputed and widened every step). a and d: cubic only (linear
// runs need not have those neighbours).
template <bool kCubic>
struct Cursor {
  const int32_t *x, *b, *c, *a, *d;
  size_t i = 0;
  Cursor(const int32_t* v, uint32_t j, uint32_t off)
      : x(v + j),
        b(x - off),
        c(x + off),
        a(kCubic ? b - 2 * size_t{off} : x),
        d(kCubic ? c + 2 * size_t{off} : x) {}
  void next() { i += 16; }
};
template <bool kCubic>
inline Step load_step(const Cursor<kCubic>& at) {
  Step l;
  l.lo = load8(at.x + at.i), l.hi = load8(at.x + at.i + 8);
  l.b = evens(at.b + at.i), l.c = evens(at.c + at.i);
  if (kCubic) l.a = evens(at.a + at.i), l.d = evens(at.d + at.i);
  return l;
}

// Whether the step's streams (with the values: kX, their stream x) lie in
// (-2^26, 2^26), where the i32 arithmetic is exact.
template <bool kCubic, bool kX>
inline bool small(const Step& l, __m256i x) {
  const __m256i bias = set1(1 << 26);
  const auto out = [&bias](__m256i y) { return _mm256_add_epi32(y, bias); };  // < 2^27: in
  __m256i any = _mm256_or_si256(out(l.b), out(l.c));
  if (kCubic) any = _mm256_or_si256(any, _mm256_or_si256(out(l.a), out(l.d)));
  if (kX) any = _mm256_or_si256(any, out(x));
  return _mm256_testz_si256(any, set1(~((1 << 27) - 1)));
}

// The predictions (predict<K>): linear, floor((b + c) / 2) for any i32; cubic,
// floor((9 (b + c) - a - d + 8) / 16) where small().
template <bool kCubic>
inline __m256i predict(const Step& l) {
  if (!kCubic)
    return _mm256_add_epi32(_mm256_add_epi32(_mm256_srai_epi32(l.b, 1), _mm256_srai_epi32(l.c, 1)),
                            _mm256_and_si256(_mm256_and_si256(l.b, l.c), set1(1)));
  const __m256i s = _mm256_add_epi32(l.b, l.c);
  const __m256i x = _mm256_sub_epi32(_mm256_add_epi32(_mm256_slli_epi32(s, 3), s),
                                     _mm256_sub_epi32(_mm256_add_epi32(l.a, l.d), set1(8)));
  return _mm256_srai_epi32(x, 4);
}

// x + 255 k (mod 2^32)
inline __m256i add_steps(__m256i x, __m256i k) {
  return _mm256_add_epi32(x, _mm256_sub_epi32(_mm256_slli_epi32(k, 8), k));
}

// floor(n / 255) for 0 <= n < 2^31, per lane: the 2^39 / 255 reciprocal by the
// 32 x 32 -> 64 multiply, on the even lanes and on the odd ones moved down.
inline __m256i div255(__m256i n) {
  const __m256i magic = _mm256_set1_epi64x(0x80808081);
  const __m256i even = _mm256_srli_epi64(_mm256_mul_epu32(n, magic), 39);
  // (the odd lanes' products >> 7: the quotient in the upper half of each)
  const __m256i odd = _mm256_srli_epi64(_mm256_mul_epu32(_mm256_srli_epi64(n, 32), magic), 7);
  return _mm256_blend_epi32(even, odd, 0xAA);
}

// The step's new values y (in the streams' order) into v[j + 2 t], the odd
// values as the windows had them.
inline void store_values(int32_t* v, const Step& l, __m256i y) {
  store8(v, _mm256_blend_epi32(l.lo, _mm256_unpacklo_epi32(y, y), 0x55));
  store8(v + 8, _mm256_blend_epi32(l.hi, _mm256_unpackhi_epi32(y, y), 0x55));
}

// The values of whole steps: each reads and writes [j - reach', j + 15 + reach]
// (reach: off, or 3 off for cubic), all inside the chunk.
template <bool kCubic>
uint32_t vector_count(uint32_t len, uint32_t from, uint32_t count, uint32_t off) {
  const uint64_t reach = (kCubic ? 3u : 1u) * uint64_t{off} + 15;  // the last read past j
  // the steps t = 0, 8, 16, ... with t + 8 <= count and from + 2 t + reach < len
  const uint64_t room = len > from + reach ? (len - from - reach - 1) / 16 + 1 : 0;
  return static_cast<uint32_t>(8 * std::min<uint64_t>(count / 8, room));
}

// One step of the encoder: the eight values of l (at w) against their
// predictions, their residuals to r.
template <bool kCubic>
inline void encode_step(const Step& l, int32_t* w, uint32_t* r, uint32_t off) {
  constexpr int K = kCubic ? interp_step::kCubic : interp_step::kLinear;
  const __m256i x = evens_of(l.lo, l.hi);
  if (!small<kCubic, true>(l, x)) {
    interp_step::encode_run<K>(w, 0, 8, off, r);
    return;
  }
  // (linear: the i32 sum b + c cannot overflow where small(); floor((b + c) / 2) in
  // two instructions, not predict's five for any i32)
  const __m256i p = kCubic ? predict<kCubic>(l) : _mm256_srai_epi32(_mm256_add_epi32(l.b, l.c), 1);
  // n = x - p + 127 + 255 * 2^21 >= 0 (|x - p| < 2^28); k = floor(n / 255) - 2^21
  const __m256i n = _mm256_add_epi32(_mm256_sub_epi32(x, p), set1(127 + (255 << 21)));
  const __m256i k = _mm256_sub_epi32(div255(n), set1(1 << 21));
  store8(reinterpret_cast<int32_t*>(r), _mm256_permute4x64_epi64(k, kInOrder));
  store_values(w, l, add_steps(p, k));
}

// The last count % 8 values of a linear run of at least eight (7 of a line's 95
// along the fastest dim, 1 to 7 of many others) as one step over the run's last
// eight, where its reads stay in the chunk and it is small(): the values of the
// steps before that it covers again keep their residuals and values (the same
// prediction, and a reconstruction p + 255 k, exact where small(), gives the
// residual k). Otherwise one at a time, from t = tail. (Cubic runs: the same
// made encode_run<true> slower, as GCC 12 compiled it.)
void encode_linear_tail(int32_t* v, uint32_t len, uint32_t from, uint32_t count, uint32_t off,
                        uint32_t tail, uint32_t* r) {
  if (tail < count && count >= 8 && from + 2 * uint64_t{count - 8} + off + 15 < len) {
    const uint32_t t = count - 8;
    const Step l = load_step<false>(Cursor<false>(v, from + 2 * t, off));
    const __m256i x = evens_of(l.lo, l.hi);
    if (small<false, true>(l, x)) {
      encode_step<false>(l, v + from + 2 * t, r + t, off);  // (its vector path)
      return;
    }
  }
  interp_step::encode_run<interp_step::kLinear>(v, from + 2 * tail, count - tail, off, r + tail);
}

// Two steps an iteration, each one's loads before the other's stores: the
// loads of the step ahead live in the other set of registers, so no step
// copies its loads from one set to the other.
template <bool kCubic>
void encode_run(int32_t* v, uint32_t len, uint32_t from, uint32_t count, uint32_t off,
                uint32_t* r) {
  constexpr int K = kCubic ? interp_step::kCubic : interp_step::kLinear;
  const uint32_t vec = vector_count<kCubic>(len, from, count, off);
  Cursor<kCubic> at(v, from, off);
  int32_t* w = v + from;
  uint32_t* out = r;
  uint32_t steps = vec / 8;
  if (steps) {
    Step a = load_step<kCubic>(at);
    for (; steps > 2; steps -= 2, w += 32, out += 16) {
      at.next();
      const Step b = load_step<kCubic>(at);  // before a's stores
      encode_step<kCubic>(a, w, out, off);
      at.next();
      a = load_step<kCubic>(at);  // before b's stores
      encode_step<kCubic>(b, w + 16, out + 8, off);
    }
    if (steps == 2) {
      at.next();
      const Step b = load_step<kCubic>(at);
      encode_step<kCubic>(a, w, out, off);
      encode_step<kCubic>(b, w + 16, out + 8, off);
    } else {
      encode_step<kCubic>(a, w, out, off);
    }
  }
  if (kCubic)
    interp_step::encode_run<K>(v, from + 2 * vec, count - vec, off, r + vec);
  else
    encode_linear_tail(v, len, from, count, off, vec, r);
}

template <bool kCubic>
void decode_run(int32_t* v, uint32_t len, uint32_t from, uint32_t count, uint32_t off,
                const uint32_t* r) {
  constexpr int K = kCubic ? interp_step::kCubic : interp_step::kLinear;
  const uint32_t vec = vector_count<kCubic>(len, from, count, off);
  Cursor<kCubic> at(v, from, off);
  Step next = vec ? load_step<kCubic>(at) : Step{};
  for (uint32_t t = 0; t < vec; t += 8) {
    int32_t* w = v + from + 2 * t;
    const Step l = next;
    at.next();
    if (t + 8 < vec) next = load_step<kCubic>(at);  // before this step's store
    if (kCubic && !small<kCubic, false>(l, l.lo)) {
      interp_step::decode_run<K>(w, 0, 8, off, r + t);
      continue;
    }
    const __m256i k =
        _mm256_permute4x64_epi64(load8(reinterpret_cast<const int32_t*>(r + t)), kInOrder);
    store_values(w, l, add_steps(predict<kCubic>(l), k));
  }
  interp_step::decode_run<K>(v, from + 2 * vec, count - vec, off, r + vec);
}

}  // namespace

// interp_within_bound: the reconstructions (codes times the fine step, rounded
// to T) and the test !(|x - x'| < eb) as the scalar loop computes them (the
// conversions round to nearest, as the casts do; a NaN fails both).
bool interp_within_bound_f32_avx2(const float* x, const int32_t* v, uint32_t len,
                                  const Quantizer<float>& qz) {
  const __m256d fine = _mm256_set1_pd(qz.quantum * (1.0 / kInterpFine));
  const __m256 eb = _mm256_set1_ps(qz.eb_check);
  const __m256 magnitude = _mm256_castsi256_ps(_mm256_set1_epi32(0x7FFFFFFF));
  __m256 bad = _mm256_setzero_ps();
  uint32_t i = 0;
  for (; i + 8 <= len; i += 8) {
    const auto* w = reinterpret_cast<const __m128i*>(v + i);
    const __m128 lo = _mm256_cvtpd_ps(_mm256_mul_pd(_mm256_cvtepi32_pd(_mm_loadu_si128(w)), fine));
    const __m128 hi =
        _mm256_cvtpd_ps(_mm256_mul_pd(_mm256_cvtepi32_pd(_mm_loadu_si128(w + 1)), fine));
    const __m256 err =
        _mm256_and_ps(_mm256_sub_ps(_mm256_loadu_ps(x + i), _mm256_set_m128(hi, lo)), magnitude);
    bad = _mm256_or_ps(bad, _mm256_cmp_ps(err, eb, _CMP_NLT_UQ));
  }
  return _mm256_testz_ps(bad, bad) && interp_within_bound_scalar(x + i, v + i, len - i, qz);
}

bool interp_within_bound_f64_avx2(const double* x, const int32_t* v, uint32_t len,
                                  const Quantizer<double>& qz) {
  const __m256d fine = _mm256_set1_pd(qz.quantum * (1.0 / kInterpFine));
  const __m256d eb = _mm256_set1_pd(qz.eb_check);
  const __m256d magnitude = _mm256_castsi256_pd(_mm256_set1_epi64x(0x7FFFFFFFFFFFFFFF));
  __m256d bad = _mm256_setzero_pd();
  uint32_t i = 0;
  for (; i + 4 <= len; i += 4) {
    const __m256d r = _mm256_mul_pd(
        _mm256_cvtepi32_pd(_mm_loadu_si128(reinterpret_cast<const __m128i*>(v + i))), fine);
    const __m256d err = _mm256_and_pd(_mm256_sub_pd(_mm256_loadu_pd(x + i), r), magnitude);
    bad = _mm256_or_pd(bad, _mm256_cmp_pd(err, eb, _CMP_NLT_UQ));
  }
  return _mm256_testz_pd(bad, bad) && interp_within_bound_scalar(x + i, v + i, len - i, qz);
}

// Eight values at a time: sixteen of v (up to v[2 k + 15], k + 8 < m: below
// 2 m - 1), their even lanes packed by one shuffle and one lane permute, or
// spread by two permutes and blended into them.
void interp_evens_to_avx2(const int32_t* v, uint32_t m, int32_t* u) {
  uint32_t k = 0;
  for (; k + 8 < m; k += 8) {
    const __m256 a = _mm256_castsi256_ps(load8(v + 2 * k));
    const __m256 b = _mm256_castsi256_ps(load8(v + 2 * k + 8));
    const __m256i e = _mm256_castps_si256(_mm256_shuffle_ps(a, b, _MM_SHUFFLE(2, 0, 2, 0)));
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(u + k), _mm256_permute4x64_epi64(e, 0xD8));
  }
  interp_evens_to_scalar(v + 2 * k, m - k, u + k);
}
void interp_evens_from_avx2(const int32_t* u, uint32_t m, int32_t* v) {
  const __m256i lo = _mm256_setr_epi32(0, 0, 1, 1, 2, 2, 3, 3);
  const __m256i hi = _mm256_setr_epi32(4, 4, 5, 5, 6, 6, 7, 7);
  uint32_t k = 0;
  for (; k + 8 < m; k += 8) {
    const __m256i x = load8(u + k);
    auto* w = reinterpret_cast<__m256i*>(v + 2 * k);
    _mm256_storeu_si256(
        w, _mm256_blend_epi32(load8(v + 2 * k), _mm256_permutevar8x32_epi32(x, lo), 0x55));
    _mm256_storeu_si256(
        w + 1, _mm256_blend_epi32(load8(v + 2 * k + 8), _mm256_permutevar8x32_epi32(x, hi), 0x55));
  }
  interp_evens_from_scalar(u + k, m - k, v + 2 * k);
}

void interp_encode_run_avx2(int32_t* v, uint32_t len, uint32_t from, uint32_t count, uint32_t off,
                            bool cubic, uint32_t* r) {
  cubic ? encode_run<true>(v, len, from, count, off, r)
        : encode_run<false>(v, len, from, count, off, r);
}
void interp_decode_run_avx2(int32_t* v, uint32_t len, uint32_t from, uint32_t count, uint32_t off,
                            bool cubic, const uint32_t* r) {
  cubic ? decode_run<true>(v, len, from, count, off, r)
        : decode_run<false>(v, len, from, count, off, r);
}

}  // namespace zcoll

#if defined(__clang__)
#pragma clang attribute pop
#else
#pragma GCC pop_options
#endif

#endif
