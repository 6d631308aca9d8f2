// reduce_scatter_node_aware.cc — node-aware Reduce_scatter: shared memory
// inside a node, compressed streams between nodes (hierarchy.h: nodes, lanes,
// the composition's fault rule).
//
// Phases (M nodes, P ranks on the largest node, B lanes; lane j of node m
// serves the node's ranks with local rank l = j mod B):
//   0. locally: the input is laid out lane by lane, and within a lane node by
//      node, the blocks of the ranks the lane serves on that node in local
//      order (a copy of D bytes);
//   1. inside each node, raw: ring Reduce_scatter of the lanes: local rank
//      j < B holds lane j summed over its node;
//   2. on each rail j < B, the call's mode: ring Reduce_scatter of lane j over
//      the M nodes: each lane's rank ends with the sums of the blocks of the
//      ranks it serves (with even nodes: its own block);
//   3. uneven nodes only, inside the node, raw: each lane's rank sends the
//      ranks l >= B it serves their blocks.
// One node: phase 2 is empty (exact); one rank per node: the flat ring.
// Cost (D bytes, a_n / b_n inside the node, b_r the rail's share of the link):
//   D gamma (phase 0) + (P-1) a_n + (P-1)/B D (b_n + gamma)
//   + ring Reduce_scatter of D/B over M ranks at (a, b_r), its inputs sums of
//     P ranks' inputs + (uneven) a_n + D/M b_n + the steps' small allreduces.
// Error: the ring Reduce_scatter's over M node partials: (M-1) eb for SUM in
// every compressed mode, MAX/MIN (M-1) eb, PROD with inputs of magnitude
// max|x|^P; average / N.
// Restrictions: commutative ops; any layout; not the size rule's pick.
#include <algorithm>

#include "coll/control/algorithms.h"
#include "coll/datapath/hierarchy.h"
#include "coll/datapath/primitives.h"

namespace zcoll::coll {

namespace {
// Phase 0's bookkeeping and buffers:
//   lm            the lane-major layout of the input's blocks (hierarchy.h)
//   served_at[l]  where the block of this node's local rank l starts in the
//                 part its lane's rank gets from the rail step
struct RsLayout {
  LaneMajor lm;
  size_t* served_at = nullptr;
  size_t* served_counts = nullptr;
  uint8_t* packed = nullptr;    // the input, lane by lane
  uint8_t* lane_sum = nullptr;  // phase 1's result: lane j summed over the node
  uint8_t* served = nullptr;    // phase 2's result: the blocks this lane serves
};

// Phase 0 (local work of the composition): the layout, the buffers, and the
// input laid out lane by lane.
zcoll_status lay_out_lanes(Ctx& c, const Args& a, const Hierarchy& h, RsLayout* x) {
  const transport::Locality& L = *h.loc;
  const int N = c.size, B = h.lanes, P = h.local_size(), j = h.local();
  const size_t vs = c.vsize;
  LaneMajor& lm = x->lm;
  size_t* w = c.ws->get_as<size_t>(Workspace::kNodeCounts,
                                   LaneMajor::words(h) + 2 * static_cast<size_t>(P) + 8);
  lm.fill(h, w, [&a](int g) { return a.counts[g]; });
  x->served_at = w + LaneMajor::words(h);
  x->served_counts = x->served_at + P;
  for (int l = 0; l < P; ++l) {
    const int g = lm.rank_at(L.node, l);
    x->served_at[l] = lm.pos[g] - lm.pos[lm.rank_at(L.node, l % B)];
    x->served_counts[l] = a.counts[g];
  }
  x->packed = c.ws->get(Workspace::kNodeA, lm.total * vs + 8);
  x->lane_sum = c.ws->get(Workspace::kNodeB, (j < B ? lm.lane_counts[j] : 0) * vs + 8);
  x->served = P == B ? static_cast<uint8_t*>(a.out)
                     : c.ws->get(Workspace::kNodeC, (j < B ? lm.rail_counts[L.node] : 0) * vs + 8);
  for (int g = 0; g < N; ++g)
    copy_values(c, x->packed + lm.pos[g] * vs, static_cast<const uint8_t*>(a.in) + a.displs[g] * vs,
                a.counts[g]);
  return ZCOLL_SUCCESS;
}
}  // namespace

zcoll_status reduce_scatter_node_aware(Ctx& c, const Args& a) {
  Hierarchy h;
  ZCOLL_CHECK(hierarchy(*c.tp, &h));  // collective the first time (hierarchy.h)
  const transport::Locality& L = *h.loc;
  const int N = c.size, B = h.lanes, P = h.local_size(), M = h.nodes(), j = h.local();
  const bool even = P == B;  // every rank of this node is a lane (serves itself)
  Composition comp(c);
  // 0. the input laid out lane by lane (in local(): an allocation failure is
  // recorded, and the steps below are still entered, rule 3 of hierarchy.h)
  RsLayout x;
  comp.local([&] { return lay_out_lanes(c, a, h, &x); });
  const LaneMajor& lm = x.lm;
  const Algorithm& ring = *find_algorithm(ZCOLL_COLL_REDUCE_SCATTER, ZCOLL_ALGO_RING);
  // 1. the node's sum of each lane on the lane's rank
  if (P > 1) {
    Args a1;
    a1.in = x.packed;
    a1.out = x.lane_sum;
    a1.counts = lm.lane_counts;
    a1.displs = lm.lane_displs;
    comp.step(ring, h.node, ZCOLL_MODE_RAW, a1);
  }
  const uint8_t* node_sum = P > 1 ? x.lane_sum : x.packed;
  // 2. the lane over the nodes: each lane's rank gets the blocks it serves
  if (j < B) {
    if (M > 1) {
      Args a2;
      a2.in = node_sum;
      a2.out = x.served;
      a2.counts = lm.rail_counts;
      a2.displs = lm.rail_displs;
      comp.step(ring, h.rail, c.mode, a2, P);
    } else {
      comp.local([&] {
        copy_values(c, x.served, node_sum, lm.rail_counts[L.node]);
        return ZCOLL_SUCCESS;
      });
    }
  }
  // 3. uneven nodes: the blocks of the ranks l >= B, from their lane's rank
  if (!even) {
    Args a3;
    a3.in = x.served;
    a3.out = a.out;
    a3.count = static_cast<size_t>(B);
    a3.counts = x.served_counts;
    a3.displs = x.served_at;
    comp.step(node_lanes_scatter(), h.node, ZCOLL_MODE_RAW, a3);
    if (j < B)  // its own block leads the part it serves
      comp.local([&] {
        copy_values(c, a.out, x.served, x.served_counts[j]);
        return ZCOLL_SUCCESS;
      });
  }
  if (c.average && c.op == ZCOLL_OP_SUM)
    comp.local([&] {
      scale(c, a.out, a.counts[c.rank], N);
      return ZCOLL_SUCCESS;
    });
  return ZCOLL_SUCCESS;  // failures are in c.failed, agreed by the caller's bracket
}

ErrState reduce_scatter_node_aware_model(const ModelIn& m) {
  return rail_reduction_model(find_algorithm(ZCOLL_COLL_REDUCE_SCATTER, ZCOLL_ALGO_RING)->model, m);
}

double reduce_scatter_node_aware_cost(const CostTerms& t, const CostQuery& q, zcoll_mode mode) {
  const Levels lv = levels_of(q);
  const int P = lv.ppn, B = lv.lanes, M = lv.nodes;
  const double D = buffer_bytes(q);
  const CostTerms tn = node_terms(t);
  double s = D * t.g;  // the layout by lane
  if (P > 1) {
    const double moved = (P - 1.0) / B * D;
    s += (P - 1) * tn.a + tn.pipe(moved * tn.b, moved * t.g) + step_sync(tn, P);
    if (P > B) s += tn.a + D / M * tn.b + step_sync(tn, P);
  }
  if (M > 1) {
    const double rail = rail_step_cost(*find_algorithm(ZCOLL_COLL_REDUCE_SCATTER, ZCOLL_ALGO_RING),
                                       rail_terms(t, lv), q, M, (q.total_values + B - 1) / B,
                                       q.input_terms * P, mode);
    if (rail < 0) return rail;
    s += rail;
  }
  return s;
}

}  // namespace zcoll::coll
