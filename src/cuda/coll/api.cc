// api.cc — zcoll_cuda_mpi.h: a zcoll_comm whose algorithms run on device
// buffers through coll::DeviceBackend (device_ops.cc, staging_transport.cc).
#include <mpi.h>

#include <climits>
#include <memory>
#include <new>

#include "coll/control/comm.h"
#include "core/error.h"
#include "cuda/coll/device_ops.h"
#include "cuda/coll/nccl_baseline.h"
#include "cuda/coll/staging_transport.h"
#include "zcoll_cuda_mpi.h"

using zcoll::coll::Call;
using zcoll::cuda::coll::CudaOps;
using zcoll::cuda::coll::DeviceBufferSource;
using zcoll::cuda::coll::StagingTransport;

struct zcoll_cuda_comm {
  zcoll_comm* zc = nullptr;
  zcoll_cuda_transport transport = ZCOLL_CUDA_TRANSPORT_MPI_STAGED;
  CudaOps ops;
  std::unique_ptr<StagingTransport> tp;
  zcoll::coll::DeviceBackend backend;
  zcoll::cuda::coll::NcclBaseline nccl;
};

namespace {

using zcoll::fail;

zcoll_status check_handle(const zcoll_cuda_comm* zcc) {
  if (!zcc || !zcc->zc) return fail(ZCOLL_ERR_INVALID_ARG, "zcoll_cuda_comm is NULL");
  return ZCOLL_SUCCESS;
}

// A device (or managed) pointer, MPI_IN_PLACE, or NULL where allowed.
zcoll_status check_buffer(const void* p, const char* name, bool may_be_null) {
  if (p == MPI_IN_PLACE) return ZCOLL_SUCCESS;
  if (!p) {
    if (may_be_null) return ZCOLL_SUCCESS;
    return fail(ZCOLL_ERR_INVALID_ARG, "%s is NULL", name);
  }
  cudaPointerAttributes a{};
  const cudaError_t e = cudaPointerGetAttributes(&a, p);
  if (e != cudaSuccess) {
    cudaGetLastError();  // clear the error
    return fail(ZCOLL_ERR_INVALID_ARG, "%s: not a pointer CUDA knows (%s)", name,
                cudaGetErrorString(e));
  }
  if (a.type != cudaMemoryTypeDevice && a.type != cudaMemoryTypeManaged)
    return fail(ZCOLL_ERR_INVALID_ARG, "%s is not device memory", name);
  return ZCOLL_SUCCESS;
}

zcoll_status run(zcoll_cuda_comm* zcc, const Call& k, cudaStream_t stream, zcoll_report* report,
                 bool send_null_ok, bool recv_null_ok) {
  zcoll::clear_error();
  ZCOLL_CHECK(check_handle(zcc));
  ZCOLL_CHECK(check_buffer(k.sendbuf, "sendbuf", send_null_ok || k.count == 0));
  ZCOLL_CHECK(check_buffer(k.recvbuf, "recvbuf", recv_null_ok || k.count == 0));
  // The caller's work on `stream` (its inputs) is ordered before the call's:
  // every device step runs on `stream`, and the transport waits for `stream`
  // before MPI touches a device buffer (the staging copies run on it; with
  // CUDA-aware MPI, a synchronization before each send and receive).
  zcc->ops.set_stream(stream);
  zcc->tp->set_stream(stream);
  zcc->ops.t_kernels = 0;
  zcc->ops.kernels = 0;
  zcc->tp->staged_bytes = 0;
  zcc->tp->time_staging = 0;
  zcoll_status s = zcoll::coll::run_call(zcc->zc, k);
  // complete on return (zcoll_cuda_mpi.h): the last reduce/scale/copy included
  const cudaError_t e = cudaStreamSynchronize(stream);
  if (s == ZCOLL_SUCCESS && e != cudaSuccess)
    s = fail(ZCOLL_ERR_INTERNAL, "the collective's stream failed: %s", cudaGetErrorString(e));
  if (report) {
    *report = zcc->zc->report;
    report->status = s;
  }
  return s;
}

zcoll_status create(MPI_Comm comm, const zcoll_comm_config* config, zcoll_cuda_transport transport,
                    zcoll_cuda_comm** out) {
  if (!out) return fail(ZCOLL_ERR_INVALID_ARG, "out is NULL");
  *out = nullptr;
  if (comm == MPI_COMM_NULL) return fail(ZCOLL_ERR_INVALID_ARG, "comm is MPI_COMM_NULL");
  // Every rank decides together, so that no rank waits in a collective that
  // another has left: a device on every rank, a known transport.
  int ok = 1;
  const char* why = "";
  if (transport == ZCOLL_CUDA_TRANSPORT_NCCL) {
    ok = 0;
    why = "the NCCL transport is not implemented yet (docs/gpu.md)";
  } else if (transport != ZCOLL_CUDA_TRANSPORT_MPI_STAGED &&
             transport != ZCOLL_CUDA_TRANSPORT_MPI_CUDA_AWARE) {
    ok = 0;
    why = "unknown transport";
  } else if (zcoll_cuda_device_count() < 1) {
    ok = 0;
    why = "no CUDA device";
  }
  int all = ok;
  if (MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, comm) != MPI_SUCCESS)
    return fail(ZCOLL_ERR_MPI, "MPI_Allreduce in zcoll_cuda_comm_create failed");
  if (!all) {
    if (transport == ZCOLL_CUDA_TRANSPORT_NCCL || ok == 0)
      return fail(ZCOLL_ERR_UNSUPPORTED, "zcoll_cuda_comm_create: %s", why);
    return fail(ZCOLL_ERR_UNSUPPORTED, "zcoll_cuda_comm_create: no CUDA device on another rank");
  }
  auto zcc = std::make_unique<zcoll_cuda_comm>();
  zcc->transport = transport;
  // a failure here is local (cudaMalloc): agree on it before the comm is made
  ok = zcc->ops.init() == ZCOLL_SUCCESS;
  if (MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, comm) != MPI_SUCCESS)
    return fail(ZCOLL_ERR_MPI, "MPI_Allreduce in zcoll_cuda_comm_create failed");
  if (!all)
    return fail(ZCOLL_ERR_NO_MEMORY, "zcoll_cuda_comm_create: device memory on %s rank",
                ok ? "another" : "this");
  ZCOLL_CHECK(zcoll_comm_create(comm, config, &zcc->zc));
  // The GPU codec writes no chunk checksums (format 1.1): a handle that asks for
  // them (ZCOLL_CHECKSUM=1, or ZCOLL_FLAG_CHECKSUM in codec_flags) on any rank
  // is refused on every rank, instead of failing each compressed call.
  // Nor the dense codec (ZCOLL_CODEC=dense, ZCOLL_FORMAT_FLAG_DENSE in codec_flags).
  const uint64_t cpu_only = ZCOLL_FLAG_CHECKSUM | ZCOLL_FORMAT_FLAG_DENSE;
  const int mine = (zcc->zc->cfg.codec_flags & cpu_only) != 0;
  int any = mine;
  const int rc = MPI_Allreduce(&mine, &any, 1, MPI_INT, MPI_MAX, comm);
  if (rc != MPI_SUCCESS || any) {
    zcoll_comm_free(zcc->zc);
    if (rc != MPI_SUCCESS)
      return fail(ZCOLL_ERR_MPI, "MPI_Allreduce in zcoll_cuda_comm_create failed");
    return fail(ZCOLL_ERR_UNSUPPORTED,
                "zcoll_cuda_comm_create: chunk checksums (ZCOLL_CHECKSUM=1, ZCOLL_FLAG_CHECKSUM) "
                "and the dense codec (ZCOLL_CODEC=dense) are not implemented by the GPU codec%s",
                mine ? "" : " (asked for on another rank)");
  }
  zcc->tp = std::make_unique<StagingTransport>(zcc->zc->tp.get(),
                                               transport == ZCOLL_CUDA_TRANSPORT_MPI_CUDA_AWARE);
  zcc->zc->ws.set_source(std::make_unique<DeviceBufferSource>());
  zcc->backend.ops = &zcc->ops;
  zcc->backend.tp = zcc->tp.get();
  zcc->zc->device = &zcc->backend;
  *out = zcc.release();
  return ZCOLL_SUCCESS;
}

}  // namespace

extern "C" {

zcoll_status zcoll_cuda_comm_create(MPI_Comm comm, const zcoll_comm_config* config,
                                    zcoll_cuda_transport transport, zcoll_cuda_comm** out) {
  return zcoll::guarded("zcoll_cuda_comm_create",
                        [&] { return create(comm, config, transport, out); });
}

zcoll_status zcoll_cuda_comm_free(zcoll_cuda_comm* zcc) {
  if (!zcc) return ZCOLL_SUCCESS;
  return zcoll::guarded("zcoll_cuda_comm_free", [&] {
    zcoll_status s = ZCOLL_SUCCESS;
    if (zcc->zc) {
      zcc->zc->device = nullptr;
      s = zcoll_comm_free(zcc->zc);  // the workspace's device buffers go with it
      zcc->zc = nullptr;
    }
    delete zcc;
    return s;
  });
}

zcoll_status zcoll_cuda_comm_set_mode(zcoll_cuda_comm* zcc, zcoll_mode mode) {
  ZCOLL_CHECK(check_handle(zcc));
  return zcoll_comm_set_mode(zcc->zc, mode);
}

zcoll_status zcoll_cuda_comm_set_algorithm(zcoll_cuda_comm* zcc, zcoll_collective collective,
                                           zcoll_algorithm algorithm) {
  ZCOLL_CHECK(check_handle(zcc));
  return zcoll_comm_set_algorithm(zcc->zc, collective, algorithm);
}

zcoll_status zcoll_cuda_comm_set_error_bound(zcoll_cuda_comm* zcc, zcoll_eb_mode eb_mode,
                                             double error_bound) {
  ZCOLL_CHECK(check_handle(zcc));
  return zcoll_comm_set_error_bound(zcc->zc, eb_mode, error_bound);
}

zcoll_status zcoll_cuda_comm_set_average(zcoll_cuda_comm* zcc, int average) {
  ZCOLL_CHECK(check_handle(zcc));
  return zcoll_comm_set_average(zcc->zc, average);
}

zcoll_status zcoll_cuda_comm_device_stats(const zcoll_cuda_comm* zcc, double* kernel_seconds,
                                          uint64_t* kernel_calls, uint64_t* staged_bytes,
                                          double* staging_seconds) {
  ZCOLL_CHECK(check_handle(zcc));
  if (kernel_seconds) *kernel_seconds = zcc->ops.t_kernels;
  if (kernel_calls) *kernel_calls = zcc->ops.kernels;
  if (staged_bytes) *staged_bytes = zcc->tp->staged_bytes;
  if (staging_seconds) *staging_seconds = zcc->tp->time_staging;
  return ZCOLL_SUCCESS;
}

zcoll_status zcoll_cuda_allreduce(zcoll_cuda_comm* zcc, const void* sendbuf, void* recvbuf,
                                  size_t count, MPI_Datatype datatype, MPI_Op op,
                                  cudaStream_t stream, zcoll_report* report) {
  return zcoll::guarded("zcoll_cuda_allreduce", [&] {
    return run(zcc, Call::of(ZCOLL_COLL_ALLREDUCE, sendbuf, recvbuf, count, datatype, op), stream,
               report, false, false);
  });
}

zcoll_status zcoll_cuda_reduce_scatter_block(zcoll_cuda_comm* zcc, const void* sendbuf,
                                             void* recvbuf, size_t recvcount, MPI_Datatype datatype,
                                             MPI_Op op, cudaStream_t stream, zcoll_report* report) {
  return zcoll::guarded("zcoll_cuda_reduce_scatter_block", [&] {
    Call k = Call::of(ZCOLL_COLL_REDUCE_SCATTER, sendbuf, recvbuf, recvcount, datatype, op);
    k.block = true;
    return run(zcc, k, stream, report, false, false);
  });
}

zcoll_status zcoll_cuda_allgather(zcoll_cuda_comm* zcc, const void* sendbuf, void* recvbuf,
                                  size_t count, MPI_Datatype datatype, cudaStream_t stream,
                                  zcoll_report* report) {
  return zcoll::guarded("zcoll_cuda_allgather", [&] {
    return run(zcc, Call::of(ZCOLL_COLL_ALLGATHER, sendbuf, recvbuf, count, datatype), stream,
               report, false, false);
  });
}

zcoll_status zcoll_cuda_bcast(zcoll_cuda_comm* zcc, void* buffer, size_t count,
                              MPI_Datatype datatype, int root, cudaStream_t stream,
                              zcoll_report* report) {
  return zcoll::guarded("zcoll_cuda_bcast", [&] {
    return run(zcc, Call::of(ZCOLL_COLL_BCAST, buffer, buffer, count, datatype, MPI_OP_NULL, root),
               stream, report, false, false);
  });
}

zcoll_status zcoll_cuda_scatter(zcoll_cuda_comm* zcc, const void* sendbuf, void* recvbuf,
                                size_t count, MPI_Datatype datatype, int root, cudaStream_t stream,
                                zcoll_report* report) {
  return zcoll::guarded("zcoll_cuda_scatter", [&] {
    // sendbuf is significant at the root only
    return run(zcc,
               Call::of(ZCOLL_COLL_SCATTER, sendbuf, recvbuf, count, datatype, MPI_OP_NULL, root),
               stream, report, true, false);
  });
}

zcoll_status zcoll_cuda_reduce(zcoll_cuda_comm* zcc, const void* sendbuf, void* recvbuf,
                               size_t count, MPI_Datatype datatype, MPI_Op op, int root,
                               cudaStream_t stream, zcoll_report* report) {
  return zcoll::guarded("zcoll_cuda_reduce", [&] {
    // recvbuf is significant at the root only
    return run(zcc, Call::of(ZCOLL_COLL_REDUCE, sendbuf, recvbuf, count, datatype, op, root),
               stream, report, false, true);
  });
}

zcoll_status zcoll_cuda_gather(zcoll_cuda_comm* zcc, const void* sendbuf, void* recvbuf,
                               size_t count, MPI_Datatype datatype, int root, cudaStream_t stream,
                               zcoll_report* report) {
  return zcoll::guarded("zcoll_cuda_gather", [&] {
    return run(zcc,
               Call::of(ZCOLL_COLL_GATHER, sendbuf, recvbuf, count, datatype, MPI_OP_NULL, root),
               stream, report, false, true);
  });
}

zcoll_status zcoll_cuda_baseline_allreduce(zcoll_cuda_comm* zcc, const void* sendbuf, void* recvbuf,
                                           size_t count, MPI_Datatype datatype, MPI_Op op,
                                           cudaStream_t stream) {
  return zcoll::guarded("zcoll_cuda_baseline_allreduce", [&] {
    zcoll::clear_error();
    ZCOLL_CHECK(check_handle(zcc));
    ZCOLL_CHECK(check_buffer(sendbuf, "sendbuf", false));
    ZCOLL_CHECK(check_buffer(recvbuf, "recvbuf", false));
    if (zcc->transport == ZCOLL_CUDA_TRANSPORT_MPI_CUDA_AWARE) {
      if (count > static_cast<size_t>(INT_MAX))
        return fail(ZCOLL_ERR_UNSUPPORTED, "count %zu above INT_MAX", count);
      cudaStreamSynchronize(stream);  // the inputs are ready
      const int rc = MPI_Allreduce(sendbuf, recvbuf, static_cast<int>(count), datatype, op,
                                   zcc->zc->tp->comm());
      return rc == MPI_SUCCESS ? ZCOLL_SUCCESS : fail(ZCOLL_ERR_MPI, "MPI_Allreduce failed");
    }
    zcc->ops.set_stream(stream);
    const Call k = Call::of(ZCOLL_COLL_ALLREDUCE, sendbuf, recvbuf, count, datatype, op);
    return zcc->ops.run_native(zcc->zc, k, false, ZCOLL_FLOAT32);
  });
}

zcoll_status zcoll_cuda_nccl_baseline_allreduce(zcoll_cuda_comm* zcc, const void* sendbuf,
                                                void* recvbuf, size_t count, MPI_Datatype datatype,
                                                MPI_Op op, cudaStream_t stream) {
  return zcoll::guarded("zcoll_cuda_nccl_baseline_allreduce", [&] {
    zcoll::clear_error();
    ZCOLL_CHECK(check_handle(zcc));
    ZCOLL_CHECK(check_buffer(sendbuf, "sendbuf", false));
    ZCOLL_CHECK(check_buffer(recvbuf, "recvbuf", false));
    return zcc->nccl.allreduce(zcc->zc->tp->comm(), sendbuf, recvbuf, count, datatype, op, stream);
  });
}

}  // extern "C"
