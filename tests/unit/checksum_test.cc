// checksum_test.cc — the optional chunk checksums of format 1.1
// (ZCOLL_FLAG_CHECKSUM, docs/format.md sections 2 and 3): the layout (the
// 1.0 stream plus the flag and a trailer), every bit flip detected, the
// chunk-range API and the homomorphic operations writing valid checksums, and
// the params struct rules.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <vector>

#include "codec/format.h"
#include "test_util.h"
#include "zcoll.h"

namespace {

using Bytes = std::vector<uint8_t>;

std::vector<float> wave(size_t n, float phase = 0) {
  std::vector<float> x(n);
  for (size_t i = 0; i < n; ++i)
    x[i] = static_cast<float>(std::sin(0.013 * i + phase) * 40 + std::cos(0.0007 * i) * 3);
  if (n > 1500) x[1500] = NAN;  // one raw chunk
  return x;
}

Bytes compress(const std::vector<float>& x, uint64_t flags, uint32_t chunk = 1024,
               double eb = 1e-2) {
  zcoll_params p = ZCOLL_PARAMS_INITIALIZER;
  p.eb_mode = ZCOLL_EB_ABS;
  p.error_bound = eb;
  p.chunk_size = chunk;
  p.flags = flags;
  Bytes z(zcoll_compress_bound(x.size(), ZCOLL_FLOAT32));
  size_t sz = 0;
  EXPECT_EQ(zcoll_compress(&p, ZCOLL_FLOAT32, x.data(), x.size(), z.data(), z.size(), &sz, 2),
            ZCOLL_SUCCESS);
  z.resize(sz);
  return z;
}

uint32_t u32(const Bytes& z, size_t off) {
  uint32_t v;
  std::memcpy(&v, z.data() + off, 4);
  return v;
}

TEST(Checksum, LayoutIsThePlainStreamWithFlagAndTrailer) {
  for (size_t n : {0, 1, 1024, 3000, 5 * 1024 + 17}) {
    const auto x = wave(n);
    const Bytes plain = compress(x, 0), sum = compress(x, ZCOLL_FLAG_CHECKSUM);
    const size_t chunks = zcoll_chunk_count(n, 1024);
    const size_t trailer = (4 * chunks + 7) / 8 * 8;
    ASSERT_EQ(sum.size(), plain.size() + trailer) << n;
    EXPECT_EQ(plain[7], 0);
    EXPECT_EQ(sum[7], ZCOLL_FLAG_CHECKSUM);
    // header bytes other than flags and crc, the index and every chunk are the same
    EXPECT_TRUE(std::equal(plain.begin(), plain.begin() + 7, sum.begin()));
    EXPECT_TRUE(std::equal(plain.begin() + 8, plain.begin() + 44, sum.begin() + 8));
    EXPECT_TRUE(std::equal(plain.begin() + 48, plain.end(), sum.begin() + 48));
    // the trailer: CRC-32C of each chunk as the index delimits it, zero padding
    size_t off = zcoll_header_size(n, 1024);
    for (size_t c = 0; c < chunks; ++c) {
      const uint32_t size = u32(plain, 48 + 4 * c);
      EXPECT_EQ(u32(sum, plain.size() + 4 * c), zcoll::crc32c(0, plain.data() + off, size));
      off += size;
    }
    for (size_t i = plain.size() + 4 * chunks; i < sum.size(); ++i) EXPECT_EQ(sum[i], 0);
    zcoll_info info = ZCOLL_INFO_INITIALIZER;
    ASSERT_EQ(zcoll_inspect(sum.data(), sum.size(), &info), ZCOLL_SUCCESS);
    EXPECT_EQ(info.format_flags, ZCOLL_FLAG_CHECKSUM);
    EXPECT_EQ(info.stream_size, sum.size());
    size_t ss = 0;
    ASSERT_EQ(zcoll_stream_size(sum.data(), sum.size(), &ss), ZCOLL_SUCCESS);
    EXPECT_EQ(ss, sum.size());
    ASSERT_EQ(zcoll_inspect(plain.data(), plain.size(), &info), ZCOLL_SUCCESS);
    EXPECT_EQ(info.format_flags, 0u);
    // the same values decode from both
    std::vector<float> a(n + 1), b(n + 1);
    ASSERT_EQ(zcoll_decompress(plain.data(), plain.size(), a.data(), n, 1), ZCOLL_SUCCESS);
    ASSERT_EQ(zcoll_decompress(sum.data(), sum.size(), b.data(), n, 1), ZCOLL_SUCCESS);
    EXPECT_EQ(std::memcmp(a.data(), b.data(), n * 4), 0);
  }
}

TEST(Checksum, CompressBoundCoversTheTrailer) {
  // all chunks raw (noise at a tiny bound), odd chunk counts, the smallest chunk
  std::vector<float> x(7 * 1024 + 1);
  uint32_t s = 12345;
  for (float& v : x) {
    s = s * 1664525u + 1013904223u;
    std::memcpy(&v, &s, 4);
    if (!std::isfinite(v)) v = 1;
  }
  const Bytes z = compress(x, ZCOLL_FLAG_CHECKSUM, 1024, 1e-30);
  EXPECT_LE(z.size(), zcoll_compress_bound(x.size(), ZCOLL_FLOAT32));
}

// Every single-bit flip anywhere in a checksummed stream fails every reader.
TEST(Checksum, EveryBitFlipIsDetected) {
  const auto x = wave(3000);
  const Bytes z = compress(x, ZCOLL_FLAG_CHECKSUM);
  const Bytes other = compress(wave(3000, 1), ZCOLL_FLAG_CHECKSUM);
  std::vector<float> y(3000);
  Bytes out(zcoll_compress_bound(3000, ZCOLL_FLOAT32));
  size_t missed = 0, missed_hom = 0;
  for (size_t bit = 0; bit < z.size() * 8; ++bit) {
    Bytes bad = z;
    bad[bit / 8] ^= static_cast<uint8_t>(1u << (bit % 8));
    if (zcoll_decompress(bad.data(), bad.size(), y.data(), y.size(), 1) == ZCOLL_SUCCESS) ++missed;
    size_t osz = 0;
    if (zcoll_hom_add(other.data(), other.size(), bad.data(), bad.size(), out.data(), out.size(),
                      &osz, nullptr, 1) == ZCOLL_SUCCESS)
      ++missed_hom;
  }
  EXPECT_EQ(missed, 0u) << "of " << z.size() * 8 << " flips";
  EXPECT_EQ(missed_hom, 0u);
  // without the flag, payload flips decode silently (what the flag is for)
  const Bytes plain = compress(x, 0);
  size_t silent = 0;
  for (size_t bit = zcoll_header_size(3000, 1024) * 8; bit < plain.size() * 8; bit += 7) {
    Bytes bad = plain;
    bad[bit / 8] ^= static_cast<uint8_t>(1u << (bit % 8));
    silent += zcoll_decompress(bad.data(), bad.size(), y.data(), y.size(), 1) == ZCOLL_SUCCESS;
  }
  EXPECT_GT(silent, 0u);
}

TEST(Checksum, ChunkRangeApiWritesTheSameStream) {
  const auto x = wave(9 * 1024 + 3);
  const Bytes whole = compress(x, ZCOLL_FLAG_CHECKSUM);
  zcoll_params p = ZCOLL_PARAMS_INITIALIZER;
  p.eb_mode = ZCOLL_EB_ABS;
  p.error_bound = 1e-2;
  p.chunk_size = 1024;
  p.flags = ZCOLL_FLAG_CHECKSUM;
  const size_t chunks = zcoll_chunk_count(x.size(), 1024);
  Bytes z(zcoll_compress_bound(x.size(), ZCOLL_FLOAT32));
  std::vector<uint32_t> sizes(chunks);
  size_t pos = zcoll_header_size(x.size(), 1024);
  for (size_t a = 0; a < chunks; a += 4) {
    const size_t b = std::min(chunks, a + 4);
    size_t w = 0;
    ASSERT_EQ(zcoll_compress_chunks(&p, ZCOLL_FLOAT32, x.data(), x.size(), a, b, z.data() + pos,
                                    z.size() - pos, &w, sizes.data() + a, 1),
              ZCOLL_SUCCESS);
    pos += w;
  }
  // no room for the trailer: refused
  EXPECT_EQ(zcoll_compress_finish(&p, ZCOLL_FLOAT32, x.size(), sizes.data(), z.data(), pos),
            ZCOLL_ERR_BUFFER_TOO_SMALL);
  ASSERT_EQ(zcoll_compress_finish(&p, ZCOLL_FLOAT32, x.size(), sizes.data(), z.data(), z.size()),
            ZCOLL_SUCCESS);
  size_t ss = 0;
  ASSERT_EQ(zcoll_stream_size(z.data(), z.size(), &ss), ZCOLL_SUCCESS);
  EXPECT_EQ(ss, pos + zcoll_header_size(x.size(), 1024) - 48);
  ASSERT_EQ(ss, whole.size());
  EXPECT_EQ(std::memcmp(z.data(), whole.data(), ss), 0);
  // a range decode verifies only its chunks: a flip in chunk 0 fails [0,1), not [1,2)
  Bytes bad = whole;
  bad[zcoll_header_size(x.size(), 1024) + 5] ^= 0x10;
  std::vector<float> y(x.size());
  EXPECT_EQ(zcoll_decompress_chunks(bad.data(), bad.size(), 0, 1, y.data(), y.size(), 1),
            ZCOLL_ERR_CORRUPT);
  EXPECT_EQ(zcoll_decompress_chunks(bad.data(), bad.size(), 1, 2, y.data(), y.size(), 1),
            ZCOLL_SUCCESS);
}

void expect_valid_checksummed(const Bytes& z, size_t size, const char* what) {
  zcoll_info info = ZCOLL_INFO_INITIALIZER;
  ASSERT_EQ(zcoll_inspect(z.data(), size, &info), ZCOLL_SUCCESS) << what << zcoll_last_error();
  EXPECT_EQ(info.format_flags, ZCOLL_FLAG_CHECKSUM) << what;
  EXPECT_EQ(info.stream_size, size) << what;
}

// The homomorphic operations verify their inputs and checksum their output when
// an input has the flag; the values are those of the same operation without it.
TEST(Checksum, HomomorphicOutputsCarryValidChecksums) {
  const size_t n = 6 * 1024 + 100;
  const auto x = wave(n), w = wave(n, 2);
  const Bytes a = compress(x, ZCOLL_FLAG_CHECKSUM), b = compress(w, ZCOLL_FLAG_CHECKSUM);
  const Bytes a0 = compress(x, 0), b0 = compress(w, 0);
  const size_t cap = zcoll_compress_bound(n, ZCOLL_FLOAT32);
  Bytes o(cap), o0(cap);
  size_t sz = 0, sz0 = 0;
  std::vector<float> y(n), y0(n);
  auto same_values = [&](const char* what) {
    ASSERT_EQ(zcoll_decompress(o.data(), sz, y.data(), n, 1), ZCOLL_SUCCESS) << what;
    ASSERT_EQ(zcoll_decompress(o0.data(), sz0, y0.data(), n, 1), ZCOLL_SUCCESS) << what;
    EXPECT_TRUE(zt::same_bytes(y.data(), y0.data(), n * 4)) << what;
  };
  for (int threads : {1, 3}) {
    ASSERT_EQ(
        zcoll_hom_add(a.data(), a.size(), b.data(), b.size(), o.data(), cap, &sz, nullptr, threads),
        ZCOLL_SUCCESS);
    ASSERT_EQ(zcoll_hom_add(a0.data(), a0.size(), b0.data(), b0.size(), o0.data(), cap, &sz0,
                            nullptr, threads),
              ZCOLL_SUCCESS);
    expect_valid_checksummed(o, sz, "hom_add");
    same_values("hom_add");
  }
  // one input checksummed is enough
  ASSERT_EQ(zcoll_hom_add(a0.data(), a0.size(), b.data(), b.size(), o.data(), cap, &sz, nullptr, 1),
            ZCOLL_SUCCESS);
  expect_valid_checksummed(o, sz, "hom_add mixed");
  ASSERT_EQ(zcoll_hom_sub(a.data(), a.size(), b.data(), b.size(), o.data(), cap, &sz, nullptr, 2),
            ZCOLL_SUCCESS);
  ASSERT_EQ(
      zcoll_hom_sub(a0.data(), a0.size(), b0.data(), b0.size(), o0.data(), cap, &sz0, nullptr, 2),
      ZCOLL_SUCCESS);
  expect_valid_checksummed(o, sz, "hom_sub");
  same_values("hom_sub");
  ASSERT_EQ(zcoll_hom_negate(a.data(), a.size(), o.data(), cap, &sz, 2), ZCOLL_SUCCESS);
  ASSERT_EQ(zcoll_hom_negate(a0.data(), a0.size(), o0.data(), cap, &sz0, 2), ZCOLL_SUCCESS);
  expect_valid_checksummed(o, sz, "hom_negate");
  same_values("hom_negate");
  for (zcoll_op op : {ZCOLL_OP_SUM, ZCOLL_OP_MAX, ZCOLL_OP_PROD}) {
    ASSERT_EQ(zcoll_doc_combine(a.data(), a.size(), b.data(), b.size(), op, o.data(), cap, &sz, 2),
              ZCOLL_SUCCESS);
    ASSERT_EQ(
        zcoll_doc_combine(a0.data(), a0.size(), b0.data(), b0.size(), op, o0.data(), cap, &sz0, 2),
        ZCOLL_SUCCESS);
    expect_valid_checksummed(o, sz, "doc_combine");
    same_values("doc_combine");
  }
  Bytes acc(cap);
  std::memcpy(acc.data(), a.data(), a.size());
  ASSERT_EQ(zcoll_hom_accumulate(acc.data(), a.size(), cap, &sz, b.data(), b.size(), nullptr, 1),
            ZCOLL_SUCCESS);
  ASSERT_EQ(zcoll_hom_set_divisor(acc.data(), sz, 2), ZCOLL_SUCCESS);
  expect_valid_checksummed(acc, sz, "hom_accumulate + set_divisor");
  // a corrupt checksummed input is refused by each operation
  Bytes bad = b;
  bad[zcoll_header_size(n, 1024) + 100] ^= 0x04;
  EXPECT_EQ(
      zcoll_hom_add(a.data(), a.size(), bad.data(), bad.size(), o.data(), cap, &sz, nullptr, 1),
      ZCOLL_ERR_CORRUPT);
  EXPECT_EQ(zcoll_doc_combine(a.data(), a.size(), bad.data(), bad.size(), ZCOLL_OP_MAX, o.data(),
                              cap, &sz, 1),
            ZCOLL_ERR_CORRUPT);
  EXPECT_EQ(zcoll_hom_negate(bad.data(), bad.size(), o.data(), cap, &sz, 1), ZCOLL_ERR_CORRUPT);
}

TEST(Checksum, ParamsFlagsFollowTheStructRules) {
  const auto x = wave(2000);
  Bytes z(zcoll_compress_bound(x.size(), ZCOLL_FLOAT32));
  size_t sz = 0;
  zcoll_params p = ZCOLL_PARAMS_INITIALIZER;
  p.eb_mode = ZCOLL_EB_ABS;
  p.error_bound = 1e-2;
  p.flags = 0x2;  // undefined
  EXPECT_EQ(zcoll_compress(&p, ZCOLL_FLOAT32, x.data(), x.size(), z.data(), z.size(), &sz, 1),
            ZCOLL_ERR_INVALID_ARG);
  // a 1.0 caller's struct ends before flags: no checksum, whatever lies beyond
  p.flags = ZCOLL_FLAG_CHECKSUM;
  p.struct_size = offsetof(zcoll_params, flags);
  ASSERT_EQ(zcoll_compress(&p, ZCOLL_FLOAT32, x.data(), x.size(), z.data(), z.size(), &sz, 1),
            ZCOLL_SUCCESS);
  EXPECT_EQ(z[7], 0);
  // a 1.0 caller's zcoll_info (ending at stream_size) is filled without format_flags
  const Bytes s = compress(x, ZCOLL_FLAG_CHECKSUM);
  zcoll_info info = ZCOLL_INFO_INITIALIZER;
  info.format_flags = 77;
  info.struct_size = offsetof(zcoll_info, format_flags);
  ASSERT_EQ(zcoll_inspect(s.data(), s.size(), &info), ZCOLL_SUCCESS);
  EXPECT_EQ(info.format_flags, 77u);
  EXPECT_EQ(info.stream_size, s.size());
}

}  // namespace
