// failing_transport.h — a Transport that forwards to another and fails its
// nth isend once (as MPI_ERRORS_RETURN reports a failed transfer): a failure
// inside one collective call, for the fault protocol's tests on sub-group and
// size-prefixed transports (transport_test.cc, transport_mpi_test.cc).
#pragma once

#include "core/error.h"
#include "transport/transport.h"

namespace zcoll_testing {

class FailingTransport final : public zcoll::transport::Transport {
 public:
  using Req = zcoll::transport::Req;
  // nth < 0: no failure.
  FailingTransport(Transport* inner, int nth) : in_(inner), nth_(nth) {}
  int rank() const override { return in_->rank(); }
  int size() const override { return in_->size(); }
  zcoll_status isend(const void* b, size_t n, int p, int t, Req* q) override {
    if (sends_++ == nth_) return zcoll::fail(ZCOLL_ERR_MPI, "injected: the send failed");
    return in_->isend(b, n, p, t, q);
  }
  zcoll_status irecv(void* b, size_t n, int p, int t, Req* q) override {
    return in_->irecv(b, n, p, t, q);
  }
  zcoll_status wait(Req q, size_t* n) override { return in_->wait(q, n); }
  zcoll_status test(Req q, bool* d) override { return in_->test(q, d); }
  zcoll_status wait_any(const Req* q, int n, int* i) override { return in_->wait_any(q, n, i); }
  void progress() override { in_->progress(); }
  zcoll_status begin_call(int d, int n) override { return in_->begin_call(d, n); }
  void abort_call(zcoll_status s) override { in_->abort_call(s); }
  zcoll_status end_call(bool f) override { return in_->end_call(f); }
  zcoll_status allreduce_max(double* v, int n) override { return in_->allreduce_max(v, n); }
  zcoll_status allgather_u64(const uint64_t* m, int k, uint64_t* a) override {
    return in_->allgather_u64(m, k, a);
  }

 private:
  Transport* in_;
  int nth_, sends_ = 0;
};

}  // namespace zcoll_testing
