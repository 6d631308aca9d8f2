// bcast_node_aware.cc — node-aware Bcast: the root's node splits the buffer
// into lanes, every lane crosses the network compressed on its own rail, and
// each node reassembles it in shared memory (hierarchy.h: nodes, lanes, the
// composition's fault rule).
//
// Phases (M nodes, P ranks on the largest node, B lanes; the buffer split into
// B lanes of multiples of 32 values; node m0 holds the root):
//   1. on node m0, raw: the root sends lane j to local rank j (j < B);
//   2. on each rail j < B, the call's mode: pipelined chain Bcast of lane j
//      from node m0 (doc/hom: compressed once by lane j's rank on node m0,
//      forwarded untouched, decoded by each node's lane rank);
//   3. inside each node, raw: ring Allgather of the B lanes.
// One node: phase 2 is empty (exact); one rank per node: the flat chain.
// Cost (D bytes, a_n / b_n inside the node, b_r the rail's share of the link):
//   a_n + (B-1)/B D b_n (phase 1) + chain Bcast of D/B over M ranks at
//   (a, b_r) + (P-1) a_n + (P-1)/B D b_n + the steps' small allreduces.
// Each rank of m0's node compresses D/B (the flat chain: the root compresses D).
// Error: the chain's over M nodes: doc/hom eb, cpr_p2p (M-1) eb; the root's
// node keeps exact values.
// Restrictions: none (any layout, any root); not the size rule's pick.
#include "coll/control/algorithms.h"
#include "coll/datapath/hierarchy.h"
#include "coll/datapath/primitives.h"

namespace zcoll::coll {

zcoll_status bcast_node_aware(Ctx& c, const Args& a) {
  Hierarchy h;
  ZCOLL_CHECK(hierarchy(*c.tp, &h));  // collective the first time (hierarchy.h)
  const transport::Locality& L = *h.loc;
  const int B = h.lanes, P = h.local_size(), j = h.local();
  const int root_node = L.node_of_rank[a.root], root_local = L.local_of_rank[a.root];
  Composition comp(c);
  size_t *counts = nullptr, *displs = nullptr;
  comp.local([&] {
    counts = c.ws->get_as<size_t>(Workspace::kNodeCounts, 2 * static_cast<size_t>(P) + 2);
    displs = counts + P;
    split_blocks(a.count, B, counts, displs);
    for (int l = B; l < P; ++l) {
      counts[l] = 0;
      displs[l] = a.count;
    }
    return ZCOLL_SUCCESS;
  });
  // 1. the root's node: each lane to its rank
  if (L.node == root_node && P > 1) {
    Args a1;
    a1.in = a1.out = a.out;
    a1.in_place = true;
    a1.root = root_local;
    a1.counts = counts;
    a1.displs = displs;
    comp.step(node_root_scatter(), h.node, ZCOLL_MODE_RAW, a1);
  }
  // 2. each lane over the nodes, from the root's node
  if (j < B && h.nodes() > 1) {
    Args a2;
    a2.in = a2.out = static_cast<uint8_t*>(a.out) + (counts ? displs[j] : 0) * c.vsize;
    a2.count = counts ? counts[j] : 0;
    a2.root = root_node;  // rails j < B hold every node, ranked by node
    comp.step(*find_algorithm(ZCOLL_COLL_BCAST, ZCOLL_ALGO_CHAIN), h.rail, c.mode, a2);
  }
  // 3. every lane to every rank of the node
  if (P > 1) {
    Args a3;
    a3.out = a.out;
    a3.counts = counts;
    a3.displs = displs;
    comp.step(allgatherv_step(), h.node, ZCOLL_MODE_RAW, a3);
  }
  return ZCOLL_SUCCESS;  // failures are in c.failed, agreed by the caller's bracket
}

ErrState bcast_node_aware_model(const ModelIn& m) {
  return rail_movement_model(find_algorithm(ZCOLL_COLL_BCAST, ZCOLL_ALGO_CHAIN)->model, m);
}

double bcast_node_aware_cost(const CostTerms& t, const CostQuery& q, zcoll_mode mode) {
  const Levels lv = levels_of(q);
  const int P = lv.ppn, B = lv.lanes, M = lv.nodes;
  const double D = buffer_bytes(q);
  const CostTerms tn = node_terms(t);
  double s = 0;
  if (P > 1) {
    s += tn.a + (B - 1.0) / B * D * tn.b + step_sync(tn, P);            // scatter
    s += (P - 1) * tn.a + (P - 1.0) / B * D * tn.b + step_sync(tn, P);  // allgather
  }
  if (M > 1) {
    const double rail = rail_step_cost(*find_algorithm(ZCOLL_COLL_BCAST, ZCOLL_ALGO_CHAIN),
                                       rail_terms(t, lv), q, M, (q.total_values + B - 1) / B,
                                       q.input_terms, mode);
    if (rail < 0) return rail;
    s += rail;
  }
  return s;
}

}  // namespace zcoll::coll
