// stream_api_test.cc — determinism (threads), the chunk-range API, partial and
// accumulating decompression, and the compressed-size bound.
#include <cmath>
#include <cstring>
#include <vector>

#include "test_data.h"
#include "test_util.h"

namespace {

using zt::Rng;

// Smooth data with NaNs in a few chunks (so raw and quantized chunks alternate)
// and a noisy chunk.
template <typename T>
std::vector<T> mixed_data(size_t n, uint32_t cs, uint64_t seed) {
  if (cs == 0) cs = ZCOLL_DEFAULT_CHUNK_SIZE;
  Rng r(seed);
  std::vector<T> x(n);
  for (size_t i = 0; i < n; ++i)
    x[i] = static_cast<T>(10 * std::sin(0.001 * i) + r.uniform(-0.01, 0.01));
  const size_t chunks = (n + cs - 1) / cs;
  for (size_t c = 1; c < chunks; c += 3)
    x[c * cs + r.below(std::min<size_t>(cs, n - c * cs))] = zt::nan_with_payload<T>(r);
  if (chunks > 2)
    for (size_t i = 2 * cs; i < std::min(n, 3 * size_t{cs}); ++i)
      x[i] = static_cast<T>(r.uniform(-1e6, 1e6));
  return x;
}

template <typename T>
void threads_identical(size_t n, uint32_t cs, zcoll_eb_mode mode, double eb) {
  std::vector<T> x = mixed_data<T>(n, cs, n + cs);
  std::vector<uint8_t> z1 = zt::compress(x, mode, eb, cs, 1);
  ASSERT_FALSE(z1.empty());
  zcoll_info info = zt::inspect(z1);
  EXPECT_GT(info.raw_chunks, 0u);
  EXPECT_LT(info.raw_chunks, info.chunks);
  for (int t : {2, 3, 16, 0}) {
    std::vector<uint8_t> zt_ = zt::compress(x, mode, eb, cs, t);
    ASSERT_EQ(zt_.size(), z1.size()) << "threads=" << t;
    EXPECT_EQ(std::memcmp(zt_.data(), z1.data(), z1.size()), 0) << "threads=" << t;
  }
  std::vector<T> y1 = zt::decompress<T>(z1, n, 1);
  for (int t : {2, 16, 0}) {
    std::vector<T> yt = zt::decompress<T>(z1, n, t);
    EXPECT_EQ(std::memcmp(yt.data(), y1.data(), n * sizeof(T)), 0) << "threads=" << t;
  }
  EXPECT_EQ(zt::count_violations(x, y1, info.error_bound, "threads"), 0u);
}

TEST(Determinism, ThreadCountNeverChangesBytes) {
  threads_identical<float>(41 * 1024 + 3, 1024, ZCOLL_EB_ABS, 1e-3);
  threads_identical<double>(41 * 1024 + 3, 1024, ZCOLL_EB_REL, 1e-4);
  threads_identical<float>(5 * 16384 + 1, 0, ZCOLL_EB_REL, 1e-3);
  threads_identical<double>(17 * 2048 + 31, 2048, ZCOLL_EB_ABS, 0.5);
}

// A hybrid code calls the library from its own OpenMP threads. There, with
// nesting off, a region the library opens has one thread whatever it asked, and
// a call on one thread opens none: every thread count must still give the bytes
// of the call outside (before the fix, threads >= 2 lost all runs but the first,
// and a 1-thread hom add indexed its scratch with the outer thread's number).
TEST(Determinism, CallsInsideAnOpenMPRegion) {
  const size_t n = 9 * 1024 + 5;
  const uint32_t cs = 1024;
  const std::vector<float> x = mixed_data<float>(n, cs, 3), y = mixed_data<float>(n, cs, 4);
  const auto hom = [](const std::vector<uint8_t>& a, const std::vector<uint8_t>& b, int threads) {
    std::vector<uint8_t> out(a.size() + b.size() + 4096);
    size_t size = 0;
    if (zcoll_hom_add(a.data(), a.size(), b.data(), b.size(), out.data(), out.size(), &size,
                      nullptr, threads) != ZCOLL_SUCCESS)
      return std::vector<uint8_t>();
    out.resize(size);
    return out;
  };
  const std::vector<uint8_t> za = zt::compress(x, ZCOLL_EB_ABS, 1e-3, cs, 1);
  const std::vector<uint8_t> zb = zt::compress(y, ZCOLL_EB_ABS, 1e-3, cs, 1);
  const std::vector<uint8_t> zr = zt::compress(x, ZCOLL_EB_REL, 1e-3, cs, 1);  // range pass
  const std::vector<uint8_t> sum = hom(za, zb, 1);
  ASSERT_FALSE(sum.empty());
  const std::vector<float> dec = zt::decompress<float>(za, n, 1);
  int wrong = 0;
#pragma omp parallel num_threads(2) reduction(+ : wrong)
  for (int t : {1, 2, 3, 0}) {
    wrong += zt::compress(x, ZCOLL_EB_ABS, 1e-3, cs, t) != za;
    wrong += zt::compress(x, ZCOLL_EB_REL, 1e-3, cs, t) != zr;
    wrong += hom(za, zb, t) != sum;
    const std::vector<float> d = zt::decompress<float>(za, n, t);
    for (size_t i = 0; i < n; ++i) wrong += zt::bits_of(d[i]) != zt::bits_of(dec[i]);
  }
  EXPECT_EQ(wrong, 0);
}

TEST(Determinism, RepeatedCallsGiveSameBytes) {
  std::vector<float> x = mixed_data<float>(20000, 1024, 5);
  std::vector<uint8_t> a = zt::compress(x, ZCOLL_EB_ABS, 0.01, 1024, 2);
  std::vector<uint8_t> b = zt::compress(x, ZCOLL_EB_ABS, 0.01, 1024, 2);
  EXPECT_EQ(a, b);
}

// ---- chunk-range API ----------------------------------------------------------

template <typename T>
void chunk_ranges_match(size_t n, uint32_t cs, double eb, zcoll_eb_mode mode,
                        const std::vector<std::vector<size_t>>& splits) {
  std::vector<T> x = mixed_data<T>(n, cs, 11 * n);
  std::vector<uint8_t> whole = zt::compress(x, mode, eb, cs, 2);
  ASSERT_FALSE(whole.empty());
  zcoll_params p;
  zcoll_params_init(&p);
  p.eb_mode = mode;
  p.error_bound = eb;
  p.chunk_size = cs;
  if (mode == ZCOLL_EB_REL) {  // resolve first, as the API asks
    double abs_eb;
    ASSERT_EQ(zcoll_resolve_error_bound(&p, zt::dtype_of<T>(), x.data(), n, &abs_eb, 1),
              ZCOLL_SUCCESS);
    p.eb_mode = ZCOLL_EB_ABS;
    p.error_bound = abs_eb;
  }
  const size_t chunks = zcoll_chunk_count(n, cs ? cs : ZCOLL_DEFAULT_CHUNK_SIZE);
  for (const auto& split : splits) {  // split: range boundaries, 0 ... chunks
    for (int threads : {1, 2}) {
      const size_t cap = zcoll_compress_bound(n, zt::dtype_of<T>());
      std::vector<uint8_t> out(cap, 0xEE);
      std::vector<uint32_t> sizes(chunks, 0);
      size_t pos = zcoll_header_size(n, cs);
      for (size_t i = 0; i + 1 < split.size(); ++i) {
        size_t a = std::min(split[i], chunks), b = std::min(split[i + 1], chunks);
        size_t w = 12345;
        ASSERT_EQ(zcoll_compress_chunks(&p, zt::dtype_of<T>(), x.data(), n, a, b, out.data() + pos,
                                        cap - pos, &w, sizes.data() + a, threads),
                  ZCOLL_SUCCESS)
            << zcoll_last_error();
        if (a == b) {
          EXPECT_EQ(w, 0u);
        }
        pos += w;
      }
      ASSERT_EQ(zcoll_compress_finish(&p, zt::dtype_of<T>(), n, sizes.data(), out.data(), cap),
                ZCOLL_SUCCESS)
          << zcoll_last_error() << " n=" << n << " chunks=" << chunks;
      ASSERT_EQ(pos, whole.size());
      EXPECT_EQ(std::memcmp(out.data(), whole.data(), pos), 0);
    }
  }
}

TEST(ChunkRangeApi, SameBytesAsWholeStream) {
  std::vector<std::vector<size_t>> s6 = {{0, 6},
                                         {0, 1, 2, 3, 4, 5, 6},
                                         {0, 2, 2, 5, 6},
                                         {0, 3, 6},
                                         {0, 0, 1, 6, 6}};
  chunk_ranges_match<float>(5 * 1024 + 17, 1024, 1e-3, ZCOLL_EB_ABS, s6);
  chunk_ranges_match<double>(5 * 1024 + 17, 1024, 1e-3, ZCOLL_EB_ABS, s6);
  chunk_ranges_match<float>(6 * 1024, 1024, 1e-2, ZCOLL_EB_REL, s6);
  chunk_ranges_match<double>(5 * 1024 + 1, 1024, 1e-5, ZCOLL_EB_REL, s6);
  chunk_ranges_match<float>(2 * 16384 + 1, 0, 0.25, ZCOLL_EB_ABS,
                            {{0, 3}, {0, 1, 2, 3}, {0, 2, 3}});
  chunk_ranges_match<double>(0, 1024, 0.25, ZCOLL_EB_ABS, {{0, 0}});
  chunk_ranges_match<float>(7, 1024, 0.25, ZCOLL_EB_ABS, {{0, 1}, {0, 0, 1}});
}

TEST(ChunkRangeApi, RejectsBadRanges) {
  std::vector<float> x(3000, 1.0f);
  zcoll_params p;
  zcoll_params_init(&p);
  p.eb_mode = ZCOLL_EB_ABS;
  p.error_bound = 0.1;
  p.chunk_size = 1024;
  std::vector<uint8_t> out(zcoll_compress_bound(3000, ZCOLL_FLOAT32));
  std::vector<uint32_t> sizes(3);
  size_t w;
  EXPECT_EQ(zcoll_compress_chunks(&p, ZCOLL_FLOAT32, x.data(), 3000, 2, 4, out.data(), out.size(),
                                  &w, sizes.data(), 1),
            ZCOLL_ERR_INVALID_ARG);
  EXPECT_STRNE(zcoll_last_error(), "");
  EXPECT_EQ(zcoll_compress_chunks(&p, ZCOLL_FLOAT32, x.data(), 3000, 2, 1, out.data(), out.size(),
                                  &w, sizes.data(), 1),
            ZCOLL_ERR_INVALID_ARG);
  EXPECT_STRNE(zcoll_last_error(), "");
  // capacity below the raw size of the range
  EXPECT_EQ(zcoll_compress_chunks(&p, ZCOLL_FLOAT32, x.data(), 3000, 0, 2, out.data(),
                                  2 * (8 + 4096) - 1, &w, sizes.data(), 1),
            ZCOLL_ERR_BUFFER_TOO_SMALL);
  EXPECT_STRNE(zcoll_last_error(), "");
  EXPECT_EQ(zcoll_compress_chunks(&p, ZCOLL_FLOAT32, x.data(), 3000, 0, 2, out.data(),
                                  2 * (8 + 4096), &w, sizes.data(), 1),
            ZCOLL_SUCCESS);
  EXPECT_STREQ(zcoll_last_error(), "");
  // REL must be resolved first
  p.eb_mode = ZCOLL_EB_REL;
  EXPECT_EQ(zcoll_compress_chunks(&p, ZCOLL_FLOAT32, x.data(), 3000, 0, 1, out.data(), out.size(),
                                  &w, sizes.data(), 1),
            ZCOLL_ERR_INVALID_ARG);
  EXPECT_STRNE(zcoll_last_error(), "");
  EXPECT_EQ(zcoll_compress_finish(&p, ZCOLL_FLOAT32, 3000, sizes.data(), out.data(), out.size()),
            ZCOLL_ERR_INVALID_ARG);
  EXPECT_STRNE(zcoll_last_error(), "");
  p.eb_mode = ZCOLL_EB_ABS;
  EXPECT_EQ(zcoll_compress_finish(&p, ZCOLL_FLOAT32, 3000, sizes.data(), out.data(), 48 + 12),
            ZCOLL_ERR_BUFFER_TOO_SMALL);
  EXPECT_STRNE(zcoll_last_error(), "");
  EXPECT_EQ(zcoll_compress_finish(&p, ZCOLL_FLOAT32, 3000, nullptr, out.data(), out.size()),
            ZCOLL_ERR_INVALID_ARG);
  EXPECT_STRNE(zcoll_last_error(), "");
}

// ---- partial and accumulating decompression -----------------------------------

template <typename T>
void decompress_subranges(size_t n, uint32_t cs) {
  std::vector<T> x = mixed_data<T>(n, cs, 3 * n);
  std::vector<uint8_t> z = zt::compress(x, ZCOLL_EB_ABS, 0.01, cs, 2);
  ASSERT_FALSE(z.empty());
  std::vector<T> full = zt::decompress<T>(z, n, 1);
  const size_t chunks = zcoll_chunk_count(n, cs);
  const T sentinel = static_cast<T>(-12345.5);
  for (size_t a = 0; a <= chunks; ++a) {
    for (size_t b = a; b <= chunks; ++b) {
      std::vector<T> y(n, sentinel);
      ASSERT_EQ(zcoll_decompress_chunks(z.data(), z.size(), a, b, y.data(), n, 2), ZCOLL_SUCCESS)
          << zcoll_last_error();
      for (size_t i = 0; i < n; ++i) {
        size_t c = i / cs;
        T want = (c >= a && c < b) ? full[i] : sentinel;
        ASSERT_EQ(zt::bits_of(y[i]), zt::bits_of(want))
            << "range [" << a << "," << b << ") i=" << i;
      }
    }
  }
  // accumulate over a sub-range adds only there
  std::vector<T> y(n, T(1.5));
  ASSERT_EQ(zcoll_decompress_accumulate_chunks(z.data(), z.size(), 1, chunks, y.data(), n, 1),
            ZCOLL_SUCCESS);
  for (size_t i = 0; i < n; ++i) {
    T want = i < cs ? T(1.5) : static_cast<T>(T(1.5) + full[i]);
    ASSERT_EQ(zt::bits_of(y[i]), zt::bits_of(want)) << i;
  }
  // out-of-range chunk ranges
  std::vector<T> w(n);
  EXPECT_EQ(zcoll_decompress_chunks(z.data(), z.size(), 0, chunks + 1, w.data(), n, 1),
            ZCOLL_ERR_INVALID_ARG);
  EXPECT_STRNE(zcoll_last_error(), "");
  EXPECT_EQ(zcoll_decompress_chunks(z.data(), z.size(), 2, 1, w.data(), n, 1),
            ZCOLL_ERR_INVALID_ARG);
  EXPECT_STRNE(zcoll_last_error(), "");
}

TEST(PartialDecompress, EverySubRange) {
  decompress_subranges<float>(6 * 1024 + 5, 1024);
  decompress_subranges<double>(5 * 1024, 1024);
  decompress_subranges<float>(2 * 2048 + 1, 2048);
}

template <typename T>
void accumulate_exact(size_t n, uint32_t cs, zcoll_eb_mode mode, double eb, int threads) {
  std::vector<T> x = mixed_data<T>(n, cs, 17 * n);
  std::vector<uint8_t> z = zt::compress(x, mode, eb, cs, threads);
  ASSERT_FALSE(z.empty());
  std::vector<T> dec = zt::decompress<T>(z, n, threads);
  Rng r(n);
  std::vector<T> acc(n);
  for (auto& v : acc) v = static_cast<T>(r.uniform(-100, 100));
  std::vector<T> want(n);
  for (size_t i = 0; i < n; ++i) want[i] = static_cast<T>(acc[i] + dec[i]);
  ASSERT_EQ(zcoll_decompress_accumulate(z.data(), z.size(), acc.data(), n, threads), ZCOLL_SUCCESS)
      << zcoll_last_error();
  for (size_t i = 0; i < n; ++i) ASSERT_EQ(zt::bits_of(acc[i]), zt::bits_of(want[i])) << i;
  // twice more: the sum of three decodes
  for (int k = 0; k < 2; ++k) {
    for (size_t i = 0; i < n; ++i) want[i] = static_cast<T>(want[i] + dec[i]);
    ASSERT_EQ(zcoll_decompress_accumulate(z.data(), z.size(), acc.data(), n, threads),
              ZCOLL_SUCCESS);
  }
  for (size_t i = 0; i < n; ++i) ASSERT_EQ(zt::bits_of(acc[i]), zt::bits_of(want[i])) << i;
}

TEST(Accumulate, AddsExactlyTheDecompressedValues) {
  for (int t : {1, 2}) {
    accumulate_exact<float>(10 * 1024 + 9, 1024, ZCOLL_EB_ABS, 1e-3, t);
    accumulate_exact<double>(10 * 1024 + 9, 1024, ZCOLL_EB_REL, 1e-3, t);
    accumulate_exact<float>(33, 1024, ZCOLL_EB_REL, 1e-2, t);
    accumulate_exact<double>(16385, 0, ZCOLL_EB_ABS, 0.5, t);
  }
}

TEST(Decompress, LargerOutputAndTrailingBytes) {
  std::vector<float> x = mixed_data<float>(3000, 1024, 1);
  std::vector<uint8_t> z = zt::compress(x, ZCOLL_EB_ABS, 0.1, 1024, 1);
  std::vector<float> ref = zt::decompress<float>(z, x.size());
  // trailing garbage after the stream is ignored
  std::vector<uint8_t> zz = z;
  for (int i = 0; i < 100; ++i) zz.push_back(static_cast<uint8_t>(i * 37));
  zcoll_info info = ZCOLL_INFO_INITIALIZER;
  ASSERT_EQ(zcoll_inspect(zz.data(), zz.size(), &info), ZCOLL_SUCCESS);
  EXPECT_EQ(info.stream_size, z.size());
  size_t ss = 0;
  ASSERT_EQ(zcoll_stream_size(zz.data(), zz.size(), &ss), ZCOLL_SUCCESS);
  EXPECT_EQ(ss, z.size());
  // stream_size needs only the header and index
  ASSERT_EQ(zcoll_stream_size(z.data(), zcoll_header_size(3000, 1024), &ss), ZCOLL_SUCCESS);
  EXPECT_EQ(ss, z.size());
  // larger output buffer: the values past n are untouched
  std::vector<float> y(3100, 7.0f);
  ASSERT_EQ(zcoll_decompress(zz.data(), zz.size(), y.data(), y.size(), 2), ZCOLL_SUCCESS);
  EXPECT_TRUE(zt::same_bytes(y.data(), ref.data(), 3000 * 4));
  for (size_t i = 3000; i < y.size(); ++i) EXPECT_EQ(y[i], 7.0f);
  // an unaligned copy of the stream decodes the same
  std::vector<uint8_t> un(z.size() + 3);
  std::memcpy(un.data() + 3, z.data(), z.size());
  std::vector<float> u(3000);
  ASSERT_EQ(zcoll_decompress(un.data() + 3, z.size(), u.data(), u.size(), 1), ZCOLL_SUCCESS);
  EXPECT_TRUE(zt::same_bytes(u.data(), ref.data(), 3000 * 4));
}

// The output of the compressor needs no alignment on the host.
TEST(Compress, UnalignedOutputBuffer) {
  std::vector<double> x = mixed_data<double>(5000, 1024, 9);
  std::vector<uint8_t> ref = zt::compress(x, ZCOLL_EB_ABS, 1e-3, 1024, 2);
  ASSERT_FALSE(ref.empty());
  const size_t bound = zcoll_compress_bound(x.size(), ZCOLL_FLOAT64);
  zcoll_params p;
  zcoll_params_init(&p);
  p.eb_mode = ZCOLL_EB_ABS;
  p.error_bound = 1e-3;
  p.chunk_size = 1024;
  for (size_t shift = 1; shift < 8; ++shift) {
    std::vector<uint8_t> buf(bound + 8);
    size_t size = 0;
    ASSERT_EQ(
        zcoll_compress(&p, ZCOLL_FLOAT64, x.data(), x.size(), buf.data() + shift, bound, &size, 2),
        ZCOLL_SUCCESS);
    ASSERT_EQ(size, ref.size());
    EXPECT_EQ(std::memcmp(buf.data() + shift, ref.data(), size), 0) << "shift " << shift;
    std::vector<double> y(x.size());
    ASSERT_EQ(zcoll_decompress(buf.data() + shift, size, y.data(), y.size(), 2), ZCOLL_SUCCESS);
  }
}

TEST(Decompress, EmptyStream) {
  std::vector<float> x;
  std::vector<uint8_t> z = zt::compress(x, ZCOLL_EB_ABS, 0.1, 0, 1);
  ASSERT_EQ(z.size(), 48u);  // header only, empty index
  zcoll_info info = zt::inspect(z);
  EXPECT_EQ(info.n, 0u);
  EXPECT_EQ(info.chunks, 0u);
  EXPECT_EQ(zcoll_decompress(z.data(), z.size(), nullptr, 0, 1), ZCOLL_SUCCESS)
      << zcoll_last_error();
  EXPECT_EQ(zcoll_decompress_accumulate(z.data(), z.size(), nullptr, 0, 1), ZCOLL_SUCCESS);
  // REL on empty data
  std::vector<double> d;
  zt::roundtrip_check(d, ZCOLL_EB_REL, 1e-3, 0, 1, "empty rel");
}

// ---- size bound ----------------------------------------------------------------

template <typename T>
void bound_holds(size_t n, uint32_t cs, int kind, Rng& r) {
  std::vector<T> x = zt::make_case<T>(kind, n, r, ZCOLL_EB_ABS, 1e-6, cs);
  const size_t ecs = cs ? cs : ZCOLL_DEFAULT_CHUNK_SIZE;
  if (kind == zt::kRandomBits || kind == zt::kWhiteNoise) {  // every chunk raw
    for (size_t i = 0; i < n; i += 97) x[i] = zt::nan_with_payload<T>(r);
    for (size_t i = ecs - 1; i < n + ecs - 1; i += ecs)
      x[std::min(i, n - 1)] = zt::nan_with_payload<T>(r);
  }
  const size_t bound = zcoll_compress_bound(n, zt::dtype_of<T>());
  const size_t vb = sizeof(T);
  EXPECT_EQ(bound, 64 + 16 * ((n + 1023) / 1024) + n * vb);
  zcoll_params p;
  zcoll_params_init(&p);
  p.eb_mode = ZCOLL_EB_ABS;
  p.error_bound = 1e-6;
  p.chunk_size = cs;
  // canary bytes after the bound must survive
  std::vector<uint8_t> out(bound + 64, 0xA5);
  size_t size = 0;
  ASSERT_EQ(zcoll_compress(&p, zt::dtype_of<T>(), x.data(), n, out.data(), bound, &size, 2),
            ZCOLL_SUCCESS)
      << zcoll_last_error();
  EXPECT_LE(size, bound);
  for (size_t i = bound; i < out.size(); ++i)
    ASSERT_EQ(out[i], 0xA5) << "wrote past the bound, n=" << n;
  // the exact all-raw size
  const size_t chunks = zcoll_chunk_count(n, cs ? cs : ZCOLL_DEFAULT_CHUNK_SIZE);
  size_t all_raw = zcoll_header_size(n, cs);
  for (size_t c = 0; c < chunks; ++c) {
    size_t len = std::min<size_t>(cs ? cs : ZCOLL_DEFAULT_CHUNK_SIZE,
                                  n - c * (cs ? cs : ZCOLL_DEFAULT_CHUNK_SIZE));
    all_raw += (8 + len * vb + 7) & ~size_t{7};
  }
  EXPECT_LE(size, all_raw);
  EXPECT_LE(all_raw, bound);
  if (kind == zt::kRandomBits || kind == zt::kWhiteNoise) {
    zcoll_info info = ZCOLL_INFO_INITIALIZER;
    ASSERT_EQ(zcoll_inspect(out.data(), size, &info), ZCOLL_SUCCESS);
    EXPECT_EQ(info.raw_chunks, info.chunks);
    EXPECT_EQ(size, all_raw);
  }
  // one byte less than the bound is refused
  if (n > 0) {
    EXPECT_EQ(zcoll_compress(&p, zt::dtype_of<T>(), x.data(), n, out.data(), bound - 1, &size, 2),
              ZCOLL_ERR_BUFFER_TOO_SMALL);
    EXPECT_STRNE(zcoll_last_error(), "");
  }
}

TEST(CompressBound, HoldsForEveryChunkSizeAndAllRawData) {
  Rng r(2024);
  const uint32_t css[] = {1024, 1056, 2048, 16384, 65536, 1048576};
  const size_t ns[] = {0, 1, 2, 3, 31, 33, 1023, 1024, 1025, 1057, 2047, 2049, 5000, 16385, 65537};
  for (uint32_t cs : css)
    for (size_t n : ns)
      for (int kind : {zt::kRandomBits, zt::kWhiteNoise, zt::kSmoothSine, zt::kSpikes}) {
        bound_holds<float>(n, cs, kind, r);
        bound_holds<double>(n, cs, kind, r);
        if (HasFailure()) return;
      }
  bound_holds<float>(1048577, 1048576, zt::kRandomBits, r);
  bound_holds<double>(1048577, 1048576, zt::kWhiteNoise, r);
}

// ---- sizes and small helpers -------------------------------------------------------

TEST(Sizes, HelperFunctions) {
  EXPECT_EQ(zcoll_dtype_size(ZCOLL_FLOAT32), 4u);
  EXPECT_EQ(zcoll_dtype_size(ZCOLL_FLOAT64), 8u);
  EXPECT_EQ(zcoll_dtype_size(static_cast<zcoll_dtype>(5)), 0u);
  EXPECT_EQ(zcoll_compress_bound(10, static_cast<zcoll_dtype>(0)), 0u);
  EXPECT_EQ(zcoll_compress_bound(0, ZCOLL_FLOAT32), 64u);
  EXPECT_EQ(zcoll_compress_bound(1025, ZCOLL_FLOAT64), 64u + 32u + 8200u);
  EXPECT_EQ(zcoll_chunk_count(0, 1024), 0u);
  EXPECT_EQ(zcoll_chunk_count(1, 1024), 1u);
  EXPECT_EQ(zcoll_chunk_count(1024, 1024), 1u);
  EXPECT_EQ(zcoll_chunk_count(1025, 1024), 2u);
  EXPECT_EQ(zcoll_chunk_count(1025, 1000), 0u);
  EXPECT_EQ(zcoll_chunk_count(1025, 512), 0u);
  EXPECT_EQ(zcoll_chunk_count(5, 2u << 20), 0u);
  EXPECT_EQ(zcoll_header_size(0, 1024), 48u);
  EXPECT_EQ(zcoll_header_size(1, 1024), 56u);
  EXPECT_EQ(zcoll_header_size(2048, 1024), 56u);
  EXPECT_EQ(zcoll_header_size(2049, 1024), 64u);
  EXPECT_EQ(zcoll_header_size(16385, 0), 56u);  // 0 = default chunk size
  EXPECT_EQ(zcoll_header_size(10, 1000), 0u);
  zcoll_params p;
  zcoll_params_init(&p);
  EXPECT_EQ(p.struct_size, sizeof(zcoll_params));
  EXPECT_EQ(p.eb_mode, ZCOLL_EB_REL);
  EXPECT_EQ(p.error_bound, 1e-3);
  EXPECT_EQ(p.chunk_size, 0u);
  zcoll_params_init(nullptr);  // no crash
}

TEST(ValueRange, SkipsNonFinite) {
  std::vector<float> f = {NAN, 3.0f, -INFINITY, -2.0f, INFINITY, 7.5f, -NAN};
  double mn = 1, mx = 1;
  ASSERT_EQ(zcoll_value_range(ZCOLL_FLOAT32, f.data(), f.size(), &mn, &mx, 1), ZCOLL_SUCCESS);
  EXPECT_EQ(mn, -2.0);
  EXPECT_EQ(mx, 7.5);
  std::vector<double> d = {INFINITY, NAN, -INFINITY};
  ASSERT_EQ(zcoll_value_range(ZCOLL_FLOAT64, d.data(), d.size(), &mn, &mx, 2), ZCOLL_SUCCESS);
  EXPECT_EQ(mn, 0.0);
  EXPECT_EQ(mx, 0.0);
  ASSERT_EQ(zcoll_value_range(ZCOLL_FLOAT64, nullptr, 0, &mn, &mx, 1), ZCOLL_SUCCESS);
  EXPECT_EQ(mn, 0.0);
  EXPECT_EQ(mx, 0.0);
  // large, threaded, extremes in the middle
  std::vector<double> big(300000);
  Rng r(3);
  for (auto& v : big) v = r.uniform(-1, 1);
  big[123457] = -5;
  big[200001] = 9;
  big[5] = NAN;
  big[6] = -INFINITY;
  big[299999] = INFINITY;
  for (int t : {1, 2, 4, 0}) {
    ASSERT_EQ(zcoll_value_range(ZCOLL_FLOAT64, big.data(), big.size(), &mn, &mx, t), ZCOLL_SUCCESS);
    EXPECT_EQ(mn, -5.0);
    EXPECT_EQ(mx, 9.0);
  }
  // denormals and -0 are finite
  std::vector<float> s = {-0.0f, 1e-45f, NAN};
  ASSERT_EQ(zcoll_value_range(ZCOLL_FLOAT32, s.data(), s.size(), &mn, &mx, 1), ZCOLL_SUCCESS);
  EXPECT_EQ(mn, 0.0);
  EXPECT_EQ(mx, static_cast<double>(1e-45f));
  EXPECT_EQ(zcoll_value_range(ZCOLL_FLOAT32, nullptr, 3, &mn, &mx, 1), ZCOLL_ERR_INVALID_ARG);
  EXPECT_STRNE(zcoll_last_error(), "");
  EXPECT_EQ(zcoll_value_range(ZCOLL_FLOAT32, s.data(), 3, nullptr, &mx, 1), ZCOLL_ERR_INVALID_ARG);
  EXPECT_EQ(zcoll_value_range(static_cast<zcoll_dtype>(9), s.data(), 3, &mn, &mx, 1),
            ZCOLL_ERR_UNSUPPORTED);
  EXPECT_STRNE(zcoll_last_error(), "");
}

}  // namespace
