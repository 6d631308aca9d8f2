// robustness_test.cc — bad input: truncated and corrupted streams, bad
// parameters. Nothing may crash; every failure gives its documented status and
// a non-empty zcoll_last_error().
#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "codec/format.h"  // internal: crc32c / header_checksum to forge streams
#include "test_data.h"
#include "test_util.h"

namespace {

using zt::Rng;

// A small stream with a quantized chunk, a raw chunk and a short last chunk.
std::vector<uint8_t> small_stream(std::vector<float>* values = nullptr) {
  std::vector<float> x(2 * 1024 + 40);
  for (size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>(std::sin(0.01 * i));
  x[1500] = std::numeric_limits<float>::quiet_NaN();  // chunk 1 raw
  if (values) *values = x;
  return zt::compress(x, ZCOLL_EB_ABS, 1e-3, 1024, 1);
}

// All the parse / decode entry points on a buffer of exactly `size` bytes
// (heap copy, so that a sanitizer build sees any over-read).
struct Results {
  zcoll_status inspect, stream_size, decompress, accumulate, chunks;
};
Results try_all(const uint8_t* data, size_t size, size_t n_hint) {
  std::vector<uint8_t> buf(data, data + size);
  const uint8_t* p = size ? buf.data() : nullptr;
  std::vector<uint8_t> empty_holder(1);
  if (!p) p = empty_holder.data();
  Results r;
  zcoll_info info = ZCOLL_INFO_INITIALIZER;
  r.inspect = zcoll_inspect(p, size, &info);
  if (r.inspect != ZCOLL_SUCCESS) {
    EXPECT_STRNE(zcoll_last_error(), "");
  }
  size_t ss = 0;
  r.stream_size = zcoll_stream_size(p, size, &ss);
  if (r.stream_size != ZCOLL_SUCCESS) {
    EXPECT_STRNE(zcoll_last_error(), "");
  }
  // output sized from the header when it parses, with a guard area after it
  size_t n = n_hint, vb = 8;
  if (r.inspect == ZCOLL_SUCCESS) {
    n = info.n;
    vb = zcoll_dtype_size(info.dtype);
  }
  const size_t guard = 64;
  std::vector<uint8_t> out(n * vb + guard, 0);
  std::memset(out.data() + n * vb, 0xCD, guard);
  r.decompress = zcoll_decompress(p, size, out.data(), n, 1);
  if (r.decompress != ZCOLL_SUCCESS) {
    EXPECT_STRNE(zcoll_last_error(), "");
  }
  r.accumulate = zcoll_decompress_accumulate(p, size, out.data(), n, 1);
  if (r.accumulate != ZCOLL_SUCCESS) {
    EXPECT_STRNE(zcoll_last_error(), "");
  }
  r.chunks = zcoll_decompress_chunks(p, size, 0, 1, out.data(), n, 1);
  if (r.chunks != ZCOLL_SUCCESS) {
    EXPECT_STRNE(zcoll_last_error(), "");
  }
  for (size_t i = n * vb; i < out.size(); ++i)
    if (out[i] != 0xCD) {
      ADD_FAILURE() << "decoder wrote past n values";
      break;
    }
  return r;
}

TEST(BadInput, EveryTruncationFails) {
  std::vector<uint8_t> z = small_stream();
  ASSERT_FALSE(z.empty());
  const size_t hdr = zcoll_header_size(2 * 1024 + 40, 1024);
  for (size_t len = 0; len < z.size(); ++len) {
    Results r = try_all(z.data(), len, 2 * 1024 + 40);
    EXPECT_EQ(r.inspect, ZCOLL_ERR_TRUNCATED) << "len=" << len;
    EXPECT_EQ(r.decompress, ZCOLL_ERR_TRUNCATED) << "len=" << len;
    EXPECT_EQ(r.accumulate, ZCOLL_ERR_TRUNCATED) << "len=" << len;
    EXPECT_EQ(r.chunks, ZCOLL_ERR_TRUNCATED) << "len=" << len;
    // stream_size only needs the header and the index
    if (len < hdr)
      EXPECT_EQ(r.stream_size, ZCOLL_ERR_TRUNCATED) << "len=" << len;
    else
      EXPECT_EQ(r.stream_size, ZCOLL_SUCCESS) << "len=" << len;
    if (HasFailure()) return;
  }
  Results ok = try_all(z.data(), z.size(), 0);
  EXPECT_EQ(ok.inspect, ZCOLL_SUCCESS);
  EXPECT_EQ(ok.decompress, ZCOLL_SUCCESS);
}

// Single-byte changes of the header and index. Fields that decide the layout
// (n, chunk size) may make the header claim more index bytes than exist
// (TRUNCATED, checked before the checksum can be); version, block size and
// flags are UNSUPPORTED; everything else is caught as CORRUPT (checksum or field
// validation).
TEST(BadInput, HeaderAndIndexCorruptionIsDetected) {
  std::vector<uint8_t> z = small_stream();
  ASSERT_FALSE(z.empty());
  const size_t hdr = zcoll_header_size(2 * 1024 + 40, 1024);
  ASSERT_EQ(hdr, 48u + 16u);
  for (size_t pos = 0; pos < hdr; ++pos) {
    for (int mask : {0x01, 0x02, 0x10, 0x80, 0xFF, 0x5A}) {
      std::vector<uint8_t> c = z;
      c[pos] ^= static_cast<uint8_t>(mask);
      Results r = try_all(c.data(), c.size(), 2 * 1024 + 40);
      zcoll_status want = ZCOLL_ERR_CORRUPT;
      if (pos == 4 || pos == 6) want = ZCOLL_ERR_UNSUPPORTED;
      // flags: an undefined bit is UNSUPPORTED; bits 0 and 1 alone (the 1.1
      // checksum flag and the 1.3 dense flag, defined) fail the header checksum
      if (pos == 7 && mask != 0x01 && mask != 0x02) want = ZCOLL_ERR_UNSUPPORTED;
      if ((pos >= 8 && pos < 12) || (pos >= 16 && pos < 24)) {
        // layout fields: CORRUPT, or TRUNCATED when the new index would not fit
        EXPECT_TRUE(r.inspect == ZCOLL_ERR_CORRUPT || r.inspect == ZCOLL_ERR_TRUNCATED)
            << "pos=" << pos << " mask=" << mask << " got " << r.inspect;
        EXPECT_EQ(r.decompress, r.inspect);
        EXPECT_EQ(r.stream_size, r.inspect);
        continue;
      }
      EXPECT_EQ(r.inspect, want) << "pos=" << pos << " mask=" << mask;
      EXPECT_EQ(r.stream_size, want) << "pos=" << pos << " mask=" << mask;
      EXPECT_EQ(r.decompress, want) << "pos=" << pos << " mask=" << mask;
      EXPECT_EQ(r.accumulate, want) << "pos=" << pos << " mask=" << mask;
    }
    if (HasFailure()) return;
  }
}

// Chunk payload bytes are not checksummed: a change may decode to other values
// when the framing stays valid, but it must never crash, write out of bounds or
// report anything but SUCCESS or CORRUPT.
TEST(BadInput, ChunkCorruptionNeverCrashes) {
  std::vector<uint8_t> z = small_stream();
  ASSERT_FALSE(z.empty());
  const size_t hdr = zcoll_header_size(2 * 1024 + 40, 1024);
  size_t detected = 0, undetected = 0;
  Rng rng(5);
  for (size_t pos = hdr; pos < z.size(); ++pos) {
    // every byte of the quantized chunks' headers and code lengths, a sample elsewhere
    bool dense = pos < hdr + 12 + 64 || (pos % 7 == 0);
    if (!dense) continue;
    for (int mask : {0x01, 0x80, 0xFF, static_cast<int>(rng.below(255) + 1)}) {
      std::vector<uint8_t> c = z;
      c[pos] ^= static_cast<uint8_t>(mask);
      Results r = try_all(c.data(), c.size(), 2 * 1024 + 40);
      EXPECT_TRUE(r.inspect == ZCOLL_SUCCESS || r.inspect == ZCOLL_ERR_CORRUPT) << pos;
      EXPECT_EQ(r.decompress, r.inspect) << pos;
      EXPECT_EQ(r.accumulate, r.inspect) << pos;
      EXPECT_EQ(r.stream_size, ZCOLL_SUCCESS) << pos;
      (r.inspect == ZCOLL_SUCCESS ? undetected : detected)++;
    }
    if (HasFailure()) return;
  }
  EXPECT_GT(detected, 0u);    // kind bytes and code lengths are checked
  EXPECT_GT(undetected, 0u);  // payload bits are not (documented limitation)
  // kind byte of chunk 0 (quantized) -> unknown kind
  std::vector<uint8_t> c = z;
  c[hdr] = 7;
  EXPECT_EQ(try_all(c.data(), c.size(), 0).inspect, ZCOLL_ERR_CORRUPT);
}

// The chunks are checked by the team before a decode or a hom add: a corrupt chunk
// gives the same status and message for any thread count, and of two corrupt
// chunks the first is named (the team's threads find them in different runs).
TEST(BadInput, CorruptChunkReportedAlikeForAnyThreadCount) {
  const size_t n = 64 * 1024;
  std::vector<float> x(n);
  for (size_t i = 0; i < n; ++i) x[i] = static_cast<float>(std::sin(0.003 * i) * 100);
  const std::vector<uint8_t> z = zt::compress(x, ZCOLL_EB_ABS, 1e-3, 1024, 1);
  ASSERT_FALSE(z.empty());
  const size_t hdr = zcoll_header_size(n, 1024);
  std::vector<size_t> start(65, hdr);
  for (size_t c = 0; c < 64; ++c)
    start[c + 1] = start[c] + zcoll::load_u32(z.data() + zcoll::kHeaderBytes + 4 * c);
  for (const std::vector<size_t>& bad :
       {std::vector<size_t>{40}, {40, 50}, {10, 60}, {0}, {63}, {33, 34}}) {
    std::vector<uint8_t> c = z;
    for (size_t k : bad) c[start[k]] = 7;  // an unknown chunk kind
    const std::string want = "chunk " + std::to_string(bad[0]) + ": unknown chunk kind 7";
    std::vector<float> out(n);
    for (int threads : {1, 2, 3, 0}) {
      const std::string what = "bad chunk " + std::to_string(bad[0]) + ", threads " +
                               std::to_string(threads);
      EXPECT_EQ(zcoll_decompress(c.data(), c.size(), out.data(), n, threads), ZCOLL_ERR_CORRUPT)
          << what;
      EXPECT_NE(std::string(zcoll_last_error()).find(want), std::string::npos)
          << what << ": " << zcoll_last_error();
      EXPECT_EQ(zcoll_decompress_accumulate(c.data(), c.size(), out.data(), n, threads),
                ZCOLL_ERR_CORRUPT)
          << what;
      std::vector<uint8_t> h(zcoll_compress_bound(n, ZCOLL_FLOAT32));
      size_t hn = 0;
      EXPECT_EQ(zcoll_hom_add(z.data(), z.size(), c.data(), c.size(), h.data(), h.size(), &hn,
                              nullptr, threads),
                ZCOLL_ERR_CORRUPT)
          << what;
      EXPECT_NE(std::string(zcoll_last_error()).find("second stream: " + want), std::string::npos)
          << what << ": " << zcoll_last_error();
    }
  }
}

// small_stream's header checksum recomputed (3 chunks), after a forged change.
void reseal(std::vector<uint8_t>& s) {
  zcoll::store_u32(s.data() + 44, zcoll::header_checksum(s.data(), 3));
}

// Random garbage after a valid-looking header, with a fresh checksum, so the
// index and chunk checks (not the checksum) have to catch it.
TEST(BadInput, ForgedIndexesAreValidated) {
  std::vector<float> x;
  std::vector<uint8_t> z = small_stream(&x);
  ASSERT_FALSE(z.empty());
  auto set_size = [&](std::vector<uint8_t>& s, int c, uint32_t v) {
    zcoll::store_u32(s.data() + 48 + 4 * c, v);
    reseal(s);
  };
  const uint32_t s0 = zcoll::load_u32(z.data() + 48), s1 = zcoll::load_u32(z.data() + 52),
                 s2 = zcoll::load_u32(z.data() + 56);
  EXPECT_EQ(s1, 8u + 4096u);  // chunk 1 is raw
  EXPECT_EQ(s0 % 8, 0u);
  EXPECT_EQ(zcoll::load_u32(z.data() + 60), 0u);  // index padding
  struct Case {
    int chunk;
    uint32_t size;
    zcoll_status want;
  } cases[] = {
      {0, 0, ZCOLL_ERR_CORRUPT},           {0, 4, ZCOLL_ERR_CORRUPT},
      {0, s0 + 4, ZCOLL_ERR_CORRUPT},      {0, s0 + 8, ZCOLL_ERR_TRUNCATED},
      {0, s0 - 8, ZCOLL_ERR_CORRUPT},      {1, s1 + 8, ZCOLL_ERR_CORRUPT},
      {1, s1 - 8, ZCOLL_ERR_CORRUPT},      {2, 8 + 160 + 8, ZCOLL_ERR_CORRUPT},
      {2, 0xFFFFFFF8u, ZCOLL_ERR_CORRUPT}, {2, s2 + 1, ZCOLL_ERR_CORRUPT},
  };
  for (const Case& k : cases) {
    std::vector<uint8_t> c = z;
    set_size(c, k.chunk, k.size);
    Results r = try_all(c.data(), c.size(), x.size());
    EXPECT_EQ(r.inspect, k.want) << "chunk " << k.chunk << " size " << k.size;
    EXPECT_EQ(r.decompress, k.want) << "chunk " << k.chunk << " size " << k.size;
  }
  // a plausible size (the raw size of the 40-value tail) that runs past the end:
  // TRUNCATED; with enough bytes behind it, the chunk's framing check fails
  {
    ASSERT_LT(s2, 168u);
    std::vector<uint8_t> c = z;
    set_size(c, 2, 8 + 160);
    EXPECT_EQ(try_all(c.data(), c.size(), x.size()).inspect, ZCOLL_ERR_TRUNCATED);
    c.resize(c.size() + 168, 0);
    EXPECT_EQ(try_all(c.data(), c.size(), x.size()).inspect, ZCOLL_ERR_CORRUPT);
  }
}

// Header fields changed, with a recomputed checksum: each one is validated.
TEST(BadInput, ForgedHeaderFieldsAreValidated) {
  std::vector<float> x;
  std::vector<uint8_t> z = small_stream(&x);
  ASSERT_FALSE(z.empty());
  // header fields with a recomputed checksum
  auto field = [&](size_t off, const void* v, size_t len) {
    std::vector<uint8_t> c = z;
    std::memcpy(c.data() + off, v, len);
    reseal(c);
    return try_all(c.data(), c.size(), x.size()).inspect;
  };
  const double zero = 0, neg = -1, nan = std::numeric_limits<double>::quiet_NaN(),
               inf = std::numeric_limits<double>::infinity();
  for (const double* d : {&zero, &neg, &nan, &inf}) {
    EXPECT_EQ(field(24, d, 8), ZCOLL_ERR_CORRUPT);  // eb
    EXPECT_EQ(field(32, d, 8), ZCOLL_ERR_CORRUPT);  // quantum
  }
  const uint32_t u0 = 0, bad_cs1 = 1000, bad_cs2 = 512, bad_cs3 = 2u << 20;
  EXPECT_EQ(field(12, &u0, 4), ZCOLL_ERR_CORRUPT);      // divisor
  EXPECT_EQ(field(40, &u0, 4), ZCOLL_ERR_CORRUPT);      // terms
  EXPECT_EQ(field(8, &bad_cs1, 4), ZCOLL_ERR_CORRUPT);  // chunk size
  EXPECT_EQ(field(8, &bad_cs2, 4), ZCOLL_ERR_CORRUPT);
  EXPECT_EQ(field(8, &bad_cs3, 4), ZCOLL_ERR_CORRUPT);
  const uint8_t dt0 = 0, dt3 = 3, v2 = 2, b4 = 4, fl = 1, fl2 = 4;
  EXPECT_EQ(field(5, &dt0, 1), ZCOLL_ERR_CORRUPT);
  EXPECT_EQ(field(5, &dt3, 1), ZCOLL_ERR_CORRUPT);
  EXPECT_EQ(field(4, &v2, 1), ZCOLL_ERR_UNSUPPORTED);
  EXPECT_EQ(field(6, &b4, 1), ZCOLL_ERR_UNSUPPORTED);
  EXPECT_EQ(field(7, &fl2, 1), ZCOLL_ERR_UNSUPPORTED);  // a flag format 1.3 does not define
  // the checksum flag (1.1) on a stream without the trailer it announces
  EXPECT_EQ(field(7, &fl, 1), ZCOLL_ERR_TRUNCATED);
  const uint64_t huge_n = uint64_t{1} << 60, big_n = uint64_t{1} << 40;
  EXPECT_EQ(field(16, &huge_n, 8), ZCOLL_ERR_CORRUPT);
  EXPECT_EQ(field(16, &big_n, 8), ZCOLL_ERR_TRUNCATED);  // its index would need 4 GiB
  // dtype switched to float64 with a fresh checksum: the raw chunk no longer fits
  const uint8_t dt2 = 2;
  EXPECT_EQ(field(5, &dt2, 1), ZCOLL_ERR_CORRUPT);
  // the output buffer is checked against n before decoding
  std::vector<float> y(x.size() - 1);
  EXPECT_EQ(zcoll_decompress(z.data(), z.size(), y.data(), y.size(), 1),
            ZCOLL_ERR_BUFFER_TOO_SMALL);
  EXPECT_STRNE(zcoll_last_error(), "");
}

// Random bytes with a valid magic, version and fields, and random chunk data.
TEST(BadInput, RandomStreamsNeverCrash) {
  Rng r(77);
  for (int it = 0; it < 3000; ++it) {
    size_t n = r.below(3000);
    uint32_t cs = 1024;
    uint64_t chunks = (n + cs - 1) / cs;
    std::vector<uint8_t> s(zcoll_header_size(n, cs));
    s[0] = 'Z';
    s[1] = 'C';
    s[2] = 'O';
    s[3] = 'L';
    s[4] = 1;
    s[5] = static_cast<uint8_t>(1 + r.below(2));
    s[6] = 5;
    zcoll::store_u32(s.data() + 8, cs);
    zcoll::store_u32(s.data() + 12, 1 + static_cast<uint32_t>(r.below(3)));
    zcoll::store_u64(s.data() + 16, n);
    zcoll::store_f64(s.data() + 24, 0.5);
    zcoll::store_f64(s.data() + 32, r.uniform(1e-3, 10));
    zcoll::store_u32(s.data() + 40, 1);
    const size_t vb = s[5] == 2 ? 8 : 4;
    for (uint64_t c = 0; c < chunks; ++c) {
      uint32_t len = static_cast<uint32_t>(std::min<uint64_t>(cs, n - c * cs));
      uint32_t nb = (len + 31) / 32;
      std::vector<uint8_t> ch;
      if (r.coin(0.3)) {  // raw
        ch = std::vector<uint8_t>((8 + len * vb + 7) & ~size_t{7}, 0);
        ch[0] = 1;
        for (size_t i = 8; i < ch.size(); ++i) ch[i] = static_cast<uint8_t>(r.next());
      } else {  // quantized with random code lengths and payload
        size_t head = 12 + ((nb + 3) & ~3u);
        ch = std::vector<uint8_t>(head, 0);
        size_t total = head;
        for (uint32_t b = 0; b < nb; ++b) {
          uint32_t L = r.coin(0.3) ? 0 : static_cast<uint32_t>(r.below(r.coin(0.05) ? 40 : 34));
          ch[12 + b] = static_cast<uint8_t>(L);
          total += 4 * L;
        }
        for (int i = 4; i < 12; ++i) ch[i] = static_cast<uint8_t>(r.next());
        ch.resize((total + 7) & ~size_t{7});
        for (size_t i = head; i < ch.size(); ++i) ch[i] = static_cast<uint8_t>(r.next());
        if (r.coin(0.05)) ch.resize(ch.size() + 8);  // inconsistent size
      }
      zcoll::store_u32(s.data() + 48 + 4 * c, static_cast<uint32_t>(ch.size()));
      s.insert(s.end(), ch.begin(), ch.end());
    }
    zcoll::store_u32(s.data() + 44, zcoll::header_checksum(s.data(), chunks));
    if (r.coin(0.1) && s.size() > 48) s.resize(r.below(s.size()));
    Results res = try_all(s.data(), s.size(), n);
    EXPECT_TRUE(res.inspect == ZCOLL_SUCCESS || res.inspect == ZCOLL_ERR_CORRUPT ||
                res.inspect == ZCOLL_ERR_TRUNCATED);
    EXPECT_EQ(res.decompress, res.inspect);
    if (HasFailure()) return;
  }
}

// ---- bad parameters -------------------------------------------------------------

// A valid ABS setting, the documented way.
zcoll_params abs_params() {
  zcoll_params p;
  zcoll_params_init(&p);
  p.eb_mode = ZCOLL_EB_ABS;
  p.error_bound = 0.1;
  return p;
}

// A refused call: the documented status, and a message for it.
void expect_fail(zcoll_status got, zcoll_status want, const char* what) {
  EXPECT_EQ(got, want) << what;
  EXPECT_STRNE(zcoll_last_error(), "") << what;
  EXPECT_STRNE(zcoll_status_string(got), "") << what;
}

// zcoll_compress, threads defaulting to 1.
zcoll_status run(const zcoll_params* p, zcoll_dtype dt, const void* src, size_t n, void* dst,
                 size_t cap, size_t* sz, int threads = 1) {
  return zcoll_compress(p, dt, src, n, dst, cap, sz, threads);
}

// Bad settings: the bound, the chunk size, struct_size, threads, the dtype.
TEST(BadParams, CompressRejectsWithDocumentedStatus) {
  std::vector<float> x(100, 1.0f);
  std::vector<uint8_t> out(zcoll_compress_bound(100, ZCOLL_FLOAT32));
  size_t size = 0;
  const zcoll_params good = abs_params();
  ASSERT_EQ(run(&good, ZCOLL_FLOAT32, x.data(), 100, out.data(), out.size(), &size), ZCOLL_SUCCESS);
  EXPECT_STREQ(zcoll_last_error(), "");
  expect_fail(run(nullptr, ZCOLL_FLOAT32, x.data(), 100, out.data(), out.size(), &size),
              ZCOLL_ERR_INVALID_ARG, "NULL params");
  for (double eb :
       {0.0, -1.0, -0.0, std::numeric_limits<double>::quiet_NaN(),
        std::numeric_limits<double>::infinity(), -std::numeric_limits<double>::infinity()}) {
    for (zcoll_eb_mode m : {ZCOLL_EB_ABS, ZCOLL_EB_REL}) {
      zcoll_params p = good;
      p.error_bound = eb;
      p.eb_mode = m;
      expect_fail(run(&p, ZCOLL_FLOAT32, x.data(), 100, out.data(), out.size(), &size),
                  ZCOLL_ERR_INVALID_ARG, "bad eb");
      double ab;
      expect_fail(zcoll_resolve_error_bound(&p, ZCOLL_FLOAT32, x.data(), 100, &ab, 1),
                  ZCOLL_ERR_INVALID_ARG, "resolve bad eb");
    }
  }
  for (uint32_t cs : {1u, 32u, 512u, 1000u, 1024u + 16u, 1025u, 2u << 20, 0xFFFFFFE0u}) {
    zcoll_params p = good;
    p.chunk_size = cs;
    expect_fail(run(&p, ZCOLL_FLOAT32, x.data(), 100, out.data(), out.size(), &size),
                ZCOLL_ERR_INVALID_ARG, "bad chunk size");
  }
  for (uint32_t cs : {1024u, 1056u, 1u << 20}) {
    zcoll_params p = good;
    p.chunk_size = cs;
    EXPECT_EQ(run(&p, ZCOLL_FLOAT32, x.data(), 100, out.data(), out.size(), &size), ZCOLL_SUCCESS)
        << cs;
  }
  {
    zcoll_params p = good;
    p.struct_size = offsetof(zcoll_params, chunk_size);  // below the first version
    expect_fail(run(&p, ZCOLL_FLOAT32, x.data(), 100, out.data(), out.size(), &size),
                ZCOLL_ERR_INVALID_ARG, "struct_size");
    // (an eb_mode outside {ABS, REL} is not tested: a C++ caller cannot form one
    // without undefined behaviour, and UBSan flags the library's load of it)
    expect_fail(run(&good, ZCOLL_FLOAT32, x.data(), 100, out.data(), out.size(), &size, -1),
                ZCOLL_ERR_INVALID_ARG, "threads");
  }
  for (int dt : {0, 5})
    expect_fail(
        run(&good, static_cast<zcoll_dtype>(dt), x.data(), 100, out.data(), out.size(), &size),
        ZCOLL_ERR_UNSUPPORTED, "dtype");
}

// Bad buffers: NULL pointers and too little capacity; an absolute bound below a
// quantization step; n == 0.
TEST(BadParams, CompressChecksItsBuffers) {
  std::vector<float> x(100, 1.0f);
  std::vector<uint8_t> out(zcoll_compress_bound(100, ZCOLL_FLOAT32));
  size_t size = 0;
  const zcoll_params good = abs_params();
  expect_fail(run(&good, ZCOLL_FLOAT32, nullptr, 100, out.data(), out.size(), &size),
              ZCOLL_ERR_INVALID_ARG, "NULL src");
  expect_fail(run(&good, ZCOLL_FLOAT32, x.data(), 100, nullptr, out.size(), &size),
              ZCOLL_ERR_INVALID_ARG, "NULL dst");
  expect_fail(run(&good, ZCOLL_FLOAT32, x.data(), 100, out.data(), out.size(), nullptr),
              ZCOLL_ERR_INVALID_ARG, "NULL dst_size");
  expect_fail(run(&good, ZCOLL_FLOAT32, x.data(), 100, out.data(), out.size() - 1, &size),
              ZCOLL_ERR_BUFFER_TOO_SMALL, "capacity");
  expect_fail(run(&good, ZCOLL_FLOAT32, x.data(), 100, out.data(), 0, &size),
              ZCOLL_ERR_BUFFER_TOO_SMALL, "capacity 0");
  // the capacity rule is the bound even when the data would compress well
  std::vector<uint8_t> o2(zcoll_compress_bound(100, ZCOLL_FLOAT64) - 1);
  std::vector<double> xd(100, 0.0);
  expect_fail(run(&good, ZCOLL_FLOAT64, xd.data(), 100, o2.data(), o2.size(), &size),
              ZCOLL_ERR_BUFFER_TOO_SMALL, "capacity f64");
  // an absolute bound too small for a quantization step (2*eb < DBL_MIN): refused
  // with INVALID_ARG today; storing the data losslessly would be fine too
  {
    zcoll_params p = good;
    p.error_bound = 1e-320;
    std::vector<uint8_t> o3(zcoll_compress_bound(100, ZCOLL_FLOAT64));
    zcoll_status st = run(&p, ZCOLL_FLOAT64, xd.data(), 100, o3.data(), o3.size(), &size);
    if (st != ZCOLL_SUCCESS) {
      expect_fail(st, ZCOLL_ERR_INVALID_ARG, "denormal eb");
    } else {
      o3.resize(size);
      std::vector<double> y = zt::decompress<double>(o3, 100);
      EXPECT_EQ(zt::count_violations(xd, y, 1e-320, "denormal eb"), 0u);
    }
  }
  // n == 0 with NULL src is fine
  EXPECT_EQ(run(&good, ZCOLL_FLOAT32, nullptr, 0, out.data(), out.size(), &size), ZCOLL_SUCCESS);
  EXPECT_EQ(size, 48u);
}

TEST(BadParams, DecompressAndInspect) {
  std::vector<float> x(2000, 2.0f);
  std::vector<uint8_t> z = zt::compress(x, ZCOLL_EB_ABS, 0.1, 1024, 1);
  std::vector<float> y(2000);
  auto expect_fail = [&](zcoll_status got, zcoll_status want, const char* what) {
    EXPECT_EQ(got, want) << what;
    EXPECT_STRNE(zcoll_last_error(), "") << what;
  };
  expect_fail(zcoll_decompress(nullptr, z.size(), y.data(), y.size(), 1), ZCOLL_ERR_INVALID_ARG,
              "NULL src");
  expect_fail(zcoll_decompress(z.data(), z.size(), nullptr, y.size(), 1), ZCOLL_ERR_INVALID_ARG,
              "NULL dst");
  expect_fail(zcoll_decompress(z.data(), z.size(), y.data(), 1999, 1), ZCOLL_ERR_BUFFER_TOO_SMALL,
              "count");
  expect_fail(zcoll_decompress(z.data(), z.size(), y.data(), y.size(), -2), ZCOLL_ERR_INVALID_ARG,
              "threads");
  expect_fail(zcoll_decompress_accumulate(z.data(), z.size(), y.data(), 10, 1),
              ZCOLL_ERR_BUFFER_TOO_SMALL, "acc count");
  expect_fail(zcoll_decompress_chunks(z.data(), z.size(), 0, 3, y.data(), y.size(), 1),
              ZCOLL_ERR_INVALID_ARG, "range");
  zcoll_info info = ZCOLL_INFO_INITIALIZER;
  expect_fail(zcoll_inspect(z.data(), z.size(), nullptr), ZCOLL_ERR_INVALID_ARG, "NULL info");
  expect_fail(zcoll_inspect(nullptr, z.size(), &info), ZCOLL_ERR_INVALID_ARG, "NULL stream");
  expect_fail(zcoll_stream_size(z.data(), z.size(), nullptr), ZCOLL_ERR_INVALID_ARG, "NULL size");
  size_t ss;
  expect_fail(zcoll_stream_size(nullptr, 100, &ss), ZCOLL_ERR_INVALID_ARG, "NULL stream size");
  // not a stream at all
  std::vector<uint8_t> junk(200, 0x41);
  expect_fail(zcoll_inspect(junk.data(), junk.size(), &info), ZCOLL_ERR_CORRUPT, "junk");
  // success clears the message
  ASSERT_EQ(zcoll_decompress(z.data(), z.size(), y.data(), y.size(), 1), ZCOLL_SUCCESS);
  EXPECT_STREQ(zcoll_last_error(), "");
}

TEST(BadParams, StatusStrings) {
  for (int s = 0; s <= 9; ++s) {
    const char* str = zcoll_status_string(static_cast<zcoll_status>(s));
    ASSERT_NE(str, nullptr);
    EXPECT_STRNE(str, "");
  }
  EXPECT_NE(zcoll_status_string(static_cast<zcoll_status>(15)), nullptr);
  EXPECT_STREQ(zcoll_status_string(ZCOLL_SUCCESS), "success");
}

}  // namespace
