// algorithms.h — what the collective algorithms are written with, and the
// algorithm table (registry.cc): for each collective and algorithm one row
// with its names, restrictions, a one-line description, the function that
// runs it, its error model (the worst-case error of the result as a function
// of the per-compression bound) and its cost function (the time of each mode).
// Selection, the names of the C API and the environment, AUTO's candidates,
// the docs, the tests, Python, zcoll-bench and zcoll-soak all read the table;
// adding an algorithm is its file (src/coll/<collective>/<function>.cc:
// run, <function>_model, <function>_cost), one row (with its zcoll_algorithm
// value, checked against the table when registry.cc compiles), its test and
// its doc (CONTRIBUTING.md).
#pragma once

#include <cstddef>

#include "coll/datapath/context.h"
#include "coll/control/cost_terms.h"

namespace zcoll::coll {

// Arguments of a call after MPI_IN_PLACE is resolved.
struct Args {
  const void* in = nullptr;  // this rank's input values
  void* out = nullptr;       // output values
  bool in_place = false;
  size_t count = 0;                // allreduce/bcast/reduce: values; gather family: per rank
  const size_t* counts = nullptr;  // reduce_scatter: values per rank (size entries)
  const size_t* displs = nullptr;  // reduce_scatter: offsets (size entries)
  int root = 0;
};

struct ModelIn {
  int size = 1;
  zcoll_mode mode = ZCOLL_MODE_RAW;
  zcoll_op op = ZCOLL_OP_SUM;
  bool hom = false;      // homomorphic SUM
  bool average = false;  // divide the sum by size
  double eb = 0;         // per-compression bound (0 in RAW)
  double max_abs = 0;    // max |x| over all inputs (PROD)
  int root = 0;
  // The layout (node-aware rows, hierarchy.h): nodes and the smallest and
  // largest node's rank counts; 0: not known, every rank on a node of its own.
  int nodes = 0;
  int min_local = 0;
  int max_local = 0;
};

using RunFn = zcoll_status (*)(Ctx&, const Args&);
using ModelFn = ErrState (*)(const ModelIn&);
// Predicted seconds of one mode (RAW, CPR_P2P, DOC, HOM) for q.size > 1,
// without the call's two small allreduces (cost_model.cc adds them); < 0: the
// algorithm has no such mode.
using CostFn = double (*)(const CostTerms&, const CostQuery&, zcoll_mode);
// The transport collectives (Transport::allgather_u64) a successful run makes
// in c's mode: a rank that leaves early makes the ones it skipped, so that the
// others are not left in an unmatched collective (run_algorithm).
using HelpersFn = int (*)(const Ctx&);
// The size rule: whether this algorithm is the collective's default for q
// (the first row of the collective whose rule holds; nullptr: always).
using PreferFn = bool (*)(const CostQuery&);

// Restrictions, machine-readable.
enum Restriction : unsigned {
  kNoRestriction = 0,
  kCommutativeOps = 1u << 0,  // reductions with a commutative op (SUM, PROD, MAX, MIN)
  kNoAuto = 1u << 1,          // never one of AUTO's candidates (run when set explicitly)
  // A composition over the node and rail transports (hierarchy.h): never the
  // size rule's pick (AUTO, ZCOLL_<COLLECTIVE>_ALGO or the call choose it);
  // its node and rail transports are split before the call's bracket.
  kNodeAware = 1u << 2,
};

struct Algorithm {
  zcoll_collective coll;
  zcoll_algorithm algo;     // its number in the C API (zcoll_mpi.h; newer ones only here)
  const char* name;         // "ring": zcoll_algorithm_name, ZCOLL_<COLLECTIVE>_ALGO
  const char* alias;        // a second accepted word ("rd"), or nullptr
  unsigned restrictions;    // Restriction flags
  const char* description;  // one line
  const char* function;     // "allreduce_ring": its file and function
  RunFn run;
  ModelFn model;
  CostFn cost;
  HelpersFn helpers;          // nullptr: none
  PreferFn prefer;            // the size rule; nullptr: always
  const char* prefer_reason;  // the report's reason when the size rule picks it
};

// Run one algorithm as a collective call: the transport's call bracket
// (begin_call / abort_call / end_call, transport.h) around alg.run, then one
// small allreduce on the status, so that every rank returns an error when any
// rank failed (its own status, or the worst of the others'). A rank that leaves
// the algorithm early (an MPI error, an allocation failure: std::bad_alloc is
// caught here) notifies the others so that none blocks on it; after a failure
// the call's outstanding requests are cancelled. c.tag and c.tag + 1 are the
// call's data and notice tags.
zcoll_status run_algorithm(const Algorithm& alg, Ctx& c, const Args& a);

// The table; nullptr if the pair does not exist.
const Algorithm* find_algorithm(zcoll_collective coll, zcoll_algorithm algo);
const Algorithm* algorithms(size_t* count);
// The row of collective coll called `word` (its name or alias, any case).
const Algorithm* find_algorithm_named(zcoll_collective coll, const char* word);
// The name of an algorithm number (the first row that has it); nullptr: none.
const char* algorithm_name(zcoll_algorithm algo);
// "auto|ring|rd|recursive_doubling": the words ZCOLL_<COLLECTIVE>_ALGO accepts.
const char* algorithm_words(zcoll_collective coll);
// The size rule: the collective's default algorithm for q, and why.
const Algorithm* default_algorithm(const CostQuery& q, const char** reason);
// The same for total_values values of vsize bytes over size ranks.
zcoll_algorithm default_algorithm(zcoll_collective coll, size_t total_values, size_t vsize,
                                  int size);

// ---- error model building blocks -------------------------------------------
inline ErrState leaf(const ModelIn& m) { return {0.0, m.max_abs}; }
inline ErrState compressed(const ModelIn& m, ErrState s) { return {s.e + m.eb, s.mag}; }
ErrState combine(zcoll_op op, ErrState a, ErrState b);
inline ErrState averaged(const ModelIn& m, ErrState s) {
  if (!m.average || m.op != ZCOLL_OP_SUM) return s;
  return {s.e / m.size, s.mag / m.size};
}
// Depth of the binomial tree over size ranks (max hops from the root:
// the largest popcount of a relative rank, at most ceil(log2 size)).
int binomial_depth(int size);
// Data movement down or up a binomial tree (bcast, scatter, gather): one
// compression (doc/hom), or one per hop on the deepest path (cpr_p2p).
inline ErrState binomial_copy_model(const ModelIn& m) {
  if (m.size == 1) return leaf(m);
  ErrState s = compressed(m, leaf(m));
  if (m.mode == ZCOLL_MODE_CPR_P2P)
    for (int d = 1; d < binomial_depth(m.size); ++d) s = compressed(m, s);
  return s;
}

// The segment pipeline of a Bcast tree given this rank's parent (-1: the root)
// and children (bcast_tree.cc); bcast_binomial and bcast_chain choose the tree.
zcoll_status bcast_tree(Ctx& c, const Args& a, int parent, const int* children, int nch);
// The size rule of the long-message algorithms (ring Allreduce, chain Bcast):
// a rank's share of the buffer is at least 256 KiB.
bool share_at_least_256k(const CostQuery& q);
// The transport collective of ring_allgather_pieces (doc and hom, N > 1).
int pieces_helpers(const Ctx& c);

// ---- shared building blocks of the ring algorithms --------------------------
// Where the ring reduce-scatter leaves this rank's reduced block.
struct RingRsOut {
  void* values = nullptr;  // T values (counts[rank]); or nullptr
  // Allreduce in compressed modes: the reduced block as consecutive segment
  // streams in `pieces` (capacity pieces_cap), total bytes in *pieces_size.
  uint8_t* pieces = nullptr;
  size_t pieces_cap = 0;
  size_t pieces_size = 0;
};
zcoll_status ring_reduce_scatter(Ctx& c, const void* in, const size_t* counts, const size_t* displs,
                                 RingRsOut* out);

// Pipelined ring allgather of variable-size byte pieces (C-Coll's data
// movement framework): piece r lives at buf + offs[r] (sizes[r] bytes, all
// known to all ranks), this rank's own piece is in place; the ring moves
// fixed-size segments of `segment` bytes. on_started() runs once this rank's
// own piece and the first receives are posted (local work while the link is
// busy); on_data(p, bytes) runs after every segment of piece p that arrives,
// with the bytes of p that have arrived so far (sizes[p] when it is complete;
// once with 0 for an empty piece), so that decompression overlaps the
// remaining transfers segment by segment.
template <typename F, typename G>
zcoll_status ring_allgather_bytes(Ctx& c, uint8_t* buf, const uint64_t* sizes, const uint64_t* offs,
                                  size_t segment, F on_data, G on_started);

// Ring allgather phases over blocks (counts[b] values at displs[b] of out;
// this rank's block r already in out):
//   hops    hop by hop (raw: the values; cpr_p2p: compressed before every
//           send, decompressed after every receive): N-1 steps of one message;
//           own_exact = false replaces block r by its own round trip (so that
//           every rank holds the same values)
//   pieces  traveling streams (doc, hom): own = block r as segment streams
//           (own_size bytes); sizes are exchanged, then the fixed-segment byte
//           ring; every block is decompressed into out as soon as it arrives
//           (block r too if decompress_own). A rank that failed before reports
//           it through the size exchange, so every rank returns the error.
zcoll_status ring_allgather_hops(Ctx& c, void* out, const size_t* counts, const size_t* displs,
                                 bool own_exact);
zcoll_status ring_allgather_pieces(Ctx& c, void* out, const size_t* counts, const size_t* displs,
                                   const uint8_t* own, size_t own_size, bool decompress_own);
// Allgather of blocks of any size (empty ones too) in the call's mode: hops
// (raw, cpr_p2p) or pieces (doc, hom: the own block compressed once), the own
// block at out + displs[rank] already in place and left exact.
zcoll_status ring_allgatherv(Ctx& c, void* out, const size_t* counts, const size_t* displs);
// Blocks of n values over size ranks (multiples of 32 values where possible).
void split_blocks(size_t n, int size, size_t* counts, size_t* displs);

// Split pieces of concatenated segment streams and decompress them: piece of
// n values at src (bytes) -> dst.
zcoll_status decompress_segments(Ctx& c, const uint8_t* src, size_t bytes, void* dst, size_t n);
// The same as the bytes of the piece arrive: arrived of its bytes total are
// there; decodes every segment stream that is complete and not decoded yet
// (cur remembers where it stopped). Once arrived == bytes, all of them.
struct SegmentCursor {
  size_t pos = 0;  // bytes of the piece decoded
  size_t k = 0;    // segments decoded
};
zcoll_status decompress_arrived(Ctx& c, const uint8_t* src, size_t arrived, size_t bytes, void* dst,
                                size_t n, SegmentCursor* cur);
// Compress n values as consecutive segment streams into dst; *size = bytes.
zcoll_status compress_segments(Ctx& c, const void* src, size_t n, uint8_t* dst, size_t cap,
                               size_t* size);
// Capacity for compress_segments of n values.
size_t segments_capacity(const Ctx& c, size_t n);

}  // namespace zcoll::coll

#include "coll/datapath/ring_allgather_bytes.inl"
