// dense_interp.h — predictor 5 of the dense codec (docs/format.md §5.3): level
// by level interpolation of *reconstructed values*, as SZ3 predicts, on a fine
// integer grid so that encoder and decoder compute the same predictions on any
// machine (integers only; the values are made once, at the end).
//
// Why not the codes: at loose bounds the fast codec's codes are a staircase and
// every predictor of them pays at each step (docs/design.md, "Where code-domain
// prediction stops"). Here a value's reconstruction is its prediction plus a
// whole number of steps, so a prediction within the bound costs a zero residual.
//
// The grid: fine codes X of step quantum / 256 (so a fine code's value is
// X * factor / 256, the decoder's factor of §6); a residual k moves the
// prediction P by 255 fine steps: X' = P + 255 k, k = the nearest integer to
// (X - P) / 255, |X - X'| <= 127 fine steps. With X within half a fine step of
// the value, |x - x'| <= 127.5/256 quantum < quantum / 2: the fast codec's
// margin (§7), which leaves the same slack for the rounding to T, and the
// encoder checks every value as the decoder will compute it.
//
// The traversal: a chunk is a C-order array of 1, 2 or 3 dims (row W, plane P:
// the chunk's own coordinates, as for predictors 3 and 4; the last row or plane
// may be partial). Value 0 is the anchor (predicted as 0). Then for strides s =
// the largest power of two below the longest dim, ..., 2, 1, and for each dim d
// from the slowest to the fastest: every value whose coordinate along d is an
// odd multiple of s, whose slower coordinates are multiples of s and whose faster
// ones multiples of 2 s, in memory order, predicted along d from the values at
// -3s, -s, +s, +3s (all decoded earlier): linear (-s, +s), or cubic, or one-sided
// near the ends (format.md gives the formulas).
#pragma once

#include <cstdint>

#include "codec/dense_predict.h"
#include "codec/shared_logic.h"

namespace zcoll {

constexpr uint8_t kDenseInterp = 5;
constexpr uint32_t kInterpFine = 256;   // fine steps per quantum
constexpr uint32_t kInterpStep = 255;   // fine steps per residual unit
constexpr uint32_t kInterpCubic = 4;    // mode bit: cubic (else linear)
constexpr uint32_t kInterpTile = 2048;  // residuals per InterpResidualSource::fill

// The fields of predictor 5 (dense_predictor_bytes: 12): mode (bits 0-1 = dims
// - 1, bit 2 = cubic), row, plane.
struct InterpGrid {
  uint32_t ndim = 1;  // 1..3
  bool cubic = false;
  uint32_t row = 0, plane = 0;  // 2-D: row; 3-D: row and plane (a multiple of row)
};

// The grid of p (id kDenseInterp), and the predictor of a grid: the mode's
// encoding, both ways.
InterpGrid interp_grid_of(const DensePredictor& p);
DensePredictor interp_predictor_of(const InterpGrid& g);

// The encoder, in three steps: the fine codes of the values (quantize_values
// with interp_fine_quantizer: its check passes for any value the fast codec's
// passes), then the interpolation's residuals, then the bound check.
template <typename T>
Quantizer<T> interp_fine_quantizer(const Quantizer<T>& qz) {
  Quantizer<T> f = qz;
  f.quantum = qz.quantum * (1.0 / kInterpFine), f.inv = qz.inv * kInterpFine;  // exact
  return f;
}
// The encoder tries its predictors on at most kInterpTrial values of a chunk.
constexpr uint32_t kInterpTrial = 1u << 15;
// The residuals r[0, len) of the fine codes v[0, len) under grid g; v becomes
// the reconstructed fine codes (in place).
void interp_residuals(int32_t* v, uint32_t len, const InterpGrid& g, uint32_t* r);
// Whether every value's reconstruction, as the decoder computes it (§6 with
// factor / 256, rounded to T), is within qz's bound of x: else the caller takes
// another predictor (as rare as the fast codec's second bin, §7).
template <typename T>
bool interp_within_bound(const T* x, const int32_t* v, uint32_t len, const Quantizer<T>& qz);
// Its kernels for float and double (ChunkKernels::interp_within_bound_f32,
// _f64; the scalar one is every type's): the same answer.
template <typename T>
bool interp_within_bound_scalar(const T* x, const int32_t* v, uint32_t len, const Quantizer<T>& qz);
bool interp_within_bound_f32_avx2(const float* x, const int32_t* v, uint32_t len,
                                  const Quantizer<float>& qz);
bool interp_within_bound_f64_avx2(const double* x, const int32_t* v, uint32_t len,
                                  const Quantizer<double>& qz);

// Decoder: the fine codes v[0, len) of the residuals that next() returns in
// the traversal's order (u32 arithmetic modulo 2^32: any residuals decode).
class InterpResidualSource {
 public:
  virtual ~InterpResidualSource() = default;
  // the next n residuals into r (n = kInterpTile, but the last: fewer)
  virtual void fill(uint32_t* r, uint32_t n) = 0;
};
void interp_decode(const InterpGrid& g, uint32_t len, InterpResidualSource& src, int32_t* v);

// The runs of step 2 of the finest level, linear or cubic (ChunkKernels::
// interp_encode_run, interp_decode_run): the count values j = from + 2 t of a
// chunk of len values, each predicted from its neighbours off (and 3 off)
// apart, encoded (residual t to r[t], v[j] reconstructed) or decoded (v[j]
// from r[t]). No neighbour of a value is a value of the run (off is odd, or
// the run spans less than off), so their order does not matter: the AVX2
// versions do four at a time and give the same values.
void interp_encode_run_scalar(int32_t* v, uint32_t len, uint32_t from, uint32_t count, uint32_t off,
                              bool cubic, uint32_t* r);
void interp_decode_run_scalar(int32_t* v, uint32_t len, uint32_t from, uint32_t count, uint32_t off,
                              bool cubic, const uint32_t* r);
void interp_encode_run_avx2(int32_t* v, uint32_t len, uint32_t from, uint32_t count, uint32_t off,
                            bool cubic, uint32_t* r);
void interp_decode_run_avx2(int32_t* v, uint32_t len, uint32_t from, uint32_t count, uint32_t off,
                            bool cubic, const uint32_t* r);

// The copies between a row of the chunk and its coarse copy (the values of
// even coordinates, on which the traversal runs its levels s >= 2:
// dense_interp.cc): u[k] = v[2 k] (evens_to), v[2 k] = u[k] (evens_from;
// the odd values of v are left as they are), k < m. They read and write v
// only below 2 m - 1.
void interp_evens_to_scalar(const int32_t* v, uint32_t m, int32_t* u);
void interp_evens_from_scalar(const int32_t* u, uint32_t m, int32_t* v);
void interp_evens_to_avx2(const int32_t* v, uint32_t m, int32_t* u);
void interp_evens_from_avx2(const int32_t* u, uint32_t m, int32_t* v);

}  // namespace zcoll
