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

  const bool hom = c.hom(), cmp = c.compressed();
  const bool avg = c.average && c.op == ZCOLL_OP_SUM;
  const size_t nseg = c.segments(n);
  const size_t slot = c.seg_capacity(n);
  const size_t seg_vals = std::min(n, c.seg_values);
  auto* V = static_cast<uint8_t*>(a.out);
  uint8_t* S = c.ws->get(Workspace::kSendA, nseg * slot + 8);
  uint8_t* R = c.ws->get(Workspace::kRecvA, nseg * slot + 8);
  uint8_t* H = hom ? c.ws->get(Workspace::kStreamA, nseg * slot + 8) : nullptr;
  uint8_t* H2 = hom ? c.ws->get(Workspace::kStreamB, nseg * slot + 8) : nullptr;
  void* tmp = c.ws->get(Workspace::kValuesA, seg_vals * vs + 8);
  size_t* sz = c.ws->get_as<size_t>(Workspace::kTable, 4 * nseg + 4);
  size_t *ssz = sz, *hsz = sz + nseg, *h2sz = sz + 2 * nseg, *rsz = sz + 3 * nseg;
  transport::Req* req = c.ws->get_as<transport::Req>(Workspace::kReqs, 2 * nseg + 2);
  transport::Req *sreq = req, *rreq = req + nseg;
  for (size_t i = 0; i < 2 * nseg; ++i) req[i] = transport::kNoReq;
  auto vals = [&](uint8_t* base, size_t k) { return base + k * c.seg_values * vs; };
  auto len = [&](size_t k) { return c.seg_len(n, k); };

  // hom: H = C(V) segment by segment, just in time (segments 0..k ready after)
  size_t h_ready = hom ? 0 : nseg;
  auto ensure_h = [&](size_t k) {
    const size_t pn = c.piece_n;
    const int pt = c.piece_terms;
    c.describe_piece(seg_vals, 1);
    for (; h_ready <= k && h_ready < nseg; ++h_ready) {
      hsz[h_ready] = 0;
      ZCOLL_STEP(c, compress(c, vals(V, h_ready), len(h_ready), H + h_ready * slot, slot,
                             &hsz[h_ready]));
    }
    c.describe_piece(pn, pt);
  };

  auto post_recvs = [&](int peer) -> zcoll_status {
    for (size_t k = 0; k < nseg; ++k)
      ZCOLL_CHECK(c.tp->irecv(R + k * slot, c.piece_capacity(len(k)), peer, c.tag, &rreq[k]));
    return ZCOLL_SUCCESS;
  };
  // Send the current state (raw: V; doc/cpr: compress V into S; hom: H).
  auto send_state = [&](int peer) -> zcoll_status {
    for (size_t k = 0; k < nseg; ++k) {
      const size_t l = len(k);
      if (!cmp) {
        ZCOLL_CHECK(send(c, vals(V, k), l * vs, l * vs, peer, &sreq[k]));
      } else if (hom) {
        ensure_h(k);
        ZCOLL_CHECK(send(c, H + k * slot, hsz[k], l * vs, peer, &sreq[k]));
      } else {
        ZCOLL_STEP(c, compress(c, vals(V, k), l, S + k * slot, slot, &ssz[k]));
        ZCOLL_CHECK(send(c, S + k * slot, ssz[k], l * vs, peer, &sreq[k]));
      }
    }
    return ZCOLL_SUCCESS;
  };
  auto wait_sends = [&]() -> zcoll_status {
    for (size_t k = 0; k < nseg; ++k) {
      ZCOLL_CHECK(c.tp->wait(sreq[k], nullptr));
      sreq[k] = transport::kNoReq;
    }
    return ZCOLL_SUCCESS;
  };
  // ---- pre-step: fold the rem extra ranks into their odd neighbours ----------
  if (nr < 0) {
    c.describe_piece(seg_vals, 1);
    ZCOLL_CHECK(send_state(r + 1));
    ZCOLL_CHECK(wait_sends());
  } else if (r < 2 * rem) {
    ZCOLL_CHECK(post_recvs(r - 1));
    for (size_t k = 0; k < nseg; ++k) {
      if (hom) ensure_h(k);  // this rank's own segment, while the partner's arrives
      ZCOLL_CHECK(c.tp->wait(rreq[k], &rsz[k]));
      rreq[k] = transport::kNoReq;
      const uint8_t* rp = R + k * slot;
      if (!received(c, rp, rsz[k])) continue;
      c.describe_piece(len(k), 2);
      if (!cmp)
        reduce_ordered(c, vals(V, k), rp, vals(V, k), len(k));
      else if (hom)
        ZCOLL_STEP(c, hom_add(c, rp, rsz[k], H + k * slot, hsz[k], H2 + k * slot, slot, &h2sz[k]));
      else
        ZCOLL_STEP(c, doc_finish(c, rp, rsz[k], vals(V, k), len(k), vals(V, k)));
    }
    if (hom) {
      std::swap(H, H2);
      std::swap(hsz, h2sz);
    }
  }

  // ---- rounds ------------------------------------------------------------------
  bool decoded = false;  // hom: V already holds the result (decoded in the last round)
  if (nr >= 0) {
    for (int mask = 1; mask < P; mask <<= 1) {
      const bool last_round = 2 * mask >= P;
      const int peer = real(nr ^ mask);
      const bool lo = r < peer;
      ZCOLL_CHECK(post_recvs(peer));
      c.describe_piece(seg_vals, std::max(1, mask * N / P));  // terms held before the round
      ZCOLL_CHECK(send_state(peer));
      for (size_t k = 0; k < nseg; ++k) {
        ZCOLL_CHECK(c.tp->wait(rreq[k], &rsz[k]));
        rreq[k] = transport::kNoReq;
        const uint8_t* rp = R + k * slot;
        const bool ok = received(c, rp, rsz[k]);
        const size_t l = len(k);
        if (!cmp) {
          ZCOLL_CHECK(c.tp->wait(sreq[k], nullptr));  // V_k is being sent
          sreq[k] = transport::kNoReq;
          if (ok) reduce_ordered(c, vals(V, k), lo ? vals(V, k) : rp, lo ? rp : vals(V, k), l);
        } else if (!ok) {
          continue;
        } else if (hom) {
          const uint8_t* mine = H + k * slot;
          c.describe_piece(l, 2 * mask * N / P);
          ZCOLL_STEP(c, hom_add(c, lo ? mine : rp, lo ? hsz[k] : rsz[k], lo ? rp : mine,
                                lo ? rsz[k] : hsz[k], H2 + k * slot, slot, &h2sz[k]));
          if (last_round) {  // the result's segment: decode it while the next arrives
            if (avg)
              ZCOLL_STEP(c, set_divisor(c, H2 + k * slot, h2sz[k], static_cast<uint32_t>(N)));
            ZCOLL_STEP(c, decompress(c, H2 + k * slot, h2sz[k], vals(V, k), l, false));
          }
        } else {
          // both partners: V = D(lo) op D(hi), from the two streams
          const uint8_t* mine = S + k * slot;
          const uint8_t* first = lo ? mine : rp;
          const uint8_t* second = lo ? rp : mine;
          const size_t fsz = lo ? ssz[k] : rsz[k], ssz2 = lo ? rsz[k] : ssz[k];
          if (c.op == ZCOLL_OP_SUM) {
            ZCOLL_STEP(c, decompress(c, first, fsz, vals(V, k), l, false));
            ZCOLL_STEP(c, decompress(c, second, ssz2, vals(V, k), l, true));
          } else {
            ZCOLL_STEP(c, decompress(c, first, fsz, vals(V, k), l, false));
            ZCOLL_STEP(c, decompress(c, second, ssz2, tmp, l, false));
            if (c.failed == ZCOLL_SUCCESS) reduce_ordered(c, vals(V, k), vals(V, k), tmp, l);
          }
        }
      }
      ZCOLL_CHECK(wait_sends());
      if (hom) {
        std::swap(H, H2);
        std::swap(hsz, h2sz);
        decoded = last_round;
      }
    }
    // ---- the result on the participating ranks ----------------------------------
    if (!hom) {
      if (avg && c.failed == ZCOLL_SUCCESS) scale(c, V, n, N);
      if (cmp && rem > 0) {
        // the folded ranks get the result compressed: everyone takes D(C(V))
        c.describe_piece(seg_vals, N);
        for (size_t k = 0; k < nseg; ++k) {
          ZCOLL_STEP(c, compress(c, vals(V, k), len(k), S + k * slot, slot, &ssz[k]));
          ZCOLL_STEP(c, decompress(c, S + k * slot, ssz[k], vals(V, k), len(k), false));
        }
      }
    }
  }

  // ---- post-step ---------------------------------------------------------------
  if (rem > 0 && r < 2 * rem) {
    if (nr >= 0) {
      for (size_t k = 0; k < nseg; ++k) {
        const size_t l = len(k);
        if (!cmp)
          ZCOLL_CHECK(send(c, vals(V, k), l * vs, l * vs, r - 1, &sreq[k]));
        else if (hom)
          ZCOLL_CHECK(send(c, H + k * slot, hsz[k], l * vs, r - 1, &sreq[k]));
        else
          ZCOLL_CHECK(send(c, S + k * slot, ssz[k], l * vs, r - 1, &sreq[k]));
      }
      ZCOLL_CHECK(wait_sends());
    } else {
      if (!cmp) {
        for (size_t k = 0; k < nseg; ++k)
          ZCOLL_CHECK(c.tp->irecv(vals(V, k), len(k) * vs, r + 1, c.tag, &rreq[k]));
        for (size_t k = 0; k < nseg; ++k) ZCOLL_CHECK(c.tp->wait(rreq[k], nullptr));
        return ZCOLL_SUCCESS;
      }
      ZCOLL_CHECK(post_recvs(r + 1));
      for (size_t k = 0; k < nseg; ++k) {
        ZCOLL_CHECK(c.tp->wait(rreq[k], &rsz[k]));
        rreq[k] = transport::kNoReq;
        if (received(c, R + k * slot, rsz[k]))
          ZCOLL_STEP(c, decompress(c, R + k * slot, rsz[k], vals(V, k), len(k), false));
      }
      return ZCOLL_SUCCESS;
    }
  }
  if (hom && !decoded)
    for (size_t k = 0; k < nseg; ++k)
      ZCOLL_STEP(c, decompress(c, H + k * slot, hsz[k], vals(V, k), len(k), false));
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
