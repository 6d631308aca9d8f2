// dense_avx2.cc — the passes of the dense codec (dense.cc) in AVX2: rANS with the
// sixteen states in two AVX2 registers, symbols and residuals eight at a time.
//
// Encoder: per register and group of sixteen symbols, eight 64-bit loads (the
// symbols' rcp and meta side by side) into two vectors, the words of the lanes
// that renormalize packed in lane order at the top of a 16-byte store ending at
// the stream pointer (what the scalar pass writes one state at a time from
// state 15 down), the division by the reciprocal as two 32x32 -> 64
// multiplies. The loads depend on the symbols only, so they are off the
// states' dependency chains (and issued a group ahead).
//
// Table lookups are plain loads, not gathers: on Zen 3 a gather of eight takes
// longer than eight loads and the inserts that make a vector of them.
//
// Decoder: per register eight loads from the slot table (eight symbols), and
// the words of the lanes that renormalize taken from the stream in lane order
// (a permutation by the prefix count of the mask). That is the scalar pass's
// order (states 0..15, each step then its renormalization), so both give the
// same symbols, states and stream position. Two registers: the second's step
// runs while the first waits on its loads and multiply.
//
// Symbol pass (encoder): per group of sixteen residuals that are not all
// direct, the symbols and extra bits of eight lanes at a time (the top bit from
// a float conversion), then the extra bits of two values joined into one field
// of at most 54 bits (of four values where all are below 2^17: at most 56; of
// eight below 2^10), so that the serial bit writer takes eight puts (four,
// two), not sixteen. Residual pass (decoder): the bit offsets of sixteen values as a
// prefix sum of their counts; their bits all lie in the 64 bytes from the
// dword of the first, two loads, and each value is cut from two of those
// dwords by permutes and shifts.
//
// The decoder runs the two as one pass (dense_rans_residuals_avx2): the rANS
// steps are bound by the latency of their two chains (a table load, a
// multiply, a renormalization) and leave most of the core idle; a group's
// residuals, which depend on its symbols only, fill those slots.
#include "codec/dense.h"
#include "codec/dense_bits.h"

#if defined(ZCOLL_HAVE_AVX2_KERNELS)

#include <immintrin.h>

#include <cstring>
#include <type_traits>

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
  __m256i slot_mask, low, pick;
};

// The slot table's entries of eight states: eight loads, not a gather (which
// takes about a fifth longer on the decoder's chain, on Zen 3).
inline __m256i table_entries(__m256i x, const uint32_t* tab, const Consts& c) {
  const __m256i slot = _mm256_and_si256(x, c.slot_mask);
  const __m128i lo = _mm256_castsi256_si128(slot), hi = _mm256_extracti128_si256(slot, 1);
  const auto s01 = static_cast<uint64_t>(_mm_cvtsi128_si64(lo));
  const auto s23 = static_cast<uint64_t>(_mm_extract_epi64(lo, 1));
  const auto s45 = static_cast<uint64_t>(_mm_cvtsi128_si64(hi));
  const auto s67 = static_cast<uint64_t>(_mm_extract_epi64(hi, 1));
  const auto e = [tab](uint64_t s) { return static_cast<int>(tab[s & 0xFFFFFFFF]); };
  return _mm256_setr_epi32(e(s01), e(s01 >> 32), e(s23), e(s23 >> 32), e(s45), e(s45 >> 32), e(s67),
                           e(s67 >> 32));
}

// One step of eight states, in place; returns their table entries (the
// symbols in the low bytes). The new state f q + slot - start is computed as
// (f - 1) q + (q + slot - start): the table's entry takes one shift to the
// multiply.
inline __m256i step_entries(__m256i& x, const uint32_t* tab, const Consts& c) {
  const __m256i e = table_entries(x, tab, c);
  const __m256i q = _mm256_srli_epi32(x, kDenseScaleBits);
  const __m256i add = _mm256_add_epi32(q, _mm256_and_si256(_mm256_srli_epi32(e, 8), c.slot_mask));
  x = _mm256_add_epi32(_mm256_mullo_epi32(_mm256_srli_epi32(e, 20), q), add);
  return e;
}

// The same with the symbols stored to syms[0..7].
inline __m256i step(__m256i x, const uint32_t* tab, const Consts& c, uint8_t* syms) {
  const __m256i e = step_entries(x, tab, c);
  const __m256i s = _mm256_shuffle_epi8(e, c.pick);  // the symbol bytes, four per half
  _mm_storel_epi64(reinterpret_cast<__m128i*>(syms),
                   _mm_unpacklo_epi32(_mm256_castsi256_si128(s), _mm256_extracti128_si256(s, 1)));
  return x;
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

// For each mask of the lanes that keep their state (emit no word): the byte
// shuffle that puts the words of the other lanes (the eight words of a state
// register packed in lane order, lane j at bytes 2j, 2j + 1) in ascending lane
// order at the top of 16 bytes; the bytes below them are zero, unused. And the
// bytes of those words (a load: popcnt and its arithmetic took six instructions).
struct WordPack {
  uint8_t idx[256][16];
  uint8_t bytes[256];
  constexpr WordPack() : idx(), bytes() {
    for (int keep = 0; keep < 256; ++keep) {
      int c = 0;
      for (int j = 0; j < 8; ++j) c += ~(keep >> j) & 1;
      bytes[keep] = static_cast<uint8_t>(2 * c);
      for (int b = 0; b < 16; ++b) idx[keep][b] = 0x80;
      int at = 8 - c;
      for (int j = 0; j < 8; ++j)
        if (~(keep >> j) & 1) {
          idx[keep][2 * at] = static_cast<uint8_t>(2 * j);
          idx[keep][2 * at + 1] = static_cast<uint8_t>(2 * j + 1);
          ++at;
        }
    }
  }
};
constexpr WordPack kWordPack;

// The (rcp, meta) pairs of the eight symbols at s as two vectors of four
// 64-bit lanes: of the even states and of the odd ones (the multiplies by rcp in
// enc_step take the low half of each 64-bit lane: the even vector lines up with
// x as it is, the odd one with x >> 32). Eight loads, not gathers (faster on
// Zen 3).
struct EncSyms {
  __m256i even, odd;
};
inline EncSyms enc_fetch(const uint8_t* s, const DenseEncSymbols& es) {
  const auto e = [&es](uint8_t k) {
    long long v;
    std::memcpy(&v, &es.s[k], sizeof v);
    return v;
  };
  return {_mm256_setr_epi64x(e(s[0]), e(s[2]), e(s[4]), e(s[6])),
          _mm256_setr_epi64x(e(s[1]), e(s[3]), e(s[5]), e(s[7]))};
}

// One encoder step of eight states with the symbols g (scalar order: lane 7
// first, its word at the highest address). The words out: the low halves of
// the states packed in lane order (a byte shuffle per half and a lane
// permute), then kWordPack's shuffle of the lanes that emit.
inline __m256i enc_step(__m256i x, const EncSyms& g, uint8_t*& p) {
  const __m256i ge = g.even, go = g.odd;
  const __m256i meta = _mm256_blend_epi32(_mm256_srli_epi64(ge, 32), go, 0xAA);
  const __m256i freq = _mm256_and_si256(meta, _mm256_set1_epi32(0x1FFF));
  // out: x >> 19 >= freq (both below 2^31: signed compares)
  const __m256i keep =
      _mm256_cmpgt_epi32(freq, _mm256_srli_epi32(x, 31 - static_cast<int>(kDenseScaleBits)));
  const int m = _mm256_movemask_ps(_mm256_castsi256_ps(keep));
  const __m256i halves = _mm256_shuffle_epi8(
      x, _mm256_setr_epi8(0, 1, 4, 5, 8, 9, 12, 13, -1, -1, -1, -1, -1, -1, -1, -1, 0, 1, 4, 5, 8,
                          9, 12, 13, -1, -1, -1, -1, -1, -1, -1, -1));
  const __m128i words = _mm256_castsi256_si128(_mm256_permute4x64_epi64(halves, 0x08));
  const __m128i pk = _mm_loadu_si128(reinterpret_cast<const __m128i*>(kWordPack.idx[m]));
  _mm_storeu_si128(reinterpret_cast<__m128i*>(p - 16), _mm_shuffle_epi8(words, pk));
  p -= kWordPack.bytes[m];
  x = _mm256_blendv_epi8(_mm256_srli_epi32(x, 16), x, keep);
  // q = (x * rcp) >> 32 >> shift, per lane
  const __m256i even = _mm256_srli_epi64(_mm256_mul_epu32(x, ge), 32);
  const __m256i odd = _mm256_mul_epu32(_mm256_srli_epi64(x, 32), go);
  __m256i q = _mm256_blend_epi32(even, odd, 0xAA);
  q = _mm256_srlv_epi32(q, _mm256_and_si256(_mm256_srli_epi32(meta, 13), _mm256_set1_epi32(15)));
  const __m256i cmpl = _mm256_sub_epi32(_mm256_set1_epi32(1 << kDenseScaleBits), freq);
  return _mm256_add_epi32(_mm256_add_epi32(x, _mm256_srli_epi32(meta, 17)),
                          _mm256_mullo_epi32(q, cmpl));
}

// ---- symbols and extra bits -------------------------------------------------------

inline __m256i set1(uint32_t v) { return _mm256_set1_epi32(static_cast<int>(v)); }

inline __m256i zigzag8(__m256i r) {
  return _mm256_xor_si256(_mm256_slli_epi32(r, 1), _mm256_srai_epi32(r, 31));
}

// The symbol pass's constants, eight lanes each. The pass reads them through a
// pointer the compiler cannot see through (SymbolConsts::get), so they are
// memory operands; as constants, GCC kept a few in registers and rebuilt the
// others at every use (three instructions each; 89 -> 68 instructions a group
// with extra bits, fnoc-uwnd 1e-4).
enum SymConst { kDirectMax, kExpBias, kCodeBias, kThree, kLow32, kNotDirect, kHuge, kSmall, kTiny };
struct alignas(32) SymbolConsts {
  uint32_t v[kTiny + 1][8];
  // lanes of one value (kLow32: 64-bit lanes of 2^32 - 1)
  static constexpr SymbolConsts make() {
    SymbolConsts c{};
    const uint32_t of[kTiny + 1] = {kDenseDirect - 1,
                                    128,
                                    static_cast<uint32_t>(-464),
                                    3,
                                    0,
                                    ~(kDenseDirect - 1),
                                    3u << 30,
                                    ~((1u << 17) - 1),
                                    ~((1u << 10) - 1)};
    for (int k = 0; k <= kTiny; ++k)
      for (int j = 0; j < 8; ++j) c.v[k][j] = k == kLow32 ? (j % 2 ? 0 : ~0u) : of[k];
    return c;
  }
  static const SymbolConsts* get();
  __m256i operator[](SymConst k) const {
    return _mm256_load_si256(reinterpret_cast<const __m256i*>(v[k]));
  }
};
constexpr SymbolConsts kSymbolConsts = SymbolConsts::make();
inline const SymbolConsts* SymbolConsts::get() {
  const SymbolConsts* c = &kSymbolConsts;
  asm("" : "+r"(c));
  return c;
}

// The symbols of eight zigzag values u < 2^30, their extra-bit counts k and
// extra bits (symbol_of). The top bit's position e is the exponent of a float:
// v = u & ~(u >> 1) keeps that bit and has no two adjacent ones, so converting
// v >> 1 (a positive i32) cannot round up to the next power of two.
struct Sym8 {
  __m256i sym, k, bits;
};
inline Sym8 symbols8(__m256i u, const SymbolConsts& c) {
  const __m256i v = _mm256_srli_epi32(_mm256_andnot_si256(_mm256_srli_epi32(u, 1), u), 1);
  // fe = e + 126, e the top bit's position (garbage for u < 2: not big)
  const __m256i fe = _mm256_srli_epi32(_mm256_castps_si256(_mm256_cvtepi32_ps(v)), 23);
  const __m256i big = _mm256_cmpgt_epi32(u, c[kDirectMax]);
  Sym8 s;
  s.k = _mm256_and_si256(_mm256_sub_epi32(fe, c[kExpBias]), big);  // e - 2
  const __m256i m = _mm256_and_si256(_mm256_srlv_epi32(u, s.k), c[kThree]);
  // 64 + 4 (e - 6) + m = 4 fe + m - 464
  const __m256i code =
      _mm256_add_epi32(_mm256_slli_epi32(fe, 2), _mm256_add_epi32(m, c[kCodeBias]));
  s.sym = _mm256_blendv_epi8(u, code, big);
  const __m256i ones = _mm256_cmpeq_epi32(u, u);
  s.bits = _mm256_andnot_si256(_mm256_sllv_epi32(ones, s.k), u);  // u mod 2^k
  return s;
}

// Sixteen u32 lanes (< 256) as bytes, in order.
inline __m128i bytes16(__m256i a, __m256i b) {
  const __m256i w = _mm256_permute4x64_epi64(_mm256_packus_epi32(a, b), 0xD8);
  return _mm_packus_epi16(_mm256_castsi256_si128(w), _mm256_extracti128_si256(w, 1));
}

// The extra bits of values 2j and 2j + 1 as one field of lane j (64-bit; those
// of 2j first, LSB first as the stream has them), and its bit count.
struct Fields {
  __m256i f, n;
};
inline Fields pairs(const Sym8& s, const SymbolConsts& c) {
  const __m256i lo = c[kLow32];
  const __m256i klo = _mm256_and_si256(s.k, lo);
  const __m256i hi = _mm256_sllv_epi64(_mm256_srli_epi64(s.bits, 32), klo);
  return {_mm256_or_si256(_mm256_and_si256(s.bits, lo), hi),
          _mm256_add_epi64(klo, _mm256_srli_epi64(s.k, 32))};
}
// Pairs 2j and 2j + 1 joined in lane 2j (j < 2): four values per field.
inline Fields quads(const Fields& p) {
  const __m256i hi = _mm256_sllv_epi64(_mm256_srli_si256(p.f, 8), p.n);
  return {_mm256_or_si256(p.f, hi), _mm256_add_epi64(p.n, _mm256_srli_si256(p.n, 8))};
}

// ---- residuals of symbols -----------------------------------------------------------

// Inclusive prefix sum of eight lanes.
inline __m256i prefix8(__m256i x) {
  x = _mm256_add_epi32(x, _mm256_slli_si256(x, 4));
  x = _mm256_add_epi32(x, _mm256_slli_si256(x, 8));
  const __m256i top = _mm256_shuffle_epi32(x, 0xFF);                      // lane 3 of each half
  return _mm256_add_epi32(x, _mm256_permute2x128_si256(top, top, 0x08));  // to the upper half
}

// The extra-bit counts of eight symbols (kCodes.bits: 0 below 64, s / 4 - 12 above).
inline __m256i nbits8(__m256i s) {
  const __m256i big = _mm256_cmpgt_epi32(s, set1(kDenseDirect - 1));
  return _mm256_and_si256(_mm256_sub_epi32(_mm256_srli_epi32(s, 2), set1(12)), big);
}

// The 32 bits at bit offset off[j] (< 480) of the sixteen dwords w0, w1 (the
// stream's 64 bytes from a dword of it), per lane: from the dword the offset
// falls in and the next one.
inline __m256i bits_at(__m256i w0, __m256i w1, __m256i off) {
  const __m256i d = _mm256_srli_epi32(off, 5), d1 = _mm256_add_epi32(d, set1(1));
  const __m256i sh = _mm256_and_si256(off, set1(31));
  const __m256i lo = _mm256_blendv_epi8(_mm256_permutevar8x32_epi32(w0, d),
                                        _mm256_permutevar8x32_epi32(w1, d),
                                        _mm256_cmpgt_epi32(d, set1(7)));
  const __m256i hi = _mm256_blendv_epi8(_mm256_permutevar8x32_epi32(w0, d1),
                                        _mm256_permutevar8x32_epi32(w1, d1),
                                        _mm256_cmpgt_epi32(d1, set1(7)));
  // a shift by 32 (sh = 0) gives 0
  return _mm256_or_si256(_mm256_srlv_epi32(lo, sh),
                         _mm256_sllv_epi32(hi, _mm256_sub_epi32(set1(32), sh)));
}

// The residuals of eight symbols s with nb extra bits at bit offsets off of the
// window w0, w1 (bits_at).
inline __m256i residuals8(__m256i s, __m256i nb, __m256i off, __m256i w0, __m256i w1) {
  const __m256i big = _mm256_cmpgt_epi32(s, set1(kDenseDirect - 1));
  const __m256i top = _mm256_sllv_epi32(_mm256_or_si256(set1(4), _mm256_and_si256(s, set1(3))), nb);
  const __m256i mask = _mm256_sub_epi32(_mm256_sllv_epi32(set1(1), nb), set1(1));
  const __m256i bits = _mm256_and_si256(bits_at(w0, w1, off), mask);
  const __m256i u = _mm256_or_si256(_mm256_blendv_epi8(s, top, big), bits);  // kCodes.base | bits
  return _mm256_xor_si256(_mm256_srli_epi32(u, 1),
                          _mm256_sub_epi32(_mm256_setzero_si256(), _mm256_and_si256(u, set1(1))));
}

// The residuals of a group of sixteen values, in two registers.
struct Residuals16 {
  __m256i lo, hi;
};

// The residuals of sixteen symbols (u32 lanes s0, s1) whose extra bits start
// at bit `at` of extra, all in the 64 bytes from at's dword (16 x 29 + 31 <
// 512; the caller checked they are in the stream); *bits: how many they take.
// Offsets from that dword: exclusive prefix sums of the counts.
inline Residuals16 residuals16(__m256i s0, __m256i s1, const uint8_t* extra, uint64_t at,
                               uint32_t* bits) {
  const __m256i n0 = nbits8(s0), n1 = nbits8(s1);
  const __m256i p0 = prefix8(n0);
  const __m256i p1 = _mm256_add_epi32(prefix8(n1), _mm256_permutevar8x32_epi32(p0, set1(7)));
  const uint8_t* base = extra + (at >> 5) * 4;
  const __m256i w0 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(base));
  const __m256i w1 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(base + 32));
  const __m256i bit = set1(static_cast<uint32_t>(at & 31));
  *bits = static_cast<uint32_t>(_mm256_extract_epi32(p1, 7));
  return {residuals8(s0, n0, _mm256_add_epi32(_mm256_sub_epi32(p0, n0), bit), w0, w1),
          residuals8(s1, n1, _mm256_add_epi32(_mm256_sub_epi32(p1, n1), bit), w0, w1)};
}

// unzigzag of eight lanes
inline __m256i unzigzag8(__m256i u) {
  return _mm256_xor_si256(_mm256_srli_epi32(u, 1),
                          _mm256_sub_epi32(_mm256_setzero_si256(), _mm256_and_si256(u, set1(1))));
}

// The residuals of a group of sixteen symbols (u32 lanes s0, s1) whose extra
// bits start at bit *at of the stream extra (extra_bytes); *at moves on. All
// direct (< 64): no bits; near the stream's end: bytewise, zeros past it
// (residuals_scalar); otherwise from the window.
inline Residuals16 group_residuals(__m256i s0, __m256i s1, const uint8_t* extra,
                                   uint64_t extra_bytes, uint64_t* at) {
  if (_mm256_testz_si256(_mm256_or_si256(s0, s1), set1(~(kDenseDirect - 1))))
    return {unzigzag8(s0), unzigzag8(s1)};
  if (*at + 8 * 64 > 8 * extra_bytes) {
    alignas(16) uint8_t sy[16];
    alignas(32) uint32_t r[16];
    _mm_store_si128(reinterpret_cast<__m128i*>(sy), bytes16(s0, s1));
    *at = dense_bits::residuals_scalar<false>(sy, 16, extra, extra_bytes, *at, r);
    return {_mm256_load_si256(reinterpret_cast<const __m256i*>(r)),
            _mm256_load_si256(reinterpret_cast<const __m256i*>(r + 8))};
  }
  uint32_t bits;
  const Residuals16 g = residuals16(s0, s1, extra, *at, &bits);
  *at += bits;
  return g;
}

inline void store16(const Residuals16& g, uint32_t* r) {
  _mm256_storeu_si256(reinterpret_cast<__m256i*>(r), g.lo);
  _mm256_storeu_si256(reinterpret_cast<__m256i*>(r + 8), g.hi);
}

Consts decoder_consts() {
  Consts c;
  c.slot_mask = _mm256_set1_epi32((1 << kDenseScaleBits) - 1);
  c.low = _mm256_set1_epi32(static_cast<int>(kDenseRansLow));
  c.pick = _mm256_setr_epi8(0, 4, 8, 12, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, 0, 4, 8,
                            12, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1);
  return c;
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
  // the loads of the next group are issued before this group's steps (they
  // depend on the symbols only): their latency is off the states' chains. Two
  // groups an iteration, in two sets of registers (no copies from one to the
  // other); states 15..8, then 7..0
  if (i) {
    EncSyms gb = enc_fetch(syms + i - 8, es), ga = enc_fetch(syms + i - 16, es);
    for (;;) {
      if (i == kDenseStates) {
        b = enc_step(b, gb, p), a = enc_step(a, ga, p);
        break;
      }
      const EncSyms hb = enc_fetch(syms + i - 24, es), ha = enc_fetch(syms + i - 32, es);
      b = enc_step(b, gb, p), a = enc_step(a, ga, p);
      i -= kDenseStates;
      if (i == kDenseStates) {
        b = enc_step(b, hb, p), a = enc_step(a, ha, p);
        break;
      }
      gb = enc_fetch(syms + i - 24, es), ga = enc_fetch(syms + i - 32, es);
      b = enc_step(b, hb, p), a = enc_step(a, ha, p);
      i -= kDenseStates;
    }
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
  const Consts c = decoder_consts();
  uint32_t i = 0;
  // the second register's step does not wait on the first's renormalization
  // (only on its stream position): two chains in flight
  for (; i + 16 <= n && end - p >= 32; i += 16) {
    a = step(a, tab, c, syms + i);
    b = step(b, tab, c, syms + i + 8);
    a = renorm(a, p, c);
    b = renorm(b, p, c);
  }
  if (i + 16 <= n) {
    // near the end of the words (a chunk's last few hundred symbols at loose
    // bounds): the same steps on a copy of the last whole words, zeros after
    // them, which is what the scalar pass reads past the end (also where one
    // byte is left: it stays unread); the position stops at the copy's end
    alignas(32) uint8_t last[64] = {};
    const auto whole = static_cast<size_t>(end - p) & ~size_t{1};  // < 32
    std::memcpy(last, p, whole);
    const uint8_t* q = last;
    for (; i + 16 <= n; i += 16) {
      a = step(a, tab, c, syms + i);
      b = step(b, tab, c, syms + i + 8);
      a = renorm(a, q, c);  // q + 16 <= last + 64 for both loads: q <= last + whole
      b = renorm(b, q, c);  // before a's, and a moves it 16 bytes at most
      if (q > last + whole) q = last + whole;
    }
    p += q - last;
  }
  _mm256_storeu_si256(reinterpret_cast<__m256i*>(xs), a);
  _mm256_storeu_si256(reinterpret_cast<__m256i*>(xs + 8), b);
  *pos = p;
  dense_rans_decode_scalar(xs, pos, end, tab, syms + i, n - i);  // the last n % 16
}


namespace {

// Counts of symbols in eight tables (runs of one symbol, the common case at
// loose bounds, do not wait on each other's increment).
struct SymbolTables {
  uint32_t t[8][256] = {};
  // s: the sixteen symbols just stored. A byte load and an increment a symbol;
  // taking the bytes out of a register instead costs a shift and a move more.
  // (s made opaque: GCC would otherwise keep sixteen pointers, one a byte, and
  // spill them)
  void count16(const uint8_t* s) {
    asm("" : "+r"(s));
    for (int k = 0; k < 16; ++k) ++t[k & 7][s[k]];
  }
  void sum(uint32_t* cnt) const {
    for (uint32_t s = 0; s < kDenseMaxSymbols; ++s)
      cnt[s] = t[0][s] + t[1][s] + t[2][s] + t[3][s] + t[4][s] + t[5][s] + t[6][s] + t[7][s];
  }
};

// The residuals of values i..i+7 (kOrder 0: given in src; 1 and 2: Lorenzo of
// the codes in src, i >= kOrder).
template <int kOrder>
inline __m256i residuals_at(const uint32_t* src, uint32_t i) {
  const __m256i x = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(src + i));
  if (kOrder == 0) return x;
  const __m256i x1 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(src + i - 1));
  if (kOrder == 1) return _mm256_sub_epi32(x, x1);
  const __m256i x2 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(src + i - 2));
  return _mm256_add_epi32(_mm256_sub_epi32(x, _mm256_slli_epi32(x1, 1)), x2);
}

template <int kOrder>
size_t symbols_avx2(const uint32_t* src, uint32_t len, uint8_t* syms, uint8_t* extra,
                    uint32_t* cnt) {
  using dense_bits::put_symbol;
  using dense_bits::residual_at;
  dense_bits::BitWriter bw{extra};
  SymbolTables tables;
  const SymbolConsts& c = *SymbolConsts::get();
  uint32_t i = 0;
  // the first group of Lorenzo (its first values have other residuals): one at a time
  if (kOrder != 0)
    for (; i < 16 && i < len; ++i) put_symbol(zigzag(residual_at(src, i, kOrder)), syms + i, bw);
  for (; i + 16 <= len; i += 16) {
    const __m256i r0 = residuals_at<kOrder>(src, i), r1 = residuals_at<kOrder>(src, i + 8);
    const __m256i u0 = zigzag8(r0), u1 = zigzag8(r1);
    const __m256i any = _mm256_or_si256(u0, u1);
    __m128i* out = reinterpret_cast<__m128i*>(syms + i);
    if (_mm256_testz_si256(any, c[kNotDirect])) {  // all direct: no extra bits
      const __m128i s = bytes16(u0, u1);
      _mm_storeu_si128(out, s);
      tables.count16(syms + i);
      continue;
    }
    if (!_mm256_testz_si256(any, c[kHuge])) {  // a value >= 2^30: a pair may exceed 56 bits
      alignas(32) uint32_t u[16];
      _mm256_store_si256(reinterpret_cast<__m256i*>(u), u0);
      _mm256_store_si256(reinterpret_cast<__m256i*>(u + 8), u1);
      for (uint32_t k = 0; k < 16; ++k) put_symbol(u[k], syms + i + k, bw);
      tables.count16(syms + i);
      continue;
    }
    const Sym8 a = symbols8(u0, c), b = symbols8(u1, c);
    const __m128i s = bytes16(a.sym, b.sym);
    _mm_storeu_si128(out, s);
    Fields fa = pairs(a, c), fb = pairs(b, c);
    alignas(32) uint64_t f[8], n[8];
    const bool four = _mm256_testz_si256(any, c[kSmall]);  // all below 2^17: four in 56 bits
    if (four) fa = quads(fa), fb = quads(fb);
    _mm256_store_si256(reinterpret_cast<__m256i*>(f), fa.f);
    _mm256_store_si256(reinterpret_cast<__m256i*>(f + 4), fb.f);
    _mm256_store_si256(reinterpret_cast<__m256i*>(n), fa.n);
    _mm256_store_si256(reinterpret_cast<__m256i*>(n + 4), fb.n);
    // (loops of constant length: unrolled)
    if (four && _mm256_testz_si256(any, c[kTiny])) {  // all below 2^10: eight in 56 bits
      for (int j = 0; j < 8; j += 4)
        bw.put(f[j] | f[j + 2] << n[j], static_cast<uint32_t>(n[j] + n[j + 2]));
    } else if (four) {
      for (int j = 0; j < 8; j += 2) bw.put(f[j], static_cast<uint32_t>(n[j]));
    } else {
      for (int j = 0; j < 8; ++j) bw.put(f[j], static_cast<uint32_t>(n[j]));
    }
    // the counts: independent of the bit writer's chain, they fill its idle slots
    tables.count16(syms + i);
  }
  const uint32_t tail = i;
  for (; i < len; ++i) put_symbol(zigzag(residual_at(src, i, kOrder)), syms + i, bw);
  bw.flush();
  tables.sum(cnt);
  // the symbols done one at a time: Lorenzo's first group, the last len % 16
  for (uint32_t k = 0; kOrder != 0 && k < 16 && k < len; ++k) ++cnt[syms[k]];
  for (uint32_t k = tail; k < len; ++k) ++cnt[syms[k]];
  return static_cast<size_t>(bw.p - extra);
}

}  // namespace

size_t dense_symbols_avx2(const uint32_t* src, uint32_t len, uint8_t order, uint8_t* syms,
                          uint8_t* extra, uint32_t* cnt) {
  if (order == kDenseOrder2) return symbols_avx2<2>(src, len, syms, extra, cnt);
  if (order == kDenseOrder1) return symbols_avx2<1>(src, len, syms, extra, cnt);
  return symbols_avx2<0>(src, len, syms, extra, cnt);
}

uint64_t dense_residuals_avx2(const uint8_t* syms, uint32_t n, const uint8_t* extra,
                              uint64_t extra_bytes, uint64_t at, uint32_t* r) {
  uint32_t i = 0;
  for (; i + 16 <= n; i += 16) {
    const __m128i s = _mm_loadu_si128(reinterpret_cast<const __m128i*>(syms + i));
    store16(group_residuals(_mm256_cvtepu8_epi32(s), _mm256_cvtepu8_epi32(_mm_srli_si128(s, 8)),
                            extra, extra_bytes, &at),
            r + i);
  }
  return dense_bits::residuals_scalar<false>(syms + i, n - i, extra, extra_bytes, at, r + i);
}

namespace {

// The groups of sixteen symbols at the cursor, while n has sixteen more and
// 32 bytes of words are left: per group the rANS steps of both registers, then
// the group's residuals (off the states' chains: this work fills the slots
// they leave idle) to sink(residuals, i); returns the values done (a multiple
// of 16), the cursor moved on.
template <typename Sink>
uint32_t rans_groups(DenseCursor* cur, uint32_t n, Sink&& sink) {
  const uint8_t* p = cur->words;
  const uint8_t* const end = cur->end;
  const uint32_t* const tab = cur->tab;
  __m256i a = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(cur->xs));
  __m256i b = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(cur->xs + 8));
  const Consts c = decoder_consts();
  const __m256i sym_mask = set1(0xFF);
  uint64_t at = cur->bit;
  uint32_t i = 0;
  for (; i + 16 <= n && end - p >= 32; i += 16) {
    const __m256i ea = step_entries(a, tab, c), eb = step_entries(b, tab, c);
    a = renorm(a, p, c);
    b = renorm(b, p, c);
    sink(group_residuals(_mm256_and_si256(ea, sym_mask), _mm256_and_si256(eb, sym_mask), cur->extra,
                         cur->extra_bytes, &at),
         i);
  }
  _mm256_storeu_si256(reinterpret_cast<__m256i*>(cur->xs), a);
  _mm256_storeu_si256(reinterpret_cast<__m256i*>(cur->xs + 8), b);
  cur->words = p;
  cur->bit = at;
  return i;
}

// Eight codes as values to out (added to it: kAcc), as dense_values_scalar.
template <bool kAcc>
inline void values8(__m256i q, __m256d f, float* out) {
  const __m128 lo =
      _mm256_cvtpd_ps(_mm256_mul_pd(_mm256_cvtepi32_pd(_mm256_castsi256_si128(q)), f));
  const __m128 hi =
      _mm256_cvtpd_ps(_mm256_mul_pd(_mm256_cvtepi32_pd(_mm256_extracti128_si256(q, 1)), f));
  __m256 v = _mm256_set_m128(hi, lo);
  if (kAcc) v = _mm256_add_ps(_mm256_loadu_ps(out), v);
  _mm256_storeu_ps(out, v);
}
template <bool kAcc>
inline void values8(__m256i q, __m256d f, double* out) {
  __m256d lo = _mm256_mul_pd(_mm256_cvtepi32_pd(_mm256_castsi256_si128(q)), f);
  __m256d hi = _mm256_mul_pd(_mm256_cvtepi32_pd(_mm256_extracti128_si256(q, 1)), f);
  if (kAcc) {
    lo = _mm256_add_pd(_mm256_loadu_pd(out), lo);
    hi = _mm256_add_pd(_mm256_loadu_pd(out + 4), hi);
  }
  _mm256_storeu_pd(out, lo);
  _mm256_storeu_pd(out + 4, hi);
}

// Inclusive prefix sum of eight lanes plus the carry (broadcast); the new carry
// is the last lane, broadcast.
inline __m256i prefix_carry(__m256i v, __m256i& carry) {
  v = _mm256_add_epi32(prefix8(v), carry);
  carry = _mm256_permutevar8x32_epi32(v, set1(7));
  return v;
}

// Predictors 1 and 2 from a group's residuals to values (dense_lorenzo_f32):
// the codes as prefix sums with the carries of the groups before, in registers.
template <typename T, bool kOrder2, bool kAcc>
struct LorenzoSink {
  __m256i cq, cd;
  bool first;
  __m256d f;
  T* out;
  LorenzoSink(const DenseCarry& c, double factor, T* o)
      : cq(set1(c.q)), cd(set1(c.d)), first(c.first), f(_mm256_set1_pd(factor)), out(o) {}
  __m256i codes(__m256i r) {
    if (kOrder2) r = prefix_carry(r, cd);
    return prefix_carry(r, cq);
  }
  void operator()(const Residuals16& g, uint32_t i) {
    if (first) {  // the chunk's first value (predictable: once per chunk)
      if (kOrder2) {
        cq = _mm256_permutevar8x32_epi32(g.lo, _mm256_setzero_si256());
        cd = _mm256_sub_epi32(_mm256_setzero_si256(), cq);
      }
      first = false;
    }
    values8<kAcc>(codes(g.lo), f, out + i);
    values8<kAcc>(codes(g.hi), f, out + i + 8);
  }
  void save(DenseCarry* c) const {
    c->q = static_cast<uint32_t>(_mm256_cvtsi256_si32(cq));
    c->d = static_cast<uint32_t>(_mm256_cvtsi256_si32(cd));
    c->first = first;
  }
};

template <typename T, bool kOrder2, bool kAcc>
void lorenzo_avx2(DenseCursor* cur, DenseCarry* carry, uint32_t n, double factor, T* out) {
  LorenzoSink<T, kOrder2, kAcc> sink(*carry, factor, out);
  const uint32_t done = rans_groups(cur, n, sink);
  sink.save(carry);
  // the chunk's last words and values: the passes in turn, 256 at a time
  alignas(32) uint32_t r[256];
  for (uint32_t i = done; i < n; i += 256) {
    const uint32_t m = n - i < 256 ? n - i : 256;
    dense_rans_residuals_avx2(cur, r, m);
    dense_bits::codes_from_residuals<kOrder2>(r, m, *carry);
    if constexpr (std::is_same_v<T, float>)
      dense_values_avx2_f32(r, m, factor, out + i, kAcc);
    else
      dense_values_avx2_f64(r, m, factor, out + i, kAcc);
  }
}

template <typename T>
void lorenzo_avx2(DenseCursor* cur, DenseCarry* carry, bool order2, uint32_t n, double factor,
                  T* out, bool acc) {
  if (order2)
    acc ? lorenzo_avx2<T, true, true>(cur, carry, n, factor, out)
        : lorenzo_avx2<T, true, false>(cur, carry, n, factor, out);
  else
    acc ? lorenzo_avx2<T, false, true>(cur, carry, n, factor, out)
        : lorenzo_avx2<T, false, false>(cur, carry, n, factor, out);
}

// Two chunks at once: four chains of states in flight instead of two, as long
// as both have words; then each chunk on its own. (rans_groups' loop written
// out for two cursors: one loop over arrays of N cursors' states measured
// slower, probably for the arrays kept in memory.)
template <typename T, bool kOrder2, bool kAcc>
void lorenzo_pair_avx2(DenseCursor* c0, DenseCarry* k0, T* out0, DenseCursor* c1, DenseCarry* k1,
                       T* out1, uint32_t n, double factor) {
  LorenzoSink<T, kOrder2, kAcc> s0(*k0, factor, out0), s1(*k1, factor, out1);
  const uint8_t *p0 = c0->words, *p1 = c1->words;
  __m256i a0 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(c0->xs));
  __m256i b0 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(c0->xs + 8));
  __m256i a1 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(c1->xs));
  __m256i b1 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(c1->xs + 8));
  const Consts c = decoder_consts();
  const __m256i sym_mask = set1(0xFF);
  uint64_t at0 = c0->bit, at1 = c1->bit;
  uint32_t i = 0;
  for (; i + 16 <= n && c0->end - p0 >= 32 && c1->end - p1 >= 32; i += 16) {
    const __m256i ea0 = step_entries(a0, c0->tab, c), ea1 = step_entries(a1, c1->tab, c);
    const __m256i eb0 = step_entries(b0, c0->tab, c), eb1 = step_entries(b1, c1->tab, c);
    a0 = renorm(a0, p0, c);
    a1 = renorm(a1, p1, c);
    b0 = renorm(b0, p0, c);
    b1 = renorm(b1, p1, c);
    s0(group_residuals(_mm256_and_si256(ea0, sym_mask), _mm256_and_si256(eb0, sym_mask), c0->extra,
                       c0->extra_bytes, &at0),
       i);
    s1(group_residuals(_mm256_and_si256(ea1, sym_mask), _mm256_and_si256(eb1, sym_mask), c1->extra,
                       c1->extra_bytes, &at1),
       i);
  }
  _mm256_storeu_si256(reinterpret_cast<__m256i*>(c0->xs), a0);
  _mm256_storeu_si256(reinterpret_cast<__m256i*>(c0->xs + 8), b0);
  _mm256_storeu_si256(reinterpret_cast<__m256i*>(c1->xs), a1);
  _mm256_storeu_si256(reinterpret_cast<__m256i*>(c1->xs + 8), b1);
  c0->words = p0, c1->words = p1;
  c0->bit = at0, c1->bit = at1;
  s0.save(k0);
  s1.save(k1);
  if (i < n) {
    lorenzo_avx2<T, kOrder2, kAcc>(c0, k0, n - i, factor, out0 + i);
    lorenzo_avx2<T, kOrder2, kAcc>(c1, k1, n - i, factor, out1 + i);
  }
}

template <typename T>
void lorenzo_pair_avx2(DenseCursor* c0, DenseCarry* k0, T* out0, DenseCursor* c1, DenseCarry* k1,
                       T* out1, bool order2, uint32_t n, double factor, bool acc) {
  if (order2)
    acc ? lorenzo_pair_avx2<T, true, true>(c0, k0, out0, c1, k1, out1, n, factor)
        : lorenzo_pair_avx2<T, true, false>(c0, k0, out0, c1, k1, out1, n, factor);
  else
    acc ? lorenzo_pair_avx2<T, false, true>(c0, k0, out0, c1, k1, out1, n, factor)
        : lorenzo_pair_avx2<T, false, false>(c0, k0, out0, c1, k1, out1, n, factor);
}

}  // namespace

void dense_rans_residuals_avx2(DenseCursor* cur, uint32_t* r, uint32_t n) {
  uint32_t i = rans_groups(cur, n, [r](const Residuals16& g, uint32_t k) { store16(g, r + k); });
  // the chunk's last words and symbols: the two passes in turn, 256 at a time
  // (a multiple of 16: each call starts at state 0)
  alignas(32) uint8_t syms[256];
  for (; i < n; i += 256) {
    const uint32_t m = n - i < 256 ? n - i : 256;
    dense_rans_decode_avx2(cur->xs, &cur->words, cur->end, cur->tab, syms, m);
    cur->bit = dense_residuals_avx2(syms, m, cur->extra, cur->extra_bytes, cur->bit, r + i);
  }
}

void dense_lorenzo_f32_avx2(DenseCursor* c, DenseCarry* carry, bool order2, uint32_t n,
                            double factor, float* out, bool acc) {
  lorenzo_avx2(c, carry, order2, n, factor, out, acc);
}
void dense_lorenzo_f64_avx2(DenseCursor* c, DenseCarry* carry, bool order2, uint32_t n,
                            double factor, double* out, bool acc) {
  lorenzo_avx2(c, carry, order2, n, factor, out, acc);
}
void dense_lorenzo_pair_f32_avx2(DenseCursor* c0, DenseCarry* k0, float* out0, DenseCursor* c1,
                                 DenseCarry* k1, float* out1, bool order2, uint32_t n,
                                 double factor, bool acc) {
  lorenzo_pair_avx2(c0, k0, out0, c1, k1, out1, order2, n, factor, acc);
}
void dense_lorenzo_pair_f64_avx2(DenseCursor* c0, DenseCarry* k0, double* out0, DenseCursor* c1,
                                 DenseCarry* k1, double* out1, bool order2, uint32_t n,
                                 double factor, bool acc) {
  lorenzo_pair_avx2(c0, k0, out0, c1, k1, out1, order2, n, factor, acc);
}

// Four codes at a time, the scalar pass's operations: i32 -> double, times
// factor, rounded to float (or not), plus out (acc).
void dense_values_avx2_f32(const uint32_t* q, uint32_t n, double factor, float* out, bool acc) {
  const __m256d f = _mm256_set1_pd(factor);
  uint32_t i = 0;
  for (; i + 4 <= n; i += 4) {
    const __m128i c = _mm_loadu_si128(reinterpret_cast<const __m128i*>(q + i));
    __m128 v = _mm256_cvtpd_ps(_mm256_mul_pd(_mm256_cvtepi32_pd(c), f));
    if (acc) v = _mm_add_ps(_mm_loadu_ps(out + i), v);
    _mm_storeu_ps(out + i, v);
  }
  dense_values_scalar(q + i, n - i, factor, out + i, acc);
}
void dense_values_avx2_f64(const uint32_t* q, uint32_t n, double factor, double* out, bool acc) {
  const __m256d f = _mm256_set1_pd(factor);
  uint32_t i = 0;
  for (; i + 4 <= n; i += 4) {
    const __m128i c = _mm_loadu_si128(reinterpret_cast<const __m128i*>(q + i));
    __m256d v = _mm256_mul_pd(_mm256_cvtepi32_pd(c), f);
    if (acc) v = _mm256_add_pd(_mm256_loadu_pd(out + i), v);
    _mm256_storeu_pd(out + i, v);
  }
  dense_values_scalar(q + i, n - i, factor, out + i, acc);
}
}  // namespace zcoll

#if defined(__clang__)
#pragma clang attribute pop
#else
#pragma GCC pop_options
#endif

#endif
