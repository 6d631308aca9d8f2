// device.h — the seam between the collective algorithms and a device (GPU)
// backend. The algorithm files are written once against primitives.h; when a
// Ctx carries a DeviceOps (Ctx::dev), every primitive that touches values or
// streams goes to it instead of the CPU codec, and the buffers it receives are
// device memory: the caller's buffers and the Workspace's data slots (a device
// BufferSource). Bookkeeping (tables, sizes, requests, counts) stays on the
// host. The only implementation is libzcoll_cuda_mpi (src/cuda/coll,
// docs/gpu.md); the CPU build never sets Ctx::dev, so its path is unchanged.
//
// Every call returns when its result is usable by the host (a stream size, a
// status): the implementation enqueues on its CUDA stream and synchronizes
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

class DeviceOps {
 public:
  virtual ~DeviceOps() = default;
  // the codec (primitives.h semantics; src, dst, streams in device memory)
  virtual zcoll_status compress(Ctx& c, const void* src, size_t n, uint8_t* dst, size_t cap,
                                size_t* size) = 0;
  virtual zcoll_status decompress(Ctx& c, const uint8_t* src, size_t size, void* dst, size_t n,
                                  bool accumulate) = 0;
  virtual zcoll_status hom_add(Ctx& c, const uint8_t* a, size_t a_size, const uint8_t* b,
                               size_t b_size, uint8_t* out, size_t cap, size_t* out_size) = 0;
  virtual zcoll_status set_divisor(Ctx& c, uint8_t* stream, size_t size, uint32_t divisor) = 0;
  // the size of the stream at src (n values, c.params.chunk_size), from its header
  virtual zcoll_status stream_size(Ctx& c, const uint8_t* src, size_t bytes, size_t n,
                                   size_t* size) = 0;
  // element-wise steps (primitives.h semantics)
  virtual zcoll_status reduce_ordered(Ctx& c, void* out, const void* lo, const void* hi,
                                      size_t n) = 0;
  virtual zcoll_status scale(Ctx& c, void* data, size_t n, double divisor) = 0;
  virtual zcoll_status move_bytes(Ctx& c, void* dst, const void* src, size_t bytes) = 0;
  // device -> host copy of a few bytes (error markers); returns false on failure
  virtual bool peek(void* host_dst, const void* src, size_t bytes) = 0;
  // finite min, max and max |x| of n values of dtype (dispatch's agree stage)
  virtual zcoll_status stats(zcoll_dtype dtype, const void* data, size_t n, double* mn, double* mx,
                             double* maxabs) = 0;
  // AUTO's compression-ratio estimate of n device values at bound eb
  virtual double estimate_ratio(const void* data, size_t n, zcoll_dtype dtype, double eb) = 0;
  // the MPI library's collective on device buffers (mode mpi and fallbacks)
  virtual zcoll_status run_native(zcoll_comm* zc, const Call& call, bool average,
                                  zcoll_dtype dtype) = 0;
};

// What a device handle attaches to its zcoll_comm (comm.h): the operations and
// the transport the algorithms use (host staging, CUDA-aware MPI or NCCL).
struct DeviceBackend {
  DeviceOps* ops = nullptr;
  transport::Transport* tp = nullptr;
};

}  // namespace zcoll::coll
