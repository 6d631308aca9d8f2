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

#include "coll/algorithms.h"
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

}  // namespace zcoll::coll
