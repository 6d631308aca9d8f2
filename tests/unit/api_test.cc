// api_test.cc — the 1.0 API rules: the runtime version matches the headers, and
// the struct_size rule of the extensible structs (zcoll.h, "Extensible structs";
// src/core/struct_io.h), through the helper and through the public calls.
#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "core/struct_io.h"  // internal: the one helper every struct goes through
#include "test_util.h"
#include "zcoll.h"
#include "zcoll_version.h"

namespace {

TEST(Version, RuntimeMatchesHeader) {
  int v = -1;
  ASSERT_EQ(zcoll_get_version(&v), ZCOLL_SUCCESS);
  EXPECT_EQ(v, ZCOLL_VERSION_CODE);
  EXPECT_EQ(v, ZCOLL_VERSION_MAJOR * 10000 + ZCOLL_VERSION_MINOR * 100 + ZCOLL_VERSION_PATCH);
  EXPECT_GE(v, ZCOLL_VERSION(1, 0, 0));
  EXPECT_STREQ(zcoll_version_string(), ZCOLL_VERSION_STRING);
  const std::string s = std::to_string(ZCOLL_VERSION_MAJOR) + "." +
                        std::to_string(ZCOLL_VERSION_MINOR) + "." +
                        std::to_string(ZCOLL_VERSION_PATCH);
  EXPECT_EQ(s, zcoll_version_string());
  EXPECT_EQ(zcoll_get_version(nullptr), ZCOLL_ERR_INVALID_ARG);
  EXPECT_STRNE(zcoll_last_error(), "");
}

// ---- the helper, on a struct with two versions ------------------------------
struct V2 {
  size_t struct_size;
  int a;     // version 1 ends here
  double b;  // added in version 2 (default 7)
};
constexpr size_t kV1 = ZCOLL_STRUCT_V1_SIZE(V2, a);

TEST(StructRule, InputFromAnOlderCallerTakesDefaults) {
  unsigned char old_struct[kV1];
  const size_t sz = kV1;
  const int a = 42;
  std::memcpy(old_struct, &sz, sizeof sz);
  std::memcpy(old_struct + offsetof(V2, a), &a, sizeof a);
  V2 got = {sizeof(V2), 0, 7.0};
  ASSERT_EQ(zcoll::read_struct(reinterpret_cast<const V2*>(old_struct), kV1, "v", &got),
            ZCOLL_SUCCESS);
  EXPECT_EQ(got.struct_size, sizeof(V2));
  EXPECT_EQ(got.a, 42);
  EXPECT_EQ(got.b, 7.0);  // the default, not read past the caller's struct
}

TEST(StructRule, InputFromANewerCallerNeedsAZeroTail) {
  std::vector<unsigned char> big(sizeof(V2) + 16, 0);
  const size_t sz = big.size();
  const V2 v = {sz, 5, 2.5};
  std::memcpy(big.data(), &v, sizeof v);
  V2 got = {sizeof(V2), 0, 7.0};
  ASSERT_EQ(zcoll::read_struct(big.data(), sizeof(V2), kV1, "v", &got), ZCOLL_SUCCESS);
  EXPECT_EQ(got.a, 5);
  EXPECT_EQ(got.b, 2.5);
  EXPECT_EQ(got.struct_size, sizeof(V2));
  big[sizeof(V2) + 9] = 1;  // a field this library does not know is set
  EXPECT_EQ(zcoll::read_struct(big.data(), sizeof(V2), kV1, "v", &got), ZCOLL_ERR_INVALID_ARG);
  EXPECT_NE(std::string(zcoll_last_error()).find("not zero"), std::string::npos);
}

TEST(StructRule, TooSmallIsRejected) {
  V2 in = {kV1 - 1, 1, 1.0};
  V2 got = {sizeof(V2), 0, 7.0};
  EXPECT_EQ(zcoll::read_struct(&in, kV1, "v", &got), ZCOLL_ERR_INVALID_ARG);
  in.struct_size = 0;
  EXPECT_EQ(zcoll::read_struct(&in, kV1, "v", &got), ZCOLL_ERR_INVALID_ARG);
  EXPECT_EQ(zcoll::check_out_struct(&in, kV1, "v"), ZCOLL_ERR_INVALID_ARG);
  EXPECT_EQ(zcoll::check_out_struct(nullptr, kV1, "v"), ZCOLL_ERR_INVALID_ARG);
}

TEST(StructRule, OutputWritesOnlyWhatTheCallerHas) {
  const V2 value = {sizeof(V2), 9, 3.5};
  // older caller: b is not written (canary survives), struct_size stays
  unsigned char old_struct[sizeof(V2)];
  std::memset(old_struct, 0xAB, sizeof old_struct);
  const size_t sz = kV1;
  std::memcpy(old_struct, &sz, sizeof sz);
  zcoll::write_struct(old_struct, &value, sizeof(V2));
  size_t sz_after;
  int a;
  std::memcpy(&sz_after, old_struct, sizeof sz_after);
  std::memcpy(&a, old_struct + offsetof(V2, a), sizeof a);
  EXPECT_EQ(sz_after, kV1);
  EXPECT_EQ(a, 9);
  for (size_t i = kV1; i < sizeof old_struct; ++i) EXPECT_EQ(old_struct[i], 0xAB) << i;
  // newer caller: the unknown tail is zeroed
  std::vector<unsigned char> big(sizeof(V2) + 24, 0xCD);
  const size_t bsz = big.size();
  std::memcpy(big.data(), &bsz, sizeof bsz);
  zcoll::write_struct(big.data(), &value, sizeof(V2));
  V2 got;
  std::memcpy(&got, big.data(), sizeof got);
  EXPECT_EQ(got.struct_size, bsz);
  EXPECT_EQ(got.a, 9);
  EXPECT_EQ(got.b, 3.5);
  for (size_t i = sizeof(V2); i < big.size(); ++i) EXPECT_EQ(big[i], 0) << i;
}

// ---- the same rule through the public structs ---------------------------------
std::vector<float> ramp(size_t n) {
  std::vector<float> x(n);
  for (size_t i = 0; i < n; ++i) x[i] = static_cast<float>(i % 97) * 0.25f;
  return x;
}

TEST(StructRule, ParamsLargerWithZeroTailGiveTheSameStream) {
  const std::vector<float> x = ramp(5000);
  zcoll_params p = ZCOLL_PARAMS_INITIALIZER;
  p.eb_mode = ZCOLL_EB_ABS;
  p.error_bound = 0.01;
  const size_t cap = zcoll_compress_bound(x.size(), ZCOLL_FLOAT32);
  std::vector<uint8_t> ref(cap), out(cap);
  size_t ref_size = 0, size = 0;
  ASSERT_EQ(zcoll_compress(&p, ZCOLL_FLOAT32, x.data(), x.size(), ref.data(), cap, &ref_size, 1),
            ZCOLL_SUCCESS);
  struct Newer {
    zcoll_params p;
    uint64_t future[2];
  } newer;
  std::memset(&newer, 0, sizeof newer);
  newer.p = p;
  newer.p.struct_size = sizeof newer;
  ASSERT_EQ(zcoll_compress(&newer.p, ZCOLL_FLOAT32, x.data(), x.size(), out.data(), cap, &size, 2),
            ZCOLL_SUCCESS)
      << zcoll_last_error();
  ASSERT_EQ(size, ref_size);
  EXPECT_EQ(std::memcmp(out.data(), ref.data(), size), 0);
  newer.future[1] = 1;
  EXPECT_EQ(zcoll_compress(&newer.p, ZCOLL_FLOAT32, x.data(), x.size(), out.data(), cap, &size, 1),
            ZCOLL_ERR_INVALID_ARG);
  p.struct_size = sizeof(size_t);  // below the first version
  EXPECT_EQ(zcoll_compress(&p, ZCOLL_FLOAT32, x.data(), x.size(), out.data(), cap, &size, 1),
            ZCOLL_ERR_INVALID_ARG);
  EXPECT_NE(std::string(zcoll_last_error()).find("struct_size"), std::string::npos);
}

TEST(StructRule, OutputStructsFromOlderAndNewerCallers) {
  const std::vector<float> x = ramp(3000);
  const std::vector<uint8_t> z = zt::compress(x, ZCOLL_EB_ABS, 0.01);
  ASSERT_FALSE(z.empty());
  // zcoll_info: a newer caller's tail is zeroed, struct_size kept
  struct NewerInfo {
    zcoll_info info;
    uint64_t future[3];
  } ni;
  std::memset(&ni, 0x5A, sizeof ni);
  ni.info.struct_size = sizeof ni;
  ASSERT_EQ(zcoll_inspect(z.data(), z.size(), &ni.info), ZCOLL_SUCCESS) << zcoll_last_error();
  EXPECT_EQ(ni.info.struct_size, sizeof ni);
  EXPECT_EQ(ni.info.n, 3000u);
  for (uint64_t f : ni.future) EXPECT_EQ(f, 0u);
  zcoll_info small = ZCOLL_INFO_INITIALIZER;
  small.struct_size = offsetof(zcoll_info, stream_size);  // lacks a 1.0 field
  EXPECT_EQ(zcoll_inspect(z.data(), z.size(), &small), ZCOLL_ERR_INVALID_ARG);
  // zcoll_quality: the same
  struct NewerQuality {
    zcoll_quality q;
    double future;
  } nq;
  std::memset(&nq, 0x5A, sizeof nq);
  nq.q.struct_size = sizeof nq;
  std::vector<float> y = zt::decompress<float>(z, x.size());
  ASSERT_EQ(zcoll_quality_compare(ZCOLL_FLOAT32, x.data(), y.data(), x.size(), z.size(), &nq.q, 1),
            ZCOLL_SUCCESS);
  EXPECT_EQ(nq.q.n, 3000u);
  EXPECT_LE(nq.q.max_abs_error, 0.01);
  EXPECT_EQ(nq.future, 0.0);
  zcoll_quality q = ZCOLL_QUALITY_INITIALIZER;
  q.struct_size = 4;
  EXPECT_EQ(zcoll_quality_compare(ZCOLL_FLOAT32, x.data(), y.data(), x.size(), 0, &q, 1),
            ZCOLL_ERR_INVALID_ARG);
  // zcoll_hom_stats (read and written): counts add up, an unknown tail is zeroed
  struct NewerStats {
    zcoll_hom_stats s;
    uint64_t future;
  } ns;
  std::memset(&ns, 0, sizeof ns);
  ns.s.struct_size = sizeof ns;
  ns.future = 77;
  std::vector<uint8_t> sum(zcoll_compress_bound(x.size(), ZCOLL_FLOAT32));
  size_t sum_size = 0;
  ASSERT_EQ(zcoll_hom_add(z.data(), z.size(), z.data(), z.size(), sum.data(), sum.size(), &sum_size,
                          &ns.s, 1),
            ZCOLL_SUCCESS)
      << zcoll_last_error();
  const uint64_t blocks = ns.s.pipeline[0] + ns.s.pipeline[1] + ns.s.pipeline[2] + ns.s.pipeline[3];
  EXPECT_EQ(blocks, (3000u + 31u) / 32u);
  EXPECT_EQ(ns.future, 0u);
  ASSERT_EQ(zcoll_hom_add(z.data(), z.size(), z.data(), z.size(), sum.data(), sum.size(), &sum_size,
                          &ns.s, 1),
            ZCOLL_SUCCESS);
  EXPECT_EQ(ns.s.pipeline[0] + ns.s.pipeline[1] + ns.s.pipeline[2] + ns.s.pipeline[3], 2 * blocks);
  zcoll_hom_stats bad = ZCOLL_HOM_STATS_INITIALIZER;
  bad.struct_size = 0;
  EXPECT_EQ(zcoll_hom_add(z.data(), z.size(), z.data(), z.size(), sum.data(), sum.size(), &sum_size,
                          &bad, 1),
            ZCOLL_ERR_INVALID_ARG);
}

TEST(Sizes, CompressBoundOverflowIsZeroAndRefused) {
  const size_t huge = SIZE_MAX / 4;
  EXPECT_EQ(zcoll_compress_bound(huge, ZCOLL_FLOAT32), 0u);
  EXPECT_EQ(zcoll_compress_bound(huge, ZCOLL_FLOAT64), 0u);
  EXPECT_GT(zcoll_compress_bound(size_t{1} << 40, ZCOLL_FLOAT64), size_t{8} << 40);
  zcoll_params p = ZCOLL_PARAMS_INITIALIZER;
  p.eb_mode = ZCOLL_EB_ABS;
  float x = 0;
  uint8_t out[256];
  size_t size = 0;
  EXPECT_EQ(zcoll_compress(&p, ZCOLL_FLOAT32, &x, huge, out, sizeof out, &size, 1),
            ZCOLL_ERR_INVALID_ARG);
}

}  // namespace
