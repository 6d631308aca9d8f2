// hom_property_test.cc — property tests of zcoll_hom_add / zcoll_hom_sub /
// zcoll_hom_negate over random pairs and real data, float32 and float64, 1 and 2
// threads; thread-count independence of the output bytes.
//
// Every result is checked three ways:
//  1. against the exact model of the operation (check_hom_model: codes add
//     exactly, the four pipelines, raw/widened chunks, every value bit for bit,
//     the stats counters);
//  2. against the exact double-double sum of the ORIGINAL inputs, within the
//     result's error_bound (= eb_a + eb_b) plus float rounding (the tolerance is
//     derived in hom_util.h);
//  3. against DOC: the sum of the decompressed inputs computed in T, to within
//     float rounding.
#include "hom_util.h"

namespace {

using namespace ht;

class HomProperty : public testing::TestWithParam<Config> {};

struct PairSpec {
  Kind a, b;
  double amp_b;   // amplitude of b relative to a
  double abs_eb;  // 0: rel * range of the pair
};

template <typename T>
void check_pair(const std::vector<T>& xa, const std::vector<T>& xb, double eb, uint32_t cs,
                int threads, const std::string& what) {
  Bytes za = compress(xa, eb, cs, threads), zb = compress(xb, eb, cs, threads);
  ASSERT_FALSE(za.empty() || zb.empty()) << what;
  const std::vector<T> da = decompress<T>(za), db = decompress<T>(zb);
  for (Op op : {Op::kAdd, Op::kSub}) {
    const std::string w = what + (op == Op::kAdd ? " add" : " sub");
    zcoll_hom_stats st = ZCOLL_HOM_STATS_INITIALIZER;
    Bytes out = hom(op, za, zb, threads, &st);
    ASSERT_FALSE(out.empty()) << w;
    check_hom_model<T>(za, zb, out, op, &st, w);
    const zcoll_info io = inspect(out);
    EXPECT_EQ(io.error_bound, 2 * eb) << w;  // eb + eb: exact in binary floating point
    EXPECT_EQ(io.terms, 2u) << w;
    const std::vector<T> y = decompress<T>(out, threads);
    double worst = 0;
    EXPECT_EQ(check_against_exact<T>({&xa, &xb}, {1, op == Op::kAdd ? 1 : -1}, y, 1.0,
                                     io.error_bound, w, &worst),
              0u);
    EXPECT_EQ(check_vs_doc_sum<T>(da, db, y, op, w), 0u);
    if (std::getenv("ZCOLL_HOM_VERBOSE"))
      std::printf("  %s: max |err|/tol %.4f, raw chunks %llu/%llu, pipelines %llu %llu %llu %llu\n",
                  w.c_str(), worst, static_cast<unsigned long long>(io.raw_chunks),
                  static_cast<unsigned long long>(io.chunks),
                  static_cast<unsigned long long>(st.pipeline[0]),
                  static_cast<unsigned long long>(st.pipeline[1]),
                  static_cast<unsigned long long>(st.pipeline[2]),
                  static_cast<unsigned long long>(st.pipeline[3]));
    // a - b and a + (-b) represent the same values
    if (op == Op::kSub) {
      Bytes alt = hom_add(za, negate(zb, threads), threads);
      const std::vector<T> ya = decompress<T>(alt);
      size_t bad = 0;
      for (size_t i = 0; i < y.size(); ++i)
        if (!(y[i] == ya[i] || (std::isnan(y[i]) && std::isnan(ya[i]))) && ++bad <= 3)
          ADD_FAILURE() << w << ": a-b = " << y[i] << " but a+(-b) = " << ya[i] << " at " << i;
    }
  }
}

template <typename T>
void random_pairs(int threads) {
  const PairSpec specs[] = {
      {Kind::kSmooth, Kind::kSmooth, 1, 0},
      {Kind::kSmooth, Kind::kNoisy, 1, 0},
      {Kind::kNoisy, Kind::kNoisy, 1, 0},
      {Kind::kWalk, Kind::kSparse, 3, 0},
      {Kind::kSparse, Kind::kSparse, 1, 0},
      {Kind::kSmooth, Kind::kWalk, 1e3, 0},
      {Kind::kConstant, Kind::kNoisy, 1, 0},
      {Kind::kMixedScales, Kind::kSmooth, 1, 1e-3},
      {Kind::kMixedScales, Kind::kMixedScales, 1, 1e-1},
      {Kind::kNoisy, Kind::kMixedScales, 1e2, 1e-2},
  };
  const size_t n = 5 * 1024 + 77;  // a partial last chunk and a partial last block
  uint64_t seed = 1000;
  for (const PairSpec& s : specs) {
    for (double rel : {1e-2, 1e-4}) {
      seed += 7;
      const std::vector<T> xa = make_data<T>(s.a, n, seed);
      const std::vector<T> xb = make_data<T>(s.b, n, seed + 1, s.amp_b);
      const double eb = s.abs_eb > 0 ? s.abs_eb * (rel / 1e-2)
                                     : rel * std::max(value_range(xa), value_range(xb));
      check_pair<T>(
          xa, xb, eb, 1024, threads,
          std::string(kind_name(s.a)) + "+" + kind_name(s.b) + " eb " + std::to_string(eb));
    }
  }
  // default chunk size, several chunks
  const std::vector<T> xa = make_data<T>(Kind::kSmooth, 70001, 77, 10.0);
  const std::vector<T> xb = make_data<T>(Kind::kNoisy, 70001, 78, 0.5);
  check_pair<T>(xa, xb, 1e-3, 0, threads, "smooth+noisy default chunk");
}
TEST_P(HomProperty, RandomPairsWithinSumOfBounds) { HT_DISPATCH(GetParam(), random_pairs); }

// ---- real data ----------------------------------------------------------------------
struct RealSpec {
  const char* file;
  size_t a_first, b_first, count;  // values
  double rel;                      // eb = rel * range of the file's part used
  double abs_eb;                   // used instead when > 0
  uint32_t chunk_size;             // 0 = default
};

template <typename T>
void real_pairs(int threads) {
  const size_t uw = 73 * 144;     // one month of FNOC wind
  const size_t t3 = 96 * 192;     // one level of rect3d
  const size_t geo = 360 * 1440;  // half of the geoid grid
  const size_t lev = 180 * 360;   // one depth level of Levitus
  const RealSpec specs[] = {
      {"ferret_fnoc-uwnd_132x73x144.f32", 0, 12 * uw, 12 * uw, 1e-3, 0, 0},      // two years
      {"ferret_fnoc-uwnd_132x73x144.f32", 0, 66 * uw, 66 * uw, 1e-4, 0, 0},      // two halves
      {"ferret_fnoc-uwnd_132x73x144.f32", 40 * uw, 41 * uw, uw, 1e-2, 0, 1024},  // two months
      {"ncarg_rect3d-t_17x96x192.f32", 0, 8 * t3, 8 * t3, 1e-3, 0, 0},
      {"proj_egm96-geoid_721x1440.f32", 0, geo, geo, 1e-4, 0, 0},
      // land fill -1e10 kept: chunks with land are raw, open-ocean chunks quantized
      {"ferret_levitus-temp_20x180x360.f32", 0, 5 * lev, 5 * lev, 0, 1e-2, 1024},
  };
  int used = 0;
  for (const RealSpec& s : specs) {
    std::vector<float> fa = load_f32(s.file, s.a_first, s.count);
    std::vector<float> fb = load_f32(s.file, s.b_first, s.count);
    if (fa.size() != s.count || fb.size() != s.count) continue;
    ++used;
    const std::vector<T> xa = convert<T>(fa), xb = convert<T>(fb);
    const double eb = s.abs_eb > 0 ? s.abs_eb : s.rel * std::max(value_range(xa), value_range(xb));
    check_pair<T>(xa, xb, eb, s.chunk_size, threads,
                  std::string(s.file) + " [" + std::to_string(s.a_first) + "] + [" +
                      std::to_string(s.b_first) + "] eb " + std::to_string(eb));
  }
  if (used == 0) GTEST_SKIP() << "no real data found (ZCOLL_DATA_DIR, ../shared/data, data/)";
}
TEST_P(HomProperty, RealDataWithinSumOfBounds) { HT_DISPATCH(GetParam(), real_pairs); }

// ---- negation ---------------------------------------------------------------------
template <typename T>
void negate_values(int threads) {
  const size_t n = 6 * 1024 + 33;
  uint64_t seed = 500;
  for (Kind k : {Kind::kSmooth, Kind::kNoisy, Kind::kMixedScales, Kind::kSparse, Kind::kWalk}) {
    const std::string what = std::string("negate ") + kind_name(k);
    const std::vector<T> x = make_data<T>(k, n, ++seed);
    const double eb = k == Kind::kMixedScales ? 1e-3 : 1e-3 * value_range(x);
    Bytes z = compress(x, eb, 1024, threads);
    Bytes nz = negate(z, threads);
    ASSERT_FALSE(nz.empty()) << what;
    const zcoll_info iz = inspect(z), in = inspect(nz);
    EXPECT_EQ(in.error_bound, iz.error_bound) << what;
    EXPECT_EQ(in.terms, iz.terms) << what;
    EXPECT_EQ(in.divisor, iz.divisor) << what;
    EXPECT_EQ(bits_of(in.quantum), bits_of(iz.quantum)) << what;
    StreamDump dz = dump(z), dn = dump(nz);
    check_invariants(dn, what);
    const std::vector<T> xz = decompress<T>(z), y = decompress<T>(nz, threads);
    size_t bad = 0;
    for (size_t i = 0; i < n; ++i)
      if (!(y[i] == -xz[i] || (std::isnan(y[i]) && std::isnan(xz[i]))) && ++bad <= 3)
        ADD_FAILURE() << what << ": value " << i << ": -(" << xz[i] << ") gave " << y[i];
    EXPECT_EQ(bad, 0u);
    // quantized chunks: codes negated exactly, same qmax
    for (size_t c = 0; c < dz.chunks.size(); ++c) {
      if (dz.chunks[c].raw || dn.chunks[c].raw) continue;
      EXPECT_EQ(dn.chunks[c].qmax, dz.chunks[c].qmax) << what << " chunk " << c;
      for (size_t i = 0; i < dz.chunks[c].codes.size(); ++i)
        if (dn.chunks[c].codes[i] != -dz.chunks[c].codes[i]) {
          ADD_FAILURE() << what << ": chunk " << c << " code " << i << ": " << dn.chunks[c].codes[i]
                        << " != -" << dz.chunks[c].codes[i];
          break;
        }
    }
    // the negated stream is still within eb of -x
    std::vector<T> mx(n);
    for (size_t i = 0; i < n; ++i) mx[i] = -x[i];
    EXPECT_EQ(check_against_exact<T>({&mx}, {1}, y, 1.0, in.error_bound, what), 0u);

    // twice: the original codes and values, bit for bit
    Bytes nn = negate(nz, threads);
    const std::vector<T> y2 = decompress<T>(nn);
    bad = 0;
    for (size_t i = 0; i < n; ++i)
      if (!same_bits(y2[i], xz[i], false) && ++bad <= 3)
        ADD_FAILURE() << what << " twice: value " << i << ": " << y2[i] << " (bits "
                      << bits_of(y2[i]) << ") vs original " << xz[i] << " (bits " << bits_of(xz[i])
                      << ")";
    EXPECT_EQ(bad, 0u);
    StreamDump d2 = dump(nn);
    for (size_t c = 0; c < dz.chunks.size(); ++c) {
      ASSERT_EQ(d2.chunks[c].raw, dn.chunks[c].raw) << what << " chunk " << c;
      if (dz.chunks[c].raw || d2.chunks[c].raw) continue;
      EXPECT_EQ(d2.chunks[c].codes, dz.chunks[c].codes) << what << " chunk " << c;
      EXPECT_EQ(d2.chunks[c].anchor, dz.chunks[c].anchor) << what << " chunk " << c;
      EXPECT_EQ(d2.chunks[c].lens, dz.chunks[c].lens) << what << " chunk " << c;
    }
    // code lengths are canonical, so with no extra raw chunk the bytes come back
    if (inspect(nn).raw_chunks == iz.raw_chunks) {
      EXPECT_EQ(nn, z) << what;
    }
  }
}
TEST_P(HomProperty, NegateValuesAndTwiceIsIdentity) { HT_DISPATCH(GetParam(), negate_values); }

// a - a is exactly zero wherever the chunk is quantized (codes cancel), and
// a + (-a) the same.
template <typename T>
void self_difference(int threads) {
  const std::vector<T> x = make_data<T>(Kind::kNoisy, 4 * 1024, 4242, 3.0);
  Bytes z = compress(x, 1e-3, 1024, threads);
  zcoll_hom_stats st = ZCOLL_HOM_STATS_INITIALIZER;
  Bytes d = hom_sub(z, z, threads, &st);
  check_hom_model<T>(z, z, d, Op::kSub, &st, "a - a");
  for (T v : decompress<T>(d)) ASSERT_EQ(v, T(0));
  EXPECT_EQ(st.pipeline[3], 4u * 32u) << "every block non-constant";
  EXPECT_EQ(inspect(d).error_bound, 2e-3);
}
TEST_P(HomProperty, SelfDifferenceIsZero) { HT_DISPATCH(GetParam(), self_difference); }

INSTANTIATE_TEST_SUITE_P(Configs, HomProperty, testing::ValuesIn(all_configs()), config_name);

// ---- thread-count independence -------------------------------------------------------
template <typename T>
void thread_independence() {
  const size_t n = 40 * 1024 + 5;
  std::vector<T> xa = make_data<T>(Kind::kSmooth, n, 31, 5.0);
  std::vector<T> xb = make_data<T>(Kind::kNoisy, n, 32, 0.1);
  // a few chunks of mixed scales (escapes), a NaN chunk, constant stretches
  const std::vector<T> mixed = make_data<T>(Kind::kMixedScales, n, 33);
  for (size_t i = 7 * 1024; i < 10 * 1024; ++i) xa[i] = mixed[i];
  xb[20 * 1024 + 3] = std::numeric_limits<T>::quiet_NaN();
  for (size_t i = 25 * 1024; i < 30 * 1024; ++i) xa[i] = xb[i] = T(2);
  Bytes za = compress(xa, 1e-3, 1024, 1), zb = compress(xb, 1e-3, 1024, 1);
  ASSERT_EQ(za, compress(xa, 1e-3, 1024, 8));
  struct Result {
    Bytes add, sub, neg, acc;
    Bytes doc[4];
    zcoll_hom_stats st_add = ZCOLL_HOM_STATS_INITIALIZER, st_sub = st_add, st_acc = st_add;
  };
  auto run = [&](int t) {
    Result r;
    r.add = hom_add(za, zb, t, &r.st_add);
    r.sub = hom_sub(za, zb, t, &r.st_sub);
    r.neg = negate(za, t);
    r.acc = za;
    accumulate(r.acc, zb, t, &r.st_acc);
    accumulate(r.acc, zb, t);
    for (int op = 0; op < 4; ++op) r.doc[op] = doc(za, zb, static_cast<zcoll_op>(op), t);
    return r;
  };
  const Result ref = run(1);
  check_hom_model<T>(za, zb, ref.add, Op::kAdd, &ref.st_add, "thread reference add");
  EXPECT_GT(ref.st_add.raw_chunks, 0u);
  EXPECT_GT(ref.st_add.pipeline[0], 0u);
  for (int t : {2, 3, 8, 0}) {
    const Result r = run(t);
    const std::string w = "threads " + std::to_string(t);
    EXPECT_EQ(r.add, ref.add) << w;
    EXPECT_EQ(r.sub, ref.sub) << w;
    EXPECT_EQ(r.neg, ref.neg) << w;
    EXPECT_EQ(r.acc, ref.acc) << w;
    for (int op = 0; op < 4; ++op) EXPECT_EQ(r.doc[op], ref.doc[op]) << w << " doc op " << op;
    EXPECT_EQ(0, std::memcmp(&r.st_add, &ref.st_add, sizeof r.st_add)) << w;
    EXPECT_EQ(0, std::memcmp(&r.st_sub, &ref.st_sub, sizeof r.st_sub)) << w;
    EXPECT_EQ(0, std::memcmp(&r.st_acc, &ref.st_acc, sizeof r.st_acc)) << w;
  }
}
TEST(HomThreads, OutputBytesIndependentOfThreadCountF32) { thread_independence<float>(); }
TEST(HomThreads, OutputBytesIndependentOfThreadCountF64) { thread_independence<double>(); }

}  // namespace
