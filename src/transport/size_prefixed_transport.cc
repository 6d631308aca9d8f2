// size_prefixed_transport.cc — capacity receives over exact-size ones
// (size_prefixed_transport.h).
#include "transport/size_prefixed_transport.h"

#include "core/error.h"
#include "transport/clock.h"

namespace zcoll::transport {

namespace {
struct Timer {  // adds the seconds of its scope to *acc
  double* acc;
  double t0;
  explicit Timer(double* a) : acc(a), t0(now_seconds()) {}
  ~Timer() { *acc += now_seconds() - t0; }
};
void put_le64(uint8_t* p, uint64_t v) {
  for (int i = 0; i < 8; ++i) p[i] = static_cast<uint8_t>(v >> (8 * i));
}
uint64_t get_le64(const uint8_t* p) {
  uint64_t v = 0;
  for (int i = 0; i < 8; ++i) v |= static_cast<uint64_t>(p[i]) << (8 * i);
  return v;
}
}  // namespace

SizePrefixedTransport::SizePrefixedTransport(Transport* inner) : inner_(inner) {}

SizePrefixedTransport::SizePrefixedTransport(std::unique_ptr<Transport> inner)
    : owned_(std::move(inner)), inner_(owned_.get()) {}

Req SizePrefixedTransport::take() {
  Req r;
  if (!free_.empty()) {
    r = free_.back();
    free_.pop_back();
  } else {
    r = static_cast<Req>(ops_.size());
    ops_.emplace_back();
  }
  ops_[r] = Op{};
  ops_[r].active = true;
  return r;
}

void SizePrefixedTransport::release(Req r) {
  ops_[r].active = false;
  ops_[r].sink = std::vector<uint8_t>();
  free_.push_back(r);
}

size_t SizePrefixedTransport::active_requests() const {
  size_t n = 0;
  for (const Op& op : ops_) n += op.active;
  return n;
}

zcoll_status SizePrefixedTransport::isend(const void* buf, size_t bytes, int peer, int tag,
                                          Req* req) {
  Timer t(&time_in_calls);
  const Req r = take();
  Op& op = ops_[r];
  op.bytes = bytes;
  put_le64(op.size_bytes, bytes);
  zcoll_status st = inner_->isend(op.size_bytes, 8, peer, tag, &op.size_req);
  if (st != ZCOLL_SUCCESS) {
    release(r);
    return st;
  }
  // (a failed payload send leaves the size's request to end_call)
  if (bytes) ZCOLL_CHECK(inner_->isend(buf, bytes, peer, tag, &op.payload_req));
  bytes_sent += bytes;
  if (first_send_at == 0) first_send_at = now_seconds();
  *req = r;
  return ZCOLL_SUCCESS;
}

zcoll_status SizePrefixedTransport::irecv(void* buf, size_t capacity, int peer, int tag, Req* req) {
  Timer t(&time_in_calls);
  const Req r = take();
  Op& op = ops_[r];
  op.is_recv = true;
  op.buf = buf;
  op.capacity = capacity;
  op.peer = peer;
  op.tag = tag;
  std::deque<Req>& q = channels_[{peer, tag}];
  q.push_back(r);
  *req = r;
  return q.size() == 1 ? post_size(r) : ZCOLL_SUCCESS;
}

zcoll_status SizePrefixedTransport::post_size(Req r) {
  Op& op = ops_[r];
  op.state = State::kSize;
  return inner_->irecv(op.size_bytes, 8, op.peer, op.tag, &op.size_req);
}

zcoll_status SizePrefixedTransport::size_arrived(Req r) {
  Op& op = ops_[r];
  size_t n = 0;
  ZCOLL_CHECK(inner_->wait(op.size_req, &n));
  op.size_req = kNoReq;
  if (n != 8) return fail(ZCOLL_ERR_INTERNAL, "a size prefix of %zu bytes (8 expected)", n);
  op.bytes = get_le64(op.size_bytes);
  op.too_big = op.bytes > op.capacity;
  if (op.too_big) op.sink.resize(op.bytes);  // received all the same: the channel stays in step
  void* dst = op.too_big ? op.sink.data() : op.buf;
  op.state = op.bytes ? State::kPayload : State::kDone;
  if (op.bytes) ZCOLL_CHECK(inner_->irecv(dst, op.bytes, op.peer, op.tag, &op.payload_req));
  // the channel's next receive may take the next size now
  auto it = channels_.find({op.peer, op.tag});
  it->second.pop_front();
  if (it->second.empty()) {
    channels_.erase(it);
    return ZCOLL_SUCCESS;
  }
  return post_size(it->second.front());
}

zcoll_status SizePrefixedTransport::poll_sizes() {
  scratch_.clear();
  for (const auto& [ch, q] : channels_) scratch_.push_back(q.front());
  for (Req head : scratch_) {
    // a channel's sizes that are in already, one after the other
    for (Req r = head; r != kNoReq;) {
      bool done = false;
      ZCOLL_CHECK(inner_->test(ops_[r].size_req, &done));
      if (!done) break;
      const Channel ch{ops_[r].peer, ops_[r].tag};
      ZCOLL_CHECK(size_arrived(r));
      auto it = channels_.find(ch);
      r = it == channels_.end() ? kNoReq : it->second.front();
    }
  }
  return ZCOLL_SUCCESS;
}

bool SizePrefixedTransport::complete(const Op& op, zcoll_status* st) {
  bool done = true;
  *st = ZCOLL_SUCCESS;
  if (op.is_recv && (op.state == State::kQueued || op.state == State::kSize)) return false;
  for (Req q : {op.size_req, op.payload_req}) {
    if (q == kNoReq || !done) continue;
    *st = inner_->test(q, &done);
    if (*st != ZCOLL_SUCCESS) return false;
  }
  return done;
}

zcoll_status SizePrefixedTransport::pending_of(const Op& op, std::vector<Req>* out) {
  // a receive before its payload waits on its channel's sizes (block_once adds them)
  if (op.is_recv && op.state != State::kPayload) return ZCOLL_SUCCESS;
  for (Req q : {op.size_req, op.payload_req}) {
    bool done = q == kNoReq;
    if (!done) ZCOLL_CHECK(inner_->test(q, &done));
    if (!done) out->push_back(q);
  }
  return ZCOLL_SUCCESS;
}

zcoll_status SizePrefixedTransport::block_once(const std::vector<Req>& wanted) {
  std::vector<Req> any(wanted);
  for (const auto& [ch, q] : channels_) any.push_back(ops_[q.front()].size_req);
  // (nothing to wait for: what the caller waits for completed since it looked)
  int index = -1;
  if (!any.empty()) ZCOLL_CHECK(inner_->wait_any(any.data(), static_cast<int>(any.size()), &index));
  return poll_sizes();
}

zcoll_status SizePrefixedTransport::wait(Req r, size_t* bytes) {
  if (r == kNoReq) {
    if (bytes) *bytes = 0;
    return ZCOLL_SUCCESS;
  }
  Timer t(&time_in_calls);
  ZCOLL_CHECK(poll_sizes());
  std::vector<Req> wanted;
  for (zcoll_status st = ZCOLL_SUCCESS; !complete(ops_[r], &st);) {
    if (st != ZCOLL_SUCCESS) return st;
    wanted.clear();
    ZCOLL_CHECK(pending_of(ops_[r], &wanted));
    ZCOLL_CHECK(block_once(wanted));
  }
  Op& op = ops_[r];
  // release the inner requests (complete: these waits return at once)
  for (Req* q : {&op.size_req, &op.payload_req}) {
    if (*q == kNoReq) continue;
    ZCOLL_CHECK(inner_->wait(*q, nullptr));
    *q = kNoReq;
  }
  const size_t n = op.bytes;
  const bool too_big = op.too_big, is_recv = op.is_recv;
  const size_t capacity = op.capacity;
  release(r);
  if (bytes) *bytes = n;
  if (is_recv) last_recv_at = now_seconds();
  if (too_big)
    return fail(ZCOLL_ERR_BUFFER_TOO_SMALL, "a message of %zu bytes for a receive of %zu", n,
                capacity);
  return ZCOLL_SUCCESS;
}

zcoll_status SizePrefixedTransport::test(Req r, bool* done) {
  *done = true;
  if (r == kNoReq) return ZCOLL_SUCCESS;
  Timer t(&time_in_calls);
  ZCOLL_CHECK(poll_sizes());
  zcoll_status st = ZCOLL_SUCCESS;
  *done = complete(ops_[r], &st);
  return st;
}

zcoll_status SizePrefixedTransport::wait_any(const Req* reqs, int n, int* index) {
  *index = -1;
  Timer t(&time_in_calls);
  std::vector<Req> wanted;
  for (;;) {
    ZCOLL_CHECK(poll_sizes());
    wanted.clear();
    bool any = false;
    for (int i = 0; i < n; ++i) {
      if (reqs[i] == kNoReq) continue;
      any = true;
      zcoll_status st = ZCOLL_SUCCESS;
      if (complete(ops_[reqs[i]], &st)) {
        *index = i;
        return ZCOLL_SUCCESS;
      }
      if (st != ZCOLL_SUCCESS) return st;
      ZCOLL_CHECK(pending_of(ops_[reqs[i]], &wanted));
    }
    if (!any) return ZCOLL_SUCCESS;
    ZCOLL_CHECK(block_once(wanted));
  }
}

void SizePrefixedTransport::progress() {
  Timer t(&time_in_calls);
  inner_->progress();
  poll_sizes();  // a failure shows at the wait
}

zcoll_status SizePrefixedTransport::begin_call(int data_tag, int notice_tag) {
  return inner_->begin_call(data_tag, notice_tag);
}

void SizePrefixedTransport::abort_call(zcoll_status status) { inner_->abort_call(status); }

zcoll_status SizePrefixedTransport::end_call(bool failed) {
  const zcoll_status st = inner_->end_call(failed);
  if (failed) {  // the inner transport dropped the call's requests: forget them
    for (size_t r = 0; r < ops_.size(); ++r)
      if (ops_[r].active) release(static_cast<Req>(r));
    channels_.clear();
  }
  return st;
}

zcoll_status SizePrefixedTransport::allreduce_max(double* values, int n) {
  Timer t(&time_in_calls);
  return inner_->allreduce_max(values, n);
}

zcoll_status SizePrefixedTransport::allgather_u64(const uint64_t* mine, int k, uint64_t* all) {
  Timer t(&time_in_calls);
  return inner_->allgather_u64(mine, k, all);
}

zcoll_status SizePrefixedTransport::barrier() { return inner_->barrier(); }

zcoll_status SizePrefixedTransport::baseline_allreduce(const void* in, void* out, size_t count,
                                                       zcoll_dtype dtype) {
  return inner_->baseline_allreduce(in, out, count, dtype);
}

zcoll_status SizePrefixedTransport::split(int color, int key, std::unique_ptr<Transport>* out) {
  std::unique_ptr<Transport> sub;
  ZCOLL_CHECK(inner_->split(color, key, &sub));
  if (sub)
    *out = std::make_unique<SizePrefixedTransport>(std::move(sub));
  else
    out->reset();
  return ZCOLL_SUCCESS;
}

}  // namespace zcoll::transport
