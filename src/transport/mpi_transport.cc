// mpi_transport.cc — Transport over MPI point-to-point.
#include "transport/mpi_transport.h"

#include <time.h>

#include <algorithm>
#include <climits>
#include <cstdio>
#include <vector>

#include "core/config.h"
#include "core/error.h"
#include "core/log.h"
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

void MpiTransport::set_wait_sleep(double seconds) {
  const double s = seconds > 0 ? std::min(seconds, 0.01) : 0;
  wait_sleep_ns_ = static_cast<long>(s * 1e9);
}

int MpiTransport::mpi_wait_any(int n, MPI_Request* reqs, int* which, MPI_Status* st) {
  if (wait_sleep_ns_ <= 0) return MPI_Waitany(n, reqs, which, st);
  const timespec pause{0, wait_sleep_ns_};
  for (;;) {
    int flag = 0;
    const int rc = MPI_Testany(n, reqs, which, &flag, st);
    if (rc != MPI_SUCCESS || flag) return rc;
    nanosleep(&pause, nullptr);
  }
}

MpiTransport::~MpiTransport() {
  if (comm_ != MPI_COMM_NULL) {
    int finalized = 0;
    MPI_Finalized(&finalized);
    if (!finalized) MPI_Comm_free(&comm_);
  }
}

zcoll_status MpiTransport::release() {
  drop_subgroups();
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
    int rc;
    if (notice_req_ != MPI_REQUEST_NULL) {  // the request, or a peer's abort notice
      MPI_Request two[2] = {s.req, notice_req_};
      int which = MPI_UNDEFINED;
      rc = mpi_wait_any(2, two, &which, &st);
      s.req = two[0];
      notice_req_ = two[1];
      if (rc == MPI_SUCCESS && which == 1) {
        aborted_ = notice_in_ ? static_cast<zcoll_status>(notice_in_) : ZCOLL_ERR_INTERNAL;
        return abort_error();  // the slot stays active: end_call cancels it
      }
    } else if (aborted_ != ZCOLL_SUCCESS) {  // a peer left this call: do not block
      int flag = 0;
      rc = MPI_Test(&s.req, &flag, &st);
      if (rc == MPI_SUCCESS && !flag) return abort_error();
    } else {
      int which = 0;
      rc = mpi_wait_any(1, &s.req, &which, &st);
    }
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

zcoll_status MpiTransport::abort_error() {
  return fail(aborted_, "another rank failed in this collective and left it (%s)",
              zcoll_status_string(aborted_));
}

zcoll_status MpiTransport::begin_call(int data_tag, int notice_tag) {
  data_tag_ = data_tag;
  notice_tag_ = notice_tag;
  aborted_ = ZCOLL_SUCCESS;
  notice_in_ = 0;
  if (size_ == 1) return ZCOLL_SUCCESS;
  CallTimer t(&time_in_calls);
  ZCOLL_MPI_CALL(
      MPI_Irecv(&notice_in_, 4, MPI_BYTE, MPI_ANY_SOURCE, notice_tag, comm_, &notice_req_));
  return ZCOLL_SUCCESS;
}

void MpiTransport::abort_call(zcoll_status status) {
  // A rank that got a notice has nothing to add: the sender told everyone.
  if (aborted_ != ZCOLL_SUCCESS || size_ == 1) {
    if (aborted_ == ZCOLL_SUCCESS) aborted_ = status;
    return;
  }
  aborted_ = status;
  CallTimer t(&time_in_calls);
  notice_out_.assign(1, static_cast<uint32_t>(status));
  for (int p = 0; p < size_; ++p) {
    if (p == rank_) continue;
    MPI_Request q = MPI_REQUEST_NULL;
    if (MPI_Isend(notice_out_.data(), 4, MPI_BYTE, p, notice_tag_, comm_, &q) == MPI_SUCCESS)
      notice_sends_.push_back(q);
  }
}

zcoll_status MpiTransport::end_call(bool failed) {
  CallTimer t(&time_in_calls);
  zcoll_status st = ZCOLL_SUCCESS;
  auto note = [&](int rc, const char* what) {
    if (rc != MPI_SUCCESS && st == ZCOLL_SUCCESS)
      st = fail(ZCOLL_ERR_MPI, "%s failed: %s", what, mpi_error_text(rc));
  };
  if (notice_req_ != MPI_REQUEST_NULL) {  // no notice came: retire the receive
    note(MPI_Cancel(&notice_req_), "MPI_Cancel");
    note(MPI_Wait(&notice_req_, MPI_STATUS_IGNORE), "MPI_Wait");
  }
  // 4-byte notices go eagerly; one a peer never receives is released (it
  // matches nothing: the communicator is replaced below)
  for (MPI_Request& q : notice_sends_) {
    int flag = 0;
    if (MPI_Test(&q, &flag, MPI_STATUS_IGNORE) != MPI_SUCCESS || !flag) MPI_Request_free(&q);
  }
  notice_sends_.clear();
  const int notice_tag = notice_tag_;
  notice_tag_ = -1;
  if (!failed) return st;
  // The failed call's requests: receives cancelled (or completed, if matched
  // already), sends released.
  for (Req r : std::vector<Req>(active_)) {
    Slot& s = slots_[r];
    if (!s.done && s.req != MPI_REQUEST_NULL) {
      if (s.is_recv) {
        note(MPI_Cancel(&s.req), "MPI_Cancel");
        note(MPI_Wait(&s.req, MPI_STATUS_IGNORE), "MPI_Wait");
      } else {  // completes when its receiver drains it (below)
        note(MPI_Request_free(&s.req), "MPI_Request_free");
      }
    }
    put_slot(r);
  }
  // Messages of the call that arrived unreceived (sent before a cancel could
  // catch them): received and dropped once every rank has cancelled, so that
  // none waits in a queue of the old communicator, whose context MPI may
  // reuse for a later one.
  note(MPI_Barrier(comm_), "MPI_Barrier");
  std::vector<uint8_t> sink;
  for (int tag : {data_tag_, notice_tag}) {
    for (;;) {
      int flag = 0;
      MPI_Status ps;
      if (MPI_Iprobe(MPI_ANY_SOURCE, tag, comm_, &flag, &ps) != MPI_SUCCESS || !flag) break;
      int bytes = 0;
      MPI_Get_count(&ps, MPI_BYTE, &bytes);
      sink.resize(static_cast<size_t>(bytes > 0 ? bytes : 1));
      if (MPI_Recv(sink.data(), bytes, MPI_BYTE, ps.MPI_SOURCE, tag, comm_, MPI_STATUS_IGNORE) !=
          MPI_SUCCESS)
        break;
    }
  }
  // A fresh communicator as well (every rank is here: the failure was agreed).
  MPI_Comm fresh = MPI_COMM_NULL;
  int rc = MPI_Comm_dup(comm_, &fresh);
  note(rc, "MPI_Comm_dup");
  if (rc == MPI_SUCCESS) {
    note(MPI_Comm_free(&comm_), "MPI_Comm_free");
    comm_ = fresh;
  }
  aborted_ = ZCOLL_SUCCESS;
  return st;
}

zcoll_status MpiTransport::allgather_u64(const uint64_t* mine, int k, uint64_t* all) {
  CallTimer t(&time_in_calls);
  static_assert(sizeof(unsigned long long) == 8, "uint64 is unsigned long long");
  ZCOLL_MPI_CALL(
      MPI_Allgather(mine, k, MPI_UNSIGNED_LONG_LONG, all, k, MPI_UNSIGNED_LONG_LONG, comm_));
  return ZCOLL_SUCCESS;
}

zcoll_status MpiTransport::wait_any(const Req* reqs, int n, int* index) {
  *index = -1;
  CallTimer t(&time_in_calls);
  std::vector<MPI_Request>& mr = wait_any_reqs_;
  std::vector<int>& pos = wait_any_pos_;
  mr.clear();
  pos.clear();
  for (int i = 0; i < n; ++i) {
    if (reqs[i] == kNoReq) continue;
    const Slot& s = slots_[reqs[i]];
    if (s.done) {
      *index = i;
      return ZCOLL_SUCCESS;
    }
    mr.push_back(s.req);
    pos.push_back(i);
  }
  if (mr.empty()) return ZCOLL_SUCCESS;
  const int k = static_cast<int>(mr.size());
  int which = MPI_UNDEFINED, rc = MPI_SUCCESS;
  MPI_Status st;
  if (notice_req_ != MPI_REQUEST_NULL) {  // the requests, or a peer's abort notice
    mr.push_back(notice_req_);
    rc = mpi_wait_any(k + 1, mr.data(), &which, &st);
    notice_req_ = mr[k];
    if (rc == MPI_SUCCESS && which == k) {
      aborted_ = notice_in_ ? static_cast<zcoll_status>(notice_in_) : ZCOLL_ERR_INTERNAL;
      return abort_error();
    }
  } else if (aborted_ != ZCOLL_SUCCESS) {  // a peer left this call: do not block
    int flag = 0;
    rc = MPI_Testany(k, mr.data(), &which, &flag, &st);
    if (rc == MPI_SUCCESS && !flag) return abort_error();
  } else {
    rc = mpi_wait_any(k, mr.data(), &which, &st);
  }
  for (int j = 0; j < k; ++j) slots_[reqs[pos[j]]].req = mr[j];
  if (rc != MPI_SUCCESS) return fail(ZCOLL_ERR_MPI, "MPI_Waitany failed: %s", mpi_error_text(rc));
  if (which < 0 || which >= k) return fail(ZCOLL_ERR_INTERNAL, "MPI_Waitany found no request");
  finish(slots_[reqs[pos[which]]], st);
  *index = pos[which];
  return ZCOLL_SUCCESS;
}

zcoll_status MpiTransport::barrier() {
  CallTimer t(&time_in_calls);
  ZCOLL_MPI_CALL(MPI_Barrier(comm_));
  return ZCOLL_SUCCESS;
}

zcoll_status MpiTransport::baseline_allreduce(const void* in, void* out, size_t count,
                                              zcoll_dtype dtype) {
  if (dtype != ZCOLL_FLOAT32 && dtype != ZCOLL_FLOAT64)
    return fail(ZCOLL_ERR_INVALID_ARG, "baseline_allreduce: float32 or float64 only");
  CallTimer t(&time_in_calls);
  const MPI_Datatype type = dtype == ZCOLL_FLOAT32 ? MPI_FLOAT : MPI_DOUBLE;
  const void* send = in == out ? MPI_IN_PLACE : in;
  if (count <= static_cast<size_t>(INT_MAX)) {
    ZCOLL_MPI_CALL(MPI_Allreduce(send, out, static_cast<int>(count), type, MPI_SUM, comm_));
    return ZCOLL_SUCCESS;
  }
#if MPI_VERSION >= 4
  ZCOLL_MPI_CALL(MPI_Allreduce_c(send, out, static_cast<MPI_Count>(count), type, MPI_SUM, comm_));
  return ZCOLL_SUCCESS;
#else
  return fail(ZCOLL_ERR_UNSUPPORTED, "an Allreduce of %zu values needs MPI-4 large counts", count);
#endif
}

// The ranks in `sub` of each rank of comm's group `of` (no communication).
static std::vector<int> ranks_in(MPI_Comm of, MPI_Comm sub) {
  MPI_Group g_of, g_sub;
  MPI_Comm_group(of, &g_of);
  MPI_Comm_group(sub, &g_sub);
  int n = 0;
  MPI_Group_size(g_sub, &n);
  std::vector<int> mine(n), there(n);
  for (int i = 0; i < n; ++i) mine[i] = i;
  MPI_Group_translate_ranks(g_sub, n, mine.data(), g_of, there.data());
  MPI_Group_free(&g_sub);
  MPI_Group_free(&g_of);
  return there;
}

// This process's entry of ZCOLL_NODE_MAP; *set = whether the map is set.
static zcoll_status node_map_label(int64_t* label, bool* set) {
  const char* map = nullptr;
  *set = false;
  ZCOLL_CHECK(config::get_path(config::kNodeMap, &map));
  if (!map) return ZCOLL_SUCCESS;
  *set = true;
  std::vector<int64_t> labels;
  ZCOLL_CHECK(parse_node_map(map, &labels));
  int world_rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
  if (static_cast<size_t>(world_rank) >= labels.size())
    return fail(ZCOLL_ERR_INVALID_ARG, "ZCOLL_NODE_MAP=%s: no entry for MPI_COMM_WORLD rank %d",
                map, world_rank);
  *label = labels[world_rank];
  return ZCOLL_SUCCESS;
}

zcoll_status MpiTransport::check_node_map() {
  int64_t label = 0;
  bool set = false;
  return node_map_label(&label, &set);
}

zcoll_status MpiTransport::locality(const Locality** out) {
  if (!located_) ZCOLL_CHECK(find_locality());
  *out = &locality_;
  return ZCOLL_SUCCESS;
}

zcoll_status MpiTransport::find_locality() {
  // The node's id: the lowest rank of this rank's shared-memory communicator
  // (the same on every rank of the node).
  MPI_Comm local = MPI_COMM_NULL;
  ZCOLL_MPI_CALL(MPI_Comm_split_type(comm_, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &local));
  const int lowest = ranks_in(comm_, local)[0];
  MPI_Comm_free(&local);
  // mine = {label, source}: source 0 shared memory, 1 ZCOLL_NODE_MAP, 2 a bad map
  int64_t mine[2] = {lowest, 0};
  bool set = false;
  char why[512] = "";
  if (node_map_label(&mine[0], &set) != ZCOLL_SUCCESS) {
    std::snprintf(why, sizeof why, "%s", zcoll_last_error());
    mine[1] = 2;
  } else if (set) {
    mine[1] = 1;
  }
  std::vector<int64_t> all(2 * static_cast<size_t>(size_));
  ZCOLL_MPI_CALL(MPI_Allgather(mine, 2, MPI_INT64_T, all.data(), 2, MPI_INT64_T, comm_));
  int from_map = 0, bad = 0;
  std::vector<int64_t> label(size_);
  for (int r = 0; r < size_; ++r) {
    label[r] = all[2 * r];
    from_map += all[2 * r + 1] == 1;
    bad += all[2 * r + 1] == 2;
  }
  if (bad) {
    if (mine[1] == 2) return fail(ZCOLL_ERR_INVALID_ARG, "%s", why);
    return fail(ZCOLL_ERR_INVALID_ARG, "another rank's ZCOLL_NODE_MAP is invalid");
  }
  if (from_map != 0 && from_map != size_)
    return fail(ZCOLL_ERR_MISMATCH, "ZCOLL_NODE_MAP is set on %d of %d ranks", from_map, size_);
  locality_ = Locality::from_labels(label, rank_);
  located_ = true;
  ZCOLL_LOG(log::kTrace, rank_, size_, "locality%s: %s", from_map ? " (ZCOLL_NODE_MAP)" : "",
            locality_.describe().c_str());
  return ZCOLL_SUCCESS;
}

zcoll_status MpiTransport::split(int color, int key, std::unique_ptr<Transport>* out) {
  out->reset();
  const Locality* l = nullptr;
  ZCOLL_CHECK(locality(&l));  // (collective the first time, as this call)
  MPI_Comm sub = MPI_COMM_NULL;
  ZCOLL_MPI_CALL(MPI_Comm_split(comm_, color < 0 ? MPI_UNDEFINED : color, key, &sub));
  if (sub == MPI_COMM_NULL) return ZCOLL_SUCCESS;
  MPI_Comm_set_errhandler(sub, MPI_ERRORS_RETURN);
  auto tp = std::make_unique<MpiTransport>(sub);
  tp->locality_ = Locality::subset(*l, ranks_in(comm_, sub), tp->rank_);
  tp->located_ = true;
  tp->wait_sleep_ns_ = wait_sleep_ns_;
  *out = std::move(tp);
  return ZCOLL_SUCCESS;
}

}  // namespace zcoll::transport
