// gather_node_aware.cc — node-aware Gather: each block crosses the network
// once, compressed by the lane that carries it, and moves as values inside
// the nodes (hierarchy.h: nodes, lanes, the composition's fault rule).
//
// Phases (M nodes, P ranks on the largest node, B lanes; lane j of a node
// serves its local ranks j, j + B, ...: up to S_j = ceil((P - j) / B) blocks;
// c values per rank; node m0 holds the root):
//   0. uneven nodes only, inside the node, raw: each rank l >= B sends its
//      block to its lane's rank, which lays out the lane's S_j slots (slots of
//      ranks the node lacks stay zero);
//   1. on each rail j < B, the call's mode: binomial Gather of the lanes
//      (S_j c values per node) to node m0 (doc/hom: each lane compressed once,
//      forwarded untouched, decoded at node m0);
//   2. on node m0, raw: each lane's rank sends the M lanes it gathered to the
//      root;
//   3. at the root: the blocks from lane order to rank order (a copy).
// One node: phase 1 is empty (exact); one rank per node: the flat binomial
// Gather. Ranks other than the root work in scratch space.
// Cost (D = N c values' bytes, a_n / b_n inside the node, b_r the rail's
// share of the link): binomial Gather of about D/B over M ranks at (a, b_r)
//   + (uneven) a_n + D/M b_n + a_n + D b_n (to the root) + D gamma (rank
//   order) + the steps' small allreduces.
// Error: the binomial Gather's over M nodes: doc/hom eb, cpr_p2p d eb (d the
// tree depth at M); the blocks of the root's node arrive exact.
// Restrictions: none (any layout, any root); not the size rule's pick.
#include <algorithm>
#include <cstring>
#include <vector>

#include "coll/control/algorithms.h"
#include "coll/datapath/hierarchy.h"
#include "coll/datapath/primitives.h"

namespace zcoll::coll {

zcoll_status gather_node_aware(Ctx& c, const Args& a) {
  Hierarchy h;
  ZCOLL_CHECK(hierarchy(*c.tp, &h));  // collective the first time (hierarchy.h)
  const transport::Locality& L = *h.loc;
  const int B = h.lanes, P = h.local_size(), M = h.nodes(), j = h.local();
  const int root_node = L.node_of_rank[a.root], root_local = L.local_of_rank[a.root];
  const bool root = c.rank == a.root;
  const size_t n = a.count, vs = c.vsize;
  RootLanes rl(h, n);
  const size_t S = j < B ? rl.slots(j) : 0;  // this rank's lane's slots
  Composition comp(c);
  // Bookkeeping (in local(): a failed allocation is recorded and the steps
  // are still entered):
  //   lane        this lane's S slots of n values (the rail step's input)
  //   gathered    node m0's lane ranks: the M lanes (the rail step's output)
  //   Y           the root: every lane, lane after lane (rl.lane_at)
  uint8_t *lane = nullptr, *gathered = nullptr, *Y = nullptr;
  comp.local([&] {
    rl.fill(c.ws->get_as<size_t>(Workspace::kNodeCounts, 4 * static_cast<size_t>(P) + 8));
    lane = c.ws->get(Workspace::kNodeA, S * n * vs + 8);
    if (S > 0) {
      std::memset(lane, 0, S * n * vs);
      copy_values(c, lane, a.in, n);  // this rank's block: slot 0 of its lane
    }
    if (L.node == root_node && j < B)
      gathered = c.ws->get(Workspace::kNodeB, static_cast<size_t>(M) * S * n * vs + 8);
    if (root) Y = c.ws->get(Workspace::kNodeC, rl.total() * vs + 8);
    // the root's lane buffer is its slice of Y (no phase-2 copy to itself)
    if (root && j < B) gathered = Y + rl.lane_at[j] * vs;
    return ZCOLL_SUCCESS;
  });
  // 0. uneven nodes: the blocks of the ranks l >= B to their lane's rank
  if (P > B) {
    Args a0;
    a0.in = a.in;
    a0.out = lane;
    a0.count = static_cast<size_t>(B);
    a0.counts = rl.slot_counts;
    a0.displs = rl.slot_displs;
    comp.step(node_lanes_gather(), h.node, ZCOLL_MODE_RAW, a0);
  }
  // 1. each lane over the nodes, to the root's node
  if (j < B) {
    if (M > 1) {
      Args a1;
      a1.in = lane;
      a1.out = gathered;
      a1.count = S * n;
      a1.root = root_node;  // rails j < B hold every node, ranked by node
      comp.step(*find_algorithm(ZCOLL_COLL_GATHER, ZCOLL_ALGO_BINOMIAL), h.rail, c.mode, a1);
    } else if (L.node == root_node) {
      comp.local([&] {
        copy_values(c, gathered, lane, S * n);
        return ZCOLL_SUCCESS;
      });
    }
  }
  // 2. the root's node: every lane's M lanes to the root
  if (L.node == root_node && P > 1) {
    Args a2;
    a2.in = gathered;
    a2.out = Y;
    a2.root = root_local;
    a2.counts = rl.lane_counts;
    a2.displs = rl.lane_at;
    comp.step(node_root_gather(), h.node, ZCOLL_MODE_RAW, a2);
  }
  // 3. rank order at the root
  if (root)
    comp.local([&] {
      rl.for_each_block([&](int g, size_t at) {
        copy_values(c, static_cast<uint8_t*>(a.out) + static_cast<size_t>(g) * n * vs, Y + at * vs,
                    n);
      });
      return ZCOLL_SUCCESS;
    });
  return ZCOLL_SUCCESS;  // failures are in c.failed, agreed by the caller's bracket
}

ErrState gather_node_aware_model(const ModelIn& m) {
  return rail_movement_model(find_algorithm(ZCOLL_COLL_GATHER, ZCOLL_ALGO_BINOMIAL)->model, m);
}

double gather_node_aware_cost(const CostTerms& t, const CostQuery& q, zcoll_mode mode) {
  return root_lanes_cost(*find_algorithm(ZCOLL_COLL_GATHER, ZCOLL_ALGO_BINOMIAL), t, q, mode);
}

}  // namespace zcoll::coll
