// bcast_chain.cc — pipelined chain Bcast: the ranks form a line from the root
// (relative rank v = (rank - root) mod N receives from v-1 and sends to v+1),
// and the buffer moves as pipeline segments: a rank forwards segment k as soon
// as it has it, while segment k+1 is still on its way in. Every link carries
// the buffer once, so a long message costs about one transfer of D (plus the
// time a segment takes to cross the N-1 hops), where the binomial tree's root
// sends it ceil(log2 N) times.
// Cost (D bytes, S segments):
//   raw:     (N-1) alpha + (N-2+S) D/S beta
//   cpr_p2p: one stream; every hop decompresses and recompresses the whole
//            buffer: (N-1) (alpha + D/rho beta + D (gamma_c + gamma_d))
//   doc/hom: the root compresses each segment once (segment k+1 while k is in
//            flight), the others forward the streams untouched and decompress
//            each one after forwarding it:
//            (N-1) alpha + max((N-2+S) D/(rho S) beta, D max(gamma_c, gamma_d))
//            + D/S (gamma_c + gamma_d)
// Error: doc/hom eb on every non-root rank; cpr_p2p (N-1) eb (the last rank of
// the line went through N-1 compressions); the root keeps its exact values.
// Restrictions: none. For long messages (the default when each rank's share
// is at least 256 KiB); short ones pay N-1 latencies, the binomial tree log2 N.
#include <algorithm>

#include "coll/algorithms.h"
#include "coll/primitives.h"

namespace zcoll::coll {

zcoll_status bcast_chain(Ctx& c, const Args& a) {
  const int N = c.size, r = c.rank;
  if (N == 1) return ZCOLL_SUCCESS;
  const size_t n = a.count, vs = c.vsize;
  const int v = (r - a.root + N) % N;
  const int parent = v == 0 ? -1 : (v - 1 + a.root) % N;
  const int child = v + 1 < N ? (v + 1 + a.root) % N : -1;
  auto* buf = static_cast<uint8_t*>(a.out);

  const size_t nseg = c.segments(n);
  const size_t slot = c.seg_capacity(n);
  auto vals = [&](size_t k) { return buf + k * c.seg_values * vs; };
  auto len = [&](size_t k) { return c.seg_len(n, k); };
  transport::Req* req = c.ws->get_as<transport::Req>(Workspace::kReqs, 2 * nseg + 2);
  transport::Req* rreq = req;
  transport::Req* sreq = req + nseg;
  size_t ns = 0;

  if (!c.compressed()) {
    if (parent >= 0)
      for (size_t k = 0; k < nseg; ++k)
        ZCOLL_CHECK(c.tp->irecv(vals(k), len(k) * vs, parent, c.tag, &rreq[k]));
    for (size_t k = 0; k < nseg; ++k) {
      if (parent >= 0) ZCOLL_CHECK(c.tp->wait(rreq[k], nullptr));
      if (child >= 0) ZCOLL_CHECK(send(c, vals(k), len(k) * vs, len(k) * vs, child, &sreq[ns++]));
    }
  } else if (c.mode == ZCOLL_MODE_CPR_P2P) {
    // one stream; every hop decompresses and, unless it is the last, recompresses
    uint8_t* S = c.ws->get(Workspace::kSendA, c.piece_capacity(n) + 8);
    size_t size = 0;
    if (parent >= 0) {
      ZCOLL_CHECK(c.tp->irecv(S, c.piece_capacity(n), parent, c.tag, &rreq[0]));
      ZCOLL_CHECK(c.tp->wait(rreq[0], &size));
      if (received(c, S, size)) ZCOLL_STEP(c, decompress(c, S, size, buf, n, false));
    }
    if (child >= 0) {
      ZCOLL_STEP(c, compress(c, buf, n, S, c.piece_capacity(n), &size));
      ZCOLL_CHECK(send(c, S, size, n * vs, child, &sreq[ns++]));
    }
  } else {
    // doc/hom: the root compresses each segment once; the streams go down the
    // line untouched and every other rank decodes its copy after forwarding it
    uint8_t* S = c.ws->get(Workspace::kSendA, nseg * slot + 8);
    if (parent < 0) {
      for (size_t k = 0; k < nseg; ++k) {
        size_t size = 0;
        ZCOLL_STEP(c, compress(c, vals(k), len(k), S + k * slot, slot, &size));
        ZCOLL_CHECK(send(c, S + k * slot, size, len(k) * vs, child, &sreq[ns++]));
      }
    } else {
      for (size_t k = 0; k < nseg; ++k)
        ZCOLL_CHECK(c.tp->irecv(S + k * slot, c.piece_capacity(len(k)), parent, c.tag, &rreq[k]));
      for (size_t k = 0; k < nseg; ++k) {
        size_t size = 0;
        ZCOLL_CHECK(c.tp->wait(rreq[k], &size));
        const bool ok = received(c, S + k * slot, size);
        if (child >= 0) ZCOLL_CHECK(send(c, S + k * slot, size, len(k) * vs, child, &sreq[ns++]));
        if (ok) ZCOLL_STEP(c, decompress(c, S + k * slot, size, vals(k), len(k), false));
      }
    }
  }
  for (size_t i = 0; i < ns; ++i) ZCOLL_CHECK(c.tp->wait(sreq[i], nullptr));
  return ZCOLL_SUCCESS;
}

ErrState bcast_chain_model(const ModelIn& m) {
  if (m.size == 1) return leaf(m);
  ErrState s = compressed(m, leaf(m));
  if (m.mode == ZCOLL_MODE_CPR_P2P)
    for (int d = 1; d < m.size - 1; ++d) s = compressed(m, s);
  return s;
}

}  // namespace zcoll::coll
