// device_ops.h — the CUDA implementation of coll::DataOps (coll/datapath/data_ops.h)
// and the device BufferSource of a device handle's Workspace.
#pragma once

#include <cuda_runtime_api.h>

#include <vector>

#include "coll/datapath/context.h"
#include "coll/datapath/data_ops.h"
#include "zcoll_cuda.h"

namespace zcoll::cuda::coll {

// Workspace data slots in device memory (cudaMalloc, grown, reused across
// calls); bookkeeping slots stay on the host (Workspace::get's `data`).
class DeviceBufferSource final : public zcoll::coll::BufferSource {
 public:
  ~DeviceBufferSource() override;
  uint8_t* get(int slot, bool data, size_t bytes) override;
  size_t bytes_held() const;

 private:
  struct Buf {
    void* p = nullptr;
    size_t cap = 0;
  };
  Buf bufs_[zcoll::coll::Workspace::kCount];
};

class CudaOps final : public zcoll::coll::DataOps {
 public:
  CudaOps() = default;
  ~CudaOps() override;
  CudaOps(const CudaOps&) = delete;
  CudaOps& operator=(const CudaOps&) = delete;
  // Device memory of the handle; ZCOLL_ERR_* when the device cannot be used.
  zcoll_status init();
  void set_stream(cudaStream_t s) { stream_ = s; }
  cudaStream_t stream() const { return stream_; }
  // Time of the device operations of the current call, each measured from its
  // enqueue to its completion on the host (the bench's per-rank kernel time).
  double t_kernels = 0;
  uint32_t kernels = 0;

  zcoll_status compress(zcoll::coll::Ctx& c, const void* src, size_t n, uint8_t* dst, size_t cap,
                        size_t* size) override;
  zcoll_status decompress(zcoll::coll::Ctx& c, const uint8_t* src, size_t size, void* dst, size_t n,
                          bool accumulate) override;
  zcoll_status hom_add(zcoll::coll::Ctx& c, const uint8_t* a, size_t a_size, const uint8_t* b,
                       size_t b_size, uint8_t* out, size_t cap, size_t* out_size) override;
  zcoll_status set_divisor(zcoll::coll::Ctx& c, uint8_t* stream, size_t size,
                           uint32_t divisor) override;
  zcoll_status stream_size(zcoll::coll::Ctx& c, const uint8_t* src, size_t bytes, size_t n,
                           size_t* size) override;
  zcoll_status reduce_ordered(zcoll::coll::Ctx& c, void* out, const void* lo, const void* hi,
                              size_t n) override;
  zcoll_status scale(zcoll::coll::Ctx& c, void* data, size_t n, double divisor) override;
  zcoll_status move_bytes(zcoll::coll::Ctx& c, void* dst, const void* src, size_t bytes) override;
  bool peek(void* host_dst, const void* src, size_t bytes) override;
  // exact on the device (the sampled range is the CPU's)
  zcoll_status stats(zcoll::coll::Ctx& c, const void* data, size_t n, bool sampled, double* mn,
                     double* mx, double* maxabs) override;
  double estimate_ratio(const void* data, size_t n, zcoll_dtype dtype, double eb) override;
  zcoll_status run_native(zcoll_comm* zc, const zcoll::coll::Call& call, bool average,
                          zcoll_dtype dtype) override;

 private:
  zcoll_status finish(zcoll_status enqueued, size_t* size, double t0);
  void* pinned(int which, size_t bytes);  // 0: send staging, 1: recv staging, 2: scratch

  cudaStream_t stream_ = nullptr;
  zcoll_cuda_result* result_ = nullptr;  // device
  double* partial_ = nullptr;            // device, stats
  struct Pinned {
    void* p = nullptr;
    size_t cap = 0;
  } pinned_[3];
};

}  // namespace zcoll::cuda::coll
