// hom_avx512.cc — the homomorphic add's block loop (hom_loop_x86.h) with the
// AVX-512VL adder, for CPUs that have it: the same 256-bit vectors and bytes as
// hom_avx2.cc's, fewer instructions. A masked load puts the sign plane in the
// lanes past an operand's width (no compare and blend), three-input logic
// (vpternlogd) joins each generate with its propagated carry, one two-source
// permute brings the carries into the halves, and compares write mask registers.
#include "codec/kernels_avx2.h"

#if defined(ZCOLL_HAVE_AVX2_KERNELS)

#include <immintrin.h>

#include "codec/chunk_scalar.h"

// Only the functions below are compiled for AVX-512 (see chunk_avx2.cc).
#if defined(__clang__)
#pragma clang attribute push( \
    __attribute__((target("avx2,bmi2,avx512f,avx512vl,avx512bw,avx512dq"))), apply_to = function)
#else
#pragma GCC push_options
#pragma GCC target("avx2,bmi2,avx512f,avx512vl,avx512bw,avx512dq")
#endif

#include "codec/hom_loop_x86.h"  // after the pragma: compiled for AVX-512 too

namespace zcoll {
namespace {

// vpternlogd's truth tables (operands x, y, z: 0xF0, 0xCC, 0xAA).
constexpr int kOrAnd = 0xF8;  // x | (y & z)
constexpr int kXor3 = 0x96;   // x ^ y ^ z
constexpr int kXnor3 = 0x69;  // ~(x ^ y ^ z)
constexpr int kXnor2 = 0xC3;  // ~(x ^ y)

// add8 of hom_loop_x86.h for A + B (kSub: A + ~B, B given unflipped), the flip
// folded into the first propagate and generate.
template <bool kSub>
inline __m256i add8_avx512(__m256i A, __m256i B, __m256i* c) {
  const __m256i zero = _mm256_setzero_si256(), ones = _mm256_set1_epi32(-1);
  const __m256i p0 = kSub ? _mm256_ternarylogic_epi32(A, B, B, kXnor2) : _mm256_xor_si256(A, B);
  __m256i g = kSub ? _mm256_andnot_si256(B, A) : _mm256_and_si256(A, B);
  g = _mm256_ternarylogic_epi32(g, p0, up_in_halves<4>(g, zero), kOrAnd);
  __m256i p = _mm256_and_si256(p0, up_in_halves<4>(p0, ones));
  g = _mm256_ternarylogic_epi32(g, p, up_in_halves<8>(g, zero), kOrAnd);
  p = _mm256_and_si256(p, up_in_halves<8>(p, ones));
  const __m256i x = _mm256_ternarylogic_epi32(g, p, *c, kOrAnd);  // lane 3: carry into plane 4
  // [c's lane 3 x 4 | x's lane 3 x 4]: the carries into the halves
  const __m256i cin =
      _mm256_permutex2var_epi32(x, _mm256_setr_epi32(11, 11, 11, 11, 3, 3, 3, 3), *c);
  g = _mm256_ternarylogic_epi32(g, p, cin, kOrAnd);
  const __m256i s = _mm256_xor_si256(p0, up_in_halves<4>(g, cin));
  *c = _mm256_permutexvar_epi32(_mm256_set1_epi32(7), g);
  return s;
}

// The adder of hom_loop_x86.h. ka, kb: bit i set where plane i of the step is
// below the operand's width (the masked loads' masks, shifted by 8 a step).
template <bool kSub>
struct FastAdd512 : AdderOperands {
  __m256i carry;
  uint64_t ka, kb;
  FastAdd512(const uint8_t* a_, uint32_t wa4, const uint8_t* b_, uint32_t wb4, uint8_t* out_)
      : AdderOperands(a_, wa4, b_, wb4, out_) {
    ka = _bzhi_u64(~uint64_t{0}, wa4 / 4);
    kb = _bzhi_u64(~uint64_t{0}, wb4 / 4);
    carry = kSub ? _mm256_set1_epi32(-1) : _mm256_setzero_si256();
  }
  __m256i step(size_t j) {
    const __m256i A = _mm256_mask_loadu_epi32(sa, static_cast<__mmask8>(ka), a + j);
    const __m256i B = _mm256_mask_loadu_epi32(sb, static_cast<__mmask8>(kb), b + j);
    ka >>= 8, kb >>= 8;
    const __m256i s = add8_avx512<kSub>(A, B, &carry);
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + j), s);
    return s;
  }
  __m256i sign(size_t m4) {
    const __m256i t = _mm256_ternarylogic_epi32(sa, sb, carry, kSub ? kXnor3 : kXor3);
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + m4), t);
    return t;
  }
  static uint32_t differ(__m256i s, __m256i t) { return _mm256_cmpneq_epi32_mask(s, t); }
  static uint32_t differ2(__m256i hi, __m256i lo, __m256i t) {
    return _mm512_kunpackb(_mm256_cmpneq_epi32_mask(hi, t), _mm256_cmpneq_epi32_mask(lo, t));
  }
  // plane -1 is 0: the planes moved up a lane with a 0 below (valignd)
  static uint32_t differ_below(__m256i s) {
    return _mm256_cmpneq_epi32_mask(s, _mm256_alignr_epi32(s, _mm256_setzero_si256(), 7));
  }
};

}  // namespace

size_t combine_blocks_avx512(const uint8_t* a, size_t a_bytes, const uint8_t* b, size_t b_bytes,
                             uint8_t* out, uint32_t nblocks, bool subtract, size_t pos, size_t raw,
                             bool checked, uint64_t counts[4]) {
  return combine_blocks_x86<FastAdd512>(a, a_bytes, b, b_bytes, out, nblocks, subtract, pos, raw,
                                        checked, counts);
}

}  // namespace zcoll

#if defined(__clang__)
#pragma clang attribute pop
#else
#pragma GCC pop_options
#endif

#endif  // ZCOLL_HAVE_AVX2_KERNELS
