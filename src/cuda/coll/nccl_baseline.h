// nccl_baseline.h — the ncclAllReduce baseline of a device handle (lazy NCCL
// communicator over the handle's MPI ranks; one GPU per rank).
#pragma once

#include <cuda_runtime_api.h>
#include <mpi.h>

#include <cstddef>

#include "zcoll.h"

namespace zcoll::cuda::coll {

class NcclBaseline {
 public:
  NcclBaseline() = default;
  ~NcclBaseline();
  NcclBaseline(const NcclBaseline&) = delete;
  NcclBaseline& operator=(const NcclBaseline&) = delete;
  // Enqueued on stream (NCCL semantics: returns once enqueued).
  zcoll_status allreduce(MPI_Comm comm, const void* send, void* recv, size_t count, MPI_Datatype dt,
                         MPI_Op op, cudaStream_t stream);

 private:
  struct Impl;
  Impl* impl_ = nullptr;
};

}  // namespace zcoll::cuda::coll
