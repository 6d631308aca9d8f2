// scatter_node_aware.cc — node-aware Scatter, the reverse of Gather's: each
// block crosses the network once, compressed by the lane that carries it, and
// moves as values inside the nodes (hierarchy.h: nodes, lanes, the
// composition's fault rule).
//
// Phases (M nodes, P ranks on the largest node, B lanes; lane j of a node
// serves its local ranks j, j + B, ...: up to S_j = ceil((P - j) / B) blocks;
// c values per rank; node m0 holds the root):
//   0. at the root: the blocks from rank order to lane order, lane j
//      node-major with S_j slots per node (slots of ranks a node lacks stay
//      zero; a copy);
//   1. on node m0, raw: the root sends each lane's rank the M lanes it carries;
//   2. on each rail j < B, the call's mode: binomial Scatter of the lanes
//      (S_j c values per node) from node m0 (doc/hom: each lane compressed
//      once, forwarded untouched, decoded by its node's lane rank);
//   3. uneven nodes only, inside the node, raw: each lane's rank sends the
//      ranks l >= B it serves their blocks.
// One node: phase 2 is empty (exact); one rank per node: the flat binomial
// Scatter.
// Cost (D = N c values' bytes, a_n / b_n inside the node, b_r the rail's
// share of the link): D gamma (lane order) + a_n + D b_n (from the root)
//   + binomial Scatter of about D/B over M ranks at (a, b_r) + (uneven)
//   a_n + D/M b_n + the steps' small allreduces.
// Error: the binomial Scatter's over M nodes: doc/hom eb, cpr_p2p d eb (d the
// tree depth at M); the ranks of the root's node receive exact blocks.
// Restrictions: none (any layout, any root); not the size rule's pick.
#include <algorithm>
#include <cstring>
#include <vector>

#include "coll/control/algorithms.h"
#include "coll/datapath/hierarchy.h"
#include "coll/datapath/primitives.h"

namespace zcoll::coll {

zcoll_status scatter_node_aware(Ctx& c, const Args& a) {
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
  //   Y           the root: every lane, lane after lane (rl.lane_at)
  //   carried     node m0's lane ranks: the M lanes of its rail
  //   lane        this lane's S slots of n values (the rail step's output)
  uint8_t *lane = nullptr, *carried = nullptr, *Y = nullptr;
  comp.local([&] {
    rl.fill(c.ws->get_as<size_t>(Workspace::kNodeCounts, 4 * static_cast<size_t>(P) + 8));
    lane = c.ws->get(Workspace::kNodeA, S * n * vs + 8);
    if (L.node == root_node && j < B)
      carried = c.ws->get(Workspace::kNodeB, static_cast<size_t>(M) * S * n * vs + 8);
    if (root) {
      Y = c.ws->get(Workspace::kNodeC, rl.total() * vs + 8);
      std::memset(Y, 0, rl.total() * vs);
      // 0. lane order
      rl.for_each_block([&](int g, size_t at) {
        copy_values(c, Y + at * vs,
                    static_cast<const uint8_t*>(a.in) + static_cast<size_t>(g) * n * vs, n);
      });
      if (j < B) carried = Y + rl.lane_at[j] * vs;  // the root's own lanes stay in Y
    }
    return ZCOLL_SUCCESS;
  });
  // 1. the root's node: every lane's rank gets the lanes it carries
  if (L.node == root_node && P > 1) {
    Args a1;
    a1.in = Y;
    a1.out = carried;
    a1.root = root_local;
    a1.counts = rl.lane_counts;
    a1.displs = rl.lane_at;
    comp.step(node_root_deal(), h.node, ZCOLL_MODE_RAW, a1);
  }
  // 2. each lane over the nodes, from the root's node
  if (j < B) {
    if (M > 1) {
      Args a2;
      a2.in = carried;
      a2.out = lane;
      a2.count = S * n;
      a2.root = root_node;  // rails j < B hold every node, ranked by node
      comp.step(*find_algorithm(ZCOLL_COLL_SCATTER, ZCOLL_ALGO_BINOMIAL), h.rail, c.mode, a2);
    } else {
      comp.local([&] {
        copy_values(c, lane, carried, S * n);
        return ZCOLL_SUCCESS;
      });
    }
  }
  // 3. uneven nodes: the blocks of the ranks l >= B, from their lane's rank
  if (P > B) {
    Args a3;
    a3.in = lane;
    a3.out = a.out;
    a3.count = static_cast<size_t>(B);
    a3.counts = rl.slot_counts;
    a3.displs = rl.slot_displs;
    comp.step(node_lanes_scatter(), h.node, ZCOLL_MODE_RAW, a3);
  }
  if (j < B)  // its own block: slot 0 of its lane
    comp.local([&] {
      copy_values(c, a.out, lane, n);
      return ZCOLL_SUCCESS;
    });
  return ZCOLL_SUCCESS;  // failures are in c.failed, agreed by the caller's bracket
}

ErrState scatter_node_aware_model(const ModelIn& m) {
  return rail_movement_model(find_algorithm(ZCOLL_COLL_SCATTER, ZCOLL_ALGO_BINOMIAL)->model, m);
}

double scatter_node_aware_cost(const CostTerms& t, const CostQuery& q, zcoll_mode mode) {
  return root_lanes_cost(*find_algorithm(ZCOLL_COLL_SCATTER, ZCOLL_ALGO_BINOMIAL), t, q, mode);
}

}  // namespace zcoll::coll
