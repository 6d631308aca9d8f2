// dense_bits.h — the dense codec's symbols and extra bits (docs/format.md §5.3),
// shared by the scalar passes (dense.cc) and the AVX2 ones (dense_avx2.cc): the
// symbol of a residual, the extra-bit writer and reader, and the per-group
// steps both versions use for the groups they do not vectorize.
#pragma once

#include <cstdint>
#include <cstring>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "codec/dense.h"
#include "codec/format.h"

namespace zcoll {
namespace dense_bits {

inline uint32_t unzigzag(uint32_t u) { return (u >> 1) ^ (0u - (u & 1u)); }

// floor(log2(v)) for v >= 1: the exponent of (double)v (exact), not bsr, which
// is slow on AMD (and lzcnt is not in the x86-64 baseline).
inline uint32_t floor_log2(uint32_t v) {
  const double d = static_cast<double>(v);
  uint64_t b;
  std::memcpy(&b, &d, 8);
  return static_cast<uint32_t>(b >> 52) - 1023u;
}

// Symbol of a zigzagged residual u: u itself below 64; otherwise 64 + 4*(e - 6)
// + m, with e the position of u's top bit and m the two bits below it; the e - 2
// bits under those are the extra bits (*nextra of them). No branch: which case
// applies is random on rough data.
inline uint32_t symbol_of(uint32_t u, uint32_t* nextra) {
  // masks, not conditionals: compilers turn the latter into a branch
  const uint32_t e = floor_log2(u | 1u), big = 0u - static_cast<uint32_t>(u >= kDenseDirect);
  const uint32_t k = (e - 2) & big;
  *nextra = k;
  return ((kDenseDirect + 4 * (e - 6) + ((u >> k) & 3u)) & big) | (u & ~big);
}

// Per symbol: its extra-bit count and the zigzag value without them (§5.3).
struct SymbolCodes {
  uint8_t bits[256];
  uint32_t base[256];
  constexpr SymbolCodes() : bits(), base() {
    for (uint32_t s = 0; s < kDenseMaxSymbols; ++s) {
      const uint32_t e = s < kDenseDirect ? 0 : (s - kDenseDirect) / 4 + 6;
      bits[s] = static_cast<uint8_t>(s < kDenseDirect ? 0 : e - 2);
      base[s] = s < kDenseDirect ? s : (4u | ((s - kDenseDirect) & 3u)) << (e - 2);
    }
  }
};
inline constexpr SymbolCodes kCodes{};

// ---- extra bits: LSB first, bytes in order -----------------------------------------

// Without a branch per value: 8 bytes stored at every put (the buffer has 8
// bytes of room past the stream), the pointer moved by the whole bytes done.
struct BitWriter {
  uint8_t* p;
  uint64_t buf = 0;
  uint32_t n = 0;                     // bits in buf, < 8 between puts
  void put(uint64_t v, uint32_t k) {  // k <= 56, v < 2^k
    buf |= v << n;
    n += k;
    store_u64(p, buf);
    p += n >> 3;
    buf >>= n & ~7u;
    n &= 7u;
  }
  void flush() {
    if (n) *p++ = static_cast<uint8_t>(buf);
  }
};

// The residual of value i: src[i] itself (order 0), or of Lorenzo of order 1
// or 2 of the codes src (p = 0, q[0], then q[i-1] or 2 q[i-1] - q[i-2]).
inline uint32_t residual_at(const uint32_t* src, uint32_t i, int order) {
  if (order == 0 || i == 0) return src[i];
  if (order == 1 || i == 1) return src[i] - src[i - 1];
  return src[i] - 2 * src[i - 1] + src[i - 2];
}

inline void put_symbol(uint32_t u, uint8_t* sym, BitWriter& bw) {
  uint32_t k;
  *sym = static_cast<uint8_t>(symbol_of(u, &k));
  bw.put(u & ((1u << k) - 1), k);
}

// 16 residuals: if all are direct symbols (zigzag < 64), the symbols to s and true.
inline bool direct16_symbols(const uint32_t* r, uint8_t* s) {
#if defined(__SSE2__)
  // explicit SSE2 (the x86-64 baseline), as direct16 in the decoder
  __m128i u[4], any = _mm_setzero_si128();
  for (int k = 0; k < 4; ++k) {
    const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(r + 4 * k));
    u[k] = _mm_xor_si128(_mm_slli_epi32(v, 1), _mm_srai_epi32(v, 31));
    any = _mm_or_si128(any, u[k]);
  }
  const __m128i big = _mm_and_si128(any, _mm_set1_epi32(~static_cast<int>(kDenseDirect - 1)));
  if (_mm_movemask_epi8(_mm_cmpeq_epi32(big, _mm_setzero_si128())) != 0xFFFF) return false;
  const __m128i w = _mm_packus_epi16(_mm_packs_epi32(u[0], u[1]), _mm_packs_epi32(u[2], u[3]));
  _mm_storeu_si128(reinterpret_cast<__m128i*>(s), w);
  return true;
#else
  uint32_t any = 0;
  for (int k = 0; k < 16; ++k) any |= zigzag(r[k]);
  if (any >= kDenseDirect) return false;
  for (int k = 0; k < 16; ++k) s[k] = static_cast<uint8_t>(zigzag(r[k]));
  return true;
#endif
}

// k (<= 29) bits at bit position pos of a stream of `bytes` bytes, 0 past its end.
inline uint32_t bits_at_safe(const uint8_t* s, uint64_t bytes, uint64_t pos, uint32_t k) {
  uint64_t w = 0;
  for (uint64_t t = 0; t < 5; ++t) {
    const uint64_t at = (pos >> 3) + t;
    w |= uint64_t{at < bytes ? s[at] : 0u} << (8 * t);
  }
  return static_cast<uint32_t>((w >> (pos & 7)) & ((uint64_t{1} << k) - 1));
}

// 16 symbols: if all are direct (< 64), their residuals to r and true.
inline bool direct16(const uint8_t* s, uint32_t* r) {
#if defined(__SSE2__)
  // explicit SSE2 (the x86-64 baseline): compilers assemble the check's bytes in
  // general registers and reload them, a store-forwarding stall
  const __m128i b = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s));
  const __m128i z = _mm_setzero_si128(), one = _mm_set1_epi32(1);
  if (_mm_movemask_epi8(_mm_cmpeq_epi8(_mm_and_si128(b, _mm_set1_epi8(-64)), z)) != 0xFFFF)
    return false;
  const __m128i lo = _mm_unpacklo_epi8(b, z), hi = _mm_unpackhi_epi8(b, z);
  const __m128i u[4] = {_mm_unpacklo_epi16(lo, z), _mm_unpackhi_epi16(lo, z),
                        _mm_unpacklo_epi16(hi, z), _mm_unpackhi_epi16(hi, z)};
  for (int k = 0; k < 4; ++k) {
    const __m128i v =
        _mm_xor_si128(_mm_srli_epi32(u[k], 1), _mm_sub_epi32(z, _mm_and_si128(u[k], one)));
    _mm_storeu_si128(reinterpret_cast<__m128i*>(r + 4 * k), v);
  }
  return true;
#else
  uint32_t any = 0;
  for (int k = 0; k < 16; ++k) any |= s[k];
  if (any >= kDenseDirect) return false;
  for (int k = 0; k < 16; ++k) r[k] = unzigzag(s[k]);
  return true;
#endif
}

// The residuals of n symbols whose extra bits start at bit `at` of the stream
// (extra, extra_bytes); returns the bit position after them. fast: 8-byte loads
// at the bit position (no branch), for a caller that checked every bit it may
// need lies in the stream; otherwise bytewise, zeros past the end.
template <bool kFast>
inline uint64_t residuals_scalar(const uint8_t* syms, uint32_t n, const uint8_t* extra,
                                 uint64_t extra_bytes, uint64_t at, uint32_t* r) {
  for (uint32_t k = 0; k < n; ++k) {
    const uint32_t s = syms[k], nb = kCodes.bits[s];
    uint32_t bits;
    if (kFast)
      bits = static_cast<uint32_t>(load_u64(extra + (at >> 3)) >> (at & 7)) & ((1u << nb) - 1);
    else
      bits = bits_at_safe(extra, extra_bytes, at, nb);
    r[k] = unzigzag(kCodes.base[s] | bits);
    at += nb;
  }
  return at;
}

// ---- predictors 1 and 2: residuals to codes --------------------------------------

#if defined(__SSE2__)
// Inclusive prefix sum of four lanes plus the carry (broadcast); the new carry
// is the last lane, broadcast.
inline __m128i prefix4(__m128i v, __m128i& carry) {
  v = _mm_add_epi32(v, _mm_slli_si128(v, 4));
  v = _mm_add_epi32(v, _mm_slli_si128(v, 8));
  v = _mm_add_epi32(v, carry);
  carry = _mm_shuffle_epi32(v, 0xFF);
  return v;
}
#endif

// The codes of n residuals r (in place) of a tile of a chunk, with the carry of
// the tiles before it (DenseCarry): order 1 is one prefix sum, order 2 two (of
// the differences, then of the codes), mod 2^32.
template <bool kOrder2>
void codes_from_residuals(uint32_t* r, uint32_t n, DenseCarry& carry) {
  if (carry.first && n) {
    if (kOrder2) carry.q = r[0], carry.d = 0u - r[0];
    carry.first = false;
  }
  uint32_t i = 0, q = carry.q, d = carry.d;
#if defined(__SSE2__)
  // four lanes at a time (SSE2 is in the x86-64 baseline): the same sums
  __m128i cq = _mm_set1_epi32(static_cast<int>(q)), cd = _mm_set1_epi32(static_cast<int>(d));
  for (; i + 4 <= n; i += 4) {
    __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(r + i));
    if (kOrder2) v = prefix4(v, cd);
    _mm_storeu_si128(reinterpret_cast<__m128i*>(r + i), prefix4(v, cq));
  }
  q = static_cast<uint32_t>(_mm_cvtsi128_si32(cq)),
  d = static_cast<uint32_t>(_mm_cvtsi128_si32(cd));
#endif
  for (; i < n; ++i) {
    if (kOrder2) {
      d += r[i];
      q += d;
    } else {
      q += r[i];
    }
    r[i] = q;
  }
  carry.q = q, carry.d = d;
}

}  // namespace dense_bits
}  // namespace zcoll
