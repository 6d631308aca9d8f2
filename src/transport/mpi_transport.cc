// mpi_transport.cc — Transport over MPI point-to-point.
#include "transport/mpi_transport.h"

#include <algorithm>
#include <climits>

#include "core/error.h"
#include "transport/clock.h"

namespace zcoll::transport {

const char* mpi_error_text(int code) {
  thread_local char buf[MPI_MAX_ERROR_STRING + 1];
  int len = 0;
  if (MPI_Error_string(code, buf, &len) != MPI_SUCCESS) return "unknown MPI error";
  buf[len] = '\0';
  return buf;
}

#define ZCOLL_MPI_CALL(call)                                                        \
  do {                                                                              \
    int zcoll_mpi_rc_ = (call);                                                     \
    if (zcoll_mpi_rc_ != MPI_SUCCESS)                                               \
      return fail(ZCOLL_ERR_MPI, "%s:%d: %s failed: %s", __FILE__, __LINE__, #call, \
                  mpi_error_text(zcoll_mpi_rc_));                                   \
  } while (0)

namespace {
struct CallTimer {
  double* acc;
  double t0;
  explicit CallTimer(double* a) : acc(a), t0(now_seconds()) {}
  ~CallTimer() { *acc += now_seconds() - t0; }
};
}  // namespace

MpiTransport::MpiTransport(MPI_Comm comm) : comm_(comm) {
  MPI_Comm_rank(comm_, &rank_);
  MPI_Comm_size(comm_, &size_);
  slots_.reserve(64);
  free_.reserve(64);
  active_.reserve(64);
}

MpiTransport::~MpiTransport() {
  if (comm_ != MPI_COMM_NULL) {
    int finalized = 0;
    MPI_Finalized(&finalized);
    if (!finalized) MPI_Comm_free(&comm_);
  }
}

zcoll_status MpiTransport::release() {
  if (comm_ == MPI_COMM_NULL) return ZCOLL_SUCCESS;
  ZCOLL_MPI_CALL(MPI_Comm_free(&comm_));
  comm_ = MPI_COMM_NULL;
  return ZCOLL_SUCCESS;
}

Req MpiTransport::take_slot() {
  Req r;
  if (!free_.empty()) {
    r = free_.back();
    free_.pop_back();
  } else {
    r = static_cast<Req>(slots_.size());
    slots_.emplace_back();
  }
  slots_[r] = Slot{};
  slots_[r].active = true;
  active_.push_back(r);
  return r;
}

void MpiTransport::put_slot(Req r) {
  slots_[r].active = false;
  auto it = std::find(active_.begin(), active_.end(), r);
  if (it != active_.end()) {
    *it = active_.back();
    active_.pop_back();
  }
  free_.push_back(r);
}

// Complete the sends in flight that have finished, up to the first that has
// not (their slots stay owned until wait()). Only the SimGrid
// simulation needs it: SimGrid 3.32 keeps an actor's unwaited communications
// in a list that it scans on every completion, so the thousands of sends that
// an algorithm waits for only at its end make a 512-rank run quadratic.
void MpiTransport::reap_sends() {
  for (Req r : active_) {
    Slot& s = slots_[r];
    if (s.done || s.is_recv) continue;
    int flag = 0;
    MPI_Status st;
    if (MPI_Test(&s.req, &flag, &st) != MPI_SUCCESS || !flag) return;
    finish(s, st);
  }
}

zcoll_status MpiTransport::isend(const void* buf, size_t bytes, int peer, int tag, Req* req) {
  CallTimer t(&time_in_calls);
#ifdef ZCOLL_WITH_SMPI
  reap_sends();
#endif
  Req r = take_slot();
  Slot& s = slots_[r];
  s.bytes = bytes;
#if MPI_VERSION >= 4
  int rc = MPI_Isend_c(buf, static_cast<MPI_Count>(bytes), MPI_BYTE, peer, tag, comm_, &s.req);
#else
  if (bytes > INT_MAX) {
    put_slot(r);
    return fail(ZCOLL_ERR_UNSUPPORTED, "message of %zu bytes needs MPI-4 large counts", bytes);
  }
  int rc = MPI_Isend(buf, static_cast<int>(bytes), MPI_BYTE, peer, tag, comm_, &s.req);
#endif
  if (rc != MPI_SUCCESS) {
    put_slot(r);
    return fail(ZCOLL_ERR_MPI, "MPI_Isend of %zu bytes to %d failed: %s", bytes, peer,
                mpi_error_text(rc));
  }
  bytes_sent += bytes;
  if (first_send_at == 0) first_send_at = now_seconds();
  *req = r;
  return ZCOLL_SUCCESS;
}

zcoll_status MpiTransport::irecv(void* buf, size_t capacity, int peer, int tag, Req* req) {
  CallTimer t(&time_in_calls);
  Req r = take_slot();
  Slot& s = slots_[r];
  s.is_recv = true;
#if MPI_VERSION >= 4
  int rc = MPI_Irecv_c(buf, static_cast<MPI_Count>(capacity), MPI_BYTE, peer, tag, comm_, &s.req);
#else
  if (capacity > INT_MAX) capacity = INT_MAX;
  int rc = MPI_Irecv(buf, static_cast<int>(capacity), MPI_BYTE, peer, tag, comm_, &s.req);
#endif
  if (rc != MPI_SUCCESS) {
    put_slot(r);
    return fail(ZCOLL_ERR_MPI, "MPI_Irecv of up to %zu bytes from %d failed: %s", capacity, peer,
                mpi_error_text(rc));
  }
  *req = r;
  return ZCOLL_SUCCESS;
}

zcoll_status MpiTransport::finish(Slot& s, MPI_Status& st) {
  s.done = true;
  if (s.is_recv) {
#if MPI_VERSION >= 4
    MPI_Count n = 0;
    MPI_Get_count_c(&st, MPI_BYTE, &n);
#else
    int n = 0;
    MPI_Get_count(&st, MPI_BYTE, &n);
#endif
    s.bytes = static_cast<size_t>(n);
  }
  return ZCOLL_SUCCESS;
}

zcoll_status MpiTransport::wait(Req r, size_t* bytes) {
  if (r == kNoReq) {
    if (bytes) *bytes = 0;
    return ZCOLL_SUCCESS;
  }
  CallTimer t(&time_in_calls);
  Slot& s = slots_[r];
  if (!s.done) {
    MPI_Status st;
    int rc = MPI_Wait(&s.req, &st);
    if (rc != MPI_SUCCESS) {
      put_slot(r);
      return fail(ZCOLL_ERR_MPI, "MPI_Wait failed: %s", mpi_error_text(rc));
    }
    finish(s, st);
  }
  if (bytes) *bytes = s.bytes;
  if (s.is_recv) last_recv_at = now_seconds();
  put_slot(r);
  return ZCOLL_SUCCESS;
}

zcoll_status MpiTransport::test(Req r, bool* done) {
  if (r == kNoReq) {
    *done = true;
    return ZCOLL_SUCCESS;
  }
  CallTimer t(&time_in_calls);
  Slot& s = slots_[r];
  if (!s.done) {
    int flag = 0;
    MPI_Status st;
    ZCOLL_MPI_CALL(MPI_Test(&s.req, &flag, &st));
    if (flag) finish(s, st);
  }
  *done = s.done;
  return ZCOLL_SUCCESS;
}

void MpiTransport::progress() {
  // One MPI_Test drives MPICH's (and Open MPI's) progress engine for every
  // outstanding request; test the first one that is still in flight.
  CallTimer t(&time_in_calls);
  for (Req r : active_) {
    Slot& s = slots_[r];
    if (s.done) continue;
    int flag = 0;
    MPI_Status st;
    if (MPI_Test(&s.req, &flag, &st) == MPI_SUCCESS && flag) finish(s, st);
    return;
  }
}

zcoll_status MpiTransport::allreduce_max(double* values, int n) {
  CallTimer t(&time_in_calls);
  ZCOLL_MPI_CALL(MPI_Allreduce(MPI_IN_PLACE, values, n, MPI_DOUBLE, MPI_MAX, comm_));
  return ZCOLL_SUCCESS;
}

zcoll_status MpiTransport::allgather_u64(const uint64_t* mine, int k, uint64_t* all) {
  CallTimer t(&time_in_calls);
  static_assert(sizeof(unsigned long long) == 8, "uint64 is unsigned long long");
  ZCOLL_MPI_CALL(
      MPI_Allgather(mine, k, MPI_UNSIGNED_LONG_LONG, all, k, MPI_UNSIGNED_LONG_LONG, comm_));
  return ZCOLL_SUCCESS;
}

}  // namespace zcoll::transport
