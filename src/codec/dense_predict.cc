// dense_predict.cc — the dense codec's predictors (dense_predict.h).
#include "codec/dense_predict.h"

#include <algorithm>

#include "codec/chunk_codec.h"
#include "codec/dense.h"
#include "codec/dense_interp.h"
#include "codec/format.h"
#include "zcoll.h"

namespace zcoll {

namespace {

constexpr uint32_t kMaxStride = ZCOLL_MAX_CHUNK_SIZE;  // a longer stride never fits in a chunk
constexpr uint32_t kOrderStep = 4;                     // choose_order looks at every 4th value

inline uint32_t u32(int32_t v) { return static_cast<uint32_t>(v); }

// log2(x) in 16.16 fixed point, integers only (the choice, and so the bytes,
// cannot depend on a libm): the top bit's position, then 16 fraction bits by
// repeated squaring of the mantissa.
constexpr uint64_t log2_fix_squaring(uint64_t x) {
  const uint32_t e = 63u - static_cast<uint32_t>(__builtin_clzll(x));
  uint64_t m = e >= 31 ? x >> (e - 31) : x << (31 - e);  // Q1.31 in [1, 2)
  uint64_t r = uint64_t{e} << 16;
  for (int b = 15; b >= 0; --b) {
    m = (m * m) >> 31;
    if (m >= (uint64_t{1} << 32)) m >>= 1, r |= uint64_t{1} << b;
  }
  return r;
}

// The same for x below 2^12 from a table made at compile time: most bins of a
// sample hold fewer counts, and the squarings took ~100 instructions a bin.
constexpr uint32_t kLog2Table = 1u << 12;
struct Log2Table {
  uint32_t v[kLog2Table];
  constexpr Log2Table() : v() {
    for (uint32_t x = 1; x < kLog2Table; ++x) v[x] = static_cast<uint32_t>(log2_fix_squaring(x));
  }
};
constexpr Log2Table kLog2;

inline uint64_t log2_fix(uint64_t x) { return x < kLog2Table ? kLog2.v[x] : log2_fix_squaring(x); }

constexpr uint32_t kEstSymbols = kDenseEstSymbols;
static_assert(kEstSymbols == 97, "ChunkKernels::dense_sample_histograms (chunk_codec.h) says 97");

}  // namespace

uint64_t dense_estimate_bits(const uint32_t* h, uint32_t total) {
  const uint64_t lt = log2_fix(total);
  uint64_t bits = 0;
  for (uint32_t s = 0; s < kEstSymbols; ++s) {
    if (!h[s]) continue;
    bits += uint64_t{h[s]} * (lt - log2_fix(h[s]));
    if (s >= 64) bits += uint64_t{h[s]} * (s - 65) << 16;
  }
  return bits;
}

void dense_sample_histograms_range(const int32_t* q, uint32_t len, uint32_t row, uint32_t plane,
                                   uint32_t from, uint32_t to, uint32_t (*h)[kEstSymbols]) {
  const auto put = dense_estimate_put;
  DensePredictor p;
  p.id = plane ? kDenseLorenzo3D : kDenseLorenzo2D, p.row = row, p.plane = plane;
  const DenseRegions g = dense_regions(p, len);
  const uint32_t R = row, P = plane, e1 = std::min(g.e1, to), e2 = std::min(g.e2, to);
  const DenseSample sample = dense_sample_of(len);
  uint32_t i = sample.at_or_after(from);
  for (; i < e1; i = sample.next(i)) {  // the chunk's first row: n-D = order 1
    const uint32_t d1 = u32(q[i]) - u32(q[i - 1]), d0 = u32(q[i - 1]) - u32(q[i - 2]);
    put(h[0], d1), put(h[1], d1 - d0), put(h[2], d1);
    if (P) put(h[3], d1);
  }
  for (; i < e2; i = sample.next(i)) {  // 2-D for 3 and 4
    const uint32_t d1 = u32(q[i]) - u32(q[i - 1]), d0 = u32(q[i - 1]) - u32(q[i - 2]);
    const uint32_t two = d1 - (u32(q[i - R]) - u32(q[i - R - 1]));
    put(h[0], d1), put(h[1], d1 - d0), put(h[2], two);
    if (P) put(h[3], two);
  }
  for (; i < to; i = sample.next(i)) {  // 3-D for 4 (only with a plane: e2 = len otherwise)
    const uint32_t d1 = u32(q[i]) - u32(q[i - 1]), d0 = u32(q[i - 1]) - u32(q[i - 2]);
    const uint32_t two = d1 - (u32(q[i - R]) - u32(q[i - R - 1]));
    const uint32_t back = u32(q[i - P]) - u32(q[i - P - 1]) - u32(q[i - P - R]) +
                          u32(q[i - P - R - 1]);
    put(h[0], d1), put(h[1], d1 - d0), put(h[2], two), put(h[3], two - back);
  }
}

void dense_sample_histograms_scalar(const int32_t* q, uint32_t len, uint32_t row, uint32_t plane,
                                    uint32_t (*h)[kEstSymbols]) {
  dense_sample_histograms_range(q, len, row, plane, 2, len, h);
}

uint32_t dense_code_histogram_range(const int32_t* q, uint32_t len, const DensePredictor& p,
                                    uint32_t every, uint32_t from, uint32_t to, uint32_t* h) {
  const bool lorenzo1d = p.id == kDenseOrder1 || p.id == kDenseOrder2;
  const DenseRegions g = lorenzo1d ? DenseRegions{len, len} : dense_regions(p, len);
  const uint32_t R = p.row, P = p.plane, e1 = std::min(g.e1, to), e2 = std::min(g.e2, to);
  uint32_t i = from, total = 0;
  for (; i < e1; i += every, ++total) {
    const uint32_t d1 = u32(q[i]) - u32(q[i - 1]);
    dense_estimate_put(h,
                       p.id == kDenseOrder2 && i >= 2 ? d1 - (u32(q[i - 1]) - u32(q[i - 2])) : d1);
  }
  for (; i < e2; i += every, ++total)
    dense_estimate_put(h, u32(q[i]) - (u32(q[i - 1]) + u32(q[i - R]) - u32(q[i - R - 1])));
  for (; i < to; i += every, ++total) {
    const uint32_t two = u32(q[i - 1]) + u32(q[i - R]) - u32(q[i - R - 1]);
    const uint32_t back = u32(q[i - P]) - u32(q[i - P - 1]) - u32(q[i - P - R]) +
                          u32(q[i - P - R - 1]);
    dense_estimate_put(h, u32(q[i]) - (two + back));
  }
  return total;
}

uint32_t dense_code_histogram_scalar(const int32_t* q, uint32_t len, const DensePredictor& p,
                                     uint32_t every, uint32_t* h) {
  return dense_code_histogram_range(q, len, p, every, every, len, h);
}

uint32_t dense_residual_histogram_scalar(const uint32_t* r, uint32_t len, uint32_t every,
                                         uint32_t* h) {
  // four tables: runs of one residual (most at loose bounds) do not wait on
  // each other's increment
  uint32_t t[4][kEstSymbols] = {};
  uint32_t i = 0, total = 0;
  for (; i + 3 * every < len; i += 4 * every, total += 4)
    for (uint32_t k = 0; k < 4; ++k) dense_estimate_put(t[k], r[i + k * every]);
  for (; i < len; i += every, ++total) dense_estimate_put(t[0], r[i]);
  for (uint32_t k = 0; k < kEstSymbols; ++k) h[k] += t[0][k] + t[1][k] + t[2][k] + t[3][k];
  return total;
}

DenseRegions dense_regions(const DensePredictor& p, uint32_t len) {
  const uint64_t n = len;
  DenseRegions g;
  g.e1 = static_cast<uint32_t>(std::min<uint64_t>(n, uint64_t{p.row} + 1));
  g.e2 = p.id == kDenseLorenzo3D
             ? static_cast<uint32_t>(std::min<uint64_t>(n, uint64_t{p.plane} + p.row + 1))
             : len;
  return g;
}

size_t dense_predictor_bytes(uint8_t id) {
  return id == kDenseLorenzo2D ? 4 : id == kDenseLorenzo3D ? 8 : id == kDenseInterp ? 12 : 0;
}

DenseShape dense_shape_of(const uint64_t* dims, uint32_t ndims) {
  uint64_t fast[2] = {0, 0};  // the fastest two dims above 1, fastest first
  uint32_t k = 0;
  for (uint32_t d = ndims; d-- > 0 && k < 2;)
    if (dims[d] > 1) fast[k++] = dims[d];
  DenseShape s;
  // A stride is usable when a slower dim exists (else there is nothing to look back to).
  uint32_t slower = 0;
  for (uint32_t d = 0; d < ndims; ++d) slower += dims[d] > 1;
  if (slower >= 2 && fast[0] <= kMaxStride) s.row = static_cast<uint32_t>(fast[0]);
  if (slower >= 3 && s.row && fast[1] <= kMaxStride / fast[0])
    s.plane = static_cast<uint32_t>(fast[0] * fast[1]);
  s.interp = ndims >= 1;
  return s;
}

uint32_t dense_chunk_size(const DenseShape& shape, uint32_t fallback) {
  // Measured on shared/data (docs/design.md): 2^18 values gave the best ratio
  // of 2^14..2^20 (each chunk's table and states spread over more values, and a
  // chunk's first row or plane, predicted with less context, is a smaller share);
  // a larger plane gets four planes per chunk.
  constexpr uint64_t kNd = uint64_t{1} << 18;
  if (!shape.row && !shape.interp) return fallback;  // no dims
  const uint64_t want = std::max<uint64_t>(kNd, (4 * uint64_t{shape.plane} + 31) / 32 * 32);
  return static_cast<uint32_t>(std::min<uint64_t>(want, ZCOLL_MAX_CHUNK_SIZE));
}

bool read_dense_predictor(const uint8_t* in, size_t bytes, DensePredictor* p) {
  const uint8_t id = in[1];
  if (id < kDenseOrder1 || id > kDenseInterp) return false;
  if (bytes < kDenseChunkHeaderBytes + dense_predictor_bytes(id)) return false;
  const uint8_t* f = in + kDenseChunkHeaderBytes;
  p->id = id;
  if (id == kDenseInterp) {
    p->mode = load_u32(f), p->row = load_u32(f + 4), p->plane = load_u32(f + 8);
    const uint32_t ndim = (p->mode & 3u) + 1;
    if (ndim > 3 || (p->mode & ~(3u | kInterpCubic)) != 0) return false;
    if (ndim == 1) return p->row == 0 && p->plane == 0;
    if (p->row < 1 || p->row > kMaxStride) return false;
    if (ndim == 2) return p->plane == 0;
    return p->plane > p->row && p->plane <= kMaxStride && p->plane % p->row == 0;
  }
  p->mode = 0;
  p->row = id >= kDenseLorenzo2D ? load_u32(f) : 0;
  p->plane = id == kDenseLorenzo3D ? load_u32(f + 4) : 0;
  if (id >= kDenseLorenzo2D && (p->row < 1 || p->row > kMaxStride)) return false;
  if (id == kDenseLorenzo3D && (p->plane <= p->row || p->plane > kMaxStride)) return false;
  return true;
}

void write_dense_predictor(const DensePredictor& p, uint8_t* out) {
  out[1] = p.id;
  uint8_t* f = out + kDenseChunkHeaderBytes;
  if (p.id == kDenseInterp) {
    store_u32(f, p.mode), store_u32(f + 4, p.row), store_u32(f + 8, p.plane);
    return;
  }
  if (p.id >= kDenseLorenzo2D) store_u32(f, p.row);
  if (p.id == kDenseLorenzo3D) store_u32(f + 4, p.plane);
}

DensePredictor choose_dense_predictor(const int32_t* q, uint32_t len, const DenseShape& shape) {
  DensePredictor cand[4];
  int nc = 0;
  cand[nc++].id = kDenseOrder1;
  cand[nc++].id = kDenseOrder2;
  // n-D only where the chunk holds more than one row (plane) to look back on
  if (shape.row && shape.row < len) cand[nc++] = DensePredictor{kDenseLorenzo2D, shape.row, 0};
  if (shape.plane && shape.plane < len)
    cand[nc++] = DensePredictor{kDenseLorenzo3D, shape.row, shape.plane};
  if (nc == 2 && len >= 3) {
    // 1-D only: order 1 or 2, the estimate of dense.cc's first version
    uint64_t c1 = 0, c2 = 0;
    for (uint32_t i = 2; i < len; i += kOrderStep) {
      const uint32_t d1 = u32(q[i]) - u32(q[i - 1]), d0 = u32(q[i - 1]) - u32(q[i - 2]);
      c1 += static_cast<uint32_t>(__builtin_clz(zigzag(d1) | 1u) ^ 31);
      c2 += static_cast<uint32_t>(__builtin_clz(zigzag(d1 - d0) | 1u) ^ 31);
    }
    return cand[c2 < c1 ? 1 : 0];
  }
  if (nc == 2 || len < 3) return cand[0];  // (no sample below 3 values)
  // n-D candidates: the order-0 entropy of each one's residuals on the sample
  // (what the rANS stage pays; fewer bits wins, the lower id on ties)
  uint32_t h[4][kEstSymbols] = {};
  active_kernels().dense_sample_histograms(q, len, shape.row, nc == 4 ? shape.plane : 0, h);
  const uint32_t total = dense_sample_of(len).count(len);
  uint64_t best = ~uint64_t{0};
  int pick = 0;
  for (int c = 0; c < nc; ++c) {
    const uint64_t bits = dense_estimate_bits(h[c], total);
    if (bits < best) best = bits, pick = c;
  }
  return cand[pick];
}

uint64_t dense_residual_bits(const uint32_t* r, uint32_t len, uint32_t every) {
  if (len == 0) return 0;
  uint32_t h[kEstSymbols] = {};
  const uint32_t total = active_kernels().dense_residual_histogram(r, len, every, h);
  return dense_estimate_bits(h, total);
}

uint64_t dense_code_bits(const int32_t* q, uint32_t len, const DensePredictor& p, uint32_t every) {
  if (len == 0) return 0;
  // the residuals of dense_residuals at i = 0, every, 2 every, ...
  uint32_t h[kEstSymbols] = {};
  dense_estimate_put(h, u32(q[0]));
  const uint32_t total = 1 + active_kernels().dense_code_histogram(q, len, p, every, h);
  return dense_estimate_bits(h, total);
}

void dense_residuals(const int32_t* q, uint32_t len, const DensePredictor& p, uint32_t* r) {
  active_kernels().dense_lorenzo_residuals(q, len, p, r);
}

void dense_lorenzo_residuals_scalar(const int32_t* q, uint32_t len, const DensePredictor& p,
                                    uint32_t* r) {
  dense_lorenzo_residuals_range(q, len, p, 0, len, r);
}

void dense_lorenzo_residuals_range(const int32_t* q, uint32_t len, const DensePredictor& p,
                                   uint32_t from, uint32_t to, uint32_t* r) {
  uint32_t i = from;
  if (i == 0 && to > 0) r[0] = u32(q[0]), i = 1;
  if (p.id == kDenseOrder1 || p.id == kDenseOrder2) {
    if (i == 1 && to > 1) r[1] = u32(q[1]) - u32(q[0]), i = 2;
    if (p.id == kDenseOrder1)
      for (; i < to; ++i) r[i] = u32(q[i]) - u32(q[i - 1]);
    else
      for (; i < to; ++i) r[i] = u32(q[i]) - (2 * u32(q[i - 1]) - u32(q[i - 2]));
    return;
  }
  const DenseRegions g = dense_regions(p, len);
  const uint32_t R = p.row, P = p.plane, e1 = std::min(g.e1, to), e2 = std::min(g.e2, to);
  for (; i < e1; ++i) r[i] = u32(q[i]) - u32(q[i - 1]);
  for (; i < e2; ++i) r[i] = u32(q[i]) - (u32(q[i - 1]) + u32(q[i - R]) - u32(q[i - R - 1]));
  for (; i < to; ++i) {
    const uint32_t two = u32(q[i - 1]) + u32(q[i - R]) - u32(q[i - R - 1]);
    const uint32_t back = u32(q[i - P]) - u32(q[i - P - 1]) - u32(q[i - P - R]) +
                          u32(q[i - P - R - 1]);
    r[i] = u32(q[i]) - (two + back);
  }
}

void dense_unpredict(uint32_t* q, uint32_t len, const DensePredictor& p) {
  dense_unpredict_range(q, 0, len, p);
}

void dense_unpredict_range(uint32_t* q, uint32_t from, uint32_t to, const DensePredictor& p) {
  active_kernels().dense_unpredict_range(q, from, to, p);
}

void dense_unpredict_range_scalar(uint32_t* q, uint32_t from, uint32_t to,
                                  const DensePredictor& p) {
  uint32_t i = from ? from : 1;  // q[0] is its own residual
  if (p.id == kDenseOrder1 || p.id == kDenseOrder2) {
    if (i == 1 && to > 1) q[1] += q[0], i = 2;
    if (p.id == kDenseOrder1)
      for (; i < to; ++i) q[i] += q[i - 1];
    else
      for (; i < to; ++i) q[i] += 2 * q[i - 1] - q[i - 2];
    return;
  }
  // the regions end at the same indices for any to (min(to, ...) ends the loops)
  const DenseRegions g = dense_regions(p, to);
  const uint32_t R = p.row, P = p.plane;
  for (; i < g.e1; ++i) q[i] += q[i - 1];
  for (; i < g.e2; ++i) q[i] += q[i - 1] + q[i - R] - q[i - R - 1];
  for (; i < to; ++i)
    q[i] += q[i - 1] + q[i - R] - q[i - R - 1] + q[i - P] - q[i - P - 1] - q[i - P - R] +
            q[i - P - R - 1];
}

}  // namespace zcoll
