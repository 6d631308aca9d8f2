// mpi_transport.h — Transport over MPI point-to-point on a private duplicate of
// the user's communicator (so that zcoll's messages never match the user's),
// with MPI_ERRORS_RETURN. Uses the MPI-4 large-count calls when available.
// Locality from MPI_Comm_split_type(MPI_COMM_TYPE_SHARED), or ZCOLL_NODE_MAP;
// sub-groups from MPI_Comm_split.
#pragma once

#include <mpi.h>

#include <memory>
#include <vector>

#include "transport/transport.h"

namespace zcoll::transport {

class MpiTransport final : public Transport {
 public:
  // Takes ownership of comm (a communicator this object frees).
  explicit MpiTransport(MPI_Comm comm);
  ~MpiTransport() override;
  MpiTransport(const MpiTransport&) = delete;
  MpiTransport& operator=(const MpiTransport&) = delete;

  int rank() const override { return rank_; }
  int size() const override { return size_; }
  MPI_Comm comm() const { return comm_; }
  // Waiting: 0 (the default) blocks in MPI_Wait / MPI_Waitany, which spin in
  // MPICH and Open MPI; seconds > 0 test the request(s) and sleep that long
  // between tests (capped at 10 ms), so that a waiting rank leaves its core to
  // ranks that compress when there are more ranks than cores (ZCOLL_WAIT_SLEEP).
  void set_wait_sleep(double seconds);
  // Free the communicator and those of the sub-group transports (collective);
  // the destructor then does nothing.
  zcoll_status release();

  zcoll_status isend(const void* buf, size_t bytes, int peer, int tag, Req* req) override;
  zcoll_status irecv(void* buf, size_t capacity, int peer, int tag, Req* req) override;
  zcoll_status wait(Req req, size_t* bytes) override;
  zcoll_status test(Req req, bool* done) override;
  void progress() override;
  // MPI_Waitany over the requests and the current call's abort notice.
  zcoll_status wait_any(const Req* reqs, int n, int* index) override;
  zcoll_status allreduce_max(double* values, int n) override;
  // Abort notices: an 8-byte message (the failing status) with notice_tag from
  // any source; waits wait for their request or a notice (MPI_Waitany). After a
  // failed call every outstanding request is cancelled (receives) or released
  // (sends), and the communicator is replaced by a fresh MPI_Comm_dup, so that
  // no message of the failed call can ever match a later one.
  zcoll_status begin_call(int data_tag, int notice_tag) override;
  void abort_call(zcoll_status status) override;
  zcoll_status end_call(bool failed) override;
  zcoll_status allgather_u64(const uint64_t* mine, int k, uint64_t* all) override;
  zcoll_status barrier() override;  // MPI_Barrier
  zcoll_status baseline_allreduce(const void* in, void* out, size_t count,
                                  zcoll_dtype dtype) override;  // MPI_Allreduce
  // The first call (collective) finds which ranks share a node: one
  // MPI_Comm_split_type(MPI_COMM_TYPE_SHARED) — a node is known by its lowest
  // rank — and one MPI_Allgather; or, with ZCOLL_NODE_MAP set (tests: nodes
  // emulated on one machine), that map's label of each rank's MPI_COMM_WORLD
  // rank. A map set on some ranks only fails it on every rank.
  zcoll_status locality(const Locality** out) override;
  // ZCOLL_NODE_MAP, if set, parses and has an entry for this process's
  // MPI_COMM_WORLD rank (local; zcoll_comm_create checks it before its
  // agreement, so that a bad map fails the creation on every rank).
  static zcoll_status check_node_map();
  // MPI_Comm_split of this transport's communicator; the new transport knows
  // its locality (this one's, restricted) and waits as this one does.
  zcoll_status split(int color, int key, std::unique_ptr<Transport>* out) override;

 private:
  zcoll_status find_locality();
  struct Slot {
    MPI_Request req = MPI_REQUEST_NULL;
    bool active = false;
    bool done = false;
    bool is_recv = false;
    size_t bytes = 0;  // send size, or received size once done
  };
  Req take_slot();
  void put_slot(Req r);
  zcoll_status finish(Slot& s, MPI_Status& st);
  void reap_sends();

  // MPI_Waitany over n requests, or its sleep-between-tests form (wait_sleep_ns_ > 0)
  int mpi_wait_any(int n, MPI_Request* reqs, int* which, MPI_Status* st);

  MPI_Comm comm_ = MPI_COMM_NULL;
  int rank_ = 0, size_ = 1;
  Locality locality_;
  bool located_ = false;  // locality_ is known
  long wait_sleep_ns_ = 0;
  std::vector<Slot> slots_;
  std::vector<Req> free_;
  std::vector<Req> active_;  // slots with a request in flight (for progress())
  // the current call's abort notice
  MPI_Request notice_req_ = MPI_REQUEST_NULL;
  int notice_tag_ = -1, data_tag_ = -1;
  uint32_t notice_in_ = 0;                // a received notice (the status)
  zcoll_status aborted_ = ZCOLL_SUCCESS;  // a notice arrived (or this rank aborted)
  std::vector<uint32_t> notice_out_;      // the notices this rank sent
  std::vector<MPI_Request> notice_sends_;
  zcoll_status abort_error();
  std::vector<MPI_Request> wait_any_reqs_;  // wait_any's scratch
  std::vector<int> wait_any_pos_;
};

// Text of an MPI error code (static buffer per thread).
const char* mpi_error_text(int code);

}  // namespace zcoll::transport
