// staging_transport.h — the MPI transport for device buffers (docs/gpu.md):
// each message goes through a pinned host buffer (device -> pinned -> MPI ->
// pinned -> device), so it works with any MPI library and with several ranks
// sharing one GPU. With cuda_aware set, device pointers go to MPI directly
// (CUDA-aware MPI: Open MPI/MVAPICH2/Cray MPICH built with CUDA support), each
// after the stream's work is complete: MPI does not order itself after work on
// the caller's stream.
#pragma once

#include <cuda_runtime_api.h>

#include <vector>

#include "transport/transport.h"

namespace zcoll::cuda::coll {

class StagingTransport final : public transport::Transport {
 public:
  // inner: the handle's MPI transport (not owned).
  StagingTransport(transport::Transport* inner, bool cuda_aware);
  ~StagingTransport() override;
  StagingTransport(const StagingTransport&) = delete;
  StagingTransport& operator=(const StagingTransport&) = delete;

  // The stream whose work produces the data sent and consumes the data
  // received (the collective's stream, set per call).
  void set_stream(cudaStream_t s) { stream_ = s; }
  bool cuda_aware() const { return cuda_aware_; }

  int rank() const override { return inner_->rank(); }
  int size() const override { return inner_->size(); }
  zcoll_status isend(const void* buf, size_t bytes, int peer, int tag,
                     transport::Req* req) override;
  zcoll_status irecv(void* buf, size_t capacity, int peer, int tag, transport::Req* req) override;
  zcoll_status wait(transport::Req req, size_t* bytes) override;
  zcoll_status test(transport::Req req, bool* done) override;
  void progress() override;
  zcoll_status allreduce_max(double* values, int n) override;
  zcoll_status allgather_u64(const uint64_t* mine, int k, uint64_t* all) override;
  // The failure handling of the MPI transport (transport.h): passed on, so that
  // a rank that fails early tells its peers instead of leaving them waiting.
  // end_call also frees the pinned buffers of requests the call left (the
  // inner transport cancelled them after a failure).
  zcoll_status begin_call(int data_tag, int notice_tag) override;
  void abort_call(zcoll_status status) override;
  zcoll_status end_call(bool failed) override;

  // Bytes copied through pinned memory, both directions (accounting).
  uint64_t staged_bytes = 0;
  double time_staging = 0;

 private:
  struct Pinned {
    void* p = nullptr;
    size_t cap = 0;
  };
  struct Pending {
    int pinned = -1;      // index in pinned_, -1 for none
    void* dev = nullptr;  // receive: the device buffer to fill at wait()
    bool recv = false;
  };
  struct Account;
  int take_pinned(size_t bytes);  // index of a free pinned buffer of >= bytes
  void remember(transport::Req req, Pending p);

  transport::Transport* inner_;
  bool cuda_aware_;
  cudaStream_t stream_ = nullptr;
  std::vector<Pinned> pinned_;
  std::vector<bool> pinned_busy_;
  std::vector<Pending> pending_;  // indexed by the inner request id
};

}  // namespace zcoll::cuda::coll
