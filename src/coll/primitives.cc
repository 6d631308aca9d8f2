// primitives.cc — the data-path steps shared by every algorithm.
#include "coll/primitives.h"

#include <omp.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <exception>
#include <new>
#include <string>
#include <vector>

#include "coll/algorithms.h"

#include "coll/sim_cost.h"
#include "core/error.h"
#include "transport/clock.h"

namespace zcoll::coll {

namespace {

constexpr uint8_t kMarkerMagic[4] = {'Z', 'E', 'R', 'R'};
constexpr size_t kMarkerBytes = 8;

struct Timed {
  double* acc;
  double t0;
  explicit Timed(double* a) : acc(a), t0(now_seconds()) {}
  ~Timed() { *acc += now_seconds() - t0; }
};

int team(const Ctx& c, size_t n) {
  if (n < 65536) return 1;
  int t = c.threads > 0 ? c.threads : omp_get_max_threads();
  return std::max(1, t);
}

template <typename T>
inline T apply(zcoll_op op, T a, T b) {
  switch (op) {
    case ZCOLL_OP_SUM: return a + b;
    case ZCOLL_OP_PROD: return a * b;
    case ZCOLL_OP_MAX: return (a > b || std::isnan(a)) ? a : b;  // NaN propagates
    case ZCOLL_OP_MIN: return (a < b || std::isnan(a)) ? a : b;
  }
  return a;
}

template <typename T, zcoll_op OP>
void reduce_kernel(T* out, const T* a, const T* b, size_t n, int nt) {
#pragma omp parallel for num_threads(nt) schedule(static) if (nt > 1)
  for (int64_t i = 0; i < static_cast<int64_t>(n); ++i) out[i] = apply<T>(OP, a[i], b[i]);
}

template <typename T>
void reduce_typed(zcoll_op op, T* out, const T* a, const T* b, size_t n, int nt) {
  switch (op) {
    case ZCOLL_OP_SUM: reduce_kernel<T, ZCOLL_OP_SUM>(out, a, b, n, nt); break;
    case ZCOLL_OP_PROD: reduce_kernel<T, ZCOLL_OP_PROD>(out, a, b, n, nt); break;
    case ZCOLL_OP_MAX: reduce_kernel<T, ZCOLL_OP_MAX>(out, a, b, n, nt); break;
    case ZCOLL_OP_MIN: reduce_kernel<T, ZCOLL_OP_MIN>(out, a, b, n, nt); break;
  }
}

// MPI progress between compression ranges; its time counts as communication
// (the transport's own clock), not as compression.
void poll(Ctx& c) {
  const double before = c.tp->time_in_calls;
  c.tp->progress();
  c.t_codec -= c.tp->time_in_calls - before;
}

}  // namespace

zcoll_status compress(Ctx& c, const void* src, size_t n, uint8_t* dst, size_t cap, size_t* size) {
  Timed t(&c.t_codec);
  ++c.compressions;
  if (c.dev) return c.dev->compress(c, src, n, dst, cap, size);
  sim::charge(c, sim::kCompress, n * c.vsize);  // SMPI builds only (sim_cost.h)
  if (sim::model()) {
    *size = sim::stream_size(c, n, c.piece_terms);
    return ZCOLL_SUCCESS;
  }
  if (!c.poll()) return zcoll_compress(&c.params, c.dtype, src, n, dst, cap, size, c.threads);
  // Chunk ranges with progress polling in between (PIPE-SZx).
  const uint32_t cs = c.params.chunk_size;
  const size_t chunks = zcoll_chunk_count(n, cs);
  const size_t head = zcoll_header_size(n, cs);
  uint32_t* sizes = c.ws->get_as<uint32_t>(Workspace::kSizes, chunks + 1);
  const size_t step = static_cast<size_t>(std::max(c.threads, 1)) * 2;
  size_t pos = head;
  for (size_t a = 0; a < chunks; a += step) {
    size_t b = std::min(chunks, a + step);
    size_t w = 0;
    ZCOLL_CHECK(zcoll_compress_chunks(&c.params, c.dtype, src, n, a, b, dst + pos, cap - pos, &w,
                                      sizes + a, c.threads));
    pos += w;
    if (b < chunks) poll(c);
  }
  ZCOLL_CHECK(zcoll_compress_finish(&c.params, c.dtype, n, sizes, dst, cap));
  // with ZCOLL_FLAG_CHECKSUM the trailer (one u32 per chunk, as big as the index) follows
  *size = (c.params.flags & ZCOLL_FLAG_CHECKSUM) ? pos + (head - 48) : pos;
  return ZCOLL_SUCCESS;
}

zcoll_status decompress(Ctx& c, const uint8_t* src, size_t size, void* dst, size_t n,
                        bool accumulate) {
  Timed t(&c.t_codec);
  if (c.dev) return c.dev->decompress(c, src, size, dst, n, accumulate);
  sim::charge(c, accumulate ? sim::kAccumulate : sim::kDecompress, n * c.vsize);
  if (sim::model()) return ZCOLL_SUCCESS;
  zcoll_info info = ZCOLL_INFO_INITIALIZER;
  ZCOLL_CHECK(zcoll_inspect(src, size, &info));
  if ((info.format_flags & ZCOLL_FLAG_CHECKSUM) != (c.params.flags & ZCOLL_FLAG_CHECKSUM))
    return fail(ZCOLL_ERR_MISMATCH, "received stream %s a checksum, this rank's settings %s",
                info.format_flags ? "has" : "lacks", c.params.flags ? "ask for one" : "do not");
  if (info.dtype != c.dtype || info.n != n || info.chunk_size != c.params.chunk_size ||
      info.quantum != c.quantum)
    return fail(ZCOLL_ERR_MISMATCH,
                "received stream (dtype %d, n %llu, chunk %u, quantum %.17g) does not match this "
                "rank's settings (dtype %d, n %zu, chunk %u, quantum %.17g): error bounds or "
                "counts differ across ranks",
                static_cast<int>(info.dtype), static_cast<unsigned long long>(info.n),
                info.chunk_size, info.quantum, static_cast<int>(c.dtype), n, c.params.chunk_size,
                c.quantum);
  if (!c.poll() || info.chunks <= 2) {
    if (accumulate) return zcoll_decompress_accumulate(src, size, dst, n, c.threads);
    return zcoll_decompress(src, size, dst, n, c.threads);
  }
  const size_t step = static_cast<size_t>(std::max(c.threads, 1)) * 2;
  for (size_t a = 0; a < info.chunks; a += step) {
    size_t b = std::min<size_t>(info.chunks, a + step);
    ZCOLL_CHECK(accumulate ? zcoll_decompress_accumulate_chunks(src, size, a, b, dst, n, c.threads)
                           : zcoll_decompress_chunks(src, size, a, b, dst, n, c.threads));
    if (b < info.chunks) poll(c);
  }
  return ZCOLL_SUCCESS;
}

void reduce(Ctx& c, void* inout, const void* in, size_t n) {
  reduce_ordered(c, inout, inout, in, n);
}

void reduce_ordered(Ctx& c, void* out, const void* lo, const void* hi, size_t n) {
  Timed t(&c.t_reduce);
  if (c.dev) {
    ZCOLL_STEP(c, c.dev->reduce_ordered(c, out, lo, hi, n));
    return;
  }
  sim::charge(c, sim::kReduce, n * c.vsize);
  if (sim::model()) return;
  int nt = team(c, n);
  if (c.dtype == ZCOLL_FLOAT32)
    reduce_typed(c.op, static_cast<float*>(out), static_cast<const float*>(lo),
                 static_cast<const float*>(hi), n, nt);
  else
    reduce_typed(c.op, static_cast<double*>(out), static_cast<const double*>(lo),
                 static_cast<const double*>(hi), n, nt);
}

void scale(Ctx& c, void* data, size_t n, double divisor) {
  Timed t(&c.t_reduce);
  if (c.dev) {
    ZCOLL_STEP(c, c.dev->scale(c, data, n, divisor));
    return;
  }
  sim::charge(c, sim::kReduce, n * c.vsize);
  if (sim::model()) return;
  int nt = team(c, n);
  if (c.dtype == ZCOLL_FLOAT32) {
    float* x = static_cast<float*>(data);
    const float d = static_cast<float>(divisor);
#pragma omp parallel for num_threads(nt) schedule(static) if (nt > 1)
    for (int64_t i = 0; i < static_cast<int64_t>(n); ++i) x[i] /= d;
  } else {
    double* x = static_cast<double*>(data);
#pragma omp parallel for num_threads(nt) schedule(static) if (nt > 1)
    for (int64_t i = 0; i < static_cast<int64_t>(n); ++i) x[i] /= divisor;
  }
}

zcoll_status hom_add(Ctx& c, const uint8_t* a, size_t a_size, const uint8_t* b, size_t b_size,
                     uint8_t* out, size_t cap, size_t* out_size) {
  Timed t(&c.t_reduce);
  ++c.hom_adds;
  if (c.dev) return c.dev->hom_add(c, a, a_size, b, b_size, out, cap, out_size);
  if (sim::charging()) {  // the piece comes from Ctx::describe_piece (sim_cost.h)
    if (c.piece_n == 0) return fail(ZCOLL_ERR_INTERNAL, "hom_add of an undescribed piece");
    sim::charge(c, sim::kHomAdd, c.piece_n * c.vsize);
    if (sim::model()) {
      *out_size = sim::stream_size(c, c.piece_n, c.piece_terms);
      return ZCOLL_SUCCESS;
    }
  }
  return zcoll_hom_add(a, a_size, b, b_size, out, cap, out_size, nullptr, c.threads);
}

zcoll_status doc_finish(Ctx& c, const uint8_t* in, size_t in_size, const void* local, size_t n,
                        void* dst) {
  if (c.op == ZCOLL_OP_SUM) {  // dst = local, then dst += x' (fused in the decoder)
    copy_values(c, dst, local, n);
    return decompress(c, in, in_size, dst, n, true);
  }
  void* x = c.ws->get(Workspace::kTemp, n * c.vsize + 8);  // dst may alias local
  ZCOLL_CHECK(decompress(c, in, in_size, x, n, false));
  reduce_ordered(c, dst, local, x, n);
  return ZCOLL_SUCCESS;
}

zcoll_status doc_combine(Ctx& c, const uint8_t* in, size_t in_size, const void* local, size_t n,
                         void* tmp, uint8_t* out, size_t cap, size_t* out_size) {
  ZCOLL_CHECK(doc_finish(c, in, in_size, local, n, tmp));
  return compress(c, tmp, n, out, cap, out_size);
}

zcoll_status send(Ctx& c, const void* buf, size_t bytes, uint64_t logical, int peer,
                  transport::Req* req) {
  if (c.failed != ZCOLL_SUCCESS) {
    // The marker lives in the context so that it outlives the request.
    static thread_local uint8_t marker[kMarkerBytes];
    std::memcpy(marker, kMarkerMagic, 4);
    uint32_t s = static_cast<uint32_t>(c.failed);
    std::memcpy(marker + 4, &s, 4);
    return c.tp->isend(marker, kMarkerBytes, peer, c.tag, req);
  }
  c.logical_bytes += logical;
  return c.tp->isend(buf, bytes, peer, c.tag, req);
}

bool received(Ctx& c, const uint8_t* buf, size_t bytes) {
  if (!c.compressed()) return c.failed == ZCOLL_SUCCESS;  // raw pieces carry no markers
  uint8_t dev_copy[kMarkerBytes];
  if (c.dev && bytes == kMarkerBytes) {  // a device buffer: look at a host copy
    if (!c.dev->peek(dev_copy, buf, kMarkerBytes)) {
      if (c.failed == ZCOLL_SUCCESS) c.failed = ZCOLL_ERR_INTERNAL;
      return false;
    }
    buf = dev_copy;
  }
  if (bytes == kMarkerBytes && std::memcmp(buf, kMarkerMagic, 4) == 0) {
    if (c.failed == ZCOLL_SUCCESS) {
      uint32_t s;
      std::memcpy(&s, buf + 4, 4);
      c.failed = s ? static_cast<zcoll_status>(s) : ZCOLL_ERR_INTERNAL;
      fail(c.failed, "a peer rank failed in this collective (%s)", zcoll_status_string(c.failed));
    }
    return false;
  }
  return c.failed == ZCOLL_SUCCESS;
}

zcoll_status run_algorithm(const Algorithm& alg, Ctx& c, const Args& a) {
  transport::Transport& tp = *c.tp;
  zcoll_status s = tp.begin_call(c.tag, c.tag + 1);
  if (s == ZCOLL_SUCCESS) {
    try {
      s = alg.run(c, a);
    } catch (const std::bad_alloc&) {
      s = fail(ZCOLL_ERR_NO_MEMORY, "%s: out of memory for scratch space", alg.function);
    } catch (const std::exception& e) {
      s = fail(ZCOLL_ERR_INTERNAL, "%s: %s", alg.function, e.what());
    }
  }
  // An early return left the message pattern: the peers may wait for this
  // rank's messages. (A failure recorded in c.failed kept the pattern going
  // with error markers.)
  if (s != ZCOLL_SUCCESS) {
    tp.abort_call(s);
    // the collectives it skipped, carrying the failure (ring_allgather_pieces
    // reads a peer's status from its sizes allgather)
    const int helpers = alg.helpers ? alg.helpers(c) : 0;
    for (int k = c.helper_collectives; k < helpers; ++k) {
      uint64_t mine[2] = {0, static_cast<uint64_t>(s)};
      std::vector<uint64_t> all(2 * static_cast<size_t>(c.size));
      if (tp.allgather_u64(mine, 2, all.data()) != ZCOLL_SUCCESS) break;
    }
  }
  if (s == ZCOLL_SUCCESS) s = c.failed;
  // The status, agreed: the largest code over the ranks (0 = success).
  double v = static_cast<double>(s);
  const zcoll_status agreed = tp.allreduce_max(&v, 1);
  if (agreed != ZCOLL_SUCCESS) {
    if (s == ZCOLL_SUCCESS) s = agreed;
    tp.end_call(false);  // not every rank may know: no collective clean-up
    return s;
  }
  const bool failed = v != 0;
  if (s == ZCOLL_SUCCESS && failed)
    s = fail(static_cast<zcoll_status>(static_cast<int>(v)),
             "another rank failed in this collective (%s)",
             zcoll_status_string(static_cast<zcoll_status>(static_cast<int>(v))));
  if (c.failed == ZCOLL_SUCCESS) c.failed = s;
  // clean-up after a failure: the call's requests, and its messages kept
  // from matching later calls (transport.h)
  const std::string why = failed ? zcoll_last_error() : "";
  const zcoll_status e = tp.end_call(failed);
  if (failed) fail(s, "%s", why.c_str());  // end_call's own failure is secondary
  return s != ZCOLL_SUCCESS ? s : e;
}

void copy_values(Ctx& c, void* dst, const void* src, size_t n) {
  if (dst == src || n == 0) return;
  Timed t(&c.t_reduce);
  sim::charge(c, sim::kCopy, n * c.vsize);
  if (sim::model()) return;
  if (c.dev) {
    ZCOLL_STEP(c, c.dev->move_bytes(c, dst, src, n * c.vsize));
    return;
  }
  std::memmove(dst, src, n * c.vsize);
}

void move_bytes(Ctx& c, void* dst, const void* src, size_t bytes) {
  if (dst == src || bytes == 0) return;
  if (c.dev) {
    ZCOLL_STEP(c, c.dev->move_bytes(c, dst, src, bytes));
    return;
  }
  std::memmove(dst, src, bytes);
}

zcoll_status set_divisor(Ctx& c, uint8_t* stream, size_t size, uint32_t divisor) {
  if (c.dev) return c.dev->set_divisor(c, stream, size, divisor);
  return zcoll_hom_set_divisor(stream, size, divisor);
}

zcoll_status stream_size(Ctx& c, const uint8_t* src, size_t bytes, size_t n, size_t* size) {
  if (c.dev) return c.dev->stream_size(c, src, bytes, n, size);
  (void)n;
  return zcoll_stream_size(src, bytes, size);
}

}  // namespace zcoll::coll
