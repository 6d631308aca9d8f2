// dense.cc — the dense chunk coder (dense.h; docs/format.md §5.3), as passes:
// encode codes -> residuals, symbols, extra bits and counts (one pass) -> rANS;
// decode, per tile of kTile values, rANS -> residuals -> codes -> values, in one
// pass for predictors 1 and 2 of f32 and f64 values, else rANS and residuals
// in one, then the rest (the tiles keep the decoder's buffers on the stack: it
// cannot fail; predictors 3 to 5 keep the chunk's codes in a per-thread array
// instead, as their inverse reads rows and planes of earlier tiles).
#include "codec/dense.h"

#include <algorithm>
#include <cstring>
#include <new>
#include <type_traits>
#include <vector>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "codec/chunk_codec.h"
#include "codec/dense_bits.h"
#include "codec/dense_interp.h"
#include "codec/dense_predict.h"
#include "codec/format.h"

namespace zcoll {

namespace {

using namespace dense_bits;  // the symbols and extra bits (dense_bits.h)

constexpr uint32_t kScale = 1u << kDenseScaleBits;
// States live in [L, 2^31), 16 bits move in or out at a time (at most once per
// symbol), and the encoder's reciprocal division is exact below 2^31.
constexpr uint32_t kRansL = kDenseRansLow;

// The same for a loop of nothing else (choose_order): cvtsi2sd (what the cast
// compiles to) merges into its destination register, and such a loop carries a
// false dependency through it; cvtdq2pd writes the whole register. v / 2 fits
// an i32: floor(log2(v)) = 1 + floor(log2(v / 2)) for v >= 2, 0 for v = 1.
inline uint32_t floor_log2_nodep(uint32_t v) {
#if defined(__SSE2__) && defined(__x86_64__)
  const __m128d d = _mm_cvtepi32_pd(_mm_cvtsi32_si128(static_cast<int>(v >> 1)));
  const uint32_t f =
      static_cast<uint32_t>(static_cast<uint64_t>(_mm_cvtsi128_si64(_mm_castpd_si128(d))) >> 52);
  return (f - 1022u) & (0u - static_cast<uint32_t>(f != 0));
#else
  return floor_log2(v);
#endif
}
inline uint32_t load_u16(const uint8_t* p) { return uint32_t{p[0]} | uint32_t{p[1]} << 8; }
inline void store_u16(uint8_t* p, uint32_t v) {
  p[0] = static_cast<uint8_t>(v), p[1] = static_cast<uint8_t>(v >> 8);
}

// ---- frequencies ---------------------------------------------------------------------

// Scale counts (total > 0) to frequencies summing to 4096, every used symbol >= 1.
void normalize(const uint32_t* cnt, uint32_t nsym, uint32_t total, uint16_t* f) {
  uint32_t sum = 0, big = 0;
  for (uint32_t s = 0; s < nsym; ++s) {
    uint32_t v = cnt[s] ? static_cast<uint32_t>(uint64_t{cnt[s]} * kScale / total) : 0;
    if (cnt[s] && v == 0) v = 1;
    f[s] = static_cast<uint16_t>(v);
    sum += v;
    if (cnt[s] > cnt[big]) big = s;
  }
  if (sum < kScale) f[big] = static_cast<uint16_t>(f[big] + (kScale - sum));
  while (sum > kScale) {  // too many symbols rounded up: take from the largest
    uint32_t top = 0;
    for (uint32_t s = 1; s < nsym; ++s)
      if (f[s] > f[top]) top = s;
    const uint32_t room = f[top] - 1u, take = room < sum - kScale ? room : sum - kScale;
    f[top] = static_cast<uint16_t>(f[top] - take);
    sum -= take;
  }
}

// The frequency table (§5.3): a byte 1..127 is one frequency; 128..191 and the
// next byte one frequency of 14 bits ((b - 128) << 8 | next); 192..255 a run of
// b - 191 zero frequencies. Most frequencies are below 128 and the unused
// symbols come in runs, so a table takes about a byte per used symbol.
size_t write_table(const uint16_t* f, uint32_t nsym, uint8_t* w) {
  uint8_t* p = w;
  for (uint32_t s = 0; s < nsym;) {
    if (f[s] == 0) {
      uint32_t run = 1;
      while (s + run < nsym && f[s + run] == 0 && run < 64) ++run;
      *p++ = static_cast<uint8_t>(191 + run);
      s += run;
      continue;
    }
    if (f[s] < 128) {
      *p++ = static_cast<uint8_t>(f[s]);
    } else {
      *p++ = static_cast<uint8_t>(128 | f[s] >> 8);
      *p++ = static_cast<uint8_t>(f[s]);
    }
    ++s;
  }
  return static_cast<size_t>(p - w);
}

// Parse a table of nsym entries from [in, end) into f: its size in bytes, 0 if
// malformed (a 0 byte, a run past nsym, or the bytes end first).
size_t read_table(const uint8_t* in, const uint8_t* end, uint32_t nsym, uint16_t* f) {
  const uint8_t* p = in;
  for (uint32_t s = 0; s < nsym;) {
    if (p >= end) return 0;
    const uint32_t b = *p++;
    if (b == 0) return 0;
    if (b < 128) {
      f[s++] = static_cast<uint16_t>(b);
    } else if (b < 192) {
      if (p >= end) return 0;
      f[s++] = static_cast<uint16_t>((b - 128) << 8 | *p++);
    } else {
      const uint32_t run = b - 191;
      if (run > nsym - s) return 0;
      for (uint32_t k = 0; k < run; ++k) f[s++] = 0;
    }
  }
  return static_cast<size_t>(p - in);
}

// The encoder's symbols in ryg_rans' reciprocal form (dense.h: DenseEncSymbols).
void enc_symbols(const uint16_t* f, uint32_t nsym, DenseEncSymbols* es) {
  uint32_t start = 0;
  for (uint32_t s = 0; s < nsym; ++s) {
    const uint32_t fr = f[s];
    uint32_t rcp = ~0u, shift = 0, bias = start + kScale - 1;
    if (fr >= 2) {
      uint32_t sh = 0;
      while (fr > (1u << sh)) ++sh;
      rcp = static_cast<uint32_t>(((uint64_t{1} << (sh + 31)) + fr - 1) / fr);
      shift = sh - 1, bias = start;
    }
    es->s[s].rcp = rcp;
    es->s[s].meta = fr | shift << 13 | bias << 17;
    start += fr;
  }
}

// Decode table (one entry per slot, so that the AVX2 pass needs one lookup):
// slot -> symbol | (slot - start) << 8 | (freq - 1) << 20 (the factor on top:
// one shift from the table to the multiply, x' = (f - 1) q + (q + slot - start)).
void dec_table(const uint16_t* f, uint32_t nsym, uint32_t* tab) {
  uint32_t start = 0;
  for (uint32_t s = 0; s < nsym; ++s) {
    const uint32_t fr = f[s], e = s | (fr - 1) << 20;
    uint32_t k = 0;
#if defined(__SSE2__)
    // four slots per store (a table per chunk: 4096 stores otherwise)
    __m128i v = _mm_add_epi32(_mm_set1_epi32(static_cast<int>(e)),
                              _mm_setr_epi32(0, 1 << 8, 2 << 8, 3 << 8));
    for (; k + 4 <= fr; k += 4, v = _mm_add_epi32(v, _mm_set1_epi32(4 << 8)))
      _mm_storeu_si128(reinterpret_cast<__m128i*>(tab + start + k), v);
#endif
    for (; k < fr; ++k) tab[start + k] = e | k << 8;
    start += fr;
  }
}

inline uint8_t dec_step(uint32_t& x, const uint32_t* tab) {
  const uint32_t e = tab[x & (kScale - 1)], q = x >> kDenseScaleBits;
  x = (e >> 20) * q + q + (e >> 8 & (kScale - 1));
  return static_cast<uint8_t>(e);
}
// One 16-bit word at most per step (x >= 8 after a step), without a branch (a
// select: compilers turn an if into a branch, mispredicted at random); the
// caller guarantees two readable bytes. renorm_safe: past the end reads zeros.
inline void renorm_fast(uint32_t& x, const uint8_t*& p) {
  uint16_t w;
  std::memcpy(&w, p, 2);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
  w = __builtin_bswap16(w);
#endif
  const uint32_t in = x < kRansL, y = x << 16 | w;
  x = y ^ ((x ^ y) & (in - 1u));
  p += 2 * in;
}
inline void renorm_safe(uint32_t& x, const uint8_t*& p, const uint8_t* end) {
  if (x >= kRansL) return;
  const bool have = end - p >= 2;
  x = x << 16 | (have ? load_u16(p) : 0u);
  p += have ? 2 : 0;
}

// ---- encoder --------------------------------------------------------------------------

// An allocator whose resize leaves new elements uninitialized: every pass
// writes a scratch buffer before it reads it, and zeroing a thread's buffers on
// its first chunk took 8.9% of a one-shot compression of fnoc-vwnd at 1e-4
// (docs/reports/2026-11-29-codec-frontier-11.md).
template <typename T>
struct UninitAlloc : std::allocator<T> {
  template <typename U>
  struct rebind {
    using other = UninitAlloc<U>;
  };
  UninitAlloc() = default;
  template <typename U>
  explicit UninitAlloc(const UninitAlloc<U>&) noexcept {}
  template <typename U>
  void construct(U* p) noexcept {
    ::new (static_cast<void*>(p)) U;  // default-initialized: no zeroing
  }
};
template <typename T>
using ScratchVec = std::vector<T, UninitAlloc<T>>;

struct Scratch {  // per thread, grown to the chunk size
  ScratchVec<int32_t> codes;
  ScratchVec<uint32_t> res;
  ScratchVec<uint8_t> syms, extra, rans;
  // predictor 5 (with dims only): fine codes, the trials' fine codes (and, in a
  // chunk the trial covers, the cubic trial's fine codes and residuals)
  ScratchVec<int32_t> fine;
  ScratchVec<uint32_t> alt, alt_cubic, res_cubic;
};
thread_local Scratch t_scratch;
// The decoder's per-thread codes of a chunk of predictor 3 or 4 (residuals, then
// codes, tile by tile); grown by dense_decode_reserve or the decoder.
thread_local ScratchVec<uint32_t> t_nd_codes;

// Lorenzo order 1 or 2: whichever gives the fewer residual bits (order 1 on
// ties), measured on every 8th value (2048 samples in a chunk of 16384; the
// residual statistics are those of the chunk). Every 4th took 14 % of a
// compression's instructions at REL 1e-4; against it, every 8th changed 6 of 66
// sizes of shared/data (3 bounds, 2 chunk sizes), by at most 0.15 %.
constexpr uint32_t kOrderSampleEvery = 8;
#if defined(__SSE2__)
// floor(log2(v)) of four lanes v >= 1, exact (the sums decide the predictor):
// 1 + the exponent of float(w >> 1), w = v & ~(v >> 1) (v's top bit and no two
// adjacent ones below it, so the conversion cannot round up to the next power
// of two; w >> 1 is a positive i32); 0 where w >> 1 = 0 (v = 1).
inline __m128i floor_log2_x4(__m128i v) {
  const __m128i h = _mm_srli_epi32(_mm_andnot_si128(_mm_srli_epi32(v, 1), v), 1);
  const __m128i f = _mm_srli_epi32(_mm_castps_si128(_mm_cvtepi32_ps(h)), 23);
  const __m128i e = _mm_sub_epi32(f, _mm_set1_epi32(126));
  return _mm_andnot_si128(_mm_cmpeq_epi32(h, _mm_setzero_si128()), e);
}
inline __m128i zigzag_or1_x4(__m128i d) {
  const __m128i u = _mm_xor_si128(_mm_slli_epi32(d, 1), _mm_srai_epi32(d, 31));
  return _mm_or_si128(u, _mm_set1_epi32(1));
}
#endif

uint8_t choose_order(const int32_t* q, uint32_t len) {
  uint64_t c1 = 0, c2 = 0;
  uint32_t i = 2;
#if defined(__SSE2__)
  // four samples (i + j kOrderSampleEvery, j < 4) at a time: the same sums. Each
  // lane adds at most 31 per 4 kOrderSampleEvery values (below 2^21 for a chunk of
  // 2^20 values); the last sample reads q[i + 3 kOrderSampleEvery + 2].
  __m128i s1 = _mm_setzero_si128(), s2 = _mm_setzero_si128();
  for (; i + 3 * kOrderSampleEvery + 3 <= len; i += 4 * kOrderSampleEvery) {
    // q[k] - q[k - 1] for k = i - 1 .. i + 2 (+ j kOrderSampleEvery): d0, d1 in lanes 0, 1
    __m128i d[4];
    for (uint32_t j = 0; j < 4; ++j) {
      const int32_t* b = q + i + kOrderSampleEvery * j;
      d[j] = _mm_sub_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(b - 1)),
                           _mm_loadu_si128(reinterpret_cast<const __m128i*>(b - 2)));
    }
    const __m128i t0 = _mm_unpacklo_epi32(d[0], d[1]), t1 = _mm_unpacklo_epi32(d[2], d[3]);
    const __m128i d0 = _mm_unpacklo_epi64(t0, t1), d1 = _mm_unpackhi_epi64(t0, t1);
    s1 = _mm_add_epi32(s1, floor_log2_x4(zigzag_or1_x4(d1)));
    s2 = _mm_add_epi32(s2, floor_log2_x4(zigzag_or1_x4(_mm_sub_epi32(d1, d0))));
  }
  alignas(16) uint32_t l1[4], l2[4];
  _mm_store_si128(reinterpret_cast<__m128i*>(l1), s1);
  _mm_store_si128(reinterpret_cast<__m128i*>(l2), s2);
  for (int k = 0; k < 4; ++k) c1 += l1[k], c2 += l2[k];
#endif
  for (; i < len; i += kOrderSampleEvery) {
    const uint32_t d1 = static_cast<uint32_t>(q[i]) - static_cast<uint32_t>(q[i - 1]);
    const uint32_t d0 = static_cast<uint32_t>(q[i - 1]) - static_cast<uint32_t>(q[i - 2]);
    c1 += floor_log2_nodep(zigzag(d1) | 1u);
    c2 += floor_log2_nodep(zigzag(d1 - d0) | 1u);
  }
  return c2 < c1 ? kDenseOrder2 : kDenseOrder1;
}

// A raw chunk of the len values x (the fallback).
template <typename T>
size_t write_raw(const T* x, uint32_t len, uint8_t* out) {
  const size_t bytes = raw_chunk_bytes(len, sizeof(T));
  std::memset(out, 0, bytes);
  out[0] = kChunkRaw;
  std::memcpy(out + kRawChunkHeaderBytes, x, size_t{len} * sizeof(T));
  return bytes;
}

// ---- decoder --------------------------------------------------------------------------

constexpr uint32_t kTile = 2048;  // values per decoder pass (a multiple of kDenseStates)
static_assert(kTile == kInterpTile, "interp_decode fills RansResiduals a tile at a time");
constexpr uint32_t kTrialEvery = 2;  // predictor 5's estimates: every other residual

struct DenseView {
  DensePredictor pred;
  uint32_t nsym;
  uint16_t f[kDenseMaxSymbols];
  const uint8_t* extra;
  const uint8_t* states;  // then the words up to end
  const uint8_t* end;
};

// The parts of a dense chunk; false if malformed (validate_dense_chunk).
bool view_of(const uint8_t* in, size_t bytes, DenseView* v) {
  if (bytes < kDenseChunkHeaderBytes || in[0] != kChunkDense || in[3] != 0) return false;
  // the predictor id and its strides (which read_dense_predictor checks are in the chunk)
  if (!read_dense_predictor(in, bytes, &v->pred)) return false;
  v->nsym = in[2];
  if (v->nsym < 1 || v->nsym > kDenseMaxSymbols) return false;
  const uint8_t* end = in + bytes;
  const uint8_t* freqs = in + kDenseChunkHeaderBytes + dense_predictor_bytes(v->pred.id);
  const size_t table = read_table(freqs, end, v->nsym, v->f);
  if (table == 0) return false;
  uint32_t sum = 0;
  for (uint32_t s = 0; s < v->nsym; ++s) sum += v->f[s];
  if (sum != kScale) return false;
  v->extra = freqs + table;
  const uint64_t extra_bytes = load_u32(in + 4);
  if (extra_bytes + kDenseStateBytes > static_cast<uint64_t>(end - v->extra)) return false;
  v->states = v->extra + extra_bytes;
  v->end = end;
  return true;
}

// The last pass: values of the codes, out[i] = (T)(q * factor) as every decoder of §6
// computes it (or added to out).
// (float and double: the kernels' pass, dense_values_scalar)
template <typename T, bool kAcc>
void dequantize(const uint32_t* q, uint32_t n, double factor, T* out) {
  if constexpr (std::is_same_v<T, float>) {
    active_kernels().dense_values_f32(q, n, factor, out, kAcc);
  } else if constexpr (std::is_same_v<T, double>) {
    active_kernels().dense_values_f64(q, n, factor, out, kAcc);
  } else {
    for (uint32_t i = 0; i < n; ++i) {
      const T v =
          ValueTraits<T>::from_double(static_cast<double>(static_cast<int32_t>(q[i])) * factor);
      out[i] = kAcc ? add_values(out[i], v) : v;
    }
  }
}

// A chunk's residuals in stream order, a tile at a time (the kernels' first
// pass); interp_decode pulls them where its traversal is.
class RansResiduals final : public InterpResidualSource {
 public:
  explicit RansResiduals(const DenseView& v) {
    dec_table(v.f, v.nsym, tab_);
    for (uint32_t k = 0; k < kDenseStates; ++k) cur_.xs[k] = load_u32(v.states + 4 * k);
    cur_.words = v.states + kDenseStateBytes;
    cur_.end = v.end;
    cur_.tab = tab_;
    cur_.extra = v.extra;
    cur_.extra_bytes = static_cast<uint64_t>(v.states - v.extra);
    cur_.bit = 0;
  }
  void fill(uint32_t* r, uint32_t n) override {  // n: a multiple of 16 but the last
    active_kernels().dense_rans_residuals(&cur_, r, n);
  }
  DenseCursor& cursor() { return cur_; }

 private:
  DenseCursor cur_;
  uint32_t tab_[kScale];
};

// The kernels' decoders of predictors 1 and 2 (dense.h: dense_lorenzo_f32,
// _pair_f32), for the types they have: float and double.
template <typename T>
constexpr bool kLorenzoKernels = std::is_same_v<T, float> || std::is_same_v<T, double>;
template <typename T>
void lorenzo(const ChunkKernels& k, DenseCursor* c, DenseCarry* carry, bool order2, uint32_t n,
             double factor, T* out, bool acc) {
  if constexpr (std::is_same_v<T, float>)
    k.dense_lorenzo_f32(c, carry, order2, n, factor, out, acc);
  else
    k.dense_lorenzo_f64(c, carry, order2, n, factor, out, acc);
}
template <typename T>
void lorenzo_pair(const ChunkKernels& k, DenseCursor* c0, DenseCarry* k0, T* out0, DenseCursor* c1,
                  DenseCarry* k1, T* out1, bool order2, uint32_t n, double factor, bool acc) {
  if constexpr (std::is_same_v<T, float>)
    k.dense_lorenzo_pair_f32(c0, k0, out0, c1, k1, out1, order2, n, factor, acc);
  else
    k.dense_lorenzo_pair_f64(c0, k0, out0, c1, k1, out1, order2, n, factor, acc);
}

// Predictors 1 and 2 of float and double values: the kernels' one pass per
// tile, from the words to the values. Of the 16-bit types: the residuals of a
// tile into a stack buffer, turned into codes with the carry of the previous
// tile. Predictors 3 and 4: into nd, the chunk's array (len values), then
// codes in place (dense_unpredict_range: rows and planes of earlier tiles are
// codes already).
template <typename T, bool kAcc>
void decode_values(const DenseView& v, uint32_t len, double factor, T* out, uint32_t* nd) {
  RansResiduals src(v);
  DenseCarry carry;
  const bool order2 = v.pred.id == kDenseOrder2;
  alignas(32) uint32_t tile[kTile];
  for (uint32_t i = 0; i < len; i += kTile) {
    const uint32_t n = len - i < kTile ? len - i : kTile;  // a tile starts at a multiple of 16
    if constexpr (kLorenzoKernels<T>) {
      if (!nd) {
        lorenzo(active_kernels(), &src.cursor(), &carry, order2, n, factor, out + i, kAcc);
        continue;
      }
    }
    uint32_t* r = nd ? nd + i : tile;
    src.fill(r, n);
    if (nd)
      dense_unpredict_range(nd, i, i + n, v.pred);
    else if (order2)
      codes_from_residuals<true>(r, n, carry);
    else
      codes_from_residuals<false>(r, n, carry);
    dequantize<T, kAcc>(r, n, factor, out + i);
  }
}

}  // namespace

uint8_t* dense_rans_encode_scalar(const uint8_t* syms, uint32_t len, const DenseEncSymbols& es,
                                  uint8_t* end) {
  uint32_t x[kDenseStates];
  for (uint32_t& v : x) v = kRansL;
  uint8_t* p = end;
  uint32_t i = len;
  for (; i % kDenseStates; --i) dense_enc_put(x[(i - 1) % kDenseStates], p, es, syms[i - 1]);
  // the states stay in memory (sixteen do not fit the registers): sixteen
  // independent chains through the store-to-load forwarding
  for (; i; i -= kDenseStates) {
    const uint8_t* s = syms + i - kDenseStates;
    for (uint32_t k = kDenseStates; k-- > 0;) dense_enc_put(x[k], p, es, s[k]);
  }
  p -= kDenseStateBytes;
  for (uint32_t k = 0; k < kDenseStates; ++k) store_u32(p + 4 * k, x[k]);
  return p;
}

// GCC's SLP vectorizer packs the sixteen states into vector registers and back
// at every step (slower by half): off for this loop of scalar chains.
#if defined(__GNUC__) && !defined(__clang__)
__attribute__((optimize("no-tree-slp-vectorize")))
#endif
void dense_rans_decode_scalar(uint32_t* xs, const uint8_t** pos, const uint8_t* end,
                              const uint32_t* tab, uint8_t* syms, uint32_t n) {
  const uint8_t* p = *pos;  // a local: the symbol stores cannot alias it
  uint32_t x[kDenseStates];
  std::memcpy(x, xs, sizeof x);
  uint32_t i = 0;
  // a state per step of a turn (reading at most 2 bytes each): independent chains
  for (; i + kDenseStates <= n && end - p >= 2 * static_cast<ptrdiff_t>(kDenseStates);
       i += kDenseStates) {
#pragma GCC unroll 16
    for (uint32_t k = 0; k < kDenseStates; ++k) {
      syms[i + k] = dec_step(x[k], tab);
      renorm_fast(x[k], p);
    }
  }
  for (; i < n; ++i) {
    uint32_t& s = x[i % kDenseStates];
    syms[i] = dec_step(s, tab);
    renorm_safe(s, p, end);
  }
  std::memcpy(xs, x, sizeof x);
  *pos = p;
}

// A group of 16 residuals that are all direct symbols (the common case at loose
// bounds) takes one vector step; only the others go through the bit writer.
// The residuals of Lorenzo: 256 at a time, then the symbols.
size_t dense_symbols_scalar(const uint32_t* src, uint32_t len, uint8_t order, uint8_t* syms,
                            uint8_t* extra, uint32_t* cnt) {
  BitWriter bw{extra};
  uint32_t block[256];
  for (uint32_t at = 0; at < len; at += 256) {
    const uint32_t n = len - at < 256 ? len - at : 256;
    const uint32_t* r = src + at;
    if (order != 0) {
      for (uint32_t k = 0; k < n; ++k) block[k] = residual_at(src, at + k, order);
      r = block;
    }
    uint8_t* s = syms + at;
    uint32_t i = 0;
    for (; i + 16 <= n; i += 16) {
      if (!direct16_symbols(r + i, s + i))
        for (int k = 0; k < 16; ++k) put_symbol(zigzag(r[i + k]), s + i + k, bw);
    }
    for (; i < n; ++i) put_symbol(zigzag(r[i]), s + i, bw);
  }
  bw.flush();
  // counts in eight tables: runs of one symbol, the common case at loose
  // bounds, do not wait on each other's increment
  uint32_t t[8][256] = {};
  uint32_t i = 0;
  for (; i + 8 <= len; i += 8) {
    uint64_t w;
    std::memcpy(&w, syms + i, 8);
    for (int k = 0; k < 8; ++k) ++t[k][(w >> (8 * k)) & 0xFF];
  }
  for (; i < len; ++i) ++t[0][syms[i]];
  for (uint32_t v = 0; v < kDenseMaxSymbols; ++v)
    cnt[v] = t[0][v] + t[1][v] + t[2][v] + t[3][v] + t[4][v] + t[5][v] + t[6][v] + t[7][v];
  return static_cast<size_t>(bw.p - extra);
}

// Groups of 16 direct symbols take no bits; other groups read 8 bytes per value
// at the bit position (no branch) while every bit they may need lies in the
// stream (those loads then stay inside the chunk: the states follow the
// stream), bytewise near its end.
uint64_t dense_residuals_scalar(const uint8_t* syms, uint32_t n, const uint8_t* extra,
                                uint64_t extra_bytes, uint64_t at, uint32_t* r) {
  uint32_t i = 0;
  for (; i + 16 <= n; i += 16) {
    if (direct16(syms + i, r + i)) continue;  // every symbol < 64: no extra bits
    if (at + 16 * 29 <= 8 * extra_bytes)
      at = residuals_scalar<true>(syms + i, 16, extra, extra_bytes, at, r + i);
    else
      at = residuals_scalar<false>(syms + i, 16, extra, extra_bytes, at, r + i);
  }
  return residuals_scalar<false>(syms + i, n - i, extra, extra_bytes, at, r + i);
}

void dense_rans_residuals_scalar(DenseCursor* c, uint32_t* r, uint32_t n) {
  uint8_t syms[256];
  for (uint32_t i = 0; i < n; i += 256) {  // a multiple of 16: each call starts at state 0
    const uint32_t m = n - i < 256 ? n - i : 256;
    dense_rans_decode_scalar(c->xs, &c->words, c->end, c->tab, syms, m);
    c->bit = dense_residuals_scalar(syms, m, c->extra, c->extra_bytes, c->bit, r + i);
  }
}

namespace {
// The passes in turn, a tile at a time (the AVX2 version's tail too).
template <typename T>
void lorenzo_scalar(DenseCursor* c, DenseCarry* carry, bool order2, uint32_t n, double factor,
                    T* out, bool acc) {
  uint32_t r[256];
  for (uint32_t i = 0; i < n; i += 256) {
    const uint32_t m = n - i < 256 ? n - i : 256;
    dense_rans_residuals_scalar(c, r, m);
    if (order2)
      codes_from_residuals<true>(r, m, *carry);
    else
      codes_from_residuals<false>(r, m, *carry);
    dense_values_scalar(r, m, factor, out + i, acc);
  }
}
}  // namespace

void dense_lorenzo_f32_scalar(DenseCursor* c, DenseCarry* carry, bool order2, uint32_t n,
                              double factor, float* out, bool acc) {
  lorenzo_scalar(c, carry, order2, n, factor, out, acc);
}
void dense_lorenzo_f64_scalar(DenseCursor* c, DenseCarry* carry, bool order2, uint32_t n,
                              double factor, double* out, bool acc) {
  lorenzo_scalar(c, carry, order2, n, factor, out, acc);
}
void dense_lorenzo_pair_f32_scalar(DenseCursor* c0, DenseCarry* k0, float* out0, DenseCursor* c1,
                                   DenseCarry* k1, float* out1, bool order2, uint32_t n,
                                   double factor, bool acc) {
  lorenzo_scalar(c0, k0, order2, n, factor, out0, acc);
  lorenzo_scalar(c1, k1, order2, n, factor, out1, acc);
}
void dense_lorenzo_pair_f64_scalar(DenseCursor* c0, DenseCarry* k0, double* out0, DenseCursor* c1,
                                   DenseCarry* k1, double* out1, bool order2, uint32_t n,
                                   double factor, bool acc) {
  lorenzo_scalar(c0, k0, order2, n, factor, out0, acc);
  lorenzo_scalar(c1, k1, order2, n, factor, out1, acc);
}

// The values of n codes, out[i] = (T)(q[i] * factor), or added to out (acc).
template <typename T>
void dense_values_scalar(const uint32_t* q, uint32_t n, double factor, T* out, bool acc) {
  for (uint32_t i = 0; i < n; ++i) {
    const T v = static_cast<T>(static_cast<double>(static_cast<int32_t>(q[i])) * factor);
    out[i] = acc ? out[i] + v : v;
  }
}
template void dense_values_scalar<float>(const uint32_t*, uint32_t, double, float*, bool);
template void dense_values_scalar<double>(const uint32_t*, uint32_t, double, double*, bool);

namespace {

// The code-domain predictor of codes q[0, len) (dense_predict.h): with n-D
// candidates where the chunk holds more than one row, otherwise order 1 or 2
// (the same choice as choose_dense_predictor's).
DensePredictor code_domain_predictor(const int32_t* q, uint32_t len, const DenseShape& shape) {
  DensePredictor pred;
  if (shape.row && shape.row < len)
    pred = choose_dense_predictor(q, len, shape);
  else
    pred.id = choose_order(q, len);
  return pred;
}

// What choose_interp decided.
enum class Interp {
  kCoded,       // predictor 5: *pred, its residuals in the scratch's res
  kTakeCodes,   // the code domain: the caller quantizes the chunk and chooses
  kCodesReady,  // the code domain, *pred chosen and the scratch's codes quantized
};

// The cross trial, for a chunk the first trial leaves in the band: about
// kInterpTrial / 2 values that span the chunk's slowest dim, as a chunk of their
// own, with the trial's interpolation (linear or cubic) and the code-domain
// predictor chosen on them. In 3-D a window of rows in the middle of every whole
// plane of the chunk, in 2-D a window of columns in the middle of every whole
// row (k and fq: the caller's kernels and fine quantizer). The first trial is
// short along the slowest dim, this one along another, so they are wrong in
// different places: where both give the code domain, the
// chunk takes it without the whole-chunk estimates. Returns whether the code
// domain needs no more bits in the window; false where the window would be under
// 2 rows (3-D) or 4 columns (2-D), over half the chunk's, or span one plane or
// row, or a value cannot be quantized (there the whole-chunk estimates decide).
// (shared/data, 3 bounds: it decides 39 of the band's 62 chunks, 20 of fnoc's 24
// at 1e-3 and 1e-4; it takes the code domain where the whole-chunk estimates
// interpolate on one chunk, of etopo5 at 1e-3: 0.08% on that field's stream.
// The window is half the first trial's length: one as long decided 3 more of
// the 62 chunks, at twice the cost.
// docs/reports/2026-11-29-codec-frontier-10.md.)
template <typename T>
bool cross_trial_takes_codes(const ChunkKernels& k, const T* x, uint32_t len,
                             const Quantizer<T>& qz, const Quantizer<T>& fq, InterpGrid g,
                             const DenseShape& shape) {
  constexpr uint32_t kTarget = kInterpTrial / 2;
  const uint32_t row = g.row;
  // the window: `lines` pieces of `piece` values, `stride` apart, from `first`
  uint32_t lines, piece, stride, first;
  DenseShape bs = shape;
  if (g.ndim == 3) {
    const uint32_t rows = g.plane / row, planes = len / g.plane, r = kTarget / (planes * row);
    if (planes < 2 || r < 2 || 2 * r > rows) return false;
    lines = planes, piece = r * row, stride = g.plane, first = (rows - r) / 2 * row;
    bs.row = row, bs.plane = piece;
  } else {
    lines = len / row;
    const uint32_t w = kTarget / lines;
    if (lines < 2 || w < 4 || 2 * w > row) return false;
    piece = w, stride = row, first = (row - w) / 2;
    bs.row = w, bs.plane = 0;
  }
  const uint32_t m = lines * piece;
  Scratch& s = t_scratch;
  for (uint32_t l = 0; l < lines; ++l) {
    const T* from = x + size_t{l} * stride + first;
    if (!quantize_values(k, from, piece, qz, s.codes.data() + size_t{l} * piece) ||
        !quantize_values(k, from, piece, fq, s.fine.data() + size_t{l} * piece))
      return false;
  }
  g.row = bs.row, g.plane = bs.plane;
  const DensePredictor code_pred = code_domain_predictor(s.codes.data(), m, bs);
  const uint64_t code_bits = dense_code_bits(s.codes.data(), m, code_pred, kTrialEvery);
  interp_residuals(s.fine.data(), m, g, s.res.data());
  return dense_residual_bits(s.res.data(), m, kTrialEvery) >= code_bits;
}

// With dims: predictor 5, in as many dims as the shape's strides reach into
// the chunk, linear or cubic. First a trial on up to kInterpTrial values in the
// middle of the chunk (its edges are often special: a pole, a first plane),
// as a chunk of their own: linear, cubic and the code-domain predictor (which
// is better depends on the reconstructions, not only on the values). Where the
// code domain needs under 4/5 of interpolation's bits there, the chunk is coded
// in the code domain and nothing more is spent on predictor 5; where
// interpolation needs fewer bits, it codes the chunk (the trial, shorter than
// the chunk along its slow dims, favours the code domain); in between (in 1-D
// the trial decides) the cross trial above may give the code domain, and
// otherwise both are estimated on the whole chunk (every other residual, the
// code domain with the trial's predictor and on ties; the code-domain predictor
// is chosen again on the whole chunk only where it wins). Predictor 5 only if every
// value's reconstruction is within the bound. (The thresholds, on shared/data,
// by the whole-chunk estimates: what the trial decides alone costs a field at
// most 0.06% (one small chunk 24%); the lower threshold was 3/5, and a trial
// that decides every 2-D and 3-D chunk alone costs a field up to 1.4%, one
// bound of a field 13%. A block of the chunk's shape as the trial decides no
// better: docs/reports/2026-11-29-codec-frontier-5.md.)
template <typename T>
Interp choose_interp(const T* x, uint32_t len, const Quantizer<T>& qz, const DenseShape& shape,
                     DensePredictor* pred) {
  Scratch& s = t_scratch;
  if (s.fine.size() < len) s.fine.resize(len), s.alt.resize(len);
  InterpGrid g;
  g.ndim = shape.plane && shape.plane < len ? 3 : shape.row && shape.row < len ? 2 : 1;
  g.row = g.ndim >= 2 ? shape.row : 0;
  g.plane = g.ndim == 3 ? shape.plane : 0;
  const ChunkKernels& k = active_kernels();
  const Quantizer<T> fq = interp_fine_quantizer(qz);
  const uint32_t n = std::min(len, kInterpTrial), at = (len - n) / 2;
  // the trial; a value that cannot be quantized (fine or not): the caller's path
  if (!quantize_values(k, x + at, n, qz, s.codes.data()) ||
      !quantize_values(k, x + at, n, fq, s.fine.data()))
    return Interp::kTakeCodes;
  const DensePredictor code_pred = code_domain_predictor(s.codes.data(), n, shape);
  const uint64_t code_trial = dense_code_bits(s.codes.data(), n, code_pred, kTrialEvery);
  // A chunk of at most kInterpTrial values is its own trial: the trial's codes,
  // reconstructions and residuals are the chunk's (both trials kept), and the
  // whole-chunk estimates below would repeat the trial's.
  const bool whole = n == len;
  if (whole && s.alt_cubic.size() < len) s.alt_cubic.resize(len);
  // (res and res_cubic trade places below: each as long as the longest chunk's)
  if (whole && s.res_cubic.size() < s.res.size()) s.res_cubic.resize(s.res.size());
  uint64_t trial[2];
  for (const bool cubic : {false, true}) {
    g.cubic = cubic;
    uint32_t* rec = whole && cubic ? s.alt_cubic.data() : s.alt.data();
    uint32_t* res = whole && cubic ? s.res_cubic.data() : s.res.data();
    std::copy(s.fine.data(), s.fine.data() + n, rec);  // (alt as fine codes here)
    interp_residuals(reinterpret_cast<int32_t*>(rec), n, g, res);
    trial[cubic] = dense_residual_bits(res, n, kTrialEvery);
  }
  g.cubic = trial[1] < trial[0];
  const uint64_t best = trial[g.cubic];
  if (whole) {  // the codes are quantized and code_pred is the chunk's choice
    if (best >= code_trial) {
      *pred = code_pred;
      return Interp::kCodesReady;
    }
    if (g.cubic) std::swap(s.res, s.res_cubic);
    const uint32_t* rec = g.cubic ? s.alt_cubic.data() : s.alt.data();
    if (!interp_within_bound(x, reinterpret_cast<const int32_t*>(rec), len, qz))
      return Interp::kTakeCodes;
    *pred = interp_predictor_of(g);
    return Interp::kCoded;
  }
  // (a 1-D trial is the chunk's dim, shorter: it decides alone)
  if (4 * best >= 5 * code_trial || (g.ndim == 1 && best >= code_trial)) return Interp::kTakeCodes;
  if (best >= code_trial && cross_trial_takes_codes(k, x, len, qz, fq, g, shape))
    return Interp::kTakeCodes;
  if (!quantize_values(k, x, len, fq, s.fine.data())) return Interp::kTakeCodes;
  interp_residuals(s.fine.data(), len, g, s.res.data());
  if (best >= code_trial) {  // not clear: both on the whole chunk
    if (!quantize_values(k, x, len, qz, s.codes.data())) return Interp::kTakeCodes;
    if (dense_residual_bits(s.res.data(), len, kTrialEvery) >=
        dense_code_bits(s.codes.data(), len, code_pred, kTrialEvery)) {
      *pred = code_domain_predictor(s.codes.data(), len, shape);
      return Interp::kCodesReady;
    }
  }
  if (!interp_within_bound(x, s.fine.data(), len, qz)) return Interp::kTakeCodes;
  *pred = interp_predictor_of(g);
  return Interp::kCoded;
}

}  // namespace

template <typename T>
size_t compress_dense_chunk(const T* x, uint32_t len, const Quantizer<T>& qz, uint8_t* out,
                            const DenseShape& shape) {
  Scratch& s = t_scratch;
  if (s.codes.size() < len) {
    s.codes.resize(len), s.res.resize(len), s.syms.resize(len);
    s.extra.resize(4 * size_t{len} + 16), s.rans.resize(2 * size_t{len} + 64);
  }
  const size_t raw = raw_chunk_bytes(len, sizeof(T));
  DensePredictor pred;
  const Interp how = shape.interp ? choose_interp(x, len, qz, shape, &pred) : Interp::kTakeCodes;
  if (how == Interp::kTakeCodes) {
    if (!quantize_values(active_kernels(), x, len, qz, s.codes.data()))
      return write_raw(x, len, out);
    pred = code_domain_predictor(s.codes.data(), len, shape);
  }
  // the symbols of predictor 5's residuals, of predictor 3's or 4's, or of
  // Lorenzo of the codes (the pass computes those)
  const uint32_t* src = s.res.data();
  uint8_t order = 0;
  if (how != Interp::kCoded && pred.id >= kDenseLorenzo2D) {
    dense_residuals(s.codes.data(), len, pred, s.res.data());
  } else if (how != Interp::kCoded) {
    src = reinterpret_cast<const uint32_t*>(s.codes.data());
    order = pred.id;
  }
  uint32_t cnt[kDenseMaxSymbols];
  const size_t extra_bytes =
      active_kernels().dense_symbols(src, len, order, s.syms.data(), s.extra.data(), cnt);
  uint32_t nsym = 0;
  for (uint32_t v = 0; v < kDenseMaxSymbols; ++v) nsym = cnt[v] ? v + 1 : nsym;
  uint16_t f[kDenseMaxSymbols];
  normalize(cnt, nsym, len, f);
  uint8_t table[2 * kDenseMaxSymbols];
  const size_t table_bytes = write_table(f, nsym, table);
  const size_t fields = kDenseChunkHeaderBytes + dense_predictor_bytes(pred.id);
  const size_t head = fields + table_bytes + extra_bytes;
  if (head + kDenseStateBytes >= raw) return write_raw(x, len, out);
  DenseEncSymbols es;
  enc_symbols(f, nsym, &es);
  uint8_t* rend = s.rans.data() + s.rans.size();
  const uint8_t* rbeg = active_kernels().dense_rans_encode(s.syms.data(), len, es, rend);
  const size_t pos = head + static_cast<size_t>(rend - rbeg);
  if (align8(pos) >= raw) return write_raw(x, len, out);
  out[0] = kChunkDense;
  out[2] = static_cast<uint8_t>(nsym);
  out[3] = 0;
  store_u32(out + 4, static_cast<uint32_t>(extra_bytes));
  write_dense_predictor(pred, out);  // out[1] and the strides after the header
  std::memcpy(out + fields, table, table_bytes);
  std::memcpy(out + fields + table_bytes, s.extra.data(), extra_bytes);
  std::memcpy(out + head, rbeg, pos - head);
  std::memset(out + pos, 0, align8(pos) - pos);
  return align8(pos);
}

bool validate_dense_chunk(const uint8_t* in, size_t bytes) {
  DenseView v;
  if (!view_of(in, bytes, &v)) return false;
  for (uint32_t k = 0; k < kDenseStates; ++k) {
    const uint32_t x = load_u32(v.states + 4 * k);
    if (x < kRansL || x >= (1u << 31)) return false;
  }
  return true;
}

template <typename T>
void decompress_dense_chunk(const uint8_t* in, size_t bytes, uint32_t len, double factor, T* out,
                            bool accumulate) {
  DenseView v;
  if (!view_of(in, bytes, &v)) return;  // validate_dense_chunk accepted it: cannot happen
  if (v.pred.id == kDenseInterp) {
    if (t_nd_codes.size() < len) t_nd_codes.resize(len);  // as below
    int32_t* fine = reinterpret_cast<int32_t*>(t_nd_codes.data());
    RansResiduals src(v);
    interp_decode(interp_grid_of(v.pred), len, src, fine);
    const auto* q = reinterpret_cast<const uint32_t*>(fine);
    const double step = factor * (1.0 / kInterpFine);  // exact: a power of two
    if (accumulate)
      dequantize<T, true>(q, len, step, out);
    else
      dequantize<T, false>(q, len, step, out);
    return;
  }
  uint32_t* nd = nullptr;
  if (v.pred.id >= kDenseLorenzo2D) {
    // dense_decode_reserve made it large enough, or this may throw (dense.h)
    if (t_nd_codes.size() < len) t_nd_codes.resize(len);
    nd = t_nd_codes.data();
  }
  if (accumulate)
    decode_values<T, true>(v, len, factor, out, nd);
  else
    decode_values<T, false>(v, len, factor, out, nd);
}

template <typename T>
bool decompress_dense_pair(const uint8_t* in0, size_t bytes0, const uint8_t* in1, size_t bytes1,
                           uint32_t len, double factor, T* out0, T* out1, bool accumulate) {
  if constexpr (kLorenzoKernels<T>) {
    DenseView v0, v1;
    if (!view_of(in0, bytes0, &v0) || !view_of(in1, bytes1, &v1)) return false;
    const uint8_t order = v0.pred.id;
    if ((order != kDenseOrder1 && order != kDenseOrder2) || v1.pred.id != order) return false;
    RansResiduals s0(v0), s1(v1);
    DenseCarry k0, k1;
    lorenzo_pair(active_kernels(), &s0.cursor(), &k0, out0, &s1.cursor(), &k1, out1,
                 order == kDenseOrder2, len, factor, accumulate);
    return true;
  }
  return false;
}

bool dense_decode_needs_scratch(const uint8_t* in) { return in[1] >= kDenseLorenzo2D; }

bool dense_decode_reserve(uint32_t len) noexcept {
  try {
    if (t_nd_codes.size() < len) t_nd_codes.resize(len);
    return true;
  } catch (const std::bad_alloc&) {
    return false;
  }
}

void dense_enc_symbols(const uint16_t* f, uint32_t nsym, DenseEncSymbols* es) {
  enc_symbols(f, nsym, es);
}
void dense_dec_table(const uint16_t* f, uint32_t nsym, uint32_t* tab) { dec_table(f, nsym, tab); }

template size_t compress_dense_chunk<float>(const float*, uint32_t, const Quantizer<float>&,
                                            uint8_t*, const DenseShape&);
template void decompress_dense_chunk<float>(const uint8_t*, size_t, uint32_t, double, float*, bool);
template bool decompress_dense_pair<float>(const uint8_t*, size_t, const uint8_t*, size_t, uint32_t,
                                           double, float*, float*, bool);
template size_t compress_dense_chunk<double>(const double*, uint32_t, const Quantizer<double>&,
                                             uint8_t*, const DenseShape&);
template void decompress_dense_chunk<double>(const uint8_t*, size_t, uint32_t, double, double*,
                                             bool);
template bool decompress_dense_pair<double>(const uint8_t*, size_t, const uint8_t*, size_t,
                                            uint32_t, double, double*, double*, bool);
template size_t compress_dense_chunk<Bf16>(const Bf16*, uint32_t, const Quantizer<Bf16>&, uint8_t*,
                                           const DenseShape&);
template void decompress_dense_chunk<Bf16>(const uint8_t*, size_t, uint32_t, double, Bf16*, bool);
template bool decompress_dense_pair<Bf16>(const uint8_t*, size_t, const uint8_t*, size_t, uint32_t,
                                          double, Bf16*, Bf16*, bool);
template size_t compress_dense_chunk<Fp16>(const Fp16*, uint32_t, const Quantizer<Fp16>&, uint8_t*,
                                           const DenseShape&);
template void decompress_dense_chunk<Fp16>(const uint8_t*, size_t, uint32_t, double, Fp16*, bool);
template bool decompress_dense_pair<Fp16>(const uint8_t*, size_t, const uint8_t*, size_t, uint32_t,
                                          double, Fp16*, Fp16*, bool);

}  // namespace zcoll
