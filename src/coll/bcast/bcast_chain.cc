// bcast_chain.cc — pipelined chain Bcast: the ranks form a line from the root
// (relative rank v = (rank - root) mod N receives from v-1 and sends to v+1),
// and the buffer moves as pipeline segments: a rank forwards segment k as soon
// as it has it, while segment k+1 is still on its way in. Every link carries
// the buffer once, so a long message costs about one transfer of D (plus the
// time a segment takes to cross the N-1 hops), where the binomial tree's root
// sends it ceil(log2 N) times.
// Cost (D bytes, S segments):
//   raw:     (N-1) alpha + (N-2+S) D/S beta
//   cpr_p2p: one stream; every hop decompresses and recompresses the whole
//            buffer: (N-1) (alpha + D/rho beta + D (gamma_c + gamma_d))
//   doc/hom: the root compresses each segment once (segment k+1 while k is in
//            flight), the others forward the streams untouched and decompress
//            each one after forwarding it:
//            (N-1) alpha + max((N-2+S) D/(rho S) beta, D max(gamma_c, gamma_d))
//            + D/S (gamma_c + gamma_d)
// Error: doc/hom eb on every non-root rank; cpr_p2p (N-1) eb (the last rank of
// the line went through N-1 compressions); the root keeps its exact values.
// Restrictions: none. For long messages (the default when each rank's share
// is at least 256 KiB); short ones pay N-1 latencies, the binomial tree log2 N.
#include <algorithm>

#include "coll/control/algorithms.h"
#include "coll/datapath/primitives.h"

namespace zcoll::coll {

zcoll_status bcast_chain(Ctx& c, const Args& a) {
  const int N = c.size, r = c.rank;
  if (N == 1) return ZCOLL_SUCCESS;
  const int v = (r - a.root + N) % N;
  const int parent = v == 0 ? -1 : (v - 1 + a.root) % N;
  const int child = (v + 1 + a.root) % N;
  return bcast_tree(c, a, parent, &child, v + 1 < N ? 1 : 0);
}

ErrState bcast_chain_model(const ModelIn& m) {
  if (m.size == 1) return leaf(m);
  ErrState s = compressed(m, leaf(m));
  if (m.mode == ZCOLL_MODE_CPR_P2P)
    for (int d = 1; d < m.size - 1; ++d) s = compressed(m, s);
  return s;
}

double bcast_chain_cost(const CostTerms& t, const CostQuery& q, zcoll_mode mode) {
  const int N = q.size;
  const double D = buffer_bytes(q);
  const double S = segment_count(q);
  if (mode == ZCOLL_MODE_RAW) return (N - 1) * t.a + (N - 2 + S) * D / S * t.b;
  const double inv = t.inv_ratio_k(q, 1);
  if (mode == ZCOLL_MODE_CPR_P2P) return (N - 1) * (t.a + D * inv * t.b + D * (t.cc + t.cd));
  if (mode != ZCOLL_MODE_DOC && mode != ZCOLL_MODE_HOM) return -1;
  return (N - 1) * t.a + t.pipe((N - 2 + S) * D * inv / S * t.b, D * std::max(t.cc, t.cd)) +
         D / S * (t.cc + t.cd);
}

}  // namespace zcoll::coll
