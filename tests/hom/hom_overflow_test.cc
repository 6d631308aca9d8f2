// hom_overflow_test.cc — summed codes near the int32 limit never wrap.
//
// The compressor emits |code| <= 2^30 - 1; a homomorphic sum may hold codes up to
// 2^31 - 1, with 33-plane blocks (deltas up to 2^32 - 2, decoded modulo 2^32).
// When qmax_a + qmax_b > 2^31 - 1 the chunk must go through floats (a raw chunk,
// counted in stats.widened_chunks). Streams with codes near the limit come from
// the compressor for float64 (x = +-(2^30 - 2) * quantum); for float32 the
// compressor cannot produce them (float rounding of such values exceeds eb), so
// valid streams are crafted at the code level (hom_util.h craft_stream).
#include "hom_util.h"

namespace {

using namespace ht;

class HomOverflow : public testing::TestWithParam<Config> {};

constexpr int64_t kNear = (int64_t{1} << 30) - 2;

// float64 data at +-(2^30 - 2) * quantum with random signs, summed 64 times.
void near_limit_chain_f64(int threads) {
  const double eb = 1.0;
  const double q = quantum_for<double>(eb);
  ASSERT_EQ(q, 2.0 * (1.0 - 0x1p-20));
  const size_t n = 3 * 1024;  // three full chunks: every chunk quantized
  Rng r(77);
  std::vector<double> x(n);
  std::vector<int> s(n);
  for (size_t i = 0; i < n; ++i) {
    s[i] = r.coin() ? 1 : -1;
    x[i] = s[i] * static_cast<double>(kNear) * q;  // exact in double
  }
  Bytes z = compress(x, eb, 1024, threads);
  ASSERT_EQ(inspect(z).raw_chunks, 0u);
  StreamDump dz = dump(z);
  for (const ChunkDump& c : dz.chunks) ASSERT_EQ(c.qmax, static_cast<uint32_t>(kNear));
  ASSERT_EQ(decompress<double>(z), x);

  Bytes acc = z;
  std::vector<const std::vector<double>*> terms{&x};
  const int K = 64;
  for (int k = 2; k <= K; ++k) {
    const std::string w = "near-limit f64 k=" + std::to_string(k);
    zcoll_hom_stats st = ZCOLL_HOM_STATS_INITIALIZER;
    Bytes prev = acc;
    if (k % 2)
      accumulate(acc, z, threads, &st);
    else
      acc = hom_add(prev, z, threads, &st);
    ASSERT_FALSE(acc.empty()) << w;
    check_hom_model<double>(prev, z, acc, Op::kAdd, &st, w);
    terms.push_back(&x);
    if (k == 2) {  // 2 * (2^30 - 2) <= 2^31 - 1: stays quantized, 33-plane blocks
      EXPECT_EQ(st.widened_chunks, 0u) << w;
      EXPECT_EQ(st.raw_chunks, 0u) << w;
      EXPECT_EQ(st.pipeline[3], 3u * 32u) << w;
      StreamDump d = dump(acc);
      int w33 = 0;
      for (const ChunkDump& c : d.chunks) {
        EXPECT_FALSE(c.raw) << w;
        EXPECT_EQ(c.qmax, static_cast<uint32_t>(2 * kNear)) << w;
        for (uint8_t L : c.lens) w33 += L == 33;
      }
      EXPECT_GT(w33, 0) << w << ": deltas of +-(2^32 - 8) need 33 planes";
      const std::vector<double> y = decompress<double>(acc, threads);
      for (size_t i = 0; i < n; ++i) ASSERT_EQ(y[i], 2 * x[i]) << w << " value " << i;
    } else if (k == 3) {  // 3 * (2^30 - 2) > 2^31 - 1: every chunk widened
      EXPECT_EQ(st.widened_chunks, 3u) << w;
      EXPECT_EQ(st.raw_chunks, 0u) << w;
    } else {  // the accumulator is raw from now on
      EXPECT_EQ(st.widened_chunks, 0u) << w;
      EXPECT_EQ(st.raw_chunks, 3u) << w;
    }
    const zcoll_info info = inspect(acc);
    EXPECT_EQ(info.terms, static_cast<uint32_t>(k)) << w;
    EXPECT_EQ(info.error_bound, k * eb) << w;
    const std::vector<double> y = decompress<double>(acc, threads);
    // never wrapped: the sign and the magnitude k * (2^30 - 2) * quantum hold
    size_t bad = 0;
    for (size_t i = 0; i < n; ++i)
      if ((y[i] > 0) != (s[i] > 0) && ++bad <= 3)
        ADD_FAILURE() << w << ": value " << i << " wrapped: " << y[i] << " for " << k * x[i];
    EXPECT_EQ(bad, 0u);
    std::vector<int> sign(terms.size(), 1);
    EXPECT_EQ(check_against_exact<double>(terms, sign, y, 1.0, info.error_bound, w), 0u);
  }
  // subtraction near the limit: x - (-x) = 2x stays quantized, x - x = 0
  std::vector<double> mx(n);
  for (size_t i = 0; i < n; ++i) mx[i] = -x[i];
  Bytes zm = compress(mx, eb, 1024, threads);
  zcoll_hom_stats st = ZCOLL_HOM_STATS_INITIALIZER;
  Bytes d2 = hom_sub(z, zm, threads, &st);
  check_hom_model<double>(z, zm, d2, Op::kSub, &st, "x - (-x)");
  EXPECT_EQ(st.widened_chunks, 0u);
  const std::vector<double> y2 = decompress<double>(d2);
  for (size_t i = 0; i < n; ++i) ASSERT_EQ(y2[i], 2 * x[i]);
  Bytes d0 = hom_sub(z, z, threads, &st);
  for (double v : decompress<double>(d0)) ASSERT_EQ(v, 0.0);
}
TEST(HomOverflow, NearLimitCodesChainF64T1) { near_limit_chain_f64(1); }
TEST(HomOverflow, NearLimitCodesChainF64T2) { near_limit_chain_f64(2); }

// Crafted streams: the guard's boundary qmax_a + qmax_b == 2^31 - 1 (allowed,
// codes reach +-(2^31 - 1) exactly) and == 2^31 (widened). The chunks of a
// (which is a sum of two) and b, cs codes each:
template <typename T>
void boundary_chunks(uint32_t cs, std::vector<CraftChunk<T>>* a, std::vector<CraftChunk<T>>* b) {
  const int64_t A = (int64_t{1} << 30) - 1, B = int64_t{1} << 30;
  auto smooth = [&](int64_t base, size_t c) {
    std::vector<int64_t> v(cs);
    for (size_t i = 0; i < cs; ++i) v[i] = base + static_cast<int64_t>((i + c) % 7) - 3;
    return v;
  };
  std::vector<CraftChunk<T>>&ca = *a, &cb = *b;
  ca.assign(4, {});
  cb.assign(4, {});
  // chunk 0: extreme codes in the first two blocks (alternating signs, 33-plane
  // sums), small smooth codes elsewhere
  ca[0].codes = smooth(0, 0);
  cb[0].codes = smooth(0, 1);
  for (size_t i = 0; i < 64; ++i) {
    const bool pos = (i / 3) % 2 == 0;
    ca[0].codes[i] = pos ? A : -A;
    cb[0].codes[i] = pos ? B : -B;
  }
  // chunk 1: small codes but declared qmax 2^30 each: 2^31 > limit -> widened
  ca[1].codes = smooth(10, 1);
  ca[1].qmax = static_cast<uint32_t>(B);
  cb[1].codes = smooth(-10, 2);
  cb[1].qmax = static_cast<uint32_t>(B);
  // chunk 2: a at the limit itself (a sum stream), b all zero: allowed
  ca[2].codes = smooth(kCodeLimit - 3, 2);
  cb[2].codes.assign(cs, 0);
  // chunk 3: a at the limit, b qmax 1 -> widened
  ca[3].codes = smooth(-(kCodeLimit - 3), 3);
  cb[3].codes.assign(cs, 0);
  cb[3].codes[100] = 1;
}

// a op b of the boundary streams (quantum q): chunks 1 and 3 widened, the
// extreme codes of chunk 0 exact, every value the exact combination.
template <typename T>
void boundary_op(Op op, const Bytes& za, const Bytes& zb, double q, int threads) {
  const std::string w = std::string("boundary ") + (op == Op::kAdd ? "add" : "sub");
  zcoll_hom_stats st = ZCOLL_HOM_STATS_INITIALIZER;
  Bytes out = hom(op, za, zb, threads, &st);
  ASSERT_FALSE(out.empty()) << w;
  check_hom_model<T>(za, zb, out, op, &st, w);
  EXPECT_EQ(st.widened_chunks, 2u) << w;
  EXPECT_EQ(st.raw_chunks, 0u) << w;
  StreamDump d = dump(out);
  ASSERT_EQ(d.chunks.size(), 4u);
  EXPECT_FALSE(d.chunks[0].raw) << w;
  EXPECT_TRUE(d.chunks[1].raw) << w;
  EXPECT_FALSE(d.chunks[2].raw) << w;
  EXPECT_TRUE(d.chunks[3].raw) << w;
  EXPECT_EQ(int64_t{d.chunks[0].qmax}, kCodeLimit) << w;
  EXPECT_EQ(int64_t{d.chunks[2].qmax}, kCodeLimit) << w;
  const std::vector<T> y = decompress<T>(out, threads);
  if (op == Op::kAdd) {  // the extreme codes of chunk 0: +-(2^31 - 1) exactly
    bool has33 = false;
    for (uint8_t L : d.chunks[0].lens) has33 |= L == 33;
    EXPECT_TRUE(has33) << w;
    for (size_t i = 0; i < 64; ++i) {
      const bool pos = (i / 3) % 2 == 0;
      const T want = static_cast<T>(static_cast<double>(pos ? kCodeLimit : -kCodeLimit) * q);
      ASSERT_TRUE(same_bits(y[i], want)) << w << " value " << i << ": " << y[i];
    }
  }
  // every value: the exact combination of the represented inputs (+ rounding)
  const std::vector<T> xa = decompress<T>(za), xb = decompress<T>(zb);
  EXPECT_EQ(check_against_exact<T>({&xa, &xb}, {1, op == Op::kAdd ? 1 : -1}, y, 1.0, 0.0, w), 0u);
}

template <typename T>
void boundary(int threads) {
  const uint32_t cs = 1024;
  const size_t n = 4 * cs;
  const double q = 0.5;  // any quantum: the streams are crafted
  std::vector<CraftChunk<T>> ca, cb;
  boundary_chunks<T>(cs, &ca, &cb);
  Bytes za = craft_stream<T>(n, cs, q, q, 1, 2, ca);
  Bytes zb = craft_stream<T>(n, cs, q, q, 1, 1, cb);
  ASSERT_EQ(inspect(za).raw_chunks, 0u);
  ASSERT_EQ(inspect(zb).raw_chunks, 0u);
  check_invariants(dump(za), "crafted a");
  check_invariants(dump(zb), "crafted b");
  for (Op op : {Op::kAdd, Op::kSub})
    ASSERT_NO_FATAL_FAILURE(boundary_op<T>(op, za, zb, q, threads));
  // one more term on the sum at the limit: widened, values still right
  Bytes s = hom_add(za, zb, threads);
  std::vector<CraftChunk<T>> cc(4);
  for (auto& c : cc) {
    c.codes.assign(cs, 1);
  }
  Bytes zc = craft_stream<T>(n, cs, q, q, 1, 1, cc);
  zcoll_hom_stats st = ZCOLL_HOM_STATS_INITIALIZER;
  Bytes s3 = hom_add(s, zc, threads, &st);
  check_hom_model<T>(s, zc, s3, Op::kAdd, &st, "limit + 1");
  EXPECT_EQ(st.widened_chunks, 2u);  // chunks 0 and 2 (1 and 3 are raw already)
  EXPECT_EQ(st.raw_chunks, 2u);
}
template <typename T>
void boundary_run(int threads) {
  boundary<T>(threads);
}
TEST_P(HomOverflow, GuardBoundaryExactly) { HT_DISPATCH(GetParam(), boundary_run); }

// Many accumulations of streams with large codes (|code| up to 2^27, mixed signs
// so that partial sums go up and down): quantized while the declared qmax sum
// fits (15 terms), widened at the 16th, raw after; the values are the exact sum
// of the represented inputs (only float rounding) at every step.
template <typename T>
void many_accumulations(int threads) {
  const uint32_t cs = 1024;
  const size_t n = 3 * cs + 200;  // a short last chunk
  const double q = 1.0 / 1024;
  const int64_t Q = int64_t{1} << 27;
  const int K = 40;
  std::vector<Bytes> z(K);
  std::vector<std::vector<T>> xr(K);
  for (int k = 0; k < K; ++k) {
    const int64_t sign = k % 3 == 2 ? -1 : 1;
    std::vector<CraftChunk<T>> ch(4);
    for (size_t c = 0; c < 4; ++c) {
      const size_t len = std::min<size_t>(cs, n - c * cs);
      ch[c].codes.resize(len);
      for (size_t i = 0; i < len; ++i)
        ch[c].codes[i] = sign * (Q - static_cast<int64_t>((i * (k + 3) + c) % 97));
      ch[c].qmax = static_cast<uint32_t>(Q);  // declared: exactly 2^27
    }
    z[k] = craft_stream<T>(n, cs, q, q, 1, 1, ch);
    xr[k] = decompress<T>(z[k]);
  }
  Bytes acc = z[0];
  std::vector<const std::vector<T>*> terms{&xr[0]};
  for (int k = 2; k <= K; ++k) {
    const std::string w = "many accumulations k=" + std::to_string(k);
    zcoll_hom_stats st = ZCOLL_HOM_STATS_INITIALIZER;
    Bytes prev = acc;
    accumulate(acc, z[k - 1], threads, &st);
    check_hom_model<T>(prev, z[k - 1], acc, Op::kAdd, &st, w);
    terms.push_back(&xr[k - 1]);
    if (k <= 15) {
      EXPECT_EQ(st.widened_chunks + st.raw_chunks, 0u) << w;
    } else if (k == 16) {
      EXPECT_EQ(st.widened_chunks, 4u) << w;
      EXPECT_EQ(st.raw_chunks, 0u) << w;
    } else {
      EXPECT_EQ(st.widened_chunks, 0u) << w;
      EXPECT_EQ(st.raw_chunks, 4u) << w;
    }
    EXPECT_EQ(inspect(acc).terms, static_cast<uint32_t>(k)) << w;
    const std::vector<T> y = decompress<T>(acc, threads);
    std::vector<int> sign(terms.size(), 1);
    EXPECT_EQ(check_against_exact<T>(terms, sign, y, 1.0, 0.0, w), 0u);
  }
}
TEST_P(HomOverflow, ManyAccumulationsWidenOnceNeverWrap) {
  HT_DISPATCH(GetParam(), many_accumulations);
}

INSTANTIATE_TEST_SUITE_P(Configs, HomOverflow, testing::ValuesIn(all_configs()), config_name);

}  // namespace
