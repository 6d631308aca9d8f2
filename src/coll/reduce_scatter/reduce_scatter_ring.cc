// reduce_scatter_ring.cc — ring Reduce_scatter (MPI_Reduce_scatter and _block).
//
// Phases: N-1 steps; at step s rank r sends its partial of block r-s-1 to r+1
// and receives block r-s-2 from r-1, which it combines with its own values of
// that block and forwards at step s+1; after N-1 steps it holds block r. Each
// block moves as pipeline segments (one compressed stream each), so that a
// segment is combined and forwarded while the next one is still in flight.
//
// Per mode (D = total bytes, rho = compression ratio, gamma_c / gamma_d / gamma_h
// = compress / decompress / homomorphic-add time per byte, gamma = reduction):
//   raw:      (N-1) alpha + (N-1)/N D beta + (N-1)/N D gamma
//   cpr_p2p:  (N-1) alpha + (N-1)/N D/rho beta + (N-1)/N D (gamma_c + gamma_d + gamma)
//             (whole block per message, no overlap)
//   doc:      as cpr_p2p, pipelined by segment with compression in chunk
//             ranges that poll MPI, so the beta term hides behind gamma_c
//   hom:      (N-1) alpha + (N-1)/N D/rho beta + (N-1)/N D (gamma_c + gamma_h)
//             + D/N gamma_d (only the final block is decompressed)
// Error (per-compression bound eb): a block's partial is recompressed at each of
// the N-2 intermediate steps and the first send: doc/cpr_p2p (N-1) eb for SUM,
// (N-1) eb for MAX/MIN, a magnitude-weighted sum for PROD; hom (N-1) eb (every
// input but the owner's is compressed once; the owner adds its exact values).
// Average divides the bound by N.
// Restrictions: commutative ops (SUM, PROD, MAX, MIN); any process count.
#include <algorithm>
#include <cstring>

#include "coll/control/algorithms.h"
#include "coll/datapath/data_path.h"
#include "coll/datapath/primitives.h"
#include "core/error.h"

namespace zcoll::coll {

namespace {
// The ring's workspace: a receive and a send slot for every segment of the
// largest block, two of each (consecutive steps alternate), a request for each,
// and one segment's values and compressed stream for the partial.
struct RingSlots {
  size_t max_seg = 0;  // segments of the largest block
  size_t slot = 0;     // bytes of one segment's slot
  uint8_t* R[2] = {};
  uint8_t* S[2] = {};
  void* tmp = nullptr;
  size_t local_cap = 0;
  uint8_t* local_stream = nullptr;
  transport::Req* reqs = nullptr;  // 4 max_seg: rreq[0], rreq[1], sreq[0], sreq[1]
  transport::Req* rreq[2] = {};
  transport::Req* sreq[2] = {};
};

RingSlots ring_slots(Ctx& c, const DataPath& path, const size_t* counts) {
  RingSlots w;
  size_t max_count = 0;
  for (int b = 0; b < c.size; ++b) max_count = std::max(max_count, counts[b]);
  w.max_seg = c.segments(max_count);
  w.slot = c.seg_capacity(max_count);
  const size_t seg_vals = std::min(max_count, c.seg_values);
  const size_t bytes = w.max_seg * w.slot + 8;
  w.R[0] = c.ws->get(Workspace::kRecvA, bytes);
  w.R[1] = c.ws->get(Workspace::kRecvB, bytes);
  w.S[0] = c.ws->get(Workspace::kSendA, bytes);
  w.S[1] = c.ws->get(Workspace::kSendB, bytes);
  w.tmp = c.ws->get(Workspace::kValuesA, seg_vals * c.vsize + 8);
  w.local_cap = path.capacity(seg_vals);
  w.local_stream = c.ws->get(Workspace::kStreamA, w.local_cap + 8);
  w.reqs = c.ws->get_as<transport::Req>(Workspace::kReqs, 4 * w.max_seg + 4);
  w.rreq[0] = w.reqs;
  w.rreq[1] = w.reqs + w.max_seg;
  w.sreq[0] = w.reqs + 2 * w.max_seg;
  w.sreq[1] = w.reqs + 3 * w.max_seg;
  for (size_t i = 0; i < 4 * w.max_seg; ++i) w.reqs[i] = transport::kNoReq;
  return w;
}
}  // namespace

zcoll_status ring_reduce_scatter(Ctx& c, const void* in, const size_t* counts, const size_t* displs,
                                 RingRsOut* out) {
  const int N = c.size, r = c.rank;
  const size_t vs = c.vsize;
  const int right = (r + 1) % N, left = (r - 1 + N) % N;
  const DataPath path(c);
  RingSlots w = ring_slots(c, path, counts);

  auto in_at = [&](int b, size_t k) {
    return static_cast<const uint8_t*>(in) + (displs[b] + k * c.seg_values) * vs;
  };
  auto block_send = [&](int s) { return ((r - s - 1) % N + N) % N; };
  auto block_recv = [&](int s) { return ((r - s - 2) % N + N) % N; };
  auto post_recvs = [&](int s) -> zcoll_status {
    int b = block_recv(s);
    for (size_t k = 0; k < c.segments(counts[b]); ++k)
      ZCOLL_CHECK(c.tp->irecv(w.R[s % 2] + k * w.slot, path.capacity(c.seg_len(counts[b], k)), left,
                              c.tag, &w.rreq[s % 2][k]));
    return ZCOLL_SUCCESS;
  };

  ZCOLL_CHECK(post_recvs(0));
  // step 0: this rank's own values of block r-1
  {
    const int b = block_send(0);
    for (size_t k = 0; k < c.segments(counts[b]); ++k) {
      const size_t len = c.seg_len(counts[b], k);
      Message m;
      c.describe_piece(len, 1);
      ZCOLL_STEP(c, path.pack(in_at(b, k), len, w.S[0] + k * w.slot, w.slot, &m));
      ZCOLL_CHECK(send(c, m.data, m.bytes, len * vs, right, &w.sreq[0][k]));
    }
  }
  size_t piece_pos = 0;
  for (int s = 0; s <= N - 2; ++s) {
    if (s + 1 <= N - 2) ZCOLL_CHECK(post_recvs(s + 1));
    const int b = block_recv(s);
    const bool last = s == N - 2;  // then b == r
    // the reduced block: values (Reduce_scatter, raw and cpr_p2p Allreduce),
    // or segment streams for the allgather phase (doc/hom Allreduce)
    const bool to_values = last && out->values;
    const int o = (s + 1) % 2;
    for (size_t k = 0; k < c.segments(counts[b]); ++k) {
      const size_t len = c.seg_len(counts[b], k);
      Partial::Buffers pb;
      pb.values = to_values ? static_cast<uint8_t*>(out->values) + k * c.seg_values * vs : w.tmp;
      pb.out = !last ? w.S[o] + k * w.slot : out->pieces + piece_pos;
      pb.out_cap = !last ? w.slot : out->pieces_cap - piece_pos;
      pb.tmp[0] = w.local_stream;
      pb.tmp_cap = w.local_cap;
      Partial part(path, in_at(b, k), len, pb, 1, to_values);
      c.describe_piece(len, 1);
      part.start();  // hom: this rank's segment, compressed while the partner's is in flight
      size_t got = 0;
      ZCOLL_CHECK(c.tp->wait(w.rreq[s % 2][k], &got));
      w.rreq[s % 2][k] = transport::kNoReq;
      if (!last) {  // the slot's send of step s-1
        ZCOLL_CHECK(c.tp->wait(w.sreq[o][k], nullptr));
        w.sreq[o][k] = transport::kNoReq;
      }
      c.describe_piece(len, s + 2);  // the partial now sums s + 2 inputs
      part.add({w.R[s % 2] + k * w.slot, got});
      if (!last) {
        const Message m = part.emit();
        ZCOLL_CHECK(send(c, m.data, m.bytes, len * vs, right, &w.sreq[o][k]));
      } else if (!to_values) {
        piece_pos += part.emit(/*average=*/true).bytes;  // the Allreduce's result block
      }
    }
  }
  out->pieces_size = piece_pos;
  for (size_t i = 0; i < 4 * w.max_seg; ++i) ZCOLL_CHECK(c.tp->wait(w.reqs[i], nullptr));
  return ZCOLL_SUCCESS;  // data-path failures are in c.failed
}

ErrState reduce_scatter_ring_model(const ModelIn& m) {
  if (m.size == 1) return leaf(m);
  ErrState s;
  if (m.hom) {
    s = compressed(m, leaf(m));
    for (int i = 0; i < m.size - 2; ++i) s = combine(m.op, s, compressed(m, leaf(m)));
  } else {
    s = compressed(m, leaf(m));
    for (int i = 0; i < m.size - 2; ++i) s = compressed(m, combine(m.op, s, leaf(m)));
  }
  return averaged(m, combine(m.op, s, leaf(m)));
}

zcoll_status reduce_scatter_ring(Ctx& c, const Args& a) {
  const int r = c.rank;
  const size_t n = a.counts[r];
  if (c.size == 1) {
    copy_values(c, a.out, a.in, n);
    return ZCOLL_SUCCESS;
  }
  // In place with the result at the start of recvbuf: compute into scratch
  // when that overlaps other blocks of the input.
  const bool scratch = a.in == a.out && a.displs[r] != 0;
  void* dst = scratch ? c.ws->get(Workspace::kValuesB, n * c.vsize + 8) : a.out;
  RingRsOut o;
  o.values = dst;
  ZCOLL_CHECK(ring_reduce_scatter(c, a.in, a.counts, a.displs, &o));
  if (c.average && c.op == ZCOLL_OP_SUM) scale(c, dst, n, c.size);
  if (scratch) copy_values(c, a.out, dst, n);
  return ZCOLL_SUCCESS;
}

double reduce_scatter_ring_cost(const CostTerms& t, const CostQuery& q, zcoll_mode mode) {
  const int N = q.size;
  const double D = buffer_bytes(q);
  const double f = (N - 1.0) / N;
  const double lat = (N - 1) * t.a;
  if (mode == ZCOLL_MODE_RAW) return lat + t.pipe(f * D * t.b, f * D * t.g);
  const double w = f * D * t.inv_ratio_rs(q) * t.b;
  switch (mode) {
    case ZCOLL_MODE_CPR_P2P: return lat + w + f * D * (t.cc + t.cd + t.g);
    case ZCOLL_MODE_DOC: return lat + t.pipe(w, f * D * (t.cc + t.cd + t.g));
    case ZCOLL_MODE_HOM: return lat + t.pipe(w, f * D * (t.cc + t.ch) + D / N * t.cd);
    default: return -1;
  }
}

}  // namespace zcoll::coll
