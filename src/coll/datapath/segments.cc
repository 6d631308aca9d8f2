// segments.cc — a piece as consecutive pipeline-segment streams.
#include <algorithm>

#include "coll/control/algorithms.h"
#include "coll/datapath/primitives.h"
#include "core/error.h"

namespace zcoll::coll {

size_t pipeline_segment_values(size_t configured, size_t message_values) {
  const size_t floor = (message_values + kMaxSegments - 1) / kMaxSegments;
  const size_t seg = std::max({configured, floor, size_t{ZCOLL_BLOCK_SIZE}});
  return (seg + ZCOLL_BLOCK_SIZE - 1) / ZCOLL_BLOCK_SIZE * ZCOLL_BLOCK_SIZE;
}

size_t segments_capacity(const Ctx& c, size_t n) {
  size_t cap = 0;
  for (size_t k = 0; k < c.segments(n); ++k) cap += c.piece_capacity(c.seg_len(n, k));
  return cap;
}

zcoll_status compress_segments(Ctx& c, const void* src, size_t n, uint8_t* dst, size_t cap,
                               size_t* size) {
  size_t pos = 0;
  const auto* s = static_cast<const uint8_t*>(src);
  for (size_t k = 0; k < c.segments(n); ++k) {
    size_t len = c.seg_len(n, k), w = 0;
    ZCOLL_CHECK(compress(c, s + k * c.seg_values * c.vsize, len, dst + pos, cap - pos, &w));
    pos += w;
  }
  *size = pos;
  return ZCOLL_SUCCESS;
}

zcoll_status decompress_arrived(Ctx& c, const uint8_t* src, size_t arrived, size_t bytes, void* dst,
                                size_t n, SegmentCursor* cur) {
  const size_t nseg = c.segments(n);
  if (c.ops->placeholder_streams()) {  // the simulation's model: not parsed (sim_cost.h)
    if (arrived >= bytes && cur->k < nseg) {
      ZCOLL_CHECK(decompress(c, src, bytes, dst, n, false));  // charged, not run
      cur->k = nseg;
      cur->pos = bytes;
    }
    return ZCOLL_SUCCESS;
  }
  auto* d = static_cast<uint8_t*>(dst);
  while (cur->k < nseg) {
    const size_t k = cur->k, pos = cur->pos, len = c.seg_len(n, k);
    if (pos >= bytes) return fail(ZCOLL_ERR_TRUNCATED, "piece ends before segment %zu", k);
    const size_t avail = arrived - pos;
    if (avail < zcoll_header_size(len, c.params.chunk_size) && arrived < bytes) break;
    size_t sz = 0;
    ZCOLL_CHECK(stream_size(c, src + pos, avail, len, &sz));
    if (sz > bytes - pos) return fail(ZCOLL_ERR_TRUNCATED, "segment %zu overruns its piece", k);
    if (sz > avail) break;  // the rest of this stream is still in flight
    ZCOLL_CHECK(decompress(c, src + pos, sz, d + k * c.seg_values * c.vsize, len, false));
    cur->pos += sz;
    ++cur->k;
  }
  return ZCOLL_SUCCESS;
}

zcoll_status decompress_segments(Ctx& c, const uint8_t* src, size_t bytes, void* dst, size_t n) {
  SegmentCursor cur;
  return decompress_arrived(c, src, bytes, bytes, dst, n, &cur);
}

ErrState combine(zcoll_op op, ErrState a, ErrState b) {
  switch (op) {
    case ZCOLL_OP_SUM: return {a.e + b.e, a.mag + b.mag};
    case ZCOLL_OP_MAX:
    case ZCOLL_OP_MIN: return {std::max(a.e, b.e), std::max(a.mag, b.mag)};
    case ZCOLL_OP_PROD:
      // |a'b' - ab| <= |a| eb + |b'| ea <= ma eb + (mb + eb) ea
      return {a.mag * b.e + (b.mag + b.e) * a.e, a.mag * b.mag};
  }
  return a;
}

int binomial_depth(int size) {
  // the path from the root to relative rank v clears one set bit per hop
  int d = 0;
  for (int v = 1; v < size; ++v) d = std::max(d, __builtin_popcount(static_cast<unsigned>(v)));
  return d;
}

}  // namespace zcoll::coll
