// reduce_node_aware.cc — node-aware Reduce (commutative ops): shared memory
// inside a node, compressed streams between nodes, every rank of a node
// reducing and compressing its own share (hierarchy.h: nodes, lanes, the
// composition's fault rule).
//
// Phases (M nodes, P ranks on the largest node, B lanes; the vector split into
// B lanes of multiples of 32 values; node m0 holds the root):
//   1. inside each node, raw: ring Reduce_scatter of the B lanes over the
//      node's ranks; local rank j < B holds lane j summed over its node;
//   2. on each rail j < B (one rank per node), the call's mode: binomial
//      Reduce of lane j over the M nodes to node m0's rank (hom: every node
//      partial but m0's compressed once, homomorphic additions, decoded once);
//   3. on node m0, raw: each lane's rank sends its lane to the root.
// One node: phase 2 is empty (exact); one rank per node: B = 1 and phase 2 is
// the flat binomial Reduce. Average: the root divides by N at the end. Ranks
// other than the root reduce into scratch space (their recvbuf is not used).
// Cost (D bytes, a_n / b_n inside the node, b_r the rail's share of the link):
//   (P-1) a_n + (P-1)/B D (b_n + gamma) + binomial Reduce of D/B over M ranks
//   at (a, b_r), its inputs sums of P ranks' inputs + a_n + (B-1)/B D b_n
//   + the steps' small allreduces.
// Error: phases 1 and 3 are exact; phase 2 is the binomial Reduce's over M
// node partials: SUM (M-1) eb in every compressed mode, MAX/MIN the tree depth
// at M, PROD with inputs of magnitude max|x|^P; average / N.
// Restrictions: commutative ops; any layout, any root; not the size rule's pick.
#include <algorithm>

#include "coll/control/algorithms.h"
#include "coll/datapath/hierarchy.h"
#include "coll/datapath/primitives.h"

namespace zcoll::coll {

zcoll_status reduce_node_aware(Ctx& c, const Args& a) {
  Hierarchy h;
  ZCOLL_CHECK(hierarchy(*c.tp, &h));  // collective the first time (hierarchy.h)
  const transport::Locality& L = *h.loc;
  const int B = h.lanes, P = h.local_size(), M = h.nodes(), j = h.local();
  const int root_node = L.node_of_rank[a.root], root_local = L.local_of_rank[a.root];
  const bool root = c.rank == a.root;
  const size_t n = a.count, vs = c.vsize;
  Composition comp(c);
  // lanes over the node's ranks (ranks >= B hold none) and the buffer the
  // node's sums go to: the root's recvbuf, scratch elsewhere (in local(): a
  // failed allocation is recorded and the steps are still entered)
  size_t *counts = nullptr, *displs = nullptr;
  uint8_t* buf = nullptr;
  comp.local([&] {
    counts = c.ws->get_as<size_t>(Workspace::kNodeCounts, 2 * static_cast<size_t>(P) + 2);
    displs = counts + P;
    split_blocks(n, B, counts, displs);
    for (int l = B; l < P; ++l) {
      counts[l] = 0;
      displs[l] = n;
    }
    buf = root ? static_cast<uint8_t*>(a.out) : c.ws->get(Workspace::kNodeA, n * vs + 8);
    return ZCOLL_SUCCESS;
  });
  const bool ok = counts != nullptr && buf != nullptr;
  uint8_t* lane = ok ? buf + (j < B ? displs[j] : 0) * vs : nullptr;
  const size_t lane_n = ok && j < B ? counts[j] : 0;
  // 1. the node's sum of each lane, on the lane's rank
  if (P > 1) {
    Args a1;
    a1.in = a.in;
    a1.out = lane;
    a1.counts = counts;
    a1.displs = displs;
    comp.step(*find_algorithm(ZCOLL_COLL_REDUCE_SCATTER, ZCOLL_ALGO_RING), h.node, ZCOLL_MODE_RAW,
              a1);
  } else {
    comp.local([&] {
      if (buf != a.in) copy_values(c, buf, a.in, n);
      return ZCOLL_SUCCESS;
    });
  }
  // 2. each lane over the nodes, to the root's node
  if (j < B && M > 1) {
    Args a2;
    a2.in = a2.out = lane;
    a2.in_place = true;
    a2.count = lane_n;
    a2.root = root_node;  // rails j < B hold every node, ranked by node
    comp.step(*find_algorithm(ZCOLL_COLL_REDUCE, ZCOLL_ALGO_BINOMIAL), h.rail, c.mode, a2, P);
  }
  // 3. the root's node: every lane to the root
  if (L.node == root_node && P > 1) {
    Args a3;
    a3.in = lane;
    a3.out = buf;
    a3.root = root_local;
    a3.counts = counts;
    a3.displs = displs;
    comp.step(node_root_gather(), h.node, ZCOLL_MODE_RAW, a3);
  }
  if (root && c.average && c.op == ZCOLL_OP_SUM)
    comp.local([&] {
      scale(c, buf, n, c.size);
      return ZCOLL_SUCCESS;
    });
  return ZCOLL_SUCCESS;  // failures are in c.failed, agreed by the caller's bracket
}

ErrState reduce_node_aware_model(const ModelIn& m) {
  return rail_reduction_model(find_algorithm(ZCOLL_COLL_REDUCE, ZCOLL_ALGO_BINOMIAL)->model, m);
}

double reduce_node_aware_cost(const CostTerms& t, const CostQuery& q, zcoll_mode mode) {
  const Levels lv = levels_of(q);
  const int P = lv.ppn, B = lv.lanes, M = lv.nodes;
  const double D = buffer_bytes(q);
  const CostTerms tn = node_terms(t);
  double s = 0;
  if (P > 1) {
    const double moved = (P - 1.0) / B * D;  // the largest lane, P-1 ring steps
    s += (P - 1) * tn.a + tn.pipe(moved * tn.b, moved * t.g) + step_sync(tn, P);
    s += tn.a + (B - 1.0) / B * D * tn.b + step_sync(tn, P);  // the lanes to the root
  }
  if (M > 1) {
    const double rail = rail_step_cost(*find_algorithm(ZCOLL_COLL_REDUCE, ZCOLL_ALGO_BINOMIAL),
                                       rail_terms(t, lv), q, M, (q.total_values + B - 1) / B,
                                       q.input_terms * P, mode);
    if (rail < 0) return rail;
    s += rail;
  }
  return s;
}

}  // namespace zcoll::coll
