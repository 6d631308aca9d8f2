// format.h — constants and (de)serialization of the zcoll stream header and
// chunk index (docs/format.md is the normative description; keep them in sync).
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <vector>

#include "codec/shared_logic.h"
#include "zcoll.h"

namespace zcoll {

// Stream header: 48 bytes, little-endian.
constexpr uint8_t kMagic[4] = {'Z', 'C', 'O', 'L'};
constexpr size_t kHeaderBytes = 48;
constexpr uint32_t kBlockLog2 = 5;  // 32 values per block
constexpr uint32_t kBlock = 1u << kBlockLog2;

// Chunk kinds (first byte of each chunk).
constexpr uint8_t kChunkQuantized = 0;
constexpr uint8_t kChunkRaw = 1;
constexpr size_t kQuantChunkHeaderBytes = 12;  // kind, 3 pad, anchor i32, qmax u32
constexpr size_t kRawChunkHeaderBytes = 8;     // kind, 7 pad
constexpr uint32_t kMaxCodeLength = 33;        // planes of a block (two's complement)

// Header flags (format 1.1; docs/format.md section 2). A 1.0 reader rejects any
// flag (ZCOLL_ERR_UNSUPPORTED), so a stream with one is never misread.
constexpr uint8_t kFlagChunkChecksums = ZCOLL_FLAG_CHECKSUM;  // CRC-32C trailer, one per chunk
// Format 1.3: the stream may hold dense chunks (kind 2, codec/dense.h). A reader
// of 1.2 or older rejects the flag (UNSUPPORTED), so a dense stream is never misread.
constexpr uint8_t kFlagDense = ZCOLL_FORMAT_FLAG_DENSE;
constexpr uint8_t kKnownFlags = kFlagChunkChecksums | kFlagDense;

// kQMaxCompress, kQMaxFormat, kSlackF32 and kSlackF64 are in shared_logic.h (host
// and device).

inline size_t align4(size_t x) { return (x + 3) & ~size_t{3}; }
inline size_t align8(size_t x) { return (x + 7) & ~size_t{7}; }

struct Header {
  uint8_t version = ZCOLL_FORMAT_VERSION;
  zcoll_dtype dtype = ZCOLL_FLOAT32;
  uint32_t chunk_size = ZCOLL_DEFAULT_CHUNK_SIZE;
  uint32_t divisor = 1;
  uint64_t n = 0;
  double eb = 0;       // guaranteed bound of the represented data
  double quantum = 0;  // bin width
  uint32_t terms = 1;
  uint8_t flags = 0;  // kFlag*

  bool checksummed() const { return (flags & kFlagChunkChecksums) != 0; }
  bool dense() const { return (flags & kFlagDense) != 0; }
  uint64_t chunks() const { return chunk_size ? (n + chunk_size - 1) / chunk_size : 0; }
  size_t value_bytes() const { return value_bytes_of(dtype); }
  // values in chunk c
  uint32_t chunk_len(uint64_t c) const {
    uint64_t begin = c * chunk_size;
    uint64_t left = n - begin;
    return static_cast<uint32_t>(left < chunk_size ? left : chunk_size);
  }
  // Factor that turns a code into a value: quantum / divisor (one IEEE division).
  double dequant_factor() const { return quantum / static_cast<double>(divisor); }
};

inline size_t index_bytes(uint64_t chunks) { return align8(chunks * 4); }
inline size_t header_and_index_bytes(uint64_t chunks) { return kHeaderBytes + index_bytes(chunks); }

// Bytes of the checksum trailer (one u32 per chunk, zero padding to 8) of a
// stream with kFlagChunkChecksums; the same size as the index.
inline size_t trailer_bytes(uint64_t chunks) { return index_bytes(chunks); }

// Raw chunk size for len values of vbytes each.
inline size_t raw_chunk_bytes(uint32_t len, size_t vbytes) {
  return align8(kRawChunkHeaderBytes + size_t{len} * vbytes);
}

// Little-endian helpers (the format is little-endian on every host).
inline uint32_t load_u32(const uint8_t* p) {
  uint32_t v;
  std::memcpy(&v, p, 4);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
  v = __builtin_bswap32(v);
#endif
  return v;
}
inline void store_u32(uint8_t* p, uint32_t v) {
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
  v = __builtin_bswap32(v);
#endif
  std::memcpy(p, &v, 4);
}
inline uint64_t load_u64(const uint8_t* p) {
  uint64_t v;
  std::memcpy(&v, p, 8);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
  v = __builtin_bswap64(v);
#endif
  return v;
}
inline void store_u64(uint8_t* p, uint64_t v) {
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
  v = __builtin_bswap64(v);
#endif
  std::memcpy(p, &v, 8);
}
inline double load_f64(const uint8_t* p) {
  uint64_t b = load_u64(p);
  double d;
  std::memcpy(&d, &b, 8);
  return d;
}
inline void store_f64(uint8_t* p, double d) {
  uint64_t b;
  std::memcpy(&b, &d, 8);
  store_u64(p, b);
}

// CRC-32C (Castagnoli), reflected, init/xorout 0xFFFFFFFF.
uint32_t crc32c(uint32_t crc, const uint8_t* data, size_t len);

// Write the checksum trailer at dst: crcs[0..chunks) then zero padding to 8.
// Returns trailer_bytes(chunks).
size_t write_trailer(uint8_t* dst, const uint32_t* crcs, uint64_t chunks);

// Header + index checksum: CRC-32C over header bytes [0,44) then the index bytes.
uint32_t header_checksum(const uint8_t* stream, uint64_t chunks);

// Write the 48-byte header (with checksum computed over the index already in place).
void write_header(uint8_t* dst, const Header& h);

// A validated view of a stream: header fields, and the byte offset of every chunk.
struct StreamView {
  Header h;
  const uint8_t* base = nullptr;
  size_t stream_size = 0;
  uint64_t chunks = 0;
  size_t data_begin = 0;  // offset of chunk 0
  // Byte offset of chunk c from the stream start; offsets[chunks] = stream_size.
  std::vector<uint64_t> offsets;
  // kFlagChunkChecksums: the trailer (CRC-32C of chunk c at sums + 4c); else nullptr.
  const uint8_t* sums = nullptr;
  const uint8_t* chunk(uint64_t c) const { return base + offsets[c]; }
  size_t chunk_bytes(uint64_t c) const { return offsets[c + 1] - offsets[c]; }
  // The stream's bytes from chunk c on: what a kernel may read there (its reads
  // past the chunk do not change its result).
  size_t bytes_from(uint64_t c) const { return stream_size - offsets[c]; }
};

// Parse and validate header + index (magic, version, fields, checksum, sizes,
// alignment; with kFlagChunkChecksums the trailer's presence and padding). Does
// not look inside chunks (decoders validate each chunk, checksums included).
zcoll_status parse_header(const void* src, size_t src_size, Header* h);
zcoll_status parse_stream(const void* src, size_t src_size, StreamView* view);

}  // namespace zcoll
