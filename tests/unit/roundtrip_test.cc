// roundtrip_test.cc — the error bound, exactly, on thousands of random and
// adversarial arrays, for float32/float64 x ABS/REL x 1/2 threads.
#include <cfloat>
#include <cmath>
#include <ostream>
#include <string>
#include <vector>

#include "test_data.h"
#include "test_util.h"

namespace {

using zt::Rng;

struct Combo {
  bool f64;
  zcoll_eb_mode mode;
  int threads;
};

std::string combo_string(const Combo& c) {
  return std::string(c.f64 ? "f64" : "f32") + (c.mode == ZCOLL_EB_ABS ? "_abs" : "_rel") + "_t" +
         std::to_string(c.threads);
}
std::string combo_name(const testing::TestParamInfo<Combo>& info) {
  return combo_string(info.param);
}
// gtest prints parameters in test listings (and so in the CTest names)
void PrintTo(const Combo& c, std::ostream* os) { *os << combo_string(c); }

// Whether the settings give an ordinary quantization step; extreme steps (see the
// Regression tests at the end of this file) are tested there, once each.
template <typename T>
bool settings_usable(const std::vector<T>& x, zcoll_eb_mode mode, double eb) {
  double b = eb;
  if (mode == ZCOLL_EB_REL) {
    double mn = 0, mx = 0;
    if (zcoll_value_range(zt::dtype_of<T>(), x.data(), x.size(), &mn, &mx, 1) != ZCOLL_SUCCESS)
      return false;
    double range = mx - mn;
    b = range > 0 ? eb * range : eb * std::max(std::fabs(mn), 1.0);
  }
  const double slack = sizeof(T) == 4 ? 1.0 / 64 : 1.0 / 1048576;
  const double quantum = 2 * b * (1 - slack);
  return std::isfinite(b) && std::isfinite(quantum) && quantum >= DBL_MIN;
}

double pick_eb(Rng& r, zcoll_eb_mode mode) {
  static const double abs_ebs[] = {1e-7, 1e-4, 1e-3, 0.01,  0.1,    0.37, 0.5,  1.0,
                                   3.7,  1e3,  1e6,  1e-40, 1e-300, 1e30, 1e300};
  static const double rel_ebs[] = {0.25, 0.1, 1e-2, 1e-3, 1e-4, 1e-6, 1e-10};
  if (mode == ZCOLL_EB_ABS) return abs_ebs[r.below(sizeof abs_ebs / sizeof abs_ebs[0])];
  return rel_ebs[r.below(sizeof rel_ebs / sizeof rel_ebs[0])];
}

class RoundTrip : public testing::TestWithParam<Combo> {
 protected:
  template <typename T>
  void run_case(int kind, size_t n, uint32_t cs, double eb, Rng& r, size_t* done) {
    const Combo& c = GetParam();
    std::vector<T> x = zt::make_case<T>(kind, n, r, c.mode, eb, cs);
    if (!settings_usable(x, c.mode, eb)) return;
    std::string what = std::string(zt::kind_name(kind)) + " n=" + std::to_string(n) +
                       " cs=" + std::to_string(cs) + " eb=" + testing::PrintToString(eb);
    zt::roundtrip_check(x, c.mode, eb, cs, c.threads, what);
    ++*done;
  }
  template <typename T>
  void fixed_sweep() {
    struct LenCs {
      size_t n;
      uint32_t cs;
    };
    // lengths around block and chunk boundaries (default chunk: 16384)
    const LenCs cases[] = {{0, 1024},    {1, 1024},    {2, 1024},    {31, 1024},   {32, 1024},
                           {33, 1024},   {63, 1024},   {65, 1024},   {1023, 1024}, {1024, 1024},
                           {1025, 1024}, {2049, 1024}, {3001, 1024}, {1057, 1056}, {4097, 2048},
                           {16383, 0},   {16384, 0},   {16385, 0},   {32769, 0}};
    Rng r(1234 + GetParam().threads * 7 + GetParam().mode * 3 + GetParam().f64);
    size_t done = 0;
    for (int kind = 0; kind < zt::kNumKinds; ++kind)
      for (const LenCs& lc : cases) {
        run_case<T>(kind, lc.n, lc.cs, pick_eb(r, GetParam().mode), r, &done);
        if (HasFailure()) return;
      }
    EXPECT_GT(done, sizeof cases / sizeof cases[0] * (zt::kNumKinds - 4));
  }
  template <typename T>
  void random_sweep() {
    static const uint32_t chunk_sizes[] = {1024, 1056, 2048, 4096, 0};
    Rng r(99 + GetParam().threads * 7 + GetParam().mode * 3 + GetParam().f64);
    size_t done = 0;
    for (int it = 0; it < 1200; ++it) {
      uint32_t cs = chunk_sizes[r.below(5)];
      uint32_t ecs = cs ? cs : ZCOLL_DEFAULT_CHUNK_SIZE;
      size_t n;
      switch (r.below(4)) {
        case 0: n = r.below(100); break;
        case 1: n = r.below(5000) | 1; break;  // odd lengths
        case 2: n = ecs * (1 + r.below(2)) + r.below(3) - 1; break;
        default: n = r.below(3 * ecs); break;
      }
      run_case<T>(static_cast<int>(r.below(zt::kNumKinds)), n, cs, pick_eb(r, GetParam().mode), r,
                  &done);
      if (HasFailure()) return;
    }
    EXPECT_GT(done, 800u);
  }
};

TEST_P(RoundTrip, AllKindsAtBoundaryLengths) {
  if (GetParam().f64)
    fixed_sweep<double>();
  else
    fixed_sweep<float>();
}

TEST_P(RoundTrip, RandomKindsLengthsBounds) {
  if (GetParam().f64)
    random_sweep<double>();
  else
    random_sweep<float>();
}

// Values on and next to the midpoint between two bins, for a spread of codes,
// with the quantum read back from a first compression.
TEST_P(RoundTrip, BinMidpointsAndNeighbours) {
  const Combo& c = GetParam();
  auto body = [&](auto tag) {
    using T = decltype(tag);
    for (double eb : {0.5, 0.1, 1e-3, 0.3333, 7.25}) {
      // for REL, pin the range to [-R, R] so the quantum is known in advance
      const double R = 1e6;
      std::vector<T> probe = {static_cast<T>(-R), static_cast<T>(R)};
      double rel_eb = eb * 1e-7;
      double use_eb = c.mode == ZCOLL_EB_ABS ? eb : rel_eb;
      double quantum = zt::probe_quantum<T>(probe, c.mode, use_eb);
      ASSERT_GT(quantum, 0);
      std::vector<T> x;
      if (c.mode == ZCOLL_EB_REL) x = probe;
      for (double k : {0.0, 1.0, 2.0, 3.0, 100.0, 4095.0, 65535.0, 1048575.0, 8388607.0, 8388608.0,
                       16777215.0, 123456789.0}) {
        for (double s : {1.0, -1.0}) {
          double mid = s * (k + 0.5) * quantum;
          if (c.mode == ZCOLL_EB_REL && std::fabs(mid) > R) continue;
          for (int u = -4; u <= 4; ++u) x.push_back(zt::nudge<T>(mid, u));
          x.push_back(static_cast<T>(s * k * quantum));
          x.push_back(static_cast<T>(s * (k + 0.5 - 1.0 / 1024) * quantum));
          x.push_back(static_cast<T>(s * (k + 0.5 + 1.0 / 1024) * quantum));
        }
      }
      for (size_t len : {x.size(), size_t{1025}, size_t{4097}}) {
        std::vector<T> y(len);
        for (size_t i = 0; i < len; ++i) y[i] = x[i % x.size()];
        if (c.mode == ZCOLL_EB_REL) {
          y[0] = static_cast<T>(-R);
          y[len - 1] = static_cast<T>(R);
        }
        std::vector<uint8_t> z = zt::roundtrip_check(y, c.mode, use_eb, 1024, c.threads,
                                                     "midpoints eb=" + std::to_string(eb));
        ASSERT_FALSE(z.empty());
        EXPECT_EQ(zt::inspect(z).quantum, quantum);
      }
    }
  };
  if (c.f64)
    body(double{});
  else
    body(float{});
}

// Codes at and beyond the escape threshold (|q| <= 2^30 - 1 is quantized; larger
// magnitudes force the chunk raw).
TEST_P(RoundTrip, EscapeThreshold) {
  const Combo& c = GetParam();
  auto body = [&](auto tag) {
    using T = decltype(tag);
    for (double eb : {0.5, 1e-3, 1e-6}) {
      // REL: range 2R and quantum ~ 4*rel*R, so codes reach 2^30 when rel < 2^-32
      double use_eb = c.mode == ZCOLL_EB_ABS ? eb : eb * 2e-10;
      const double R = 1000.0;
      std::vector<T> pin = {static_cast<T>(-R), static_cast<T>(R)};
      double quantum = zt::probe_quantum<T>(pin, c.mode, use_eb);
      ASSERT_GT(quantum, 0);
      const double top = std::ldexp(1.0, 30) - 1;
      for (double k :
           {top - 2, top - 1, top - 0.5, top, top + 0.49, top + 0.5, top + 1, top + 2, top + 100}) {
        std::vector<T> x;
        for (double s : {1.0, -1.0})
          for (int u = -2; u <= 2; ++u) x.push_back(zt::nudge<T>(s * k * quantum, u));
        // the same value inside a chunk of small values, and alone in its chunk
        std::vector<T> y(2100, T(1));
        for (size_t i = 0; i < x.size(); ++i) y[500 + i] = x[i];
        for (size_t i = 0; i < x.size(); ++i) y[1024 + i] = x[i];
        if (c.mode == ZCOLL_EB_REL) {
          y[0] = pin[0];
          y[2099] = pin[1];
        }
        if (!settings_usable(y, c.mode, use_eb)) continue;
        zt::roundtrip_check(y, c.mode, use_eb, 1024, c.threads,
                            "escape k=" + testing::PrintToString(k));
        if (HasFailure()) return;
      }
    }
  };
  if (c.f64)
    body(double{});
  else
    body(float{});
}

// Non-finite values force their chunk raw; raw chunks come back bit for bit.
TEST_P(RoundTrip, RawChunksAreBitExact) {
  const Combo& c = GetParam();
  auto body = [&](auto tag) {
    using T = decltype(tag);
    Rng r(7);
    for (size_t n : {size_t{1}, size_t{5}, size_t{33}, size_t{1023}, size_t{1024}, size_t{1025},
                     size_t{3 * 1024 + 7}}) {
      std::vector<T> x(n);
      for (auto& v : x) {
        switch (r.below(6)) {
          case 0: v = zt::nan_with_payload<T>(r); break;
          case 1: v = zt::random_bits<T>(r); break;
          case 2: v = zt::denormal<T>(r); break;
          case 3:
            v = r.coin() ? std::numeric_limits<T>::infinity() : -std::numeric_limits<T>::infinity();
            break;
          case 4: v = -T(0); break;
          default: v = static_cast<T>(r.uniform(-1e30, 1e30)); break;
        }
      }
      // at least one NaN with a payload per chunk
      for (size_t i = 0; i < n; i += 1024) x[i] = zt::nan_with_payload<T>(r);
      double eb = c.mode == ZCOLL_EB_ABS ? 0.01 : 1e-3;
      if (!settings_usable(x, c.mode, eb)) eb = c.mode == ZCOLL_EB_ABS ? eb : 1e-300;
      if (!settings_usable(x, c.mode, eb)) continue;
      std::vector<uint8_t> z = zt::compress(x, c.mode, eb, 1024, c.threads);
      ASSERT_FALSE(z.empty());
      zcoll_info info = zt::inspect(z);
      EXPECT_EQ(info.raw_chunks, info.chunks);
      std::vector<T> y = zt::decompress<T>(z, n, c.threads);
      ASSERT_EQ(std::memcmp(x.data(), y.data(), n * sizeof(T)), 0) << "n=" << n;
      // the raw chunk layout: kind 1, 7 zero bytes, the values, zero padding
      const size_t vb = sizeof(T);
      const uint8_t* p = z.data() + info.header_size;
      for (size_t ch = 0; ch < info.chunks; ++ch) {
        size_t len = std::min<size_t>(1024, n - ch * 1024);
        size_t bytes = (8 + len * vb + 7) & ~size_t{7};
        ASSERT_EQ(p[0], 1);
        for (int k = 1; k < 8; ++k) EXPECT_EQ(p[k], 0);
        EXPECT_EQ(std::memcmp(p + 8, x.data() + ch * 1024, len * vb), 0);
        for (size_t k = 8 + len * vb; k < bytes; ++k) EXPECT_EQ(p[k], 0);
        p += bytes;
      }
      EXPECT_EQ(static_cast<size_t>(p - z.data()), z.size());
    }
  };
  if (c.f64)
    body(double{});
  else
    body(float{});
}

INSTANTIATE_TEST_SUITE_P(
    Combos, RoundTrip,
    testing::Values(Combo{false, ZCOLL_EB_ABS, 1}, Combo{false, ZCOLL_EB_ABS, 2},
                    Combo{false, ZCOLL_EB_REL, 1}, Combo{false, ZCOLL_EB_REL, 2},
                    Combo{true, ZCOLL_EB_ABS, 1}, Combo{true, ZCOLL_EB_ABS, 2},
                    Combo{true, ZCOLL_EB_REL, 1}, Combo{true, ZCOLL_EB_REL, 2}),
    combo_name);

// The exact bound check itself: plain floating-point subtraction would accept
// these violations.
TEST(ExactCheck, CatchesViolationsHiddenByRounding) {
  EXPECT_TRUE(zt::within_bound(1.0, 1.5, 0.5));
  EXPECT_FALSE(zt::within_bound(1.0, std::nextafter(1.5, 2.0), 0.5));
  EXPECT_TRUE(zt::within_bound(1.0, 0.5, 0.5));
  // x - y = 0.5 + 2^-60 rounds to 0.5 in double
  const double tiny = std::ldexp(1.0, -60);
  EXPECT_EQ(tiny - (-0.5), 0.5);
  EXPECT_FALSE(zt::within_bound(tiny, -0.5, 0.5));
  EXPECT_TRUE(zt::within_bound(-tiny, -0.5, 0.5));  // 0.5 - 2^-60
  EXPECT_FALSE(zt::within_bound(-tiny, 0.5, 0.5));
  EXPECT_TRUE(zt::within_bound(tiny, 0.5, 0.5));
  // float values far apart in exponent
  EXPECT_FALSE(zt::within_bound(static_cast<double>(1e-40f), -0.25, 0.25));
  EXPECT_TRUE(zt::within_bound(-static_cast<double>(1e-40f), -0.25, 0.25));
  // non-finite reconstructions and overflowing differences
  EXPECT_FALSE(zt::within_bound(1.0, NAN, 1e300));
  EXPECT_FALSE(zt::within_bound(1.0, INFINITY, 1e300));
  EXPECT_FALSE(zt::within_bound(1.7e308, -1.7e308, 1e308));
  EXPECT_TRUE(zt::within_bound(1.7e308, 1.6e308, 1e308));
  EXPECT_TRUE(zt::within_bound(0.0, -0.0, 1e-300));
}

// ---- REL specifics ----------------------------------------------------------

TEST(RelativeBound, ConstantDataUsesMagnitude) {
  for (double c : {1000.0, 0.25, -3.5e7, 0.0}) {
    std::vector<float> xf(3000, static_cast<float>(c));
    std::vector<double> xd(3000, c);
    zcoll_params p;
    zcoll_params_init(&p);
    p.error_bound = 1e-3;
    double eb = 0;
    ASSERT_EQ(zcoll_resolve_error_bound(&p, ZCOLL_FLOAT64, xd.data(), xd.size(), &eb, 1),
              ZCOLL_SUCCESS);
    EXPECT_EQ(eb, 1e-3 * std::max(std::fabs(c), 1.0));
    std::vector<uint8_t> zf = zt::roundtrip_check(xf, ZCOLL_EB_REL, 1e-3, 1024, 1, "const f32");
    std::vector<uint8_t> zd = zt::roundtrip_check(xd, ZCOLL_EB_REL, 1e-3, 1024, 2, "const f64");
    ASSERT_FALSE(zf.empty());
    ASSERT_FALSE(zd.empty());
    EXPECT_EQ(zt::inspect(zd).error_bound, eb);
    EXPECT_EQ(zt::inspect(zd).raw_chunks, 0u);
  }
}

TEST(RelativeBound, NonFiniteValuesDoNotWidenTheRange) {
  std::vector<double> x = {1.0, NAN, 3.0, INFINITY, -INFINITY, 2.0};
  zcoll_params p;
  zcoll_params_init(&p);
  p.error_bound = 0.01;
  double eb = 0;
  ASSERT_EQ(zcoll_resolve_error_bound(&p, ZCOLL_FLOAT64, x.data(), x.size(), &eb, 1),
            ZCOLL_SUCCESS);
  EXPECT_EQ(eb, 0.01 * 2.0);
  // all non-finite: range [0, 0] -> bound error_bound * 1
  std::vector<float> y = {NAN, INFINITY, -INFINITY};
  ASSERT_EQ(zcoll_resolve_error_bound(&p, ZCOLL_FLOAT32, y.data(), y.size(), &eb, 1),
            ZCOLL_SUCCESS);
  EXPECT_EQ(eb, 0.01);
  zt::roundtrip_check(y, ZCOLL_EB_REL, 0.01, 1024, 1, "all non-finite");
  // ABS resolves to itself
  p.eb_mode = ZCOLL_EB_ABS;
  p.error_bound = 0.125;
  ASSERT_EQ(zcoll_resolve_error_bound(&p, ZCOLL_FLOAT32, y.data(), y.size(), &eb, 1),
            ZCOLL_SUCCESS);
  EXPECT_EQ(eb, 0.125);
}

// Regression (fixed: the step is clamped and unquantizable chunks go raw): a finite float64
// array whose range max - min overflows to +Inf (e.g. -1e308 and 1e308) cannot
// be compressed with a relative bound: zcoll_resolve_error_bound computes
// error_bound * (max - min) = Inf and zcoll_compress returns ZCOLL_ERR_INVALID_ARG,
// although every value is finite and the parameters are valid
// (error_bound*max - error_bound*min would be finite).
TEST(Regression, RelativeBoundWhenRangeOverflowsDouble) {
  std::vector<double> x = {-1e308, 0.0, 1.0, 1e308};
  zt::roundtrip_check(x, ZCOLL_EB_REL, 1e-3, 1024, 1, "range overflow");
}

// Regression (same family, found by fuzz_roundtrip; fixed likewise): a bound above DBL_MAX/2 has
// no finite quantum = 2*eb*(1 - slack), so make_quantizer fails and
// zcoll_compress returns ZCOLL_ERR_INVALID_ARG: REL 1.0 on float64 data of range
// 1e308 (finite range, finite bound), or an ABS bound of 1e308 (documented as
// valid: "> 0 and finite"). Every chunk could be stored with any larger step or
// raw.
TEST(Regression, BoundAboveHalfDblMax) {
  std::vector<double> x = {0.0, 1.0, 1e308};
  zt::roundtrip_check(x, ZCOLL_EB_REL, 1.0, 1024, 1, "REL 1.0, range 1e308");
  std::vector<float> f = {0.0f, 1.0f, 3e38f};
  zt::roundtrip_check(f, ZCOLL_EB_ABS, 1e308, 1024, 1, "ABS 1e308");
}

// Regression (fixed: the step is clamped and unquantizable chunks go raw): REL on float64
// data whose range is tiny (e.g. subnormal values) resolves to an absolute bound
// below DBL_MIN/2; make_quantizer then rejects it and zcoll_compress returns
// ZCOLL_ERR_INVALID_ARG for valid data and parameters. Such chunks could simply
// be stored raw (lossless) under any positive bound.
TEST(Regression, RelativeBoundOnSubnormalFloat64Data) {
  std::vector<double> x = {4.9e-324, 1e-310, 2e-310, 0.0};
  zt::roundtrip_check(x, ZCOLL_EB_REL, 1e-3, 1024, 1, "subnormal range");
}

}  // namespace
