// allreduce_node_leader.cc — node-aware Allreduce through one leader per node,
// for small vectors (hierarchy.h: nodes, the composition's fault rule).
//
// Phases (M nodes, P ranks on the largest node; a node's leader is its local
// rank 0, rail 0 is the group of leaders):
//   1. inside each node, raw: binomial Reduce to the leader;
//   2. among the leaders, the call's mode: recursive-doubling Allreduce of the
//      whole vector (log2 M rounds instead of log2 N);
//   3. inside each node, raw: binomial Bcast from the leader.
// One node: phase 2 is empty (exact); one rank per node: phases 1 and 3 are
// empty and phase 2 is the flat recursive doubling. Average: the leader
// divides by N before phase 3.
// Cost (D bytes, L_P = ceil(log2 P); a_n, b_n inside the node):
//   2 L_P (a_n + D b_n) + L_P D gamma + recursive doubling of D over M ranks
//   at (a, b) (one rank per node uses the link), its inputs sums of P ranks'
//   inputs + three small allreduces.
// Error: phases 1 and 3 are exact; phase 2 is recursive doubling's over M
// node partials (hom M eb; doc (2M-2) eb for M = 2^k, see
// allreduce_recursive_doubling.cc; PROD with inputs of magnitude max|x|^P);
// average / N.
// Restrictions: commutative ops; any layout; not the size rule's pick.
#include "coll/control/algorithms.h"
#include "coll/datapath/hierarchy.h"
#include "coll/datapath/primitives.h"

namespace zcoll::coll {

zcoll_status allreduce_node_leader(Ctx& c, const Args& a) {
  Hierarchy h;
  ZCOLL_CHECK(hierarchy(*c.tp, &h));  // collective the first time (hierarchy.h)
  const int P = h.local_size();
  const size_t n = a.count;
  Composition comp(c);
  Args an;
  an.in = a.in;
  an.out = a.out;
  an.count = n;
  an.root = 0;
  // 1. the node's sum on its leader
  if (P > 1)
    comp.step(*find_algorithm(ZCOLL_COLL_REDUCE, ZCOLL_ALGO_BINOMIAL), h.node, ZCOLL_MODE_RAW, an);
  else
    comp.local([&] {
      copy_values(c, a.out, a.in, n);
      return ZCOLL_SUCCESS;
    });
  if (h.local() == 0) {
    // 2. among the leaders
    if (h.nodes() > 1) {
      Args a2;
      a2.in = a2.out = a.out;
      a2.in_place = true;
      a2.count = n;
      comp.step(*find_algorithm(ZCOLL_COLL_ALLREDUCE, ZCOLL_ALGO_RECURSIVE_DOUBLING), h.rail,
                c.mode, a2, P);
    }
    if (c.average && c.op == ZCOLL_OP_SUM)
      comp.local([&] {
        scale(c, a.out, n, c.size);
        return ZCOLL_SUCCESS;
      });
  }
  // 3. the result to the node
  if (P > 1) {
    Args a3;
    a3.in = a3.out = a.out;
    a3.count = n;
    a3.root = 0;
    comp.step(*find_algorithm(ZCOLL_COLL_BCAST, ZCOLL_ALGO_BINOMIAL), h.node, ZCOLL_MODE_RAW, a3);
  }
  return ZCOLL_SUCCESS;  // failures are in c.failed, agreed by the caller's bracket
}

ErrState allreduce_node_leader_model(const ModelIn& m) {
  return rail_reduction_model(
      find_algorithm(ZCOLL_COLL_ALLREDUCE, ZCOLL_ALGO_RECURSIVE_DOUBLING)->model, m);
}

double allreduce_node_leader_cost(const CostTerms& t, const CostQuery& q, zcoll_mode mode) {
  const Levels lv = levels_of(q);
  const int P = lv.ppn, M = lv.nodes;
  const double D = buffer_bytes(q);
  const CostTerms tn = node_terms(t);
  double s = 0;
  if (P > 1) {
    const int L = ceil_log2(P);
    s += 2 * L * (tn.a + D * tn.b) + L * D * t.g + 2 * step_sync(tn, P);
  }
  if (M > 1) {
    const double rail =
        rail_step_cost(*find_algorithm(ZCOLL_COLL_ALLREDUCE, ZCOLL_ALGO_RECURSIVE_DOUBLING), t, q,
                       M, q.total_values, q.input_terms * P, mode);
    if (rail < 0) return rail;
    s += rail;
  }
  return s;
}

}  // namespace zcoll::coll
