// allreduce_ring.cc — ring Allreduce = ring Reduce_scatter + ring Allgather.
//
// Phases: the vector is split into N blocks (multiples of 32 values); the
// reduce-scatter ring leaves block r reduced on rank r; the allgather ring
// distributes the blocks. The modes differ only in the data path:
//   raw:     values all the way: 2(N-1) alpha + 2(N-1)/N D beta + (N-1)/N D gamma
//   cpr_p2p: compress before / decompress after every send in both phases:
//            2(N-1) alpha + 2(N-1)/N D/rho beta + 2(N-1)/N D (gamma_c + gamma_d)
//            + (N-1)/N D gamma
//   doc:     (C-Coll) reduce-scatter decompress-operate-compress with chunked
//            compression polling MPI; the reduced block is compressed once and
//            moved by the balanced fixed-segment allgather, decompressed at
//            the end: 2(N-1) alpha + 2(N-1)/N D/rho beta
//            + D gamma_c + ((N-1)/N + 1) D gamma_d + (N-1)/N D gamma
//   hom:     (hZCCL) every block is compressed once, reduced by homomorphic
//            addition in each round, never decompressed between the phases;
//            only the final allgathered streams are decoded:
//            2(N-1) alpha + 2(N-1)/N D/rho beta + D gamma_c
//            + (N-1)/N D gamma_h + D gamma_d
// Error (per-compression bound eb, SUM): hom N eb (N inputs compressed once,
// sums are exact on codes); doc N eb ((N-1) recompressions of the partial plus
// the allgather's one); cpr_p2p (2N-2) eb ((N-1) in the reduce-scatter, up to
// N-1 more hops in the allgather). MAX/MIN accumulate the same counts (errors
// do not add across inputs but each recompression adds eb); PROD is weighted by
// the magnitudes (docs/algorithms.md). Average divides the sum's bound by N.
// Bit-identical results on all ranks: every rank, the block's owner included,
// takes its values from the same stream (raw: the same values). In cpr_p2p the
// forwarded copies are recompressed, which is the identity for codes below
// 2^23 (float) but not guaranteed beyond.
// Restrictions: commutative ops; any process count and count.
#include "coll/control/algorithms.h"
#include "coll/datapath/data_path.h"
#include "coll/datapath/primitives.h"

namespace zcoll::coll {

zcoll_status allreduce_ring(Ctx& c, const Args& a) {
  const int N = c.size, r = c.rank;
  const size_t n = a.count;
  auto* o = static_cast<uint8_t*>(a.out);
  if (N == 1) {
    copy_values(c, a.out, a.in, n);
    return ZCOLL_SUCCESS;
  }
  size_t* counts = c.ws->get_as<size_t>(Workspace::kCounts, 2 * static_cast<size_t>(N));
  size_t* displs = counts + N;
  split_blocks(n, N, counts, displs);
  RingRsOut rs;
  if (!DataPath(c).travels()) {  // the reduced block as values, then hop by hop
    rs.values = o + displs[r] * c.vsize;
    ZCOLL_CHECK(ring_reduce_scatter(c, a.in, counts, displs, &rs));
    if (c.average && c.op == ZCOLL_OP_SUM && c.failed == ZCOLL_SUCCESS)
      scale(c, rs.values, counts[r], N);
    return ring_allgather_hops(c, a.out, counts, displs, false);
  }
  rs.pieces_cap = segments_capacity(c, counts[r]);
  rs.pieces = c.ws->get(Workspace::kStreamC, rs.pieces_cap + 8);
  ZCOLL_CHECK(ring_reduce_scatter(c, a.in, counts, displs, &rs));
  // doc/hom: the reduced block, compressed, goes round the balanced ring; the
  // owner decodes its own stream too, so that every rank has the same values.
  return ring_allgather_pieces(c, a.out, counts, displs, rs.pieces, rs.pieces_size, true);
}

ErrState allreduce_ring_model(const ModelIn& m) {
  if (m.size == 1) return leaf(m);
  const int N = m.size;
  if (m.hom) {
    ErrState s = compressed(m, leaf(m));
    for (int i = 1; i < N; ++i) s = combine(m.op, s, compressed(m, leaf(m)));
    return averaged(m, s);
  }
  ErrState s = compressed(m, leaf(m));
  for (int i = 0; i < N - 2; ++i) s = compressed(m, combine(m.op, s, leaf(m)));
  s = averaged(m, combine(m.op, s, leaf(m)));
  if (m.mode == ZCOLL_MODE_RAW) return s;
  s = compressed(m, s);  // the allgather's compression
  if (m.mode == ZCOLL_MODE_CPR_P2P)
    for (int i = 1; i < N - 1; ++i) s = compressed(m, s);
  return s;
}

double allreduce_ring_cost(const CostTerms& t, const CostQuery& q, zcoll_mode mode) {
  const int N = q.size;
  const double D = buffer_bytes(q);
  const double f = (N - 1.0) / N;
  const double lat = 2 * (N - 1) * t.a;
  if (mode == ZCOLL_MODE_RAW) return lat + t.pipe(2 * f * D * t.b, f * D * t.g);
  // reduce-scatter steps carry 1..N-1 term sums, the allgather N-term sums
  const double inv = 0.5 * (t.inv_ratio_rs(q) + t.inv_ratio_k(q, N));
  const double w = 2 * f * D * inv * t.b;
  switch (mode) {
    case ZCOLL_MODE_CPR_P2P: return lat + w + 2 * f * D * (t.cc + t.cd) + f * D * t.g;
    case ZCOLL_MODE_DOC: return lat + t.pipe(w, D * t.cc + (f + 1) * D * t.cd + f * D * t.g);
    case ZCOLL_MODE_HOM: return lat + t.pipe(w, D * t.cc + f * D * t.ch + D * t.cd);
    default: return -1;
  }
}

}  // namespace zcoll::coll
