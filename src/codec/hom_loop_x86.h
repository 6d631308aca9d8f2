// hom_loop_x86.h — the block loop of the homomorphic add/sub on x86 (the scalar
// one is combine_blocks_scalar in chunk_scalar.h; all give the same bytes),
// generic over the adder of the blocks whose steps are in reach: FastAdd of
// hom_avx2.cc (AVX2) or of hom_avx512.cc (AVX-512VL on 256-bit vectors). Include
// it only after the target pragma of such a translation unit: every function here
// is compiled for that unit's target. An adder Adder<kSub> has
//   Adder(a, wa4, b, wb4, out)  the operands' payloads and widths (4 w bytes each)
//   __m256i step(size_t j)      the sum's bytes j .. j + 31 (j = 0, 32, ... in
//                               turn), stored, returned
//   __m256i sign(size_t m4)     the sum's sign plane, stored at byte m4
//   differ(s, t), differ2(hi, lo, t), differ_below(s): bit k set where plane k of
//                               s (of lo, then hi) differs from t (from the plane
//                               below, plane -1 being 0)
//
// One register holds 8 bit planes of a block (32 values each): the two operands are
// sign-extended (by a blend; by a masked load with AVX-512), added with a Kogge-Stone carry prefix across the 8
// planes (3 steps instead of a ripple of 8, no branch on the widths) and the
// result's code length comes from a movemask of the last step (and of the one
// before, if any). Pipelines 1 and 2 copy 8 planes per load and store. The
// blocks whose 8-plane steps are in reach (all but a chunk's last few) run in a
// loop of their own, which keeps its values in registers: it took the add on
// fnoc-vwnd at REL 1e-4 from 200 to 147 instructions a block
// (docs/reports/2026-11-30-hom-in-reach.md). Comparing only the last steps'
// planes with the plane below, step 0 with its constant carry-in apart and one
// reach test a block took it to 121 (and REL 1e-2 from 111 to 83;
// docs/reports/2026-11-30-codec-frontier-13.md). Plane m = max(wa, wb) of the
// sum taken from the carry (so m = 8 is one step) and compared with the planes
// below for the code length, an explicit two-step path and the carry-in joined
// at the halves took it to 111.5, and rect3d-t (REL 1e-4) and rhumidity (1e-3)
// from 112 to 94 and 95 (REL 1e-2 within 1.1% of before;
// docs/reports/2026-11-30-codec-frontier-14.md). A chunk whose adds are not
// mostly m < 8 takes m <= 8 in one path (one_step_path_pays): 18-43% fewer
// mispredicted branches in callgrind's model on the rows with mixed widths
// (docs/reports/2026-11-30-codec-frontier-15.md). The reach counting to the end
// of the stream, not of the chunk, and a stream's last bytes copied with zeros
// after them, so that a chunk's last blocks take the loop too rather than
// add_blocks one by one: 3-33% fewer instructions a block on shared/data's 33
// rows (docs/reports/2026-11-30-codec-frontier-16.md).
#pragma once

#include <immintrin.h>

#include <cstddef>
#include <cstdint>
#include <cstring>

#include "codec/chunk_scalar.h"
#include "codec/planes_avx2.h"

namespace zcoll {
namespace {

// Planes j .. j+7 of a block of width w at p (avail bytes readable there), those
// at or above w replaced by the sign plane (the value of planes >= w). No branch
// on w: the planes past the chunk are not read (masked load), the blend drops them.
inline __m256i planes8(const uint8_t* p, size_t avail, uint32_t w, uint32_t j, __m256i sign) {
  const __m256i keep = _mm256_cmpgt_epi32(_mm256_set1_epi32(static_cast<int>(w - j)),
                                          _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
  const size_t left = avail > 4 * j ? avail - 4 * j : 0;
  return _mm256_blendv_epi8(sign, load_plane_words(p + 4 * j, left), keep);
}

inline __m256i sign_plane(const uint8_t* p, uint32_t w) {
  return w ? _mm256_set1_epi32(static_cast<int>(load_u32(p + 4 * (w - 1))))
           : _mm256_setzero_si256();
}

// The planes moved up by one lane, lane 0 taken from lane 7 of prev (the step
// before): [prev.hi | x.lo] has prev's lane 7 and x's lane 3 where the in-lane
// byte shift needs them, so one lane-crossing permute per 8 planes.
inline __m256i up1(__m256i x, __m256i prev) {
  return _mm256_alignr_epi8(x, _mm256_permute2x128_si256(x, prev, 0x03), 12);
}

// Dword k of each 128-bit half moved up to dword k + n/4 of that half, the dwords
// below taken from the same half of f (in-lane: no lane crosses).
template <int n>
inline __m256i up_in_halves(__m256i x, __m256i f) {
  return _mm256_alignr_epi8(x, f, 16 - n);
}

// S = A + B + carry over 8 planes, for 32 values at once. *c: the carry into plane
// 0 (every lane equal); on return the carry out of plane 7. g, p: generate and
// propagate, combined over 1 and 2 planes inside each 128-bit half (planes 0-3 |
// 4-7; p filled with ones at the half's start, so that it stays the propagate of
// the half's prefix); then the carries into the halves, [carry in | g3 | p3 &
// carry in], join them: one lane-crossing step instead of one per level. The
// carry into plane j is then g of plane j-1.
inline __m256i add8(__m256i A, __m256i B, __m256i* c) {
  const __m256i zero = _mm256_setzero_si256(), ones = _mm256_set1_epi32(-1);
  const __m256i p0 = _mm256_xor_si256(A, B);
  __m256i p = p0, g = _mm256_and_si256(A, B);
  g = _mm256_or_si256(g, _mm256_and_si256(p, up_in_halves<4>(g, zero)));
  p = _mm256_and_si256(p, up_in_halves<4>(p, ones));
  g = _mm256_or_si256(g, _mm256_and_si256(p, up_in_halves<8>(g, zero)));
  p = _mm256_and_si256(p, up_in_halves<8>(p, ones));
  const __m256i x = _mm256_or_si256(g, _mm256_and_si256(p, *c));  // lane 3: carry into plane 4
  const __m256i cin = _mm256_shuffle_epi32(_mm256_permute2x128_si256(x, *c, 0x02), 0xFF);
  g = _mm256_or_si256(g, _mm256_and_si256(p, cin));
  const __m256i s = _mm256_xor_si256(p0, up_in_halves<4>(g, cin));
  *c = _mm256_permutevar8x32_epi32(g, _mm256_set1_epi32(7));
  return s;
}

// 32 bytes to out, which has room bytes: through a buffer when they do not fit
// (then only `keep` bytes are written).
inline void store32(uint8_t* out, size_t room, __m256i v, size_t keep) {
  if (room >= 32) return _mm256_storeu_si256(reinterpret_cast<__m256i*>(out), v);
  alignas(32) uint8_t buf[32];
  _mm256_store_si256(reinterpret_cast<__m256i*>(buf), v);
  std::memcpy(out, buf, keep);
}

// Highest set bit + 1 of a byte, 0 for 0 (a table: no branch, no LZCNT needed).
struct TopBitTable {
  uint8_t v[256];
  constexpr TopBitTable() : v() {
    for (int i = 1; i < 256; ++i) v[i] = static_cast<uint8_t>(v[i / 2] + 1);
  }
};
constexpr TopBitTable kTopBitTable;
constexpr const uint8_t* kTopBit = kTopBitTable.v;

// a + b (b's planes flipped and a carry-in of 1 for a - b) of two blocks of widths
// wa, wb (1..33; wa may be 0 for 0 - b) to out: max(wa, wb) + 1 planes, stored 8 at
// a time. Returns the code length: 1 + the highest plane that differs from the one
// below it (planes above that only repeat the sign), 0 for an all-zero block.
// Bounds-checked (a_avail, b_avail, room bytes there): for the blocks near a
// chunk's end; add_blocks_fast takes the others.
inline uint32_t add_blocks(const uint8_t* a, size_t a_avail, uint32_t wa, const uint8_t* b,
                           size_t b_avail, uint32_t wb, bool subtract, uint8_t* out, size_t room) {
  const __m256i flip = subtract ? _mm256_set1_epi32(-1) : _mm256_setzero_si256();
  const __m256i sa = sign_plane(a, wa), sb = sign_plane(b, wb);
  const uint32_t n = (wa > wb ? wa : wb) + 1;
  __m256i carry = flip, prev = _mm256_setzero_si256();  // a - b = a + ~b + 1
  uint32_t W = 0;
  for (uint32_t j = 0; j < n; j += 8) {
    const __m256i A = planes8(a, a_avail, wa, j, sa);
    const __m256i B = _mm256_xor_si256(planes8(b, b_avail, wb, j, sb), flip);
    const __m256i s = add8(A, B, &carry);
    store32(out + 4 * j, room - 4 * j, s, 4 * (n - j < 8 ? n - j : 8));
    const __m256i same = _mm256_cmpeq_epi32(s, up1(s, prev));
    const uint32_t differ = ~static_cast<uint32_t>(_mm256_movemask_ps(_mm256_castsi256_ps(same)));
    const uint32_t top = kTopBit[differ & 0xFF];
    W = top ? j + top : W;
    prev = s;
  }
  return W;
}

// The code length of a block whose planes from j on all equal plane j - 1: 1 +
// the highest plane below j that differs from the one below it (plane -1 is 0).
inline uint32_t code_length_below(const uint8_t* out, uint32_t j) {
  for (; j > 1; --j)
    if (load_u32(out + 4 * (j - 1)) != load_u32(out + 4 * (j - 2))) return j;
  return j == 1 && load_u32(out) != 0 ? 1 : 0;
}

// What every adder holds: the operands' payloads, where the sum goes, and the
// operands' sign planes (their top plane in every lane; 0 for a of 0 - b, which
// has no planes: the only adds with wa4 = 0).
struct AdderOperands {
  const uint8_t *a, *b;
  uint8_t* out;
  __m256i sa, sb;
  AdderOperands(const uint8_t* a_, uint32_t wa4, const uint8_t* b_, uint32_t wb4, uint8_t* out_)
      : a(a_),
        b(b_),
        out(out_),
        sa(wa4 == 0 ? _mm256_setzero_si256()
                    : _mm256_set1_epi32(static_cast<int>(load_u32(a_ + wa4 - 4)))),
        sb(_mm256_set1_epi32(static_cast<int>(load_u32(b_ + wb4 - 4)))) {}
};

// The code length of a sum from its planes compared with t, the sign plane it has
// from plane m on: bit k of differ set where plane below + k differs from t (the
// planes compared reach m - 1). 2 + the highest such plane; where none differs
// (the sum shrank below plane `below`), the stored planes decide.
inline uint32_t code_length_under_t(uint32_t differ, uint32_t below, const uint8_t* out) {
  if (__builtin_expect(differ == 0, 0)) return code_length_below(out, below + 1);
  return below + 2 + static_cast<uint32_t>(31 ^ __builtin_clz(differ));
}

// add_blocks without bounds checks, for a block whose every 8-plane step is in
// reach (the caller checked), wb >= 1 and wa >= 1 (or 0 for 0 - b); wa4, wb4:
// their payload bytes (4 wa, 4 wb); m4 = 4 m, m = max(wa, wb), passed in so that
// it stays a cmov (GCC made a branch on wa > wb of it otherwise, which read
// slower). The sum has m + 1 planes: plane m and all above it are its sign plane
// t = sa ^ sb ^ the carry out of the planes below. So the steps cover planes
// 0 .. m - 1 only and t is stored at plane m: m = 8 (16) takes one step (two),
// not two (three) whose last had one plane to add. For m < 8 the step's planes
// are compared with the plane below, as before; else with t: the code length is
// 2 + the highest plane of the last step and the one before, if any, that
// differs from t. When none differs (a sum of 0 and -1, or past two steps one
// that shrank by 8 planes or more, as for a - b with b close to a) the stored
// planes decide. Comparing the last step only was 9 instructions a block fewer
// on fnoc-vwnd, but left 7% of its blocks to that branch, which resolves only at
// the end of the block's adds and mispredicts: slower. kSub: b's planes flipped
// and a carry-in of 1. kOneStepPath: m <= 8 in one path, the step's planes
// compared with t (for m < 8 plane 8 repeats the sign planes, as every plane
// from m on does); chosen per chunk by one_step_path_pays.
template <template <bool> class Adder, bool kSub, bool kOneStepPath>
inline uint32_t add_blocks_fast(const uint8_t* a, uint32_t wa4, const uint8_t* b, uint32_t wb4,
                                uint32_t m4, uint8_t* out) {
  using F = Adder<kSub>;
  if (kOneStepPath && m4 <= 32) {  // one step and plane 8
    F f(a, wa4, b, wb4, out);
    const __m256i s = f.step(0), t = f.sign(32);
    return code_length_under_t(F::differ(s, t), 0, out);
  }
  if (m4 < 32) {  // one step, its planes compared with the plane below
    F f(a, wa4, b, wb4, out);
    const uint32_t differ = F::differ_below(f.step(0));
    return static_cast<uint32_t>(31 ^ __builtin_clz(differ * 2 + 1));  // 0 for an all-zero sum
  }
  if (m4 == 32) {  // one step and plane 8
    F f(a, wa4, b, wb4, out);
    const __m256i s = f.step(0), t = f.sign(m4);
    return code_length_under_t(F::differ(s, t), 0, out);
  }
  if (m4 <= 64) {  // two steps and plane m
    F f(a, wa4, b, wb4, out);
    const __m256i s0 = f.step(0), s1 = f.step(32), t = f.sign(m4);
    return code_length_under_t(F::differ2(s1, s0, t), 0, out);
  }
  F f(a, wa4, b, wb4, out);  // three steps or more
  __m256i prev = f.step(0);
  const size_t last = (m4 - 4) & ~31u;  // bytes below the last step
  for (size_t j = 32; j != last; j += 32) prev = f.step(j);
  const __m256i s = f.step(last), t = f.sign(m4);
  return code_length_under_t(F::differ2(s, prev, t), static_cast<uint32_t>(last / 4) - 8, out);
}

// Pipelines 1 and 2: the w planes of one block, 8 per load and store.
inline void copy_planes(uint8_t* out, size_t room, const uint8_t* in, size_t avail, uint32_t w) {
  for (uint32_t j = 0; j < w; j += 8)
    store32(out + 4 * j, room - 4 * j, load_plane_words(in + 4 * j, avail - 4 * j),
            4 * (w - j < 8 ? w - j : 8));
}

// The bytes an 8-plane step of add_blocks may read or write past a block's start.
constexpr size_t kStepReach = 4 * (size_t{kMaxCodeLength} + 8);

// Where combine_blocks_x86 is in its chunks: the next block and its payloads.
struct BlockCursor {
  uint32_t blk;
  size_t pa, pb, pos;
};

// The planes of a block (w4 bytes), 32 bytes at a time (in reach: up to 4 (33 +
// 7) bytes).
inline void copy_planes_in_reach(uint8_t* out, const uint8_t* in, uint32_t w4) {
  for (uint32_t j = 0; j < w4; j += 32)
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + j),
                        _mm256_loadu_si256(reinterpret_cast<const __m256i*>(in + j)));
}

// The blocks from c.blk on while every 8-plane step is in reach (which also
// passes the kChecked test: 4 (33 + 1) < kStepReach), in a loop of their own:
// its few live values stay in registers. la, lb, lo: the chunks' code lengths;
// a, b: the payload of block c.blk, a_left and b_left bytes readable there; out:
// where its sum goes, out_left bytes. The reach is checked through `slack`, a
// lower bound of the bytes left before the nearest of the three stops: a block
// moves each pointer by at most 4 (max(wa, wb) + 1) bytes (0 + b and a + 0 by the
// copied bytes), and only when the bound runs out are the distances taken again:
// one test a block instead of three. Each kind of block stores its code length
// and moves po itself: with one code length for the three, GCC kept more copies
// of the widths (3 instructions a block). The index k counts up to 0.
template <template <bool> class Adder, bool kSub, bool kOneStepPath>
void combine_blocks_in_reach(const uint8_t* la0, const uint8_t* lb0, uint8_t* lo0, uint32_t nblocks,
                             const uint8_t* a, size_t a_left, const uint8_t* b, size_t b_left,
                             uint8_t* out, size_t out_left, BlockCursor& c, uint64_t n[4]) {
  if (a_left < kStepReach || b_left < kStepReach || out_left < kStepReach) return;
  // the width bytes, indexed from their end: the loop counts k up to 0
  const uint8_t* const la = la0 + nblocks;
  const uint8_t* const lb = lb0 + nblocks;
  uint8_t* const lo = lo0 + nblocks;
  const uint8_t *pa = a, *pb = b;
  uint8_t* po = out;
  const uint8_t* const a_stop = a + (a_left - kStepReach);
  const uint8_t* const b_stop = b + (b_left - kStepReach);
  const uint8_t* const o_stop = out + (out_left - kStepReach);
  const auto distance = [&] {
    const ptrdiff_t da = a_stop - pa, db = b_stop - pb, dout = o_stop - po;
    const ptrdiff_t d = da < db ? da : db;
    return d < dout ? d : dout;
  };
  ptrdiff_t slack = distance();
  uint64_t n0 = 0, n1 = 0, n2 = 0;
  ptrdiff_t k = static_cast<ptrdiff_t>(c.blk) - static_cast<ptrdiff_t>(nblocks);
  for (; k != 0; ++k) {
    if (__builtin_expect(slack < 0, 0) && (slack = distance()) < 0) break;
    const uint32_t wa4 = block_payload_bytes(la[k]), wb4 = block_payload_bytes(lb[k]);
    if (wb4 != 0 && (wa4 != 0 || kSub)) {  // 0 - b: negation through the adder
      if (kSub && wa4 == 0) ++n1;
      const uint32_t m4 = wa4 > wb4 ? wa4 : wb4;
      slack -= static_cast<ptrdiff_t>(m4 + 4);
      const uint32_t w = add_blocks_fast<Adder, kSub, kOneStepPath>(pa, wa4, pb, wb4, m4, po);
      lo[k] = static_cast<uint8_t>(w);
      po += block_payload_bytes(w);
    } else if (wb4 != 0) {  // 0 + b
      ++n1;
      slack -= static_cast<ptrdiff_t>(wb4);
      copy_planes_in_reach(po, pb, wb4);
      lo[k] = lb[k];
      po += wb4;
    } else {  // a + 0 (or 0 + 0: nothing to copy)
      ++(wa4 ? n2 : n0);
      slack -= static_cast<ptrdiff_t>(wa4);
      copy_planes_in_reach(po, pa, wa4);
      lo[k] = la[k];
      po += wa4;
    }
    pa += wa4;
    pb += wb4;
  }
  const uint32_t i = nblocks + static_cast<uint32_t>(k), done = i - c.blk;
  n[0] += n0, n[1] += n1, n[2] += n2, n[3] += done - n0 - n1 - n2;
  c.blk = i;
  c.pa += static_cast<size_t>(pa - a), c.pb += static_cast<size_t>(pb - b);
  c.pos += static_cast<size_t>(po - out);
}

// Whether add_blocks_fast's one-step path pays for a chunk: unless at least 3/4
// of its adds (blocks with wa, wb >= 1) have m = max(wa, wb) < 8, whose own path
// (no plane 8) is 1-4 instructions shorter. Where they mix with m = 8 the branch
// between the two paths mispredicts, and where m > 8 rules the m <= 8 test
// spares a branch a block. On shared/data's fields, 0.92-1.00 of the adds have
// m < 8 on the rows where the split paths took fewer instructions, 0-0.54 on
// the others (docs/reports/2026-11-30-codec-frontier-15.md). The width bytes 32
// at a time, the last nblocks % 32 one by one.
inline bool one_step_path_pays(const uint8_t* la, const uint8_t* lb, uint32_t nblocks) {
  const __m256i zero = _mm256_setzero_si256(), seven = _mm256_set1_epi8(7);
  uint32_t adds = 0, below8 = 0, i = 0;
  for (; i + 32 <= nblocks; i += 32) {
    const __m256i wa = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(la + i));
    const __m256i wb = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(lb + i));
    const __m256i m = _mm256_max_epu8(wa, wb);
    const auto mask = [](__m256i x) { return static_cast<uint32_t>(_mm256_movemask_epi8(x)); };
    const uint32_t add = ~mask(_mm256_cmpeq_epi8(_mm256_min_epu8(wa, wb), zero));
    const uint32_t lt8 = mask(_mm256_cmpeq_epi8(_mm256_min_epu8(m, seven), m));
    adds += static_cast<uint32_t>(__builtin_popcount(add));
    below8 += static_cast<uint32_t>(__builtin_popcount(add & lt8));
  }
  for (; i < nblocks; ++i) {
    const bool add = la[i] != 0 && lb[i] != 0;
    adds += add;
    below8 += add && la[i] < 8 && lb[i] < 8;
  }
  return 4 * below8 < 3 * adds;
}

template <template <bool> class Adder, bool kChecked, bool kSub>
size_t combine_blocks_of(const uint8_t* a, size_t a_bytes, const uint8_t* b, size_t b_bytes,
                         uint8_t* out, uint32_t nblocks, size_t pos, size_t raw,
                         uint64_t counts[4]) {
  const uint8_t* la = a + kQuantChunkHeaderBytes;
  const uint8_t* lb = b + kQuantChunkHeaderBytes;
  uint8_t* lo = out + kQuantChunkHeaderBytes;
  BlockCursor c{0, pos, pos, pos};
  uint64_t n[4] = {0, 0, 0, 0};
  const bool one_step_path = one_step_path_pays(la, lb, nblocks);
  const auto in_reach = [&](const uint8_t* a_at, size_t a_left, const uint8_t* b_at,
                            size_t b_left) {
    if (one_step_path)
      combine_blocks_in_reach<Adder, kSub, true>(la, lb, lo, nblocks, a_at, a_left, b_at, b_left,
                                                 out + c.pos, raw - c.pos, c, n);
    else
      combine_blocks_in_reach<Adder, kSub, false>(la, lb, lo, nblocks, a_at, a_left, b_at, b_left,
                                                  out + c.pos, raw - c.pos, c, n);
  };
  // An input that ends within reach (the last chunk of a stream) continues from
  // a copy of its rest with zeros after it: the rest of a stream whose other
  // input's blocks are constant there could otherwise take hundreds of blocks
  // one by one, with the bounds checked.
  alignas(32) uint8_t pad_a[2 * kStepReach], pad_b[2 * kStepReach];
  bool padded = false;
  while (c.blk < nblocks) {
    in_reach(a + c.pa, a_bytes - c.pa, b + c.pb, b_bytes - c.pb);
    if (c.blk == nblocks) break;
    const size_t a_left = a_bytes - c.pa, b_left = b_bytes - c.pb;
    if (!padded && (a_left < kStepReach || b_left < kStepReach)) {
      padded = true;
      const auto rest = [](uint8_t* pad, const uint8_t* at, size_t left) {
        std::memset(pad, 0, 2 * kStepReach);
        std::memcpy(pad, at, left);
        return pad;
      };
      in_reach(a_left < kStepReach ? rest(pad_a, a + c.pa, a_left) : a + c.pa,
               a_left < kStepReach ? 2 * kStepReach : a_left,
               b_left < kStepReach ? rest(pad_b, b + c.pb, b_left) : b + c.pb,
               b_left < kStepReach ? 2 * kStepReach : b_left);
      if (c.blk == nblocks) break;
    }
    // one block out of reach (near the chunk's end), with the bounds checked
    const uint32_t blk = c.blk, wa = la[blk], wb = lb[blk];
    const size_t pa = c.pa, pb = c.pb;
    pos = c.pos;
    if (kChecked && pos + 4 * ((wa > wb ? wa : wb) + 1) >= raw) return 0;
    uint32_t w;
    if (wa == 0 && wb == 0) {
      w = 0, ++n[0];
    } else if (wa == 0 && !kSub) {
      w = wb, ++n[1];
      copy_planes(out + pos, raw - pos, b + pb, b_bytes - pb, w);
    } else if (wb == 0) {
      w = wa, ++n[2];
      copy_planes(out + pos, raw - pos, a + pa, a_bytes - pa, w);
    } else {  // both non-constant (or 0 - b: negation through the adder)
      ++n[wa == 0 ? 1 : 3];
      w = add_blocks(a + pa, a_bytes - pa, wa, b + pb, b_bytes - pb, wb, kSub, out + pos,
                     raw - pos);
    }
    lo[blk] = static_cast<uint8_t>(w);  // w <= 33 within the qmax guard
    c.blk = blk + 1;
    c.pa = pa + block_payload_bytes(wa);
    c.pb = pb + block_payload_bytes(wb);
    c.pos = pos + block_payload_bytes(w);
  }
  for (int i = 0; i < 4; ++i) counts[i] += n[i];
  return c.pos;
}


// ChunkKernels::combine_blocks with the adder Adder.
template <template <bool> class Adder>
size_t combine_blocks_x86(const uint8_t* a, size_t a_bytes, const uint8_t* b, size_t b_bytes,
                          uint8_t* out, uint32_t nblocks, bool subtract, size_t pos, size_t raw,
                          bool checked, uint64_t counts[4]) {
  const auto run = [&](auto f) {
    return f(a, a_bytes, b, b_bytes, out, nblocks, pos, raw, counts);
  };
  if (subtract)
    return checked ? run(combine_blocks_of<Adder, true, true>)
                   : run(combine_blocks_of<Adder, false, true>);
  return checked ? run(combine_blocks_of<Adder, true, false>)
                 : run(combine_blocks_of<Adder, false, false>);
}

}  // namespace
}  // namespace zcoll
