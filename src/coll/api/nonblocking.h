// nonblocking.h — the nonblocking collectives (zcoll_iallreduce & co.,
// zcoll_test / zcoll_wait; docs/nonblocking.md). The algorithms are blocking
// sequences over a Transport, so a nonblocking call does not reimplement them:
// each handle has a queue and, with MPI_THREAD_MULTIPLE, a progress thread that
// runs the queued calls one after the other through run_call(), the path of
// every blocking call. Results and reports are therefore those of the blocking
// call at the same place in the handle's sequence, bit for bit.
//
// Order on a handle is the order of the calls made by its (one) user thread:
// a nonblocking call is queued; a blocking call, a collective of the handle
// (calibrate, free) or a reader of state the calls change (the last report,
// the model) first waits for the queue to empty (drain); a per-call setting is
// queued behind the pending calls (apply_setting), so that each call runs with
// the settings in force when it was started.
//
// Without a progress thread (MPI below MPI_THREAD_MULTIPLE, ZCOLL_PROGRESS=
// inline, SMPI builds) a nonblocking call runs to completion in its start.
#pragma once

#include <mpi.h>

#include <functional>

#include "zcoll_mpi.h"

namespace zcoll::coll {

struct Call;  // comm.h

// Decide at zcoll_comm_create whether the handle's nonblocking calls get a
// progress thread (MPI_Query_thread; progress: ZCOLL_PROGRESS's word, "thread"
// or "inline"); the thread itself starts at the first nonblocking call.
void init_progress(zcoll_comm* zc, const char* progress);

// Start the call k (its arguments copied; recvcounts too): queued behind the
// handle's pending calls, or run at once without a progress thread. *out is a
// new request (the caller's reference) on success.
zcoll_status start_call(zcoll_comm* zc, const Call& k, zcoll_request** out);

// A job in the handle's order instead of a collective (the PMPI shim's
// nonblocking data movement: its eligibility check, then the call). It runs on
// the progress thread (or at once) with the handle; report starts zeroed (with
// struct_size) and is the request's report; it returns the request's status.
// A job may call the handle's blocking collectives and zcoll_comm_last_report
// (on the progress thread they do not wait for the queue), and MPI on
// handle_comm(zc), which only the handle's calls use.
using Job = std::function<zcoll_status(zcoll_comm* zc, zcoll_report* report)>;
zcoll_status start_job(zcoll_comm* zc, Job job, zcoll_request** out);
MPI_Comm handle_comm(const zcoll_comm* zc);

// Call fn(arg) once when r completes, from the thread that completes it (the
// progress thread), or now, on this thread, if r is complete already. At most
// one per request, set before anyone waits for it (the PMPI shim completes its
// MPI generalized request with it).
void on_complete(zcoll_request* r, void (*fn)(void*), void* arg);

// Whether r is complete; wait until it is (any thread; the progress thread
// completes it). Neither needs the handle, which may be freed meanwhile.
bool request_done(zcoll_request* r);
void wait_request(zcoll_request* r);
// The status (with the caller's zcoll_last_error() set from the call's text on
// failure) and the report of a complete request.
zcoll_status request_result(const zcoll_request* r, zcoll_report* report);
// Drop the caller's reference (zcoll_request_free); a pending request still
// runs and is deleted when it completes.
void release_request(zcoll_request* r);

// Wait until every call started on the handle has run (no-op when none is pending).
void drain(zcoll_comm* zc);

// Apply a per-call setting: at once when no call is pending, else queued to
// apply after the pending calls (they keep the settings they were started with).
void apply_setting(zcoll_comm* zc, std::function<void(zcoll_comm*)> set);

// zcoll_comm_free: wait for the pending calls, then stop and join the thread.
void stop_progress(zcoll_comm* zc);

}  // namespace zcoll::coll
