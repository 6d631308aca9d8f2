// allgather_ring.cc — ring Allgather (and the allgather phase of ring Allreduce).
//
// Phases (N ranks, block of D/N bytes per rank, rho = compression ratio):
//   raw:     N-1 steps, rank r sends block r-s to r+1 at step s.
//            (N-1) alpha + (N-1)/N D beta
//   cpr_p2p: the same steps; every step compresses the block it sends and
//            decompresses the block it receives (the forwarded block is
//            recompressed from its decompressed values):
//            (N-1) alpha + (N-1)/N D/rho beta + (N-1)/N D (gamma_c + gamma_d);
//            message sizes differ per rank, so each step waits for its largest.
//   doc/hom: C-Coll's data movement framework: each rank compresses its block
//            once (segment streams), the compressed sizes are exchanged with one
//            small allgather, then a pipelined ring moves fixed-size segments
//            (balanced whatever the sizes), and each block is decompressed as
//            soon as it has arrived, overlapping the transfers still in flight:
//            log N alpha + (N-1 + D/(rho P)) alpha + (N-1)/N D/rho beta
//            + D/N gamma_c + (N-1)/N D gamma_d.
// Error: doc/hom eb on every block received (each block compressed once; the
// own block stays exact); cpr_p2p (N-1) eb (a block forwarded k hops went
// through k compressions).
// Restrictions: none (any process count, any count).
#include <algorithm>
#include <cstring>

#include "coll/control/algorithms.h"
#include "coll/datapath/data_path.h"
#include "coll/datapath/primitives.h"
#include "core/error.h"

namespace zcoll::coll {

void split_blocks(size_t n, int size, size_t* counts, size_t* displs) {
  // Blocks of whole 32-value units, as even as possible, the remainder values
  // in the last non-empty block.
  const size_t units = n / ZCOLL_BLOCK_SIZE;
  size_t pos = 0;
  for (int b = 0; b < size; ++b) {
    size_t u = units / size + (static_cast<size_t>(b) < units % size ? 1 : 0);
    counts[b] = u * ZCOLL_BLOCK_SIZE;
    displs[b] = pos;
    pos += counts[b];
  }
  // the tail (n % 32 values) goes to the last block
  counts[size - 1] += n - pos;
}

zcoll_status ring_allgather_hops(Ctx& c, void* out, const size_t* counts, const size_t* displs,
                                 bool own_exact) {
  const int N = c.size, r = c.rank;
  const int right = (r + 1) % N, left = (r - 1 + N) % N;
  const DataPath path(c);
  auto* o = static_cast<uint8_t*>(out);
  auto block = [&](int b) { return o + displs[b] * c.vsize; };
  size_t max_count = 0;
  for (int b = 0; b < N; ++b) max_count = std::max(max_count, counts[b]);
  const size_t cap = path.capacity(max_count);
  uint8_t* cur = path.messages_are_values() ? nullptr : c.ws->get(Workspace::kStreamA, cap + 8);
  uint8_t* rbuf = path.messages_are_values() ? nullptr : c.ws->get(Workspace::kRecvA, cap + 8);
  Message m;  // what this rank sends at the next step
  ZCOLL_STEP(c, path.pack(block(r), counts[r], cur, cap, &m));
  if (!own_exact) path.unpack(m, block(r), counts[r]);  // every rank holds the same values
  for (int s = 0; s <= N - 2; ++s) {
    const int sb = ((r - s) % N + N) % N, rb = ((r - s - 1) % N + N) % N;
    uint8_t* at = path.receive_slot(block(rb), rbuf);
    transport::Req rq, sq;
    size_t got = 0;
    ZCOLL_CHECK(c.tp->irecv(at, path.capacity(counts[rb]), left, c.tag, &rq));
    ZCOLL_CHECK(send(c, m.data, m.bytes, counts[sb] * c.vsize, right, &sq));
    ZCOLL_CHECK(c.tp->wait(rq, &got));
    path.unpack({at, got}, block(rb), counts[rb]);
    ZCOLL_CHECK(c.tp->wait(sq, nullptr));
    if (s < N - 2)  // the block received goes on, packed afresh
      ZCOLL_STEP(c, path.pack(block(rb), counts[rb], cur, cap, &m));
  }
  return ZCOLL_SUCCESS;
}

zcoll_status ring_allgather_pieces(Ctx& c, void* out, const size_t* counts, const size_t* displs,
                                   const uint8_t* own, size_t own_size, bool decompress_own) {
  const int N = c.size, r = c.rank;
  auto* o = static_cast<uint8_t*>(out);
  uint64_t* all = c.ws->get_as<uint64_t>(Workspace::kTable, 4 * static_cast<size_t>(N) + 4);
  uint64_t* sizes = all + 2 * N;
  uint64_t* offs = sizes + N;
  uint64_t mine[2] = {c.failed == ZCOLL_SUCCESS ? own_size : 0, static_cast<uint64_t>(c.failed)};
  ++c.helper_collectives;  // (run_algorithm: helper_collectives_of)
  ZCOLL_CHECK(c.tp->allgather_u64(mine, 2, all));
  uint64_t total = 0;
  for (int p = 0; p < N; ++p) {
    if (all[2 * p + 1] != 0) {
      if (c.failed == ZCOLL_SUCCESS) {
        c.failed = static_cast<zcoll_status>(all[2 * p + 1]);
        fail(c.failed, "rank %d failed in this collective (%s)", p, zcoll_status_string(c.failed));
      }
    }
    sizes[p] = all[2 * p];
    offs[p] = total;
    total += sizes[p];
  }
  if (c.failed != ZCOLL_SUCCESS) return ZCOLL_SUCCESS;  // every rank saw it
  uint8_t* buf = c.ws->get(Workspace::kPieces, total + 8);
  move_bytes(c, buf + offs[r], own, own_size);
  for (int j = 0; j < N - 1; ++j) c.logical_bytes += counts[((r - j) % N + N) % N] * c.vsize;
  const size_t segment =
      std::max<size_t>(16384, c.seg_values == SIZE_MAX ? 0 : c.seg_values * c.vsize / 4);
  // Every piece is decoded segment stream by segment stream as its bytes
  // arrive; this rank's own piece while the link carries it to the right.
  SegmentCursor* cur = c.ws->get_as<SegmentCursor>(Workspace::kCursors, static_cast<size_t>(N));
  for (int p = 0; p < N; ++p) cur[p] = SegmentCursor{};
  auto decode = [&](int p, uint64_t arrived) {
    return decompress_arrived(c, buf + offs[p], arrived, sizes[p], o + displs[p] * c.vsize,
                              counts[p], &cur[p]);
  };
  ZCOLL_CHECK(ring_allgather_bytes(c, buf, sizes, offs, segment, decode, [&]() {
    return decompress_own ? decode(r, sizes[r]) : ZCOLL_SUCCESS;
  }));
  return ZCOLL_SUCCESS;
}

zcoll_status ring_allgatherv(Ctx& c, void* out, const size_t* counts, const size_t* displs) {
  const int r = c.rank;
  if (c.size == 1) return ZCOLL_SUCCESS;
  if (!DataPath(c).travels()) return ring_allgather_hops(c, out, counts, displs, true);
  const size_t n = counts[r];
  const size_t cap = segments_capacity(c, n);
  uint8_t* own = c.ws->get(Workspace::kStreamC, cap + 8);
  size_t own_size = 0;
  ZCOLL_STEP(c, compress_segments(c, static_cast<uint8_t*>(out) + displs[r] * c.vsize, n, own, cap,
                                  &own_size));
  return ring_allgather_pieces(c, out, counts, displs, own, own_size, false);
}

zcoll_status allgather_ring(Ctx& c, const Args& a) {
  const int N = c.size, r = c.rank;
  const size_t n = a.count;
  auto* o = static_cast<uint8_t*>(a.out);
  copy_values(c, o + r * n * c.vsize, a.in, n);  // own block (no-op in place)
  if (N == 1) return ZCOLL_SUCCESS;
  size_t* counts = c.ws->get_as<size_t>(Workspace::kCounts, 2 * static_cast<size_t>(N));
  size_t* displs = counts + N;
  for (int p = 0; p < N; ++p) {
    counts[p] = n;
    displs[p] = p * n;
  }
  return ring_allgatherv(c, a.out, counts, displs);
}

ErrState allgather_ring_model(const ModelIn& m) {
  if (m.size == 1) return leaf(m);
  ErrState s = compressed(m, leaf(m));
  if (m.mode == ZCOLL_MODE_CPR_P2P)
    for (int i = 1; i < m.size - 1; ++i) s = compressed(m, s);
  return s;
}

double allgather_ring_cost(const CostTerms& t, const CostQuery& q, zcoll_mode mode) {
  const int N = q.size;
  const double D = buffer_bytes(q);
  const double f = (N - 1.0) / N;
  if (mode == ZCOLL_MODE_RAW) return (N - 1) * t.a + f * D * t.b;
  const double inv = t.inv_ratio_k(q, 1);
  const double w = f * D * inv * t.b;
  if (mode == ZCOLL_MODE_CPR_P2P) return (N - 1) * t.a + w + f * D * (t.cc + t.cd);
  if (mode != ZCOLL_MODE_DOC && mode != ZCOLL_MODE_HOM) return -1;
  // sizes are exchanged (one small allgather), then a ring of fixed byte
  // segments, many in flight: latency once per ring step
  return (ceil_log2(N) + N - 1) * t.a + D / N * t.cc + t.pipe(w, f * D * t.cd);
}

}  // namespace zcoll::coll
