// intercept.cc — the MPI_* entry points that libzcoll_pmpi.so defines (and so
// takes from the MPI library when preloaded or linked before it): the eight
// collectives zcoll has (and their MPI-4 `_c` forms), six of their
// nonblocking forms (MPI_Iallreduce, _Ireduce_scatter_block, _Ireduce_scatter,
// _Ireduce, _Iallgather, _Ibcast, and `_c`), MPI_Init / _thread /
// MPI_Finalize for setup and the report, and MPI_Pcontrol. Each one passes
// straight to its PMPI_* twin unless the shim is on and the call is eligible
// (docs/pmpi.md, "What is compressed"): then zcoll's collective runs instead.
//
// The rule that keeps the ranks together: whether a call goes to zcoll may
// depend only on what MPI requires to match across ranks. Reductions must
// pass the same count, datatype and op on every rank, so they decide locally.
// The data-movement calls require only equal type signatures (one rank may
// pass a derived type where another passes MPI_FLOAT), so their byte count
// (equal everywhere) decides whether to look further, and one small
// PMPI_Allreduce then checks that every rank has the same eligible datatype
// and count before zcoll runs.
//
// This file is compiled WITHOUT pmpi_redirect.h (it defines the MPI_ names).
#include <mpi.h>

#include <chrono>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "coll/control/algorithms.h"
#include "coll/control/collective.h"
#include "coll/control/comm.h"
#include "coll/api/nonblocking.h"
#include "pmpi/shim.h"

#define ZCOLL_PMPI_EXPORT __attribute__((visibility("default")))

namespace zcoll::pmpi {

namespace {

bool g_ready = false;       // settings read (after PMPI_Init)
bool g_finalizing = false;  // inside MPI_Finalize
int g_level = 1;            // MPI_Pcontrol

// Re-entrancy guard: a call that arrives while this thread is already inside
// one of the shim's entry points passes straight through (and is counted).
thread_local int t_depth = 0;
struct Depth {
  const bool nested;
  Depth() : nested(t_depth > 0) { ++t_depth; }
  ~Depth() { --t_depth; }
  Depth(const Depth&) = delete;
  Depth& operator=(const Depth&) = delete;
};

void setup() {
  if (g_ready) return;
  g_ready = true;
  std::string message;
  if (!load_settings(&message)) die(MPI_COMM_WORLD, "%s", message.c_str());
  if (settings().enabled) init_cache();
}

size_t esize(MPI_Datatype zdt) { return zdt == MPI_DOUBLE ? sizeof(double) : sizeof(float); }

// bytes of `count` elements of dt (0 when the library cannot tell)
double type_bytes(MPI_Count count, MPI_Datatype dt) {
  MPI_Count size = 0;
  if (dt == MPI_DATATYPE_NULL || PMPI_Type_size_x(dt, &size) != MPI_SUCCESS || size < 0) return 0;
  return static_cast<double>(count) * static_cast<double>(size);
}

int comm_rank(MPI_Comm comm) {
  int r = 0;
  PMPI_Comm_rank(comm, &r);
  return r;
}
int comm_size(MPI_Comm comm) {
  int s = 0;
  PMPI_Comm_size(comm, &s);
  return s;
}

// The values of the whole call with `count` per rank where the collective has
// blocks (the collective traits table); a negative count stays negative.
MPI_Count call_count(Coll coll, MPI_Count count, MPI_Comm comm) {
  if (count < 0) return count;
  zcoll::coll::Call k =
      zcoll::coll::Call::of(coll, nullptr, nullptr, static_cast<size_t>(count), MPI_DATATYPE_NULL);
  k.block = true;
  return static_cast<MPI_Count>(zcoll::coll::total_values(k, comm_size(comm)));
}

// This rank's side of a call zcoll runs, from the collective traits table
// (collective.h): whether it is in place, where its input is then (a
// reduction's: ZCOLL_PMPI_VERIFY notes it), the values of its input and of its
// receive buffer, and the values of its result to verify (none where the
// result is its own input left in place: Bcast's root, Scatter's root with
// MPI_IN_PLACE).
struct Shape {
  bool in_place = false;
  const void* in = nullptr;  // nullptr for data movement
  size_t in_n = 0, recv_n = 0, out_n = 0;
};

Shape shape_of(Coll coll, const void* sb, void* rb, size_t count, const size_t* counts, int root,
               MPI_Comm comm, MPI_Datatype zdt) {
  zcoll::coll::Call k = zcoll::coll::Call::of(coll, sb, rb, count, zdt, MPI_OP_NULL, root);
  k.recvcounts = counts;
  k.block = counts == nullptr;
  const int size = comm_size(comm), rank = comm_rank(comm);
  const zcoll::coll::CollectiveTraits& t = zcoll::coll::traits(coll);
  std::vector<size_t> c(static_cast<size_t>(size)), d(static_cast<size_t>(size));
  const zcoll::coll::Args a = zcoll::coll::bind_args(k, size, rank, esize(zdt), c.data(), d.data());
  Shape s;
  s.in_place = a.in_place;
  s.in_n = zcoll::coll::input_values(k, size, rank);
  if (t.reduction) s.in = a.in;
  s.recv_n = zcoll::coll::output_values(k, size, rank);
  const bool own = t.in_place == zcoll::coll::InPlace::kNone            ? rank == root
                   : t.in_place == zcoll::coll::InPlace::kRootSendBlock ? a.in_place
                                                                        : false;
  s.out_n = own ? 0 : s.recv_n;
  return s;
}

// What a call asks for, from its arguments (computed only when the shim is on).
struct Call {
  Coll coll;
  MPI_Comm comm;
  double bytes = 0;                      // the whole result's bytes: equal on every rank
  MPI_Datatype zdt = MPI_DATATYPE_NULL;  // this rank's datatype for zcoll (NULL: not eligible)
  MPI_Count count = 0;                   // this rank's count for zcoll
  bool agree = false;                    // data movement: check zdt and count across ranks
  bool agree_later = false;              // the same, done by the nonblocking call's job
};

template <typename Pass, typename Run>
int route(const Call& c, Pass& pass, Run& run) {
  const Settings& s = settings();
  if (!s.coll[c.coll] || c.bytes <= 0 || c.bytes < static_cast<double>(s.min_bytes)) return pass();
  if (c.comm == MPI_COMM_NULL) return pass();
  int inter = 0;
  if (PMPI_Comm_test_inter(c.comm, &inter) != MPI_SUCCESS || inter) return pass();
  if (comm_size(c.comm) < 2) return pass();
  if (!c.agree && !c.agree_later && c.zdt == MPI_DATATYPE_NULL) return pass();
  zcoll_comm* zc = handle_for(c.comm);
  if (!zc) return pass();
  if (c.agree) {
    const long long code = c.zdt == MPI_FLOAT ? 1 : c.zdt == MPI_DOUBLE ? 2 : 0;
    long long v[4] = {code, -code, static_cast<long long>(c.count),
                      -static_cast<long long>(c.count)};
    PMPI_Allreduce(MPI_IN_PLACE, v, 4, MPI_LONG_LONG, MPI_MAX, c.comm);
    if (v[0] != -v[1] || v[2] != -v[3] || v[0] <= 0) return pass();
  }
  return run(zc, c.zdt);
}

// Every intercepted collective: guard, on/off, routing, counting. `describe`
// runs only when the shim is on (a disabled shim costs one branch).
template <typename Describe, typename Pass, typename Run>
int intercept(Coll coll, Describe&& describe, Pass&& pass, Run&& run) {
  Depth depth;
  if (depth.nested) {
    if (g_ready && settings().enabled) count_nested();
    return pass();
  }
  if (!active()) return pass();
  const double t0 = PMPI_Wtime();
  const Call c = describe();
  const int rc = route(c, pass, run);
  count_call(coll, PMPI_Wtime() - t0);
  return rc;
}


// Run zcoll's collective (zcall) with ZCOLL_PMPI_VERIFY's exact call before it
// when asked; in/in_n: this rank's reduction input (nullptr for data
// movement); out/out_n: where this rank's result is afterwards.
template <typename Exact, typename Zcall>
int run_zcoll(zcoll_comm* zc, Coll coll, MPI_Comm comm, MPI_Datatype zdt, MPI_Op op, const void* in,
              size_t in_n, const void* out, size_t out_n, Exact&& exact, Zcall&& zcall) {
  const bool verify = settings().verify;
  Verify v;
  if (verify) {
    v.coll = coll;
    v.comm = comm;
    v.zdt = zdt;
    v.op = op;
    v.out_n = out_n;
    if (in) v.note_input(in, in_n);
    if (exact(v.exact) != MPI_SUCCESS) die(comm, "ZCOLL_PMPI_VERIFY: the exact call failed");
  }
  const zcoll_status st = zcall();
  if (st != ZCOLL_SUCCESS)
    die(comm, "zcoll_%s failed (%s): %s", coll_word(coll), zcoll_status_string(st),
        zcoll_last_error());
  zcoll_report r = ZCOLL_REPORT_INITIALIZER;
  zcoll_comm_last_report(zc, &r);
  count_compressed(coll, r);
  if (verify) v.check(out, r);
  return MPI_SUCCESS;
}

// A copy of n bytes at p (the in-place input of an exact call).
std::string copy(const void* p, size_t n) { return std::string(static_cast<const char*>(p), n); }
// At least one byte, so that data() is a valid buffer even for an empty result.
void room(std::string& s, size_t n) { s.assign(n > 0 ? n : 1, '\0'); }

// ---- eligibility: which call this is (blocking and nonblocking forms) ------------
// Each returns the Call that intercept() decides on: zdt MPI_DATATYPE_NULL
// passes the call through.

// A reduction with one count on every rank (Allreduce, Reduce,
// Reduce_scatter_block): decided locally.
Call reduction_call(Coll coll, MPI_Comm comm, MPI_Count count, MPI_Datatype dt, MPI_Op op) {
  Call c{coll, comm};
  c.zdt = count > 0 && op_allowed(op) ? zcoll_type(dt) : MPI_DATATYPE_NULL;
  c.count = count;
  if (c.zdt != MPI_DATATYPE_NULL)
    c.bytes = static_cast<double>(call_count(coll, count, comm)) * esize(c.zdt);
  return c;
}

// Reduce_scatter with per-rank counts (copied to *counts as size_t).
template <typename Count>
Call reduce_scatter_call(MPI_Comm comm, const Count* recvcounts, MPI_Datatype dt, MPI_Op op,
                         std::vector<size_t>* counts) {
  Call c{ZCOLL_COLL_REDUCE_SCATTER, comm};
  int inter = 0;
  PMPI_Comm_test_inter(comm, &inter);
  if (inter || !op_allowed(op) || !recvcounts) return c;  // passes through
  const int size = comm_size(comm);
  double total = 0;
  bool ok = true;
  counts->resize(static_cast<size_t>(size));
  for (int i = 0; i < size; ++i) {
    ok = ok && recvcounts[i] >= 0;
    (*counts)[i] = static_cast<size_t>(recvcounts[i] < 0 ? 0 : recvcounts[i]);
    total += static_cast<double>((*counts)[i]);
  }
  c.zdt = ok && total > 0 ? zcoll_type(dt) : MPI_DATATYPE_NULL;
  c.count = static_cast<MPI_Count>(total);
  if (c.zdt != MPI_DATATYPE_NULL) c.bytes = total * esize(c.zdt);
  return c;
}

// Allgather (data movement: the ranks' agreement follows, see the top).
Call allgather_call(MPI_Comm comm, const void* sb, MPI_Count scount, MPI_Datatype stype,
                    MPI_Count rcount, MPI_Datatype rtype) {
  Call c{ZCOLL_COLL_ALLGATHER, comm};
  int inter = 0;
  PMPI_Comm_test_inter(comm, &inter);
  if (inter) return c;
  c.bytes = type_bytes(call_count(ZCOLL_COLL_ALLGATHER, rcount, comm), rtype);
  const bool same = sb == MPI_IN_PLACE || (stype == rtype && scount == rcount);
  c.zdt = same && rcount > 0 ? zcoll_type(rtype) : MPI_DATATYPE_NULL;
  c.count = rcount;
  return c;
}

// Bcast (data movement).
Call bcast_call(MPI_Comm comm, MPI_Count count, MPI_Datatype dt) {
  Call c{ZCOLL_COLL_BCAST, comm};
  c.bytes = type_bytes(call_count(ZCOLL_COLL_BCAST, count, comm), dt);
  c.zdt = count > 0 ? zcoll_type(dt) : MPI_DATATYPE_NULL;
  c.count = count;
  return c;
}

// ---- the collectives -------------------------------------------------------------

template <typename Pass>
int allreduce(const void* sb, void* rb, MPI_Count count, MPI_Datatype dt, MPI_Op op, MPI_Comm comm,
              Pass&& pass) {
  return intercept(
      ZCOLL_COLL_ALLREDUCE,
      [&] { return reduction_call(ZCOLL_COLL_ALLREDUCE, comm, count, dt, op); }, pass,
      [&](zcoll_comm* zc, MPI_Datatype zdt) {
        const size_t n = static_cast<size_t>(count), es = esize(zdt);
        const Shape sh = shape_of(ZCOLL_COLL_ALLREDUCE, sb, rb, n, nullptr, 0, comm, zdt);
        return run_zcoll(
            zc, ZCOLL_COLL_ALLREDUCE, comm, zdt, op, sh.in, sh.in_n, rb, sh.out_n,
            [&](std::string& e) {
              if (sh.in_place) {
                e = copy(rb, sh.in_n * es);
                return exact::allreduce(MPI_IN_PLACE, e.data(), count, dt, op, comm);
              }
              room(e, sh.recv_n * es);
              return exact::allreduce(sb, e.data(), count, dt, op, comm);
            },
            [&] { return zcoll_allreduce(zc, sb, rb, n, zdt, op); });
      });
}

template <typename Pass>
int reduce(const void* sb, void* rb, MPI_Count count, MPI_Datatype dt, MPI_Op op, int root,
           MPI_Comm comm, Pass&& pass) {
  return intercept(
      ZCOLL_COLL_REDUCE, [&] { return reduction_call(ZCOLL_COLL_REDUCE, comm, count, dt, op); },
      pass,
      [&](zcoll_comm* zc, MPI_Datatype zdt) {
        const size_t n = static_cast<size_t>(count), es = esize(zdt);
        const Shape sh = shape_of(ZCOLL_COLL_REDUCE, sb, rb, n, nullptr, root, comm, zdt);
        return run_zcoll(
            zc, ZCOLL_COLL_REDUCE, comm, zdt, op, sh.in, sh.in_n, rb, sh.out_n,
            [&](std::string& e) {
              if (sh.in_place) {
                e = copy(rb, sh.in_n * es);
                return exact::reduce(MPI_IN_PLACE, e.data(), count, dt, op, root, comm);
              }
              room(e, sh.recv_n * es);
              return exact::reduce(sb, e.data(), count, dt, op, root, comm);
            },
            [&] { return zcoll_reduce(zc, sb, rb, n, zdt, op, root); });
      });
}

template <typename Pass>
int reduce_scatter_block(const void* sb, void* rb, MPI_Count count, MPI_Datatype dt, MPI_Op op,
                         MPI_Comm comm, Pass&& pass) {
  return intercept(
      ZCOLL_COLL_REDUCE_SCATTER,
      [&] { return reduction_call(ZCOLL_COLL_REDUCE_SCATTER, comm, count, dt, op); }, pass,
      [&](zcoll_comm* zc, MPI_Datatype zdt) {
        const size_t n = static_cast<size_t>(count), es = esize(zdt);
        const Shape sh = shape_of(ZCOLL_COLL_REDUCE_SCATTER, sb, rb, n, nullptr, 0, comm, zdt);
        return run_zcoll(
            zc, ZCOLL_COLL_REDUCE_SCATTER, comm, zdt, op, sh.in, sh.in_n, rb, sh.out_n,
            [&](std::string& e) {
              if (sh.in_place) {
                e = copy(rb, sh.in_n * es);
                return exact::reduce_scatter_block(MPI_IN_PLACE, e.data(), count, dt, op, comm);
              }
              room(e, sh.recv_n * es);
              return exact::reduce_scatter_block(sb, e.data(), count, dt, op, comm);
            },
            [&] { return zcoll_reduce_scatter_block(zc, sb, rb, n, zdt, op); });
      });
}

template <typename Count, typename Pass>
int reduce_scatter(const void* sb, void* rb, const Count* recvcounts, MPI_Datatype dt, MPI_Op op,
                   MPI_Comm comm, Pass&& pass) {
  std::vector<size_t> counts;
  return intercept(
      ZCOLL_COLL_REDUCE_SCATTER,
      [&] { return reduce_scatter_call(comm, recvcounts, dt, op, &counts); }, pass,
      [&](zcoll_comm* zc, MPI_Datatype zdt) {
        const size_t es = esize(zdt);
        const Shape sh =
            shape_of(ZCOLL_COLL_REDUCE_SCATTER, sb, rb, 0, counts.data(), 0, comm, zdt);
        return run_zcoll(
            zc, ZCOLL_COLL_REDUCE_SCATTER, comm, zdt, op, sh.in, sh.in_n, rb, sh.out_n,
            [&](std::string& e) {
              const int size = static_cast<int>(counts.size());
              if (sh.in_place) {
                e = copy(rb, sh.in_n * es);
                return exact::reduce_scatter(MPI_IN_PLACE, e.data(), counts.data(), size, dt, op,
                                             comm);
              }
              room(e, sh.recv_n * es);
              return exact::reduce_scatter(sb, e.data(), counts.data(), size, dt, op, comm);
            },
            [&] { return zcoll_reduce_scatter(zc, sb, rb, counts.data(), zdt, op); });
      });
}

template <typename Pass>
int allgather(const void* sb, MPI_Count scount, MPI_Datatype stype, void* rb, MPI_Count rcount,
              MPI_Datatype rtype, MPI_Comm comm, Pass&& pass) {
  return intercept(
      ZCOLL_COLL_ALLGATHER,
      [&] {
        Call c = allgather_call(comm, sb, scount, stype, rcount, rtype);
        c.agree = true;
        return c;
      },
      pass,
      [&](zcoll_comm* zc, MPI_Datatype zdt) {
        const size_t n = static_cast<size_t>(rcount), es = esize(zdt);
        const Shape sh = shape_of(ZCOLL_COLL_ALLGATHER, sb, rb, n, nullptr, 0, comm, zdt);
        return run_zcoll(
            zc, ZCOLL_COLL_ALLGATHER, comm, zdt, MPI_OP_NULL, nullptr, 0, rb, sh.out_n,
            [&](std::string& e) {
              if (sh.in_place) {
                e = copy(rb, sh.recv_n * es);
                return exact::allgather(MPI_IN_PLACE, e.data(), rcount, rtype, comm);
              }
              room(e, sh.recv_n * es);
              return exact::allgather(sb, e.data(), rcount, rtype, comm);
            },
            [&] { return zcoll_allgather(zc, sb, rb, n, zdt); });
      });
}

template <typename Pass>
int bcast(void* buf, MPI_Count count, MPI_Datatype dt, int root, MPI_Comm comm, Pass&& pass) {
  return intercept(
      ZCOLL_COLL_BCAST,
      [&] {
        Call c = bcast_call(comm, count, dt);
        c.agree = true;
        return c;
      },
      pass,
      [&](zcoll_comm* zc, MPI_Datatype zdt) {
        const size_t n = static_cast<size_t>(count), es = esize(zdt);
        const Shape sh = shape_of(ZCOLL_COLL_BCAST, nullptr, buf, n, nullptr, root, comm, zdt);
        return run_zcoll(
            zc, ZCOLL_COLL_BCAST, comm, zdt, MPI_OP_NULL, nullptr, 0, buf, sh.out_n,
            [&](std::string& e) {
              if (comm_rank(comm) == root)  // its buffer is the input
                e = copy(buf, sh.recv_n * es);
              else
                room(e, sh.recv_n * es);
              return exact::bcast(e.data(), count, dt, root, comm);
            },
            [&] { return zcoll_bcast(zc, buf, n, zdt, root); });
      });
}

template <typename Pass>
int scatter(const void* sb, MPI_Count scount, MPI_Datatype stype, void* rb, MPI_Count rcount,
            MPI_Datatype rtype, int root, MPI_Comm comm, Pass&& pass) {
  MPI_Datatype mine = rtype;  // the datatype and count this rank moves
  MPI_Count n_mine = rcount;
  return intercept(
      ZCOLL_COLL_SCATTER,
      [&] {
        Call c{ZCOLL_COLL_SCATTER, comm};
        c.agree = true;
        int inter = 0;
        PMPI_Comm_test_inter(comm, &inter);
        if (inter) return c;
        bool same = true;
        if (comm_rank(comm) == root) {
          if (rb == MPI_IN_PLACE) {
            mine = stype, n_mine = scount;
          } else {
            same = stype == rtype && scount == rcount;
          }
        }
        c.bytes = type_bytes(call_count(c.coll, n_mine, comm), mine);
        c.zdt = same && n_mine > 0 ? zcoll_type(mine) : MPI_DATATYPE_NULL;
        c.count = n_mine;
        return c;
      },
      pass,
      [&](zcoll_comm* zc, MPI_Datatype zdt) {
        const size_t n = static_cast<size_t>(n_mine);
        const Shape sh = shape_of(ZCOLL_COLL_SCATTER, sb, rb, n, nullptr, root, comm, zdt);
        return run_zcoll(
            zc, ZCOLL_COLL_SCATTER, comm, zdt, MPI_OP_NULL, nullptr, 0, rb, sh.out_n,
            [&](std::string& e) {
              room(e, sh.recv_n * esize(zdt));
              return exact::scatter(sb, sh.in_place ? MPI_IN_PLACE : e.data(), n_mine, mine, root,
                                    comm);
            },
            [&] { return zcoll_scatter(zc, sb, rb, n, zdt, root); });
      });
}

template <typename Pass>
int gather(const void* sb, MPI_Count scount, MPI_Datatype stype, void* rb, MPI_Count rcount,
           MPI_Datatype rtype, int root, MPI_Comm comm, Pass&& pass) {
  MPI_Datatype mine = stype;
  MPI_Count n_mine = scount;
  bool at_root = false;
  return intercept(
      ZCOLL_COLL_GATHER,
      [&] {
        Call c{ZCOLL_COLL_GATHER, comm};
        c.agree = true;
        int inter = 0;
        PMPI_Comm_test_inter(comm, &inter);
        if (inter) return c;
        bool same = true;
        at_root = comm_rank(comm) == root;
        if (at_root) {
          mine = rtype, n_mine = rcount;
          same = sb == MPI_IN_PLACE || (stype == rtype && scount == rcount);
        }
        c.bytes = type_bytes(call_count(c.coll, n_mine, comm), mine);
        c.zdt = same && n_mine > 0 ? zcoll_type(mine) : MPI_DATATYPE_NULL;
        c.count = n_mine;
        return c;
      },
      pass,
      [&](zcoll_comm* zc, MPI_Datatype zdt) {
        const size_t n = static_cast<size_t>(n_mine), es = esize(zdt);
        const Shape sh = shape_of(ZCOLL_COLL_GATHER, sb, rb, n, nullptr, root, comm, zdt);
        return run_zcoll(
            zc, ZCOLL_COLL_GATHER, comm, zdt, MPI_OP_NULL, nullptr, 0, rb, sh.out_n,
            [&](std::string& e) {
              if (sh.in_place) {
                e = copy(rb, sh.recv_n * es);
                return exact::gather(MPI_IN_PLACE, e.data(), n_mine, mine, root, comm);
              }
              room(e, sh.recv_n * es);
              return exact::gather(sb, e.data(), n_mine, mine, root, comm);
            },
            [&] { return zcoll_gather(zc, sb, rb, n, zdt, root); });
      });
}

// ---- the nonblocking collectives -------------------------------------------------
// An eligible MPI_I<coll> (the blocking call's rules, and a handle whose ranks
// all run nonblocking calls on a progress thread, i.e. MPI_THREAD_MULTIPLE:
// handle_overlaps) starts zcoll's nonblocking call; the application gets an
// MPI generalized request, which the progress thread completes
// (MPI_Grequest_complete) when zcoll's call has run, so that MPI_Wait, _Test,
// _Waitall & co. work on it as on any request. Otherwise the call passes
// through (PMPI_I<coll>): it never becomes blocking.
//
// Data movement (MPI_Iallgather, MPI_Ibcast) decides like the blocking call,
// on the equal byte count first; the check that every rank has the same
// eligible datatype and count (a small allreduce) is made by the call's job on
// the progress thread, over the handle's own communicator, in the handle's
// order; when it fails the job runs the MPI library's collective there.
// ZCOLL_PMPI_VERIFY checks the blocking calls only.

// One intercepted nonblocking call: zcoll's request and the application's.
struct NbCall {
  Coll coll;
  MPI_Comm comm;
  zcoll_request* zr = nullptr;
  MPI_Request greq = MPI_REQUEST_NULL;
};

int nb_query(void*, MPI_Status* st) {
  PMPI_Status_set_elements(st, MPI_BYTE, 0);
  PMPI_Status_set_cancelled(st, 0);
  st->MPI_SOURCE = MPI_UNDEFINED;
  st->MPI_TAG = MPI_UNDEFINED;
  return MPI_SUCCESS;
}
// MPI frees the generalized request (completed, and waited for or freed).
int nb_free(void* extra) {
  NbCall* c = static_cast<NbCall*>(extra);
  zcoll_request_free(c->zr);
  delete c;
  return MPI_SUCCESS;
}
int nb_cancel(void*, int) { return MPI_SUCCESS; }  // a started collective runs to its end

// zcoll's request is complete: on the progress thread (or on the caller's, at
// the start, if it already was). Like a blocking call, a failure ends the job.
void nb_done(void* extra) {
  NbCall* c = static_cast<NbCall*>(extra);
  zcoll_report r = ZCOLL_REPORT_INITIALIZER;
  const zcoll_status st = zcoll_wait(c->zr, &r);  // complete: returns at once
  if (st != ZCOLL_SUCCESS)
    die(c->comm, "zcoll nonblocking %s failed (%s): %s", coll_word(c->coll),
        zcoll_status_string(st), zcoll_last_error());
  count_compressed(c->coll, r);
  const MPI_Request g = c->greq;
  PMPI_Grequest_complete(g);  // c may be gone from here on (nb_free)
}

// The application's request first, then zcoll's call (start(&zr)).
template <typename Start>
int start_nb(Coll coll, MPI_Comm comm, MPI_Request* request, Start&& start) {
  NbCall* c = new NbCall{coll, comm};
  if (PMPI_Grequest_start(nb_query, nb_free, nb_cancel, c, &c->greq) != MPI_SUCCESS)
    die(comm, "MPI_Grequest_start failed");
  *request = c->greq;
  const zcoll_status st = start(&c->zr);
  if (st != ZCOLL_SUCCESS)
    die(comm, "zcoll nonblocking %s did not start (%s): %s", coll_word(coll),
        zcoll_status_string(st), zcoll_last_error());
  zcoll::coll::on_complete(c->zr, nb_done, c);
  return MPI_SUCCESS;
}

template <typename Pass>
int iallreduce(const void* sb, void* rb, MPI_Count count, MPI_Datatype dt, MPI_Op op, MPI_Comm comm,
               MPI_Request* req, Pass&& pass) {
  return intercept(
      ZCOLL_COLL_ALLREDUCE,
      [&] { return reduction_call(ZCOLL_COLL_ALLREDUCE, comm, count, dt, op); }, pass,
      [&](zcoll_comm* zc, MPI_Datatype zdt) {
        if (!handle_overlaps(comm)) return pass();
        return start_nb(ZCOLL_COLL_ALLREDUCE, comm, req, [&](zcoll_request** q) {
          return zcoll_iallreduce(zc, sb, rb, static_cast<size_t>(count), zdt, op, q);
        });
      });
}

template <typename Pass>
int ireduce(const void* sb, void* rb, MPI_Count count, MPI_Datatype dt, MPI_Op op, int root,
            MPI_Comm comm, MPI_Request* req, Pass&& pass) {
  return intercept(
      ZCOLL_COLL_REDUCE, [&] { return reduction_call(ZCOLL_COLL_REDUCE, comm, count, dt, op); },
      pass,
      [&](zcoll_comm* zc, MPI_Datatype zdt) {
        if (!handle_overlaps(comm)) return pass();
        return start_nb(ZCOLL_COLL_REDUCE, comm, req, [&](zcoll_request** q) {
          return zcoll_ireduce(zc, sb, rb, static_cast<size_t>(count), zdt, op, root, q);
        });
      });
}

template <typename Pass>
int ireduce_scatter_block(const void* sb, void* rb, MPI_Count count, MPI_Datatype dt, MPI_Op op,
                          MPI_Comm comm, MPI_Request* req, Pass&& pass) {
  return intercept(
      ZCOLL_COLL_REDUCE_SCATTER,
      [&] { return reduction_call(ZCOLL_COLL_REDUCE_SCATTER, comm, count, dt, op); }, pass,
      [&](zcoll_comm* zc, MPI_Datatype zdt) {
        if (!handle_overlaps(comm)) return pass();
        return start_nb(ZCOLL_COLL_REDUCE_SCATTER, comm, req, [&](zcoll_request** q) {
          return zcoll_ireduce_scatter_block(zc, sb, rb, static_cast<size_t>(count), zdt, op, q);
        });
      });
}

template <typename Count, typename Pass>
int ireduce_scatter(const void* sb, void* rb, const Count* recvcounts, MPI_Datatype dt, MPI_Op op,
                    MPI_Comm comm, MPI_Request* req, Pass&& pass) {
  std::vector<size_t> counts;
  return intercept(
      ZCOLL_COLL_REDUCE_SCATTER,
      [&] { return reduce_scatter_call(comm, recvcounts, dt, op, &counts); }, pass,
      [&](zcoll_comm* zc, MPI_Datatype zdt) {
        if (!handle_overlaps(comm)) return pass();
        return start_nb(ZCOLL_COLL_REDUCE_SCATTER, comm, req, [&](zcoll_request** q) {
          return zcoll_ireduce_scatter(zc, sb, rb, counts.data(), zdt, op, q);  // counts copied
        });
      });
}

// The job of a nonblocking data-movement call: the eligibility check across
// the ranks (on the handle's communicator), then zcoll's call or, when a rank
// differs, the MPI library's (run).
template <typename Zcall, typename Native>
zcoll::coll::Job movement_job(MPI_Datatype zdt, MPI_Count count, Zcall zcall, Native native) {
  return [=](zcoll_comm* z, zcoll_report* rep) -> zcoll_status {
    MPI_Comm hc = zcoll::coll::handle_comm(z);
    const long long code = zdt == MPI_FLOAT ? 1 : zdt == MPI_DOUBLE ? 2 : 0;
    long long v[4] = {code, -code, static_cast<long long>(count), -static_cast<long long>(count)};
    if (PMPI_Allreduce(MPI_IN_PLACE, v, 4, MPI_LONG_LONG, MPI_MAX, hc) != MPI_SUCCESS)
      return ZCOLL_ERR_MPI;
    if (v[0] == -v[1] && v[2] == -v[3] && v[0] > 0) {
      const zcoll_status st = zcall(z);  // blocking: on the progress thread it runs now
      zcoll_comm_last_report(z, rep);
      return st;
    }
    rep->mode = ZCOLL_MODE_MPI;
    return native(hc) == MPI_SUCCESS ? ZCOLL_SUCCESS : ZCOLL_ERR_MPI;
  };
}

template <typename Pass>
int iallgather(const void* sb, MPI_Count scount, MPI_Datatype stype, void* rb, MPI_Count rcount,
               MPI_Datatype rtype, MPI_Comm comm, MPI_Request* req, Pass&& pass) {
  return intercept(
      ZCOLL_COLL_ALLGATHER,
      [&] {
        Call c = allgather_call(comm, sb, scount, stype, rcount, rtype);
        c.agree_later = true;
        return c;
      },
      pass,
      [&](zcoll_comm* zc, MPI_Datatype zdt) {
        if (!handle_overlaps(comm)) return pass();
        const size_t n = static_cast<size_t>(rcount);
        auto job = movement_job(
            zdt, rcount, [=](zcoll_comm* z) { return zcoll_allgather(z, sb, rb, n, zdt); },
            [=](MPI_Comm hc) {
#if MPI_VERSION >= 4
              return PMPI_Allgather_c(sb, scount, stype, rb, rcount, rtype, hc);
#else
              return PMPI_Allgather(sb, static_cast<int>(scount), stype, rb,
                                    static_cast<int>(rcount), rtype, hc);
#endif
            });
        return start_nb(ZCOLL_COLL_ALLGATHER, comm, req,
                        [&](zcoll_request** q) { return zcoll::coll::start_job(zc, job, q); });
      });
}

template <typename Pass>
int ibcast(void* buf, MPI_Count count, MPI_Datatype dt, int root, MPI_Comm comm, MPI_Request* req,
           Pass&& pass) {
  return intercept(
      ZCOLL_COLL_BCAST,
      [&] {
        Call c = bcast_call(comm, count, dt);
        c.agree_later = true;
        return c;
      },
      pass,
      [&](zcoll_comm* zc, MPI_Datatype zdt) {
        if (!handle_overlaps(comm)) return pass();
        const size_t n = static_cast<size_t>(count);
        auto job = movement_job(
            zdt, count, [=](zcoll_comm* z) { return zcoll_bcast(z, buf, n, zdt, root); },
            [=](MPI_Comm hc) {
#if MPI_VERSION >= 4
              return PMPI_Bcast_c(buf, count, dt, root, hc);
#else
              return PMPI_Bcast(buf, static_cast<int>(count), dt, root, hc);
#endif
            });
        return start_nb(ZCOLL_COLL_BCAST, comm, req,
                        [&](zcoll_request** q) { return zcoll::coll::start_job(zc, job, q); });
      });
}

}  // namespace

bool active() {
  if (!g_ready) {
    int init = 0, fin = 0;
    PMPI_Initialized(&init);
    PMPI_Finalized(&fin);
    if (!init || fin) return false;
    setup();  // MPI was initialised without our MPI_Init (e.g. a Fortran binding)
  }
  return settings().enabled && !g_finalizing && g_level != 0;
}

void die(MPI_Comm comm, const char* fmt, ...) {
  char text[1024];
  va_list ap;
  va_start(ap, fmt);
  std::vsnprintf(text, sizeof text, fmt, ap);
  va_end(ap);
  int rank = -1;
  PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
  std::fprintf(stderr, "zcoll-pmpi: rank %d: %s\n", rank, text);
  std::fflush(stderr);
  // The launcher kills every process on abort and may drop output it has not yet
  // forwarded: give it a moment, so that the user sees why the job stopped.
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  PMPI_Abort(comm == MPI_COMM_NULL ? MPI_COMM_WORLD : comm, 1);
  std::abort();
}

}  // namespace zcoll::pmpi

// ---- the entry points ---------------------------------------------------------------
namespace zp = zcoll::pmpi;

extern "C" {

ZCOLL_PMPI_EXPORT int MPI_Init(int* argc, char*** argv) {
  const int rc = PMPI_Init(argc, argv);
  if (rc == MPI_SUCCESS) zp::setup();
  return rc;
}

ZCOLL_PMPI_EXPORT int MPI_Init_thread(int* argc, char*** argv, int required, int* provided) {
  const int rc = PMPI_Init_thread(argc, argv, required, provided);
  if (rc == MPI_SUCCESS) zp::setup();
  return rc;
}

ZCOLL_PMPI_EXPORT int MPI_Finalize(void) {
  if (zp::g_ready && zp::settings().enabled && !zp::g_finalizing) {
    zp::release_handles();
    if (zp::settings().report) zp::print_report();
  }
  zp::g_finalizing = true;
  return PMPI_Finalize();
}

// level 0: every call passes through until a later MPI_Pcontrol with level != 0
// (all ranks must switch alike, as around any collective).
ZCOLL_PMPI_EXPORT int MPI_Pcontrol(const int level, ...) {
  zp::g_level = level;
  return PMPI_Pcontrol(level);
}

ZCOLL_PMPI_EXPORT int MPI_Allreduce(const void* sb, void* rb, int count, MPI_Datatype dt, MPI_Op op,
                                    MPI_Comm comm) {
  return zp::allreduce(sb, rb, count, dt, op, comm,
                       [&] { return PMPI_Allreduce(sb, rb, count, dt, op, comm); });
}

ZCOLL_PMPI_EXPORT int MPI_Reduce(const void* sb, void* rb, int count, MPI_Datatype dt, MPI_Op op,
                                 int root, MPI_Comm comm) {
  return zp::reduce(sb, rb, count, dt, op, root, comm,
                    [&] { return PMPI_Reduce(sb, rb, count, dt, op, root, comm); });
}

ZCOLL_PMPI_EXPORT int MPI_Reduce_scatter_block(const void* sb, void* rb, int count, MPI_Datatype dt,
                                               MPI_Op op, MPI_Comm comm) {
  return zp::reduce_scatter_block(sb, rb, count, dt, op, comm, [&] {
    return PMPI_Reduce_scatter_block(sb, rb, count, dt, op, comm);
  });
}

ZCOLL_PMPI_EXPORT int MPI_Reduce_scatter(const void* sb, void* rb, const int recvcounts[],
                                         MPI_Datatype dt, MPI_Op op, MPI_Comm comm) {
  return zp::reduce_scatter(sb, rb, recvcounts, dt, op, comm,
                            [&] { return PMPI_Reduce_scatter(sb, rb, recvcounts, dt, op, comm); });
}

ZCOLL_PMPI_EXPORT int MPI_Allgather(const void* sb, int scount, MPI_Datatype stype, void* rb,
                                    int rcount, MPI_Datatype rtype, MPI_Comm comm) {
  return zp::allgather(sb, scount, stype, rb, rcount, rtype, comm,
                       [&] { return PMPI_Allgather(sb, scount, stype, rb, rcount, rtype, comm); });
}

ZCOLL_PMPI_EXPORT int MPI_Bcast(void* buf, int count, MPI_Datatype dt, int root, MPI_Comm comm) {
  return zp::bcast(buf, count, dt, root, comm,
                   [&] { return PMPI_Bcast(buf, count, dt, root, comm); });
}

ZCOLL_PMPI_EXPORT int MPI_Scatter(const void* sb, int scount, MPI_Datatype stype, void* rb,
                                  int rcount, MPI_Datatype rtype, int root, MPI_Comm comm) {
  return zp::scatter(sb, scount, stype, rb, rcount, rtype, root, comm, [&] {
    return PMPI_Scatter(sb, scount, stype, rb, rcount, rtype, root, comm);
  });
}

ZCOLL_PMPI_EXPORT int MPI_Gather(const void* sb, int scount, MPI_Datatype stype, void* rb,
                                 int rcount, MPI_Datatype rtype, int root, MPI_Comm comm) {
  return zp::gather(sb, scount, stype, rb, rcount, rtype, root, comm,
                    [&] { return PMPI_Gather(sb, scount, stype, rb, rcount, rtype, root, comm); });
}

// ---- nonblocking ----
ZCOLL_PMPI_EXPORT int MPI_Iallreduce(const void* sb, void* rb, int count, MPI_Datatype dt,
                                     MPI_Op op, MPI_Comm comm, MPI_Request* req) {
  return zp::iallreduce(sb, rb, count, dt, op, comm, req,
                        [&] { return PMPI_Iallreduce(sb, rb, count, dt, op, comm, req); });
}

ZCOLL_PMPI_EXPORT int MPI_Ireduce(const void* sb, void* rb, int count, MPI_Datatype dt, MPI_Op op,
                                  int root, MPI_Comm comm, MPI_Request* req) {
  return zp::ireduce(sb, rb, count, dt, op, root, comm, req,
                     [&] { return PMPI_Ireduce(sb, rb, count, dt, op, root, comm, req); });
}

ZCOLL_PMPI_EXPORT int MPI_Ireduce_scatter_block(const void* sb, void* rb, int count,
                                                MPI_Datatype dt, MPI_Op op, MPI_Comm comm,
                                                MPI_Request* req) {
  return zp::ireduce_scatter_block(sb, rb, count, dt, op, comm, req, [&] {
    return PMPI_Ireduce_scatter_block(sb, rb, count, dt, op, comm, req);
  });
}

ZCOLL_PMPI_EXPORT int MPI_Ireduce_scatter(const void* sb, void* rb, const int recvcounts[],
                                          MPI_Datatype dt, MPI_Op op, MPI_Comm comm,
                                          MPI_Request* req) {
  return zp::ireduce_scatter(sb, rb, recvcounts, dt, op, comm, req, [&] {
    return PMPI_Ireduce_scatter(sb, rb, recvcounts, dt, op, comm, req);
  });
}

ZCOLL_PMPI_EXPORT int MPI_Iallgather(const void* sb, int scount, MPI_Datatype stype, void* rb,
                                     int rcount, MPI_Datatype rtype, MPI_Comm comm,
                                     MPI_Request* req) {
  return zp::iallgather(sb, scount, stype, rb, rcount, rtype, comm, req, [&] {
    return PMPI_Iallgather(sb, scount, stype, rb, rcount, rtype, comm, req);
  });
}

ZCOLL_PMPI_EXPORT int MPI_Ibcast(void* buf, int count, MPI_Datatype dt, int root, MPI_Comm comm,
                                 MPI_Request* req) {
  return zp::ibcast(buf, count, dt, root, comm, req,
                    [&] { return PMPI_Ibcast(buf, count, dt, root, comm, req); });
}

#if MPI_VERSION >= 4
// The MPI-4 large-count forms (MPICH 4; Open MPI 4.1 has none).
ZCOLL_PMPI_EXPORT int MPI_Iallreduce_c(const void* sb, void* rb, MPI_Count count, MPI_Datatype dt,
                                       MPI_Op op, MPI_Comm comm, MPI_Request* req) {
  return zp::iallreduce(sb, rb, count, dt, op, comm, req,
                        [&] { return PMPI_Iallreduce_c(sb, rb, count, dt, op, comm, req); });
}

ZCOLL_PMPI_EXPORT int MPI_Ireduce_c(const void* sb, void* rb, MPI_Count count, MPI_Datatype dt,
                                    MPI_Op op, int root, MPI_Comm comm, MPI_Request* req) {
  return zp::ireduce(sb, rb, count, dt, op, root, comm, req,
                     [&] { return PMPI_Ireduce_c(sb, rb, count, dt, op, root, comm, req); });
}

ZCOLL_PMPI_EXPORT int MPI_Ireduce_scatter_block_c(const void* sb, void* rb, MPI_Count count,
                                                  MPI_Datatype dt, MPI_Op op, MPI_Comm comm,
                                                  MPI_Request* req) {
  return zp::ireduce_scatter_block(sb, rb, count, dt, op, comm, req, [&] {
    return PMPI_Ireduce_scatter_block_c(sb, rb, count, dt, op, comm, req);
  });
}

ZCOLL_PMPI_EXPORT int MPI_Ireduce_scatter_c(const void* sb, void* rb, const MPI_Count recvcounts[],
                                            MPI_Datatype dt, MPI_Op op, MPI_Comm comm,
                                            MPI_Request* req) {
  return zp::ireduce_scatter(sb, rb, recvcounts, dt, op, comm, req, [&] {
    return PMPI_Ireduce_scatter_c(sb, rb, recvcounts, dt, op, comm, req);
  });
}

ZCOLL_PMPI_EXPORT int MPI_Iallgather_c(const void* sb, MPI_Count scount, MPI_Datatype stype,
                                       void* rb, MPI_Count rcount, MPI_Datatype rtype,
                                       MPI_Comm comm, MPI_Request* req) {
  return zp::iallgather(sb, scount, stype, rb, rcount, rtype, comm, req, [&] {
    return PMPI_Iallgather_c(sb, scount, stype, rb, rcount, rtype, comm, req);
  });
}

ZCOLL_PMPI_EXPORT int MPI_Ibcast_c(void* buf, MPI_Count count, MPI_Datatype dt, int root,
                                   MPI_Comm comm, MPI_Request* req) {
  return zp::ibcast(buf, count, dt, root, comm, req,
                    [&] { return PMPI_Ibcast_c(buf, count, dt, root, comm, req); });
}

ZCOLL_PMPI_EXPORT int MPI_Allreduce_c(const void* sb, void* rb, MPI_Count count, MPI_Datatype dt,
                                      MPI_Op op, MPI_Comm comm) {
  return zp::allreduce(sb, rb, count, dt, op, comm,
                       [&] { return PMPI_Allreduce_c(sb, rb, count, dt, op, comm); });
}

ZCOLL_PMPI_EXPORT int MPI_Reduce_c(const void* sb, void* rb, MPI_Count count, MPI_Datatype dt,
                                   MPI_Op op, int root, MPI_Comm comm) {
  return zp::reduce(sb, rb, count, dt, op, root, comm,
                    [&] { return PMPI_Reduce_c(sb, rb, count, dt, op, root, comm); });
}

ZCOLL_PMPI_EXPORT int MPI_Reduce_scatter_block_c(const void* sb, void* rb, MPI_Count count,
                                                 MPI_Datatype dt, MPI_Op op, MPI_Comm comm) {
  return zp::reduce_scatter_block(sb, rb, count, dt, op, comm, [&] {
    return PMPI_Reduce_scatter_block_c(sb, rb, count, dt, op, comm);
  });
}

ZCOLL_PMPI_EXPORT int MPI_Reduce_scatter_c(const void* sb, void* rb, const MPI_Count recvcounts[],
                                           MPI_Datatype dt, MPI_Op op, MPI_Comm comm) {
  return zp::reduce_scatter(sb, rb, recvcounts, dt, op, comm, [&] {
    return PMPI_Reduce_scatter_c(sb, rb, recvcounts, dt, op, comm);
  });
}

ZCOLL_PMPI_EXPORT int MPI_Allgather_c(const void* sb, MPI_Count scount, MPI_Datatype stype,
                                      void* rb, MPI_Count rcount, MPI_Datatype rtype,
                                      MPI_Comm comm) {
  return zp::allgather(sb, scount, stype, rb, rcount, rtype, comm, [&] {
    return PMPI_Allgather_c(sb, scount, stype, rb, rcount, rtype, comm);
  });
}

ZCOLL_PMPI_EXPORT int MPI_Bcast_c(void* buf, MPI_Count count, MPI_Datatype dt, int root,
                                  MPI_Comm comm) {
  return zp::bcast(buf, count, dt, root, comm,
                   [&] { return PMPI_Bcast_c(buf, count, dt, root, comm); });
}

ZCOLL_PMPI_EXPORT int MPI_Scatter_c(const void* sb, MPI_Count scount, MPI_Datatype stype, void* rb,
                                    MPI_Count rcount, MPI_Datatype rtype, int root, MPI_Comm comm) {
  return zp::scatter(sb, scount, stype, rb, rcount, rtype, root, comm, [&] {
    return PMPI_Scatter_c(sb, scount, stype, rb, rcount, rtype, root, comm);
  });
}

ZCOLL_PMPI_EXPORT int MPI_Gather_c(const void* sb, MPI_Count scount, MPI_Datatype stype, void* rb,
                                   MPI_Count rcount, MPI_Datatype rtype, int root, MPI_Comm comm) {
  return zp::gather(sb, scount, stype, rb, rcount, rtype, root, comm, [&] {
    return PMPI_Gather_c(sb, scount, stype, rb, rcount, rtype, root, comm);
  });
}
#endif

}  // extern "C"
