// hom_chain_test.cc — long accumulation chains (k = 2..64 streams summed with
// zcoll_hom_add and zcoll_hom_accumulate) and the divisor (mean of a sum).
//
// After every step: the exact model of the step (codes add exactly, stats), the
// reported terms (= k) and error_bound (= eb_1 + ... + eb_k, summed in the same
// order), and the result against the exact sum of the k ORIGINAL inputs within
// that bound plus float rounding (hom_util.h). zcoll_hom_set_divisor(k) divides
// the reported bound by k (eb * old_divisor / new_divisor) and the mean must be
// within it.
#include "hom_util.h"

namespace {

using namespace ht;

class HomChain : public testing::TestWithParam<Config> {};

// Sum the streams z[0..K) one by one; check every step. Returns the final sum.
template <typename T>
void run_chain(const std::vector<std::vector<T>>& x, const std::vector<Bytes>& z, double eb,
               int threads, const std::string& what, Bytes* result) {
  const int K = static_cast<int>(z.size());
  Bytes& acc = *result;
  acc = z[0];
  double eb_sum = inspect(z[0]).error_bound;
  EXPECT_EQ(eb_sum, eb);
  std::vector<const std::vector<T>*> terms{&x[0]};
  for (int k = 1; k < K; ++k) {
    const std::string w = what + " k=" + std::to_string(k + 1);
    zcoll_hom_stats st = ZCOLL_HOM_STATS_INITIALIZER;
    Bytes prev = acc;
    if (k % 2) {
      acc = hom_add(prev, z[k], threads, &st);
    } else {
      accumulate(acc, z[k], threads, &st);
    }
    ASSERT_FALSE(acc.empty()) << w << ": the sum failed";
    check_hom_model<T>(prev, z[k], acc, Op::kAdd, &st, w);
    eb_sum += inspect(z[k]).error_bound;
    terms.push_back(&x[k]);
    const zcoll_info info = inspect(acc);
    EXPECT_EQ(info.terms, static_cast<uint32_t>(k + 1)) << w;
    EXPECT_EQ(info.error_bound, eb_sum) << w;
    EXPECT_NEAR(info.error_bound, (k + 1) * eb, 1e-13 * (k + 1) * eb) << w;
    EXPECT_EQ(info.divisor, 1u) << w;
    const std::vector<T> y = decompress<T>(acc, threads);
    std::vector<int> sign(terms.size(), 1);
    EXPECT_EQ(check_against_exact<T>(terms, sign, y, 1.0, info.error_bound, w), 0u);

    // the mean: divisor k+1 (checked at a few lengths to keep the run short)
    const int kk = k + 1;
    const bool power = (kk & (kk - 1)) == 0 || kk == 3 || kk == 17 || kk == K;
    if (power) {
      Bytes mean = acc;
      ASSERT_EQ(zcoll_hom_set_divisor(mean.data(), mean.size(), kk), ZCOLL_SUCCESS)
          << zcoll_last_error();
      const zcoll_info im = inspect(mean);
      EXPECT_EQ(im.divisor, static_cast<uint32_t>(kk)) << w;
      EXPECT_EQ(im.terms, static_cast<uint32_t>(kk)) << w;
      EXPECT_EQ(im.error_bound, info.error_bound * 1.0 / kk) << w << ": eb * old / new";
      EXPECT_NEAR(im.error_bound, eb, 1e-13 * eb) << w << ": the mean is within one eb";
      const std::vector<T> ym = decompress<T>(mean, threads);
      if (info.raw_chunks == 0) {  // raw chunks: see HomDivisor.RawChunksAreDivided
        EXPECT_EQ(check_against_exact<T>(terms, sign, ym, kk, im.error_bound, w + " mean"), 0u);
      }
      // quantized chunks decode to code * (quantum / divisor), bit for bit
      StreamDump dm = dump(mean);
      const double f = im.quantum / kk;
      size_t bad = 0;
      for (size_t c = 0; c < dm.chunks.size(); ++c) {
        if (dm.chunks[c].raw) continue;
        for (uint32_t i = 0; i < dm.chunks[c].len; ++i) {
          const T want = static_cast<T>(static_cast<double>(dm.chunks[c].codes[i]) * f);
          if (!same_bits(ym[c * im.chunk_size + i], want) && ++bad <= 3)
            ADD_FAILURE() << w << " mean: value " << c * im.chunk_size + i << " is "
                          << ym[c * im.chunk_size + i] << ", expected " << want;
        }
      }
      // back to divisor 1: the same values as the sum
      ASSERT_EQ(zcoll_hom_set_divisor(mean.data(), mean.size(), 1), ZCOLL_SUCCESS);
      EXPECT_NEAR(inspect(mean).error_bound, info.error_bound, 1e-15 * info.error_bound) << w;
      const std::vector<T> yb = decompress<T>(mean);
      for (size_t i = 0; i < y.size(); ++i)
        if (!same_bits(yb[i], y[i])) {
          ADD_FAILURE() << w << ": divisor k then 1 changed value " << i;
          break;
        }
    }
  }
}

template <typename T>
void random_chains(int threads) {
  const size_t n = 3 * 1024 + 5;
  const int K = 64;
  const Kind kinds[] = {Kind::kSmooth, Kind::kNoisy, Kind::kSparse, Kind::kMixedScales};
  uint64_t seed = 9000;
  for (Kind kind : kinds) {
    const double eb = kind == Kind::kMixedScales ? 1e-2 : 1e-3;
    std::vector<std::vector<T>> x(K);
    std::vector<Bytes> z(K);
    for (int k = 0; k < K; ++k) {
      x[k] = make_data<T>(kind, n, ++seed);
      z[k] = compress(x[k], eb, 1024, threads);
    }
    Bytes sum;
    run_chain<T>(x, z, eb, threads, std::string("chain ") + kind_name(kind), &sum);
    if (testing::Test::HasFatalFailure()) return;
    // the same sum formed as a balanced tree gives the same codes in quantized chunks
    std::vector<Bytes> level = z;
    while (level.size() > 1) {
      std::vector<Bytes> next;
      for (size_t i = 0; i + 1 < level.size(); i += 2)
        next.push_back(hom_add(level[i], level[i + 1], threads));
      level = next;
    }
    StreamDump ds = dump(sum), dt = dump(level[0]);
    EXPECT_EQ(inspect(level[0]).terms, static_cast<uint32_t>(K));
    for (size_t c = 0; c < ds.chunks.size(); ++c) {
      if (!ds.chunks[c].raw && !dt.chunks[c].raw) {
        EXPECT_EQ(ds.chunks[c].codes, dt.chunks[c].codes) << kind_name(kind) << " chunk " << c;
      }
    }
  }
}
TEST_P(HomChain, RandomChainsUpTo64) { HT_DISPATCH(GetParam(), random_chains); }

// 64 monthly fields of FNOC 10 m zonal wind summed in the compressed domain: the
// time mean of 64 months.
template <typename T>
void real_chain(int threads) {
  const size_t month = 73 * 144;
  const int K = 64;
  std::vector<float> all = load_f32("ferret_fnoc-uwnd_132x73x144.f32", 0, K * month);
  if (all.size() != K * month) GTEST_SKIP() << "ferret_fnoc-uwnd_132x73x144.f32 not found";
  const double eb = 1e-3 * value_range(all);
  std::vector<std::vector<T>> x(K);
  std::vector<Bytes> z(K);
  for (int k = 0; k < K; ++k) {
    x[k].assign(all.begin() + k * month, all.begin() + (k + 1) * month);
    z[k] = compress(x[k], eb, 2048, threads);
  }
  Bytes sum;
  run_chain<T>(x, z, eb, threads, "uwnd 64 months", &sum);
}
TEST_P(HomChain, RealDataTimeMeanOf64Months) { HT_DISPATCH(GetParam(), real_chain); }

// Streams that already carry a divisor combine when the divisors match: the
// result keeps it, bounds add (each already divided).
template <typename T>
void divisor_streams_add(int threads) {
  const size_t n = 2 * 1024 + 100;
  const std::vector<T> xa = make_data<T>(Kind::kSmooth, n, 1), xb = make_data<T>(Kind::kWalk, n, 2);
  Bytes za = compress(xa, 1e-3, 1024, threads), zb = compress(xb, 1e-3, 1024, threads);
  ASSERT_EQ(zcoll_hom_set_divisor(za.data(), za.size(), 3), ZCOLL_SUCCESS);
  ASSERT_EQ(zcoll_hom_set_divisor(zb.data(), zb.size(), 3), ZCOLL_SUCCESS);
  EXPECT_EQ(inspect(za).error_bound, 1e-3 * 1.0 / 3.0);
  zcoll_hom_stats st = ZCOLL_HOM_STATS_INITIALIZER;
  Bytes s = hom_add(za, zb, threads, &st);
  check_hom_model<T>(za, zb, s, Op::kAdd, &st, "divisor 3 + divisor 3");
  const zcoll_info info = inspect(s);
  EXPECT_EQ(info.divisor, 3u);
  EXPECT_EQ(info.error_bound, inspect(za).error_bound + inspect(zb).error_bound);
  const std::vector<T> y = decompress<T>(s);
  EXPECT_EQ(check_against_exact<T>({&xa, &xb}, {1, 1}, y, 3.0, info.error_bound, "(a+b)/3"), 0u);
}
TEST_P(HomChain, StreamsWithEqualDivisorsAdd) { HT_DISPATCH(GetParam(), divisor_streams_add); }

INSTANTIATE_TEST_SUITE_P(Configs, HomChain, testing::ValuesIn(all_configs()), config_name);

// zcoll_hom_set_divisor on a stream whose sum went through floats in some chunks
// (here: a chunk holding a value too large to quantize). The header promises
// "decompression yields the represented sum divided by it" for the whole stream.
template <typename T>
void divisor_with_raw_chunks() {
  const size_t n = 3 * 1024;
  std::vector<T> xa = make_data<T>(Kind::kSmooth, n, 11), xb = make_data<T>(Kind::kSmooth, n, 12);
  xa[1024 + 5] = static_cast<T>(1e12);  // chunk 1 of a escapes (|code| > 2^30)
  Bytes za = compress(xa, 1e-3, 1024), zb = compress(xb, 1e-3, 1024);
  ASSERT_EQ(inspect(za).raw_chunks, 1u);
  Bytes s = hom_add(za, zb, 1);
  ASSERT_EQ(inspect(s).raw_chunks, 1u);
  ASSERT_EQ(zcoll_hom_set_divisor(s.data(), s.size(), 2), ZCOLL_SUCCESS);
  const zcoll_info info = inspect(s);
  EXPECT_EQ(info.error_bound, 2e-3 / 2);
  const std::vector<T> y = decompress<T>(s);
  // every chunk, the raw one included, must hold (a + b) / 2
  EXPECT_EQ(check_against_exact<T>({&xa, &xb}, {1, 1}, y, 2.0, info.error_bound,
                                   "(a+b)/2 with a raw chunk"),
            0u)
      << "zcoll_hom_set_divisor changes only the header: quantized chunks are divided, "
         "raw chunks (values stored as floats) are not";
}
TEST(HomDivisor, RawChunksAreDividedF32) { divisor_with_raw_chunks<float>(); }
TEST(HomDivisor, RawChunksAreDividedF64) { divisor_with_raw_chunks<double>(); }

}  // namespace
