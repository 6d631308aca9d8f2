// dense_test.cc — the dense codec (zcoll_params.codec = ZCOLL_CODEC_DENSE, chunk
// kind 2 of format 1.3): round trips on every data file and on the adversarial
// inputs of test_data.h, edge lengths, the same codes as the fast codec, bytes
// independent of the thread count and of the chunk-range API, corrupt streams,
// and the homomorphic operations' refusal.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "codec/dense.h"
#include "codec/format.h"
#include "test_data.h"
#include "test_util.h"
#include "zcoll.h"

namespace {

// zt::compress with the codec first.
template <typename T>
std::vector<uint8_t> compress_with(const std::vector<T>& x, zcoll_codec codec, zcoll_eb_mode mode,
                                   double eb, uint32_t cs = 0, int threads = 1,
                                   uint64_t flags = 0) {
  return zt::compress(x, mode, eb, cs, threads, codec, flags);
}

// Every .f32 file of data/ and of ../shared/data (when present).
std::vector<std::string> data_files() {
  std::vector<std::string> files;
  for (const std::string& dir : {std::string(ZCOLL_TEST_SOURCE_DIR) + "/data",
                                 std::string(ZCOLL_TEST_SOURCE_DIR) + "/../shared/data"}) {
    std::error_code ec;
    for (const auto& e : std::filesystem::directory_iterator(dir, ec))
      if (e.path().extension() == ".f32") files.push_back(e.path().string());
  }
  return files;
}

std::vector<float> read_f32(const std::string& path) {
  std::ifstream f(path, std::ios::binary | std::ios::ate);
  std::vector<float> v(static_cast<size_t>(f.tellg()) / 4);
  f.seekg(0);
  f.read(reinterpret_cast<char*>(v.data()), static_cast<std::streamsize>(v.size() * 4));
  return v;
}

// n values of a smooth signal with a little noise.
std::vector<float> smooth(size_t n, uint64_t seed) {
  zt::Rng r(seed);
  std::vector<float> x(n);
  for (size_t i = 0; i < n; ++i)
    x[i] = static_cast<float>(10 * std::sin(0.01 * static_cast<double>(i)) + r.uniform(-0.1, 0.1));
  return x;
}

// The dense stream decodes to the fast stream's values (the same codes), except
// in chunks either codec stored raw (there: the input, bit for bit).
template <typename T>
void expect_same_values(const std::vector<T>& x, const std::vector<T>& dense,
                        const std::vector<T>& fast, const std::string& what) {
  size_t bad = 0;
  for (size_t i = 0; i < x.size(); ++i) {
    const bool ok = zt::bits_of(dense[i]) == zt::bits_of(fast[i]) ||
                    zt::bits_of(dense[i]) == zt::bits_of(x[i]);
    if (!ok && ++bad <= 3) ADD_FAILURE() << what << ": value " << i << " differs from fast's";
  }
  EXPECT_EQ(bad, 0u) << what;
}

TEST(Dense, DataFilesRoundTrip) {
  const std::vector<std::string> files = data_files();
  ASSERT_FALSE(files.empty()) << "no data files found";
  for (const std::string& path : files) {
    const std::vector<float> x = read_f32(path);
    for (double rel : {1e-2, 1e-3, 1e-4}) {
      const std::string what = path + " REL " + std::to_string(rel);
      const auto z = compress_with(x, ZCOLL_CODEC_DENSE, ZCOLL_EB_REL, rel);
      const auto f = compress_with(x, ZCOLL_CODEC_FAST, ZCOLL_EB_REL, rel);
      const zcoll_info info = zt::inspect(z);
      EXPECT_EQ(info.format_flags, ZCOLL_FORMAT_FLAG_DENSE) << what;
      EXPECT_LT(z.size(), f.size()) << what << ": dense is not smaller than fast";
      const std::vector<float> y = zt::decompress<float>(z, x.size());
      EXPECT_EQ(zt::count_violations(x, y, info.error_bound, what), 0u);
      expect_same_values(x, y, zt::decompress<float>(f, x.size()), what);
      EXPECT_EQ(compress_with(x, ZCOLL_CODEC_DENSE, ZCOLL_EB_REL, rel, 0, 3), z)
          << what << ": 3 threads";
    }
  }
}

template <typename T>
void adversarial_cases() {
  zt::Rng r(20261128);
  const size_t lengths[] = {0, 1, 2, 3, 5, 31, 33, 1023, 1025, 4097, 16385};
  for (int kind = 0; kind < zt::kNumKinds; ++kind)
    for (size_t n : lengths)
      for (uint32_t cs : {1024u, 0u}) {
        const double eb = std::pow(10.0, -static_cast<double>(r.below(6)));
        const zcoll_eb_mode mode = r.coin() ? ZCOLL_EB_REL : ZCOLL_EB_ABS;
        const std::vector<T> x = zt::make_case<T>(kind, n, r, mode, eb, cs);
        const std::string what = std::string(zt::kind_name(kind)) + " n=" + std::to_string(n);
        const auto z = compress_with(x, ZCOLL_CODEC_DENSE, mode, eb, cs);
        ASSERT_FALSE(z.empty() && n) << what;
        const zcoll_info info = zt::inspect(z);
        const std::vector<T> y = zt::decompress<T>(z, n);
        EXPECT_EQ(zt::count_violations(x, y, info.error_bound, what), 0u);
        const auto f = compress_with(x, ZCOLL_CODEC_FAST, mode, eb, cs);
        expect_same_values(x, y, zt::decompress<T>(f, n), what);
        EXPECT_EQ(compress_with(x, ZCOLL_CODEC_DENSE, mode, eb, cs, 4), z) << what << " threads";
        std::vector<T> acc(n, T(1));  // accumulate: out + x', in T
        ASSERT_EQ(zcoll_decompress_accumulate(z.data(), z.size(), acc.data(), n, 2), ZCOLL_SUCCESS);
        for (size_t i = 0; i < n; ++i)
          if (zt::bits_of(acc[i]) != zt::bits_of(static_cast<T>(T(1) + y[i])))
            ADD_FAILURE() << what << ": accumulate differs at " << i;
      }
}

TEST(Dense, AdversarialFloat) { adversarial_cases<float>(); }
TEST(Dense, AdversarialDouble) { adversarial_cases<double>(); }

// The chunk-range API builds the same stream, chunk by chunk.
TEST(Dense, ChunkRangeApiSameStream) {
  const std::vector<float> x = smooth(50000, 7);
  const auto z = compress_with(x, ZCOLL_CODEC_DENSE, ZCOLL_EB_ABS, 1e-3, 4096);
  zcoll_params p;
  zcoll_params_init(&p);
  p.eb_mode = ZCOLL_EB_ABS;
  p.error_bound = 1e-3;
  p.chunk_size = 4096;
  p.codec = ZCOLL_CODEC_DENSE;
  const size_t chunks = zcoll_chunk_count(x.size(), 4096);
  std::vector<uint8_t> out(zcoll_compress_bound(x.size(), ZCOLL_FLOAT32));
  std::vector<uint32_t> sizes(chunks);
  size_t pos = zcoll_header_size(x.size(), 4096), w = 0;
  for (size_t a = 0; a < chunks; a += 5) {
    const size_t b = std::min(chunks, a + 5);
    ASSERT_EQ(zcoll_compress_chunks(&p, ZCOLL_FLOAT32, x.data(), x.size(), a, b, out.data() + pos,
                                    out.size() - pos, &w, sizes.data() + a, 1),
              ZCOLL_SUCCESS)
        << zcoll_last_error();
    pos += w;
  }
  ASSERT_EQ(
      zcoll_compress_finish(&p, ZCOLL_FLOAT32, x.size(), sizes.data(), out.data(), out.size()),
      ZCOLL_SUCCESS);
  out.resize(pos);
  EXPECT_EQ(out, z);
}

TEST(Dense, UnknownCodecRejected) {
  zcoll_params p;
  zcoll_params_init(&p);
  int bad = 7;
  std::memcpy(&p.codec, &bad, sizeof bad);
  float x[4] = {1, 2, 3, 4};
  std::vector<uint8_t> out(zcoll_compress_bound(4, ZCOLL_FLOAT32));
  size_t size = 0;
  EXPECT_EQ(zcoll_compress(&p, ZCOLL_FLOAT32, x, 4, out.data(), out.size(), &size, 1),
            ZCOLL_ERR_INVALID_ARG);
}

// A smooth stream of one dense chunk, and the offset of that chunk.
std::vector<uint8_t> one_dense_chunk(size_t* at, uint64_t flags = 0) {
  const std::vector<float> x = smooth(3000, 3);
  auto z = compress_with(x, ZCOLL_CODEC_DENSE, ZCOLL_EB_ABS, 1e-2, 4096, 1, flags);
  *at = zcoll_header_size(x.size(), 4096);
  EXPECT_EQ(z[*at], zcoll::kChunkDense);
  return z;
}

zcoll_status decode(const std::vector<uint8_t>& z) {
  std::vector<float> y(3000);
  return zcoll_decompress(z.data(), z.size(), y.data(), y.size(), 1);
}

TEST(Dense, CorruptFramingIsCorrupt) {
  size_t at = 0;
  const std::vector<uint8_t> z = one_dense_chunk(&at);
  ASSERT_EQ(decode(z), ZCOLL_SUCCESS);
  auto with = [&](size_t off, uint8_t v) {
    std::vector<uint8_t> c = z;
    c[at + off] = v;
    return decode(c);
  };
  EXPECT_EQ(with(0, 3), ZCOLL_ERR_CORRUPT);                // unknown kind
  EXPECT_EQ(with(1, 0), ZCOLL_ERR_CORRUPT);                // predictor 0
  EXPECT_EQ(with(1, 5), ZCOLL_ERR_CORRUPT);                // predictor 5 (3, 4: dense_nd_test)
  EXPECT_EQ(with(2, 0), ZCOLL_ERR_CORRUPT);                // nsym low byte: sizes no longer add up
  EXPECT_EQ(with(3, 1), ZCOLL_ERR_CORRUPT);                // nsym > 168
  EXPECT_EQ(with(12, z[at + 12] ^ 1), ZCOLL_ERR_CORRUPT);  // frequencies no longer sum to 4096
  EXPECT_EQ(with(8, z[at + 8] + 8), ZCOLL_ERR_CORRUPT);    // rANS bytes vs chunk size
  // a state below 2^23
  const uint32_t nsym = z[at + 2] | z[at + 3] << 8;
  const size_t states = at + 12 + ((2 * nsym + 3) & ~size_t{3}) + zcoll::load_u32(&z[at + 4]);
  std::vector<uint8_t> c = z;
  c[states + 2] = 0, c[states + 3] = 0;
  EXPECT_EQ(decode(c), ZCOLL_ERR_CORRUPT);
  EXPECT_EQ(zcoll_decompress(z.data(), z.size() - 8, std::vector<float>(3000).data(), 3000, 1),
            ZCOLL_ERR_TRUNCATED);
  // a 1.2 reader's view: the flag cleared (with the header CRC fixed) leaves kind 2 unknown
  c = z;
  c[7] = 0;
  zcoll::store_u32(&c[44], zcoll::header_checksum(c.data(), 1));
  EXPECT_EQ(decode(c), ZCOLL_ERR_CORRUPT);
}

// Any byte of the payload changed: decoding never fails after validation nor
// reads outside the chunk (the sanitizer build checks the reads); with the
// checksum flag every change is CORRUPT.
TEST(Dense, PayloadFlipsDecodeOrAreCaught) {
  size_t at = 0;
  const std::vector<uint8_t> z = one_dense_chunk(&at);
  const std::vector<uint8_t> zc = one_dense_chunk(&at, ZCOLL_FLAG_CHECKSUM);
  for (size_t i = at; i < z.size(); ++i) {
    std::vector<uint8_t> c = z;
    c[i] ^= 0x5A;
    const zcoll_status s = decode(c);
    EXPECT_TRUE(s == ZCOLL_SUCCESS || s == ZCOLL_ERR_CORRUPT) << i;
    c = zc;
    c[i] ^= 0x5A;
    EXPECT_EQ(decode(c), ZCOLL_ERR_CORRUPT) << i;
  }
}

TEST(Dense, HomomorphicOpsRefuseDocCombines) {
  const std::vector<float> a = smooth(20000, 11), b = smooth(20000, 12);
  const auto za = compress_with(a, ZCOLL_CODEC_DENSE, ZCOLL_EB_ABS, 1e-3);
  const auto zb = compress_with(b, ZCOLL_CODEC_DENSE, ZCOLL_EB_ABS, 1e-3);
  std::vector<uint8_t> out(zcoll_compress_bound(a.size(), ZCOLL_FLOAT32));
  size_t size = 0;
  EXPECT_EQ(zcoll_hom_add(za.data(), za.size(), zb.data(), zb.size(), out.data(), out.size(), &size,
                          nullptr, 1),
            ZCOLL_ERR_UNSUPPORTED);
  EXPECT_EQ(zcoll_hom_negate(za.data(), za.size(), out.data(), out.size(), &size, 1),
            ZCOLL_ERR_UNSUPPORTED);
  ASSERT_EQ(zcoll_doc_combine(za.data(), za.size(), zb.data(), zb.size(), ZCOLL_OP_SUM, out.data(),
                              out.size(), &size, 2),
            ZCOLL_SUCCESS)
      << zcoll_last_error();
  out.resize(size);
  const zcoll_info info = zt::inspect(out);
  EXPECT_EQ(info.format_flags, ZCOLL_FORMAT_FLAG_DENSE);
  EXPECT_EQ(out[zcoll_header_size(a.size(), 0)], zcoll::kChunkDense);
  const std::vector<float> y = zt::decompress<float>(out, a.size());
  std::vector<float> sum(a.size());
  for (size_t i = 0; i < a.size(); ++i) sum[i] = a[i] + b[i];
  // the sum's bound, plus half a float ulp of the sum for the addition itself
  size_t bad = 0;
  for (size_t i = 0; i < a.size(); ++i)
    bad += !zt::within_bound(sum[i], y[i], info.error_bound + std::fabs(sum[i]) * 6e-8);
  EXPECT_EQ(bad, 0u);
}

}  // namespace
