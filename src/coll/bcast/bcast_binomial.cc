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

#include "coll/algorithms.h"
#include "coll/primitives.h"

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

}  // namespace zcoll::coll
