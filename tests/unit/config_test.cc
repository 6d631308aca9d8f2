// config_test.cc — the ZCOLL_* registry (src/core/config.h): every variable is
// declared completely, its default passes its own parser, bad values fail
// naming the variable, undeclared names are refused.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <set>
#include <string>

#include "core/config.h"
#include "zcoll.h"

namespace {

using namespace zcoll::config;

Var all(int i) { return static_cast<Var>(i); }

// Sets a variable for one test and restores the environment after it.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const char* value) : name_(name) {
    const char* old = std::getenv(name);
    had_ = old != nullptr;
    if (had_) old_ = old;
    setenv(name, value, 1);
  }
  ~ScopedEnv() {
    if (had_)
      setenv(name_, old_.c_str(), 1);
    else
      unsetenv(name_);
  }

 private:
  const char* name_;
  bool had_ = false;
  std::string old_;
};

TEST(ConfigRegistry, EveryVariableIsDeclaredCompletely) {
  std::set<std::string> names;
  for (int i = 0; i < kVarCount; ++i) {
    const Decl& d = decl(all(i));
    SCOPED_TRACE(d.name ? d.name : "(null)");
    EXPECT_EQ(d.var, all(i)) << "the table is out of the enum's order";
    ASSERT_NE(d.name, nullptr);
    EXPECT_EQ(std::strncmp(d.name, "ZCOLL_", 6), 0);
    EXPECT_TRUE(names.insert(d.name).second) << "declared twice";
    ASSERT_NE(d.values, nullptr);
    EXPECT_GT(std::strlen(d.values), 0u);
    ASSERT_NE(d.doc, nullptr);
    EXPECT_GT(std::strlen(d.doc), 10u);
    ASSERT_NE(d.reader, nullptr);
    // a default its own parser accepts, or a word for what happens instead
    if (d.def) {
      EXPECT_EQ(check(d.var, d.def), ZCOLL_SUCCESS) << d.def << ": " << zcoll_last_error();
    } else {
      ASSERT_NE(d.unset, nullptr);
      EXPECT_GT(std::strlen(d.unset), 0u);
    }
    if (d.kind == Kind::kInteger || d.kind == Kind::kNumber || d.kind == Kind::kSize) {
      EXPECT_LE(d.lo, d.hi);
    }
  }
  EXPECT_EQ(names.size(), static_cast<size_t>(kVarCount));
}

TEST(ConfigRegistry, LookupRefusesUndeclaredNames) {
  Var v = kVarCount;
  ASSERT_EQ(lookup("ZCOLL_MIN_BYTES", &v), ZCOLL_SUCCESS);
  EXPECT_EQ(v, kMinBytes);
  for (int i = 0; i < kVarCount; ++i) {
    ASSERT_EQ(lookup(decl(all(i)).name, &v), ZCOLL_SUCCESS);
    EXPECT_EQ(v, all(i));
  }
  for (const char* name : {"ZCOLL_NOPE", "zcoll_mode", "ZCOLL_MODE ", "ZCOLL_", "", "MODE"}) {
    v = kMode;
    EXPECT_EQ(lookup(name, &v), ZCOLL_ERR_INVALID_ARG) << name;
    EXPECT_NE(std::strstr(zcoll_last_error(), "not a zcoll variable"), nullptr);
    EXPECT_EQ(v, kMode);
  }
  EXPECT_EQ(lookup(nullptr, &v), ZCOLL_ERR_INVALID_ARG);
}

TEST(ConfigRegistry, BadValuesNameTheVariable) {
  struct Bad {
    Var var;
    const char* text;
  } cases[] = {
      {kMode, "bogus"},           {kMode, "default"},       {kEbMode, "absolute"},
      {kErrorBound, "0"},         {kErrorBound, "-1e-3"},   {kErrorBound, "1e-3x"},
      {kThreads, "-1"},           {kThreads, "4097"},       {kThreads, "1.5"},
      {kMinBytes, "64Q"},         {kMinBytes, "-1"},        {kChunkSize, "2M"},
      {kChunkSize, "512"},        {kAllreduceAlgo, "tree"}, {kBcastAlgo, "ring"},
      {kAutoLocal, "sometimes"},  {kNetLatency, "fast"},    {kNetBandwidth, "1G"},
      {kNetBandwidth, "0"},       {kModelOverlap, "1.5"},   {kModelMpiScale, "0"},
      {kModelGrowth, "65"},       {kDebug, "LOUD"},         {kSimd, "avx512"},
      {kSimCodec, "on"},          {kPmpi, "yes"},           {kPmpiOps, "sum,maxloc"},
      {kPmpiColls, "allreduce,"}, {kPmpiTypes, "int"},      {kPmpiMinBytes, "1Q"},
      {kWaitSleep, "soon"},       {kWaitSleep, "-1us"},     {kRelRange, "approx"},
      {kCodec, "bogus"},          {kCodec, "fast,dense"},   {kDenseCompressBw, "1G"},
      {kDenseDecompressBw, "0"},
  };
  for (const Bad& b : cases) {
    const char* name = decl(b.var).name;
    EXPECT_EQ(check(b.var, b.text), ZCOLL_ERR_INVALID_ARG) << name << "=" << b.text;
    EXPECT_NE(std::strstr(zcoll_last_error(), name), nullptr) << zcoll_last_error();
    // and the same through the environment
    ScopedEnv env(name, b.text);
    const char* w = nullptr;
    long n = 0;
    uint64_t s = 0;
    double x = 0;
    zcoll_status st = ZCOLL_SUCCESS;
    switch (decl(b.var).kind) {
      case Kind::kChoice: st = get_choice(b.var, &w); break;
      case Kind::kInteger: st = get_integer(b.var, &n); break;
      case Kind::kSize: st = get_size(b.var, &s); break;
      case Kind::kPath: st = get_path(b.var, &w); break;
      case Kind::kList: st = get_list(b.var, &w); break;
      default: st = get_double(b.var, &x); break;
    }
    EXPECT_EQ(st, ZCOLL_ERR_INVALID_ARG) << name << "=" << b.text;
    EXPECT_NE(std::strstr(zcoll_last_error(), name), nullptr) << zcoll_last_error();
  }
}

TEST(ConfigRegistry, GoodValuesAndDefaults) {
  const char* w = nullptr;
  bool from_env = true;
  {
    ScopedEnv unset(decl(kMode).name, "");  // empty = unset
    ASSERT_EQ(get_choice(kMode, &w, &from_env), ZCOLL_SUCCESS);
    EXPECT_STREQ(w, "auto");
    EXPECT_FALSE(from_env);
  }
  {
    ScopedEnv env("ZCOLL_MODE", "HOM");  // choices in any case
    ASSERT_EQ(get_choice(kMode, &w, &from_env), ZCOLL_SUCCESS);
    EXPECT_STREQ(w, "HOM");
    EXPECT_TRUE(from_env);
  }
  {
    ScopedEnv env("ZCOLL_MIN_BYTES", "1M");
    uint64_t s = 0;
    ASSERT_EQ(get_size(kMinBytes, &s, &from_env), ZCOLL_SUCCESS);
    EXPECT_EQ(s, 1u << 20);
    EXPECT_TRUE(from_env);
  }
  {
    ScopedEnv env("ZCOLL_NET_BANDWIDTH", "1gbit");
    double x = 0;
    ASSERT_EQ(get_double(kNetBandwidth, &x), ZCOLL_SUCCESS);
    EXPECT_DOUBLE_EQ(x, 1.25e8);
  }
  {
    ScopedEnv env("ZCOLL_NET_LATENCY", "20us");
    double x = 0;
    ASSERT_EQ(get_double(kNetLatency, &x), ZCOLL_SUCCESS);
    EXPECT_DOUBLE_EQ(x, 2e-5);
  }
  {
    ScopedEnv env("ZCOLL_THREADS", "0");
    long n = -1;
    ASSERT_EQ(get_integer(kThreads, &n), ZCOLL_SUCCESS);
    EXPECT_EQ(n, 0);
  }
  // no default and unset: the output is left alone
  {
    ScopedEnv unset("ZCOLL_NET_BANDWIDTH", "");
    double x = 42;
    ASSERT_EQ(get_double(kNetBandwidth, &x, &from_env), ZCOLL_SUCCESS);
    EXPECT_EQ(x, 42);
    EXPECT_FALSE(from_env);
    const char* path = "untouched";
    ScopedEnv unset_file("ZCOLL_TUNE_FILE", "");
    ASSERT_EQ(get_path(kTuneFile, &path), ZCOLL_SUCCESS);
    EXPECT_STREQ(path, "untouched");
  }
  // defaults as declared
  {
    ScopedEnv unset("ZCOLL_MODEL_OVERLAP", "");
    double x = 0;
    ASSERT_EQ(get_double(kModelOverlap, &x, &from_env), ZCOLL_SUCCESS);
    EXPECT_EQ(x, 0.5);
    EXPECT_FALSE(from_env);
  }
}

TEST(ConfigRegistry, WrongGetterIsAnInternalError) {
  double x = 0;
  uint64_t s = 0;
  const char* w = nullptr;
  EXPECT_EQ(get_double(kMode, &x), ZCOLL_ERR_INTERNAL);
  EXPECT_EQ(get_size(kNetBandwidth, &s), ZCOLL_ERR_INTERNAL);
  EXPECT_EQ(get_choice(kMinBytes, &w), ZCOLL_ERR_INTERNAL);
  EXPECT_NE(std::strstr(zcoll_last_error(), "ZCOLL_MIN_BYTES"), nullptr);
}

TEST(ConfigRegistry, RangesAndGeneratedText) {
  EXPECT_TRUE(in_range(kModelOverlap, 0));
  EXPECT_TRUE(in_range(kModelOverlap, 1));
  EXPECT_FALSE(in_range(kModelOverlap, 1.0001));
  EXPECT_FALSE(in_range(kNetBandwidth, 0));
  EXPECT_TRUE(in_range(kNetLatency, 0));
  EXPECT_FALSE(in_range(kNetLatency, -1e-9));
  EXPECT_FALSE(in_range(kNetLatency, INFINITY));
  const std::string help = help_text(), md = markdown();
  for (int i = 0; i < kVarCount; ++i) {
    const std::string name = decl(all(i)).name;
    EXPECT_NE(help.find(name + " "), std::string::npos) << name;
    EXPECT_NE(md.find("| `" + name + "` |"), std::string::npos) << name;
  }
  EXPECT_EQ(help.find('`'), std::string::npos);  // plain text
  ScopedEnv env("ZCOLL_NO_SUCH_KNOB", "1");
  ScopedEnv bad("ZCOLL_SIMD", "avx512");
  const std::string now = current_values();
  EXPECT_NE(now.find("ZCOLL_NO_SUCH_KNOB"), std::string::npos);
  EXPECT_NE(now.find("UNKNOWN"), std::string::npos);
  EXPECT_NE(now.find("avx512   <- INVALID"), std::string::npos);
}

}  // namespace
