// hom_special_test.cc — NaN and +-Inf (raw chunks) combined with quantized
// chunks: the sum follows IEEE semantics (NaN stays NaN, Inf + finite = Inf,
// Inf - Inf = NaN), the raw chunks are counted, the other chunks keep the
// homomorphic path; signed zeros in raw chunks under negation.
#include "hom_util.h"

namespace {

using namespace ht;

class HomSpecial : public testing::TestWithParam<Config> {};

template <typename T>
void nan_inf(int threads) {
  const T inf = std::numeric_limits<T>::infinity(), nan = std::numeric_limits<T>::quiet_NaN();
  const size_t n = 6 * 1024;
  std::vector<T> xa = make_data<T>(Kind::kSmooth, n, 21), xb = make_data<T>(Kind::kSmooth, n, 22);
  // at position i, a and b get these values (0 = keep the smooth value)
  struct Special {
    size_t i;
    T a, b;
  };
  const Special sp[] = {
      {5, nan, T(0)},          // chunk 0: NaN + x = NaN
      {1024 + 7, inf, T(0)},   // chunk 1: Inf + x = Inf, Inf - x = Inf
      {2048 + 9, -inf, inf},   // chunk 2: -Inf + Inf = NaN, -Inf - Inf = -Inf
      {4096 + 1, T(0), -inf},  // chunk 4: x + -Inf = -Inf, x - -Inf = Inf
      {5120 + 2, inf, inf},    // chunk 5: Inf + Inf = Inf, Inf - Inf = NaN
      {5120 + 900, nan, nan},  // chunk 5: NaN + NaN = NaN
  };
  for (const Special& s : sp) {
    if (s.a != T(0) || std::isnan(s.a)) xa[s.i] = s.a;
    if (s.b != T(0) || std::isnan(s.b)) xb[s.i] = s.b;
  }
  // chunk 3 stays finite in both: the homomorphic path
  Bytes za = compress(xa, 1e-3, 1024, threads), zb = compress(xb, 1e-3, 1024, threads);
  ASSERT_EQ(inspect(za).raw_chunks, 4u);  // chunks 0, 1, 2, 5
  ASSERT_EQ(inspect(zb).raw_chunks, 3u);  // chunks 2, 4, 5
  for (Op op : {Op::kAdd, Op::kSub}) {
    const std::string w = std::string("NaN/Inf ") + (op == Op::kAdd ? "add" : "sub");
    zcoll_hom_stats st = ZCOLL_HOM_STATS_INITIALIZER;
    Bytes out = hom(op, za, zb, threads, &st);
    ASSERT_FALSE(out.empty()) << w;
    check_hom_model<T>(za, zb, out, op, &st, w);
    EXPECT_EQ(st.raw_chunks, 5u) << w;
    EXPECT_EQ(st.widened_chunks, 0u) << w;
    EXPECT_EQ(st.pipeline[0] + st.pipeline[1] + st.pipeline[2] + st.pipeline[3], 32u) << w;
    EXPECT_EQ(inspect(out).raw_chunks, 5u) << w;
    const std::vector<T> y = decompress<T>(out, threads);
    const bool add = op == Op::kAdd;
    EXPECT_TRUE(std::isnan(y[5])) << w;
    EXPECT_EQ(y[1024 + 7], inf) << w;
    if (add) {
      EXPECT_TRUE(std::isnan(y[2048 + 9])) << w << ": -Inf + Inf";
      EXPECT_EQ(y[5120 + 2], inf) << w << ": Inf + Inf";
    } else {
      EXPECT_EQ(y[2048 + 9], -inf) << w << ": -Inf - Inf";
      EXPECT_TRUE(std::isnan(y[5120 + 2])) << w << ": Inf - Inf";
    }
    EXPECT_EQ(y[4096 + 1], add ? -inf : inf) << w;
    EXPECT_TRUE(std::isnan(y[5120 + 900])) << w;
    // every other value (the raw chunks' finite values included) within the bound
    EXPECT_EQ(
        check_against_exact<T>({&xa, &xb}, {1, add ? 1 : -1}, y, 1.0, inspect(out).error_bound, w),
        0u);
  }
  // a chain: the specials persist through accumulation
  Bytes acc = za;
  for (int k = 0; k < 5; ++k) accumulate(acc, zb, threads);
  const std::vector<T> y = decompress<T>(acc);
  EXPECT_TRUE(std::isnan(y[5]));
  EXPECT_EQ(y[1024 + 7], inf);
  EXPECT_TRUE(std::isnan(y[2048 + 9]));
  EXPECT_EQ(y[4096 + 1], -inf);
  EXPECT_EQ(y[5120 + 2], inf);
  EXPECT_EQ(inspect(acc).terms, 6u);
}
TEST_P(HomSpecial, NanInfFollowIeeeAndCountRawChunks) { HT_DISPATCH(GetParam(), nan_inf); }

// Raw chunks from values too large to quantize (no NaN): finite sums exact up to
// float rounding; Inf from overflow of the float sum itself.
template <typename T>
void huge_values(int threads) {
  const size_t n = 2 * 1024;
  std::vector<T> xa = make_data<T>(Kind::kSmooth, n, 23), xb = make_data<T>(Kind::kSmooth, n, 24);
  const T big = std::numeric_limits<T>::max() / 2 * T(1.5);  // 0.75 * max
  xa[10] = big;
  xb[10] = big;  // overflows to +Inf in T
  xa[20] = static_cast<T>(1e20);
  Bytes za = compress(xa, 1e-3, 1024, threads), zb = compress(xb, 1e-3, 1024, threads);
  zcoll_hom_stats st = ZCOLL_HOM_STATS_INITIALIZER;
  Bytes out = hom_add(za, zb, threads, &st);
  check_hom_model<T>(za, zb, out, Op::kAdd, &st, "huge");
  EXPECT_EQ(st.raw_chunks, 1u);
  const std::vector<T> y = decompress<T>(out);
  EXPECT_EQ(y[10], std::numeric_limits<T>::infinity()) << "0.75 max + 0.75 max in T";
  EXPECT_EQ(y[20], static_cast<T>(static_cast<T>(1e20) + decompress<T>(zb)[20]));
}
TEST_P(HomSpecial, HugeValuesInRawChunks) { HT_DISPATCH(GetParam(), huge_values); }

INSTANTIATE_TEST_SUITE_P(Configs, HomSpecial, testing::ValuesIn(all_configs()), config_name);

// zcoll_hom_negate of a raw chunk holding +0.0 and -0.0: out = -in gives -0.0 and
// +0.0, and negating twice gives the original values bit for bit.
template <typename T>
void negate_signed_zeros() {
  std::vector<T> x = make_data<T>(Kind::kSmooth, 1024, 25);
  x[0] = static_cast<T>(1e30);  // the chunk escapes: raw, values stored exactly
  x[1] = T(0);
  x[2] = -T(0);
  Bytes z = compress(x, 1e-3, 1024);
  ASSERT_EQ(inspect(z).raw_chunks, 1u);
  Bytes n1 = negate(z, 1);
  Bytes n2 = negate(n1, 1);
  const std::vector<T> y1 = decompress<T>(n1), y2 = decompress<T>(n2);
  EXPECT_TRUE(same_bits(y1[1], -T(0)))
      << "-(+0.0) gave " << (std::signbit(y1[1]) ? "-0.0" : "+0.0");
  EXPECT_TRUE(same_bits(y1[2], T(0))) << "-(-0.0) gave " << (std::signbit(y1[2]) ? "-0.0" : "+0.0");
  EXPECT_TRUE(same_bits(y2[2], -T(0)))
      << "negate twice of -0.0 gave " << (std::signbit(y2[2]) ? "-0.0" : "+0.0");
  for (size_t i = 3; i < x.size(); ++i) ASSERT_TRUE(same_bits(y2[i], x[i])) << i;
}
TEST(HomNegate, RawChunkSignedZerosF32) { negate_signed_zeros<float>(); }
TEST(HomNegate, RawChunkSignedZerosF64) { negate_signed_zeros<double>(); }

// NaN and Inf in raw chunks under negation: -Inf, NaN stays NaN; twice restores
// the values (a NaN becomes the canonical one: see ComputedNansAreCanonical).
template <typename T>
void negate_specials(int threads) {
  std::vector<T> x = make_data<T>(Kind::kSmooth, 3 * 1024, 26);
  x[3] = std::numeric_limits<T>::infinity();
  x[1024 + 4] = -std::numeric_limits<T>::infinity();
  x[2048 + 5] = std::numeric_limits<T>::quiet_NaN();
  Bytes z = compress(x, 1e-3, 1024, threads);
  ASSERT_EQ(inspect(z).raw_chunks, 3u);
  Bytes n1 = negate(z, threads);
  const std::vector<T> y1 = decompress<T>(n1), xz = decompress<T>(z);
  EXPECT_EQ(y1[3], -std::numeric_limits<T>::infinity());
  EXPECT_EQ(y1[1024 + 4], std::numeric_limits<T>::infinity());
  EXPECT_TRUE(std::isnan(y1[2048 + 5]));
  for (size_t i = 0; i < x.size(); ++i) {
    if (std::isfinite(x[i])) {
      ASSERT_EQ(y1[i], -xz[i]) << i;
    }
  }
  const std::vector<T> y2 = decompress<T>(negate(n1, threads));
  for (size_t i = 0; i < x.size(); ++i) ASSERT_TRUE(same_bits(y2[i], xz[i], false)) << i;
}
TEST(HomNegate, SpecialsF32) { negate_specials<float>(1); }
TEST(HomNegate, SpecialsF64) { negate_specials<double>(2); }

// Every NaN an operation computes is the canonical quiet NaN (docs/format.md §5.1),
// whatever the inputs' NaNs and whichever operand the processor would return: the
// GPU codec writes the same bytes (an H200 returned 0x7FFFFFFF where x86 keeps an
// operand's NaN, 2026-11-28). Inputs: a negative NaN with a payload, Inf - Inf
// (x86: the negative default NaN), NaN + NaN; hom add/sub/negate and DOC
// SUM/PROD/MAX/MIN, at one and two threads. A NaN only copied (decompress of the
// input) keeps its bits.
template <typename T>
void computed_nans_are_canonical(int threads) {
  using U = typename std::conditional<sizeof(T) == 4, uint32_t, uint64_t>::type;
  const U payload_nan = static_cast<U>(sizeof(T) == 4 ? 0xFFC12345ull : 0xFFF8000012345678ull);
  const U canonical = static_cast<U>(sizeof(T) == 4 ? 0x7FC00000ull : 0x7FF8000000000000ull);
  T pnan, inf = std::numeric_limits<T>::infinity();
  std::memcpy(&pnan, &payload_nan, sizeof(T));
  const size_t n = 3 * 1024;
  std::vector<T> xa = make_data<T>(Kind::kSmooth, n, 41), xb = make_data<T>(Kind::kSmooth, n, 42);
  xa[10] = pnan;       // NaN(payload) op finite
  xa[1024 + 3] = inf;  // Inf - Inf (sub), Inf + Inf (add)
  xb[1024 + 3] = inf;
  xa[2048 + 5] = pnan;  // NaN op NaN
  xb[2048 + 5] = pnan;
  const Bytes za = compress(xa, 1e-3, 1024, threads), zb = compress(xb, 1e-3, 1024, threads);
  EXPECT_EQ(bits_of(decompress<T>(za, threads)[10]), payload_nan) << "a copied NaN keeps its bits";
  auto expect_canonical = [&](const Bytes& z, std::initializer_list<size_t> at, const char* what) {
    ASSERT_FALSE(z.empty()) << what;
    const std::vector<T> y = decompress<T>(z, threads);
    for (size_t i : at) {
      EXPECT_TRUE(std::isnan(y[i])) << what << " at " << i;
      EXPECT_EQ(bits_of(y[i]), canonical) << what << " at " << i;
    }
  };
  expect_canonical(hom_add(za, zb, threads), {10, 2048 + 5}, "hom add");
  expect_canonical(hom_sub(za, zb, threads), {10, 1024 + 3, 2048 + 5}, "hom sub");
  expect_canonical(negate(za, threads), {10, 2048 + 5}, "hom negate");
  for (zcoll_op op : {ZCOLL_OP_SUM, ZCOLL_OP_PROD, ZCOLL_OP_MAX, ZCOLL_OP_MIN})
    expect_canonical(doc(za, zb, op, threads), {10, 2048 + 5},
                     ("doc op " + std::to_string(static_cast<int>(op))).c_str());
}
TEST(HomSpecialNan, ComputedNansAreCanonicalF32) { computed_nans_are_canonical<float>(1); }
TEST(HomSpecialNan, ComputedNansAreCanonicalF64) { computed_nans_are_canonical<double>(2); }

}  // namespace
