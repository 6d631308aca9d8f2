// cost_terms.h — the building blocks of the alpha-beta-gamma cost functions that
// every algorithm file defines next to its schedule (docs/algorithms.md, "Cost
// model"). Notation: N ranks, D bytes of the collective's buffer, a = latency,
// b = 1/bandwidth, cc / cd / ch / g = seconds per uncompressed byte of
// compression, decompression, homomorphic addition, float reduction.
// Compressed sizes: a compressed k-term sum (hom adds, or doc's recompressed
// partial sums) needs b_k = b_1 + growth * log2(k) bits per value, where
// b_1 = 8 * vsize / ratio.
// Pipelined modes (segments in flight while the codec works on the next ones)
// cost max(W, C) + (1 - overlap) * min(W, C)^2 / max(W, C) for transfer time W
// and codec time C (CostTerms::pipe); modes without a pipeline (cpr_p2p) cost
// W + C.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>

#include "zcoll_tuner.h"

namespace zcoll::coll {

// One call, as the model sees it.
struct CostQuery {
  zcoll_collective coll = ZCOLL_COLL_ALLREDUCE;
  int size = 1;
  size_t total_values = 0;    // the buffer D in values (allreduce/bcast/reduce: count;
                              // reduce_scatter/allgather/scatter/gather: all ranks')
  size_t vsize = 4;           // bytes per value
  double ratio = 1;           // compression ratio of one compressed input
  size_t seg_values = 65536;  // pipeline segment (values)
  bool sum = true;            // op is SUM (hom possible)
  // The layout (node-aware rows, hierarchy.h): nodes and the smallest and
  // largest node's rank counts; 0: not known, every rank on a node of its own.
  int nodes = 0;
  int min_local = 0;
  int max_local = 0;
  int input_terms = 1;  // each input is a sum of this many ranks' (node partials)
};

// The model's parameters as seconds per byte (see the notation above).
struct CostTerms {
  double a, b, cc, cd, ch, g, overlap, growth;
  // The two-level model (node-aware rows): latency and seconds per byte
  // between ranks of a node, and per byte on a rail when every lane of the
  // node sends (0: b times the lanes, hierarchy.cc rail_terms).
  double an, bn, br;

  explicit CostTerms(const zcoll_model& m)
      : a(m.latency),
        b(1.0 / m.bandwidth),
        cc(1.0 / m.compress_bw),
        cd(1.0 / m.decompress_bw),
        ch(1.0 / m.hom_bw),
        g(1.0 / m.reduce_bw),
        overlap(std::min(1.0, std::max(0.0, m.overlap))),
        growth(std::max(0.0, m.growth_bits)),
        an(m.node_latency > 0 ? m.node_latency : m.latency),
        bn(m.node_bandwidth > 0 ? 1.0 / m.node_bandwidth : 1.0 / m.bandwidth),
        br(m.rail_bandwidth > 0 ? 1.0 / m.rail_bandwidth : 0) {}

  // A pipelined stage: transfer time w overlapping codec time c. The shorter
  // stage hides behind the longer one except for the pipeline's stalls, which
  // are worst when the stages are balanced (each waits on the other's jitter)
  // and vanish as one dominates (it never waits): (1 - overlap) of the
  // shorter stage is charged at balance, scaled by min / max as they part. A
  // codec far faster than a slow link then costs next to nothing, as measured
  // on the emulated cluster (docs/reports/2026-11-29-auto-overlap.md).
  double pipe(double w, double c) const {
    const double lo = std::min(w, c), hi = std::max(w, c);
    return hi > 0 ? hi + (1.0 - overlap) * lo * (lo / hi) : 0.0;
  }
  // Compressed bytes per uncompressed byte of a k-term sum.
  double inv_ratio_k(const CostQuery& q, double k) const {
    const double bits = 8.0 * static_cast<double>(q.vsize);
    const double b1 = bits / std::max(q.ratio, 1.0);
    const double bk = b1 + growth * std::log2(std::max(k * std::max(q.input_terms, 1), 1.0));
    return std::min(bk, bits + 1.0) / bits;  // never worse than raw chunks (+ headers)
  }
  // Mean over the steps of a reduce-scatter (k = 1..N-1 terms).
  double inv_ratio_rs(const CostQuery& q) const {
    const int N = q.size;
    double s = 0;
    for (int k = 1; k < N; ++k) s += inv_ratio_k(q, k);
    return N > 1 ? s / (N - 1) : inv_ratio_k(q, 1);
  }
};

// D: the collective's buffer in bytes.
inline double buffer_bytes(const CostQuery& q) {
  return static_cast<double>(q.total_values * q.vsize);
}
// Pipeline segments of the buffer.
inline double segment_count(const CostQuery& q) {
  return std::max<double>(1, std::ceil(static_cast<double>(q.total_values) / q.seg_values));
}
inline int ceil_log2(int n) {
  int l = 0;
  while ((1 << l) < n) ++l;
  return l;
}
inline int floor_pow2(int n) {
  int p = 1;
  while (p * 2 <= n) p *= 2;
  return p;
}

}  // namespace zcoll::coll
