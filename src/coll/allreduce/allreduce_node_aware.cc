// allreduce_node_aware.cc — node-aware Allreduce: shared memory inside a
// node, compressed streams between nodes, every rank of a node compressing its
// own share (hierarchy.h: nodes, lanes, the composition's fault rule).
//
// Phases (M nodes, P ranks on the largest node, B = the smallest node's rank
// count lanes; the vector split into B lanes of multiples of 32 values):
//   1. inside each node, raw: ring Reduce_scatter of the B lanes over the
//      node's ranks; local rank j < B holds lane j summed over its node;
//   2. on each rail j < B (one rank per node), the call's mode: ring Allreduce
//      of lane j over the M nodes (hom: every node partial compressed once,
//      homomorphic additions, decoded once);
//   3. inside each node, raw: ring Allgather of the B lanes.
// One node: phase 2 is empty (the result is exact); one rank per node: B = 1
// and phase 2 is the flat ring Allreduce. Average divides lane j by N once,
// between phases 2 and 3, so all ranks hold the same values.
// Cost (D bytes; a_n, b_n the node's latency and time per byte, b_r = the
// rail's: the node's link shared by its B lanes):
//   2(P-1) a_n + (P-1)/B D (2 b_n + gamma)  (phases 1 and 3)
//   + ring Allreduce of D/B bytes over M ranks at (a, b_r), its inputs sums of
//     P ranks' inputs (they compress as P-term sums)
//   + three small allreduces (each phase's status agreement).
// The rail step carries 2(M-1)/M D/rho bytes through each node's link (the
// flat ring on ranks by node: 2(N-1)/N D/rho), in 2(M-1) steps instead of
// 2(N-1), and each rank compresses D/B instead of D.
// Error: phases 1 and 3 are exact; phase 2 is the ring's over M inputs that
// are node partials: SUM hom M eb, doc M eb, cpr_p2p (2M-2) eb; MAX/MIN the
// ring's counts at M; PROD the ring's with each input's magnitude the product
// of P inputs (max|x|^P); average / N. The floating-point rounding of the
// node sums comes on top, as for MPI.
// Restrictions: commutative ops; any layout (uneven nodes, ranks not by node,
// sub-communicators); not the size rule's pick (AUTO or ZCOLL_ALLREDUCE_ALGO).
#include <algorithm>

#include "coll/control/algorithms.h"
#include "coll/datapath/hierarchy.h"
#include "coll/datapath/primitives.h"

namespace zcoll::coll {

zcoll_status allreduce_node_aware(Ctx& c, const Args& a) {
  Hierarchy h;
  ZCOLL_CHECK(hierarchy(*c.tp, &h));  // collective the first time (hierarchy.h)
  const int B = h.lanes, P = h.local_size();
  const size_t n = a.count;
  const Algorithm& rs = *find_algorithm(ZCOLL_COLL_REDUCE_SCATTER, ZCOLL_ALGO_RING);
  const Algorithm& ring = *find_algorithm(ZCOLL_COLL_ALLREDUCE, ZCOLL_ALGO_RING);
  Composition comp(c);
  // lanes: counts/displs over the node's ranks (ranks >= B hold none); in
  // local(): a failed allocation is recorded and the steps are still entered
  size_t *counts = nullptr, *displs = nullptr;
  comp.local([&] {
    counts = c.ws->get_as<size_t>(Workspace::kNodeCounts, 2 * static_cast<size_t>(P) + 2);
    displs = counts + P;
    split_blocks(n, B, counts, displs);
    for (int l = B; l < P; ++l) {
      counts[l] = 0;
      displs[l] = n;
    }
    return ZCOLL_SUCCESS;
  });
  const int j = h.local();
  const bool ok = counts != nullptr;
  auto* lane = static_cast<uint8_t*>(a.out) + (ok && j < B ? displs[j] : 0) * c.vsize;
  // 1. the node's sum of each lane, on the lane's rank
  Args a1;
  a1.in = a.in;
  a1.out = lane;
  a1.counts = counts;
  a1.displs = displs;
  if (P > 1)
    comp.step(rs, h.node, ZCOLL_MODE_RAW, a1);
  else
    comp.local([&] {
      copy_values(c, a.out, a.in, n);
      return ZCOLL_SUCCESS;
    });
  // 2. the lane over the nodes
  if (h.holds_lane() && h.nodes() > 1) {
    Args a2;
    a2.in = a2.out = lane;
    a2.in_place = true;
    a2.count = ok ? counts[j] : 0;
    comp.step(ring, h.rail, c.mode, a2, P);
  }
  if (c.average && c.op == ZCOLL_OP_SUM && h.holds_lane())
    comp.local([&] {
      scale(c, lane, counts[j], c.size);
      return ZCOLL_SUCCESS;
    });
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

ErrState allreduce_node_aware_model(const ModelIn& m) {
  return rail_reduction_model(find_algorithm(ZCOLL_COLL_ALLREDUCE, ZCOLL_ALGO_RING)->model, m);
}

double allreduce_node_aware_cost(const CostTerms& t, const CostQuery& q, zcoll_mode mode) {
  const Levels lv = levels_of(q);
  const int P = lv.ppn, B = lv.lanes, M = lv.nodes;
  const double D = buffer_bytes(q);
  const CostTerms tn = node_terms(t);
  double s = 0;
  if (P > 1) {
    const double moved = (P - 1.0) / B * D;                    // the largest lane, P-1 ring steps
    s += (P - 1) * tn.a + tn.pipe(moved * tn.b, moved * t.g);  // reduce-scatter
    s += (P - 1) * tn.a + moved * tn.b;                        // allgather
    s += 2 * step_sync(tn, P);
  }
  if (M > 1) {
    const double rail = rail_step_cost(*find_algorithm(ZCOLL_COLL_ALLREDUCE, ZCOLL_ALGO_RING),
                                       rail_terms(t, lv), q, M, (q.total_values + B - 1) / B,
                                       q.input_terms * P, mode);
    if (rail < 0) return rail;
    s += rail;
  }
  return s;
}

}  // namespace zcoll::coll
