// chunk_avx2.cc — AVX2 chunk kernels. They produce the same bytes and values as
// the scalar kernels in chunk_scalar.h: the same double-precision quantization
// (x * inv, round to nearest even), the same exact reconstruction check, and the
// scalar routine itself for any block that needs the neighbouring-bin fix-up.
//
// Encoding a block: 4 groups of 8 codes -> deltas (q[i] - q[i-1]) -> packed into
// byte planes, one movemask per bit plane.
// Decoding: each bit plane word is expanded to 32 bytes with a shuffle and a
// compare, OR-ed into byte planes, widened, sign-extended, prefix-summed in 8-lane
// steps and dequantized in double.
#include "codec/chunk_codec.h"

#if defined(ZCOLL_HAVE_AVX2_KERNELS)

#include <immintrin.h>

#include "codec/chunk_scalar.h"

// Only the functions below are compiled for AVX2 (the headers above are not), so no
// AVX2 copy of a shared inline function can be picked by the linker for scalar code.
#if defined(__clang__)
#pragma clang attribute push(__attribute__((target("avx2,bmi2"))), apply_to = function)
#else
#pragma GCC push_options
#pragma GCC target("avx2,bmi2")
#endif

namespace zcoll {
namespace {

// ---- quantization of 8 values, all-or-nothing ----------------------------------
struct QuantVec {
  __m256d inv, quantum, lim, absmask;
};

inline QuantVec make_qv(double inv, double quantum) {
  return {_mm256_set1_pd(inv), _mm256_set1_pd(quantum),
          _mm256_set1_pd(static_cast<double>(kQMaxCompress)),
          _mm256_castsi256_pd(_mm256_set1_epi64x(0x7FFFFFFFFFFFFFFFLL))};
}

// q = round(x * inv) for 8 values; false if any value is out of range or fails
// the reconstruction check (the caller then redoes the block in scalar code).
inline bool quant8(const float* x, const QuantVec& v, __m256 ebc, __m256i* q) {
  __m256 xv = _mm256_loadu_ps(x);
  __m256d tl = _mm256_mul_pd(_mm256_cvtps_pd(_mm256_castps256_ps128(xv)), v.inv);
  __m256d th = _mm256_mul_pd(_mm256_cvtps_pd(_mm256_extractf128_ps(xv, 1)), v.inv);
  __m256d ok = _mm256_and_pd(_mm256_cmp_pd(_mm256_and_pd(tl, v.absmask), v.lim, _CMP_LE_OQ),
                             _mm256_cmp_pd(_mm256_and_pd(th, v.absmask), v.lim, _CMP_LE_OQ));
  if (_mm256_movemask_pd(ok) != 0xF) return false;
  __m128i ql = _mm256_cvtpd_epi32(tl), qh = _mm256_cvtpd_epi32(th);
  __m128 rl = _mm256_cvtpd_ps(_mm256_mul_pd(_mm256_cvtepi32_pd(ql), v.quantum));
  __m128 rh = _mm256_cvtpd_ps(_mm256_mul_pd(_mm256_cvtepi32_pd(qh), v.quantum));
  __m256 err = _mm256_sub_ps(xv, _mm256_set_m128(rh, rl));
  __m256 aerr = _mm256_andnot_ps(_mm256_set1_ps(-0.0f), err);
  if (_mm256_movemask_ps(_mm256_cmp_ps(aerr, ebc, _CMP_LT_OQ)) != 0xFF) return false;
  *q = _mm256_set_m128i(qh, ql);
  return true;
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

// Byte k (0..3) of 32 magnitudes in value order.
inline __m256i byte_plane(const __m256i m[4], int k) {
  const __m256i sh = _mm256_set1_epi32(8 * k), ff = _mm256_set1_epi32(0xFF);
  __m256i a = _mm256_and_si256(_mm256_srlv_epi32(m[0], sh), ff);
  __m256i b = _mm256_and_si256(_mm256_srlv_epi32(m[1], sh), ff);
  __m256i c = _mm256_and_si256(_mm256_srlv_epi32(m[2], sh), ff);
  __m256i d = _mm256_and_si256(_mm256_srlv_epi32(m[3], sh), ff);
  __m256i bytes = _mm256_packus_epi16(_mm256_packus_epi32(a, b), _mm256_packus_epi32(c, d));
  return _mm256_permutevar8x32_epi32(bytes, _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7));
}

// Write W bit planes of 32 deltas (two's complement, W <= 32).
inline void write_planes(const __m256i m[4], uint32_t L, uint8_t* out) {
  for (uint32_t k = 0; 8 * k < L; ++k) {
    __m256i cur = byte_plane(m, static_cast<int>(k));
    uint32_t planes[8];
    // doubling each byte moves bit b to the byte's top bit, which movemask reads
    for (int s = 0; s < 8; ++s) {
      planes[7 - s] = static_cast<uint32_t>(_mm256_movemask_epi8(cur));
      cur = _mm256_add_epi8(cur, cur);
    }
    uint32_t r = L - 8 * k < 8 ? L - 8 * k : 8;
    std::memcpy(out + 4 * 8 * k, planes, 4 * r);
  }
}

inline uint32_t hor_or(__m256i v);

// Quantize one full block of 32 values and compute its deltas. false = the block
// needs the scalar routine (out-of-range value or reconstruction fix-up).
template <typename T, typename EbVec>
inline bool block_deltas_avx2(const T* x, const QuantVec& v, EbVec ebc, __m256i* carry,
                              __m256i* qmaxv, __m256i m[4], uint32_t* any, uint32_t* folded) {
  const __m256i rot = _mm256_setr_epi32(7, 0, 1, 2, 3, 4, 5, 6);
  const __m256i last = _mm256_set1_epi32(7);
  __m256i q[4];
  for (int g = 0; g < 4; ++g)
    if (!quant8(x + 8 * g, v, ebc, &q[g])) return false;
  __m256i prev = *carry, orv = _mm256_setzero_si256(), fold = _mm256_setzero_si256();
  __m256i mx = *qmaxv;
  for (int g = 0; g < 4; ++g) {
    __m256i shifted = _mm256_blend_epi32(_mm256_permutevar8x32_epi32(q[g], rot), prev, 0x01);
    __m256i d = _mm256_sub_epi32(q[g], shifted);
    prev = _mm256_permutevar8x32_epi32(q[g], last);
    m[g] = d;
    orv = _mm256_or_si256(orv, d);
    fold = _mm256_or_si256(fold, _mm256_xor_si256(d, _mm256_srai_epi32(d, 31)));
    mx = _mm256_max_epu32(mx, _mm256_abs_epi32(q[g]));
  }
  *any = hor_or(orv);
  *folded = hor_or(fold);
  *carry = prev;
  *qmaxv = mx;
  return true;
}

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

template <typename T>
size_t compress_chunk_avx2(const T* x, uint32_t len, const Quantizer<T>& qz, uint8_t* out) {
  const size_t raw = raw_chunk_bytes(len, sizeof(T));
  const uint32_t nblocks = (len + kBlock - 1) / kBlock;
  int32_t anchor;
  size_t pos = begin_quant_chunk(x, len, qz, out, &anchor);
  if (pos == 0) return write_raw_chunk(x, len, out);
  uint8_t* lens = out + kQuantChunkHeaderBytes;
  const QuantVec v = make_qv(qz.inv, qz.quantum);
  const auto ebc = eb_vec(qz);
  __m256i carry = _mm256_set1_epi32(anchor), qmaxv = _mm256_setzero_si256();
  uint32_t qmax_scalar = 0;
  uint8_t payload[4 * (kMaxCodeLength + 1)];
  for (uint32_t b = 0; b < nblocks; ++b) {
    const T* xb = x + size_t{b} * kBlock;
    const uint32_t n_here = len - b * kBlock < kBlock ? len - b * kBlock : kBlock;
    __m256i m[4];
    uint32_t any, folded;
    if (n_here == kBlock && block_deltas_avx2(xb, v, ebc, &carry, &qmaxv, m, &any, &folded)) {
      const uint32_t L = code_length(any, folded);
      const uint32_t pb = block_payload_bytes(L);
      if (pos + pb >= raw) return write_raw_chunk(x, len, out);
      lens[b] = static_cast<uint8_t>(L);
      if (L) write_planes(m, L, out + pos);
      pos += pb;
    } else {  // tail block or fix-up needed: the reference routine
      int32_t prev = _mm256_cvtsi256_si32(carry);
      int32_t d[32];
      if (!block_deltas_scalar(xb, n_here, qz, &prev, &qmax_scalar, d))
        return write_raw_chunk(x, len, out);
      carry = _mm256_set1_epi32(prev);
      const uint32_t L = encode_block(d, payload);
      const uint32_t pb = block_payload_bytes(L);
      if (pos + pb >= raw) return write_raw_chunk(x, len, out);
      lens[b] = static_cast<uint8_t>(L);
      std::memcpy(out + pos, payload, pb);
      pos += pb;
    }
  }
  uint32_t qmax = hmax_epu32(qmaxv);
  qmax = qmax > qmax_scalar ? qmax : qmax_scalar;
  return finish_quant_chunk(x, len, out, pos, anchor, qmax);
}

// ---- decoding -------------------------------------------------------------------

// Deltas of a block with code length L (1..33) into m[0..3] (values 0-7, ...),
// modulo 2^32 and sign-extended from plane L-1.
inline void read_planes(const uint8_t* in, uint32_t W, __m256i m[4]) {
  const uint32_t L = W < 32 ? W : 32;
  const __m256i shuf = _mm256_setr_epi8(0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1,  //
                                        2, 2, 2, 2, 2, 2, 2, 2, 3, 3, 3, 3, 3, 3, 3, 3);
  const __m256i bits = _mm256_set1_epi64x(static_cast<long long>(0x8040201008040201ULL));
  for (int g = 0; g < 4; ++g) m[g] = _mm256_setzero_si256();
  for (uint32_t k = 0; 8 * k < L; ++k) {
    __m256i acc = _mm256_setzero_si256();
    const uint32_t r = L - 8 * k < 8 ? L - 8 * k : 8;
    for (uint32_t j = 0; j < r; ++j) {
      int w = static_cast<int>(load_u32(in + 4 * (8 * k + j)));
      __m256i e = _mm256_shuffle_epi8(_mm256_set1_epi32(w), shuf);
      e = _mm256_cmpeq_epi8(_mm256_and_si256(e, bits), bits);  // 0xFF where bit set
      acc = _mm256_or_si256(acc, _mm256_and_si256(e, _mm256_set1_epi8(static_cast<char>(1 << j))));
    }
    __m128i lo = _mm256_castsi256_si128(acc), hi = _mm256_extracti128_si256(acc, 1);
    const __m128i sh = _mm_cvtsi32_si128(static_cast<int>(8 * k));
    m[0] = _mm256_or_si256(m[0], _mm256_sll_epi32(_mm256_cvtepu8_epi32(lo), sh));
    m[1] = _mm256_or_si256(m[1], _mm256_sll_epi32(_mm256_cvtepu8_epi32(_mm_srli_si128(lo, 8)), sh));
    m[2] = _mm256_or_si256(m[2], _mm256_sll_epi32(_mm256_cvtepu8_epi32(hi), sh));
    m[3] = _mm256_or_si256(m[3], _mm256_sll_epi32(_mm256_cvtepu8_epi32(_mm_srli_si128(hi, 8)), sh));
  }
  if (W < 32) {  // sign-extend: shift the sign plane to bit 31 and back
    const __m128i s = _mm_cvtsi32_si128(static_cast<int>(32 - W));
    for (int g = 0; g < 4; ++g) m[g] = _mm256_sra_epi32(_mm256_sll_epi32(m[g], s), s);
  }
}

// Inclusive prefix sum of 8 int32 lanes.
inline __m256i prefix8(__m256i x) {
  x = _mm256_add_epi32(x, _mm256_slli_si256(x, 4));
  x = _mm256_add_epi32(x, _mm256_slli_si256(x, 8));
  __m256i t = _mm256_shuffle_epi32(x, 0xFF);  // lane total, per 128-bit half
  return _mm256_add_epi32(x, _mm256_permute2x128_si256(t, t, 0x08));
}

inline void emit8(float* out, __m256i q, __m256d f, bool acc) {
  __m128 lo = _mm256_cvtpd_ps(_mm256_mul_pd(_mm256_cvtepi32_pd(_mm256_castsi256_si128(q)), f));
  __m128 hi = _mm256_cvtpd_ps(_mm256_mul_pd(_mm256_cvtepi32_pd(_mm256_extracti128_si256(q, 1)), f));
  __m256 r = _mm256_set_m128(hi, lo);
  if (acc) r = _mm256_add_ps(_mm256_loadu_ps(out), r);
  _mm256_storeu_ps(out, r);
}
inline void emit8(double* out, __m256i q, __m256d f, bool acc) {
  __m256d lo = _mm256_mul_pd(_mm256_cvtepi32_pd(_mm256_castsi256_si128(q)), f);
  __m256d hi = _mm256_mul_pd(_mm256_cvtepi32_pd(_mm256_extracti128_si256(q, 1)), f);
  if (acc) {
    lo = _mm256_add_pd(_mm256_loadu_pd(out), lo);
    hi = _mm256_add_pd(_mm256_loadu_pd(out + 4), hi);
  }
  _mm256_storeu_pd(out, lo);
  _mm256_storeu_pd(out + 4, hi);
}

template <typename T>
zcoll_status decompress_chunk_avx2(const uint8_t* in, size_t bytes, uint32_t len, double factor,
                                   T* out, bool acc) {
  if (bytes < kRawChunkHeaderBytes) return fail(ZCOLL_ERR_CORRUPT, "chunk too short");
  if (in[0] == kChunkRaw) return decompress_raw_chunk(in, bytes, len, out, acc);
  if (in[0] != kChunkQuantized) return fail(ZCOLL_ERR_CORRUPT, "unknown chunk kind %u", in[0]);
  size_t pos = validate_quantized_chunk(in, bytes, len);
  if (pos == 0) return fail(ZCOLL_ERR_CORRUPT, "malformed quantized chunk");
  const uint32_t nblocks = (len + kBlock - 1) / kBlock;
  const uint8_t* lens = in + kQuantChunkHeaderBytes;
  const __m256d f = _mm256_set1_pd(factor);
  const __m256i last = _mm256_set1_epi32(7);
  __m256i carry = _mm256_set1_epi32(static_cast<int>(load_u32(in + 4)));
  alignas(32) T tail[32];
  for (uint32_t b = 0; b < nblocks; ++b) {
    const uint32_t L = lens[b];
    const uint32_t n_here = len - b * kBlock < kBlock ? len - b * kBlock : kBlock;
    T* o = out + size_t{b} * kBlock;
    T* dst = n_here == kBlock ? o : tail;
    if (n_here != kBlock && acc)
      for (uint32_t i = 0; i < 32; ++i) tail[i] = i < n_here ? o[i] : T(0);
    if (L == 0) {  // constant block: every code equals the carry
      for (int g = 0; g < 4; ++g) emit8(dst + 8 * g, carry, f, acc);
    } else {
      __m256i m[4];
      read_planes(in + pos, L, m);
      pos += block_payload_bytes(L);
      for (int g = 0; g < 4; ++g) {
        __m256i q = _mm256_add_epi32(prefix8(m[g]), carry);
        carry = _mm256_permutevar8x32_epi32(q, last);
        emit8(dst + 8 * g, q, f, acc);
      }
    }
    if (n_here != kBlock) std::memcpy(o, tail, n_here * sizeof(T));
  }
  return ZCOLL_SUCCESS;
}

size_t avx2_compress_f32(const float* x, uint32_t len, const Quantizer<float>& qz, uint8_t* out) {
  return compress_chunk_avx2(x, len, qz, out);
}
size_t avx2_compress_f64(const double* x, uint32_t len, const Quantizer<double>& qz, uint8_t* out) {
  return compress_chunk_avx2(x, len, qz, out);
}
zcoll_status avx2_decompress_f32(const uint8_t* in, size_t bytes, uint32_t len, double factor,
                                 float* out, bool acc) {
  return decompress_chunk_avx2(in, bytes, len, factor, out, acc);
}
zcoll_status avx2_decompress_f64(const uint8_t* in, size_t bytes, uint32_t len, double factor,
                                 double* out, bool acc) {
  return decompress_chunk_avx2(in, bytes, len, factor, out, acc);
}

const ChunkKernels kAvx2 = {"avx2", avx2_compress_f32, avx2_compress_f64, avx2_decompress_f32,
                            avx2_decompress_f64};

}  // namespace

const ChunkKernels* avx2_kernels() { return &kAvx2; }

}  // namespace zcoll

#if defined(__clang__)
#pragma clang attribute pop
#else
#pragma GCC pop_options
#endif

#else  // no AVX2 kernels in this build

namespace zcoll {
const ChunkKernels* avx2_kernels() { return nullptr; }
}  // namespace zcoll

#endif
