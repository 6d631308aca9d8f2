// value_types.h — the value types of the format (docs/format.md §1): float32,
// float64 and, since format 1.2, bfloat16 and float16, each described once by
// ValueTraits<T> so that every kernel is written once and instantiated per type.
//
// A 16-bit type is a struct holding the IEEE bits (no arithmetic of its own):
// it is widened to float exactly (every bfloat16 and float16 value is a float),
// all arithmetic happens in float, and a result is narrowed back with one
// rounding to nearest, ties to even. Plain functions marked ZCOLL_HD with no
// host-only dependency: the CUDA kernels include this file through
// shared_logic.h (they instantiate float and double only).
#pragma once

#include <cstdint>
#include <cstring>

#include "codec/block_codec.h"  // ZCOLL_HD
#include "zcoll.h"

namespace zcoll {

// bfloat16: sign, 8 exponent bits, 7 fraction bits (the top half of a float).
struct Bf16 {
  uint16_t bits;
};
// IEEE-754 binary16: sign, 5 exponent bits, 10 fraction bits.
struct Fp16 {
  uint16_t bits;
};
static_assert(sizeof(Bf16) == 2 && sizeof(Fp16) == 2, "16-bit values are stored as 2 bytes");

namespace hd {

ZCOLL_HD inline uint32_t float_bits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}
ZCOLL_HD inline float bits_float(uint32_t u) {
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}

// The NaN every computed NaN is stored as (docs/format.md §5.1): hardware differs in
// which NaN an operation returns (x86 keeps an operand's payload and makes
// Inf - Inf negative; NVIDIA GPUs return 0x7FFFFFFF), and the homomorphic and DOC
// results must be the same bytes on CPU and GPU, so they store the positive
// quiet NaN with no payload. An input NaN that is only copied keeps its bits.
ZCOLL_HD inline float canonical_nan(float r) { return r != r ? bits_float(0x7FC00000u) : r; }
ZCOLL_HD inline double canonical_nan(double r) {
  if (r == r) return r;
  const uint64_t u = 0x7FF8000000000000ull;
  double d;
  std::memcpy(&d, &u, 8);
  return d;
}

// ---- bfloat16 ---------------------------------------------------------------------
ZCOLL_HD inline float bf16_to_float(uint16_t b) { return bits_float(uint32_t{b} << 16); }

// Round to nearest, ties to even; overflow gives +-Inf (the carry runs into the
// exponent); a NaN stays a NaN with its sign and top payload bits, made quiet.
ZCOLL_HD inline uint16_t float_to_bf16(float f) {
  const uint32_t u = float_bits(f);
  if ((u & 0x7FFFFFFFu) > 0x7F800000u) return static_cast<uint16_t>((u >> 16) | 0x0040u);
  return static_cast<uint16_t>((u + 0x7FFFu + ((u >> 16) & 1u)) >> 16);
}

// ---- float16 ----------------------------------------------------------------------
ZCOLL_HD inline float f16_to_float(uint16_t h) {
  const uint32_t sign = uint32_t{h & 0x8000u} << 16;
  uint32_t e = (h >> 10) & 0x1Fu, m = h & 0x3FFu;
  if (e == 0x1F) return bits_float(sign | 0x7F800000u | (m << 13));  // Inf, NaN
  if (e == 0) {
    if (m == 0) return bits_float(sign);  // +-0
    e = 113;                              // subnormal m * 2^-24: normalize
    while (!(m & 0x400u)) m <<= 1, --e;
    return bits_float(sign | (e << 23) | ((m & 0x3FFu) << 13));
  }
  return bits_float(sign | ((e + 112) << 23) | (m << 13));
}

// Round to nearest, ties to even, in integers only (subnormal results included,
// no dependence on the FPU's denormal mode); |f| >= 65520 gives +-Inf; a NaN
// stays a NaN (quiet) with its sign and top payload bits.
ZCOLL_HD inline uint16_t float_to_f16(float f) {
  const uint32_t u = float_bits(f);
  const uint16_t sign = static_cast<uint16_t>((u >> 16) & 0x8000u);
  const uint32_t a = u & 0x7FFFFFFFu;
  if (a > 0x7F800000u) return static_cast<uint16_t>(sign | 0x7E00u | ((a >> 13) & 0x3FFu));
  if (a >= 0x47800000u) return static_cast<uint16_t>(sign | 0x7C00u);  // >= 2^16: Inf
  if (a < 0x38800000u) {  // below 2^-14: a subnormal result, in units of 2^-24
    const uint32_t e = a >> 23, mant = (a & 0x7FFFFFu) | 0x800000u;
    const uint32_t shift = 126 - e;         // value = mant * 2^(e - 150) = (mant >> shift) units
    if (e == 0 || shift > 24) return sign;  // below 2^-25 (or a float subnormal): +-0
    uint32_t r = mant >> shift;
    const uint32_t rem = mant & ((1u << shift) - 1), half = 1u << (shift - 1);
    r += (rem > half || (rem == half && (r & 1u))) ? 1u : 0u;
    return static_cast<uint16_t>(sign | r);  // r = 0x400 is the smallest normal: right
  }
  // normal: rebias the exponent, round the 13 dropped bits (a carry may reach Inf)
  const uint32_t r = (a - ((127u - 15u) << 23) + 0xFFFu + ((a >> 13) & 1u)) >> 13;
  return static_cast<uint16_t>(sign | r);
}

}  // namespace hd

// What a kernel needs to know about a value type:
//   Wide          the type arithmetic happens in (float for the 16-bit types)
//   widen/narrow  exact widening; narrowing with one rounding to nearest even
//   from_double   a reconstruction (double) as a value: for the 16-bit types one
//                 rounding to float, then one to 16 bits (docs/format.md §6)
//   kSlack        the relative slack of the quantization step (§2)
//   kBinsPerBound bins of width quantum per 2*eb: 2 (bins of width 2eb(1-s)) for
//                 float/double; 1 (width eb(1-s)) for the 16-bit types, whose
//                 reconstruction is rounded to a grid that holds the input, which
//                 can double the distance to it (docs/format.md §7)
template <typename T>
struct ValueTraits;

template <>
struct ValueTraits<float> {
  using Wide = float;
  static constexpr zcoll_dtype kDtype = ZCOLL_FLOAT32;
  static constexpr double kSlack = 1.0 / 64.0;
  static constexpr double kBinsPerBound = 2.0;
  ZCOLL_HD static float widen(float x) { return x; }
  ZCOLL_HD static float narrow(float w) { return w; }
  ZCOLL_HD static float from_double(double d) { return static_cast<float>(d); }
};

template <>
struct ValueTraits<double> {
  using Wide = double;
  static constexpr zcoll_dtype kDtype = ZCOLL_FLOAT64;
  static constexpr double kSlack = 1.0 / 1048576.0;
  static constexpr double kBinsPerBound = 2.0;
  ZCOLL_HD static double widen(double x) { return x; }
  ZCOLL_HD static double narrow(double w) { return w; }
  ZCOLL_HD static double from_double(double d) { return d; }
};

template <>
struct ValueTraits<Bf16> {
  using Wide = float;
  static constexpr zcoll_dtype kDtype = ZCOLL_BFLOAT16;
  static constexpr double kSlack = 1.0 / 64.0;
  static constexpr double kBinsPerBound = 1.0;
  ZCOLL_HD static float widen(Bf16 x) { return hd::bf16_to_float(x.bits); }
  ZCOLL_HD static Bf16 narrow(float w) { return Bf16{hd::float_to_bf16(w)}; }
  ZCOLL_HD static Bf16 from_double(double d) { return narrow(static_cast<float>(d)); }
};

template <>
struct ValueTraits<Fp16> {
  using Wide = float;
  static constexpr zcoll_dtype kDtype = ZCOLL_FLOAT16;
  static constexpr double kSlack = 1.0 / 64.0;
  static constexpr double kBinsPerBound = 1.0;
  ZCOLL_HD static float widen(Fp16 x) { return hd::f16_to_float(x.bits); }
  ZCOLL_HD static Fp16 narrow(float w) { return Fp16{hd::float_to_f16(w)}; }
  ZCOLL_HD static Fp16 from_double(double d) { return narrow(static_cast<float>(d)); }
};

// a + b in the wide type, narrowed once (float and double: the plain sum).
template <typename T>
ZCOLL_HD inline T add_values(T a, T b) {
  using V = ValueTraits<T>;
  return V::narrow(V::widen(a) + V::widen(b));
}

// Bytes of a value of dtype (0 for an unknown code).
ZCOLL_HD inline size_t value_bytes_of(zcoll_dtype d) {
  switch (d) {
    case ZCOLL_FLOAT32: return 4;
    case ZCOLL_FLOAT64: return 8;
    case ZCOLL_BFLOAT16:
    case ZCOLL_FLOAT16: return 2;
  }
  return 0;
}

// f(T{}) with T the value type of dtype (which the caller has validated; an
// unknown code is taken as double, never reached).
template <typename F>
decltype(auto) with_value_type(zcoll_dtype d, F&& f) {
  switch (d) {
    case ZCOLL_FLOAT32: return f(float{});
    case ZCOLL_BFLOAT16: return f(Bf16{});
    case ZCOLL_FLOAT16: return f(Fp16{});
    case ZCOLL_FLOAT64: break;
  }
  return f(double{});
}

}  // namespace zcoll
