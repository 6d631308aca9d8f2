// block_codec.h — the per-block fixed-length code of format version 1, as plain
// functions with no host-only dependencies so that a CUDA kernel can include this
// file (ZCOLL_HD marks them __host__ __device__ there).
//
// A block holds 32 prediction residuals (deltas) d[i]. Its code length L is the
// bit width of max |d[i]|. L == 0 (a constant block) has no payload. Otherwise the
// payload is L+1 little-endian 32-bit words: the sign word (bit i = d[i] < 0),
// then bit planes 0..L-1 (bit i of plane j = bit j of |d[i]|). Bit planes are
// what a GPU warp produces with one ballot per plane, and what AVX2 produces
// with one movemask per plane; they also make "add two blocks" a word operation.
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

ZCOLL_HD inline uint32_t code_length(uint32_t or_of_magnitudes) {
#if defined(__CUDA_ARCH__)
  return 32u - static_cast<uint32_t>(__clz(or_of_magnitudes));
#else
  return or_of_magnitudes ? 32u - static_cast<uint32_t>(__builtin_clz(or_of_magnitudes)) : 0u;
#endif
}

ZCOLL_HD inline void put_word(uint8_t* p, uint32_t w) {
  p[0] = static_cast<uint8_t>(w);
  p[1] = static_cast<uint8_t>(w >> 8);
  p[2] = static_cast<uint8_t>(w >> 16);
  p[3] = static_cast<uint8_t>(w >> 24);
}
ZCOLL_HD inline uint32_t get_word(const uint8_t* p) {
  return uint32_t{p[0]} | uint32_t{p[1]} << 8 | uint32_t{p[2]} << 16 | uint32_t{p[3]} << 24;
}

// Bytes of a block payload with code length L.
ZCOLL_HD inline uint32_t block_payload_bytes(uint32_t L) { return L ? 4u * (L + 1u) : 0u; }

// Encode 32 deltas (two's complement int32, |d| < 2^32 as sign+magnitude).
// Returns L; writes block_payload_bytes(L) bytes to out.
ZCOLL_HD inline uint32_t encode_block(const int32_t d[32], uint8_t* out) {
  uint32_t mag[32];
  uint32_t signs = 0, any = 0;
  for (int i = 0; i < 32; ++i) {
    uint32_t m = d[i] < 0 ? 0u - static_cast<uint32_t>(d[i]) : static_cast<uint32_t>(d[i]);
    signs |= static_cast<uint32_t>(d[i] < 0) << i;
    mag[i] = m;
    any |= m;
  }
  uint32_t L = code_length(any);
  if (L == 0) return 0;
  put_word(out, signs);
  for (uint32_t j = 0; j < L; ++j) {
    uint32_t plane = 0;
    for (int i = 0; i < 32; ++i) plane |= ((mag[i] >> j) & 1u) << i;
    put_word(out + 4 + 4 * j, plane);
  }
  return L;
}

// Decode a block payload of code length L (1..32) into 32 deltas, as uint32 in
// modular (two's complement) arithmetic: a later prefix sum in uint32 is exact
// whenever the true codes fit in int32, and never undefined otherwise.
ZCOLL_HD inline void decode_block(const uint8_t* in, uint32_t L, uint32_t d[32]) {
  uint32_t mag[32] = {0};
  for (uint32_t j = 0; j < L; ++j) {
    uint32_t plane = get_word(in + 4 + 4 * j);
    for (int i = 0; i < 32; ++i) mag[i] |= ((plane >> i) & 1u) << j;
  }
  uint32_t signs = get_word(in);
  for (int i = 0; i < 32; ++i) d[i] = ((signs >> i) & 1u) ? 0u - mag[i] : mag[i];
}

}  // namespace
}  // namespace zcoll
