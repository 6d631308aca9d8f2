// hom_pipeline_test.cc — every per-block pipeline of zcoll_hom_add/sub forced
// explicitly, with the stats counters and the values asserted:
//   0: both blocks constant (code length 0 written, no payload)
//   1: only a constant (b's planes copied; for a - b negated through the adder)
//   2: only b constant (a's planes copied)
//   3: both non-constant (bit-sliced add of the planes)
// A block is constant when all its 32 codes equal the last code of the block
// before it (the chunk's anchor for block 0).
#include "hom_util.h"

namespace {

using namespace ht;

class HomPipeline : public testing::TestWithParam<Config> {};

constexpr uint32_t kCs = 1024;  // 32 blocks per chunk

// A block of value c (constant), or c plus noise of several quantization steps
// ending on c again (non-constant, and the next block starts from code(c)).
template <typename T>
void fill_block(T* x, uint32_t count, bool constant, double c, double eb, Rng& r) {
  for (uint32_t i = 0; i < count; ++i) {
    x[i] = static_cast<T>(c);
    if (!constant && i + 1 < count) {
      const double step = eb * (4 + static_cast<double>(r.below(40)));
      x[i] = static_cast<T>(c + (r.coin() ? step : -step));
    }
  }
}

// Build a and b of n values where block j of a is constant iff a_const(j), same for b.
template <typename T, typename FA, typename FB>
void make_pattern(size_t n, double eb, FA a_const, FB b_const, std::vector<T>* xa,
                  std::vector<T>* xb, uint64_t seed) {
  Rng r(seed);
  xa->assign(n, T(0));
  xb->assign(n, T(0));
  for (size_t j = 0; j * 32 < n; ++j) {
    const uint32_t count = static_cast<uint32_t>(std::min<size_t>(32, n - j * 32));
    fill_block<T>(xa->data() + j * 32, count, a_const(j), 3.25, eb, r);
    fill_block<T>(xb->data() + j * 32, count, b_const(j), -1.5, eb, r);
  }
}

// Run add and sub on the pair; expect the given pipeline counts for both (the
// pipeline number says which input block is constant; for a - b pipeline 1 negates
// b's planes through the adder) and no raw or widened chunk. Values are checked by
// the model and against the exact sum / difference of the originals.
template <typename T>
void run_pattern(const std::vector<T>& xa, const std::vector<T>& xb, double eb, int threads,
                 const uint64_t expect[4], const std::string& what) {
  Bytes za = compress(xa, eb, kCs, threads), zb = compress(xb, eb, kCs, threads);
  ASSERT_EQ(inspect(za).raw_chunks, 0u) << what;
  ASSERT_EQ(inspect(zb).raw_chunks, 0u) << what;
  for (Op op : {Op::kAdd, Op::kSub}) {
    const std::string w = what + (op == Op::kAdd ? " add" : " sub");
    zcoll_hom_stats st = ZCOLL_HOM_STATS_INITIALIZER;
    Bytes out = hom(op, za, zb, threads, &st);
    ASSERT_FALSE(out.empty()) << w;
    for (int i = 0; i < 4; ++i)
      EXPECT_EQ(st.pipeline[i], expect[i]) << w << ": pipeline[" << i << "]";
    EXPECT_EQ(st.raw_chunks, 0u) << w;
    EXPECT_EQ(st.widened_chunks, 0u) << w;
    EXPECT_EQ(inspect(out).raw_chunks, 0u) << w;
    check_hom_model<T>(za, zb, out, op, &st, w);
    const std::vector<T> y = decompress<T>(out, threads);
    EXPECT_EQ(check_against_exact<T>({&xa, &xb}, {1, op == Op::kAdd ? 1 : -1}, y, 1.0,
                                     inspect(out).error_bound, w),
              0u);
  }
}

template <typename T>
void both_constant(int threads) {
  const size_t n = 4 * kCs + 40;  // 4 full chunks + a chunk of 2 blocks
  const double eb = 1e-3;
  std::vector<T> xa(n, static_cast<T>(3.25)), xb(n, static_cast<T>(-1.5));
  const uint64_t expect[4] = {4 * 32 + 2, 0, 0, 0};
  run_pattern<T>(xa, xb, eb, threads, expect, "constant data");
  // every value is the same: (q_a + q_b) * quantum
  Bytes za = compress(xa, eb, kCs), zb = compress(xb, eb, kCs);
  const double q = inspect(za).quantum;
  const double qa = std::nearbyint(3.25 / q), qb = std::nearbyint(-1.5 / q);
  const T want = static_cast<T>((qa + qb) * q);
  for (T v : decompress<T>(hom_add(za, zb, threads))) ASSERT_TRUE(same_bits(v, want)) << v;
  // the sum of constant streams is as small as its inputs: no payload at all
  EXPECT_EQ(hom_add(za, zb, threads).size(), za.size());
}
TEST_P(HomPipeline, BothConstant) { HT_DISPATCH(GetParam(), both_constant); }

template <typename T>
void only_a_constant(int threads) {
  const size_t n = 4 * kCs + 40;
  std::vector<T> xa, xb;
  make_pattern<T>(
      n, 1e-3, [](size_t) { return true; }, [](size_t) { return false; }, &xa, &xb, 7);
  const uint64_t expect[4] = {0, 4 * 32 + 2, 0, 0};
  run_pattern<T>(xa, xb, 1e-3, threads, expect, "only a constant");
}
TEST_P(HomPipeline, OnlyAConstant) { HT_DISPATCH(GetParam(), only_a_constant); }

template <typename T>
void only_b_constant(int threads) {
  const size_t n = 4 * kCs + 40;
  std::vector<T> xa, xb;
  make_pattern<T>(
      n, 1e-3, [](size_t) { return false; }, [](size_t) { return true; }, &xa, &xb, 8);
  const uint64_t expect[4] = {0, 0, 4 * 32 + 2, 0};
  run_pattern<T>(xa, xb, 1e-3, threads, expect, "only b constant");
}
TEST_P(HomPipeline, OnlyBConstant) { HT_DISPATCH(GetParam(), only_b_constant); }

template <typename T>
void both_nonconstant(int threads) {
  const size_t n = 4 * kCs + 40;
  std::vector<T> xa, xb;
  make_pattern<T>(
      n, 1e-3, [](size_t) { return false; }, [](size_t) { return false; }, &xa, &xb, 9);
  const uint64_t expect[4] = {0, 0, 0, 4 * 32 + 2};
  run_pattern<T>(xa, xb, 1e-3, threads, expect, "both non-constant");
}
TEST_P(HomPipeline, BothNonConstant) { HT_DISPATCH(GetParam(), both_nonconstant); }

// All four in every chunk, in a fixed pattern: block j takes pipeline j % 4.
template <typename T>
void mixed_pattern(int threads) {
  const size_t n = 6 * kCs;
  std::vector<T> xa, xb;
  make_pattern<T>(
      n, 1e-3, [](size_t j) { return j % 4 == 0 || j % 4 == 1; },
      [](size_t j) { return j % 4 == 0 || j % 4 == 2; }, &xa, &xb, 10);
  const uint64_t expect[4] = {6 * 8, 6 * 8, 6 * 8, 6 * 8};
  run_pattern<T>(xa, xb, 1e-3, threads, expect, "mixed pattern");
  // the code lengths of the result follow the pipelines
  Bytes za = compress(xa, 1e-3, kCs), zb = compress(xb, 1e-3, kCs);
  StreamDump da = dump(za), db = dump(zb), ds = dump(hom_add(za, zb, threads));
  for (size_t c = 0; c < ds.chunks.size(); ++c)
    for (size_t j = 0; j < 32; ++j) {
      const int pipe = static_cast<int>(j % 4);
      EXPECT_EQ(da.chunks[c].lens[j] == 0, pipe <= 1) << "a block " << j;
      EXPECT_EQ(db.chunks[c].lens[j] == 0, pipe == 0 || pipe == 2) << "b block " << j;
      const unsigned want = pipe == 0   ? 0u
                            : pipe == 1 ? db.chunks[c].lens[j]
                                        : da.chunks[c].lens[j];
      if (pipe == 3) {
        EXPECT_GT(ds.chunks[c].lens[j], 0u) << "block " << j;
      } else {
        EXPECT_EQ(ds.chunks[c].lens[j], want) << "pipeline " << pipe << " block " << j;
      }
    }
}
TEST_P(HomPipeline, MixedPatternCountsEachPipeline) { HT_DISPATCH(GetParam(), mixed_pattern); }

// Pipeline counts accumulate into the caller's stats (they are added, not set).
template <typename T>
void stats_accumulate(int threads) {
  std::vector<T> xa, xb;
  make_pattern<T>(
      2 * kCs, 1e-3, [](size_t j) { return j % 2 == 0; }, [](size_t) { return false; }, &xa, &xb,
      11);
  Bytes za = compress(xa, 1e-3, kCs), zb = compress(xb, 1e-3, kCs);
  zcoll_hom_stats st = ZCOLL_HOM_STATS_INITIALIZER;
  Bytes out(bound_of(za));
  size_t size = 0;
  for (int rep = 0; rep < 3; ++rep)
    ASSERT_EQ(zcoll_hom_add(za.data(), za.size(), zb.data(), zb.size(), out.data(), out.size(),
                            &size, &st, threads),
              ZCOLL_SUCCESS);
  EXPECT_EQ(st.pipeline[1], 3u * 32u);
  EXPECT_EQ(st.pipeline[3], 3u * 32u);
  EXPECT_EQ(st.pipeline[0] + st.pipeline[2] + st.raw_chunks + st.widened_chunks, 0u);
  // and a NULL stats pointer is accepted
  ASSERT_EQ(zcoll_hom_add(za.data(), za.size(), zb.data(), zb.size(), out.data(), out.size(), &size,
                          nullptr, threads),
            ZCOLL_SUCCESS);
}
TEST_P(HomPipeline, StatsAreAddedToTheCallersCounters) {
  HT_DISPATCH(GetParam(), stats_accumulate);
}

INSTANTIATE_TEST_SUITE_P(Configs, HomPipeline, testing::ValuesIn(all_configs()), config_name);

}  // namespace
