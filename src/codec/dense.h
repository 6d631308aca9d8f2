// dense.h — the dense codec (format 1.3, chunk kind 2; docs/format.md §5.3): the
// codes of the fast codec (the same quantization, so the bound means the same),
// predicted per chunk by Lorenzo of order 1 or 2 or, given the array's shape, by
// 2-D or 3-D Lorenzo (dense_predict.h), the residuals mapped
// to at most 168 symbols (small values direct, large ones as a bucket plus raw
// extra bits) and the symbols coded with a static order-0 rANS coder (12-bit
// frequencies in a compact table, sixteen interleaved states, 16-bit
// renormalization). Both directions run as passes over the chunk (codes,
// residuals, symbols, rANS), each a loop the compiler can vectorize or one
// with eight independent dependency chains.
//
// The rANS, symbol, residual and value passes have a scalar and an AVX2 kernel
// (ChunkKernels) that write and read the same bytes, so the bytes do not depend
// on the SIMD path, nor on the thread count (one chunk is coded by one thread).
#pragma once

#include <cstddef>
#include <cstdint>

#include "codec/dense_predict.h"
#include "codec/format.h"
#include "codec/shared_logic.h"
#include "zcoll.h"

namespace zcoll {

constexpr uint8_t kChunkDense = 2;
constexpr size_t kDenseChunkHeaderBytes = 8;  // kind, predictor, nsym, 0, extra_bytes u32
// (then the predictor's fields, dense_predictor_bytes: the n-D strides)
constexpr uint32_t kDenseScaleBits = 12;      // rANS frequencies sum to 4096
constexpr uint32_t kDenseDirect = 64;         // residuals 0..63 (zigzag) are their own symbol
constexpr uint32_t kDenseMaxSymbols = 168;    // 64 direct + 26 exponents x 4 mantissas
constexpr uint32_t kDenseStates = 16;         // interleaved rANS states: symbol i uses i % 16
constexpr size_t kDenseStateBytes = 64;       // the sixteen rANS states, u32 each
constexpr uint32_t kDenseRansLow = 1u << 15;  // states live in [2^15, 2^31)
constexpr uint8_t kDenseOrder1 = 1, kDenseOrder2 = 2;

// A residual (an i32 difference, mod 2^32) as an unsigned value: 0, -1, 1, -2, ...
// -> 0, 1, 2, 3, ... (the symbols of §5.3 and the predictor estimates use it).
inline uint32_t zigzag(uint32_t r) { return (r << 1) ^ (0u - (r >> 31)); }

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
// framing check decode without reading outside the chunk. Predictors 3 and 4
// (dense_decode_needs_scratch) decode through a per-thread array of len values:
// after dense_decode_reserve(len) returned true on the calling thread nothing
// is allocated; otherwise the decoder grows it and may throw std::bad_alloc.
template <typename T>
void decompress_dense_chunk(const uint8_t* in, size_t bytes, uint32_t len, double factor, T* out,
                            bool accumulate);

// Two dense chunks of len values each that validate_dense_chunk accepted, at
// once, as decompress_dense_chunk decodes each (out0, out1), when both are of
// predictor 1 or both of predictor 2 and T is float or double (their rANS
// steps then overlap: the kernels' dense_lorenzo_pair_*); false, and nothing
// written, otherwise. dense_pair_candidate: whether a chunk may be one of them.
template <typename T>
bool decompress_dense_pair(const uint8_t* in0, size_t bytes0, const uint8_t* in1, size_t bytes1,
                           uint32_t len, double factor, T* out0, T* out1, bool accumulate);
inline bool dense_pair_candidate(const uint8_t* in) {
  return in[0] == kChunkDense && (in[1] == kDenseOrder1 || in[1] == kDenseOrder2);
}

// Whether the decoder of a chunk validate_dense_chunk accepted needs the
// per-thread array (predictor 3 or 4).
bool dense_decode_needs_scratch(const uint8_t* in);
// Grow the calling thread's decoder array to len values; false if it cannot be
// allocated (the caller reports ZCOLL_ERR_NO_MEMORY instead of decoding).
bool dense_decode_reserve(uint32_t len) noexcept;

// The framing of a dense chunk of `bytes` bytes: predictor (and its strides),
// symbol count, a frequency table that parses and sums to 4096, sizes adding
// up, states in range. false = malformed.
bool validate_dense_chunk(const uint8_t* in, size_t bytes);

// The encoder's symbols (s < nsym): ryg_rans' reciprocal form of x -> (x / f) *
// 4096 + x % f + start, as rcp[s] and meta[s] = f | shift << 13 | bias << 17
// (f <= 4096, shift <= 11, bias < 8192; the complement 4096 - f is derived).
// The two side by side: the AVX2 encoder fetches both with one 64-bit gather.
struct DenseEncSymbols {
  struct Sym {
    uint32_t rcp, meta;
  } s[kDenseMaxSymbols];
};

// The tables of frequencies f[0, nsym) (summing to 4096): the encoder's, and
// the decoder's slot table tab[4096] (slot -> symbol | (slot - start) << 8 |
// (f - 1) << 20).
void dense_enc_symbols(const uint16_t* f, uint32_t nsym, DenseEncSymbols* es);
void dense_dec_table(const uint16_t* f, uint32_t nsym, uint32_t* tab);

// One encoder step of state x with symbol s: renormalize (x >= 2^19 f: its low 16
// bits out below p; without a branch: the word is stored always and kept only
// when the pointer moves), then encode.
inline void dense_enc_put(uint32_t& x, uint8_t*& p, const DenseEncSymbols& es, uint32_t s) {
  const uint32_t meta = es.s[s].meta, freq = meta & 0x1FFFu;
  const uint32_t out = (x >> (31 - kDenseScaleBits)) >= freq;
  p[-2] = static_cast<uint8_t>(x), p[-1] = static_cast<uint8_t>(x >> 8);
  p -= 2 * out;
  const uint32_t y = x >> (16 * out);
  const uint32_t q = static_cast<uint32_t>((uint64_t{y} * es.s[s].rcp) >> 32) >> (meta >> 13 & 15u);
  x = y + (meta >> 17) + q * ((1u << kDenseScaleBits) - freq);
}

// The symbol pass of the encoder (ChunkKernels::dense_symbols): the symbols of
// the len residuals (§5.3) to syms, their extra bits to extra (room for 4 len +
// 16 bytes) and their counts to cnt[kDenseMaxSymbols]; returns the extra bytes.
// The residuals: src itself (order 0), or Lorenzo of order 1 or 2 of the codes
// src (dense_bits::residual_at). Both versions write the same bytes.
size_t dense_symbols_scalar(const uint32_t* src, uint32_t len, uint8_t order, uint8_t* syms,
                            uint8_t* extra, uint32_t* cnt);
size_t dense_symbols_avx2(const uint32_t* src, uint32_t len, uint8_t order, uint8_t* syms,
                          uint8_t* extra, uint32_t* cnt);

// The residual pass of the decoder (ChunkKernels::dense_residuals): the residuals
// of n symbols (< kDenseMaxSymbols) to r, their extra bits from bit `at` of the stream extra of
// extra_bytes bytes (past its end they read as 0; the bytes after it are
// readable: the chunk's states follow); returns the bit position after them.
// Both versions give the same residuals and position.
uint64_t dense_residuals_scalar(const uint8_t* syms, uint32_t n, const uint8_t* extra,
                                uint64_t extra_bytes, uint64_t at, uint32_t* r);
uint64_t dense_residuals_avx2(const uint8_t* syms, uint32_t n, const uint8_t* extra,
                              uint64_t extra_bytes, uint64_t at, uint32_t* r);

// The last pass of the decoder (ChunkKernels::dense_values_f32, _f64): the
// values of n codes q (i32), out[i] = (T)((double)q[i] * factor), or added to
// out[i] (acc). Both versions give the same values.
template <typename T>
void dense_values_scalar(const uint32_t* q, uint32_t n, double factor, T* out, bool acc);
void dense_values_avx2_f32(const uint32_t* q, uint32_t n, double factor, float* out, bool acc);
void dense_values_avx2_f64(const uint32_t* q, uint32_t n, double factor, double* out, bool acc);

// The rANS pass of the encoder (ChunkKernels::dense_rans_encode): syms[0, len)
// coded backwards into the buffer ending at end (which has 2 len + 64 bytes: a
// word per symbol at most, the states, and room for the AVX2 version's 16-byte
// stores below the words); returns the first byte
// (the sixteen states, then the words). Symbol i uses state i % 16. Both
// versions write the same bytes.
uint8_t* dense_rans_encode_scalar(const uint8_t* syms, uint32_t len, const DenseEncSymbols& es,
                                  uint8_t* end);
uint8_t* dense_rans_encode_avx2(const uint8_t* syms, uint32_t len, const DenseEncSymbols& es,
                                uint8_t* end);

// The rANS pass of the decoder (ChunkKernels::dense_rans_decode): n symbols into
// syms, symbol k with state xs[k % 16] (updated), the words read from *pos
// (moved on; past end they read as 0); tab maps a slot to symbol | (slot - start)
// << 8 | (freq - 1) << 20. The AVX2 version gives the same symbols, states and
// position.
void dense_rans_decode_scalar(uint32_t* xs, const uint8_t** pos, const uint8_t* end,
                              const uint32_t* tab, uint8_t* syms, uint32_t n);
void dense_rans_decode_avx2(uint32_t* xs, const uint8_t** pos, const uint8_t* end,
                            const uint32_t* tab, uint8_t* syms, uint32_t n);

// Where a decoder is in a dense chunk: the sixteen rANS states, the next word
// (the words end at end), the chunk's slot table (dense_dec_table), and the
// extra bits: extra_bytes of them at extra (64 readable bytes follow: the
// chunk's states), the next one at bit `bit`.
struct DenseCursor {
  uint32_t xs[kDenseStates];
  const uint8_t* words;
  const uint8_t* end;
  const uint32_t* tab;
  const uint8_t* extra;
  uint64_t extra_bytes;
  uint64_t bit;
};

// The decoder's first pass (ChunkKernels::dense_rans_residuals): the residuals
// of the next n symbols (n a multiple of 16 but the chunk's last) to r, the
// symbols from the rANS words as dense_rans_decode reads them, their extra
// bits as dense_residuals reads them; the cursor moves on. The AVX2 version
// computes each group's residuals in the loop of the rANS steps, whose chains
// leave most of the core idle. Both give the same residuals and cursor.
void dense_rans_residuals_scalar(DenseCursor* c, uint32_t* r, uint32_t n);
void dense_rans_residuals_avx2(DenseCursor* c, uint32_t* r, uint32_t n);

// Predictors 1 and 2, from residuals to codes, carried from tile to tile of a
// chunk: the last code and the last difference of codes. At the chunk's start
// q = d = 0; order 2 then sets q = r[0], d = -r[0] (so that p = q[0] at i = 1).
struct DenseCarry {
  uint32_t q = 0, d = 0;
  bool first = true;
};

// The decoder of predictors 1 and 2 in one pass (ChunkKernels::dense_lorenzo_f32,
// _f64): the next n values (n as for dense_rans_residuals) of the chunk at the
// cursor, order 1 or 2 (order2), out[i] = (T)((double)q[i] * factor) or added
// to out[i] (acc); the cursor and the carry move on. The AVX2 version turns
// each group's residuals into codes and values in registers. Both give the same
// values, cursor and carry.
void dense_lorenzo_f32_scalar(DenseCursor* c, DenseCarry* carry, bool order2, uint32_t n,
                              double factor, float* out, bool acc);
void dense_lorenzo_f64_scalar(DenseCursor* c, DenseCarry* carry, bool order2, uint32_t n,
                              double factor, double* out, bool acc);
void dense_lorenzo_f32_avx2(DenseCursor* c, DenseCarry* carry, bool order2, uint32_t n,
                            double factor, float* out, bool acc);
void dense_lorenzo_f64_avx2(DenseCursor* c, DenseCarry* carry, bool order2, uint32_t n,
                            double factor, double* out, bool acc);

// The same for two chunks of one order at once (ChunkKernels::dense_lorenzo_pair_f32,
// _f64): chunk 0 at c0 (carry k0) to out0, chunk 1 at c1 to out1, n values of
// each. The rANS steps of one chunk wait on their two chains of states; the
// AVX2 version keeps the four chains of both in flight. Both versions give
// what dense_lorenzo_* gives each chunk.
void dense_lorenzo_pair_f32_scalar(DenseCursor* c0, DenseCarry* k0, float* out0, DenseCursor* c1,
                                   DenseCarry* k1, float* out1, bool order2, uint32_t n,
                                   double factor, bool acc);
void dense_lorenzo_pair_f64_scalar(DenseCursor* c0, DenseCarry* k0, double* out0, DenseCursor* c1,
                                   DenseCarry* k1, double* out1, bool order2, uint32_t n,
                                   double factor, bool acc);
void dense_lorenzo_pair_f32_avx2(DenseCursor* c0, DenseCarry* k0, float* out0, DenseCursor* c1,
                                 DenseCarry* k1, float* out1, bool order2, uint32_t n,
                                 double factor, bool acc);
void dense_lorenzo_pair_f64_avx2(DenseCursor* c0, DenseCarry* k0, double* out0, DenseCursor* c1,
                                 DenseCarry* k1, double* out1, bool order2, uint32_t n,
                                 double factor, bool acc);

}  // namespace zcoll
