// context.h — what one collective call carries through its algorithm: the
// transport, the resolved settings (mode, op, dtype, the per-compression
// absolute bound, segment size, threads), the handle's reusable buffers, and the
// accounting that ends up in zcoll_report.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <new>
#include <vector>

#include "coll/datapath/data_ops.h"
#include "transport/transport.h"
#include "zcoll.h"
#include "zcoll_mpi.h"

namespace zcoll::coll {

// Where a workspace may take its buffers from instead of the heap (the SimGrid
// simulation keeps large data buffers in SMPI shared memory, sim_cost.h).
class BufferSource {
 public:
  virtual ~BufferSource() = default;
  // A buffer of at least `bytes` for slot `slot` (data: the slot holds values
  // or streams, not bookkeeping), or nullptr to use the heap.
  virtual uint8_t* get(int slot, bool data, size_t bytes) = 0;
};

// Growable buffers owned by the handle: get() reallocates only when a call
// needs more than any call before it (no allocation on the hot path).
class Workspace {
 public:
  enum Slot {
    kSendA,
    kSendB,
    kRecvA,
    kRecvB,
    kValuesA,
    kValuesB,
    kStreamA,
    kStreamB,
    kStreamC,
    kPieces,
    kTable,
    kSizes,
    kReqs,
    kWindow,
    kTemp,
    kCounts,
    kCursors,  // SegmentCursor per piece (ring allgather's segment-wise decoding)
    // a node-aware algorithm's own buffers (hierarchy.h), apart from those of
    // the algorithms it runs as its steps
    kNodeA,
    kNodeB,
    kNodeC,
    kNodeCounts,
    kCount
  };
  void set_source(std::unique_ptr<BufferSource> source) { source_ = std::move(source); }
  uint8_t* get(Slot s, size_t bytes) {
    if (source_) {
      const bool data = s != kTable && s != kSizes && s != kReqs && s != kCounts && s != kCursors &&
                        s != kNodeCounts;
      if (uint8_t* p = source_->get(s, data, bytes)) return p;
    }
    std::vector<uint8_t>& v = bufs_[s];
    if (v.size() < bytes) {
      if (fail_countdown > 0 && --fail_countdown == 0) throw std::bad_alloc();  // tests
      v.clear();
      v.shrink_to_fit();
      v.resize(bytes + bytes / 8);
    }
    return v.data();
  }
  template <typename T>
  T* get_as(Slot s, size_t n) {
    return reinterpret_cast<T*>(get(s, n * sizeof(T)));
  }
  // Fault injection for tests (ZCOLL_TEST_FAIL_ALLOC): k > 0 makes the k-th
  // growth from now on throw std::bad_alloc, as an exhausted heap would.
  int fail_countdown = 0;

 private:
  std::vector<uint8_t> bufs_[kCount];
  std::unique_ptr<BufferSource> source_;
};

// Worst-case error state of a value in an algorithm's error model: e bounds
// |value - exact|, mag bounds |exact| (needed for PROD).
struct ErrState {
  double e = 0;
  double mag = 0;
};

// A call's messages travel as pipeline segments of this many values: the
// configured size rounded up to whole blocks, raised where needed so that no
// message of message_values values is cut into more than kMaxSegments. Each
// segment is a request in flight, and the MPI library matches every arriving
// message against the posted receives one by one (and every new receive
// against the unexpected messages): a 3-million-value Allreduce cut into
// 32-value segments spent minutes matching (zcoll-soak seed 1 at 5 ranks).
constexpr size_t kMaxSegments = 256;
size_t pipeline_segment_values(size_t configured, size_t message_values);

// The handle's shape where it applies to a call (zcoll_comm_set_shape: a
// data-movement collective whose block count is its product; pieces_shape in
// dispatch.cc): every piece the call compresses is a whole number of units of
// `unit` values, each of the dims dims[0, ndims) (the shape's faster dims), so
// a piece of n values has the dims n / unit, then those. unit 0: no shape.
struct PieceShape {
  uint64_t unit = 0;
  uint32_t ndims = 0;
  uint64_t dims[ZCOLL_MAX_DIMS] = {};
};

struct Ctx {
  transport::Transport* tp = nullptr;
  int rank = 0, size = 1;
  zcoll_collective coll = ZCOLL_COLL_NONE;
  zcoll_dtype dtype = ZCOLL_FLOAT32;
  size_t vsize = 4;
  zcoll_op op = ZCOLL_OP_SUM;
  zcoll_mode mode = ZCOLL_MODE_RAW;  // effective mode (MPI, RAW, CPR_P2P, DOC, HOM)
  bool average = false;              // SUM: divide by size
  zcoll_params params{};             // ABS bound eb, chunk size
  double eb = 0;                     // per-compression absolute bound
  double max_abs = 0;                // max |x| over all inputs (PROD model)
  double quantum = 0;                // expected quantum of our streams
  size_t seg_values = 0;             // values per pipeline segment (SIZE_MAX: none)
  PieceShape pieces;                 // the dense codec's dims of each piece (none: unit 0)
  int threads = 1;
  Workspace* ws = nullptr;
  int tag = 0;  // the call's data tag; tag + 1: its abort notices (run_algorithm)
  // Where the data work runs (data_ops.h): the CPU unless the handle is a
  // device's (every value and stream buffer is then device memory) or the
  // simulation charges it.
  DataOps* ops = &cpu_ops();

  // accounting
  double t_codec = 0, t_reduce = 0;
  uint64_t logical_bytes = 0;  // uncompressed bytes equivalent of what was sent
  uint32_t compressions = 0, hom_adds = 0;
  // Poison state: a rank that fails keeps the message pattern going (sending
  // error markers) so that no peer hangs; receivers of a marker fail too.
  zcoll_status failed = ZCOLL_SUCCESS;
  // Transport collectives (allgather_u64) the algorithm entered: a rank that
  // leaves early makes the ones it skipped (run_algorithm), so that the ranks
  // still in the algorithm are not left in an unmatched collective.
  int helper_collectives = 0;

  // The piece the next compress / hom_add / decompress works on: piece_n
  // values that sum the inputs of piece_terms ranks (1: an input). The codec
  // does not need it (streams describe themselves); a backend that models the
  // codec from measurements instead of running it (the SimGrid simulation,
  // sim_cost.h) sizes and times pieces by it, since a sum of more inputs
  // compresses less well.
  size_t piece_n = 0;
  int piece_terms = 1;
  // Each input of this algorithm is itself a sum of this many ranks' inputs
  // (the rail step of a node-aware reduction adds node partials, hierarchy.h).
  int input_terms = 1;
  void describe_piece(size_t n, int terms) {
    piece_n = n;
    piece_terms = terms * input_terms;
  }

  bool compressed() const {
    return mode == ZCOLL_MODE_CPR_P2P || mode == ZCOLL_MODE_DOC || mode == ZCOLL_MODE_HOM;
  }
  // Homomorphic reduction: HOM mode and SUM (other ops run as DOC).
  bool hom() const { return mode == ZCOLL_MODE_HOM && op == ZCOLL_OP_SUM; }
  // DOC-style chunked compression with progress polling.
  bool poll() const { return mode == ZCOLL_MODE_DOC || mode == ZCOLL_MODE_HOM; }
  size_t segments(size_t n) const { return n == 0 ? 0 : (n - 1) / seg_values + 1; }
  size_t seg_len(size_t n, size_t k) const {
    size_t b = k * seg_values;
    return n - b < seg_values ? n - b : seg_values;
  }
  // Bytes one piece of n values may take on the wire.
  size_t piece_capacity(size_t n) const {
    return compressed() ? zcoll_compress_bound(n, dtype) : n * vsize;
  }
  size_t seg_capacity(size_t n) const {  // a segment slot for pieces of at most n values
    return piece_capacity(n < seg_values ? n : seg_values);
  }
};

}  // namespace zcoll::coll
