// cost_model.h — the alpha-beta-gamma model of every (collective, algorithm,
// mode) and of the MPI library's own collectives, and the choice that mode
// AUTO makes from it (docs/algorithms.md, "Cost model"). Pure functions: no
// MPI, no state; calibrate.cc fills the parameters.
#pragma once

#include <cstddef>

#include "coll/control/cost_terms.h"
#include "zcoll_tuner.h"

namespace zcoll::coll {

constexpr int kMaxCandidates = 32;
struct Candidate {
  zcoll_mode mode;
  zcoll_algorithm algo;
  double seconds;
  zcoll_codec codec = ZCOLL_CODEC_FAST;  // the codec of a compressed mode
};

// Predicted seconds of (mode, algo) for q; algo AUTO = the size rule that
// explicit modes use. Returns a negative value for pairs that do not exist.
double predict_seconds(const zcoll_model& m, const CostQuery& q, zcoll_mode mode,
                       zcoll_algorithm algo);

// The candidates AUTO considers (mpi; hom and doc with every algorithm of
// the collective; hom only for SUM; not raw, see cost_model.cc), evaluated; returns how many were
// written to out (capacity kMaxCandidates) and pick_candidate(out, n, forced) in *best.
int auto_candidates(const zcoll_model& m, const CostQuery& q, zcoll_algorithm forced,
                    Candidate* out, int* best);

// The model of the dense codec: m with the dense codec's rates in place of the
// fast codec's. False when m has none (0: not known).
bool dense_model(const zcoll_model& m, zcoll_model* out);

// AUTO's candidates with ZCOLL_CODEC=auto: those of auto_candidates at q (the
// fast codec's ratio), then the dense codec's doc rows at q_dense (its ratio;
// dense streams have no homomorphic addition) when m has the dense rates; the
// pick as in auto_candidates (near-ties go to the fast codec, listed first).
int auto_candidates_codecs(const zcoll_model& m, const CostQuery& q, const CostQuery& q_dense,
                           zcoll_algorithm forced, Candidate* out, int* best);

// What AUTO evaluates once the ratios are known (auto_select.cc) and what
// zcoll_predict_codec evaluates: with ratio_dense > 0 both codecs' candidates
// (auto_candidates_codecs, the dense ones at ratio_dense), else the fast
// codec's (auto_candidates); q.ratio is the fast codec's ratio.
int auto_candidates_at(const zcoll_model& m, const CostQuery& q, double ratio_dense,
                       zcoll_algorithm forced, Candidate* out, int* best);

// ZCOLL_CODEC=auto's codec for an explicit mode that can use either codec (doc,
// cpr_p2p; hom stays on the fast codec's homomorphic sums): dense where m has
// the dense rates and (mode, algo) at ratio_dense is predicted faster than
// kAutoMargin times the fast codec at q.ratio; otherwise fast. Without both
// ratios (<= 0: no estimate) or the dense rates, fast. seconds: the chosen
// codec's prediction (negative: no such pair); why: the reason in words.
// choose_codec (codec_select.cc) and zcoll_predict_codec decide with it.
struct CodecPick {
  zcoll_codec codec;
  double seconds;
  const char* why;
};
CodecPick pick_codec(const zcoll_model& m, const CostQuery& q, double ratio_dense, zcoll_mode mode,
                     zcoll_algorithm algo);

// A zcoll mode must be predicted faster than MPI by this factor to be taken:
// MPI is exact and its cost is the better known, so near-ties go to it.
constexpr double kAutoMargin = 0.97;

// The same for the collectives that only move data (Bcast, Scatter, Gather,
// Allgather). There the model overrates compression: over the 2026-11-22
// cluster sweep (168 doc/hom points, 2 and 4 hosts, 0.5-2 Gbit/s) its
// predicted speedup over MPI was a median 1.19-1.43 times the measured one
// (reductions: 1.03-1.12), as what it leaves out (per-message costs of the
// segment pipeline, the codec competing with the network stack for cores)
// costs compressed data movement more than MPI's plain sends, which gain no
// reduction work to trade. A compressed candidate must be predicted 1/0.8 =
// 1.25x faster: at the measured bias that is about break-even.
constexpr double kAutoMarginMove = 0.8;

// Whether a collective only moves data (no reduction).
bool moves_data(zcoll_collective coll);

// The candidate AUTO takes: the fastest of zcoll's (within kAutoMargin, ties
// go to the earlier one; with an algorithm the caller forced for the
// collective, only that one), unless MPI's prediction is within mpi_margin
// (kAutoMargin, or kAutoMarginMove for data movement) of it.
int pick_candidate(const Candidate* c, int n, zcoll_algorithm forced,
                   double mpi_margin = kAutoMargin);

// The largest compression ratio our format can reach (one width byte per 32
// values): an upper bound for deciding, without looking at the data, that no
// compressed mode can win.
double max_ratio(size_t vsize);

// A model is usable when every throughput and the bandwidth are positive.
bool model_usable(const zcoll_model& m);

}  // namespace zcoll::coll
