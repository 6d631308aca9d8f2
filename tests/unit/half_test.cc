// half_test.cc — the 16-bit value types of format 1.2 (bfloat16, float16): the
// conversions against an independent reference, the round trip of every file of
// data/ converted to 16 bits within the stream's bound (checked exactly), the
// special values, accumulation, the homomorphic sum and DOC, and the sizes.
#include <cmath>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

#include "codec/value_types.h"  // internal: zcoll::Bf16, Fp16 and their conversions
#include "test_util.h"

namespace {

using zcoll::Bf16;
using zcoll::Fp16;
using zt::Rng;

// ---- an independent rounding: frexp/ldexp in double --------------------------------
// Round a float to a binary format of p significant bits, smallest normal
// exponent emin (2^emin), largest finite value maxf; ties to even. Returns the
// rounded value as a double (+-Inf on overflow).
double ref_round(float f, int p, int emin, double maxf) {
  const double x = f;
  if (x == 0 || !std::isfinite(x)) return x;
  int e;
  std::frexp(x, &e);  // x = m 2^e, 0.5 <= |m| < 1: the leading bit is 2^(e-1)
  const int lead = std::max(e - 1, emin);
  const double ulp = std::ldexp(1.0, lead - (p - 1));
  const double r = std::nearbyint(x / ulp) * ulp;  // exact scaling, ties to even
  const double inf_at = maxf + std::ldexp(1.0, static_cast<int>(std::log2(maxf)) - p);
  if (std::fabs(r) > maxf || std::fabs(x) >= inf_at) return std::copysign(INFINITY, x);
  return r;
}
const double kBf16Max = 3.3895313892515355e38, kF16Max = 65504;
double ref_bf16(float f) { return ref_round(f, 8, -126, kBf16Max); }
double ref_f16(float f) { return ref_round(f, 11, -14, kF16Max); }

// The value of float16 bits, from the definition (not the library's decoder).
double ref_f16_value(uint16_t h) {
  const int e = (h >> 10) & 31, m = h & 1023;
  const double s = (h & 0x8000) ? -1 : 1;
  if (e == 31) return m ? NAN : s * INFINITY;
  if (e == 0) return s * std::ldexp(m, -24);
  return s * std::ldexp(1024 + m, e - 25);
}

float bf16_value(uint16_t b) { return zcoll::hd::bf16_to_float(b); }

TEST(HalfConvert, Float16EveryValue) {
  for (uint32_t h = 0; h < 65536; ++h) {
    const float f = zcoll::hd::f16_to_float(static_cast<uint16_t>(h));
    const double want = ref_f16_value(static_cast<uint16_t>(h));
    if (std::isnan(want)) {
      ASSERT_TRUE(std::isnan(f)) << h;
      ASSERT_EQ(std::signbit(f), (h & 0x8000) != 0) << h;
      const uint16_t back = zcoll::hd::float_to_f16(f);  // quiet, same sign and payload
      ASSERT_EQ(back, h | 0x0200u) << h;
      continue;
    }
    ASSERT_EQ(static_cast<double>(f), want) << h;
    ASSERT_EQ(std::signbit(f), (h & 0x8000) != 0) << h;
    ASSERT_EQ(zcoll::hd::float_to_f16(f), h) << h;  // exact values convert back
  }
}

TEST(HalfConvert, Bfloat16EveryValue) {
  for (uint32_t b = 0; b < 65536; ++b) {
    const float f = bf16_value(static_cast<uint16_t>(b));
    if (std::isnan(f)) {
      ASSERT_EQ(zcoll::hd::float_to_bf16(f), b | 0x0040u) << b;
      continue;
    }
    ASSERT_EQ(zcoll::hd::float_to_bf16(f), b) << b;
  }
}

// Rounding of floats: every exponent, random significands, and the ties.
TEST(HalfConvert, RoundingMatchesReference) {
  Rng r(7);
  std::vector<uint32_t> bits;
  for (uint32_t e = 0; e < 256; ++e)
    for (int k = 0; k < 400; ++k) {
      const uint32_t m = static_cast<uint32_t>(r.next()) & 0x7FFFFF;
      bits.push_back(e << 23 | m);
      bits.push_back(e << 23 | (m & ~0x1FFFu) | 0x1000u);  // a float16 tie
      bits.push_back(e << 23 | (m & ~0xFFFFu) | 0x8000u);  // a bfloat16 tie
    }
  for (uint32_t u : {0x477FEFFFu, 0x477FF000u, 0x477FF001u, 0x33000000u, 0x33000001u, 0x387FC000u,
                     0x387FE000u, 0x7F7FFFFFu, 0x7F7F8000u, 0x7F7F7FFFu})
    bits.push_back(u);
  for (uint32_t u : bits)
    for (uint32_t sign : {0u, 0x80000000u}) {
      float f;
      const uint32_t v = u | sign;
      std::memcpy(&f, &v, 4);
      if (std::isnan(f)) continue;
      const double wb = ref_bf16(f), wh = ref_f16(f);
      const float gb = bf16_value(zcoll::hd::float_to_bf16(f));
      const float gh = zcoll::hd::f16_to_float(zcoll::hd::float_to_f16(f));
      ASSERT_EQ(static_cast<double>(gb), wb) << std::hex << v;
      ASSERT_EQ(static_cast<double>(gh), wh) << std::hex << v;
      ASSERT_EQ(std::signbit(gb), std::signbit(f)) << std::hex << v;
      ASSERT_EQ(std::signbit(gh), std::signbit(f)) << std::hex << v;
    }
}

// ---- helpers over the C API ------------------------------------------------------------
template <typename T>
constexpr zcoll_dtype dtype16() {
  return zcoll::ValueTraits<T>::kDtype;
}
template <typename T>
double wide(T v) {
  return zcoll::ValueTraits<T>::widen(v);
}
template <typename T>
std::vector<T> narrow_all(const std::vector<float>& x) {
  std::vector<T> y(x.size());
  for (size_t i = 0; i < x.size(); ++i) y[i] = zcoll::ValueTraits<T>::narrow(x[i]);
  return y;
}
// Half an ulp of the 16-bit value nearest to |v| (the rounding error of v, at most).
template <typename T>
double half_ulp(double v) {
  const bool bf = dtype16<T>() == ZCOLL_BFLOAT16;
  const int p = bf ? 8 : 11, emin = bf ? -126 : -14;
  int e;
  std::frexp(v == 0 ? 1e-300 : v, &e);
  return std::ldexp(1.0, std::max(e - 1, emin) - p);
}

template <typename T>
std::vector<uint8_t> compress16(const std::vector<T>& x, zcoll_eb_mode mode, double eb,
                                uint32_t cs = 0, int threads = 1) {
  zcoll_params p;
  zcoll_params_init(&p);
  p.eb_mode = mode;
  p.error_bound = eb;
  p.chunk_size = cs;
  std::vector<uint8_t> z(zcoll_compress_bound(x.size(), dtype16<T>()));
  size_t size = 0;
  EXPECT_EQ(
      zcoll_compress(&p, dtype16<T>(), x.data(), x.size(), z.data(), z.size(), &size, threads),
      ZCOLL_SUCCESS)
      << zcoll_last_error();
  z.resize(size);
  return z;
}
template <typename T>
std::vector<T> decompress16(const std::vector<uint8_t>& z, size_t n, int threads = 1) {
  std::vector<T> y(n);
  EXPECT_EQ(zcoll_decompress(z.data(), z.size(), y.data(), n, threads), ZCOLL_SUCCESS)
      << zcoll_last_error();
  return y;
}
// Finite inputs within eb (exactly, in double), others bit for bit.
template <typename T>
size_t violations(const std::vector<T>& x, const std::vector<T>& y, double eb,
                  const std::string& what) {
  size_t bad = 0;
  for (size_t i = 0; i < x.size(); ++i) {
    const double a = wide(x[i]), b = wide(y[i]);
    const bool ok = std::isfinite(a) ? zt::within_bound(a, b, eb) : x[i].bits == y[i].bits;
    if (!ok && ++bad <= 3)
      ADD_FAILURE() << what << ": value " << i << ": x = " << a << ", x' = " << b
                    << ", eb = " << eb;
  }
  return bad;
}

std::vector<float> load_data_file(const std::string& name) {
  for (std::string dir : {std::string(ZCOLL_TEST_SOURCE_DIR) + "/../shared/data",
                          std::string(ZCOLL_TEST_SOURCE_DIR) + "/data"}) {
    std::ifstream f(dir + "/" + name, std::ios::binary | std::ios::ate);
    if (!f.good()) continue;
    std::vector<float> v(static_cast<size_t>(f.tellg()) / 4);
    f.seekg(0);
    f.read(reinterpret_cast<char*>(v.data()), static_cast<std::streamsize>(v.size() * 4));
    return v;
  }
  return {};
}
const char* const kDataFiles[] = {"proj_egm96-geoid_721x1440.f32", "ncarg_rect3d-t_17x96x192.f32",
                                  "ferret_fnoc-uwnd_132x73x144.f32",
                                  "hst-acs_j8bt06nyq-sci_1024x1024.f32"};

// Every file of data/ converted to 16 bits (round to nearest even; the Hubble
// image exceeds float16's range: its brightest pixels become +Inf, raw chunks),
// at several bounds: the decoded values keep the stream's bound, the stream is
// the same for 1 and 2 threads and with the chunk-range API, and the looser
// bounds compress.
template <typename T>
void data_roundtrip() {
  size_t files = 0;
  for (const char* name : kDataFiles) {
    const std::vector<float> f = load_data_file(name);
    if (f.empty()) continue;
    ++files;
    const std::vector<T> x = narrow_all<T>(f);
    struct B {
      zcoll_eb_mode mode;
      double eb;
    };
    for (B b : {B{ZCOLL_EB_REL, 1e-2}, B{ZCOLL_EB_REL, 1e-3}, B{ZCOLL_EB_REL, 1e-4},
                B{ZCOLL_EB_ABS, 1e-2}}) {
      const std::string what = std::string(name) + (b.mode == ZCOLL_EB_REL ? " rel " : " abs ") +
                               std::to_string(b.eb);
      const std::vector<uint8_t> z = compress16(x, b.mode, b.eb, 0, 1);
      zcoll_info info = zt::inspect(z);
      EXPECT_EQ(info.dtype, dtype16<T>()) << what;
      EXPECT_EQ(info.n, x.size());
      if (b.mode == ZCOLL_EB_ABS) {
        EXPECT_EQ(info.error_bound, b.eb);
      }
      // quantum = eb (1 - 2^-6) for 16-bit values (docs/format.md §2)
      EXPECT_EQ(info.quantum, info.error_bound * (1.0 - 1.0 / 64.0)) << what;
      EXPECT_LE(z.size(), zcoll_compress_bound(x.size(), dtype16<T>()));
      EXPECT_EQ(violations(x, decompress16<T>(z, x.size(), 2), info.error_bound, what), 0u);
      EXPECT_EQ(compress16(x, b.mode, b.eb, 0, 2), z) << what << ": threads change the bytes";
      if (b.mode == ZCOLL_EB_REL && b.eb >= 1e-3) {
        EXPECT_LT(z.size(), x.size() * 2) << what << ": no compression";
      }
    }
  }
  EXPECT_EQ(files, 4u) << "data/ files not found";
}
TEST(Half, DataFilesRoundTripBf16) { data_roundtrip<Bf16>(); }
TEST(Half, DataFilesRoundTripF16) { data_roundtrip<Fp16>(); }

// The chunk-range API writes the same stream as zcoll_compress.
TEST(Half, ChunkRangeApiSameStream) {
  Rng r(3);
  std::vector<float> f(5000);
  for (size_t i = 0; i < f.size(); ++i)
    f[i] = static_cast<float>(std::sin(i * 0.01) + 0.01 * r.normal());
  const std::vector<Bf16> x = narrow_all<Bf16>(f);
  zcoll_params p;
  zcoll_params_init(&p);
  p.eb_mode = ZCOLL_EB_ABS;
  p.error_bound = 1e-2;
  p.chunk_size = 1024;
  const std::vector<uint8_t> whole = compress16(x, ZCOLL_EB_ABS, 1e-2, 1024);
  std::vector<uint8_t> z(zcoll_compress_bound(x.size(), ZCOLL_BFLOAT16));
  const size_t chunks = zcoll_chunk_count(x.size(), 1024);
  std::vector<uint32_t> sizes(chunks);
  size_t pos = zcoll_header_size(x.size(), 1024);
  for (size_t c = 0; c < chunks; c += 2) {
    size_t w = 0;
    ASSERT_EQ(
        zcoll_compress_chunks(&p, ZCOLL_BFLOAT16, x.data(), x.size(), c, std::min(chunks, c + 2),
                              z.data() + pos, z.size() - pos, &w, sizes.data() + c, 1),
        ZCOLL_SUCCESS);
    pos += w;
  }
  ASSERT_EQ(zcoll_compress_finish(&p, ZCOLL_BFLOAT16, x.size(), sizes.data(), z.data(), z.size()),
            ZCOLL_SUCCESS);
  z.resize(pos);
  EXPECT_EQ(z, whole);
}

// NaN (payloads, signs), +-Inf, -0.0, subnormals and the extremes: a chunk with
// a non-finite value is raw and keeps every 16-bit pattern; -0.0 and the
// subnormals in a quantized chunk keep the bound, as for float32.
template <typename T>
void special_values() {
  std::vector<T> x;
  for (uint16_t b : {0x7FC0, 0xFFC1, 0x7F81, 0x7F80, 0xFF80, 0x8000, 0x0001, 0x8001, 0x7F7F, 0x7E00,
                     0xFE01, 0x7C00, 0xFC00, 0x7BFF, 0x03FF})
    x.push_back(T{b});
  for (int i = 0; i < 100; ++i) x.push_back(zcoll::ValueTraits<T>::narrow(0.25f * i));
  const std::vector<uint8_t> z = compress16(x, ZCOLL_EB_ABS, 0.1, 1024);
  const std::vector<T> y = decompress16<T>(z, x.size());
  EXPECT_EQ(zt::inspect(z).raw_chunks, 1u);
  for (size_t i = 0; i < x.size(); ++i) EXPECT_EQ(x[i].bits, y[i].bits) << i;  // raw: exact
  // quantized: -0.0 and subnormals within the bound
  std::vector<T> q(2000);
  for (size_t i = 0; i < q.size(); ++i)
    q[i] = T{static_cast<uint16_t>(i % 3 == 0 ? 0x8000 : i % 7)};
  const std::vector<uint8_t> zq = compress16(q, ZCOLL_EB_ABS, 1e-3, 1024);
  EXPECT_EQ(zt::inspect(zq).raw_chunks, 0u);
  EXPECT_EQ(violations(q, decompress16<T>(zq, q.size()), 1e-3, "zeros"), 0u);
}
TEST(Half, SpecialValuesBf16) { special_values<Bf16>(); }
TEST(Half, SpecialValuesF16) { special_values<Fp16>(); }

// Values near the top of float16's range: reconstructions that round to Inf
// are never accepted, so the bound holds (or the chunk is raw).
TEST(Half, Float16NearOverflow) {
  std::vector<Fp16> x;
  for (int i = 0; i < 3000; ++i) x.push_back(Fp16{static_cast<uint16_t>(0x7BFF - (i % 40))});
  for (double eb : {1.0, 30.0, 100.0, 1000.0}) {
    const std::vector<uint8_t> z = compress16(x, ZCOLL_EB_ABS, eb, 1024);
    EXPECT_EQ(violations(x, decompress16<Fp16>(z, x.size()), eb, "near 65504"), 0u) << eb;
  }
}

// accumulate: dst = to16(float(dst) + float(x')) with x' the decoded value.
template <typename T>
void accumulate_rule() {
  Rng r(5);
  std::vector<float> f(3000), g(3000);
  for (size_t i = 0; i < f.size(); ++i)
    f[i] = static_cast<float>(r.normal()), g[i] = static_cast<float>(100 * r.normal());
  const std::vector<T> x = narrow_all<T>(f), d0 = narrow_all<T>(g);
  const std::vector<uint8_t> z = compress16(x, ZCOLL_EB_ABS, 1e-2, 1024);
  const std::vector<T> dec = decompress16<T>(z, x.size());
  std::vector<T> acc = d0;
  ASSERT_EQ(zcoll_decompress_accumulate(z.data(), z.size(), acc.data(), acc.size(), 1),
            ZCOLL_SUCCESS);
  for (size_t i = 0; i < x.size(); ++i) {
    const float want = static_cast<float>(wide(d0[i])) + static_cast<float>(wide(dec[i]));
    ASSERT_EQ(acc[i].bits, zcoll::ValueTraits<T>::narrow(want).bits) << i;
    // and so within the bound plus one 16-bit rounding of the exact sum
    const double exact = wide(d0[i]) + wide(x[i]);
    ASSERT_LE(std::fabs(wide(acc[i]) - exact),
              1e-2 + half_ulp<T>(exact) + half_ulp<T>(wide(acc[i])))
        << i;
  }
}
TEST(Half, AccumulateBf16) { accumulate_rule<Bf16>(); }
TEST(Half, AccumulateF16) { accumulate_rule<Fp16>(); }

// The homomorphic sum of k streams decodes within the sum of their bounds of the
// exact sum, plus the one rounding of the decoded sum to 16 bits.
template <typename T>
void hom_sum_bound() {
  Rng r(9);
  const size_t n = 20000, k = 5;
  const double eb = 1e-2;
  std::vector<std::vector<T>> xs(k);
  std::vector<double> exact(n, 0.0);
  std::vector<uint8_t> acc;
  for (size_t j = 0; j < k; ++j) {
    std::vector<float> f(n);
    for (size_t i = 0; i < n; ++i)
      f[i] = static_cast<float>(std::cos(i * 1e-3 * (j + 1)) * 4 + 0.05 * r.normal());
    xs[j] = narrow_all<T>(f);
    for (size_t i = 0; i < n; ++i) exact[i] += wide(xs[j][i]);
    std::vector<uint8_t> z = compress16(xs[j], ZCOLL_EB_ABS, eb);
    if (acc.empty()) {
      acc = z;
      continue;
    }
    std::vector<uint8_t> out(zcoll_compress_bound(n, dtype16<T>()));
    size_t size = 0;
    ASSERT_EQ(zcoll_hom_add(acc.data(), acc.size(), z.data(), z.size(), out.data(), out.size(),
                            &size, nullptr, 1),
              ZCOLL_SUCCESS)
        << zcoll_last_error();
    out.resize(size);
    acc = out;
  }
  const zcoll_info info = zt::inspect(acc);
  EXPECT_EQ(info.terms, k);
  EXPECT_DOUBLE_EQ(info.error_bound, k * eb);
  const std::vector<T> y = decompress16<T>(acc, n);
  for (size_t i = 0; i < n; ++i)
    ASSERT_LE(std::fabs(wide(y[i]) - exact[i]), info.error_bound + half_ulp<T>(wide(y[i]))) << i;
  // mismatched types do not combine
  std::vector<float> f(n, 1.0f);
  const std::vector<uint8_t> other = dtype16<T>() == ZCOLL_BFLOAT16
                                         ? compress16(narrow_all<Fp16>(f), ZCOLL_EB_ABS, eb)
                                         : compress16(narrow_all<Bf16>(f), ZCOLL_EB_ABS, eb);
  std::vector<uint8_t> out(zcoll_compress_bound(n, dtype16<T>()));
  size_t size = 0;
  EXPECT_EQ(zcoll_hom_add(acc.data(), acc.size(), other.data(), other.size(), out.data(),
                          out.size(), &size, nullptr, 1),
            ZCOLL_ERR_MISMATCH);
}
TEST(Half, HomSumBoundBf16) { hom_sum_bound<Bf16>(); }
TEST(Half, HomSumBoundF16) { hom_sum_bound<Fp16>(); }

// DOC MAX of two 16-bit streams: within max(ea, eb) plus one compression bound.
TEST(Half, DocCombineMax) {
  Rng r(4);
  const size_t n = 4000;
  std::vector<float> fa(n), fb(n);
  for (size_t i = 0; i < n; ++i)
    fa[i] = static_cast<float>(r.normal()), fb[i] = static_cast<float>(r.normal());
  const std::vector<Bf16> a = narrow_all<Bf16>(fa), b = narrow_all<Bf16>(fb);
  const auto za = compress16(a, ZCOLL_EB_ABS, 0.05), zb = compress16(b, ZCOLL_EB_ABS, 0.05);
  std::vector<uint8_t> out(zcoll_compress_bound(n, ZCOLL_BFLOAT16));
  size_t size = 0;
  ASSERT_EQ(zcoll_doc_combine(za.data(), za.size(), zb.data(), zb.size(), ZCOLL_OP_MAX, out.data(),
                              out.size(), &size, 1),
            ZCOLL_SUCCESS);
  out.resize(size);
  const zcoll_info info = zt::inspect(out);
  EXPECT_DOUBLE_EQ(info.error_bound, 0.1);
  const std::vector<Bf16> y = decompress16<Bf16>(out, n);
  for (size_t i = 0; i < n; ++i) {
    const double want = std::max(wide(a[i]), wide(b[i]));
    ASSERT_LE(std::fabs(wide(y[i]) - want), info.error_bound)
        << i;  // max of grid values: no rounding
  }
}

TEST(Half, SizesAndInfo) {
  EXPECT_EQ(zcoll_dtype_size(ZCOLL_BFLOAT16), 2u);
  EXPECT_EQ(zcoll_dtype_size(ZCOLL_FLOAT16), 2u);
  EXPECT_EQ(zcoll_dtype_size(static_cast<zcoll_dtype>(5)), 0u);
  EXPECT_EQ(zcoll_compress_bound(1000, ZCOLL_FLOAT16), 64u + 16u + 2000u);
  // incompressible data: every chunk raw, within the bound of §8
  Rng r(1);
  for (size_t n : {size_t{1}, size_t{31}, size_t{1023}, size_t{1025}, size_t{70001}}) {
    std::vector<Bf16> x(n);
    for (auto& v : x) v.bits = static_cast<uint16_t>(r.next());
    const auto z = compress16(x, ZCOLL_EB_ABS, 1e-30, 1024);
    EXPECT_LE(z.size(), zcoll_compress_bound(n, ZCOLL_BFLOAT16)) << n;
    const auto y = decompress16<Bf16>(z, n);
    for (size_t i = 0; i < n; ++i) ASSERT_EQ(x[i].bits, y[i].bits);
  }
  zcoll_params p;
  zcoll_params_init(&p);
  double mn = 0, mx = 0;
  const std::vector<Fp16> h = {Fp16{0x3C00}, Fp16{0x7C00}, Fp16{0xC000}, Fp16{0x7E00}};
  ASSERT_EQ(zcoll_value_range(ZCOLL_FLOAT16, h.data(), h.size(), &mn, &mx, 1), ZCOLL_SUCCESS);
  EXPECT_EQ(mn, -2.0);
  EXPECT_EQ(mx, 1.0);
}

}  // namespace
