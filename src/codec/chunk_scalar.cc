// chunk_scalar.cc — the portable kernel set, quantizer set-up, chunk framing
// checks and the run-time choice of kernels.
#include <cfloat>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <strings.h>

#include "codec/chunk_scalar.h"
#include "codec/dense.h"
#include "codec/dense_predict.h"
#include "codec/dense_interp.h"
#include "core/config.h"

namespace zcoll {

template <typename T>
bool make_quantizer(double eb, Quantizer<T>* qz) {
  return make_quantizer_hd<T>(eb, qz);  // shared_logic.h (the GPU runs it too)
}
template bool make_quantizer<float>(double, Quantizer<float>*);
template bool make_quantizer<double>(double, Quantizer<double>*);
template bool make_quantizer<Bf16>(double, Quantizer<Bf16>*);
template bool make_quantizer<Fp16>(double, Quantizer<Fp16>*);

template <typename T>
bool make_quantizer_for_quantum(double quantum, Quantizer<T>* qz, double* eb_single) {
  return make_quantizer_for_quantum_hd<T>(quantum, qz, eb_single);
}
template bool make_quantizer_for_quantum<float>(double, Quantizer<float>*, double*);
template bool make_quantizer_for_quantum<double>(double, Quantizer<double>*, double*);
template bool make_quantizer_for_quantum<Bf16>(double, Quantizer<Bf16>*, double*);
template bool make_quantizer_for_quantum<Fp16>(double, Quantizer<Fp16>*, double*);

size_t validate_quantized_chunk(const uint8_t* in, size_t bytes, uint32_t len) {
  const uint32_t nblocks = (len + kBlock - 1) / kBlock;
  const size_t begin = kQuantChunkHeaderBytes + align4(nblocks);
  if (bytes < begin) return 0;
  static_assert(kMaxCodeLength == 33, "the SWAR test below adds 127 - 33");
  const uint8_t* lens = in + kQuantChunkHeaderBytes;
  constexpr uint64_t kOnes = 0x0101010101010101ULL, kLow = 0x00FF00FF00FF00FFULL;
  uint64_t words = 0, bad = 0;
  uint32_t b = 0;
  // 8 code lengths per step: a byte above 33 has bit 7 set after adding 94 (or
  // before); the sum adds byte pairs, then the four pair sums by one multiply.
  for (; b + 8 <= nblocks; b += 8) {
    uint64_t x;
    std::memcpy(&x, lens + b, 8);
    bad |= (x | (x + 94 * kOnes)) & (0x80 * kOnes);
    words += (((x & kLow) + ((x >> 8) & kLow)) * 0x0001000100010001ULL) >> 48;
  }
  for (; b < nblocks; ++b) {
    bad |= lens[b] > kMaxCodeLength;
    words += lens[b];
  }
  if (bad || align8(begin + 4 * words) != bytes) return 0;
  return begin;
}

namespace {

size_t scalar_compress_f32(const float* x, uint32_t len, const Quantizer<float>& qz, uint8_t* out) {
  return compress_chunk_scalar(x, len, qz, out);
}
size_t scalar_compress_f64(const double* x, uint32_t len, const Quantizer<double>& qz,
                           uint8_t* out) {
  return compress_chunk_scalar(x, len, qz, out);
}
zcoll_status scalar_decompress_f32(const uint8_t* in, size_t bytes, uint32_t len, double factor,
                                   float* out, bool acc) {
  return decompress_chunk_scalar(in, bytes, len, factor, out, acc);
}
zcoll_status scalar_decompress_f64(const uint8_t* in, size_t bytes, uint32_t len, double factor,
                                   double* out, bool acc) {
  return decompress_chunk_scalar(in, bytes, len, factor, out, acc);
}

size_t scalar_combine_blocks(const uint8_t* a, size_t, const uint8_t* b, size_t, uint8_t* out,
                             uint32_t nblocks, bool subtract, size_t pos, size_t raw, bool checked,
                             uint64_t counts[4]) {
  return checked ? combine_blocks_scalar<true>(a, b, out, nblocks, subtract, pos, raw, counts)
                 : combine_blocks_scalar<false>(a, b, out, nblocks, subtract, pos, raw, counts);
}

const ChunkKernels kScalar = {"scalar",
                              scalar_compress_f32,
                              scalar_compress_f64,
                              scalar_decompress_f32,
                              scalar_decompress_f64,
                              compress_bf16_scalar,
                              compress_f16_scalar,
                              decompress_bf16_scalar,
                              decompress_f16_scalar,
                              range_scalar<float>,
                              range_scalar<double>,
                              scalar_combine_blocks,
                              quantize_values_scalar<float>,
                              quantize_values_scalar<double>,
                              dense_rans_encode_scalar,
                              dense_rans_decode_scalar,
                              dense_symbols_scalar,
                              dense_residuals_scalar,
                              dense_rans_residuals_scalar,
                              dense_lorenzo_f32_scalar,
                              dense_lorenzo_f64_scalar,
                              dense_lorenzo_pair_f32_scalar,
                              dense_lorenzo_pair_f64_scalar,
                              interp_encode_run_scalar,
                              interp_decode_run_scalar,
                              interp_evens_to_scalar,
                              interp_evens_from_scalar,
                              dense_sample_histograms_scalar,
                              dense_code_histogram_scalar,
                              dense_residual_histogram_scalar,
                              dense_lorenzo_residuals_scalar,
                              dense_unpredict_range_scalar,
                              interp_within_bound_scalar<float>,
                              interp_within_bound_scalar<double>,
                              dense_values_scalar<float>,
                              dense_values_scalar<double>};

const ChunkKernels& choose_kernels() {
  const char* simd = "auto";
  if (config::get_choice(config::kSimd, &simd) != ZCOLL_SUCCESS)
    std::fprintf(stderr, "zcoll WARN %s; using auto\n", zcoll_last_error());
  else if (strcasecmp(simd, "scalar") == 0)
    return kScalar;
#if defined(__x86_64__) || defined(__i386__)
  const ChunkKernels* avx2 = avx2_kernels();
  if (avx2 && __builtin_cpu_supports("avx2") && __builtin_cpu_supports("bmi2")) {
    const bool plain = strcasecmp(simd, "avx2") == 0;  // the GFNI and AVX-512 kernels off
    const bool gfni = !plain && avx2_gfni_kernels() && __builtin_cpu_supports("gfni");
    if (!plain && cpu_has_avx512_hom() && avx2_avx512_kernels(gfni))
      return *avx2_avx512_kernels(gfni);
    return gfni ? *avx2_gfni_kernels() : *avx2;
  }
#endif
  return kScalar;
}

}  // namespace

const ChunkKernels& scalar_kernels() { return kScalar; }

bool cpu_has_avx512_hom() {
#if defined(__x86_64__) || defined(__i386__)
  return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vl") &&
         __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512dq");
#else
  return false;
#endif
}

size_t compress_bf16_scalar(const Bf16* x, uint32_t len, const Quantizer<Bf16>& qz, uint8_t* out) {
  return compress_chunk_scalar(x, len, qz, out);
}
size_t compress_f16_scalar(const Fp16* x, uint32_t len, const Quantizer<Fp16>& qz, uint8_t* out) {
  return compress_chunk_scalar(x, len, qz, out);
}
zcoll_status decompress_bf16_scalar(const uint8_t* in, size_t bytes, uint32_t len, double factor,
                                    Bf16* out, bool acc) {
  return decompress_chunk_scalar(in, bytes, len, factor, out, acc);
}
zcoll_status decompress_f16_scalar(const uint8_t* in, size_t bytes, uint32_t len, double factor,
                                   Fp16* out, bool acc) {
  return decompress_chunk_scalar(in, bytes, len, factor, out, acc);
}

const ChunkKernels& active_kernels() {
  static const ChunkKernels& k = choose_kernels();
  return k;
}

}  // namespace zcoll
