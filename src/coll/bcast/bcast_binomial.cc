// bcast_binomial.cc — binomial-tree Bcast (C-Coll Fig. 3).
//
// Phases: relative rank v = (rank - root) mod N; v receives from v minus its
// lowest set bit and sends to v + 2^k for every 2^k below that bit (largest
// subtree first). The buffer moves as pipeline segments: a rank forwards
// segment k to its children as soon as it has it (the pipeline: bcast_tree.cc).
// Cost (D bytes, L = ceil(log2 N), S segments):
//   raw:     L alpha + (L S + L - 1) D/S beta (a rank sends each segment to
//            each child over its one link: the root's link carries L copies,
//            and the last segment still crosses L - 1 levels)
//   cpr_p2p: every hop decompresses and recompresses the whole buffer:
//            L alpha + L D/rho beta + L D (gamma_c + gamma_d)
//   doc/hom: the root compresses each segment once, inner ranks forward the
//            streams untouched and decompress them once:
//            L alpha + (L S + L - 1) D/(rho S) beta + D gamma_c + D gamma_d
//            (root compression of segment k+1 overlaps the send of segment k)
// Error: doc/hom eb on every non-root rank; cpr_p2p L eb (a rank at depth d went
// through d compressions); the root keeps its exact values.
// Restrictions: none.
#include <algorithm>

#include "coll/control/algorithms.h"
#include "coll/datapath/primitives.h"

namespace zcoll::coll {

zcoll_status bcast_binomial(Ctx& c, const Args& a) {
  const int N = c.size, r = c.rank;
  if (N == 1) return ZCOLL_SUCCESS;
  const int vr = (r - a.root + N) % N;
  auto real = [&](int v) { return (v + a.root) % N; };
  int children[32], nch = 0;
  for (int m = lowbit_or(vr, N) >> 1; m >= 1; m >>= 1)
    if (vr + m < N) children[nch++] = real(vr + m);
  const int parent = vr == 0 ? -1 : real(vr - (vr & -vr));
  return bcast_tree(c, a, parent, children, nch);
}

ErrState bcast_binomial_model(const ModelIn& m) { return binomial_copy_model(m); }

double bcast_binomial_cost(const CostTerms& t, const CostQuery& q, zcoll_mode mode) {
  const int N = q.size;
  const double D = buffer_bytes(q);
  const double L = ceil_log2(N);
  const double S = segment_count(q);
  // segments stream down the tree: latency once per level; the root's link
  // carries every segment once per child (L times), and a segment's transfer
  // time per further level fills the pipeline
  if (mode == ZCOLL_MODE_RAW) return L * t.a + (L * S + L - 1) * D / S * t.b;
  const double inv = t.inv_ratio_k(q, 1);
  if (mode == ZCOLL_MODE_CPR_P2P) return L * (t.a + D * inv * t.b) + L * D * (t.cc + t.cd);
  if (mode != ZCOLL_MODE_DOC && mode != ZCOLL_MODE_HOM) return -1;
  // the root compresses, inner ranks forward, every rank decodes its copy
  return L * t.a + t.pipe((L * S + L - 1) * D * inv / S * t.b, D * std::max(t.cc, t.cd)) +
         D / S * (t.cc + t.cd);
}

}  // namespace zcoll::coll
