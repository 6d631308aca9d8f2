// transport.h — what the collective algorithms need from a network: tagged,
// non-blocking, ordered point-to-point byte messages between the ranks of a
// group, plus a few blocking helpers. Algorithms are written against this
// interface only (never MPI directly), so that the same algorithm can run over
// MPI (mpi_transport.cc), NCCL or threads.
//
// Semantics: messages between one (sender, receiver, tag) are matched in order
// (MPI's non-overtaking rule). A receive posted with `capacity` accepts any
// message of at most capacity bytes; wait() reports the size that arrived
// (a network whose receives need the exact size, as NCCL's, gets this contract
// from SizePrefixedTransport). All calls are made by one thread.
//
// Beyond point-to-point (docs/transport.md): the fault protocol of a collective
// call, which ranks share a node (locality.h), sub-group transports (node, rail,
// split), and a few blocking helpers, among them the baseline library's own
// Allreduce that the cost model is scaled to.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>

#include "transport/locality.h"
#include "zcoll.h"

namespace zcoll::transport {

using Req = int32_t;  // a request slot; kNoReq when none
constexpr Req kNoReq = -1;

class Transport {
 public:
  virtual ~Transport() = default;
  virtual int rank() const = 0;
  virtual int size() const = 0;

  virtual zcoll_status isend(const void* buf, size_t bytes, int peer, int tag, Req* req) = 0;
  virtual zcoll_status irecv(void* buf, size_t capacity, int peer, int tag, Req* req) = 0;
  // Complete and release req; *bytes (may be null) = bytes received or sent.
  // kNoReq completes at once with 0 bytes.
  virtual zcoll_status wait(Req req, size_t* bytes) = 0;
  // *done = whether req has completed (it stays owned until wait()).
  virtual zcoll_status test(Req req, bool* done) = 0;
  // Let outstanding transfers advance (called between compression ranges).
  virtual void progress() = 0;
  // Block until one of reqs[0..n) has completed (kNoReq entries are skipped);
  // *index = its position, -1 when every entry is kNoReq. The request stays
  // owned until wait(). Returns the current call's abort error as wait() does.
  // Default: test() each in turn, progress() between rounds (a busy wait that,
  // like the fault protocol's defaults below, does not see abort notices).
  virtual zcoll_status wait_any(const Req* reqs, int n, int* index);
  // True when irecv's capacity must be the exact size of the message (NCCL's
  // ncclRecv); such a transport runs the algorithms inside a
  // SizePrefixedTransport (size_prefixed_transport.h).
  virtual bool exact_receives() const { return false; }

  // A collective call's failure handling (docs/reliability.md, "Faults"); all
  // ranks call begin_call and end_call once per call, in the same order.
  //   begin_call: the call's messages use data_tag; notice_tag is reserved for
  //     abort notices (a transport posts the receive of one from any rank).
  //   abort_call: this rank failed and will not send what its peers wait for:
  //     tell every other rank, whose waits of this call then return the error
  //     instead of blocking (as will this rank's own later waits).
  //   end_call: retire the notice receive; after a failed call (on any rank:
  //     the caller agreed on it) cancel every request of the call still
  //     outstanding and make sure no message of the call can match a later
  //     call's receives.
  // The defaults do nothing: a transport whose waits cannot block on a failed
  // peer, or that has no way to cancel, keeps them.
  virtual zcoll_status begin_call(int data_tag, int notice_tag) {
    (void)data_tag;
    (void)notice_tag;
    return ZCOLL_SUCCESS;
  }
  virtual void abort_call(zcoll_status status) { (void)status; }
  virtual zcoll_status end_call(bool failed) {
    (void)failed;
    return ZCOLL_SUCCESS;
  }

  // Element-wise maximum of n doubles over the group, in place.
  virtual zcoll_status allreduce_max(double* values, int n) = 0;
  // all[r*k + j] = rank r's mine[j].
  virtual zcoll_status allgather_u64(const uint64_t* mine, int k, uint64_t* all) = 0;
  // Returns once every rank has entered. Default: allreduce_max of one value.
  virtual zcoll_status barrier();
  // The Allreduce (SUM, in -> out, count values of dtype FLOAT32 or FLOAT64)
  // of the collective library under this transport — MPI_Allreduce for MPI,
  // ncclAllReduce for NCCL: the baseline zcoll's choices are compared with.
  // The calibration probe times it to scale the cost model of the baseline's
  // collectives (calibrate.cc). Default: ZCOLL_ERR_UNSUPPORTED (no baseline;
  // the probe then leaves that model unscaled).
  virtual zcoll_status baseline_allreduce(const void* in, void* out, size_t count,
                                          zcoll_dtype dtype);

  // ---- Locality and sub-groups (docs/transport.md) -------------------------
  // *out = which ranks share a node (locality.h), fixed for the transport's
  // life. Where the transport has to ask the network (MPI: one
  // MPI_Comm_split_type and a small allgather) the first call is collective:
  // every rank calls it at the same point, outside any call's
  // begin_call/end_call, as split(); later calls, and every call on
  // transports that know it from their creation (threads, sub-groups), are
  // free and local. Default: every rank on a node of its own (nothing known).
  virtual zcoll_status locality(const Locality** out);
  // A new transport over the ranks that pass the same color (>= 0), ranked by
  // (key, rank here), with its own message space (its tags never match this
  // transport's) and the locality of its ranks. A rank that passes color < 0
  // joins none: *out = null. Collective over this group: every rank calls it,
  // outside any call's begin_call/end_call, in the same order as this group's
  // other splits. The caller owns the result, which does not depend on this
  // transport (it may outlive it). Default: ZCOLL_ERR_UNSUPPORTED.
  virtual zcoll_status split(int color, int key, std::unique_ptr<Transport>* out);
  // The transport of this rank's node (its ranks ranked by local rank), and of
  // this rank's rail (the ranks with this local rank on each node that has one,
  // ranked by node: locality.h says what uneven nodes give). Made by split()
  // on the first call — collective then, as split() — and owned and kept by
  // this transport. Rail 0 is the group of node leaders. Each knows its
  // locality (the parent's, restricted) without asking.
  zcoll_status node_transport(Transport** out);
  zcoll_status rail_transport(Transport** out);

  // Accounting, reset by the caller per collective call.
  uint64_t bytes_sent = 0;   // payload bytes passed to isend
  double time_in_calls = 0;  // seconds spent inside the calls above
  // Timeline (now_seconds(); 0: none or not tracked by this transport): the
  // first isend, and the return of the last wait() that completed a receive.
  double first_send_at = 0;
  double last_recv_at = 0;

 protected:
  // Drop the node and rail transports (a transport releasing its resources).
  void drop_subgroups();

 private:
  std::unique_ptr<Locality> assumed_;  // the default locality()
  std::unique_ptr<Transport> node_, rail_;
};

}  // namespace zcoll::transport
