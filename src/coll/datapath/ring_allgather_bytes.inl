// ring_allgather_bytes.inl — pipelined ring allgather of variable-size byte
// pieces with a fixed segment size (C-Coll §III-A1 / §III-E1): every piece's
// size is known to every rank beforehand, so each link moves the same-size
// segments and a segment is forwarded as soon as it has arrived, instead of
// each round waiting for the largest piece of that round.
//
// Rank r sends pieces r, r-1, ..., r-N+2 to r+1 and receives r-1, ..., r-N+1
// from r-1; segment k of the j-th piece it sends (j >= 1) is the segment k of
// the (j-1)-th piece it received. Cost: (N-1)/N * sum(sizes) * beta plus
// about (N-1 + segments) * alpha, independent of how sizes vary across ranks.
#pragma once

#include <algorithm>

#include "coll/datapath/primitives.h"
#include "coll/datapath/sim_cost.h"
#include "core/error.h"

namespace zcoll::coll {

template <typename F, typename G>
zcoll_status ring_allgather_bytes(Ctx& c, uint8_t* buf, const uint64_t* sizes, const uint64_t* offs,
                                  size_t segment, F on_data, G on_started) {
  const int N = c.size, r = c.rank;
  if (N == 1) return ZCOLL_SUCCESS;
  const int right = (r + 1) % N, left = (r - 1 + N) % N;
  auto nseg = [&](int p) -> size_t { return (sizes[p] + segment - 1) / segment; };
  auto piece_sent = [&](int j) { return ((r - j) % N + N) % N; };      // j-th piece sent
  auto piece_recv = [&](int j) { return ((r - 1 - j) % N + N) % N; };  // j-th piece received
  // message counts
  size_t n_send = 0, n_recv = 0;
  for (int j = 0; j < N - 1; ++j) {
    n_send += nseg(piece_sent(j));
    n_recv += nseg(piece_recv(j));
  }
  transport::Req* sreq = c.ws->get_as<transport::Req>(Workspace::kReqs, n_send + n_recv + 2);
  transport::Req* rreq = sreq + n_send;
  for (size_t i = 0; i < n_send + n_recv; ++i) sreq[i] = transport::kNoReq;

  size_t s_i = 0;  // sends posted
  auto send_seg = [&](int p, size_t k) -> zcoll_status {
    uint64_t b = k * segment;
    uint64_t len = std::min<uint64_t>(segment, sizes[p] - b);
    return c.tp->isend(buf + offs[p] + b, len, right, c.tag, &sreq[s_i++]);
  };
  // own piece: all its segments at once
  for (size_t k = 0; k < nseg(r); ++k) ZCOLL_CHECK(send_seg(r, k));

  // receives, in order, with a window of posted requests
  const size_t window = 16;
  size_t posted = 0;
  int post_j = 0;
  size_t post_k = 0;
  auto post_more = [&]() -> zcoll_status {  // post the next receive, if any
    while (post_j < N - 1 && post_k >= nseg(piece_recv(post_j))) {
      ++post_j;
      post_k = 0;
    }
    if (post_j >= N - 1) return ZCOLL_SUCCESS;
    int p = piece_recv(post_j);
    uint64_t b = post_k * segment;
    uint64_t len = std::min<uint64_t>(segment, sizes[p] - b);
    ZCOLL_CHECK(c.tp->irecv(buf + offs[p] + b, len, left, c.tag, &rreq[posted]));
    ++posted;
    ++post_k;
    return ZCOLL_SUCCESS;
  };
  size_t done = 0;
  while (posted < std::min(n_recv, window)) ZCOLL_CHECK(post_more());
  // the link is busy with this rank's own piece: local work fits in here
  ZCOLL_STEP(c, on_started());
  for (int j = 0; j < N - 1; ++j) {
    int p = piece_recv(j);
    if (nseg(p) == 0) ZCOLL_STEP(c, on_data(p, uint64_t{0}));
    for (size_t k = 0; k < nseg(p); ++k) {
      ZCOLL_CHECK(c.tp->wait(rreq[done], nullptr));
      ++done;
      if (posted < n_recv) ZCOLL_CHECK(post_more());
      // forward: the piece received j-th is the piece sent (j+1)-th
      if (j + 1 <= N - 2) ZCOLL_CHECK(send_seg(p, k));
      ZCOLL_STEP(c, on_data(p, std::min<uint64_t>(sizes[p], (k + 1) * segment)));
    }
  }
  for (size_t i = 0; i < s_i; ++i) ZCOLL_CHECK(c.tp->wait(sreq[i], nullptr));
  return ZCOLL_SUCCESS;
}

}  // namespace zcoll::coll
