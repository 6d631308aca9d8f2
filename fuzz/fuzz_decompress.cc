// fuzz_decompress.cc — arbitrary bytes into zcoll_inspect, zcoll_stream_size,
// zcoll_decompress, zcoll_decompress_accumulate and zcoll_decompress_chunks,
// with a correctly sized output buffer (plus a guard area) whenever the header
// parses. The first byte: bit 0 recomputes the header/index checksum (so that
// mutations reach the chunk decoders), bits 1-2 pick the thread count, bits 3-7
// a chunk sub-range.
#include <cstdint>
#include <cstring>
#include <vector>

#include "codec/value_types.h"  // internal: bf16/f16 widening
#include "fuzz_common.h"

namespace {
constexpr uint64_t kMaxValues = uint64_t{1} << 22;  // keep every run small
constexpr size_t kGuard = 64;
constexpr uint8_t kGuardByte = 0xCD;

// value i of a decoded array of the given type, widened to double
double value_at(zcoll_dtype t, const std::vector<uint8_t>& v, uint64_t i) {
  switch (t) {
    case ZCOLL_FLOAT32: {
      float x;
      std::memcpy(&x, v.data() + 4 * i, 4);
      return x;
    }
    case ZCOLL_FLOAT64: {
      double x;
      std::memcpy(&x, v.data() + 8 * i, 8);
      return x;
    }
    default: {  // the 16-bit types
      uint16_t b;
      std::memcpy(&b, v.data() + 2 * i, 2);
      return t == ZCOLL_BFLOAT16 ? zcoll::hd::bf16_to_float(b) : zcoll::hd::f16_to_float(b);
    }
  }
}

void check_guard(const std::vector<uint8_t>& out, size_t used) {
  for (size_t i = used; i < out.size(); ++i)
    if (out[i] != kGuardByte) zfuzz::die("decoder wrote past the output values");
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 1) return 0;
  const uint8_t ctl = data[0];
  std::vector<uint8_t> s(data + 1, data + size);
  if (ctl & 1) zfuzz::fix_checksum(s);
  const int threads = 1 + ((ctl >> 1) & 3);
  const uint8_t* p = s.empty() ? nullptr : s.data();

  zcoll_info info = ZCOLL_INFO_INITIALIZER;
  const zcoll_status si = zcoll_inspect(p, s.size(), &info);
  if (si != ZCOLL_SUCCESS) ZFUZZ_CHECK(zcoll_last_error()[0] != '\0');
  size_t ss = 0;
  const zcoll_status sz = zcoll_stream_size(p, s.size(), &ss);
  if (si != ZCOLL_SUCCESS) {
    // the decoders must refuse too; give them a buffer when n is known and small
    zcoll::Header h;
    if (zcoll::parse_header(p, s.size(), &h) == ZCOLL_SUCCESS && h.n <= kMaxValues) {
      const size_t bytes = h.n * h.value_bytes();
      std::vector<uint8_t> out(bytes + kGuard, kGuardByte);
      ZFUZZ_CHECK(zcoll_decompress(p, s.size(), out.data(), h.n, threads) == si);
      ZFUZZ_CHECK(zcoll_decompress_accumulate(p, s.size(), out.data(), h.n, threads) == si);
      check_guard(out, bytes);
    }
    return 0;
  }
  ZFUZZ_CHECK(sz == ZCOLL_SUCCESS && ss == info.stream_size);
  if (info.n > kMaxValues) return 0;
  const size_t vb = zcoll_dtype_size(info.dtype);
  const size_t bytes = info.n * vb;

  // whole stream, twice with different thread counts: identical bits
  std::vector<uint8_t> a(bytes + kGuard, kGuardByte), b(bytes + kGuard, kGuardByte);
  ZFUZZ_CHECK(zcoll_decompress(p, s.size(), a.data(), info.n, threads) == ZCOLL_SUCCESS);
  ZFUZZ_CHECK(zcoll_decompress(p, s.size(), b.data(), info.n, 1) == ZCOLL_SUCCESS);
  check_guard(a, bytes);
  check_guard(b, bytes);
  ZFUZZ_CHECK(std::memcmp(a.data(), b.data(), bytes) == 0);

  // raw chunks are copied bit for bit (with divisor 1; otherwise they are divided)
  if (info.raw_chunks && info.divisor == 1) {
    zcoll::StreamView v;
    ZFUZZ_CHECK(zcoll::parse_stream(p, s.size(), &v) == ZCOLL_SUCCESS);
    for (uint64_t c = 0; c < v.chunks; ++c)
      if (v.chunk(c)[0] == zcoll::kChunkRaw)
        ZFUZZ_CHECK(std::memcmp(a.data() + c * info.chunk_size * vb, v.chunk(c) + 8,
                                size_t{v.h.chunk_len(c)} * vb) == 0);
  }

  // accumulate onto zeros: finite results equal the decoded values
  std::vector<uint8_t> acc(bytes + kGuard, kGuardByte);
  std::memset(acc.data(), 0, bytes);
  ZFUZZ_CHECK(zcoll_decompress_accumulate(p, s.size(), acc.data(), info.n, threads) ==
              ZCOLL_SUCCESS);
  check_guard(acc, bytes);
  for (uint64_t i = 0; i < info.n; ++i) {
    const double x = value_at(info.dtype, a, i);
    if (std::isfinite(x)) ZFUZZ_CHECK(x == value_at(info.dtype, acc, i));
  }

  // a sub-range of chunks lands where the whole decode put it, nothing else is written
  if (info.chunks) {
    const uint64_t first = (ctl >> 3) % info.chunks;
    const uint64_t last = first + 1 + (ctl >> 5) % (info.chunks - first);
    std::vector<uint8_t> part(bytes + kGuard, kGuardByte);
    ZFUZZ_CHECK(zcoll_decompress_chunks(p, s.size(), first, last, part.data(), info.n, threads) ==
                ZCOLL_SUCCESS);
    const size_t lo = first * info.chunk_size * vb;
    const size_t hi = std::min<size_t>(last * info.chunk_size, info.n) * vb;
    for (size_t i = 0; i < part.size(); ++i) {
      if (i >= lo && i < hi)
        ZFUZZ_CHECK(part[i] == a[i]);
      else
        ZFUZZ_CHECK(part[i] == kGuardByte);
    }
  }
  return 0;
}
