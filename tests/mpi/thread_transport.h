// thread_transport.h — an in-process Transport: the ranks of a group are
// threads of one process and messages are copied through a shared fabric.
// For unit tests of the algorithms (any rank count, no MPI launcher), the way
// gloo tests its algorithms with ranks as threads.
//
// Sends are eager (the payload is copied at isend, which completes at once);
// receives match messages in order per (source, tag), like MPI.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <tuple>
#include <vector>

#include "transport/transport.h"

namespace zcoll::transport {

class ThreadFabric {
 public:
  explicit ThreadFabric(int size);
  int size() const { return size_; }

 private:
  friend class ThreadTransport;
  struct PendingRecv {
    void* buf;
    size_t capacity;
    bool* done;
    size_t* bytes;
    bool* overflow;
  };
  using Key = std::tuple<int, int, int>;  // (dst, src, tag)
  std::mutex mu_;
  std::condition_variable cv_;
  std::map<Key, std::deque<std::vector<uint8_t>>> unexpected_;
  std::map<Key, std::deque<PendingRecv>> posted_;
  std::map<int, uint32_t> notices_;  // abort notices by notice tag (the status)
  // collectives: generation-counted barrier with a shared scratch area
  int size_;
  int arrived_ = 0;
  uint64_t generation_ = 0;
  std::vector<std::vector<uint8_t>> slots_;
  void barrier(std::unique_lock<std::mutex>& lk);
};

class ThreadTransport final : public Transport {
 public:
  ThreadTransport(std::shared_ptr<ThreadFabric> fabric, int rank);
  int rank() const override { return rank_; }
  int size() const override { return fabric_->size(); }
  zcoll_status isend(const void* buf, size_t bytes, int peer, int tag, Req* req) override;
  zcoll_status irecv(void* buf, size_t capacity, int peer, int tag, Req* req) override;
  zcoll_status wait(Req req, size_t* bytes) override;
  zcoll_status test(Req req, bool* done) override;
  void progress() override {}
  zcoll_status allreduce_max(double* values, int n) override;
  zcoll_status allgather_u64(const uint64_t* mine, int k, uint64_t* all) override;
  // Abort notices through the fabric (one per notice tag, seen by every rank);
  // end_call(true) withdraws this rank's receives of the call and drops the
  // call's messages nobody received.
  zcoll_status begin_call(int data_tag, int notice_tag) override;
  void abort_call(zcoll_status status) override;
  zcoll_status end_call(bool failed) override;
  // The status of an abort notice of the current call (0: none).
  uint32_t notice() const;
  // Requests not yet waited for (tests: nothing may be left after a call).
  size_t active_requests() const;
  // The most requests this rank had active at once (slots are reused, so
  // the slot count is the high-water mark).
  size_t peak_requests() const { return slots_.size(); }

 private:
  struct Slot {
    bool active = false, done = false, overflow = false;
    size_t bytes = 0;
  };
  std::shared_ptr<ThreadFabric> fabric_;
  int rank_;
  std::deque<Slot> slots_;  // stable addresses (pending receives point into it)
  std::vector<Req> free_;
  int data_tag_ = -1, notice_tag_ = -1;
  Req take();
};

}  // namespace zcoll::transport
