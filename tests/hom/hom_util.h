// hom_util.h — helpers of the homomorphic-operation tests (tests/hom): data,
// wrappers over the C API, an exact model of what zcoll_hom_add/sub must produce
// (read through the internal format headers), and the error-bound check against
// the exact sum of the ORIGINAL values.
//
// ---- The tolerance, derived -------------------------------------------------
// Notation: Δ = quantum, d = divisor, u = unit roundoff of T (2^-24 for float32,
// 2^-53 for float64: half an ulp, relative), x_j the original inputs, x'_j their
// decompressed values, q_j their codes, y the decompressed result.
//
// 1. One compressed input. The compressor accepts code q for x only if the
//    reconstruction x' = fl_T(q·Δ), checked in T, satisfies |x - x'| <= eb
//    (checked with a float comparison that is exact, see chunk_scalar.h). The
//    exact step value q·Δ differs from x' by at most half an ulp of x':
//        |x - q·Δ| <= eb + u·|x'|           (the u term matters only for |q|
//    larger than ~2^17 in float32: below it, q·Δ itself is within eb).
// 2. A homomorphic sum S = Σ q_j (exact integer arithmetic) decodes to
//    y = fl_T(fl_64(S · fl_64(Δ/d))): |y - S·Δ/d| <= (u + 2^-52)·|S·Δ/d|,
//    i.e. at most (u + 2^-51)·|y| (the double roundings are 2^-53 each).
// 3. A chunk that goes through floats (raw input chunk, or codes that could
//    overflow int32) is stored as fl_T(acc' + x'_j) each step: every partial
//    sum P_j is rounded once more, u·|P_j|.
// So for k inputs summed (in any mix of the two paths) and divided by d:
//    |y - (Σ x_j)/d| <= eb_reported
//                       + [u·(Σ_j |x_j| + Σ_{j>=2} |P_j|)]/d + (u + 2^-51)·|y|
// where eb_reported = (Σ eb_j)/d is the error_bound field of the result. The
// first-order terms use |x_j| (originals) and |P_j| (exact partial sums) where the
// rounding acts on |x'_j| <= |x_j| + eb and |P'_j| <= |P_j| + j·eb: the neglected
// terms u·Σ_j (1 + j)·eb <= (k + 3)/2·u·(k·eb) (and u^2 ones) are covered by
// multiplying the whole tolerance by (1 + (k + 4)·u), i.e. 1 + 2^-22 for a float32
// pair, 1 + 8e-16 for a float64 one; k smallest subnormals are added for the
// absolute rounding of subnormal results. The check itself is exact to ~2^-100: the
// reference Σ x_j is kept as a double-double (TwoSum) and y·d - Σ is formed
// with TwoProd/TwoSum (see check_against_exact). Nothing looser is allowed:
// for float64 data the tolerance is eb_reported plus a few 1e-16 relative.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <limits>
#include <ostream>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

#include "codec/block_codec.h"
#include "codec/format.h"
#include "zcoll.h"

#ifndef ZCOLL_HOM_SOURCE_DIR
#define ZCOLL_HOM_SOURCE_DIR "."
#endif

namespace ht {

// ---- types -------------------------------------------------------------------
template <typename T>
constexpr zcoll_dtype dtype_of() {
  return std::is_same<T, float>::value ? ZCOLL_FLOAT32 : ZCOLL_FLOAT64;
}
template <typename T>
constexpr double unit_roundoff() {
  return std::is_same<T, float>::value ? 0x1p-24 : 0x1p-53;
}
template <typename T>
struct Bits;
template <>
struct Bits<float> {
  using U = uint32_t;
};
template <>
struct Bits<double> {
  using U = uint64_t;
};
template <typename T>
typename Bits<T>::U bits_of(T v) {
  typename Bits<T>::U u;
  std::memcpy(&u, &v, sizeof v);
  return u;
}
// Same value bit for bit (with any_nan_ok, any two NaNs count as the same).
template <typename T>
bool same_bits(T a, T b, bool any_nan_ok = true) {
  if (any_nan_ok && std::isnan(a) && std::isnan(b)) return true;
  return bits_of(a) == bits_of(b);
}

constexpr int64_t kCodeLimit = (int64_t{1} << 31) - 1;  // largest |code| a stream may hold

// Test configuration: value type and thread count.
struct Config {
  zcoll_dtype dtype;
  int threads;
};
inline std::string config_name(const testing::TestParamInfo<Config>& info) {
  return std::string(info.param.dtype == ZCOLL_FLOAT32 ? "f32" : "f64") + "_t" +
         std::to_string(info.param.threads);
}
inline void PrintTo(const Config& c, std::ostream* os) {
  *os << (c.dtype == ZCOLL_FLOAT32 ? "float32" : "float64") << ", " << c.threads << " thread(s)";
}
inline std::vector<Config> all_configs() {
  return {{ZCOLL_FLOAT32, 1}, {ZCOLL_FLOAT32, 2}, {ZCOLL_FLOAT64, 1}, {ZCOLL_FLOAT64, 2}};
}
// Call body_template<T>(threads) with the configuration's value type T.
// (body_template names a template: it cannot be parenthesized.)
// NOLINTBEGIN(bugprone-macro-parentheses)
#define HT_DISPATCH(cfg, body_template)                               \
  ((cfg).dtype == ZCOLL_FLOAT32 ? body_template<float>((cfg).threads) \
                                : body_template<double>((cfg).threads))
// NOLINTEND(bugprone-macro-parentheses)

// ---- deterministic random numbers -------------------------------------------
class Rng {
 public:
  explicit Rng(uint64_t seed) : e_(seed) {}
  uint64_t next() { return e_(); }
  double uniform() { return static_cast<double>(next() >> 11) * 0x1p-53; }
  double uniform(double a, double b) { return a + (b - a) * uniform(); }
  uint64_t below(uint64_t n) { return n ? next() % n : 0; }
  bool coin(double p = 0.5) { return uniform() < p; }

 private:
  std::mt19937_64 e_;
};

// ---- synthetic data -----------------------------------------------------------
enum class Kind { kSmooth, kNoisy, kMixedScales, kWalk, kSparse, kConstant };
inline const char* kind_name(Kind k) {
  switch (k) {
    case Kind::kSmooth: return "smooth";
    case Kind::kNoisy: return "noisy";
    case Kind::kMixedScales: return "mixed_scales";
    case Kind::kWalk: return "walk";
    case Kind::kSparse: return "sparse";
    case Kind::kConstant: return "constant";
  }
  return "?";
}

template <typename T>
std::vector<T> make_data(Kind kind, size_t n, uint64_t seed, double amp = 1.0) {
  Rng r(seed);
  std::vector<T> x(n);
  switch (kind) {
    case Kind::kSmooth: {
      double f1 = r.uniform(1e-4, 2e-2), f2 = r.uniform(1e-3, 5e-2), p1 = r.uniform(0, 6.3),
             p2 = r.uniform(0, 6.3), off = r.uniform(-2, 2);
      for (size_t i = 0; i < n; ++i)
        x[i] = static_cast<T>(amp * (off + std::sin(f1 * i + p1) + 0.25 * std::cos(f2 * i + p2) +
                                     1e-4 * r.uniform(-1, 1)));
      break;
    }
    case Kind::kNoisy:
      for (auto& v : x) v = static_cast<T>(amp * r.uniform(-1, 1));
      break;
    case Kind::kMixedScales: {
      // magnitude changes by decades from block to block, both signs, with a
      // smooth shape inside each block: some chunks escape (raw), most do not
      double scale = 1;
      for (size_t i = 0; i < n; ++i) {
        if (i % 32 == 0) scale = std::pow(10.0, r.uniform(-3, 4)) * (r.coin() ? 1 : -1);
        x[i] = static_cast<T>(amp * scale * (1.0 + 0.1 * std::sin(0.05 * i)));
      }
      break;
    }
    case Kind::kWalk: {
      double acc = 0;
      for (auto& v : x) {
        acc += 0.01 * amp * r.uniform(-1, 1);
        v = static_cast<T>(acc);
      }
      break;
    }
    case Kind::kSparse: {  // piecewise constant: long constant runs, rare steps
      double level = amp * r.uniform(-1, 1);
      for (auto& v : x) {
        if (r.coin(0.004)) level = amp * r.uniform(-1, 1);
        v = static_cast<T>(level);
      }
      break;
    }
    case Kind::kConstant: {
      T c = static_cast<T>(amp * r.uniform(-1, 1));
      for (auto& v : x) v = c;
      break;
    }
  }
  return x;
}

template <typename T>
double value_range(const std::vector<T>& x) {
  double lo = INFINITY, hi = -INFINITY;
  for (T v : x)
    if (std::isfinite(v)) lo = std::fmin(lo, v), hi = std::fmax(hi, v);
  return hi > lo ? hi - lo : 1.0;
}

// ---- real data ----------------------------------------------------------------
// The directory holding name: $ZCOLL_DATA_DIR, the shared data set next to the
// checkout (../shared/data), then the repository's data/. "" if none has it.
inline std::string find_data(const std::string& name) {
  std::vector<std::string> dirs;
  if (const char* e = std::getenv("ZCOLL_DATA_DIR")) dirs.push_back(e);
  dirs.push_back(std::string(ZCOLL_HOM_SOURCE_DIR) + "/../shared/data");
  dirs.push_back(std::string(ZCOLL_HOM_SOURCE_DIR) + "/data");
  for (const std::string& d : dirs) {
    std::string p = d + "/" + name;
    std::ifstream f(p, std::ios::binary);
    if (f.good()) return p;
  }
  return "";
}
// Values [first, first+count) of a raw little-endian float32 file (empty if absent).
inline std::vector<float> load_f32(const std::string& name, size_t first = 0,
                                   size_t count = SIZE_MAX) {
  std::string p = find_data(name);
  if (p.empty()) return {};
  std::ifstream f(p, std::ios::binary | std::ios::ate);
  const size_t total = static_cast<size_t>(f.tellg()) / 4;
  if (first >= total) return {};
  if (count > total - first) count = total - first;
  std::vector<float> v(count);
  f.seekg(static_cast<std::streamoff>(first * 4));
  f.read(reinterpret_cast<char*>(v.data()), static_cast<std::streamsize>(count * 4));
  return v;
}
template <typename T>
std::vector<T> convert(const std::vector<float>& v) {
  return std::vector<T>(v.begin(), v.end());
}

// ---- C API wrappers -------------------------------------------------------------
using Bytes = std::vector<uint8_t>;

template <typename T>
Bytes compress(const std::vector<T>& x, double abs_eb, uint32_t chunk_size = 1024,
               int threads = 1) {
  zcoll_params p;
  zcoll_params_init(&p);
  p.eb_mode = ZCOLL_EB_ABS;
  p.error_bound = abs_eb;
  p.chunk_size = chunk_size;
  Bytes out(zcoll_compress_bound(x.size(), dtype_of<T>()));
  size_t size = 0;
  zcoll_status s =
      zcoll_compress(&p, dtype_of<T>(), x.data(), x.size(), out.data(), out.size(), &size, threads);
  EXPECT_EQ(s, ZCOLL_SUCCESS) << zcoll_last_error();
  if (s != ZCOLL_SUCCESS) return {};
  out.resize(size);
  return out;
}

inline zcoll_info inspect(const Bytes& z) {
  zcoll_info info = ZCOLL_INFO_INITIALIZER;
  zcoll_status s = zcoll_inspect(z.data(), z.size(), &info);
  EXPECT_EQ(s, ZCOLL_SUCCESS) << zcoll_last_error();
  return info;
}

template <typename T>
std::vector<T> decompress(const Bytes& z, int threads = 1) {
  zcoll_info info = inspect(z);
  std::vector<T> y(info.n);
  zcoll_status s = zcoll_decompress(z.data(), z.size(), y.data(), y.size(), threads);
  EXPECT_EQ(s, ZCOLL_SUCCESS) << zcoll_last_error();
  return y;
}

inline size_t bound_of(const Bytes& z) {
  zcoll_info info = inspect(z);
  return zcoll_compress_bound(info.n, info.dtype);
}

enum class Op { kAdd, kSub };

// a + b or a - b; stats (if given) receives the counts of this call only.
inline Bytes hom(Op op, const Bytes& a, const Bytes& b, int threads,
                 zcoll_hom_stats* stats = nullptr) {
  Bytes out(bound_of(a));
  size_t size = 0;
  if (stats) *stats = ZCOLL_HOM_STATS_INITIALIZER;
  zcoll_status s = op == Op::kAdd ? zcoll_hom_add(a.data(), a.size(), b.data(), b.size(),
                                                  out.data(), out.size(), &size, stats, threads)
                                  : zcoll_hom_sub(a.data(), a.size(), b.data(), b.size(),
                                                  out.data(), out.size(), &size, stats, threads);
  EXPECT_EQ(s, ZCOLL_SUCCESS) << zcoll_last_error();
  if (s != ZCOLL_SUCCESS) return {};
  out.resize(size);
  return out;
}
inline Bytes hom_add(const Bytes& a, const Bytes& b, int threads, zcoll_hom_stats* st = nullptr) {
  return hom(Op::kAdd, a, b, threads, st);
}
inline Bytes hom_sub(const Bytes& a, const Bytes& b, int threads, zcoll_hom_stats* st = nullptr) {
  return hom(Op::kSub, a, b, threads, st);
}
inline Bytes negate(const Bytes& a, int threads) {
  Bytes out(bound_of(a));
  size_t size = 0;
  zcoll_status s = zcoll_hom_negate(a.data(), a.size(), out.data(), out.size(), &size, threads);
  EXPECT_EQ(s, ZCOLL_SUCCESS) << zcoll_last_error();
  if (s != ZCOLL_SUCCESS) return {};
  out.resize(size);
  return out;
}
// acc += b in place (acc keeps a capacity of zcoll_compress_bound).
inline void accumulate(Bytes& acc, const Bytes& b, int threads, zcoll_hom_stats* stats = nullptr) {
  const size_t size = acc.size();
  acc.resize(bound_of(acc));
  size_t new_size = 0;
  if (stats) *stats = ZCOLL_HOM_STATS_INITIALIZER;
  zcoll_status s = zcoll_hom_accumulate(acc.data(), size, acc.size(), &new_size, b.data(), b.size(),
                                        stats, threads);
  EXPECT_EQ(s, ZCOLL_SUCCESS) << zcoll_last_error();
  acc.resize(s == ZCOLL_SUCCESS ? new_size : size);
}
inline Bytes doc(const Bytes& a, const Bytes& b, zcoll_op op, int threads) {
  Bytes out(bound_of(a));
  size_t size = 0;
  zcoll_status s = zcoll_doc_combine(a.data(), a.size(), b.data(), b.size(), op, out.data(),
                                     out.size(), &size, threads);
  EXPECT_EQ(s, ZCOLL_SUCCESS) << zcoll_last_error();
  if (s != ZCOLL_SUCCESS) return {};
  out.resize(size);
  return out;
}

// ---- reading a stream through the format (internal headers) ----------------------
struct ChunkDump {
  bool raw = false;
  uint32_t len = 0;
  int32_t anchor = 0;
  uint32_t qmax = 0;
  std::vector<uint8_t> lens;                 // code length of each block
  std::vector<std::vector<uint32_t>> words;  // payload words of each block
  std::vector<int64_t> deltas;               // exact deltas (33-bit planes), 32 per block
  std::vector<int64_t> codes;                // anchor + prefix sums, exact (int64), 32 per block
};
struct StreamDump {
  zcoll::Header h;
  std::vector<ChunkDump> chunks;
  bool ok = false;
};

inline StreamDump dump(const Bytes& z) {
  StreamDump d;
  zcoll::StreamView v;
  zcoll_status s = zcoll::parse_stream(z.data(), z.size(), &v);
  EXPECT_EQ(s, ZCOLL_SUCCESS) << zcoll_last_error();
  if (s != ZCOLL_SUCCESS) return d;
  d.h = v.h;
  d.chunks.resize(v.chunks);
  for (uint64_t c = 0; c < v.chunks; ++c) {
    ChunkDump& k = d.chunks[c];
    const uint8_t* p = v.chunk(c);
    k.len = v.h.chunk_len(c);
    k.raw = p[0] == zcoll::kChunkRaw;
    if (k.raw) continue;
    EXPECT_EQ(p[0], zcoll::kChunkQuantized) << "chunk " << c;
    k.anchor = static_cast<int32_t>(zcoll::load_u32(p + 4));
    k.qmax = zcoll::load_u32(p + 8);
    const uint32_t nb = (k.len + 31) / 32;
    size_t pos = zcoll::kQuantChunkHeaderBytes + ((nb + 3) & ~3u);
    int64_t code = k.anchor;
    for (uint32_t b = 0; b < nb; ++b) {
      const uint32_t W = p[zcoll::kQuantChunkHeaderBytes + b];
      k.lens.push_back(static_cast<uint8_t>(W));
      std::vector<uint32_t> w(W);
      for (uint32_t j = 0; j < W; ++j) w[j] = zcoll::load_u32(p + pos + 4 * j);
      pos += 4 * W;
      for (int i = 0; i < 32; ++i) {
        uint64_t u = 0;
        for (uint32_t j = 0; j < W; ++j) u |= uint64_t{(w[j] >> i) & 1u} << j;
        int64_t dd = 0;
        if (W) {  // sign-extend from bit W-1
          const uint64_t sign = uint64_t{1} << (W - 1);
          dd = static_cast<int64_t>((u ^ sign) - sign);
        }
        k.deltas.push_back(dd);
        code += dd;
        k.codes.push_back(code);
      }
      k.words.push_back(std::move(w));
    }
  }
  d.ok = true;
  return d;
}

// Smallest two's-complement width that holds every delta (0 if all are zero).
inline uint32_t min_width(const int64_t* d, int count) {
  uint64_t any = 0, folded = 0;
  for (int i = 0; i < count; ++i) {
    any |= static_cast<uint64_t>(d[i]);
    folded |= static_cast<uint64_t>(d[i] ^ (d[i] >> 63));
  }
  if (!any) return 0;
  uint32_t w = 0;
  while (folded >> w) ++w;
  return w + 1;
}

// Format invariants of every quantized chunk: code lengths <= 33 and minimal,
// |code| <= qmax <= 2^31-1 (qmax bounds every code, the anchor included), the
// block tail beyond the chunk length repeats the last code (deltas 0).
inline void check_invariants(const StreamDump& d, const std::string& what) {
  for (size_t c = 0; c < d.chunks.size(); ++c) {
    const ChunkDump& k = d.chunks[c];
    if (k.raw) continue;
    EXPECT_LE(int64_t{k.qmax}, kCodeLimit) << what << ": chunk " << c;
    int bad = 0;
    for (size_t b = 0; b < k.lens.size(); ++b) {
      EXPECT_LE(k.lens[b], 33u) << what << ": chunk " << c << " block " << b;
      const uint32_t mw = min_width(k.deltas.data() + 32 * b, 32);
      if (k.lens[b] != mw && ++bad <= 3)
        ADD_FAILURE() << what << ": chunk " << c << " block " << b << ": code length "
                      << int(k.lens[b]) << ", minimal is " << mw;
    }
    for (size_t i = 0; i < k.codes.size(); ++i) {
      const int64_t q = k.codes[i];
      if ((q > int64_t{k.qmax} || q < -int64_t{k.qmax}) && ++bad <= 3)
        ADD_FAILURE() << what << ": chunk " << c << " value " << i << ": code " << q
                      << " exceeds qmax " << k.qmax;
      if (i >= k.len && k.deltas[i] != 0 && ++bad <= 3)
        ADD_FAILURE() << what << ": chunk " << c << ": tail delta " << i << " is " << k.deltas[i];
    }
  }
}

// ---- the exact model of a homomorphic add/sub -----------------------------------------
// Predicts, chunk by chunk, what zcoll_hom_add/sub must produce from its inputs:
//  - raw input chunk -> raw output, fl_T(a' op b') bit for bit (raw_chunks + 1);
//  - qmax_a + qmax_b > 2^31-1 -> raw output the same way (widened_chunks + 1);
//  - otherwise a quantized chunk with anchor a ± b, qmax qmax_a + qmax_b, codes
//    a ± b exactly, blocks by pipeline (0: both constant, length 0; 1: a
//    constant: b's planes copied for add (negated through the adder for sub);
//    2: b constant: a's planes copied; 3: both non-constant), unless the
//    implementation's size rule sends the chunk through floats (it may do so only
//    when some block's worst case max(wa,wb)+1 planes, or the final size, would
//    not be smaller than the raw chunk) -> raw_chunks + 1.
// Checks every output value bit for bit and the stats counters exactly.
// The result's header: the inputs', with bounds and terms added.
inline void check_hom_header(const zcoll_info& ia, const zcoll_info& ib, const zcoll_info& io,
                             size_t out_size, const std::string& what) {
  EXPECT_EQ(io.dtype, ia.dtype) << what;
  EXPECT_EQ(io.n, ia.n) << what;
  EXPECT_EQ(io.chunk_size, ia.chunk_size) << what;
  EXPECT_EQ(io.divisor, ia.divisor) << what;
  EXPECT_EQ(bits_of(io.quantum), bits_of(ia.quantum)) << what;
  EXPECT_EQ(io.error_bound, ia.error_bound + ib.error_bound) << what;
  const uint64_t terms = uint64_t{ia.terms} + ib.terms;
  EXPECT_EQ(io.terms, terms > 0xFFFFFFFFu ? 0xFFFFFFFFu : terms) << what;
  EXPECT_EQ(io.stream_size, out_size) << what;
}

// The size rule: whether the implementation may send a quantized chunk pair
// through floats (some block's worst case max(wa,wb)+1 planes, or the final
// size, not smaller than the raw chunk of `value_size` values). local[p]
// counts the blocks of each pipeline p up to there.
inline bool may_fall_back(const ChunkDump& ka, const ChunkDump& kb, const ChunkDump& ko, bool sub,
                          size_t value_size, uint64_t local[4]) {
  const size_t raw_bytes = zcoll::raw_chunk_bytes(ko.len, value_size);
  const uint32_t nb = (ko.len + 31) / 32;
  size_t pos = zcoll::kQuantChunkHeaderBytes + ((nb + 3) & ~size_t{3});
  if (pos >= raw_bytes) return true;
  for (uint32_t blk = 0; blk < nb; ++blk) {
    const uint32_t wa = ka.lens[blk], wb = kb.lens[blk];
    if (pos + 4 * ((wa > wb ? wa : wb) + 1) >= raw_bytes) return true;
    int64_t dsum[32];
    for (int i = 0; i < 32; ++i)
      dsum[i] = sub ? ka.deltas[32 * blk + i] - kb.deltas[32 * blk + i]
                    : ka.deltas[32 * blk + i] + kb.deltas[32 * blk + i];
    pos += 4 * min_width(dsum, 32);
    int pipe = wa == 0 && wb == 0 ? 0 : wa == 0 ? 1 : wb == 0 ? 2 : 3;
    ++local[pipe];
  }
  return ((pos + 7) & ~size_t{7}) >= raw_bytes;
}

// A quantized result chunk: anchor a ± b, qmax qmax_a + qmax_b, codes a ± b
// exactly, and the blocks the pipelines copy.
inline void check_quantized_chunk(const ChunkDump& ka, const ChunkDump& kb, const ChunkDump& ko,
                                  bool sub, const std::string& wc) {
  EXPECT_EQ(int64_t{ko.anchor},
            sub ? int64_t{ka.anchor} - kb.anchor : int64_t{ka.anchor} + kb.anchor)
      << wc;
  EXPECT_EQ(uint64_t{ko.qmax}, uint64_t{ka.qmax} + kb.qmax) << wc;
  int bad = 0;
  for (size_t i = 0; i < ko.codes.size(); ++i) {
    const int64_t want = sub ? ka.codes[i] - kb.codes[i] : ka.codes[i] + kb.codes[i];
    if (ko.codes[i] != want && ++bad <= 3)
      ADD_FAILURE() << wc << ": code " << i << " is " << ko.codes[i] << ", expected " << want
                    << " (" << ka.codes[i] << (sub ? " - " : " + ") << kb.codes[i] << ")";
  }
  const uint32_t nb = (ko.len + 31) / 32;
  for (uint32_t blk = 0; blk < nb; ++blk) {
    const uint32_t wa = ka.lens[blk], wb = kb.lens[blk];
    if (wa == 0 && wb == 0) {
      EXPECT_EQ(ko.lens[blk], 0u) << wc << " block " << blk << " (pipeline 0)";
    } else if (wa == 0 && !sub) {
      EXPECT_EQ(ko.words[blk], kb.words[blk]) << wc << " block " << blk << " (pipeline 1 copies b)";
    } else if (wb == 0) {
      EXPECT_EQ(ko.words[blk], ka.words[blk]) << wc << " block " << blk << " (pipeline 2 copies a)";
    }
  }
}

// The values of result chunk c, bit for bit: a' op b' in T (float path) or
// code * factor (quantum / divisor).
template <typename T>
void check_chunk_values(size_t c, size_t cs, const ChunkDump& ko, bool float_path, bool sub,
                        double factor, const std::vector<T>& xa, const std::vector<T>& xb,
                        const std::vector<T>& y, const std::string& wc) {
  int bad = 0;
  for (uint32_t i = 0; i < ko.len; ++i) {
    const size_t g = c * cs + i;
    T want;
    if (float_path)
      want = sub ? static_cast<T>(xa[g] - xb[g]) : static_cast<T>(xa[g] + xb[g]);
    else
      want = static_cast<T>(static_cast<double>(static_cast<int32_t>(ko.codes[i])) * factor);
    if (!same_bits(y[g], want) && ++bad <= 3)
      ADD_FAILURE() << wc << ": value " << g << " is " << testing::PrintToString(y[g])
                    << ", expected " << testing::PrintToString(want) << " ("
                    << (float_path ? "float path a' op b'" : "code * quantum / divisor")
                    << "; a' = " << testing::PrintToString(xa[g])
                    << ", b' = " << testing::PrintToString(xb[g]) << ")";
  }
}

// What the model expects the stats to count.
struct HomCounts {
  uint64_t pipe[4] = {0, 0, 0, 0};
  uint64_t raw = 0, wide = 0;
};

// Result chunk c of a op b: which path it must have taken (true: through
// floats), its checks, and the counters it adds to *n.
inline bool check_chunk_path(const ChunkDump& ka, const ChunkDump& kb, const ChunkDump& ko,
                             bool sub, size_t value_size, const std::string& wc, HomCounts* n) {
  if (ka.raw || kb.raw) {
    EXPECT_TRUE(ko.raw) << wc << ": a raw input chunk must give a raw chunk";
    ++n->raw;
    return true;
  }
  if (uint64_t{ka.qmax} + kb.qmax > static_cast<uint64_t>(kCodeLimit)) {
    EXPECT_TRUE(ko.raw) << wc << ": qmax " << ka.qmax << " + " << kb.qmax
                        << " may overflow int32: must go through floats";
    ++n->wide;
    return true;
  }
  uint64_t local[4] = {0, 0, 0, 0};
  const bool fall_back = may_fall_back(ka, kb, ko, sub, value_size, local);
  if (ko.raw) {
    EXPECT_TRUE(fall_back) << wc << ": went through floats although the quantized sum "
                           << "is smaller than a raw chunk";
    ++n->raw;
    return true;
  }
  for (int i = 0; i < 4; ++i) n->pipe[i] += local[i];
  check_quantized_chunk(ka, kb, ko, sub, wc);
  return false;
}

template <typename T>
void check_hom_model(const Bytes& a, const Bytes& b, const Bytes& out, Op op,
                     const zcoll_hom_stats* stats, const std::string& what) {
  const bool sub = op == Op::kSub;
  StreamDump da = dump(a), db = dump(b), dout = dump(out);
  ASSERT_TRUE(da.ok && db.ok && dout.ok) << what;
  check_invariants(dout, what + " (result)");
  std::vector<T> xa = decompress<T>(a), xb = decompress<T>(b), y = decompress<T>(out);
  ASSERT_EQ(xa.size(), y.size()) << what;
  zcoll_info ia = inspect(a), ib = inspect(b), io = inspect(out);
  check_hom_header(ia, ib, io, out.size(), what);
  const double factor = ia.quantum / static_cast<double>(ia.divisor);
  HomCounts expected;
  uint64_t out_raw = 0;
  const size_t cs = ia.chunk_size;
  for (size_t c = 0; c < dout.chunks.size(); ++c) {
    const ChunkDump &ka = da.chunks[c], &kb = db.chunks[c], &ko = dout.chunks[c];
    out_raw += ko.raw;
    const std::string wc = what + ": chunk " + std::to_string(c);
    const bool float_path = check_chunk_path(ka, kb, ko, sub, sizeof(T), wc, &expected);
    check_chunk_values<T>(c, cs, ko, float_path, sub, factor, xa, xb, y, wc);
  }
  EXPECT_EQ(io.raw_chunks, out_raw) << what;
  if (stats) {
    for (int i = 0; i < 4; ++i)
      EXPECT_EQ(stats->pipeline[i], expected.pipe[i]) << what << ": pipeline[" << i << "]";
    EXPECT_EQ(stats->raw_chunks, expected.raw) << what << ": raw_chunks";
    EXPECT_EQ(stats->widened_chunks, expected.wide) << what << ": widened_chunks";
  }
}

// ---- exact reference sums ------------------------------------------------------------
inline void two_sum(double a, double b, double* s, double* e) {
  *s = a + b;
  const double bv = *s - a, av = *s - bv;
  *e = (a - av) + (b - bv);
}
// A double-double running sum of signed terms, the partial-sum magnitudes and the
// term magnitudes (the rounding allowance of the tolerance above).
struct ExactSum {
  double hi = 0, lo = 0;    // Σ s_j x_j, to ~2^-100
  double abs_terms = 0;     // Σ |x_j|
  double abs_partials = 0;  // Σ_{j>=2} |P_j|
  int terms = 0;
  bool nonfinite = false;
  double ieee = 0;  // plain double sum (IEEE semantics for NaN/Inf)
  void add(double x, int sign = 1) {
    ieee += sign * x;
    ++terms;
    if (!std::isfinite(x)) {
      nonfinite = true;
      return;
    }
    double s, e;
    two_sum(hi, sign * x, &s, &e);
    hi = s;
    lo += e;
    abs_terms += std::fabs(x);
    if (terms >= 2) abs_partials += std::fabs(hi + lo);
  }
};

// |y*d - Σ| formed exactly up to ~2^-100 relative (TwoProd with fma, TwoSum).
inline double scaled_error(double y, double d, const ExactSum& r) {
  const double p = y * d, pe = std::fma(y, d, -p);
  double s, e;
  two_sum(p, -r.hi, &s, &e);
  return s + ((e + pe) - r.lo);
}

// Tolerance of a sum of r.terms inputs divided by d whose result's reported bound
// is eb_reported (see the derivation at the top of this file).
template <typename T>
double sum_tolerance(const ExactSum& r, double d, double eb_reported, T y) {
  const double u = unit_roundoff<T>();
  const double tol = eb_reported + u * (r.abs_terms + r.abs_partials) / d +
                     (u + 0x1p-51) * std::fabs(static_cast<double>(y));
  return tol * (1 + (r.terms + 4) * u) +
         r.terms * static_cast<double>(std::numeric_limits<T>::denorm_min());
}

// Check y[i] against (Σ_j s_j x_j[i]) / d for all i; non-finite references must be
// reproduced with IEEE semantics (NaN stays NaN, Inf + finite = Inf, Inf - Inf = NaN).
// Returns the number of violations; reports the first few; *worst gets the largest
// |error| / tolerance seen (for information).
template <typename T>
size_t check_against_exact(const std::vector<const std::vector<T>*>& x,
                           const std::vector<int>& sign, const std::vector<T>& y, double d,
                           double eb_reported, const std::string& what, double* worst = nullptr) {
  size_t bad = 0;
  double w = 0;
  for (size_t i = 0; i < y.size(); ++i) {
    ExactSum r;
    for (size_t j = 0; j < x.size(); ++j) r.add(static_cast<double>((*x[j])[i]), sign[j]);
    bool ok;
    double err = 0, tol = 0;
    if (r.nonfinite) {
      const double want = r.ieee / d;
      ok = std::isnan(want) ? std::isnan(y[i]) : static_cast<double>(y[i]) == want;
    } else {
      err = std::fabs(scaled_error(static_cast<double>(y[i]), d, r)) / d;
      tol = sum_tolerance<T>(r, d, eb_reported, y[i]);
      ok = err <= tol;  // a NaN err fails
      if (tol > 0 && err / tol > w) w = err / tol;
    }
    if (!ok && ++bad <= 3)
      ADD_FAILURE() << what << ": value " << i << ": got " << testing::PrintToString(y[i])
                    << ", exact " << testing::PrintToString((r.hi + r.lo) / d) << " (ieee "
                    << testing::PrintToString(r.ieee / d) << "), |err| = " << err
                    << " > tol = " << tol << " (eb_reported " << eb_reported << ")";
  }
  if (worst) *worst = w;
  return bad;
}

// hom result vs the DOC sum of the decompressed inputs, computed here in T:
// both are roundings of nearly the same real number, so
// |y - fl_T(a' ± b')| <= u·(|a'| + |b'| + |y| + |fl(a' ± b')|)·(1 + 2^-20) + 2^-51·|y|.
template <typename T>
size_t check_vs_doc_sum(const std::vector<T>& xa, const std::vector<T>& xb, const std::vector<T>& y,
                        Op op, const std::string& what) {
  const double u = unit_roundoff<T>();
  size_t bad = 0;
  for (size_t i = 0; i < y.size(); ++i) {
    const T s = op == Op::kAdd ? static_cast<T>(xa[i] + xb[i]) : static_cast<T>(xa[i] - xb[i]);
    bool ok;
    if (!std::isfinite(s)) {
      ok = same_bits(y[i], s);
    } else {
      const double tol = u *
                             (std::fabs(double(xa[i])) + std::fabs(double(xb[i])) +
                              std::fabs(double(y[i])) + std::fabs(double(s))) *
                             (1 + 0x1p-20) +
                         0x1p-51 * std::fabs(double(y[i])) +
                         2 * double(std::numeric_limits<T>::denorm_min());
      ok = std::fabs(double(y[i]) - double(s)) <= tol;
    }
    if (!ok && ++bad <= 3)
      ADD_FAILURE() << what << ": value " << i << ": hom " << testing::PrintToString(y[i])
                    << " vs DOC " << testing::PrintToString(s);
  }
  return bad;
}

// ---- crafting streams (codes chosen by the test) -----------------------------------------
// A chunk given by its exact codes (one per value) or, if raw, by its values.
template <typename T>
struct CraftChunk {
  bool raw = false;
  std::vector<int64_t> codes;  // |code| <= 2^31-1
  std::vector<T> values;       // raw chunks
  uint32_t qmax = 0;           // declared qmax; 0 = max |code|
};

// Write a valid stream (header, index, chunks) from crafted chunks. Deltas are
// written as exact two's-complement planes (up to 33 planes), as the format allows.
template <typename T>
Bytes craft_stream(uint64_t n, uint32_t cs, double quantum, double eb, uint32_t divisor,
                   uint32_t terms, const std::vector<CraftChunk<T>>& chunks) {
  zcoll::Header h;
  h.dtype = dtype_of<T>();
  h.chunk_size = cs;
  h.divisor = divisor;
  h.n = n;
  h.eb = eb;
  h.quantum = quantum;
  h.terms = terms;
  const uint64_t nc = h.chunks();
  EXPECT_EQ(nc, chunks.size());
  Bytes z(zcoll::header_and_index_bytes(nc), 0);
  for (uint64_t c = 0; c < nc; ++c) {
    const CraftChunk<T>& k = chunks[c];
    const uint32_t len = h.chunk_len(c);
    Bytes ch;
    if (k.raw) {
      EXPECT_EQ(k.values.size(), len);
      ch.assign(zcoll::raw_chunk_bytes(len, sizeof(T)), 0);
      ch[0] = zcoll::kChunkRaw;
      std::memcpy(ch.data() + zcoll::kRawChunkHeaderBytes, k.values.data(), len * sizeof(T));
    } else {
      EXPECT_EQ(k.codes.size(), len);
      const uint32_t nb = (len + 31) / 32;
      ch.assign(zcoll::kQuantChunkHeaderBytes + ((nb + 3) & ~3u), 0);
      uint64_t qm = 0;
      for (int64_t q : k.codes) qm = std::max<uint64_t>(qm, q < 0 ? -q : q);
      if (k.qmax) qm = k.qmax;
      ch[0] = zcoll::kChunkQuantized;
      zcoll::store_u32(ch.data() + 4, static_cast<uint32_t>(static_cast<int32_t>(k.codes[0])));
      zcoll::store_u32(ch.data() + 8, static_cast<uint32_t>(qm));
      int64_t prev = k.codes[0];
      for (uint32_t b = 0; b < nb; ++b) {
        int64_t d[32];
        for (uint32_t i = 0; i < 32; ++i) {
          const uint64_t g = uint64_t{b} * 32 + i;
          const int64_t q = g < len ? k.codes[g] : prev;
          d[i] = q - prev;
          prev = q;
        }
        const uint32_t W = min_width(d, 32);
        ch[zcoll::kQuantChunkHeaderBytes + b] = static_cast<uint8_t>(W);
        for (uint32_t j = 0; j < W; ++j) {
          uint32_t plane = 0;
          for (int i = 0; i < 32; ++i)
            plane |= static_cast<uint32_t>((static_cast<uint64_t>(d[i]) >> j) & 1u) << i;
          uint8_t wb[4];
          zcoll::store_u32(wb, plane);
          ch.insert(ch.end(), wb, wb + 4);
        }
      }
      ch.resize((ch.size() + 7) & ~size_t{7}, 0);
      EXPECT_LT(ch.size(), zcoll::raw_chunk_bytes(len, sizeof(T)))
          << "crafted quantized chunk " << c << " does not fit";
    }
    zcoll::store_u32(z.data() + zcoll::kHeaderBytes + 4 * c, static_cast<uint32_t>(ch.size()));
    z.insert(z.end(), ch.begin(), ch.end());
  }
  zcoll::write_header(z.data(), h);
  return z;
}

// Rewrite header fields of a valid stream (keeps it valid: checksum recomputed).
template <typename Fn>
Bytes with_header(const Bytes& z, Fn edit) {
  Bytes out = z;
  zcoll::Header h;
  zcoll_status s = zcoll::parse_header(z.data(), z.size(), &h);
  EXPECT_EQ(s, ZCOLL_SUCCESS);
  edit(h);
  zcoll::write_header(out.data(), h);
  return out;
}

// The quantum the compressor uses for eb (float32 and float64 differ by the slack).
template <typename T>
double quantum_for(double eb) {
  std::vector<T> probe(1, T(0));
  return inspect(compress(probe, eb)).quantum;
}

}  // namespace ht
