// hom_avx2.cc — the homomorphic add's block loop (hom_loop_x86.h) with the AVX2
// adder: the operands' planes past their widths replaced by their sign planes
// through a compare and a blend, the 8 planes of a step added by add8.
#include "codec/kernels_avx2.h"

#if defined(ZCOLL_HAVE_AVX2_KERNELS)

#include <immintrin.h>

#include "codec/chunk_scalar.h"

// Only the functions below are compiled for AVX2 (see chunk_avx2.cc).
#if defined(__clang__)
#pragma clang attribute push(__attribute__((target("avx2,bmi2"))), apply_to = function)
#else
#pragma GCC push_options
#pragma GCC target("avx2,bmi2")
#endif

#include "codec/hom_loop_x86.h"  // after the pragma: compiled for AVX2 too

namespace zcoll {
namespace {

// The adder of hom_loop_x86.h. va, vb: the widths in bytes (4 w) in every lane,
// compared with plane, 4 x the planes of the step, for the keep masks.
template <bool kSub>
struct FastAdd : AdderOperands {
  __m256i va, vb, carry, plane;
  FastAdd(const uint8_t* a_, uint32_t wa4, const uint8_t* b_, uint32_t wb4, uint8_t* out_)
      : AdderOperands(a_, wa4, b_, wb4, out_) {
    va = _mm256_set1_epi32(static_cast<int>(wa4));
    vb = _mm256_set1_epi32(static_cast<int>(wb4));
    carry = flip();
    plane = _mm256_setr_epi32(0, 4, 8, 12, 16, 20, 24, 28);
  }
  static __m256i flip() { return kSub ? _mm256_set1_epi32(-1) : _mm256_setzero_si256(); }
  __m256i step(size_t j) {
    const __m256i A =
        _mm256_blendv_epi8(sa, _mm256_loadu_si256(reinterpret_cast<const __m256i*>(a + j)),
                           _mm256_cmpgt_epi32(va, plane));
    const __m256i B = _mm256_xor_si256(
        _mm256_blendv_epi8(sb, _mm256_loadu_si256(reinterpret_cast<const __m256i*>(b + j)),
                           _mm256_cmpgt_epi32(vb, plane)),
        flip());
    plane = _mm256_add_epi32(plane, _mm256_set1_epi32(32));
    const __m256i s = add8(A, B, &carry);
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + j), s);
    return s;
  }
  __m256i sign(size_t m4) {
    const __m256i t = _mm256_xor_si256(_mm256_xor_si256(sa, _mm256_xor_si256(sb, flip())), carry);
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + m4), t);
    return t;
  }
  static uint32_t same(__m256i x, __m256i t) {
    return static_cast<uint32_t>(_mm256_movemask_ps(_mm256_castsi256_ps(_mm256_cmpeq_epi32(x, t))));
  }
  static uint32_t differ(__m256i s, __m256i t) { return same(s, t) ^ 0xFFu; }
  static uint32_t differ2(__m256i hi, __m256i lo, __m256i t) {
    return (same(hi, t) << 8 | same(lo, t)) ^ 0xFFFFu;
  }
  static uint32_t differ_below(__m256i s) { return differ(s, up1(s, _mm256_setzero_si256())); }
};

}  // namespace

size_t combine_blocks_avx2(const uint8_t* a, size_t a_bytes, const uint8_t* b, size_t b_bytes,
                           uint8_t* out, uint32_t nblocks, bool subtract, size_t pos, size_t raw,
                           bool checked, uint64_t counts[4]) {
  return combine_blocks_x86<FastAdd>(a, a_bytes, b, b_bytes, out, nblocks, subtract, pos, raw,
                                     checked, counts);
}

}  // namespace zcoll

#if defined(__clang__)
#pragma clang attribute pop
#else
#pragma GCC pop_options
#endif

#endif  // ZCOLL_HAVE_AVX2_KERNELS
