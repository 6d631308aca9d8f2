// bcast_tree.cc — the segment pipeline shared by the Bcast trees (bcast_binomial.cc,
// bcast_chain.cc): they differ only in each rank's parent and children.
//
// raw: segments are forwarded as they arrive. cpr_p2p: one stream; every rank
// decompresses it and, if it has children, recompresses. doc/hom: the root
// compresses each segment once; the others forward the streams untouched and
// decode their copy after forwarding it.
#include "coll/algorithms.h"
#include "coll/primitives.h"

namespace zcoll::coll {

zcoll_status bcast_tree(Ctx& c, const Args& a, int parent, const int* children, int nch) {
  const size_t n = a.count, vs = c.vsize;
  auto* buf = static_cast<uint8_t*>(a.out);
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

}  // namespace zcoll::coll
