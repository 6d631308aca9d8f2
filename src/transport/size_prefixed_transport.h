// size_prefixed_transport.h — the capacity receive of transport.h over a
// network whose receives must name the exact size (NCCL's ncclSend/ncclRecv):
// each message goes as an 8-byte size (little-endian) and then, when it is not
// empty, the payload, both with the message's tag. A receive posts the size's
// receive; once the size has arrived it posts the payload's receive with that
// exact size (a message larger than the capacity is still received, into
// scratch, and its wait fails with ZCOLL_ERR_BUFFER_TOO_SMALL, so the channel
// stays in step).
//
// Order: per (peer, tag) only the oldest receive waiting for its size has its
// size receive posted, so that sizes and payloads of consecutive messages are
// never crossed. Progress: whenever this transport blocks, it blocks in the
// inner wait_any over what it waits for and every channel's pending size, and
// posts a payload's receive as soon as its size arrives: a peer's payload send
// never waits on this rank beyond its own algorithm's waits, also when the
// inner sends complete only once received (rendezvous). So an algorithm that
// is correct over MPI is correct over this adapter.
//
// The MPI transport does not need it (MPI reports the size of what arrived);
// an NCCL transport, or any with exact_receives(), runs the algorithms through
// it. Everything else (the fault protocol, the helpers, locality) is the inner
// transport's; split() wraps the inner transport's sub-groups.
#pragma once

#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <utility>
#include <vector>

#include "transport/transport.h"

namespace zcoll::transport {

class SizePrefixedTransport final : public Transport {
 public:
  explicit SizePrefixedTransport(Transport* inner);  // not owned
  explicit SizePrefixedTransport(std::unique_ptr<Transport> inner);
  SizePrefixedTransport(const SizePrefixedTransport&) = delete;
  SizePrefixedTransport& operator=(const SizePrefixedTransport&) = delete;

  int rank() const override { return inner_->rank(); }
  int size() const override { return inner_->size(); }
  zcoll_status isend(const void* buf, size_t bytes, int peer, int tag, Req* req) override;
  zcoll_status irecv(void* buf, size_t capacity, int peer, int tag, Req* req) override;
  zcoll_status wait(Req req, size_t* bytes) override;
  zcoll_status test(Req req, bool* done) override;
  zcoll_status wait_any(const Req* reqs, int n, int* index) override;
  void progress() override;
  zcoll_status begin_call(int data_tag, int notice_tag) override;
  void abort_call(zcoll_status status) override;
  zcoll_status end_call(bool failed) override;
  zcoll_status allreduce_max(double* values, int n) override;
  zcoll_status allgather_u64(const uint64_t* mine, int k, uint64_t* all) override;
  zcoll_status barrier() override;
  zcoll_status baseline_allreduce(const void* in, void* out, size_t count,
                                  zcoll_dtype dtype) override;
  zcoll_status locality(const Locality** out) override { return inner_->locality(out); }
  zcoll_status split(int color, int key, std::unique_ptr<Transport>* out) override;

  Transport* inner() const { return inner_; }
  // Requests not yet waited for (tests: nothing may be left after a call).
  size_t active_requests() const;

 private:
  enum class State { kQueued, kSize, kPayload, kDone };
  struct Op {
    bool active = false, is_recv = false;
    State state = State::kQueued;
    uint8_t size_bytes[8] = {};  // the size sent or received
    Req size_req = kNoReq, payload_req = kNoReq;
    void* buf = nullptr;
    size_t capacity = 0, bytes = 0;
    int peer = 0, tag = 0;
    bool too_big = false;
    std::vector<uint8_t> sink;  // the payload of a message larger than capacity
  };
  using Channel = std::pair<int, int>;  // (peer, tag) of receives
  Req take();
  void release(Req r);
  zcoll_status post_size(Req r);
  zcoll_status size_arrived(Req r);  // its size is in: post its payload, start the next
  zcoll_status poll_sizes();         // every channel whose size has arrived
  bool complete(const Op& op, zcoll_status* st);  // non-blocking: all of op is in
  // Block until one of `wanted` or a channel's pending size completes (then
  // handled); wanted: inner requests.
  zcoll_status block_once(const std::vector<Req>& wanted);
  // op's inner requests still in flight (a receive's size: see block_once)
  zcoll_status pending_of(const Op& op, std::vector<Req>* out);

  std::unique_ptr<Transport> owned_;
  Transport* inner_;
  std::deque<Op> ops_;  // stable addresses (the size buffers)
  std::vector<Req> free_;
  std::map<Channel, std::deque<Req>> channels_;  // receives before their payload, oldest first
  std::vector<Req> scratch_;
};

}  // namespace zcoll::transport
