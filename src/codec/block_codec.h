// block_codec.h — the per-block fixed-length code of format version 1, as plain
// functions with no host-only dependencies so that a CUDA kernel can include this
// file (ZCOLL_HD marks them __host__ __device__ there).
//
// A block holds 32 prediction residuals (deltas) d[i] in two's complement. Its
// code length W is the number of bits that hold every d[i] as a signed integer
// (0 when all are zero: a constant block, which has no payload). The payload is W
// little-endian 32-bit words, bit plane j holding bit j of every delta (bit i of
// plane j = bit j of d[i]); plane W-1 is the sign plane. Bit planes are what a GPU
// warp produces with one ballot per plane and what AVX2 produces with one
// movemask per plane, and two blocks add with a bit-sliced ripple-carry adder,
// one word operation per plane for all 32 values (see hom.cc).
//
// Deltas of compressed data fit in 31 bits; sums made by the homomorphic add fit
// in 33 (W <= 33). Decoders work modulo 2^32: plane 32 is only a sign extension.
#pragma once

#include <cstdint>
#include <cstring>

#if defined(__CUDACC__)
#define ZCOLL_HD __host__ __device__
#else
#define ZCOLL_HD
#endif

namespace zcoll {
namespace {

ZCOLL_HD inline uint32_t bit_width(uint32_t v) {
#if defined(__CUDA_ARCH__)
  return 32u - static_cast<uint32_t>(__clz(v));
#else
  return v ? 32u - static_cast<uint32_t>(__builtin_clz(v)) : 0u;
#endif
}

// Signed width of a set of deltas from two ORs: of the deltas (zero test) and of
// d ^ (d >> 31) (the magnitude bits of a two's-complement number).
ZCOLL_HD inline uint32_t code_length(uint32_t or_of_deltas, uint32_t or_of_folded) {
  return or_of_deltas ? bit_width(or_of_folded) + 1u : 0u;
}

ZCOLL_HD inline uint32_t fold_sign(int32_t d) { return static_cast<uint32_t>(d ^ (d >> 31)); }

ZCOLL_HD inline void put_word(uint8_t* p, uint32_t w) {
  p[0] = static_cast<uint8_t>(w);
  p[1] = static_cast<uint8_t>(w >> 8);
  p[2] = static_cast<uint8_t>(w >> 16);
  p[3] = static_cast<uint8_t>(w >> 24);
}
ZCOLL_HD inline uint32_t get_word(const uint8_t* p) {
  return uint32_t{p[0]} | uint32_t{p[1]} << 8 | uint32_t{p[2]} << 16 | uint32_t{p[3]} << 24;
}

// Bytes of a block payload with code length W.
ZCOLL_HD inline uint32_t block_payload_bytes(uint32_t W) { return 4u * W; }

// Encode 32 deltas. Returns W; writes block_payload_bytes(W) bytes to out.
ZCOLL_HD inline uint32_t encode_block(const int32_t d[32], uint8_t* out) {
  uint32_t any = 0, folded = 0;
  for (int i = 0; i < 32; ++i) {
    any |= static_cast<uint32_t>(d[i]);
    folded |= fold_sign(d[i]);
  }
  const uint32_t W = code_length(any, folded);
  for (uint32_t j = 0; j < W; ++j) {
    uint32_t plane = 0;
    for (int i = 0; i < 32; ++i) plane |= ((static_cast<uint32_t>(d[i]) >> j) & 1u) << i;
    put_word(out + 4 * j, plane);
  }
  return W;
}

// Decode a block payload of code length W (1..33) into 32 deltas modulo 2^32
// (sign-extended from plane W-1). A prefix sum in uint32 is then exact whenever
// the true codes fit in int32, and never undefined otherwise.
ZCOLL_HD inline void decode_block(const uint8_t* in, uint32_t W, uint32_t d[32]) {
  const uint32_t planes = W < 32 ? W : 32;
  for (int i = 0; i < 32; ++i) d[i] = 0;
  for (uint32_t j = 0; j < planes; ++j) {
    uint32_t plane = get_word(in + 4 * j);
    for (int i = 0; i < 32; ++i) d[i] |= ((plane >> i) & 1u) << j;
  }
  if (W < 32) {
    const uint32_t sign_bit = 1u << (W - 1);
    for (int i = 0; i < 32; ++i) d[i] = (d[i] ^ sign_bit) - sign_bit;  // sign-extend
  }
}

}  // namespace
}  // namespace zcoll
