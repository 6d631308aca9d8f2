// dense_interp_step.h — one value of predictor 5 (dense_interp.h): its
// prediction from the neighbours along one dim and the residual of a fine code
// against it, shared by the traversal (dense_interp.cc) and the AVX2 runs of
// the finest level (dense_interp_avx2.cc), which must compute the same.
#pragma once

#include <cstdint>

#include "codec/dense_interp.h"

namespace zcoll {
namespace interp_step {

// floor(v / 2^k): an arithmetic shift (implementation-defined before C++20 for
// a negative v, arithmetic on every compiler the library supports).
static_assert((int64_t{-3} >> 1) == -2, "arithmetic right shift");
inline int64_t floor_shift(int64_t v, unsigned k) { return v >> k; }

// The residual of a fine code's difference dx from its prediction: the
// nearest integer to dx / 255 (never a tie: 255 is odd), without a branch on
// the sign (random on rough data): floor((dx + 127) / 255), the division done
// on a value made non-negative (|dx| < 2^33 here).
inline int64_t residual_of(int64_t dx) {
  constexpr int64_t kBias = int64_t{kInterpStep} << 33;
  return static_cast<int64_t>(static_cast<uint64_t>(dx + kInterpStep / 2 + kBias) / kInterpStep) -
         (int64_t{1} << 33);
}

// The predictions of §5.3 (predictor 5) from the neighbours along one dim, off
// apart, of the value at p: a = p[-3 off], b = p[-off], c = p[+off], d = p[+3 off]
// (exact integer arithmetic on the i32 fine codes).
enum Kind { kCopy, kLinear, kCubic, kQuadDown, kQuadUp };
template <int K>
inline int64_t predict(const int32_t* p, uint32_t off) {
  const int64_t b = p[-static_cast<int64_t>(off)];
  if (K == kCopy) return b;
  const int64_t c = p[off];
  if (K == kLinear) return floor_shift(b + c, 1);
  if (K == kCubic)
    return floor_shift(9 * (b + c) - p[-3 * static_cast<int64_t>(off)] - p[3 * uint64_t{off}] + 8,
                       4);
  if (K == kQuadDown) return floor_shift(6 * b + 3 * c - p[-3 * static_cast<int64_t>(off)] + 4, 3);
  return floor_shift(3 * b + 6 * c - p[3 * uint64_t{off}] + 4, 3);  // kQuadUp
}

// The encoder at one value: its residual to *r, its fine code replaced by the
// reconstruction (within 127 fine steps of it).
inline void encode_at(int32_t* v, int64_t p, uint32_t* r) {
  const int64_t k = residual_of(int64_t{*v} - p);
  *r = static_cast<uint32_t>(k);
  *v = static_cast<int32_t>(p + k * kInterpStep);
}
// The decoder at one value (u32 arithmetic: any residual decodes; a
// well-formed chunk never wraps).
inline void decode_at(int32_t* v, int64_t p, uint32_t r) {
  *v = static_cast<int32_t>(static_cast<uint32_t>(p) + kInterpStep * r);
}

// The runs of step 2 (ChunkKernels::interp_encode_run, interp_decode_run): the
// values j = from + 2 t, t < count, predicted linearly or cubically (kind K)
// from their neighbours off apart. Scalar; the AVX2 kernels do the same.
template <int K>
void encode_run(int32_t* v, uint32_t from, uint32_t count, uint32_t off, uint32_t* r) {
  for (uint32_t t = 0; t < count; ++t) {
    int32_t* at = v + from + 2 * t;
    encode_at(at, predict<K>(at, off), r + t);
  }
}
template <int K>
void decode_run(int32_t* v, uint32_t from, uint32_t count, uint32_t off, const uint32_t* r) {
  for (uint32_t t = 0; t < count; ++t) {
    int32_t* at = v + from + 2 * t;
    decode_at(at, predict<K>(at, off), r[t]);
  }
}

}  // namespace interp_step
}  // namespace zcoll
