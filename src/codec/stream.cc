// stream.cc — the public compressor API: whole streams and chunk ranges,
// threaded by chunk (the bytes never depend on the thread count).
#include <omp.h>

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

#include "codec/chunk_codec.h"
#include "codec/dense.h"
#include "codec/format.h"
#include "codec/stream_internal.h"
#include "core/error.h"
#include "core/struct_io.h"

namespace zcoll {

int resolve_threads(int threads, uint64_t work_items) {
  int t = threads > 0 ? threads : omp_get_max_threads();
  if (work_items < static_cast<uint64_t>(t))
    t = static_cast<int>(std::max<uint64_t>(work_items, 1));
  return std::max(t, 1);
}

zcoll_status check_threads(int threads) {
  if (threads < 0) return fail(ZCOLL_ERR_INVALID_ARG, "threads must be >= 0, got %d", threads);
  return ZCOLL_SUCCESS;
}

// core/params.cc checks chunk sizes against blocks of 32 values.
static_assert(kBlock == 32, "chunk-size rule of core/params.cc");

// The strides of p's dims that the dense codec's n-D prediction may use.
static DenseShape shape_of(const zcoll_params& p) {
  return p.codec == ZCOLL_CODEC_DENSE ? dense_shape_of(p.dims, p.ndims) : DenseShape{};
}

// The arguments every compressing entry point checks first (the chunk size:
// the caller's, else the dense codec's for dims, else the default).
zcoll_status check_compress_args(const zcoll_params* in, zcoll_dtype dtype, int threads,
                                 zcoll_params* p, uint32_t* chunk_size) {
  ZCOLL_CHECK(check_params(in, p, chunk_size));
  if (p->chunk_size == 0) *chunk_size = dense_chunk_size(shape_of(*p), *chunk_size);
  ZCOLL_CHECK(check_dtype(dtype));
  return check_threads(threads);
}

namespace {

// Compress chunks [first, last) compactly into dst (chunk data only).
// crcs (may be null): the CRC-32C of each chunk of the range.
// The codec is h's: dense chunks under kFlagDense, the fast codec's otherwise.
template <typename T>
void compress_range(const T* src, const Header& h, const Quantizer<T>& qz, uint64_t first,
                    uint64_t last, uint8_t* dst, int threads, size_t* written, uint32_t* sizes,
                    const DenseShape& shape, uint32_t* crcs = nullptr) {
  const ChunkKernels& k = active_kernels();
  const bool dense = h.dense();
  *written = produce_chunks(
      first, last, threads, dst, sizes,
      [&](uint64_t c) { return raw_chunk_bytes(h.chunk_len(c), sizeof(T)); },
      [&](uint64_t c, uint8_t* out, int) {
        const T* x = src + c * h.chunk_size;
        return dense ? compress_dense_chunk<T>(x, h.chunk_len(c), qz, out, shape)
                     : compress_chunk<T>(k, x, h.chunk_len(c), qz, out);
      },
      crcs);
}

// The header flags of params p: its flags, and kFlagDense for the dense codec.
uint8_t header_flags(const zcoll_params& p) {
  return static_cast<uint8_t>(p.flags | (p.codec == ZCOLL_CODEC_DENSE ? kFlagDense : 0u));
}

template <typename T>
zcoll_status compress_typed(const T* src, size_t n, double eb, uint32_t cs, uint8_t flags,
                            const DenseShape& shape, int threads, uint8_t* dst, size_t* dst_size) {
  Quantizer<T> qz;
  if (!make_quantizer<T>(eb, &qz))
    return fail(ZCOLL_ERR_INVALID_ARG, "error bound %g cannot be used as a quantization step", eb);
  Header h;
  h.dtype = ValueTraits<T>::kDtype;
  h.chunk_size = cs;
  h.n = n;
  h.eb = eb;
  h.quantum = qz.quantum;
  h.flags = flags;
  const uint64_t chunks = h.chunks();
  const size_t begin = header_and_index_bytes(chunks);
  std::vector<uint32_t> sizes(chunks);
  std::vector<uint32_t> crcs(h.checksummed() ? chunks : 0);
  size_t written = 0;
  if (chunks)
    compress_range<T>(src, h, qz, 0, chunks, dst + begin, threads, &written, sizes.data(), shape,
                      h.checksummed() ? crcs.data() : nullptr);
  for (uint64_t c = 0; c < chunks; ++c) store_u32(dst + kHeaderBytes + 4 * c, sizes[c]);
  write_header(dst, h);
  if (h.checksummed()) written += write_trailer(dst + begin + written, crcs.data(), chunks);
  *dst_size = begin + written;
  return ZCOLL_SUCCESS;
}

// How far ahead of the chunk it checks check_chunk brings a chunk's head in.
constexpr uint64_t kCheckAhead = 4;

}  // namespace

// Check the framing of chunk c (cheap: kind byte and code lengths, and its checksum
// where the stream has them), so that a decode never starts on a stream it would have
// to abandon half way. report: say why through fail() (the calling thread's error
// message); else only the status.
// The callers check chunks in order, and on caches that other work has emptied
// each head is a wait for memory: a head is a new stream to the hardware's
// prefetchers, a whole compressed chunk past the last. So each check also brings
// in the head of chunk c + kCheckAhead: a cold 1-thread hom add took 0.909 of its
// time at the median of shared/data's 33 rows
// (docs/reports/2026-11-30-codec-frontier-19.md).
zcoll_status check_chunk(const StreamView& v, uint64_t c, bool report) {
  // (In the function itself: GCC drops a call to a function whose only effect is
  // a prefetch.)
  if (const uint64_t ahead = c + kCheckAhead; ahead < v.h.chunks()) {
    const uint32_t nblocks = (v.h.chunk_len(ahead) + kBlock - 1) / kBlock;
    const size_t head = std::min(v.chunk_bytes(ahead), kQuantChunkHeaderBytes + size_t{nblocks});
    const uint8_t* at = v.chunk(ahead);
    for (size_t o = 0; o < head; o += 64) __builtin_prefetch(at + o);
    __builtin_prefetch(at + head - 1);  // the last line, where the head does not start one
  }
  const auto bad = [&](const char* fmt, auto... args) {
    return report ? fail(ZCOLL_ERR_CORRUPT, fmt, static_cast<unsigned long long>(c), args...)
                  : ZCOLL_ERR_CORRUPT;
  };
  const uint8_t* in = v.chunk(c);
  size_t bytes = v.chunk_bytes(c);
  uint32_t len = v.h.chunk_len(c);
  if (in[0] == kChunkRaw) {
    if (bytes != raw_chunk_bytes(len, v.h.value_bytes()))
      return bad("chunk %llu: raw chunk has %zu bytes, expected %zu", bytes,
                 raw_chunk_bytes(len, v.h.value_bytes()));
  } else if (in[0] == kChunkQuantized) {
    if (validate_quantized_chunk(in, bytes, len) == 0)
      return bad("chunk %llu: code lengths do not match its size");
  } else if (in[0] == kChunkDense && v.h.dense()) {
    if (!validate_dense_chunk(in, bytes)) return bad("chunk %llu: malformed dense chunk");
  } else {
    return bad("chunk %llu: unknown chunk kind %u", static_cast<unsigned>(in[0]));
  }
  if (v.sums && crc32c(0, in, bytes) != load_u32(v.sums + 4 * c))
    return bad("chunk %llu: checksum mismatch (CRC-32C)");
  return ZCOLL_SUCCESS;
}

// Check chunks [first, last) in order; the first bad one says why.
zcoll_status validate_chunks_serial(const StreamView& v, uint64_t first, uint64_t last) {
  for (uint64_t c = first; c < last; ++c) ZCOLL_CHECK(check_chunk(v, c, true));
  return ZCOLL_SUCCESS;
}

namespace {

// Check and decode chunks [first, last) in one parallel region: each thread checks
// its run of chunks, and after the barrier every thread decodes its run if no run
// had a bad chunk (a decode never starts on a stream it would have to abandon half
// way), none otherwise; the calling thread then names the first bad chunk
// (validate_chunks_serial: the message of a check in order). (One region instead of two: on a shared machine every region
// waits until all its threads have a core.)
// A thread that checks a dense chunk of predictor 3 or 4 also allocates the
// decoder's array for it (dense.h: dense_decode_reserve), so that the decode
// cannot fail either; if that allocation fails, nothing is decoded and the call
// returns ZCOLL_ERR_NO_MEMORY (a bad chunk is reported first).
template <typename T>
zcoll_status decompress_range(const StreamView& v, uint64_t first, uint64_t last, T* dst,
                              bool accumulate, int threads) {
  const uint64_t count = last - first;
  const int nt = resolve_threads(threads, count);
  std::vector<uint64_t> bad(nt, last);
  std::vector<char> no_memory(nt, 0);
  const auto run_begin = [&](int t) { return first + count * t / nt; };  // run t's first chunk
  const auto check_run = [&](int t) {
    const uint64_t hi = run_begin(t + 1);
    for (uint64_t c = run_begin(t); c < hi && bad[t] == last; ++c) {
      if (check_chunk(v, c, false) != ZCOLL_SUCCESS)
        bad[t] = c;
      else if (v.chunk(c)[0] == kChunkDense && dense_decode_needs_scratch(v.chunk(c)) &&
               !dense_decode_reserve(v.h.chunk_len(c)))
        no_memory[t] = 1;
    }
  };
  const auto all_checked = [&] {
    return std::all_of(bad.begin(), bad.end(), [&](uint64_t b) { return b == last; }) &&
           std::none_of(no_memory.begin(), no_memory.end(), [](char m) { return m != 0; });
  };
  const auto decode_run = [&](int t) {
    const uint64_t hi = run_begin(t + 1);
    for (uint64_t c = run_begin(t); c < hi; ++c) {
      T* out = dst + c * v.h.chunk_size;
      if (c + 1 < hi && decode_chunk_pair<T>(v, c, out, accumulate, true))
        ++c;  // and c + 1 with it
      else
        decode_chunk<T>(v, c, out, accumulate, true);
    }
  };
  if (nt == 1) {  // no team (resolve_threads)
    check_run(0);
    if (all_checked()) decode_run(0);
  } else {
#pragma omp parallel num_threads(nt)
    {  // runs by the team the runtime gave (produce_chunks)
      const int me = omp_get_thread_num(), team = omp_get_num_threads();
      for (int t = me; t < nt; t += team) check_run(t);
#pragma omp barrier
      if (all_checked())
        for (int t = me; t < nt; t += team) decode_run(t);
    }
  }
  const uint64_t b = *std::min_element(bad.begin(), bad.end());
  if (b != last) return validate_chunks_serial(v, b, b + 1);
  if (std::any_of(no_memory.begin(), no_memory.end(), [](char m) { return m != 0; }))
    return fail(ZCOLL_ERR_NO_MEMORY, "decompress: out of memory (the dense decoder's array)");
  return ZCOLL_SUCCESS;
}

zcoll_status decompress_impl(const void* src, size_t src_size, uint64_t first, uint64_t last,
                             bool whole, void* dst, size_t dst_count, bool accumulate,
                             int threads) {
  StreamView v;
  ZCOLL_CHECK(parse_stream(src, src_size, &v));
  if (whole) last = v.chunks;
  if (first > last || last > v.chunks)
    return fail(ZCOLL_ERR_INVALID_ARG, "chunk range [%llu, %llu) outside the %llu chunks",
                static_cast<unsigned long long>(first), static_cast<unsigned long long>(last),
                static_cast<unsigned long long>(v.chunks));
  if (dst_count < v.h.n)
    return fail(ZCOLL_ERR_BUFFER_TOO_SMALL, "output holds %zu values, the stream has %llu",
                dst_count, static_cast<unsigned long long>(v.h.n));
  if (v.h.n && dst == nullptr) return fail(ZCOLL_ERR_INVALID_ARG, "output pointer is NULL");
  ZCOLL_CHECK(check_threads(threads));
  if (first == last) return ZCOLL_SUCCESS;
  return with_value_type(v.h.dtype, [&](auto tag) {
    using T = decltype(tag);
    return decompress_range<T>(v, first, last, static_cast<T*>(dst), accumulate, threads);
  });
}

template <typename T>
void range_native(const T* x, size_t n, int threads, double* mn, double* mx,
                  bool zero_if_none = true) {
  const int nt = resolve_threads(threads, n / 65536 + 1);
  std::vector<T> lo(nt), hi(nt);
  const auto range_run = [&](int t) {
    const size_t a = n * t / nt, b = n * (t + 1) / nt;
    value_range<T>(active_kernels(), x + a, b - a, &lo[t], &hi[t]);
  };
  if (nt == 1) {  // no team (resolve_threads)
    range_run(0);
  } else {
#pragma omp parallel num_threads(nt)
    for (int t = omp_get_thread_num(); t < nt; t += omp_get_num_threads()) range_run(t);
  }
  T l = lo[0], h = hi[0];
  for (int t = 1; t < nt; ++t) l = lo[t] < l ? lo[t] : l, h = hi[t] > h ? hi[t] : h;
  if (l > h && zero_if_none) l = h = 0;  // no finite value (else +inf, -inf)
  *mn = l;
  *mx = h;
}

// The range of 16-bit values: widened to float in blocks, then the float pass
// (every 16-bit value is a float, so min and max are the same values).
template <typename T>
void range_widened(const T* x, size_t n, double* mn, double* mx, bool zero_if_none) {
  constexpr size_t kBlockValues = 4096;
  float buf[kBlockValues];
  float lo = std::numeric_limits<float>::infinity(), hi = -lo;
  for (size_t i = 0; i < n; i += kBlockValues) {
    const size_t len = std::min(kBlockValues, n - i);
    for (size_t j = 0; j < len; ++j) buf[j] = ValueTraits<T>::widen(x[i + j]);
    float l, h;
    value_range<float>(active_kernels(), buf, len, &l, &h);
    lo = l < lo ? l : lo;
    hi = h > hi ? h : hi;
  }
  if (lo > hi && zero_if_none) lo = hi = 0;  // no finite value (else +inf, -inf)
  *mn = lo;
  *mx = hi;
}

template <typename T>
void range_typed(const T* x, size_t n, int threads, double* mn, double* mx,
                 bool zero_if_none = true) {
  if constexpr (sizeof(T) == 2)
    range_widened(x, n, mn, mx, zero_if_none);
  else
    range_native(x, n, threads, mn, mx, zero_if_none);
}

}  // namespace

namespace {

// The absolute bound of params p (already checked) for this data.
zcoll_status resolve_bound(const zcoll_params& p, zcoll_dtype dtype, const void* src, size_t n,
                           int threads, double* abs_bound) {
  if (p.eb_mode == ZCOLL_EB_ABS) {
    *abs_bound = p.error_bound;
    return ZCOLL_SUCCESS;
  }
  if (n && !src) return fail(ZCOLL_ERR_INVALID_ARG, "NULL pointer argument");
  double mn, mx;
  with_value_type(dtype, [&](auto tag) {
    using T = decltype(tag);
    range_typed(static_cast<const T*>(src), n, threads, &mn, &mx);
  });
  const double eb = rel_to_abs_bound(p.error_bound, mn, mx);  // shared_logic.h
  *abs_bound = eb;
  return ZCOLL_SUCCESS;
}

zcoll_status compress_chunks_impl(const zcoll_params& p, uint32_t cs, zcoll_dtype dtype,
                                  const void* src, size_t n, size_t first, size_t last, void* dst,
                                  size_t cap, size_t* written, uint32_t* sizes, int threads) {
  if (p.eb_mode != ZCOLL_EB_ABS)
    return fail(ZCOLL_ERR_INVALID_ARG, "chunk-range compression needs an absolute bound");
  if ((n && !src) || !written || (last > first && (!dst || !sizes)))
    return fail(ZCOLL_ERR_INVALID_ARG, "NULL pointer argument");
  Header h;
  h.dtype = dtype;
  h.chunk_size = cs;
  h.n = n;
  h.flags = header_flags(p);
  if (first > last || last > h.chunks())
    return fail(ZCOLL_ERR_INVALID_ARG, "chunk range [%zu, %zu) outside the %llu chunks", first,
                last, static_cast<unsigned long long>(h.chunks()));
  const size_t vb = h.value_bytes();
  size_t need = 0;
  for (size_t c = first; c < last; ++c) need += raw_chunk_bytes(h.chunk_len(c), vb);
  if (cap < need)
    return fail(ZCOLL_ERR_BUFFER_TOO_SMALL, "chunks [%zu, %zu) may need %zu bytes, %zu given",
                first, last, need, cap);
  *written = 0;
  if (first == last) return ZCOLL_SUCCESS;
  auto* d = static_cast<uint8_t*>(dst);
  return with_value_type(dtype, [&](auto tag) {
    using T = decltype(tag);
    Quantizer<T> qz;
    if (!make_quantizer<T>(p.error_bound, &qz))
      return fail(ZCOLL_ERR_INVALID_ARG, "unusable error bound %g", p.error_bound);
    compress_range<T>(static_cast<const T*>(src), h, qz, first, last, d, threads, written, sizes,
                      shape_of(p));
    return ZCOLL_SUCCESS;
  });
}

zcoll_status compress_finish_impl(const zcoll_params& p, uint32_t cs, zcoll_dtype dtype, size_t n,
                                  const uint32_t* sizes, void* dst, size_t cap) {
  if (p.eb_mode != ZCOLL_EB_ABS)
    return fail(ZCOLL_ERR_INVALID_ARG, "chunk-range compression needs an absolute bound");
  Header h;
  h.dtype = dtype;
  h.chunk_size = cs;
  h.n = n;
  h.eb = p.error_bound;
  h.flags = header_flags(p);
  const bool ok = with_value_type(dtype, [&](auto tag) {
    using T = decltype(tag);
    Quantizer<T> q;
    const bool usable = make_quantizer<T>(p.error_bound, &q);
    h.quantum = q.quantum;
    return usable;
  });
  if (!ok) return fail(ZCOLL_ERR_INVALID_ARG, "unusable error bound %g", p.error_bound);
  const uint64_t chunks = h.chunks();
  if (!dst || (chunks && !sizes)) return fail(ZCOLL_ERR_INVALID_ARG, "NULL pointer argument");
  if (cap < header_and_index_bytes(chunks))
    return fail(ZCOLL_ERR_BUFFER_TOO_SMALL, "header and index need %zu bytes",
                header_and_index_bytes(chunks));
  auto* d = static_cast<uint8_t*>(dst);
  if (h.checksummed()) {  // the trailer after the chunks, which are in place
    uint64_t end = header_and_index_bytes(chunks);
    for (uint64_t c = 0; c < chunks; ++c) end += sizes[c];
    const uint64_t need = end + trailer_bytes(chunks);
    if (cap < need)
      return fail(ZCOLL_ERR_BUFFER_TOO_SMALL, "the stream with its checksums needs %llu bytes",
                  static_cast<unsigned long long>(need));
    append_trailer(h, d + header_and_index_bytes(chunks), sizes);
  }
  for (uint64_t c = 0; c < chunks; ++c) store_u32(d + kHeaderBytes + 4 * c, sizes[c]);
  write_header(d, h);
  return ZCOLL_SUCCESS;
}

zcoll_status stream_size_impl(const void* src, size_t src_size, size_t* stream_size) {
  if (!stream_size) return fail(ZCOLL_ERR_INVALID_ARG, "stream_size is NULL");
  Header h;
  ZCOLL_CHECK(parse_header(src, src_size, &h));
  const uint64_t chunks = h.chunks();
  const size_t begin = header_and_index_bytes(chunks);
  if (src_size < begin)
    return fail(ZCOLL_ERR_TRUNCATED, "header and index need %zu bytes, %zu given", begin, src_size);
  const auto* s = static_cast<const uint8_t*>(src);
  if (load_u32(s + 44) != header_checksum(s, chunks))
    return fail(ZCOLL_ERR_CORRUPT, "header/index checksum mismatch");
  uint64_t total = begin;
  for (uint64_t c = 0; c < chunks; ++c) total += load_u32(s + kHeaderBytes + 4 * c);
  if (h.checksummed()) total += trailer_bytes(chunks);
  *stream_size = total;
  return ZCOLL_SUCCESS;
}

zcoll_status inspect_impl(const void* src, size_t src_size, zcoll_info* out) {
  ZCOLL_CHECK(check_out_struct(out, ZCOLL_STRUCT_V1_SIZE(zcoll_info, stream_size), "info"));
  StreamView v;
  ZCOLL_CHECK(parse_stream(src, src_size, &v));
  ZCOLL_CHECK(validate_chunks_serial(v, 0, v.chunks));
  zcoll_info info = ZCOLL_INFO_INITIALIZER;
  info.format_version = v.h.version;
  info.dtype = v.h.dtype;
  info.block_size = kBlock;
  info.chunk_size = v.h.chunk_size;
  info.n = v.h.n;
  info.chunks = v.chunks;
  for (uint64_t c = 0; c < v.chunks; ++c) info.raw_chunks += v.chunk(c)[0] == kChunkRaw;
  info.error_bound = v.h.eb;
  info.quantum = v.h.quantum;
  info.divisor = v.h.divisor;
  info.terms = v.h.terms;
  info.header_size = v.data_begin;
  info.stream_size = v.stream_size;
  info.format_flags = v.h.flags;
  write_struct(out, info);
  return ZCOLL_SUCCESS;
}

}  // namespace


size_t append_trailer(const Header& h, uint8_t* data, const uint32_t* sizes) {
  if (!h.checksummed()) return 0;
  const uint64_t chunks = h.chunks();
  std::vector<uint32_t> crcs(chunks);
  size_t pos = 0;
  for (uint64_t c = 0; c < chunks; ++c) {
    crcs[c] = crc32c(0, data + pos, sizes[c]);
    pos += sizes[c];
  }
  return write_trailer(data + pos, crcs.data(), chunks);
}

}  // namespace zcoll

using namespace zcoll;

extern "C" {

void zcoll_params_init(zcoll_params* p) {
  if (!p) return;
  *p = ZCOLL_PARAMS_INITIALIZER;
}

size_t zcoll_dtype_size(zcoll_dtype dtype) { return value_bytes_of(dtype); }

size_t zcoll_compress_bound(size_t n, zcoll_dtype dtype) {
  return compress_bound_hd(n, zcoll_dtype_size(dtype));  // shared_logic.h
}

size_t zcoll_chunk_count(size_t n, uint32_t cs) {
  if (cs == 0) cs = ZCOLL_DEFAULT_CHUNK_SIZE;
  if (cs % kBlock != 0 || cs < ZCOLL_MIN_CHUNK_SIZE || cs > ZCOLL_MAX_CHUNK_SIZE) return 0;
  return (n + cs - 1) / cs;
}

size_t zcoll_header_size(size_t n, uint32_t cs) {
  if (cs == 0) cs = ZCOLL_DEFAULT_CHUNK_SIZE;
  if (cs % kBlock != 0 || cs < ZCOLL_MIN_CHUNK_SIZE || cs > ZCOLL_MAX_CHUNK_SIZE) return 0;
  return header_and_index_bytes((n + cs - 1) / cs);
}

zcoll_status zcoll_value_range(zcoll_dtype dtype, const void* src, size_t n, double* mn, double* mx,
                               int threads) {
  return guarded("zcoll_value_range", [&] {
    clear_error();
    ZCOLL_CHECK(check_dtype(dtype));
    ZCOLL_CHECK(check_threads(threads));
    if ((n && !src) || !mn || !mx) return fail(ZCOLL_ERR_INVALID_ARG, "NULL pointer argument");
    with_value_type(dtype, [&](auto tag) {
      using T = decltype(tag);
      range_typed(static_cast<const T*>(src), n, threads, mn, mx);
    });
    return ZCOLL_SUCCESS;
  });
}

zcoll_status zcoll_value_range_finite(zcoll_dtype dtype, const void* src, size_t n, double* mn,
                                      double* mx, int threads) {
  return guarded("zcoll_value_range_finite", [&] {
    clear_error();
    ZCOLL_CHECK(check_dtype(dtype));
    ZCOLL_CHECK(check_threads(threads));
    if ((n && !src) || !mn || !mx) return fail(ZCOLL_ERR_INVALID_ARG, "NULL pointer argument");
    with_value_type(dtype, [&](auto tag) {
      using T = decltype(tag);
      range_typed(static_cast<const T*>(src), n, threads, mn, mx, false);
    });
    return ZCOLL_SUCCESS;
  });
}

zcoll_status zcoll_resolve_error_bound(const zcoll_params* params, zcoll_dtype dtype,
                                       const void* src, size_t n, double* abs_bound, int threads) {
  return guarded("zcoll_resolve_error_bound", [&] {
    clear_error();
    zcoll_params p;
    uint32_t cs = 0;
    ZCOLL_CHECK(check_compress_args(params, dtype, threads, &p, &cs));
    if (!abs_bound) return fail(ZCOLL_ERR_INVALID_ARG, "abs_bound is NULL");
    return resolve_bound(p, dtype, src, n, threads, abs_bound);
  });
}

zcoll_status zcoll_compress(const zcoll_params* params, zcoll_dtype dtype, const void* src,
                            size_t n, void* dst, size_t cap, size_t* dst_size, int threads) {
  return guarded("zcoll_compress", [&] {
    clear_error();
    zcoll_params p;
    uint32_t cs = 0;
    ZCOLL_CHECK(check_compress_args(params, dtype, threads, &p, &cs));
    ZCOLL_CHECK(check_dims(p, n));
    if ((n && !src) || !dst || !dst_size)
      return fail(ZCOLL_ERR_INVALID_ARG, "NULL pointer argument");
    const size_t bound = zcoll_compress_bound(n, dtype);
    if (bound == 0) return fail(ZCOLL_ERR_INVALID_ARG, "%zu values exceed any stream size", n);
    if (cap < bound)
      return fail(ZCOLL_ERR_BUFFER_TOO_SMALL, "output capacity %zu < zcoll_compress_bound = %zu",
                  cap, bound);
    double eb = 0;
    ZCOLL_CHECK(resolve_bound(p, dtype, src, n, threads, &eb));
    auto* d = static_cast<uint8_t*>(dst);
    const uint8_t flags = header_flags(p);
    return with_value_type(dtype, [&](auto tag) {
      using T = decltype(tag);
      return compress_typed(static_cast<const T*>(src), n, eb, cs, flags, shape_of(p), threads, d,
                            dst_size);
    });
  });
}

zcoll_status zcoll_compress_chunks(const zcoll_params* params, zcoll_dtype dtype, const void* src,
                                   size_t n, size_t first, size_t last, void* dst, size_t cap,
                                   size_t* written, uint32_t* sizes, int threads) {
  return guarded("zcoll_compress_chunks", [&] {
    clear_error();
    zcoll_params p;
    uint32_t cs = 0;
    ZCOLL_CHECK(check_compress_args(params, dtype, threads, &p, &cs));
    ZCOLL_CHECK(check_dims(p, n));
    return compress_chunks_impl(p, cs, dtype, src, n, first, last, dst, cap, written, sizes,
                                threads);
  });
}

zcoll_status zcoll_compress_finish(const zcoll_params* params, zcoll_dtype dtype, size_t n,
                                   const uint32_t* sizes, void* dst, size_t cap) {
  return guarded("zcoll_compress_finish", [&] {
    clear_error();
    zcoll_params p;
    uint32_t cs = 0;
    ZCOLL_CHECK(check_params(params, &p, &cs));
    if (p.chunk_size == 0) cs = dense_chunk_size(shape_of(p), cs);
    ZCOLL_CHECK(check_dims(p, n));
    ZCOLL_CHECK(check_dtype(dtype));
    return compress_finish_impl(p, cs, dtype, n, sizes, dst, cap);
  });
}

zcoll_status zcoll_decompress(const void* src, size_t src_size, void* dst, size_t dst_count,
                              int threads) {
  return guarded("zcoll_decompress", [&] {
    clear_error();
    return decompress_impl(src, src_size, 0, 0, true, dst, dst_count, false, threads);
  });
}

zcoll_status zcoll_decompress_accumulate(const void* src, size_t src_size, void* dst,
                                         size_t dst_count, int threads) {
  return guarded("zcoll_decompress_accumulate", [&] {
    clear_error();
    return decompress_impl(src, src_size, 0, 0, true, dst, dst_count, true, threads);
  });
}

zcoll_status zcoll_decompress_chunks(const void* src, size_t src_size, size_t first, size_t last,
                                     void* dst, size_t dst_count, int threads) {
  return guarded("zcoll_decompress_chunks", [&] {
    clear_error();
    return decompress_impl(src, src_size, first, last, false, dst, dst_count, false, threads);
  });
}

zcoll_status zcoll_decompress_accumulate_chunks(const void* src, size_t src_size, size_t first,
                                                size_t last, void* dst, size_t dst_count,
                                                int threads) {
  return guarded("zcoll_decompress_accumulate_chunks", [&] {
    clear_error();
    return decompress_impl(src, src_size, first, last, false, dst, dst_count, true, threads);
  });
}

zcoll_status zcoll_stream_size(const void* src, size_t src_size, size_t* stream_size) {
  return guarded("zcoll_stream_size", [&] {
    clear_error();
    return stream_size_impl(src, src_size, stream_size);
  });
}

zcoll_status zcoll_inspect(const void* src, size_t src_size, zcoll_info* info) {
  return guarded("zcoll_inspect", [&] {
    clear_error();
    return inspect_impl(src, src_size, info);
  });
}

}  // extern "C"
