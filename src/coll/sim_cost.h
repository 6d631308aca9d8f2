// sim_cost.h — hooks for running libzcoll_mpi inside SimGrid's SMPI simulator
// (CMake -DZCOLL_SMPI=ON defines ZCOLL_WITH_SMPI; docs/scale.md). In every
// other build each hook is an empty inline function or macro, so the
// production code paths are unchanged.
//
// With SMPI's CPU benchmarking off (--cfg=smpi/simulate-computation:no) the
// code between MPI calls takes no simulated time. The primitives
// (primitives.cc, segments.cc) therefore charge the local work explicitly,
// with smpi_execute_benched(bytes / throughput), from a profile of throughputs
// measured on a real machine (tools/simscale/calibrate). ZCOLL_SIM_CODEC picks
// what happens to the data itself:
//   off     (default) nothing is charged, the real work runs (plain SMPI);
//   charge  the real work runs (real streams, real results) and the measured
//           cost is charged: for validation at small scale;
//   model   the data work is skipped (buffers are SMPI shared memory holding
//           garbage), streams are ratio-sized placeholders whose size comes
//           from the compression ratio measured on real data for a partial
//           sum of `terms` inputs, and the cost is charged: for 512 ranks x
//           646 MB. The algorithms still run their real message pattern.
// ZCOLL_SIM_PROFILE names the profile (lines "tput THREADS KIND TERMS GB/s",
// "ratio TERMS RATIO"; tools/simscale/study.py writes it from the JSON).
#pragma once

#include <cstddef>
#include <cstdint>

namespace zcoll::coll {
struct Ctx;
}

namespace zcoll::coll::sim {

// What is charged; GB/s of uncompressed bytes (hom_add: bytes of one input).
enum Kind { kCompress = 0, kDecompress, kAccumulate, kHomAdd, kReduce, kCopy, kKinds };

#ifdef ZCOLL_WITH_SMPI

bool model();     // ZCOLL_SIM_CODEC=model
bool charging();  // model or charge
// Charge the time of `bytes` (uncompressed) of work of this kind at the
// context's thread count and the piece's terms (c.sim_terms).
void charge(const Ctx& c, Kind k, size_t bytes);
// Bytes of a placeholder stream of n values holding a sum of `terms` inputs.
size_t stream_size(const Ctx& c, size_t n, int terms);
// Seconds charged so far on this simulated process, per kind (kKinds entries).
const double* charged_seconds();
void reset_charged();

// Large data buffers of the handle's workspace come from SMPI shared memory
// in model mode (their bytes are never read), so 512 ranks fit in memory and
// SMPI does not copy message payloads.
bool share(bool data_slot, size_t bytes);

// Release the sends reqs[*done], reqs[*done + 1], ... (of `posted`) that have
// completed, oldest first. Bookkeeping only (no message changes): SimGrid
// 3.32 keeps an actor's unwaited communications in a list that it scans on
// every completion, so thousands of sends that an algorithm waits for only at
// its end make the simulation quadratic (hours at 512 ranks).
void reap_sends(Ctx& c, int32_t* reqs, size_t posted, size_t* done);
class SharedBuffers {
 public:
  SharedBuffers() = default;
  SharedBuffers(const SharedBuffers&) = delete;
  SharedBuffers& operator=(const SharedBuffers&) = delete;
  ~SharedBuffers();
  uint8_t* get(int slot, size_t bytes);

 private:
  static constexpr int kSlots = 32;
  void* p_[kSlots] = {};
  size_t n_[kSlots] = {};
};

#else

inline bool model() { return false; }
inline bool charging() { return false; }
inline void charge(const Ctx&, Kind, size_t) {}

#endif

}  // namespace zcoll::coll::sim

// Tell the simulation which piece the next compress / hom_add produces: n
// values holding the sum of `terms` inputs (its placeholder size and its
// cost depend on both). No-op outside SMPI builds.
// ZCOLL_SIM_REAP: see reap_sends (v: a size_t declared with ZCOLL_SIM_REAP_DECL).
#ifdef ZCOLL_WITH_SMPI
#define ZCOLL_SIM_PIECE(c, n, terms) \
  ((c).sim_n = static_cast<size_t>(n), (c).sim_terms = static_cast<int>(terms))
#define ZCOLL_SIM_REAP_DECL(v) size_t v = 0
#define ZCOLL_SIM_REAP(c, reqs, posted, v) zcoll::coll::sim::reap_sends((c), (reqs), (posted), &(v))
#else
#define ZCOLL_SIM_PIECE(c, n, terms) ((void)0)
#define ZCOLL_SIM_REAP_DECL(v) static_cast<void>(0)
#define ZCOLL_SIM_REAP(c, reqs, posted, v) ((void)0)
#endif
