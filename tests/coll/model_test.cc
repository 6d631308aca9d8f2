// model_test.cc — the pure functions of the collectives, without MPI: the
// size rule, the cost model and AUTO's pick, and the error-bound derivation
// from a configured bound to the bound of one compression.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <string>

#include "coll/control/algorithms.h"
#include "coll/control/cost_model.h"
#include "coll/control/error_bound.h"

using namespace zcoll::coll;

namespace {

zcoll_model test_model() {
  zcoll_model m{};
  m.struct_size = sizeof m;
  m.latency = 20e-6;
  m.bandwidth = 125e6;  // 1 Gbit/s
  m.compress_bw = 1e9;
  m.decompress_bw = 2e9;
  m.hom_bw = 3e9;
  m.reduce_bw = 4e9;
  m.overlap = 0.5;
  m.growth_bits = 0.5;
  m.mpi_scale = 1;
  m.mpi_scale_small = 1;
  m.threads = 1;
  return m;
}

CostQuery query(zcoll_collective coll, int size, size_t values, double ratio) {
  CostQuery q;
  q.coll = coll;
  q.size = size;
  q.total_values = values;
  q.vsize = 4;
  q.ratio = ratio;
  q.seg_values = 65536;
  q.sum = true;
  return q;
}

ModelIn model_in(int size, zcoll_mode mode, zcoll_op op) {
  ModelIn m;
  m.size = size;
  m.mode = mode;
  m.op = op;
  m.hom = mode == ZCOLL_MODE_HOM && op == ZCOLL_OP_SUM;
  m.max_abs = 10;
  return m;
}

}  // namespace

TEST(SizeRule, AllreduceRingFrom256KiBPerRank) {
  // 4 ranks x 65536 floats = 256 KiB per rank: ring; one value less: recursive doubling
  EXPECT_EQ(default_algorithm(ZCOLL_COLL_ALLREDUCE, 4 * 65536, 4, 4), ZCOLL_ALGO_RING);
  EXPECT_EQ(default_algorithm(ZCOLL_COLL_ALLREDUCE, 4 * 65536 - 4, 4, 4),
            ZCOLL_ALGO_RECURSIVE_DOUBLING);
  EXPECT_EQ(default_algorithm(ZCOLL_COLL_REDUCE_SCATTER, 10, 4, 4), ZCOLL_ALGO_RING);
  EXPECT_EQ(default_algorithm(ZCOLL_COLL_ALLGATHER, 10, 4, 4), ZCOLL_ALGO_RING);
  for (zcoll_collective c : {ZCOLL_COLL_SCATTER, ZCOLL_COLL_REDUCE, ZCOLL_COLL_GATHER})
    EXPECT_EQ(default_algorithm(c, 1 << 20, 8, 5), ZCOLL_ALGO_BINOMIAL);
  // Bcast: the chain from 256 KiB per rank, the binomial tree below
  EXPECT_EQ(default_algorithm(ZCOLL_COLL_BCAST, 4 * 65536, 4, 4), ZCOLL_ALGO_CHAIN);
  EXPECT_EQ(default_algorithm(ZCOLL_COLL_BCAST, 4 * 65536 - 4, 4, 4), ZCOLL_ALGO_BINOMIAL);
}

TEST(CostModel, BcastChainCarriesTheBufferOncePerLink) {
  // 64 MiB at 8 ranks: the binomial root sends 3 copies, the chain's links one
  const zcoll_model m = test_model();
  const CostQuery q = query(ZCOLL_COLL_BCAST, 8, size_t{1} << 24, 4);
  for (zcoll_mode mode : {ZCOLL_MODE_RAW, ZCOLL_MODE_HOM}) {
    const double chain = predict_seconds(m, q, mode, ZCOLL_ALGO_CHAIN);
    const double bino = predict_seconds(m, q, mode, ZCOLL_ALGO_BINOMIAL);
    EXPECT_GT(chain, 0);
    EXPECT_LT(chain, bino);
  }
}

TEST(CostModel, RejectsUnusableModelsAndMissingPairs) {
  zcoll_model m = test_model();
  const CostQuery q = query(ZCOLL_COLL_ALLREDUCE, 4, 1 << 22, 4);
  EXPECT_GT(predict_seconds(m, q, ZCOLL_MODE_HOM, ZCOLL_ALGO_RING), 0);
  EXPECT_LT(predict_seconds(m, q, ZCOLL_MODE_HOM, ZCOLL_ALGO_BINOMIAL), 0);
  EXPECT_LT(
      predict_seconds(m, query(ZCOLL_COLL_BCAST, 4, 1 << 22, 4), ZCOLL_MODE_DOC, ZCOLL_ALGO_RING),
      0);
  m.bandwidth = 0;
  EXPECT_FALSE(model_usable(m));
  EXPECT_LT(predict_seconds(m, q, ZCOLL_MODE_HOM, ZCOLL_ALGO_RING), 0);
}

TEST(CostModel, RawRingAllreduceIsTheAlphaBetaFormula) {
  // With no codec and no overlap question (raw), a ring allreduce of D bytes
  // costs 2(N-1) alpha + 2 (N-1)/N D beta + the reduction, pipelined with
  // the transfers: at least the transfer term, at most transfer + reduce.
  zcoll_model m = test_model();
  const int N = 4;
  const CostQuery q = query(ZCOLL_COLL_ALLREDUCE, N, 1 << 24, 1);
  const double D = (1 << 24) * 4.0, f = (N - 1.0) / N;
  const double wire = 2 * (N - 1) * m.latency + 2 * f * D / m.bandwidth;
  const double reduce = f * D / m.reduce_bw;
  const double t = predict_seconds(m, q, ZCOLL_MODE_RAW, ZCOLL_ALGO_RING);
  EXPECT_GE(t, wire * (1 - 1e-12));
  EXPECT_LE(t, (wire + reduce) * (1 + 1e-12));
}

TEST(CostModel, PipelineChargesStallsMostWhenStagesAreBalanced) {
  zcoll_model m = test_model();  // overlap 0.5
  const CostTerms t(m);
  // balanced: (1 - overlap) of the shorter stage on top of the longer one
  EXPECT_DOUBLE_EQ(t.pipe(1.0, 1.0), 1.5);
  // symmetric in the two stages, and 0 for no work
  EXPECT_DOUBLE_EQ(t.pipe(2.0, 0.5), t.pipe(0.5, 2.0));
  EXPECT_DOUBLE_EQ(t.pipe(0.0, 0.0), 0.0);
  EXPECT_DOUBLE_EQ(t.pipe(3.0, 0.0), 3.0);
  // one stage 10x the other: 0.5 * 0.1 * 0.1 on top
  EXPECT_NEAR(t.pipe(1.0, 0.1), 1.005, 1e-12);
  // never below the longer stage, never above the sum; more work never costs less
  double prev = 0;
  for (double c = 0.0; c <= 4.0; c += 0.125) {
    const double p = t.pipe(1.0, c);
    EXPECT_GE(p, std::max(1.0, c));
    EXPECT_LE(p, 1.0 + c);
    EXPECT_GE(p, prev) << c;
    prev = p;
  }
  m.overlap = 1;  // a perfect overlap hides the shorter stage entirely
  EXPECT_DOUBLE_EQ(CostTerms(m).pipe(1.0, 0.7), 1.0);
  m.overlap = 0;
  EXPECT_DOUBLE_EQ(CostTerms(m).pipe(1.0, 1.0), 2.0);
}

TEST(CostModel, CompressionPaysOnASlowLinkAndNotOnAFastOne) {
  zcoll_model m = test_model();
  const CostQuery q = query(ZCOLL_COLL_ALLREDUCE, 4, 1 << 24, 8);
  Candidate c[16];
  int best = 0;
  int n = auto_candidates(m, q, ZCOLL_ALGO_AUTO, c, &best);
  ASSERT_GT(n, 1);
  EXPECT_EQ(c[best].mode, ZCOLL_MODE_HOM) << "1 Gbit/s, ratio 8";
  m.bandwidth = 100e9;  // a link far faster than the codec
  n = auto_candidates(m, q, ZCOLL_ALGO_AUTO, c, &best);
  EXPECT_EQ(c[best].mode, ZCOLL_MODE_MPI);
  // a higher ratio never predicts a slower compressed call
  const double t8 = predict_seconds(test_model(), q, ZCOLL_MODE_HOM, ZCOLL_ALGO_RING);
  CostQuery q2 = q;
  q2.ratio = 16;
  EXPECT_LE(predict_seconds(test_model(), q2, ZCOLL_MODE_HOM, ZCOLL_ALGO_RING), t8);
}

// ZCOLL_CODEC=auto: the dense codec (2x the fast codec's ratio here, at its
// measured ~0.5 / 0.8 GB/s against the fast codec's several GB/s) where the
// wire is slow, the fast codec where it is fast, MPI where neither pays; dense
// rows are doc only, and without the dense rates there are none.
TEST(CostModel, AutoCodecPicksDenseOnASlowLinkFastOnAFastOne) {
  zcoll_model m = test_model();
  m.compress_bw = 3e9;
  m.decompress_bw = 6e9;
  m.hom_bw = 8e9;
  m.dense_compress_bw = 0.5e9;
  m.dense_decompress_bw = 0.8e9;
  const CostQuery q = query(ZCOLL_COLL_ALLREDUCE, 4, 1 << 24, 4);
  CostQuery qd = q;
  qd.ratio = 8;
  Candidate c[kMaxCandidates];
  int best = 0;
  auto pick = [&](double bandwidth) {
    m.bandwidth = bandwidth;
    const int n = auto_candidates_codecs(m, q, qd, ZCOLL_ALGO_AUTO, c, &best);
    for (int i = 0; i < n; ++i)
      if (c[i].codec == ZCOLL_CODEC_DENSE) {
        EXPECT_EQ(c[i].mode, ZCOLL_MODE_DOC);
      }
    return c[best];
  };
  Candidate b = pick(12.5e6);  // 100 Mbit/s
  EXPECT_EQ(b.codec, ZCOLL_CODEC_DENSE) << "100 Mbit/s: " << zcoll_mode_name(b.mode);
  EXPECT_EQ(b.mode, ZCOLL_MODE_DOC);
  b = pick(1.25e9);  // 10 Gbit/s: dense's 0.5 GB/s is slower than the wire
  EXPECT_EQ(b.codec, ZCOLL_CODEC_FAST) << "10 Gbit/s: " << zcoll_mode_name(b.mode);
  EXPECT_NE(b.mode, ZCOLL_MODE_MPI);
  b = pick(100e9);
  EXPECT_EQ(b.mode, ZCOLL_MODE_MPI) << "a link faster than both codecs";
  // the same ratio: the dense codec is never picked (slower at no gain)
  m.bandwidth = 12.5e6;
  const int n = auto_candidates_codecs(m, q, q, ZCOLL_ALGO_AUTO, c, &best);
  EXPECT_EQ(c[best].codec, ZCOLL_CODEC_FAST) << n;
  // no dense rates (a model from before them): fast candidates only
  m.dense_compress_bw = 0;
  const int n2 = auto_candidates_codecs(m, q, qd, ZCOLL_ALGO_AUTO, c, &best);
  for (int i = 0; i < n2; ++i) EXPECT_EQ(c[i].codec, ZCOLL_CODEC_FAST);
}

// The row `auto` missed on the emulated cluster (2026-11-28, Allreduce of 64 MiB
// of the FNOC wind field at 2 ranks, REL 1e-4, 96 Mbit/s): ratios 3.65 (fast)
// and 4.13 (dense) as auto estimated them, codec rates that give the codec
// times of the measured calls (fast hom ~0.066 s, dense doc ~0.40 s). Both
// codecs ran at their wire limit and dense was 8 % faster; a link 10x faster
// makes the dense codec's time the longer stage and the fast codec wins
// (measured: 4.69 against 1.60 times MPI at 1 Gbit/s, REL 1e-3).
TEST(CostModel, AutoCodecTakesDenseWhereBothCodecsHideBehindASlowLink) {
  zcoll_model m = test_model();
  m.bandwidth = 12e6;
  m.compress_bw = 2.5e9;
  m.decompress_bw = 4e9;
  m.hom_bw = 3e9;
  m.dense_compress_bw = 0.4e9;
  m.dense_decompress_bw = 0.62e9;
  m.growth_bits = 0.7;
  const CostQuery q = query(ZCOLL_COLL_ALLREDUCE, 2, size_t{1} << 24, 3.65);
  CostQuery qd = q;
  qd.ratio = 4.13;
  Candidate c[kMaxCandidates];
  int best = 0;
  auto_candidates_codecs(m, q, qd, ZCOLL_ALGO_AUTO, c, &best);
  EXPECT_EQ(c[best].codec, ZCOLL_CODEC_DENSE);
  EXPECT_EQ(c[best].mode, ZCOLL_MODE_DOC);
  m.bandwidth = 120e6;
  auto_candidates_codecs(m, q, qd, ZCOLL_ALGO_AUTO, c, &best);
  EXPECT_EQ(c[best].codec, ZCOLL_CODEC_FAST);
  EXPECT_NE(c[best].mode, ZCOLL_MODE_MPI);
}

TEST(CostModel, NoHomCandidateForOtherOps) {
  CostQuery q = query(ZCOLL_COLL_ALLREDUCE, 4, 1 << 24, 8);
  q.sum = false;
  Candidate c[16];
  int best = 0;
  const int n = auto_candidates(test_model(), q, ZCOLL_ALGO_AUTO, c, &best);
  for (int i = 0; i < n; ++i) EXPECT_NE(c[i].mode, ZCOLL_MODE_HOM);
}

TEST(AutoPick, MarginAndTiesAndForcedAlgorithm) {
  const Candidate c[] = {{ZCOLL_MODE_MPI, ZCOLL_ALGO_NATIVE, 1.00},
                         {ZCOLL_MODE_HOM, ZCOLL_ALGO_RING, 0.98},
                         {ZCOLL_MODE_HOM, ZCOLL_ALGO_RECURSIVE_DOUBLING, 0.975}};
  // 2% faster than MPI is inside the margin: MPI
  EXPECT_EQ(pick_candidate(c, 3, ZCOLL_ALGO_AUTO), 0);
  const Candidate d[] = {{ZCOLL_MODE_MPI, ZCOLL_ALGO_NATIVE, 1.00},
                         {ZCOLL_MODE_HOM, ZCOLL_ALGO_RING, 0.50},
                         {ZCOLL_MODE_HOM, ZCOLL_ALGO_RECURSIVE_DOUBLING, 0.49}};
  // a near-tie among zcoll's candidates goes to the earlier one (ring)
  EXPECT_EQ(pick_candidate(d, 3, ZCOLL_ALGO_AUTO), 1);
  // a forced algorithm restricts the choice to it
  EXPECT_EQ(pick_candidate(d, 3, ZCOLL_ALGO_RECURSIVE_DOUBLING), 2);
}

TEST(ErrorBound, TargetFromAbsAndRel) {
  EXPECT_EQ(target_bound(ZCOLL_EB_ABS, 1e-3, -5, 5), 1e-3);
  EXPECT_DOUBLE_EQ(target_bound(ZCOLL_EB_REL, 1e-3, -5, 5), 1e-2);
  // a constant field: relative to its magnitude (at least 1)
  EXPECT_DOUBLE_EQ(target_bound(ZCOLL_EB_REL, 1e-3, 7, 7), 7e-3);
  EXPECT_DOUBLE_EQ(target_bound(ZCOLL_EB_REL, 1e-3, 0.5, 0.5), 1e-3);
  // no finite value anywhere (min > max): the value itself
  EXPECT_EQ(target_bound(ZCOLL_EB_REL, 1e-3, INFINITY, -INFINITY), 1e-3);
}

TEST(ErrorBound, PerCompressionKeepsTheValue) {
  const Algorithm* a = find_algorithm(ZCOLL_COLL_ALLREDUCE, ZCOLL_ALGO_RING);
  ASSERT_NE(a, nullptr);
  const ModelIn m = model_in(5, ZCOLL_MODE_HOM, ZCOLL_OP_SUM);
  EXPECT_EQ(per_compression_bound(a->model, m, 0.25, ZCOLL_BOUND_PER_COMPRESSION), 0.25);
  // hom ring SUM over N ranks: N compressions add up
  EXPECT_DOUBLE_EQ(result_bound(a->model, m, 0.25), 5 * 0.25);
  EXPECT_EQ(per_compression_bound(a->model, m, 0, ZCOLL_BOUND_PER_COMPRESSION), 0);
  EXPECT_EQ(per_compression_bound(a->model, m, NAN, ZCOLL_BOUND_RESULT), 0);
}

TEST(ErrorBound, ResultSemanticsHoldsTheTargetForEveryAlgorithm) {
  size_t n = 0;
  const Algorithm* algs = algorithms(&n);
  for (size_t i = 0; i < n; ++i)
    for (int N : {1, 2, 3, 5, 16})
      for (zcoll_mode mode : {ZCOLL_MODE_CPR_P2P, ZCOLL_MODE_DOC, ZCOLL_MODE_HOM})
        for (zcoll_op op : {ZCOLL_OP_SUM, ZCOLL_OP_MAX, ZCOLL_OP_PROD})
          for (double target : {1e-6, 1e-3, 0.7}) {
            const ModelIn m = model_in(N, mode, op);
            const double eb = per_compression_bound(algs[i].model, m, target, ZCOLL_BOUND_RESULT);
            ASSERT_GT(eb, 0) << algs[i].name << " N=" << N;
            EXPECT_LE(result_bound(algs[i].model, m, eb), target) << algs[i].name << " N=" << N;
            // and not needlessly small: within 1e-9 (linear) / 1e-6 (PROD) of the target
            EXPECT_GE(
                result_bound(algs[i].model, m, eb),
                target * (op == ZCOLL_OP_PROD ? 0.999999 : 0.999999999) - (N == 1 ? target : 0))
                << algs[i].name << " N=" << N << " op " << op;
          }
}

// ---- AUTO in the regimes of the 2026-11-22 cluster sweep's wrong picks -------------
namespace {

// The model zcoll-tune measured on the emulated cluster, 4 hosts at 1 Gbit/s, 4
// ranks on 2 shared cores (bench/results/2026-11-24-auto.tar.xz: tune_h4_1gbit_bcast.json,
// rounded): a scheduler-bound latency of 4 ms, the agreement 22 ms; the MPI
// scales as a probe on a loaded machine gives them (256 KiB at the clamp, 2.0).
// There Bcast 1 MiB with doc was predicted 0.85 x MPI (one agreement charged): the old margin (0.97) took
// doc, which measured slower than MPI.
zcoll_model cluster_model() {
  zcoll_model m = test_model();
  m.latency = 4.0e-3;
  m.sync_latency = 22e-3;
  m.bandwidth = 94e6;
  m.compress_bw = 3.8e9;
  m.decompress_bw = 6.0e9;
  m.hom_bw = 7.5e9;
  m.reduce_bw = 11.5e9;
  m.overlap = 0.5;
  m.growth_bits = 0.7;
  m.mpi_scale = 1.0;
  m.mpi_scale_small = 2.0;
  return m;
}

zcoll_mode auto_mode(const zcoll_model& m, zcoll_collective coll, int size, size_t bytes,
                     double ratio) {
  Candidate c[16];
  int best = 0;
  CostQuery q = query(coll, size, bytes / 4, ratio);
  q.sum = coll == ZCOLL_COLL_ALLREDUCE || coll == ZCOLL_COLL_REDUCE_SCATTER ||
          coll == ZCOLL_COLL_REDUCE;
  const int n = auto_candidates(m, q, ZCOLL_ALGO_AUTO, c, &best);
  EXPECT_GT(n, 1);
  return c[best].mode;
}

}  // namespace

TEST(CostModel, BcastRootLinkCarriesACopyPerChild) {
  // raw and doc Bcast of 64 MiB in 256 segments: the root of 4 ranks sends every
  // segment to its 2 children over one link, so the wire time is about 2 D beta
  // (not the (L + S - 1)/S D beta of a single chain); with 2 ranks, one child: D beta
  const zcoll_model m = test_model();
  const size_t values = size_t{16} << 20;
  const double Db = values * 4.0 / m.bandwidth;
  const double raw4 = predict_seconds(m, query(ZCOLL_COLL_BCAST, 4, values, 1), ZCOLL_MODE_RAW,
                                      ZCOLL_ALGO_BINOMIAL);
  EXPECT_GE(raw4, 2 * Db);
  EXPECT_LT(raw4, 2.05 * Db);
  const double raw2 = predict_seconds(m, query(ZCOLL_COLL_BCAST, 2, values, 1), ZCOLL_MODE_RAW,
                                      ZCOLL_ALGO_BINOMIAL);
  EXPECT_GE(raw2, Db);
  EXPECT_LT(raw2, 1.05 * Db);
  const double doc4 = predict_seconds(m, query(ZCOLL_COLL_BCAST, 4, values, 4), ZCOLL_MODE_DOC,
                                      ZCOLL_ALGO_BINOMIAL);
  EXPECT_GE(doc4, 2 * Db / 4);
}

TEST(AutoPick, DataMovementNeedsTheWiderMargin) {
  // a compressed candidate predicted 15 % faster than MPI: taken for a reduction,
  // not for data movement (the model overrates compressed data movement)
  const Candidate c[2] = {{ZCOLL_MODE_MPI, ZCOLL_ALGO_NATIVE, 1.0},
                          {ZCOLL_MODE_DOC, ZCOLL_ALGO_BINOMIAL, 0.85}};
  EXPECT_EQ(pick_candidate(c, 2, ZCOLL_ALGO_AUTO, kAutoMargin), 1);
  EXPECT_EQ(pick_candidate(c, 2, ZCOLL_ALGO_AUTO, kAutoMarginMove), 0);
  const Candidate d[2] = {{ZCOLL_MODE_MPI, ZCOLL_ALGO_NATIVE, 1.0},
                          {ZCOLL_MODE_DOC, ZCOLL_ALGO_BINOMIAL, 0.7}};
  EXPECT_EQ(pick_candidate(d, 2, ZCOLL_ALGO_AUTO, kAutoMarginMove), 1);
  EXPECT_TRUE(moves_data(ZCOLL_COLL_BCAST) && moves_data(ZCOLL_COLL_SCATTER) &&
              moves_data(ZCOLL_COLL_GATHER) && moves_data(ZCOLL_COLL_ALLGATHER));
  EXPECT_FALSE(moves_data(ZCOLL_COLL_ALLREDUCE) || moves_data(ZCOLL_COLL_REDUCE_SCATTER) ||
               moves_data(ZCOLL_COLL_REDUCE));
}

TEST(AutoPick, ClusterRegimesOfTheWrongPicks) {
  // The 2026-11-22 sweep's wrong picks were small data movement at ratio ~3.6,
  // where the agreement and the per-hop latencies eat the gain: Bcast 1 MiB at 4
  // hosts runs MPI; large messages still compress (Bcast and Allgather 64 MiB),
  // and the reductions are unchanged (Allreduce 64 MiB: hom).
  const zcoll_model m = cluster_model();
  Candidate c[16];
  int best = 0;
  CostQuery q = query(ZCOLL_COLL_BCAST, 4, (1 << 20) / 4, 3.56);
  q.sum = false;
  const int n = auto_candidates(m, q, ZCOLL_ALGO_AUTO, c, &best);
  ASSERT_GE(n, 2);  // mpi, then doc on each Bcast algorithm (binomial, chain)
  double best_cpr = c[1].seconds;
  for (int i = 2; i < n; ++i) best_cpr = std::min(best_cpr, c[i].seconds);
  // The regime: doc was predicted 0.85 x MPI when the model charged one small
  // allreduce per call; a compressed call makes two (the settings before, the
  // status after), and with both charged doc is predicted slower than MPI.
  EXPECT_GT(best_cpr, c[0].seconds);
  EXPECT_EQ(auto_mode(m, ZCOLL_COLL_BCAST, 4, 1 << 20, 3.56), ZCOLL_MODE_MPI);
  EXPECT_EQ(auto_mode(m, ZCOLL_COLL_SCATTER, 4, 1 << 20, 3.56), ZCOLL_MODE_MPI);
  EXPECT_EQ(auto_mode(m, ZCOLL_COLL_ALLGATHER, 4, 1 << 20, 3.56), ZCOLL_MODE_MPI);
  EXPECT_EQ(auto_mode(m, ZCOLL_COLL_BCAST, 4, size_t{64} << 20, 3.6), ZCOLL_MODE_DOC);
  EXPECT_EQ(auto_mode(m, ZCOLL_COLL_ALLGATHER, 4, size_t{64} << 20, 3.6), ZCOLL_MODE_DOC);
  EXPECT_EQ(auto_mode(m, ZCOLL_COLL_ALLREDUCE, 4, size_t{64} << 20, 3.3), ZCOLL_MODE_HOM);
}

// ---- the algorithm table --------------------------------------------------------------
// Every row predicts a time and an error bound for every mode at every size, its
// names parse back to it, and its collective's default (the size rule) exists.
TEST(AlgorithmTable, EveryRowPredictsACostAndABoundForEveryMode) {
  size_t n = 0;
  const Algorithm* algs = algorithms(&n);
  ASSERT_GT(n, 0u);
  const zcoll_model model = test_model();
  for (size_t i = 0; i < n; ++i) {
    const Algorithm& a = algs[i];
    SCOPED_TRACE(a.function);
    ASSERT_NE(a.run, nullptr);
    ASSERT_NE(a.model, nullptr);
    ASSERT_NE(a.cost, nullptr);
    ASSERT_NE(a.name, nullptr);
    ASSERT_NE(a.description, nullptr);
    EXPECT_EQ(find_algorithm(a.coll, a.algo), &a) << "the (collective, number) pair is not unique";
    EXPECT_EQ(find_algorithm_named(a.coll, a.name), &a);
    if (a.alias) {
      EXPECT_EQ(find_algorithm_named(a.coll, a.alias), &a);
    }
    for (int N : {1, 2, 3, 4, 5, 7, 8, 16, 100})
      for (size_t values : {size_t{1}, size_t{1000}, size_t{1} << 22})
        for (zcoll_mode mode : {ZCOLL_MODE_RAW, ZCOLL_MODE_CPR_P2P, ZCOLL_MODE_DOC, ZCOLL_MODE_HOM})
          for (zcoll_op op : {ZCOLL_OP_SUM, ZCOLL_OP_MAX, ZCOLL_OP_PROD}) {
            CostQuery q = query(a.coll, N, values, 4);
            q.sum = op == ZCOLL_OP_SUM;
            const double s = predict_seconds(model, q, mode, a.algo);
            EXPECT_TRUE(std::isfinite(s) && s >= 0)
                << zcoll_mode_name(mode) << " N=" << N << " n=" << values << ": " << s;
            ModelIn m = model_in(N, mode, op);
            m.eb = mode == ZCOLL_MODE_RAW ? 0 : 1e-3;
            const ErrState e = a.model(m);
            EXPECT_TRUE(std::isfinite(e.e) && e.e >= 0) << zcoll_mode_name(mode) << " N=" << N;
            if (mode == ZCOLL_MODE_RAW) {
              EXPECT_EQ(e.e, 0) << "raw is exact, N=" << N;
            } else if (N > 1) {
              EXPECT_GE(e.e, m.eb) << zcoll_mode_name(mode) << ": a compressed result has error";
            }
          }
  }
  for (zcoll_collective c :
       {ZCOLL_COLL_ALLREDUCE, ZCOLL_COLL_REDUCE_SCATTER, ZCOLL_COLL_ALLGATHER, ZCOLL_COLL_BCAST,
        ZCOLL_COLL_SCATTER, ZCOLL_COLL_REDUCE, ZCOLL_COLL_GATHER}) {
    const char* why = nullptr;
    const Algorithm* d = default_algorithm(query(c, 4, 1000, 1), &why);
    ASSERT_NE(d, nullptr) << zcoll_collective_name(c);
    EXPECT_EQ(d->coll, c);
    ASSERT_NE(why, nullptr);
    EXPECT_EQ(zcoll_algorithms_of(c, nullptr, 0) > 0, true);
  }
}

// The public names come from the table: every row's name round-trips through
// zcoll_algorithm_from_name and zcoll_algorithms_of lists exactly the rows.
TEST(AlgorithmTable, PublicNamesComeFromTheTable) {
  size_t n = 0;
  const Algorithm* algs = algorithms(&n);
  for (size_t i = 0; i < n; ++i) {
    zcoll_algorithm got = ZCOLL_ALGO_NONE;
    EXPECT_EQ(zcoll_algorithm_from_name(algs[i].coll, algs[i].name, &got), ZCOLL_SUCCESS);
    EXPECT_EQ(got, algs[i].algo);
    EXPECT_STREQ(zcoll_algorithm_name(algs[i].algo), algs[i].name);
    zcoll_algorithm list[16];
    const int k = zcoll_algorithms_of(algs[i].coll, list, 16);
    EXPECT_NE(std::find(list, list + std::min(k, 16), algs[i].algo), list + std::min(k, 16));
  }
  zcoll_algorithm got = ZCOLL_ALGO_NONE;
  EXPECT_EQ(zcoll_algorithm_from_name(ZCOLL_COLL_BCAST, "ring", &got), ZCOLL_ERR_INVALID_ARG);
  EXPECT_NE(std::string(zcoll_last_error()).find("binomial"), std::string::npos)
      << "the error lists the collective's algorithms: " << zcoll_last_error();
  EXPECT_EQ(zcoll_algorithm_from_name(ZCOLL_COLL_ALLREDUCE, "RD", &got), ZCOLL_SUCCESS);
  EXPECT_EQ(got, ZCOLL_ALGO_RECURSIVE_DOUBLING);
  EXPECT_EQ(zcoll_algorithm_from_name(ZCOLL_COLL_GATHER, "auto", &got), ZCOLL_SUCCESS);
  EXPECT_EQ(got, ZCOLL_ALGO_AUTO);
  zcoll_collective c = ZCOLL_COLL_NONE;
  EXPECT_EQ(zcoll_collective_from_name("Reduce_Scatter", &c), ZCOLL_SUCCESS);
  EXPECT_EQ(c, ZCOLL_COLL_REDUCE_SCATTER);
  EXPECT_EQ(zcoll_collective_from_name("alltoall", &c), ZCOLL_ERR_INVALID_ARG);
}

// The two-level model (docs/algorithms.md, "Node-aware algorithms"): the
// node-aware rows are AUTO's candidates only where ranks share nodes on more
// than one node, and win there when the node's link is the bottleneck.
TEST(CostModel, NodeAwareCandidatesOnlyWhereRanksShareNodes) {
  const Algorithm* na = find_algorithm_named(ZCOLL_COLL_ALLREDUCE, "node_aware");
  ASSERT_NE(na, nullptr);
  zcoll_model m = test_model();
  m.node_latency = 1e-6;
  m.node_bandwidth = 10e9;  // shared memory
  m.rail_bandwidth = m.bandwidth / 4;
  Candidate c[32];
  int best = 0;
  auto node_aware = [](const Candidate& k) {
    const Algorithm* a = find_algorithm(ZCOLL_COLL_ALLREDUCE, k.algo);
    return k.mode != ZCOLL_MODE_MPI && a && (a->restrictions & kNodeAware);
  };
  // no layout (a node per rank), and one node: no node-aware candidate
  CostQuery flat = query(ZCOLL_COLL_ALLREDUCE, 16, 1 << 24, 8);
  int n = auto_candidates(m, flat, ZCOLL_ALGO_AUTO, c, &best);
  for (int i = 0; i < n; ++i) EXPECT_FALSE(node_aware(c[i]));
  CostQuery one = flat;
  one.nodes = 1;
  one.min_local = one.max_local = 16;
  n = auto_candidates(m, one, ZCOLL_ALGO_AUTO, c, &best);
  for (int i = 0; i < n; ++i) EXPECT_FALSE(node_aware(c[i]));
  // forced, it is a candidate at any layout
  n = auto_candidates(m, flat, na->algo, c, &best);
  EXPECT_EQ(c[best].algo == na->algo || c[best].mode == ZCOLL_MODE_MPI, true);
  // 4 nodes x 4 ranks behind a 1 Gbit/s link: node_aware, compressed
  CostQuery tiered = flat;
  tiered.nodes = 4;
  tiered.min_local = tiered.max_local = 4;
  n = auto_candidates(m, tiered, ZCOLL_ALGO_AUTO, c, &best);
  EXPECT_EQ(c[best].algo, na->algo);
  EXPECT_NE(c[best].mode, ZCOLL_MODE_MPI);
  EXPECT_LT(predict_seconds(m, tiered, ZCOLL_MODE_HOM, na->algo),
            predict_seconds(m, tiered, ZCOLL_MODE_HOM, ZCOLL_ALGO_RING));
}

// MPI's Allreduce on ranks that share nodes: the better of flat Rabenseifner
// and MPICH's SMP composition, whose intra-node MPI_Reduce and MPI_Bcast take
// MPICH's long-message algorithms (reduce-scatter/gather, scatter/allgather),
// not binomial trees that move the whole buffer log2(P) times.
TEST(CostModel, MpiTwoLevelAllreduceUsesMpichLongMessageSteps) {
  zcoll_model m = test_model();
  m.node_latency = 1e-6;
  m.node_bandwidth = 2e9;
  CostQuery q = query(ZCOLL_COLL_ALLREDUCE, 32, 1 << 24, 8);
  q.nodes = 4;
  q.min_local = q.max_local = 8;
  const double D = 4.0 * (1 << 24), a = m.latency, b = 1 / m.bandwidth, g = 1 / m.reduce_bw;
  const double an = m.node_latency, bn = 1 / m.node_bandwidth;
  // SMP: reduce in the node (P = 8): recursive-halving reduce-scatter + binomial gather
  const double reduce = 6 * an + 2 * 7.0 / 8 * D * bn + 7.0 / 8 * D * g;
  // bcast in the node (P = 8, long): binomial scatter + ring allgather
  const double bcast = (3 + 7) * an + 2 * 7.0 / 8 * D * bn;
  // Rabenseifner among the 4 leaders
  const double leaders = 4 * a + 2 * 3.0 / 4 * D * b + 3.0 / 4 * D * g;
  // flat Rabenseifner over 32 ranks, distance 1 first: 2 (1 - 1/8) D inside the
  // node, then 2 (1 - 1/4) D / 8 per rank across the link, 8 ranks at once
  const double flat = 10 * a + 2 * 7.0 / 8 * D * bn + 2 * 3.0 / 4 * D / 8 * b * 8 +
                      31.0 / 32 * D * g;
  EXPECT_NEAR(predict_seconds(m, q, ZCOLL_MODE_MPI, ZCOLL_ALGO_AUTO),
              std::min(reduce + leaders + bcast, flat), 1e-9);
  // the same link volume as the leaders' Allreduce, half the shared-memory
  // traffic: MPICH's flat algorithm wins on power-of-two layouts
  EXPECT_LT(flat, reduce + leaders + bcast);
}

// MPI's pairwise Reduce_scatter and ring Allgather where ranks share nodes:
// the pairwise steps to other nodes put every rank of the node on the link at
// once; the ring crosses each link once and runs at its slower hop.
TEST(CostModel, MpiReduceScatterAndAllgatherSeeTheLayout) {
  zcoll_model m = test_model();
  m.node_latency = 1e-6;
  m.node_bandwidth = 2e9;
  const double a = m.latency, b = 1 / m.bandwidth, g = 1 / m.reduce_bw, bn = 1 / m.node_bandwidth;
  CostQuery q = query(ZCOLL_COLL_REDUCE_SCATTER, 32, 1 << 24, 8);
  const double D = 4.0 * (1 << 24);
  const double flat_rs = predict_seconds(m, q, ZCOLL_MODE_MPI, ZCOLL_ALGO_AUTO);
  EXPECT_NEAR(flat_rs, 31 * a + 31.0 / 32 * D * b + 31.0 / 32 * D * g, 1e-9);
  q.nodes = 4;
  q.min_local = q.max_local = 8;
  EXPECT_NEAR(predict_seconds(m, q, ZCOLL_MODE_MPI, ZCOLL_ALGO_AUTO),
              31 * a + 24.0 / 32 * D * b * 8 + 7.0 / 32 * D * bn + 31.0 / 32 * D * g, 1e-9);
  CostQuery ag = query(ZCOLL_COLL_ALLGATHER, 32, 1 << 24, 8);
  ag.nodes = 4;
  ag.min_local = ag.max_local = 8;
  m.node_bandwidth = m.bandwidth / 2;  // a slow node: its hops set the ring's pace
  EXPECT_NEAR(predict_seconds(m, ag, ZCOLL_MODE_MPI, ZCOLL_ALGO_AUTO),
              31 * a + 31.0 / 32 * D * 2 * b, 1e-9);
}

// ---- zcoll_predict_codec: the prediction with a codec ------------------------------

namespace {

// test_model with both codecs' rates: the fast codec at 3 / 6 GB/s (hom 8), the
// dense one at 0.5 / 0.8 GB/s, on a link of `bandwidth` bytes/s.
zcoll_model codec_test_model(double bandwidth) {
  zcoll_model m = test_model();
  m.bandwidth = bandwidth;
  m.compress_bw = 3e9;
  m.decompress_bw = 6e9;
  m.hom_bw = 8e9;
  m.dense_compress_bw = 0.5e9;
  m.dense_decompress_bw = 0.8e9;
  return m;
}

struct Predicted {
  zcoll_status st;
  double seconds = -1;
  zcoll_mode mode = ZCOLL_MODE_DEFAULT;
  zcoll_algorithm algo = ZCOLL_ALGO_AUTO;
  zcoll_codec codec = static_cast<zcoll_codec>(-1);
};

Predicted predict_codec(const zcoll_model& m, zcoll_collective coll, zcoll_mode mode, int codec,
                        double ratio, double ratio_dense, int nranks = 4,
                        size_t count = size_t{1} << 24) {
  Predicted p;
  p.st = zcoll_predict_codec(&m, coll, mode, ZCOLL_ALGO_AUTO, nranks, count, ZCOLL_FLOAT32, codec,
                             ratio, ratio_dense, &p.seconds, &p.mode, &p.algo, &p.codec);
  return p;
}

constexpr zcoll_collective kAllCollectives[] = {
    ZCOLL_COLL_ALLREDUCE, ZCOLL_COLL_REDUCE_SCATTER, ZCOLL_COLL_ALLGATHER, ZCOLL_COLL_BCAST,
    ZCOLL_COLL_SCATTER,   ZCOLL_COLL_REDUCE,         ZCOLL_COLL_GATHER};
constexpr zcoll_mode kAllModes[] = {ZCOLL_MODE_MPI, ZCOLL_MODE_RAW, ZCOLL_MODE_CPR_P2P,
                                    ZCOLL_MODE_DOC, ZCOLL_MODE_HOM, ZCOLL_MODE_AUTO};

}  // namespace

// An older caller: zcoll_predict is codec FAST, whatever the dense ratio, and a
// zcoll_model of 1.0's size (no dense rates) still predicts.
TEST(Predict, FastCodecIsWhatZcollPredictPredicts) {
  for (double bw : {12.5e6, 1.25e9, 100e9})
    for (zcoll_collective coll : kAllCollectives)
      for (zcoll_mode mode : kAllModes) {
        const zcoll_model m = codec_test_model(bw);
        double s = -1;
        zcoll_mode cm = ZCOLL_MODE_DEFAULT;
        zcoll_algorithm ca = ZCOLL_ALGO_AUTO;
        ASSERT_EQ(zcoll_predict(&m, coll, mode, ZCOLL_ALGO_AUTO, 4, size_t{1} << 24, ZCOLL_FLOAT32,
                                4, &s, &cm, &ca),
                  ZCOLL_SUCCESS)
            << zcoll_last_error();
        const Predicted p = predict_codec(m, coll, mode, ZCOLL_CODEC_FAST, 4, 9);
        ASSERT_EQ(p.st, ZCOLL_SUCCESS) << zcoll_last_error();
        EXPECT_EQ(p.seconds, s) << zcoll_collective_name(coll) << " " << zcoll_mode_name(mode);
        EXPECT_EQ(p.mode, cm);
        EXPECT_EQ(p.algo, ca);
        EXPECT_EQ(p.codec, ZCOLL_CODEC_FAST);
      }
  zcoll_model v1 = codec_test_model(12.5e6);
  v1.struct_size = offsetof(zcoll_model, node_latency);  // 1.0's zcoll_model
  double s = -1;
  EXPECT_EQ(zcoll_predict(&v1, ZCOLL_COLL_ALLREDUCE, ZCOLL_MODE_AUTO, ZCOLL_ALGO_AUTO, 4, 1 << 24,
                          ZCOLL_FLOAT32, 4, &s, nullptr, nullptr),
            ZCOLL_SUCCESS);
  EXPECT_GT(s, 0);
  // its dense rates are not read (beyond its size): dense is refused, auto is fast
  EXPECT_EQ(predict_codec(v1, ZCOLL_COLL_ALLREDUCE, ZCOLL_MODE_DOC, ZCOLL_CODEC_DENSE, 4, 9).st,
            ZCOLL_ERR_INVALID_ARG);
  const Predicted a =
      predict_codec(v1, ZCOLL_COLL_ALLREDUCE, ZCOLL_MODE_AUTO, ZCOLL_PREDICT_CODEC_AUTO, 4, 9);
  EXPECT_EQ(a.st, ZCOLL_SUCCESS);
  EXPECT_EQ(a.codec, ZCOLL_CODEC_FAST);
}

// Codec DENSE predicts with the dense rates at the dense ratio: the same as the
// fast codec's prediction on a model whose fast rates are the dense ones;
// hom runs as doc; without dense rates it is refused.
TEST(Predict, DenseCodecUsesTheDenseRates) {
  const zcoll_model m = codec_test_model(125e6);
  zcoll_model as_dense = m;
  as_dense.compress_bw = m.dense_compress_bw;
  as_dense.decompress_bw = m.dense_decompress_bw;
  for (zcoll_collective coll : kAllCollectives)
    for (zcoll_mode mode : {ZCOLL_MODE_CPR_P2P, ZCOLL_MODE_DOC}) {
      const Predicted d = predict_codec(m, coll, mode, ZCOLL_CODEC_DENSE, 4, 7);
      const Predicted f = predict_codec(as_dense, coll, mode, ZCOLL_CODEC_FAST, 7, 1);
      ASSERT_EQ(d.st, ZCOLL_SUCCESS) << zcoll_last_error();
      EXPECT_EQ(d.seconds, f.seconds)
          << zcoll_collective_name(coll) << " " << zcoll_mode_name(mode);
      EXPECT_EQ(d.codec, ZCOLL_CODEC_DENSE);
      EXPECT_NE(d.seconds, predict_codec(m, coll, mode, ZCOLL_CODEC_FAST, 7, 1).seconds)
          << "the dense rates are slower: a different time at the same ratio";
    }
  // hom: the library runs doc on dense streams
  const Predicted h =
      predict_codec(m, ZCOLL_COLL_ALLREDUCE, ZCOLL_MODE_HOM, ZCOLL_CODEC_DENSE, 4, 7);
  const Predicted d =
      predict_codec(m, ZCOLL_COLL_ALLREDUCE, ZCOLL_MODE_DOC, ZCOLL_CODEC_DENSE, 4, 7);
  EXPECT_EQ(h.mode, ZCOLL_MODE_DOC);
  EXPECT_EQ(h.seconds, d.seconds);
  // mode AUTO: the dense codec's doc rows or MPI, never hom
  const Predicted a =
      predict_codec(m, ZCOLL_COLL_ALLREDUCE, ZCOLL_MODE_AUTO, ZCOLL_CODEC_DENSE, 4, 7);
  ASSERT_EQ(a.st, ZCOLL_SUCCESS);
  EXPECT_EQ(a.mode, ZCOLL_MODE_DOC);
  EXPECT_EQ(a.codec, ZCOLL_CODEC_DENSE);
  // the dense time follows dense_compress_bw and not compress_bw
  zcoll_model slower = m;
  slower.dense_compress_bw /= 2;
  EXPECT_GT(
      predict_codec(slower, ZCOLL_COLL_ALLREDUCE, ZCOLL_MODE_DOC, ZCOLL_CODEC_DENSE, 4, 7).seconds,
      d.seconds);
  slower = m;
  slower.compress_bw /= 2;
  slower.decompress_bw /= 2;
  EXPECT_EQ(
      predict_codec(slower, ZCOLL_COLL_ALLREDUCE, ZCOLL_MODE_DOC, ZCOLL_CODEC_DENSE, 4, 7).seconds,
      d.seconds);
  zcoll_model none = m;
  none.dense_decompress_bw = 0;
  EXPECT_EQ(predict_codec(none, ZCOLL_COLL_ALLREDUCE, ZCOLL_MODE_DOC, ZCOLL_CODEC_DENSE, 4, 7).st,
            ZCOLL_ERR_INVALID_ARG);
}

// Codec AUTO chooses as the live ZCOLL_CODEC=auto does: mode AUTO takes the
// pick of auto_candidates_at (what auto_select.cc's evaluate runs) at the
// two ratios, an explicit doc or cpr_p2p the pick of pick_codec (what
// choose_codec runs); dense on a slow link, fast on a fast one, MPI on one
// faster than both; hom stays on the fast codec.
TEST(Predict, AutoCodecIsTheLiveChoice) {
  int dense_picks = 0, fast_picks = 0, mpi_picks = 0;
  for (double bw : {1e6, 12.5e6, 125e6, 1.25e9, 12.5e9, 100e9, 1e12})
    for (zcoll_collective coll : kAllCollectives)
      for (double rd : {2.0, 8.0, 16.0}) {
        const zcoll_model m = codec_test_model(bw);
        CostQuery q = query(coll, 4, 0, 4);
        q.total_values =
            (coll == ZCOLL_COLL_ALLREDUCE || coll == ZCOLL_COLL_BCAST || coll == ZCOLL_COLL_REDUCE)
                ? size_t{1} << 24
                : 4 * (size_t{1} << 24);
        q.seg_values = 4 * size_t{ZCOLL_DEFAULT_CHUNK_SIZE};
        q.sum = coll == ZCOLL_COLL_ALLREDUCE || coll == ZCOLL_COLL_REDUCE_SCATTER ||
                coll == ZCOLL_COLL_REDUCE;
        Candidate c[kMaxCandidates];
        int best = 0;
        ASSERT_GT(auto_candidates_at(m, q, rd, ZCOLL_ALGO_AUTO, c, &best), 0);
        const Predicted a =
            predict_codec(m, coll, ZCOLL_MODE_AUTO, ZCOLL_PREDICT_CODEC_AUTO, 4, rd);
        ASSERT_EQ(a.st, ZCOLL_SUCCESS) << zcoll_last_error();
        EXPECT_EQ(a.mode, c[best].mode) << bw << " " << zcoll_collective_name(coll) << " " << rd;
        EXPECT_EQ(a.seconds, c[best].seconds);
        if (c[best].mode != ZCOLL_MODE_MPI) {
          EXPECT_EQ(a.algo, c[best].algo);
          EXPECT_EQ(a.codec, c[best].codec);
        }
        dense_picks += a.codec == ZCOLL_CODEC_DENSE;
        mpi_picks += a.mode == ZCOLL_MODE_MPI;
        fast_picks += a.mode != ZCOLL_MODE_MPI && a.codec == ZCOLL_CODEC_FAST;
        // data movement: no hom candidate, as the library runs it
        if (!q.sum) {
          EXPECT_NE(a.mode, ZCOLL_MODE_HOM);
        }
        for (zcoll_mode mode : {ZCOLL_MODE_DOC, ZCOLL_MODE_CPR_P2P}) {
          const CodecPick p = pick_codec(m, q, rd, mode, default_algorithm(q, nullptr)->algo);
          const Predicted e = predict_codec(m, coll, mode, ZCOLL_PREDICT_CODEC_AUTO, 4, rd);
          EXPECT_EQ(e.codec, p.codec) << bw << " " << zcoll_collective_name(coll);
          EXPECT_EQ(e.seconds, p.seconds);
          EXPECT_EQ(e.seconds, predict_codec(m, coll, mode, e.codec, 4, rd).seconds)
              << "the chosen codec's time";
        }
        const Predicted h = predict_codec(m, coll, ZCOLL_MODE_HOM, ZCOLL_PREDICT_CODEC_AUTO, 4, rd);
        EXPECT_EQ(h.codec, ZCOLL_CODEC_FAST);
      }
  EXPECT_GT(dense_picks, 0);
  EXPECT_GT(fast_picks, 0);
  EXPECT_GT(mpi_picks, 0);
  // the three regimes at one point: Allreduce of 64 MiB, dense at twice the ratio
  auto pick = [](double bw) {
    return predict_codec(codec_test_model(bw), ZCOLL_COLL_ALLREDUCE, ZCOLL_MODE_AUTO,
                         ZCOLL_PREDICT_CODEC_AUTO, 4, 8);
  };
  EXPECT_EQ(pick(12.5e6).codec, ZCOLL_CODEC_DENSE);
  EXPECT_EQ(pick(12.5e6).mode, ZCOLL_MODE_DOC);
  EXPECT_EQ(pick(1.25e9).codec, ZCOLL_CODEC_FAST);
  EXPECT_NE(pick(1.25e9).mode, ZCOLL_MODE_MPI);
  EXPECT_EQ(pick(1e12).mode, ZCOLL_MODE_MPI);
  EXPECT_EQ(pick(1e12).codec, ZCOLL_CODEC_FAST);
  // no dense estimate: the fast codec, as a call without one
  EXPECT_EQ(predict_codec(codec_test_model(12.5e6), ZCOLL_COLL_ALLREDUCE, ZCOLL_MODE_AUTO,
                          ZCOLL_PREDICT_CODEC_AUTO, 4, 0)
                .codec,
            ZCOLL_CODEC_FAST);
}

TEST(Predict, BadCodecIsInvalidArg) {
  const zcoll_model m = codec_test_model(125e6);
  for (int bad : {-1, 2, 3, 0x101, 0x2 | 0x100})
    for (zcoll_mode mode : kAllModes) {
      double s = 123;
      zcoll_mode cm = ZCOLL_MODE_RAW;
      EXPECT_EQ(zcoll_predict_codec(&m, ZCOLL_COLL_ALLREDUCE, mode, ZCOLL_ALGO_AUTO, 4, 1 << 20,
                                    ZCOLL_FLOAT32, bad, 4, 8, &s, &cm, nullptr, nullptr),
                ZCOLL_ERR_INVALID_ARG)
          << bad;
      EXPECT_NE(std::string(zcoll_last_error()).find("codec"), std::string::npos);
      EXPECT_EQ(s, 123) << "nothing written";
      EXPECT_EQ(cm, ZCOLL_MODE_RAW);
    }
}
