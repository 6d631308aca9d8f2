// format.cc — header and chunk-index serialization and validation.
#include "codec/format.h"

#include <cmath>

#include "core/error.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <nmmintrin.h>
#define ZCOLL_CRC_SSE42 1
#endif

namespace zcoll {

namespace {

struct Crc32cTable {
  uint32_t t[8][256];
  Crc32cTable() {
    for (uint32_t i = 0; i < 256; ++i) {
      uint32_t c = i;
      for (int k = 0; k < 8; ++k) c = (c >> 1) ^ (0x82F63B78u & (0u - (c & 1u)));
      t[0][i] = c;
    }
    for (uint32_t i = 0; i < 256; ++i)
      for (int s = 1; s < 8; ++s) t[s][i] = (t[s - 1][i] >> 8) ^ t[0][t[s - 1][i] & 0xFF];
  }
};
const Crc32cTable kCrc;

// Offsets of the header fields (docs/format.md, "Stream header").
constexpr size_t kOffVersion = 4, kOffDtype = 5, kOffBlockLog2 = 6, kOffFlags = 7,
                 kOffChunkSize = 8, kOffDivisor = 12, kOffN = 16, kOffEb = 24, kOffQuantum = 32,
                 kOffTerms = 40, kOffCrc = 44;

// Largest n accepted: keeps every byte count far from size_t overflow.
constexpr uint64_t kMaxN = uint64_t{1} << 56;

}  // namespace

#ifdef ZCOLL_CRC_SSE42
namespace {
// The same CRC with the SSE4.2 crc32 instruction (which computes CRC-32C,
// reflected, without the initial and final inversions), 8 bytes per step.
__attribute__((target("sse4.2"))) uint32_t crc32c_sse42(uint32_t crc, const uint8_t* p,
                                                        size_t len) {
  uint64_t c = ~crc;
  while (len >= 8) {
    c = _mm_crc32_u64(c, load_u64(p));
    p += 8;
    len -= 8;
  }
  uint32_t c32 = static_cast<uint32_t>(c);
  while (len--) c32 = _mm_crc32_u8(c32, *p++);
  return ~c32;
}
const bool kHaveSse42 = __builtin_cpu_supports("sse4.2");
}  // namespace
#endif

uint32_t crc32c(uint32_t crc, const uint8_t* p, size_t len) {
#ifdef ZCOLL_CRC_SSE42
  if (kHaveSse42) return crc32c_sse42(crc, p, len);
#endif
  crc = ~crc;
  while (len >= 8) {  // slicing-by-8
    uint32_t lo = load_u32(p) ^ crc, hi = load_u32(p + 4);
    crc = kCrc.t[7][lo & 0xFF] ^ kCrc.t[6][(lo >> 8) & 0xFF] ^ kCrc.t[5][(lo >> 16) & 0xFF] ^
          kCrc.t[4][lo >> 24] ^ kCrc.t[3][hi & 0xFF] ^ kCrc.t[2][(hi >> 8) & 0xFF] ^
          kCrc.t[1][(hi >> 16) & 0xFF] ^ kCrc.t[0][hi >> 24];
    p += 8;
    len -= 8;
  }
  while (len--) crc = (crc >> 8) ^ kCrc.t[0][(crc ^ *p++) & 0xFF];
  return ~crc;
}

uint32_t header_checksum(const uint8_t* stream, uint64_t chunks) {
  uint32_t c = crc32c(0, stream, kOffCrc);
  return crc32c(c, stream + kHeaderBytes, index_bytes(chunks));
}

size_t write_trailer(uint8_t* d, const uint32_t* crcs, uint64_t chunks) {
  for (uint64_t c = 0; c < chunks; ++c) store_u32(d + 4 * c, crcs[c]);
  const size_t bytes = trailer_bytes(chunks);
  for (size_t i = chunks * 4; i < bytes; ++i) d[i] = 0;
  return bytes;
}

void write_header(uint8_t* d, const Header& h) {
  std::memcpy(d, kMagic, 4);
  d[kOffVersion] = h.version;
  d[kOffDtype] = static_cast<uint8_t>(h.dtype);
  d[kOffBlockLog2] = kBlockLog2;
  d[kOffFlags] = h.flags;
  store_u32(d + kOffChunkSize, h.chunk_size);
  store_u32(d + kOffDivisor, h.divisor);
  store_u64(d + kOffN, h.n);
  store_f64(d + kOffEb, h.eb);
  store_f64(d + kOffQuantum, h.quantum);
  store_u32(d + kOffTerms, h.terms);
  uint64_t chunks = h.chunks();
  // zero the index padding so the checksum (and the bytes) are deterministic
  for (size_t i = kHeaderBytes + chunks * 4; i < header_and_index_bytes(chunks); ++i) d[i] = 0;
  store_u32(d + kOffCrc, header_checksum(d, chunks));
}

zcoll_status parse_header(const void* src, size_t src_size, Header* h) {
  if (src == nullptr) return fail(ZCOLL_ERR_INVALID_ARG, "stream pointer is NULL");
  const auto* s = static_cast<const uint8_t*>(src);
  if (src_size < kHeaderBytes)
    return fail(ZCOLL_ERR_TRUNCATED, "stream has %zu bytes, the header alone needs %zu", src_size,
                kHeaderBytes);
  if (std::memcmp(s, kMagic, 4) != 0)
    return fail(ZCOLL_ERR_CORRUPT, "not a zcoll stream (bad magic)");
  if (s[kOffVersion] != ZCOLL_FORMAT_VERSION)
    return fail(ZCOLL_ERR_UNSUPPORTED, "format version %u is not supported (this library reads %d)",
                s[kOffVersion], ZCOLL_FORMAT_VERSION);
  // The byte is checked before it becomes a zcoll_dtype: a code beyond the
  // enum's range would be an invalid enum value (UBSan's load check).
  if (s[kOffDtype] < ZCOLL_FLOAT32 || s[kOffDtype] > ZCOLL_FLOAT16)  // 1..4 (3, 4: format 1.2)
    return fail(ZCOLL_ERR_CORRUPT, "unknown dtype code %u", s[kOffDtype]);
  if (s[kOffBlockLog2] != kBlockLog2)
    return fail(ZCOLL_ERR_UNSUPPORTED, "block size 2^%u is not supported", s[kOffBlockLog2]);
  if (s[kOffFlags] & ~kKnownFlags)
    return fail(ZCOLL_ERR_UNSUPPORTED, "unknown header flags 0x%02x", s[kOffFlags]);
  h->flags = s[kOffFlags];
  h->version = s[kOffVersion];
  h->dtype = static_cast<zcoll_dtype>(s[kOffDtype]);
  h->chunk_size = load_u32(s + kOffChunkSize);
  h->divisor = load_u32(s + kOffDivisor);
  h->n = load_u64(s + kOffN);
  h->eb = load_f64(s + kOffEb);
  h->quantum = load_f64(s + kOffQuantum);
  h->terms = load_u32(s + kOffTerms);
  if (h->chunk_size % kBlock != 0 || h->chunk_size < ZCOLL_MIN_CHUNK_SIZE ||
      h->chunk_size > ZCOLL_MAX_CHUNK_SIZE)
    return fail(ZCOLL_ERR_CORRUPT, "invalid chunk size %u", h->chunk_size);
  if (h->divisor == 0) return fail(ZCOLL_ERR_CORRUPT, "divisor is 0");
  if (h->terms == 0) return fail(ZCOLL_ERR_CORRUPT, "term count is 0");
  if (h->n > kMaxN)
    return fail(ZCOLL_ERR_CORRUPT, "value count %llu is out of range",
                static_cast<unsigned long long>(h->n));
  if (!(std::isfinite(h->eb) && h->eb > 0) || !(std::isfinite(h->quantum) && h->quantum > 0))
    return fail(ZCOLL_ERR_CORRUPT, "error bound or quantum is not a positive finite number");
  return ZCOLL_SUCCESS;
}

zcoll_status parse_stream(const void* src, size_t src_size, StreamView* v) {
  ZCOLL_CHECK(parse_header(src, src_size, &v->h));
  const auto* s = static_cast<const uint8_t*>(src);
  v->base = s;
  v->chunks = v->h.chunks();
  v->data_begin = header_and_index_bytes(v->chunks);
  if (src_size < v->data_begin)
    return fail(ZCOLL_ERR_TRUNCATED, "stream has %zu bytes, header and index need %zu", src_size,
                v->data_begin);
  uint32_t crc = load_u32(s + kOffCrc);
  if (crc != header_checksum(s, v->chunks))
    return fail(ZCOLL_ERR_CORRUPT, "header/index checksum mismatch");
  v->offsets.resize(v->chunks + 1);
  uint64_t off = v->data_begin;
  const size_t vb = v->h.value_bytes();
  for (uint64_t c = 0; c < v->chunks; ++c) {
    v->offsets[c] = off;
    uint32_t bytes = load_u32(s + kHeaderBytes + 4 * c);
    if (bytes < kRawChunkHeaderBytes || bytes % 8 != 0 ||
        bytes > raw_chunk_bytes(v->h.chunk_len(c), vb))
      return fail(ZCOLL_ERR_CORRUPT, "chunk %llu has an invalid size %u",
                  static_cast<unsigned long long>(c), bytes);
    off += bytes;
  }
  v->offsets[v->chunks] = off;
  const uint64_t end = off + (v->h.checksummed() ? trailer_bytes(v->chunks) : 0);
  if (end > src_size)
    return fail(ZCOLL_ERR_TRUNCATED, "stream needs %llu bytes, %zu given",
                static_cast<unsigned long long>(end), src_size);
  v->sums = nullptr;
  if (v->h.checksummed()) {
    v->sums = s + off;
    for (uint64_t i = off + 4 * v->chunks; i < end; ++i)
      if (s[i] != 0) return fail(ZCOLL_ERR_CORRUPT, "checksum trailer padding is not zero");
  }
  v->stream_size = end;
  return ZCOLL_SUCCESS;
}

}  // namespace zcoll
