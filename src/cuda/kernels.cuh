// kernels.cuh — the CUDA kernels of libzcoll_cuda (format v1, docs/format.md).
// Included by api.cu only: all device code is one translation unit (nvcc is slow).
//
// Every per-value and per-block rule comes from codec/shared_logic.h and
// codec/block_codec.h, the functions the CPU codec runs (and its tests cover).
// Work layout: one thread block (256 threads, 8 warps) per chunk, looping over
// the chunks (the host does not know the chunk count of a stream that lives in
// device memory, so grids are fixed and blocks loop). Inside a chunk, tiles of 8
// format blocks (256 values): one warp per format block, one lane per value.
// Errors are written to DevState::status (first one wins); every kernel returns
// at once when a status is set, so a failed stream is never written to output.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "codec/block_codec.h"
#include "codec/shared_logic.h"
#include "zcoll.h"

namespace zcoll {
namespace cuda {

constexpr int kThreads = 256;  // threads per block of the chunk kernels
constexpr int kWarps = kThreads / 32;
constexpr unsigned kFull = 0xFFFFFFFFu;
constexpr uint32_t kKindQuant = 0, kKindRaw = 1;

// Why a device-side check failed (turned into a message by the host).
enum Reason : uint32_t {
  kReasonNone = 0,
  kShortHeader,
  kBadMagic,
  kBadVersion,
  kBadDtype,
  kBadBlockOrFlags,
  kBadField,
  kShortIndex,
  kBadChecksum,
  kBadIndexEntry,
  kShortStream,
  kBadChunk,
  kMismatch,
  kOutputTooSmall,
  kBadBound,
  kAccumulatorTooSmall,
  kDstTooSmall,
  kDstMisaligned,
  kScratchTooSmall,
  kDenseStream,
  kReasonCount
};

struct DevHeader {
  uint32_t dtype, chunk_size, divisor, terms;
  uint64_t n, chunks, data_begin, stream_size;
  double eb, quantum;
};

struct DevState {
  int status;       // zcoll_status of the first failure, 0 = none
  uint32_t reason;  // Reason of that failure
  uint64_t detail;  // e.g. the chunk index
  DevHeader in[2];  // the input streams (a, b)
  DevHeader out;    // the header of the result
  uint64_t out_size;
  double quantum, inv, eb_check;  // the quantizer of a compression
  double eb_single;               // DOC: bound of one compression at the quantum
};

struct Result {  // layout of zcoll_cuda_result
  int32_t status;
  uint32_t reason;
  uint64_t size;
  uint64_t detail;
};

__device__ inline void set_error(DevState* st, int status, uint32_t reason, uint64_t detail = 0) {
  if (atomicCAS(&st->status, 0, status) == 0) {
    st->reason = reason;
    st->detail = detail;
  }
}

// The status at a kernel's start, read once per block (thread 0) so that every
// thread of the block takes the same branch even while other blocks set errors.
__device__ inline bool stopped(const DevState* st) {
  __shared__ int s_status;
  if (threadIdx.x == 0) s_status = *static_cast<const volatile int*>(&st->status);
  __syncthreads();
  return s_status != 0;
}

ZCOLL_HD inline uint64_t align4u(uint64_t x) { return (x + 3) & ~uint64_t{3}; }
ZCOLL_HD inline uint64_t align8u(uint64_t x) { return (x + 7) & ~uint64_t{7}; }
ZCOLL_HD inline uint32_t raw_bytes(uint32_t len, uint32_t vb) {
  return static_cast<uint32_t>(align8u(8ull + uint64_t{len} * vb));
}
ZCOLL_HD inline uint32_t chunk_len(const DevHeader& h, uint64_t c) {
  const uint64_t left = h.n - c * h.chunk_size;
  return static_cast<uint32_t>(left < h.chunk_size ? left : h.chunk_size);
}
__device__ inline uint64_t get_u64(const uint8_t* p) {
  return uint64_t{get_word(p)} | uint64_t{get_word(p + 4)} << 32;
}
__device__ inline void put_u64(uint8_t* p, uint64_t v) {
  put_word(p, static_cast<uint32_t>(v));
  put_word(p + 4, static_cast<uint32_t>(v >> 32));
}
__device__ inline double get_f64(const uint8_t* p) { return __longlong_as_double(get_u64(p)); }
__device__ inline void put_f64(uint8_t* p, double d) {
  put_u64(p, static_cast<uint64_t>(__double_as_longlong(d)));
}

template <typename T>
struct Bits;
template <>
struct Bits<float> {
  using U = uint32_t;
  static constexpr uint32_t dtype = ZCOLL_FLOAT32;
};
template <>
struct Bits<double> {
  using U = uint64_t;
  static constexpr uint32_t dtype = ZCOLL_FLOAT64;
};

// A value of a raw chunk: bit-exact load from any alignment (raw values start at
// offset 8 of a chunk; the stream itself may start anywhere).
template <typename T>
__device__ inline T load_value(const uint8_t* p) {
  using U = typename Bits<T>::U;
  U u;
  if ((reinterpret_cast<uintptr_t>(p) & (sizeof(T) - 1)) == 0) {
    u = *reinterpret_cast<const U*>(p);
  } else {
    u = get_word(p);
    if (sizeof(T) == 8) u = static_cast<U>(get_u64(p));
  }
  T v;
  memcpy(&v, &u, sizeof(T));
  return v;
}
template <typename T>
__device__ inline void store_value(uint8_t* p, T v) {
  using U = typename Bits<T>::U;
  U u;
  memcpy(&u, &v, sizeof(T));
  if ((reinterpret_cast<uintptr_t>(p) & (sizeof(T) - 1)) == 0) {
    *reinterpret_cast<U*>(p) = u;
  } else if (sizeof(T) == 4) {
    put_word(p, static_cast<uint32_t>(u));
  } else {
    put_u64(p, static_cast<uint64_t>(u));
  }
}

// ---- warp and block primitives ------------------------------------------------

__device__ inline uint32_t warp_or(uint32_t v) {
  for (int s = 16; s > 0; s >>= 1) v |= __shfl_xor_sync(kFull, v, s);
  return v;
}
__device__ inline uint32_t warp_max(uint32_t v) {
  for (int s = 16; s > 0; s >>= 1) v = max(v, __shfl_xor_sync(kFull, v, s));
  return v;
}
__device__ inline double warp_max_d(double v) {
  for (int s = 16; s > 0; s >>= 1) v = fmax(v, __shfl_xor_sync(kFull, v, s));
  return v;
}
// Word j of a block payload at p (docs/format.md §5.2): one 4-byte access where p is
// 4-byte aligned (always, unless the stream itself starts misaligned), else bytes.
__device__ inline uint32_t load_word(const uint8_t* p, bool aligned) {
  return aligned ? *reinterpret_cast<const uint32_t*>(p) : get_word(p);
}
__device__ inline void store_word(uint8_t* p, uint32_t w, bool aligned) {
  if (aligned)
    *reinterpret_cast<uint32_t*>(p) = w;
  else
    put_word(p, w);
}

// decode_block_lane (shared_logic.h) by the whole warp, W the same on every lane:
// lane j loads plane j, every lane takes its bit of each plane by a shuffle. The
// same value as decode_block_lane, with one load per plane instead of four byte
// loads per plane on every lane (the decoder's largest instruction count on an
// H200, 2026-11-28).
__device__ inline uint32_t decode_block_warp(const uint8_t* in, uint32_t W, uint32_t lane,
                                             bool aligned) {
  const uint32_t planes = W < 32 ? W : 32;
  const uint32_t mine = lane < planes ? load_word(in + 4 * lane, aligned) : 0u;
  uint32_t d = 0;
  for (uint32_t j = 0; j < planes; ++j) d |= ((__shfl_sync(kFull, mine, j) >> lane) & 1u) << j;
  if (W < 32) {
    const uint32_t sign_bit = 1u << (W - 1);
    d = (d ^ sign_bit) - sign_bit;
  }
  return d;
}

template <typename V>
__device__ inline V warp_incl_scan(V v, int lane) {
  for (int s = 1; s < 32; s <<= 1) {
    const V u = __shfl_up_sync(kFull, v, s);
    if (lane >= s) v += u;
  }
  return v;
}

// Exclusive prefix sum over the threads of a block (blockDim.x a multiple of 32,
// at most 1024; modulo 2^32 for uint32_t); *total gets the sum. Every thread
// must call it.
template <typename V>
__device__ inline V block_excl_scan(V v, V* total) {
  __shared__ V s_part[32];
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, nw = blockDim.x >> 5;
  const V incl = warp_incl_scan(v, lane);
  if (lane == 31) s_part[warp] = incl;
  __syncthreads();
  V before = 0, sum = 0;
  for (int k = 0; k < nw; ++k) {
    if (k < warp) before += s_part[k];
    sum += s_part[k];
  }
  __syncthreads();  // s_part is reused by the next call
  *total = sum;
  return before + incl - v;
}

// Offsets of n consecutive pieces of size_of(c) bytes laid out from base, by one
// block: offsets[c] for c < n, offsets[n] = the end, which is also returned;
// entries below `limit` only. size_of is called once for each c < n. Every
// thread must call it.
template <typename SizeOf>
__device__ uint64_t block_offsets(uint64_t n, uint64_t base, SizeOf size_of, uint64_t* offsets,
                                  uint64_t limit = ~uint64_t{0}) {
  for (uint64_t first = 0; first < n; first += blockDim.x) {
    const uint64_t c = first + threadIdx.x;
    const uint64_t v = c < n ? size_of(c) : 0;
    uint64_t total;
    const uint64_t before = block_excl_scan(v, &total);
    if (c < n && c < limit) offsets[c] = base + before;
    base += total;
  }
  if (threadIdx.x == 0 && n < limit) offsets[n] = base;
  return base;
}

// ---- CRC-32C (docs/format.md §3) ------------------------------------------------

// Fill a 256-entry table (all threads of the block take part).
__device__ inline void crc_table(uint32_t* t) {
  for (uint32_t i = threadIdx.x; i < 256; i += blockDim.x) {
    uint32_t c = i;
    for (int k = 0; k < 8; ++k) c = (c >> 1) ^ (0x82F63B78u & (0u - (c & 1u)));
    t[i] = c;
  }
  __syncthreads();
}
// a * b modulo the CRC-32C polynomial, in the reflected bit order of the CRC
// (bit 31 is x^0): appending zero bytes to a CRC multiplies it by powers of x.
ZCOLL_HD inline uint32_t crc_mulmod(uint32_t a, uint32_t b) {
  uint32_t p = 0;
  for (uint32_t m = 0x80000000u; m; m >>= 1) {
    if (a & m) p ^= b;
    b = (b >> 1) ^ (0x82F63B78u & (0u - (b & 1u)));
  }
  return p;
}
// x^(2^k) modulo the polynomial, k = 0..63: computed once on the host and passed
// by value to the kernels that checksum a header (block_header_crc).
struct CrcPowers {
  uint32_t x2n[64];
};
inline CrcPowers crc_powers() {
  CrcPowers p{};
  p.x2n[0] = 0x40000000u;  // x^1
  for (int k = 1; k < 64; ++k) p.x2n[k] = crc_mulmod(p.x2n[k - 1], p.x2n[k - 1]);
  return p;
}

// The CRC of header bytes [0,44) then the index with its padding (docs/format.md
// §3), by the whole block (blockDim.x a power of two, at most 1024), returned to
// every thread. One thread for a 64 KiB index took 120 us on an H200 (the first
// device check): now each thread takes one piece of 2^shift bytes and
// log2(blockDim.x) rounds join neighbours, crc(AB) = crc(A) * x^(8|B|) + crc(B)
// for CRCs started at 0. The initial 0xFFFFFFFF is the first four bytes
// complemented; zero bytes in front leave a CRC started at 0 unchanged, so the
// string is padded in front to a whole number of pieces.
__device__ uint32_t block_header_crc(const uint32_t* t, const CrcPowers& pw, const uint8_t* s,
                                     uint64_t chunks) {
  __shared__ uint32_t part[1024];
  const uint64_t len = 44 + align8u(4 * chunks);
  const uint64_t threads = blockDim.x;
  uint32_t shift = 0;
  while ((threads << shift) < len) ++shift;
  const uint64_t piece = uint64_t{1} << shift, pad = (threads << shift) - len;
  const uint64_t begin = threadIdx.x * piece, end = begin + piece;
  uint32_t crc = 0;
  for (uint64_t j = begin > pad ? begin : pad; j < end; ++j) {
    const uint64_t i = j - pad;  // in the string: header [0,44), then the index at 48
    const uint8_t b = static_cast<uint8_t>((i < 44 ? s[i] : s[i + 4]) ^ (i < 4 ? 0xFFu : 0u));
    crc = (crc >> 8) ^ t[(crc ^ b) & 0xFF];
  }
  part[threadIdx.x] = crc;
  __syncthreads();
  // round r joins pieces of piece * 2^r bytes: x^(8 * piece * 2^r) = x^(2^(3 + shift + r))
  uint32_t k = 3 + shift;
  for (uint32_t step = 1; step < threads; step <<= 1, ++k) {
    const bool lead = threadIdx.x % (2 * step) == 0;
    uint32_t v = 0;
    if (lead) v = crc_mulmod(part[threadIdx.x], pw.x2n[k]) ^ part[threadIdx.x + step];
    __syncthreads();
    if (lead) part[threadIdx.x] = v;
    __syncthreads();
  }
  const uint32_t result = ~part[0];
  __syncthreads();  // part is reused by the next call of the block
  return result;
}

// ---- opening a stream: header, checksum, index ------------------------------------

// Parse the header of the stream at s (src_size bytes) into st->in[slot] (one
// thread). The checks and their order are those of docs/format.md §9 and
// parse_stream (format.cc).
__global__ void k_open(DevState* st, const uint8_t* s, uint64_t src_size, int slot) {
  if (st->status) return;
  if (src_size < 48) return set_error(st, ZCOLL_ERR_TRUNCATED, kShortHeader, src_size);
  if (s[0] != 'Z' || s[1] != 'C' || s[2] != 'O' || s[3] != 'L')
    return set_error(st, ZCOLL_ERR_CORRUPT, kBadMagic);
  if (s[4] != ZCOLL_FORMAT_VERSION) return set_error(st, ZCOLL_ERR_UNSUPPORTED, kBadVersion, s[4]);
  if (s[5] == ZCOLL_BFLOAT16 || s[5] == ZCOLL_FLOAT16)  // format 1.2: no 16-bit kernels here
    return set_error(st, ZCOLL_ERR_UNSUPPORTED, kBadDtype, s[5]);
  if (s[5] != ZCOLL_FLOAT32 && s[5] != ZCOLL_FLOAT64)
    return set_error(st, ZCOLL_ERR_CORRUPT, kBadDtype, s[5]);
  if (s[7] == 2 && s[6] == 5) return set_error(st, ZCOLL_ERR_UNSUPPORTED, kDenseStream);
  if (s[6] != 5 || s[7] != 0) return set_error(st, ZCOLL_ERR_UNSUPPORTED, kBadBlockOrFlags);
  DevHeader h;
  h.dtype = s[5];
  h.chunk_size = get_word(s + 8);
  h.divisor = get_word(s + 12);
  h.n = get_u64(s + 16);
  h.eb = get_f64(s + 24);
  h.quantum = get_f64(s + 32);
  h.terms = get_word(s + 40);
  if (h.chunk_size % 32 != 0 || h.chunk_size < ZCOLL_MIN_CHUNK_SIZE ||
      h.chunk_size > ZCOLL_MAX_CHUNK_SIZE || h.divisor == 0 || h.terms == 0 ||
      h.n > (uint64_t{1} << 56) || !(hd::finite_(h.eb) && h.eb > 0) ||
      !(hd::finite_(h.quantum) && h.quantum > 0))
    return set_error(st, ZCOLL_ERR_CORRUPT, kBadField);
  h.chunks = (h.n + h.chunk_size - 1) / h.chunk_size;
  h.data_begin = 48 + align8u(4 * h.chunks);
  if (src_size < h.data_begin) return set_error(st, ZCOLL_ERR_TRUNCATED, kShortIndex, src_size);
  h.stream_size = 0;
  st->in[slot] = h;
}

// Checksum and index of an opened stream (one block, up to 1024 threads): validates
// every entry and writes offsets[c] (from the stream start), offsets[chunks] =
// the stream size, at most `entries` of them (the table's size: a stream whose
// chunks need more is shorter than its index says, every chunk taking 8 bytes
// or more, and fails as truncated).
__global__ void k_index(DevState* st, const uint8_t* s, uint64_t src_size, int slot,
                        uint64_t* offsets, uint64_t entries, CrcPowers pw) {
  if (st->status) return;
  __shared__ uint32_t table[256];
  crc_table(table);
  DevHeader& h = st->in[slot];
  if (block_header_crc(table, pw, s, h.chunks) != get_word(s + 44)) {
    if (threadIdx.x == 0) set_error(st, ZCOLL_ERR_CORRUPT, kBadChecksum);
    return;
  }
  const uint32_t vb = h.dtype == ZCOLL_FLOAT64 ? 8 : 4;
  const uint64_t end = block_offsets(
      h.chunks, h.data_begin,
      [&](uint64_t c) {
        const uint64_t v = get_word(s + 48 + 4 * c);
        if (v < 8 || v % 8 != 0 || v > raw_bytes(chunk_len(h, c), vb))
          set_error(st, ZCOLL_ERR_CORRUPT, kBadIndexEntry, c);
        return v;
      },
      offsets, entries);
  if (threadIdx.x == 0) {
    h.stream_size = end;
    if (end > src_size || h.chunks >= entries)
      set_error(st, ZCOLL_ERR_TRUNCATED, kShortStream, end);
  }
}

// Framing of every chunk (docs/format.md §9 step 5), one block per chunk.
__global__ void k_validate(DevState* st, const uint8_t* s, int slot, const uint64_t* offsets) {
  if (stopped(st)) return;
  const DevHeader h = st->in[slot];
  const uint32_t vb = h.dtype == ZCOLL_FLOAT64 ? 8 : 4;
  for (uint64_t c = blockIdx.x; c < h.chunks; c += gridDim.x) {
    const uint8_t* in = s + offsets[c];
    const uint64_t bytes = offsets[c + 1] - offsets[c];
    const uint32_t len = chunk_len(h, c);
    if (in[0] == kKindRaw) {
      if (threadIdx.x == 0 && bytes != raw_bytes(len, vb))
        set_error(st, ZCOLL_ERR_CORRUPT, kBadChunk, c);
      continue;
    }
    if (in[0] != kKindQuant) {
      if (threadIdx.x == 0) set_error(st, ZCOLL_ERR_CORRUPT, kBadChunk, c);
      continue;
    }
    const uint32_t nblocks = (len + 31) / 32;
    const uint64_t begin = 12 + align4u(nblocks);
    if (bytes < begin) {
      if (threadIdx.x == 0) set_error(st, ZCOLL_ERR_CORRUPT, kBadChunk, c);
      continue;
    }
    uint32_t sum = 0, over = 0;
    for (uint32_t b = threadIdx.x; b < nblocks; b += blockDim.x) {
      const uint32_t w = in[12 + b];
      sum += w;
      over |= w > 33;
    }
    uint32_t total;
    block_excl_scan(sum, &total);
    const int any_over = __syncthreads_or(over);
    if (threadIdx.x == 0 && (any_over || align8u(begin + 4ull * total) != bytes))
      set_error(st, ZCOLL_ERR_CORRUPT, kBadChunk, c);
  }
}

// ---- decoding one chunk ---------------------------------------------------------

// Decode a validated chunk with the whole block: emit(i, value) for i < len, each
// i by thread i % 256 (a caller may rely on that mapping). Quantized values are
// (T)((double)q * factor); raw values are stored ones, divided by raw_div unless
// it is 1 (docs/format.md §6).
template <typename T, typename Emit>
__device__ void decode_chunk_dev(const uint8_t* in, uint32_t len, double factor, uint32_t raw_div,
                                 Emit emit) {
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  if (in[0] == kKindRaw) {
    for (uint32_t i = threadIdx.x; i < len; i += kThreads) {
      T v = load_value<T>(in + 8 + size_t{i} * sizeof(T));
      if (raw_div != 1) v = static_cast<T>(static_cast<double>(v) / static_cast<double>(raw_div));
      emit(i, v);
    }
    return;
  }
  __shared__ uint32_t s_w[kWarps];
  __shared__ uint32_t s_sum[kWarps];
  const bool aligned = (reinterpret_cast<uintptr_t>(in) & 3) == 0;
  const uint32_t nblocks = (len + 31) / 32;
  uint64_t pos = 12 + align4u(nblocks);
  uint32_t carry = get_word(in + 4);
  for (uint32_t base = 0; base < len; base += kThreads) {
    const uint32_t blk = (base >> 5) + warp;
    const uint32_t W = blk < nblocks ? in[12 + blk] : 0;
    if (lane == 0) s_w[warp] = W;
    __syncthreads();
    uint64_t off = pos, tile = 0;
    for (int k = 0; k < kWarps; ++k) {
      if (k < warp) off += 4 * s_w[k];
      tile += 4 * s_w[k];
    }
    const uint32_t d = W ? decode_block_warp(in + off, W, lane, aligned) : 0u;
    const uint32_t incl = warp_incl_scan(d, lane);
    if (lane == 31) s_sum[warp] = incl;
    __syncthreads();
    uint32_t before = carry, all = 0;
    for (int k = 0; k < kWarps; ++k) {
      if (k < warp) before += s_sum[k];
      all += s_sum[k];
    }
    const uint32_t code = before + incl;
    const uint32_t i = base + threadIdx.x;
    if (i < len) emit(i, static_cast<T>(static_cast<double>(static_cast<int32_t>(code)) * factor));
    carry += all;
    pos += tile;
    __syncthreads();
  }
}

// ---- encoding one chunk -----------------------------------------------------------

// The raw chunk of len values at x (raw bytes: the kind, the values, zero
// padding), written by the whole block; returns raw.
template <typename T>
__device__ uint32_t store_raw_chunk(const T* x, uint32_t len, uint8_t* out, uint32_t raw) {
  using U = typename Bits<T>::U;
  __syncthreads();
  if (threadIdx.x < 8) out[threadIdx.x] = threadIdx.x == 0 ? kKindRaw : 0;
  const U* xu = reinterpret_cast<const U*>(x);
  for (uint32_t k = threadIdx.x; k < len; k += kThreads) {
    U u = xu[k];
    T v;
    memcpy(&v, &u, sizeof(T));
    store_value<T>(out + 8 + size_t{k} * sizeof(T), v);
  }
  const uint32_t data_end = 8 + len * static_cast<uint32_t>(sizeof(T));
  for (uint32_t k = data_end + threadIdx.x; k < raw; k += kThreads) out[k] = 0;
  __syncthreads();
  return raw;
}

// Compress len values at x into out (room: raw_bytes(len)); returns the chunk's
// size. The same bytes as compress_chunk_scalar (chunk_scalar.h): codes from
// quantize_value, deltas against the previous code (0 for the first value and
// the tail), code length and planes as encode_block defines them, raw when a
// value cannot be quantized or the quantized chunk would not be smaller.
template <typename T>
__device__ uint32_t compress_chunk_dev(const T* x, uint32_t len, const Quantizer<T>& qz,
                                       uint8_t* out) {
  __shared__ uint32_t s_w[kWarps];
  __shared__ uint32_t s_qmax;
  __shared__ int32_t s_anchor;
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  const uint32_t raw = raw_bytes(len, sizeof(T));
  const uint32_t nblocks = (len + 31) / 32;
  const uint32_t pos0 = static_cast<uint32_t>(12 + align4u(nblocks));
  const bool aligned = (reinterpret_cast<uintptr_t>(out) & 3) == 0;
  if (threadIdx.x == 0) s_qmax = 0;
  __syncthreads();
  bool escaped = pos0 >= raw;
  uint32_t pos = pos0, qmax = 0;
  for (uint32_t base = 0; base < len && !escaped; base += kThreads) {
    const uint32_t i = base + threadIdx.x;
    int32_t q = 0;
    bool ok = true;
    if (i < len) ok = quantize_value(x[i], qz, &q);
    int32_t prev = __shfl_up_sync(kFull, q, 1);
    if (lane == 0 && i > 0 && i < len && !quantize_value(x[i - 1], qz, &prev)) ok = false;
    const int32_t d = (i < len && i > 0) ? q - prev : 0;
    if (i < len) {
      const uint32_t aq = static_cast<uint32_t>(q < 0 ? -q : q);
      qmax = aq > qmax ? aq : qmax;
    }
    if (i == 0) s_anchor = q;
    const uint32_t du = static_cast<uint32_t>(d);
    const uint32_t W = code_length(warp_or(du), warp_or(fold_sign(d)));
    if (lane == 0) s_w[warp] = W;
    if (__syncthreads_or(!ok)) {
      escaped = true;
      break;
    }
    uint32_t off = pos, tile = 0;
    for (int k = 0; k < kWarps; ++k) {
      if (k < warp) off += 4 * s_w[k];
      tile += 4 * s_w[k];
    }
    uint32_t mine = 0;
    for (uint32_t j = 0; j < W; ++j) {
      const uint32_t plane = __ballot_sync(kFull, (du >> j) & 1u);
      if (static_cast<uint32_t>(lane) == j) mine = plane;
    }
    const uint32_t blk = (base >> 5) + warp;
    if (blk < nblocks) {
      if (lane == 0) out[12 + blk] = static_cast<uint8_t>(W);
      if (static_cast<uint32_t>(lane) < W && off + 4 * W <= raw)
        store_word(out + off + 4 * lane, mine, aligned);
    }
    pos += tile;
    if (pos >= raw) escaped = true;  // uniform: every thread saw the same s_w
    __syncthreads();
  }
  const uint32_t end = static_cast<uint32_t>(align8u(pos));
  if (escaped || end >= raw) return store_raw_chunk(x, len, out, raw);
  atomicMax(&s_qmax, warp_max(qmax));
  __syncthreads();
  for (uint32_t k = 12 + nblocks + threadIdx.x; k < pos0; k += kThreads) out[k] = 0;
  for (uint32_t k = pos + threadIdx.x; k < end; k += kThreads) out[k] = 0;
  if (threadIdx.x == 0) {
    out[0] = kKindQuant;
    out[1] = out[2] = out[3] = 0;
    put_word(out + 4, static_cast<uint32_t>(s_anchor));
    put_word(out + 8, s_qmax);
  }
  __syncthreads();
  return end;
}

// ---- compression ---------------------------------------------------------------

// Min and max of the finite values, per block (partials), like range_of in stream.cc.
template <typename T>
__global__ void k_minmax(const T* x, uint64_t n, double* lo, double* hi) {
  double l = __longlong_as_double(0x7FF0000000000000ll), h = -l;  // +Inf, -Inf
  for (uint64_t i = blockIdx.x * uint64_t{blockDim.x} + threadIdx.x; i < n;
       i += uint64_t{gridDim.x} * blockDim.x) {
    const double v = static_cast<double>(x[i]);
    if (hd::finite_(v)) l = fmin(l, v), h = fmax(h, v);
  }
  __shared__ double sl[32], sh[32];
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  for (int s = 16; s > 0; s >>= 1) {
    l = fmin(l, __shfl_xor_sync(kFull, l, s));
    h = fmax(h, __shfl_xor_sync(kFull, h, s));
  }
  if (lane == 0) sl[warp] = l, sh[warp] = h;
  __syncthreads();
  if (threadIdx.x == 0) {
    for (int k = 1; k < static_cast<int>(blockDim.x >> 5); ++k)
      l = fmin(l, sl[k]), h = fmax(h, sh[k]);
    lo[blockIdx.x] = fmin(l, sl[0]);
    hi[blockIdx.x] = fmax(h, sh[0]);
  }
}

// The quantizer of a compression (one thread): abs, or rel over [lo, hi].
template <typename T>
__global__ void k_setup_compress(DevState* st, int rel, double bound, const double* lo,
                                 const double* hi, int parts, uint64_t n, uint32_t cs) {
  double eb = bound;
  if (rel) {
    double l = lo[0], h = hi[0];
    for (int k = 1; k < parts; ++k) l = fmin(l, lo[k]), h = fmax(h, hi[k]);
    if (l > h) l = h = 0;  // no finite value
    eb = rel_to_abs_bound(bound, l, h);
  }
  Quantizer<T> qz;
  if (!make_quantizer_hd<T>(eb, &qz)) return set_error(st, ZCOLL_ERR_INVALID_ARG, kBadBound);
  st->quantum = qz.quantum;
  st->inv = qz.inv;
  st->eb_check = static_cast<double>(qz.eb_check);
  DevHeader& o = st->out;
  o.dtype = Bits<T>::dtype;
  o.chunk_size = cs;
  o.divisor = 1;
  o.terms = 1;
  o.n = n;
  o.chunks = (n + cs - 1) / cs;
  o.data_begin = 48 + align8u(4 * o.chunks);
  o.eb = eb;
  o.quantum = qz.quantum;
}

template <typename T>
__device__ inline Quantizer<T> load_quantizer(const DevState* st) {
  Quantizer<T> qz;
  qz.quantum = st->quantum;
  qz.inv = st->inv;
  qz.eb_check = static_cast<T>(st->eb_check);
  return qz;
}

// Worst-case place of chunk c in a scratch area: c * raw_bytes(chunk_size).
ZCOLL_HD inline uint64_t slot_of(const DevHeader& h, uint64_t c) {
  return c * raw_bytes(h.chunk_size, h.dtype == ZCOLL_FLOAT64 ? 8 : 4);
}

template <typename T>
__global__ void __launch_bounds__(kThreads)
    k_compress(DevState* st, const T* x, uint8_t* scratch, uint32_t* sizes) {
  if (stopped(st)) return;
  const DevHeader h = st->out;
  const Quantizer<T> qz = load_quantizer<T>(st);
  for (uint64_t c = blockIdx.x; c < h.chunks; c += gridDim.x) {
    const uint32_t size =
        compress_chunk_dev<T>(x + c * h.chunk_size, chunk_len(h, c), qz, scratch + slot_of(h, c));
    if (threadIdx.x == 0) sizes[c] = size;
  }
}

// Offsets of produced chunks (one block, up to 1024 threads): offsets[c] from the
// stream start, and st->out_size.
__global__ void k_scan_sizes(DevState* st, const uint32_t* sizes, uint64_t* offsets) {
  if (st->status) return;
  const DevHeader h = st->out;
  const uint64_t end = block_offsets(
      h.chunks, h.data_begin, [&](uint64_t c) { return uint64_t{sizes[c]}; }, offsets);
  if (threadIdx.x == 0) st->out_size = end;
}

// Move every chunk from its scratch slot to its place in dst and write its index
// entry. 8-byte copies when dst is 8-byte aligned (chunks are multiples of 8 bytes
// at multiples of 8 from the stream start), byte copies otherwise.
__global__ void k_pack(DevState* st, const uint8_t* scratch, const uint32_t* sizes,
                       const uint64_t* offsets, uint8_t* dst) {
  if (stopped(st)) return;
  const DevHeader h = st->out;
  const bool aligned = (reinterpret_cast<uintptr_t>(dst) & 7) == 0;
  for (uint64_t c = blockIdx.x; c < h.chunks; c += gridDim.x) {
    const uint8_t* from = scratch + slot_of(h, c);
    uint8_t* to = dst + offsets[c];
    const uint32_t bytes = sizes[c];
    if (threadIdx.x == 0) put_word(dst + 48 + 4 * c, bytes);
    if (aligned) {
      const uint64_t* f = reinterpret_cast<const uint64_t*>(from);
      uint64_t* t = reinterpret_cast<uint64_t*>(to);
      for (uint32_t k = threadIdx.x; k < bytes / 8; k += blockDim.x) t[k] = f[k];
    } else {
      for (uint32_t k = threadIdx.x; k < bytes; k += blockDim.x) to[k] = from[k];
    }
  }
}

// Write the header of st->out (and the index padding and checksum) at dst; the
// block's threads compute the checksum together.
__global__ void k_write_header(DevState* st, uint8_t* dst, CrcPowers pw) {
  if (stopped(st)) return;
  __shared__ uint32_t table[256];
  crc_table(table);
  const DevHeader h = st->out;
  if (threadIdx.x == 0) {
    dst[0] = 'Z', dst[1] = 'C', dst[2] = 'O', dst[3] = 'L';
    dst[4] = ZCOLL_FORMAT_VERSION;
    dst[5] = static_cast<uint8_t>(h.dtype);
    dst[6] = 5;
    dst[7] = 0;
    put_word(dst + 8, h.chunk_size);
    put_word(dst + 12, h.divisor);
    put_u64(dst + 16, h.n);
    put_f64(dst + 24, h.eb);
    put_f64(dst + 32, h.quantum);
    put_word(dst + 40, h.terms);
    for (uint64_t i = 48 + 4 * h.chunks; i < h.data_begin; ++i) dst[i] = 0;
  }
  __syncthreads();
  const uint32_t crc = block_header_crc(table, pw, dst, h.chunks);
  if (threadIdx.x == 0) put_word(dst + 44, crc);
}

__global__ void k_result(const DevState* st, Result* r) {
  r->status = st->status;
  r->reason = st->reason;
  r->size = st->status ? 0 : st->out_size;
  r->detail = st->status ? st->detail : 0;
}

// ---- decompression ---------------------------------------------------------------

__global__ void k_check_dst(DevState* st, uint64_t dst_count, const void* dst) {
  if (st->status) return;
  const DevHeader& h = st->in[0];
  if (dst_count < h.n) return set_error(st, ZCOLL_ERR_BUFFER_TOO_SMALL, kDstTooSmall, h.n);
  if (h.n && dst == nullptr) return set_error(st, ZCOLL_ERR_INVALID_ARG, kDstTooSmall, h.n);
  if (h.dtype == ZCOLL_FLOAT64 && (reinterpret_cast<uintptr_t>(dst) & 7) != 0)
    return set_error(st, ZCOLL_ERR_INVALID_ARG, kDstMisaligned);
  st->out_size = h.n;
}

template <typename T>
__global__ void __launch_bounds__(kThreads)
    k_decompress(DevState* st, const uint8_t* s, const uint64_t* offsets, T* dst, int accumulate) {
  if (stopped(st) || st->in[0].dtype != Bits<T>::dtype) return;
  const DevHeader h = st->in[0];
  const double factor = h.quantum / static_cast<double>(h.divisor);
  for (uint64_t c = blockIdx.x; c < h.chunks; c += gridDim.x) {
    T* o = dst + c * h.chunk_size;
    const uint8_t* in = s + offsets[c];
    if (accumulate)
      decode_chunk_dev<T>(in, chunk_len(h, c), factor, h.divisor,
                          [&](uint32_t i, T v) { o[i] = o[i] + v; });
    else
      decode_chunk_dev<T>(in, chunk_len(h, c), factor, h.divisor,
                          [&](uint32_t i, T v) { o[i] = v; });
    __syncthreads();
  }
}

// ---- homomorphic operations --------------------------------------------------------

enum HomOp : int { kHomAdd = 0, kHomSub = 1, kHomNegate = 2 };

// The two streams can be combined, and the output capacity suffices; the result
// header goes to st->out (one thread). negate: only in[0] exists. scratch: the
// bytes of the temporary memory sized for the result (the host's bound from the
// stream sizes): a result that would not fit is an internal error, never a
// write past it.
__global__ void k_pair(DevState* st, int op, uint64_t cap, uint64_t scratch, int doc) {
  if (st->status) return;
  const DevHeader a = st->in[0];
  DevHeader o = a;
  if (op != kHomNegate) {
    const DevHeader b = st->in[1];
    if (a.dtype != b.dtype || a.n != b.n || a.chunk_size != b.chunk_size ||
        __double_as_longlong(a.quantum) != __double_as_longlong(b.quantum) ||
        a.divisor != b.divisor)
      return set_error(st, ZCOLL_ERR_MISMATCH, kMismatch);
    o.eb = a.eb + b.eb;
    const uint64_t t = uint64_t{a.terms} + b.terms;
    o.terms = t > 0xFFFFFFFFu ? 0xFFFFFFFFu : static_cast<uint32_t>(t);
  }
  const uint64_t need = compress_bound_hd(a.n, a.dtype == ZCOLL_FLOAT64 ? 8 : 4);
  if (cap < need) return set_error(st, ZCOLL_ERR_BUFFER_TOO_SMALL, kOutputTooSmall, need);
  if (scratch < need) return set_error(st, ZCOLL_ERR_INTERNAL, kScratchTooSmall, need);
  if (doc) {
    o.divisor = 1;
    double eb_single = 0, inv = 0, eb_check = 0;
    bool ok;
    if (a.dtype == ZCOLL_FLOAT32) {
      Quantizer<float> q{};
      ok = make_quantizer_for_quantum_hd<float>(a.quantum, &q, &eb_single);
      inv = q.inv, eb_check = q.eb_check;
    } else {
      Quantizer<double> q{};
      ok = make_quantizer_for_quantum_hd<double>(a.quantum, &q, &eb_single);
      inv = q.inv, eb_check = q.eb_check;
    }
    if (!ok) return set_error(st, ZCOLL_ERR_CORRUPT, kBadField);  // nothing of q stored
    st->quantum = a.quantum;
    st->inv = inv;
    st->eb_check = eb_check;
    st->eb_single = eb_single;
  }
  st->out = o;
}

// a op b of one chunk through floats, stored raw (hom.cc float_path_chunk): the
// represented values (codes * quantum, raw values as stored), combined in T.
template <typename T>
__device__ uint32_t hom_float_chunk(const uint8_t* a, const uint8_t* b, uint32_t len,
                                    double quantum, int op, uint8_t* out) {
  __syncthreads();
  uint8_t* data = out + 8;
  if (op != kHomNegate)
    decode_chunk_dev<T>(a, len, quantum, 1,
                        [&](uint32_t i, T v) { store_value<T>(data + size_t{i} * sizeof(T), v); });
  __syncthreads();
  decode_chunk_dev<T>(b, len, quantum, 1, [&](uint32_t i, T v) {
    uint8_t* p = data + size_t{i} * sizeof(T);
    T r;
    if (op == kHomAdd)
      r = load_value<T>(p) + v;
    else if (op == kHomSub)
      r = load_value<T>(p) - v;
    else
      r = -v;
    store_value<T>(p, hd::canonical_nan(r));  // the GPU's own NaN differs from the CPU's
  });
  const uint32_t raw = raw_bytes(len, sizeof(T));
  if (threadIdx.x < 8) out[threadIdx.x] = threadIdx.x == 0 ? kKindRaw : 0;
  for (uint32_t k = 8 + len * static_cast<uint32_t>(sizeof(T)) + threadIdx.x; k < raw;
       k += kThreads)
    out[k] = 0;
  __syncthreads();
  return raw;
}

// Homomorphic add / sub / negate of one chunk pair (hom.cc hom_add_chunk): the
// four block pipelines, the qmax guard, the worst-case and per-block capacity
// checks and the float path, with the same bytes. One thread per format block.
template <typename T>
__device__ uint32_t hom_chunk(const uint8_t* a, const uint8_t* b, uint32_t len, double quantum,
                              int op, uint8_t* out) {
  const bool subtract = op != kHomAdd;
  const bool neg = op == kHomNegate;  // a is a chunk of zeros: kind 0, anchor 0, W = 0
  const uint32_t raw = raw_bytes(len, sizeof(T));
  if ((!neg && a[0] == kKindRaw) || b[0] == kKindRaw)
    return hom_float_chunk<T>(a, b, len, quantum, op, out);
  const uint64_t qmax = uint64_t{neg ? 0u : get_word(a + 8)} + get_word(b + 8);
  if (qmax > static_cast<uint64_t>(kQMaxFormat))
    return hom_float_chunk<T>(a, b, len, quantum, op, out);
  const uint32_t nblocks = (len + 31) / 32;
  const uint32_t pos0 = static_cast<uint32_t>(12 + align4u(nblocks));
  if (pos0 >= raw) return hom_float_chunk<T>(a, b, len, quantum, op, out);
  // worst case: every block one plane wider than its widest input
  uint32_t worst_part = 0;
  for (uint32_t blk = threadIdx.x; blk < nblocks; blk += kThreads) {
    const uint32_t wa = neg ? 0u : a[12 + blk], wb = b[12 + blk];
    const uint32_t widest = wa > wb ? wa : wb;
    worst_part += widest ? 4 * (widest + 1) : 0;
  }
  uint32_t worst;
  block_excl_scan(worst_part, &worst);
  const bool checked = uint64_t{pos0} + worst >= raw;
  uint32_t pa = pos0, pb = pos0, pos = pos0;
  bool to_float = false;
  uint32_t words[34];
  for (uint32_t first = 0; first < nblocks; first += kThreads) {
    const uint32_t blk = first + threadIdx.x;
    const bool live = blk < nblocks;
    const uint32_t wa = live && !neg ? a[12 + blk] : 0u, wb = live ? b[12 + blk] : 0u;
    uint32_t ta, tb;
    const uint32_t offa = pa + block_excl_scan(4 * wa, &ta);
    const uint32_t offb = pb + block_excl_scan(4 * wb, &tb);
    uint32_t w = 0;
    uint8_t* wbytes = reinterpret_cast<uint8_t*>(words);
    if (!live || (wa == 0 && wb == 0)) {
      w = 0;
    } else if (wa == 0 && !subtract) {
      w = wb;
      for (uint32_t j = 0; j < w; ++j) words[j] = get_word(b + offb + 4 * j);
    } else if (wb == 0) {
      w = wa;
      for (uint32_t j = 0; j < w; ++j) words[j] = get_word(a + offa + 4 * j);
    } else {
      w = add_planes(neg ? nullptr : a + offa, wa, b + offb, wb, subtract, wbytes);
      for (uint32_t j = 0; j < w; ++j) words[j] = get_word(wbytes + 4 * j);
    }
    uint32_t tw;
    const uint32_t off = pos + block_excl_scan(4 * w, &tw);
    const uint32_t widest = wa > wb ? wa : wb;
    const bool over = checked && live && uint64_t{off} + 4 * (widest + 1) >= raw;
    if (__syncthreads_or(over)) {
      to_float = true;
      break;
    }
    if (live) {
      out[12 + blk] = static_cast<uint8_t>(w);
      if (uint64_t{off} + 4 * w <= raw)
        for (uint32_t j = 0; j < w; ++j) put_word(out + off + 4 * j, words[j]);
    }
    pa += ta, pb += tb, pos += tw;
  }
  const uint32_t end = static_cast<uint32_t>(align8u(pos));
  if (to_float || end >= raw) return hom_float_chunk<T>(a, b, len, quantum, op, out);
  for (uint32_t k = 12 + nblocks + threadIdx.x; k < pos0; k += kThreads) out[k] = 0;
  for (uint32_t k = pos + threadIdx.x; k < end; k += kThreads) out[k] = 0;
  if (threadIdx.x == 0) {
    const int64_t anchor_a = neg ? 0 : static_cast<int32_t>(get_word(a + 4));
    const int64_t anchor_b = static_cast<int32_t>(get_word(b + 4));
    const int64_t anchor = subtract ? anchor_a - anchor_b : anchor_a + anchor_b;
    out[0] = kKindQuant;
    out[1] = out[2] = out[3] = 0;
    put_word(out + 4, static_cast<uint32_t>(static_cast<int32_t>(anchor)));
    put_word(out + 8, static_cast<uint32_t>(qmax));
  }
  __syncthreads();
  return end;
}

template <typename T>
__global__ void __launch_bounds__(kThreads)
    k_hom(DevState* st, const uint8_t* A, const uint64_t* offa, const uint8_t* B,
          const uint64_t* offb, int op, uint8_t* scratch, uint32_t* sizes) {
  if (stopped(st) || st->out.dtype != Bits<T>::dtype) return;
  const DevHeader h = st->out;
  for (uint64_t c = blockIdx.x; c < h.chunks; c += gridDim.x) {
    // negate: the input is stream a (slot 0); it plays the part of b
    const uint8_t* a = op == kHomNegate ? nullptr : A + offa[c];
    const uint8_t* b = op == kHomNegate ? A + offa[c] : B + offb[c];
    const uint32_t size =
        hom_chunk<T>(a, b, chunk_len(h, c), h.quantum, op, scratch + slot_of(h, c));
    if (threadIdx.x == 0) sizes[c] = size;
  }
}

// x op y (hom.cc apply_op): MAX/MIN give NaN when either is NaN; every NaN
// result is the canonical one, the CPU's bytes.
template <typename T>
__device__ inline T apply_op(int op, T x, T y) {
  switch (op) {
    case ZCOLL_OP_SUM: return hd::canonical_nan(x + y);
    case ZCOLL_OP_PROD: return hd::canonical_nan(x * y);
    case ZCOLL_OP_MAX: return hd::canonical_nan((x != x || y != y) ? x + y : (x > y ? x : y));
    default: return hd::canonical_nan((x != x || y != y) ? x + y : (x < y ? x : y));
  }
}

// DOC combine of one chunk per block: decode both (divisor applied), op in T into
// tmp, re-encode at the same quantum; PROD: the per-chunk bound into prod[c].
template <typename T>
__global__ void __launch_bounds__(kThreads)
    k_doc(DevState* st, const uint8_t* A, const uint64_t* offa, const uint8_t* B,
          const uint64_t* offb, int op, T* tmp, uint8_t* scratch, uint32_t* sizes, double* prod) {
  if (stopped(st) || st->out.dtype != Bits<T>::dtype) return;
  const DevHeader ha = st->in[0], hb = st->in[1], h = st->out;
  const Quantizer<T> qz = load_quantizer<T>(st);
  const double fa = ha.quantum / static_cast<double>(ha.divisor);
  const double ea = ha.eb, eb = hb.eb;
  __shared__ double s_m[kWarps];
  for (uint64_t c = blockIdx.x; c < h.chunks; c += gridDim.x) {
    const uint32_t len = chunk_len(h, c);
    T* x = tmp + c * h.chunk_size;
    decode_chunk_dev<T>(A + offa[c], len, fa, ha.divisor, [&](uint32_t i, T v) { x[i] = v; });
    __syncthreads();
    double m = 0;
    decode_chunk_dev<T>(B + offb[c], len, fa, hb.divisor, [&](uint32_t i, T y) {
      const T xv = x[i];
      if (op == ZCOLL_OP_PROD) {  // |x'y' - xy| <= |y'| ea + (|x'| + ea) eb
        const double bnd = fabs(double(y)) * ea + (fabs(double(xv)) + ea) * eb;
        if (hd::finite_(bnd) && bnd > m) m = bnd;
      }
      x[i] = apply_op<T>(op, xv, y);
    });
    if (op == ZCOLL_OP_PROD) {
      m = warp_max_d(m);
      if ((threadIdx.x & 31) == 0) s_m[threadIdx.x >> 5] = m;
    }
    __syncthreads();
    if (op == ZCOLL_OP_PROD && threadIdx.x == 0) {
      for (int k = 1; k < kWarps; ++k) m = fmax(m, s_m[k]);
      prod[c] = fmax(m, s_m[0]);
    }
    const uint32_t size = compress_chunk_dev<T>(x, len, qz, scratch + slot_of(h, c));
    if (threadIdx.x == 0) sizes[c] = size;
  }
}

// The bound of a DOC result (one thread): prior + one compression's bound.
__global__ void k_doc_bound(DevState* st, int op, const double* prod) {
  if (st->status) return;
  const double ea = st->in[0].eb, eb = st->in[1].eb;
  double prior = 0;
  if (op == ZCOLL_OP_SUM)
    prior = ea + eb;
  else if (op == ZCOLL_OP_MAX || op == ZCOLL_OP_MIN)
    prior = ea > eb ? ea : eb;
  else
    for (uint64_t c = 0; c < st->out.chunks; ++c) prior = prod[c] > prior ? prod[c] : prior;
  st->out.eb = prior + st->eb_single;
}

// zcoll_hom_set_divisor on an opened stream (one block: the checksum table).
__global__ void k_set_divisor(DevState* st, uint32_t divisor) {
  if (st->status) return;
  DevHeader h = st->in[0];
  // the bound scales with the values: eb of the sum / divisor
  h.eb = h.eb * static_cast<double>(h.divisor) / static_cast<double>(divisor);
  h.divisor = divisor;
  st->out = h;
  st->out_size = h.stream_size;
}

// Copy the result in work back into the accumulator when it fits.
__global__ void k_copy_back(DevState* st, const uint8_t* work, uint8_t* acc, uint64_t acc_cap) {
  if (st->status) return;
  const uint64_t n = st->out_size;
  if (n > acc_cap) {
    if (blockIdx.x == 0 && threadIdx.x == 0)
      set_error(st, ZCOLL_ERR_BUFFER_TOO_SMALL, kAccumulatorTooSmall, n);
    return;
  }
  for (uint64_t k = blockIdx.x * uint64_t{blockDim.x} + threadIdx.x; k < n;
       k += uint64_t{gridDim.x} * blockDim.x)
    acc[k] = work[k];
}

}  // namespace cuda
}  // namespace zcoll
