// dense_predict.h — the predictors of the dense codec (docs/format.md §5.3) as
// whole-chunk passes: codes -> residuals in the encoder, residuals -> codes in
// the decoder (in place), all arithmetic u32 modulo 2^32.
//
// Predictor ids (the chunk's byte 1):
//   1  Lorenzo of order 1 along the chunk      p = q[i-1]
//   2  Lorenzo of order 2 along the chunk      p = 2 q[i-1] - q[i-2]
//   3  2-D Lorenzo with row length R           p = q[i-1] + q[i-R] - q[i-R-1]
//   4  3-D Lorenzo with row R and plane P      the 7-term 3-D Lorenzo
//   5  interpolation of reconstructed values   dense_interp.h (not of the codes)
// A chunk is a run of the flattened C-order array, so q[i-R] is the value one
// row up and q[i-P] one plane back, whatever the chunk's first index; only the
// left neighbour at a row start is not (it is the previous row's end: a worse
// guess for one value per row, no dims needed to decode). The n-D predictors
// reference only values of their chunk: the first row of a chunk is predicted
// by order 1, the first plane (plus a row) of a 3-D chunk by the 2-D one.
#pragma once

#include <cstddef>
#include <cstdint>

namespace zcoll {

constexpr uint8_t kDenseLorenzo2D = 3, kDenseLorenzo3D = 4;

// Where n-D prediction can look: row = the fastest dimension's length, plane =
// the fastest two's product (0 = not available). From the caller's dims;
// interp: the caller gave dims (predictor 5 is a candidate, in as many dims as
// the strides allow).
struct DenseShape {
  uint32_t row = 0, plane = 0;
  bool interp = false;
};

// A chunk's predictor: its id and, for 3, 4 and 5, its strides (and 5's mode:
// dense_interp.h).
struct DensePredictor {
  uint8_t id = 1;
  uint32_t row = 0, plane = 0;
  uint32_t mode = 0;
};

// Where the regions of a chunk of len codes end under the n-D predictor p (3
// or 4): [1, e1) order 1 (the chunk's first row), [e1, e2) 2-D Lorenzo,
// [e2, len) 3-D Lorenzo (e2 = len for the 2-D predictor).
struct DenseRegions {
  uint32_t e1, e2;
};
DenseRegions dense_regions(const DensePredictor& p, uint32_t len);

// Bytes of the predictor's fields after the 8-byte chunk header: 0 for ids 1
// and 2, 4 for 3 (u32 row), 8 for 4 (u32 row, u32 plane), 12 for 5 (u32 mode,
// u32 row, u32 plane).
size_t dense_predictor_bytes(uint8_t id);

// The shape's strides usable for n-D prediction (squeezing dims of 1, dropping
// a stride above the largest chunk): from dims (slowest first, ndims >= 0).
DenseShape dense_shape_of(const uint64_t* dims, uint32_t ndims);

// The chunk size when the caller gave none: fallback (the default) without
// dims; with them (any: 1-D dims interpolate better in long chunks too), chunks
// of 2^18 values or more, that hold several rows or planes.
uint32_t dense_chunk_size(const DenseShape& shape, uint32_t fallback);

// Read a chunk's predictor (byte 1 and its fields; the chunk has at least 8
// bytes). false = unknown id, fields past the chunk's bytes, or strides out of
// range (1 <= row <= 2^20, row < plane <= 2^20; predictor 5: its mode's dims
// and the strides they need, plane a multiple of row, unused fields 0).
bool read_dense_predictor(const uint8_t* in, size_t bytes, DensePredictor* p);
// Write p's id into out[1] and its fields at out + 8.
void write_dense_predictor(const DensePredictor& p, uint8_t* out);

// The predictor of the codes q[0, len): among order 1, order 2 and the n-D ones
// the shape allows, the one with the fewest residual bits on a sample.
DensePredictor choose_dense_predictor(const int32_t* q, uint32_t len, const DenseShape& shape);

// The histograms behind the choices: symbols 0..63 are small zigzagged
// residuals, 64 + w a residual of w bits (w - 1 raw bits); the order-0 estimate
// of a histogram's coded bits in 16.16 fixed point, integers only (the choice,
// and so the bytes, cannot depend on a libm).
constexpr uint32_t kDenseEstSymbols = 64 + 33;
inline void dense_estimate_put(uint32_t* h, uint32_t r) {
  const uint32_t u = (r << 1) ^ (0u - (r >> 31));  // zigzag
  ++h[u < 64 ? u : 96 - static_cast<uint32_t>(__builtin_clz(u))];
}
uint64_t dense_estimate_bits(const uint32_t* h, uint32_t total);

// The order-0 estimate of the coded bits (16.16 fixed point, integers only) of
// the residuals r[0, len), on every `every`-th one (0, every, 2 every, ...):
// how the encoder compares predictors on a whole chunk.
uint64_t dense_residual_bits(const uint32_t* r, uint32_t len, uint32_t every);
// The same for the residuals p would give the codes q (dense_residuals), without
// computing the others: dense_residual_bits of them, to the bit.
uint64_t dense_code_bits(const int32_t* q, uint32_t len, const DensePredictor& p, uint32_t every);

// choose_dense_predictor's sample of an n-D chunk of len codes: runs of `run`
// consecutive positions, one every `period`, from position 2. Every 4th
// position in chunks of up to 2^16 values (the trials, the collectives'
// chunks: runs there cost levitus 0.4% in chunks of 1056); in longer ones runs
// of 8 every 128: one vector of residuals per candidate and run, not four with
// three quarters unused, on a sixteenth of the chunk (every 64 took 2.6% more
// of a compression where chunks code the code domain; every 128 makes one
// stream of shared/data 0.13% longer: docs/reports/2026-11-29-codec-frontier-11.md,
// 2026-11-30-codec-frontier-12.md).
struct DenseSample {
  uint32_t run, period;  // period: a power of two (the scalar loop's step takes no division)
  // i's offset in its period
  uint32_t offset(uint32_t i) const { return (i - 2) & (period - 1); }
  bool has(uint32_t i) const { return i >= 2 && offset(i) < run; }
  // the first position of the sample at or after i
  uint32_t at_or_after(uint32_t i) const {
    if (i <= 2) return 2;
    const uint32_t o = offset(i);
    return o < run ? i : i + (period - o);
  }
  // the first run that starts at or after i
  uint32_t run_at_or_after(uint32_t i) const {
    if (i <= 2) return 2;
    const uint32_t o = offset(i);
    return o ? i + (period - o) : i;
  }
  // the position of the sample after i (one of it)
  uint32_t next(uint32_t i) const { return offset(i) == run - 1 ? i + (period - run + 1) : i + 1; }
  // how many positions of [0, len) it holds
  uint32_t count(uint32_t len) const {
    if (len <= 2) return 0;
    const uint32_t n = len - 2, tail = n % period;
    return n / period * run + (tail < run ? tail : run);
  }
};
inline DenseSample dense_sample_of(uint32_t len) {
  return len > (1u << 16) ? DenseSample{8, 128} : DenseSample{1, 4};
}

// The kernels behind the estimates (ChunkKernels: the AVX2 versions, in
// dense_predict_avx2.cc, give the same counts). Each adds to its histograms:
// - choose_dense_predictor's, of the candidates 1, 2, 3 (and 4 with plane) at
//   the sample's positions (< len): h[0..2], and h[3] with plane;
// - dense_code_bits', of p's residuals at i = every, 2 every, ... (< len),
//   returning how many;
// - dense_residual_bits', of r[0], r[every], ... (< len), returning how many.
void dense_sample_histograms_scalar(const int32_t* q, uint32_t len, uint32_t row, uint32_t plane,
                                    uint32_t (*h)[kDenseEstSymbols]);
void dense_sample_histograms_avx2(const int32_t* q, uint32_t len, uint32_t row, uint32_t plane,
                                  uint32_t (*h)[kDenseEstSymbols]);
uint32_t dense_code_histogram_scalar(const int32_t* q, uint32_t len, const DensePredictor& p,
                                     uint32_t every, uint32_t* h);
uint32_t dense_code_histogram_avx2(const int32_t* q, uint32_t len, const DensePredictor& p,
                                   uint32_t every, uint32_t* h);
uint32_t dense_residual_histogram_scalar(const uint32_t* r, uint32_t len, uint32_t every,
                                         uint32_t* h);
uint32_t dense_residual_histogram_avx2(const uint32_t* r, uint32_t len, uint32_t every,
                                       uint32_t* h);
// dense_residuals' kernels (ChunkKernels::dense_lorenzo_residuals; predictors 1 to 4).
void dense_lorenzo_residuals_scalar(const int32_t* q, uint32_t len, const DensePredictor& p,
                                    uint32_t* r);
void dense_lorenzo_residuals_avx2(const int32_t* q, uint32_t len, const DensePredictor& p,
                                  uint32_t* r);
// dense_unpredict_range's kernels (ChunkKernels::dense_unpredict_range).
void dense_unpredict_range_scalar(uint32_t* rq, uint32_t from, uint32_t to,
                                  const DensePredictor& p);
void dense_unpredict_range_avx2(uint32_t* rq, uint32_t from, uint32_t to, const DensePredictor& p);
// The scalar loops over [from, to) only, the AVX2 kernels' tails: the
// residuals r[from, to) of a chunk of len codes, and the samples in [from, to)
// of the histograms (dense_code_histogram_range: from a multiple of every;
// dense_sample_histograms_range: any from).
void dense_lorenzo_residuals_range(const int32_t* q, uint32_t len, const DensePredictor& p,
                                   uint32_t from, uint32_t to, uint32_t* r);
void dense_sample_histograms_range(const int32_t* q, uint32_t len, uint32_t row, uint32_t plane,
                                   uint32_t from, uint32_t to, uint32_t (*h)[kDenseEstSymbols]);
uint32_t dense_code_histogram_range(const int32_t* q, uint32_t len, const DensePredictor& p,
                                    uint32_t every, uint32_t from, uint32_t to, uint32_t* h);

// r[i] = q[i] - p(i) (u32, modulo 2^32) for i in [0, len) (the active kernel).
void dense_residuals(const int32_t* q, uint32_t len, const DensePredictor& p, uint32_t* r);
// The inverse, in place: residuals -> codes. Any row/plane reads only [0, len).
void dense_unpredict(uint32_t* rq, uint32_t len, const DensePredictor& p);
// The same for [from, to) of a chunk whose [0, from) are codes already (the
// decoder's tiles; dense_unpredict = dense_unpredict_range(rq, 0, len, p)).
void dense_unpredict_range(uint32_t* rq, uint32_t from, uint32_t to, const DensePredictor& p);

}  // namespace zcoll
