// comm.h — the zcoll_comm handle and the one internal path every public
// collective goes through (dispatch.cc): validate, select mode and algorithm,
// agree on settings and the error bound, run, report.
#pragma once

#include <mpi.h>

#include <memory>
#include <vector>

#include "coll/datapath/context.h"
#include "transport/mpi_transport.h"
#include "zcoll_tuner.h"

namespace zcoll::coll {
class Progress;  // the nonblocking calls' queue and thread (nonblocking.cc)
struct ProgressDeleter {
  void operator()(Progress* p) const;
};
}  // namespace zcoll::coll

struct zcoll_comm {
  std::unique_ptr<zcoll::transport::MpiTransport> tp;
  zcoll_comm_config cfg;
  // per-call settings (sticky until changed)
  zcoll_mode mode = ZCOLL_MODE_DEFAULT;
  zcoll_algorithm algorithm[ZCOLL_MAX_COLLECTIVES] = {};  // per collective; AUTO = none
  bool eb_set = false;
  zcoll_eb_mode eb_mode = ZCOLL_EB_REL;
  double error_bound = 0;
  bool average = false;
  // zcoll_comm_set_shape: the shape of one rank's block in the data-movement
  // collectives, slowest dim first (0 dims: none)
  uint32_t shape_ndims = 0;
  uint64_t shape_dims[ZCOLL_MAX_DIMS] = {};
  // reusable state
  zcoll::coll::Workspace ws;
  std::vector<size_t> counts, displs;
  // cached expected quantum of (dtype, eb, chunk)
  zcoll_dtype q_dtype = ZCOLL_FLOAT32;
  double q_eb = -1;
  uint32_t q_chunk = 0;
  double q_quantum = 0;
  zcoll_report report{};
  // cost model (mode AUTO): fixed parameters (tune file, environment; NaN =
  // unset) and the complete model once probed / set
  zcoll_model model_fixed{};
  zcoll_model model{};
  bool model_ready = false;
  // AUTO: the last agreed ratio estimate per collective, with the settings it
  // was made under (same on every rank: it comes from the settings allreduce)
  struct RatioMemo {
    double ratio = 0;        // 0: none
    double ratio_dense = 0;  // the dense codec's (ZCOLL_CODEC=auto; 0: none)
    int calls = 0;           // calls decided from it since
    zcoll_dtype dtype = ZCOLL_FLOAT32;
    int eb_mode = -1;
    double eb = 0;
  };
  RatioMemo ratio_memo[ZCOLL_MAX_COLLECTIVES];  // by zcoll_collective
  // AUTO on a single node: -1 not known yet, 0 ranks span nodes (or
  // ZCOLL_AUTO_LOCAL=model), 1 all ranks share one node (AUTO runs MPI)
  int single_node = -1;
  bool local_model = false;        // ZCOLL_AUTO_LOCAL=model, read at creation
  bool rel_range_sampled = false;  // ZCOLL_REL_RANGE=sampled, read at creation
  // A device handle's backend (data_ops.h, zcoll_cuda.h); null for host buffers.
  zcoll::coll::DeviceBackend* device = nullptr;
  // calls made on the handle (the same count on every rank): the tag epoch
  uint64_t calls = 0;
  // Nonblocking calls (nonblocking.h): whether they get a progress thread
  // (MPI_THREAD_MULTIPLE and ZCOLL_PROGRESS=thread, decided at creation), and
  // the queue and thread, made at the first one.
  bool progress_thread = false;
  bool progress_inline_asked = false;  // ZCOLL_PROGRESS=inline (no notice)
  std::unique_ptr<zcoll::coll::Progress, zcoll::coll::ProgressDeleter> progress;
  // bfloat16/float16 calls (half_call.h): the float32 copies of the input and
  // of the receive buffer, reused across calls
  std::vector<float> half_send, half_recv;
};

namespace zcoll::coll {

struct Call {
  zcoll_collective coll = ZCOLL_COLL_NONE;
  const void* sendbuf = nullptr;
  void* recvbuf = nullptr;
  size_t count = 0;
  const size_t* recvcounts = nullptr;  // reduce_scatter counts variant
  bool block = false;                  // reduce_scatter block variant
  MPI_Datatype datatype = MPI_DATATYPE_NULL;
  MPI_Op op = MPI_OP_NULL;
  int root = 0;
  // A float32 call standing for a call on 16-bit buffers (half_call.h): their
  // zcoll_dtype (ZCOLL_BFLOAT16 / ZCOLL_FLOAT16), agreed on as the datatype;
  // 0: none
  int values16 = 0;

  // The arguments of one public collective call, as the dispatcher takes them
  // (the blocking and the nonblocking API both build their calls here).
  static Call of(zcoll_collective coll, const void* sendbuf, void* recvbuf, size_t count,
                 MPI_Datatype datatype, MPI_Op op = MPI_OP_NULL, int root = 0) {
    Call k;
    k.coll = coll;
    k.sendbuf = sendbuf;
    k.recvbuf = recvbuf;
    k.count = count;
    k.datatype = datatype;
    k.op = op;
    k.root = root;
    return k;
  }
};

// The one path of every public collective (dispatch.cc).
zcoll_status run_call(zcoll_comm* zc, const Call& call);

// The MPI library's collective for the call (native.cc); average divides a
// SUM by the communicator size.
zcoll_status run_native(zcoll_comm* zc, const Call& call, bool average, zcoll_dtype dtype);

}  // namespace zcoll::coll
