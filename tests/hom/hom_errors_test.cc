// hom_errors_test.cc — inputs that cannot be combined, corrupt or truncated
// streams, bad arguments and small buffers: every entry point returns the right
// status, zcoll_last_error() names the field, and nothing is written (the output
// buffer, its size and an accumulator are left exactly as they were).
#include "hom_util.h"

namespace {

using namespace ht;

class HomErrors : public testing::TestWithParam<Config> {};

enum class Fn { kAdd, kSub, kAcc, kDoc };
const Fn kAllFns[] = {Fn::kAdd, Fn::kSub, Fn::kAcc, Fn::kDoc};
const char* fn_name(Fn f) {
  switch (f) {
    case Fn::kAdd: return "zcoll_hom_add";
    case Fn::kSub: return "zcoll_hom_sub";
    case Fn::kAcc: return "zcoll_hom_accumulate";
    case Fn::kDoc: return "zcoll_doc_combine";
  }
  return "?";
}

struct Outcome {
  zcoll_status status;
  std::string msg;
};

// Call f on (a[0..a_size), b[0..b_size)); on failure check that nothing was
// written. cap: output capacity (0 = generous).
Outcome call(Fn f, const Bytes& a, size_t a_size, const Bytes& b, size_t b_size, int threads,
             size_t cap = 0) {
  const size_t big = std::max(a.size(), b.size()) * 3 + (1u << 16);
  if (cap == 0) cap = big;
  Outcome o;
  const size_t sentinel = 0xDEADBEEF;
  size_t out_size = sentinel;
  if (f == Fn::kAcc) {
    Bytes acc(std::max(cap, a.size()), 0xA5);
    std::memcpy(acc.data(), a.data(), a.size());
    const Bytes before = acc;
    o.status = zcoll_hom_accumulate(acc.data(), a_size, cap, &out_size, b.data(), b_size, nullptr,
                                    threads);
    o.msg = zcoll_last_error();
    if (o.status != ZCOLL_SUCCESS) {
      EXPECT_EQ(acc, before) << fn_name(f) << ": the accumulator changed on failure";
      EXPECT_EQ(out_size, sentinel) << fn_name(f);
    }
    return o;
  }
  Bytes out(cap, 0xA5);
  switch (f) {
    case Fn::kAdd:
      o.status = zcoll_hom_add(a.data(), a_size, b.data(), b_size, out.data(), cap, &out_size,
                               nullptr, threads);
      break;
    case Fn::kSub:
      o.status = zcoll_hom_sub(a.data(), a_size, b.data(), b_size, out.data(), cap, &out_size,
                               nullptr, threads);
      break;
    default:
      o.status = zcoll_doc_combine(a.data(), a_size, b.data(), b_size, ZCOLL_OP_SUM, out.data(),
                                   cap, &out_size, threads);
      break;
  }
  o.msg = zcoll_last_error();
  if (o.status != ZCOLL_SUCCESS) {
    EXPECT_EQ(out, Bytes(cap, 0xA5)) << fn_name(f) << ": output written on failure";
    EXPECT_EQ(out_size, sentinel) << fn_name(f) << ": out_size written on failure";
  }
  return o;
}

bool contains(const std::string& s, const std::string& part) {
  return s.find(part) != std::string::npos;
}

// Both orders, every binary entry point: status and a message naming the field.
void expect_mismatch(const Bytes& a, const Bytes& b, int threads, const std::string& field) {
  for (Fn f : kAllFns)
    for (int order = 0; order < 2; ++order) {
      const Bytes& x = order ? b : a;
      const Bytes& y = order ? a : b;
      const Outcome o = call(f, x, x.size(), y, y.size(), threads);
      EXPECT_EQ(o.status, ZCOLL_ERR_MISMATCH) << fn_name(f) << " " << field << ": " << o.msg;
      EXPECT_TRUE(contains(o.msg, field))
          << fn_name(f) << ": message \"" << o.msg << "\" does not name the " << field;
    }
}

template <typename T>
std::vector<T> data(size_t n, uint64_t seed = 1) {
  return make_data<T>(Kind::kSmooth, n, seed);
}

template <typename T>
void mismatches(int threads) {
  const size_t n = 3 * 1024 + 17;
  const Bytes a = compress(data<T>(n), 1e-3, 1024, threads);
  // dtype
  {
    using U = typename std::conditional<std::is_same<T, float>::value, double, float>::type;
    const Bytes other = compress(data<U>(n), 1e-3, 1024, threads);
    expect_mismatch(a, other, threads, "dtype");
  }
  // length
  expect_mismatch(a, compress(data<T>(n + 1), 1e-3, 1024, threads), threads, "length");
  expect_mismatch(a, compress(data<T>(n - 40), 1e-3, 1024, threads), threads, "length");
  // chunk size (same n, same bound)
  expect_mismatch(a, compress(data<T>(n), 1e-3, 2048, threads), threads, "chunk size");
  // error bound: another quantum, even one ulp away
  expect_mismatch(a, compress(data<T>(n), 2e-3, 1024, threads), threads, "quantization step");
  expect_mismatch(a, compress(data<T>(n), std::nextafter(1e-3, 1.0), 1024, threads), threads,
                  "quantization step");
  // divisor
  Bytes d = compress(data<T>(n, 2), 1e-3, 1024, threads);
  ASSERT_EQ(zcoll_hom_set_divisor(d.data(), d.size(), 2), ZCOLL_SUCCESS);
  expect_mismatch(a, d, threads, "divisor");
  // different term counts and bounds of the same quantum do combine
  Bytes s = hom_add(a, a, threads);
  for (Fn f : kAllFns)
    EXPECT_EQ(call(f, s, s.size(), a, a.size(), threads).status, ZCOLL_SUCCESS) << fn_name(f);
}
TEST_P(HomErrors, MismatchesNameTheField) { HT_DISPATCH(GetParam(), mismatches); }

// Every byte of the 48-byte header flipped, in either input: never a success,
// never an output. Bytes of the size fields (chunk size, n) may make the stream
// look truncated; version, block size and undefined flags are UNSUPPORTED; the
// checksum flag (bit 0, format 1.1) and everything else is CORRUPT (bad magic,
// bad field, or the header checksum).
template <typename T>
void corrupt_header(int threads) {
  const size_t n = 2 * 1024 + 5;
  const Bytes a = compress(data<T>(n), 1e-3, 1024, threads);
  const Bytes b = compress(data<T>(n, 3), 1e-3, 1024, threads);
  for (size_t byte = 0; byte < zcoll::kHeaderBytes; ++byte)
    for (uint8_t mask : {uint8_t{0x01}, uint8_t{0x80}}) {
      Bytes bad = a;
      bad[byte] ^= mask;
      for (Fn f : kAllFns)
        for (int which = 0; which < 2; ++which) {
          const Outcome o = which == 0 ? call(f, bad, bad.size(), b, b.size(), threads)
                                       : call(f, b, b.size(), bad, bad.size(), threads);
          const std::string w = std::string(fn_name(f)) + ": header byte " + std::to_string(byte) +
                                " ^ " + std::to_string(mask) + " in " + (which ? "b" : "a") + ": " +
                                o.msg;
          if (byte == 4 || byte == 6 || (byte == 7 && mask != 0x01)) {
            EXPECT_EQ(o.status, ZCOLL_ERR_UNSUPPORTED) << w;
          } else if ((byte >= 8 && byte < 12) || (byte >= 16 && byte < 24)) {
            EXPECT_TRUE(o.status == ZCOLL_ERR_CORRUPT || o.status == ZCOLL_ERR_TRUNCATED) << w;
          } else {
            EXPECT_EQ(o.status, ZCOLL_ERR_CORRUPT) << w;
          }
          EXPECT_TRUE(contains(o.msg, which ? "second stream" : "first stream")) << w;
        }
    }
  // the header checksum also covers the index
  Bytes bad = a;
  bad[zcoll::kHeaderBytes + 1] ^= 0x01;
  for (Fn f : kAllFns) {
    const Outcome o = call(f, bad, bad.size(), b, b.size(), threads);
    EXPECT_EQ(o.status, ZCOLL_ERR_CORRUPT) << fn_name(f) << ": " << o.msg;
    EXPECT_TRUE(contains(o.msg, "checksum")) << o.msg;
  }
  // single-stream entry points
  Bytes out(bound_of(a));
  size_t size = 0;
  Bytes bad_magic = a;
  bad_magic[0] ^= 0x20;
  EXPECT_EQ(
      zcoll_hom_negate(bad_magic.data(), bad_magic.size(), out.data(), out.size(), &size, threads),
      ZCOLL_ERR_CORRUPT);
  EXPECT_TRUE(contains(zcoll_last_error(), "magic")) << zcoll_last_error();
  Bytes bad_crc = a;
  bad_crc[30] ^= 0x01;  // inside error_bound
  EXPECT_EQ(
      zcoll_hom_negate(bad_crc.data(), bad_crc.size(), out.data(), out.size(), &size, threads),
      ZCOLL_ERR_CORRUPT);
  const Bytes before = bad_crc;
  EXPECT_EQ(zcoll_hom_set_divisor(bad_crc.data(), bad_crc.size(), 3), ZCOLL_ERR_CORRUPT);
  EXPECT_TRUE(contains(zcoll_last_error(), "checksum")) << zcoll_last_error();
  EXPECT_EQ(bad_crc, before) << "set_divisor wrote into a corrupt stream";
}
TEST_P(HomErrors, CorruptHeaderBytes) { HT_DISPATCH(GetParam(), corrupt_header); }

// Chunk data is not covered by the checksum; its framing is: an unknown chunk
// kind or code lengths that do not match the chunk size are CORRUPT.
template <typename T>
void corrupt_chunks(int threads) {
  const size_t n = 2 * 1024;
  const Bytes a = compress(make_data<T>(Kind::kNoisy, n, 5), 1e-3, 1024, threads);
  const Bytes b = compress(data<T>(n, 6), 1e-3, 1024, threads);
  const size_t c0 = zcoll_header_size(n, 1024);  // chunk 0
  ASSERT_EQ(a[c0], zcoll::kChunkQuantized);
  Bytes kind = a;
  kind[c0] = 7;
  Bytes len = a;
  len[c0 + zcoll::kQuantChunkHeaderBytes + 3] += 2;  // block 3 two planes (8 bytes) longer
  for (Fn f : kAllFns) {
    Outcome o = call(f, kind, kind.size(), b, b.size(), threads);
    EXPECT_EQ(o.status, ZCOLL_ERR_CORRUPT) << fn_name(f) << ": " << o.msg;
    EXPECT_TRUE(contains(o.msg, "chunk kind")) << o.msg;
    o = call(f, b, b.size(), len, len.size(), threads);
    EXPECT_EQ(o.status, ZCOLL_ERR_CORRUPT) << fn_name(f) << ": " << o.msg;
    EXPECT_TRUE(contains(o.msg, "second stream") && contains(o.msg, "code lengths")) << o.msg;
  }
  Bytes out(bound_of(a));
  size_t size = 0;
  EXPECT_EQ(zcoll_hom_negate(len.data(), len.size(), out.data(), out.size(), &size, threads),
            ZCOLL_ERR_CORRUPT);
}
TEST_P(HomErrors, CorruptChunkFraming) { HT_DISPATCH(GetParam(), corrupt_chunks); }

// A newer format version (with a valid checksum) is UNSUPPORTED, not misread.
template <typename T>
void format_version(int threads) {
  const size_t n = 1500;
  const Bytes a = compress(data<T>(n), 1e-3, 1024, threads);
  const Bytes v2 = with_header(a, [](zcoll::Header& h) { h.version = 2; });
  for (Fn f : kAllFns)
    for (int which = 0; which < 2; ++which) {
      const Outcome o = which ? call(f, a, a.size(), v2, v2.size(), threads)
                              : call(f, v2, v2.size(), a, a.size(), threads);
      EXPECT_EQ(o.status, ZCOLL_ERR_UNSUPPORTED) << fn_name(f) << ": " << o.msg;
      EXPECT_TRUE(contains(o.msg, "format version")) << o.msg;
    }
  Bytes out(bound_of(a));
  size_t size = 0;
  EXPECT_EQ(zcoll_hom_negate(v2.data(), v2.size(), out.data(), out.size(), &size, threads),
            ZCOLL_ERR_UNSUPPORTED);
}
TEST_P(HomErrors, NewerFormatVersionUnsupported) { HT_DISPATCH(GetParam(), format_version); }

template <typename T>
void truncated(int threads) {
  const size_t n = 3 * 1024 + 3;
  const Bytes a = compress(data<T>(n), 1e-3, 1024, threads);
  const Bytes b = compress(data<T>(n, 9), 1e-3, 1024, threads);
  const size_t hs = zcoll_header_size(n, 1024);
  for (size_t cut : {size_t{0}, size_t{20}, size_t{47}, hs - 1, hs, a.size() - 8, a.size() - 1}) {
    for (Fn f : kAllFns)
      for (int which = 0; which < 2; ++which) {
        const Outcome o = which ? call(f, b, b.size(), a, cut, threads)
                                : call(f, a, cut, b, b.size(), threads);
        const std::string w = std::string(fn_name(f)) + " size " + std::to_string(cut) + ": " +
                              o.msg;
        EXPECT_EQ(o.status, ZCOLL_ERR_TRUNCATED) << w;
        EXPECT_TRUE(contains(o.msg, which ? "second stream" : "first stream")) << w;
        EXPECT_TRUE(contains(o.msg, "bytes")) << w;
      }
    Bytes out(bound_of(a));
    size_t size = 0;
    EXPECT_EQ(zcoll_hom_negate(a.data(), cut, out.data(), out.size(), &size, threads),
              ZCOLL_ERR_TRUNCATED);
    Bytes c = a;
    EXPECT_EQ(zcoll_hom_set_divisor(c.data(), cut, 2), ZCOLL_ERR_TRUNCATED);
    EXPECT_EQ(c, a);
  }
  // trailing bytes after a stream are ignored
  Bytes longer = a;
  longer.resize(a.size() + 64, 0x5A);
  EXPECT_EQ(call(Fn::kAdd, longer, longer.size(), b, b.size(), threads).status, ZCOLL_SUCCESS);
}
TEST_P(HomErrors, TruncatedStreams) { HT_DISPATCH(GetParam(), truncated); }

template <typename T>
void buffers_and_args(int threads) {
  const size_t n = 2 * 1024 + 9;
  const Bytes a = compress(data<T>(n), 1e-3, 1024, threads);
  const Bytes b = compress(data<T>(n, 10), 1e-3, 1024, threads);
  const size_t bound = zcoll_compress_bound(n, dtype_of<T>());
  // the output capacity must be at least zcoll_compress_bound, even when the
  // result would fit (it is documented so; the check comes before any work)
  for (Fn f : {Fn::kAdd, Fn::kSub, Fn::kDoc}) {
    Outcome o = call(f, a, a.size(), b, b.size(), threads, bound - 1);
    EXPECT_EQ(o.status, ZCOLL_ERR_BUFFER_TOO_SMALL) << fn_name(f) << ": " << o.msg;
    EXPECT_TRUE(contains(o.msg, "capacity")) << o.msg;
    EXPECT_EQ(call(f, a, a.size(), b, b.size(), threads, bound).status, ZCOLL_SUCCESS)
        << fn_name(f);
  }
  Bytes out(bound, 0xA5);
  size_t size = 7;
  EXPECT_EQ(zcoll_hom_negate(a.data(), a.size(), out.data(), bound - 1, &size, threads),
            ZCOLL_ERR_BUFFER_TOO_SMALL);
  EXPECT_TRUE(contains(zcoll_last_error(), "capacity"));
  EXPECT_EQ(size, 7u);
  EXPECT_EQ(out, Bytes(bound, 0xA5));
  // NULL pointers and negative thread counts
  EXPECT_EQ(zcoll_hom_add(nullptr, a.size(), b.data(), b.size(), out.data(), bound, &size, nullptr,
                          threads),
            ZCOLL_ERR_INVALID_ARG);
  EXPECT_EQ(zcoll_hom_add(a.data(), a.size(), nullptr, b.size(), out.data(), bound, &size, nullptr,
                          threads),
            ZCOLL_ERR_INVALID_ARG);
  EXPECT_EQ(zcoll_hom_add(a.data(), a.size(), b.data(), b.size(), nullptr, bound, &size, nullptr,
                          threads),
            ZCOLL_ERR_INVALID_ARG);
  EXPECT_EQ(zcoll_hom_sub(a.data(), a.size(), b.data(), b.size(), out.data(), bound, nullptr,
                          nullptr, threads),
            ZCOLL_ERR_INVALID_ARG);
  EXPECT_EQ(
      zcoll_hom_add(a.data(), a.size(), b.data(), b.size(), out.data(), bound, &size, nullptr, -1),
      ZCOLL_ERR_INVALID_ARG);
  EXPECT_EQ(zcoll_hom_negate(a.data(), a.size(), out.data(), bound, &size, -1),
            ZCOLL_ERR_INVALID_ARG);
  EXPECT_EQ(zcoll_doc_combine(a.data(), a.size(), b.data(), b.size(), ZCOLL_OP_SUM, out.data(),
                              bound, &size, -1),
            ZCOLL_ERR_INVALID_ARG);
  size_t acc_size = 0;
  Bytes acc = a;
  EXPECT_EQ(zcoll_hom_accumulate(nullptr, a.size(), a.size(), &acc_size, b.data(), b.size(),
                                 nullptr, threads),
            ZCOLL_ERR_INVALID_ARG);
  EXPECT_EQ(zcoll_hom_accumulate(acc.data(), a.size(), a.size(), nullptr, b.data(), b.size(),
                                 nullptr, threads),
            ZCOLL_ERR_INVALID_ARG);
  // unknown op
  EXPECT_EQ(zcoll_doc_combine(a.data(), a.size(), b.data(), b.size(), static_cast<zcoll_op>(9),
                              out.data(), bound, &size, threads),
            ZCOLL_ERR_UNSUPPORTED);
  EXPECT_TRUE(contains(zcoll_last_error(), "op")) << zcoll_last_error();
  // divisor 0
  Bytes c = a;
  EXPECT_EQ(zcoll_hom_set_divisor(c.data(), c.size(), 0), ZCOLL_ERR_INVALID_ARG);
  EXPECT_TRUE(contains(zcoll_last_error(), "divisor")) << zcoll_last_error();
  EXPECT_EQ(c, a);
  // the error message is cleared by the next successful call
  ASSERT_EQ(zcoll_hom_add(a.data(), a.size(), b.data(), b.size(), out.data(), bound, &size, nullptr,
                          threads),
            ZCOLL_SUCCESS);
  EXPECT_STREQ(zcoll_last_error(), "");
}
TEST_P(HomErrors, BuffersAndArguments) { HT_DISPATCH(GetParam(), buffers_and_args); }

// zcoll_hom_accumulate with a capacity too small for the sum: acc unchanged,
// BUFFER_TOO_SMALL; with exactly the size needed: the same bytes as hom_add.
template <typename T>
void accumulate_capacity(int threads) {
  const size_t n = 4 * 1024;
  const Bytes a = compress(make_data<T>(Kind::kConstant, n, 11), 1e-3, 1024, threads);  // tiny
  const Bytes b = compress(make_data<T>(Kind::kNoisy, n, 12), 1e-3, 1024, threads);
  const Bytes sum = hom_add(a, b, threads);
  ASSERT_GT(sum.size(), a.size());
  for (size_t cap : {a.size(), sum.size() - 8, sum.size() - 1}) {
    const Outcome o = call(Fn::kAcc, a, a.size(), b, b.size(), threads, cap);
    EXPECT_EQ(o.status, ZCOLL_ERR_BUFFER_TOO_SMALL) << "capacity " << cap << ": " << o.msg;
    EXPECT_TRUE(contains(o.msg, "unchanged") || contains(o.msg, "holds")) << o.msg;
  }
  Bytes acc(sum.size(), 0);
  std::memcpy(acc.data(), a.data(), a.size());
  size_t new_size = 0;
  zcoll_hom_stats st = ZCOLL_HOM_STATS_INITIALIZER;
  ASSERT_EQ(zcoll_hom_accumulate(acc.data(), a.size(), acc.size(), &new_size, b.data(), b.size(),
                                 &st, threads),
            ZCOLL_SUCCESS)
      << zcoll_last_error();
  EXPECT_EQ(new_size, sum.size());
  EXPECT_EQ(acc, sum);
  EXPECT_EQ(st.pipeline[1], 4u * 32u);  // a constant everywhere, b noisy
  // a failed accumulate that also counts stats must not count anything
  zcoll_hom_stats st2 = ZCOLL_HOM_STATS_INITIALIZER;
  Bytes small(a.size());
  std::memcpy(small.data(), a.data(), a.size());
  size_t ns = 0;
  EXPECT_EQ(zcoll_hom_accumulate(small.data(), a.size(), small.size(), &ns, b.data(), b.size(),
                                 &st2, threads),
            ZCOLL_ERR_BUFFER_TOO_SMALL);
  EXPECT_EQ(small, a);
  (void)st2;  // counts of a failed call are not specified
}
TEST_P(HomErrors, AccumulateTooSmallLeavesAccUnchanged) {
  HT_DISPATCH(GetParam(), accumulate_capacity);
}

// The term count saturates at 2^32 - 1 instead of wrapping.
template <typename T>
void terms_saturate(int threads) {
  const Bytes a0 = compress(data<T>(2048), 1e-3, 1024, threads);
  const Bytes a = with_header(a0, [](zcoll::Header& h) { h.terms = 0xFFFFFFF0u; });
  const Bytes b = with_header(a0, [](zcoll::Header& h) { h.terms = 0x20u; });
  EXPECT_EQ(inspect(hom_add(a, b, threads)).terms, 0xFFFFFFFFu);
  EXPECT_EQ(inspect(hom_sub(a, b, threads)).terms, 0xFFFFFFFFu);
  EXPECT_EQ(inspect(doc(a, b, ZCOLL_OP_MAX, threads)).terms, 0xFFFFFFFFu);
}
TEST_P(HomErrors, TermCountSaturates) { HT_DISPATCH(GetParam(), terms_saturate); }

// The "first stream: " / "second stream: " prefix must keep the cause reported by
// the stream parser (every message check above depends on it).
TEST(HomErrorMessage, PrefixKeepsTheCause) {
  const Bytes a = compress(make_data<float>(Kind::kSmooth, 2048, 1), 1e-3, 1024);
  Bytes bad = a;
  bad[41] ^= 0x01;  // terms 1 -> 257: only the header checksum can tell
  zcoll_info info = ZCOLL_INFO_INITIALIZER;
  ASSERT_EQ(zcoll_inspect(bad.data(), bad.size(), &info), ZCOLL_ERR_CORRUPT);
  const std::string cause = zcoll_last_error();
  ASSERT_EQ(cause, "header/index checksum mismatch");
  Bytes out(bound_of(a));
  size_t size = 0;
  ASSERT_EQ(zcoll_hom_add(bad.data(), bad.size(), a.data(), a.size(), out.data(), out.size(), &size,
                          nullptr, 1),
            ZCOLL_ERR_CORRUPT);
  EXPECT_EQ(std::string(zcoll_last_error()), "first stream: " + cause);
  ASSERT_EQ(zcoll_hom_add(a.data(), a.size(), bad.data(), bad.size(), out.data(), out.size(), &size,
                          nullptr, 1),
            ZCOLL_ERR_CORRUPT);
  EXPECT_EQ(std::string(zcoll_last_error()), "second stream: " + cause);
  ASSERT_EQ(
      zcoll_hom_add(a.data(), 20, a.data(), a.size(), out.data(), out.size(), &size, nullptr, 1),
      ZCOLL_ERR_TRUNCATED);
  EXPECT_EQ(std::string(zcoll_last_error()),
            "first stream: stream has 20 bytes, the header alone needs 48");
}

INSTANTIATE_TEST_SUITE_P(Configs, HomErrors, testing::ValuesIn(all_configs()), config_name);

}  // namespace
