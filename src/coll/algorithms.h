// algorithms.h — the algorithm registry (data, not code paths): for each
// collective and algorithm, its name, restrictions, a one-line description, the
// function that runs it, and its error model (the worst-case error of the
// result as a function of the per-compression bound). It drives selection,
// the report, the docs and the tests.
#pragma once

#include <cstddef>

#include "coll/context.h"

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
};

using RunFn = zcoll_status (*)(Ctx&, const Args&);
using ModelFn = ErrState (*)(const ModelIn&);

struct Algorithm {
  zcoll_collective coll;
  zcoll_algorithm algo;
  const char* name;  // file name = function name, e.g. "allreduce_ring"
  const char* restrictions;
  const char* description;
  RunFn run;
  ModelFn model;
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

// The registry; nullptr if the pair does not exist.
const Algorithm* find_algorithm(zcoll_collective coll, zcoll_algorithm algo);
const Algorithm* algorithms(size_t* count);

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

// ---- the algorithms (one file each under src/coll/<op>/) -------------------
zcoll_status allreduce_ring(Ctx&, const Args&);
ErrState allreduce_ring_model(const ModelIn&);
zcoll_status allreduce_recursive_doubling(Ctx&, const Args&);
ErrState allreduce_recursive_doubling_model(const ModelIn&);
zcoll_status reduce_scatter_ring(Ctx&, const Args&);
ErrState reduce_scatter_ring_model(const ModelIn&);
zcoll_status allgather_ring(Ctx&, const Args&);
ErrState allgather_ring_model(const ModelIn&);
// The segment pipeline of a Bcast tree given this rank's parent (-1: the root)
// and children (bcast_tree.cc); bcast_binomial and bcast_chain choose the tree.
zcoll_status bcast_tree(Ctx& c, const Args& a, int parent, const int* children, int nch);
zcoll_status bcast_binomial(Ctx&, const Args&);
ErrState bcast_binomial_model(const ModelIn&);
zcoll_status bcast_chain(Ctx&, const Args&);
ErrState bcast_chain_model(const ModelIn&);
zcoll_status scatter_binomial(Ctx&, const Args&);
ErrState scatter_binomial_model(const ModelIn&);
zcoll_status reduce_binomial(Ctx&, const Args&);
ErrState reduce_binomial_model(const ModelIn&);
zcoll_status gather_binomial(Ctx&, const Args&);
ErrState gather_binomial_model(const ModelIn&);

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
//   raw     the values themselves, one message per step
//   cpr     compress before every send, decompress after every receive;
//           own_exact = false replaces block r by its own round trip (so that
//           every rank holds the same values)
//   pieces  own = block r as segment streams (own_size bytes); sizes are
//           exchanged, then the fixed-segment byte ring; every block is
//           decompressed into out as soon as it arrives (block r too if
//           decompress_own). A rank that failed before reports it through the
//           size exchange, so every rank returns the error.
zcoll_status ring_allgather_raw(Ctx& c, void* out, const size_t* counts, const size_t* displs);
zcoll_status ring_allgather_cpr(Ctx& c, void* out, const size_t* counts, const size_t* displs,
                                bool own_exact);
zcoll_status ring_allgather_pieces(Ctx& c, void* out, const size_t* counts, const size_t* displs,
                                   const uint8_t* own, size_t own_size, bool decompress_own);
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

#include "coll/ring_allgather_bytes.inl"
