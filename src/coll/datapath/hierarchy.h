// hierarchy.h — what the node-aware algorithms are written with: the call's
// group seen as nodes and lanes, and the steps of a composition.
//
// A node-aware algorithm (src/coll/<collective>/<collective>_node_*.cc) is a
// composition of the table's algorithms over sub-groups of the call's
// transport (transport.h: node_transport, rail_transport; locality.h):
// uncompressed steps inside each node (shared memory moves data faster than
// any codec) and one compressed step on each rail (the ranks with the same
// local rank, one per node), so that every rank of a node compresses its own
// share of the node's data and every rank's link carries it.
//
// Lanes. With uneven nodes, rails past the smallest node's size do not span
// every node. The compositions therefore use B = the smallest node's rank
// count lanes: lane j (j < B) is rail j, which holds one rank of every node;
// a rank with local rank l >= B is served by lane l mod B of its node (its
// data goes to, or comes from, that lane's rank inside the node). With even
// nodes every rank is a lane. With one node there is no rail step; with one
// rank per node, B = 1 and the rail step is the flat algorithm.
//
// Faults across nested transports. A transport's abort notices reach only the
// waits of its own group (docs/transport.md), so a composition never leaves a
// group waiting on it:
//   1. every step is a complete collective call on its group: run_algorithm's
//      bracket and status agreement on that sub-transport, so that a step ends
//      on all of its ranks, with an error on all of them if any failed;
//   2. a rank that knows of a failure (its own, or one agreed in an earlier
//      step) still enters each later step of the composition and aborts it at
//      once (abort notice, the skipped helper collectives, the agreement), so
//      that its group fails that step instead of waiting for it;
//   3. local work between steps records its failures (std::bad_alloc) in
//      c.failed instead of leaving the composition;
//   4. the composition's own run_algorithm ends with the status agreement on
//      the call's transport: every rank returns the error.
// No step waits on a rank that has left, so no rank hangs; a failure on any
// rank in any step is an error on every rank.
//
// Splits are collective: hierarchy() makes the node and rail transports on the
// first call on a transport; dispatch.cc calls it after the settings agreement
// (all ranks run the same algorithm) and before the call's bracket. A
// composition's run calls it first (then a lookup), so that the algorithm also
// runs when called directly, as the in-process tests do.
#pragma once

#include <cstddef>
#include <new>
#include <vector>

#include "coll/control/algorithms.h"
#include "transport/locality.h"

namespace zcoll::coll {

struct Hierarchy {
  const transport::Locality* loc = nullptr;
  transport::Transport* node = nullptr;  // this rank's node, ranked by local rank
  transport::Transport* rail = nullptr;  // this rank's rail, ranked by node
  int lanes = 1;                         // B: the smallest node's rank count
  int nodes() const { return loc->nodes; }
  int local() const { return loc->local_rank; }
  int local_size() const { return loc->local_size; }
  // This rank's lane (its rail when it has one of the B).
  int lane() const { return loc->local_rank % lanes; }
  bool holds_lane() const { return loc->local_rank < lanes; }
  // Ranks of node n served by lane j (local ranks j, j + B, ...), in local order.
  int lane_members(int n, int j) const {
    const int p = loc->node_size[n];
    return j < p ? (p - 1 - j) / lanes + 1 : 0;
  }
};

// The cost of a rail step: the flat algorithm over `nodes` ranks (one a node)
// on links tr, `values` values in the call, each input a sum of `terms`
// ranks' inputs, and the step's closing allreduce. A negative cost (flat's
// refusal) passes through.
double rail_step_cost(const Algorithm& flat, const CostTerms& tr, const CostQuery& q, int nodes,
                      size_t values, int terms, zcoll_mode mode);

// The lanes of a rooted collective (Gather, Scatter): each block crosses the
// network once, on the lane of its rank's local index. Lane j carries S_j =
// ceil((Pmax - j) / B) slots of n values per node (Pmax the largest node; a
// slot of a rank the node lacks stays zero). At the root's node, lane j's M
// S_j slots lie node-major at value offset lane_at[j] of one buffer, total()
// values in all.
struct RootLanes {
  RootLanes(const Hierarchy& h, size_t n);
  size_t slots(int lane) const {
    return lane < pmax ? static_cast<size_t>((pmax - 1 - lane) / lanes + 1) : 0;
  }
  // The counts / displs of the node steps, an entry per local rank l of this
  // node (4 * local_size() entries at w):
  //   slot_counts, slot_displs  rank l's block in its lane's slots (n values
  //                             at slot l / B of lane l mod B)
  //   lane_counts, lane_at      lane l's M S_l slots in the root's buffer
  //                             (l < B; 0 values for the other ranks)
  void fill(size_t* w);
  size_t* slot_counts = nullptr;
  size_t* slot_displs = nullptr;
  size_t* lane_counts = nullptr;
  size_t* lane_at = nullptr;
  size_t total() const { return total_; }
  // Calls f(rank, offset) for every rank of the call: the value offset of its
  // block in the root's buffer (after fill()).
  template <typename F>
  void for_each_block(F f) const;

  const Hierarchy& h;
  const size_t n;
  const int lanes, nodes;
  int pmax = 0;

 private:
  size_t total_ = 0;
};

// The lane-major layout of one block per rank (Allgather, Reduce_scatter):
// lane after lane, node after node inside a lane, local order inside a node
// (lane j of node m: its local ranks j, j + B, ...). Rank g's block holds
// block(g) values. The arrays live in caller memory of words(h) entries.
class LaneMajor {
 public:
  static size_t words(const Hierarchy& h) {
    const size_t N = h.loc->node_of_rank.size(), P = h.local_size(), M = h.nodes();
    return 2 * N + 2 * P + 3 * M + 1;
  }
  template <typename F>
  void fill(const Hierarchy& h, size_t* w, F block);
  size_t* pos = nullptr;          // rank -> value offset of its block
  size_t* lane_counts = nullptr;  // an entry per local rank l of this node: lane l's
  size_t* lane_displs = nullptr;  // values and offset (l >= B: none, at the end)
  size_t* rail_counts = nullptr;  // an entry per node m: this rank's lane's part of
  size_t* rail_displs = nullptr;  // node m, its offset counted from the lane's start
  size_t total = 0;
  // The rank with local rank l on node m.
  int rank_at(int m, int l) const { return static_cast<int>(member_[first_[m] + l]); }

 private:
  size_t* member_ = nullptr;  // by node, local order: member_[first_[m] + l]
  size_t* first_ = nullptr;
};

// The cost of a rooted lane composition (Gather, Scatter): the lane order
// copy at the root, the node steps (the lanes to or from the root; with
// uneven nodes, the extra ranks' blocks to or from their lane) and the flat
// algorithm `rail` over the nodes with about D/B per rail.
double root_lanes_cost(const Algorithm& rail, const CostTerms& t, const CostQuery& q,
                       zcoll_mode mode);

// The call transport's hierarchy (collective on the first call, see above).
zcoll_status hierarchy(transport::Transport& tp, Hierarchy* h);

// The layout the node-aware rows' error and cost models read (ModelIn::nodes,
// CostQuery::nodes, ...), from a locality.
void set_layout(const transport::Locality& l, ModelIn* m);
void set_layout(const transport::Locality& l, CostQuery* q);

// The steps of one composition on rank c.rank of the call's transport.
class Composition {
 public:
  explicit Composition(Ctx& c) : c_(c) {}
  // Local work between steps; a failure is recorded (rule 3).
  template <typename F>
  void local(F work) {
    if (c_.failed != ZCOLL_SUCCESS) return;
    try {
      const zcoll_status s = work();
      if (s != ZCOLL_SUCCESS) c_.failed = s;
    } catch (const std::bad_alloc&) {
      c_.failed = fail_no_memory();
    }
  }
  // One step: alg's schedule on sub-transport tp in `mode` (raw inside a node,
  // the call's mode on a rail), as a collective call of tp's group (rules 1, 2).
  // The step's inputs are sums of `terms` ranks' inputs (the rail step of a
  // reduction: a node's partial sums), which the simulation's ratios and the
  // cost model read.
  void step(const Algorithm& alg, transport::Transport* tp, zcoll_mode mode, const Args& a,
            int terms = 1);
  Ctx& ctx() { return c_; }

 private:
  static zcoll_status fail_no_memory();
  Ctx& c_;
};

// Raw point-to-point steps inside a node that the compositions need besides
// the table's algorithms (their rows are not in the table; each runs through
// Composition::step like any other). counts / displs have an entry per rank of
// the node; values of c.vsize bytes.
//   node_root_scatter   rank a.root sends block k (counts[k] values at
//                       out + displs[k]) to rank k, which receives it at the
//                       same place of its out (one buffer: Bcast's lanes)
//   node_root_gather    each rank k != a.root sends counts[k] values at in
//                       to rank a.root, which receives them at out + displs[k]
//                       (the lanes of Reduce and Gather to their root)
//   node_root_deal      the reverse: rank a.root sends counts[k] values at
//                       in + displs[k] to each rank k, which receives them at
//                       out (Scatter's lanes from their root)
//   node_lanes_scatter  a lane's rank j sends block k (at in + displs[k]) to
//                       each rank k >= a.count (the lane count B) with
//                       k mod B == j, which receives it at out
//   node_lanes_gather   the reverse: rank k >= B sends its counts[k] values at
//                       in to rank k mod B, which receives them at
//                       out + displs[k]
const Algorithm& node_root_scatter();
const Algorithm& node_root_gather();
const Algorithm& node_root_deal();
const Algorithm& node_lanes_scatter();
const Algorithm& node_lanes_gather();
// Allgather of blocks of any size (counts / displs, the own block in place
// at out + displs[rank]; a.out), in the call's mode: ring_allgatherv.
const Algorithm& allgatherv_step();

// The models of a rail step of a reduction: the flat algorithm's model over
// the nodes, with each input a node's partial (its magnitude the product of
// the largest node's inputs for PROD), averaged over all ranks.
ErrState rail_reduction_model(ModelFn flat, const ModelIn& m);
// The models of a rail step of data movement: the flat model over the nodes.
ErrState rail_movement_model(ModelFn flat, const ModelIn& m);

// Cost building blocks of the node-aware rows (cost_terms.h's notation):
// CostTerms for a rail step (latency, the rail bandwidth: the link shared by
// the node's lanes), for the raw steps inside a node (node latency and
// bandwidth), and the sub-query of a rail step (its ranks and bytes).
struct Levels {
  int nodes = 1;  // M
  int ppn = 1;    // ranks on the largest node
  int lanes = 1;  // B
};
Levels levels_of(const CostQuery& q);
CostTerms rail_terms(const CostTerms& t, const Levels& lv);
CostTerms node_terms(const CostTerms& t);
// The small allreduce that ends a step on a group of n ranks.
double step_sync(const CostTerms& t, int n);

template <typename F>
void LaneMajor::fill(const Hierarchy& h, size_t* w, F block) {
  const transport::Locality& L = *h.loc;
  const int N = static_cast<int>(L.node_of_rank.size()), P = h.local_size(), M = h.nodes(),
            B = h.lanes, j = h.local();
  pos = w;
  member_ = pos + N;
  first_ = member_ + N;
  lane_counts = first_ + M + 1;
  lane_displs = lane_counts + P;
  rail_counts = lane_displs + P;
  rail_displs = rail_counts + M;
  first_[0] = 0;
  for (int m = 0; m < M; ++m) first_[m + 1] = first_[m] + static_cast<size_t>(L.node_size[m]);
  for (int g = 0; g < N; ++g) member_[first_[L.node_of_rank[g]] + L.local_of_rank[g]] = g;
  total = 0;
  for (int lane = 0; lane < B; ++lane) {
    lane_displs[lane] = total;
    for (int m = 0; m < M; ++m) {
      const size_t start = total;
      for (int l = lane; l < L.node_size[m]; l += B) {
        const int g = rank_at(m, l);
        pos[g] = total;
        total += block(g);
      }
      if (lane == j) {
        rail_counts[m] = total - start;
        rail_displs[m] = start - lane_displs[lane];
      }
    }
    lane_counts[lane] = total - lane_displs[lane];
  }
  for (int l = B; l < P; ++l) {
    lane_counts[l] = 0;
    lane_displs[l] = total;
  }
}

template <typename F>
void RootLanes::for_each_block(F f) const {
  const transport::Locality& L = *h.loc;
  const int N = static_cast<int>(L.node_of_rank.size());
  // (node, local rank) -> rank
  std::vector<int> member(static_cast<size_t>(N), -1);
  std::vector<size_t> first(static_cast<size_t>(nodes) + 1, 0);
  for (int m = 0; m < nodes; ++m) first[m + 1] = first[m] + static_cast<size_t>(L.node_size[m]);
  for (int g = 0; g < N; ++g) member[first[L.node_of_rank[g]] + L.local_of_rank[g]] = g;
  for (int lj = 0; lj < lanes; ++lj) {
    const size_t Sj = slots(lj);
    for (int m = 0; m < nodes; ++m)
      for (size_t i = 0; i < Sj; ++i) {
        const size_t l = static_cast<size_t>(lj) + i * lanes;
        if (l >= static_cast<size_t>(L.node_size[m])) continue;
        f(member[first[m] + l], lane_at[lj] + (static_cast<size_t>(m) * Sj + i) * n);
      }
  }
}

}  // namespace zcoll::coll
