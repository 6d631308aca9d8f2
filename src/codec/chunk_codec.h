// chunk_codec.h — compress / decompress one chunk (quantize + 1-D Lorenzo
// prediction + per-block bit-plane coding), the range pass of REL bounds and the
// block loop of the homomorphic add, with
// a portable scalar kernel set and an AVX2 one that produce identical bytes and
// values. The kernel set is chosen once at run time (ZCOLL_SIMD=scalar forces the
// scalar one).
#pragma once

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "codec/shared_logic.h"
#include "zcoll.h"

namespace zcoll {

// Quantizer<T> (what a chunk encoder needs to know about the error bound) is in
// shared_logic.h, which the CUDA kernels include too.

// Build the quantizer for an absolute bound eb; false if eb is unusable.
template <typename T>
bool make_quantizer(double eb, Quantizer<T>* qz);
// The quantizer of an existing stream's quantum (to re-encode at the same step);
// *eb_single receives the bound that one compression at this quantum guarantees.
template <typename T>
bool make_quantizer_for_quantum(double quantum, Quantizer<T>* qz, double* eb_single);

struct DenseEncSymbols;
struct DenseCursor;
struct DenseCarry;
struct DensePredictor;

struct ChunkKernels {
  const char* name;
  // Encode len values (1..chunk size) into out, which has room for
  // raw_chunk_bytes(len, sizeof(T)). Returns the chunk's byte size (a multiple of 8).
  size_t (*compress_f32)(const float* x, uint32_t len, const Quantizer<float>& qz, uint8_t* out);
  size_t (*compress_f64)(const double* x, uint32_t len, const Quantizer<double>& qz, uint8_t* out);
  // Decode a chunk of `bytes` bytes holding len values; accumulate adds into out.
  zcoll_status (*decompress_f32)(const uint8_t* in, size_t bytes, uint32_t len, double factor,
                                 float* out, bool accumulate);
  zcoll_status (*decompress_f64)(const uint8_t* in, size_t bytes, uint32_t len, double factor,
                                 double* out, bool accumulate);
  // The 16-bit types (format 1.2): the same, on values widened to float.
  size_t (*compress_bf16)(const Bf16* x, uint32_t len, const Quantizer<Bf16>& qz, uint8_t* out);
  size_t (*compress_f16)(const Fp16* x, uint32_t len, const Quantizer<Fp16>& qz, uint8_t* out);
  zcoll_status (*decompress_bf16)(const uint8_t* in, size_t bytes, uint32_t len, double factor,
                                  Bf16* out, bool accumulate);
  zcoll_status (*decompress_f16)(const uint8_t* in, size_t bytes, uint32_t len, double factor,
                                 Fp16* out, bool accumulate);
  // Min and max of the finite values of x[0, n) (+inf and -inf if there is none): the
  // range pass of REL bounds, with exactly the result of range_scalar (chunk_scalar.h).
  void (*range_f32)(const float* x, size_t n, float* lo, float* hi);
  void (*range_f64)(const double* x, size_t n, double* lo, double* hi);
  // The block loop of the homomorphic add (subtract: b negated) of two quantized
  // chunks a and b into out, the payloads starting at pos in all three; per block
  // pair the cheapest pipeline (hom.cc). a_bytes, b_bytes: the bytes readable at a
  // and b, the chunks' own or up to the end of their streams (the bytes past a
  // chunk do not change the result; they let the AVX2 loop take more of a chunk's
  // last blocks without bounds checks). checked: give up (return 0) as soon as a
  // block could bring the output to raw bytes. Returns the end of the output
  // payload; adds the blocks per pipeline to counts.
  size_t (*combine_blocks)(const uint8_t* a, size_t a_bytes, const uint8_t* b, size_t b_bytes,
                           uint8_t* out, uint32_t nblocks, bool subtract, size_t pos, size_t raw,
                           bool checked, uint64_t counts[4]);
  // The codes of len values, exactly those compress_* gives them (the dense
  // codec's quantization, dense.h): false when a value cannot be quantized.
  bool (*quantize_f32)(const float* x, uint32_t len, const Quantizer<float>& qz, int32_t* q);
  bool (*quantize_f64)(const double* x, uint32_t len, const Quantizer<double>& qz, int32_t* q);
  // The rANS passes of the dense codec (dense.h: dense_rans_encode_scalar,
  // dense_rans_decode_scalar)
  uint8_t* (*dense_rans_encode)(const uint8_t* syms, uint32_t len, const DenseEncSymbols& es,
                                uint8_t* end);
  void (*dense_rans_decode)(uint32_t* xs, const uint8_t** pos, const uint8_t* end,
                            const uint32_t* tab, uint8_t* syms, uint32_t n);
  // The symbol and residual passes of the dense codec (dense.h:
  // dense_symbols_scalar, dense_residuals_scalar)
  size_t (*dense_symbols)(const uint32_t* src, uint32_t len, uint8_t order, uint8_t* syms,
                          uint8_t* extra, uint32_t* cnt);
  uint64_t (*dense_residuals)(const uint8_t* syms, uint32_t n, const uint8_t* extra,
                              uint64_t extra_bytes, uint64_t at, uint32_t* r);
  // The decoder's first pass, rANS to residuals, and the decoder of predictors
  // 1 and 2 in one pass (dense.h: dense_rans_residuals_scalar,
  // dense_lorenzo_f32_scalar)
  void (*dense_rans_residuals)(DenseCursor* c, uint32_t* r, uint32_t n);
  void (*dense_lorenzo_f32)(DenseCursor* c, DenseCarry* carry, bool order2, uint32_t n,
                            double factor, float* out, bool acc);
  void (*dense_lorenzo_f64)(DenseCursor* c, DenseCarry* carry, bool order2, uint32_t n,
                            double factor, double* out, bool acc);
  // ... and of two chunks at once (dense.h: dense_lorenzo_pair_f32_scalar)
  void (*dense_lorenzo_pair_f32)(DenseCursor* c0, DenseCarry* k0, float* out0, DenseCursor* c1,
                                 DenseCarry* k1, float* out1, bool order2, uint32_t n,
                                 double factor, bool acc);
  void (*dense_lorenzo_pair_f64)(DenseCursor* c0, DenseCarry* k0, double* out0, DenseCursor* c1,
                                 DenseCarry* k1, double* out1, bool order2, uint32_t n,
                                 double factor, bool acc);
  // Predictor 5's runs of step 2 (dense_interp.h: interp_encode_run_scalar)
  void (*interp_encode_run)(int32_t* v, uint32_t len, uint32_t from, uint32_t count, uint32_t off,
                            bool cubic, uint32_t* r);
  void (*interp_decode_run)(int32_t* v, uint32_t len, uint32_t from, uint32_t count, uint32_t off,
                            bool cubic, const uint32_t* r);
  // ... and the copies of a row's even values to and from its coarse copy
  // (dense_interp.h: interp_evens_to_scalar, interp_evens_from_scalar)
  void (*interp_evens_to)(const int32_t* v, uint32_t m, int32_t* u);
  void (*interp_evens_from)(const int32_t* u, uint32_t m, int32_t* v);
  // The histograms of the dense encoder's estimates (dense_predict.h:
  // dense_sample_histograms_scalar, dense_code_histogram_scalar,
  // dense_residual_histogram_scalar; 97 = kDenseEstSymbols)
  void (*dense_sample_histograms)(const int32_t* q, uint32_t len, uint32_t row, uint32_t plane,
                                  uint32_t (*h)[97]);
  uint32_t (*dense_code_histogram)(const int32_t* q, uint32_t len, const DensePredictor& p,
                                   uint32_t every, uint32_t* h);
  uint32_t (*dense_residual_histogram)(const uint32_t* r, uint32_t len, uint32_t every,
                                       uint32_t* h);
  // The residuals of predictors 1 to 4 (dense_predict.h: dense_lorenzo_residuals_scalar)
  void (*dense_lorenzo_residuals)(const int32_t* q, uint32_t len, const DensePredictor& p,
                                  uint32_t* r);
  // Their inverse, in place, on [from, to) of a chunk (dense_predict.h:
  // dense_unpredict_range_scalar)
  void (*dense_unpredict_range)(uint32_t* rq, uint32_t from, uint32_t to, const DensePredictor& p);
  // Predictor 5's bound check (dense_interp.h: interp_within_bound_scalar)
  bool (*interp_within_bound_f32)(const float* x, const int32_t* v, uint32_t len,
                                  const Quantizer<float>& qz);
  bool (*interp_within_bound_f64)(const double* x, const int32_t* v, uint32_t len,
                                  const Quantizer<double>& qz);
  // The values of the codes (dense.h: dense_values_scalar)
  void (*dense_values_f32)(const uint32_t* q, uint32_t n, double factor, float* out, bool acc);
  void (*dense_values_f64)(const uint32_t* q, uint32_t n, double factor, double* out, bool acc);
};

// The scalar quantize_* (and the 16-bit types' only one): quantize_value per value.
template <typename T>
bool quantize_values_scalar(const T* x, uint32_t len, const Quantizer<T>& qz, int32_t* q) {
  bool ok = true;
  for (uint32_t i = 0; i < len; ++i) ok &= quantize_value(x[i], qz, &q[i]);
  return ok;
}

template <typename T>
inline bool quantize_values(const ChunkKernels& k, const T* x, uint32_t len, const Quantizer<T>& qz,
                            int32_t* q) {
  if constexpr (sizeof(T) == 4 && !std::is_class_v<T>)
    return k.quantize_f32(x, len, qz, q);
  else if constexpr (sizeof(T) == 8)
    return k.quantize_f64(x, len, qz, q);
  else
    return quantize_values_scalar(x, len, qz, q);
}

const ChunkKernels& scalar_kernels();
// The scalar 16-bit entries (chunk_scalar.cc). The AVX2 set's 16-bit kernels
// (chunk_avx2.cc) give the same bytes and values (tests/unit/kernels_test.cc
// compares the two).
size_t compress_bf16_scalar(const Bf16* x, uint32_t len, const Quantizer<Bf16>& qz, uint8_t* out);
size_t compress_f16_scalar(const Fp16* x, uint32_t len, const Quantizer<Fp16>& qz, uint8_t* out);
zcoll_status decompress_bf16_scalar(const uint8_t* in, size_t bytes, uint32_t len, double factor,
                                    Bf16* out, bool accumulate);
zcoll_status decompress_f16_scalar(const uint8_t* in, size_t bytes, uint32_t len, double factor,
                                   Fp16* out, bool accumulate);
const ChunkKernels* avx2_kernels();  // nullptr when not compiled in
// The AVX2 set with decoders (f32, f64) that also use GFNI; nullptr when not compiled in.
const ChunkKernels* avx2_gfni_kernels();
// The AVX2 set (with the GFNI decoders if gfni) whose homomorphic add's block loop
// uses AVX-512VL; nullptr when not compiled in.
const ChunkKernels* avx2_avx512_kernels(bool gfni);
// Whether the CPU (and the OS) has the AVX-512 subsets that loop needs: F, VL, BW, DQ.
bool cpu_has_avx512_hom();
// The kernels in use: AVX2 when the CPU has AVX2+BMI2 and ZCOLL_SIMD is not
// "scalar", with the GFNI decoders when it also has GFNI and the AVX-512 hom
// loop when it has AVX-512 (ZCOLL_SIMD=avx2: neither).
const ChunkKernels& active_kernels();

template <typename T>
inline size_t compress_chunk(const ChunkKernels& k, const T* x, uint32_t len,
                             const Quantizer<T>& qz, uint8_t* out);
template <>
inline size_t compress_chunk<float>(const ChunkKernels& k, const float* x, uint32_t len,
                                    const Quantizer<float>& qz, uint8_t* out) {
  return k.compress_f32(x, len, qz, out);
}
template <>
inline size_t compress_chunk<double>(const ChunkKernels& k, const double* x, uint32_t len,
                                     const Quantizer<double>& qz, uint8_t* out) {
  return k.compress_f64(x, len, qz, out);
}
template <>
inline size_t compress_chunk<Bf16>(const ChunkKernels& k, const Bf16* x, uint32_t len,
                                   const Quantizer<Bf16>& qz, uint8_t* out) {
  return k.compress_bf16(x, len, qz, out);
}
template <>
inline size_t compress_chunk<Fp16>(const ChunkKernels& k, const Fp16* x, uint32_t len,
                                   const Quantizer<Fp16>& qz, uint8_t* out) {
  return k.compress_f16(x, len, qz, out);
}
template <typename T>
inline zcoll_status decompress_chunk(const ChunkKernels& k, const uint8_t* in, size_t bytes,
                                     uint32_t len, double factor, T* out, bool acc);
template <>
inline zcoll_status decompress_chunk<float>(const ChunkKernels& k, const uint8_t* in, size_t bytes,
                                            uint32_t len, double factor, float* out, bool acc) {
  return k.decompress_f32(in, bytes, len, factor, out, acc);
}
template <>
inline zcoll_status decompress_chunk<double>(const ChunkKernels& k, const uint8_t* in, size_t bytes,
                                             uint32_t len, double factor, double* out, bool acc) {
  return k.decompress_f64(in, bytes, len, factor, out, acc);
}

template <>
inline zcoll_status decompress_chunk<Bf16>(const ChunkKernels& k, const uint8_t* in, size_t bytes,
                                           uint32_t len, double factor, Bf16* out, bool acc) {
  return k.decompress_bf16(in, bytes, len, factor, out, acc);
}
template <>
inline zcoll_status decompress_chunk<Fp16>(const ChunkKernels& k, const uint8_t* in, size_t bytes,
                                           uint32_t len, double factor, Fp16* out, bool acc) {
  return k.decompress_f16(in, bytes, len, factor, out, acc);
}

template <typename T>
inline void value_range(const ChunkKernels& k, const T* x, size_t n, T* lo, T* hi);
template <>
inline void value_range<float>(const ChunkKernels& k, const float* x, size_t n, float* lo,
                               float* hi) {
  k.range_f32(x, n, lo, hi);
}
template <>
inline void value_range<double>(const ChunkKernels& k, const double* x, size_t n, double* lo,
                                double* hi) {
  k.range_f64(x, n, lo, hi);
}

// Check the framing of a quantized chunk: code lengths <= 32 and the payload
// sizes adding up to exactly `bytes`. Returns the offset of the first payload
// byte, or 0 if the chunk is malformed.
size_t validate_quantized_chunk(const uint8_t* in, size_t bytes, uint32_t len);

}  // namespace zcoll
