// dispatch.cc — the single path of every collective call:
//   1. validate arguments, classify datatype and op;
//   2. select the mode (per-call override -> configuration) and fall back to
//      the MPI collective for other datatypes/ops or messages below min_bytes;
//      select the algorithm (override -> configuration -> size rule);
//   3. agree across ranks (one small MPI_Allreduce): settings must match, and
//      REL bounds / PROD magnitudes come from all ranks' inputs;
//   4. derive the per-compression bound from the bound semantics and the
//      algorithm's error model;
//   5. run the algorithm; fill the report; log (ZCOLL_DEBUG=INFO).
#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <vector>

#include "coll/algorithms.h"
#include "coll/calibrate.h"
#include "coll/cost_model.h"
#include "coll/comm.h"
#include "coll/primitives.h"
#include "core/error.h"
#include "core/log.h"
#include "transport/clock.h"
#include "transport/mpi_compat.h"  // MPI-3 libraries (Open MPI 4.1): the _c collectives

// The reason text is cut to zcoll_report.reason on purpose.
#pragma GCC diagnostic ignored "-Wformat-truncation"

namespace zcoll::coll {

namespace {

bool in_place(const void* p) { return p == MPI_IN_PLACE; }

// AUTO decides from a remembered ratio for at most this many calls before it
// estimates again (a deterministic count, so all ranks refresh together).
constexpr int kMemoCalls = 16;

bool classify_dtype(MPI_Datatype dt, zcoll_dtype* out) {
  if (dt == MPI_FLOAT) {
    *out = ZCOLL_FLOAT32;
    return true;
  }
  if (dt == MPI_DOUBLE) {
    *out = ZCOLL_FLOAT64;
    return true;
  }
  return false;
}

bool classify_op(MPI_Op op, zcoll_op* out) {
  if (op == MPI_SUM) *out = ZCOLL_OP_SUM;
  else if (op == MPI_PROD) *out = ZCOLL_OP_PROD;
  else if (op == MPI_MAX) *out = ZCOLL_OP_MAX;
  else if (op == MPI_MIN) *out = ZCOLL_OP_MIN;
  else return false;
  return true;
}

bool is_reduction(zcoll_collective c) {
  return c == ZCOLL_COLL_ALLREDUCE || c == ZCOLL_COLL_REDUCE_SCATTER || c == ZCOLL_COLL_REDUCE;
}
bool is_rooted(zcoll_collective c) {
  return c == ZCOLL_COLL_BCAST || c == ZCOLL_COLL_SCATTER || c == ZCOLL_COLL_REDUCE ||
         c == ZCOLL_COLL_GATHER;
}

#define ZCOLL_MPI_OK(call)                                                              \
  do {                                                                                  \
    int zcoll_rc_ = (call);                                                             \
    if (zcoll_rc_ != MPI_SUCCESS)                                                       \
      return fail(ZCOLL_ERR_MPI, "%s failed: %s", #call, transport::mpi_error_text(zcoll_rc_)); \
  } while (0)

// Divide n values of a float/double buffer by d (averaging after MPI).
void divide(void* buf, size_t n, bool f32, double d) {
  if (f32) {
    float* x = static_cast<float*>(buf);
    for (size_t i = 0; i < n; ++i) x[i] /= static_cast<float>(d);
  } else {
    double* x = static_cast<double*>(buf);
    for (size_t i = 0; i < n; ++i) x[i] /= d;
  }
}

// The MPI library's collective (mode mpi and every fallback). Counts up to
// INT_MAX use the classic calls; larger ones the MPI-4 large-count calls
// (MPICH 4.0's _c collectives mishandle MPI_IN_PLACE in some paths, so they
// are kept for the counts that need them).
zcoll_status run_native(zcoll_comm* zc, const Call& k, bool average_ok, bool f32) {
  MPI_Comm comm = zc->tp->comm();
  const int N = zc->tp->size(), r = zc->tp->rank();
  const MPI_Datatype dt = k.datatype;
  bool small = k.count <= static_cast<size_t>(INT_MAX);
  if (k.coll == ZCOLL_COLL_REDUCE_SCATTER && !k.block)
    for (int i = 0; i < N; ++i) small = small && k.recvcounts[i] <= static_cast<size_t>(INT_MAX);
  const int n = small ? static_cast<int>(k.count) : 0;
  const MPI_Count nc = static_cast<MPI_Count>(k.count);
  switch (k.coll) {
    case ZCOLL_COLL_ALLREDUCE:
      if (small) ZCOLL_MPI_OK(MPI_Allreduce(k.sendbuf, k.recvbuf, n, dt, k.op, comm));
      else ZCOLL_MPI_OK(MPI_Allreduce_c(k.sendbuf, k.recvbuf, nc, dt, k.op, comm));
      if (average_ok) divide(k.recvbuf, k.count, f32, N);
      return ZCOLL_SUCCESS;
    case ZCOLL_COLL_REDUCE_SCATTER:
      if (k.block) {
        if (small) ZCOLL_MPI_OK(MPI_Reduce_scatter_block(k.sendbuf, k.recvbuf, n, dt, k.op, comm));
        else ZCOLL_MPI_OK(MPI_Reduce_scatter_block_c(k.sendbuf, k.recvbuf, nc, dt, k.op, comm));
        if (average_ok) divide(k.recvbuf, k.count, f32, N);
      } else {
        if (small) {
          int* counts = zc->ws.get_as<int>(Workspace::kCounts, static_cast<size_t>(N));
          for (int i = 0; i < N; ++i) counts[i] = static_cast<int>(k.recvcounts[i]);
          ZCOLL_MPI_OK(MPI_Reduce_scatter(k.sendbuf, k.recvbuf, counts, dt, k.op, comm));
        } else {
          zc->mpi_counts.resize(N);
          for (int i = 0; i < N; ++i) zc->mpi_counts[i] = static_cast<MPI_Count>(k.recvcounts[i]);
          ZCOLL_MPI_OK(MPI_Reduce_scatter_c(k.sendbuf, k.recvbuf, zc->mpi_counts.data(), dt, k.op,
                                            comm));
        }
        if (average_ok) divide(k.recvbuf, k.recvcounts[r], f32, N);
      }
      return ZCOLL_SUCCESS;
    case ZCOLL_COLL_ALLGATHER:
      if (small) ZCOLL_MPI_OK(MPI_Allgather(k.sendbuf, n, dt, k.recvbuf, n, dt, comm));
      else ZCOLL_MPI_OK(MPI_Allgather_c(k.sendbuf, nc, dt, k.recvbuf, nc, dt, comm));
      return ZCOLL_SUCCESS;
    case ZCOLL_COLL_BCAST:
      if (small) ZCOLL_MPI_OK(MPI_Bcast(k.recvbuf, n, dt, k.root, comm));
      else ZCOLL_MPI_OK(MPI_Bcast_c(k.recvbuf, nc, dt, k.root, comm));
      return ZCOLL_SUCCESS;
    case ZCOLL_COLL_SCATTER:
      if (small) ZCOLL_MPI_OK(MPI_Scatter(k.sendbuf, n, dt, k.recvbuf, n, dt, k.root, comm));
      else ZCOLL_MPI_OK(MPI_Scatter_c(k.sendbuf, nc, dt, k.recvbuf, nc, dt, k.root, comm));
      return ZCOLL_SUCCESS;
    case ZCOLL_COLL_REDUCE: {
      // MPICH 4.0.2 crashes in MPI_Reduce with MPI_IN_PLACE at a root other
      // than 0 for long vectors (reduce-scatter-gather path): pass a copy.
      const void* sb = k.sendbuf;
      if (sb == MPI_IN_PLACE && r == k.root && k.root != 0) {
        int tsize = 0;
        MPI_Type_size(dt, &tsize);
        const size_t bytes = k.count * static_cast<size_t>(tsize);
        void* copy = zc->ws.get(Workspace::kTemp, bytes + 8);
        std::memcpy(copy, k.recvbuf, bytes);
        sb = copy;
      }
      if (small) ZCOLL_MPI_OK(MPI_Reduce(sb, k.recvbuf, n, dt, k.op, k.root, comm));
      else ZCOLL_MPI_OK(MPI_Reduce_c(sb, k.recvbuf, nc, dt, k.op, k.root, comm));
      if (average_ok && r == k.root) divide(k.recvbuf, k.count, f32, N);
      return ZCOLL_SUCCESS;
    }
    case ZCOLL_COLL_GATHER:
      if (small) ZCOLL_MPI_OK(MPI_Gather(k.sendbuf, n, dt, k.recvbuf, n, dt, k.root, comm));
      else ZCOLL_MPI_OK(MPI_Gather_c(k.sendbuf, nc, dt, k.recvbuf, nc, dt, k.root, comm));
      return ZCOLL_SUCCESS;
    case ZCOLL_COLL_NONE: break;
  }
  return fail(ZCOLL_ERR_INTERNAL, "unknown collective");
}

template <typename T>
void local_stats(const T* x, size_t n, int threads, double* mn, double* mx, double* maxabs) {
  // Branch-free so that it vectorizes: x - x is 0 exactly for finite x.
  const T inf = std::numeric_limits<T>::infinity();
  T lo = inf, hi = -inf, ma = 0;
  int nt = n >= (size_t{1} << 20) ? std::max(1, threads) : 1;
#pragma omp parallel for simd num_threads(nt) reduction(min : lo) reduction(max : hi, ma) if (nt > 1)
  for (int64_t i = 0; i < static_cast<int64_t>(n); ++i) {
    const T v = x[i];
    const bool fin = (v - v) == T(0);
    const T a = fin ? v : inf, b = fin ? v : -inf, m = fin ? (v < 0 ? -v : v) : T(0);
    lo = a < lo ? a : lo;
    hi = b > hi ? b : hi;
    ma = m > ma ? m : ma;
  }
  *mn = lo;
  *mx = hi;
  *maxabs = ma;
}

// Settings compared across ranks (a pair of entries each: v and -v under MAX).
enum Setting { kEbMode, kEb, kBound, kMode, kAlgo, kCount, kCountsHash, kDtype, kOp, kRoot,
               kChunk, kSegment, kAverage, kColl, kModel, kSettings };
const char* kSettingNames[kSettings] = {
    "error-bound mode", "error bound", "bound semantics", "mode", "algorithm", "count",
    "recvcounts", "datatype", "op", "root", "chunk size", "pipeline segment", "average",
    "collective", "cost model (ZCOLL_NET_*, ZCOLL_*_BW, ZCOLL_TUNE_FILE)"};

// "mpi 1.2ms, raw/ring 1.3ms, ..." for the log.
void describe(const Candidate* c, int n, char* out, size_t cap) {
  size_t pos = 0;
  out[0] = 0;
  for (int i = 0; i < n && pos + 1 < cap; ++i) {
    const bool mpi = c[i].mode == ZCOLL_MODE_MPI;
    int w = std::snprintf(out + pos, cap - pos, "%s%s%s%s %.3gms", i ? ", " : "",
                          zcoll_mode_name(c[i].mode), mpi ? "" : "/",
                          mpi ? "" : zcoll_algorithm_name(c[i].algo), c[i].seconds * 1e3);
    if (w < 0) break;
    pos += static_cast<size_t>(w);
  }
}

}  // namespace

zcoll_status run_call(zcoll_comm* zc, const Call& k) {
  clear_error();
  if (!zc || !zc->tp) return fail(ZCOLL_ERR_INVALID_ARG, "zcoll_comm is NULL");
  const double t0 = now_seconds();
  transport::MpiTransport& tp = *zc->tp;
  const int N = tp.size(), r = tp.rank();
  zcoll_report& rep = zc->report;
  std::memset(&rep, 0, sizeof rep);
  rep.struct_size = sizeof rep;
  rep.collective = k.coll;
  rep.comm_size = N;
  rep.count = k.count;
  rep.status = ZCOLL_SUCCESS;
  auto finish = [&](zcoll_status s) {
    rep.status = s;
    rep.time_total = now_seconds() - t0;
    if (rep.mode != ZCOLL_MODE_MPI)
      rep.time_comm = std::min(rep.time_comm, rep.time_total);
    ZCOLL_LOG(r == 0 ? log::kInfo : log::kTrace, r, N,
              "%s n=%llu: mode=%s algo=%s (%s) bound=%.3g sent=%llu/%llu B t=%.1fus%s%s",
              zcoll_collective_name(k.coll), static_cast<unsigned long long>(rep.count),
              zcoll_mode_name(rep.mode), zcoll_algorithm_name(rep.algorithm), rep.reason,
              rep.error_bound, static_cast<unsigned long long>(rep.bytes_sent),
              static_cast<unsigned long long>(rep.bytes_uncompressed), rep.time_total * 1e6,
              s ? " FAILED: " : "", s ? zcoll_last_error() : "");
    return s;
  };

  // ---- 1. arguments ----------------------------------------------------------
  if (is_rooted(k.coll) && (k.root < 0 || k.root >= N))
    return finish(fail(ZCOLL_ERR_INVALID_ARG, "root %d outside [0, %d)", k.root, N));
  if (k.coll == ZCOLL_COLL_REDUCE_SCATTER && !k.block && !k.recvcounts)
    return finish(fail(ZCOLL_ERR_INVALID_ARG, "recvcounts is NULL"));
  size_t total = 0;  // values moved/reduced, for the size threshold
  switch (k.coll) {
    case ZCOLL_COLL_ALLREDUCE: case ZCOLL_COLL_BCAST: case ZCOLL_COLL_REDUCE:
      total = k.count;
      break;
    case ZCOLL_COLL_REDUCE_SCATTER:
      if (k.block) total = k.count * N;
      else
        for (int i = 0; i < N; ++i) total += k.recvcounts[i];
      rep.count = total;
      break;
    default:
      total = k.count * N;
  }
  zcoll_dtype dtype = ZCOLL_FLOAT32;
  zcoll_op op = ZCOLL_OP_SUM;
  const bool dt_ok = classify_dtype(k.datatype, &dtype);
  const bool op_ok = !is_reduction(k.coll) || classify_op(k.op, &op);
  const bool average = zc->average && is_reduction(k.coll) && op_ok && op == ZCOLL_OP_SUM;
  const size_t vs = dt_ok ? zcoll_dtype_size(dtype) : 0;

  // ---- 2. mode and algorithm ----------------------------------------------------
  zcoll_mode mode = zc->mode != ZCOLL_MODE_DEFAULT ? zc->mode : zc->cfg.mode;
  auto native = [&](const char* why) {
    rep.mode = ZCOLL_MODE_MPI;
    rep.algorithm = ZCOLL_ALGO_NATIVE;
    std::snprintf(rep.reason, sizeof rep.reason, "%s", why);
    const double tc = now_seconds();
    zcoll_status s = run_native(zc, k, average && dt_ok, dtype == ZCOLL_FLOAT32);
    rep.time_comm = now_seconds() - tc;
    return finish(s);
  };
  if (total == 0) {
    rep.mode = mode;
    rep.algorithm = ZCOLL_ALGO_NONE;
    std::snprintf(rep.reason, sizeof rep.reason, "no values");
    return finish(ZCOLL_SUCCESS);
  }
  if (mode == ZCOLL_MODE_MPI) return native("mode mpi");
  if (!dt_ok) return native("datatype is not MPI_FLOAT/MPI_DOUBLE");
  if (!op_ok) return native("op is not MPI_SUM/PROD/MAX/MIN");
  if (total * vs < zc->cfg.min_bytes) {
    char why[96];
    std::snprintf(why, sizeof why, "%zu B below ZCOLL_MIN_BYTES=%zu", total * vs,
                  zc->cfg.min_bytes);
    return native(why);
  }
  const uint32_t chunk = zc->cfg.chunk_size ? zc->cfg.chunk_size : ZCOLL_DEFAULT_CHUNK_SIZE;
  size_t seg_default = zc->cfg.pipeline_values ? zc->cfg.pipeline_values : size_t{4} * chunk;
  seg_default = std::max<size_t>(ZCOLL_BLOCK_SIZE, (seg_default + ZCOLL_BLOCK_SIZE - 1) /
                                                       ZCOLL_BLOCK_SIZE * ZCOLL_BLOCK_SIZE);
  const zcoll_eb_mode eb_mode_now = zc->eb_set ? zc->eb_mode : zc->cfg.eb_mode;
  const double eb_value_now = zc->eb_set ? zc->error_bound : zc->cfg.error_bound;
  const zcoll_algorithm forced_algo =
      zc->algorithm != ZCOLL_ALGO_AUTO ? zc->algorithm : zc->cfg.allreduce_algorithm;

  // ---- AUTO: the cost model's choice (cost_model.cc) ----------------------------
  // First with the largest ratio the format can reach, which needs no look at
  // the data and no communication: if MPI wins there, it wins at every ratio. Otherwise the ratio is estimated from a sample of every rank's data
  // (agreed with the settings below) and the choice is made again.
  const bool autom = mode == ZCOLL_MODE_AUTO;
  CostQuery q;
  Candidate cand[16];
  int ncand = 0, best = 0;
  char why_auto[160] = "";
  if (autom) {
    zcoll_status s = ensure_locality(zc);
    if (s != ZCOLL_SUCCESS) return finish(s);
    if (zc->single_node == 1)  // memory is faster than any codec (ZCOLL_AUTO_LOCAL=model models it)
      return native("auto: all ranks share one node");
    s = ensure_model(zc);
    if (s != ZCOLL_SUCCESS) return finish(s);
    q.coll = k.coll;
    q.size = N;
    q.total_values = total;
    q.vsize = vs;
    // A ratio agreed in a recent call with the same settings (1.25x more
    // optimistic, and refreshed every kMemoCalls calls) may already settle for
    // MPI, saving the settings allreduce where it would decide for MPI anyway.
    zcoll_comm::RatioMemo& memo = zc->ratio_memo[static_cast<int>(k.coll) & 7];
    const bool memo_ok = memo.ratio > 0 && memo.calls < kMemoCalls && memo.dtype == dtype &&
                         memo.eb_mode == static_cast<int>(eb_mode_now) && memo.eb == eb_value_now;
    q.ratio = memo_ok ? std::min(max_ratio(vs), 1.25 * memo.ratio) : max_ratio(vs);
    q.seg_values = seg_default;
    q.sum = is_reduction(k.coll) && op == ZCOLL_OP_SUM;
    ncand = auto_candidates(zc->model, q, cand, &best);
    best = pick_candidate(cand, ncand, k.coll, forced_algo);
    if (cand[best].mode == ZCOLL_MODE_MPI) {
      char table[512];
      describe(cand, ncand, table, sizeof table);
      if (r == 0)
        ZCOLL_LOG(log::kInfo, r, N, "auto, at ratio %.3g (%s): %s -> mpi", q.ratio,
                  memo_ok ? "recent estimate x 1.25" : "the best possible", table);
      rep.time_predicted = cand[best].seconds;
      if (memo_ok) ++memo.calls;
      return native(memo_ok ? "auto: mpi predicted fastest at the recent ratio"
                            : "auto: mpi predicted fastest at any compression ratio");
    }
    mode = cand[best].mode;  // provisional until the ratio is known
  }
  char why_mode[96];
  std::snprintf(why_mode, sizeof why_mode, "%s mode %s", zc->mode != ZCOLL_MODE_DEFAULT ? "call" : "config",
                zcoll_mode_name(autom ? ZCOLL_MODE_AUTO : mode));
  if (mode == ZCOLL_MODE_HOM && is_reduction(k.coll) && op != ZCOLL_OP_SUM) {
    mode = ZCOLL_MODE_DOC;
    std::snprintf(why_mode, sizeof why_mode, "hom has no homomorphic %s: doc", zcoll_op_name(op));
  }
  zcoll_algorithm algo = ZCOLL_ALGO_BINOMIAL;
  const char* why_algo = "the only algorithm";
  switch (k.coll) {
    case ZCOLL_COLL_ALLREDUCE: {
      zcoll_algorithm want = zc->algorithm != ZCOLL_ALGO_AUTO ? zc->algorithm
                                                                : zc->cfg.allreduce_algorithm;
      if (want == ZCOLL_ALGO_RING || want == ZCOLL_ALGO_RECURSIVE_DOUBLING) {
        algo = want;
        why_algo = zc->algorithm != ZCOLL_ALGO_AUTO ? "call setting" : "configured";
      } else if (k.count * vs / N >= 262144) {
        algo = ZCOLL_ALGO_RING;
        why_algo = "auto: block >= 256 KiB per rank";
      } else {
        algo = ZCOLL_ALGO_RECURSIVE_DOUBLING;
        why_algo = "auto: block < 256 KiB per rank";
      }
      break;
    }
    case ZCOLL_COLL_REDUCE_SCATTER: case ZCOLL_COLL_ALLGATHER:
      algo = ZCOLL_ALGO_RING;
      break;
    default:
      algo = ZCOLL_ALGO_BINOMIAL;
  }
  if (autom) {
    algo = cand[best].algo;
    why_algo = "auto";
  }
  const Algorithm* alg = find_algorithm(k.coll, algo);
  if (!alg) return finish(fail(ZCOLL_ERR_INTERNAL, "no algorithm for %s", zcoll_collective_name(k.coll)));
  rep.mode = mode;
  rep.algorithm = algo;

  // ---- arguments after MPI_IN_PLACE --------------------------------------------
  Args a;
  a.root = k.root;
  a.count = k.count;
  auto* rb = static_cast<uint8_t*>(k.recvbuf);
  switch (k.coll) {
    case ZCOLL_COLL_ALLREDUCE:
      a.in_place = in_place(k.sendbuf);
      a.in = a.in_place ? k.recvbuf : k.sendbuf;
      a.out = k.recvbuf;
      break;
    case ZCOLL_COLL_REDUCE_SCATTER: {
      zc->counts.resize(N);
      zc->displs.resize(N);
      size_t pos = 0;
      for (int i = 0; i < N; ++i) {
        zc->counts[i] = k.block ? k.count : k.recvcounts[i];
        zc->displs[i] = pos;
        pos += zc->counts[i];
      }
      a.counts = zc->counts.data();
      a.displs = zc->displs.data();
      a.in_place = in_place(k.sendbuf);
      a.in = a.in_place ? k.recvbuf : k.sendbuf;
      a.out = k.recvbuf;
      break;
    }
    case ZCOLL_COLL_ALLGATHER:
      a.in_place = in_place(k.sendbuf);
      a.in = a.in_place ? rb + static_cast<size_t>(r) * k.count * vs : k.sendbuf;
      a.out = k.recvbuf;
      break;
    case ZCOLL_COLL_BCAST:
      a.in = a.out = k.recvbuf;
      break;
    case ZCOLL_COLL_SCATTER:
      a.in = k.sendbuf;
      a.in_place = r == k.root && in_place(k.recvbuf);
      a.out = a.in_place ? const_cast<uint8_t*>(static_cast<const uint8_t*>(k.sendbuf)) +
                               static_cast<size_t>(k.root) * k.count * vs
                         : k.recvbuf;
      break;
    case ZCOLL_COLL_REDUCE:
      a.in_place = r == k.root && in_place(k.sendbuf);
      a.in = a.in_place ? k.recvbuf : k.sendbuf;
      a.out = k.recvbuf;
      break;
    case ZCOLL_COLL_GATHER:
      a.in_place = r == k.root && in_place(k.sendbuf);
      a.in = a.in_place ? rb + static_cast<size_t>(k.root) * k.count * vs : k.sendbuf;
      a.out = k.recvbuf;
      break;
    case ZCOLL_COLL_NONE: break;
  }

  // ---- 3. agreement ---------------------------------------------------------------
  Ctx c;
  c.tp = &tp;
  c.rank = r;
  c.size = N;
  c.coll = k.coll;
  c.dtype = dtype;
  c.vsize = vs;
  c.op = op;
  c.mode = mode;
  c.average = average;
  c.threads = zc->cfg.threads;
  c.ws = &zc->ws;
  c.tag = 100 + static_cast<int>(k.coll);
  c.seg_values = mode == ZCOLL_MODE_CPR_P2P ? SIZE_MAX  // the baseline: one piece per message
                                             : seg_default;
  const zcoll_eb_mode eb_mode = zc->eb_set ? zc->eb_mode : zc->cfg.eb_mode;
  const double eb_value = zc->eb_set ? zc->error_bound : zc->cfg.error_bound;
  bool cmp = c.compressed();
  // which values this rank contributes to the bound
  const void* data = nullptr;
  size_t data_n = 0;
  switch (k.coll) {
    case ZCOLL_COLL_ALLREDUCE: case ZCOLL_COLL_REDUCE: data = a.in; data_n = k.count; break;
    case ZCOLL_COLL_REDUCE_SCATTER: data = a.in; data_n = total; break;
    case ZCOLL_COLL_ALLGATHER: case ZCOLL_COLL_GATHER: data = a.in; data_n = k.count; break;
    case ZCOLL_COLL_BCAST: if (r == k.root) { data = a.in; data_n = k.count; } break;
    case ZCOLL_COLL_SCATTER: if (r == k.root) { data = a.in; data_n = total; } break;
    case ZCOLL_COLL_NONE: break;
  }
  double mn = std::numeric_limits<double>::infinity(), mx = -mn, maxabs = 0;
  const bool need_range = cmp && eb_mode == ZCOLL_EB_REL;
  const bool need_mag = cmp && op == ZCOLL_OP_PROD && is_reduction(k.coll);
  if ((need_range || need_mag) && data && data_n) {
    if (dtype == ZCOLL_FLOAT32)
      local_stats(static_cast<const float*>(data), data_n, c.threads, &mn, &mx, &maxabs);
    else
      local_stats(static_cast<const double*>(data), data_n, c.threads, &mn, &mx, &maxabs);
  }
  // AUTO, compressed candidate: this rank's estimate of bytes per byte (1/ratio)
  // at its own share of the bound (a REL bound from the local range is at most
  // the global one, so the estimate errs towards less compression).
  double inv_ratio = 0;
  if (autom && cmp && data && data_n) {
    double eb_local = eb_value;
    if (eb_mode == ZCOLL_EB_REL) eb_local = mx >= mn && mx > mn ? eb_value * (mx - mn) : 0;
    if (zc->cfg.bound == ZCOLL_BOUND_RESULT) eb_local /= N;
    const double ratio = estimate_ratio(data, data_n, dtype, eb_local);
    inv_ratio = ratio > 0 ? 1.0 / ratio : 1.0;
  }
  double counts_hash = 0;
  if (k.coll == ZCOLL_COLL_REDUCE_SCATTER)
    for (int i = 0; i < N; ++i)
      counts_hash = std::fmod(counts_hash * 1000003.0 + static_cast<double>(a.counts[i]), 9007199254740881.0);
  double set[kSettings];
  set[kEbMode] = cmp ? eb_mode : 0;
  set[kEb] = cmp ? eb_value : 0;
  set[kBound] = cmp ? zc->cfg.bound : 0;
  set[kMode] = autom ? ZCOLL_MODE_AUTO : mode;
  set[kAlgo] = algo;
  set[kCount] = static_cast<double>(total);
  set[kCountsHash] = counts_hash;
  set[kDtype] = dtype;
  set[kOp] = is_reduction(k.coll) ? op : 0;
  set[kRoot] = is_rooted(k.coll) ? k.root : 0;
  set[kChunk] = cmp ? chunk : 0;
  set[kSegment] = static_cast<double>(c.seg_values == SIZE_MAX ? 0 : c.seg_values);
  set[kAverage] = average;
  set[kColl] = k.coll;
  set[kModel] = autom ? model_hash(zc->model) : 0;
  double v[4 + 2 * kSettings];
  v[0] = mx;
  v[1] = -mn;
  v[2] = maxabs;
  for (int i = 0; i < kSettings; ++i) {
    v[3 + 2 * i] = set[i];
    v[4 + 2 * i] = -set[i];
  }
  v[3 + 2 * kSettings] = inv_ratio;
  {
    const double ta = now_seconds();
    zcoll_status s = tp.allreduce_max(v, 4 + 2 * kSettings);
    rep.time_comm += now_seconds() - ta;
    if (s != ZCOLL_SUCCESS) return finish(s);
  }
  for (int i = 0; i < kSettings; ++i) {
    const double hi = v[3 + 2 * i], lo = -v[4 + 2 * i];
    if (hi != lo) {
      std::snprintf(rep.reason, sizeof rep.reason, "%s differs across ranks", kSettingNames[i]);
      return finish(fail(ZCOLL_ERR_MISMATCH,
                         "%s differs across ranks (min %.17g, max %.17g): every rank must use "
                         "the same settings",
                         kSettingNames[i], lo, hi));
    }
  }
  const double gmax = v[0], gmin = -v[1];
  c.max_abs = v[2];
  if (autom && cmp) {  // the choice again, at the estimated ratio (same on every rank)
    const double inv = v[3 + 2 * kSettings];
    q.ratio = inv > 0 ? 1.0 / inv : 1.0;
    zcoll_comm::RatioMemo& memo = zc->ratio_memo[static_cast<int>(k.coll) & 7];
    memo.ratio = q.ratio;
    memo.calls = 0;
    memo.dtype = dtype;
    memo.eb_mode = static_cast<int>(eb_mode);
    memo.eb = eb_value;
    ncand = auto_candidates(zc->model, q, cand, &best);
    best = pick_candidate(cand, ncand, k.coll, forced_algo);
    rep.ratio_estimate = q.ratio;
    char table[512];
    describe(cand, ncand, table, sizeof table);
    if (r == 0)
      ZCOLL_LOG(log::kInfo, r, N, "auto, estimated ratio %.3g: %s -> %s/%s", q.ratio, table,
                zcoll_mode_name(cand[best].mode), zcoll_algorithm_name(cand[best].algo));
    std::snprintf(why_auto, sizeof why_auto, "auto: ratio ~%.3g, predicted %.3gms", q.ratio,
                  cand[best].seconds * 1e3);
    if (cand[best].mode == ZCOLL_MODE_MPI) {
      rep.time_predicted = cand[best].seconds;
      return native(why_auto);
    }
    mode = cand[best].mode;
    algo = cand[best].algo;
    alg = find_algorithm(k.coll, algo);
    if (!alg) return finish(fail(ZCOLL_ERR_INTERNAL, "no algorithm for %s", zcoll_collective_name(k.coll)));
    c.mode = mode;
    rep.mode = mode;
    rep.algorithm = algo;
    cmp = c.compressed();
    std::snprintf(why_mode, sizeof why_mode, "%s", why_auto);
  }
  if (autom) rep.time_predicted = cand[best].seconds;

  // ---- 4. error bound --------------------------------------------------------------
  double target = 0;
  if (cmp) {
    if (eb_mode == ZCOLL_EB_ABS) {
      target = eb_value;
    } else {
      double range = gmax - gmin;
      if (!(gmax >= gmin)) target = eb_value;  // no finite value anywhere
      else if (range > 0) target = eb_value * range;
      else target = eb_value * std::max(std::fabs(gmin), 1.0);
    }
  }
  ModelIn m;
  m.size = N;
  m.mode = mode;
  m.op = is_reduction(k.coll) ? op : ZCOLL_OP_SUM;
  m.hom = is_reduction(k.coll) && mode == ZCOLL_MODE_HOM && op == ZCOLL_OP_SUM;
  m.average = average;
  m.max_abs = c.max_abs;
  m.root = k.root;
  auto bound_at = [&](double eb) {
    ModelIn mm = m;
    mm.eb = eb;
    return alg->model(mm).e;
  };
  double eb = 0;
  const char* why_eb = "";
  if (cmp) {
    if (!(std::isfinite(target) && target > 0)) {
      why_eb = "; no usable error bound: raw";
      mode = ZCOLL_MODE_RAW;
    } else if (zc->cfg.bound == ZCOLL_BOUND_PER_COMPRESSION) {
      eb = target;
    } else if (m.op != ZCOLL_OP_PROD) {
      const double f = bound_at(1.0);
      eb = f > 0 ? target / f : target;
      while (f > 0 && bound_at(eb) > target) eb = std::nextafter(eb, 0.0);
    } else {
      double lo = 0, hi = target;
      if (bound_at(hi) <= target) {
        lo = hi;
      } else {
        for (int it = 0; it < 200 && hi - lo > 1e-300; ++it) {
          double mid = 0.5 * (lo + hi);
          (bound_at(mid) <= target ? lo : hi) = mid;
        }
      }
      eb = lo;
    }
    if (mode != ZCOLL_MODE_RAW && !(eb > 0 && std::isfinite(eb))) {
      why_eb = "; the result bound leaves no usable per-compression bound: raw";
      mode = ZCOLL_MODE_RAW;
    }
  }
  if (mode != ZCOLL_MODE_RAW && cmp) {
    c.params.struct_size = sizeof c.params;
    c.params.eb_mode = ZCOLL_EB_ABS;
    c.params.error_bound = eb;
    c.params.chunk_size = chunk;
    // the quantum our streams carry (cached per dtype, eb, chunk)
    if (zc->q_eb != eb || zc->q_dtype != dtype || zc->q_chunk != chunk) {
      uint8_t probe[256];
      double zero = 0;
      float zf = 0;
      size_t psz = 0;
      zcoll_info info = ZCOLL_INFO_INITIALIZER;
      zcoll_status s = zcoll_compress(&c.params, dtype,
                                      dtype == ZCOLL_FLOAT32 ? static_cast<const void*>(&zf) : &zero,
                                      1, probe, sizeof probe, &psz, c.threads);
      if (s == ZCOLL_SUCCESS) s = zcoll_inspect(probe, psz, &info);
      if (s != ZCOLL_SUCCESS) {
        why_eb = "; the error bound cannot be a quantization step: raw";
        mode = ZCOLL_MODE_RAW;
      } else {
        zc->q_eb = eb;
        zc->q_dtype = dtype;
        zc->q_chunk = chunk;
        zc->q_quantum = info.quantum;
      }
    }
    c.quantum = zc->q_quantum;
  }
  if (mode == ZCOLL_MODE_RAW && cmp) {
    c.mode = ZCOLL_MODE_RAW;
    m.mode = ZCOLL_MODE_RAW;
    m.hom = false;
    eb = 0;
    if (c.seg_values == SIZE_MAX) c.seg_values = size_t{4} * chunk;
  }
  c.eb = eb;
  rep.mode = c.mode;
  rep.eb_per_compression = c.compressed() ? eb : 0;
  rep.error_bound = c.compressed() ? bound_at(eb) : 0;
  rep.error_factor = eb > 0 ? rep.error_bound / eb : 0;
  std::snprintf(rep.reason, sizeof rep.reason, "%s; %s%s; %s %s", why_mode, why_algo, why_eb,
                dtype == ZCOLL_FLOAT32 ? "float" : "double",
                is_reduction(k.coll) ? zcoll_op_name(op) : "data movement");

  // ---- 5. run -----------------------------------------------------------------------
  tp.bytes_sent = 0;
  tp.time_in_calls = 0;
  zcoll_status s = alg->run(c, a);
  if (s == ZCOLL_SUCCESS) s = c.failed;
  rep.bytes_sent = tp.bytes_sent;
  rep.bytes_uncompressed = c.logical_bytes;
  if (!c.compressed()) rep.bytes_uncompressed = rep.bytes_sent;
  rep.time_compress = c.t_codec;
  rep.time_reduce = c.t_reduce;
  rep.time_comm += tp.time_in_calls;
  rep.compressions = c.compressions;
  rep.hom_adds = c.hom_adds;
  return finish(s);
}

}  // namespace zcoll::coll
