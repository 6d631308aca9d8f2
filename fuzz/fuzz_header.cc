// fuzz_header.cc — the parse paths only: zcoll_inspect, zcoll_stream_size and
// the argument checks of the decoders (no output buffer is ever large enough to
// decode into). The first byte selects whether the header/index checksum is
// recomputed before parsing (so that mutations get past the CRC).
#include <cstdint>
#include <vector>

#include "fuzz_common.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 1) return 0;
  const bool fix = data[0] & 1;
  std::vector<uint8_t> s(data + 1, data + size);
  if (fix) zfuzz::fix_checksum(s);
  const uint8_t* p = s.empty() ? nullptr : s.data();
  const size_t n_bytes = s.size();

  zcoll_info info = ZCOLL_INFO_INITIALIZER;
  const zcoll_status si = zcoll_inspect(p, n_bytes, &info);
  if (si != ZCOLL_SUCCESS) ZFUZZ_CHECK(zcoll_last_error()[0] != '\0');
  size_t ss = 0;
  const zcoll_status sz = zcoll_stream_size(p, n_bytes, &ss);
  if (sz != ZCOLL_SUCCESS) ZFUZZ_CHECK(zcoll_last_error()[0] != '\0');

  if (si == ZCOLL_SUCCESS) {
    // a valid stream: everything the header says must be consistent
    ZFUZZ_CHECK(sz == ZCOLL_SUCCESS);
    ZFUZZ_CHECK(ss == info.stream_size);
    ZFUZZ_CHECK(info.stream_size <= n_bytes);
    ZFUZZ_CHECK(info.format_version == ZCOLL_FORMAT_VERSION);
    ZFUZZ_CHECK(info.dtype >= ZCOLL_FLOAT32 && info.dtype <= ZCOLL_FLOAT16);  // 3, 4: format 1.2
    ZFUZZ_CHECK(info.block_size == ZCOLL_BLOCK_SIZE);
    ZFUZZ_CHECK(info.chunks == zcoll_chunk_count(info.n, info.chunk_size));
    ZFUZZ_CHECK(info.header_size == zcoll_header_size(info.n, info.chunk_size));
    ZFUZZ_CHECK(info.raw_chunks <= info.chunks);
    ZFUZZ_CHECK(info.divisor >= 1 && info.terms >= 1);
    ZFUZZ_CHECK(info.error_bound > 0 && info.quantum > 0);
    // each chunk takes at least 8 bytes
    ZFUZZ_CHECK(info.stream_size >= info.header_size + 8 * info.chunks);
    // trailing bytes are ignored
    std::vector<uint8_t> longer(s.begin(), s.end());
    longer.push_back(0xAB);
    zcoll_info info2 = ZCOLL_INFO_INITIALIZER;
    ZFUZZ_CHECK(zcoll_inspect(longer.data(), longer.size(), &info2) == ZCOLL_SUCCESS);
    ZFUZZ_CHECK(info2.stream_size == info.stream_size);
    // one byte short of the stream is truncated
    ZFUZZ_CHECK(zcoll_inspect(p, info.stream_size - 1, &info2) == ZCOLL_ERR_TRUNCATED);
    // no room for the values
    if (info.n > 0) {
      ZFUZZ_CHECK(zcoll_decompress(p, n_bytes, nullptr, info.n - 1, 1) ==
                  ZCOLL_ERR_BUFFER_TOO_SMALL);
      ZFUZZ_CHECK(zcoll_decompress(p, n_bytes, nullptr, info.n, 1) == ZCOLL_ERR_INVALID_ARG);
    }
    // an empty chunk range decodes nothing
    ZFUZZ_CHECK(zcoll_decompress_chunks(p, n_bytes, info.chunks, info.chunks, nullptr, info.n, 1) ==
                (info.n ? ZCOLL_ERR_INVALID_ARG : ZCOLL_SUCCESS));
    ZFUZZ_CHECK(zcoll_decompress_chunks(p, n_bytes, 0, info.chunks + 1, nullptr, info.n, 1) ==
                ZCOLL_ERR_INVALID_ARG);
  } else {
    // the decoder reports the same failure, except that it checks the output
    // size before the chunks (inspect validates the chunks: CORRUPT)
    const zcoll_status sd = zcoll_decompress(p, n_bytes, nullptr, 0, 1);
    ZFUZZ_CHECK(sd == si || (si == ZCOLL_ERR_CORRUPT && sd == ZCOLL_ERR_BUFFER_TOO_SMALL));
    ZFUZZ_CHECK(si == ZCOLL_ERR_CORRUPT || si == ZCOLL_ERR_TRUNCATED ||
                si == ZCOLL_ERR_UNSUPPORTED || si == ZCOLL_ERR_INVALID_ARG);
    if (sz == ZCOLL_SUCCESS) ZFUZZ_CHECK(si == ZCOLL_ERR_CORRUPT || si == ZCOLL_ERR_TRUNCATED);
  }
  return 0;
}
