// dense.cc — the dense chunk coder (dense.h; docs/format.md §5.3).
#include "codec/dense.h"

#include <cstring>
#include <vector>

#include "codec/chunk_codec.h"
#include "codec/dense_predict.h"
#include "codec/format.h"

namespace zcoll {

namespace {

constexpr uint32_t kScale = 1u << kDenseScaleBits;
// States live in [L, 2^31), 16 bits move in or out at a time (at most once per
// symbol), and the encoder's reciprocal division is exact below 2^31.
constexpr uint32_t kRansL = 1u << 15;

inline uint32_t zigzag(uint32_t r) { return (r << 1) ^ (0u - (r >> 31)); }
inline uint32_t unzigzag(uint32_t u) { return (u >> 1) ^ (0u - (u & 1u)); }
inline uint32_t width_of(uint32_t v) {
  return v ? 32u - static_cast<uint32_t>(__builtin_clz(v)) : 0;
}
inline uint32_t load_u16(const uint8_t* p) { return uint32_t{p[0]} | uint32_t{p[1]} << 8; }
inline void store_u16(uint8_t* p, uint32_t v) {
  p[0] = static_cast<uint8_t>(v), p[1] = static_cast<uint8_t>(v >> 8);
}

// Symbol of a zigzagged residual u: u itself below 64; otherwise 64 + 4*(e - 6)
// + m, with e the position of u's top bit and m the two bits below it; the e - 2
// bits under those are the extra bits.
inline uint32_t symbol_of(uint32_t u, uint32_t* nextra) {
  if (u < kDenseDirect) {
    *nextra = 0;
    return u;
  }
  const uint32_t e = width_of(u) - 1;
  *nextra = e - 2;
  return kDenseDirect + 4 * (e - 6) + ((u >> (e - 2)) & 3u);
}

// ---- extra bits: LSB first, bytes in order -----------------------------------------

struct BitWriter {
  uint8_t* p;
  uint64_t buf = 0;
  uint32_t n = 0;
  void put(uint32_t v, uint32_t k) {
    buf |= uint64_t{v} << n;
    n += k;
    if (n >= 32) {
      store_u32(p, static_cast<uint32_t>(buf));
      p += 4, buf >>= 32, n -= 32;
    }
  }
  void flush() {
    for (; n > 0; n = n > 8 ? n - 8 : 0, buf >>= 8) *p++ = static_cast<uint8_t>(buf);
  }
};

struct BitReader {
  const uint8_t* p;
  const uint8_t* end;
  uint64_t buf = 0;
  uint32_t n = 0;
  uint32_t get(uint32_t k) {  // k <= 29; past the end reads zeros
    if (n < k) {
      if (end - p >= 4) {
        buf |= uint64_t{load_u32(p)} << n;
        p += 4, n += 32;
      } else {
        for (; n <= 56; n += 8) buf |= uint64_t{p < end ? *p++ : 0u} << n;
      }
    }
    const uint32_t v = static_cast<uint32_t>(buf & ((uint64_t{1} << k) - 1));
    buf >>= k, n -= k;
    return v;
  }
};

// The zigzagged residual of symbol s (extra bits from br).
inline uint32_t residual_of(uint32_t s, BitReader& br) {
  if (s < kDenseDirect) return s;
  const uint32_t e = (s - kDenseDirect) / 4 + 6, m = (s - kDenseDirect) & 3u;
  return ((4u | m) << (e - 2)) | br.get(e - 2);
}

// ---- frequencies ---------------------------------------------------------------------

// Scale counts (total > 0) to frequencies summing to 4096, every used symbol >= 1.
void normalize(const uint32_t* cnt, uint32_t nsym, uint32_t total, uint16_t* f) {
  uint32_t sum = 0, big = 0;
  for (uint32_t s = 0; s < nsym; ++s) {
    uint32_t v = cnt[s] ? static_cast<uint32_t>(uint64_t{cnt[s]} * kScale / total) : 0;
    if (cnt[s] && v == 0) v = 1;
    f[s] = static_cast<uint16_t>(v);
    sum += v;
    if (cnt[s] > cnt[big]) big = s;
  }
  if (sum < kScale) f[big] = static_cast<uint16_t>(f[big] + (kScale - sum));
  while (sum > kScale) {  // too many symbols rounded up: take from the largest
    uint32_t top = 0;
    for (uint32_t s = 1; s < nsym; ++s)
      if (f[s] > f[top]) top = s;
    const uint32_t room = f[top] - 1u, take = room < sum - kScale ? room : sum - kScale;
    f[top] = static_cast<uint16_t>(f[top] - take);
    sum -= take;
  }
}

struct EncSymbol {  // ryg_rans' reciprocal form of x -> (x / f) * 4096 + x % f + start
  uint32_t freq, rcp, bias, cmpl, shift;
};

void enc_symbols(const uint16_t* f, uint32_t nsym, EncSymbol* es) {
  uint32_t start = 0;
  for (uint32_t s = 0; s < nsym; ++s) {
    const uint32_t fr = f[s];
    EncSymbol& e = es[s];
    e.freq = fr;
    e.cmpl = kScale - fr;
    if (fr < 2) {
      e.rcp = ~0u, e.shift = 0, e.bias = start + kScale - 1;
    } else {
      uint32_t sh = 0;
      while (fr > (1u << sh)) ++sh;
      e.rcp = static_cast<uint32_t>(((uint64_t{1} << (sh + 31)) + fr - 1) / fr);
      e.shift = sh - 1, e.bias = start;
    }
    start += fr;
  }
}

// Renormalize (x >= 2^19 f: its low 16 bits out, without a branch: the word is
// stored always and kept only when the pointer moves), then encode.
inline void enc_put(uint32_t& x, uint8_t*& p, const EncSymbol& e) {
  const bool out = (x >> (31 - kDenseScaleBits)) >= e.freq;
  store_u16(p - 2, x);
  p -= out ? 2 : 0;
  x = out ? x >> 16 : x;
  const uint32_t q = static_cast<uint32_t>((uint64_t{x} * e.rcp) >> 32) >> e.shift;
  x = x + e.bias + q * e.cmpl;
}

// Decode table: slot -> symbol | (freq - 1) << 8 | (slot - start) << 20.
void dec_table(const uint8_t* freqs, uint32_t nsym, uint32_t* tab) {
  uint32_t start = 0;
  for (uint32_t s = 0; s < nsym; ++s) {
    const uint32_t fr = load_u16(freqs + 2 * s);
    for (uint32_t k = 0; k < fr; ++k) tab[start + k] = s | (fr - 1) << 8 | k << 20;
    start += fr;
  }
}

inline uint32_t dec_step(uint32_t& x, const uint32_t* tab) {
  const uint32_t e = tab[x & (kScale - 1)];
  x = ((e >> 8 & (kScale - 1)) + 1) * (x >> kDenseScaleBits) + (e >> 20);
  return e & 0xFFu;
}
// One 16-bit word at most per step (x >= 8 after a step), without a branch; the
// caller guarantees two readable bytes. renorm_safe: past the end reads zeros.
inline void renorm_fast(uint32_t& x, const uint8_t*& p) {
  const bool in = x < kRansL;
  const uint32_t w = load_u16(p);
  x = in ? x << 16 | w : x;
  p += in ? 2 : 0;
}
inline void renorm_safe(uint32_t& x, const uint8_t*& p, const uint8_t* end) {
  if (x >= kRansL) return;
  const bool have = end - p >= 2;
  x = x << 16 | (have ? load_u16(p) : 0u);
  p += have ? 2 : 0;
}

// ---- encoder --------------------------------------------------------------------------

struct Scratch {  // per thread, grown to the chunk size
  std::vector<int32_t> codes;
  std::vector<uint32_t> res;  // residuals (encoder), residuals then codes (n-D decoder)
  std::vector<uint8_t> syms, extra, rans;
};
thread_local Scratch t_scratch;

// Symbol i of the residuals (and its extra bits into bw); counted in one of four
// tables (consecutive equal symbols do not wait on each other's increment).
inline uint32_t put_symbol(uint32_t r, uint32_t i, uint8_t* syms, BitWriter& bw,
                           uint32_t (*cnt)[kDenseMaxSymbols]) {
  const uint32_t u = zigzag(r);
  uint32_t k;
  const uint32_t s = symbol_of(u, &k);
  if (k) bw.put(u & ((1u << k) - 1), k);
  syms[i] = static_cast<uint8_t>(s);
  ++cnt[i & 3][s];
  return s;
}

// Symbols (and their counts) of the residuals r (dense_predict.h) and the
// extra-bit stream; returns the extra bytes (padded to 4).
size_t make_symbols(const uint32_t* r, uint32_t len, uint8_t* syms, uint8_t* extra, uint32_t* cnt,
                    uint32_t* nsym) {
  BitWriter bw{extra};
  uint32_t tables[4][kDenseMaxSymbols] = {};
  uint32_t top = 0;
  for (uint32_t i = 0; i < len; ++i) {
    const uint32_t s = put_symbol(r[i], i, syms, bw, tables);
    top = s > top ? s : top;
  }
  for (uint32_t s = 0; s <= top; ++s)
    cnt[s] = tables[0][s] + tables[1][s] + tables[2][s] + tables[3][s];
  bw.flush();
  size_t bytes = static_cast<size_t>(bw.p - extra);
  while (bytes % 4) extra[bytes++] = 0;
  *nsym = top + 1;
  return bytes;
}

// rANS-code syms[0, len) backwards into the buffer ending at end; returns the
// first byte (the four states, then the stream).
uint8_t* rans_encode(const uint8_t* syms, uint32_t len, const EncSymbol* es, uint8_t* end) {
  uint32_t x0 = kRansL, x1 = kRansL, x2 = kRansL, x3 = kRansL;  // registers, not an array
  uint8_t* p = end;
  uint32_t i = len;
  for (; i % 4; --i) {  // the last len % 4 symbols: states (i - 1) % 4 = 2, 1, 0
    uint32_t& x = (i - 1) % 4 == 2 ? x2 : (i - 1) % 4 == 1 ? x1 : x0;
    enc_put(x, p, es[syms[i - 1]]);
  }
  for (; i; i -= 4) {
    enc_put(x3, p, es[syms[i - 1]]);
    enc_put(x2, p, es[syms[i - 2]]);
    enc_put(x1, p, es[syms[i - 3]]);
    enc_put(x0, p, es[syms[i - 4]]);
  }
  p -= kDenseStateBytes;
  store_u32(p, x0), store_u32(p + 4, x1), store_u32(p + 8, x2), store_u32(p + 12, x3);
  return p;
}

template <typename T>
size_t write_raw(const T* x, uint32_t len, uint8_t* out) {
  const size_t bytes = raw_chunk_bytes(len, sizeof(T));
  std::memset(out, 0, bytes);
  out[0] = kChunkRaw;
  std::memcpy(out + kRawChunkHeaderBytes, x, size_t{len} * sizeof(T));
  return bytes;
}

// ---- decoder --------------------------------------------------------------------------

template <typename T, bool kAcc>
inline void put_value(T* out, uint32_t i, uint32_t q, double factor) {
  const T v = ValueTraits<T>::from_double(static_cast<double>(static_cast<int32_t>(q)) * factor);
  out[i] = kAcc ? add_values(out[i], v) : v;
}

struct DenseView {
  DensePredictor pred;
  uint32_t nsym;
  const uint8_t* freqs;
  const uint8_t* extra;
  const uint8_t* rans;
  const uint8_t* end;
};

DenseView view_of(const uint8_t* in, size_t bytes) {
  DenseView v;
  read_dense_predictor(in, bytes, &v.pred);
  v.nsym = load_u16(in + 2);
  const uint32_t extra_bytes = load_u32(in + 4), rans_bytes = load_u32(in + 8);
  v.freqs = in + kDenseChunkHeaderBytes + dense_predictor_bytes(v.pred.id);
  v.extra = v.freqs + align4(2 * size_t{v.nsym});
  v.rans = v.extra + extra_bytes;
  v.end = v.rans + rans_bytes;
  return v;
}

// Decode values [0, len): codes by the predictor, values by the factor.
template <typename T, bool kAcc, uint8_t kOrder>
void decode_values(const DenseView& v, const uint32_t* tab, uint32_t len, double factor, T* out) {
  BitReader br{v.extra, v.rans};
  uint32_t x[4];
  for (int k = 0; k < 4; ++k) x[k] = load_u32(v.rans + 4 * k);
  const uint8_t* p = v.rans + kDenseStateBytes;
  uint32_t q1 = 0, q0 = 0;  // q[i-1], q[i-2]
  uint32_t i = 0;
  auto one = [&](uint32_t& xs, uint32_t idx) {
    const uint32_t r = unzigzag(residual_of(dec_step(xs, tab), br));
    const uint32_t pred = (kOrder == kDenseOrder2 && idx >= 2) ? 2 * q1 - q0 : q1;
    const uint32_t q = pred + r;
    q0 = idx >= 1 ? q1 : q;
    q1 = q;
    put_value<T, kAcc>(out, idx, q, factor);
  };
  for (; i + 4 <= len && v.end - p >= 8; i += 4) {
    one(x[0], i), renorm_fast(x[0], p);
    one(x[1], i + 1), renorm_fast(x[1], p);
    one(x[2], i + 2), renorm_fast(x[2], p);
    one(x[3], i + 3), renorm_fast(x[3], p);
  }
  for (; i < len; ++i) one(x[i & 3], i), renorm_safe(x[i & 3], p, v.end);
}

// The residuals [0, len) into r (for the n-D predictors: dense_unpredict, a
// separate pass, turns them into codes).
void decode_residuals(const DenseView& v, const uint32_t* tab, uint32_t len, uint32_t* r) {
  BitReader br{v.extra, v.rans};
  // the four states in registers (an array indexed in the loop would live in memory)
  uint32_t x0 = load_u32(v.rans), x1 = load_u32(v.rans + 4), x2 = load_u32(v.rans + 8),
           x3 = load_u32(v.rans + 12);
  const uint8_t* p = v.rans + kDenseStateBytes;
  uint32_t i = 0;
  for (; i + 4 <= len && v.end - p >= 8; i += 4) {
    r[i] = unzigzag(residual_of(dec_step(x0, tab), br)), renorm_fast(x0, p);
    r[i + 1] = unzigzag(residual_of(dec_step(x1, tab), br)), renorm_fast(x1, p);
    r[i + 2] = unzigzag(residual_of(dec_step(x2, tab), br)), renorm_fast(x2, p);
    r[i + 3] = unzigzag(residual_of(dec_step(x3, tab), br)), renorm_fast(x3, p);
  }
  for (; i < len; ++i) {
    uint32_t& x = (i & 3) == 0 ? x0 : (i & 3) == 1 ? x1 : (i & 3) == 2 ? x2 : x3;
    r[i] = unzigzag(residual_of(dec_step(x, tab), br)), renorm_safe(x, p, v.end);
  }
}

template <typename T, bool kAcc>
void decode_values_nd(const DenseView& v, const uint32_t* tab, uint32_t len, double factor,
                      T* out) {
  std::vector<uint32_t>& q = t_scratch.res;
  if (q.size() < len) q.resize(len);
  decode_residuals(v, tab, len, q.data());
  dense_unpredict(q.data(), len, v.pred);
  for (uint32_t i = 0; i < len; ++i) put_value<T, kAcc>(out, i, q[i], factor);
}

}  // namespace

template <typename T>
size_t compress_dense_chunk(const T* x, uint32_t len, const Quantizer<T>& qz, uint8_t* out,
                            const DenseShape& shape) {
  Scratch& s = t_scratch;
  if (s.codes.size() < len) {
    s.codes.resize(len), s.res.resize(len), s.syms.resize(len);
    s.extra.resize(4 * size_t{len} + 16), s.rans.resize(2 * size_t{len} + 64);
  }
  const size_t raw = raw_chunk_bytes(len, sizeof(T));
  if (!quantize_values(active_kernels(), x, len, qz, s.codes.data())) return write_raw(x, len, out);
  const DensePredictor pred = choose_dense_predictor(s.codes.data(), len, shape);
  dense_residuals(s.codes.data(), len, pred, s.res.data());
  uint32_t cnt[kDenseMaxSymbols] = {}, nsym = 0;
  const size_t extra_bytes =
      make_symbols(s.res.data(), len, s.syms.data(), s.extra.data(), cnt, &nsym);
  const size_t head = kDenseChunkHeaderBytes + dense_predictor_bytes(pred.id);
  const size_t table = align4(2 * size_t{nsym});
  if (head + table + extra_bytes + kDenseStateBytes >= raw) return write_raw(x, len, out);
  uint16_t f[kDenseMaxSymbols];
  EncSymbol es[kDenseMaxSymbols];
  normalize(cnt, nsym, len, f);
  enc_symbols(f, nsym, es);
  uint8_t* rend = s.rans.data() + s.rans.size();
  const uint8_t* rbeg = rans_encode(s.syms.data(), len, es, rend);
  const size_t rans_bytes = static_cast<size_t>(rend - rbeg);
  const size_t pos = head + table + extra_bytes + rans_bytes;
  if (align8(pos) >= raw) return write_raw(x, len, out);
  out[0] = kChunkDense;
  write_dense_predictor(pred, out);
  out[2] = static_cast<uint8_t>(nsym), out[3] = static_cast<uint8_t>(nsym >> 8);
  store_u32(out + 4, static_cast<uint32_t>(extra_bytes));
  store_u32(out + 8, static_cast<uint32_t>(rans_bytes));
  uint8_t* w = out + head;
  for (uint32_t k = 0; k < nsym; ++k)
    w[2 * k] = static_cast<uint8_t>(f[k]), w[2 * k + 1] = f[k] >> 8;
  std::memset(w + 2 * nsym, 0, table - 2 * nsym);
  std::memcpy(w + table, s.extra.data(), extra_bytes);
  std::memcpy(w + table + extra_bytes, rbeg, rans_bytes);
  std::memset(out + pos, 0, align8(pos) - pos);
  return align8(pos);
}

bool validate_dense_chunk(const uint8_t* in, size_t bytes) {
  if (bytes < kDenseChunkHeaderBytes || in[0] != kChunkDense) return false;
  DensePredictor pred;
  if (!read_dense_predictor(in, bytes, &pred)) return false;
  const uint64_t head = kDenseChunkHeaderBytes + dense_predictor_bytes(pred.id);
  const uint32_t nsym = load_u16(in + 2);
  if (nsym < 1 || nsym > kDenseMaxSymbols) return false;
  const uint64_t extra_bytes = load_u32(in + 4), rans_bytes = load_u32(in + 8);
  const uint64_t table = align4(2 * size_t{nsym});
  const uint64_t pos = head + table + extra_bytes + rans_bytes;
  if (rans_bytes < kDenseStateBytes || align8(pos) != bytes) return false;
  uint32_t sum = 0;
  for (uint32_t s = 0; s < nsym; ++s) sum += load_u16(in + head + 2 * s);
  if (sum != kScale) return false;
  const uint8_t* states = in + head + table + extra_bytes;
  for (int k = 0; k < 4; ++k) {
    const uint32_t x = load_u32(states + 4 * k);
    if (x < kRansL || x >= (1u << 31)) return false;
  }
  return true;
}

template <typename T>
void decompress_dense_chunk(const uint8_t* in, size_t bytes, uint32_t len, double factor, T* out,
                            bool accumulate) {
  const DenseView v = view_of(in, bytes);
  uint32_t tab[kScale];
  dec_table(v.freqs, v.nsym, tab);
  if (v.pred.id >= kDenseLorenzo2D) {
    accumulate ? decode_values_nd<T, true>(v, tab, len, factor, out)
               : decode_values_nd<T, false>(v, tab, len, factor, out);
    return;
  }
  const bool o2 = v.pred.id == kDenseOrder2;
  if (accumulate)
    o2 ? decode_values<T, true, kDenseOrder2>(v, tab, len, factor, out)
       : decode_values<T, true, kDenseOrder1>(v, tab, len, factor, out);
  else
    o2 ? decode_values<T, false, kDenseOrder2>(v, tab, len, factor, out)
       : decode_values<T, false, kDenseOrder1>(v, tab, len, factor, out);
}

template size_t compress_dense_chunk<float>(const float*, uint32_t, const Quantizer<float>&,
                                            uint8_t*, const DenseShape&);
template void decompress_dense_chunk<float>(const uint8_t*, size_t, uint32_t, double, float*, bool);
template size_t compress_dense_chunk<double>(const double*, uint32_t, const Quantizer<double>&,
                                             uint8_t*, const DenseShape&);
template void decompress_dense_chunk<double>(const uint8_t*, size_t, uint32_t, double, double*,
                                             bool);
template size_t compress_dense_chunk<Bf16>(const Bf16*, uint32_t, const Quantizer<Bf16>&, uint8_t*,
                                           const DenseShape&);
template void decompress_dense_chunk<Bf16>(const uint8_t*, size_t, uint32_t, double, Bf16*, bool);
template size_t compress_dense_chunk<Fp16>(const Fp16*, uint32_t, const Quantizer<Fp16>&, uint8_t*,
                                           const DenseShape&);
template void decompress_dense_chunk<Fp16>(const uint8_t*, size_t, uint32_t, double, Fp16*, bool);

}  // namespace zcoll
