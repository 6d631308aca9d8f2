// sim_cost.h — hooks for running libzcoll_mpi inside SimGrid's SMPI simulator
// (CMake -DZCOLL_SMPI=ON defines ZCOLL_WITH_SMPI; docs/scale.md). In every
// other build each hook is an empty inline function or macro, so the
// production code paths are unchanged.
//
// These hooks are a DataOps implementation (data_ops.h: ops()), the
// workspace's buffer source and the MPI transport's; algorithm files carry no
// simulation code. They learn what a piece is from Ctx::describe_piece, which
// the algorithms call as part of describing their data (n values summing the
// inputs of `terms` ranks).
//
// With SMPI's CPU benchmarking off (--cfg=smpi/simulate-computation:no) the
// code between MPI calls takes no simulated time. The primitives therefore
// charge the local work explicitly,
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
#include <memory>

namespace zcoll::coll {
struct Ctx;
class BufferSource;
class DataOps;
}  // namespace zcoll::coll

namespace zcoll::coll::sim {

// What is charged; GB/s of uncompressed bytes (hom_add: bytes of one input).
enum Kind { kCompress = 0, kDecompress, kAccumulate, kHomAdd, kReduce, kCopy, kKinds };

#ifdef ZCOLL_WITH_SMPI

bool model();     // ZCOLL_SIM_CODEC=model
bool charging();  // model or charge
// Charge the time of `bytes` (uncompressed) of work of this kind at the
// context's thread count and the piece's terms (c.piece_terms).
void charge(const Ctx& c, Kind k, size_t bytes);
// Bytes of a placeholder stream of n values holding a sum of `terms` inputs.
size_t stream_size(const Ctx& c, size_t n, int terms);
// Seconds charged so far on this simulated process, per kind (kKinds entries).
const double* charged_seconds();
void reset_charged();
// In model mode, large data buffers of a handle's workspace come from SMPI
// shared memory (their bytes are never read), so that 512 ranks fit in memory
// and SMPI does not copy message payloads; nullptr otherwise.
std::unique_ptr<BufferSource> make_buffer_source();
// The simulation's DataOps when charging (ZCOLL_SIM_CODEC charge or model);
// nullptr otherwise (the CPU's run).
DataOps* ops();

#else  // every hook is empty: the production paths are unchanged

inline bool model() { return false; }
inline bool charging() { return false; }
inline void charge(const Ctx&, Kind, size_t) {}
inline size_t stream_size(const Ctx&, size_t, int) { return 0; }
inline std::unique_ptr<BufferSource> make_buffer_source() { return nullptr; }
inline DataOps* ops() { return nullptr; }

#endif

}  // namespace zcoll::coll::sim
