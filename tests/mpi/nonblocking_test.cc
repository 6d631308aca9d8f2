// nonblocking_test.cc — the nonblocking collectives (zcoll_iallreduce & co.,
// docs/nonblocking.md) under mpiexec -n 1..5. Every check is against two
// references: the exact result in double precision (within the reported
// bound, as coll_test.cc) and the blocking call on a twin handle made with
// the same configuration and used in the same order (the same bits, the same
// report). Groups:
//   identical  every collective x mode, f32/f64, in place or not, 20011 values;
//              and counts 0, 1, 2N+1 in mode doc (raw): start, wait, compare
//   inflight   seven calls in flight on one handle, settings changed between
//              starts, a blocking call among them, completion in start order
//              (test() polling), waits in another order
//   errors     bad arguments, a bad root, a settings mismatch on one rank: the
//              request's error on every rank, the next call correct
//   lifetime   requests freed while pending, zcoll_comm_free with pending
//              requests, a wait from another thread, a report struct too small
//   inline     (ZCOLL_PROGRESS=inline or --funneled) no progress thread: every
//              request is complete when its start returns
// Usage: nonblocking_test [--funneled] [--short] [group ...] (none = all but
// inline); --short: identical in modes mpi, doc and hom, 20011 values only.
#include <mpi.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iterator>
#include <limits>
#include <string>
#include <thread>
#include <vector>

#include "harness.h"
#include "zcoll_mpi.h"

namespace {

using zcoll_testing::g_rank;
int g_size = 1;

// ---- inputs ------------------------------------------------------------------------
uint64_t mix(uint64_t x) {
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdULL;
  x ^= x >> 33;
  x *= 0xc4ceb9fe1a85ec53ULL;
  x ^= x >> 33;
  return x;
}

// Rank p's input value i (smooth plus noise: compressible, not trivially).
double gen(int p, size_t i, int salt) {
  const double u =
      static_cast<double>(mix(i * 1315423911ULL + static_cast<uint64_t>(p) * 2654435761ULL +
                              static_cast<uint64_t>(salt) * 97) >>
                          11) *
      0x1.0p-53;
  return 20.0 * std::sin(i * 0.0007 + p + salt) + (u - 0.5) * 0.1 + p;
}

// ---- one collective call: its arguments, buffers and checks --------------------------
struct Spec {
  zcoll_collective coll = ZCOLL_COLL_ALLREDUCE;
  bool counts = false;  // reduce_scatter with per-rank counts
  bool f64 = false;
  MPI_Op op = MPI_SUM;
  size_t n = 0;  // count (per-rank block for the gather family)
  int root = 0;
  bool in_place = false;
  int salt = 0;
};

bool reduction(zcoll_collective c) {
  return c == ZCOLL_COLL_ALLREDUCE || c == ZCOLL_COLL_REDUCE_SCATTER || c == ZCOLL_COLL_REDUCE;
}

std::string describe(const Spec& s) {
  char b[200];
  std::snprintf(b, sizeof b, "%s%s %s %s n=%zu root=%d inplace=%d salt=%d N=%d",
                zcoll_collective_name(s.coll), s.counts ? "(counts)" : "", s.f64 ? "f64" : "f32",
                s.op == MPI_SUM ? "sum" : "max", s.n, s.root, s.in_place, s.salt, g_size);
  return b;
}

// The buffers of one call on this rank and what they must hold afterwards.
struct Call {
  Spec s;
  size_t vsize = 4;
  std::vector<size_t> counts, displs;     // reduce_scatter blocks
  std::vector<std::vector<double>> in;    // every rank's input (values)
  std::vector<unsigned char> send, recv;  // this rank's buffers (recv + 64 guard bytes)
  const void* sb = nullptr;
  void* rb = nullptr;
  void* scatter_rb = nullptr;

  MPI_Datatype dt() const { return s.f64 ? MPI_DOUBLE : MPI_FLOAT; }
  void put(std::vector<unsigned char>& b, size_t at, double v) const {
    if (s.f64)
      std::memcpy(b.data() + at * 8, &v, 8);
    else {
      const float f = static_cast<float>(v);
      std::memcpy(b.data() + at * 4, &f, 4);
    }
  }
  double get(const unsigned char* b, size_t at) const {
    if (s.f64) {
      double v;
      std::memcpy(&v, b + at * 8, 8);
      return v;
    }
    float f;
    std::memcpy(&f, b + at * 4, 4);
    return f;
  }
  // the value rank p puts in (as the datatype rounds it)
  double x(int p, size_t i) const { return s.f64 ? in[p][i] : static_cast<float>(in[p][i]); }
};

constexpr size_t kGuard = 64;

Call prepare(const Spec& s) {
  Call c;
  c.s = s;
  c.vsize = s.f64 ? 8 : 4;
  const int N = g_size, r = g_rank;
  size_t in_len = s.n;
  switch (s.coll) {
    case ZCOLL_COLL_REDUCE_SCATTER:
      c.counts.assign(N, s.n);
      c.displs.assign(N, 0);
      in_len = 0;
      for (int p = 0; p < N; ++p) {
        if (s.counts) c.counts[p] = s.n == 0 ? 0 : (s.n + 7 * p) % (s.n + 3);
        c.displs[p] = in_len;
        in_len += c.counts[p];
      }
      break;
    case ZCOLL_COLL_SCATTER: in_len = s.n * N; break;
    default: break;
  }
  c.in.assign(N, std::vector<double>(in_len));
  for (int p = 0; p < N; ++p)
    for (size_t i = 0; i < in_len; ++i) c.in[p][i] = gen(p, i, s.salt);
  c.send.assign(in_len * c.vsize, 0);
  for (size_t i = 0; i < in_len; ++i) c.put(c.send, i, c.in[r][i]);
  size_t out = s.n;
  const bool root = r == s.root;
  switch (s.coll) {
    case ZCOLL_COLL_REDUCE_SCATTER: out = s.in_place ? in_len : c.counts[r]; break;
    case ZCOLL_COLL_ALLGATHER: out = s.n * N; break;
    case ZCOLL_COLL_GATHER: out = root ? s.n * N : 0; break;
    case ZCOLL_COLL_REDUCE: out = root ? s.n : 0; break;
    default: break;
  }
  c.recv.assign(out * c.vsize + kGuard, 0xA5);
  c.sb = c.send.data();
  c.rb = c.recv.data();
  c.scatter_rb = c.rb;
  const size_t bytes = s.n * c.vsize;
  switch (s.coll) {
    case ZCOLL_COLL_ALLREDUCE:
    case ZCOLL_COLL_REDUCE_SCATTER:
      if (s.in_place) {
        std::memcpy(c.recv.data(), c.send.data(), c.send.size());
        c.sb = MPI_IN_PLACE;
      }
      break;
    case ZCOLL_COLL_ALLGATHER:
      if (s.in_place) {
        std::memcpy(c.recv.data() + r * bytes, c.send.data(), bytes);
        c.sb = MPI_IN_PLACE;
      }
      break;
    case ZCOLL_COLL_BCAST:
      if (root) std::memcpy(c.recv.data(), c.send.data(), bytes);
      break;
    case ZCOLL_COLL_SCATTER:
      if (!root) c.sb = nullptr;
      if (root && s.in_place) c.scatter_rb = MPI_IN_PLACE;
      break;
    case ZCOLL_COLL_REDUCE:
      if (!root) c.rb = nullptr;
      if (root && s.in_place) {
        std::memcpy(c.recv.data(), c.send.data(), bytes);
        c.sb = MPI_IN_PLACE;
      }
      break;
    case ZCOLL_COLL_GATHER:
      if (!root) c.rb = nullptr;
      if (root && s.in_place) {
        std::memcpy(c.recv.data() + r * bytes, c.send.data(), bytes);
        c.sb = MPI_IN_PLACE;
      }
      break;
    default: break;
  }
  return c;
}

zcoll_status run_blocking(zcoll_comm* zc, Call& c) {
  const Spec& s = c.s;
  switch (s.coll) {
    case ZCOLL_COLL_ALLREDUCE: return zcoll_allreduce(zc, c.sb, c.rb, s.n, c.dt(), s.op);
    case ZCOLL_COLL_REDUCE_SCATTER:
      return s.counts ? zcoll_reduce_scatter(zc, c.sb, c.rb, c.counts.data(), c.dt(), s.op)
                      : zcoll_reduce_scatter_block(zc, c.sb, c.rb, s.n, c.dt(), s.op);
    case ZCOLL_COLL_ALLGATHER: return zcoll_allgather(zc, c.sb, c.rb, s.n, c.dt());
    case ZCOLL_COLL_BCAST: return zcoll_bcast(zc, c.rb, s.n, c.dt(), s.root);
    case ZCOLL_COLL_SCATTER: return zcoll_scatter(zc, c.sb, c.scatter_rb, s.n, c.dt(), s.root);
    case ZCOLL_COLL_REDUCE: return zcoll_reduce(zc, c.sb, c.rb, s.n, c.dt(), s.op, s.root);
    case ZCOLL_COLL_GATHER: return zcoll_gather(zc, c.sb, c.rb, s.n, c.dt(), s.root);
    default: return ZCOLL_ERR_INVALID_ARG;
  }
}

zcoll_status start(zcoll_comm* zc, Call& c, zcoll_request** q) {
  const Spec& s = c.s;
  // a copy of the counts that dies at once: the library copies them at the start
  std::vector<size_t> counts = c.counts;
  zcoll_status st = ZCOLL_ERR_INVALID_ARG;
  switch (s.coll) {
    case ZCOLL_COLL_ALLREDUCE: st = zcoll_iallreduce(zc, c.sb, c.rb, s.n, c.dt(), s.op, q); break;
    case ZCOLL_COLL_REDUCE_SCATTER:
      st = s.counts ? zcoll_ireduce_scatter(zc, c.sb, c.rb, counts.data(), c.dt(), s.op, q)
                    : zcoll_ireduce_scatter_block(zc, c.sb, c.rb, s.n, c.dt(), s.op, q);
      break;
    case ZCOLL_COLL_ALLGATHER: st = zcoll_iallgather(zc, c.sb, c.rb, s.n, c.dt(), q); break;
    case ZCOLL_COLL_BCAST: st = zcoll_ibcast(zc, c.rb, s.n, c.dt(), s.root, q); break;
    case ZCOLL_COLL_SCATTER:
      st = zcoll_iscatter(zc, c.sb, c.scatter_rb, s.n, c.dt(), s.root, q);
      break;
    case ZCOLL_COLL_REDUCE: st = zcoll_ireduce(zc, c.sb, c.rb, s.n, c.dt(), s.op, s.root, q); break;
    case ZCOLL_COLL_GATHER: st = zcoll_igather(zc, c.sb, c.rb, s.n, c.dt(), s.root, q); break;
    default: break;
  }
  std::fill(counts.begin(), counts.end(), size_t{7});  // the library must not read this
  return st;
}

zcoll_report last(zcoll_comm* zc) {
  zcoll_report r = ZCOLL_REPORT_INITIALIZER;
  zcoll_comm_last_report(zc, &r);
  return r;
}

// The exact reference: the result values this rank must hold, with the
// rounding allowance of each (the reported bound comes on top).
void check_exact(const Call& c, const zcoll_report& rep, const std::string& what) {
  const Spec& s = c.s;
  const int N = g_size, r = g_rank;
  const double u = s.f64 ? std::numeric_limits<double>::epsilon() / 2
                         : std::numeric_limits<float>::epsilon() / 2;
  const unsigned char* out = c.recv.data();
  size_t first = 0, n = 0;  // result values: global index range of the reduction
  long bad = 0;
  auto reduce_check = [&](size_t gi, double y) {
    double ref = c.x(0, gi), sabs = std::fabs(ref);
    for (int p = 1; p < N; ++p) {
      const double v = c.x(p, gi);
      ref = s.op == MPI_SUM ? ref + v : std::max(ref, v);
      sabs += std::fabs(v);
    }
    double tol = rep.error_bound * (1 + 1e-9);
    tol += s.op == MPI_SUM ? (N + 3) * u * (sabs + N * rep.eb_per_compression + std::fabs(ref))
                           : 2 * u * std::fabs(ref);
    if (!(std::fabs(y - ref) <= tol) && bad++ == 0)
      std::fprintf(stderr, "[rank %d] %s: i=%zu y=%.17g ref=%.17g tol=%.3g\n", g_rank, what.c_str(),
                   gi, y, ref, tol);
  };
  auto copy_check = [&](double y, double x, size_t i) {
    const bool ok = std::fabs(y - x) <= rep.error_bound * (1 + 1e-9) + u * std::fabs(x);
    if (!ok && bad++ == 0)
      std::fprintf(stderr, "[rank %d] %s: i=%zu y=%.17g x=%.17g bound=%.3g\n", g_rank, what.c_str(),
                   i, y, x, rep.error_bound);
  };
  switch (s.coll) {
    case ZCOLL_COLL_ALLREDUCE:
      n = s.n;
      for (size_t i = 0; i < n; ++i) reduce_check(first + i, c.get(out, i));
      break;
    case ZCOLL_COLL_REDUCE_SCATTER:
      first = c.displs[r];
      n = c.counts[r];
      for (size_t i = 0; i < n; ++i) reduce_check(first + i, c.get(out, i));
      break;
    case ZCOLL_COLL_REDUCE:
      if (r == s.root)
        for (size_t i = 0; i < s.n; ++i) reduce_check(i, c.get(out, i));
      break;
    case ZCOLL_COLL_BCAST:
      for (size_t i = 0; i < s.n; ++i) copy_check(c.get(out, i), c.x(s.root, i), i);
      break;
    case ZCOLL_COLL_ALLGATHER:
      for (int p = 0; p < N; ++p)
        for (size_t i = 0; i < s.n; ++i) copy_check(c.get(out, p * s.n + i), c.x(p, i), i);
      break;
    case ZCOLL_COLL_GATHER:
      if (r == s.root)
        for (int p = 0; p < N; ++p)
          for (size_t i = 0; i < s.n; ++i) copy_check(c.get(out, p * s.n + i), c.x(p, i), i);
      break;
    case ZCOLL_COLL_SCATTER:
      if (r == s.root && s.in_place) {  // the root's block stays in sendbuf
        for (size_t i = 0; i < s.n; ++i)
          copy_check(c.get(c.send.data(), r * s.n + i), c.x(r, r * s.n + i), i);
      } else {
        for (size_t i = 0; i < s.n; ++i) copy_check(c.get(out, i), c.x(s.root, r * s.n + i), i);
      }
      break;
    default: break;
  }
  EXPECT(bad == 0, "%s: %ld values outside the reported bound %.3g", what.c_str(), bad,
         rep.error_bound);
  // nothing written past the result
  size_t used = c.recv.size() - kGuard;
  bool guard_ok = true;
  for (size_t i = 0; i < kGuard; ++i) guard_ok = guard_ok && c.recv[used + i] == 0xA5;
  EXPECT(guard_ok, "%s: wrote past the end of recvbuf", what.c_str());
}

// The nonblocking call against the blocking twin: the same bits, the same report.
void check_same(const Call& blocking, const zcoll_report& rb, const Call& nb,
                const zcoll_report& rn, const std::string& what) {
  EXPECT(blocking.recv == nb.recv, "%s: the result differs from the blocking call's", what.c_str());
  if (blocking.s.coll == ZCOLL_COLL_SCATTER && blocking.s.in_place)
    EXPECT(blocking.send == nb.send, "%s: sendbuf differs", what.c_str());
  EXPECT(rb.status == rn.status && rb.collective == rn.collective && rb.mode == rn.mode &&
             rb.algorithm == rn.algorithm && rb.count == rn.count &&
             rb.error_bound == rn.error_bound && rb.eb_per_compression == rn.eb_per_compression &&
             rb.bytes_sent == rn.bytes_sent && rb.compressions == rn.compressions &&
             rb.hom_adds == rn.hom_adds && std::strcmp(rb.reason, rn.reason) == 0,
         "%s: report differs: blocking %s/%s bound %.3g sent %llu (%s), nonblocking %s/%s bound "
         "%.3g sent %llu (%s)",
         what.c_str(), zcoll_mode_name(rb.mode), zcoll_algorithm_name(rb.algorithm), rb.error_bound,
         static_cast<unsigned long long>(rb.bytes_sent), rb.reason, zcoll_mode_name(rn.mode),
         zcoll_algorithm_name(rn.algorithm), rn.error_bound,
         static_cast<unsigned long long>(rn.bytes_sent), rn.reason);
}

// ---- handles ----------------------------------------------------------------------------
zcoll_comm* make(zcoll_mode mode) {
  zcoll_comm_config cfg = ZCOLL_COMM_CONFIG_INITIALIZER;
  cfg.mode = mode;
  cfg.min_bytes = 0;
  cfg.chunk_size = 1024;
  cfg.pipeline_values = 2048;
  cfg.eb_mode = ZCOLL_EB_REL;
  cfg.error_bound = 1e-4;
  zcoll_comm* zc = nullptr;
  const zcoll_status s = zcoll_comm_create(MPI_COMM_WORLD, &cfg, &zc);
  EXPECT(s == ZCOLL_SUCCESS, "zcoll_comm_create: %s", zcoll_last_error());
  return zc;
}

// A pair of twin handles: `blocking` gets the blocking calls, `nb` the
// nonblocking ones, in the same order with the same settings.
struct Twins {
  zcoll_comm* blocking;
  zcoll_comm* nb;
  explicit Twins(zcoll_mode m) : blocking(make(m)), nb(make(m)) {}
  ~Twins() {
    EXPECT(zcoll_comm_free(blocking) == ZCOLL_SUCCESS, "free: %s", zcoll_last_error());
    EXPECT(zcoll_comm_free(nb) == ZCOLL_SUCCESS, "free: %s", zcoll_last_error());
  }
  template <typename F>
  void both(F f) {
    f(blocking);
    f(nb);
  }
};

int g_expect_threaded = 1;  // 0 under ZCOLL_PROGRESS=inline / --funneled
bool g_short = false;       // --short

// One spec: blocking on the twin, then started and waited on nb; both checked.
void one(Twins& t, const Spec& s, const char* label) {
  const std::string what = std::string(label) + " " + describe(s);
  Call b = prepare(s), n = prepare(s);
  const zcoll_status sb = run_blocking(t.blocking, b);
  const zcoll_report rb = last(t.blocking);
  zcoll_request* q = nullptr;
  zcoll_status st = start(t.nb, n, &q);
  EXPECT(st == ZCOLL_SUCCESS && q, "%s: start: %s", what.c_str(), zcoll_last_error());
  if (!q) return;
  if (!g_expect_threaded) {
    int done = 0;
    EXPECT(zcoll_test(q, &done) == sb && done == 1, "%s: inline request not complete at once",
           what.c_str());
  }
  zcoll_report rn = ZCOLL_REPORT_INITIALIZER;
  st = zcoll_wait(q, &rn);
  EXPECT(st == sb && st == ZCOLL_SUCCESS, "%s: wait %s, blocking %s (%s)", what.c_str(),
         zcoll_status_string(st), zcoll_status_string(sb), zcoll_last_error());
  zcoll_request_free(q);
  if (st != ZCOLL_SUCCESS) return;
  check_exact(n, rn, what);
  check_same(b, rb, n, rn, what);
  // zcoll_comm_last_report after the wait: the same call
  const zcoll_report lr = last(t.nb);
  EXPECT(lr.collective == rn.collective && lr.bytes_sent == rn.bytes_sent,
         "%s: last_report is not the call's", what.c_str());
}

const zcoll_collective kColls[] = {
    ZCOLL_COLL_ALLREDUCE, ZCOLL_COLL_REDUCE_SCATTER, ZCOLL_COLL_ALLGATHER, ZCOLL_COLL_BCAST,
    ZCOLL_COLL_SCATTER,   ZCOLL_COLL_REDUCE,         ZCOLL_COLL_GATHER};

void group_identical() {
  const zcoll_mode modes[] = {ZCOLL_MODE_MPI, ZCOLL_MODE_RAW, ZCOLL_MODE_CPR_P2P,
                              ZCOLL_MODE_DOC, ZCOLL_MODE_HOM, ZCOLL_MODE_AUTO};
  const size_t odd = 2 * static_cast<size_t>(g_size) + 1;
  struct Shape {
    size_t n;
    bool f64, in_place;
  };
  // every mode: the long vector, f32 and f64, in place or not; mode doc (and
  // raw at f64) also the short counts 0, 1, 2N+1
  const Shape all_modes[] = {{20011, false, false}, {20011, true, true}};
  const Shape short_ones[] = {{0, false, false},
                              {1, false, true},
                              {odd, false, false},
                              {odd, true, true}};
  for (zcoll_mode m : modes) {
    if (g_short && m != ZCOLL_MODE_MPI && m != ZCOLL_MODE_DOC && m != ZCOLL_MODE_HOM) continue;
    Twins t(m);
    int salt = 0;
    std::vector<Shape> shapes(std::begin(all_modes), std::end(all_modes));
    if (!g_short && (m == ZCOLL_MODE_DOC || m == ZCOLL_MODE_RAW))
      shapes.insert(shapes.end(), std::begin(short_ones), std::end(short_ones));
    for (zcoll_collective coll : kColls)
      for (const Shape& sh : shapes) {
        if (m == ZCOLL_MODE_RAW && sh.n != 20011 && !sh.f64) continue;
        Spec s;
        s.coll = coll;
        s.f64 = sh.f64;
        const bool per_rank = coll == ZCOLL_COLL_ALLGATHER || coll == ZCOLL_COLL_GATHER ||
                              coll == ZCOLL_COLL_SCATTER || coll == ZCOLL_COLL_REDUCE_SCATTER;
        s.n = per_rank && sh.n > 1 ? sh.n / static_cast<size_t>(g_size) + 1 : sh.n;
        s.in_place = sh.in_place && coll != ZCOLL_COLL_BCAST;  // bcast has no in-place form
        s.root = (salt * 7 + 1) % g_size;
        s.op = reduction(coll) && sh.f64 ? MPI_MAX : MPI_SUM;
        s.salt = ++salt;
        one(t, s, zcoll_mode_name(m));
        if (coll == ZCOLL_COLL_REDUCE_SCATTER) {  // the counts variant
          s.counts = true;
          s.salt = ++salt;
          one(t, s, zcoll_mode_name(m));
        }
      }
  }
}

// Seven calls in flight on one handle, with settings changed between their
// starts and a blocking call among them; completion in start order.
// One step of group_inflight.
struct InflightStep {
  int kind;  // 0 start a call, 1 set_mode, 2 set_error_bound, 3 blocking call, 4 set_average
  Spec s;
  zcoll_mode mode = ZCOLL_MODE_DEFAULT;
};

// Calls started between setting changes, and one blocking call among them.
std::vector<InflightStep> inflight_steps() {
  auto call = [](zcoll_collective coll, size_t n, bool f64, int root, bool ip, int salt) {
    InflightStep st{0, Spec{}};
    st.s.coll = coll;
    st.s.n = n;
    st.s.f64 = f64;
    st.s.root = root % g_size;
    st.s.in_place = ip;
    st.s.salt = salt;
    return st;
  };
  std::vector<InflightStep> steps;
  steps.push_back(call(ZCOLL_COLL_ALLREDUCE, 300001, false, 0, false, 1));  // doc (configured)
  steps.push_back(InflightStep{1, Spec{}, ZCOLL_MODE_HOM});
  steps.push_back(call(ZCOLL_COLL_ALLREDUCE, 100003, true, 0, true, 2));  // hom
  steps.push_back(InflightStep{2, Spec{}});                               // abs 1e-2
  steps.push_back(call(ZCOLL_COLL_BCAST, 50001, false, 1, false, 3));
  InflightStep blocking = call(ZCOLL_COLL_ALLGATHER, 7001, false, 0, false, 4);
  blocking.kind = 3;
  steps.push_back(blocking);
  steps.push_back(InflightStep{4, Spec{}});  // average on
  steps.push_back(call(ZCOLL_COLL_REDUCE_SCATTER, 9001, false, 0, false, 5));
  steps.push_back(InflightStep{1, Spec{}, ZCOLL_MODE_RAW});
  steps.push_back(call(ZCOLL_COLL_GATHER, 4001, true, 2, true, 6));
  steps.push_back(call(ZCOLL_COLL_REDUCE, 30001, false, 1, false, 7));
  steps.push_back(InflightStep{1, Spec{}, ZCOLL_MODE_DEFAULT});
  steps.push_back(call(ZCOLL_COLL_ALLREDUCE, 1, false, 0, true, 8));  // doc again
  return steps;
}

// A blocking call while requests are pending: it runs after them (they are
// complete when it returns) and gives the twin's result.
void inflight_blocking(Twins& t, const Spec& s, const std::vector<zcoll_request*>& reqs) {
  Call b = prepare(s), n = prepare(s);
  EXPECT(run_blocking(t.blocking, b) == ZCOLL_SUCCESS, "blocking: %s", zcoll_last_error());
  const zcoll_report rb = last(t.blocking);
  EXPECT(run_blocking(t.nb, n) == ZCOLL_SUCCESS, "mixed blocking: %s", zcoll_last_error());
  for (zcoll_request* q : reqs) {
    int done = 0;
    EXPECT(zcoll_test(q, &done) == ZCOLL_SUCCESS && done,
           "a blocking call returned before an earlier request completed");
  }
  const std::string what = "inflight blocking " + describe(s);
  check_exact(n, last(t.nb), what);
  check_same(b, rb, n, last(t.nb), what);
}

// Poll the last request until it is done: all earlier ones are then done too.
void inflight_completion_order(const std::vector<zcoll_request*>& reqs) {
  const size_t k = reqs.size();
  for (int done = 0; !done;) {
    EXPECT(zcoll_test(reqs[k - 1], &done) == ZCOLL_SUCCESS, "test: %s", zcoll_last_error());
    if (!done) std::this_thread::yield();
  }
  for (size_t i = 0; i + 1 < k; ++i) {
    int done = 0;
    zcoll_test(reqs[i], &done);
    EXPECT(done, "request %zu not complete after request %zu (completion out of order)", i, k - 1);
  }
}

// Wait in another order: odd ones first, then the even ones backwards; each
// result the twin's (and the exact one where the reference has no average).
void inflight_wait(const std::vector<zcoll_request*>& reqs, const std::vector<Call>& ref,
                   const std::vector<zcoll_report>& ref_rep, const std::vector<Call>& got) {
  const size_t k = reqs.size();
  std::vector<size_t> order;
  for (size_t i = 1; i < k; i += 2) order.push_back(i);
  for (size_t i = k; i-- > 0;)
    if (i % 2 == 0) order.push_back(i);
  for (size_t i : order) {
    zcoll_report rn = ZCOLL_REPORT_INITIALIZER;
    const zcoll_status st = zcoll_wait(reqs[i], &rn);
    const std::string what = "inflight #" + std::to_string(i) + " " + describe(got[i].s);
    EXPECT(st == ZCOLL_SUCCESS, "%s: %s", what.c_str(), zcoll_last_error());
    if (st == ZCOLL_SUCCESS) {
      // the exact reference of check_exact has no average: the calls started
      // after set_average (reduce_scatter #3, reduce #5, allreduce #6) have
      // only the twin's
      if (i <= 2 || i == 4) check_exact(got[i], rn, what);
      check_same(ref[i], ref_rep[i], got[i], rn, what);
    }
    // a second wait gives the same again
    zcoll_report again = ZCOLL_REPORT_INITIALIZER;
    EXPECT(zcoll_wait(reqs[i], &again) == st && again.bytes_sent == rn.bytes_sent,
           "%s: a second wait differs", what.c_str());
  }
}

// The modes each call ran with: those in force at its start.
void inflight_modes(const std::vector<zcoll_request*>& reqs) {
  const zcoll_mode want[] = {ZCOLL_MODE_DOC, ZCOLL_MODE_HOM, ZCOLL_MODE_HOM, ZCOLL_MODE_HOM,
                             ZCOLL_MODE_RAW, ZCOLL_MODE_RAW, ZCOLL_MODE_DOC};
  for (size_t i = 0; i < reqs.size() && i < 7; ++i) {
    zcoll_report rn = ZCOLL_REPORT_INITIALIZER;
    zcoll_wait(reqs[i], &rn);
    EXPECT(g_size == 1 || rn.mode == want[i] || (rn.mode == ZCOLL_MODE_RAW && rn.count <= 1),
           "inflight #%zu ran mode %s, started under %s", i, zcoll_mode_name(rn.mode),
           zcoll_mode_name(want[i]));
  }
}

void group_inflight() {
  Twins t(ZCOLL_MODE_DOC);
  std::vector<Call> ref, got;
  std::vector<zcoll_report> ref_rep;
  std::vector<zcoll_request*> reqs;
  for (InflightStep& st : inflight_steps()) {
    switch (st.kind) {
      case 1: t.both([&](zcoll_comm* z) { zcoll_comm_set_mode(z, st.mode); }); break;
      case 2:
        t.both([&](zcoll_comm* z) { zcoll_comm_set_error_bound(z, ZCOLL_EB_ABS, 1e-2); });
        break;
      case 4: t.both([&](zcoll_comm* z) { zcoll_comm_set_average(z, 1); }); break;
      case 3: inflight_blocking(t, st.s, reqs); break;
      default: {
        ref.push_back(prepare(st.s));
        got.push_back(prepare(st.s));
        EXPECT(run_blocking(t.blocking, ref.back()) == ZCOLL_SUCCESS, "reference: %s",
               zcoll_last_error());
        ref_rep.push_back(last(t.blocking));
        zcoll_request* q = nullptr;
        EXPECT(start(t.nb, got.back(), &q) == ZCOLL_SUCCESS, "start: %s", zcoll_last_error());
        reqs.push_back(q);
      }
    }
  }
  inflight_completion_order(reqs);
  inflight_wait(reqs, ref, ref_rep, got);
  inflight_modes(reqs);
  for (zcoll_request* q : reqs) zcoll_request_free(q);
}

void group_errors() {
  Twins t(ZCOLL_MODE_DOC);
  std::vector<float> x(50000), y(50000);
  for (size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>(gen(g_rank, i, 9));
  // arguments checked at the start: no request
  zcoll_request* q = reinterpret_cast<zcoll_request*>(&x);
  EXPECT(zcoll_iallreduce(nullptr, x.data(), y.data(), x.size(), MPI_FLOAT, MPI_SUM, &q) ==
                 ZCOLL_ERR_INVALID_ARG &&
             q == nullptr,
         "NULL handle");
  EXPECT(zcoll_iallreduce(t.nb, x.data(), y.data(), x.size(), MPI_FLOAT, MPI_SUM, nullptr) ==
             ZCOLL_ERR_INVALID_ARG,
         "NULL request pointer");
  EXPECT(zcoll_test(nullptr, nullptr) == ZCOLL_ERR_INVALID_ARG, "test(NULL)");
  EXPECT(zcoll_wait(nullptr, nullptr) == ZCOLL_ERR_INVALID_ARG, "wait(NULL)");
  EXPECT(zcoll_request_free(nullptr) == ZCOLL_SUCCESS, "request_free(NULL)");
  // a root outside the communicator (on every rank): the request's error
  zcoll_request* bad = nullptr;
  EXPECT(zcoll_ibcast(t.nb, y.data(), y.size(), MPI_FLOAT, g_size, &bad) == ZCOLL_SUCCESS && bad,
         "ibcast start: %s", zcoll_last_error());
  EXPECT(zcoll_wait(bad, nullptr) == ZCOLL_ERR_INVALID_ARG &&
             std::strstr(zcoll_last_error(), "root") != nullptr,
         "bad root: wait gives '%s'", zcoll_last_error());
  zcoll_request_free(bad);
  // a settings mismatch on the last rank: ZCOLL_ERR_MISMATCH on every rank from
  // the request, with the call's text on the waiting thread; then a correct call
  if (g_size > 1) {
    zcoll_comm_set_error_bound(t.nb, ZCOLL_EB_ABS, g_rank == g_size - 1 ? 2e-3 : 1e-3);
    zcoll_request* mm = nullptr;
    zcoll_iallreduce(t.nb, x.data(), y.data(), x.size(), MPI_FLOAT, MPI_SUM, &mm);
    zcoll_comm_set_error_bound(t.nb, ZCOLL_EB_ABS, 1e-3);  // queued behind it
    Spec s;
    s.n = 30011;
    s.salt = 77;
    Call after = prepare(s), ref = prepare(s);
    zcoll_request* next = nullptr;
    start(t.nb, after, &next);
    zcoll_report rep = ZCOLL_REPORT_INITIALIZER;
    const zcoll_status st = zcoll_wait(mm, &rep);
    EXPECT(st == ZCOLL_ERR_MISMATCH && rep.status == ZCOLL_ERR_MISMATCH,
           "mismatch: wait gave %s (report %d)", zcoll_status_string(st), rep.status);
    EXPECT(std::strlen(zcoll_last_error()) > 0, "mismatch: no error text on the waiting thread");
    int all_mm = st == ZCOLL_ERR_MISMATCH, every = 0;
    MPI_Allreduce(&all_mm, &every, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    EXPECT(every, "mismatch not reported on every rank");
    zcoll_request_free(mm);
    zcoll_report rn = ZCOLL_REPORT_INITIALIZER;
    EXPECT(zcoll_wait(next, &rn) == ZCOLL_SUCCESS, "the call after the mismatch: %s",
           zcoll_last_error());
    zcoll_request_free(next);
    zcoll_comm_set_error_bound(t.blocking, ZCOLL_EB_ABS, 1e-3);
    EXPECT(run_blocking(t.blocking, ref) == ZCOLL_SUCCESS, "reference: %s", zcoll_last_error());
    check_exact(after, rn, "after mismatch");
    EXPECT(after.recv == ref.recv, "after mismatch: differs from the blocking call");
    EXPECT(rn.eb_per_compression == 1e-3, "after mismatch: eb %g, not the 1e-3 set",
           rn.eb_per_compression);
  }
  // a report struct too small for wait: refused before waiting, the request stays usable
  zcoll_request* q2 = nullptr;
  zcoll_iallreduce(t.nb, x.data(), y.data(), x.size(), MPI_FLOAT, MPI_SUM, &q2);
  zcoll_report small = ZCOLL_REPORT_INITIALIZER;
  small.struct_size = 8;
  EXPECT(zcoll_wait(q2, &small) == ZCOLL_ERR_INVALID_ARG, "a report of 8 bytes");
  EXPECT(zcoll_wait(q2, nullptr) == ZCOLL_SUCCESS, "wait: %s", zcoll_last_error());
  zcoll_request_free(q2);
}

// Requests freed while pending, and a wait from another thread.
void lifetime_free_and_thread() {
  int threaded = -1;
  Twins t(ZCOLL_MODE_HOM);
  EXPECT(zcoll_comm_progress(t.nb, &threaded) == ZCOLL_SUCCESS && threaded == g_expect_threaded,
         "progress %d, expected %d", threaded, g_expect_threaded);
  // requests freed while pending: they still run; a blocking call after them shows it
  Spec a;
  a.n = 200003;
  a.salt = 11;
  Spec b;
  b.coll = ZCOLL_COLL_BCAST;
  b.n = 60001;
  b.root = g_size - 1;
  b.salt = 12;
  Call ra = prepare(a), rb = prepare(b), na = prepare(a), nb = prepare(b);
  run_blocking(t.blocking, ra);
  const zcoll_report rep_a = last(t.blocking);
  run_blocking(t.blocking, rb);
  const zcoll_report rep_b = last(t.blocking);
  zcoll_request *qa = nullptr, *qb = nullptr;
  start(t.nb, na, &qa);
  start(t.nb, nb, &qb);
  zcoll_request_free(qa);
  zcoll_request_free(qb);
  Spec c;
  c.coll = ZCOLL_COLL_ALLGATHER;
  c.n = 5001;
  c.salt = 13;
  Call rc = prepare(c), nc = prepare(c);
  run_blocking(t.blocking, rc);
  EXPECT(run_blocking(t.nb, nc) == ZCOLL_SUCCESS, "blocking after freed requests: %s",
         zcoll_last_error());
  EXPECT(ra.recv == na.recv && rb.recv == nb.recv, "freed requests: results differ");
  check_exact(na, rep_a, "freed pending allreduce");
  check_exact(nb, rep_b, "freed pending bcast");
  EXPECT(rc.recv == nc.recv, "the blocking call after them differs");
  // a wait from another thread while this one computes
  Call rd = prepare(a), nd = prepare(a);
  run_blocking(t.blocking, rd);
  zcoll_request* qd = nullptr;
  start(t.nb, nd, &qd);
  zcoll_status waited = ZCOLL_ERR_INTERNAL;
  zcoll_report rep_d = ZCOLL_REPORT_INITIALIZER;
  std::thread waiter([&] { waited = zcoll_wait(qd, &rep_d); });
  volatile double acc = 0;
  for (int i = 0; i < 2000000; ++i) acc = acc + std::sqrt(static_cast<double>(i));
  waiter.join();
  EXPECT(waited == ZCOLL_SUCCESS && rd.recv == nd.recv, "wait from another thread");
  zcoll_request_free(qd);
}

// zcoll_comm_free with requests pending: it waits for them; they stay valid
void lifetime_comm_free() {
  zcoll_comm* zc = make(ZCOLL_MODE_DOC);
  zcoll_comm* twin = make(ZCOLL_MODE_DOC);
  Spec s;
  s.coll = ZCOLL_COLL_REDUCE_SCATTER;
  s.n = 40001;
  s.salt = 21;
  Spec g;
  g.coll = ZCOLL_COLL_GATHER;
  g.n = 3001;
  g.root = g_size / 2;
  g.salt = 22;
  Call r1 = prepare(s), n1 = prepare(s), r2 = prepare(g), n2 = prepare(g);
  run_blocking(twin, r1);
  const zcoll_report rep1 = last(twin);
  run_blocking(twin, r2);
  zcoll_request *q1 = nullptr, *q2 = nullptr;
  start(zc, n1, &q1);
  start(zc, n2, &q2);
  EXPECT(zcoll_comm_free(zc) == ZCOLL_SUCCESS, "free with pending requests: %s",
         zcoll_last_error());
  int done1 = 0, done2 = 0;
  zcoll_test(q1, &done1);
  zcoll_test(q2, &done2);
  EXPECT(done1 && done2, "requests still pending after zcoll_comm_free");
  zcoll_report rn1 = ZCOLL_REPORT_INITIALIZER;
  EXPECT(zcoll_wait(q1, &rn1) == ZCOLL_SUCCESS && zcoll_wait(q2, nullptr) == ZCOLL_SUCCESS,
         "wait after zcoll_comm_free: %s", zcoll_last_error());
  check_same(r1, rep1, n1, rn1, "after free");
  EXPECT(r2.recv == n2.recv, "gather after free differs");
  zcoll_request_free(q1);
  zcoll_request_free(q2);
  zcoll_comm_free(twin);
}

void group_lifetime() {
  lifetime_free_and_thread();
  lifetime_comm_free();
}

// Without a progress thread: complete at once, same results (group identical
// checks that too when g_expect_threaded is 0).
void group_inline() {
  EXPECT(g_expect_threaded == 0, "the inline group needs ZCOLL_PROGRESS=inline or --funneled");
  Twins t(ZCOLL_MODE_HOM);
  int threaded = -1;
  zcoll_comm_progress(t.nb, &threaded);
  EXPECT(threaded == 0, "progress thread despite inline");
  for (zcoll_collective coll : kColls) {
    Spec s;
    s.coll = coll;
    s.n = 12007;
    s.root = g_size - 1;
    s.salt = static_cast<int>(coll);
    one(t, s, "inline");
  }
}

const char* const kGroups[] = {"identical", "inflight", "errors", "lifetime", "inline", nullptr};

}  // namespace

int main(int argc, char** argv) {
  bool funneled = false;
  std::vector<std::string> groups;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--funneled") == 0)
      funneled = true;
    else if (std::strcmp(argv[i], "--short") == 0)
      g_short = true;
    else
      groups.emplace_back(argv[i]);
  }
  int provided = 0;
  MPI_Init_thread(&argc, &argv, funneled ? MPI_THREAD_FUNNELED : MPI_THREAD_MULTIPLE, &provided);
  MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
  MPI_Comm_size(MPI_COMM_WORLD, &g_size);
  const char* pv = std::getenv("ZCOLL_PROGRESS");
  g_expect_threaded = !funneled && provided == MPI_THREAD_MULTIPLE &&
                      !(pv && (pv[0] == 'i' || pv[0] == 'I'));
  if (!zcoll_testing::check_group_names(groups, kGroups)) {
    MPI_Finalize();
    return 2;
  }
  if (!funneled && provided != MPI_THREAD_MULTIPLE && g_rank == 0)
    std::fprintf(stderr, "note: MPI provides thread level %d, not MPI_THREAD_MULTIPLE\n", provided);
  const double t0 = MPI_Wtime();
  auto want = [&](const char* g) {
    if (groups.empty()) return std::strcmp(g, "inline") != 0;
    for (const std::string& x : groups)
      if (x == g) return true;
    return false;
  };
  if (want("identical")) group_identical();
  if (want("inflight")) group_inflight();
  if (want("errors")) group_errors();
  if (want("lifetime")) group_lifetime();
  if (want("inline")) group_inline();
  long mine[2] = {zcoll_testing::g_checks.load(), zcoll_testing::g_failures.load()},
       all[2] = {0, 0};
  MPI_Allreduce(mine, all, 2, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
  std::string what = "zcoll nonblocking tests (" + std::to_string(g_size) + " ranks, " +
                     (g_expect_threaded ? "progress thread" : "inline") + "):";
  for (const std::string& g : groups) what += " " + g;
  if (groups.empty()) what += " all";
  int rc;
  if (g_rank == 0)
    rc = zcoll_testing::finish(what.c_str(), all[0], all[1], MPI_Wtime() - t0);
  else
    rc = all[0] > 0 && all[1] == 0 ? 0 : 1;
  MPI_Finalize();
  return rc;
}
