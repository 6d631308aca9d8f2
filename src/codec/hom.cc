// hom.cc — operations on compressed streams.
//
// Homomorphic add/sub (hZ-dynamic class): codes are linear, so the sum of two
// streams at the same quantum is a stream whose anchors are the sums of the
// anchors and whose deltas are the sums of the deltas. Per block, the cheapest
// pipeline is chosen:
//   0: both constant      -> write a code length of 0
//   1: only a constant    -> copy b's planes (negated by the adder for a - b)
//   2: only b constant    -> copy a's planes
//   3: both non-constant  -> bit-sliced ripple-carry add of the planes: one word
//                            operation per plane for all 32 values, no decoding.
// A chunk goes through floats (decode both, add, store raw) when either input
// chunk is raw, or when the code range could overflow int32 (qmax_a + qmax_b too
// large): the result is then exact up to float rounding of the sum, never wrapped
// (16-bit streams: the sum in float, rounded once to 16 bits).
//
// DOC combine: decode both chunks, apply the op in T, re-encode at the same
// quantum, in one pass per chunk.
#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "codec/block_codec.h"
#include "codec/chunk_codec.h"
#include "codec/format.h"
#include "codec/stream_internal.h"
#include "core/error.h"
#include "core/struct_io.h"

namespace zcoll {
namespace {

struct Counts {
  uint64_t pipeline[4] = {0, 0, 0, 0};
  uint64_t raw = 0, widened = 0;
};

// The block loop (the pipelines above) is a kernel: combine_blocks of the kernel
// table (chunk_scalar.h, hom_avx2.cc).

enum class HomOp { kAdd, kSub, kNegate };  // kNegate: a is a stream of zeros

const char* dtype_name(zcoll_dtype d) {
  switch (d) {
    case ZCOLL_FLOAT32: return "float32";
    case ZCOLL_FLOAT64: return "float64";
    case ZCOLL_BFLOAT16: return "bfloat16";
    case ZCOLL_FLOAT16: return "float16";
  }
  return "?";
}

// a op b through floats, stored as a raw chunk (exact copy of the T results). The
// values are the represented ones (before the divisor), like the codes.
template <typename T>
size_t float_path_chunk(const StreamView& va, const StreamView& vb, uint64_t c, HomOp op,
                        std::vector<T>& ta, std::vector<T>& tb, uint8_t* out) {
  const uint32_t len = va.h.chunk_len(c);
  using V = ValueTraits<T>;
  // the buffers only this path needs: allocated (and zeroed) on its first use
  if (ta.size() < len) ta.resize(va.h.chunk_size), tb.resize(va.h.chunk_size);
  decode_chunk<T>(va, c, ta.data(), false, false);
  decode_chunk<T>(vb, c, tb.data(), false, false);
  switch (op) {  // 16-bit: in float, rounded once to 16 bits
    case HomOp::kAdd:
      for (uint32_t i = 0; i < len; ++i)
        ta[i] = V::narrow(hd::canonical_nan(V::widen(ta[i]) + V::widen(tb[i])));
      break;
    case HomOp::kSub:
      for (uint32_t i = 0; i < len; ++i)
        ta[i] = V::narrow(hd::canonical_nan(V::widen(ta[i]) - V::widen(tb[i])));
      break;
    case HomOp::kNegate:
      for (uint32_t i = 0; i < len; ++i) ta[i] = V::narrow(hd::canonical_nan(-V::widen(tb[i])));
      break;  // keeps -0.0
  }
  out[0] = kChunkRaw;
  std::memset(out + 1, 0, kRawChunkHeaderBytes - 1);
  std::memcpy(out + kRawChunkHeaderBytes, ta.data(), size_t{len} * sizeof(T));
  const size_t bytes = raw_chunk_bytes(len, sizeof(T));
  std::memset(out + kRawChunkHeaderBytes + size_t{len} * sizeof(T), 0,
              bytes - kRawChunkHeaderBytes - size_t{len} * sizeof(T));
  return bytes;
}

template <typename T>
size_t hom_add_chunk(const StreamView& va, const StreamView& vb, uint64_t c, HomOp op,
                     std::vector<T>& ta, std::vector<T>& tb, uint8_t* out, Counts* cnt) {
  const bool subtract = op != HomOp::kAdd;
  const uint8_t* a = va.chunk(c);
  const uint8_t* b = vb.chunk(c);
  const uint32_t len = va.h.chunk_len(c);
  const size_t raw = raw_chunk_bytes(len, sizeof(T));
  if (a[0] == kChunkRaw || b[0] == kChunkRaw) {
    ++cnt->raw;
    return float_path_chunk<T>(va, vb, c, op, ta, tb, out);
  }
  const uint64_t qmax = uint64_t{load_u32(a + 8)} + load_u32(b + 8);
  if (qmax > static_cast<uint64_t>(kQMaxFormat)) {  // codes could leave int32: no wrap
    ++cnt->widened;
    return float_path_chunk<T>(va, vb, c, op, ta, tb, out);
  }
  const uint32_t nblocks = (len + kBlock - 1) / kBlock;
  size_t pos = kQuantChunkHeaderBytes + align4(nblocks);
  if (pos >= raw) pos = 0;  // too small to gain: float path
  const uint8_t* la = a + kQuantChunkHeaderBytes;
  const uint8_t* lb = b + kQuantChunkHeaderBytes;
  uint8_t* lo = out + kQuantChunkHeaderBytes;
  // If even the worst case (every block one plane wider than its widest input)
  // beats a raw chunk, combine without per-block capacity checks.
  // (Summed as planes in 32 bits, a form the compiler vectorizes: a chunk has at
  // most ZCOLL_MAX_CHUNK_SIZE / 32 blocks of at most 34 planes.)
  uint32_t planes = 0;
  for (uint32_t blk = 0; blk < nblocks; ++blk) {
    const uint32_t widest = la[blk] > lb[blk] ? la[blk] : lb[blk];
    planes += widest + (widest != 0);
  }
  const size_t worst = pos + 4 * size_t{planes};
  uint64_t local[4] = {0, 0, 0, 0};
  if (pos)
    pos = active_kernels().combine_blocks(a, va.bytes_from(c), b, vb.bytes_from(c), out, nblocks,
                                          subtract, pos, raw, worst >= raw, local);
  const size_t end = align8(pos);
  if (pos == 0 || end >= raw) {
    ++cnt->raw;
    return float_path_chunk<T>(va, vb, c, op, ta, tb, out);
  }
  for (int i = 0; i < 4; ++i) cnt->pipeline[i] += local[i];
  std::memset(lo + nblocks, 0, align4(nblocks) - nblocks);
  std::memset(out + pos, 0, end - pos);
  const int64_t anchor_a = static_cast<int32_t>(load_u32(a + 4));
  const int64_t anchor_b = static_cast<int32_t>(load_u32(b + 4));
  const int64_t anchor = subtract ? anchor_a - anchor_b : anchor_a + anchor_b;
  out[0] = kChunkQuantized;
  out[1] = out[2] = out[3] = 0;
  store_u32(out + 4, static_cast<uint32_t>(static_cast<int32_t>(anchor)));
  store_u32(out + 8, static_cast<uint32_t>(qmax));
  return end;
}

// Parse, validate and check that two streams can be combined.
// Prefix the thread's last error message (copied first: fail() writes that buffer).
zcoll_status prefixed(zcoll_status s, const char* which) {
  std::string cause = zcoll_last_error();
  return fail(s, "%s stream: %s", which, cause.c_str());
}

// Parse two streams and check that they can be combined. Their chunks are checked
// by the operation's own team, before it writes anything (PairChecks).
zcoll_status open_pair(const void* a, size_t a_size, const void* b, size_t b_size, StreamView* va,
                       StreamView* vb) {
  zcoll_status s = parse_stream(a, a_size, va);
  if (s != ZCOLL_SUCCESS) return prefixed(s, "first");
  s = parse_stream(b, b_size, vb);
  if (s != ZCOLL_SUCCESS) return prefixed(s, "second");
  const Header &x = va->h, &y = vb->h;
  if (x.dtype != y.dtype)
    return fail(ZCOLL_ERR_MISMATCH, "dtype differs (%s vs %s)", dtype_name(x.dtype),
                dtype_name(y.dtype));
  if (x.n != y.n)
    return fail(ZCOLL_ERR_MISMATCH, "length differs (%llu vs %llu values)",
                static_cast<unsigned long long>(x.n), static_cast<unsigned long long>(y.n));
  if (x.chunk_size != y.chunk_size)
    return fail(ZCOLL_ERR_MISMATCH, "chunk size differs (%u vs %u)", x.chunk_size, y.chunk_size);
  // the same bits, not only the same value: both streams' quanta come from one
  // bound (a -0.0 or NaN step cannot occur; a bitwise test says so plainly)
  uint64_t qx = 0, qy = 0;
  std::memcpy(&qx, &x.quantum, sizeof qx);
  std::memcpy(&qy, &y.quantum, sizeof qy);
  if (qx != qy)
    return fail(ZCOLL_ERR_MISMATCH,
                "quantization step differs (%.17g vs %.17g): compress with the same absolute "
                "error bound",
                x.quantum, y.quantum);
  if (x.divisor != y.divisor)
    return fail(ZCOLL_ERR_MISMATCH, "divisor differs (%u vs %u)", x.divisor, y.divisor);
  return ZCOLL_SUCCESS;
}

// The framing check of chunk c of both operands (any thread), and the error of
// the first chunk where it failed: the first stream's if that chunk is bad in
// it, else the second's (the messages of validating each stream alone; for a
// negation, whose first operand is the library's stream of zeros, the message of
// the one input, unprefixed).
struct PairChecks {
  const StreamView &a, &b;
  bool negate = false;
  bool operator()(uint64_t c) const {
    return check_chunk(a, c, false) == ZCOLL_SUCCESS && check_chunk(b, c, false) == ZCOLL_SUCCESS;
  }
  zcoll_status error(uint64_t c) const {
    if (negate) return validate_chunks_serial(b, c, c + 1);
    const zcoll_status s = validate_chunks_serial(a, c, c + 1);
    if (s != ZCOLL_SUCCESS) return prefixed(s, "first");
    return prefixed(validate_chunks_serial(b, c, c + 1), "second");
  }
};

// The homomorphic operations work on the fast codec's bit planes: a dense stream
// (format 1.3) goes through zcoll_doc_combine or decompression instead.
zcoll_status refuse_dense(const StreamView& a, const StreamView* b = nullptr) {
  if (a.h.dense() || (b && b->h.dense()))
    return fail(ZCOLL_ERR_UNSUPPORTED,
                "homomorphic operations take streams of the fast codec only, not dense ones "
                "(use zcoll_doc_combine)");
  return ZCOLL_SUCCESS;
}

zcoll_status check_out(void* out, size_t cap, size_t* out_size, const Header& h) {
  if (!out || !out_size) return fail(ZCOLL_ERR_INVALID_ARG, "NULL output argument");
  const size_t bound = zcoll_compress_bound(h.n, h.dtype);
  if (cap < bound)
    return fail(ZCOLL_ERR_BUFFER_TOO_SMALL, "output capacity %zu < zcoll_compress_bound = %zu", cap,
                bound);
  return ZCOLL_SUCCESS;
}

// Write the result header+index after chunk data was produced at dst+begin.
void finish_stream(uint8_t* dst, const Header& h, const std::vector<uint32_t>& sizes) {
  for (uint64_t c = 0; c < sizes.size(); ++c) store_u32(dst + kHeaderBytes + 4 * c, sizes[c]);
  write_header(dst, h);
}

uint32_t add_terms(uint32_t a, uint32_t b) {
  uint64_t t = uint64_t{a} + b;
  return t > 0xFFFFFFFFu ? 0xFFFFFFFFu : static_cast<uint32_t>(t);
}

template <typename T>
zcoll_status hom_binary(const StreamView& va, const StreamView& vb, HomOp op, uint8_t* dst,
                        size_t* out_size, int threads, zcoll_hom_stats* stats) {
  Header h = va.h;
  h.eb = va.h.eb + vb.h.eb;
  h.terms = add_terms(va.h.terms, vb.h.terms);
  h.flags = va.h.flags | vb.h.flags;  // checksummed if an input is (recomputed below)
  const uint64_t chunks = h.chunks();
  const size_t begin = header_and_index_bytes(chunks);
  std::vector<uint32_t> sizes(chunks), crcs(h.checksummed() ? chunks : 0);
  const int nt = resolve_threads(threads, chunks);
  // Per run: the float path's scratch and the counts. One run (the collectives'
  // default of one thread) allocates nothing here: on emptied caches every
  // allocation is memory the call waits for.
  struct RunState {
    std::vector<T> a, b;
    Counts counts;
  } one;
  std::vector<RunState> more(nt > 1 ? nt : 0);
  RunState* runs = nt > 1 ? more.data() : &one;
  const PairChecks checks{va, vb, op == HomOp::kNegate};
  uint64_t bad = chunks;
  size_t written = produce_chunks(
      0, chunks, nt, dst + begin, sizes.data(),
      [&](uint64_t c) { return raw_chunk_bytes(h.chunk_len(c), sizeof(T)); },
      [&](uint64_t c, uint8_t* out, int t) {
        return hom_add_chunk<T>(va, vb, c, op, runs[t].a, runs[t].b, out, &runs[t].counts);
      },
      h.checksummed() ? crcs.data() : nullptr, checks, &bad);
  if (bad != chunks) return checks.error(bad);
  finish_stream(dst, h, sizes);
  if (h.checksummed()) written += write_trailer(dst + begin + written, crcs.data(), chunks);
  *out_size = begin + written;
  if (stats) {  // in and out: the caller's counts (as far as its struct goes) plus ours
    zcoll_hom_stats st = ZCOLL_HOM_STATS_INITIALIZER;
    read_struct_prefix(stats, sizeof st, &st);
    for (int t = 0; t < nt; ++t) {
      const Counts& k = runs[t].counts;
      for (int i = 0; i < 4; ++i) st.pipeline[i] += k.pipeline[i];
      st.raw_chunks += k.raw;
      st.widened_chunks += k.widened;
    }
    write_struct(stats, st);
  }
  return ZCOLL_SUCCESS;
}

// A valid stream of zeros with the header fields (dtype, n, chunking, quantum,
// divisor) of h: one quantized chunk per chunk, anchor 0, every block constant.
zcoll_status make_zero_stream(const Header& like, std::vector<uint8_t>* out) {
  Header h = like;
  h.flags = 0;  // internal operand: no checksum trailer
  const uint64_t chunks = h.chunks();
  std::vector<uint32_t> sizes(chunks);
  size_t total = header_and_index_bytes(chunks);
  for (uint64_t c = 0; c < chunks; ++c) {
    const uint32_t nblocks = (h.chunk_len(c) + kBlock - 1) / kBlock;
    sizes[c] = static_cast<uint32_t>(align8(kQuantChunkHeaderBytes + align4(nblocks)));
    total += sizes[c];
  }
  out->assign(total, 0);  // kind 0, anchor 0, qmax 0, code lengths 0
  finish_stream(out->data(), h, sizes);
  return ZCOLL_SUCCESS;
}

// stats may be NULL; otherwise its struct_size must be that of a known version.
zcoll_status check_stats(const zcoll_hom_stats* stats) {
  if (!stats) return ZCOLL_SUCCESS;
  return check_out_struct(stats, ZCOLL_STRUCT_V1_SIZE(zcoll_hom_stats, widened_chunks), "stats");
}

zcoll_status hom_entry(const void* a, size_t a_size, const void* b, size_t b_size, void* out,
                       size_t cap, size_t* out_size, zcoll_hom_stats* stats, int threads,
                       bool subtract) {
  clear_error();
  ZCOLL_CHECK(check_threads(threads));
  ZCOLL_CHECK(check_stats(stats));
  StreamView va, vb;
  ZCOLL_CHECK(open_pair(a, a_size, b, b_size, &va, &vb));
  ZCOLL_CHECK(refuse_dense(va, &vb));
  ZCOLL_CHECK(check_out(out, cap, out_size, va.h));
  auto* d = static_cast<uint8_t*>(out);
  const HomOp op = subtract ? HomOp::kSub : HomOp::kAdd;
  return with_value_type(va.h.dtype, [&](auto tag) {
    return hom_binary<decltype(tag)>(va, vb, op, d, out_size, threads, stats);
  });
}

// ---- decompress-operate-compress ------------------------------------------------

// x[i] = x[i] op y[i]; one loop per op so that each vectorizes. MAX/MIN return
// NaN when either input is NaN, as MPI_MAX/MIN on NaN-aware data would; every
// NaN result is the canonical one (hd::canonical_nan), as on the GPU.
template <typename T>
void apply_op(zcoll_op op, T* x, const T* y, uint32_t len) {
  const T nan = hd::canonical_nan(std::numeric_limits<T>::quiet_NaN());
  switch (op) {
    case ZCOLL_OP_SUM:
      for (uint32_t i = 0; i < len; ++i) {
        const T r = x[i] + y[i];
        x[i] = r != r ? nan : r;
      }
      break;
    case ZCOLL_OP_PROD:
      for (uint32_t i = 0; i < len; ++i) {
        const T r = x[i] * y[i];
        x[i] = r != r ? nan : r;
      }
      break;
    case ZCOLL_OP_MAX:
      for (uint32_t i = 0; i < len; ++i) {
        const T a = x[i], b = y[i];
        x[i] = (a != a || b != b) ? nan : (a > b ? a : b);
      }
      break;
    case ZCOLL_OP_MIN:
      for (uint32_t i = 0; i < len; ++i) {
        const T a = x[i], b = y[i];
        x[i] = (a != a || b != b) ? nan : (a < b ? a : b);
      }
      break;
  }
}

// The 16-bit types: the op in float, each result rounded once to 16 bits.
template <typename T>
void apply_op_widened(zcoll_op op, T* x, const T* y, uint32_t len) {
  using V = ValueTraits<T>;
  constexpr uint32_t kStep = 256;
  float wx[kStep], wy[kStep];
  for (uint32_t i = 0; i < len; i += kStep) {
    const uint32_t m = len - i < kStep ? len - i : kStep;
    for (uint32_t j = 0; j < m; ++j) wx[j] = V::widen(x[i + j]), wy[j] = V::widen(y[i + j]);
    apply_op<float>(op, wx, wy, m);
    for (uint32_t j = 0; j < m; ++j) x[i + j] = V::narrow(wx[j]);
  }
}
template <>
void apply_op<Bf16>(zcoll_op op, Bf16* x, const Bf16* y, uint32_t len) {
  apply_op_widened(op, x, y, len);
}
template <>
void apply_op<Fp16>(zcoll_op op, Fp16* x, const Fp16* y, uint32_t len) {
  apply_op_widened(op, x, y, len);
}

template <typename T>
zcoll_status doc_typed(const StreamView& va, const StreamView& vb, zcoll_op op, uint8_t* dst,
                       size_t* out_size, int threads) {
  Quantizer<T> qz;
  double eb_single = 0;
  if (!make_quantizer_for_quantum<T>(va.h.quantum, &qz, &eb_single))
    return fail(ZCOLL_ERR_CORRUPT, "quantum %g cannot be used", va.h.quantum);
  Header h = va.h;
  h.divisor = 1;  // values are re-encoded as they are
  h.terms = add_terms(va.h.terms, vb.h.terms);
  h.flags = va.h.flags | vb.h.flags;  // checksummed if an input is (recomputed below)
  const uint64_t chunks = h.chunks();
  const size_t begin = header_and_index_bytes(chunks);
  std::vector<uint32_t> sizes(chunks), crcs(h.checksummed() ? chunks : 0);
  const int nt = resolve_threads(threads, chunks);
  std::vector<std::vector<T>> ta(nt), tb(nt);
  std::vector<double> prod_bound(nt, 0.0);
  const double ea = va.h.eb, eb = vb.h.eb;
  const ChunkKernels& k = active_kernels();
  const PairChecks checks{va, vb};
  uint64_t bad = chunks;
  size_t written = produce_chunks(
      0, chunks, nt, dst + begin, sizes.data(),
      [&](uint64_t c) { return raw_chunk_bytes(h.chunk_len(c), sizeof(T)); },
      [&](uint64_t c, uint8_t* out, int t) {
        if (ta[t].empty()) ta[t].resize(h.chunk_size), tb[t].resize(h.chunk_size);
        const uint32_t len = h.chunk_len(c);
        decode_chunk<T>(va, c, ta[t].data(), false, true);
        decode_chunk<T>(vb, c, tb[t].data(), false, true);
        T* x = ta[t].data();
        const T* y = tb[t].data();
        if (op == ZCOLL_OP_PROD) {  // |x'y' - xy| <= |y'| ea + (|x'| + ea) eb
          double m = prod_bound[t];
          for (uint32_t i = 0; i < len; ++i) {
            const double yi = ValueTraits<T>::widen(y[i]), xi = ValueTraits<T>::widen(x[i]);
            double bnd = std::fabs(yi) * ea + (std::fabs(xi) + ea) * eb;
            // non-finite products are stored exactly (raw chunks) and carry no bound
            if (std::isfinite(bnd) && bnd > m) m = bnd;
          }
          prod_bound[t] = m;
        }
        apply_op(op, x, y, len);  // dense in: dense out (the codec of the collective)
        return h.dense() ? compress_dense_chunk<T>(x, len, qz, out)
                         : compress_chunk<T>(k, x, len, qz, out);
      },
      h.checksummed() ? crcs.data() : nullptr, checks, &bad);
  if (bad != chunks) return checks.error(bad);
  double prior = 0;
  switch (op) {
    case ZCOLL_OP_SUM: prior = ea + eb; break;
    case ZCOLL_OP_MAX:
    case ZCOLL_OP_MIN: prior = ea > eb ? ea : eb; break;
    case ZCOLL_OP_PROD:
      for (double m : prod_bound) prior = m > prior ? m : prior;
      break;
  }
  // (not counted: the rounding of the operation itself in T, half an ulp of a result)
  h.eb = prior + eb_single;
  finish_stream(dst, h, sizes);
  if (h.checksummed()) written += write_trailer(dst + begin + written, crcs.data(), chunks);
  *out_size = begin + written;
  return ZCOLL_SUCCESS;
}

// ---- the entry points' bodies ----------------------------------------------

zcoll_status hom_negate(const void* in, size_t in_size, void* out, size_t cap, size_t* out_size,
                        int threads) {
  clear_error();
  ZCOLL_CHECK(check_threads(threads));
  StreamView v;
  ZCOLL_CHECK(parse_stream(in, in_size, &v));  // its chunks: checked by hom_binary's team
  ZCOLL_CHECK(refuse_dense(v));
  ZCOLL_CHECK(check_out(out, cap, out_size, v.h));
  // 0 - a: a stream of zeros at the same quantum has constant blocks everywhere,
  // so every block takes pipeline 1 (planes negated by the adder).
  std::vector<uint8_t> zero;
  ZCOLL_CHECK(make_zero_stream(v.h, &zero));
  StreamView vz;
  ZCOLL_CHECK(parse_stream(zero.data(), zero.size(), &vz));
  auto* d = static_cast<uint8_t*>(out);
  zcoll_status s = with_value_type(v.h.dtype, [&](auto tag) {
    return hom_binary<decltype(tag)>(vz, v, HomOp::kNegate, d, out_size, threads, nullptr);
  });
  if (s != ZCOLL_SUCCESS) return s;
  Header h = v.h;  // same bound and terms as the input
  StreamView vo;
  ZCOLL_CHECK(parse_stream(out, *out_size, &vo));
  std::vector<uint32_t> sizes(vo.chunks);
  for (uint64_t c = 0; c < vo.chunks; ++c) sizes[c] = static_cast<uint32_t>(vo.chunk_bytes(c));
  finish_stream(d, h, sizes);
  return ZCOLL_SUCCESS;
}

zcoll_status hom_accumulate(void* acc, size_t acc_size, size_t acc_cap, size_t* acc_new_size,
                            const void* b, size_t b_size, zcoll_hom_stats* stats, int threads) {
  clear_error();
  if (!acc || !acc_new_size) return fail(ZCOLL_ERR_INVALID_ARG, "NULL argument");
  ZCOLL_CHECK(check_threads(threads));
  ZCOLL_CHECK(check_stats(stats));
  StreamView va, vb;
  ZCOLL_CHECK(open_pair(acc, acc_size, b, b_size, &va, &vb));
  ZCOLL_CHECK(refuse_dense(va, &vb));
  std::vector<uint8_t> tmp(zcoll_compress_bound(va.h.n, va.h.dtype));
  size_t n = 0;
  zcoll_status s = with_value_type(va.h.dtype, [&](auto tag) {
    return hom_binary<decltype(tag)>(va, vb, HomOp::kAdd, tmp.data(), &n, threads, stats);
  });
  if (s != ZCOLL_SUCCESS) return s;
  if (n > acc_cap)
    return fail(ZCOLL_ERR_BUFFER_TOO_SMALL,
                "the sum needs %zu bytes, the accumulator holds %zu (left unchanged)", n, acc_cap);
  std::memcpy(acc, tmp.data(), n);
  *acc_new_size = n;
  return ZCOLL_SUCCESS;
}

zcoll_status hom_set_divisor(void* stream, size_t size, uint32_t divisor) {
  clear_error();
  if (divisor == 0) return fail(ZCOLL_ERR_INVALID_ARG, "divisor must be >= 1");
  StreamView v;
  ZCOLL_CHECK(parse_stream(stream, size, &v));
  Header h = v.h;
  // the bound scales with the values: eb of the sum / divisor
  h.eb = v.h.eb * static_cast<double>(v.h.divisor) / static_cast<double>(divisor);
  h.divisor = divisor;
  write_header(static_cast<uint8_t*>(stream), h);
  return ZCOLL_SUCCESS;
}

zcoll_status doc_combine(const void* a, size_t a_size, const void* b, size_t b_size, zcoll_op op,
                         void* out, size_t cap, size_t* out_size, int threads) {
  clear_error();
  if (op != ZCOLL_OP_SUM && op != ZCOLL_OP_PROD && op != ZCOLL_OP_MAX && op != ZCOLL_OP_MIN)
    return fail(ZCOLL_ERR_UNSUPPORTED, "unknown reduction op %d", static_cast<int>(op));
  ZCOLL_CHECK(check_threads(threads));
  StreamView va, vb;
  ZCOLL_CHECK(open_pair(a, a_size, b, b_size, &va, &vb));
  ZCOLL_CHECK(check_out(out, cap, out_size, va.h));
  auto* d = static_cast<uint8_t*>(out);
  return with_value_type(va.h.dtype, [&](auto tag) {
    return doc_typed<decltype(tag)>(va, vb, op, d, out_size, threads);
  });
}


}  // namespace
}  // namespace zcoll

using namespace zcoll;

extern "C" {

zcoll_status zcoll_hom_add(const void* a, size_t a_size, const void* b, size_t b_size, void* out,
                           size_t cap, size_t* out_size, zcoll_hom_stats* stats, int threads) {
  return guarded("zcoll_hom_add", [&] {
    return hom_entry(a, a_size, b, b_size, out, cap, out_size, stats, threads, false);
  });
}

zcoll_status zcoll_hom_sub(const void* a, size_t a_size, const void* b, size_t b_size, void* out,
                           size_t cap, size_t* out_size, zcoll_hom_stats* stats, int threads) {
  return guarded("zcoll_hom_sub", [&] {
    return hom_entry(a, a_size, b, b_size, out, cap, out_size, stats, threads, true);
  });
}

zcoll_status zcoll_hom_negate(const void* in, size_t in_size, void* out, size_t cap,
                              size_t* out_size, int threads) {
  return guarded("zcoll_hom_negate",
                 [&] { return hom_negate(in, in_size, out, cap, out_size, threads); });
}

zcoll_status zcoll_hom_accumulate(void* acc, size_t acc_size, size_t acc_cap, size_t* acc_new_size,
                                  const void* b, size_t b_size, zcoll_hom_stats* stats,
                                  int threads) {
  return guarded("zcoll_hom_accumulate", [&] {
    return hom_accumulate(acc, acc_size, acc_cap, acc_new_size, b, b_size, stats, threads);
  });
}

zcoll_status zcoll_hom_set_divisor(void* stream, size_t size, uint32_t divisor) {
  return guarded("zcoll_hom_set_divisor", [&] { return hom_set_divisor(stream, size, divisor); });
}

const char* zcoll_op_name(zcoll_op op) {
  switch (op) {
    case ZCOLL_OP_SUM: return "SUM";
    case ZCOLL_OP_PROD: return "PROD";
    case ZCOLL_OP_MAX: return "MAX";
    case ZCOLL_OP_MIN: return "MIN";
  }
  return "?";
}

zcoll_status zcoll_doc_combine(const void* a, size_t a_size, const void* b, size_t b_size,
                               zcoll_op op, void* out, size_t cap, size_t* out_size, int threads) {
  return guarded("zcoll_doc_combine", [&] {
    return doc_combine(a, a_size, b, b_size, op, out, cap, out_size, threads);
  });
}

}  // extern "C"
