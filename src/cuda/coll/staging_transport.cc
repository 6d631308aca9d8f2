// staging_transport.cc — device buffers over MPI through pinned host memory.
#include "cuda/coll/staging_transport.h"

#include "core/error.h"
#include "transport/clock.h"

namespace zcoll::cuda::coll {

namespace {
zcoll_status cuda_status(cudaError_t e, const char* what) {
  if (e == cudaSuccess) return ZCOLL_SUCCESS;
  return fail(ZCOLL_ERR_INTERNAL, "%s: %s", what, cudaGetErrorString(e));
}
}  // namespace

// Time in this transport's calls, staging included (dispatch resets and reads
// the accounting of the transport the algorithm ran on).
struct StagingTransport::Account {
  StagingTransport& t;
  double t0;
  explicit Account(StagingTransport& s) : t(s), t0(now_seconds()) {}
  ~Account() { t.time_in_calls += now_seconds() - t0; }
};

StagingTransport::StagingTransport(transport::Transport* inner, bool cuda_aware)
    : inner_(inner), cuda_aware_(cuda_aware) {}

StagingTransport::~StagingTransport() {
  for (Pinned& p : pinned_)
    if (p.p) cudaFreeHost(p.p);
}

void StagingTransport::remember(transport::Req req, Pending p) {
  if (pending_.size() <= static_cast<size_t>(req)) pending_.resize(req + 1);
  pending_[req] = p;
}

int StagingTransport::take_pinned(size_t bytes) {
  int best = -1;
  for (size_t i = 0; i < pinned_.size(); ++i) {
    if (pinned_busy_[i]) continue;
    if (pinned_[i].cap >= bytes) {
      best = static_cast<int>(i);
      break;
    }
    if (best < 0) best = static_cast<int>(i);
  }
  if (best < 0) {
    pinned_.push_back({});
    pinned_busy_.push_back(false);
    best = static_cast<int>(pinned_.size() - 1);
  }
  Pinned& p = pinned_[best];
  if (p.cap < bytes) {
    if (p.p) cudaFreeHost(p.p);
    p.p = nullptr;
    p.cap = 0;
    const size_t want = bytes + bytes / 8 + 64;
    if (cudaMallocHost(&p.p, want) != cudaSuccess) return -1;
    p.cap = want;
  }
  pinned_busy_[best] = true;
  return best;
}

zcoll_status StagingTransport::isend(const void* buf, size_t bytes, int peer, int tag,
                                     transport::Req* req) {
  Account acct(*this);
  bytes_sent += bytes;
  if (first_send_at == 0) first_send_at = now_seconds();
  if (cuda_aware_) {
    // MPI reads buf from the host side: the work on the stream that writes it
    // (a compression, a reduction, a copy; the caller's own work on its
    // inputs) must be complete first
    ZCOLL_CHECK(cuda_status(cudaStreamSynchronize(stream_), "ordering a send after its stream"));
    return inner_->isend(buf, bytes, peer, tag, req);
  }
  const double t0 = now_seconds();
  const int k = take_pinned(bytes);
  if (k < 0) return fail(ZCOLL_ERR_NO_MEMORY, "cudaMallocHost of %zu bytes failed", bytes);
  // buf may be host memory (an error marker): cudaMemcpyDefault handles both
  zcoll_status s = cuda_status(
      cudaMemcpyAsync(pinned_[k].p, buf, bytes, cudaMemcpyDefault, stream_), "staging a send");
  if (s == ZCOLL_SUCCESS) s = cuda_status(cudaStreamSynchronize(stream_), "staging a send");
  staged_bytes += bytes;
  time_staging += now_seconds() - t0;
  if (s != ZCOLL_SUCCESS) {
    pinned_busy_[k] = false;
    return s;
  }
  s = inner_->isend(pinned_[k].p, bytes, peer, tag, req);
  if (s != ZCOLL_SUCCESS) {
    pinned_busy_[k] = false;
    return s;
  }
  if (*req >= 0)
    remember(*req, {k, nullptr, false});
  else
    pinned_busy_[k] = false;
  return ZCOLL_SUCCESS;
}

zcoll_status StagingTransport::irecv(void* buf, size_t capacity, int peer, int tag,
                                     transport::Req* req) {
  Account acct(*this);
  if (cuda_aware_) {
    // MPI writes buf from the host side: work on the stream that still reads
    // (or writes) it must be complete first
    ZCOLL_CHECK(cuda_status(cudaStreamSynchronize(stream_), "ordering a receive after its stream"));
    const zcoll_status s = inner_->irecv(buf, capacity, peer, tag, req);
    if (s == ZCOLL_SUCCESS && *req >= 0) remember(*req, {-1, nullptr, true});
    return s;
  }
  const int k = take_pinned(capacity);
  if (k < 0) return fail(ZCOLL_ERR_NO_MEMORY, "cudaMallocHost of %zu bytes failed", capacity);
  zcoll_status s = inner_->irecv(pinned_[k].p, capacity, peer, tag, req);
  if (s != ZCOLL_SUCCESS) {
    pinned_busy_[k] = false;
    return s;
  }
  if (*req >= 0)
    remember(*req, {k, buf, true});
  else
    pinned_busy_[k] = false;
  return ZCOLL_SUCCESS;
}

zcoll_status StagingTransport::wait(transport::Req req, size_t* bytes) {
  Account acct(*this);
  size_t got = 0;
  zcoll_status s = inner_->wait(req, &got);
  if (bytes) *bytes = got;
  if (req < 0 || static_cast<size_t>(req) >= pending_.size()) return s;
  Pending p = pending_[req];
  pending_[req] = {};
  if (p.recv && s == ZCOLL_SUCCESS) last_recv_at = now_seconds();
  if (p.pinned < 0) return s;
  if (s == ZCOLL_SUCCESS && p.dev && got > 0) {
    const double t0 = now_seconds();
    s = cuda_status(cudaMemcpyAsync(p.dev, pinned_[p.pinned].p, got, cudaMemcpyDefault, stream_),
                    "unstaging a receive");
    // the pinned buffer is reused at once: the copy must have read it
    if (s == ZCOLL_SUCCESS) s = cuda_status(cudaStreamSynchronize(stream_), "unstaging a receive");
    staged_bytes += got;
    time_staging += now_seconds() - t0;
  }
  pinned_busy_[p.pinned] = false;
  return s;
}

zcoll_status StagingTransport::test(transport::Req req, bool* done) {
  Account acct(*this);
  return inner_->test(req, done);
}

void StagingTransport::progress() {
  Account acct(*this);
  inner_->progress();
}

zcoll_status StagingTransport::allreduce_max(double* values, int n) {
  Account acct(*this);
  return inner_->allreduce_max(values, n);
}

zcoll_status StagingTransport::allgather_u64(const uint64_t* mine, int k, uint64_t* all) {
  Account acct(*this);
  return inner_->allgather_u64(mine, k, all);
}

zcoll_status StagingTransport::begin_call(int data_tag, int notice_tag) {
  return inner_->begin_call(data_tag, notice_tag);
}

void StagingTransport::abort_call(zcoll_status status) { inner_->abort_call(status); }

zcoll_status StagingTransport::end_call(bool failed) {
  const zcoll_status s = inner_->end_call(failed);
  // every request of the call is complete or cancelled now: its buffers are free
  for (Pending& p : pending_) {
    if (p.pinned >= 0) pinned_busy_[p.pinned] = false;
    p = {};
  }
  return s;
}

}  // namespace zcoll::cuda::coll
