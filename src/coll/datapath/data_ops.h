// data_ops.h — where a call's data work runs: one interface, three
// implementations:
//   the CPU        cpu_ops.cc (the default): libzcoll's codec, OpenMP loops;
//   a device       libzcoll_cuda_mpi (src/cuda/coll/device_ops.cc): every
//                  value and stream buffer is device memory, the codec is
//                  libzcoll_cuda's;
//   a simulation   sim_cost.cc (SimGrid SMPI builds, docs/scale.md): charges
//                  measured costs around the CPU's work, or skips the work and
//                  sizes placeholder streams by measured ratios.
// The primitives (primitives.h) time and count each step and call Ctx::ops;
// the algorithms and the data path never see which implementation runs.
//
// Every call returns when its result is usable by the host (a stream size, a
// status): a device implementation enqueues on its stream and synchronizes
// where the host needs an answer (docs/gpu.md, "Semantics").
#pragma once

#include <cstddef>
#include <cstdint>

#include "zcoll.h"

struct zcoll_comm;

namespace zcoll::transport {
class Transport;
}

namespace zcoll::coll {

struct Ctx;
struct Call;

class DataOps {
 public:
  virtual ~DataOps() = default;
  // ---- the codec (primitives.h semantics): n values <-> one stream
  virtual zcoll_status compress(Ctx& c, const void* src, size_t n, uint8_t* dst, size_t cap,
                                size_t* size) = 0;
  // Checks that the stream has the call's dtype, n and quantum (ZCOLL_ERR_MISMATCH).
  virtual zcoll_status decompress(Ctx& c, const uint8_t* src, size_t size, void* dst, size_t n,
                                  bool accumulate) = 0;
  virtual zcoll_status hom_add(Ctx& c, const uint8_t* a, size_t a_size, const uint8_t* b,
                               size_t b_size, uint8_t* out, size_t cap, size_t* out_size) = 0;
  virtual zcoll_status set_divisor(Ctx& c, uint8_t* stream, size_t size, uint32_t divisor) = 0;
  // the size of the stream at src (n values, c.params.chunk_size), from its header
  virtual zcoll_status stream_size(Ctx& c, const uint8_t* src, size_t bytes, size_t n,
                                   size_t* size) = 0;
  // ---- element-wise steps
  virtual zcoll_status reduce_ordered(Ctx& c, void* out, const void* lo, const void* hi,
                                      size_t n) = 0;
  virtual zcoll_status scale(Ctx& c, void* data, size_t n, double divisor) = 0;
  virtual zcoll_status move_bytes(Ctx& c, void* dst, const void* src, size_t bytes) = 0;
  // n values (the simulation charges a copy; everyone else moves the bytes)
  virtual zcoll_status copy_values(Ctx& c, void* dst, const void* src, size_t n);
  // ---- what the host needs to see
  // a few bytes (error markers) copied to host memory; false on failure
  virtual bool peek(void* host_dst, const void* src, size_t bytes) = 0;
  // finite min, max and max |x| of n values (the settings agreement); sampled:
  // one 64-byte line in 16 may stand for the rest (ZCOLL_REL_RANGE=sampled)
  virtual zcoll_status stats(Ctx& c, const void* data, size_t n, bool sampled, double* mn,
                             double* mx, double* maxabs) = 0;
  // AUTO's compression-ratio estimate of n values at bound eb
  virtual double estimate_ratio(const void* data, size_t n, zcoll_dtype dtype, double eb) = 0;
  // the same with the dense codec in chunks of `chunk` values (ZCOLL_CODEC=auto);
  // 0: this backend has no dense codec (the GPU's), so auto keeps the fast one
  virtual double estimate_ratio_dense(const void* /*data*/, size_t /*n*/, zcoll_dtype /*dtype*/,
                                      double /*eb*/, uint32_t /*chunk*/) {
    return 0;
  }
  // the MPI library's collective on these buffers (mode mpi and fallbacks)
  virtual zcoll_status run_native(zcoll_comm* zc, const Call& call, bool average,
                                  zcoll_dtype dtype) = 0;
  // ---- properties
  // streams are placeholders that cannot be parsed (the simulation's model)
  virtual bool placeholder_streams() const { return false; }
};

// The CPU implementation (one, stateless).
DataOps& cpu_ops();

// What a device handle attaches to its zcoll_comm (comm.h): the operations and
// the transport the algorithms use (host staging, CUDA-aware MPI or NCCL).
struct DeviceBackend {
  DataOps* ops = nullptr;
  transport::Transport* tp = nullptr;
};

}  // namespace zcoll::coll
