// cost_model.cc — predicted time of every algorithm and mode (the formulas of
// docs/algorithms.md, "Cost model"), and the candidates of mode AUTO.
//
// Notation as in the docs: N ranks, D bytes of the collective's buffer,
// a = latency, b = 1/bandwidth, cc / cd / ch / g = seconds per uncompressed
// byte of compression, decompression, homomorphic addition, float reduction.
// Compressed sizes: a compressed k-term sum (hom adds, or doc's recompressed
// partial sums) needs b_k = b_1 + growth * log2(k) bits per value, where
// b_1 = 8 * vsize / ratio.
//
// Pipelined modes (segments in flight while the codec works on the next ones)
// cost max(W, C) + (1 - overlap) * min(W, C) for transfer time W and codec
// time C; modes without a pipeline (cpr_p2p) cost W + C.
#include "coll/cost_model.h"

#include <algorithm>
#include <cmath>

namespace zcoll::coll {

namespace {

struct Terms {
  double a, b, cc, cd, ch, g, overlap, growth;
};

Terms terms(const zcoll_model& m) {
  Terms t;
  t.a = m.latency;
  t.b = 1.0 / m.bandwidth;
  t.cc = 1.0 / m.compress_bw;
  t.cd = 1.0 / m.decompress_bw;
  t.ch = 1.0 / m.hom_bw;
  t.g = 1.0 / m.reduce_bw;
  t.overlap = std::min(1.0, std::max(0.0, m.overlap));
  t.growth = std::max(0.0, m.growth_bits);
  return t;
}

int ceil_log2(int n) {
  int l = 0;
  while ((1 << l) < n) ++l;
  return l;
}
int floor_pow2(int n) {
  int p = 1;
  while (p * 2 <= n) p *= 2;
  return p;
}

double pipe(const Terms& t, double w, double c) {
  return std::max(w, c) + (1.0 - t.overlap) * std::min(w, c);
}

// Compressed bytes per uncompressed byte of a k-term sum.
double inv_ratio_k(const Terms& t, const CostQuery& q, double k) {
  const double bits = 8.0 * static_cast<double>(q.vsize);
  const double b1 = bits / std::max(q.ratio, 1.0);
  const double bk = b1 + t.growth * std::log2(std::max(k, 1.0));
  return std::min(bk, bits + 1.0) / bits;  // never worse than raw chunks (+ headers)
}

// Mean over the ring steps of a reduce-scatter (k = 1..N-1 terms).
double inv_ratio_rs(const Terms& t, const CostQuery& q) {
  const int N = q.size;
  double s = 0;
  for (int k = 1; k < N; ++k) s += inv_ratio_k(t, q, k);
  return N > 1 ? s / (N - 1) : inv_ratio_k(t, q, 1);
}

double mpi_seconds(const Terms& t, const CostQuery& q) {
  const int N = q.size;
  const double D = static_cast<double>(q.total_values * q.vsize);
  const double L = ceil_log2(N);
  const int P = floor_pow2(N);
  const double f = (N - 1.0) / N;
  const double e = N != P ? 1.0 : 0.0;
  // MPICH's default selection (ch4 -> MPIR "auto" algorithms); Open MPI's
  // tuned component makes similar choices for long messages.
  switch (q.coll) {
    case ZCOLL_COLL_ALLREDUCE:
      if (D <= 2048 || q.total_values < static_cast<size_t>(P))  // recursive doubling
        return (L + 2 * e) * (t.a + D * t.b) + (L + e) * D * t.g;
      // Rabenseifner: recursive-halving reduce-scatter + recursive-doubling allgather
      return (2 * std::log2(P) + 2 * e) * t.a + (2.0 * (P - 1) / P + 2 * e) * D * t.b +
             ((P - 1.0) / P + e) * D * t.g;
    case ZCOLL_COLL_REDUCE_SCATTER:  // pairwise exchange
      return (N - 1) * t.a + f * D * t.b + f * D * t.g;
    case ZCOLL_COLL_ALLGATHER:  // ring (long) / recursive doubling
      return (N - 1) * t.a + f * D * t.b;
    case ZCOLL_COLL_BCAST:
      if (D < 12288 || N < 8) return L * (t.a + D * t.b);  // binomial
      return (L + N - 1) * t.a + 2 * f * D * t.b;          // scatter + ring allgather
    case ZCOLL_COLL_SCATTER:
    case ZCOLL_COLL_GATHER:  // binomial
      return L * t.a + f * D * t.b;
    case ZCOLL_COLL_REDUCE:
      if (D <= 2048 || q.total_values < static_cast<size_t>(P))
        return L * (t.a + D * t.b + D * t.g);
      return (2 * std::log2(P) + 2 * e) * t.a + (2.0 * (P - 1) / P + e) * D * t.b +
             ((P - 1.0) / P + e) * D * t.g;
    case ZCOLL_COLL_NONE:
    case ZCOLL_COLL_COUNT: break;
  }
  return -1;
}

double allreduce_ring(const Terms& t, const CostQuery& q, zcoll_mode mode) {
  const int N = q.size;
  const double D = static_cast<double>(q.total_values * q.vsize);
  const double f = (N - 1.0) / N;
  const double lat = 2 * (N - 1) * t.a;
  if (mode == ZCOLL_MODE_RAW) return lat + pipe(t, 2 * f * D * t.b, f * D * t.g);
  // reduce-scatter steps carry 1..N-1 term sums, the allgather N-term sums
  const double inv = 0.5 * (inv_ratio_rs(t, q) + inv_ratio_k(t, q, N));
  const double w = 2 * f * D * inv * t.b;
  switch (mode) {
    case ZCOLL_MODE_CPR_P2P: return lat + w + 2 * f * D * (t.cc + t.cd) + f * D * t.g;
    case ZCOLL_MODE_DOC: return lat + pipe(t, w, D * t.cc + (f + 1) * D * t.cd + f * D * t.g);
    case ZCOLL_MODE_HOM: return lat + pipe(t, w, D * t.cc + f * D * t.ch + D * t.cd);
    default: return -1;
  }
}

double allreduce_rd(const Terms& t, const CostQuery& q, zcoll_mode mode) {
  const int N = q.size, P = floor_pow2(N);
  const double D = static_cast<double>(q.total_values * q.vsize);
  const double L = std::log2(P), e = N != P ? 1.0 : 0.0;
  const double lat = (L + 2 * e) * t.a;
  if (mode == ZCOLL_MODE_RAW) return lat + pipe(t, (L + 2 * e) * D * t.b, (L + e) * D * t.g);
  double inv = 0;  // round k exchanges 2^k-term sums
  for (int k = 0; k < static_cast<int>(L); ++k) inv += inv_ratio_k(t, q, std::ldexp(1.0, k));
  inv += 2 * e * inv_ratio_k(t, q, N);
  inv /= std::max(1.0, L + 2 * e);
  const double w = (L + 2 * e) * D * inv * t.b;
  switch (mode) {
    case ZCOLL_MODE_CPR_P2P: return lat + w + (L + e) * D * (t.cc + 2 * t.cd + t.g);
    case ZCOLL_MODE_DOC: return lat + pipe(t, w, (L + e) * D * (t.cc + 2 * t.cd + t.g));
    case ZCOLL_MODE_HOM: return lat + pipe(t, w, D * t.cc + (L + e) * D * t.ch + D * t.cd);
    default: return -1;
  }
}

double reduce_scatter_ring(const Terms& t, const CostQuery& q, zcoll_mode mode) {
  const int N = q.size;
  const double D = static_cast<double>(q.total_values * q.vsize);
  const double f = (N - 1.0) / N;
  const double lat = (N - 1) * t.a;
  if (mode == ZCOLL_MODE_RAW) return lat + pipe(t, f * D * t.b, f * D * t.g);
  const double w = f * D * inv_ratio_rs(t, q) * t.b;
  switch (mode) {
    case ZCOLL_MODE_CPR_P2P: return lat + w + f * D * (t.cc + t.cd + t.g);
    case ZCOLL_MODE_DOC: return lat + pipe(t, w, f * D * (t.cc + t.cd + t.g));
    case ZCOLL_MODE_HOM: return lat + pipe(t, w, f * D * (t.cc + t.ch) + D / N * t.cd);
    default: return -1;
  }
}

double allgather_ring(const Terms& t, const CostQuery& q, zcoll_mode mode) {
  const int N = q.size;
  const double D = static_cast<double>(q.total_values * q.vsize);
  const double f = (N - 1.0) / N;
  if (mode == ZCOLL_MODE_RAW) return (N - 1) * t.a + f * D * t.b;
  const double inv = inv_ratio_k(t, q, 1);
  const double w = f * D * inv * t.b;
  if (mode == ZCOLL_MODE_CPR_P2P) return (N - 1) * t.a + w + f * D * (t.cc + t.cd);
  if (mode != ZCOLL_MODE_DOC && mode != ZCOLL_MODE_HOM) return -1;
  // sizes are exchanged (one small allgather), then a ring of fixed byte
  // segments, many in flight: latency once per ring step
  return (ceil_log2(N) + N - 1) * t.a + D / N * t.cc + pipe(t, w, f * D * t.cd);
}

double bcast_binomial(const Terms& t, const CostQuery& q, zcoll_mode mode) {
  const int N = q.size;
  const double D = static_cast<double>(q.total_values * q.vsize);
  const double L = ceil_log2(N);
  const double S =
      std::max<double>(1, std::ceil(static_cast<double>(q.total_values) / q.seg_values));
  // segments stream down the tree: latency once per level; the root's link
  // carries every segment once per child (L times), and a segment's transfer
  // time per further level fills the pipeline
  if (mode == ZCOLL_MODE_RAW) return L * t.a + (L * S + L - 1) * D / S * t.b;
  const double inv = inv_ratio_k(t, q, 1);
  if (mode == ZCOLL_MODE_CPR_P2P) return L * (t.a + D * inv * t.b) + L * D * (t.cc + t.cd);
  if (mode != ZCOLL_MODE_DOC && mode != ZCOLL_MODE_HOM) return -1;
  // the root compresses, inner ranks forward, every rank decodes its copy
  return L * t.a + pipe(t, (L * S + L - 1) * D * inv / S * t.b, D * std::max(t.cc, t.cd)) +
         D / S * (t.cc + t.cd);
}

// The chain: every link carries the buffer once; a segment crosses N-1 hops
// to fill the pipeline.
double bcast_chain(const Terms& t, const CostQuery& q, zcoll_mode mode) {
  const int N = q.size;
  const double D = static_cast<double>(q.total_values * q.vsize);
  const double S =
      std::max<double>(1, std::ceil(static_cast<double>(q.total_values) / q.seg_values));
  if (mode == ZCOLL_MODE_RAW) return (N - 1) * t.a + (N - 2 + S) * D / S * t.b;
  const double inv = inv_ratio_k(t, q, 1);
  if (mode == ZCOLL_MODE_CPR_P2P) return (N - 1) * (t.a + D * inv * t.b + D * (t.cc + t.cd));
  if (mode != ZCOLL_MODE_DOC && mode != ZCOLL_MODE_HOM) return -1;
  return (N - 1) * t.a + pipe(t, (N - 2 + S) * D * inv / S * t.b, D * std::max(t.cc, t.cd)) +
         D / S * (t.cc + t.cd);
}

// Binomial scatter and gather are mirror images: the root compresses every
// block while the tree carries the first ones (scatter), or every rank
// compresses its block and the root decodes while the rest arrive (gather).
double scatter_gather_binomial(const Terms& t, const CostQuery& q, zcoll_mode mode, bool gather) {
  const int N = q.size;
  const double D = static_cast<double>(q.total_values * q.vsize);
  const double L = ceil_log2(N), f = (N - 1.0) / N;
  if (mode == ZCOLL_MODE_RAW) return L * t.a + f * D * t.b;
  const double inv = inv_ratio_k(t, q, 1);
  if (mode == ZCOLL_MODE_CPR_P2P) return L * t.a + f * D * inv * t.b + L * D * (t.cc + t.cd) / 2;
  if (mode != ZCOLL_MODE_DOC && mode != ZCOLL_MODE_HOM) return -1;
  const double serial = D / N * (gather ? t.cc : t.cd);      // own block, outside the pipeline
  const double overlapped = f * D * (gather ? t.cd : t.cc);  // the others', during the transfers
  return 2 * L * t.a + serial + pipe(t, f * D * inv * t.b, overlapped);
}

double reduce_binomial(const Terms& t, const CostQuery& q, zcoll_mode mode) {
  const int N = q.size;
  const double D = static_cast<double>(q.total_values * q.vsize);
  const double L = ceil_log2(N);
  const double S =
      std::max<double>(1, std::ceil(static_cast<double>(q.total_values) / q.seg_values));
  if (mode == ZCOLL_MODE_RAW) return L * t.a + pipe(t, (L + S - 1) * D / S * t.b, L * D * t.g);
  // a rank at depth d of the tree forwards sums of its subtree: up to 2^(L-1) terms
  const double inv = inv_ratio_k(t, q, std::max(1.0, std::ldexp(1.0, static_cast<int>(L) - 1)));
  switch (mode) {
    case ZCOLL_MODE_CPR_P2P: return L * (t.a + D * inv * t.b) + L * D * (t.cc + t.cd + t.g);
    case ZCOLL_MODE_DOC:
      return L * t.a + pipe(t, (L + S - 1) * D * inv / S * t.b, L * D * (t.cc + t.cd + t.g));
    case ZCOLL_MODE_HOM:
      return L * t.a +
             pipe(t, (L + S - 1) * D * inv / S * t.b, D * t.cc + L * D * t.ch + L * D * t.cd);
    default: return -1;
  }
}

}  // namespace

// zcoll's algorithms without the per-call agreement (below predict_seconds).
static double zcoll_seconds(const Terms& t, const CostQuery& q, zcoll_mode mode,
                            zcoll_algorithm algo);

bool model_usable(const zcoll_model& m) {
  auto pos = [](double v) { return std::isfinite(v) && v > 0; };
  return std::isfinite(m.latency) && m.latency >= 0 && pos(m.bandwidth) && pos(m.compress_bw) &&
         pos(m.decompress_bw) && pos(m.hom_bw) && pos(m.reduce_bw) && std::isfinite(m.overlap) &&
         std::isfinite(m.growth_bits);
}

namespace {
// Allreduce: a rank's block of at least this many bytes goes around the ring.
constexpr size_t kRingMinBlockBytes = 262144;
bool allreduce_ring_by_size(size_t total_values, size_t vsize, int size) {
  return total_values * vsize / static_cast<size_t>(std::max(1, size)) >= kRingMinBlockBytes;
}
}  // namespace

zcoll_algorithm default_algorithm(zcoll_collective coll, size_t total_values, size_t vsize,
                                  int size) {
  switch (coll) {
    case ZCOLL_COLL_ALLREDUCE:
      return allreduce_ring_by_size(total_values, vsize, size) ? ZCOLL_ALGO_RING
                                                               : ZCOLL_ALGO_RECURSIVE_DOUBLING;
    case ZCOLL_COLL_REDUCE_SCATTER:
    case ZCOLL_COLL_ALLGATHER: return ZCOLL_ALGO_RING;
    case ZCOLL_COLL_BCAST:
      // the same share rule as the ring: long messages go down the chain
      return allreduce_ring_by_size(total_values, vsize, size) ? ZCOLL_ALGO_CHAIN
                                                               : ZCOLL_ALGO_BINOMIAL;
    case ZCOLL_COLL_SCATTER:
    case ZCOLL_COLL_REDUCE:
    case ZCOLL_COLL_GATHER: return ZCOLL_ALGO_BINOMIAL;
    default: return ZCOLL_ALGO_NONE;
  }
}

const char* default_algorithm_reason(zcoll_collective coll, size_t total_values, size_t vsize,
                                     int size) {
  if (coll == ZCOLL_COLL_BCAST)
    return allreduce_ring_by_size(total_values, vsize, size) ? "auto: share >= 256 KiB per rank"
                                                             : "auto: share < 256 KiB per rank";
  if (coll != ZCOLL_COLL_ALLREDUCE) return "the only algorithm";
  return allreduce_ring_by_size(total_values, vsize, size) ? "auto: block >= 256 KiB per rank"
                                                           : "auto: block < 256 KiB per rank";
}

double max_ratio(size_t vsize) { return 8.0 * static_cast<double>(vsize) / 0.25; }

double predict_seconds(const zcoll_model& m, const CostQuery& q0, zcoll_mode mode,
                       zcoll_algorithm algo) {
  if (!model_usable(m) || q0.size < 1) return -1;
  CostQuery q = q0;
  q.seg_values = std::max<size_t>(32, q.seg_values);
  if (q.total_values == 0) return 0;
  const Terms t = terms(m);
  if (mode == ZCOLL_MODE_MPI) {
    // the probe's correction, measured at 256 KiB and 4 MiB, log-interpolated
    const double large = m.mpi_scale > 0 ? m.mpi_scale : 1.0;
    const double small = m.mpi_scale_small > 0 ? m.mpi_scale_small : large;
    const double D = static_cast<double>(q.total_values * q.vsize);
    const double x = std::min(1.0, std::max(0.0, std::log(D / 262144.0) / std::log(16.0)));
    return mpi_seconds(t, q) * std::exp((1 - x) * std::log(small) + x * std::log(large));
  }
  if (mode == ZCOLL_MODE_HOM && !q.sum) mode = ZCOLL_MODE_DOC;  // as the library runs it
  // every zcoll call starts with one small allreduce (settings, bound, ratio;
  // dispatch.cc agree) and ends with another (the status every rank returns;
  // primitives.cc run_algorithm): two latencies of a small allreduce
  const double sync =
      q.size > 1 ? (m.sync_latency > 0 ? m.sync_latency : 2 * ceil_log2(q.size) * t.a) : 0;
  const double s = zcoll_seconds(t, q, mode, algo);
  return s < 0 ? s : s + 2 * sync;
}

static double zcoll_seconds(const Terms& t, const CostQuery& q, zcoll_mode mode,
                            zcoll_algorithm algo) {
  if (q.size == 1) {  // no messages: a copy (raw), or the local codec round trip
    const double D = static_cast<double>(q.total_values * q.vsize);
    return mode == ZCOLL_MODE_RAW ? 0 : D * (t.cc + t.cd);
  }
  switch (q.coll) {
    case ZCOLL_COLL_ALLREDUCE:
      if (algo == ZCOLL_ALGO_AUTO)
        algo = default_algorithm(q.coll, q.total_values, q.vsize, q.size);
      if (algo == ZCOLL_ALGO_RING) return allreduce_ring(t, q, mode);
      if (algo == ZCOLL_ALGO_RECURSIVE_DOUBLING) return allreduce_rd(t, q, mode);
      return -1;
    case ZCOLL_COLL_REDUCE_SCATTER:
      return algo == ZCOLL_ALGO_AUTO || algo == ZCOLL_ALGO_RING ? reduce_scatter_ring(t, q, mode)
                                                                : -1;
    case ZCOLL_COLL_ALLGATHER:
      return algo == ZCOLL_ALGO_AUTO || algo == ZCOLL_ALGO_RING ? allgather_ring(t, q, mode) : -1;
    case ZCOLL_COLL_BCAST:
      if (algo == ZCOLL_ALGO_AUTO)
        algo = default_algorithm(q.coll, q.total_values, q.vsize, q.size);
      if (algo == ZCOLL_ALGO_BINOMIAL) return bcast_binomial(t, q, mode);
      if (algo == ZCOLL_ALGO_CHAIN) return bcast_chain(t, q, mode);
      return -1;
    case ZCOLL_COLL_SCATTER:
      return algo == ZCOLL_ALGO_AUTO || algo == ZCOLL_ALGO_BINOMIAL
                 ? scatter_gather_binomial(t, q, mode, false)
                 : -1;
    case ZCOLL_COLL_GATHER:
      return algo == ZCOLL_ALGO_AUTO || algo == ZCOLL_ALGO_BINOMIAL
                 ? scatter_gather_binomial(t, q, mode, true)
                 : -1;
    case ZCOLL_COLL_REDUCE:
      return algo == ZCOLL_ALGO_AUTO || algo == ZCOLL_ALGO_BINOMIAL ? reduce_binomial(t, q, mode)
                                                                    : -1;
    case ZCOLL_COLL_NONE:
    case ZCOLL_COLL_COUNT: break;
  }
  return -1;
}

bool moves_data(zcoll_collective coll) {
  return coll == ZCOLL_COLL_BCAST || coll == ZCOLL_COLL_SCATTER || coll == ZCOLL_COLL_GATHER ||
         coll == ZCOLL_COLL_ALLGATHER;
}

int pick_candidate(const Candidate* c, int n, zcoll_algorithm forced, double mpi_margin) {
  int b = -1, mpi = -1;
  for (int i = 0; i < n; ++i) {
    if (c[i].mode == ZCOLL_MODE_MPI) {
      mpi = i;
      continue;
    }
    if (forced != ZCOLL_ALGO_AUTO && c[i].algo != forced) continue;
    // a later candidate must be clearly faster: near-ties go to the earlier
    // one (hom before doc, ring -- fewest bytes on the wire -- before recursive
    // doubling)
    if (b < 0 || c[i].seconds < kAutoMargin * c[b].seconds) b = i;
  }
  if (mpi >= 0 && (b < 0 || c[b].seconds > mpi_margin * c[mpi].seconds)) return mpi;
  return b < 0 ? 0 : b;
}

int auto_candidates(const zcoll_model& m, const CostQuery& q, zcoll_algorithm forced,
                    Candidate* out, int* best) {
  int n = 0;
  auto add = [&](zcoll_mode mode, zcoll_algorithm algo) {
    const double s = predict_seconds(m, q, mode, algo);
    if (s >= 0) out[n++] = {mode, algo, s};
  };
  add(ZCOLL_MODE_MPI, ZCOLL_ALGO_NATIVE);
  // AUTO decides whether to compress: without compression it leaves the call to
  // the MPI library (whose tuned algorithms the model only approximates), so
  // RAW is not a candidate. hom before doc: where transfers hide all codec
  // time both predict the same, and hom leaves the cores more idle.
  const zcoll_mode modes[] = {ZCOLL_MODE_HOM, ZCOLL_MODE_DOC};
  for (zcoll_mode mode : modes) {
    if (mode == ZCOLL_MODE_HOM && !q.sum) continue;
    switch (q.coll) {
      case ZCOLL_COLL_ALLREDUCE:
        add(mode, ZCOLL_ALGO_RING);
        add(mode, ZCOLL_ALGO_RECURSIVE_DOUBLING);
        break;
      case ZCOLL_COLL_REDUCE_SCATTER:
      case ZCOLL_COLL_ALLGATHER: add(mode, ZCOLL_ALGO_RING); break;
      case ZCOLL_COLL_BCAST:
        add(mode, ZCOLL_ALGO_CHAIN);
        add(mode, ZCOLL_ALGO_BINOMIAL);
        break;
      default: add(mode, ZCOLL_ALGO_BINOMIAL);
    }
  }
  *best = pick_candidate(out, n, forced, moves_data(q.coll) ? kAutoMarginMove : kAutoMargin);
  return n;
}

}  // namespace zcoll::coll
