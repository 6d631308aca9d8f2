// kernels_avx2.h — the AVX2 entries of the kernel table (chunk_codec.h) that live in
// translation units of their own: one per stage family, each compiled for AVX2 by
// its own target pragma. chunk_avx2.cc puts them in the table.
#pragma once

#include <cstddef>
#include <cstdint>

namespace zcoll {

// range_avx2.cc: the range pass of REL bounds (ChunkKernels::range_f32/_f64).
void range_avx2_f32(const float* x, size_t n, float* lo, float* hi);
void range_avx2_f64(const double* x, size_t n, double* lo, double* hi);

// hom_avx2.cc: the block loop of the homomorphic add (ChunkKernels::combine_blocks).
size_t combine_blocks_avx2(const uint8_t* a, size_t a_bytes, const uint8_t* b, size_t b_bytes,
                           uint8_t* out, uint32_t nblocks, bool subtract, size_t pos, size_t raw,
                           bool checked, uint64_t counts[4]);
// hom_avx512.cc: the same loop with AVX-512VL (F, VL, BW, DQ) instructions, the same bytes.
size_t combine_blocks_avx512(const uint8_t* a, size_t a_bytes, const uint8_t* b, size_t b_bytes,
                             uint8_t* out, uint32_t nblocks, bool subtract, size_t pos, size_t raw,
                             bool checked, uint64_t counts[4]);

}  // namespace zcoll
