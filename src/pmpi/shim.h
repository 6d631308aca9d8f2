// shim.h — internals of libzcoll_pmpi.so, the PMPI interposer (docs/pmpi.md):
// the settings read at MPI_Init (settings.cc), the per-communicator handle
// cache (handles.cc), the counters, report and verification (report.cc); the
// MPI_* entry points themselves are in intercept.cc.
//
// Everything here calls the MPI library through PMPI_* only, and the copy of
// libzcoll_mpi linked into the shim is compiled with pmpi_redirect.h, so no
// call made on the shim's behalf comes back into the shim.
#pragma once

#include <mpi.h>

#include <cstddef>
#include <cstdint>
#include <string>

#include "zcoll_mpi.h"

namespace zcoll::pmpi {

// The collectives the shim may compress: zcoll's (the collective traits table,
// coll/control/collective.h, names them: ZCOLL_PMPI_COLLS words, report rows).
using Coll = zcoll_collective;
const char* coll_word(Coll c);  // "allreduce", ...

// ---- settings (settings.cc) ----------------------------------------------------
struct Settings {
  bool enabled = false;    // ZCOLL_PMPI=1 and a valid configuration
  bool type_float = true;  // ZCOLL_PMPI_TYPES
  bool type_double = false;
  bool type_real = false;
  bool type_double_precision = false;
  bool op_sum = true;  // ZCOLL_PMPI_OPS
  bool op_max = false, op_min = false, op_prod = false;
  bool coll[ZCOLL_MAX_COLLECTIVES] = {false, true};  // ZCOLL_PMPI_COLLS (by zcoll_collective:
                                                     // allreduce unless it says otherwise)
  uint64_t min_bytes = 1u << 20;                     // ZCOLL_PMPI_MIN_BYTES
  std::string comms = "*";                           // ZCOLL_PMPI_COMMS
  bool report = false;                               // ZCOLL_PMPI_REPORT
  bool verify = false;                               // ZCOLL_PMPI_VERIFY
  std::string eb_text;                               // "abs 1e-3", for the report
};
const Settings& settings();
// Read the environment once (after PMPI_Init). False with *message set when the
// shim is asked for (ZCOLL_PMPI=1) but misconfigured; disabled (enabled =
// false, true returned) when ZCOLL_PMPI is unset or 0.
bool load_settings(std::string* message);

// The datatype zcoll runs for `dt` (MPI_FLOAT / MPI_DOUBLE) when dt is one the
// user allowed, else MPI_DATATYPE_NULL. Predefined handles only: derived
// types never match.
MPI_Datatype zcoll_type(MPI_Datatype dt);
bool op_allowed(MPI_Op op);

// ---- state (intercept.cc) -------------------------------------------------------
// Whether a call should be considered at all: enabled, between MPI_Init and
// MPI_Finalize, and MPI_Pcontrol's level is not 0.
bool active();
[[noreturn]] void die(MPI_Comm comm, const char* fmt, ...) __attribute__((format(printf, 2, 3)));

// ---- handle cache (handles.cc) -----------------------------------------------------
// Create the keyval (at MPI_Init).
void init_cache();
// The zcoll handle of comm, created at its first eligible call: collective
// over comm, so every rank must call it at the same call (the callers decide
// from arguments that MPI requires to match). nullptr: this communicator passes
// through (its name does not match ZCOLL_PMPI_COMMS, or the handle could not be
// made).
zcoll_comm* handle_for(MPI_Comm comm);
// Whether comm's handle runs nonblocking calls on a progress thread on every
// rank of comm (agreed when the handle was made); false without a handle. The
// nonblocking calls (MPI_Iallreduce & co.) go to zcoll only then.
bool handle_overlaps(MPI_Comm comm);
// MPI_Finalize: free every live handle in the order they were created, then the keyval.
void release_handles();
int handles_created();

// ---- counters, report, verification (report.cc) ---------------------------------
void count_call(Coll c, double seconds);
void count_compressed(Coll c, const zcoll_report& r);  // also from a progress thread
void count_nested();
// Collective over MPI_COMM_WORLD: rank 0 prints the table to stderr.
void print_report();

// ZCOLL_PMPI_VERIFY: the exact result (computed before the zcoll call) and the
// compressed one (after); aborts with a message when |got - exact| leaves the
// reported bound plus the datatype's rounding allowance.
struct Verify {
  Coll coll;
  MPI_Comm comm;
  MPI_Datatype zdt = MPI_DATATYPE_NULL;  // MPI_FLOAT or MPI_DOUBLE
  MPI_Op op = MPI_OP_NULL;               // MPI_OP_NULL for data movement
  std::string exact;                     // bytes of this rank's exact result
  size_t out_n = 0;                      // values of this rank's result
  double input_absmax = 0;               // max |input| over all ranks (reductions)
  // the input (for input_absmax): before the zcoll call
  void note_input(const void* in, size_t n);
  void check(const void* got, const zcoll_report& r);
};

// ---- the exact calls of ZCOLL_PMPI_VERIFY (exact.cc): the MPI library's
// collectives through PMPI_* (src/transport/mpi_large_count.h compiled with
// pmpi_redirect.h), counts of any size.
namespace exact {
int allreduce(const void* sb, void* rb, MPI_Count n, MPI_Datatype dt, MPI_Op op, MPI_Comm comm);
int reduce_scatter_block(const void* sb, void* rb, MPI_Count n, MPI_Datatype dt, MPI_Op op,
                         MPI_Comm comm);
int reduce_scatter(const void* sb, void* rb, const size_t* counts, int size, MPI_Datatype dt,
                   MPI_Op op, MPI_Comm comm);
int reduce(const void* sb, void* rb, MPI_Count n, MPI_Datatype dt, MPI_Op op, int root,
           MPI_Comm comm);
int allgather(const void* sb, void* rb, MPI_Count n, MPI_Datatype dt, MPI_Comm comm);
int bcast(void* buf, MPI_Count n, MPI_Datatype dt, int root, MPI_Comm comm);
int scatter(const void* sb, void* rb, MPI_Count n, MPI_Datatype dt, int root, MPI_Comm comm);
int gather(const void* sb, void* rb, MPI_Count n, MPI_Datatype dt, int root, MPI_Comm comm);
}  // namespace exact

}  // namespace zcoll::pmpi
