// dense_interp.cc — predictor 5 of the dense codec (dense_interp.h): one
// traversal of the chunk, shared by encoder and decoder, which differ only in
// what they do at a value (quantize it against the prediction, or add the next
// residual to it).
#include "codec/dense_interp.h"

#include <algorithm>

#include "codec/value_types.h"

namespace zcoll {

namespace {

// The chunk as an array: extents and strides per dim, fastest first (unused
// dims: extent 1). The extents are the chunk's own: a chunk shorter than a row
// is a 1-D run, and one shorter than a plane has only the rows it reaches.
struct Extents {
  uint32_t n[3] = {1, 1, 1};
  uint32_t stride[3] = {1, 0, 0};
};

Extents extents_of(const InterpGrid& g, uint32_t len) {
  Extents e;
  const auto rows_in = [len](uint32_t w) { return (len + w - 1) / w; };  // ceil(len / w)
  if (g.ndim == 1) {
    e.n[0] = len;
  } else if (g.ndim == 2) {
    e.n[0] = std::min(g.row, len), e.n[1] = rows_in(g.row);
    e.stride[1] = g.row;
  } else {
    e.n[0] = std::min(g.row, len), e.n[1] = std::min(g.plane / g.row, rows_in(g.row));
    e.n[2] = rows_in(g.plane);
    e.stride[1] = g.row, e.stride[2] = g.plane;
  }
  return e;
}

// floor(v / 2^k): an arithmetic shift (implementation-defined before C++20 for
// a negative v, arithmetic on every compiler the library supports).
static_assert((int64_t{-3} >> 1) == -2, "arithmetic right shift");
inline int64_t floor_shift(int64_t v, unsigned k) { return v >> k; }

// The residual of a fine code's difference dx from its prediction: the
// nearest integer to dx / 255 (never a tie: 255 is odd), without a branch on
// the sign (random on rough data): floor((dx + 127) / 255), the division done
// on a value made non-negative (|dx| < 2^33 here).
inline int64_t residual_of(int64_t dx) {
  constexpr int64_t kBias = int64_t{kInterpStep} << 33;
  return static_cast<int64_t>(static_cast<uint64_t>(dx + kInterpStep / 2 + kBias) / kInterpStep) -
         (int64_t{1} << 33);
}

// The predictions of §5.3 (predictor 5) from the neighbours along one dim, off
// apart, of the value at p: a = p[-3 off], b = p[-off], c = p[+off], d = p[+3 off]
// (exact integer arithmetic on the i32 fine codes).
enum Kind { kCopy, kLinear, kCubic, kQuadDown, kQuadUp };
template <int K>
inline int64_t predict(const int32_t* p, uint32_t off) {
  const int64_t b = p[-static_cast<int64_t>(off)];
  if (K == kCopy) return b;
  const int64_t c = p[off];
  if (K == kLinear) return floor_shift(b + c, 1);
  if (K == kCubic)
    return floor_shift(9 * (b + c) - p[-3 * static_cast<int64_t>(off)] - p[3 * uint64_t{off}] + 8,
                       4);
  if (K == kQuadDown) return floor_shift(6 * b + 3 * c - p[-3 * static_cast<int64_t>(off)] + 4, 3);
  return floor_shift(3 * b + 6 * c - p[3 * uint64_t{off}] + 4, 3);  // kQuadUp
}

// The kind of prediction of a value with neighbours at +s (up1), +3s (up3) and
// -3s (down3) (-s always exists).
inline int kind_of(bool up1, bool up3, bool down3, bool cubic) {
  if (!up1) return kCopy;
  if (!cubic) return kLinear;
  return down3 ? (up3 ? kCubic : kQuadDown) : (up3 ? kQuadUp : kLinear);
}

// v[j] = at(j, prediction) for j in [from, to) every `step`, one kind of prediction.
template <int K, class At>
inline void run(int32_t* v, uint64_t from, uint64_t to, uint32_t step, uint32_t off, At& at) {
  for (uint64_t j = from; j < to; j += step) {
    const auto i = static_cast<uint32_t>(j);
    v[i] = at(i, predict<K>(v + i, off));
  }
}
template <class At>
void run_kind(int kind, int32_t* v, uint64_t from, uint64_t to, uint32_t step, uint32_t off,
              At& at) {
  switch (kind) {
    case kCopy: return run<kCopy>(v, from, to, step, off, at);
    case kLinear: return run<kLinear>(v, from, to, step, off, at);
    case kCubic: return run<kCubic>(v, from, to, step, off, at);
    case kQuadDown: return run<kQuadDown>(v, from, to, step, off, at);
    default: return run<kQuadUp>(v, from, to, step, off, at);
  }
}

// Visit every value of the chunk once, in the order of dense_interp.h, setting
// v[j] = at(j, prediction) (value 0: prediction 0). A line of values along the
// fastest dim is cut where the kind of prediction changes, so that each piece
// is a loop of one kind (the neighbours' existence, tested per piece).
template <class At>
void traverse(const InterpGrid& g, uint32_t len, int32_t* v, At&& at) {
  if (len == 0) return;
  const Extents e = extents_of(g, len);
  v[0] = at(0, 0);
  const uint32_t longest = std::max({e.n[0], e.n[1], e.n[2]});
  uint32_t top = 1;
  while (2 * top < longest) top *= 2;
  for (uint32_t s = top; s >= 1; s /= 2) {
    for (uint32_t dd = 0; dd < 3; ++dd) {
      const uint32_t d = 2 - dd;
      if (e.n[d] <= s) continue;
      uint32_t first[3], step[3];
      for (uint32_t k = 0; k < 3; ++k) {
        first[k] = k == d ? s : 0;
        step[k] = k > d ? s : 2 * s;  // slower dims (done at this level): every s
      }
      const uint64_t n_d = e.n[d], s3 = 3 * uint64_t{s};
      const auto off = static_cast<uint32_t>(s * e.stride[d]);  // < len: n_d > s
      for (uint32_t c2 = first[2]; c2 < e.n[2]; c2 += step[2]) {
        for (uint32_t c1 = first[1]; c1 < e.n[1]; c1 += step[1]) {
          const uint64_t base = uint64_t{c2} * e.stride[2] + uint64_t{c1} * e.stride[1];
          if (base >= len) break;
          const uint64_t m0 = std::min<uint64_t>(e.n[0], len - base);  // the line's values
          if (d == 0) {
            // along the line: c0 = s (no -3s), then the interior, then the end
            if (m0 <= s) continue;
            const uint64_t lo = std::min<uint64_t>(s3, m0);
            const uint64_t hi = std::max<uint64_t>(lo, m0 > s3 ? m0 - s3 : 0);
            for (uint64_t c0 = s; c0 < lo; c0 += 2 * s)
              run_kind(kind_of(c0 + s < m0, c0 + s3 < m0, false, g.cubic), v, base + c0,
                       base + c0 + 1, 1, off, at);
            run_kind(kind_of(true, true, true, g.cubic), v, base + lo, base + hi, 2 * s, off, at);
            const uint64_t tail = hi + (2 * s - (hi - s) % (2 * s)) % (2 * s);  // = s mod 2s
            for (uint64_t c0 = tail; c0 < m0; c0 += 2 * s)
              run_kind(kind_of(c0 + s < m0, c0 + s3 < m0, true, g.cubic), v, base + c0,
                       base + c0 + 1, 1, off, at);
            continue;
          }
          // across lines: the neighbours at +s (+3s) exist for values below len - off (3 off)
          const uint64_t c = d == 2 ? c2 : c1;
          const uint64_t lim1 = c + s < n_d && len > base + off ? len - base - off : 0;
          const uint64_t lim3 =
              c + s3 < n_d && len > base + 3 * uint64_t{off} ? len - base - 3 * uint64_t{off} : 0;
          const uint64_t e3 = std::min(lim3, m0), e1 = std::max(e3, std::min(lim1, m0));
          const bool down3 = c >= s3;
          const auto first_at = [&](uint64_t from) {  // the first c0 >= from on the lattice
            return (from + step[0] - 1) / step[0] * step[0];
          };
          run_kind(kind_of(true, true, down3, g.cubic), v, base, base + e3, step[0], off, at);
          run_kind(kind_of(true, false, down3, g.cubic), v, base + first_at(e3), base + e1, step[0],
                   off, at);
          run_kind(kCopy, v, base + first_at(e1), base + m0, step[0], off, at);
        }
      }
    }
  }
}

}  // namespace

InterpGrid interp_grid_of(const DensePredictor& p) {
  InterpGrid g;
  g.ndim = (p.mode & 3u) + 1;
  g.cubic = (p.mode & kInterpCubic) != 0;
  g.row = p.row, g.plane = p.plane;
  return g;
}

DensePredictor interp_predictor_of(const InterpGrid& g) {
  return DensePredictor{kDenseInterp, g.row, g.plane, (g.ndim - 1) | (g.cubic ? kInterpCubic : 0)};
}

void interp_residuals(int32_t* v, uint32_t len, const InterpGrid& g, uint32_t* r) {
  // the cursor is a pointer: a u32 counter could alias the stores to v and r,
  // and would go through memory at every value
  uint32_t* out = r;
  traverse(g, len, v, [&out, v](uint32_t j, int64_t p) {
    const int64_t k = residual_of(int64_t{v[j]} - p);
    *out++ = static_cast<uint32_t>(k);
    return static_cast<int32_t>(p + k * kInterpStep);  // within 127 fine steps of v[j]
  });
}

template <typename T>
bool interp_within_bound(const T* x, const int32_t* v, uint32_t len, const Quantizer<T>& qz) {
  using V = ValueTraits<T>;
  const double fine = qz.quantum * (1.0 / kInterpFine);
  const auto eb = qz.eb_check;
  uint32_t bad = 0;  // an integer OR, which the compiler vectorizes (a bool AND it does not)
  for (uint32_t j = 0; j < len; ++j) {
    const auto err = V::widen(x[j]) - V::widen(V::from_double(static_cast<double>(v[j]) * fine));
    bad |= static_cast<uint32_t>(!(hd::fabs_(err) < eb));
  }
  return bad == 0;
}

void interp_decode(const InterpGrid& g, uint32_t len, InterpResidualSource& src, int32_t* v) {
  uint32_t buf[kInterpTile];
  // pointers, not u32 counters (which the stores to v could alias)
  const uint32_t *at = buf, *have = buf;
  size_t left = len;
  traverse(g, len, v, [&](uint32_t, int64_t p) {
    if (at == have) {
      const size_t n = std::min<size_t>(left, kInterpTile);
      src.fill(buf, static_cast<uint32_t>(n));
      at = buf, have = buf + n, left -= n;
    }
    // u32 arithmetic: any residual decodes (a well-formed chunk never wraps)
    return static_cast<int32_t>(static_cast<uint32_t>(p) + kInterpStep * *at++);
  });
}

template bool interp_within_bound<float>(const float*, const int32_t*, uint32_t,
                                         const Quantizer<float>&);
template bool interp_within_bound<double>(const double*, const int32_t*, uint32_t,
                                          const Quantizer<double>&);
template bool interp_within_bound<Bf16>(const Bf16*, const int32_t*, uint32_t,
                                        const Quantizer<Bf16>&);
template bool interp_within_bound<Fp16>(const Fp16*, const int32_t*, uint32_t,
                                        const Quantizer<Fp16>&);

}  // namespace zcoll
