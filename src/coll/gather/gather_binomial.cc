// gather_binomial.cc — binomial-tree Gather.
//
// Phases: relative rank v = (rank - root) mod N collects the blocks of its
// subtree [v, v + s(v)) from its children and sends them to its parent; the
// root places block v at rank (v + root) mod N.
// Cost (D = N blocks of B bytes, L = ceil(log2 N)):
//   raw:     L alpha + (N-1)/N D beta (the root un-rotates when root != 0)
//   cpr_p2p: every inner rank decompresses what its children sent and compresses
//            its whole subtree again: L alpha + (N-1)/N D/rho beta
//            + about L D (gamma_c + gamma_d)/2
//   doc/hom: every rank compresses its own block once; inner ranks forward the
//            streams (a size table plus the streams) without decoding; the root
//            decodes each child's blocks as soon as they arrive:
//            2L alpha + (N-1)/N D/rho beta + B gamma_c + (N-1)/N D gamma_d
// Error: doc/hom eb; cpr_p2p L eb; the root's own block is exact.
// Restrictions: none.
#include <algorithm>
#include <cstring>

#include "coll/control/algorithms.h"
#include "coll/datapath/data_path.h"
#include "coll/datapath/primitives.h"

namespace zcoll::coll {

namespace {
constexpr uint64_t kFailedPiece = UINT64_MAX;

// This rank's place in the tree: relative rank vr = (rank - root) mod N owns
// the subtree [vr, vr + sub); its children (relative ranks) smallest subtree first.
struct Tree {
  int N, vr, root, sub, parent, nch = 0;
  int kids[32];
  Tree(int rank, int size, int rt) : N(size), vr((rank - rt + size) % size), root(rt) {
    sub = subtree_size(vr, N);
    for (int m = 1; m < lowbit_or(vr, N); m <<= 1)
      if (vr + m < N) kids[nch++] = vr + m;
    parent = vr == 0 ? -1 : real(vr - (vr & -vr));
  }
  int real(int v) const { return (v + root) % N; }
};

// Hop by hop (raw; cpr_p2p): each rank gathers its subtree's blocks (its
// children's messages unpacked) and sends them to its parent as one message.
zcoll_status gather_hops(Ctx& c, const Args& a, const Tree& t) {
  const size_t n = a.count, vs = c.vsize;
  const DataPath path(c);
  const auto* own = static_cast<const uint8_t*>(a.in);
  auto* out = static_cast<uint8_t*>(a.out);  // root only (N*n values)
  transport::Req req[32 + 1];
  // the subtree's values in relative order (root 0: the output itself)
  uint8_t* tree = t.vr == 0 && t.root == 0
                      ? out
                      : c.ws->get(Workspace::kValuesB, static_cast<size_t>(t.sub) * n * vs + 8);
  if (t.nch > 0 || t.vr == 0) copy_values(c, tree, own, n);
  size_t rcap = 0;
  for (int i = 0; i < t.nch; ++i) rcap += path.capacity(subtree_size(t.kids[i], t.N) * n);
  uint8_t* R = path.messages_are_values() ? nullptr : c.ws->get(Workspace::kRecvA, rcap + 8);
  auto block_of = [&](int i) { return tree + static_cast<size_t>(t.kids[i] - t.vr) * n * vs; };
  auto recv_at = [&](int i, size_t rpos) {  // child i's message: in place, or in R
    return path.receive_slot(block_of(i), R ? R + rpos : nullptr);
  };
  size_t rpos = 0;
  for (int i = 0; i < t.nch; ++i) {
    const size_t kn = static_cast<size_t>(subtree_size(t.kids[i], t.N)) * n;
    ZCOLL_CHECK(
        c.tp->irecv(recv_at(i, rpos), path.capacity(kn), t.real(t.kids[i]), c.tag, &req[i]));
    rpos += path.capacity(kn);
  }
  rpos = 0;
  for (int i = 0; i < t.nch; ++i) {
    const size_t kn = static_cast<size_t>(subtree_size(t.kids[i], t.N)) * n;
    size_t got = 0;
    ZCOLL_CHECK(c.tp->wait(req[i], &got));
    path.unpack({recv_at(i, rpos), got}, block_of(i), kn);
    rpos += path.capacity(kn);
  }
  if (t.vr != 0) {
    const uint8_t* src = t.nch > 0 ? tree : own;
    const size_t kn = static_cast<size_t>(t.sub) * n;
    uint8_t* S = path.messages_are_values() ? nullptr
                                            : c.ws->get(Workspace::kSendA, path.capacity(kn) + 8);
    Message m;
    ZCOLL_STEP(c, path.pack(src, kn, S, path.capacity(kn), &m));
    ZCOLL_CHECK(send(c, m.data, m.bytes, kn * vs, t.parent, &req[0]));
    ZCOLL_CHECK(c.tp->wait(req[0], nullptr));
  } else if (tree != out) {
    for (int v = 1; v < t.N; ++v)
      move_bytes(c, out + t.real(v) * n * vs, tree + v * n * vs, n * vs);
  }
  return ZCOLL_SUCCESS;
}

// Traveling streams (doc, hom): every rank compresses its own block once; a
// message is a size table plus the streams of a subtree, which inner ranks
// forward untouched; the root decodes each child's blocks as they arrive.
zcoll_status gather_traveling(Ctx& c, const Args& a, const Tree& t) {
  const size_t n = a.count, vs = c.vsize;
  const int sub = t.sub;
  const auto* own = static_cast<const uint8_t*>(a.in);
  auto* out = static_cast<uint8_t*>(a.out);  // root only (N*n values)
  transport::Req req[2 * 32 + 4];
  const size_t pcap = segments_capacity(c, n);
  uint64_t* table = c.ws->get_as<uint64_t>(Workspace::kTable, static_cast<size_t>(sub) + 1);
  uint8_t* data = c.ws->get(Workspace::kPieces, static_cast<size_t>(sub) * pcap + 8);
  table[0] = 0;
  if (t.vr != 0) {
    size_t size = 0;
    ZCOLL_STEP(c, compress_segments(c, own, n, data, pcap, &size));
    table[0] = c.failed == ZCOLL_SUCCESS ? size : kFailedPiece;
  }
  // children: table into table[kid - vr ...], data into its max-capacity region
  for (int i = 0; i < t.nch; ++i) {
    const int first = t.kids[i] - t.vr, ks = subtree_size(t.kids[i], t.N);
    ZCOLL_CHECK(
        c.tp->irecv(table + first, ks * sizeof(uint64_t), t.real(t.kids[i]), c.tag, &req[2 * i]));
    ZCOLL_CHECK(
        c.tp->irecv(data + first * pcap, ks * pcap, t.real(t.kids[i]), c.tag, &req[2 * i + 1]));
  }
  size_t pos = t.vr != 0 && table[0] != kFailedPiece ? table[0] : 0;  // compacted end
  for (int i = 0; i < t.nch; ++i) {
    const int first = t.kids[i] - t.vr, ks = subtree_size(t.kids[i], t.N);
    size_t tbytes = 0, dbytes = 0;
    ZCOLL_CHECK(c.tp->wait(req[2 * i], &tbytes));
    ZCOLL_CHECK(c.tp->wait(req[2 * i + 1], &dbytes));
    uint8_t* region = data + static_cast<size_t>(first) * pcap;
    bool ok = tbytes == ks * sizeof(uint64_t) && received(c, region, dbytes);
    for (int v = first; ok && v < first + ks; ++v) ok = table[v] != kFailedPiece;
    if (!ok) {
      if (c.failed == ZCOLL_SUCCESS) c.failed = ZCOLL_ERR_INTERNAL;
      continue;
    }
    if (t.vr == 0) {
      // the root decodes this child's blocks while later children still arrive
      size_t p = 0;
      for (int v = first; v < first + ks; ++v) {
        ZCOLL_STEP(c, decompress_segments(c, region + p, table[v], out + t.real(v) * n * vs, n));
        p += table[v];
      }
    } else {
      if (region != data + pos) move_bytes(c, data + pos, region, dbytes);
      pos += dbytes;
    }
  }
  if (t.vr != 0) {
    if (c.failed != ZCOLL_SUCCESS)
      for (int v = 0; v < sub; ++v) table[v] = kFailedPiece;
    transport::Req tq, dq;
    ZCOLL_CHECK(c.tp->isend(table, sub * sizeof(uint64_t), t.parent, c.tag, &tq));
    ZCOLL_CHECK(send(c, data, pos, static_cast<uint64_t>(sub) * n * vs, t.parent, &dq));
    ZCOLL_CHECK(c.tp->wait(tq, nullptr));
    ZCOLL_CHECK(c.tp->wait(dq, nullptr));
  }
  return ZCOLL_SUCCESS;
}

}  // namespace

zcoll_status gather_binomial(Ctx& c, const Args& a) {
  const Tree t(c.rank, c.size, a.root);
  if (t.vr == 0)  // the root's own block stays exact
    copy_values(c, static_cast<uint8_t*>(a.out) + static_cast<size_t>(c.rank) * a.count * c.vsize,
                a.in, a.count);
  if (c.size == 1) return ZCOLL_SUCCESS;
  return DataPath(c).travels() ? gather_traveling(c, a, t) : gather_hops(c, a, t);
}

ErrState gather_binomial_model(const ModelIn& m) { return binomial_copy_model(m); }

double gather_binomial_cost(const CostTerms& t, const CostQuery& q, zcoll_mode mode) {
  const int N = q.size;
  const double D = buffer_bytes(q);
  const double L = ceil_log2(N), f = (N - 1.0) / N;
  if (mode == ZCOLL_MODE_RAW) return L * t.a + f * D * t.b;
  const double inv = t.inv_ratio_k(q, 1);
  if (mode == ZCOLL_MODE_CPR_P2P) return L * t.a + f * D * inv * t.b + L * D * (t.cc + t.cd) / 2;
  if (mode != ZCOLL_MODE_DOC && mode != ZCOLL_MODE_HOM) return -1;
  const double serial = D / N * t.cc;      // this rank's block, compressed before the first send
  const double overlapped = f * D * t.cd;  // the others' blocks, decoded while the rest arrive
  return 2 * L * t.a + serial + t.pipe(f * D * inv * t.b, overlapped);
}

}  // namespace zcoll::coll
