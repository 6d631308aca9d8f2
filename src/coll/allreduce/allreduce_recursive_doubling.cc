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
// segment k+1 overlaps sending segment k; each segment of the input is copied
// to the output, where the running result lives, just before its first use
// (a copy of the whole vector first delayed the first send by its time). hom compresses each segment just
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

#include "coll/control/algorithms.h"
#include "coll/datapath/data_path.h"
#include "coll/datapath/primitives.h"

namespace zcoll::coll {

namespace {

// The exchanges of one call: this rank's place (nr: its rank among the P
// participants, -1 for a folded one), the vector's segments and their buffers.
class RecursiveDoubling {
 public:
  RecursiveDoubling(Ctx& c, const Args& a);
  // The input's segments 0..k copied into V (no-op in place), before their first use.
  void own(size_t k);
  zcoll_status pre_step();   // fold the rem extra ranks into their odd neighbours
  zcoll_status rounds();     // log2 P exchanges among the participants
  zcoll_status post_step();  // the folded ranks get the result

 private:
  Ctx& c_;
  const DataPath path_;
  int N_, r_, P_ = 1, rem_, nr_;
  size_t n_, nseg_, slot_, seg_vals_;
  size_t owned_ = 0;  // segments copied from the input so far
  const uint8_t* in_;
  uint8_t *V_, *S_, *R_, *H_[2];
  Exchange::State* state_;  // per segment: its running state,
  Message* sent_;           // the message it sent,
  size_t* rsz_;             // the bytes it received
  transport::Req *sreq_, *rreq_;
  bool into_values_ = false;  // the post-step receives the result where it belongs

  int real(int v) const { return v < rem_ ? 2 * v + 1 : v + rem_; }
  size_t len(size_t k) const { return c_.seg_len(n_, k); }
  uint8_t* values(size_t k) const { return V_ + k * c_.seg_values * c_.vsize; }
  // segment k's running result (its values in V, its streams in S, H[0], H[1])
  Exchange segment(size_t k) {
    Exchange::Slots sl;
    sl.values = values(k);
    sl.send = S_ + k * slot_;
    sl.stream[0] = H_[0] + k * slot_;
    sl.stream[1] = H_[1] + k * slot_;
    sl.cap = slot_;
    return Exchange(path_, len(k), sl, &state_[k]);
  }
  // a partner's partials land in R; the result (post-step) where it belongs
  uint8_t* recv_at(size_t k) const {
    return into_values_ ? path_.receive_slot(values(k), R_ + k * slot_) : R_ + k * slot_;
  }
  Message received(size_t k) const { return {recv_at(k), rsz_[k]}; }
  zcoll_status post_recvs(int peer);
  zcoll_status wait_recv(size_t k);
  zcoll_status send_all(int peer);
  zcoll_status wait_send(size_t k);
  zcoll_status wait_sends();
};

RecursiveDoubling::RecursiveDoubling(Ctx& c, const Args& a)
    : c_(c), path_(c), N_(c.size), r_(c.rank), n_(a.count) {
  while (P_ * 2 <= N_) P_ *= 2;
  rem_ = N_ - P_;
  nr_ = r_ < 2 * rem_ ? (r_ % 2 == 0 ? -1 : r_ / 2) : r_ - rem_;
  nseg_ = c.segments(n_);
  slot_ = c.seg_capacity(n_);
  seg_vals_ = std::min(n_, c.seg_values);
  V_ = static_cast<uint8_t*>(a.out);
  in_ = static_cast<const uint8_t*>(a.in);
  S_ = c.ws->get(Workspace::kSendA, nseg_ * slot_ + 8);
  R_ = c.ws->get(Workspace::kRecvA, nseg_ * slot_ + 8);
  H_[0] = c.ws->get(Workspace::kStreamA, nseg_ * slot_ + 8);
  H_[1] = c.ws->get(Workspace::kStreamB, nseg_ * slot_ + 8);
  c.ws->get(Workspace::kValuesA, seg_vals_ * c.vsize + 8);  // Exchange's scratch, sized once
  state_ = c.ws->get_as<Exchange::State>(Workspace::kTable, nseg_ + 1);
  sent_ = c.ws->get_as<Message>(Workspace::kCounts, nseg_ + 1);
  rsz_ = c.ws->get_as<size_t>(Workspace::kCursors, nseg_ + 1);
  sreq_ = c.ws->get_as<transport::Req>(Workspace::kReqs, 2 * nseg_ + 2);
  rreq_ = sreq_ + nseg_;
  for (size_t k = 0; k < nseg_; ++k) {
    state_[k] = Exchange::State{};
    sreq_[k] = rreq_[k] = transport::kNoReq;
  }
}

void RecursiveDoubling::own(size_t k) {
  for (; owned_ <= k && owned_ < nseg_; ++owned_)
    copy_values(c_, values(owned_), in_ + owned_ * c_.seg_values * c_.vsize, len(owned_));
}

zcoll_status RecursiveDoubling::post_recvs(int peer) {
  for (size_t k = 0; k < nseg_; ++k)
    ZCOLL_CHECK(c_.tp->irecv(recv_at(k), path_.capacity(len(k)), peer, c_.tag, &rreq_[k]));
  return ZCOLL_SUCCESS;
}

zcoll_status RecursiveDoubling::wait_recv(size_t k) {
  ZCOLL_CHECK(c_.tp->wait(rreq_[k], &rsz_[k]));
  rreq_[k] = transport::kNoReq;
  return ZCOLL_SUCCESS;
}

zcoll_status RecursiveDoubling::send_all(int peer) {
  for (size_t k = 0; k < nseg_; ++k) {
    own(k);
    sent_[k] = segment(k).message();
    ZCOLL_CHECK(send(c_, sent_[k].data, sent_[k].bytes, len(k) * c_.vsize, peer, &sreq_[k]));
  }
  return ZCOLL_SUCCESS;
}

zcoll_status RecursiveDoubling::wait_send(size_t k) {
  ZCOLL_CHECK(c_.tp->wait(sreq_[k], nullptr));
  sreq_[k] = transport::kNoReq;
  return ZCOLL_SUCCESS;
}

zcoll_status RecursiveDoubling::wait_sends() {
  for (size_t k = 0; k < nseg_; ++k) ZCOLL_CHECK(wait_send(k));
  return ZCOLL_SUCCESS;
}

zcoll_status RecursiveDoubling::pre_step() {
  if (nr_ < 0) {  // folded: hand the vector to the odd neighbour
    c_.describe_piece(seg_vals_, 1);
    ZCOLL_CHECK(send_all(r_ + 1));
    return wait_sends();
  }
  if (r_ >= 2 * rem_) return ZCOLL_SUCCESS;
  ZCOLL_CHECK(post_recvs(r_ - 1));
  for (size_t k = 0; k < nseg_; ++k) {
    own(k);
    Exchange seg = segment(k);
    c_.describe_piece(seg_vals_, 1);
    seg.start();  // hom: this rank's own segment, while the partner's arrives
    ZCOLL_CHECK(wait_recv(k));
    c_.describe_piece(len(k), 2);
    seg.fold(received(k));
  }
  return ZCOLL_SUCCESS;
}

zcoll_status RecursiveDoubling::rounds() {
  if (nr_ < 0) return ZCOLL_SUCCESS;
  for (int mask = 1; mask < P_; mask <<= 1) {
    const bool last_round = 2 * mask >= P_;
    const int peer = real(nr_ ^ mask);
    ZCOLL_CHECK(post_recvs(peer));
    c_.describe_piece(seg_vals_, std::max(1, mask * N_ / P_));  // terms held before the round
    ZCOLL_CHECK(send_all(peer));
    for (size_t k = 0; k < nseg_; ++k) {
      ZCOLL_CHECK(wait_recv(k));
      if (path_.messages_are_values()) ZCOLL_CHECK(wait_send(k));  // V_k is being sent
      c_.describe_piece(len(k), 2 * mask * N_ / P_);
      segment(k).combine(sent_[k], received(k), r_ < peer, last_round, /*average=*/true);
    }
    ZCOLL_CHECK(wait_sends());
  }
  // the folded ranks get the result compressed: every participant takes D(C(V))
  if (rem_ > 0) {
    c_.describe_piece(seg_vals_, N_);
    for (size_t k = 0; k < nseg_; ++k) segment(k).share_decoded();
  }
  return ZCOLL_SUCCESS;
}

zcoll_status RecursiveDoubling::post_step() {
  if (rem_ == 0 || r_ >= 2 * rem_) return ZCOLL_SUCCESS;
  if (nr_ >= 0) {
    ZCOLL_CHECK(send_all(r_ - 1));
    return wait_sends();
  }
  into_values_ = true;
  ZCOLL_CHECK(post_recvs(r_ + 1));
  for (size_t k = 0; k < nseg_; ++k) {
    ZCOLL_CHECK(wait_recv(k));
    path_.unpack(received(k), values(k), len(k));
  }
  return ZCOLL_SUCCESS;
}

}  // namespace

zcoll_status allreduce_recursive_doubling(Ctx& c, const Args& a) {
  if (c.size == 1) {
    copy_values(c, a.out, a.in, a.count);
    return ZCOLL_SUCCESS;
  }
  RecursiveDoubling rd(c, a);
  ZCOLL_CHECK(rd.pre_step());
  ZCOLL_CHECK(rd.rounds());
  return rd.post_step();
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
