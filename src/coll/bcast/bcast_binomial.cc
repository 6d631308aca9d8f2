// bcast_binomial.cc — binomial-tree Bcast (C-Coll Fig. 3).
//
// Phases: relative rank v = (rank - root) mod N; v receives from v minus its
// lowest set bit and sends to v + 2^k for every 2^k below that bit (largest
// subtree first). The buffer moves as pipeline segments: a rank forwards
// segment k to its children as soon as it has it.
// Cost (D bytes, L = ceil(log2 N), S segments):
//   raw:     (L + S - 1) alpha + H D beta, H = max(L S, L + S - 1) / S (a rank
//            sends each segment to each child over its one link: the root's
//            link carries L copies; the deepest leaf waits L + S - 1 segments)
//   cpr_p2p: every hop decompresses and recompresses the whole buffer:
//            L alpha + L D/rho beta + L D (gamma_c + gamma_d)
//   doc/hom: the root compresses each segment once, inner ranks forward the
//            streams untouched and decompress them once:
//            (L + S - 1) alpha + H D/rho beta + D gamma_c + D gamma_d
//            (root compression of segment k+1 overlaps the send of segment k)
// Error: doc/hom eb on every non-root rank; cpr_p2p L eb (a rank at depth d went
// through d compressions); the root keeps its exact values.
// Restrictions: none.
#include <algorithm>

#include "coll/algorithms.h"
#include "coll/primitives.h"

namespace zcoll::coll {

zcoll_status bcast_binomial(Ctx& c, const Args& a) {
  const int N = c.size, r = c.rank;
  if (N == 1) return ZCOLL_SUCCESS;
  const size_t n = a.count, vs = c.vsize;
  const int vr = (r - a.root + N) % N;
  auto real = [&](int v) { return (v + a.root) % N; };
  auto* buf = static_cast<uint8_t*>(a.out);
  int children[32], nch = 0;
  for (int m = lowbit_or(vr, N) >> 1; m >= 1; m >>= 1)
    if (vr + m < N) children[nch++] = real(vr + m);
  const int parent = vr == 0 ? -1 : real(vr - (vr & -vr));

  const size_t nseg = c.segments(n);
  const size_t slot = c.seg_capacity(n);
  auto vals = [&](size_t k) { return buf + k * c.seg_values * vs; };
  auto len = [&](size_t k) { return c.seg_len(n, k); };
  transport::Req* req =
      c.ws->get_as<transport::Req>(Workspace::kReqs, nseg * (static_cast<size_t>(nch) + 1) + 2);
  transport::Req* rreq = req;
  transport::Req* sreq = req + nseg;
  size_t ns = 0;

  if (!c.compressed()) {
    if (parent >= 0)
      for (size_t k = 0; k < nseg; ++k)
        ZCOLL_CHECK(c.tp->irecv(vals(k), len(k) * vs, parent, c.tag, &rreq[k]));
    for (size_t k = 0; k < nseg; ++k) {
      if (parent >= 0) ZCOLL_CHECK(c.tp->wait(rreq[k], nullptr));
      for (int i = 0; i < nch; ++i)
        ZCOLL_CHECK(send(c, vals(k), len(k) * vs, len(k) * vs, children[i], &sreq[ns++]));
    }
  } else if (c.mode == ZCOLL_MODE_CPR_P2P) {
    // one stream; every hop decompresses and, if it has children, recompresses
    uint8_t* S = c.ws->get(Workspace::kSendA, c.piece_capacity(n) + 8);
    size_t size = 0;
    if (parent >= 0) {
      ZCOLL_CHECK(c.tp->irecv(S, c.piece_capacity(n), parent, c.tag, &rreq[0]));
      ZCOLL_CHECK(c.tp->wait(rreq[0], &size));
      if (received(c, S, size)) ZCOLL_STEP(c, decompress(c, S, size, buf, n, false));
    }
    if (nch > 0) ZCOLL_STEP(c, compress(c, buf, n, S, c.piece_capacity(n), &size));
    for (int i = 0; i < nch; ++i) ZCOLL_CHECK(send(c, S, size, n * vs, children[i], &sreq[ns++]));
  } else {
    // doc/hom: the root compresses each segment once; streams are forwarded
    uint8_t* S = c.ws->get(Workspace::kSendA, nseg * slot + 8);
    if (parent < 0) {
      for (size_t k = 0; k < nseg; ++k) {
        size_t size = 0;
        ZCOLL_STEP(c, compress(c, vals(k), len(k), S + k * slot, slot, &size));
        for (int i = 0; i < nch; ++i)
          ZCOLL_CHECK(send(c, S + k * slot, size, len(k) * vs, children[i], &sreq[ns++]));
      }
    } else {
      for (size_t k = 0; k < nseg; ++k)
        ZCOLL_CHECK(c.tp->irecv(S + k * slot, c.piece_capacity(len(k)), parent, c.tag, &rreq[k]));
      for (size_t k = 0; k < nseg; ++k) {
        size_t size = 0;
        ZCOLL_CHECK(c.tp->wait(rreq[k], &size));
        const bool ok = received(c, S + k * slot, size);
        for (int i = 0; i < nch; ++i)
          ZCOLL_CHECK(send(c, S + k * slot, size, len(k) * vs, children[i], &sreq[ns++]));
        if (ok) ZCOLL_STEP(c, decompress(c, S + k * slot, size, vals(k), len(k), false));
      }
    }
  }
  for (size_t i = 0; i < ns; ++i) ZCOLL_CHECK(c.tp->wait(sreq[i], nullptr));
  return ZCOLL_SUCCESS;
}

ErrState bcast_binomial_model(const ModelIn& m) { return binomial_copy_model(m); }

}  // namespace zcoll::coll
