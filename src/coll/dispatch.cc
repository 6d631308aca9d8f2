// dispatch.cc — the one path of every collective call, in stages that each
// have a function of their own:
//
//   resolve         check the arguments; classify datatype and op; the sizes,
//                   bound and segment settings in force for this call
//   fallback_reason whether the call goes to the MPI library (mode mpi, other
//                   datatypes or ops, messages below ZCOLL_MIN_BYTES)
//   select          the mode and algorithm (call setting -> configuration ->
//                   size rule; AUTO: the cost model at the best possible ratio)
//   bind_args       the buffers after MPI_IN_PLACE
//   agree           one small allreduce: settings must match on every rank; the
//                   global value range (REL), max |x| (PROD) and, for AUTO, the
//                   agreed compression-ratio estimate
//   reselect_auto   AUTO again at the agreed ratio
//   derive_bound    the per-compression bound from the bound semantics and the
//                   algorithm's error model (error_bound.cc)
//   execute         run the algorithm; the report (CallReport) is filled as the
//                   stages go and logged once at the end (ZCOLL_DEBUG=INFO).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>

#include "coll/algorithms.h"
#include "coll/calibrate.h"
#include "coll/comm.h"
#include "coll/cost_model.h"
#include "coll/error_bound.h"
#include "core/error.h"
#include "core/log.h"
#include "transport/clock.h"

// The reason text is cut to zcoll_report.reason on purpose.
#pragma GCC diagnostic ignored "-Wformat-truncation"

namespace zcoll::coll {

namespace {

// AUTO decides from a remembered ratio for at most this many calls before it
// estimates again (a deterministic count, so all ranks refresh together).
constexpr int kMemoCalls = 16;

// Tags of a call: kTagBase + 2 * (epoch mod kTagEpochs) and the next one.
constexpr int kTagBase = 100;
constexpr uint64_t kTagEpochs = 16000;
static_assert(kTagBase + 2 * kTagEpochs <= 32767, "MPI guarantees tags up to 32767");

bool is_reduction(zcoll_collective c) {
  return c == ZCOLL_COLL_ALLREDUCE || c == ZCOLL_COLL_REDUCE_SCATTER || c == ZCOLL_COLL_REDUCE;
}
bool is_rooted(zcoll_collective c) {
  return c == ZCOLL_COLL_BCAST || c == ZCOLL_COLL_SCATTER || c == ZCOLL_COLL_REDUCE ||
         c == ZCOLL_COLL_GATHER;
}

bool classify_dtype(MPI_Datatype dt, zcoll_dtype* out) {
  if (dt == MPI_FLOAT)
    *out = ZCOLL_FLOAT32;
  else if (dt == MPI_DOUBLE)
    *out = ZCOLL_FLOAT64;
  else
    return false;
  return true;
}

bool classify_op(MPI_Op op, zcoll_op* out) {
  if (op == MPI_SUM)
    *out = ZCOLL_OP_SUM;
  else if (op == MPI_PROD)
    *out = ZCOLL_OP_PROD;
  else if (op == MPI_MAX)
    *out = ZCOLL_OP_MAX;
  else if (op == MPI_MIN)
    *out = ZCOLL_OP_MIN;
  else
    return false;
  return true;
}

// ---- the report --------------------------------------------------------------
// zc->report, started at the call's beginning and finished (time, log) once.
class CallReport {
 public:
  CallReport(zcoll_comm* zc, const Call& k) : rep_(zc->report), k_(k), t0_(now_seconds()) {
    N_ = zc->tp->size();
    r_ = zc->tp->rank();
    std::memset(&rep_, 0, sizeof rep_);
    rep_.struct_size = sizeof rep_;
    rep_.collective = k.coll;
    rep_.comm_size = N_;
    rep_.count = k.count;
    rep_.status = ZCOLL_SUCCESS;
  }
  zcoll_report& operator*() { return rep_; }
  zcoll_report* operator->() { return &rep_; }

  double t0() const { return t0_; }
  // The transport's timeline of the algorithm (now_seconds(); 0: none).
  void set_timeline(double first_send_at, double last_recv_at) {
    rep_.time_first_send = first_send_at > 0 ? first_send_at - t0_ : 0;
    last_recv_at_ = last_recv_at;
  }

  zcoll_status finish(zcoll_status s) {
    rep_.status = s;
    const double end = now_seconds();
    rep_.time_total = end - t0_;
    rep_.time_after_recv = last_recv_at_ > 0 ? end - last_recv_at_ : 0;
    if (rep_.mode != ZCOLL_MODE_MPI) rep_.time_comm = std::min(rep_.time_comm, rep_.time_total);
    ZCOLL_LOG(r_ == 0 ? log::kInfo : log::kTrace, r_, N_,
              "%s n=%llu: mode=%s algo=%s (%s) bound=%.3g sent=%llu/%llu B t=%.1fus "
              "(range %.1fus, first send %.1fus, after last receive %.1fus)%s%s",
              zcoll_collective_name(k_.coll), static_cast<unsigned long long>(rep_.count),
              zcoll_mode_name(rep_.mode), zcoll_algorithm_name(rep_.algorithm), rep_.reason,
              rep_.error_bound, static_cast<unsigned long long>(rep_.bytes_sent),
              static_cast<unsigned long long>(rep_.bytes_uncompressed), rep_.time_total * 1e6,
              rep_.time_range * 1e6, rep_.time_first_send * 1e6, rep_.time_after_recv * 1e6,
              s ? " FAILED: " : "", s ? zcoll_last_error() : "");
    return s;
  }

 private:
  zcoll_report& rep_;
  const Call& k_;
  double t0_;
  double last_recv_at_ = 0;
  int N_ = 1, r_ = 0;
};

// ---- resolve -----------------------------------------------------------------
// What the call asks for, after the handle's settings are applied.
struct Resolved {
  size_t total = 0;  // values moved or reduced by all ranks together (size threshold)
  bool dtype_ok = false, op_ok = false;
  zcoll_dtype dtype = ZCOLL_FLOAT32;
  zcoll_op op = ZCOLL_OP_SUM;  // SUM for data movement
  size_t vsize = 0;            // 0 for a datatype zcoll does not compress
  bool average = false;        // SUM divided by the communicator size
  zcoll_mode mode = ZCOLL_MODE_AUTO;
  bool mode_from_call = false;               // zcoll_comm_set_mode, not the configuration
  zcoll_algorithm forced = ZCOLL_ALGO_AUTO;  // explicit algorithm, AUTO if none
  bool forced_from_call = false;
  zcoll_eb_mode eb_mode = ZCOLL_EB_REL;
  double eb_value = 0;
  uint32_t chunk = 0;     // codec chunk (values)
  size_t seg_values = 0;  // pipeline segment (values)
};

// The algorithm the caller fixed for this collective (AUTO: none).
zcoll_algorithm forced_algorithm(const zcoll_comm& zc, zcoll_collective coll, bool* from_call) {
  *from_call = zc.algorithm[coll] != ZCOLL_ALGO_AUTO;
  return *from_call ? zc.algorithm[coll] : zc.cfg.algorithm[coll];
}

zcoll_status resolve(const zcoll_comm& zc, const Call& k, Resolved* out) {
  const int N = zc.tp->size();
  if (is_rooted(k.coll) && (k.root < 0 || k.root >= N))
    return fail(ZCOLL_ERR_INVALID_ARG, "root %d outside [0, %d)", k.root, N);
  if (k.coll == ZCOLL_COLL_REDUCE_SCATTER && !k.block && !k.recvcounts)
    return fail(ZCOLL_ERR_INVALID_ARG, "recvcounts is NULL");
  Resolved& s = *out;
  switch (k.coll) {
    case ZCOLL_COLL_ALLREDUCE:
    case ZCOLL_COLL_BCAST:
    case ZCOLL_COLL_REDUCE: s.total = k.count; break;
    case ZCOLL_COLL_REDUCE_SCATTER:
      if (k.block)
        s.total = k.count * N;
      else
        for (int i = 0; i < N; ++i) s.total += k.recvcounts[i];
      break;
    default: s.total = k.count * N;
  }
  s.dtype_ok = classify_dtype(k.datatype, &s.dtype);
  s.op_ok = !is_reduction(k.coll) || classify_op(k.op, &s.op);
  s.average = zc.average && is_reduction(k.coll) && s.op_ok && s.op == ZCOLL_OP_SUM;
  s.vsize = s.dtype_ok ? zcoll_dtype_size(s.dtype) : 0;
  s.mode_from_call = zc.mode != ZCOLL_MODE_DEFAULT;
  s.mode = s.mode_from_call ? zc.mode : zc.cfg.mode;
  s.forced = forced_algorithm(zc, k.coll, &s.forced_from_call);
  s.eb_mode = zc.eb_set ? zc.eb_mode : zc.cfg.eb_mode;
  s.eb_value = zc.eb_set ? zc.error_bound : zc.cfg.error_bound;
  s.chunk = zc.cfg.chunk_size ? zc.cfg.chunk_size : ZCOLL_DEFAULT_CHUNK_SIZE;
  const size_t seg = zc.cfg.pipeline_values ? zc.cfg.pipeline_values : size_t{4} * s.chunk;
  s.seg_values = pipeline_segment_values(seg, s.total);  // s.total: no message is longer
  return ZCOLL_SUCCESS;
}

// Why the call goes to the MPI library without looking further (nullptr: it
// does not). why holds the text when it is composed.
const char* fallback_reason(const zcoll_comm& zc, const Resolved& s, char* why, size_t cap) {
  if (s.mode == ZCOLL_MODE_MPI) return "mode mpi";
  if (!s.dtype_ok) return "datatype is not MPI_FLOAT/MPI_DOUBLE";
  if (!s.op_ok) return "op is not MPI_SUM/PROD/MAX/MIN";
  if (s.total * s.vsize < zc.cfg.min_bytes) {
    std::snprintf(why, cap, "%zu B below ZCOLL_MIN_BYTES=%zu", s.total * s.vsize, zc.cfg.min_bytes);
    return why;
  }
  return nullptr;
}

// ---- select --------------------------------------------------------------------
struct Selection {
  zcoll_mode mode = ZCOLL_MODE_RAW;  // the mode that runs
  zcoll_algorithm algo = ZCOLL_ALGO_NONE;
  const Algorithm* alg = nullptr;
  bool autom = false;            // chosen by AUTO
  const char* native = nullptr;  // set: run the MPI library's collective, for this reason
  char why_mode[160] = "";
  const char* why_algo = "";
  // AUTO's evaluation
  CostQuery q;
  Candidate cand[16];
  int ncand = 0, best = 0;
  bool memo_used = false;
  double memo_ratio = 0;  // memo_used: the remembered ratio both of AUTO's steps use
};

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

// The cost model's candidates at compression ratio `ratio` (sel->q otherwise
// filled), AUTO's pick among them, and its log line on rank 0.
const Candidate& evaluate_auto(zcoll_comm* zc, const Resolved& s, double ratio, const char* what,
                               Selection* sel) {
  sel->q.ratio = ratio;
  sel->ncand = auto_candidates(zc->model, sel->q, s.forced, sel->cand, &sel->best);
  const Candidate& b = sel->cand[sel->best];
  const int r = zc->tp->rank();
  if (r == 0) {
    char table[512];
    describe(sel->cand, sel->ncand, table, sizeof table);
    ZCOLL_LOG(log::kInfo, r, zc->tp->size(), "auto, %s %.3g: %s -> %s/%s", what, ratio, table,
              zcoll_mode_name(b.mode), zcoll_algorithm_name(b.algo));
  }
  return b;
}

// AUTO's first look: the cost model at the largest ratio the format can reach
// (or at a ratio agreed in a recent call), with no look at the data and no
// communication. If MPI wins there, it wins at any ratio: sel->native is set.
zcoll_status select_auto(zcoll_comm* zc, const Call& k, const Resolved& s, Selection* sel) {
  ZCOLL_CHECK(ensure_locality(zc));
  if (zc->single_node == 1) {  // memory is faster than any codec (ZCOLL_AUTO_LOCAL=model models it)
    sel->native = "auto: all ranks share one node";
    return ZCOLL_SUCCESS;
  }
  ZCOLL_CHECK(ensure_model(zc));
  CostQuery& q = sel->q;
  q.coll = k.coll;
  q.size = zc->tp->size();
  q.total_values = s.total;
  q.vsize = s.vsize;
  q.seg_values = s.seg_values;
  q.sum = is_reduction(k.coll) && s.op == ZCOLL_OP_SUM;
  // A ratio agreed in a recent call with the same settings (refreshed every
  // kMemoCalls calls) is the ratio step 2 will use too (agree skips the
  // estimate), so deciding MPI from it here saves the settings allreduce that
  // would only lead to MPI.
  zcoll_comm::RatioMemo& memo = zc->ratio_memo[static_cast<int>(k.coll)];
  sel->memo_used = memo.ratio > 0 && memo.calls < kMemoCalls && memo.dtype == s.dtype &&
                   memo.eb_mode == static_cast<int>(s.eb_mode) && memo.eb == s.eb_value;
  if (sel->memo_used) sel->memo_ratio = std::min(max_ratio(s.vsize), memo.ratio);
  const double ratio = sel->memo_used ? sel->memo_ratio : max_ratio(s.vsize);
  const Candidate& b =
      evaluate_auto(zc, s, ratio, sel->memo_used ? "recent ratio" : "best possible ratio", sel);
  if (b.mode == ZCOLL_MODE_MPI) {
    if (sel->memo_used) ++memo.calls;
    sel->native = sel->memo_used ? "auto: mpi predicted fastest at the recent ratio"
                                 : "auto: mpi predicted fastest at any compression ratio";
    return ZCOLL_SUCCESS;
  }
  sel->mode = b.mode;  // provisional until the ratio is known
  sel->algo = b.algo;
  sel->why_algo = "auto";
  return ZCOLL_SUCCESS;
}

zcoll_status select(zcoll_comm* zc, const Call& k, const Resolved& s, Selection* sel) {
  sel->autom = s.mode == ZCOLL_MODE_AUTO;
  if (sel->autom) {
    ZCOLL_CHECK(select_auto(zc, k, s, sel));
    if (sel->native) return ZCOLL_SUCCESS;
  } else {
    sel->mode = s.mode;
    if (s.forced != ZCOLL_ALGO_AUTO) {
      sel->algo = s.forced;
      sel->why_algo = s.forced_from_call ? "call setting" : "configured";
    } else {
      sel->algo = default_algorithm(k.coll, s.total, s.vsize, zc->tp->size());
      sel->why_algo = default_algorithm_reason(k.coll, s.total, s.vsize, zc->tp->size());
    }
  }
  std::snprintf(sel->why_mode, sizeof sel->why_mode, "%s mode %s",
                s.mode_from_call ? "call" : "config", zcoll_mode_name(s.mode));
  if (sel->mode == ZCOLL_MODE_HOM && is_reduction(k.coll) && s.op != ZCOLL_OP_SUM) {
    sel->mode = ZCOLL_MODE_DOC;
    std::snprintf(sel->why_mode, sizeof sel->why_mode, "hom has no homomorphic %s: doc",
                  zcoll_op_name(s.op));
  }
  sel->alg = find_algorithm(k.coll, sel->algo);
  if (!sel->alg)
    return fail(ZCOLL_ERR_INTERNAL, "no algorithm %s for %s", zcoll_algorithm_name(sel->algo),
                zcoll_collective_name(k.coll));
  return ZCOLL_SUCCESS;
}

// ---- bind_args -------------------------------------------------------------------
Args bind_args(zcoll_comm* zc, const Call& k, const Resolved& s) {
  const int N = zc->tp->size(), r = zc->tp->rank();
  const size_t vs = s.vsize;
  auto in_place = [](const void* p) { return p == MPI_IN_PLACE; };
  auto* rb = static_cast<uint8_t*>(k.recvbuf);
  Args a;
  a.root = k.root;
  a.count = k.count;
  a.out = k.recvbuf;
  switch (k.coll) {
    case ZCOLL_COLL_ALLREDUCE:
      a.in_place = in_place(k.sendbuf);
      a.in = a.in_place ? k.recvbuf : k.sendbuf;
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
      break;
    }
    case ZCOLL_COLL_ALLGATHER:
      a.in_place = in_place(k.sendbuf);
      a.in = a.in_place ? rb + static_cast<size_t>(r) * k.count * vs : k.sendbuf;
      break;
    case ZCOLL_COLL_BCAST: a.in = k.recvbuf; break;
    case ZCOLL_COLL_SCATTER:
      a.in = k.sendbuf;
      a.in_place = r == k.root && in_place(k.recvbuf);
      if (a.in_place)
        a.out = const_cast<uint8_t*>(static_cast<const uint8_t*>(k.sendbuf)) +
                static_cast<size_t>(k.root) * k.count * vs;
      break;
    case ZCOLL_COLL_REDUCE:
      a.in_place = r == k.root && in_place(k.sendbuf);
      a.in = a.in_place ? k.recvbuf : k.sendbuf;
      break;
    case ZCOLL_COLL_GATHER:
      a.in_place = r == k.root && in_place(k.sendbuf);
      a.in = a.in_place ? rb + static_cast<size_t>(k.root) * k.count * vs : k.sendbuf;
      break;
    default: break;
  }
  return a;
}

// ---- agree -----------------------------------------------------------------------
// One thread: independent lanes (no reduction chain through one register, no
// OpenMP region), branch-free so that it vectorizes: x - x is 0 exactly for
// finite x, NaN for inf and NaN, which are left out.
template <typename T>
void local_stats_lanes(const T* x, size_t n, double* mn, double* mx, double* maxabs) {
  constexpr int kLanes = 16;
  const T inf = std::numeric_limits<T>::infinity();
  T lo[kLanes], hi[kLanes], ma[kLanes];
  for (int j = 0; j < kLanes; ++j) {
    lo[j] = inf;
    hi[j] = -inf;
    ma[j] = 0;
  }
  size_t i = 0;
  for (; i + kLanes <= n; i += kLanes)
    for (int j = 0; j < kLanes; ++j) {
      const T v = x[i + j];
      const bool fin = (v - v) == T(0);
      const T a = fin ? v : inf, b = fin ? v : -inf, m = fin ? (v < 0 ? -v : v) : T(0);
      lo[j] = a < lo[j] ? a : lo[j];
      hi[j] = b > hi[j] ? b : hi[j];
      ma[j] = m > ma[j] ? m : ma[j];
    }
  for (; i < n; ++i) {
    const T v = x[i];
    if ((v - v) != T(0)) continue;
    lo[0] = v < lo[0] ? v : lo[0];
    hi[0] = v > hi[0] ? v : hi[0];
    const T m = v < 0 ? -v : v;
    ma[0] = m > ma[0] ? m : ma[0];
  }
  for (int j = 1; j < kLanes; ++j) {
    lo[0] = lo[j] < lo[0] ? lo[j] : lo[0];
    hi[0] = hi[j] > hi[0] ? hi[j] : hi[0];
    ma[0] = ma[j] > ma[0] ? ma[j] : ma[0];
  }
  *mn = lo[0];
  *mx = hi[0];
  *maxabs = ma[0];
}

// ZCOLL_REL_RANGE=sampled: the same over one 64-byte line in kSampleStride
// (plus the last values), for a REL bound only (never for PROD's magnitude: the
// error model needs the true max|x|). A sampled range is at most the exact one,
// so the bound derived from it is at most the requested one.
constexpr size_t kSampleStride = 16;
constexpr size_t kSampleMin = size_t{1} << 16;  // values; below: the exact pass

template <typename T>
void local_stats_sampled(const T* x, size_t n, double* mn, double* mx, double* maxabs) {
  constexpr size_t kLine = 64 / sizeof(T);
  double lo = std::numeric_limits<double>::infinity(), hi = -lo, ma = 0;
  auto take = [&](const T* p, size_t len) {
    double a, b, m;
    local_stats_lanes(p, len, &a, &b, &m);
    lo = std::min(lo, a);
    hi = std::max(hi, b);
    ma = std::max(ma, m);
  };
  for (size_t i = 0; i + kLine <= n; i += kLine * kSampleStride) take(x + i, kLine);
  take(x + (n - std::min(n, kLine)), std::min(n, kLine));
  *mn = lo;
  *mx = hi;
  *maxabs = ma;
}

template <typename T>
void local_stats(const T* x, size_t n, int threads, double* mn, double* mx, double* maxabs) {
  const T inf = std::numeric_limits<T>::infinity();
  T lo = inf, hi = -inf, ma = 0;
  int nt = n >= (size_t{1} << 20) ? std::max(1, threads) : 1;
  if (nt == 1) return local_stats_lanes(x, n, mn, mx, maxabs);
#pragma omp parallel for simd num_threads(nt) reduction(min                 \
                                                        : lo) reduction(max \
                                                                        : hi, ma) if (nt > 1)
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
enum Setting {
  kEbMode,
  kEb,
  kBound,
  kMode,
  kAlgo,
  kCount,
  kCountsHash,
  kDtype,
  kOp,
  kRoot,
  kChunk,
  kSegment,
  kAverage,
  kColl,
  kModel,
  kChecksum,
  kRelRange,
  kSettings
};
const char* const kSettingNames[kSettings] = {
    "error-bound mode",
    "error bound",
    "bound semantics",
    "mode",
    "algorithm",
    "count",
    "recvcounts",
    "datatype",
    "op",
    "root",
    "chunk size",
    "pipeline segment",
    "average",
    "collective",
    "cost model (ZCOLL_NET_*, ZCOLL_*_BW, ZCOLL_TUNE_FILE)",
    "checksum (ZCOLL_CHECKSUM)",
    "value range (ZCOLL_REL_RANGE)"};

// What all ranks agreed on.
struct Agreed {
  double gmin = 0, gmax = 0;  // finite inputs of all ranks (gmax < gmin: none)
  double max_abs = 0;         // max |x| of all ranks' finite inputs
  double ratio = 0;           // AUTO: the compression-ratio estimate (0: none)
};

// The values this rank contributes to the bound (nullptr: none).
const void* bound_data(const Call& k, const Args& a, const Resolved& s, int r, size_t* n) {
  *n = 0;
  switch (k.coll) {
    case ZCOLL_COLL_ALLREDUCE:
    case ZCOLL_COLL_REDUCE:
    case ZCOLL_COLL_ALLGATHER:
    case ZCOLL_COLL_GATHER: *n = k.count; return a.in;
    case ZCOLL_COLL_REDUCE_SCATTER: *n = s.total; return a.in;
    case ZCOLL_COLL_BCAST:
      if (r != k.root) return nullptr;
      *n = k.count;
      return a.in;
    case ZCOLL_COLL_SCATTER:
      if (r != k.root) return nullptr;
      *n = s.total;
      return a.in;
    default: return nullptr;
  }
}

zcoll_status agree(zcoll_comm* zc, const Call& k, const Args& a, const Resolved& s,
                   const Selection& sel, Ctx& c, Agreed* out, CallReport& rep) {
  const int N = c.size, r = c.rank;
  const bool cmp = c.compressed();
  size_t data_n = 0;
  const void* data = bound_data(k, a, s, r, &data_n);
  double mn = std::numeric_limits<double>::infinity(), mx = -mn, maxabs = 0;
  const bool need_range = cmp && s.eb_mode == ZCOLL_EB_REL;
  const bool need_mag = cmp && s.op == ZCOLL_OP_PROD && is_reduction(k.coll);
  const double t_range = now_seconds();
  const bool sampled = zc->rel_range_sampled && need_range && !need_mag && !c.dev &&
                       data_n >= kSampleMin;
  if ((need_range || need_mag) && data && data_n) {
    if (c.dev)  // device buffers (device.h)
      ZCOLL_CHECK(c.dev->stats(s.dtype, data, data_n, &mn, &mx, &maxabs));
    else if (sampled && s.dtype == ZCOLL_FLOAT32)
      local_stats_sampled(static_cast<const float*>(data), data_n, &mn, &mx, &maxabs);
    else if (sampled)
      local_stats_sampled(static_cast<const double*>(data), data_n, &mn, &mx, &maxabs);
    else if (s.dtype == ZCOLL_FLOAT32)
      local_stats(static_cast<const float*>(data), data_n, c.threads, &mn, &mx, &maxabs);
    else
      local_stats(static_cast<const double*>(data), data_n, c.threads, &mn, &mx, &maxabs);
  }
  // AUTO, compressed candidate: this rank's estimate of bytes per byte (1/ratio)
  // at its own share of the bound (a REL bound from the local range is at most
  // the global one, so the estimate errs towards less compression).
  // A ratio agreed in a recent call with the same settings stands in for the
  // estimate (it samples up to 256 KiB: as much as a 1 MiB Gather compresses
  // per rank); every rank has the same memo, so all skip it together.
  double inv_ratio = 0;
  if (sel.autom && cmp && data && data_n) {
    if (sel.memo_used) {
      inv_ratio = 1.0 / sel.memo_ratio;
    } else {
      double eb_local = s.eb_value;
      if (s.eb_mode == ZCOLL_EB_REL) eb_local = mx > mn ? s.eb_value * (mx - mn) : 0;
      if (zc->cfg.bound == ZCOLL_BOUND_RESULT) eb_local /= N;
      const double ratio = c.dev ? c.dev->estimate_ratio(data, data_n, s.dtype, eb_local)
                                 : estimate_ratio(data, data_n, s.dtype, eb_local);
      inv_ratio = ratio > 0 ? 1.0 / ratio : 1.0;
    }
  }
  rep->time_range = now_seconds() - t_range;
  double counts_hash = 0;
  if (k.coll == ZCOLL_COLL_REDUCE_SCATTER)
    for (int i = 0; i < N; ++i)
      counts_hash =
          std::fmod(counts_hash * 1000003.0 + static_cast<double>(a.counts[i]), 9007199254740881.0);
  double set[kSettings];
  set[kEbMode] = cmp ? s.eb_mode : 0;
  set[kEb] = cmp ? s.eb_value : 0;
  set[kBound] = cmp ? zc->cfg.bound : 0;
  set[kMode] = sel.autom ? ZCOLL_MODE_AUTO : sel.mode;
  set[kAlgo] = sel.algo;
  set[kCount] = static_cast<double>(s.total);
  set[kCountsHash] = counts_hash;
  set[kDtype] = s.dtype;
  set[kOp] = is_reduction(k.coll) ? s.op : 0;
  set[kRoot] = is_rooted(k.coll) ? k.root : 0;
  set[kChunk] = cmp ? s.chunk : 0;
  set[kSegment] = static_cast<double>(c.seg_values == SIZE_MAX ? 0 : c.seg_values);
  set[kAverage] = s.average;
  set[kColl] = k.coll;
  set[kModel] = sel.autom ? model_hash(zc->model) : 0;
  set[kChecksum] = cmp ? static_cast<double>(zc->cfg.codec_flags) : 0;
  set[kRelRange] = need_range && zc->rel_range_sampled ? 1 : 0;
  // Layout: max, -min, max|x|, the settings as (v, -v) pairs, 1/ratio.
  constexpr int kValues = 4 + 2 * kSettings;
  double v[kValues];
  v[0] = mx;
  v[1] = -mn;
  v[2] = maxabs;
  for (int i = 0; i < kSettings; ++i) {
    v[3 + 2 * i] = set[i];
    v[4 + 2 * i] = -set[i];
  }
  v[kValues - 1] = inv_ratio;
  const double ta = now_seconds();
  zcoll_status st = c.tp->allreduce_max(v, kValues);
  rep->time_comm += now_seconds() - ta;
  ZCOLL_CHECK(st);
  for (int i = 0; i < kSettings; ++i) {
    const double hi = v[3 + 2 * i], lo = -v[4 + 2 * i];
    if (hi != lo) {
      std::snprintf(rep->reason, sizeof rep->reason, "%s differs across ranks", kSettingNames[i]);
      return fail(ZCOLL_ERR_MISMATCH,
                  "%s differs across ranks (min %.17g, max %.17g): every rank must use the same "
                  "settings",
                  kSettingNames[i], lo, hi);
    }
  }
  out->gmax = v[0];
  out->gmin = -v[1];
  out->max_abs = v[2];
  const double inv = v[kValues - 1];
  out->ratio = sel.autom && cmp ? (inv > 0 ? 1.0 / inv : 1.0) : 0;
  return ZCOLL_SUCCESS;
}

// ---- reselect_auto ---------------------------------------------------------------
// AUTO's choice again, at the agreed ratio (the same on every rank); the ratio
// is remembered for the next calls of this collective.
zcoll_status reselect_auto(zcoll_comm* zc, const Call& k, const Resolved& s, double ratio,
                           Selection* sel) {
  zcoll_comm::RatioMemo& memo = zc->ratio_memo[static_cast<int>(k.coll)];
  if (sel->memo_used) {  // agreed from the memo (agree): one more call decided from it
    ++memo.calls;
  } else {
    memo.ratio = ratio;
    memo.calls = 0;
    memo.dtype = s.dtype;
    memo.eb_mode = static_cast<int>(s.eb_mode);
    memo.eb = s.eb_value;
  }
  const Candidate& b =
      evaluate_auto(zc, s, ratio, sel->memo_used ? "recent ratio" : "estimated ratio", sel);
  std::snprintf(sel->why_mode, sizeof sel->why_mode, "auto: %sratio ~%.3g, predicted %.3gms",
                sel->memo_used ? "recent " : "", ratio, b.seconds * 1e3);
  if (b.mode == ZCOLL_MODE_MPI) {
    sel->native = sel->why_mode;
    return ZCOLL_SUCCESS;
  }
  sel->mode = b.mode;
  sel->algo = b.algo;
  sel->alg = find_algorithm(k.coll, b.algo);
  if (!sel->alg)
    return fail(ZCOLL_ERR_INTERNAL, "no algorithm for %s", zcoll_collective_name(k.coll));
  return ZCOLL_SUCCESS;
}

// ---- derive_bound ----------------------------------------------------------------
// The quantum our streams carry at (dtype, eb, chunk), cached on the handle:
// received streams are checked against it. False if eb cannot be a
// quantization step.
bool ensure_quantum(zcoll_comm* zc, const Ctx& c, uint32_t chunk) {
  if (zc->q_eb == c.params.error_bound && zc->q_dtype == c.dtype && zc->q_chunk == chunk)
    return true;
  uint8_t probe[256];
  const double zero = 0;
  const float zf = 0;
  size_t psz = 0;
  zcoll_info info = ZCOLL_INFO_INITIALIZER;
  const void* one = c.dtype == ZCOLL_FLOAT32 ? static_cast<const void*>(&zf) : &zero;
  if (zcoll_compress(&c.params, c.dtype, one, 1, probe, sizeof probe, &psz, c.threads) !=
          ZCOLL_SUCCESS ||
      zcoll_inspect(probe, psz, &info) != ZCOLL_SUCCESS)
    return false;
  zc->q_eb = c.params.error_bound;
  zc->q_dtype = c.dtype;
  zc->q_chunk = chunk;
  zc->q_quantum = info.quantum;
  return true;
}

// Sets c.eb, c.params, c.quantum, m.eb; falls back to RAW (c.mode) when no
// usable bound exists. *why gets a note for the report.
void derive_bound(zcoll_comm* zc, const Resolved& s, const Agreed& g, const Selection& sel, Ctx& c,
                  ModelIn* m, const char** why) {
  *why = "";
  if (!c.compressed()) return;
  const double target = target_bound(s.eb_mode, s.eb_value, g.gmin, g.gmax);
  double eb = 0;
  if (!(std::isfinite(target) && target > 0)) {
    *why = "; no usable error bound: raw";
  } else {
    eb = per_compression_bound(sel.alg->model, *m, target, zc->cfg.bound);
    if (eb <= 0) *why = "; the result bound leaves no usable per-compression bound: raw";
  }
  if (eb > 0) {
    c.params.struct_size = sizeof c.params;
    c.params.eb_mode = ZCOLL_EB_ABS;
    c.params.error_bound = eb;
    c.params.chunk_size = s.chunk;
    c.params.flags = zc->cfg.codec_flags;  // ZCOLL_CHECKSUM
    if (ensure_quantum(zc, c, s.chunk)) {
      c.quantum = zc->q_quantum;
    } else {
      *why = "; the error bound cannot be a quantization step: raw";
      eb = 0;
    }
  }
  if (eb <= 0) {  // RAW: the same algorithm, uncompressed
    c.mode = ZCOLL_MODE_RAW;
    m->mode = ZCOLL_MODE_RAW;
    m->hom = false;
    if (c.seg_values == SIZE_MAX) c.seg_values = s.seg_values;  // cpr_p2p had one piece
  }
  c.eb = eb;
  m->eb = eb;
}

// ---- execute -----------------------------------------------------------------------
zcoll_status execute(const Selection& sel, Ctx& c, const Args& a, CallReport& rep) {
  transport::Transport& tp = *c.tp;
  tp.bytes_sent = 0;
  tp.time_in_calls = 0;
  tp.first_send_at = 0;
  tp.last_recv_at = 0;
  // the algorithm, then the status agreed by all ranks (primitives.h)
  zcoll_status s = run_algorithm(*sel.alg, c, a);
  rep.set_timeline(tp.first_send_at, tp.last_recv_at);
  rep->bytes_sent = tp.bytes_sent;
  rep->bytes_uncompressed = c.compressed() ? c.logical_bytes : tp.bytes_sent;
  rep->time_compress = c.t_codec;
  rep->time_reduce = c.t_reduce;
  rep->time_comm += tp.time_in_calls;
  rep->compressions = c.compressions;
  rep->hom_adds = c.hom_adds;
  return s;
}

}  // namespace

zcoll_status run_call(zcoll_comm* zc, const Call& k) {
  clear_error();
  if (!zc || !zc->tp) return fail(ZCOLL_ERR_INVALID_ARG, "zcoll_comm is NULL");
  CallReport rep(zc, k);
  // Every call on the handle, whatever its path, advances the tag epoch on
  // every rank alike (all ranks make the same calls in the same order).
  const uint64_t epoch = zc->calls++;

  Resolved s;
  if (zcoll_status st = resolve(*zc, k, &s)) return rep.finish(st);
  if (k.coll == ZCOLL_COLL_REDUCE_SCATTER) rep->count = s.total;
  auto native = [&](const char* why) {
    rep->mode = ZCOLL_MODE_MPI;
    rep->algorithm = ZCOLL_ALGO_NATIVE;
    std::snprintf(rep->reason, sizeof rep->reason, "%s", why);
    const double tc = now_seconds();
    zcoll_status st = zc->device
                          ? zc->device->ops->run_native(zc, k, s.average && s.dtype_ok, s.dtype)
                          : run_native(zc, k, s.average && s.dtype_ok, s.dtype);
    rep->time_comm = now_seconds() - tc;
    return rep.finish(st);
  };
  if (s.total == 0) {
    rep->mode = s.mode;
    rep->algorithm = ZCOLL_ALGO_NONE;
    std::snprintf(rep->reason, sizeof rep->reason, "no values");
    return rep.finish(ZCOLL_SUCCESS);
  }
  char why_fallback[96];
  if (const char* why = fallback_reason(*zc, s, why_fallback, sizeof why_fallback))
    return native(why);

  Selection sel;
  if (zcoll_status st = select(zc, k, s, &sel)) return rep.finish(st);
  if (sel.native) {
    if (sel.autom) rep->time_predicted = sel.cand[sel.best].seconds;
    return native(sel.native);
  }
  rep->mode = sel.mode;
  rep->algorithm = sel.algo;

  const Args a = bind_args(zc, k, s);
  Ctx c;
  c.tp = zc->device ? zc->device->tp : zc->tp.get();
  c.dev = zc->device ? zc->device->ops : nullptr;
  c.rank = c.tp->rank();
  c.size = c.tp->size();
  c.coll = k.coll;
  c.dtype = s.dtype;
  c.vsize = s.vsize;
  c.op = s.op;
  c.mode = sel.mode;
  c.average = s.average;
  c.threads = zc->cfg.threads;
  c.ws = &zc->ws;
  // A tag pair per call (data, abort notice), cycling through kTagEpochs pairs
  // within the 32767 every MPI allows: a message left over from an earlier
  // call cannot match this one's receives.
  c.tag = kTagBase + 2 * static_cast<int>(epoch % kTagEpochs);
  c.seg_values = sel.mode == ZCOLL_MODE_CPR_P2P ? SIZE_MAX  // the baseline: one piece per message
                                                : s.seg_values;

  Agreed g;
  if (zcoll_status st = agree(zc, k, a, s, sel, c, &g, rep)) return rep.finish(st);
  c.max_abs = g.max_abs;
  if (sel.autom && g.ratio > 0) {
    rep->ratio_estimate = g.ratio;
    if (zcoll_status st = reselect_auto(zc, k, s, g.ratio, &sel)) return rep.finish(st);
    if (sel.native) {
      rep->time_predicted = sel.cand[sel.best].seconds;
      return native(sel.native);
    }
    c.mode = sel.mode;
    rep->mode = sel.mode;
    rep->algorithm = sel.algo;
  }
  if (sel.autom) rep->time_predicted = sel.cand[sel.best].seconds;

  ModelIn m;
  m.size = c.size;
  m.mode = c.mode;
  m.op = is_reduction(k.coll) ? s.op : ZCOLL_OP_SUM;
  m.hom = is_reduction(k.coll) && c.mode == ZCOLL_MODE_HOM && s.op == ZCOLL_OP_SUM;
  m.average = s.average;
  m.max_abs = c.max_abs;
  m.root = k.root;
  const char* why_eb = "";
  derive_bound(zc, s, g, sel, c, &m, &why_eb);
  rep->mode = c.mode;
  rep->eb_per_compression = c.compressed() ? c.eb : 0;
  rep->error_bound = c.compressed() ? result_bound(sel.alg->model, m, c.eb) : 0;
  rep->error_factor = c.eb > 0 ? rep->error_bound / c.eb : 0;
  std::snprintf(rep->reason, sizeof rep->reason, "%s; %s%s; %s %s", sel.why_mode, sel.why_algo,
                why_eb, s.dtype == ZCOLL_FLOAT32 ? "float" : "double",
                is_reduction(k.coll) ? zcoll_op_name(s.op) : "data movement");

  return rep.finish(execute(sel, c, a, rep));
}

}  // namespace zcoll::coll
