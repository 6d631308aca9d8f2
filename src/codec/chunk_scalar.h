// chunk_scalar.h — the reference (scalar) chunk encoder and decoder. Every other
// kernel must produce the same bytes and values. Internal linkage on purpose: the
// AVX2 translation unit includes it too, compiled with other target flags.
#pragma once

#include <cmath>
#include <cstring>
#include <limits>

#include "codec/block_codec.h"
#include "codec/chunk_codec.h"
#include "codec/format.h"
#include "core/error.h"

namespace zcoll {
namespace {

// quantize_value (one value: code and reconstruction check) is in shared_logic.h.

template <typename T>
inline size_t write_raw_chunk(const T* x, uint32_t len, uint8_t* out) {
  size_t bytes = raw_chunk_bytes(len, sizeof(T));
  std::memset(out, 0, kRawChunkHeaderBytes);
  out[0] = kChunkRaw;
  std::memcpy(out + kRawChunkHeaderBytes, x, size_t{len} * sizeof(T));
  std::memset(out + kRawChunkHeaderBytes + size_t{len} * sizeof(T), 0,
              bytes - kRawChunkHeaderBytes - size_t{len} * sizeof(T));
  return bytes;
}

inline void write_quant_chunk_header(uint8_t* out, int32_t anchor, uint32_t qmax) {
  out[0] = kChunkQuantized;
  out[1] = out[2] = out[3] = 0;
  store_u32(out + 4, static_cast<uint32_t>(anchor));
  store_u32(out + 8, qmax);
}

// Finish a quantized chunk whose payload ends at pos: zero-pad to 8 bytes, or fall
// back to a raw chunk when that would not be smaller.
template <typename T>
inline size_t finish_quant_chunk(const T* x, uint32_t len, uint8_t* out, size_t pos, int32_t anchor,
                                 uint32_t qmax) {
  size_t raw = raw_chunk_bytes(len, sizeof(T));
  size_t end = align8(pos);
  if (end >= raw) return write_raw_chunk(x, len, out);
  std::memset(out + pos, 0, end - pos);
  write_quant_chunk_header(out, anchor, qmax);
  return end;
}

// Codes and deltas of one block (n_here <= 32 values; the tail repeats the last
// code so its deltas are 0). Updates *prev and *qmax. false = escape the chunk.
template <typename T>
inline bool block_deltas_scalar(const T* x, uint32_t n_here, const Quantizer<T>& qz, int32_t* prev,
                                uint32_t* qmax, int32_t d[32]) {
  int32_t p = *prev;
  uint32_t m = *qmax;
  for (uint32_t i = 0; i < 32; ++i) {
    int32_t q = p;
    if (i < n_here && !quantize_value(x[i], qz, &q)) return false;
    d[i] = q - p;  // |q| < 2^30, so no overflow
    p = q;
    uint32_t aq = static_cast<uint32_t>(q < 0 ? -q : q);
    m = aq > m ? aq : m;
  }
  *prev = p;
  *qmax = m;
  return true;
}

// Start a quantized chunk (shared by every encoder so that their bytes agree):
// zero the code-length padding and quantize the anchor. Returns the offset of the
// first block payload, or 0 when the chunk must be raw.
template <typename T>
inline size_t begin_quant_chunk(const T* x, uint32_t len, const Quantizer<T>& qz, uint8_t* out,
                                int32_t* anchor) {
  const uint32_t nblocks = (len + kBlock - 1) / kBlock;
  const size_t pos = kQuantChunkHeaderBytes + align4(nblocks);
  if (pos >= raw_chunk_bytes(len, sizeof(T)) || !quantize_value(x[0], qz, anchor)) return 0;
  std::memset(out + kQuantChunkHeaderBytes + nblocks, 0, align4(nblocks) - nblocks);
  return pos;
}

template <typename T>
size_t compress_chunk_scalar(const T* x, uint32_t len, const Quantizer<T>& qz, uint8_t* out) {
  const size_t raw = raw_chunk_bytes(len, sizeof(T));
  const uint32_t nblocks = (len + kBlock - 1) / kBlock;
  int32_t anchor;
  size_t pos = begin_quant_chunk(x, len, qz, out, &anchor);
  if (pos == 0) return write_raw_chunk(x, len, out);
  uint8_t* lens = out + kQuantChunkHeaderBytes;
  int32_t prev = anchor;
  uint32_t qmax = 0;
  uint8_t payload[4 * (kMaxCodeLength + 1)];
  for (uint32_t b = 0; b < nblocks; ++b) {
    int32_t d[32];
    uint32_t n_here = len - b * kBlock < kBlock ? len - b * kBlock : kBlock;
    if (!block_deltas_scalar(x + size_t{b} * kBlock, n_here, qz, &prev, &qmax, d))
      return write_raw_chunk(x, len, out);
    uint32_t L = encode_block(d, payload);
    uint32_t pb = block_payload_bytes(L);
    if (pos + pb >= raw) return write_raw_chunk(x, len, out);
    lens[b] = static_cast<uint8_t>(L);
    std::memcpy(out + pos, payload, pb);
    pos += pb;
  }
  return finish_quant_chunk(x, len, out, pos, anchor, qmax);
}

template <typename T>
inline void emit(T* out, T v, bool accumulate) {
  *out = accumulate ? add_values(*out, v) : v;  // 16-bit: the sum in float, rounded once
}

template <typename T>
zcoll_status decompress_raw_chunk(const uint8_t* in, size_t bytes, uint32_t len, T* out,
                                  bool accumulate) {
  if (bytes != raw_chunk_bytes(len, sizeof(T)))
    return fail(ZCOLL_ERR_CORRUPT, "raw chunk of %zu bytes cannot hold %u values", bytes, len);
  const uint8_t* p = in + kRawChunkHeaderBytes;
  if (!accumulate) {
    std::memcpy(out, p, size_t{len} * sizeof(T));
  } else {
    for (uint32_t i = 0; i < len; ++i) {
      T v;
      std::memcpy(&v, p + size_t{i} * sizeof(T), sizeof(T));
      out[i] = add_values(out[i], v);
    }
  }
  return ZCOLL_SUCCESS;
}

// The framing every chunk decoder checks first. A raw chunk is decoded here and a
// bad one refused (*pos = 0, the status returned); for a valid quantized chunk
// *pos is the offset of its first block payload.
template <typename T>
inline zcoll_status open_chunk(const uint8_t* in, size_t bytes, uint32_t len, T* out,
                               bool accumulate, size_t* pos) {
  *pos = 0;
  if (bytes < kRawChunkHeaderBytes) return fail(ZCOLL_ERR_CORRUPT, "chunk too short");
  if (in[0] == kChunkRaw) return decompress_raw_chunk(in, bytes, len, out, accumulate);
  if (in[0] != kChunkQuantized) return fail(ZCOLL_ERR_CORRUPT, "unknown chunk kind %u", in[0]);
  *pos = validate_quantized_chunk(in, bytes, len);
  if (*pos == 0) return fail(ZCOLL_ERR_CORRUPT, "malformed quantized chunk");
  return ZCOLL_SUCCESS;
}

template <typename T>
zcoll_status decompress_chunk_scalar(const uint8_t* in, size_t bytes, uint32_t len, double factor,
                                     T* out, bool accumulate) {
  size_t pos;
  const zcoll_status st = open_chunk(in, bytes, len, out, accumulate, &pos);
  if (pos == 0) return st;
  const uint32_t nblocks = (len + kBlock - 1) / kBlock;
  const uint8_t* lens = in + kQuantChunkHeaderBytes;
  uint32_t carry = load_u32(in + 4);
  for (uint32_t b = 0; b < nblocks; ++b) {
    uint32_t L = lens[b];
    uint32_t d[32];
    if (L == 0) {
      for (int i = 0; i < 32; ++i) d[i] = 0;
    } else {
      decode_block(in + pos, L, d);
      pos += block_payload_bytes(L);
    }
    uint32_t n_here = len - b * 32 < 32 ? len - b * 32 : 32;
    T* o = out + size_t{b} * 32;
    for (uint32_t i = 0; i < n_here; ++i) {
      carry += d[i];
      T v = ValueTraits<T>::from_double(static_cast<double>(static_cast<int32_t>(carry)) * factor);
      emit(o + i, v, accumulate);
    }
  }
  return ZCOLL_SUCCESS;
}

// ---- range pass (REL bounds) -------------------------------------------------------
// Min/max of the finite values, over kRangeLanes lanes (value i in lane i % 16, so
// that the loop vectorizes; a single running min would be a serial chain), then the
// values after the last full group into lane 0, then lanes 1..15 into lane 0 in
// order. v - v is 0 only for finite v. Every range kernel keeps this order (it
// decides which of -0 and +0 is returned).
constexpr int kRangeLanes = 16;

// The rest of a range pass once the lanes hold the full groups: see above.
template <typename T>
inline void range_finish(const T* x, size_t n, T lo[kRangeLanes], T hi[kRangeLanes], T* lo_out,
                         T* hi_out) {
  for (size_t i = 0; i < n; ++i) {
    const T v = x[i];
    if ((v - v) == T(0)) lo[0] = v < lo[0] ? v : lo[0], hi[0] = v > hi[0] ? v : hi[0];
  }
  for (int k = 1; k < kRangeLanes; ++k)
    lo[0] = lo[k] < lo[0] ? lo[k] : lo[0], hi[0] = hi[k] > hi[0] ? hi[k] : hi[0];
  *lo_out = lo[0];
  *hi_out = hi[0];
}

// +inf / -inf when x has no finite value.
template <typename T>
void range_scalar(const T* x, size_t n, T* lo_out, T* hi_out) {
  const T inf = std::numeric_limits<T>::infinity();
  T lo[kRangeLanes], hi[kRangeLanes];
  for (int k = 0; k < kRangeLanes; ++k) lo[k] = inf, hi[k] = -inf;
  size_t i = 0;
  for (; i + kRangeLanes <= n; i += kRangeLanes)
    for (int k = 0; k < kRangeLanes; ++k) {
      const T v = x[i + k];
      const bool finite = (v - v) == T(0);
      const T a = finite ? v : inf, b = finite ? v : -inf;
      lo[k] = a < lo[k] ? a : lo[k];
      hi[k] = b > hi[k] ? b : hi[k];
    }
  range_finish(x + i, n - i, lo, hi, lo_out, hi_out);
}

// ---- homomorphic add: the block loop (pipelines: hom.cc) ------------------------------

inline void copy_words(uint8_t* dst, const uint8_t* src, uint32_t w) {
  for (uint32_t j = 0; j < w; ++j) store_u32(dst + 4 * j, load_u32(src + 4 * j));
}

// The block loop of one chunk: per block pair, the cheapest pipeline. Returns the
// end of the payload, or 0 if (kChecked) the output would not beat a raw chunk.
// add_planes (the bit-sliced adder of two blocks) is in shared_logic.h.
template <bool kChecked>
size_t combine_blocks_scalar(const uint8_t* a, const uint8_t* b, uint8_t* out, uint32_t nblocks,
                             bool subtract, size_t pos, size_t raw, uint64_t counts[4]) {
  const uint8_t* la = a + kQuantChunkHeaderBytes;
  const uint8_t* lb = b + kQuantChunkHeaderBytes;
  uint8_t* lo = out + kQuantChunkHeaderBytes;
  size_t pa = pos, pb = pos;
  uint64_t n0 = 0, n1 = 0, n2 = 0, n3 = 0;
  for (uint32_t blk = 0; blk < nblocks; ++blk) {
    const uint32_t wa = la[blk], wb = lb[blk];
    if (kChecked && pos + 4 * ((wa > wb ? wa : wb) + 1) >= raw) return 0;
    uint32_t w;
    if (wa == 0 && wb == 0) {
      w = 0, ++n0;
    } else if (wa == 0 && !subtract) {
      w = wb, ++n1;
      copy_words(out + pos, b + pb, w);
    } else if (wb == 0) {
      w = wa, ++n2;
      copy_words(out + pos, a + pa, w);
    } else {  // both non-constant (or 0 - b: negation through the adder)
      ++(wa == 0 ? n1 : n3);
      w = add_planes(a + pa, wa, b + pb, wb, subtract, out + pos);
    }
    pa += block_payload_bytes(wa);
    pb += block_payload_bytes(wb);
    lo[blk] = static_cast<uint8_t>(w);  // w <= 33 within the qmax guard
    pos += block_payload_bytes(w);
  }
  counts[0] += n0, counts[1] += n1, counts[2] += n2, counts[3] += n3;
  return pos;
}

}  // namespace
}  // namespace zcoll
