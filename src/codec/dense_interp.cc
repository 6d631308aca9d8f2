// dense_interp.cc — predictor 5 of the dense codec (dense_interp.h): one
// traversal of the chunk, shared by encoder and decoder, which differ only in
// what they do at a value (quantize it against the prediction, or add the next
// residual to it).
#include "codec/dense_interp.h"

#include <algorithm>
#include <type_traits>
#include <vector>

#include "codec/chunk_codec.h"
#include "codec/dense_interp_step.h"
#include "codec/value_types.h"

namespace zcoll {

using namespace interp_step;  // the values' steps (dense_interp_step.h)

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

// The kind of prediction of a value with neighbours at +s (up1), +3s (up3) and
// -3s (down3) (-s always exists).
inline int kind_of(bool up1, bool up3, bool down3, bool cubic) {
  if (!up1) return kCopy;
  if (!cubic) return kLinear;
  return down3 ? (up3 ? kCubic : kQuadDown) : (up3 ? kQuadUp : kLinear);
}

// v[j] = vis.at(&v[j], prediction) for j in [from, to) every `step`, one kind
// of prediction; runs of step 2 (a grid's finest level), linear or cubic, as a
// whole: vis.run2<K>(v, len, from, count, off).
template <int K, class Vis>
inline void run(int32_t* v, uint32_t len, uint64_t from, uint64_t to, uint32_t step, uint32_t off,
                Vis& vis) {
  if ((K == kLinear || K == kCubic) && step == 2) {
    if (to > from)
      vis.template run2<K>(v, len, static_cast<uint32_t>(from),
                           static_cast<uint32_t>((to - from + 1) / 2), off);
    return;
  }
  for (uint64_t j = from; j < to; j += step) {
    const auto i = static_cast<uint32_t>(j);
    v[i] = vis.at(v + i, predict<K>(v + i, off));
  }
}
template <class Vis>
void run_kind_of(int kind, int32_t* v, uint32_t len, uint64_t from, uint64_t to, uint32_t step,
                 uint32_t off, Vis& vis) {
  switch (kind) {
    case kCopy: return run<kCopy>(v, len, from, to, step, off, vis);
    case kLinear: return run<kLinear>(v, len, from, to, step, off, vis);
    case kCubic: return run<kCubic>(v, len, from, to, step, off, vis);
    case kQuadDown: return run<kQuadDown>(v, len, from, to, step, off, vis);
    default: return run<kQuadUp>(v, len, from, to, step, off, vis);
  }
}
// (an empty run, as the ends of most lines have, costs no call)
template <class Vis>
inline void run_kind(int kind, int32_t* v, uint32_t len, uint64_t from, uint64_t to, uint32_t step,
                     uint32_t off, Vis& vis) {
  if (from < to) run_kind_of(kind, v, len, from, to, step, off, vis);
}
// v[j] = vis.at(&v[j], prediction) for the one value j: the values near the
// ends of a line along the fastest dim, up to three a line (as a run of one,
// each took about 60 instructions in run_kind_of's dispatch and loop).
template <class Vis>
inline void one(int kind, int32_t* v, uint64_t j, uint32_t off, Vis& vis) {
  int32_t* at = v + j;
  int64_t p;
  switch (kind) {
    case kCopy: p = predict<kCopy>(at, off); break;
    case kLinear: p = predict<kLinear>(at, off); break;
    case kCubic: p = predict<kCubic>(at, off); break;
    case kQuadDown: p = predict<kQuadDown>(at, off); break;
    default: p = predict<kQuadUp>(at, off); break;
  }
  *at = vis.at(at, p);
}

// S of format.md §5.3: the largest power of two below the longest extent (1 if none).
uint32_t top_stride(const Extents& e) {
  const uint32_t longest = std::max({e.n[0], e.n[1], e.n[2]});
  uint32_t top = 1;
  while (2 * top < longest) top *= 2;
  return top;
}

// One level of the traversal: stride s, dims d = 2, 1, 0, each value visited
// as dense_interp.h says. A line of values along the fastest dim is cut where
// the kind of prediction changes, so that each piece is a loop of one kind (the
// neighbours' existence, tested per piece).
template <class Vis>
void level(const Extents& e, uint32_t len, bool cubic, uint32_t s, int32_t* v, Vis& vis) {
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
          if (!cubic) {
            // a linear grid predicts every value with a +s neighbour linearly (kind_of):
            // one run from c0 = s, then the last value when it has none (a copy)
            const uint64_t last = s + (m0 - 1 - s) / (2 * s) * (2 * s);
            const bool copy = last + s >= m0;
            run<kLinear>(v, len, base + s, base + last + !copy, 2 * s, off, vis);
            if (copy) one(kCopy, v, base + last, off, vis);
            continue;
          }
          const uint64_t lo = std::min<uint64_t>(s3, m0);
          const uint64_t hi = std::max<uint64_t>(lo, m0 > s3 ? m0 - s3 : 0);
          for (uint64_t c0 = s; c0 < lo; c0 += 2 * s)
            one(kind_of(c0 + s < m0, c0 + s3 < m0, false, cubic), v, base + c0, off, vis);
          run_kind(kind_of(true, true, true, cubic), v, len, base + lo, base + hi, 2 * s, off, vis);
          const uint64_t tail = hi + (2 * s - (hi - s) % (2 * s)) % (2 * s);  // = s mod 2s
          for (uint64_t c0 = tail; c0 < m0; c0 += 2 * s)
            one(kind_of(c0 + s < m0, c0 + s3 < m0, true, cubic), v, base + c0, off, vis);
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
        if (cubic) {
          run_kind(kind_of(true, true, down3, cubic), v, len, base, base + e3, step[0], off, vis);
          run_kind(kind_of(true, false, down3, cubic), v, len, base + first_at(e3), base + e1,
                   step[0], off, vis);
        } else {  // both linear: one run
          run_kind(kLinear, v, len, base, base + e1, step[0], off, vis);
        }
        run_kind(kCopy, v, len, base + first_at(e1), base + m0, step[0], off, vis);
      }
    }
  }
}

// The levels s >= 2 of a chunk are the levels s/2 of the array of its values
// whose every coordinate is even (the "coarse" array): C order again, with
// extents ceil(n_k / 2), and the values of the chunk among them are a prefix of
// it (the order of j is kept). Each value's neighbours, kind of prediction and
// turn in the traversal are the same in both (c + s < n_d and j + o < len hold
// for the one exactly when for the other), so the coarse levels run on a
// compact copy, where their runs have step 2 (a finest level's, in SIMD),
// instead of steps 4, 8, ... on the chunk.
struct Coarse {
  InterpGrid g;
  uint32_t len = 0;
};
Coarse coarse_of(const InterpGrid& g, uint32_t len) {
  const auto half = [](uint64_t n) { return static_cast<uint32_t>((n + 1) / 2); };  // ceil
  Coarse c;
  c.g = g;
  const uint32_t last = len - 1;  // the coordinates of the chunk's last value
  if (g.ndim == 1) {
    c.len = last / 2 + 1;
    return c;
  }
  c.g.row = half(g.row);
  const uint32_t rows = g.ndim == 3 ? g.plane / g.row : 0;  // rows of a plane
  if (g.ndim == 3) c.g.plane = c.g.row * half(rows);
  const uint32_t l2 = g.ndim == 3 ? last / g.plane : 0;
  const uint32_t in_plane = g.ndim == 3 ? last % g.plane : last;
  const uint32_t l1 = in_plane / g.row, l0 = in_plane % g.row;
  // the even points at or before (l2, l1, l0): whole coarse planes, rows, and the row's
  uint64_t n = uint64_t{half(l2)} * (g.ndim == 3 ? c.g.plane : 0);
  if (l2 % 2 == 0) {
    n += uint64_t{half(l1)} * c.g.row;
    if (l1 % 2 == 0) n += l0 / 2 + 1;
  }
  c.len = static_cast<uint32_t>(n);
  return c;
}

// Copies between the chunk's even points and the coarse array: to_coarse
// u[j'] = v[j] (the encoder: the values' fine codes), from_coarse v[j] = u[j']
// (both: the coarse levels' reconstructions), row by row.
template <bool kToCoarse>
void copy_coarse(const Extents& e, const Coarse& c, int32_t* v, int32_t* u) {
  const uint64_t row = c.g.ndim >= 2 ? c.g.row : c.len;
  const uint64_t plane = c.g.ndim == 3 ? c.g.plane : 0;
  for (uint32_t c2 = 0; c2 < e.n[2]; c2 += 2) {
    for (uint32_t c1 = 0; c1 < e.n[1]; c1 += 2) {
      const uint64_t at = c2 / 2 * plane + c1 / 2 * row;  // the coarse array's index
      if (at >= c.len) return;
      const uint64_t base = uint64_t{c2} * e.stride[2] + uint64_t{c1} * e.stride[1];
      const auto m = static_cast<uint32_t>(std::min<uint64_t>(row, c.len - at));
      if (kToCoarse)
        active_kernels().interp_evens_to(v + base, m, u + at);
      else
        active_kernels().interp_evens_from(u + at, m, v + base);
    }
  }
}

// Coarse arrays below this many values run their levels on themselves.
constexpr uint32_t kCoarseMin = 256;

// Whether a chunk of extents e runs its levels s >= 2 on its coarse array.
bool runs_coarse(const Extents& e, uint32_t len) { return len >= kCoarseMin && top_stride(e) >= 2; }

// The room the coarse arrays of a chunk take (each inside its parent's).
size_t coarse_room(const InterpGrid& g, uint32_t len) {
  size_t room = 0;
  for (Coarse c{g, len}; runs_coarse(extents_of(c.g, c.len), c.len);) {
    c = coarse_of(c.g, c.len);
    room += c.len;
  }
  return room;
}

// Visit every value of the chunk once, in the order of dense_interp.h, setting
// v[j] = vis.at(&v[j], prediction) (value 0: prediction 0), or a run at a time
// (run2); the coarse levels on the coarse array, in `spare` (coarse_room
// values).
template <class Vis>
void traverse(const InterpGrid& g, uint32_t len, int32_t* v, Vis& vis, int32_t* spare) {
  if (len == 0) return;
  const Extents e = extents_of(g, len);
  if (runs_coarse(e, len)) {
    const Coarse c = coarse_of(g, len);
    if (Vis::kReadsValues) copy_coarse<true>(e, c, v, spare);
    traverse(c.g, c.len, spare, vis, spare + c.len);
    copy_coarse<false>(e, c, v, spare);
    level(e, len, g.cubic, 1, v, vis);
    return;
  }
  v[0] = vis.at(v, 0);
  for (uint32_t s = top_stride(e); s >= 1; s /= 2) level(e, len, g.cubic, s, v, vis);
}

thread_local std::vector<int32_t> t_coarse;  // traverse's spare

template <class Vis>
void traverse(const InterpGrid& g, uint32_t len, int32_t* v, Vis& vis) {
  const size_t room = coarse_room(g, len);
  if (t_coarse.size() < room) t_coarse.resize(room);
  traverse(g, len, v, vis, t_coarse.data());
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

namespace {

// The encoder's visitor: each value's residual to out, in the traversal's order.
struct EncodeValues {
  static constexpr bool kReadsValues = true;  // the fine codes it quantizes against
  uint32_t* out;  // a pointer: a u32 counter could alias the stores to v and r
  const ChunkKernels& k = active_kernels();  // (once, not a call a run)
  int32_t at(const int32_t* value, int64_t p) {
    int32_t x = *value;
    encode_at(&x, p, out++);
    return x;
  }
  template <int K>
  void run2(int32_t* w, uint32_t len, uint32_t from, uint32_t count, uint32_t off) {
    k.interp_encode_run(w, len, from, count, off, K == kCubic, out);
    out += count;
  }
};

// The decoder's visitor: the residuals from the source, a tile at a time.
struct DecodeValues {
  static constexpr bool kReadsValues = false;
  InterpResidualSource& src;
  size_t left;
  uint32_t buf[kInterpTile];
  const uint32_t *next = buf, *have = buf;  // pointers: the stores to v could alias counters
  void refill() {
    const size_t n = std::min<size_t>(left, kInterpTile);
    src.fill(buf, static_cast<uint32_t>(n));
    next = buf, have = buf + n, left -= n;
  }
  int32_t at(const int32_t*, int64_t p) {
    if (next == have) refill();
    int32_t x = 0;
    decode_at(&x, p, *next++);
    return x;
  }
  template <int K>
  void run2(int32_t* v, uint32_t len, uint32_t from, uint32_t count, uint32_t off) {
    while (count) {
      if (next == have) refill();
      const auto m = static_cast<uint32_t>(std::min<size_t>(count, have - next));
      if (m == 0) return;  // the traversal takes len residuals: cannot happen
      active_kernels().interp_decode_run(v, len, from, m, off, K == kCubic, next);
      next += m, from += 2 * m, count -= m;
    }
  }
};

}  // namespace

void interp_residuals(int32_t* v, uint32_t len, const InterpGrid& g, uint32_t* r) {
  EncodeValues vis{r};
  traverse(g, len, v, vis);
}

void interp_encode_run_scalar(int32_t* v, uint32_t, uint32_t from, uint32_t count, uint32_t off,
                              bool cubic, uint32_t* r) {
  cubic ? encode_run<kCubic>(v, from, count, off, r) : encode_run<kLinear>(v, from, count, off, r);
}
void interp_decode_run_scalar(int32_t* v, uint32_t, uint32_t from, uint32_t count, uint32_t off,
                              bool cubic, const uint32_t* r) {
  cubic ? decode_run<kCubic>(v, from, count, off, r) : decode_run<kLinear>(v, from, count, off, r);
}

void interp_evens_to_scalar(const int32_t* v, uint32_t m, int32_t* u) {
  for (uint32_t k = 0; k < m; ++k) u[k] = v[2 * k];
}
void interp_evens_from_scalar(const int32_t* u, uint32_t m, int32_t* v) {
  for (uint32_t k = 0; k < m; ++k) v[2 * k] = u[k];
}

template <typename T>
bool interp_within_bound_scalar(const T* x, const int32_t* v, uint32_t len,
                                const Quantizer<T>& qz) {
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

template <typename T>
bool interp_within_bound(const T* x, const int32_t* v, uint32_t len, const Quantizer<T>& qz) {
  if constexpr (std::is_same_v<T, float>)
    return active_kernels().interp_within_bound_f32(x, v, len, qz);
  else if constexpr (std::is_same_v<T, double>)
    return active_kernels().interp_within_bound_f64(x, v, len, qz);
  else
    return interp_within_bound_scalar(x, v, len, qz);
}

template bool interp_within_bound_scalar<float>(const float*, const int32_t*, uint32_t,
                                                const Quantizer<float>&);
template bool interp_within_bound_scalar<double>(const double*, const int32_t*, uint32_t,
                                                 const Quantizer<double>&);

void interp_decode(const InterpGrid& g, uint32_t len, InterpResidualSource& src, int32_t* v) {
  DecodeValues vis{src, len, {}};
  traverse(g, len, v, vis);
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
