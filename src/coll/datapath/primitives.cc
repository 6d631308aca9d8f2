// primitives.cc — the data-path steps shared by every algorithm: each is
// timed and counted here and runs on the call's DataOps (data_ops.h: the CPU,
// a device or the simulation); the error markers and the fault bracket of a
// call (run_algorithm) are the same for all of them.
#include "coll/datapath/primitives.h"

#include <cstring>
#include <exception>
#include <new>
#include <string>
#include <vector>

#include "coll/control/algorithms.h"
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

}  // namespace

zcoll_status compress(Ctx& c, const void* src, size_t n, uint8_t* dst, size_t cap, size_t* size) {
  Timed t(&c.t_codec);
  ++c.compressions;
  return c.ops->compress(c, src, n, dst, cap, size);
}

zcoll_status decompress(Ctx& c, const uint8_t* src, size_t size, void* dst, size_t n,
                        bool accumulate) {
  Timed t(&c.t_codec);
  return c.ops->decompress(c, src, size, dst, n, accumulate);
}

void reduce(Ctx& c, void* inout, const void* in, size_t n) {
  reduce_ordered(c, inout, inout, in, n);
}

void reduce_ordered(Ctx& c, void* out, const void* lo, const void* hi, size_t n) {
  Timed t(&c.t_reduce);
  ZCOLL_STEP(c, c.ops->reduce_ordered(c, out, lo, hi, n));
}

void scale(Ctx& c, void* data, size_t n, double divisor) {
  Timed t(&c.t_reduce);
  ZCOLL_STEP(c, c.ops->scale(c, data, n, divisor));
}

zcoll_status hom_add(Ctx& c, const uint8_t* a, size_t a_size, const uint8_t* b, size_t b_size,
                     uint8_t* out, size_t cap, size_t* out_size) {
  Timed t(&c.t_reduce);
  ++c.hom_adds;
  return c.ops->hom_add(c, a, a_size, b, b_size, out, cap, out_size);
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
  uint8_t host[kMarkerBytes];
  if (bytes == kMarkerBytes) {  // maybe a marker: look at a host copy (buffers may be a device's)
    if (!c.ops->peek(host, buf, kMarkerBytes)) {
      if (c.failed == ZCOLL_SUCCESS) c.failed = ZCOLL_ERR_INTERNAL;
      return false;
    }
    buf = host;
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
  ZCOLL_STEP(c, c.ops->copy_values(c, dst, src, n));
}

void move_bytes(Ctx& c, void* dst, const void* src, size_t bytes) {
  if (dst == src || bytes == 0) return;
  ZCOLL_STEP(c, c.ops->move_bytes(c, dst, src, bytes));
}

zcoll_status set_divisor(Ctx& c, uint8_t* stream, size_t size, uint32_t divisor) {
  return c.ops->set_divisor(c, stream, size, divisor);
}

zcoll_status stream_size(Ctx& c, const uint8_t* src, size_t bytes, size_t n, size_t* size) {
  return c.ops->stream_size(c, src, bytes, n, size);
}

}  // namespace zcoll::coll
