// planes_avx2.h — AVX2 transposes between the 32 deltas of a block (int32 lanes,
// value order: v[0] holds values 0-7, ..., v[3] values 24-31) and the block's bit
// planes (docs/format.md §5.2: bit i of plane j = bit j of value i). Include it only
// after the AVX2 target pragma of an AVX2 translation unit, and after format.h
// (included before the pragma, so that its inline functions are not compiled for
// AVX2): every function here is compiled for AVX2.
//
// Packing: the deltas are narrowed to bytes (one byte plane per 8 bit planes) and
// one movemask per bit plane reads bit 7 of every byte. Unpacking: 8 plane words
// hold an 8x8 bit matrix per byte position of the values; one byte shuffle puts
// each matrix in a 64-bit lane and three masked swaps transpose it.
#pragma once

#include <immintrin.h>

#include <cstdint>
#include <cstring>

#include "codec/format.h"

namespace zcoll {
namespace {

// Dwords (0, 4, 1, 5, 2, 6, 3, 7): undoes the lane interleaving of packs/unpacks.
inline __m256i value_order(__m256i v) {
  return _mm256_permutevar8x32_epi32(v, _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7));
}

// Byte k (0..3) of 32 deltas in value order (any width).
inline __m256i byte_plane(const __m256i v[4], int k) {
  const __m256i sh = _mm256_set1_epi32(8 * k), ff = _mm256_set1_epi32(0xFF);
  __m256i a = _mm256_and_si256(_mm256_srlv_epi32(v[0], sh), ff);
  __m256i b = _mm256_and_si256(_mm256_srlv_epi32(v[1], sh), ff);
  __m256i c = _mm256_and_si256(_mm256_srlv_epi32(v[2], sh), ff);
  __m256i d = _mm256_and_si256(_mm256_srlv_epi32(v[3], sh), ff);
  return value_order(_mm256_packus_epi16(_mm256_packus_epi32(a, b), _mm256_packus_epi32(c, d)));
}

// The 8 bit planes of a byte plane (bit j of every value's byte) to out[0..32):
// movemask reads bit 7 of every byte; doubling the bytes brings the next bit there.
inline void store_bit_planes(__m256i bytes, uint8_t* out) {
  for (int j = 7; j >= 0; --j) {
    store_u32(out + 4 * j, static_cast<uint32_t>(_mm256_movemask_epi8(bytes)));
    bytes = _mm256_add_epi8(bytes, bytes);
  }
}

// The byte planes of 32 deltas that need W (1..32) bits as two's complement, to
// out[0 .. 32*ceil(W/8)). W <= 16: signed saturating packs to int16 are exact, and
// so (W <= 8) to int8.
inline void pack_byte_planes(const __m256i v[4], uint32_t W, uint8_t* out) {
  if (W > 16) {
    for (uint32_t k = 0; 8 * k < W; ++k)
      store_bit_planes(byte_plane(v, static_cast<int>(k)), out + 32 * k);
    return;
  }
  const __m256i a = _mm256_packs_epi32(v[0], v[1]), b = _mm256_packs_epi32(v[2], v[3]);
  if (W <= 8) return store_bit_planes(value_order(_mm256_packs_epi16(a, b)), out);
  const __m256i ff = _mm256_set1_epi16(0xFF);
  store_bit_planes(
      value_order(_mm256_packus_epi16(_mm256_and_si256(a, ff), _mm256_and_si256(b, ff))), out);
  store_bit_planes(
      value_order(_mm256_packs_epi16(_mm256_srai_epi16(a, 8), _mm256_srai_epi16(b, 8))), out + 32);
}

// Write the W (1..32) bit planes of 32 deltas to out, which has `room` bytes. Whole
// byte planes are written (planes W.. are garbage for the next block or the chunk's
// padding to overwrite) when they fit, else through a buffer.
inline void pack_planes(const __m256i v[4], uint32_t W, uint8_t* out, size_t room) {
  if (room >= 32 * ((W + 7) / 8)) return pack_byte_planes(v, W, out);
  alignas(32) uint8_t buf[128];
  pack_byte_planes(v, W, buf);
  std::memcpy(out, buf, 4 * W);
}

// 32 bytes of plane words from p, of which only `avail` (a multiple of 4) may be read:
// a masked load at the end of a chunk (masked-off dwords are neither read nor faulted).
inline __m256i load_plane_words(const uint8_t* p, size_t avail) {
  if (avail >= 32) return _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p));
  const __m256i idx = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
  const __m256i m = _mm256_cmpgt_epi32(_mm256_set1_epi32(static_cast<int>(avail / 4)), idx);
  return _mm256_maskload_epi32(reinterpret_cast<const int*>(p), m);
}

// One step of the transpose below: swap the bits of mask m with those s above them.
template <int s>
inline __m256i swap_bits(__m256i v, const uint64_t* m) {
  const __m256i t = _mm256_and_si256(_mm256_xor_si256(v, _mm256_srli_epi64(v, s)),
                                     _mm256_load_si256(reinterpret_cast<const __m256i*>(m)));
  return _mm256_xor_si256(_mm256_xor_si256(v, t), _mm256_slli_epi64(t, s));
}

alignas(32) constexpr uint64_t kSwapMasks[3][4] = {
    {0x00AA00AA00AA00AAULL, 0x00AA00AA00AA00AAULL, 0x00AA00AA00AA00AAULL, 0x00AA00AA00AA00AAULL},
    {0x0000CCCC0000CCCCULL, 0x0000CCCC0000CCCCULL, 0x0000CCCC0000CCCCULL, 0x0000CCCC0000CCCCULL},
    {0x00000000F0F0F0F0ULL, 0x00000000F0F0F0F0ULL, 0x00000000F0F0F0F0ULL, 0x00000000F0F0F0F0ULL}};

// Transpose the 8x8 bit matrix of every 64-bit lane: bit c of byte r <-> bit r of
// byte c, by swapping 1x1, 2x2 and 4x4 blocks (Hacker's Delight, 7-3). The masks
// are read through an opaque pointer, so they stay memory operands: GCC would
// otherwise rebuild each 64-bit constant in a general register at every use.
inline __m256i transpose8x8(__m256i x) {
  const uint64_t(*m)[4] = kSwapMasks;
  asm("" : "+r"(m));
  return swap_bits<28>(swap_bits<14>(swap_bits<7>(x, m[0]), m[1]), m[2]);
}

// The same transpose in one instruction where the CPU has GFNI, of the matrices with
// their rows (bytes) in reverse order: the affine map of byte i of x = 1 << i by the
// bit matrix A of its 64-bit lane gives bit b = bit i of byte 7 - b of A, i.e. for A
// = rows 7..0 of M, bit b = bit i of row b of M: byte i of M's transpose. Inline
// assembly: the translation unit is compiled for AVX2 and BMI2 only, so no GFNI
// instruction can appear anywhere but here (and here only on the kGfni paths, which
// the kernel table picks when the CPU has GFNI: chunk_avx2.cc).
alignas(32) constexpr uint64_t kGfniIdentity[4] = {0x8040201008040201ULL, 0x8040201008040201ULL,
                                                   0x8040201008040201ULL, 0x8040201008040201ULL};
inline __m256i transpose8x8_reversed_gfni(__m256i reversed) {
  // byte i of every lane = 1 << i, loaded through an opaque pointer (as transpose8x8's
  // masks): GCC would rebuild the 64-bit pattern in a general register at every use
  const uint64_t* id = kGfniIdentity;
  asm("" : "+r"(id));
  const __m256i x = _mm256_load_si256(reinterpret_cast<const __m256i*>(id));
  __m256i r;
  asm("vgf2p8affineqb $0, %2, %1, %0" : "=x"(r) : "x"(x), "x"(reversed));
  return r;
}

// Byte plane of the 8 bit planes at p (avail bytes readable): byte i = bits 0..7 of
// the plane words (value i). Byte b of the 8 words goes to 64-bit lane b, whose 8x8
// bit matrix is then transposed. With 32 bytes readable, each 16-byte half of the
// words is broadcast to both 128-bit lanes (a load, no shuffle), the lanes pick
// bytes 0, 1 | 2, 3 of their 4 words and one unpack interleaves the two halves: no
// lane-crossing permute (about 5 % of the decoder's time). Else a masked load, a
// 4x4 byte transpose per 128-bit half and the dwords interleaved across halves.
// kGfni: the transpose by transpose8x8_reversed_gfni, the words in reverse order.
template <bool kGfni = false>
inline __m256i bytes_of_planes(const uint8_t* p, size_t avail) {
  if (avail >= 32) {
    // bytes 0, 1 | 2, 3 of words 0-3 (GFNI: of words 3-0, the rows reversed)
    const __m256i t2 = kGfni ? _mm256_setr_epi32(0x0004080C, 0x0105090D, -1, -1,  //
                                                 0x02060A0E, 0x03070B0F, -1, -1)
                             : _mm256_setr_epi32(0x0C080400, 0x0D090501, -1, -1,  //
                                                 0x0E0A0602, 0x0F0B0703, -1, -1);
    const __m256i lo = _mm256_shuffle_epi8(
        _mm256_broadcastsi128_si256(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p))), t2);
    const __m256i hi = _mm256_shuffle_epi8(
        _mm256_broadcastsi128_si256(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p + 16))), t2);
    if (kGfni) return transpose8x8_reversed_gfni(_mm256_unpacklo_epi32(hi, lo));
    return transpose8x8(_mm256_unpacklo_epi32(lo, hi));
  }
  const __m256i t4 = _mm256_setr_epi8(0, 4, 8, 12, 1, 5, 9, 13, 2, 6, 10, 14, 3, 7, 11, 15,  //
                                      0, 4, 8, 12, 1, 5, 9, 13, 2, 6, 10, 14, 3, 7, 11, 15);
  const __m256i m = value_order(_mm256_shuffle_epi8(load_plane_words(p, avail), t4));
  if (kGfni) {
    const __m256i rev = _mm256_setr_epi8(7, 6, 5, 4, 3, 2, 1, 0, 15, 14, 13, 12, 11, 10, 9, 8,  //
                                         7, 6, 5, 4, 3, 2, 1, 0, 15, 14, 13, 12, 11, 10, 9, 8);
    return transpose8x8_reversed_gfni(_mm256_shuffle_epi8(m, rev));
  }
  return transpose8x8(m);
}

// Unpacking reads `avail` (>= 4*W, a multiple of 4) bytes at most from the payload
// at p. Planes above W (whatever follows the payload) only reach bits that the sign
// extension drops.

// Per W = 1..8: the byte masks of the sign extension in unpack_planes16, (1 << W) - 1
// and 1 << (W - 1) in every byte (loaded: building them from W took 8 instructions).
struct alignas(32) SignExtendBytes {
  uint64_t rows[8][2][4];
  constexpr SignExtendBytes() : rows() {
    for (int w = 1; w <= 8; ++w)
      for (int i = 0; i < 4; ++i) {
        rows[w - 1][0][i] = 0x0101010101010101ULL * ((1u << w) - 1);
        rows[w - 1][1][i] = 0x0101010101010101ULL * (1u << (w - 1));
      }
  }
};
constexpr SignExtendBytes kSignExtendBytes;

// The deltas of a block of code length W (1..16) as int16, in the lane layout of
// byte unpacks: a = values 0-7 | 16-23, b = values 8-15 | 24-31.
template <bool kGfni = false>
inline void unpack_planes16(const uint8_t* p, size_t avail, uint32_t W, __m256i* a, __m256i* b) {
  const __m256i b0 = bytes_of_planes<kGfni>(p, avail);
  if (W <= 8) {  // sign-extend inside the bytes ((b & mask ^ sign) - sign), then to int16
    const auto& ms = kSignExtendBytes.rows[W - 1];
    const __m256i m = _mm256_load_si256(reinterpret_cast<const __m256i*>(ms[0]));
    const __m256i s = _mm256_load_si256(reinterpret_cast<const __m256i*>(ms[1]));
    const __m256i d = _mm256_sub_epi8(_mm256_xor_si256(_mm256_and_si256(b0, m), s), s);
    const __m256i sign = _mm256_cmpgt_epi8(_mm256_setzero_si256(), d);
    *a = _mm256_unpacklo_epi8(d, sign);
    *b = _mm256_unpackhi_epi8(d, sign);
    return;
  }
  const __m256i b1 = bytes_of_planes<kGfni>(p + 32, avail - 32);
  const __m128i s = _mm_cvtsi32_si128(static_cast<int>(16 - W));  // sign-extend in 16 bits
  *a = _mm256_sra_epi16(_mm256_sll_epi16(_mm256_unpacklo_epi8(b0, b1), s), s);
  *b = _mm256_sra_epi16(_mm256_sll_epi16(_mm256_unpackhi_epi8(b0, b1), s), s);
}

// The deltas of a block of code length W (12..33) modulo 2^32 in the lane layout of
// 16-bit unpacks: v[k] = values 4k .. 4k+3 | 16+4k .. 16+4k+3 (in-lane widening, no
// lane-crossing permute or widening).
template <bool kGfni = false>
inline void unpack_planes32(const uint8_t* p, size_t avail, uint32_t W, __m256i v[4]) {
  if (W <= 16) {
    __m256i a, b;
    unpack_planes16<kGfni>(p, avail, W, &a, &b);
    const __m256i sa = _mm256_srai_epi16(a, 15), sb = _mm256_srai_epi16(b, 15);
    v[0] = _mm256_unpacklo_epi16(a, sa);
    v[1] = _mm256_unpackhi_epi16(a, sa);
    v[2] = _mm256_unpacklo_epi16(b, sb);
    v[3] = _mm256_unpackhi_epi16(b, sb);
    return;
  }
  // bytes 0-1 and 2-3 of every value (plane 32 of W = 33 is the dropped sign)
  const __m256i b0 = bytes_of_planes<kGfni>(p, avail);
  const __m256i b1 = bytes_of_planes<kGfni>(p + 32, avail - 32);
  const __m256i b2 = bytes_of_planes<kGfni>(p + 64, avail - 64);
  const __m256i b3 = W > 24 ? bytes_of_planes<kGfni>(p + 96, avail - 96) : _mm256_setzero_si256();
  const __m256i a = _mm256_unpacklo_epi8(b0, b1), b = _mm256_unpackhi_epi8(b0, b1);
  const __m256i c = _mm256_unpacklo_epi8(b2, b3), d = _mm256_unpackhi_epi8(b2, b3);
  v[0] = _mm256_unpacklo_epi16(a, c);  // 0-3 | 16-19
  v[1] = _mm256_unpackhi_epi16(a, c);  // 4-7 | 20-23
  v[2] = _mm256_unpacklo_epi16(b, d);  // 8-11 | 24-27
  v[3] = _mm256_unpackhi_epi16(b, d);  // 12-15 | 28-31
  if (W < 32) {
    const __m128i s = _mm_cvtsi32_si128(static_cast<int>(32 - W));
    for (int g = 0; g < 4; ++g) v[g] = _mm256_sra_epi32(_mm256_sll_epi32(v[g], s), s);
  }
}

}  // namespace
}  // namespace zcoll
