// inproc_case.h — one algorithm case on one group of ranks, as the in-process
// tests run it (inproc_test.cc over plain thread transports, transport_test.cc
// over sub-group and size-prefixed ones): every rank's input, its run over the
// transport it is given (from its own thread), and the checks afterwards —
// against a double-precision reference and the algorithm's error model, and
// for Allreduce, the same bytes on every rank.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <limits>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "coll/control/algorithms.h"
#include "coll/datapath/primitives.h"
#include "harness.h"
#include "transport/transport.h"

namespace zcoll_testing {

struct Setup {
  zcoll_collective coll;
  zcoll_algorithm algo;
  zcoll_mode mode;
  zcoll_op op;
  size_t count;
  int root;
  bool average;
  bool mismatch = false;   // rank 0 compresses with a 10x larger bound
  size_t pipeline = 2048;  // configured segment (values), before pipeline_segment_values
  int data = 0;            // added to each rank's index in the input's formula
  int tag = 1;             // the call's data tag (tag + 1: its abort notices)
  // The group's node labels (locality.h), which the error model of a
  // node-aware algorithm reads (empty: not known, as for the flat ones).
  std::vector<int64_t> nodes = {};
  bool dense = false;  // the dense codec (format 1.3): hom runs as doc, as dispatch does
};

// A uniform value in [-1, 1) from (p, i): splitmix64's finaliser. (The shader
// hash fract(sin(x) * 43758.5453) it replaced spent two thirds of
// inproc_algorithms' time in fmod and sin.)
inline double hash_uniform(int p, size_t i) {
  uint64_t z = (static_cast<uint64_t>(static_cast<uint32_t>(p)) << 40) ^ i;
  z += 0x9e3779b97f4a7c15ULL;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  z ^= z >> 31;
  return static_cast<double>(z >> 11) * 0x1p-52 - 1.0;
}

inline double gen(int p, size_t i, zcoll_op op) {
  const double u = hash_uniform(p, i);
  if (op == ZCOLL_OP_PROD) return 0.9 + 0.2 * std::fabs(u);
  return 10 * std::sin(i * 0.003 + p) + u + p;
}

// gen(p, 0..n-1, op), computed once per thread and (p, op is PROD) and kept:
// the cases of a run ask for the same rows again and again.
inline const double* gen_row(int p, size_t n, zcoll_op op) {
  thread_local std::map<std::pair<int, bool>, std::vector<double>> rows;
  std::vector<double>& row = rows[{p, op == ZCOLL_OP_PROD}];
  for (size_t i = row.size(); i < n; ++i) row.push_back(gen(p, i, op));
  return row.data();
}

inline double apply(zcoll_op op, double a, double b) {
  switch (op) {
    case ZCOLL_OP_SUM: return a + b;
    case ZCOLL_OP_PROD: return a * b;
    case ZCOLL_OP_MAX: return a > b ? a : b;
    case ZCOLL_OP_MIN: return a < b ? a : b;
  }
  return a;
}

inline bool is_reduction(zcoll_collective c) {
  return c == ZCOLL_COLL_ALLREDUCE || c == ZCOLL_COLL_REDUCE_SCATTER || c == ZCOLL_COLL_REDUCE;
}

inline double quantum_of(zcoll_params p, zcoll_dtype dt) {
  double zero = 0;
  float zf = 0;
  uint8_t probe[256];
  size_t psz = 0;
  zcoll_info info = ZCOLL_INFO_INITIALIZER;
  zcoll_compress(&p, dt, dt == ZCOLL_FLOAT32 ? static_cast<const void*>(&zf) : &zero, 1, probe,
                 sizeof probe, &psz, 1);
  zcoll_inspect(probe, psz, &info);
  return info.quantum;
}

template <typename T>
class Case {
 public:
  // alg must run s.coll; N ranks.
  Case(const zcoll::coll::Algorithm& alg, int N, Setup s) : alg_(alg), N_(N), s_(s) {
    using namespace zcoll::coll;
    red_ = is_reduction(s_.coll);
    if (s_.mode == ZCOLL_MODE_HOM && red_ && s_.op != ZCOLL_OP_SUM) s_.mode = ZCOLL_MODE_DOC;
    if (s_.mode == ZCOLL_MODE_HOM && s_.dense) s_.mode = ZCOLL_MODE_DOC;
    const size_t c = s_.count;
    n_in_ = n_out_ = c;
    switch (s_.coll) {
      case ZCOLL_COLL_REDUCE_SCATTER: n_in_ = c * N; break;
      case ZCOLL_COLL_ALLGATHER:
      case ZCOLL_COLL_GATHER: n_out_ = c * N; break;
      case ZCOLL_COLL_SCATTER: n_in_ = c * N; break;
      default: break;
    }
    in_.assign(N, std::vector<T>(n_in_));
    out_.assign(N, std::vector<T>(n_out_ + 1, T(-7)));
    for (int p = 0; p < N; ++p) {
      const double* row = gen_row(p + s_.data, n_in_, s_.op);
      for (size_t i = 0; i < n_in_; ++i) {
        in_[p][i] = static_cast<T>(row[i]);
        max_abs_ = std::max(max_abs_, std::fabs(static_cast<double>(in_[p][i])));
      }
    }
    if (s_.coll == ZCOLL_COLL_BCAST)
      out_[s_.root].assign(in_[s_.root].begin(), in_[s_.root].end()),
          out_[s_.root].push_back(T(-7));
    params_ = ZCOLL_PARAMS_INITIALIZER;
    params_.eb_mode = ZCOLL_EB_ABS;
    params_.error_bound = kEb;
    params_.chunk_size = 1024;
    params_.codec = s_.dense ? ZCOLL_CODEC_DENSE : ZCOLL_CODEC_FAST;
    quantum_ = quantum_of(params_, dtype());
    params0_ = params_;
    if (s_.mismatch) params0_.error_bound = 10 * kEb;
    quantum0_ = quantum_of(params0_, dtype());
    counts_.assign(N, c);
    displs_.resize(N);
    for (int p = 0; p < N; ++p) displs_[p] = p * c;
    status_.assign(N, ZCOLL_SUCCESS);
    error_.resize(N);
    std::snprintf(what_, sizeof what_, "%s %s%s %s op=%d N=%d n=%zu root=%d avg=%d pipe=%zu",
                  alg_.function, zcoll_mode_name(s_.mode), s_.dense ? " dense" : "",
                  sizeof(T) == 4 ? "float" : "double", static_cast<int>(s_.op), N, c, s_.root,
                  s_.average, s_.pipeline);
  }

  // Rank r's part, from its own thread, over a transport of N ranks where it is
  // rank r. bracket: as the library runs it (run_algorithm: the fault protocol's
  // begin_call / end_call and the status agreement), else alg.run alone.
  // fail_alloc > 0: the fail_alloc-th growth of the rank's scratch space
  // fails (Workspace::fail_countdown); returns 1 when it did.
  int run_rank(zcoll::transport::Transport& tp, int r, bool bracket = false, int fail_alloc = 0) {
    using namespace zcoll::coll;
    Workspace ws;
    ws.fail_countdown = fail_alloc;
    Ctx x;
    x.tp = &tp;
    x.rank = r;
    x.size = N_;
    x.coll = s_.coll;
    x.dtype = dtype();
    x.vsize = sizeof(T);
    x.op = s_.op;
    x.mode = s_.mode;
    x.average = s_.average && s_.op == ZCOLL_OP_SUM;
    x.params = r == 0 ? params0_ : params_;
    x.eb = s_.mode == ZCOLL_MODE_RAW ? 0 : x.params.error_bound;
    x.max_abs = max_abs_;
    x.quantum = r == 0 ? quantum0_ : quantum_;
    // as dispatch.cc: no message is longer than the larger buffer
    x.seg_values = s_.mode == ZCOLL_MODE_CPR_P2P
                       ? SIZE_MAX
                       : pipeline_segment_values(s_.pipeline, std::max(n_in_, n_out_));
    x.threads = 1;
    x.ws = &ws;
    x.tag = s_.tag;
    Args a;
    a.count = s_.count;
    a.root = s_.root;
    a.in = s_.coll == ZCOLL_COLL_BCAST ? out_[r].data() : in_[r].data();
    a.out = out_[r].data();
    if (s_.coll == ZCOLL_COLL_REDUCE_SCATTER) {
      a.counts = counts_.data();
      a.displs = displs_.data();
    }
    zcoll_status st = bracket ? run_algorithm(alg_, x, a) : alg_.run(x, a);
    status_[r] = st != ZCOLL_SUCCESS ? st : x.failed;
    if (status_[r] != ZCOLL_SUCCESS) error_[r] = zcoll_last_error();
    return fail_alloc > 0 && ws.fail_countdown == 0 ? 1 : 0;
  }

  // The checks, once every rank has run.
  void check() const {
    if (s_.mismatch) {
      check_mismatch();
      return;
    }
    long bad = 0;
    for (int r = 0; r < N_; ++r) bad += check_rank(r);
    EXPECT(bad == 0, "%s: %ld values outside the bound %.3g", what_, bad, bound());
    if (s_.coll == ZCOLL_COLL_ALLREDUCE)
      for (int r = 1; r < N_; ++r)
        EXPECT(std::memcmp(out_[r].data(), out_[0].data(), n_out_ * sizeof(T)) == 0,
               "%s: rank %d differs from rank 0", what_, r);
  }

  // Streams of different quanta must never be mixed: the ranks that receive
  // one fail (ZCOLL_ERR_MISMATCH, or the error marker of a peer), nobody
  // hangs; where every block passes every rank, every rank fails.
  void check_mismatch() const {
    int failed = 0;
    for (int r = 0; r < N_; ++r) failed += status_[r] != ZCOLL_SUCCESS;
    const bool everywhere = s_.coll == ZCOLL_COLL_ALLREDUCE ||
                            s_.coll == ZCOLL_COLL_REDUCE_SCATTER || s_.coll == ZCOLL_COLL_ALLGATHER;
    EXPECT(failed >= 1, "%s: mismatched bounds not detected", what_);
    if (everywhere)
      EXPECT(failed == N_, "%s: only %d of %d ranks report the mismatch", what_, failed, N_);
    for (int r = 0; r < N_; ++r)
      EXPECT(status_[r] == ZCOLL_SUCCESS || status_[r] == ZCOLL_ERR_MISMATCH,
             "%s: rank %d status %d (%s)", what_, r, status_[r], error_[r].c_str());
  }

  // Rank r's status and the values of its result outside the bound (counted,
  // the first printed): the checks a process that ran rank r alone can make.
  long check_rank(int r) const {
    const char* what = what_;
    EXPECT(status_[r] == ZCOLL_SUCCESS, "%s: rank %d status %d (%s)", what, r, status_[r],
           error_[r].c_str());
    const int N = N_;
    const zcoll::coll::ModelIn m = model_in();
    const double bound = alg_.model(m).e;
    const double u = std::numeric_limits<T>::epsilon() / 2;
    const size_t c = s_.count;
    const bool has =
        !((s_.coll == ZCOLL_COLL_REDUCE || s_.coll == ZCOLL_COLL_GATHER) && r != s_.root);
    if (!has) return 0;
    long bad = 0;
    for (size_t i = 0; i < n_out_; ++i) {
      double ref, tol;
      if (red_) {
        const size_t gi = (s_.coll == ZCOLL_COLL_REDUCE_SCATTER ? displs_[r] : 0) + i;
        ref = in_[0][gi];
        double sabs = std::fabs(ref);
        for (int p = 1; p < N; ++p) {
          ref = apply(s_.op, ref, in_[p][gi]);
          sabs += std::fabs(static_cast<double>(in_[p][gi]));
        }
        if (m.average) ref /= N, sabs /= N;
        tol = bound * (1 + 1e-9) + (N + 3) * u * (sabs + N * kEb + std::fabs(ref));
      } else {
        if (s_.coll == ZCOLL_COLL_ALLGATHER || s_.coll == ZCOLL_COLL_GATHER)
          ref = in_[i / c][i % c];
        else if (s_.coll == ZCOLL_COLL_SCATTER)
          ref = in_[s_.root][r * c + i];
        else
          ref = in_[s_.root][i];
        tol = bound * (1 + 1e-9) + u * std::fabs(ref);
      }
      if (!(std::fabs(out_[r][i] - ref) <= tol)) {
        if (bad == 0)
          std::fprintf(stderr, "%s: rank %d i=%zu y=%.17g ref=%.17g bound=%.3g\n", what, r, i,
                       static_cast<double>(out_[r][i]), ref, bound);
        ++bad;
      }
    }
    EXPECT(out_[r][n_out_] == T(-7), "%s: rank %d wrote past the end", what, r);
    return bad;
  }

  // The error model's input for this case, and its bound.
  zcoll::coll::ModelIn model_in() const {
    zcoll::coll::ModelIn m;
    m.size = N_;
    m.mode = s_.mode;
    m.op = red_ ? s_.op : ZCOLL_OP_SUM;
    m.hom = red_ && s_.mode == ZCOLL_MODE_HOM && s_.op == ZCOLL_OP_SUM;
    m.average = s_.average && s_.op == ZCOLL_OP_SUM;
    m.eb = s_.mode == ZCOLL_MODE_RAW ? 0 : kEb;
    m.max_abs = max_abs_;
    m.root = s_.root;
    if (!s_.nodes.empty()) {
      const zcoll::transport::Locality l = zcoll::transport::Locality::from_labels(s_.nodes, 0);
      m.nodes = l.nodes;
      m.min_local = l.min_local_size;
      m.max_local = l.max_local_size;
    }
    return m;
  }
  double bound() const { return alg_.model(model_in()).e; }

  const char* what() const { return what_; }
  zcoll_status status(int r) const { return status_[r]; }
  const std::vector<T>& output(int r) const { return out_[r]; }  // n_out() values + 1 guard
  size_t n_out() const { return n_out_; }

 private:
  static constexpr double kEb = 1e-3;
  zcoll_dtype dtype() const { return sizeof(T) == 4 ? ZCOLL_FLOAT32 : ZCOLL_FLOAT64; }
  const zcoll::coll::Algorithm& alg_;
  int N_;
  Setup s_;
  bool red_ = false;
  size_t n_in_ = 0, n_out_ = 0;
  std::vector<std::vector<T>> in_, out_;
  double max_abs_ = 0;
  zcoll_params params_{}, params0_{};
  double quantum_ = 0, quantum0_ = 0;
  std::vector<size_t> counts_, displs_;
  std::vector<zcoll_status> status_;
  std::vector<std::string> error_;  // each rank's zcoll_last_error() (thread-local)
  char what_[200];
};

}  // namespace zcoll_testing
