// api_nonblocking.cc — the nonblocking half of the C API (zcoll_mpi.h, "Since
// 1.1"): zcoll_iallreduce & co., each the arguments of its blocking twin put
// into a Call and started through start_call (nonblocking.cc); and the request
// calls zcoll_test, zcoll_wait, zcoll_request_free.
#include "coll/control/comm.h"
#include "coll/api/nonblocking.h"
#include "core/error.h"
#include "core/struct_io.h"

using zcoll::fail;
using zcoll::coll::Call;

namespace {

constexpr size_t kReportV1 = ZCOLL_STRUCT_V1_SIZE(zcoll_report, ratio_estimate);


// Every nonblocking collective enters here: the handle and the request
// pointer are checked at the start; everything else is the request's outcome.
zcoll_status start(zcoll_comm* zc, const Call& k, zcoll_request** request) noexcept {
  return zcoll::guarded("zcoll nonblocking collective", [&] {
    zcoll::clear_error();
    if (request) *request = nullptr;
    if (!zc || !zc->tp) return fail(ZCOLL_ERR_INVALID_ARG, "zcoll_comm is NULL");
    if (!request) return fail(ZCOLL_ERR_INVALID_ARG, "request is NULL");
    return zcoll::coll::start_call(zc, k, request);
  });
}

}  // namespace

extern "C" {

zcoll_status zcoll_iallreduce(zcoll_comm* zc, const void* sendbuf, void* recvbuf, size_t count,
                              MPI_Datatype datatype, MPI_Op op, zcoll_request** request) {
  return start(zc, Call::of(ZCOLL_COLL_ALLREDUCE, sendbuf, recvbuf, count, datatype, op), request);
}

zcoll_status zcoll_ireduce_scatter_block(zcoll_comm* zc, const void* sendbuf, void* recvbuf,
                                         size_t recvcount, MPI_Datatype datatype, MPI_Op op,
                                         zcoll_request** request) {
  Call k = Call::of(ZCOLL_COLL_REDUCE_SCATTER, sendbuf, recvbuf, recvcount, datatype, op);
  k.block = true;
  return start(zc, k, request);
}

zcoll_status zcoll_ireduce_scatter(zcoll_comm* zc, const void* sendbuf, void* recvbuf,
                                   const size_t* recvcounts, MPI_Datatype datatype, MPI_Op op,
                                   zcoll_request** request) {
  Call k = Call::of(ZCOLL_COLL_REDUCE_SCATTER, sendbuf, recvbuf, 0, datatype, op);
  k.recvcounts = recvcounts;
  if (zc && zc->tp && recvcounts) k.count = recvcounts[zc->tp->rank()];
  return start(zc, k, request);
}

zcoll_status zcoll_iallgather(zcoll_comm* zc, const void* sendbuf, void* recvbuf, size_t count,
                              MPI_Datatype datatype, zcoll_request** request) {
  return start(zc, Call::of(ZCOLL_COLL_ALLGATHER, sendbuf, recvbuf, count, datatype), request);
}

zcoll_status zcoll_ibcast(zcoll_comm* zc, void* buffer, size_t count, MPI_Datatype datatype,
                          int root, zcoll_request** request) {
  return start(zc, Call::of(ZCOLL_COLL_BCAST, buffer, buffer, count, datatype, MPI_OP_NULL, root),
               request);
}

zcoll_status zcoll_iscatter(zcoll_comm* zc, const void* sendbuf, void* recvbuf, size_t count,
                            MPI_Datatype datatype, int root, zcoll_request** request) {
  return start(zc,
               Call::of(ZCOLL_COLL_SCATTER, sendbuf, recvbuf, count, datatype, MPI_OP_NULL, root),
               request);
}

zcoll_status zcoll_ireduce(zcoll_comm* zc, const void* sendbuf, void* recvbuf, size_t count,
                           MPI_Datatype datatype, MPI_Op op, int root, zcoll_request** request) {
  return start(zc, Call::of(ZCOLL_COLL_REDUCE, sendbuf, recvbuf, count, datatype, op, root),
               request);
}

zcoll_status zcoll_igather(zcoll_comm* zc, const void* sendbuf, void* recvbuf, size_t count,
                           MPI_Datatype datatype, int root, zcoll_request** request) {
  return start(zc,
               Call::of(ZCOLL_COLL_GATHER, sendbuf, recvbuf, count, datatype, MPI_OP_NULL, root),
               request);
}

zcoll_status zcoll_test(zcoll_request* request, int* done) {
  zcoll::clear_error();
  if (!request || !done) return fail(ZCOLL_ERR_INVALID_ARG, "NULL argument");
  *done = zcoll::coll::request_done(request) ? 1 : 0;
  if (!*done) return ZCOLL_SUCCESS;
  return zcoll::coll::request_result(request, nullptr);
}

zcoll_status zcoll_wait(zcoll_request* request, zcoll_report* report) {
  zcoll::clear_error();
  if (!request) return fail(ZCOLL_ERR_INVALID_ARG, "request is NULL");
  if (report) ZCOLL_CHECK(zcoll::check_out_struct(report, kReportV1, "zcoll_report"));
  zcoll::coll::wait_request(request);
  zcoll_report rep{};
  const zcoll_status s = zcoll::coll::request_result(request, &rep);
  if (report) zcoll::write_struct(report, rep);
  return s;
}

zcoll_status zcoll_request_free(zcoll_request* request) {
  zcoll::clear_error();
  if (request) zcoll::coll::release_request(request);
  return ZCOLL_SUCCESS;
}

zcoll_status zcoll_comm_progress(const zcoll_comm* zc, int* threaded) {
  zcoll::clear_error();
  if (!zc || !threaded) return fail(ZCOLL_ERR_INVALID_ARG, "NULL argument");
  *threaded = zc->progress_thread ? 1 : 0;
  return ZCOLL_SUCCESS;
}

}  // extern "C"
