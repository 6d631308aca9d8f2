// dense_avx2.cc — the rANS pass of the dense decoder (dense.cc) with the sixteen
// states in two AVX2 registers: per register one gather on the slot table for
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

}  // namespace

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
