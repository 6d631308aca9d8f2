// bcast_tree.cc — the segment pipeline shared by the Bcast trees (bcast_binomial.cc,
// bcast_chain.cc): they differ only in each rank's parent and children.
//
// The root packs segment k; every other rank receives it from its parent and
// passes it on to its children: a message that travels (doc, hom: compressed
// once at the root) is forwarded untouched and decoded after forwarding;
// otherwise (raw: the values, received in place; cpr_p2p: one stream per
// message, decoded and compressed again at every hop) the rank unpacks it and
// packs what it holds for its children.
#include "coll/control/algorithms.h"
#include "coll/datapath/data_path.h"
#include "coll/datapath/primitives.h"

namespace zcoll::coll {

zcoll_status bcast_tree(Ctx& c, const Args& a, int parent, const int* children, int nch) {
  const size_t n = a.count, vs = c.vsize;
  const DataPath path(c);
  auto* buf = static_cast<uint8_t*>(a.out);
  const size_t nseg = c.segments(n);
  const size_t slot = c.seg_capacity(n);
  auto vals = [&](size_t k) { return buf + k * c.seg_values * vs; };
  auto len = [&](size_t k) { return c.seg_len(n, k); };
  // stream slots (raw's messages are the values themselves)
  uint8_t* R = path.messages_are_values() ? nullptr : c.ws->get(Workspace::kRecvA, nseg * slot + 8);
  uint8_t* S = path.messages_are_values() ? nullptr : c.ws->get(Workspace::kSendA, nseg * slot + 8);
  transport::Req* req =
      c.ws->get_as<transport::Req>(Workspace::kReqs, nseg * (static_cast<size_t>(nch) + 1) + 2);
  transport::Req* rreq = req;
  transport::Req* sreq = req + nseg;
  size_t ns = 0;
  auto at = [&](uint8_t* base, size_t k) { return base ? base + k * slot : nullptr; };
  auto recv_at = [&](size_t k) { return path.receive_slot(vals(k), at(R, k)); };

  if (parent >= 0)
    for (size_t k = 0; k < nseg; ++k)
      ZCOLL_CHECK(c.tp->irecv(recv_at(k), path.capacity(len(k)), parent, c.tag, &rreq[k]));
  for (size_t k = 0; k < nseg; ++k) {
    Message m;
    if (parent < 0) {
      ZCOLL_STEP(c, path.pack(vals(k), len(k), at(S, k), slot, &m));
    } else {
      ZCOLL_CHECK(c.tp->wait(rreq[k], &m.bytes));
      m.data = recv_at(k);
      if (!path.travels()) {  // this hop's own message for the children
        const bool ok = path.unpack(m, vals(k), len(k));
        if (ok && nch > 0) ZCOLL_STEP(c, path.pack(vals(k), len(k), at(S, k), slot, &m));
      }
    }
    for (int i = 0; i < nch; ++i)
      ZCOLL_CHECK(send(c, m.data, m.bytes, len(k) * vs, children[i], &sreq[ns++]));
    if (parent >= 0 && path.travels()) path.unpack(m, vals(k), len(k));  // after forwarding it
  }
  for (size_t i = 0; i < ns; ++i) ZCOLL_CHECK(c.tp->wait(sreq[i], nullptr));
  return ZCOLL_SUCCESS;
}

}  // namespace zcoll::coll
