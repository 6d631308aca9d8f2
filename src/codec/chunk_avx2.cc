// chunk_avx2.cc — AVX2 chunk kernels. They produce the same bytes and values as
// the scalar kernels in chunk_scalar.h: the same double-precision quantization
// (x * inv, round to nearest even), the same reconstruction check (skipped only
// where it provably passes), and the scalar routine itself for any block that needs
// the neighbouring-bin fix-up.
//
// Encoding, one pass per block of 32 values: 4 groups of 8 codes -> deltas
// (q[i] - q[i-1]) and code length -> bit planes (planes_avx2.h).
// Decoding, in two stages per 8 blocks (decode_full_blocks): bit planes -> deltas
// (planes_avx2.h) -> prefix sums in 8- or 16-lane steps -> codes in a buffer; then
// the codes dequantized in double. (The tail block and the 16-bit types: one pass.)
// Where the CPU has GFNI, the float and double decoders of the "avx2+gfni" set
// transpose the bit matrices by GFNI (planes_avx2.h); the rest is the AVX2 set's.
#include "codec/chunk_codec.h"
#include "codec/dense.h"
#include "codec/dense_predict.h"
#include "codec/dense_interp.h"

#if defined(ZCOLL_HAVE_AVX2_KERNELS)

#include <immintrin.h>

#include <cmath>
#include <type_traits>

#include "codec/chunk_scalar.h"
#include "codec/kernels_avx2.h"

// Only the functions below are compiled for AVX2 (the headers above are not), so no
// AVX2 copy of a shared inline function can be picked by the linker for scalar code.
#if defined(__clang__)
#pragma clang attribute push(__attribute__((target("avx2,bmi2"))), apply_to = function)
#else
#pragma GCC push_options
#pragma GCC target("avx2,bmi2")
#endif

#include "codec/planes_avx2.h"  // after the pragma: compiled for AVX2 too

namespace zcoll {
namespace {

// ---- quantization ----------------------------------------------------------------
struct QuantVec {
  __m256d inv, quantum, lim, absmask;
  bool fast;          // the quantizer has a fast range (fast_range_bits)
  __m128i fast_bits;  // b: the fast range is |q| < 2^b (a shift count)
};

// The fast range of |q| of the compressor's quantizer: below 2^16 (float) or 2^20
// (double).
template <typename T>
constexpr int kFastBits = sizeof(T) == 4 ? 16 : 20;

// The fast range |q| < 2^b of a float or double quantizer (0: none), where the
// reconstruction check |x - (T)(q*quantum)| < eb_check cannot fail, so that the
// codes need no check.
//
// kFastBits: the check cannot fail when |q| is in that range and quantum/2 <=
// eb_check*(1 - m), m = 2^-7 (float) / 2^-22 (double), with quantum and eb_check
// in [2^-100, 2^100] ([2^-900, 2^900]): the rounding of x*inv moves |x/quantum - q|
// at most 2^-35 (2^-31) above 1/2, that of q*quantum and (float) add at most 2^-8
// (2^-33) quantum, and the subtraction in T a factor 1 + 2^-24 (2^-53): all within
// the margin m (no overflow, underflow or subnormal step in these ranges). The
// compressor's quantizer has quantum/2 = eb*(1 - 2^-6) (float; eb_check >=
// eb*(1 - 2^-23)) and eb*(1 - 2^-20) (double), so it qualifies.
//
// Wider, where the bound leaves more room (the dense codec's fine quantizer,
// quantum/256: its codes are 256 times the others): with u the unit roundoff of
// T and |q| < 2^b <= 2^29, the rounding of x*inv moves |x/quantum - q| at most
// (2^b + 1) 2^-52 above 1/2, that of q*quantum (in double, then T) adds at most
// 2^b (u + 2^-53) quantum, and the subtraction a factor 1 + u; so the check holds
// where quantum (1/2 + 2^b 16u) <= eb_check (1 - 8u) (twice each term, and room
// for this test's own rounding), and 2^b quantum <= 2^116 (2^920) keeps the
// reconstruction finite. The fine quantizer gets b = 27 (float), 29 (double).
template <typename T>
int fast_range_bits(const Quantizer<T>& qz) {
  constexpr bool f32 = std::is_same_v<T, float>;
  if (!f32 && !std::is_same_v<T, double>) return 0;
  const double m = f32 ? 0x1p-7 : 0x1p-22, lo = f32 ? 0x1p-100 : 0x1p-900, hi = 1 / lo;
  const double u = f32 ? 0x1p-24 : 0x1p-53, top = f32 ? 0x1p116 : 0x1p920;
  const double q = qz.quantum, e = static_cast<double>(qz.eb_check);
  if (!(q >= lo && q <= hi && e >= lo && e <= hi)) return 0;
  int b = 0.5 * q <= e * (1 - m) ? kFastBits<T> : 0;
  while (b < 29 && std::ldexp(q, b + 1) <= top &&
         q * (0.5 + std::ldexp(16 * u, b + 1)) <= e * (1 - 8 * u))
    ++b;
  return b;
}

template <typename T>
inline QuantVec make_qv(const Quantizer<T>& qz) {
  QuantVec v;
  v.inv = _mm256_set1_pd(qz.inv);
  v.quantum = _mm256_set1_pd(qz.quantum);
  v.lim = _mm256_set1_pd(static_cast<double>(kQMaxCompress));
  v.absmask = _mm256_castsi256_pd(_mm256_set1_epi64x(0x7FFFFFFFFFFFFFFFLL));
  const int b = fast_range_bits(qz);
  v.fast = b > 0;
  v.fast_bits = _mm_cvtsi32_si128(b);
  return v;
}

// q = round(x * inv) of 8 values in double (round to nearest even, as nearbyint);
// NaN, Inf and |x * inv| >= 2^31 give INT_MIN.
// (float: two 128-bit loads widened in place, no lane extracted)
inline __m256i round8(const float* x, __m256d inv) {
  const __m256d tl = _mm256_mul_pd(_mm256_cvtps_pd(_mm_loadu_ps(x)), inv);
  const __m256d th = _mm256_mul_pd(_mm256_cvtps_pd(_mm_loadu_ps(x + 4)), inv);
  return _mm256_set_m128i(_mm256_cvtpd_epi32(th), _mm256_cvtpd_epi32(tl));
}
inline __m256i round8(const double* x, __m256d inv) {
  const __m128i lo = _mm256_cvtpd_epi32(_mm256_mul_pd(_mm256_loadu_pd(x), inv));
  const __m128i hi = _mm256_cvtpd_epi32(_mm256_mul_pd(_mm256_loadu_pd(x + 4), inv));
  return _mm256_set_m128i(hi, lo);
}

// bfloat16: 8 values widened to float (exact: the bits shifted up), and the
// reconstruction (float)(q * quantum) rounded to bfloat16 as hd::float_to_bf16 does
// for every non-NaN value (a reconstruction is never NaN).
inline __m256 widen8(const Bf16* x) {
  const __m128i h = _mm_loadu_si128(reinterpret_cast<const __m128i*>(x));
  return _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_cvtepu16_epi32(h), 16));
}
inline __m256 round_to_bf16(__m256 f) {
  __m256i b = _mm256_castps_si256(f);
  const __m256i lsb = _mm256_and_si256(_mm256_srli_epi32(b, 16), _mm256_set1_epi32(1));
  b = _mm256_add_epi32(b, _mm256_add_epi32(_mm256_set1_epi32(0x7FFF), lsb));
  return _mm256_castsi256_ps(_mm256_and_si256(b, _mm256_set1_epi32(static_cast<int>(0xFFFF0000u))));
}

// The checked quantization of 8 values (any |q|): false if any value is out of range
// or fails the reconstruction check (the caller then redoes the block in scalar code).
// kBf16: the values are bfloat16 ones, widened, and their reconstruction is rounded
// to bfloat16 before the check.
template <bool kBf16>
inline bool quant8_values(__m256 xv, const QuantVec& v, __m256 ebc, __m256i* q) {
  __m256d tl = _mm256_mul_pd(_mm256_cvtps_pd(_mm256_castps256_ps128(xv)), v.inv);
  __m256d th = _mm256_mul_pd(_mm256_cvtps_pd(_mm256_extractf128_ps(xv, 1)), v.inv);
  __m256d ok = _mm256_and_pd(_mm256_cmp_pd(_mm256_and_pd(tl, v.absmask), v.lim, _CMP_LE_OQ),
                             _mm256_cmp_pd(_mm256_and_pd(th, v.absmask), v.lim, _CMP_LE_OQ));
  if (_mm256_movemask_pd(ok) != 0xF) return false;
  __m128i ql = _mm256_cvtpd_epi32(tl), qh = _mm256_cvtpd_epi32(th);
  __m128 rl = _mm256_cvtpd_ps(_mm256_mul_pd(_mm256_cvtepi32_pd(ql), v.quantum));
  __m128 rh = _mm256_cvtpd_ps(_mm256_mul_pd(_mm256_cvtepi32_pd(qh), v.quantum));
  __m256 r = _mm256_set_m128(rh, rl);
  if constexpr (kBf16) r = round_to_bf16(r);
  __m256 err = _mm256_sub_ps(xv, r);
  __m256 aerr = _mm256_andnot_ps(_mm256_set1_ps(-0.0f), err);
  if (_mm256_movemask_ps(_mm256_cmp_ps(aerr, ebc, _CMP_LT_OQ)) != 0xFF) return false;
  *q = _mm256_set_m128i(qh, ql);
  return true;
}

inline bool quant8(const float* x, const QuantVec& v, __m256 ebc, __m256i* q) {
  return quant8_values<false>(_mm256_loadu_ps(x), v, ebc, q);
}

inline bool quant4(const double* x, const QuantVec& v, __m256d ebc, __m128i* q) {
  __m256d xv = _mm256_loadu_pd(x);
  __m256d t = _mm256_mul_pd(xv, v.inv);
  if (_mm256_movemask_pd(_mm256_cmp_pd(_mm256_and_pd(t, v.absmask), v.lim, _CMP_LE_OQ)) != 0xF)
    return false;
  __m128i qi = _mm256_cvtpd_epi32(t);
  __m256d err = _mm256_sub_pd(xv, _mm256_mul_pd(_mm256_cvtepi32_pd(qi), v.quantum));
  if (_mm256_movemask_pd(_mm256_cmp_pd(_mm256_and_pd(err, v.absmask), ebc, _CMP_LT_OQ)) != 0xF)
    return false;
  *q = qi;
  return true;
}

inline bool quant8(const double* x, const QuantVec& v, __m256d ebc, __m256i* q) {
  __m128i lo, hi;
  if (!quant4(x, v, ebc, &lo) || !quant4(x + 4, v, ebc, &hi)) return false;
  *q = _mm256_set_m128i(hi, lo);
  return true;
}

inline __m256 eb_vec(const Quantizer<float>& qz) { return _mm256_set1_ps(qz.eb_check); }
inline __m256d eb_vec(const Quantizer<double>& qz) { return _mm256_set1_pd(qz.eb_check); }

// The checked quantization of a full block, out of line (the fast path then keeps
// its codes in registers): true when every value passes the range and
// reconstruction checks with the codes round8 gives; false = the scalar routine.
template <typename T, typename EbVec>
__attribute__((noinline)) bool block_passes_checks(const T* x, const QuantVec& v, EbVec ebc) {
  __m256i q;
  for (int g = 0; g < 4; ++g)
    if (!quant8(x + 8 * g, v, ebc, &q)) return false;
  return true;
}

// Codes of a full block and their largest |q| per lane (*absq). false = the block
// needs the scalar routine. In the fast range no check is needed (make_qv).
template <typename T, typename EbVec>
inline bool quantize_block(const T* x, const QuantVec& v, EbVec ebc, __m256i q[4], __m256i* absq) {
  __m256i m = _mm256_setzero_si256();
  for (int g = 0; g < 4; ++g) {
    q[g] = round8(x + 8 * g, v.inv);
    m = _mm256_max_epu32(m, _mm256_abs_epi32(q[g]));  // INT_MIN stays 2^31: never fast
  }
  *absq = m;
  const __m256i big = _mm256_srl_epi32(m, v.fast_bits);
  return (v.fast && _mm256_testz_si256(big, big)) || block_passes_checks(x, v, ebc);
}

// bfloat16 blocks (widen8, round_to_bf16 above): every block is checked, no fast
// range is proven for the 16-bit rounding.
inline __m256 eb_vec(const Quantizer<Bf16>& qz) { return _mm256_set1_ps(qz.eb_check); }

inline bool quant8(const Bf16* x, const QuantVec& v, __m256 ebc, __m256i* q) {
  return quant8_values<true>(widen8(x), v, ebc, q);
}

inline bool quantize_block(const Bf16* x, const QuantVec& v, __m256 ebc, __m256i q[4],
                           __m256i* absq) {
  __m256i m = _mm256_setzero_si256();
  for (int g = 0; g < 4; ++g) {
    if (!quant8(x + 8 * g, v, ebc, &q[g])) return false;
    m = _mm256_max_epu32(m, _mm256_abs_epi32(q[g]));
  }
  *absq = m;
  return true;
}

// float16: the reference quantization value by value (rounding to float16 in a
// register would need F16C); the "vector" handed through is the quantizer itself.
// A value that cannot be quantized sends the block to the reference routine, which
// then escapes the chunk, as the scalar kernel does.
inline const Quantizer<Fp16>* eb_vec(const Quantizer<Fp16>& qz) { return &qz; }

inline bool quantize_block(const Fp16* x, const QuantVec&, const Quantizer<Fp16>* qz, __m256i q[4],
                           __m256i* absq) {
  alignas(32) int32_t c[kBlock];
  for (uint32_t i = 0; i < kBlock; ++i)
    if (!quantize_value(x[i], *qz, &c[i])) return false;
  __m256i m = _mm256_setzero_si256();
  for (int g = 0; g < 4; ++g) {
    q[g] = _mm256_load_si256(reinterpret_cast<const __m256i*>(c + 8 * g));
    m = _mm256_max_epu32(m, _mm256_abs_epi32(q[g]));
  }
  *absq = m;
  return true;
}

// ---- prediction and code length ----------------------------------------------------

inline uint32_t hor_or(__m256i v) {
  __m128i o = _mm_or_si128(_mm256_castsi256_si128(v), _mm256_extracti128_si256(v, 1));
  o = _mm_or_si128(o, _mm_shuffle_epi32(o, 0x4E));
  o = _mm_or_si128(o, _mm_shuffle_epi32(o, 0xB1));
  return static_cast<uint32_t>(_mm_cvtsi128_si32(o));
}

inline uint32_t hmax_epu32(__m256i v) {
  __m128i m = _mm_max_epu32(_mm256_castsi256_si128(v), _mm256_extracti128_si256(v, 1));
  m = _mm_max_epu32(m, _mm_shuffle_epi32(m, 0x4E));
  m = _mm_max_epu32(m, _mm_shuffle_epi32(m, 0xB1));
  return static_cast<uint32_t>(_mm_cvtsi128_si32(m));
}

// Deltas d[i] = q[i] - q[i-1] of a block (lane 7 of *prev: the code before it) and its
// code length. The signed width of d is bitwidth(d ^ (d << 1)) (the highest bit that
// differs from the one below it, +1; 0 for d = 0), so W = bitwidth of the OR of
// those: the format's any ? bitwidth(OR(d ^ (d >> 31))) + 1 : 0 with one OR less.
inline uint32_t block_deltas(const __m256i q[4], __m256i* prev, __m256i d[4]) {
  __m256i w = _mm256_setzero_si256();
  for (int g = 0; g < 4; ++g) {  // [prev lane 7, q lanes 0..6]: one lane move across halves
    const __m256i shifted =
        _mm256_alignr_epi8(q[g], _mm256_permute2x128_si256(*prev, q[g], 0x21), 12);
    d[g] = _mm256_sub_epi32(q[g], shifted);
    w = _mm256_or_si256(w, _mm256_xor_si256(d[g], _mm256_slli_epi32(d[g], 1)));
    *prev = q[g];
  }
  return bit_width(hor_or(w));
}

constexpr uint32_t kEscape = ~0u;         // "write the chunk raw"
constexpr uint32_t kUseScalar = ~0u - 1;  // "redo the block with the reference routine"

// A tail block, or one that needs the neighbouring-bin fix-up: the reference routine.
// Returns its code length, or kEscape when a value cannot be quantized or the payload
// would not fit in `room` bytes (the chunk would not beat a raw one).
template <typename T>
inline uint32_t scalar_block(const T* x, uint32_t n, const Quantizer<T>& qz, __m256i* prev,
                             uint32_t* qmax, uint8_t* out, size_t room) {
  int32_t p = _mm256_extract_epi32(*prev, 7), d[32];
  uint8_t payload[4 * (kMaxCodeLength + 1)];
  if (!block_deltas_scalar(x, n, qz, &p, qmax, d)) return kEscape;
  *prev = _mm256_set1_epi32(p);
  const uint32_t L = encode_block(d, payload);
  if (block_payload_bytes(L) >= room) return kEscape;
  std::memcpy(out, payload, block_payload_bytes(L));
  return L;
}

// A full block through the vector path: its code length, kEscape or kUseScalar.
// room: bytes left before the chunk would reach its raw size.
template <typename T, typename EbVec>
inline uint32_t vector_block(const T* x, const QuantVec& v, EbVec ebc, __m256i* prev,
                             __m256i* qmaxv, uint8_t* out, size_t room) {
  __m256i q[4], d[4], absq;
  if (!quantize_block(x, v, ebc, q, &absq)) return kUseScalar;
  const uint32_t L = block_deltas(q, prev, d);
  *qmaxv = _mm256_max_epu32(*qmaxv, absq);
  if (block_payload_bytes(L) >= room) return kEscape;
  if (L) pack_planes(d, L, out, room);
  return L;
}

// One pass per block: quantize, predict, code length, bit planes (planes_avx2.h).
template <typename T>
size_t compress_chunk_avx2(const T* x, uint32_t len, const Quantizer<T>& qz, uint8_t* out) {
  const size_t raw = raw_chunk_bytes(len, sizeof(T));
  const uint32_t nblocks = (len + kBlock - 1) / kBlock, full = len / kBlock;
  int32_t anchor;
  size_t pos = begin_quant_chunk(x, len, qz, out, &anchor);
  if (pos == 0) return write_raw_chunk(x, len, out);
  uint8_t* lens = out + kQuantChunkHeaderBytes;
  const QuantVec v = make_qv(qz);
  const auto ebc = eb_vec(qz);
  __m256i prev = _mm256_set1_epi32(anchor), qmaxv = _mm256_setzero_si256();
  uint32_t qmax_scalar = 0;
  for (uint32_t b = 0; b < nblocks; ++b) {
    const T* xb = x + size_t{b} * kBlock;
    uint32_t L = b < full ? vector_block(xb, v, ebc, &prev, &qmaxv, out + pos, raw - pos)
                          : kUseScalar;
    if (L == kUseScalar)  // tail block or fix-up needed
      L = scalar_block(xb, b < full ? kBlock : len - b * kBlock, qz, &prev, &qmax_scalar, out + pos,
                       raw - pos);
    if (L == kEscape) return write_raw_chunk(x, len, out);
    lens[b] = static_cast<uint8_t>(L);
    pos += block_payload_bytes(L);
  }
  uint32_t qmax = hmax_epu32(qmaxv);
  qmax = qmax > qmax_scalar ? qmax : qmax_scalar;
  return finish_quant_chunk(x, len, out, pos, anchor, qmax);
}

// The codes of a chunk (the dense codec's quantization): full blocks through
// quantize_block, the others (and blocks that need the checks' fix-ups) per value.
template <typename T>
bool quantize_avx2(const T* x, uint32_t len, const Quantizer<T>& qz, int32_t* q) {
  const QuantVec v = make_qv(qz);
  const auto ebc = eb_vec(qz);
  const uint32_t full = len / kBlock;
  bool ok = true;
  for (uint32_t b = 0; b < full; ++b) {
    const T* xb = x + size_t{b} * kBlock;
    int32_t* qb = q + size_t{b} * kBlock;
    __m256i qv[4], absq;
    if (quantize_block(xb, v, ebc, qv, &absq)) {
      for (int g = 0; g < 4; ++g)
        _mm256_storeu_si256(reinterpret_cast<__m256i*>(qb + 8 * g), qv[g]);
    } else {
      ok &= quantize_values_scalar(xb, kBlock, qz, qb);
    }
  }
  const uint32_t done = full * kBlock;
  return quantize_values_scalar(x + done, len - done, qz, q + done) && ok;
}

// ---- decoding -------------------------------------------------------------------
// The carry (the code before a block) is an int32 broadcast in an xmm register.

// 4 codes -> 4 values: (T)((double)q * factor), stored or added. 128 bits at a time
// (float), so no lane is inserted or extracted on the way.
inline void emit4(float* out, __m128i q, __m256d f, bool acc) {
  __m128 r = _mm256_cvtpd_ps(_mm256_mul_pd(_mm256_cvtepi32_pd(q), f));
  if (acc) r = _mm_add_ps(_mm_loadu_ps(out), r);
  _mm_storeu_ps(out, r);
}
inline void emit4(double* out, __m128i q, __m256d f, bool acc) {
  __m256d r = _mm256_mul_pd(_mm256_cvtepi32_pd(q), f);
  if (acc) r = _mm256_add_pd(_mm256_loadu_pd(out), r);
  _mm256_storeu_pd(out, r);
}

// The codes themselves (the first stage of decode_full_blocks).
inline void emit4(int32_t* out, __m128i q, __m256d, bool) {
  _mm_storeu_si128(reinterpret_cast<__m128i*>(out), q);
}

// A constant block: every code equals the carry.
template <typename T>
inline void emit_const(T* out, __m128i carry, __m256d f, bool acc) {
  for (int i = 0; i < 32; i += 4) emit4(out + i, carry, f, acc);
}

// Inclusive prefix sums of the 8 int16 of each 128-bit half.
inline __m256i prefix_halves16(__m256i x) {
  x = _mm256_add_epi16(x, _mm256_slli_si256(x, 2));
  x = _mm256_add_epi16(x, _mm256_slli_si256(x, 4));
  return _mm256_add_epi16(x, _mm256_slli_si256(x, 8));
}

// Word 7 of each 128-bit half, in every word of that half.
inline __m256i last_word_of_halves(__m256i x) {
  const __m256i t = _mm256_shufflehi_epi16(x, 0xFF);
  return _mm256_unpackhi_epi64(t, t);
}

// 8 int16 sums within a block plus the carry -> 8 values (or codes) of out.
template <typename T>
inline void emit8_sums16(T* out, __m128i c, __m128i x, __m256d f, bool acc) {
  emit4(out, _mm_add_epi32(c, _mm_cvtepi16_epi32(x)), f, acc);
  emit4(out + 4, _mm_add_epi32(c, _mm_cvtepi16_epi32(_mm_unpackhi_epi64(x, x))), f, acc);
}
// The codes themselves: one widening to 8 dwords and one 256-bit store (a third of
// the shuffles of two 128-bit halves).
inline void emit8_sums16(int32_t* out, __m128i c, __m128i x, __m256d, bool) {
  const __m256i q = _mm256_add_epi32(_mm256_broadcastsi128_si256(c), _mm256_cvtepi16_epi32(x));
  _mm256_storeu_si256(reinterpret_cast<__m256i*>(out), q);
}

// Codes of a block of code length <= 11 from its int16 deltas (a: values 0-7 | 16-23,
// b: 8-15 | 24-31): the sums within the block fit in int16 (32 * 2^10), so 16 lanes
// are prefix-summed per instruction. Each 128-bit half is summed in place; the
// halves' totals t then offset the halves after them, added in 128-bit registers
// as the upper halves are extracted (no lane-crossing permute).
template <typename T>
inline void codes16_emit(__m256i a, __m256i b, __m128i* carry, __m256d f, T* out, bool acc) {
  a = prefix_halves16(a);
  b = prefix_halves16(b);
  const __m256i ta = last_word_of_halves(a), tb = last_word_of_halves(b);  // [t0|t2], [t1|t3]
  const __m256i u = _mm256_add_epi16(ta, tb);                              // [t0+t1 | t2+t3]
  b = _mm256_add_epi16(b, ta);                                             // 8-15 + t0 | 24-31 + t2
  const __m128i u0 = _mm256_castsi256_si128(u);
  const __m128i c = *carry, halves[4] = {_mm256_castsi256_si128(a), _mm256_castsi256_si128(b),
                                         _mm_add_epi16(_mm256_extracti128_si256(a, 1), u0),
                                         _mm_add_epi16(_mm256_extracti128_si256(b, 1), u0)};
  for (int h = 0; h < 4; ++h) emit8_sums16(out + 8 * h, c, halves[h], f, acc);  // values 8h..8h+7
  // word 7 of the last half (t3 + t2 + t0 + t1) is the block's total: no extract
  const __m128i w7 = _mm_set1_epi16(0x0F0E);
  *carry = _mm_add_epi32(c, _mm_cvtepi16_epi32(_mm_shuffle_epi8(halves[3], w7)));
}

// Codes of a block of code length > 11 from its int32 deltas, v[k] = values
// 4k .. 4k+3 | 16+4k .. 16+4k+3: each group of 4 is prefix-summed in place and
// offset by the totals of the groups before it in its half (in-lane broadcasts);
// the lower halves then take the carry and the upper halves the carry plus the
// lower half's total, in 128-bit registers (4 extracts, no lane-crossing permute).
template <typename T>
inline void codes32_emit(__m256i v[4], __m128i* carry, __m256d f, T* out, bool acc) {
  __m256i run = _mm256_setzero_si256();  // totals of the groups before, per half
  for (int k = 0; k < 4; ++k) {
    __m256i x = _mm256_add_epi32(v[k], _mm256_slli_si256(v[k], 4));
    x = _mm256_add_epi32(x, _mm256_slli_si256(x, 8));
    v[k] = _mm256_add_epi32(x, run);
    run = _mm256_shuffle_epi32(v[k], 0xFF);
  }
  const __m128i c = *carry, tlo = _mm256_castsi256_si128(run);  // total of values 0-15
  const __m128i chi = _mm_add_epi32(c, tlo);
  for (int k = 0; k < 4; ++k)
    emit4(out + 4 * k, _mm_add_epi32(c, _mm256_castsi256_si128(v[k])), f, acc);
  for (int k = 0; k < 4; ++k)
    emit4(out + 16 + 4 * k, _mm_add_epi32(chi, _mm256_extracti128_si256(v[k], 1)), f, acc);
  *carry = _mm_add_epi32(chi, _mm_shuffle_epi32(_mm256_extracti128_si256(v[3], 1), 0xFF));
}

// One block: bit planes to deltas (planes_avx2.h), prefix sum, dequantize.
template <bool kGfni = false, typename T>
inline void decode_block_avx2(const uint8_t* p, size_t avail, uint32_t L, __m128i* carry, __m256d f,
                              T* out, bool acc) {
  if (L == 0) return emit_const(out, *carry, f, acc);  // every code equals the carry
  if (L <= 11) {
    __m256i a, b;
    unpack_planes16<kGfni>(p, avail, L, &a, &b);
    return codes16_emit(a, b, carry, f, out, acc);
  }
  __m256i v[4];
  unpack_planes32<kGfni>(p, avail, L, v);
  codes32_emit(v, carry, f, out, acc);
}

// 8 codes -> 8 values of out: the arithmetic of emit4 (the same values).
inline void dequant8(const int32_t* q, __m256d f, float* out, bool acc) {
  __m128 r0 = _mm256_cvtpd_ps(
      _mm256_mul_pd(_mm256_cvtepi32_pd(_mm_load_si128(reinterpret_cast<const __m128i*>(q))), f));
  __m128 r1 = _mm256_cvtpd_ps(_mm256_mul_pd(
      _mm256_cvtepi32_pd(_mm_load_si128(reinterpret_cast<const __m128i*>(q + 4))), f));
  if (acc) {
    r0 = _mm_add_ps(_mm_loadu_ps(out), r0);
    r1 = _mm_add_ps(_mm_loadu_ps(out + 4), r1);
  }
  _mm_storeu_ps(out, r0);
  _mm_storeu_ps(out + 4, r1);
}
inline void dequant8(const int32_t* q, __m256d f, double* out, bool acc) {
  emit4(out, _mm_load_si128(reinterpret_cast<const __m128i*>(q)), f, acc);
  emit4(out + 4, _mm_load_si128(reinterpret_cast<const __m128i*>(q + 4)), f, acc);
}

// Blocks decoded per stage of decode_full_blocks.
constexpr uint32_t kStageBlocks = 8;

// The full blocks of a chunk; returns the position after their payloads. Two stages
// per kStageBlocks blocks: their codes to a buffer in L1, then the values. A block's
// steps form one long chain of dependent instructions (loads, transpose, prefix sum,
// int -> double, product, double -> float, store) of about as many cycles as the
// block's throughput, and the out-of-order window holds little more than one
// block: in one pass the core mostly waits on that chain. Apart, the conversions of
// the second stage are independent of one another, and the first stage unpacks two
// blocks of code length 1..11 (most blocks) before it sums either. Issue 34: 1.1-1.3x
// (median over data/, 1 thread) for 10 % more instructions; 0.9x where about half
// the blocks are constant. The second stage is compiled per value of acc (no test
// per store); a block whose largest read (4 x 32 bytes, W = 25..33) is in reach is
// decoded with no bounds check per load.
template <bool kAcc, bool kGfni, typename T>
inline size_t decode_full_blocks(const uint8_t* in, size_t bytes, size_t pos, uint32_t full,
                                 __m128i* carry, __m256d f, T* out) {
  const uint8_t* lens = in + kQuantChunkHeaderBytes;
  alignas(32) int32_t codes[kStageBlocks * kBlock];
  for (uint32_t b0 = 0; b0 < full; b0 += kStageBlocks) {
    const uint32_t nb = full - b0 < kStageBlocks ? full - b0 : kStageBlocks;
    for (uint32_t i = 0; i < nb; ++i) {
      const uint32_t L = lens[b0 + i];
      int32_t* q = codes + i * kBlock;
      if (i + 1 < nb && L - 1 < 11 && lens[b0 + i + 1] - 1u < 11 && bytes - pos >= 256) {
        // two blocks of code length 1..11 (each reads at most 64 bytes of the 256)
        const uint32_t L1 = lens[b0 + i + 1];
        __m256i a0, b0v, a1, b1v;
        unpack_planes16<kGfni>(in + pos, 128, L, &a0, &b0v);
        unpack_planes16<kGfni>(in + pos + block_payload_bytes(L), 128, L1, &a1, &b1v);
        codes16_emit(a0, b0v, carry, f, q, false);
        codes16_emit(a1, b1v, carry, f, q + kBlock, false);
        pos += block_payload_bytes(L) + block_payload_bytes(L1);
        ++i;
        continue;
      }
      if (L == 0)  // a constant block: its code once (the second stage converts it once)
        _mm_store_si128(reinterpret_cast<__m128i*>(q), *carry);
      else if (bytes - pos >= 128)
        decode_block_avx2<kGfni>(in + pos, 128, L, carry, f, q, false);
      else
        decode_block_avx2<kGfni>(in + pos, bytes - pos, L, carry, f, q, false);
      pos += block_payload_bytes(L);
    }
    for (uint32_t i = 0; i < nb; ++i) {
      const int32_t* q = codes + i * kBlock;
      T* o = out + size_t{b0 + i} * kBlock;
      if (lens[b0 + i] == 0) {
        emit_const(o, _mm_load_si128(reinterpret_cast<const __m128i*>(q)), f, kAcc);
        continue;
      }
      for (uint32_t k = 0; k < kBlock; k += 8) dequant8(q + k, f, o + k, kAcc);
    }
  }
  return pos;
}

// kGfni: the bit-matrix transposes by GFNI (planes_avx2.h), where the CPU has it.
template <bool kGfni, typename T>
zcoll_status decompress_chunk_avx2(const uint8_t* in, size_t bytes, uint32_t len, double factor,
                                   T* out, bool acc) {
  size_t pos;
  const zcoll_status st = open_chunk(in, bytes, len, out, acc, &pos);
  if (pos == 0) return st;
  const uint32_t full = len / kBlock, rest = len % kBlock;
  const uint8_t* lens = in + kQuantChunkHeaderBytes;
  const __m256d f = _mm256_set1_pd(factor);
  __m128i carry = _mm_set1_epi32(static_cast<int>(load_u32(in + 4)));
  if (acc)
    pos = decode_full_blocks<true, kGfni>(in, bytes, pos, full, &carry, f, out);
  else
    pos = decode_full_blocks<false, kGfni>(in, bytes, pos, full, &carry, f, out);
  if (rest) {  // the last block through a buffer: only `rest` values exist
    alignas(32) T tail[kBlock] = {};
    T* o = out + size_t{full} * kBlock;
    if (acc) std::memcpy(tail, o, rest * sizeof(T));
    decode_block_avx2<kGfni>(in + pos, bytes - pos, lens[full], &carry, f, tail, acc);
    std::memcpy(o, tail, rest * sizeof(T));
  }
  return ZCOLL_SUCCESS;
}

// ---- the 16-bit types ---------------------------------------------------------------
// Both compress through compress_chunk_avx2: bfloat16 with its vector quantizer,
// float16 with the reference routine (each value's reconstruction checked after its
// rounding to 16 bits), both above, and the vector prediction and packing. Both decode with the float32 block decoder ((float)(q * factor)) and narrow to 16
// bits (from_double's order), so bytes and values are the scalar kernels'.

template <typename T>
zcoll_status decompress_chunk16_avx2(const uint8_t* in, size_t bytes, uint32_t len, double factor,
                                     T* out, bool acc) {
  size_t pos;
  const zcoll_status st = open_chunk(in, bytes, len, out, acc, &pos);
  if (pos == 0) return st;
  const uint32_t nblocks = (len + kBlock - 1) / kBlock;
  const uint8_t* lens = in + kQuantChunkHeaderBytes;
  const __m256d f = _mm256_set1_pd(factor);
  __m128i carry = _mm_set1_epi32(static_cast<int>(load_u32(in + 4)));
  alignas(32) float wide[kBlock];
  for (uint32_t b = 0; b < nblocks; ++b) {
    decode_block_avx2(in + pos, bytes - pos, lens[b], &carry, f, wide, false);
    pos += block_payload_bytes(lens[b]);
    const uint32_t n_here = len - b * kBlock < kBlock ? len - b * kBlock : kBlock;
    T* o = out + size_t{b} * kBlock;
    for (uint32_t i = 0; i < n_here; ++i) emit(o + i, ValueTraits<T>::narrow(wide[i]), acc);
  }
  return ZCOLL_SUCCESS;
}

size_t avx2_compress_bf16(const Bf16* x, uint32_t len, const Quantizer<Bf16>& qz, uint8_t* out) {
  return compress_chunk_avx2(x, len, qz, out);  // the float32 path with the bf16 quantizer above
}
size_t avx2_compress_f16(const Fp16* x, uint32_t len, const Quantizer<Fp16>& qz, uint8_t* out) {
  return compress_chunk_avx2(x, len, qz, out);  // with the reference quantizer above
}
zcoll_status avx2_decompress_bf16(const uint8_t* in, size_t bytes, uint32_t len, double factor,
                                  Bf16* out, bool acc) {
  return decompress_chunk16_avx2(in, bytes, len, factor, out, acc);
}
zcoll_status avx2_decompress_f16(const uint8_t* in, size_t bytes, uint32_t len, double factor,
                                 Fp16* out, bool acc) {
  return decompress_chunk16_avx2(in, bytes, len, factor, out, acc);
}

const ChunkKernels kAvx2 = {"avx2",
                            compress_chunk_avx2<float>,
                            compress_chunk_avx2<double>,
                            decompress_chunk_avx2<false, float>,
                            decompress_chunk_avx2<false, double>,
                            avx2_compress_bf16,
                            avx2_compress_f16,
                            avx2_decompress_bf16,
                            avx2_decompress_f16,
                            range_avx2_f32,
                            range_avx2_f64,
                            combine_blocks_avx2,
                            quantize_avx2<float>,
                            quantize_avx2<double>,
                            dense_rans_encode_avx2,
                            dense_rans_decode_avx2,
                            dense_symbols_avx2,
                            dense_residuals_avx2,
                            dense_rans_residuals_avx2,
                            dense_lorenzo_f32_avx2,
                            dense_lorenzo_f64_avx2,
                            dense_lorenzo_pair_f32_avx2,
                            dense_lorenzo_pair_f64_avx2,
                            interp_encode_run_avx2,
                            interp_decode_run_avx2,
                            interp_evens_to_avx2,
                            interp_evens_from_avx2,
                            dense_sample_histograms_avx2,
                            dense_code_histogram_avx2,
                            dense_residual_histogram_avx2,
                            dense_lorenzo_residuals_avx2,
                            dense_unpredict_range_avx2,
                            interp_within_bound_f32_avx2,
                            interp_within_bound_f64_avx2,
                            dense_values_avx2_f32,
                            dense_values_avx2_f64};

// The AVX2 set with the float and double decoders that transpose bit matrices by
// GFNI (one instruction for 18: planes_avx2.h), for CPUs with GFNI.
ChunkKernels with_gfni_decoders(ChunkKernels k) {
  k.name = "avx2+gfni";
  k.decompress_f32 = decompress_chunk_avx2<true, float>;
  k.decompress_f64 = decompress_chunk_avx2<true, double>;
  return k;
}
const ChunkKernels kAvx2Gfni = with_gfni_decoders(kAvx2);

// A set with the homomorphic add's block loop of hom_avx512.cc, for CPUs with
// AVX-512 (F, VL, BW, DQ): the same bytes with fewer instructions.
ChunkKernels with_avx512_hom(ChunkKernels k, const char* name) {
  k.name = name;
  k.combine_blocks = combine_blocks_avx512;
  return k;
}
const ChunkKernels kAvx2Avx512 = with_avx512_hom(kAvx2, "avx2+avx512");
const ChunkKernels kAvx2GfniAvx512 = with_avx512_hom(kAvx2Gfni, "avx2+gfni+avx512");

}  // namespace

const ChunkKernels* avx2_kernels() { return &kAvx2; }
const ChunkKernels* avx2_gfni_kernels() { return &kAvx2Gfni; }
const ChunkKernels* avx2_avx512_kernels(bool gfni) {
  return gfni ? &kAvx2GfniAvx512 : &kAvx2Avx512;
}

}  // namespace zcoll

#if defined(__clang__)
#pragma clang attribute pop
#else
#pragma GCC pop_options
#endif

#else  // no AVX2 kernels in this build

namespace zcoll {
const ChunkKernels* avx2_kernels() { return nullptr; }
const ChunkKernels* avx2_gfni_kernels() { return nullptr; }
const ChunkKernels* avx2_avx512_kernels(bool) { return nullptr; }
}  // namespace zcoll

#endif
