// thread_transport.cc — in-process Transport (ranks as threads).
#include "thread_transport.h"

#include <algorithm>
#include <cstring>

#include "core/error.h"

namespace zcoll::transport {

ThreadFabric::ThreadFabric(int size, std::vector<int64_t> node_labels, Options options)
    : rank_cv_(size),
      size_(size),
      slots_(size),
      labels_(node_labels.empty() ? std::vector<int64_t>(size, 0) : std::move(node_labels)),
      options_(options),
      mismatches_(std::make_shared<std::atomic<long>>(0)),
      split_in_(size) {}

void ThreadFabric::wake_all() {
  cv_.notify_all();
  for (std::condition_variable& cv : rank_cv_) cv.notify_all();
}

std::shared_ptr<ThreadFabric> ThreadFabric::split(int rank, int color, int key, int* sub_rank) {
  std::unique_lock<std::mutex> lk(mu_);
  split_in_[rank] = {color, key};
  barrier(lk);
  std::vector<int> members;  // this color's ranks, by (key, rank)
  for (int r = 0; r < size_; ++r)
    if (color >= 0 && split_in_[r].first == color) members.push_back(r);
  std::stable_sort(members.begin(), members.end(),
                   [&](int a, int b) { return split_in_[a].second < split_in_[b].second; });
  *sub_rank = -1;
  for (size_t i = 0; i < members.size(); ++i)
    if (members[i] == rank) *sub_rank = static_cast<int>(i);
  if (*sub_rank == 0) {  // the color's first rank makes its fabric
    std::vector<int64_t> labels;
    for (int m : members) labels.push_back(labels_[m]);
    auto f = std::make_shared<ThreadFabric>(static_cast<int>(members.size()), labels, options_);
    f->mismatches_ = mismatches_;
    split_out_[color] = f;
  }
  barrier(lk);
  std::shared_ptr<ThreadFabric> out = color >= 0 ? split_out_[color] : nullptr;
  barrier(lk);
  if (rank == 0) split_out_.clear();  // everyone has its own (the next split waits above)
  return out;
}

void ThreadFabric::barrier(std::unique_lock<std::mutex>& lk) {
  const uint64_t gen = generation_;
  if (++arrived_ == size_) {
    arrived_ = 0;
    ++generation_;
    cv_.notify_all();
  } else {
    cv_.wait(lk, [&] { return generation_ != gen; });
  }
}

ThreadTransport::ThreadTransport(std::shared_ptr<ThreadFabric> fabric, int rank)
    : fabric_(std::move(fabric)),
      rank_(rank),
      locality_(Locality::from_labels(fabric_->labels_, rank)) {}

zcoll_status ThreadTransport::split(int color, int key, std::unique_ptr<Transport>* out) {
  int sub_rank = -1;
  std::shared_ptr<ThreadFabric> f = fabric_->split(rank_, color, key, &sub_rank);
  if (f)
    *out = std::make_unique<ThreadTransport>(std::move(f), sub_rank);
  else
    out->reset();
  return ZCOLL_SUCCESS;
}

Req ThreadTransport::take() {
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
  return r;
}

zcoll_status ThreadTransport::isend(const void* buf, size_t bytes, int peer, int tag, Req* req) {
  if (peer < 0 || peer >= size()) return fail(ZCOLL_ERR_INVALID_ARG, "peer %d out of range", peer);
  Req r = take();
  Slot& s = slots_[r];
  s.bytes = bytes;
  bytes_sent += bytes;
  {
    std::lock_guard<std::mutex> lk(fabric_->mu_);
    ThreadFabric::Key key{peer, rank_, tag};
    auto& posted = fabric_->posted_[key];
    if (!posted.empty()) {
      ThreadFabric::PendingRecv p = posted.front();
      posted.pop_front();
      if (bytes > p.capacity) {
        *p.overflow = true;
      } else {
        if (bytes) std::memcpy(p.buf, buf, bytes);
      }
      *p.bytes = bytes;
      *p.done = true;
      s.done = true;
      fabric_->rank_cv_[peer].notify_all();
    } else {
      const auto* b = static_cast<const uint8_t*>(buf);
      const bool rendezvous = fabric_->options().rendezvous;
      fabric_->unexpected_[key].push_back({{b, b + bytes}, rendezvous ? &s.done : nullptr});
      s.done = !rendezvous;
    }
  }
  *req = r;
  return ZCOLL_SUCCESS;
}

zcoll_status ThreadTransport::irecv(void* buf, size_t capacity, int peer, int tag, Req* req) {
  if (peer < 0 || peer >= size()) return fail(ZCOLL_ERR_INVALID_ARG, "peer %d out of range", peer);
  Req r = take();
  Slot& s = slots_[r];
  s.is_recv = true;
  s.capacity = capacity;
  std::lock_guard<std::mutex> lk(fabric_->mu_);
  ThreadFabric::Key key{rank_, peer, tag};
  auto& q = fabric_->unexpected_[key];
  if (!q.empty()) {
    std::vector<uint8_t>& m = q.front().data;
    if (m.size() > capacity)
      s.overflow = true;
    else if (!m.empty())
      std::memcpy(buf, m.data(), m.size());
    s.bytes = m.size();
    s.done = true;
    if (bool* sent = q.front().sender_done) {
      *sent = true;
      fabric_->rank_cv_[peer].notify_all();
    }
    q.pop_front();
  } else {
    fabric_->posted_[key].push_back({buf, capacity, &s.done, &s.bytes, &s.overflow});
  }
  *req = r;
  return ZCOLL_SUCCESS;
}

zcoll_status ThreadTransport::wait(Req r, size_t* bytes) {
  if (r == kNoReq) {
    if (bytes) *bytes = 0;
    return ZCOLL_SUCCESS;
  }
  Slot& s = slots_[r];
  {
    std::unique_lock<std::mutex> lk(fabric_->mu_);
    auto notice = [&] { return notice_tag_ >= 0 && fabric_->notices_.count(notice_tag_) != 0; };
    fabric_->rank_cv_[rank_].wait(lk, [&] { return s.done || notice(); });
    if (!s.done) {  // a rank left the call: the slot stays active until end_call
      const auto st = static_cast<zcoll_status>(fabric_->notices_[notice_tag_]);
      return fail(st, "another rank failed in this collective and left it (%s)",
                  zcoll_status_string(st));
    }
  }
  const bool overflow = s.overflow;
  const bool mismatch = fabric_->options().exact && s.is_recv && s.bytes != s.capacity;
  const size_t got = s.bytes, capacity = s.capacity;
  if (bytes) *bytes = s.bytes;
  s.active = false;
  free_.push_back(r);
  if (mismatch) {
    ++*fabric_->mismatches_;
    return fail(ZCOLL_ERR_INTERNAL, "exact-size receive of %zu bytes matched a message of %zu",
                capacity, got);
  }
  if (overflow) return fail(ZCOLL_ERR_BUFFER_TOO_SMALL, "message larger than the receive buffer");
  return ZCOLL_SUCCESS;
}

zcoll_status ThreadTransport::test(Req r, bool* done) {
  if (r == kNoReq) {
    *done = true;
    return ZCOLL_SUCCESS;
  }
  std::lock_guard<std::mutex> lk(fabric_->mu_);
  *done = slots_[r].done;
  return ZCOLL_SUCCESS;
}

zcoll_status ThreadTransport::wait_any(const Req* reqs, int n, int* index) {
  *index = -1;
  bool any = false;
  for (int i = 0; i < n; ++i) any = any || reqs[i] != kNoReq;
  if (!any) return ZCOLL_SUCCESS;
  std::unique_lock<std::mutex> lk(fabric_->mu_);
  auto found = [&] {
    for (int i = 0; i < n; ++i)
      if (reqs[i] != kNoReq && slots_[reqs[i]].done) return i;
    return -1;
  };
  auto notice = [&] { return notice_tag_ >= 0 && fabric_->notices_.count(notice_tag_) != 0; };
  fabric_->rank_cv_[rank_].wait(lk, [&] { return found() >= 0 || notice(); });
  *index = found();
  if (*index < 0) {
    const auto st = static_cast<zcoll_status>(fabric_->notices_[notice_tag_]);
    return fail(st, "another rank failed in this collective and left it (%s)",
                zcoll_status_string(st));
  }
  return ZCOLL_SUCCESS;
}

zcoll_status ThreadTransport::baseline_allreduce(const void* in, void* out, size_t count,
                                                 zcoll_dtype dtype) {
  if (dtype != ZCOLL_FLOAT32 && dtype != ZCOLL_FLOAT64)
    return fail(ZCOLL_ERR_INVALID_ARG, "baseline_allreduce: float32 or float64 only");
  const size_t vs = dtype == ZCOLL_FLOAT32 ? 4 : 8;
  std::unique_lock<std::mutex> lk(fabric_->mu_);
  const auto* b = static_cast<const uint8_t*>(in);
  fabric_->slots_[rank_].assign(b, b + count * vs);
  fabric_->barrier(lk);
  for (size_t i = 0; i < count; ++i) {  // every rank sums in rank order: the same result
    double sum = 0;
    for (int p = 0; p < size(); ++p) {
      const uint8_t* v = fabric_->slots_[p].data() + i * vs;
      sum += vs == 4 ? *reinterpret_cast<const float*>(v) : *reinterpret_cast<const double*>(v);
    }
    if (vs == 4)
      static_cast<float*>(out)[i] = static_cast<float>(sum);
    else
      static_cast<double*>(out)[i] = sum;
  }
  fabric_->barrier(lk);
  return ZCOLL_SUCCESS;
}

zcoll_status ThreadTransport::allreduce_max(double* values, int n) {
  std::unique_lock<std::mutex> lk(fabric_->mu_);
  auto& mine = fabric_->slots_[rank_];
  mine.assign(reinterpret_cast<uint8_t*>(values), reinterpret_cast<uint8_t*>(values + n));
  fabric_->barrier(lk);
  for (int p = 0; p < size(); ++p) {
    const double* v = reinterpret_cast<const double*>(fabric_->slots_[p].data());
    for (int i = 0; i < n; ++i) values[i] = std::max(values[i], v[i]);
  }
  fabric_->barrier(lk);
  return ZCOLL_SUCCESS;
}

zcoll_status ThreadTransport::begin_call(int data_tag, int notice_tag) {
  data_tag_ = data_tag;
  notice_tag_ = notice_tag;
  return ZCOLL_SUCCESS;
}

void ThreadTransport::abort_call(zcoll_status status) {
  std::lock_guard<std::mutex> lk(fabric_->mu_);
  fabric_->notices_.emplace(notice_tag_, static_cast<uint32_t>(status));  // the first one stays
  fabric_->wake_all();
}

uint32_t ThreadTransport::notice() const {
  std::lock_guard<std::mutex> lk(fabric_->mu_);
  auto it = fabric_->notices_.find(notice_tag_);
  return it == fabric_->notices_.end() ? 0 : it->second;
}

size_t ThreadTransport::active_requests() const {
  size_t n = 0;
  for (const Slot& s : slots_) n += s.active;
  return n;
}

zcoll_status ThreadTransport::end_call(bool failed) {
  if (failed) {
    std::lock_guard<std::mutex> lk(fabric_->mu_);
    // withdraw this rank's receives of the call, drop its unreceived messages
    for (auto it = fabric_->posted_.begin(); it != fabric_->posted_.end();)
      it = std::get<0>(it->first) == rank_ && std::get<2>(it->first) == data_tag_
               ? fabric_->posted_.erase(it)
               : std::next(it);
    for (auto it = fabric_->unexpected_.begin(); it != fabric_->unexpected_.end();)
      it = std::get<0>(it->first) == rank_ && std::get<2>(it->first) == data_tag_
               ? fabric_->unexpected_.erase(it)
               : std::next(it);
    // and its rendezvous sends nobody received (their flags are in the slots
    // released below)
    for (auto& [key, q] : fabric_->unexpected_)
      if (std::get<1>(key) == rank_ && std::get<2>(key) == data_tag_)
        q.erase(std::remove_if(q.begin(), q.end(),
                               [](const ThreadFabric::Message& m) { return m.sender_done; }),
                q.end());
    for (size_t r = 0; r < slots_.size(); ++r)
      if (slots_[r].active) {
        slots_[r].active = false;
        free_.push_back(static_cast<Req>(r));
      }
  }
  data_tag_ = notice_tag_ = -1;
  return ZCOLL_SUCCESS;
}

zcoll_status ThreadTransport::allgather_u64(const uint64_t* mine, int k, uint64_t* all) {
  std::unique_lock<std::mutex> lk(fabric_->mu_);
  fabric_->slots_[rank_].assign(reinterpret_cast<const uint8_t*>(mine),
                                reinterpret_cast<const uint8_t*>(mine + k));
  fabric_->barrier(lk);
  for (int p = 0; p < size(); ++p)
    std::memcpy(all + static_cast<size_t>(p) * k, fabric_->slots_[p].data(), k * sizeof(uint64_t));
  fabric_->barrier(lk);
  return ZCOLL_SUCCESS;
}

}  // namespace zcoll::transport
