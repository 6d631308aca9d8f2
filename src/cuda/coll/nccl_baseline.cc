// nccl_baseline.cc — zcoll_cuda_nccl_baseline_allreduce (zcoll_cuda_mpi.h): the
// plain ncclAllReduce beside the compressed collectives. Compiled when NCCL is
// found (ZCOLL_HAVE_NCCL); otherwise the call returns ZCOLL_ERR_UNSUPPORTED.
#include <mpi.h>

#include "core/error.h"
#include "cuda/coll/nccl_baseline.h"

#if ZCOLL_HAVE_NCCL
#include <nccl.h>
#endif

namespace zcoll::cuda::coll {

#if ZCOLL_HAVE_NCCL
struct NcclBaseline::Impl {
  ncclComm_t comm = nullptr;
};

NcclBaseline::~NcclBaseline() {
  if (impl_ && impl_->comm) ncclCommDestroy(impl_->comm);
  delete impl_;
}

zcoll_status NcclBaseline::allreduce(MPI_Comm mpi, const void* send, void* recv, size_t count,
                                     MPI_Datatype dt, MPI_Op op, cudaStream_t stream) {
  ncclDataType_t t;
  if (dt == MPI_FLOAT)
    t = ncclFloat32;
  else if (dt == MPI_DOUBLE)
    t = ncclFloat64;
  else
    return fail(ZCOLL_ERR_UNSUPPORTED, "the NCCL baseline takes MPI_FLOAT or MPI_DOUBLE");
  ncclRedOp_t o;
  if (op == MPI_SUM)
    o = ncclSum;
  else if (op == MPI_PROD)
    o = ncclProd;
  else if (op == MPI_MAX)
    o = ncclMax;
  else if (op == MPI_MIN)
    o = ncclMin;
  else
    return fail(ZCOLL_ERR_UNSUPPORTED, "the NCCL baseline takes MPI_SUM/PROD/MAX/MIN");
  if (!impl_) {  // first call: a communicator over the MPI ranks (collective)
    impl_ = new Impl;
    int rank = 0, size = 1;
    MPI_Comm_rank(mpi, &rank);
    MPI_Comm_size(mpi, &size);
    ncclUniqueId id;
    ncclResult_t r = ncclSuccess;
    if (rank == 0) r = ncclGetUniqueId(&id);
    int ok = r == ncclSuccess, all = 0;
    MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, mpi);
    if (!all) return fail(ZCOLL_ERR_INTERNAL, "ncclGetUniqueId failed on rank 0");
    MPI_Bcast(&id, sizeof id, MPI_BYTE, 0, mpi);
    r = ncclCommInitRank(&impl_->comm, size, id, rank);
    if (r != ncclSuccess) {
      impl_->comm = nullptr;
      return fail(ZCOLL_ERR_UNSUPPORTED, "ncclCommInitRank: %s (NCCL needs one GPU per rank)",
                  ncclGetErrorString(r));
    }
  }
  if (!impl_->comm) return fail(ZCOLL_ERR_UNSUPPORTED, "no NCCL communicator (see the first call)");
  const ncclResult_t r = ncclAllReduce(send, recv, count, t, o, impl_->comm, stream);
  if (r != ncclSuccess) return fail(ZCOLL_ERR_INTERNAL, "ncclAllReduce: %s", ncclGetErrorString(r));
  return ZCOLL_SUCCESS;
}
#else
struct NcclBaseline::Impl {};
NcclBaseline::~NcclBaseline() = default;
zcoll_status NcclBaseline::allreduce(MPI_Comm, const void*, void*, size_t, MPI_Datatype, MPI_Op,
                                     cudaStream_t) {
  return fail(ZCOLL_ERR_UNSUPPORTED, "built without NCCL (ZCOLL_ENABLE_NCCL=OFF or not found)");
}
#endif

}  // namespace zcoll::cuda::coll
