// reduce_scatter_pairwise.cc — pairwise-exchange Reduce_scatter (MPICH's
// MPIR_Reduce_scatter_intra_pairwise, with compression).
//
// Phases: N-1 steps; at step s rank r sends its values of block (r+s) mod N to
// that block's owner and receives from rank (r-s) mod N that rank's values of
// block r, which it reduces into its own. Every block travels one hop, straight
// to its owner, as pipeline segments; a received segment is reduced while the
// next ones are in flight. Unlike the ring, no partial sum is ever forwarded.
// Cost (D bytes, rho = compression ratio):
//   raw:      (N-1) alpha + (N-1)/N D beta + (N-1)/N D gamma
//   cpr_p2p:  (N-1) alpha + (N-1)/N D/rho beta + (N-1)/N D (gamma_c + gamma_d)
//   doc/hom:  the same with the codec overlapping the transfers: every block
//             but the own is compressed once by its sender and decoded once
//             into its owner's exact values
// Error (per-compression bound eb): (N-1) eb for SUM in every compressed mode
// (each input but the owner's is compressed once; nothing is recompressed),
// eb for MAX/MIN, magnitude-weighted for PROD. Average divides by N.
// Restrictions: commutative ops; any process count. Not one of AUTO's
// candidates (run it with ZCOLL_REDUCE_SCATTER_ALGO=pairwise or
// zcoll_comm_set_algorithm).
#include <algorithm>

#include "coll/control/algorithms.h"
#include "coll/datapath/data_path.h"
#include "coll/datapath/primitives.h"

namespace zcoll::coll {

zcoll_status reduce_scatter_pairwise(Ctx& c, const Args& a) {
  const int N = c.size, r = c.rank;
  const size_t vs = c.vsize, n = a.counts[r];
  const DataPath path(c);
  if (N == 1) {
    copy_values(c, a.out, a.in, n);
    return ZCOLL_SUCCESS;
  }
  size_t max_count = 0;
  for (int b = 0; b < N; ++b) max_count = std::max(max_count, a.counts[b]);
  const size_t max_seg = c.segments(max_count);
  const size_t slot = c.seg_capacity(max_count);
  // In place with the result at the start of recvbuf: reduce into scratch when
  // that overlaps blocks still to be sent.
  const bool scratch = a.in == a.out && a.displs[r] != 0;
  auto* dst = static_cast<uint8_t*>(scratch ? c.ws->get(Workspace::kValuesB, n * vs + 8) : a.out);
  uint8_t* S = c.ws->get(Workspace::kSendA, max_seg * slot + 8);
  uint8_t* R = c.ws->get(Workspace::kRecvA, max_seg * slot + 8);
  transport::Req* reqs = c.ws->get_as<transport::Req>(Workspace::kReqs, 2 * max_seg + 2);
  transport::Req *sreq = reqs, *rreq = reqs + max_seg;
  auto in_at = [&](int b, size_t k) {
    return static_cast<const uint8_t*>(a.in) + (a.displs[b] + k * c.seg_values) * vs;
  };
  auto out_at = [&](size_t k) { return dst + k * c.seg_values * vs; };

  for (int s = 1; s < N; ++s) {
    const int to = (r + s) % N, from = (r - s + N) % N;
    const size_t send_segs = c.segments(a.counts[to]), recv_segs = c.segments(n);
    for (size_t k = 0; k < recv_segs; ++k)
      ZCOLL_CHECK(c.tp->irecv(R + k * slot, path.capacity(c.seg_len(n, k)), from, c.tag, &rreq[k]));
    for (size_t k = 0; k < send_segs; ++k) {
      const size_t len = c.seg_len(a.counts[to], k);
      Message m;
      c.describe_piece(len, 1);
      ZCOLL_STEP(c, path.pack(in_at(to, k), len, S + k * slot, slot, &m));
      ZCOLL_CHECK(send(c, m.data, m.bytes, len * vs, to, &sreq[k]));
    }
    for (size_t k = 0; k < recv_segs; ++k) {
      const size_t len = c.seg_len(n, k);
      size_t got = 0;
      ZCOLL_CHECK(c.tp->wait(rreq[k], &got));
      // the own values (first step), then the sum so far, reduced with theirs here
      Partial::Buffers pb;
      pb.values = out_at(k);
      Partial part(path, s == 1 ? in_at(r, k) : out_at(k), len, pb, 1, /*to_values=*/true);
      c.describe_piece(len, s + 1);
      part.add({R + k * slot, got});
    }
    for (size_t k = 0; k < send_segs; ++k) ZCOLL_CHECK(c.tp->wait(sreq[k], nullptr));
  }
  if (c.average && c.op == ZCOLL_OP_SUM && c.failed == ZCOLL_SUCCESS) scale(c, dst, n, N);
  if (scratch) copy_values(c, a.out, dst, n);
  return ZCOLL_SUCCESS;
}

ErrState reduce_scatter_pairwise_model(const ModelIn& m) {
  ErrState s = leaf(m);  // the owner's exact values
  for (int i = 1; i < m.size; ++i) s = combine(m.op, s, compressed(m, leaf(m)));
  return averaged(m, s);
}

double reduce_scatter_pairwise_cost(const CostTerms& t, const CostQuery& q, zcoll_mode mode) {
  const int N = q.size;
  const double D = buffer_bytes(q), f = (N - 1.0) / N;
  const double lat = (N - 1) * t.a;
  if (mode == ZCOLL_MODE_RAW) return lat + t.pipe(f * D * t.b, f * D * t.g);
  const double w = f * D * t.inv_ratio_k(q, 1) * t.b;  // single-input streams
  const double codec = f * D * (t.cc + t.cd);          // sent blocks; received ones
  if (mode == ZCOLL_MODE_CPR_P2P) return lat + w + codec;
  if (mode == ZCOLL_MODE_DOC || mode == ZCOLL_MODE_HOM) return lat + t.pipe(w, codec);
  return -1;
}

}  // namespace zcoll::coll
