// dense_test.cc — the dense codec (zcoll_params.codec = ZCOLL_CODEC_DENSE, chunk
// kind 2 of format 1.3): round trips on every data file and on the adversarial
// inputs of test_data.h, edge lengths, the same codes as the fast codec, bytes
// independent of the thread count and of the chunk-range API, corrupt streams,
// and the homomorphic operations' refusal.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "codec/chunk_codec.h"
#include "codec/dense.h"
#include "codec/format.h"
#include "test_data.h"
#include "data_files.h"
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

using zt::data_files;
using zt::read_f32;

// n values of a smooth signal with a little noise.
std::vector<float> smooth(size_t n, uint64_t seed) {
  zt::Rng r(seed);
  std::vector<float> x(n);
  for (size_t i = 0; i < n; ++i)
    x[i] = static_cast<float>(10 * std::sin(0.01 * static_cast<double>(i)) + r.uniform(-0.1, 0.1));
  return x;
}

// The dense stream decodes to the fast stream's values (the same codes), except
// in chunks either codec stored raw (there: the input, bit for bit; where only
// the fast codec stored raw, the dense values are the codes' and the callers
// check their bound).
template <typename T>
void expect_same_values(const std::vector<T>& x, const std::vector<T>& dense,
                        const std::vector<T>& fast, const std::string& what) {
  size_t bad = 0;
  for (size_t i = 0; i < x.size(); ++i) {
    const bool ok = zt::bits_of(dense[i]) == zt::bits_of(fast[i]) ||
                    zt::bits_of(dense[i]) == zt::bits_of(x[i]) ||
                    zt::bits_of(fast[i]) == zt::bits_of(x[i]);
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
  EXPECT_EQ(zt::compress_in_ranges(p, x, 5), z);
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
  EXPECT_EQ(with(0, 3), ZCOLL_ERR_CORRUPT);    // unknown kind
  EXPECT_EQ(with(1, 0), ZCOLL_ERR_CORRUPT);    // predictor 0
  EXPECT_EQ(with(1, 5), ZCOLL_ERR_CORRUPT);    // predictor 5 (3, 4: dense_nd_test)
  EXPECT_EQ(with(2, 0), ZCOLL_ERR_CORRUPT);    // nsym 0
  EXPECT_EQ(with(2, 169), ZCOLL_ERR_CORRUPT);  // nsym > 168
  EXPECT_EQ(with(3, 1), ZCOLL_ERR_CORRUPT);    // byte 3 must be 0
  EXPECT_EQ(with(8, 0), ZCOLL_ERR_CORRUPT);    // a table byte 0
  // the table as format.md §5.3 codes it: a frequency one larger no longer sums to 4096
  const uint32_t nsym = z[at + 2];
  size_t t = at + 8, small = 0;
  for (uint32_t s = 0; s < nsym;) {
    const uint8_t b = z[t];
    if (b < 127 && small == 0) small = t;
    t += b >= 128 && b < 192 ? 2 : 1;
    s += b >= 192 ? b - 191u : 1u;
  }
  ASSERT_NE(small, 0u) << "no frequency below 127 in the table";
  EXPECT_EQ(with(small - at, z[small] + 1), ZCOLL_ERR_CORRUPT);
  // a run of zero frequencies past nsym
  ASSERT_LT(nsym, 64u);
  EXPECT_EQ(with(8, 255), ZCOLL_ERR_CORRUPT);
  // extra_bytes beyond the chunk (the states no longer fit)
  std::vector<uint8_t> c = z;
  zcoll::store_u32(&c[at + 4], static_cast<uint32_t>(z.size() - t));
  EXPECT_EQ(decode(c), ZCOLL_ERR_CORRUPT);
  // a state below 2^15, one at 2^31
  const size_t states = t + zcoll::load_u32(&z[at + 4]);
  c = z;
  c[states + 2] = 0, c[states + 3] = 0;
  c[states + 1] &= 0x7F;
  EXPECT_EQ(decode(c), ZCOLL_ERR_CORRUPT);
  c = z;
  zcoll::store_u32(&c[states + 60], 0x80000000u);
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

// ---- the rANS passes: scalar and AVX2 --------------------------------------------------

const zcoll::ChunkKernels* avx2_or_null() {
  const zcoll::ChunkKernels* k = zcoll::avx2_kernels();
#if defined(__x86_64__) || defined(__i386__)
  if (k && __builtin_cpu_supports("avx2") && __builtin_cpu_supports("bmi2")) return k;
#endif
  return nullptr;
}

// Frequencies summing to 4096 over nsym symbols (some 0, some 1, one large).
std::vector<uint16_t> random_freqs(zt::Rng& r, uint32_t nsym) {
  std::vector<uint16_t> f(nsym, 0);
  uint32_t left = 4096;
  for (uint32_t s = 1; s < nsym; ++s) {
    const uint32_t v = r.coin(0.2) ? 0 : r.coin(0.3) ? 1 : static_cast<uint32_t>(r.below(300));
    f[s] = static_cast<uint16_t>(std::min(v, left - 1));
    left -= f[s];
  }
  f[0] = static_cast<uint16_t>(left);
  return f;
}

struct Decoded {
  std::vector<uint8_t> syms;
  uint32_t x[zcoll::kDenseStates];
  size_t consumed;
};

Decoded rans_decode_with(const zcoll::ChunkKernels& k, const uint32_t* tab, const uint8_t* words,
                         size_t bytes, const uint32_t* x0, uint32_t n) {
  Decoded d;
  d.syms.assign(n, 0xEE);
  std::memcpy(d.x, x0, sizeof d.x);
  const uint8_t* p = words;
  // in tiles, as the decoder runs it (each a multiple of 16 but the last)
  for (uint32_t i = 0; i < n; i += 2048)
    k.dense_rans_decode(d.x, &p, words + bytes, tab, d.syms.data() + i, std::min(2048u, n - i));
  d.consumed = static_cast<size_t>(p - words);
  return d;
}

// Both encoders write the same bytes for any symbols and lengths (len % 16 of
// every value); both decoders read them back to the symbols, with the same
// states and position, also on arbitrary words and states.
TEST(Dense, RansPassesScalarVsAvx2) {
  const zcoll::ChunkKernels& sc = zcoll::scalar_kernels();
  const zcoll::ChunkKernels* avx2 = avx2_or_null();
  zt::Rng r(34);
  for (uint32_t len :
       {1u, 2u, 3u, 15u, 16u, 17u, 31u, 33u, 47u, 100u, 2047u, 2048u, 2049u, 5000u, 16384u}) {
    for (int rep = 0; rep < 4; ++rep) {
      const uint32_t nsym = 1 + static_cast<uint32_t>(r.below(zcoll::kDenseMaxSymbols));
      const std::vector<uint16_t> f = random_freqs(r, nsym);
      std::vector<uint8_t> syms(len);
      for (auto& s : syms) {  // a symbol of non-zero frequency
        do s = static_cast<uint8_t>(r.below(nsym));
        while (f[s] == 0);
      }
      zcoll::DenseEncSymbols es;
      zcoll::dense_enc_symbols(f.data(), nsym, &es);
      std::vector<uint32_t> tab(4096);
      zcoll::dense_dec_table(f.data(), nsym, tab.data());
      std::vector<uint8_t> buf(2 * size_t{len} + 64, 0xCC);
      uint8_t* end = buf.data() + buf.size();
      const uint8_t* beg = sc.dense_rans_encode(syms.data(), len, es, end);
      const std::vector<uint8_t> enc(beg, static_cast<const uint8_t*>(end));
      const std::string what = "len " + std::to_string(len) + " nsym " + std::to_string(nsym);
      uint32_t x0[zcoll::kDenseStates];
      for (uint32_t k = 0; k < zcoll::kDenseStates; ++k) x0[k] = zcoll::load_u32(&enc[4 * k]);
      const uint8_t* words = enc.data() + zcoll::kDenseStateBytes;
      const size_t nwords = enc.size() - zcoll::kDenseStateBytes;
      const Decoded ds = rans_decode_with(sc, tab.data(), words, nwords, x0, len);
      ASSERT_EQ(ds.syms, syms) << what;
      EXPECT_EQ(ds.consumed, nwords) << what << ": every word read";
      for (uint32_t k = 0; k < zcoll::kDenseStates; ++k)
        EXPECT_EQ(ds.x[k], zcoll::kDenseRansLow) << what << ": final state " << k;
      if (!avx2) continue;
      std::vector<uint8_t> buf2(buf.size(), 0x33);
      uint8_t* end2 = buf2.data() + buf2.size();
      const uint8_t* beg2 = avx2->dense_rans_encode(syms.data(), len, es, end2);
      ASSERT_EQ(std::vector<uint8_t>(beg2, static_cast<const uint8_t*>(end2)), enc) << what;
      const Decoded da = rans_decode_with(*avx2, tab.data(), words, nwords, x0, len);
      EXPECT_EQ(da.syms, syms) << what;
      EXPECT_EQ(da.consumed, ds.consumed) << what;
      EXPECT_EQ(std::memcmp(da.x, ds.x, sizeof da.x), 0) << what;
      // arbitrary states and words, the stream cut anywhere: the same as scalar
      std::vector<uint8_t> junk(r.below(2 * len + 40));
      for (auto& b : junk) b = static_cast<uint8_t>(r.next());
      uint32_t xj[zcoll::kDenseStates];
      for (auto& x : xj)
        x = zcoll::kDenseRansLow +
            static_cast<uint32_t>(r.below((1u << 31) - zcoll::kDenseRansLow));
      const Decoded js = rans_decode_with(sc, tab.data(), junk.data(), junk.size(), xj, len);
      const Decoded ja = rans_decode_with(*avx2, tab.data(), junk.data(), junk.size(), xj, len);
      EXPECT_EQ(ja.syms, js.syms) << what << " (junk)";
      EXPECT_EQ(ja.consumed, js.consumed) << what << " (junk)";
      EXPECT_EQ(std::memcmp(ja.x, js.x, sizeof ja.x), 0) << what << " (junk)";
    }
  }
  if (!avx2) GTEST_SKIP() << "no AVX2 kernels: the scalar passes only";
}

// Residuals of one of a few kinds per group of 16 (all direct, small, of up to
// 25 or 29 extra bits, any i32), so that every path of the passes runs.
std::vector<uint32_t> random_residuals(zt::Rng& r, uint32_t len) {
  std::vector<uint32_t> res(len);
  for (uint32_t i = 0; i < len; i += 16) {
    const int kind = static_cast<int>(r.below(5));
    const int top[5] = {5, 12, 26, 31, 32};  // zigzag bits (kind 0: direct)
    for (uint32_t k = i; k < std::min(len, i + 16); ++k) {
      const int bits = 1 + static_cast<int>(r.below(static_cast<uint64_t>(top[kind])));
      const uint64_t u = r.next() & ((uint64_t{1} << bits) - 1);
      res[k] = kind == 0 ? static_cast<uint32_t>(r.below(64)) : static_cast<uint32_t>(u);
    }
  }
  return res;
}

// Residuals of syms with both residual passes, in tiles as the decoder runs them;
// the final bit position to *at.
std::vector<uint32_t> residuals_with(const zcoll::ChunkKernels& k, const std::vector<uint8_t>& syms,
                                     const uint8_t* extra, uint64_t extra_bytes, uint64_t* at) {
  std::vector<uint32_t> res(syms.size(), 0xEEEEEEEE);
  const uint32_t n = static_cast<uint32_t>(syms.size());
  *at = 0;
  for (uint32_t i = 0; i < n; i += 2048)
    *at = k.dense_residuals(syms.data() + i, std::min(2048u, n - i), extra, extra_bytes, *at,
                            res.data() + i);
  return res;
}

// Both symbol passes write the same symbols and extra bytes for any residuals
// and lengths; both residual passes read them back, with the same position,
// also on arbitrary symbols and bits (and the stream cut anywhere).
TEST(Dense, SymbolPassesScalarVsAvx2) {
  const zcoll::ChunkKernels& sc = zcoll::scalar_kernels();
  const zcoll::ChunkKernels* avx2 = avx2_or_null();
  zt::Rng r(35);
  for (uint32_t len : {1u, 15u, 16u, 17u, 33u, 100u, 2047u, 2048u, 2049u, 5000u, 16384u}) {
    for (int rep = 0; rep < 4; ++rep) {
      const std::string what = "len " + std::to_string(len) + " rep " + std::to_string(rep);
      const std::vector<uint32_t> res = random_residuals(r, len);
      std::vector<uint8_t> syms(len), extra(4 * size_t{len} + 16 + 64, 0);
      std::vector<uint32_t> cnt(zcoll::kDenseMaxSymbols), want(zcoll::kDenseMaxSymbols, 0);
      const size_t eb = sc.dense_symbols(res.data(), len, 0, syms.data(), extra.data(), cnt.data());
      for (uint8_t s : syms) ++want[s];
      EXPECT_EQ(cnt, want) << what << ": counts";
      uint64_t at = 0;
      EXPECT_EQ(residuals_with(sc, syms, extra.data(), eb, &at), res) << what;
      EXPECT_EQ((at + 7) / 8, eb) << what << ": every extra byte read";
      // the same residuals as Lorenzo of order 1 and 2 of codes: the same bytes
      for (const uint8_t order : {1, 2}) {
        std::vector<uint32_t> q(len);  // codes whose residuals are res
        for (uint32_t i = 0; i < len; ++i)
          q[i] = res[i] + (i == 0 ? 0u : order == 1 || i == 1 ? q[i - 1] : 2 * q[i - 1] - q[i - 2]);
        for (const zcoll::ChunkKernels* k : {&sc, avx2}) {
          if (!k) continue;
          std::vector<uint8_t> sq(len), eq(extra.size(), 0);
          std::vector<uint32_t> cq(zcoll::kDenseMaxSymbols);
          ASSERT_EQ(k->dense_symbols(q.data(), len, order, sq.data(), eq.data(), cq.data()), eb)
              << what << " order " << int{order} << " " << k->name;
          EXPECT_EQ(sq, syms) << what << " order " << int{order} << " " << k->name;
          EXPECT_EQ(std::memcmp(eq.data(), extra.data(), eb), 0) << what << " order " << int{order};
          EXPECT_EQ(cq, want) << what << " order " << int{order} << " " << k->name << ": counts";
        }
      }
      if (!avx2) continue;
      std::vector<uint8_t> syms2(len), extra2(extra.size(), 0);
      std::vector<uint32_t> cnt2(zcoll::kDenseMaxSymbols);
      const size_t eb2 =
          avx2->dense_symbols(res.data(), len, 0, syms2.data(), extra2.data(), cnt2.data());
      ASSERT_EQ(syms2, syms) << what;
      ASSERT_EQ(eb2, eb) << what;
      EXPECT_EQ(std::memcmp(extra2.data(), extra.data(), eb), 0) << what;
      EXPECT_EQ(cnt2, want) << what << ": counts";
      uint64_t at2 = 0;
      EXPECT_EQ(residuals_with(*avx2, syms, extra.data(), eb, &at2), res) << what;
      EXPECT_EQ(at2, at) << what;
      // arbitrary symbols and bits, the stream cut anywhere (64 readable bytes
      // after it, as the states follow it in a chunk): the same as scalar
      for (auto& s : syms) s = static_cast<uint8_t>(r.below(zcoll::kDenseMaxSymbols));
      const uint64_t cut = r.below(4 * uint64_t{len} + 16);
      std::vector<uint8_t> junk(cut + 64);
      for (auto& b : junk) b = static_cast<uint8_t>(r.next());
      uint64_t js = 0, ja = 0;
      EXPECT_EQ(residuals_with(*avx2, syms, junk.data(), cut, &ja),
                residuals_with(sc, syms, junk.data(), cut, &js))
          << what << " (junk)";
      EXPECT_EQ(ja, js) << what << " (junk)";
    }
  }
  if (!avx2) GTEST_SKIP() << "no AVX2 kernels: the scalar passes only";
}

// A coded chunk's parts as the encoder's passes write them (scalar kernels):
// the extra bits (64 bytes of room after them), the slot table and the rANS
// states and words.
struct CodedResiduals {
  std::vector<uint8_t> extra, words;
  std::vector<uint32_t> tab;
  size_t extra_bytes = 0;
  size_t begin = 0;  // the states, then the words to the end of `words`
  zcoll::DenseCursor cursor() const {
    zcoll::DenseCursor c;
    for (uint32_t k = 0; k < zcoll::kDenseStates; ++k)
      c.xs[k] = zcoll::load_u32(&words[begin + 4 * k]);
    c.words = words.data() + begin + zcoll::kDenseStateBytes;
    c.end = words.data() + words.size();
    c.tab = tab.data();
    c.extra = extra.data();
    c.extra_bytes = extra_bytes;
    c.bit = 0;
    return c;
  }
};

CodedResiduals code_residuals(const std::vector<uint32_t>& res) {
  const zcoll::ChunkKernels& sc = zcoll::scalar_kernels();
  const auto len = static_cast<uint32_t>(res.size());
  CodedResiduals cr;
  std::vector<uint8_t> syms(len);
  cr.extra.assign(4 * size_t{len} + 16 + 64, 0);
  std::vector<uint32_t> cnt(zcoll::kDenseMaxSymbols);
  cr.extra_bytes = sc.dense_symbols(res.data(), len, 0, syms.data(), cr.extra.data(), cnt.data());
  std::vector<uint16_t> f(zcoll::kDenseMaxSymbols, 0);  // the symbols' counts, scaled
  uint32_t sum = 0, top = 0;
  for (uint32_t s = 0; s < f.size(); ++s) {
    f[s] = cnt[s] ? static_cast<uint16_t>(std::max<uint32_t>(1, cnt[s] * 2048u / len)) : 0;
    sum += f[s];
    top = f[s] > f[top] ? s : top;
  }
  f[top] = static_cast<uint16_t>(f[top] + 4096 - sum);  // sum <= 2048 + 168
  zcoll::DenseEncSymbols es;
  zcoll::dense_enc_symbols(f.data(), zcoll::kDenseMaxSymbols, &es);
  cr.tab.resize(4096);
  zcoll::dense_dec_table(f.data(), zcoll::kDenseMaxSymbols, cr.tab.data());
  cr.words.resize(2 * size_t{len} + 64);
  const uint8_t* beg =
      sc.dense_rans_encode(syms.data(), len, es, cr.words.data() + cr.words.size());
  cr.begin = static_cast<size_t>(beg - cr.words.data());
  return cr;
}

bool same_cursor(const zcoll::DenseCursor& a, const zcoll::DenseCursor& b) {
  return std::memcmp(a.xs, b.xs, sizeof a.xs) == 0 && a.words == b.words && a.bit == b.bit;
}

// Residuals of n symbols with a kernel table's first decoder pass, in tiles as
// the decoder runs it; the cursor moves on.
std::vector<uint32_t> fused_decode_with(const zcoll::ChunkKernels& k, uint32_t n,
                                        zcoll::DenseCursor* c) {
  std::vector<uint32_t> res(n, 0xEEEEEEEE);
  for (uint32_t i = 0; i < n; i += 2048)
    k.dense_rans_residuals(c, res.data() + i, std::min(2048u, n - i));
  return res;
}

// The decoder's first pass (rANS and residuals in one loop) gives the
// residuals the encoder's passes coded, and both versions the same residuals
// and cursor, also on arbitrary states, words and bits (both cut anywhere).
TEST(Dense, FusedDecodePassScalarVsAvx2) {
  const zcoll::ChunkKernels& sc = zcoll::scalar_kernels();
  const zcoll::ChunkKernels* avx2 = avx2_or_null();
  zt::Rng r(37);
  for (uint32_t len : {1u, 15u, 16u, 17u, 33u, 100u, 2047u, 2048u, 2049u, 5000u, 16384u}) {
    for (int rep = 0; rep < 4; ++rep) {
      const std::string what = "len " + std::to_string(len) + " rep " + std::to_string(rep);
      const std::vector<uint32_t> res = random_residuals(r, len);
      const CodedResiduals cr = code_residuals(res);
      zcoll::DenseCursor cs = cr.cursor(), ca = cr.cursor();
      EXPECT_EQ(fused_decode_with(sc, len, &cs), res) << what;
      EXPECT_EQ(cs.words, cr.words.data() + cr.words.size()) << what << ": every word read";
      EXPECT_EQ((cs.bit + 7) / 8, cr.extra_bytes) << what << ": every extra byte read";
      if (!avx2) continue;
      EXPECT_EQ(fused_decode_with(*avx2, len, &ca), res) << what;
      EXPECT_TRUE(same_cursor(ca, cs)) << what;
      // arbitrary states, words and bits, both cut anywhere (64 readable
      // bytes after the bits, as the states follow them in a chunk)
      std::vector<uint8_t> words(r.below(2 * len + 40)), bits(r.below(4 * uint64_t{len} + 16) + 64);
      for (auto& b : words) b = static_cast<uint8_t>(r.next());
      for (auto& b : bits) b = static_cast<uint8_t>(r.next());
      zcoll::DenseCursor js = cr.cursor();
      for (auto& x : js.xs)
        x = zcoll::kDenseRansLow +
            static_cast<uint32_t>(r.below((1u << 31) - zcoll::kDenseRansLow));
      js.words = words.data(), js.end = words.data() + words.size();
      js.extra = bits.data(), js.extra_bytes = bits.size() - 64;
      zcoll::DenseCursor ja = js;
      EXPECT_EQ(fused_decode_with(*avx2, len, &ja), fused_decode_with(sc, len, &js))
          << what << " (junk)";
      EXPECT_TRUE(same_cursor(ja, js)) << what << " (junk)";
    }
  }
  if (!avx2) GTEST_SKIP() << "no AVX2 kernels: the scalar pass only";
}

// Values of a chunk of codes q with a kernel table's decoder of predictors 1
// and 2, in tiles as the decoder runs it, stored or added to `base`.
template <typename T>
std::vector<T> lorenzo_decode_with(const zcoll::ChunkKernels& k, const CodedResiduals& cr,
                                   bool order2, double factor, const std::vector<T>* base,
                                   uint32_t n, zcoll::DenseCursor* c) {
  std::vector<T> out = base ? *base : std::vector<T>(n, T(-7));
  zcoll::DenseCarry carry;
  *c = cr.cursor();
  for (uint32_t i = 0; i < n; i += 2048) {
    const uint32_t m = std::min(2048u, n - i);
    if constexpr (std::is_same_v<T, float>)
      k.dense_lorenzo_f32(c, &carry, order2, m, factor, out.data() + i, base != nullptr);
    else
      k.dense_lorenzo_f64(c, &carry, order2, m, factor, out.data() + i, base != nullptr);
  }
  return out;
}

// The decoder of predictors 1 and 2 in one pass gives the values of the codes
// (out = (T)((double)q * factor), or added), the same in both versions, for
// codes of every kind of residual, order 1 and 2, f32 and f64.
TEST(Dense, LorenzoDecodeScalarVsAvx2) {
  const zcoll::ChunkKernels& sc = zcoll::scalar_kernels();
  const zcoll::ChunkKernels* avx2 = avx2_or_null();
  zt::Rng r(38);
  for (uint32_t len : {1u, 2u, 15u, 16u, 17u, 33u, 2047u, 2049u, 16384u}) {
    for (const bool order2 : {false, true}) {
      const std::string what = "len " + std::to_string(len) + " order2 " + std::to_string(order2);
      std::vector<uint32_t> q(len);  // codes: a walk with steps of every kind
      const std::vector<uint32_t> steps = random_residuals(r, len);
      for (uint32_t i = 0; i < len; ++i) q[i] = (i ? q[i - 1] : 0u) + (steps[i] >> 12);
      std::vector<uint32_t> res(len);
      for (uint32_t i = 0; i < len; ++i)
        res[i] = i == 0             ? q[0]
                 : order2 && i >= 2 ? q[i] - 2 * q[i - 1] + q[i - 2]
                                    : q[i] - q[i - 1];
      const CodedResiduals cr = code_residuals(res);
      const double factor = 0.37;
      std::vector<float> want(len), base(len);
      std::vector<double> want64(len), base64(len);
      for (uint32_t i = 0; i < len; ++i) {
        const double v = static_cast<double>(static_cast<int32_t>(q[i])) * factor;
        want[i] = static_cast<float>(v), want64[i] = v;
        base[i] = static_cast<float>(r.uniform(-1e3, 1e3)), base64[i] = r.uniform(-1e9, 1e9);
      }
      zcoll::DenseCursor cs, ca;
      const std::vector<float> fs =
          lorenzo_decode_with<float>(sc, cr, order2, factor, nullptr, len, &cs);
      EXPECT_EQ(std::memcmp(fs.data(), want.data(), len * sizeof(float)), 0) << what;
      const std::vector<double> ds =
          lorenzo_decode_with<double>(sc, cr, order2, factor, nullptr, len, &cs);
      EXPECT_EQ(std::memcmp(ds.data(), want64.data(), len * sizeof(double)), 0) << what;
      if (!avx2) continue;
      const std::vector<float> fa =
          lorenzo_decode_with<float>(*avx2, cr, order2, factor, nullptr, len, &ca);
      EXPECT_EQ(std::memcmp(fa.data(), want.data(), len * sizeof(float)), 0) << what;
      EXPECT_TRUE(same_cursor(ca, cs)) << what;
      const std::vector<double> da =
          lorenzo_decode_with<double>(*avx2, cr, order2, factor, nullptr, len, &ca);
      EXPECT_EQ(std::memcmp(da.data(), want64.data(), len * sizeof(double)), 0) << what;
      // added to values
      const std::vector<float> as =
          lorenzo_decode_with<float>(sc, cr, order2, factor, &base, len, &cs);
      const std::vector<float> aa =
          lorenzo_decode_with<float>(*avx2, cr, order2, factor, &base, len, &ca);
      EXPECT_EQ(std::memcmp(as.data(), aa.data(), len * sizeof(float)), 0) << what << " (acc)";
      EXPECT_FLOAT_EQ(as[len - 1], base[len - 1] + want[len - 1]) << what << " (acc)";
      const std::vector<double> bs =
          lorenzo_decode_with<double>(sc, cr, order2, factor, &base64, len, &cs);
      const std::vector<double> ba =
          lorenzo_decode_with<double>(*avx2, cr, order2, factor, &base64, len, &ca);
      EXPECT_EQ(std::memcmp(bs.data(), ba.data(), len * sizeof(double)), 0) << what << " (acc)";
    }
  }
  if (!avx2) GTEST_SKIP() << "no AVX2 kernels: the scalar pass only";
}

// Two chunks at once (dense_lorenzo_pair_*) give what each gives alone, in
// both versions: chunks of other lengths of words (one runs out first), order
// 1 and 2, f32 and f64, stored or added.
TEST(Dense, LorenzoPairDecodeScalarVsAvx2) {
  const zcoll::ChunkKernels& sc = zcoll::scalar_kernels();
  const zcoll::ChunkKernels* avx2 = avx2_or_null();
  zt::Rng r(39);
  for (uint32_t len : {1u, 16u, 17u, 100u, 2047u, 2049u, 16384u}) {
    for (const bool order2 : {false, true}) {
      const std::string what = "len " + std::to_string(len) + " order2 " + std::to_string(order2);
      const CodedResiduals c0 = code_residuals(random_residuals(r, len));
      const CodedResiduals c1 = code_residuals(random_residuals(r, len));
      for (const bool acc : {false, true}) {
        std::vector<double> base(len);
        for (auto& x : base) x = r.uniform(-1e3, 1e3);
        const std::vector<float> base32(base.begin(), base.end());
        zcoll::DenseCursor u0, u1;
        const std::vector<float> want0 =
            lorenzo_decode_with<float>(sc, c0, order2, 0.37, acc ? &base32 : nullptr, len, &u0);
        const std::vector<float> want1 =
            lorenzo_decode_with<float>(sc, c1, order2, 0.37, acc ? &base32 : nullptr, len, &u1);
        const std::vector<double> want64 =
            lorenzo_decode_with<double>(sc, c1, order2, 0.37, acc ? &base : nullptr, len, &u1);
        for (const zcoll::ChunkKernels* k : {&sc, avx2}) {
          if (!k) continue;
          std::vector<float> out0 = acc ? base32 : std::vector<float>(len, -7.0f), out1 = out0;
          std::vector<double> o64a = acc ? base : std::vector<double>(len, -7.0), o64b = o64a;
          zcoll::DenseCursor x0 = c0.cursor(), x1 = c1.cursor();
          zcoll::DenseCarry k0, k1;
          for (uint32_t i = 0; i < len; i += 2048)  // in tiles, as the decoder runs it
            k->dense_lorenzo_pair_f32(&x0, &k0, out0.data() + i, &x1, &k1, out1.data() + i, order2,
                                      std::min(2048u, len - i), 0.37, acc);
          EXPECT_EQ(out0, want0) << what << " " << k->name;
          EXPECT_EQ(out1, want1) << what << " " << k->name;
          EXPECT_TRUE(same_cursor(x0, u0)) << what << " " << k->name;
          x0 = c0.cursor(), x1 = c1.cursor(), k0 = k1 = zcoll::DenseCarry{};
          for (uint32_t i = 0; i < len; i += 2048)
            k->dense_lorenzo_pair_f64(&x0, &k0, o64a.data() + i, &x1, &k1, o64b.data() + i, order2,
                                      std::min(2048u, len - i), 0.37, acc);
          EXPECT_EQ(o64b, want64) << what << " " << k->name << " (f64)";
          EXPECT_TRUE(same_cursor(x1, u1)) << what << " " << k->name;
        }
      }
    }
  }
  if (!avx2) GTEST_SKIP() << "no AVX2 kernels: the scalar pass only";
}

// Both value passes give the same values, bit for bit, stored or added.
TEST(Dense, ValuePassesScalarVsAvx2) {
  const zcoll::ChunkKernels& sc = zcoll::scalar_kernels();
  const zcoll::ChunkKernels* avx2 = avx2_or_null();
  if (!avx2) GTEST_SKIP() << "no AVX2 kernels";
  zt::Rng r(36);
  for (uint32_t n : {1u, 3u, 4u, 7u, 8u, 100u, 2048u}) {
    std::vector<uint32_t> q(n);
    for (auto& v : q)  // small codes, and any i32 (the extremes included)
      v = r.coin(0.5) ? static_cast<uint32_t>(r.below(2001)) - 1000u
                      : static_cast<uint32_t>(r.coin(0.1) ? (r.coin() ? 0x80000000u : 0x7FFFFFFFu)
                                                          : r.next());
    for (const double factor : {1e-3, 0.37, 3e7}) {
      for (const bool acc : {false, true}) {
        const std::string what = "n " + std::to_string(n) + " acc " + std::to_string(acc);
        std::vector<float> f0(n), f1;
        std::vector<double> d0(n), d1;
        for (uint32_t i = 0; i < n; ++i)
          f0[i] = static_cast<float>(r.uniform(-1e3, 1e3)), d0[i] = r.uniform(-1e9, 1e9);
        f1 = f0, d1 = d0;
        sc.dense_values_f32(q.data(), n, factor, f0.data(), acc);
        avx2->dense_values_f32(q.data(), n, factor, f1.data(), acc);
        EXPECT_EQ(std::memcmp(f0.data(), f1.data(), n * sizeof(float)), 0) << what;
        sc.dense_values_f64(q.data(), n, factor, d0.data(), acc);
        avx2->dense_values_f64(q.data(), n, factor, d1.data(), acc);
        EXPECT_EQ(std::memcmp(d0.data(), d1.data(), n * sizeof(double)), 0) << what;
      }
    }
  }
}

// Chunks of every length around the 16 states and the decoder's 2048-value
// tiles: dense chunks, the fast codec's values, the bound.
TEST(Dense, EdgeLengths) {
  int dense_chunks = 0;
  for (uint32_t n : {1u, 2u, 3u, 15u, 16u, 17u, 31u, 33u, 47u, 63u, 100u, 1023u, 2047u, 2049u,
                     4095u, 4097u, 16383u}) {
    const std::vector<float> x = smooth(n, n);
    for (double eb : {1e-1, 1e-3, 1e-5}) {
      const std::string what = "n=" + std::to_string(n) + " eb=" + std::to_string(eb);
      const auto z = compress_with(x, ZCOLL_CODEC_DENSE, ZCOLL_EB_ABS, eb, 16384);
      const bool dense = z[zcoll_header_size(n, 16384)] == zcoll::kChunkDense;
      dense_chunks += dense;
      if (eb == 1e-1 && n >= 31) {
        EXPECT_TRUE(dense) << what << ": raw";
      }
      const std::vector<float> y = zt::decompress<float>(z, n);
      EXPECT_EQ(zt::count_violations(x, y, zt::inspect(z).error_bound, what), 0u);
      const auto f = compress_with(x, ZCOLL_CODEC_FAST, ZCOLL_EB_ABS, eb, 16384);
      expect_same_values(x, y, zt::decompress<float>(f, n), what);
    }
  }
  EXPECT_GE(dense_chunks, 20) << "too few of the cases are dense chunks to test them";
}

}  // namespace
