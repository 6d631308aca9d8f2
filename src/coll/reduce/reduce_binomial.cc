// reduce_binomial.cc — binomial-tree Reduce (commutative ops).
//
// Phases: relative rank v = (rank - root) mod N combines the vectors of its
// children v + 2^k (for 2^k below its lowest set bit) with its own and sends
// the result to its parent. The vector moves as pipeline segments with a
// window of posted receives per child, so a rank forwards segment k up the
// tree while segment k+1 is still arriving.
// Cost (D bytes, L = ceil(log2 N), S segments):
//   raw:     (L + S - 1) alpha + (L + S - 1) D/S beta + L D gamma
//   cpr_p2p: one stream per hop, decompress-operate-compress at every inner
//            rank: L alpha + L D/rho beta + L D (gamma_c + gamma_d + gamma)
//   doc:     as cpr_p2p, pipelined by segment with chunked compression that
//            polls MPI
//   hom:     every rank compresses its vector once; inner ranks add their
//            children's streams homomorphically; the root decodes once:
//            (L + S - 1) alpha + (L + S - 1) D/(rho S) beta + D gamma_c
//            + L D gamma_h + L D gamma_d (root)
// Error (per-compression bound eb, SUM): hom (N-1) eb (every input but the
// root's is compressed once; the root adds its exact values); doc/cpr_p2p
// (N-1) eb as well (each non-root rank's partial is compressed once on its way
// up and contains the errors of its subtree); MAX/MIN: the depth L times eb;
// PROD: magnitude-weighted. Average divides by N.
// Restrictions: commutative ops.
#include <algorithm>
#include <vector>

#include "coll/control/algorithms.h"
#include "coll/datapath/data_path.h"
#include "coll/datapath/primitives.h"

namespace zcoll::coll {

zcoll_status reduce_binomial(Ctx& c, const Args& a) {
  const int N = c.size, r = c.rank;
  const size_t n = a.count, vs = c.vsize;
  const int vr = (r - a.root + N) % N;
  auto real = [&](int v) { return (v + a.root) % N; };
  const bool avg = c.average && c.op == ZCOLL_OP_SUM;
  int kids[32], nch = 0;
  for (int m = 1; m < lowbit_or(vr, N); m <<= 1)
    if (vr + m < N) kids[nch++] = real(vr + m);
  const int parent = vr == 0 ? -1 : real(vr - (vr & -vr));
  if (N == 1) {
    copy_values(c, a.out, a.in, n);
    return ZCOLL_SUCCESS;
  }

  const size_t nseg = c.segments(n);
  const size_t slot = c.seg_capacity(n);
  const size_t W = std::min<size_t>(4, nseg);
  // accumulator: the root reduces into recvbuf, others into scratch
  auto* acc = vr == 0 ? static_cast<uint8_t*>(a.out) : c.ws->get(Workspace::kValuesB, n * vs + 8);
  copy_values(c, acc, a.in, n);
  uint8_t* win = c.ws->get(Workspace::kWindow, static_cast<size_t>(nch) * W * slot + 8);
  uint8_t* S = c.ws->get(Workspace::kSendA, nseg * slot + 8);
  const size_t one = c.piece_capacity(std::min(n, c.seg_values));
  uint8_t* X[2] = {c.ws->get(Workspace::kStreamA, one + 8),
                   c.ws->get(Workspace::kStreamB, one + 8)};
  transport::Req* rreq = c.ws->get_as<transport::Req>(Workspace::kReqs, nch * W + nseg + 2);
  transport::Req* sreq = rreq + nch * W;
  auto vals = [&](uint8_t* base, size_t k) { return base + k * c.seg_values * vs; };
  auto len = [&](size_t k) { return c.seg_len(n, k); };
  auto post = [&](int i, size_t k) -> zcoll_status {
    return c.tp->irecv(win + (i * W + k % W) * slot, c.piece_capacity(len(k)), kids[i], c.tag,
                       &rreq[i * W + k % W]);
  };
  for (int i = 0; i < nch; ++i)
    for (size_t k = 0; k < W; ++k) ZCOLL_CHECK(post(i, k));

  const DataPath path(c);
  for (size_t k = 0; k < nseg; ++k) {
    const size_t l = len(k);
    uint8_t* acc_k = vals(acc, k);
    // this rank's values and its children's partials: sent on (or, at the root, the result)
    Partial::Buffers pb;
    pb.values = acc_k;
    pb.out = S + k * slot;
    pb.out_cap = slot;
    pb.tmp[0] = X[0];
    pb.tmp[1] = X[1];
    pb.tmp_cap = one;
    Partial part(path, acc_k, l, pb, nch, /*to_values=*/vr == 0);
    c.describe_piece(l, 1);
    part.start();
    for (int i = 0; i < nch; ++i) {
      const size_t w = i * W + k % W;
      size_t got = 0;
      ZCOLL_CHECK(c.tp->wait(rreq[w], &got));
      c.describe_piece(l, std::min(2 << i, N - vr));  // this rank + children 0..i
      part.add({win + w * slot, got});
      if (k + W < nseg) ZCOLL_CHECK(post(i, k + W));
    }
    if (vr == 0) continue;
    c.describe_piece(l, subtree_size(vr, N));
    const Message m = part.emit();
    ZCOLL_CHECK(send(c, m.data, m.bytes, l * vs, parent, &sreq[k]));
  }
  if (vr != 0)
    for (size_t k = 0; k < nseg; ++k) ZCOLL_CHECK(c.tp->wait(sreq[k], nullptr));
  if (vr == 0 && avg && c.failed == ZCOLL_SUCCESS) scale(c, acc, n, N);
  return ZCOLL_SUCCESS;
}

ErrState reduce_binomial_model(const ModelIn& m) {
  const int N = m.size;
  if (N == 1) return leaf(m);
  // sent[v]: the state of what relative rank v sends to its parent
  std::vector<ErrState> sent(N);
  for (int v = N - 1; v >= 0; --v) {
    int low = v == 0 ? (1 << 30) : (v & -v);
    ErrState acc = (m.hom && v != 0) ? compressed(m, leaf(m)) : leaf(m);
    for (int mask = 1; mask < low && v + mask < N; mask <<= 1)
      acc = combine(m.op, acc, sent[v + mask]);
    if (v == 0) return averaged(m, acc);
    sent[v] = m.hom ? acc : compressed(m, acc);
  }
  return leaf(m);
}

double reduce_binomial_cost(const CostTerms& t, const CostQuery& q, zcoll_mode mode) {
  const int N = q.size;
  const double D = buffer_bytes(q);
  const double L = ceil_log2(N);
  const double S = segment_count(q);
  if (mode == ZCOLL_MODE_RAW) return L * t.a + t.pipe((L + S - 1) * D / S * t.b, L * D * t.g);
  // a rank at depth d of the tree forwards sums of its subtree: up to 2^(L-1) terms
  const double inv = t.inv_ratio_k(q, std::max(1.0, std::ldexp(1.0, static_cast<int>(L) - 1)));
  switch (mode) {
    case ZCOLL_MODE_CPR_P2P: return L * (t.a + D * inv * t.b) + L * D * (t.cc + t.cd + t.g);
    case ZCOLL_MODE_DOC:
      return L * t.a + t.pipe((L + S - 1) * D * inv / S * t.b, L * D * (t.cc + t.cd + t.g));
    case ZCOLL_MODE_HOM:
      return L * t.a +
             t.pipe((L + S - 1) * D * inv / S * t.b, D * t.cc + L * D * t.ch + L * D * t.cd);
    default: return -1;
  }
}

}  // namespace zcoll::coll
