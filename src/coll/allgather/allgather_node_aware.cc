// allgather_node_aware.cc — node-aware Allgather: each block is compressed
// once by its owner, crosses the network once per node, and is shared inside
// the node as values (hierarchy.h: nodes, lanes, the composition's fault rule).
//
// Phases (M nodes, P ranks on the largest node, B lanes; lane j of node m
// serves the node's ranks with local rank l = j mod B; c values per rank):
//   0. uneven nodes only, inside the node, raw: each rank l >= B sends its
//      block to its lane's rank;
//   1. on each rail j < B, the call's mode: ring Allgather (of blocks of any
//      size) over the M nodes of the blocks lane j serves; doc/hom: each block
//      compressed once, the balanced byte ring, decompressed on arrival;
//   2. inside each node, raw: ring Allgather of the B lanes;
//   3. locally: the blocks from lane order to rank order (a copy of D bytes).
// One node: phases 1 is empty (exact); one rank per node: the flat ring.
// Cost (D = N c values' bytes, a_n / b_n inside the node, b_r the rail's
// share of the link): ring Allgather of D/B over M ranks at (a, b_r)
//   + (P-1) a_n + (P-1)/B D b_n + D gamma (phase 3) + (uneven) a_n + D/M b_n
//   + the steps' small allreduces.
// Error: the ring Allgather's over M nodes: doc/hom eb, cpr_p2p (M-1) eb; the
// blocks of a rank's own node arrive exact, its own block is exact.
// Restrictions: none (any layout); not the size rule's pick.
#include "coll/control/algorithms.h"
#include "coll/datapath/hierarchy.h"
#include "coll/datapath/primitives.h"

namespace zcoll::coll {

zcoll_status allgather_node_aware(Ctx& c, const Args& a) {
  Hierarchy h;
  ZCOLL_CHECK(hierarchy(*c.tp, &h));  // collective the first time (hierarchy.h)
  const transport::Locality& L = *h.loc;
  const int N = c.size, B = h.lanes, P = h.local_size(), M = h.nodes(), j = h.local();
  const size_t vs = c.vsize, n = a.count;
  const bool even = P == B;
  Composition comp(c);
  // Bookkeeping (in local(), rule 3 of hierarchy.h): lm, the lane-major
  // layout of the buffer X; own_counts / own_displs, where the blocks of this
  // node's ranks lie in X (phase 0).
  LaneMajor lm;
  size_t *own_counts = nullptr, *own_displs = nullptr;
  uint8_t* X = nullptr;
  comp.local([&] {
    size_t* w = c.ws->get_as<size_t>(Workspace::kNodeCounts,
                                     LaneMajor::words(h) + 2 * static_cast<size_t>(P) + 8);
    lm.fill(h, w, [n](int) { return n; });
    own_counts = w + LaneMajor::words(h);
    own_displs = own_counts + P;
    for (int l = 0; l < P; ++l) {
      own_counts[l] = n;
      own_displs[l] = lm.pos[lm.rank_at(L.node, l)];
    }
    X = c.ws->get(Workspace::kNodeA, lm.total * vs + 8);
    copy_values(c, X + lm.pos[c.rank] * vs, a.in, n);  // exact, as it stays
    return ZCOLL_SUCCESS;
  });
  // 0. uneven nodes: the blocks of the ranks l >= B to their lane's rank
  if (!even) {
    Args a0;
    a0.in = a.in;
    a0.out = X;
    a0.count = static_cast<size_t>(B);
    a0.counts = own_counts;
    a0.displs = own_displs;
    comp.step(node_lanes_gather(), h.node, ZCOLL_MODE_RAW, a0);
  }
  // 1. each lane over the nodes
  if (j < B && M > 1) {
    Args a1;
    a1.out = X ? X + lm.lane_displs[j] * vs : nullptr;  // null: a failed allocation
    a1.counts = lm.rail_counts;
    a1.displs = lm.rail_displs;
    comp.step(allgatherv_step(), h.rail, c.mode, a1);
  }
  // 2. every lane to every rank of the node
  if (P > 1) {
    Args a2;
    a2.out = X;
    a2.counts = lm.lane_counts;
    a2.displs = lm.lane_displs;
    comp.step(allgatherv_step(), h.node, ZCOLL_MODE_RAW, a2);
  }
  // 3. rank order
  comp.local([&] {
    for (int g = 0; g < N; ++g)
      copy_values(c, static_cast<uint8_t*>(a.out) + g * n * vs, X + lm.pos[g] * vs, n);
    return ZCOLL_SUCCESS;
  });
  return ZCOLL_SUCCESS;  // failures are in c.failed, agreed by the caller's bracket
}

ErrState allgather_node_aware_model(const ModelIn& m) {
  return rail_movement_model(find_algorithm(ZCOLL_COLL_ALLGATHER, ZCOLL_ALGO_RING)->model, m);
}

double allgather_node_aware_cost(const CostTerms& t, const CostQuery& q, zcoll_mode mode) {
  const Levels lv = levels_of(q);
  const int P = lv.ppn, B = lv.lanes, M = lv.nodes;
  const double D = buffer_bytes(q);
  const CostTerms tn = node_terms(t);
  double s = D * t.g;  // rank order
  if (P > 1) {
    s += (P - 1) * tn.a + (P - 1.0) / B * D * tn.b + step_sync(tn, P);
    if (P > B) s += tn.a + D / M * tn.b + step_sync(tn, P);
  }
  if (M > 1) {
    const double rail = rail_step_cost(*find_algorithm(ZCOLL_COLL_ALLGATHER, ZCOLL_ALGO_RING),
                                       rail_terms(t, lv), q, M, (q.total_values + B - 1) / B,
                                       q.input_terms, mode);
    if (rail < 0) return rail;
    s += rail;
  }
  return s;
}

}  // namespace zcoll::coll
