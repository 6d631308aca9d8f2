// dense_avx2.cc — the rANS passes of the dense codec (dense.cc) with the sixteen
// states in two AVX2 registers.
//
// Encoder: per register and group of sixteen symbols, two gathers (the
// symbols' rcp and meta), the words of the lanes that renormalize packed in
// lane order at the top of a 16-byte store ending at the stream pointer (what
// the scalar pass writes one state at a time from state 15 down), the division
// by the reciprocal as two 32x32 -> 64 multiplies. The gathers depend on the
// symbols only, so they are off the states' dependency chains.
//
// Decoder: per register one gather on the slot table for
// eight symbols, and the words of the lanes that renormalize taken from the
// stream in lane order (a permutation by the prefix count of the mask). That is
// the scalar pass's order (states 0..15, each step then its renormalization),
// so both give the same symbols, states and stream position. Two registers: the
// second's step runs while the first waits on its gather and multiply.
#include "codec/dense.h"

#if defined(ZCOLL_HAVE_AVX2_KERNELS)

#include <immintrin.h>

#if defined(__clang__)
#pragma clang attribute push(__attribute__((target("avx2,bmi2,popcnt"))), apply_to = function)
#else
#pragma GCC push_options
#pragma GCC target("avx2,bmi2,popcnt")
#endif

namespace zcoll {
namespace {

static_assert(kDenseStates == 16, "two registers of eight states");

// For each mask of lanes that take a word: lane j's word is the word number
// popcount(mask & ((1 << j) - 1)) of the eight loaded.
struct WordPerm {
  uint8_t idx[256][8];
  constexpr WordPerm() : idx() {
    for (int m = 0; m < 256; ++m) {
      int c = 0;
      for (int j = 0; j < 8; ++j) {
        idx[m][j] = static_cast<uint8_t>(c);
        c += (m >> j) & 1;
      }
    }
  }
};
constexpr WordPerm kWordPerm;

struct Consts {
  __m256i slot_mask, one, low, pick;
};

// One step of eight states: their symbols to syms[0..7], the new states.
inline __m256i step(__m256i x, const uint32_t* tab, const Consts& c, uint8_t* syms) {
  const __m256i e = _mm256_i32gather_epi32(reinterpret_cast<const int*>(tab),
                                           _mm256_and_si256(x, c.slot_mask), 4);
  const __m256i f = _mm256_add_epi32(_mm256_and_si256(_mm256_srli_epi32(e, 8), c.slot_mask), c.one);
  const __m256i s = _mm256_shuffle_epi8(e, c.pick);  // the symbol bytes, four per half
  _mm_storel_epi64(reinterpret_cast<__m128i*>(syms),
                   _mm_unpacklo_epi32(_mm256_castsi256_si128(s), _mm256_extracti128_si256(s, 1)));
  return _mm256_add_epi32(_mm256_mullo_epi32(f, _mm256_srli_epi32(x, kDenseScaleBits)),
                          _mm256_srli_epi32(e, 20));
}

// The renormalization of eight states (p has 16 readable bytes).
inline __m256i renorm(__m256i x, const uint8_t*& p, const Consts& c) {
  const __m256i need = _mm256_cmpgt_epi32(c.low, x);  // x < 2^15 (x < 2^31: signed compare)
  const int m = _mm256_movemask_ps(_mm256_castsi256_ps(need));
  const __m256i words = _mm256_cvtepu16_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p)));
  const __m128i idx = _mm_loadl_epi64(reinterpret_cast<const __m128i*>(kWordPerm.idx[m]));
  const __m256i w = _mm256_permutevar8x32_epi32(words, _mm256_cvtepu8_epi32(idx));
  p += 2 * _mm_popcnt_u32(static_cast<uint32_t>(m));
  return _mm256_blendv_epi8(x, _mm256_or_si256(_mm256_slli_epi32(x, 16), w), need);
}

// For each mask of lanes that emit a word: the lanes in ascending order at the
// top positions 8 - popcount(mask) .. 7 (the lower positions: lane 0, unused).
struct WordPack {
  uint8_t idx[256][8];
  constexpr WordPack() : idx() {
    for (int m = 0; m < 256; ++m) {
      int c = 0;
      for (int j = 0; j < 8; ++j) c += (m >> j) & 1;
      int at = 8 - c;
      for (int j = 0; j < 8; ++j)
        if ((m >> j) & 1) idx[m][at++] = static_cast<uint8_t>(j);
    }
  }
};
constexpr WordPack kWordPack;

// One encoder step of eight states with the symbols at s (scalar order: lane 7
// first, its word at the highest address).
inline __m256i enc_step(__m256i x, const uint8_t* s, const DenseEncSymbols& es, uint8_t*& p) {
  const __m256i idx = _mm256_cvtepu8_epi32(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(s)));
  const __m256i meta = _mm256_i32gather_epi32(reinterpret_cast<const int*>(es.meta), idx, 4);
  const __m256i rcp = _mm256_i32gather_epi32(reinterpret_cast<const int*>(es.rcp), idx, 4);
  const __m256i freq = _mm256_and_si256(meta, _mm256_set1_epi32(0x1FFF));
  // out: x >> 19 >= freq (both below 2^31: signed compares)
  const __m256i keep =
      _mm256_cmpgt_epi32(freq, _mm256_srli_epi32(x, 31 - static_cast<int>(kDenseScaleBits)));
  const int m = ~_mm256_movemask_ps(_mm256_castsi256_ps(keep)) & 0xFF;
  const __m128i pk = _mm_loadl_epi64(reinterpret_cast<const __m128i*>(kWordPack.idx[m]));
  const __m256i w = _mm256_and_si256(_mm256_permutevar8x32_epi32(x, _mm256_cvtepu8_epi32(pk)),
                                     _mm256_set1_epi32(0xFFFF));
  _mm_storeu_si128(reinterpret_cast<__m128i*>(p - 16),
                   _mm_packus_epi32(_mm256_castsi256_si128(w), _mm256_extracti128_si256(w, 1)));
  p -= 2 * _mm_popcnt_u32(static_cast<uint32_t>(m));
  x = _mm256_blendv_epi8(_mm256_srli_epi32(x, 16), x, keep);
  // q = (x * rcp) >> 32 >> shift, per lane
  const __m256i even = _mm256_srli_epi64(_mm256_mul_epu32(x, rcp), 32);
  const __m256i odd = _mm256_mul_epu32(_mm256_srli_epi64(x, 32), _mm256_srli_epi64(rcp, 32));
  __m256i q = _mm256_blend_epi32(even, odd, 0xAA);
  q = _mm256_srlv_epi32(q, _mm256_and_si256(_mm256_srli_epi32(meta, 13), _mm256_set1_epi32(15)));
  const __m256i cmpl = _mm256_sub_epi32(_mm256_set1_epi32(1 << kDenseScaleBits), freq);
  return _mm256_add_epi32(_mm256_add_epi32(x, _mm256_srli_epi32(meta, 17)),
                          _mm256_mullo_epi32(q, cmpl));
}

}  // namespace

uint8_t* dense_rans_encode_avx2(const uint8_t* syms, uint32_t len, const DenseEncSymbols& es,
                                uint8_t* end) {
  alignas(32) uint32_t xs[kDenseStates];
  for (uint32_t& v : xs) v = kDenseRansLow;
  uint8_t* p = end;
  uint32_t i = len;
  for (; i % kDenseStates; --i) dense_enc_put(xs[(i - 1) % kDenseStates], p, es, syms[i - 1]);
  __m256i a = _mm256_load_si256(reinterpret_cast<const __m256i*>(xs));
  __m256i b = _mm256_load_si256(reinterpret_cast<const __m256i*>(xs + 8));
  for (; i; i -= kDenseStates) {  // states 15..8, then 7..0
    b = enc_step(b, syms + i - 8, es, p);
    a = enc_step(a, syms + i - 16, es, p);
  }
  p -= kDenseStateBytes;
  _mm256_storeu_si256(reinterpret_cast<__m256i*>(p), a);  // little-endian: the u32 states
  _mm256_storeu_si256(reinterpret_cast<__m256i*>(p + 32), b);
  return p;
}

void dense_rans_decode_avx2(uint32_t* xs, const uint8_t** pos, const uint8_t* end,
                            const uint32_t* tab, uint8_t* syms, uint32_t n) {
  const uint8_t* p = *pos;
  __m256i a = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(xs));
  __m256i b = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(xs + 8));
  Consts c;
  c.slot_mask = _mm256_set1_epi32((1 << kDenseScaleBits) - 1);
  c.one = _mm256_set1_epi32(1);
  c.low = _mm256_set1_epi32(static_cast<int>(kDenseRansLow));
  c.pick = _mm256_setr_epi8(0, 4, 8, 12, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, 0, 4, 8,
                            12, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1);
  uint32_t i = 0;
  // the second register's step does not wait on the first's renormalization
  // (only on its stream position): two chains in flight
  for (; i + 16 <= n && end - p >= 32; i += 16) {
    a = step(a, tab, c, syms + i);
    b = step(b, tab, c, syms + i + 8);
    a = renorm(a, p, c);
    b = renorm(b, p, c);
  }
  _mm256_storeu_si256(reinterpret_cast<__m256i*>(xs), a);
  _mm256_storeu_si256(reinterpret_cast<__m256i*>(xs + 8), b);
  *pos = p;
  dense_rans_decode_scalar(xs, pos, end, tab, syms + i, n - i);  // the rest (i: a multiple of 16)
}

}  // namespace zcoll

#if defined(__clang__)
#pragma clang attribute pop
#else
#pragma GCC pop_options
#endif

#endif
