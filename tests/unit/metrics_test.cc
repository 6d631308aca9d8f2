// metrics_test.cc — zcoll_quality_compare on inputs with known answers.
#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

#include "test_util.h"

namespace {

TEST(Metrics, KnownErrorsFloat64) {
  std::vector<double> a = {0, 2, 4, 8}, b = {0.5, 2, 3.5, 8};
  zcoll_quality q = ZCOLL_QUALITY_INITIALIZER;
  ASSERT_EQ(zcoll_quality_compare(ZCOLL_FLOAT64, a.data(), b.data(), 4, 16, &q, 1), ZCOLL_SUCCESS)
      << zcoll_last_error();
  const double rmse = std::sqrt(0.125);
  EXPECT_EQ(q.n, 4u);
  EXPECT_EQ(q.nonfinite, 0u);
  EXPECT_EQ(q.nonfinite_mismatch, 0u);
  EXPECT_EQ(q.max_abs_error, 0.5);
  EXPECT_NEAR(q.rmse, rmse, 1e-15);
  EXPECT_EQ(q.value_range, 8.0);
  EXPECT_NEAR(q.nrmse, rmse / 8, 1e-15);
  EXPECT_NEAR(q.psnr, 20 * std::log10(8 / rmse), 1e-12);  // 27.0927 dB
  EXPECT_NEAR(q.psnr, 27.09269960975831, 1e-9);
  EXPECT_DOUBLE_EQ(q.compression_ratio, 2.0);  // 32 bytes -> 16
  EXPECT_DOUBLE_EQ(q.bits_per_value, 32.0);
}

TEST(Metrics, Psnr60dB) {
  // range 1, every error exactly +-2^-10: rmse 2^-10, PSNR = 20 log10(1024)
  const size_t n = 1025;
  std::vector<double> a(n), b(n);
  for (size_t i = 0; i < n; ++i) {
    a[i] = static_cast<double>(i) / 1024;
    b[i] = a[i] + ((i % 2) ? 1.0 : -1.0) / 1024;
  }
  zcoll_quality q = ZCOLL_QUALITY_INITIALIZER;
  ASSERT_EQ(zcoll_quality_compare(ZCOLL_FLOAT64, a.data(), b.data(), n, 0, &q, 1), ZCOLL_SUCCESS);
  EXPECT_EQ(q.max_abs_error, 1.0 / 1024);
  EXPECT_NEAR(q.rmse, 1.0 / 1024, 1e-15);
  EXPECT_EQ(q.value_range, 1.0);
  EXPECT_NEAR(q.psnr, 20 * std::log10(1024.0), 1e-9);  // 60.206 dB
  EXPECT_EQ(q.compression_ratio, 0.0);                 // compressed size unknown
  EXPECT_EQ(q.bits_per_value, 0.0);
}

TEST(Metrics, NonFiniteAndFloat32) {
  const float nan1 = zt::from_bits<float>(0x7fc00001u), nan2 = zt::from_bits<float>(0x7fc00002u);
  const float inf = std::numeric_limits<float>::infinity();
  std::vector<float> a = {1.0f, nan1, inf, 3.0f, -inf, nan1};
  std::vector<float> b = {1.25f, nan1, inf, 3.0f, 0.0f, nan2};
  zcoll_quality q = ZCOLL_QUALITY_INITIALIZER;
  ASSERT_EQ(zcoll_quality_compare(ZCOLL_FLOAT32, a.data(), b.data(), a.size(), 12, &q, 1),
            ZCOLL_SUCCESS);
  EXPECT_EQ(q.n, 6u);
  EXPECT_EQ(q.nonfinite, 4u);
  EXPECT_EQ(q.nonfinite_mismatch, 2u);  // -inf -> 0 and a different NaN payload
  EXPECT_EQ(q.max_abs_error, 0.25);     // over the finite originals only
  EXPECT_EQ(q.value_range, 2.0);
  EXPECT_NEAR(q.rmse, std::sqrt(0.0625 / 2), 1e-12);  // over the two finite originals
  EXPECT_DOUBLE_EQ(q.compression_ratio, 24.0 / 12.0);
  EXPECT_DOUBLE_EQ(q.bits_per_value, 8.0 * 12 / 6);
}

TEST(Metrics, IdenticalDataHasInfinitePsnr) {
  std::vector<float> a = {1, 2, 3, 5};
  zcoll_quality q = ZCOLL_QUALITY_INITIALIZER;
  ASSERT_EQ(zcoll_quality_compare(ZCOLL_FLOAT32, a.data(), a.data(), a.size(), 0, &q, 1),
            ZCOLL_SUCCESS);
  EXPECT_EQ(q.max_abs_error, 0.0);
  EXPECT_EQ(q.rmse, 0.0);
  EXPECT_EQ(q.nrmse, 0.0);
  EXPECT_TRUE(std::isinf(q.psnr) && q.psnr > 0);
  // constant original: range 0 -> nrmse 0
  std::vector<double> c = {4, 4, 4}, d = {4, 4.5, 4};
  ASSERT_EQ(zcoll_quality_compare(ZCOLL_FLOAT64, c.data(), d.data(), 3, 0, &q, 1), ZCOLL_SUCCESS);
  EXPECT_EQ(q.value_range, 0.0);
  EXPECT_EQ(q.nrmse, 0.0);
  EXPECT_EQ(q.max_abs_error, 0.5);
}

TEST(Metrics, OnACompressedStream) {
  std::vector<float> x(20000);
  for (size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>(std::sin(0.002 * i) * 50);
  std::vector<uint8_t> z = zt::compress(x, ZCOLL_EB_ABS, 0.01, 0, 1);
  std::vector<float> y = zt::decompress<float>(z, x.size());
  zcoll_quality q = ZCOLL_QUALITY_INITIALIZER;
  ASSERT_EQ(zcoll_quality_compare(ZCOLL_FLOAT32, x.data(), y.data(), x.size(), z.size(), &q, 1),
            ZCOLL_SUCCESS);
  EXPECT_LE(q.max_abs_error, 0.01);
  EXPECT_GT(q.max_abs_error, 0.0);
  EXPECT_LE(q.rmse, q.max_abs_error);
  EXPECT_DOUBLE_EQ(q.compression_ratio, 80000.0 / static_cast<double>(z.size()));
  EXPECT_DOUBLE_EQ(q.bits_per_value, 8.0 * static_cast<double>(z.size()) / 20000);
  EXPECT_GT(q.compression_ratio, 2.0);
  EXPECT_GT(q.psnr, 20 * std::log10(q.value_range / 0.01));  // rmse below the bound
}

TEST(Metrics, BadArguments) {
  std::vector<float> a = {1, 2};
  zcoll_quality q = ZCOLL_QUALITY_INITIALIZER;
  EXPECT_EQ(zcoll_quality_compare(ZCOLL_FLOAT32, a.data(), a.data(), 2, 0, nullptr, 1),
            ZCOLL_ERR_INVALID_ARG);
  EXPECT_STRNE(zcoll_last_error(), "");
  EXPECT_EQ(zcoll_quality_compare(ZCOLL_FLOAT32, nullptr, a.data(), 2, 0, &q, 1),
            ZCOLL_ERR_INVALID_ARG);
  EXPECT_STRNE(zcoll_last_error(), "");
  EXPECT_NE(zcoll_quality_compare(static_cast<zcoll_dtype>(5), a.data(), a.data(), 2, 0, &q, 1),
            ZCOLL_SUCCESS);
  EXPECT_STRNE(zcoll_last_error(), "");
}

}  // namespace
