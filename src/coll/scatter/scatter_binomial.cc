// scatter_binomial.cc — binomial-tree Scatter (gZCCL Fig. 5).
//
// Phases: relative rank v = (rank - root) mod N owns the subtree of relative
// ranks [v, v + s(v)); the root sends each child c the blocks of c's subtree,
// largest subtree first, and every inner rank forwards its children's parts.
// Cost (D = N blocks of B bytes, L = ceil(log2 N)):
//   raw:     L alpha + (N-1)/N D beta (the root rotates its buffer when root != 0)
//   cpr_p2p: every hop decompresses its subtree's data and compresses each
//            child's part again: L alpha + (N-1)/N D/rho beta + about
//            L D (gamma_c + gamma_d)/2
//   doc/hom: the root compresses every block once (separately, so that any
//            subtree is a run of whole streams), each message is a size table
//            plus the streams; inner ranks forward without decoding and decode
//            only their own block: 2L alpha + (N-1)/N D/rho beta + (N-1)/N D gamma_c
//            + B gamma_d; the root compresses the next child's blocks while the
//            previous child's message is in flight.
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
// the subtree [vr, vr + sub); its children (relative ranks) largest subtree first.
struct Tree {
  int N, vr, root, sub, parent, nch = 0;
  int kids[32];
  Tree(int rank, int size, int rt) : N(size), vr((rank - rt + size) % size), root(rt) {
    sub = subtree_size(vr, N);
    for (int m = lowbit_or(vr, N) >> 1; m >= 1; m >>= 1)
      if (vr + m < N) kids[nch++] = vr + m;
    parent = vr == 0 ? -1 : real(vr - (vr & -vr));
  }
  int real(int v) const { return (v + root) % N; }
};

// Hop by hop (raw; cpr_p2p): each rank receives its subtree's blocks as one
// message, keeps its own and sends each child its part, packed afresh.
zcoll_status scatter_hops(Ctx& c, const Args& a, const Tree& t) {
  const size_t n = a.count, vs = c.vsize;
  const DataPath path(c);
  const auto* send_buf = static_cast<const uint8_t*>(a.in);  // root only (N*n values)
  auto* out = static_cast<uint8_t*>(a.out);
  transport::Req req[32 + 1];
  int nreq = 0;
  // the values of the subtree in relative order: the root rotates (if root != 0)
  const uint8_t* tree = nullptr;
  if (t.vr == 0) {
    if (t.root == 0) {
      tree = send_buf;
    } else {
      uint8_t* tmp = c.ws->get(Workspace::kValuesB, static_cast<size_t>(t.N) * n * vs + 8);
      for (int v = 0; v < t.N; ++v)
        move_bytes(c, tmp + v * n * vs, send_buf + t.real(v) * n * vs, n * vs);
      tree = tmp;
    }
  } else {
    // a leaf's one block lands in its output
    uint8_t* dst =
        t.sub == 1 ? out : c.ws->get(Workspace::kValuesB, static_cast<size_t>(t.sub) * n * vs + 8);
    const size_t cap = path.capacity(t.sub * n);
    uint8_t* R = path.messages_are_values() ? dst : c.ws->get(Workspace::kRecvA, cap + 8);
    size_t got = 0;
    ZCOLL_CHECK(c.tp->irecv(R, cap, t.parent, c.tag, &req[0]));
    ZCOLL_CHECK(c.tp->wait(req[0], &got));
    path.unpack({R, got}, dst, t.sub * n);
    if (dst != out) copy_values(c, out, dst, n);
    tree = dst;
  }
  size_t scap = 0;  // one message per child, each up to its capacity
  for (int i = 0; i < t.nch; ++i) scap += path.capacity(subtree_size(t.kids[i], t.N) * n);
  uint8_t* S = path.messages_are_values() ? nullptr : c.ws->get(Workspace::kSendA, scap + 8);
  size_t spos = 0;
  for (int i = 0; i < t.nch; ++i) {
    const size_t kn = static_cast<size_t>(subtree_size(t.kids[i], t.N)) * n;
    const uint8_t* part = tree + static_cast<size_t>(t.kids[i] - t.vr) * n * vs;
    Message m;
    ZCOLL_STEP(c, path.pack(part, kn, S ? S + spos : nullptr, path.capacity(kn), &m));
    ZCOLL_CHECK(send(c, m.data, m.bytes, kn * vs, t.real(t.kids[i]), &req[nreq++]));
    spos += path.capacity(kn);
  }
  for (int i = 0; i < nreq; ++i) ZCOLL_CHECK(c.tp->wait(req[i], nullptr));
  return ZCOLL_SUCCESS;
}

// Traveling streams (doc, hom): the root compresses each block once (segment
// streams); a message is a size table plus the streams of a subtree, which
// inner ranks forward untouched and of which each decodes only its own block.
zcoll_status scatter_traveling(Ctx& c, const Args& a, const Tree& t) {
  const size_t n = a.count, vs = c.vsize;
  const int sub = t.sub;
  const auto* send_buf = static_cast<const uint8_t*>(a.in);  // root only (N*n values)
  transport::Req req[2 * 32 + 4];
  int nreq = 0;
  const size_t pcap = segments_capacity(c, n);
  uint64_t* table = c.ws->get_as<uint64_t>(Workspace::kTable, static_cast<size_t>(sub) + 1);
  uint8_t* data = c.ws->get(Workspace::kPieces, static_cast<size_t>(sub) * pcap + 8);
  if (t.vr == 0) {
    // compress child by child (largest subtree first), sending each as it is ready
    size_t pos = 0;
    for (int i = 0; i < t.nch; ++i) {
      const int kid = t.kids[i], ks = subtree_size(kid, t.N);
      const size_t begin = pos;
      for (int v = kid; v < kid + ks; ++v) {
        size_t size = 0;
        ZCOLL_STEP(c, compress_segments(c, send_buf + t.real(v) * n * vs, n, data + pos,
                                        sub * pcap - pos, &size));
        table[v] = c.failed == ZCOLL_SUCCESS ? size : kFailedPiece;
        pos += size;
      }
      ZCOLL_CHECK(
          c.tp->isend(table + kid, ks * sizeof(uint64_t), t.real(kid), c.tag, &req[nreq++]));
      ZCOLL_CHECK(send(c, data + begin, pos - begin, static_cast<uint64_t>(ks) * n * vs,
                       t.real(kid), &req[nreq++]));
    }
  } else {
    size_t tbytes = 0, dbytes = 0;
    ZCOLL_CHECK(c.tp->irecv(table, sub * sizeof(uint64_t), t.parent, c.tag, &req[0]));
    ZCOLL_CHECK(c.tp->irecv(data, sub * pcap, t.parent, c.tag, &req[1]));
    ZCOLL_CHECK(c.tp->wait(req[0], &tbytes));
    ZCOLL_CHECK(c.tp->wait(req[1], &dbytes));
    bool ok = tbytes == sub * sizeof(uint64_t) && received(c, data, dbytes);
    for (int v = 0; ok && v < sub; ++v) ok = table[v] != kFailedPiece;
    if (!ok && c.failed == ZCOLL_SUCCESS) c.failed = ZCOLL_ERR_INTERNAL;
    if (!ok)
      for (int v = 0; v < sub; ++v) table[v] = kFailedPiece;
    // forward the children's parts untouched (the data is in relative-rank
    // order, the children are served largest subtree first)
    for (int i = 0; i < t.nch; ++i) {
      const int first = t.kids[i] - t.vr, ks = subtree_size(t.kids[i], t.N);
      size_t pos = 0, bytes = 0;
      for (int v = 0; ok && v < first; ++v) pos += table[v];
      for (int v = first; ok && v < first + ks; ++v) bytes += table[v];
      ZCOLL_CHECK(c.tp->isend(table + first, ks * sizeof(uint64_t), t.real(t.kids[i]), c.tag,
                              &req[nreq++]));
      ZCOLL_CHECK(send(c, data + pos, bytes, static_cast<uint64_t>(ks) * n * vs, t.real(t.kids[i]),
                       &req[nreq++]));
    }
    if (ok) ZCOLL_STEP(c, decompress_segments(c, data, table[0], a.out, n));
  }
  for (int i = 0; i < nreq; ++i) ZCOLL_CHECK(c.tp->wait(req[i], nullptr));
  return ZCOLL_SUCCESS;
}

}  // namespace

zcoll_status scatter_binomial(Ctx& c, const Args& a) {
  const Tree t(c.rank, c.size, a.root);
  if (t.vr == 0 && a.out)  // the root's own block stays exact (no-op for MPI_IN_PLACE)
    copy_values(c, a.out,
                static_cast<const uint8_t*>(a.in) + static_cast<size_t>(c.rank) * a.count * c.vsize,
                a.count);
  if (c.size == 1) return ZCOLL_SUCCESS;
  return DataPath(c).travels() ? scatter_traveling(c, a, t) : scatter_hops(c, a, t);
}

ErrState scatter_binomial_model(const ModelIn& m) { return binomial_copy_model(m); }

double scatter_binomial_cost(const CostTerms& t, const CostQuery& q, zcoll_mode mode) {
  const int N = q.size;
  const double D = buffer_bytes(q);
  const double L = ceil_log2(N), f = (N - 1.0) / N;
  if (mode == ZCOLL_MODE_RAW) return L * t.a + f * D * t.b;
  const double inv = t.inv_ratio_k(q, 1);
  if (mode == ZCOLL_MODE_CPR_P2P) return L * t.a + f * D * inv * t.b + L * D * (t.cc + t.cd) / 2;
  if (mode != ZCOLL_MODE_DOC && mode != ZCOLL_MODE_HOM) return -1;
  const double serial = D / N * t.cd;      // the own block, decoded after the last receive
  const double overlapped = f * D * t.cc;  // the other blocks, compressed while earlier ones travel
  return 2 * L * t.a + serial + t.pipe(f * D * inv * t.b, overlapped);
}

}  // namespace zcoll::coll
