// shared_logic.h — the per-value and per-block rules of format v1 that the CPU
// codec (chunk_scalar.h, chunk_scalar.cc, stream.cc, hom.cc) and the CUDA kernels
// (src/cuda/) both run: quantization of one value, the quantizer of a bound, the
// REL bound of a value range, the worst-case stream size, the decoding of one
// value of a block and the bit-sliced addition of two blocks. Plain functions
// marked ZCOLL_HD (block_codec.h), no host-only dependencies, so that one
// implementation defines the bytes and the CPU unit tests cover what the GPU runs.
#pragma once

#include <cfloat>
#include <cmath>
#include <cstddef>
#include <cstdint>

#include "codec/block_codec.h"
#include "codec/value_types.h"

namespace zcoll {

// Relative slack between the bin half-width and the error bound (docs/format.md §2;
// ValueTraits<T>::kSlack: the 16-bit types use float's).
constexpr double kSlackF32 = ValueTraits<float>::kSlack;
constexpr double kSlackF64 = ValueTraits<double>::kSlack;
// Largest |q| the compressor emits; largest |q| any stream may hold (int32).
constexpr int64_t kQMaxCompress = (int64_t{1} << 30) - 1;
constexpr int64_t kQMaxFormat = (int64_t{1} << 31) - 1;
constexpr double kDenormMin = 4.9406564584124654e-324;  // smallest positive double

// What a chunk encoder needs to know about the error bound.
template <typename T>
struct Quantizer {
  double quantum;                          // bin width (2*eb*(1-slack); 16-bit: eb*(1-slack))
  double inv;                              // 1/quantum
  typename ValueTraits<T>::Wide eb_check;  // accept x' iff |x - x'| < eb_check (computed in
                                           // T's wide type); eb_check <= eb
};

namespace hd {

template <typename T>
ZCOLL_HD inline T fabs_(T x) {
#if defined(__CUDA_ARCH__)
  return ::fabs(x);
#else
  return std::fabs(x);
#endif
}
ZCOLL_HD inline double nearbyint_(double x) {
#if defined(__CUDA_ARCH__)
  return ::rint(x);  // round half to even, like nearbyint in the default mode
#else
  // |x| < 2^51: adding and subtracting 1.5 * 2^52 rounds to an integer in the
  // current rounding mode, exactly as nearbyint, without its library call (which
  // x86-64 makes without SSE4.1). Larger (or NaN) x: the library.
  constexpr double kRound = 6755399441055744.0;  // 1.5 * 2^52
  if (std::fabs(x) < 2251799813685248.0) return (x + kRound) - kRound;
  return std::nearbyint(x);
#endif
}
// finite: v - v is 0 only for finite v (no library call, same on host and device)
ZCOLL_HD inline bool finite_(double v) { return (v - v) == 0.0; }
ZCOLL_HD inline float next_toward_zero(float f) {
#if defined(__CUDA_ARCH__)
  return ::nextafterf(f, 0.0f);
#else
  return std::nextafter(f, 0.0f);
#endif
}

}  // namespace hd

// Quantize one value: q = round(x/quantum), then check the reconstruction
// (T)(q*quantum) exactly as a decoder computes it. If rounding of x/quantum or of
// the reconstruction broke the bound, try the neighbouring bin. false = this value
// cannot be quantized (NaN, Inf, |q| too large, or bound unreachable in T). A
// 16-bit x is widened to float exactly; its reconstruction is rounded to 16 bits
// (ValueTraits::from_double) and the difference taken in float.
template <typename T>
ZCOLL_HD inline bool quantize_value(T x, const Quantizer<T>& qz, int32_t* q_out) {
  using V = ValueTraits<T>;
  using W = typename V::Wide;
  const W xw = V::widen(x);
  double t = static_cast<double>(xw) * qz.inv;
  if (!(hd::fabs_(t) <= static_cast<double>(kQMaxCompress))) return false;
  int32_t q = static_cast<int32_t>(hd::nearbyint_(t));
  W err = xw - V::widen(V::from_double(static_cast<double>(q) * qz.quantum));
  if (hd::fabs_(err) < qz.eb_check) {
    *q_out = q;
    return true;
  }
  int32_t alt = err > 0 ? q + 1 : q - 1;
  if (alt > kQMaxCompress || alt < -kQMaxCompress) return false;
  err = xw - V::widen(V::from_double(static_cast<double>(alt) * qz.quantum));
  if (hd::fabs_(err) < qz.eb_check) {
    *q_out = alt;
    return true;
  }
  return false;
}

// The quantizer of an absolute bound eb; false if eb is not positive and finite.
template <typename T>
ZCOLL_HD inline bool make_quantizer_hd(double eb, Quantizer<T>* qz) {
  using V = ValueTraits<T>;
  if (!(hd::finite_(eb) && eb > 0)) return false;
  // Any positive finite eb works: the reconstruction check keeps the bound
  // whatever the step, so extreme bounds get a usable step instead of an error.
  double quantum = V::kBinsPerBound * eb * (1.0 - V::kSlack);
  if (!(quantum <= DBL_MAX)) quantum = DBL_MAX;  // eb > DBL_MAX/2: narrower bins
  if (!(quantum > 0)) quantum = kDenormMin;
  double inv = 1.0 / quantum;
  if (!(inv <= DBL_MAX)) inv = DBL_MAX;  // subnormal step: non-zero values go raw
  qz->quantum = quantum;
  qz->inv = inv;
  if (sizeof(typename V::Wide) == 4) {
    // largest float not above eb, so that |err| < eb_check (in float) implies |err| <= eb
    float f = static_cast<float>(eb);
    if (static_cast<double>(f) > eb) f = hd::next_toward_zero(f);
    qz->eb_check = static_cast<typename V::Wide>(f);
  } else {
    qz->eb_check = static_cast<typename V::Wide>(eb);
  }
  return true;
}

// The quantizer of an existing stream's quantum; *eb_single receives the bound
// that one compression at this quantum guarantees.
template <typename T>
ZCOLL_HD inline bool make_quantizer_for_quantum_hd(double quantum, Quantizer<T>* qz,
                                                   double* eb_single) {
  using V = ValueTraits<T>;
  const double eb = quantum / (V::kBinsPerBound * (1.0 - V::kSlack));
  if (!make_quantizer_hd<T>(eb, qz)) return false;
  qz->quantum = quantum;  // exactly the stream's step (eb_check stays <= eb)
  qz->inv = 1.0 / quantum;
  *eb_single = eb;
  return hd::finite_(qz->inv);
}

// The absolute bound of a REL bound `rel` for data whose finite values span
// [mn, mx] (both 0 when there is no finite value), clamped into (0, DBL_MAX].
ZCOLL_HD inline double rel_to_abs_bound(double rel, double mn, double mx) {
  const double range = mx - mn;
  const double amn = hd::fabs_(mn);
  double eb = range > 0 ? rel * range : rel * (amn > 1.0 ? amn : 1.0);
  if (range - range != 0.0 && range == range) eb = rel * mx - rel * mn;  // range is +-Inf
  if (!(eb <= DBL_MAX)) eb = DBL_MAX;
  if (!(eb > 0)) eb = kDenormMin;
  return eb;
}

// zcoll_compress_bound for values of vb bytes (0 when not representable).
ZCOLL_HD inline size_t compress_bound_hd(size_t n, size_t vb) {
  if (vb == 0) return 0;
  const size_t index = 16 * (n / 1024 + 1);  // >= 16*ceil(n/1024), no overflow
  if (n > (SIZE_MAX - 64 - index) / vb) return 0;
  return 64 + 16 * ((n + 1023) / 1024) + n * vb;
}

// Delta of value `lane` (0..31) of a block payload of code length W (1..33),
// modulo 2^32: what decode_block computes for d[lane], one value at a time (a GPU
// lane reads every plane of its block and keeps its own bit).
ZCOLL_HD inline uint32_t decode_block_lane(const uint8_t* in, uint32_t W, uint32_t lane) {
  const uint32_t planes = W < 32 ? W : 32;
  uint32_t d = 0;
  for (uint32_t j = 0; j < planes; ++j) d |= ((get_word(in + 4 * j) >> lane) & 1u) << j;
  if (W < 32) {
    const uint32_t sign_bit = 1u << (W - 1);
    d = (d ^ sign_bit) - sign_bit;
  }
  return d;
}

// Bit-sliced a + b (or a - b = a + ~b + 1) of two blocks of two's-complement
// planes, written to out; one full-adder step per plane for all 32 values. Returns
// the width after dropping top planes that only repeat the sign (0 = all zero).
// out must have room for max(wa, wb) + 1 words. a may be null when wa is 0.
ZCOLL_HD inline uint32_t add_planes(const uint8_t* a, uint32_t wa, const uint8_t* b, uint32_t wb,
                                    bool subtract, uint8_t* out) {
  const uint32_t flip = subtract ? ~0u : 0u;
  const uint32_t common = wa < wb ? wa : wb;
  uint32_t carry = flip, j = 0;
  for (; j < common; ++j) {
    const uint32_t x = get_word(a + 4 * j), y = get_word(b + 4 * j) ^ flip, t = x ^ y;
    put_word(out + 4 * j, t ^ carry);
    carry = (x & y) | (carry & t);
  }
  const uint32_t sign_a = wa ? get_word(a + 4 * (wa - 1)) : 0u;
  const uint32_t sign_b = (wb ? get_word(b + 4 * (wb - 1)) : 0u) ^ flip;
  for (; j < wa; ++j) {  // b sign-extended
    const uint32_t x = get_word(a + 4 * j), t = x ^ sign_b;
    put_word(out + 4 * j, t ^ carry);
    carry = (x & sign_b) | (carry & t);
  }
  for (; j < wb; ++j) {  // a sign-extended
    const uint32_t y = get_word(b + 4 * j) ^ flip, t = sign_a ^ y;
    put_word(out + 4 * j, t ^ carry);
    carry = (sign_a & y) | (carry & t);
  }
  uint32_t top = sign_a ^ sign_b ^ carry;  // one more plane for the carry out
  put_word(out + 4 * j, top);
  uint32_t n = j + 1;
  while (n >= 2) {  // drop top planes that only repeat the sign
    const uint32_t below = get_word(out + 4 * (n - 2));
    if (below != top) break;
    top = below;
    --n;
  }
  return n == 1 && top == 0 ? 0 : n;
}

}  // namespace zcoll
