// dense_interp_test.cc — predictor 5 of the dense codec (docs/format.md §5.3,
// dense_interp.h): the traversal on its own (the decoder rebuilds the encoder's
// fine codes from its residuals, each value taking exactly one), through the API
// (the bound for every value type, edge lengths and shapes, specials, values
// beyond the fine codes' range), and corrupt modes and strides.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

#include "codec/chunk_codec.h"
#include "codec/dense.h"
#include "codec/dense_interp.h"
#include "codec/format.h"
#include "codec/value_types.h"
#include "dense_streams.h"
#include "test_util.h"
#include "zcoll.h"

namespace {

// The residuals of a vector, kInterpTile at a time, counting what is taken.
class VectorSource final : public zcoll::InterpResidualSource {
 public:
  explicit VectorSource(const std::vector<uint32_t>& r) : r_(r) {}
  void fill(uint32_t* r, uint32_t n) override {
    EXPECT_LE(n, zcoll::kInterpTile);
    EXPECT_LE(at_ + n, r_.size());
    std::copy(r_.begin() + static_cast<ptrdiff_t>(at_),
              r_.begin() + static_cast<ptrdiff_t>(at_ + n), r);
    at_ += n;
  }
  size_t taken() const { return at_; }

 private:
  const std::vector<uint32_t>& r_;
  size_t at_ = 0;
};

zcoll::InterpGrid random_grid(zt::Rng& r, uint32_t len) {
  zcoll::InterpGrid g;
  g.ndim = 1 + static_cast<uint32_t>(r.below(3));
  g.cubic = r.coin();
  if (g.ndim >= 2) g.row = 1 + static_cast<uint32_t>(r.below(2 * len));
  if (g.ndim == 3) g.plane = g.row * (2 + static_cast<uint32_t>(r.below(40)));
  if (g.plane > (1u << 20)) g.ndim = 2, g.plane = 0;
  return g;
}

// Any grid, any length, smooth or random fine codes: the decoder's traversal
// takes each residual once and rebuilds the encoder's reconstruction exactly,
// within 127 fine steps of every code.
TEST(DenseInterp, DecoderRebuildsTheEncodersFineCodes) {
  zt::Rng r(55);
  for (int t = 0; t < 300; ++t) {
    const uint32_t len = t < 8 ? static_cast<uint32_t>(t)
                               : 1 + static_cast<uint32_t>(r.below(9000));
    const zcoll::InterpGrid g = random_grid(r, len);
    std::vector<int32_t> v(len), fine(len);
    const bool smooth = r.coin();
    for (uint32_t i = 0; i < len; ++i)
      fine[i] = smooth ? static_cast<int32_t>(4000 * std::sin(0.01 * i) + 30 * std::cos(0.3 * i))
                       : static_cast<int32_t>(r.below(1u << 31)) - (1 << 30);
    v = fine;
    std::vector<uint32_t> res(len + 1, 0xDEADBEEFu);
    zcoll::interp_residuals(v.data(), len, g, res.data());
    EXPECT_EQ(res[len], 0xDEADBEEFu) << "more residuals than values";
    res.resize(len);
    for (uint32_t i = 0; i < len; ++i)
      ASSERT_LE(std::llabs(int64_t{v[i]} - fine[i]), 127) << "t " << t << " i " << i;
    std::vector<int32_t> back(len, 0x5A5A5A5A);
    VectorSource src(res);
    zcoll::interp_decode(g, len, src, back.data());
    EXPECT_EQ(src.taken(), len) << "t " << t;
    ASSERT_EQ(back, v) << "t " << t << " len " << len << " dims " << g.ndim << " row " << g.row
                       << " plane " << g.plane << " cubic " << g.cubic;
  }
}

// The decoder of docs/format.md §5.3 (predictor 5, steps 1 and 2) as written
// there, value by value: for every stride and dim, every index j in turn,
// tested for its turn. Slow and plain: the oracle of the traversal's order and
// predictions, which the library computes by runs and on coarse copies.
std::vector<int32_t> decode_as_written(const zcoll::InterpGrid& g, uint32_t len,
                                       const std::vector<uint32_t>& r) {
  std::vector<int32_t> v(len);
  if (len == 0) return v;
  uint64_t n[3] = {len, 1, 1}, t[3] = {1, 0, 0};
  if (g.ndim >= 2) n[0] = std::min<uint64_t>(g.row, len), n[1] = (len + g.row - 1) / g.row;
  if (g.ndim == 3)
    n[1] = std::min<uint64_t>(g.plane / g.row, n[1]), n[2] = (len + g.plane - 1) / g.plane;
  t[1] = g.row, t[2] = g.plane;
  size_t k = 0;
  v[0] = static_cast<int32_t>(255u * r[k++]);
  uint64_t top = 1;
  while (2 * top < std::max({n[0], n[1], n[2]})) top *= 2;
  const auto mod2 = [](int64_t p) { return static_cast<int32_t>(static_cast<uint32_t>(p)); };
  for (uint64_t s = top; s >= 1; s /= 2) {
    for (int d = 2; d >= 0; --d) {
      if (n[d] <= s) continue;
      for (uint64_t j = 0; j < len; ++j) {
        uint64_t c[3] = {j, 0, 0};
        if (g.ndim == 3) c[2] = j / g.plane;
        if (g.ndim >= 2) c[1] = (g.ndim == 3 ? j % g.plane : j) / g.row, c[0] = j % g.row;
        bool turn = c[0] < n[0] && c[1] < n[1] && c[2] < n[2] && c[d] % (2 * s) == s;
        for (int q = 0; q < 3; ++q)
          if (q != d) turn = turn && c[q] % (q > d ? s : 2 * s) == 0;
        if (!turn) continue;
        const uint64_t o = s * t[d];
        const int64_t b = v[j - o];
        const bool has_e = c[d] + s < n[d] && j + o < len;
        const bool has_a = c[d] >= 3 * s, has_f = c[d] + 3 * s < n[d] && j + 3 * o < len;
        int64_t p = b;
        if (has_e) {
          const int64_t e = v[j + o];
          p = (b + e) >> 1;
          if (g.cubic && has_a && has_f)
            p = (9 * (b + e) - v[j - 3 * o] - v[j + 3 * o] + 8) >> 4;
          else if (g.cubic && has_a)
            p = (6 * b + 3 * e - v[j - 3 * o] + 4) >> 3;
          else if (g.cubic && has_f)
            p = (3 * b + 6 * e - v[j + 3 * o] + 4) >> 3;
        }
        v[j] = mod2(p + 255 * static_cast<int64_t>(r[k++]));
      }
    }
  }
  EXPECT_EQ(k, len) << "format.md visits every value once";
  return v;
}

// The library's traversal against format.md's words: the same values from the
// same residuals (so the same order and predictions), for grids of 1, 2 and 3
// dims whose rows and planes are odd and even, whole and partial, shorter and
// longer than the chunk, and lengths across the coarse copies' threshold; and
// the encoder's residuals decode, as written, to its reconstruction.
TEST(DenseInterp, TraversalIsFormatMdsAsWritten) {
  zt::Rng r(91);
  for (int t = 0; t < 240; ++t) {
    const uint32_t len = t < 6        ? static_cast<uint32_t>(t) * 97 + 1
                         : t % 3 == 0 ? 200 + static_cast<uint32_t>(r.below(120))
                                      : 1 + static_cast<uint32_t>(r.below(24000));
    zcoll::InterpGrid g;
    g.ndim = 1 + static_cast<uint32_t>(t % 3);
    g.cubic = r.coin();
    if (g.ndim >= 2) g.row = 1 + static_cast<uint32_t>(r.below(t % 2 ? 300 : len + 40));
    if (g.ndim == 3) g.plane = g.row * (2 + static_cast<uint32_t>(r.below(t % 2 ? 30 : 400)));
    std::vector<uint32_t> res(len);
    for (auto& x : res)
      x = r.coin() ? static_cast<uint32_t>(static_cast<int32_t>(r.below(61)) - 30)
                   : static_cast<uint32_t>(r.below(1u << 31));
    std::vector<int32_t> got(len, 0x5A5A5A5A);
    VectorSource src(res);
    zcoll::interp_decode(g, len, src, got.data());
    const std::vector<int32_t> want = decode_as_written(g, len, res);
    ASSERT_EQ(got, want) << "t " << t << " len " << len << " dims " << g.ndim << " row " << g.row
                         << " plane " << g.plane << " cubic " << g.cubic;
    // the encoder: smooth fine codes; its residuals, decoded as written, are its reconstruction
    std::vector<int32_t> v(len);
    for (uint32_t i = 0; i < len; ++i)
      v[i] = static_cast<int32_t>(9000 * std::sin(0.003 * i) + 50 * std::cos(0.7 * i));
    std::vector<uint32_t> enc(len);
    zcoll::interp_residuals(v.data(), len, g, enc.data());
    ASSERT_EQ(decode_as_written(g, len, enc), v) << "t " << t << " len " << len;
  }
}

const zcoll::ChunkKernels* avx2_or_null() {
  const zcoll::ChunkKernels* k = zcoll::avx2_kernels();
#if defined(__x86_64__) || defined(__i386__)
  if (k && __builtin_cpu_supports("avx2")) return k;
#endif
  return nullptr;
}

bool check_with(const zcoll::ChunkKernels& k, const float* x, const int32_t* v, uint32_t len,
                const zcoll::Quantizer<float>& qz) {
  return k.interp_within_bound_f32(x, v, len, qz);
}
bool check_with(const zcoll::ChunkKernels& k, const double* x, const int32_t* v, uint32_t len,
                const zcoll::Quantizer<double>& qz) {
  return k.interp_within_bound_f64(x, v, len, qz);
}

// The bound check of predictor 5 (ChunkKernels::interp_within_bound_f32,
// _f64): the same answer from both versions, on fine codes exact to a value,
// off by one and by the bound's worth of fine steps, at every position and
// length (the AVX2 tail too), and on NaN and infinite values.
template <typename T>
void within_bound_cases(const zcoll::ChunkKernels& sc, const zcoll::ChunkKernels& k) {
  zt::Rng r(74);
  size_t agree_false = 0, agree_true = 0;
  for (int t = 0; t < 400; ++t) {
    const double eb = std::ldexp(1.0, -static_cast<int>(r.below(20))) * (1 + r.uniform());
    zcoll::Quantizer<T> qz;
    ASSERT_TRUE(zcoll::make_quantizer<T>(eb, &qz));
    const double fine = qz.quantum / zcoll::kInterpFine;
    const uint32_t len = static_cast<uint32_t>(t < 40 ? t : r.below(3000));
    std::vector<T> x(len);
    std::vector<int32_t> v(len);
    for (uint32_t i = 0; i < len; ++i) {
      x[i] = static_cast<T>((r.uniform() - 0.5) * 2e4 * eb);
      v[i] = static_cast<int32_t>(std::lround(static_cast<double>(x[i]) / fine));
    }
    if (len && r.coin(0.7)) {  // one value off: by a step, by about the bound, or special
      const uint32_t at = static_cast<uint32_t>(r.below(len));
      const int kind = static_cast<int>(r.below(4));
      if (kind == 0) v[at] += r.coin() ? 1 : -1;
      if (kind == 1) v[at] += static_cast<int32_t>(zcoll::kInterpFine / 2 + r.below(3)) - 1;
      if (kind == 2) x[at] = std::numeric_limits<T>::quiet_NaN();
      if (kind == 3) x[at] = std::numeric_limits<T>::infinity();
    }
    const bool a = check_with(sc, x.data(), v.data(), len, qz);
    ASSERT_EQ(a, check_with(k, x.data(), v.data(), len, qz)) << "len " << len << " eb " << eb;
    ++(a ? agree_true : agree_false);
  }
  EXPECT_GT(agree_true, 50u);  // both answers are exercised
  EXPECT_GT(agree_false, 50u);
}

TEST(DenseInterp, BoundCheckScalarVsAvx2) {
  const zcoll::ChunkKernels* avx2 = avx2_or_null();
  if (!avx2) GTEST_SKIP() << "no AVX2 kernels";
  within_bound_cases<float>(zcoll::scalar_kernels(), *avx2);
  within_bound_cases<double>(zcoll::scalar_kernels(), *avx2);
}

// The runs of step 2 (the finest level): both versions give the same
// residuals and values, encoding and decoding, for small fine codes (the AVX2
// arithmetic's range), large ones (steps done one at a time) and a mix, any
// residuals to decode, neighbours 1 to a few hundred apart, runs of any length
// (as the traversal's runs: no value's neighbour is a value of the run).
TEST(DenseInterp, StepRunsScalarVsAvx2) {
  const zcoll::ChunkKernels& sc = zcoll::scalar_kernels();
  const zcoll::ChunkKernels* avx2 = avx2_or_null();
  if (!avx2) GTEST_SKIP() << "no AVX2 kernels";
  zt::Rng r(56);
  for (int t = 0; t < 400; ++t) {
    const uint32_t len = 16 + static_cast<uint32_t>(r.below(3000));
    const bool cubic = r.coin();
    const uint32_t off = r.coin() ? 1 : 1 + static_cast<uint32_t>(r.below(len / 8 + 1));
    const uint32_t reach = (cubic ? 3 : 1) * off;
    if (2 * reach + 2 >= len) continue;
    const uint32_t from = reach + static_cast<uint32_t>(r.below(len - 2 * reach - 1));
    uint32_t count = static_cast<uint32_t>(r.below((len - 1 - reach - from) / 2 + 1));
    if (off % 2 == 0)
      count = std::min(count, off / 2);             // as the traversal's: no neighbour in the run
    const int kind = static_cast<int>(r.below(3));  // small, large, mixed
    std::vector<int32_t> v(len);
    for (auto& x : v) {
      const bool large = kind == 1 || (kind == 2 && r.coin(0.05));
      x = large ? static_cast<int32_t>(r.next())
                : static_cast<int32_t>(r.below(1u << 27)) - (1 << 26);
    }
    const std::string what = "t " + std::to_string(t) + " len " + std::to_string(len) + " off " +
                             std::to_string(off) + " from " + std::to_string(from) + " count " +
                             std::to_string(count) + " cubic " + std::to_string(cubic);
    std::vector<int32_t> vs = v, va = v;
    std::vector<uint32_t> rs(count + 1, 0xEEEEEEEE), ra = rs;
    sc.interp_encode_run(vs.data(), len, from, count, off, cubic, rs.data());
    avx2->interp_encode_run(va.data(), len, from, count, off, cubic, ra.data());
    ASSERT_EQ(ra, rs) << what << " (encode: residuals)";
    ASSERT_EQ(va, vs) << what << " (encode: values)";
    EXPECT_EQ(rs[count], 0xEEEEEEEEu) << what;
    std::vector<uint32_t> res(count);
    for (auto& k : res)
      k = r.coin() ? static_cast<uint32_t>(r.below(64)) - 32u : static_cast<uint32_t>(r.next());
    vs = v, va = v;
    sc.interp_decode_run(vs.data(), len, from, count, off, cubic, res.data());
    avx2->interp_decode_run(va.data(), len, from, count, off, cubic, res.data());
    ASSERT_EQ(va, vs) << what << " (decode)";
  }
}

// Compress with the dense codec and dims (ABS eb); every value type.
template <typename T>
std::vector<uint8_t> dense(const std::vector<T>& x, double eb, const std::vector<uint64_t>& dims,
                           uint32_t cs = 0, int threads = 1) {
  zcoll_params p;
  zcoll_params_init(&p);
  p.eb_mode = ZCOLL_EB_ABS, p.error_bound = eb, p.chunk_size = cs, p.codec = ZCOLL_CODEC_DENSE;
  p.ndims = static_cast<uint32_t>(dims.size());
  std::copy(dims.begin(), dims.end(), p.dims);
  std::vector<uint8_t> z(zcoll_compress_bound(x.size(), zt::dtype_of<T>()));
  size_t size = 0;
  EXPECT_EQ(
      zcoll_compress(&p, zt::dtype_of<T>(), x.data(), x.size(), z.data(), z.size(), &size, threads),
      ZCOLL_SUCCESS)
      << zcoll_last_error();
  z.resize(size);
  return z;
}

bool has_interp(const std::vector<uint8_t>& z) {
  const std::vector<int> ids = zt::dense_predictors(z);
  return std::find(ids.begin(), ids.end(), zcoll::kDenseInterp) != ids.end();
}

// a / b as a double (an integer division, on purpose)
double quotient(size_t a, size_t b) {
  const size_t q = a / b;
  return static_cast<double>(q);
}

// A smooth 2-D field (not separable: the n-D Lorenzo predictors are not exact).
double field(size_t i, size_t w) {
  const double x = static_cast<double>(i % w), y = quotient(i, w);
  return std::sin(0.07 * x + 0.05 * y) * std::cos(0.031 * x * y / (1 + x + y)) + 0.001 * x;
}

// float32 and float64 (exact checks), and the 16-bit types (their values
// widened): interpolation is used and every value is within the bound, the
// accumulating decoder adds the same values, 3 threads give the same bytes.
// The copies to and from the coarse array (ChunkKernels::interp_evens_to,
// interp_evens_from): the same values from both versions at every count (the
// AVX2 tails too), the odd values and everything from 2 m - 1 on untouched.
TEST(DenseInterp, EvenCopiesScalarVsAvx2) {
  const zcoll::ChunkKernels* avx2 = avx2_or_null();
  if (!avx2) GTEST_SKIP() << "no AVX2 kernels";
  const zcoll::ChunkKernels& sc = zcoll::scalar_kernels();
  zt::Rng r(12);
  for (uint32_t m = 0; m < 80; ++m) {
    std::vector<int32_t> v(2 * m + 20), u(m + 10);
    for (auto& x : v) x = static_cast<int32_t>(r.below(1u << 31));
    for (auto& x : u) x = static_cast<int32_t>(r.below(1u << 31));
    std::vector<int32_t> us = u, ua = u;
    sc.interp_evens_to(v.data(), m, us.data());
    avx2->interp_evens_to(v.data(), m, ua.data());
    for (uint32_t k = 0; k < m; ++k) ASSERT_EQ(us[k], v[2 * k]) << "m " << m << " k " << k;
    ASSERT_EQ(ua, us) << "m " << m;
    std::vector<int32_t> vs = v, va = v;
    sc.interp_evens_from(u.data(), m, vs.data());
    avx2->interp_evens_from(u.data(), m, va.data());
    for (uint32_t j = 0; j < v.size(); ++j)
      ASSERT_EQ(vs[j], j % 2 == 0 && j / 2 < m ? u[j / 2] : v[j]) << "m " << m << " j " << j;
    ASSERT_EQ(va, vs) << "m " << m;
  }
}

TEST(DenseInterp, EveryTypeWithinTheBound) {
  const size_t w = 301, h = 97, n = w * h;
  const std::vector<uint64_t> dims = {h, w};
  for (double eb : {1e-1, 1e-3, 1e-5}) {
    std::vector<float> xf(n);
    std::vector<double> xd(n);
    for (size_t i = 0; i < n; ++i) xd[i] = field(i, w), xf[i] = static_cast<float>(xd[i]);
    const std::string what = "eb " + std::to_string(eb);
    const auto zf = dense(xf, eb, dims, 8192), zd = dense(xd, eb, dims, 8192);
    EXPECT_TRUE(has_interp(zf)) << what;
    EXPECT_TRUE(has_interp(zd)) << what;
    EXPECT_EQ(zt::count_violations(xf, zt::decompress<float>(zf, n), eb, what), 0u);
    EXPECT_EQ(zt::count_violations(xd, zt::decompress<double>(zd, n), eb, what), 0u);
    EXPECT_EQ(dense(xf, eb, dims, 8192, 3), zf) << what << ": 3 threads";
    std::vector<double> acc(n, 0.0);
    ASSERT_EQ(zcoll_decompress_accumulate(zd.data(), zd.size(), acc.data(), n, 2), ZCOLL_SUCCESS);
    EXPECT_EQ(acc, zt::decompress<double>(zd, n)) << what << ": accumulate onto +0";
    if (eb < 1e-4) continue;  // below the 16-bit types' precision
    for (zcoll_dtype dt : {ZCOLL_FLOAT16, ZCOLL_BFLOAT16}) {
      std::vector<uint16_t> xh(n);
      for (size_t i = 0; i < n; ++i)
        xh[i] = dt == ZCOLL_FLOAT16 ? zcoll::hd::float_to_f16(xf[i])
                                    : zcoll::hd::float_to_bf16(xf[i]);
      zcoll_params p;
      zcoll_params_init(&p);
      p.eb_mode = ZCOLL_EB_ABS, p.error_bound = eb, p.chunk_size = 8192;
      p.codec = ZCOLL_CODEC_DENSE, p.ndims = 2, p.dims[0] = h, p.dims[1] = w;
      std::vector<uint8_t> z(zcoll_compress_bound(n, dt));
      size_t size = 0;
      ASSERT_EQ(zcoll_compress(&p, dt, xh.data(), n, z.data(), z.size(), &size, 1), ZCOLL_SUCCESS);
      z.resize(size);
      EXPECT_TRUE(has_interp(z)) << what << " dtype " << dt;
      std::vector<uint16_t> y(n);
      ASSERT_EQ(zcoll_decompress(z.data(), z.size(), y.data(), n, 1), ZCOLL_SUCCESS);
      size_t bad = 0;
      for (size_t i = 0; i < n; ++i) {
        const auto wide = [dt](uint16_t b) {
          return dt == ZCOLL_FLOAT16 ? zcoll::hd::f16_to_float(b) : zcoll::hd::bf16_to_float(b);
        };
        bad += !zt::within_bound(wide(xh[i]), wide(y[i]), eb);
      }
      EXPECT_EQ(bad, 0u) << what << " dtype " << dt;
    }
  }
}

// Chunk sizes that alternate on one thread (the encoder's per-thread scratch
// grows with the longest chunk; a chunk its trial covers keeps the trial's
// fine codes and residuals, and the cubic ones trade places with the
// scratch's): every size round-trips within the bound, and the first size
// gives the same bytes again after the others.
TEST(DenseInterp, ChunkSizesAlternatingOnOneThread) {
  const size_t w = 1440, h = 200, n = w * h;
  const std::vector<uint64_t> dims = {h, w};
  std::vector<float> x(n);
  for (size_t i = 0; i < n; ++i) x[i] = static_cast<float>(field(i, w));
  for (double eb : {1e-2, 1e-4}) {
    const std::string what = "eb " + std::to_string(eb);
    const auto first = dense(x, eb, dims, 262144);
    for (uint32_t cs : {16384u, 4096u, 262144u, 32768u, 1056u, 65536u}) {
      const auto z = dense(x, eb, dims, cs);
      EXPECT_EQ(zt::count_violations(x, zt::decompress<float>(z, n), eb, what), 0u)
          << what << " cs " << cs;
    }
    EXPECT_EQ(dense(x, eb, dims, 262144), first) << what;
  }
}

// Lengths 1, 2, 3, odd, a partial last row and plane, chunks shorter than a
// row, shapes with a dim of 1; 1-D dims.
TEST(DenseInterp, EdgeLengthsAndShapes) {
  const std::vector<std::vector<uint64_t>> shapes = {
      {1},       {2},        {3},         {1, 1, 7},   {1025},  {3, 1000},   {1000, 3},
      {17, 333}, {5, 7, 11}, {2, 3, 700}, {9, 1, 257}, {40000}, {4, 4, 4096}};
  for (const auto& dims : shapes) {
    size_t n = 1;
    for (uint64_t d : dims) n *= d;
    std::vector<float> x(n);
    for (size_t i = 0; i < n; ++i) x[i] = static_cast<float>(field(i, dims.back()));
    for (uint32_t cs : {1024u, 0u}) {
      std::string what = "dims";
      for (uint64_t d : dims) what += " " + std::to_string(d);
      what += " cs " + std::to_string(cs);
      for (double eb : {1e-2, 1e-4}) {
        const auto z = dense(x, eb, dims, cs);
        // any dims, 1-D too: 2^18 values per chunk without a chunk size
        EXPECT_EQ(zt::inspect(z).chunk_size, cs ? cs : 262144u) << what;
        EXPECT_EQ(zt::count_violations(x, zt::decompress<float>(z, n), eb, what), 0u);
        EXPECT_EQ(dense(x, eb, dims, cs, 4), z) << what << ": 4 threads";
      }
    }
  }
}

// NaN or Inf: the chunk is raw, as without dims (bit for bit); -0.0 and
// denormals are values like any other; a constant chunk costs next to nothing.
TEST(DenseInterp, SpecialValues) {
  const size_t w = 200, n = w * 60;
  std::vector<float> x(n);
  for (size_t i = 0; i < n; ++i) x[i] = static_cast<float>(field(i, w));
  x[5] = -0.0f, x[7] = std::numeric_limits<float>::denorm_min();
  std::vector<float> y = x;
  y[9000] = std::numeric_limits<float>::quiet_NaN();
  y[9500] = -std::numeric_limits<float>::infinity();
  const auto z = dense(y, 1e-3, {60, w}, 4096);
  EXPECT_EQ(zt::count_violations(y, zt::decompress<float>(z, n), 1e-3, "specials"), 0u);
  const std::vector<int> ids = zt::dense_predictors(z);
  EXPECT_EQ(ids[9000 / 4096], 0) << "the chunk with a NaN is raw";
  EXPECT_EQ(ids[0], zcoll::kDenseInterp);
  const std::vector<float> c(n, 3.25f);
  const auto zc = dense(c, 1e-3, {60, w});
  EXPECT_LT(zc.size(), n * sizeof(float) / 200) << "a constant field";
  EXPECT_EQ(zt::count_violations(c, zt::decompress<float>(zc, n), 1e-3, "constant"), 0u);
}

// Values whose fine codes would pass 2^30 (a bound 2^21 times below them): no
// predictor 5, the code-domain predictors code the chunk, within the bound.
TEST(DenseInterp, BeyondTheFineCodesRange) {
  const size_t w = 100, n = w * 50;
  std::vector<float> x(n);
  for (size_t i = 0; i < n; ++i) x[i] = static_cast<float>(1e6 + 1e3 * field(i, w));
  const double eb = 2e-3;  // 1e6 / (2 eb) * 256 > 2^30
  const auto z = dense(x, eb, {50, w});
  EXPECT_FALSE(has_interp(z));
  EXPECT_EQ(zt::count_violations(x, zt::decompress<float>(z, n), eb, "large"), 0u);
}

// A stream whose first chunk is predictor 5 in 3 dims (and its offset).
std::vector<uint8_t> interp_stream(size_t* at, std::vector<float>* xs) {
  const std::vector<uint64_t> dims = {6, 40, 50};
  std::vector<float> x(6 * 40 * 50);
  for (size_t i = 0; i < x.size(); ++i)
    x[i] = static_cast<float>(field(i % 2000, 50) + 0.01 * quotient(i, 2000));
  auto z = dense(x, 1e-2, dims, 12000);
  *at = zcoll_header_size(x.size(), 12000);
  *xs = x;
  return z;
}

TEST(DenseInterp, CorruptModeAndStridesAreCorruptOrDecodeInBounds) {
  size_t at = 0;
  std::vector<float> x;
  const std::vector<uint8_t> z = interp_stream(&at, &x);
  ASSERT_EQ(z[at], zcoll::kChunkDense);
  ASSERT_EQ(z[at + 1], zcoll::kDenseInterp);
  const uint32_t mode = zcoll::load_u32(&z[at + 8]);
  ASSERT_EQ(mode & 3u, 2u) << "3 dims";
  EXPECT_EQ(zcoll::load_u32(&z[at + 12]), 50u);
  EXPECT_EQ(zcoll::load_u32(&z[at + 16]), 2000u);
  std::vector<float> y(x.size());
  auto decode = [&](uint32_t m, uint32_t row, uint32_t plane) {
    std::vector<uint8_t> c = z;
    zcoll::store_u32(&c[at + 8], m);
    zcoll::store_u32(&c[at + 12], row);
    zcoll::store_u32(&c[at + 16], plane);
    return zcoll_decompress(c.data(), c.size(), y.data(), y.size(), 1);
  };
  ASSERT_EQ(decode(mode, 50, 2000), ZCOLL_SUCCESS);
  EXPECT_EQ(zt::count_violations(x, y, 1e-2, "intact"), 0u);
  EXPECT_EQ(decode(3, 50, 2000), ZCOLL_ERR_CORRUPT);               // 4 dims
  EXPECT_EQ(decode(mode | 8, 50, 2000), ZCOLL_ERR_CORRUPT);        // an unknown mode bit
  EXPECT_EQ(decode(mode, 0, 2000), ZCOLL_ERR_CORRUPT);             // row 0
  EXPECT_EQ(decode(mode, 50, 2001), ZCOLL_ERR_CORRUPT);            // plane not a multiple
  EXPECT_EQ(decode(mode, 50, 50), ZCOLL_ERR_CORRUPT);              // plane <= row
  EXPECT_EQ(decode(mode, 1u << 20, 1u << 21), ZCOLL_ERR_CORRUPT);  // plane above any chunk
  EXPECT_EQ(decode(1, 50, 2000), ZCOLL_ERR_CORRUPT);               // 2 dims with a plane
  EXPECT_EQ(decode(0, 50, 0), ZCOLL_ERR_CORRUPT);                  // 1 dim with a row
  EXPECT_EQ(decode(1, (1u << 20) + 1, 0), ZCOLL_ERR_CORRUPT);      // row above any chunk
  // valid but wrong: other values, never a read outside the chunk
  for (uint32_t m : {0u, 4u}) EXPECT_EQ(decode(m, 0, 0), ZCOLL_SUCCESS) << m;
  for (uint32_t row : {1u, 7u, 49u, 11999u, 12000u, 1u << 20}) {
    EXPECT_EQ(decode(1 | (mode & 4u), row, 0), ZCOLL_SUCCESS) << row;
    if (row < (1u << 19)) {
      EXPECT_EQ(decode(2 | (mode & 4u), row, 2 * row), ZCOLL_SUCCESS) << row;
    }
  }
  // another predictor id on the same bytes: the layout shifts, CORRUPT or a decode
  for (uint8_t id : {1, 2, 3, 4, 6}) {
    std::vector<uint8_t> c = z;
    c[at + 1] = id;
    const zcoll_status s = zcoll_decompress(c.data(), c.size(), y.data(), y.size(), 1);
    EXPECT_TRUE(s == ZCOLL_SUCCESS || s == ZCOLL_ERR_CORRUPT) << int(id) << ": " << s;
    if (id == 6) {
      EXPECT_EQ(s, ZCOLL_ERR_CORRUPT);
    }
  }
}

}  // namespace
