// kernels_test.cc — every kernel set must produce the bytes and values of the
// scalar reference: zcoll::scalar_kernels() vs *zcoll::avx2_kernels() (and
// avx2_gfni_kernels()) chunk by chunk, and the kernels in use (active_kernels) vs
// the scalar ones through the public stream API.
#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "codec/chunk_codec.h"  // internal
#include "codec/format.h"       // internal
#include "codec/value_types.h"  // internal: Bf16, Fp16 and their conversions
#include "test_data.h"
#include "test_util.h"

namespace {

using zt::Rng;

bool cpu_has_avx2() {
#if defined(__x86_64__) || defined(__i386__)
  return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("bmi2");
#else
  return false;
#endif
}

template <typename T>
size_t kcompress(const zcoll::ChunkKernels& k, const T* x, uint32_t len,
                 const zcoll::Quantizer<T>& qz, uint8_t* out) {
  return zcoll::compress_chunk<T>(k, x, len, qz, out);
}

// Compare two kernel sets on one chunk: compressed bytes (the whole output area,
// so stray writes count too), then the decoded values, stored and accumulated.
// out_shift/in_shift move the buffers off their natural alignment.
template <typename T>
void compare_chunk(const zcoll::ChunkKernels& a, const zcoll::ChunkKernels& b,
                   const std::vector<T>& x, double eb, size_t in_shift, size_t out_shift,
                   const std::string& what) {
  zcoll::Quantizer<T> qz;
  ASSERT_TRUE(zcoll::make_quantizer<T>(eb, &qz)) << what;
  const uint32_t len = static_cast<uint32_t>(x.size());
  std::vector<T> xin(len + in_shift);
  std::memcpy(xin.data() + in_shift, x.data(), len * sizeof(T));
  const size_t raw = zcoll::raw_chunk_bytes(len, sizeof(T));
  std::vector<uint8_t> oa(raw + out_shift + 64, 0x5C), ob(raw + out_shift + 64, 0x5C);
  size_t sa = kcompress<T>(a, xin.data() + in_shift, len, qz, oa.data() + out_shift);
  size_t sb = kcompress<T>(b, xin.data() + in_shift, len, qz, ob.data() + out_shift);
  ASSERT_EQ(sa, sb) << what << ": chunk sizes differ (" << a.name << " vs " << b.name << ")";
  ASSERT_LE(sa, raw) << what;
  ASSERT_EQ(sa % 8, 0u) << what;
  for (size_t i = raw + out_shift; i < oa.size(); ++i) {
    ASSERT_EQ(oa[i], 0x5C) << what << ": " << a.name << " wrote past the raw size";
    ASSERT_EQ(ob[i], 0x5C) << what << ": " << b.name << " wrote past the raw size";
  }
  for (size_t i = 0; i < sa; ++i)
    ASSERT_EQ(oa[out_shift + i], ob[out_shift + i])
        << what << ": byte " << i << " of " << sa << " differs (" << a.name << " vs " << b.name
        << ")";
  const double factor = qz.quantum;
  for (bool acc : {false, true}) {
    std::vector<T> da(len + 8), db(len + 8);
    for (size_t i = 0; i < da.size(); ++i)
      da[i] = db[i] = static_cast<T>(0.25 * static_cast<double>(i % 13));
    const uint8_t* in = oa.data() + out_shift;
    zcoll_status ra = zcoll::decompress_chunk<T>(a, in, sa, len, factor, da.data(), acc);
    zcoll_status rb = zcoll::decompress_chunk<T>(b, in, sa, len, factor, db.data(), acc);
    ASSERT_EQ(ra, ZCOLL_SUCCESS) << what;
    ASSERT_EQ(rb, ZCOLL_SUCCESS) << what;
    ASSERT_EQ(std::memcmp(da.data(), db.data(), da.size() * sizeof(T)), 0)
        << what << ": decoded values differ, accumulate=" << acc;
    if (!acc) {
      // the decoded chunk honours the bound (raw chunks: bit exact)
      std::vector<T> got(da.begin(), da.begin() + len);
      ASSERT_EQ(zt::count_violations(x, got, eb, what), 0u);
    }
  }
}

template <typename T>
void compare_many(const zcoll::ChunkKernels& a, const zcoll::ChunkKernels& b, uint64_t seed,
                  int rounds) {
  Rng r(seed);
  const uint32_t lens[] = {1,   2,   3,    31,   32,   33,   63,    64,   65,
                           100, 511, 1023, 1024, 1025, 4096, 16384, 16383};
  static const double ebs[] = {1e-6, 1e-3, 0.01, 0.5, 3.0, 1e4};
  for (int round = 0; round < rounds; ++round) {
    for (uint32_t len : lens) {
      for (int kind = 0; kind < zt::kNumKinds; ++kind) {
        double eb = ebs[r.below(6)];
        std::vector<T> x = zt::make_case<T>(kind, len, r, ZCOLL_EB_ABS, eb, 1024);
        std::string what = std::string(sizeof(T) == 4 ? "f32 " : "f64 ") + zt::kind_name(kind) +
                           " len=" + std::to_string(len) + " eb=" + testing::PrintToString(eb);
        compare_chunk<T>(a, b, x, eb, r.below(8), r.below(8), what);
        if (testing::Test::HasFailure()) return;
      }
    }
  }
}

// Random quantized chunks with valid framing (code lengths 0..max_len, any payload
// bits, any anchor): both decoders must give the same values. max_len 12: mostly
// runs of the short code lengths of real data (the AVX2 decoder's paired blocks and
// its stages of 8 blocks, up to the chunk's end), and the borders 0, 8, 11, 12.
template <typename T>
void compare_decoders_on_garbage(const zcoll::ChunkKernels& a, const zcoll::ChunkKernels& b,
                                 uint64_t seed, uint32_t max_len = 33) {
  Rng r(seed);
  for (int it = 0; it < 2000; ++it) {
    uint32_t len = static_cast<uint32_t>(1 + r.below(r.coin() ? 64 : 2048));
    uint32_t nb = (len + 31) / 32;
    size_t head = 12 + ((nb + 3) & ~3u);
    std::vector<uint8_t> ch(head, 0);
    size_t total = head;
    for (uint32_t blk = 0; blk < nb; ++blk) {
      uint32_t L = r.coin(0.2) ? 0 : static_cast<uint32_t>(r.below(max_len + 1));
      ch[12 + blk] = static_cast<uint8_t>(L);
      total += 4 * L;
    }
    for (int i = 4; i < 12; ++i) ch[i] = static_cast<uint8_t>(r.next());
    ch.resize((total + 7) & ~size_t{7});
    for (size_t i = head; i < ch.size(); ++i) ch[i] = static_cast<uint8_t>(r.next());
    double factor = r.uniform(1e-6, 10);
    for (bool acc : {false, true}) {
      std::vector<T> da(len, T(1)), db(len, T(1));
      zcoll_status ra =
          zcoll::decompress_chunk<T>(a, ch.data(), ch.size(), len, factor, da.data(), acc);
      zcoll_status rb =
          zcoll::decompress_chunk<T>(b, ch.data(), ch.size(), len, factor, db.data(), acc);
      ASSERT_EQ(ra, ZCOLL_SUCCESS) << "len=" << len;
      ASSERT_EQ(rb, ZCOLL_SUCCESS) << "len=" << len;
      ASSERT_EQ(std::memcmp(da.data(), db.data(), len * sizeof(T)), 0)
          << "it=" << it << " len=" << len;
    }
    // malformed variants are rejected by both
    std::vector<uint8_t> bad = ch;
    bad[0] = 2;
    std::vector<T> da(len), db(len);
    EXPECT_EQ(zcoll::decompress_chunk<T>(a, bad.data(), bad.size(), len, factor, da.data(), false),
              ZCOLL_ERR_CORRUPT);
    EXPECT_EQ(zcoll::decompress_chunk<T>(b, bad.data(), bad.size(), len, factor, db.data(), false),
              ZCOLL_ERR_CORRUPT);
    bad = ch;
    bad[12] = 34;  // above the largest code length (33)
    EXPECT_EQ(zcoll::decompress_chunk<T>(a, bad.data(), bad.size(), len, factor, da.data(), false),
              ZCOLL_ERR_CORRUPT);
    EXPECT_EQ(zcoll::decompress_chunk<T>(b, bad.data(), bad.size(), len, factor, db.data(), false),
              ZCOLL_ERR_CORRUPT);
    if (testing::Test::HasFailure()) return;
  }
}

// The 16-bit types (bfloat16, float16): the float cases of test_data.h narrowed
// to 16 bits, both kernel sets on every chunk: the same chunk bytes (and nothing
// written past the raw size), the same values stored and accumulated, every decoded value
// within the bound of its 16-bit input. Then random valid framings through both
// decoders.
template <typename T>
void compare16(const zcoll::ChunkKernels& a, const zcoll::ChunkKernels& b, uint64_t seed,
               const char* type) {
  using V = zcoll::ValueTraits<T>;
  Rng r(seed);
  const uint32_t lens[] = {1, 2, 31, 32, 33, 64, 65, 511, 1024, 1025, 4096, 16383};
  static const double ebs[] = {1e-6, 1e-3, 0.01, 0.5, 3.0, 1e4};
  for (uint32_t len : lens) {
    for (int kind = 0; kind < zt::kNumKinds; ++kind) {
      const double eb = ebs[r.below(6)];
      const std::vector<float> wide = zt::make_case<float>(kind, len, r, ZCOLL_EB_ABS, eb, 1024);
      std::vector<T> x(len);
      for (uint32_t i = 0; i < len; ++i) x[i] = V::narrow(wide[i]);
      const std::string what = std::string(type) + " " + zt::kind_name(kind) +
                               " len=" + std::to_string(len) + " eb=" + testing::PrintToString(eb);
      zcoll::Quantizer<T> qz;
      ASSERT_TRUE(zcoll::make_quantizer<T>(eb, &qz)) << what;
      const size_t raw = zcoll::raw_chunk_bytes(len, sizeof(T));
      std::vector<uint8_t> oa(raw + 64, 0x5C), ob(raw + 64, 0x5C);
      const size_t sa = zcoll::compress_chunk<T>(a, x.data(), len, qz, oa.data());
      const size_t sb = zcoll::compress_chunk<T>(b, x.data(), len, qz, ob.data());
      ASSERT_EQ(sa, sb) << what << ": chunk sizes differ";
      ASSERT_LE(sa, raw) << what;
      ASSERT_EQ(std::memcmp(oa.data(), ob.data(), sa), 0)
          << what << ": bytes differ (" << a.name << " vs " << b.name << ")";
      for (size_t i = raw; i < oa.size(); ++i)  // scratch use below the raw size is allowed
        ASSERT_TRUE(oa[i] == 0x5C && ob[i] == 0x5C) << what << ": a kernel wrote past the raw size";
      for (bool acc : {false, true}) {
        std::vector<T> da(len), db(len);
        for (uint32_t i = 0; i < len; ++i) da[i] = db[i] = V::narrow(0.25f * (i % 13));
        ASSERT_EQ(zcoll::decompress_chunk<T>(a, oa.data(), sa, len, qz.quantum, da.data(), acc),
                  ZCOLL_SUCCESS)
            << what;
        ASSERT_EQ(zcoll::decompress_chunk<T>(b, oa.data(), sa, len, qz.quantum, db.data(), acc),
                  ZCOLL_SUCCESS)
            << what;
        ASSERT_EQ(std::memcmp(da.data(), db.data(), len * sizeof(T)), 0)
            << what << ": decoded values differ, accumulate=" << acc;
        if (acc) continue;
        for (uint32_t i = 0; i < len; ++i) {
          const double xi = V::widen(x[i]), yi = V::widen(da[i]);
          if (std::isfinite(xi))
            ASSERT_LE(std::fabs(xi - yi), eb) << what << ": value " << i;
          else
            ASSERT_EQ(std::memcmp(&x[i], &da[i], sizeof(T)), 0) << what << ": value " << i;
        }
      }
    }
  }
  for (int it = 0; it < 500; ++it) {  // random valid framings (as compare_decoders_on_garbage)
    const uint32_t len = static_cast<uint32_t>(1 + r.below(r.coin() ? 64 : 2048));
    const uint32_t nb = (len + 31) / 32;
    const size_t head = 12 + ((nb + 3) & ~3u);
    std::vector<uint8_t> ch(head, 0);
    size_t total = head;
    for (uint32_t blk = 0; blk < nb; ++blk) {
      const uint32_t L = r.coin(0.2) ? 0 : static_cast<uint32_t>(r.below(34));
      ch[12 + blk] = static_cast<uint8_t>(L);
      total += 4 * L;
    }
    for (int i = 4; i < 12; ++i) ch[i] = static_cast<uint8_t>(r.next());
    ch.resize((total + 7) & ~size_t{7});
    for (size_t i = head; i < ch.size(); ++i) ch[i] = static_cast<uint8_t>(r.next());
    const double factor = r.uniform(1e-6, 10);
    for (bool acc : {false, true}) {
      std::vector<T> da(len, V::narrow(1.0f)), db(len, V::narrow(1.0f));
      ASSERT_EQ(zcoll::decompress_chunk<T>(a, ch.data(), ch.size(), len, factor, da.data(), acc),
                ZCOLL_SUCCESS);
      ASSERT_EQ(zcoll::decompress_chunk<T>(b, ch.data(), ch.size(), len, factor, db.data(), acc),
                ZCOLL_SUCCESS);
      ASSERT_EQ(std::memcmp(da.data(), db.data(), len * sizeof(T)), 0)
          << type << " framing " << it << " len=" << len << " accumulate=" << acc;
    }
  }
}

const zcoll::ChunkKernels* avx2_or_skip() {
  const zcoll::ChunkKernels* k = zcoll::avx2_kernels();
  return (k && cpu_has_avx2()) ? k : nullptr;
}

TEST(Kernels, ScalarVsAvx2Compress) {
  const zcoll::ChunkKernels* avx2 = avx2_or_skip();
  if (!avx2)
    GTEST_SKIP()
        << "AVX2 kernels not compiled in (avx2_kernels() == nullptr) or CPU lacks AVX2/BMI2";
  compare_many<float>(zcoll::scalar_kernels(), *avx2, 1, 3);
  compare_many<double>(zcoll::scalar_kernels(), *avx2, 2, 3);
}

TEST(Kernels, ScalarVsAvx2DecodeAnyValidFraming) {
  const zcoll::ChunkKernels* avx2 = avx2_or_skip();
  if (!avx2)
    GTEST_SKIP()
        << "AVX2 kernels not compiled in (avx2_kernels() == nullptr) or CPU lacks AVX2/BMI2";
  compare_decoders_on_garbage<float>(zcoll::scalar_kernels(), *avx2, 3);
  compare_decoders_on_garbage<double>(zcoll::scalar_kernels(), *avx2, 4);
  compare_decoders_on_garbage<float>(zcoll::scalar_kernels(), *avx2, 13, 12);
  compare_decoders_on_garbage<double>(zcoll::scalar_kernels(), *avx2, 14, 12);
}

TEST(Kernels, ScalarVsAvx2SixteenBit) {
  const zcoll::ChunkKernels* avx2 = avx2_or_skip();
  if (!avx2)
    GTEST_SKIP()
        << "AVX2 kernels not compiled in (avx2_kernels() == nullptr) or CPU lacks AVX2/BMI2";
  compare16<zcoll::Bf16>(zcoll::scalar_kernels(), *avx2, 11, "bf16");
  compare16<zcoll::Fp16>(zcoll::scalar_kernels(), *avx2, 12, "f16");
}

// The decoders that transpose by GFNI (avx2_gfni_kernels: f32, f64), where the CPU
// has GFNI: the same comparisons as the AVX2 set's.
TEST(Kernels, ScalarVsAvx2GfniDecode) {
  const zcoll::ChunkKernels* gfni = zcoll::avx2_gfni_kernels();
#if defined(__x86_64__) || defined(__i386__)
  if (gfni && !(cpu_has_avx2() && __builtin_cpu_supports("gfni"))) gfni = nullptr;
#endif
  if (!gfni) GTEST_SKIP() << "AVX2 kernels not compiled in or CPU lacks AVX2/BMI2/GFNI";
  compare_many<float>(zcoll::scalar_kernels(), *gfni, 21, 3);
  compare_many<double>(zcoll::scalar_kernels(), *gfni, 22, 3);
  compare_decoders_on_garbage<float>(zcoll::scalar_kernels(), *gfni, 23);
  compare_decoders_on_garbage<double>(zcoll::scalar_kernels(), *gfni, 24);
  compare_decoders_on_garbage<float>(zcoll::scalar_kernels(), *gfni, 25, 12);
  compare_decoders_on_garbage<double>(zcoll::scalar_kernels(), *gfni, 26, 12);
}

// The harness itself, and the scalar kernels against themselves at every
// alignment (runs everywhere, so the comparison code is exercised).
TEST(Kernels, ScalarSelfConsistency) {
  compare_many<float>(zcoll::scalar_kernels(), zcoll::scalar_kernels(), 5, 1);
  compare_many<double>(zcoll::scalar_kernels(), zcoll::scalar_kernels(), 6, 1);
  compare_decoders_on_garbage<float>(zcoll::scalar_kernels(), zcoll::scalar_kernels(), 7);
  compare16<zcoll::Bf16>(zcoll::scalar_kernels(), zcoll::scalar_kernels(), 13, "bf16");
}

// Streams from the public API (whatever kernels are active: AVX2 when available
// unless ZCOLL_SIMD=scalar) hold exactly the chunks the scalar kernels produce.
template <typename T>
void stream_matches_scalar(uint64_t seed) {
  Rng r(seed);
  const zcoll::ChunkKernels& sc = zcoll::scalar_kernels();
  for (int it = 0; it < 60; ++it) {
    int kind = static_cast<int>(r.below(zt::kNumKinds));
    size_t n = r.below(4) == 0 ? r.below(100) : r.below(5 * 1024);
    double eb = r.coin() ? 1e-3 : 0.5;
    std::vector<T> x = zt::make_case<T>(kind, n, r, ZCOLL_EB_ABS, eb, 1024);
    std::vector<uint8_t> z = zt::compress(x, ZCOLL_EB_ABS, eb, 1024, 2);
    ASSERT_FALSE(z.empty());
    zcoll::Quantizer<T> qz;
    ASSERT_TRUE(zcoll::make_quantizer<T>(eb, &qz));
    size_t pos = zcoll_header_size(n, 1024);
    const size_t chunks = zcoll_chunk_count(n, 1024);
    for (size_t c = 0; c < chunks; ++c) {
      uint32_t len = static_cast<uint32_t>(std::min<size_t>(1024, n - c * 1024));
      std::vector<uint8_t> buf(zcoll::raw_chunk_bytes(len, sizeof(T)));
      size_t bytes = kcompress<T>(sc, x.data() + c * 1024, len, qz, buf.data());
      ASSERT_EQ(zcoll::load_u32(z.data() + 48 + 4 * c), bytes)
          << zt::kind_name(kind) << " chunk " << c;
      ASSERT_LE(pos + bytes, z.size());
      ASSERT_EQ(std::memcmp(z.data() + pos, buf.data(), bytes), 0)
          << zt::kind_name(kind) << " chunk " << c
          << " (active kernels: " << zcoll::active_kernels().name << ")";
      pos += bytes;
    }
    ASSERT_EQ(pos, z.size());
  }
}

TEST(Kernels, ActiveKernelsMatchScalarThroughTheApi) {
  RecordProperty("active_kernels", zcoll::active_kernels().name);
  std::printf("active kernels: %s\n", zcoll::active_kernels().name);
  stream_matches_scalar<float>(8);
  stream_matches_scalar<double>(9);
}

TEST(Kernels, QuantizerSetup) {
  zcoll::Quantizer<float> qf;
  zcoll::Quantizer<double> qd;
  ASSERT_TRUE(zcoll::make_quantizer<float>(0.5, &qf));
  EXPECT_EQ(qf.quantum, 2 * 0.5 * (1 - 1.0 / 64));
  EXPECT_EQ(qf.eb_check, 0.5f);
  ASSERT_TRUE(zcoll::make_quantizer<double>(0.5, &qd));
  EXPECT_EQ(qd.quantum, 2 * 0.5 * (1 - 1.0 / 1048576));
  EXPECT_EQ(qd.eb_check, 0.5);
  // float check value never above the double bound
  ASSERT_TRUE(zcoll::make_quantizer<float>(0.1, &qf));
  EXPECT_LE(static_cast<double>(qf.eb_check), 0.1);
  EXPECT_GT(static_cast<double>(std::nextafter(qf.eb_check, 1.0f)), 0.1);
  EXPECT_FALSE(zcoll::make_quantizer<double>(0.0, &qd));
  EXPECT_FALSE(zcoll::make_quantizer<double>(-1.0, &qd));
  EXPECT_FALSE(zcoll::make_quantizer<double>(std::numeric_limits<double>::infinity(), &qd));
  EXPECT_FALSE(zcoll::make_quantizer<double>(std::numeric_limits<double>::quiet_NaN(), &qd));
}

}  // namespace
