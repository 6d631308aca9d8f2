// cost_model.cc — the predicted time of a call in every mode: the MPI
// library's collectives (MPICH's default algorithms), zcoll's algorithms (the
// cost function of each algorithm's row, algorithms.h) plus the two small
// allreduces every zcoll call makes, and the candidates of mode AUTO.
// Notation and building blocks: cost_terms.h.
#include "coll/control/cost_model.h"

#include "coll/control/algorithms.h"
#include "coll/datapath/hierarchy.h"

#include <algorithm>
#include <cmath>

namespace zcoll::coll {

namespace {

double mpi_seconds(const CostTerms& t, const CostQuery& q);

// MPI's Allreduce where ranks share nodes (q's layout, ranks by node): the
// better of its flat Rabenseifner and its SMP-aware composition. MPICH's
// recursive halving starts at distance 1 with half the buffer, so with ranks by
// node its first log2 P steps stay inside the node and move (1 - 1/P) D there;
// the later ones cross the link, all P ranks of the node at once, with
// (1 - 1/M) D / P each (the doubling steps mirror them). The SMP composition
// (MPICH's MPIR_Allreduce_intra_smp, Open MPI's coll/han): MPI_Reduce to a
// leader inside the node, MPI_Allreduce among the M leaders (one rank per node
// on the link), MPI_Bcast inside the node -- each step costed by MPICH's own
// choice for its size (mpi_seconds), so that long messages reduce and broadcast
// with reduce-scatter/gather and scatter/allgather inside the node, not with
// binomial trees.
double mpi_allreduce_two_level(const CostTerms& t, const CostQuery& q) {
  const int P = q.max_local, M = q.nodes, N = q.size;
  const double D = buffer_bytes(q);
  const CostTerms tn = node_terms(t);
  CostQuery in_node = q;
  in_node.size = P;
  in_node.nodes = in_node.min_local = in_node.max_local = 0;
  CostQuery leaders = in_node;
  leaders.size = M;
  in_node.coll = ZCOLL_COLL_REDUCE;
  const double reduce = mpi_seconds(tn, in_node);
  in_node.coll = ZCOLL_COLL_BCAST;
  const double bcast = mpi_seconds(tn, in_node);
  const double smp = reduce + mpi_seconds(t, leaders) + bcast;
  // flat: distances < P inside the node, the rest across the link P ranks at a time
  const int PN = floor_pow2(N);
  const double eN = N != PN ? 1.0 : 0.0;
  const double inside = 2.0 * (1.0 - 1.0 / P) * D;                  // halving + doubling
  const double cross = 2.0 * (1.0 - 1.0 / std::max(1, M)) * D / P;  // per rank
  const double flat = (2 * std::log2(PN) + 2 * eN) * t.a + cross * t.b * P + inside * t.bn +
                      2 * eN * D * t.b + ((PN - 1.0) / PN + eN) * D * t.g;
  return std::min(smp, flat);
}

double mpi_seconds(const CostTerms& t, const CostQuery& q) {
  const int N = q.size;
  const double D = buffer_bytes(q);
  const double L = ceil_log2(N);
  const int P = floor_pow2(N);
  const double f = (N - 1.0) / N;
  const double e = N != P ? 1.0 : 0.0;
  // ranks share nodes (q's layout, ranks by node): the steps inside a node
  // run at the node's rate (t.bn), those across the link share it
  const bool tiered = q.nodes > 1 && q.max_local > 1 && q.nodes < N;
  const double ring_b = tiered ? std::max(t.b, t.bn) : t.b;
  // MPICH's default selection (ch4 -> MPIR "auto" algorithms); Open MPI's
  // tuned component makes similar choices for long messages.
  switch (q.coll) {
    case ZCOLL_COLL_ALLREDUCE:
      if (D <= 2048 || q.total_values < static_cast<size_t>(P))  // recursive doubling
        return (L + 2 * e) * (t.a + D * t.b) + (L + e) * D * t.g;
      if (tiered) return mpi_allreduce_two_level(t, q);
      // Rabenseifner: recursive-halving reduce-scatter + recursive-doubling allgather
      return (2 * std::log2(P) + 2 * e) * t.a + (2.0 * (P - 1) / P + 2 * e) * D * t.b +
             ((P - 1.0) / P + e) * D * t.g;
    case ZCOLL_COLL_REDUCE_SCATTER:  // pairwise exchange
      if (tiered) {
        // step i pairs rank r with r + i: for all but Pn - 1 of the N - 1 steps
        // every rank of the node sends across the link at once
        const int Pn = q.max_local;
        return (N - 1) * t.a + (N - Pn) / double(N) * D * t.b * Pn +
               (Pn - 1) / double(N) * D * t.bn + f * D * t.g;
      }
      return (N - 1) * t.a + f * D * t.b + f * D * t.g;
    case ZCOLL_COLL_ALLGATHER:  // ring (long) / recursive doubling
      // ranks by node: one flow per link, the ring runs at its slower hop
      return (N - 1) * t.a + f * D * ring_b;
    case ZCOLL_COLL_BCAST:
      if (D < 12288 || N < 8) return L * (t.a + D * t.b);       // binomial
      return (L + N - 1) * t.a + f * D * t.b + f * D * ring_b;  // scatter + ring allgather
    case ZCOLL_COLL_SCATTER:
    case ZCOLL_COLL_GATHER:  // binomial
      return L * t.a + f * D * t.b;
    case ZCOLL_COLL_REDUCE:
      if (D <= 2048 || q.total_values < static_cast<size_t>(P))
        return L * (t.a + D * t.b + D * t.g);
      return (2 * std::log2(P) + 2 * e) * t.a + (2.0 * (P - 1) / P + e) * D * t.b +
             ((P - 1.0) / P + e) * D * t.g;
    case ZCOLL_COLL_NONE: break;
  }
  return -1;
}

}  // namespace

bool model_usable(const zcoll_model& m) {
  auto pos = [](double v) { return std::isfinite(v) && v > 0; };
  return std::isfinite(m.latency) && m.latency >= 0 && pos(m.bandwidth) && pos(m.compress_bw) &&
         pos(m.decompress_bw) && pos(m.hom_bw) && pos(m.reduce_bw) && std::isfinite(m.overlap) &&
         std::isfinite(m.growth_bits);
}

double max_ratio(size_t vsize) { return 8.0 * static_cast<double>(vsize) / 0.25; }

// zcoll's algorithm for q (algo AUTO: the size rule), without the call's allreduces.
static double zcoll_seconds(const CostTerms& t, const CostQuery& q, zcoll_mode mode,
                            zcoll_algorithm algo) {
  if (q.size == 1) {  // no messages: a copy (raw), or the local codec round trip
    const double D = buffer_bytes(q);
    return mode == ZCOLL_MODE_RAW ? 0 : D * (t.cc + t.cd);
  }
  const Algorithm* a = algo == ZCOLL_ALGO_AUTO ? default_algorithm(q, nullptr)
                                               : find_algorithm(q.coll, algo);
  return a ? a->cost(t, q, mode) : -1;
}

double predict_seconds(const zcoll_model& m, const CostQuery& q0, zcoll_mode mode,
                       zcoll_algorithm algo) {
  if (!model_usable(m) || q0.size < 1) return -1;
  CostQuery q = q0;
  q.seg_values = std::max<size_t>(32, q.seg_values);
  if (q.total_values == 0) return 0;
  const CostTerms t(m);
  if (mode == ZCOLL_MODE_MPI) {
    // the probe's correction, measured at 256 KiB and 4 MiB, log-interpolated
    const double large = m.mpi_scale > 0 ? m.mpi_scale : 1.0;
    const double small = m.mpi_scale_small > 0 ? m.mpi_scale_small : large;
    const double D = buffer_bytes(q);
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

namespace {

// The compressed candidates of q with `codec` (hom and doc with every
// algorithm of the collective; hom only for SUM), appended to out[*n].
void add_compressed(const zcoll_model& m, const CostQuery& q, zcoll_algorithm forced,
                    zcoll_codec codec, Candidate* out, int* n) {
  auto add = [&](zcoll_mode mode, zcoll_algorithm algo) {
    const double s = predict_seconds(m, q, mode, algo);
    if (s >= 0 && *n < kMaxCandidates) out[(*n)++] = {mode, algo, s, codec};
  };
  // AUTO decides whether to compress: without compression it leaves the call to
  // the MPI library (whose tuned algorithms the model only approximates), so
  // RAW is not a candidate. hom before doc: where transfers hide all codec
  // time both predict the same, and hom leaves the cores more idle.
  // The node-aware rows are candidates where ranks share nodes and there is
  // more than one node (or when forced): elsewhere they only add steps.
  const bool tiered = q.nodes > 1 && q.max_local > 1;
  size_t rows = 0;
  const Algorithm* table = algorithms(&rows);
  for (zcoll_mode mode : {ZCOLL_MODE_HOM, ZCOLL_MODE_DOC}) {
    if (mode == ZCOLL_MODE_HOM && !q.sum) continue;
    for (size_t i = 0; i < rows; ++i) {
      const Algorithm& a = table[i];
      if (a.coll != q.coll || (a.restrictions & kNoAuto)) continue;
      if ((a.restrictions & kNodeAware) && !tiered && forced != a.algo) continue;
      add(mode, a.algo);
    }
  }
}

}  // namespace

int auto_candidates(const zcoll_model& m, const CostQuery& q, zcoll_algorithm forced,
                    Candidate* out, int* best) {
  int n = 0;
  const double s = predict_seconds(m, q, ZCOLL_MODE_MPI, ZCOLL_ALGO_NATIVE);
  if (s >= 0) out[n++] = {ZCOLL_MODE_MPI, ZCOLL_ALGO_NATIVE, s};
  add_compressed(m, q, forced, ZCOLL_CODEC_FAST, out, &n);
  *best = pick_candidate(out, n, forced, moves_data(q.coll) ? kAutoMarginMove : kAutoMargin);
  return n;
}

bool dense_model(const zcoll_model& m, zcoll_model* out) {
  auto pos = [](double v) { return std::isfinite(v) && v > 0; };
  if (!pos(m.dense_compress_bw) || !pos(m.dense_decompress_bw)) return false;
  *out = m;
  out->compress_bw = m.dense_compress_bw;
  out->decompress_bw = m.dense_decompress_bw;
  return true;
}

int auto_candidates_codecs(const zcoll_model& m, const CostQuery& q, const CostQuery& q_dense,
                           zcoll_algorithm forced, Candidate* out, int* best) {
  int n = auto_candidates(m, q, forced, out, best);
  zcoll_model md;
  if (!dense_model(m, &md)) return n;
  CostQuery qd = q_dense;
  qd.sum = false;  // no homomorphic addition on dense streams: doc
  add_compressed(md, qd, forced, ZCOLL_CODEC_DENSE, out, &n);
  *best = pick_candidate(out, n, forced, moves_data(q.coll) ? kAutoMarginMove : kAutoMargin);
  return n;
}

int auto_candidates_at(const zcoll_model& m, const CostQuery& q, double ratio_dense,
                       zcoll_algorithm forced, Candidate* out, int* best) {
  if (!(ratio_dense > 0)) return auto_candidates(m, q, forced, out, best);
  CostQuery qd = q;
  qd.ratio = ratio_dense;
  return auto_candidates_codecs(m, q, qd, forced, out, best);
}

CodecPick pick_codec(const zcoll_model& m, const CostQuery& q0, double ratio_dense, zcoll_mode mode,
                     zcoll_algorithm algo) {
  CostQuery q = q0;
  q.sum = false;  // an explicit mode that can use either codec: doc or cpr_p2p
  const double t_fast = predict_seconds(m, q, mode, algo);
  if (!(q.ratio > 0 && ratio_dense > 0)) return {ZCOLL_CODEC_FAST, t_fast, "no estimate"};
  zcoll_model dense;
  if (!dense_model(m, &dense)) return {ZCOLL_CODEC_FAST, t_fast, "the model has no dense rates"};
  q.ratio = ratio_dense;
  const double t_dense = predict_seconds(dense, q, mode, algo);
  if (t_dense >= 0 && t_fast >= 0 && t_dense < kAutoMargin * t_fast)
    return {ZCOLL_CODEC_DENSE, t_dense, "predicted faster"};
  return {ZCOLL_CODEC_FAST, t_fast, "predicted faster"};
}

}  // namespace zcoll::coll
