// dense.h — the dense codec (format 1.3, chunk kind 2; docs/format.md §5.3): the
// codes of the fast codec (the same quantization, so the bound means the same),
// predicted per chunk by Lorenzo of order 1 or 2 or, given the array's shape, by
// 2-D or 3-D Lorenzo (dense_predict.h), the residuals mapped
// to at most 168 symbols (small values direct, large ones as a bucket plus raw
// extra bits) and the symbols coded with a static order-0 rANS coder (12-bit
// frequencies, four interleaved states, byte-wise renormalization).
//
// One scalar implementation: the bytes cannot depend on a SIMD path, and they
// do not depend on the thread count (one chunk is coded by one thread).
#pragma once

#include <cstddef>
#include <cstdint>

#include "codec/dense_predict.h"
#include "codec/shared_logic.h"
#include "zcoll.h"

namespace zcoll {

constexpr uint8_t kChunkDense = 2;
constexpr size_t kDenseChunkHeaderBytes = 12;  // kind, predictor, nsym u16, extra u32, rans u32
// (then the predictor's fields, dense_predictor_bytes: n-D strides)
constexpr uint32_t kDenseScaleBits = 12;    // rANS frequencies sum to 4096
constexpr uint32_t kDenseDirect = 64;       // residuals 0..63 (zigzag) are their own symbol
constexpr uint32_t kDenseMaxSymbols = 168;  // 64 direct + 26 exponents x 4 mantissas
constexpr size_t kDenseStateBytes = 16;     // the four rANS states, u32 each
constexpr uint8_t kDenseOrder1 = 1, kDenseOrder2 = 2;

// Encode len values (1..chunk size) as a dense chunk into out, which has room for
// raw_chunk_bytes(len, sizeof(T)) bytes; a chunk that cannot be quantized, or
// would not be smaller, is written raw. Returns the chunk's size (a multiple of 8).
// shape: the strides n-D prediction may use (none: 1-D prediction only).
// May throw std::bad_alloc (its scratch buffers, per thread).
template <typename T>
size_t compress_dense_chunk(const T* x, uint32_t len, const Quantizer<T>& qz, uint8_t* out,
                            const DenseShape& shape = DenseShape{});

// Decode a dense chunk that validate_dense_chunk accepted: out[i] = (T)(q[i] *
// factor), or added to out with accumulate. Cannot fail: any bytes that pass the
// framing check decode without reading outside the chunk.
template <typename T>
void decompress_dense_chunk(const uint8_t* in, size_t bytes, uint32_t len, double factor, T* out,
                            bool accumulate);

// The framing of a dense chunk of `bytes` bytes: predictor (and its strides), symbol count,
// frequencies summing to 4096, sizes adding up. false = malformed.
bool validate_dense_chunk(const uint8_t* in, size_t bytes);

}  // namespace zcoll
