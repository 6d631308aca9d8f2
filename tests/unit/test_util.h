// test_util.h — helpers shared by the zcoll unit tests: deterministic random
// data, an exact error-bound check, and thin wrappers over the C API.
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

#include "zcoll.h"

namespace zt {

template <typename T>
constexpr zcoll_dtype dtype_of() {
  return std::is_same<T, float>::value ? ZCOLL_FLOAT32 : ZCOLL_FLOAT64;
}

template <typename T>
struct Bits;
template <>
struct Bits<float> {
  using U = uint32_t;
};
template <>
struct Bits<double> {
  using U = uint64_t;
};

// Whether the n bytes at a and at b are equal: bit-exact values (a NaN's payload,
// the sign of zero), which == on floats does not compare.
inline bool same_bytes(const void* a, const void* b, size_t n) { return std::memcmp(a, b, n) == 0; }

template <typename T>
typename Bits<T>::U bits_of(T v) {
  typename Bits<T>::U u;
  std::memcpy(&u, &v, sizeof v);
  return u;
}
template <typename T>
T from_bits(typename Bits<T>::U u) {
  T v;
  std::memcpy(&v, &u, sizeof v);
  return v;
}

// Deterministic generator. Only the engine's raw output is used (the standard
// distributions are implementation-defined), so data is the same everywhere.
class Rng {
 public:
  explicit Rng(uint64_t seed) : e_(seed) {}
  uint64_t next() { return e_(); }
  // uniform in [0, 1)
  double uniform() { return static_cast<double>(next() >> 11) * (1.0 / 9007199254740992.0); }
  double uniform(double a, double b) { return a + (b - a) * uniform(); }
  // uniform integer in [0, n)
  uint64_t below(uint64_t n) { return n ? next() % n : 0; }
  bool coin(double p = 0.5) { return uniform() < p; }
  double normal() {  // Box-Muller
    double u1 = uniform(), u2 = uniform();
    if (u1 < 1e-300) u1 = 1e-300;
    return std::sqrt(-2.0 * std::log(u1)) * std::cos(6.283185307179586 * u2);
  }

 private:
  std::mt19937_64 e_;
};

// Exact test of |x - y| <= eb for finite x and double y, eb (float values convert
// to double exactly). The difference is formed with an error-free transformation
// (TwoSum: s + e == x - y exactly), so no rounding can hide a violation.
inline bool within_bound(double x, double y, double eb) {
  if (!std::isfinite(y)) return false;
  const double a = x, b = -y;
  const double s = a + b;
  if (!std::isfinite(s)) return false;  // |x - y| > DBL_MAX >= eb
  const double bv = s - a;
  const double av = s - bv;
  const double e = (a - av) + (b - bv);
  const double as = std::fabs(s);
  if (as < eb) return true;   // |s + e| <= |s| + ulp/2 < next double above |s| <= eb
  if (as > eb) return false;  // rounding is monotonic: |x - y| > eb
  return e == 0 || std::signbit(e) != std::signbit(s);  // |s| == eb: sign of the residual
}

// Compress with the given settings; fails the test on any error.
template <typename T>
std::vector<uint8_t> compress(const std::vector<T>& x, zcoll_eb_mode mode, double eb,
                              uint32_t chunk_size = 0, int threads = 1,
                              zcoll_codec codec = ZCOLL_CODEC_FAST, uint64_t flags = 0) {
  zcoll_params p;
  zcoll_params_init(&p);
  p.eb_mode = mode;
  p.error_bound = eb;
  p.chunk_size = chunk_size;
  p.codec = codec;
  p.flags = flags;
  size_t cap = zcoll_compress_bound(x.size(), dtype_of<T>());
  std::vector<uint8_t> out(cap);
  size_t size = 0;
  zcoll_status s =
      zcoll_compress(&p, dtype_of<T>(), x.data(), x.size(), out.data(), cap, &size, threads);
  EXPECT_EQ(s, ZCOLL_SUCCESS) << zcoll_last_error();
  if (s != ZCOLL_SUCCESS) return {};
  EXPECT_LE(size, cap);
  out.resize(size);
  return out;
}

template <typename T>
std::vector<T> decompress(const std::vector<uint8_t>& z, size_t n, int threads = 1) {
  std::vector<T> y(n);
  zcoll_status s = zcoll_decompress(z.data(), z.size(), y.data(), n, threads);
  EXPECT_EQ(s, ZCOLL_SUCCESS) << zcoll_last_error();
  return y;
}

// The stream of zcoll_compress_chunks over ranges of `step` chunks, then
// zcoll_compress_finish (p.chunk_size set); a failure fails the test with the
// library's message and returns an empty stream.
template <typename T>
std::vector<uint8_t> compress_in_ranges(const zcoll_params& p, const std::vector<T>& x,
                                        size_t step) {
  const size_t chunks = zcoll_chunk_count(x.size(), p.chunk_size);
  std::vector<uint8_t> out(zcoll_compress_bound(x.size(), dtype_of<T>()));
  std::vector<uint32_t> sizes(chunks);
  size_t pos = zcoll_header_size(x.size(), p.chunk_size), w = 0;
  for (size_t a = 0; a < chunks; a += step) {
    const size_t b = a + step < chunks ? a + step : chunks;
    const zcoll_status s = zcoll_compress_chunks(&p, dtype_of<T>(), x.data(), x.size(), a, b,
                                                 out.data() + pos, out.size() - pos, &w,
                                                 sizes.data() + a, 1);
    EXPECT_EQ(s, ZCOLL_SUCCESS) << zcoll_last_error();
    if (s != ZCOLL_SUCCESS) return {};
    pos += w;
  }
  const zcoll_status s =
      zcoll_compress_finish(&p, dtype_of<T>(), x.size(), sizes.data(), out.data(), out.size());
  EXPECT_EQ(s, ZCOLL_SUCCESS) << zcoll_last_error();
  if (s != ZCOLL_SUCCESS) return {};
  out.resize(pos);
  return out;
}

inline zcoll_info inspect(const std::vector<uint8_t>& z) {
  zcoll_info info = ZCOLL_INFO_INITIALIZER;
  zcoll_status s = zcoll_inspect(z.data(), z.size(), &info);
  EXPECT_EQ(s, ZCOLL_SUCCESS) << zcoll_last_error();
  return info;
}

// Check every value: finite originals within eb (exactly), non-finite originals
// reproduced bit for bit. Returns the number of violations (reports the first few).
template <typename T>
size_t count_violations(const std::vector<T>& x, const std::vector<T>& y, double eb,
                        const std::string& what) {
  size_t bad = 0;
  for (size_t i = 0; i < x.size(); ++i) {
    bool ok = std::isfinite(x[i]) ? within_bound(x[i], y[i], eb) : bits_of(x[i]) == bits_of(y[i]);
    if (!ok && ++bad <= 3)
      ADD_FAILURE() << what << ": value " << i << " of " << x.size()
                    << ": x = " << testing::PrintToString(static_cast<double>(x[i])) << " (bits 0x"
                    << std::hex << static_cast<uint64_t>(bits_of(x[i])) << std::dec
                    << "), x' = " << testing::PrintToString(static_cast<double>(y[i]))
                    << ", eb = " << testing::PrintToString(eb);
  }
  return bad;
}

// Full round trip with checks of the stream description and the bound.
// Returns the stream.
template <typename T>
std::vector<uint8_t> roundtrip_check(const std::vector<T>& x, zcoll_eb_mode mode, double eb,
                                     uint32_t chunk_size, int threads, const std::string& what) {
  std::vector<uint8_t> z = compress(x, mode, eb, chunk_size, threads);
  if (z.empty()) {
    ADD_FAILURE() << what << ": compression failed";
    return z;
  }
  EXPECT_LE(z.size(), zcoll_compress_bound(x.size(), dtype_of<T>())) << what;
  zcoll_info info = inspect(z);
  EXPECT_EQ(info.n, x.size()) << what;
  EXPECT_EQ(info.dtype, dtype_of<T>()) << what;
  EXPECT_EQ(info.stream_size, z.size()) << what;
  EXPECT_EQ(info.divisor, 1u) << what;
  EXPECT_EQ(info.terms, 1u) << what;
  EXPECT_EQ(info.format_version, 1u) << what;
  EXPECT_EQ(info.chunk_size, chunk_size ? chunk_size : ZCOLL_DEFAULT_CHUNK_SIZE) << what;
  // the stream's bound is the requested one (ABS) or the resolved one (REL)
  if (mode == ZCOLL_EB_ABS) {
    EXPECT_EQ(info.error_bound, eb) << what;
  } else {
    zcoll_params p;
    zcoll_params_init(&p);
    p.eb_mode = mode;
    p.error_bound = eb;
    double abs_eb = 0;
    EXPECT_EQ(zcoll_resolve_error_bound(&p, dtype_of<T>(), x.data(), x.size(), &abs_eb, 1),
              ZCOLL_SUCCESS);
    EXPECT_EQ(info.error_bound, abs_eb) << what;
  }
  EXPECT_LE(info.error_bound, mode == ZCOLL_EB_ABS ? eb : std::numeric_limits<double>::max());
  std::vector<T> y = decompress<T>(z, x.size(), threads);
  EXPECT_EQ(count_violations(x, y, info.error_bound, what), 0u);
  return z;
}

inline std::string hex(const uint8_t* p, size_t n) {
  static const char* d = "0123456789abcdef";
  std::string s;
  for (size_t i = 0; i < n; ++i) {
    if (i) s += (i % 16 == 0) ? '\n' : ' ';
    s += d[p[i] >> 4];
    s += d[p[i] & 15];
  }
  return s;
}

}  // namespace zt
