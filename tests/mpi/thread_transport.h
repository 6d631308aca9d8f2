// thread_transport.h — an in-process Transport: the ranks of a group are
// threads of one process and messages are copied through a shared fabric.
// For unit tests of the algorithms (any rank count, no MPI launcher), the way
// gloo tests its algorithms with ranks as threads.
//
// Sends are eager (the payload is copied at isend, which completes at once)
// unless the fabric is made rendezvous (a send completes when a receive takes
// it, as large MPI messages and NCCL's sends do); receives match messages in
// order per (source, tag), like MPI. An exact-size fabric fails every receive
// whose capacity is not the size of the message it matched (NCCL's contract:
// tests of SizePrefixedTransport). Locality from the labels the fabric is given
// (default: one node); sub-groups (split) get fabrics of their own.
#pragma once

#include <atomic>
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

struct FabricOptions {
  bool exact = false;       // receives need the exact size (else: capacity)
  bool rendezvous = false;  // a send completes when received (else: at once)
};

class ThreadFabric {
 public:
  using Options = FabricOptions;
  // node_labels: a label per rank, equal labels = one node (locality.h); empty:
  // all ranks on one node.
  explicit ThreadFabric(int size, std::vector<int64_t> node_labels = {}, Options options = {});
  int size() const { return size_; }
  const Options& options() const { return options_; }
  // Exact-size receives that matched a message of another size, on this fabric
  // and the fabrics split from it.
  long exact_mismatches() const { return *mismatches_; }

 private:
  friend class ThreadTransport;
  struct PendingRecv {
    void* buf;
    size_t capacity;
    bool* done;
    size_t* bytes;
    bool* overflow;
  };
  struct Message {
    std::vector<uint8_t> data;
    bool* sender_done = nullptr;  // rendezvous: the send's completion flag
  };
  using Key = std::tuple<int, int, int>;  // (dst, src, tag)
  std::mutex mu_;
  std::condition_variable cv_;  // the barrier's
  // Each rank waits for its requests on its own condition variable, so that a
  // completion wakes the one rank it is for (one shared variable woke all 16
  // threads for every message: most of the tests' time went to the scheduler).
  std::vector<std::condition_variable> rank_cv_;
  void wake_all();  // abort notices: every rank
  std::map<Key, std::deque<Message>> unexpected_;
  std::map<Key, std::deque<PendingRecv>> posted_;
  std::map<int, uint32_t> notices_;  // abort notices by notice tag (the status)
  // collectives: generation-counted barrier with a shared scratch area
  int size_;
  int arrived_ = 0;
  uint64_t generation_ = 0;
  std::vector<std::vector<uint8_t>> slots_;
  void barrier(std::unique_lock<std::mutex>& lk);
  std::vector<int64_t> labels_;
  Options options_;
  std::shared_ptr<std::atomic<long>> mismatches_;  // shared with the split fabrics
  // split: each rank's (color, key), and the fabric made for each color
  std::vector<std::pair<int, int>> split_in_;
  std::map<int, std::shared_ptr<ThreadFabric>> split_out_;
  std::shared_ptr<ThreadFabric> split(int rank, int color, int key, int* sub_rank);
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
  zcoll_status wait_any(const Req* reqs, int n, int* index) override;
  bool exact_receives() const override { return fabric_->options().exact; }
  zcoll_status allreduce_max(double* values, int n) override;
  zcoll_status allgather_u64(const uint64_t* mine, int k, uint64_t* all) override;
  // The in-process group's own Allreduce: a sum through the fabric.
  zcoll_status baseline_allreduce(const void* in, void* out, size_t count,
                                  zcoll_dtype dtype) override;
  zcoll_status locality(const Locality** out) override {
    *out = &locality_;
    return ZCOLL_SUCCESS;
  }
  zcoll_status split(int color, int key, std::unique_ptr<Transport>* out) override;
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
    bool active = false, done = false, overflow = false, is_recv = false;
    size_t bytes = 0, capacity = 0;
  };
  std::shared_ptr<ThreadFabric> fabric_;
  int rank_;
  Locality locality_;
  std::deque<Slot> slots_;  // stable addresses (pending receives point into it)
  std::vector<Req> free_;
  int data_tag_ = -1, notice_tag_ = -1;
  Req take();
};

}  // namespace zcoll::transport
