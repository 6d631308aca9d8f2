// units_test.cc — sizes, rates and times (src/core/units.h): the documented
// rules, junk, signs, overflow and suffix case.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>

#include "core/units.h"

namespace {

using zcoll::units::format_size;
using zcoll::units::parse_number;
using zcoll::units::parse_rate;
using zcoll::units::parse_size;
using zcoll::units::parse_time;

uint64_t size_of(const char* t) {
  uint64_t v = 0xdeadbeef;
  EXPECT_TRUE(parse_size(t, &v)) << t;
  return v;
}
double rate_of(const char* t) {
  double v = -1;
  EXPECT_TRUE(parse_rate(t, &v)) << t;
  return v;
}
double time_of(const char* t) {
  double v = -1;
  EXPECT_TRUE(parse_time(t, &v)) << t;
  return v;
}

TEST(UnitsSize, PlainAndBinaryPrefixes) {
  EXPECT_EQ(size_of("0"), 0u);
  EXPECT_EQ(size_of("65536"), 65536u);
  EXPECT_EQ(size_of("64K"), 65536u);
  EXPECT_EQ(size_of("64k"), 65536u);
  EXPECT_EQ(size_of("64Ki"), 65536u);
  EXPECT_EQ(size_of("64KiB"), 65536u);
  EXPECT_EQ(size_of("1M"), 1u << 20);
  EXPECT_EQ(size_of("1m"), 1u << 20);
  EXPECT_EQ(size_of("1MiB"), 1u << 20);
  EXPECT_EQ(size_of("2G"), uint64_t{2} << 30);
  EXPECT_EQ(size_of("1T"), uint64_t{1} << 40);
  EXPECT_EQ(size_of("100B"), 100u);
  EXPECT_EQ(size_of("1.5K"), 1536u);
  EXPECT_EQ(size_of("0.5M"), 1u << 19);
  EXPECT_EQ(size_of("1e3"), 1000u);
}

TEST(UnitsSize, DecimalWithB) {
  EXPECT_EQ(size_of("1kB"), 1000u);
  EXPECT_EQ(size_of("1KB"), 1000u);
  EXPECT_EQ(size_of("1MB"), 1000000u);
  EXPECT_EQ(size_of("646MB"), 646000000u);
  EXPECT_EQ(size_of("2GB"), 2000000000u);
  EXPECT_EQ(size_of("1.5MB"), 1500000u);
}

TEST(UnitsSize, Limits) {
  EXPECT_EQ(size_of("18446744073709551615"), std::numeric_limits<uint64_t>::max());
  EXPECT_EQ(size_of("16777215T"), ((uint64_t{1} << 24) - 1) << 40);
  uint64_t v = 7;
  for (const char* t : {"18446744073709551616", "16777216T", "99999999999999999999999", "1e20",
                        "17179869184G", "1e400"})
    EXPECT_FALSE(parse_size(t, &v)) << t;
  EXPECT_EQ(v, 7u);  // untouched on failure
}

TEST(UnitsSize, Junk) {
  uint64_t v = 7;
  for (const char* t : {"",    " ",   " 1K", "1K ", "-1",   "-1K",  "+1",  "K",   "1X",   "1KK",
                        "1Kb", "1kb", "1b",  "1iB", "1KBi", "0x10", "inf", "nan", "1,5K", "0.5",
                        "1.1", "1e",  "1e+", "e3",  ".",    "1..2", "1 K", "1P",  "1E",   "1KiBs"})
    EXPECT_FALSE(parse_size(t, &v)) << "'" << t << "'";
  EXPECT_FALSE(parse_size(nullptr, &v));
  EXPECT_EQ(v, 7u);
}

TEST(UnitsRate, BitsBytesAndPrefixes) {
  EXPECT_DOUBLE_EQ(rate_of("1gbit"), 1.25e8);
  EXPECT_DOUBLE_EQ(rate_of("1Gbit"), 1.25e8);
  EXPECT_DOUBLE_EQ(rate_of("1GBIT"), 1.25e8);
  EXPECT_DOUBLE_EQ(rate_of("500mbit"), 6.25e7);
  EXPECT_DOUBLE_EQ(rate_of("2.5Gbit/s"), 3.125e8);
  EXPECT_DOUBLE_EQ(rate_of("10Gbits/s"), 1.25e9);
  EXPECT_DOUBLE_EQ(rate_of("8bit"), 1);
  EXPECT_DOUBLE_EQ(rate_of("100MB/s"), 1e8);
  EXPECT_DOUBLE_EQ(rate_of("12.5GB"), 12.5e9);
  EXPECT_DOUBLE_EQ(rate_of("12.5gB"), 12.5e9);
  EXPECT_DOUBLE_EQ(rate_of("3e9"), 3e9);
  EXPECT_DOUBLE_EQ(rate_of("3e9B/s"), 3e9);
  EXPECT_DOUBLE_EQ(rate_of("1GiB/s"), 1073741824.0);
  EXPECT_DOUBLE_EQ(rate_of("1Kibit"), 128);
  EXPECT_DOUBLE_EQ(rate_of("1kB"), 1000);
}

TEST(UnitsRate, Refused) {
  double v = 7;
  for (const char* t : {"",          "0",      "0gbit",     "-1gbit",  "fast",   "1G",   "1g",
                        "1Gi",       "1Gb",    "1gb",       "1Gbps",   "1GBps",  "1bps", "1b",
                        "1G/s",      "1gbit/", "1gbit/S/s", "1 gbit",  "1gbit ", "inf",  "1e999",
                        "1e400gbit", "1Pbit",  "1gbyte",    "1.gbit.", "1gbitps"})
    EXPECT_FALSE(parse_rate(t, &v)) << "'" << t << "'";
  EXPECT_FALSE(parse_rate(nullptr, &v));
  EXPECT_EQ(v, 7);
}

TEST(UnitsTime, Units) {
  EXPECT_DOUBLE_EQ(time_of("0"), 0);
  EXPECT_DOUBLE_EQ(time_of("2"), 2);
  EXPECT_DOUBLE_EQ(time_of("2s"), 2);
  EXPECT_DOUBLE_EQ(time_of("10ms"), 0.01);
  EXPECT_DOUBLE_EQ(time_of("10MS"), 0.01);
  EXPECT_DOUBLE_EQ(time_of("500us"), 5e-4);
  EXPECT_DOUBLE_EQ(time_of("20us"), 2e-5);
  EXPECT_DOUBLE_EQ(time_of("3ns"), 3e-9);
  EXPECT_DOUBLE_EQ(time_of("1e-6"), 1e-6);
  EXPECT_DOUBLE_EQ(time_of("1.5e3ms"), 1.5);
  double v = 7;
  for (const char* t : {"", "-1", "-1ms", "1m", "1min", "1h", "ms", "1 ms", "1ms ", "1sec", "1e999",
                        "inf", "nan", "1.2.3s", "1µs"})
    EXPECT_FALSE(parse_time(t, &v)) << "'" << t << "'";
  EXPECT_EQ(v, 7);
}

TEST(UnitsNumber, Plain) {
  double v = -1;
  EXPECT_TRUE(parse_number("0.5", &v));
  EXPECT_EQ(v, 0.5);
  EXPECT_TRUE(parse_number("1e-4", &v));
  EXPECT_EQ(v, 1e-4);
  EXPECT_TRUE(parse_number(".25", &v));
  EXPECT_EQ(v, 0.25);
  EXPECT_TRUE(parse_number("3.", &v));
  EXPECT_EQ(v, 3);
  for (const char* t : {"", "-0.5", "+1", "1K", "0x1p3", "inf", "nan", "1e999", " 1", "1 ", "."})
    EXPECT_FALSE(parse_number(t, &v)) << "'" << t << "'";
}

TEST(UnitsFormat, ExactBinary) {
  char buf[24];
  EXPECT_STREQ(format_size(0, buf, sizeof buf), "0");
  EXPECT_STREQ(format_size(1536, buf, sizeof buf), "1536");
  EXPECT_STREQ(format_size(65536, buf, sizeof buf), "64K");
  EXPECT_STREQ(format_size(uint64_t{3} << 30, buf, sizeof buf), "3G");
  EXPECT_STREQ(format_size(uint64_t{1} << 50, buf, sizeof buf), "1024T");
  // and back: every formatted size parses to itself
  for (uint64_t b : {uint64_t{1}, uint64_t{1000}, uint64_t{1} << 20, uint64_t{5} << 40,
                     std::numeric_limits<uint64_t>::max()}) {
    uint64_t back = 0;
    ASSERT_TRUE(parse_size(format_size(b, buf, sizeof buf), &back)) << buf;
    EXPECT_EQ(back, b);
  }
}

}  // namespace
