// allreduce_recursive_doubling.cc — recursive-doubling Allreduce for any
// process count (gZCCL §3.3.4).
//
// Phases: P = the largest power of two <= N, rem = N - P.
//   pre:    (rem > 0) even ranks r < 2 rem send their whole vector to r+1 and
//           wait; odd ranks r < 2 rem combine it and take part as r/2; ranks
//           r >= 2 rem take part as r - rem.
//   rounds: log2 P exchanges of the whole vector with partner (newrank XOR
//           2^k); both partners compute lo op hi in rank order, so they hold
//           identical values after every round.
//   post:   (rem > 0) odd ranks send the result to r-1.
// The vector moves as pipeline segments (one stream each) so that compressing
// segment k+1 overlaps sending segment k. hom compresses each segment just
// before its first send (not the whole vector first) and, in the last round,
// decodes each segment right after its addition, while later ones arrive.
// Cost (D bytes, L = log2 P, e = 1 if rem > 0):
//   raw:     (L + 2e) alpha + (L + 2e) D beta + (L + e) D gamma
//   cpr_p2p: (L + 2e) alpha + (L + 2e) D/rho beta + (L + e) D (gamma_c + 2 gamma_d)
//   doc:     as cpr_p2p with chunked compression polling MPI (overlap)
//   hom:     (L + 2e) alpha + (L + 2e) D/rho beta + D gamma_c + (L + e) D gamma_h
//            + D gamma_d (compress once, add compressed, decode once)
// Error (per-compression bound eb): hom N eb for SUM (each input compressed once);
// doc/cpr_p2p both partners use the decompressed values of both streams, so a
// round doubles the error and adds 2 eb: (2P - 2) eb + P*pre + e*eb for SUM
// (e.g. N=4: 6 eb), and L eb (+2e) for MAX/MIN. Average divides by N. Results
// are bit-identical on all ranks.
// Restrictions: commutative ops; whole vector per message (better for small
// vectors or large N, gZCCL §3.3.3).
#include <algorithm>
#include <vector>

#include "coll/algorithms.h"
#include "coll/data_path.h"
#include "coll/primitives.h"
#include "coll/sim_cost.h"

namespace zcoll::coll {

zcoll_status allreduce_recursive_doubling(Ctx& c, const Args& a) {
  const int N = c.size, r = c.rank;
  const size_t n = a.count, vs = c.vsize;
  copy_values(c, a.out, a.in, n);
  if (N == 1) return ZCOLL_SUCCESS;
  int P = 1;
  while (P * 2 <= N) P *= 2;
  const int rem = N - P;
  const int nr = r < 2 * rem ? (r % 2 == 0 ? -1 : r / 2) : r - rem;
  auto real = [&](int v) { return v < rem ? 2 * v + 1 : v + rem; };

  const DataPath path(c);
  const size_t nseg = c.segments(n);
  const size_t slot = c.seg_capacity(n);
  const size_t seg_vals = std::min(n, c.seg_values);
  auto* V = static_cast<uint8_t*>(a.out);
  uint8_t* S = c.ws->get(Workspace::kSendA, nseg * slot + 8);
  uint8_t* R = c.ws->get(Workspace::kRecvA, nseg * slot + 8);
  uint8_t* H[2] = {c.ws->get(Workspace::kStreamA, nseg * slot + 8),
                   c.ws->get(Workspace::kStreamB, nseg * slot + 8)};
  c.ws->get(Workspace::kValuesA, seg_vals * vs + 8);  // Exchange's scratch, sized once
  // per segment: its running state, the bytes received, the message sent
  auto* state = c.ws->get_as<Exchange::State>(Workspace::kTable, nseg + 1);
  auto* sent = c.ws->get_as<Message>(Workspace::kCounts, nseg + 1);
  auto* rsz = c.ws->get_as<size_t>(Workspace::kCursors, nseg + 1);
  transport::Req* req = c.ws->get_as<transport::Req>(Workspace::kReqs, 2 * nseg + 2);
  transport::Req *sreq = req, *rreq = req + nseg;
  for (size_t k = 0; k < nseg; ++k) {
    state[k] = Exchange::State{};
    sreq[k] = rreq[k] = transport::kNoReq;
  }
  auto len = [&](size_t k) { return c.seg_len(n, k); };
  // segment k's running result (its values in V, its streams in S, H[0], H[1])
  auto segment = [&](size_t k) {
    Exchange::Slots sl;
    sl.values = V + k * c.seg_values * vs;
    sl.send = S + k * slot;
    sl.stream[0] = H[0] + k * slot;
    sl.stream[1] = H[1] + k * slot;
    sl.cap = slot;
    return Exchange(path, len(k), sl, &state[k]);
  };
  // a partner's partials land in R; the result (post-step) where it belongs
  bool into_values = false;
  auto recv_at = [&](size_t k) {
    return into_values ? path.receive_slot(V + k * c.seg_values * vs, R + k * slot)
                       : R + k * slot;
  };
  auto post_recvs = [&](int peer) -> zcoll_status {
    for (size_t k = 0; k < nseg; ++k)
      ZCOLL_CHECK(c.tp->irecv(recv_at(k), path.capacity(len(k)), peer, c.tag, &rreq[k]));
    return ZCOLL_SUCCESS;
  };
  auto received_at = [&](size_t k) -> Message { return {recv_at(k), rsz[k]}; };
  auto wait_recv = [&](size_t k) -> zcoll_status {
    ZCOLL_CHECK(c.tp->wait(rreq[k], &rsz[k]));
    rreq[k] = transport::kNoReq;
    return ZCOLL_SUCCESS;
  };
  auto send_all = [&](int peer, Message* sent) -> zcoll_status {
    for (size_t k = 0; k < nseg; ++k) {
      sent[k] = segment(k).message();
      ZCOLL_CHECK(send(c, sent[k].data, sent[k].bytes, len(k) * vs, peer, &sreq[k]));
    }
    return ZCOLL_SUCCESS;
  };
  auto wait_send = [&](size_t k) -> zcoll_status {
    ZCOLL_CHECK(c.tp->wait(sreq[k], nullptr));
    sreq[k] = transport::kNoReq;
    return ZCOLL_SUCCESS;
  };
  auto wait_sends = [&]() -> zcoll_status {
    for (size_t k = 0; k < nseg; ++k) ZCOLL_CHECK(wait_send(k));
    return ZCOLL_SUCCESS;
  };

  // ---- pre-step: fold the rem extra ranks into their odd neighbours ----------
  if (nr < 0) {
    c.describe_piece(seg_vals, 1);
    ZCOLL_CHECK(send_all(r + 1, sent));
    ZCOLL_CHECK(wait_sends());
  } else if (r < 2 * rem) {
    ZCOLL_CHECK(post_recvs(r - 1));
    for (size_t k = 0; k < nseg; ++k) {
      Exchange seg = segment(k);
      c.describe_piece(seg_vals, 1);
      seg.start();  // hom: this rank's own segment, while the partner's arrives
      ZCOLL_CHECK(wait_recv(k));
      c.describe_piece(len(k), 2);
      seg.fold(received_at(k));
    }
  }

  // ---- rounds ------------------------------------------------------------------
  if (nr >= 0) {
    for (int mask = 1; mask < P; mask <<= 1) {
      const bool last_round = 2 * mask >= P;
      const int peer = real(nr ^ mask);
      ZCOLL_CHECK(post_recvs(peer));
      c.describe_piece(seg_vals, std::max(1, mask * N / P));  // terms held before the round
      ZCOLL_CHECK(send_all(peer, sent));
      for (size_t k = 0; k < nseg; ++k) {
        ZCOLL_CHECK(wait_recv(k));
        if (path.messages_are_values()) ZCOLL_CHECK(wait_send(k));  // V_k is being sent
        c.describe_piece(len(k), 2 * mask * N / P);
        segment(k).combine(sent[k], received_at(k), r < peer, last_round, /*average=*/true);
      }
      ZCOLL_CHECK(wait_sends());
    }
    // the folded ranks get the result compressed: every participant takes D(C(V))
    if (rem > 0) {
      c.describe_piece(seg_vals, N);
      for (size_t k = 0; k < nseg; ++k) segment(k).share_decoded();
    }
  }

  // ---- post-step ---------------------------------------------------------------
  if (rem > 0 && r < 2 * rem) {
    if (nr >= 0) {
      ZCOLL_CHECK(send_all(r - 1, sent));
      ZCOLL_CHECK(wait_sends());
    } else {
      into_values = true;
      ZCOLL_CHECK(post_recvs(r + 1));
      for (size_t k = 0; k < nseg; ++k) {
        ZCOLL_CHECK(wait_recv(k));
        path.unpack(received_at(k), V + k * c.seg_values * vs, len(k));
      }
    }
  }
  return ZCOLL_SUCCESS;
}

ErrState allreduce_recursive_doubling_model(const ModelIn& m) {
  const int N = m.size;
  if (N == 1) return leaf(m);
  int P = 1;
  while (P * 2 <= N) P *= 2;
  const int rem = N - P;
  std::vector<ErrState> st(P);
  for (int v = 0; v < P; ++v) {
    if (m.hom)
      st[v] = v < rem ? combine(m.op, compressed(m, leaf(m)), compressed(m, leaf(m)))
                      : compressed(m, leaf(m));
    else
      st[v] = v < rem ? combine(m.op, compressed(m, leaf(m)), leaf(m)) : leaf(m);
  }
  for (int mask = 1; mask < P; mask <<= 1) {
    for (int v = 0; v < P; ++v) {
      int w = v ^ mask;
      if (w < v) continue;
      ErrState s = m.hom ? combine(m.op, st[v], st[w])
                         : combine(m.op, compressed(m, st[v]), compressed(m, st[w]));
      st[v] = st[w] = s;
    }
  }
  ErrState s = averaged(m, st[0]);
  if (!m.hom && rem > 0) s = compressed(m, s);
  return s;
}

double allreduce_recursive_doubling_cost(const CostTerms& t, const CostQuery& q, zcoll_mode mode) {
  const int N = q.size, P = floor_pow2(N);
  const double D = buffer_bytes(q);
  const double L = std::log2(P), e = N != P ? 1.0 : 0.0;
  const double lat = (L + 2 * e) * t.a;
  if (mode == ZCOLL_MODE_RAW) return lat + t.pipe((L + 2 * e) * D * t.b, (L + e) * D * t.g);
  double inv = 0;  // round k exchanges 2^k-term sums
  for (int k = 0; k < static_cast<int>(L); ++k) inv += t.inv_ratio_k(q, std::ldexp(1.0, k));
  inv += 2 * e * t.inv_ratio_k(q, N);
  inv /= std::max(1.0, L + 2 * e);
  const double w = (L + 2 * e) * D * inv * t.b;
  switch (mode) {
    case ZCOLL_MODE_CPR_P2P: return lat + w + (L + e) * D * (t.cc + 2 * t.cd + t.g);
    case ZCOLL_MODE_DOC: return lat + t.pipe(w, (L + e) * D * (t.cc + 2 * t.cd + t.g));
    case ZCOLL_MODE_HOM: return lat + t.pipe(w, D * t.cc + (L + e) * D * t.ch + D * t.cd);
    default: return -1;
  }
}

}  // namespace zcoll::coll
