// coll_test.cc — MPI correctness tests of libzcoll_mpi, run by CTest under
// mpiexec -n 1..5. Every rank generates every rank's inputs (deterministic), so
// the double-precision reference needs no communication. Checks:
//   * reductions: |y - ref| <= reported bound + rounding of the op in T
//   * data movement: within the single-compression bound (doc/hom)
//   * allreduce: bit-identical on all ranks (hash allgather)
//   * report fields (mode, status), NaN/Inf (IEEE), mismatched bounds, sub-comms
// Usage: coll_test [--subcomm] [--type f32|f64] [group ...]  (groups: allreduce
// reduce_scatter allgather bcast scatter reduce gather special large; none = all;
// --type: the groups' matrix in one element type only). Exit status != 0 on failure.
#include <mpi.h>

#include <algorithm>
#include <cfloat>
#include <cstddef>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <map>
#include <string>
#include <vector>

#include "harness.h"
#include "zcoll_mpi.h"
#include "zcoll_tuner.h"

namespace {

using zcoll_testing::g_rank;
int g_size = 1;

uint64_t mix(uint64_t x) {
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdULL;
  x ^= x >> 33;
  x *= 0xc4ceb9fe1a85ec53ULL;
  x ^= x >> 33;
  return x;
}

// The smooth part of rank p's input at 0..n-1, computed once per process and p:
// the cases ask for the same rows again and again, and sin/cos of every rank's
// input on every rank took 85% of the large group's time.
const double* smooth_row(int p, size_t n) {
  static std::map<int, std::vector<double>> rows;
  std::vector<double>& row = rows[p];
  for (size_t i = row.size(); i < n; ++i)
    row.push_back(20.0 * std::sin(i * 0.0007 + p) + 3.0 * std::cos(i * 0.013 * (p + 1)) + p);
  return row.data();
}

double hash_unit(int p, size_t i, int salt) {
  return static_cast<double>(mix(i * 1315423911ULL + static_cast<uint64_t>(p) * 2654435761ULL +
                                 static_cast<uint64_t>(salt) * 97) >>
                             11) *
         0x1.0p-53;
}

// Input value of rank p at index i (smooth: its smooth_row).
double gen(int p, size_t i, MPI_Op op, int salt, const double* smooth = nullptr) {
  const double u = hash_unit(p, i, salt);
  if (op == MPI_PROD) return 0.8 + 0.4 * u;
  const double s = smooth
                       ? smooth[i]
                       : 20.0 * std::sin(i * 0.0007 + p) + 3.0 * std::cos(i * 0.013 * (p + 1)) + p;
  return s + (u - 0.5) * 0.1;
}

template <typename T>
MPI_Datatype mpi_type() {
  return sizeof(T) == 4 ? MPI_FLOAT : MPI_DOUBLE;
}

template <typename T>
double unit_roundoff() {
  return std::numeric_limits<T>::epsilon() / 2;
}

double apply(MPI_Op op, double a, double b) {
  if (op == MPI_SUM) return a + b;
  if (op == MPI_PROD) return a * b;
  if (std::isnan(a) || std::isnan(b)) return std::nan("");
  if (op == MPI_MAX) return a > b ? a : b;
  return a < b ? a : b;
}

const char* op_name(MPI_Op op) {
  return op == MPI_SUM ? "SUM" : op == MPI_PROD ? "PROD" : op == MPI_MAX ? "MAX" : "MIN";
}

uint64_t hash_bytes(const void* p, size_t n) {
  const auto* b = static_cast<const unsigned char*>(p);
  uint64_t h = 1469598103934665603ULL;
  for (size_t i = 0; i < n; ++i) h = (h ^ b[i]) * 1099511628211ULL;
  return h;
}

zcoll_report last(zcoll_comm* zc) {
  zcoll_report r = ZCOLL_REPORT_INITIALIZER;
  r.struct_size = sizeof r;
  zcoll_comm_last_report(zc, &r);
  return r;
}

struct Case {
  zcoll_comm* zc;
  MPI_Comm comm;
  int rank, size;
  zcoll_mode mode;
  zcoll_algorithm algo;
  MPI_Op op;
  bool in_place;
  size_t count;
  int root;
  bool average;
  int salt;
  const char* label;
  bool dense;  // the handle's codec is dense (ZCOLL_CODEC=dense): hom runs as doc
};

std::string describe(const Case& c, const char* coll, const char* type) {
  char b[256];
  std::snprintf(b, sizeof b,
                "%s %s %s mode=%s algo=%s op=%s inplace=%d n=%zu root=%d avg=%d N=%d [%s]", coll,
                type, c.label, zcoll_mode_name(c.mode), zcoll_algorithm_name(c.algo), op_name(c.op),
                c.in_place, c.count, c.root, c.average, c.size, c.label);
  return b;
}

zcoll_mode expected_mode(const Case& c, bool reduction, size_t values) {
  if (c.mode == ZCOLL_MODE_MPI) return ZCOLL_MODE_MPI;
  if (c.mode == ZCOLL_MODE_AUTO) return ZCOLL_MODE_AUTO;  // checked by the caller
  if (values == 0) return c.mode;
  if (reduction && c.mode == ZCOLL_MODE_HOM && c.op != MPI_SUM) return ZCOLL_MODE_DOC;
  if (c.mode == ZCOLL_MODE_HOM && c.dense) return ZCOLL_MODE_DOC;
  return c.mode;
}

// Check reduced values y (n of them, starting at global index `first`) against the reference.
template <typename T>
void check_reduction(const Case& c, const T* y, size_t first, size_t n, const zcoll_report& rep,
                     const std::string& what, const std::vector<std::vector<T>>& inputs) {
  const double u = unit_roundoff<T>();
  const double N = c.size;
  const bool avg = c.average && c.op == MPI_SUM;
  long bad = 0;
  for (size_t i = 0; i < n; ++i) {
    double ref = inputs[0][first + i], sabs = std::fabs(ref);
    for (int p = 1; p < c.size; ++p) {
      double x = inputs[p][first + i];
      ref = apply(c.op, ref, x);
      sabs += std::fabs(x);
    }
    if (avg) {
      ref /= N;
      sabs /= N;
    }
    double v = y[i];
    bool ok;
    if (std::isnan(ref))
      ok = std::isnan(v);
    else if (std::isinf(ref))
      ok = v == ref;
    else {
      double tol = rep.error_bound * (1 + 1e-9);
      if (c.op == MPI_SUM)
        tol += (N + 3) * u * (sabs + N * rep.eb_per_compression + std::fabs(ref));
      else if (c.op == MPI_PROD)
        tol += (N + 3) * u * (std::fabs(ref) + rep.error_bound);
      else
        tol += 2 * u * std::fabs(ref);
      ok = std::fabs(v - ref) <= tol;
      if (!ok && bad == 0)
        std::fprintf(
            stderr, "[rank %d] %s: i=%zu y=%.17g ref=%.17g |err|=%.3g tol=%.3g bound=%.3g\n",
            g_rank, what.c_str(), first + i, v, ref, std::fabs(v - ref), tol, rep.error_bound);
    }
    if (!ok) ++bad;
  }
  EXPECT(bad == 0, "%s: %ld values outside the bound", what.c_str(), bad);
}

// Data movement: y must equal x within the reported (single-compression) bound.
template <typename T>
void check_copy(const Case& c, const T* y, const T* x, size_t n, const zcoll_report& rep,
                const std::string& what, bool exact) {
  const double u = unit_roundoff<T>();
  long bad = 0;
  for (size_t i = 0; i < n; ++i) {
    double ref = x[i], v = y[i];
    bool ok;
    if (std::isnan(ref))
      ok = std::isnan(v);
    else if (std::isinf(ref) || exact)
      ok = v == ref;
    else
      ok = std::fabs(v - ref) <= rep.error_bound * (1 + 1e-9) + u * std::fabs(ref);
    if (!ok && bad == 0)
      std::fprintf(stderr, "[rank %d] %s: i=%zu y=%.17g x=%.17g bound=%.3g\n", g_rank, what.c_str(),
                   i, v, ref, rep.error_bound);
    if (!ok) ++bad;
  }
  EXPECT(bad == 0, "%s: %ld values wrong", what.c_str(), bad);
  if (c.mode == ZCOLL_MODE_DOC || c.mode == ZCOLL_MODE_HOM)
    EXPECT(rep.error_bound <= rep.eb_per_compression * (1 + 1e-12),
           "%s: data movement bound %.3g exceeds one compression %.3g", what.c_str(),
           rep.error_bound, rep.eb_per_compression);
}

template <typename T>
std::vector<std::vector<T>> make_inputs(const Case& c, size_t n, int nan_inf) {
  std::vector<std::vector<T>> in(c.size, std::vector<T>(n));
  for (int p = 0; p < c.size; ++p) {
    const double* smooth = c.op == MPI_PROD ? nullptr : smooth_row(p, n);
    for (size_t i = 0; i < n; ++i) in[p][i] = static_cast<T>(gen(p, i, c.op, c.salt, smooth));
  }
  if (nan_inf && n > 10) {
    const T inf = std::numeric_limits<T>::infinity();
    in[0][3] = std::numeric_limits<T>::quiet_NaN();
    in[c.size - 1][7] = inf;
    in[0][9] = inf;
    in[c.size - 1][9] = c.size > 1 ? -inf : inf;  // +inf + -inf = NaN
  }
  return in;
}

void check_status(const Case& c, zcoll_status s, const zcoll_report& rep, bool reduction,
                  size_t values, const std::string& what) {
  EXPECT(s == ZCOLL_SUCCESS, "%s: status %s (%s)", what.c_str(), zcoll_status_string(s),
         zcoll_last_error());
  EXPECT(rep.status == s, "%s: report status", what.c_str());
  zcoll_mode em = expected_mode(c, reduction, values);
  if (em == ZCOLL_MODE_AUTO) {  // nothing to run (0 values) reports auto itself
    EXPECT((values == 0 && rep.mode == ZCOLL_MODE_AUTO) || rep.mode == ZCOLL_MODE_MPI ||
               rep.mode == ZCOLL_MODE_RAW || rep.mode == ZCOLL_MODE_DOC ||
               rep.mode == ZCOLL_MODE_HOM,
           "%s: auto ran mode %s", what.c_str(), zcoll_mode_name(rep.mode));
    return;
  }
  EXPECT(rep.mode == em, "%s: report mode %s, expected %s (%s)", what.c_str(),
         zcoll_mode_name(rep.mode), zcoll_mode_name(em), rep.reason);
}

// ---- the collectives -------------------------------------------------------------

template <typename T>
void t_allreduce(const Case& c, int nan_inf = 0) {
  const size_t n = c.count;
  auto in = make_inputs<T>(c, n, nan_inf);
  std::vector<T> send = in[c.rank], recv(n + 1, T(-7));
  if (c.in_place) std::copy(send.begin(), send.end(), recv.begin());
  zcoll_comm_set_mode(c.zc, c.mode);
  zcoll_comm_set_algorithm(c.zc, ZCOLL_COLL_ALLREDUCE, c.algo);
  zcoll_comm_set_average(c.zc, c.average);
  zcoll_status s = zcoll_allreduce(c.zc, c.in_place ? MPI_IN_PLACE : send.data(), recv.data(), n,
                                   mpi_type<T>(), c.op);
  zcoll_report rep = last(c.zc);
  std::string what = describe(c, "allreduce", sizeof(T) == 4 ? "float" : "double");
  check_status(c, s, rep, true, n, what);
  if (s != ZCOLL_SUCCESS) return;
  check_reduction<T>(c, recv.data(), 0, n, rep, what, in);
  EXPECT(recv[n] == T(-7), "%s: wrote past the end", what.c_str());
  if (c.mode != ZCOLL_MODE_MPI && rep.mode != ZCOLL_MODE_MPI && n > 0 && c.algo != ZCOLL_ALGO_AUTO)
    EXPECT(rep.algorithm == c.algo, "%s: algorithm %s", what.c_str(),
           zcoll_algorithm_name(rep.algorithm));
  // bit-identical on all ranks
  uint64_t h = hash_bytes(recv.data(), n * sizeof(T));
  std::vector<uint64_t> all(c.size);
  MPI_Allgather(&h, 1, MPI_UINT64_T, all.data(), 1, MPI_UINT64_T, c.comm);
  bool same = true;
  for (int p = 0; p < c.size; ++p) same = same && all[p] == all[0];
  EXPECT(same, "%s: results differ across ranks", what.c_str());
}

template <typename T>
void t_reduce_scatter(const Case& c, bool counts_variant) {
  std::vector<size_t> counts(c.size), displs(c.size);
  size_t total = 0;
  for (int p = 0; p < c.size; ++p) {
    counts[p] = counts_variant ? (c.count == 0 ? 0 : (c.count + 37 * p) % (c.count + 5)) : c.count;
    if (counts_variant && p == 1 % c.size && c.size > 2) counts[p] = 0;  // an empty block
    displs[p] = total;
    total += counts[p];
  }
  auto in = make_inputs<T>(c, total, 0);
  std::vector<T> send = in[c.rank];
  std::vector<T> recv(c.in_place ? total + 1 : counts[c.rank] + 1, T(-7));
  if (c.in_place) std::copy(send.begin(), send.end(), recv.begin());
  zcoll_comm_set_mode(c.zc, c.mode);
  zcoll_comm_set_average(c.zc, c.average);
  zcoll_comm_set_algorithm(c.zc, ZCOLL_COLL_REDUCE_SCATTER, c.algo);
  const void* sb = c.in_place ? MPI_IN_PLACE : send.data();
  zcoll_status s =
      counts_variant
          ? zcoll_reduce_scatter(c.zc, sb, recv.data(), counts.data(), mpi_type<T>(), c.op)
          : zcoll_reduce_scatter_block(c.zc, sb, recv.data(), c.count, mpi_type<T>(), c.op);
  zcoll_report rep = last(c.zc);
  std::string what = describe(c, counts_variant ? "reduce_scatter_counts" : "reduce_scatter",
                              sizeof(T) == 4 ? "float" : "double");
  check_status(c, s, rep, true, total, what);
  if (s != ZCOLL_SUCCESS) return;
  if (c.mode != ZCOLL_MODE_MPI && rep.mode != ZCOLL_MODE_MPI && total > 0 &&
      c.algo != ZCOLL_ALGO_AUTO)
    EXPECT(rep.algorithm == c.algo, "%s: algorithm %s", what.c_str(),
           zcoll_algorithm_name(rep.algorithm));
  check_reduction<T>(c, recv.data(), displs[c.rank], counts[c.rank], rep, what, in);
  if (!c.in_place) EXPECT(recv[counts[c.rank]] == T(-7), "%s: wrote past the end", what.c_str());
}

template <typename T>
void t_allgather(const Case& c) {
  const size_t n = c.count;
  auto in = make_inputs<T>(c, n, 0);
  std::vector<T> recv(n * c.size + 1, T(-7));
  if (c.in_place) std::copy(in[c.rank].begin(), in[c.rank].end(), recv.begin() + c.rank * n);
  zcoll_comm_set_mode(c.zc, c.mode);
  zcoll_comm_set_algorithm(c.zc, ZCOLL_COLL_ALLGATHER, c.algo);
  zcoll_status s = zcoll_allgather(c.zc, c.in_place ? MPI_IN_PLACE : in[c.rank].data(), recv.data(),
                                   n, mpi_type<T>());
  zcoll_comm_set_algorithm(c.zc, ZCOLL_COLL_ALLGATHER, ZCOLL_ALGO_AUTO);
  zcoll_report rep = last(c.zc);
  std::string what = describe(c, "allgather", sizeof(T) == 4 ? "float" : "double");
  check_status(c, s, rep, false, n * c.size, what);
  if (s != ZCOLL_SUCCESS) return;
  if (c.mode != ZCOLL_MODE_MPI && rep.mode != ZCOLL_MODE_MPI && n > 0 && c.algo != ZCOLL_ALGO_AUTO)
    EXPECT(rep.algorithm == c.algo, "%s: algorithm %s", what.c_str(),
           zcoll_algorithm_name(rep.algorithm));
  for (int p = 0; p < c.size; ++p)
    check_copy<T>(c, recv.data() + p * n, in[p].data(), n, rep,
                  what + " block " + std::to_string(p),
                  p == c.rank || c.mode == ZCOLL_MODE_MPI || c.mode == ZCOLL_MODE_RAW);
  EXPECT(recv[n * c.size] == T(-7), "%s: wrote past the end", what.c_str());
}

template <typename T>
void t_bcast(const Case& c, int nan_inf = 0) {
  const size_t n = c.count;
  auto in = make_inputs<T>(c, n, nan_inf);
  std::vector<T> buf(n + 1, T(-7));
  if (c.rank == c.root) std::copy(in[c.root].begin(), in[c.root].end(), buf.begin());
  zcoll_comm_set_mode(c.zc, c.mode);
  // c.algo may name another collective's algorithm (a case shared with allreduce)
  zcoll_algorithm bcast_algos[16];
  const int nb = std::min(16, zcoll_algorithms_of(ZCOLL_COLL_BCAST, bcast_algos, 16));
  const zcoll_algorithm al = std::find(bcast_algos, bcast_algos + nb, c.algo) != bcast_algos + nb
                                 ? c.algo
                                 : ZCOLL_ALGO_AUTO;
  zcoll_comm_set_algorithm(c.zc, ZCOLL_COLL_BCAST, al);
  zcoll_status s = zcoll_bcast(c.zc, buf.data(), n, mpi_type<T>(), c.root);
  zcoll_comm_set_algorithm(c.zc, ZCOLL_COLL_BCAST, ZCOLL_ALGO_AUTO);
  zcoll_report rep = last(c.zc);
  std::string what = describe(c, "bcast", sizeof(T) == 4 ? "float" : "double");
  check_status(c, s, rep, false, n, what);
  if (s != ZCOLL_SUCCESS) return;
  if (c.mode != ZCOLL_MODE_MPI && rep.mode != ZCOLL_MODE_MPI && n > 0 && al != ZCOLL_ALGO_AUTO)
    EXPECT(rep.algorithm == al, "%s: algorithm %s", what.c_str(),
           zcoll_algorithm_name(rep.algorithm));
  check_copy<T>(c, buf.data(), in[c.root].data(), n, rep, what,
                c.rank == c.root || c.mode == ZCOLL_MODE_MPI || c.mode == ZCOLL_MODE_RAW);
  EXPECT(buf[n] == T(-7), "%s: wrote past the end", what.c_str());
}

template <typename T>
void t_scatter(const Case& c) {
  const size_t n = c.count;
  std::vector<T> src(n * c.size);
  const double* smooth = c.op == MPI_PROD ? nullptr : smooth_row(c.root, src.size());
  for (size_t j = 0; j < src.size(); ++j)
    src[j] = static_cast<T>(gen(c.root, j, c.op, c.salt, smooth));
  std::vector<T> send = c.rank == c.root ? src : std::vector<T>();
  std::vector<T> recv(n + 1, T(-7));
  const bool ip = c.in_place && c.rank == c.root;
  zcoll_comm_set_mode(c.zc, c.mode);
  // c.algo may name another collective's algorithm (a case shared with allreduce)
  zcoll_algorithm scatter_algos[16];
  const int ns = std::min(16, zcoll_algorithms_of(ZCOLL_COLL_SCATTER, scatter_algos, 16));
  const zcoll_algorithm al =
      std::find(scatter_algos, scatter_algos + ns, c.algo) != scatter_algos + ns ? c.algo
                                                                                 : ZCOLL_ALGO_AUTO;
  zcoll_comm_set_algorithm(c.zc, ZCOLL_COLL_SCATTER, al);
  zcoll_status s = zcoll_scatter(c.zc, c.rank == c.root ? send.data() : nullptr,
                                 ip ? MPI_IN_PLACE : recv.data(), n, mpi_type<T>(), c.root);
  zcoll_comm_set_algorithm(c.zc, ZCOLL_COLL_SCATTER, ZCOLL_ALGO_AUTO);
  zcoll_report rep = last(c.zc);
  std::string what = describe(c, "scatter", sizeof(T) == 4 ? "float" : "double");
  check_status(c, s, rep, false, n * c.size, what);
  if (s != ZCOLL_SUCCESS) return;
  if (c.mode != ZCOLL_MODE_MPI && rep.mode != ZCOLL_MODE_MPI && n > 0 && al != ZCOLL_ALGO_AUTO)
    EXPECT(rep.algorithm == al, "%s: algorithm %s", what.c_str(),
           zcoll_algorithm_name(rep.algorithm));
  if (ip) {
    check_copy<T>(c, send.data() + c.root * n, src.data() + c.root * n, n, rep, what, true);
    return;
  }
  check_copy<T>(c, recv.data(), src.data() + c.rank * n, n, rep, what,
                c.rank == c.root || c.mode == ZCOLL_MODE_MPI || c.mode == ZCOLL_MODE_RAW);
  EXPECT(recv[n] == T(-7), "%s: wrote past the end", what.c_str());
}

template <typename T>
void t_reduce(const Case& c) {
  const size_t n = c.count;
  auto in = make_inputs<T>(c, n, 0);
  std::vector<T> send = in[c.rank], recv(n + 1, T(-7));
  const bool ip = c.in_place && c.rank == c.root;
  if (ip) std::copy(send.begin(), send.end(), recv.begin());
  zcoll_comm_set_mode(c.zc, c.mode);
  zcoll_comm_set_average(c.zc, c.average);
  // c.algo may name another collective's algorithm (a case shared with allreduce)
  zcoll_algorithm reduce_algos[16];
  const int nr = std::min(16, zcoll_algorithms_of(ZCOLL_COLL_REDUCE, reduce_algos, 16));
  const zcoll_algorithm al = std::find(reduce_algos, reduce_algos + nr, c.algo) != reduce_algos + nr
                                 ? c.algo
                                 : ZCOLL_ALGO_AUTO;
  zcoll_comm_set_algorithm(c.zc, ZCOLL_COLL_REDUCE, al);
  zcoll_status s = zcoll_reduce(c.zc, ip ? MPI_IN_PLACE : send.data(),
                                c.rank == c.root ? recv.data() : nullptr, n, mpi_type<T>(), c.op,
                                c.root);
  zcoll_comm_set_algorithm(c.zc, ZCOLL_COLL_REDUCE, ZCOLL_ALGO_AUTO);
  zcoll_report rep = last(c.zc);
  std::string what = describe(c, "reduce", sizeof(T) == 4 ? "float" : "double");
  check_status(c, s, rep, true, n, what);
  if (s != ZCOLL_SUCCESS) return;
  if (c.mode != ZCOLL_MODE_MPI && rep.mode != ZCOLL_MODE_MPI && n > 0 && al != ZCOLL_ALGO_AUTO)
    EXPECT(rep.algorithm == al, "%s: algorithm %s", what.c_str(),
           zcoll_algorithm_name(rep.algorithm));
  if (c.rank == c.root) {
    check_reduction<T>(c, recv.data(), 0, n, rep, what, in);
    EXPECT(recv[n] == T(-7), "%s: wrote past the end", what.c_str());
  }
}

template <typename T>
void t_gather(const Case& c) {
  const size_t n = c.count;
  auto in = make_inputs<T>(c, n, 0);
  std::vector<T> recv(c.rank == c.root ? n * c.size + 1 : 1, T(-7));
  const bool ip = c.in_place && c.rank == c.root;
  if (ip) std::copy(in[c.rank].begin(), in[c.rank].end(), recv.begin() + c.root * n);
  zcoll_comm_set_mode(c.zc, c.mode);
  // c.algo may name another collective's algorithm (a case shared with allreduce)
  zcoll_algorithm gather_algos[16];
  const int ng = std::min(16, zcoll_algorithms_of(ZCOLL_COLL_GATHER, gather_algos, 16));
  const zcoll_algorithm al = std::find(gather_algos, gather_algos + ng, c.algo) != gather_algos + ng
                                 ? c.algo
                                 : ZCOLL_ALGO_AUTO;
  zcoll_comm_set_algorithm(c.zc, ZCOLL_COLL_GATHER, al);
  zcoll_status s = zcoll_gather(c.zc, ip ? MPI_IN_PLACE : in[c.rank].data(),
                                c.rank == c.root ? recv.data() : nullptr, n, mpi_type<T>(), c.root);
  zcoll_comm_set_algorithm(c.zc, ZCOLL_COLL_GATHER, ZCOLL_ALGO_AUTO);
  zcoll_report rep = last(c.zc);
  std::string what = describe(c, "gather", sizeof(T) == 4 ? "float" : "double");
  check_status(c, s, rep, false, n * c.size, what);
  if (s == ZCOLL_SUCCESS && c.mode != ZCOLL_MODE_MPI && rep.mode != ZCOLL_MODE_MPI && n > 0 &&
      al != ZCOLL_ALGO_AUTO)
    EXPECT(rep.algorithm == al, "%s: algorithm %s", what.c_str(),
           zcoll_algorithm_name(rep.algorithm));
  if (s != ZCOLL_SUCCESS || c.rank != c.root) return;
  for (int p = 0; p < c.size; ++p)
    check_copy<T>(c, recv.data() + p * n, in[p].data(), n, rep,
                  what + " block " + std::to_string(p),
                  p == c.root || c.mode == ZCOLL_MODE_MPI || c.mode == ZCOLL_MODE_RAW);
  EXPECT(recv[n * c.size] == T(-7), "%s: wrote past the end", what.c_str());
}

// ---- drivers -----------------------------------------------------------------------

const zcoll_mode kModes[] = {ZCOLL_MODE_MPI, ZCOLL_MODE_RAW, ZCOLL_MODE_CPR_P2P, ZCOLL_MODE_DOC,
                             ZCOLL_MODE_HOM};
const MPI_Op kOps[] = {MPI_SUM, MPI_MAX, MPI_MIN, MPI_PROD};

struct Env {
  MPI_Comm comm;
  int rank, size;
  zcoll_comm* fine;    // chunk 1024, segments of 2048 values, REL 1e-4
  zcoll_comm* coarse;  // default chunk and segment, ABS 1e-3
};

zcoll_comm* make_comm(MPI_Comm comm, uint32_t chunk, size_t segment, zcoll_eb_mode em, double eb) {
  zcoll_comm_config cfg = ZCOLL_COMM_CONFIG_INITIALIZER;
  cfg.min_bytes = 0;
  cfg.threads = 1;
  cfg.chunk_size = chunk;
  cfg.pipeline_values = segment;
  cfg.eb_mode = em;
  cfg.error_bound = eb;
  zcoll_comm* zc = nullptr;
  zcoll_status s = zcoll_comm_create(comm, &cfg, &zc);
  EXPECT(s == ZCOLL_SUCCESS, "zcoll_comm_create: %s", zcoll_last_error());
  return zc;
}

std::vector<size_t> counts_for(int N) {
  return {0, 1, static_cast<size_t>(N > 1 ? N - 1 : 2), static_cast<size_t>(4099) * N + 5};
}

// The matrix, trimmed to keep the suite short under oversubscription: every op
// and both in-place variants on the long vector; SUM (and in place) on the
// short counts 0, 1, N-1.
bool keep(MPI_Op op, size_t n, int ip, int N) {
  const bool big = n > static_cast<size_t>(N) + 2;
  if (big) return op == MPI_SUM || op == MPI_PROD || ip == 0;
  return op == MPI_SUM || (op == MPI_MAX && ip == 0);
}

std::vector<int> roots_for(int N) {
  if (N <= 2) return N == 1 ? std::vector<int>{0} : std::vector<int>{0, 1};
  return {0, N / 2, N - 1};
}

// The element types the matrix runs in (bit 0 float, bit 1 double; --type): CTest
// runs 4 ranks in double and 5 in float only, since the types' code is the codec's,
// covered at 1-3 ranks, and the rank count's is the algorithms', the same in both.
int g_types = 3;

template <typename F>
void for_modes_types(const Env&, F f) {
  for (zcoll_mode m : kModes)
    for (int dt = 0; dt < 2; ++dt)
      if (g_types >> dt & 1) f(m, dt);
}

Case base(const Env& e, zcoll_comm* zc, const char* label) {
  Case c{};
  c.zc = zc;
  c.comm = e.comm;
  c.rank = e.rank;
  c.size = e.size;
  c.algo = ZCOLL_ALGO_AUTO;
  c.op = MPI_SUM;
  c.label = label;
  return c;
}

void group_allreduce(const Env& e) {
  for (zcoll_comm* zc : {e.fine, e.coarse}) {
    const bool fine = zc == e.fine;
    for_modes_types(e, [&](zcoll_mode m, int dt) {
      for (zcoll_algorithm al : {ZCOLL_ALGO_RING, ZCOLL_ALGO_RECURSIVE_DOUBLING})
        for (MPI_Op op : kOps) {
          if (!fine && op != MPI_SUM) continue;
          for (size_t n : counts_for(e.size))
            for (int ip = 0; ip < 2; ++ip) {
              if (!keep(op, n, ip, e.size) || (!fine && n != counts_for(e.size)[3])) continue;
              Case c = base(e, zc, fine ? "fine" : "coarse");
              c.mode = m;
              c.algo = al;
              c.op = op;
              c.count = n;
              c.in_place = ip;
              c.salt = static_cast<int>(n) + ip;
              if (dt == 0)
                t_allreduce<float>(c);
              else
                t_allreduce<double>(c);
            }
        }
      // averaging
      Case c = base(e, zc, fine ? "fine avg" : "coarse avg");
      c.mode = m;
      c.count = counts_for(e.size)[3];
      c.average = true;
      for (zcoll_algorithm al : {ZCOLL_ALGO_RING, ZCOLL_ALGO_RECURSIVE_DOUBLING}) {
        c.algo = al;
        if (dt == 0)
          t_allreduce<float>(c);
        else
          t_allreduce<double>(c);
      }
      zcoll_comm_set_average(zc, 0);
    });
  }
  zcoll_comm_set_algorithm(e.fine, ZCOLL_COLL_ALLREDUCE, ZCOLL_ALGO_AUTO);
  zcoll_comm_set_algorithm(e.coarse, ZCOLL_COLL_ALLREDUCE, ZCOLL_ALGO_AUTO);
}

// Every Reduce_scatter algorithm of the library's table (zcoll_algorithms_of):
// the table's first, the default, at every case; the others at every other one.
void group_reduce_scatter(const Env& e) {
  zcoll_algorithm algos[8];
  const int nalg = std::min(8, zcoll_algorithms_of(ZCOLL_COLL_REDUCE_SCATTER, algos, 8));
  for_modes_types(e, [&](zcoll_mode m, int dt) {
    int k = 0;
    for (int ai = 0; ai < nalg; ++ai)
      for (MPI_Op op : kOps)
        for (size_t n : counts_for(e.size))
          for (int ip = 0; ip < 2; ++ip)
            for (int var = 0; var < 2; ++var) {
              if (!keep(op, n, ip, e.size) || (ai > 0 && k++ % 2)) continue;
              Case c = base(e, e.fine, "fine");
              c.algo = algos[ai];
              c.mode = m;
              c.op = op;
              c.count = var ? n + 3 : n / (e.size > 1 ? 2 : 1);
              c.in_place = ip;
              c.salt = static_cast<int>(n) * 3 + ip;
              if (dt == 0)
                t_reduce_scatter<float>(c, var);
              else
                t_reduce_scatter<double>(c, var);
            }
    for (int ai = 0; ai < nalg; ++ai) {
      Case c = base(e, e.fine, "fine avg");
      c.algo = algos[ai];
      c.mode = m;
      c.count = 3001;
      c.average = true;
      if (dt == 0)
        t_reduce_scatter<float>(c, false);
      else
        t_reduce_scatter<double>(c, true);
    }
    zcoll_comm_set_average(e.fine, 0);
    zcoll_comm_set_algorithm(e.fine, ZCOLL_COLL_REDUCE_SCATTER, ZCOLL_ALGO_AUTO);
  });
}

void group_allgather(const Env& e) {
  for (zcoll_comm* zc : {e.fine, e.coarse})
    for_modes_types(e, [&](zcoll_mode m, int dt) {
      for (size_t n : counts_for(e.size))
        for (int ip = 0; ip < 2; ++ip) {
          if (zc == e.coarse && n != counts_for(e.size)[3]) continue;
          Case c = base(e, zc, zc == e.fine ? "fine" : "coarse");
          c.mode = m;
          c.count = n;
          c.in_place = ip;
          c.salt = static_cast<int>(n) + 11 * ip;
          if (dt == 0)
            t_allgather<float>(c);
          else
            t_allgather<double>(c);
        }
    });
}

void group_bcast(const Env& e) {
  for (zcoll_comm* zc : {e.fine, e.coarse})
    for_modes_types(e, [&](zcoll_mode m, int dt) {
      for (size_t n : counts_for(e.size))
        for (int root : roots_for(e.size)) {
          if (zc == e.coarse && n != counts_for(e.size)[3]) continue;
          Case c = base(e, zc, zc == e.fine ? "fine" : "coarse");
          c.mode = m;
          c.count = n;
          c.root = root;
          c.salt = static_cast<int>(n) + root;
          if (dt == 0)
            t_bcast<float>(c);
          else
            t_bcast<double>(c);
        }
    });
}

void group_scatter(const Env& e) {
  for (zcoll_comm* zc : {e.fine, e.coarse})
    for_modes_types(e, [&](zcoll_mode m, int dt) {
      for (size_t n : counts_for(e.size))
        for (int root : roots_for(e.size))
          for (int ip = 0; ip < 2; ++ip) {
            if (zc == e.coarse && (n != counts_for(e.size)[3] || ip)) continue;
            Case c = base(e, zc, zc == e.fine ? "fine" : "coarse");
            c.mode = m;
            c.count = n;
            c.root = root;
            c.in_place = ip;
            c.salt = static_cast<int>(n) + root;
            if (dt == 0)
              t_scatter<float>(c);
            else
              t_scatter<double>(c);
          }
    });
}

void group_gather(const Env& e) {
  for (zcoll_comm* zc : {e.fine, e.coarse})
    for_modes_types(e, [&](zcoll_mode m, int dt) {
      for (size_t n : counts_for(e.size))
        for (int root : roots_for(e.size))
          for (int ip = 0; ip < 2; ++ip) {
            if (zc == e.coarse && (n != counts_for(e.size)[3] || ip)) continue;
            Case c = base(e, zc, zc == e.fine ? "fine" : "coarse");
            c.mode = m;
            c.count = n;
            c.root = root;
            c.in_place = ip;
            c.salt = static_cast<int>(n) + 5 * root;
            if (dt == 0)
              t_gather<float>(c);
            else
              t_gather<double>(c);
          }
    });
}

void group_reduce(const Env& e) {
  for_modes_types(e, [&](zcoll_mode m, int dt) {
    for (MPI_Op op : kOps)
      for (size_t n : counts_for(e.size))
        for (int root : {0, e.size - 1})
          for (int ip = 0; ip < 2; ++ip) {
            if (!keep(op, n, ip, e.size)) continue;
            Case c = base(e, e.fine, "fine");
            c.mode = m;
            c.op = op;
            c.count = n;
            c.root = root;
            c.in_place = ip;
            c.salt = static_cast<int>(n) + root * 7 + ip;
            if (dt == 0)
              t_reduce<float>(c);
            else
              t_reduce<double>(c);
          }
    Case c = base(e, e.coarse, "coarse avg");
    c.mode = m;
    c.count = 20000;
    c.root = e.size / 2;
    c.average = true;
    if (dt == 0)
      t_reduce<float>(c);
    else
      t_reduce<double>(c);
    zcoll_comm_set_average(e.coarse, 0);
  });
}

// ~1M values per collective, float SUM / data movement, every mode.
// The node-aware rows (docs/algorithms.md, "Node-aware algorithms"), forced by
// name, in every compressed mode: CTest runs this group under ZCOLL_NODE_MAP
// layouts (even, uneven, ranks not by node, one node, sub-communicators).
// The layout of comm under ZCOLL_NODE_MAP (a node label per MPI_COMM_WORLD
// rank): its node count and the rank count of its largest node (0, 0 without
// the variable).
void node_layout(MPI_Comm comm, int* nodes, int* max_local) {
  *nodes = *max_local = 0;
  const char* map = std::getenv("ZCOLL_NODE_MAP");
  if (!map || !*map) return;
  std::vector<long> labels;
  for (const char* p = map; *p;) {
    char* end = nullptr;
    labels.push_back(std::strtol(p, &end, 10));
    p = *end == ',' ? end + 1 : end;
    if (end == p && *p) break;
  }
  int size = 0;
  MPI_Comm_size(comm, &size);
  MPI_Group world, group;
  MPI_Comm_group(MPI_COMM_WORLD, &world);
  MPI_Comm_group(comm, &group);
  std::vector<int> ranks(size), in_world(size);
  for (int i = 0; i < size; ++i) ranks[i] = i;
  MPI_Group_translate_ranks(group, size, ranks.data(), world, in_world.data());
  MPI_Group_free(&group);
  MPI_Group_free(&world);
  std::vector<long> mine;
  for (int w : in_world) mine.push_back(w < static_cast<int>(labels.size()) ? labels[w] : -1);
  std::vector<long> distinct = mine;
  std::sort(distinct.begin(), distinct.end());
  distinct.erase(std::unique(distinct.begin(), distinct.end()), distinct.end());
  *nodes = static_cast<int>(distinct.size());
  for (long d : distinct)
    *max_local = std::max(*max_local, static_cast<int>(std::count(mine.begin(), mine.end(), d)));
}

// AUTO with a two-level model where the rails are the bottleneck (memory
// inside a node nearly free, 100 Mbit/s between nodes): a node-aware row
// where ranks share nodes on more than one node, a flat one elsewhere; the
// result within the reported bound either way (t_allreduce checks it).
void node_aware_auto(const Env& e, size_t big) {
  int nodes = 0, max_local = 0;
  node_layout(e.comm, &nodes, &max_local);
  zcoll_model m = ZCOLL_MODEL_INITIALIZER;
  m.latency = 20e-6;
  m.bandwidth = 12.5e6;
  m.compress_bw = 4e9;
  m.decompress_bw = 8e9;
  m.hom_bw = 16e9;
  m.reduce_bw = 1e12;
  m.overlap = 0.5;
  m.growth_bits = 0.7;
  m.mpi_scale = m.mpi_scale_small = 1;
  m.threads = 1;
  m.node_latency = 1e-7;
  m.node_bandwidth = 1e12;
  m.rail_bandwidth = 12.5e6;
  EXPECT(zcoll_comm_set_model(e.fine, &m) == ZCOLL_SUCCESS, "set_model: %s", zcoll_last_error());
  Case c = base(e, e.fine, "fine node-aware auto");
  c.mode = ZCOLL_MODE_AUTO;
  c.count = big;
  t_allreduce<float>(c);
  const zcoll_report rep = last(e.fine);
  const bool tiered = nodes > 1 && max_local > 1;
  const char* name = zcoll_algorithm_name(rep.algorithm);
  const bool node_row = std::strncmp(name, "node_", 5) == 0;
  EXPECT(node_row == tiered, "auto at %d nodes, %d ranks on the largest: %s %s", nodes, max_local,
         zcoll_mode_name(rep.mode), name);
  // the steps' transports count in the report (every rank sends in some step)
  if (e.size > 1)
    EXPECT(rep.bytes_sent > 0 && rep.bytes_uncompressed > 0, "auto %s: bytes sent %llu of %llu",
           name, static_cast<unsigned long long>(rep.bytes_sent),
           static_cast<unsigned long long>(rep.bytes_uncompressed));
  zcoll_comm_set_mode(e.fine, ZCOLL_MODE_AUTO);
}


void group_node_aware(const Env& e) {
  struct Row {
    zcoll_collective coll;
    const char* name;
  };
  const Row rows[] = {
      {ZCOLL_COLL_ALLREDUCE, "node_aware"},      {ZCOLL_COLL_ALLREDUCE, "node_leader"},
      {ZCOLL_COLL_REDUCE_SCATTER, "node_aware"}, {ZCOLL_COLL_ALLGATHER, "node_aware"},
      {ZCOLL_COLL_BCAST, "node_aware"},          {ZCOLL_COLL_REDUCE, "node_aware"},
      {ZCOLL_COLL_GATHER, "node_aware"},         {ZCOLL_COLL_SCATTER, "node_aware"}};
  // Trimmed for 4-6 ranks oversubscribing 2 cores (inproc_node_aware covers
  // every mode, op and layout): doc, hom and raw at counts 0, 1 and long (SUM,
  // also in place), MAX and PROD on the long vector; cpr_p2p once; the average.
  const size_t big = counts_for(e.size)[3];
  int k = 0;
  for (const Row& row : rows) {
    zcoll_algorithm al = ZCOLL_ALGO_AUTO;
    EXPECT(zcoll_algorithm_from_name(row.coll, row.name, &al) == ZCOLL_SUCCESS, "no %s %s",
           zcoll_collective_name(row.coll), row.name);
    const bool red = row.coll == ZCOLL_COLL_ALLREDUCE || row.coll == ZCOLL_COLL_REDUCE_SCATTER ||
                     row.coll == ZCOLL_COLL_REDUCE;
    auto run = [&](zcoll_mode m, MPI_Op op, size_t n, int ip, bool average) {
      Case c = base(e, e.fine, average ? "fine node-aware avg" : "fine node-aware");
      c.mode = m;
      c.algo = al;
      c.op = op;
      c.count = n;
      c.in_place = ip;
      c.average = average;
      c.root = static_cast<int>(n + ip + k) % e.size;
      c.salt = static_cast<int>(n) + 5 * ip;
      const bool dbl = ++k % 2 == 0;
      if (row.coll == ZCOLL_COLL_ALLREDUCE)
        dbl ? t_allreduce<double>(c) : t_allreduce<float>(c);
      else if (row.coll == ZCOLL_COLL_REDUCE_SCATTER)
        dbl ? t_reduce_scatter<double>(c, ip) : t_reduce_scatter<float>(c, !ip);
      else if (row.coll == ZCOLL_COLL_ALLGATHER)
        dbl ? t_allgather<double>(c) : t_allgather<float>(c);
      else if (row.coll == ZCOLL_COLL_REDUCE)
        dbl ? t_reduce<double>(c) : t_reduce<float>(c);
      else if (row.coll == ZCOLL_COLL_GATHER)
        dbl ? t_gather<double>(c) : t_gather<float>(c);
      else if (row.coll == ZCOLL_COLL_SCATTER)
        dbl ? t_scatter<double>(c) : t_scatter<float>(c);
      else
        dbl ? t_bcast<double>(c) : t_bcast<float>(c);
    };
    for (zcoll_mode m : {ZCOLL_MODE_RAW, ZCOLL_MODE_DOC, ZCOLL_MODE_HOM}) {
      for (size_t n : {size_t{0}, size_t{1}, big}) run(m, MPI_SUM, n, 0, false);
      run(m, MPI_SUM, big, 1, false);
      if (red)
        for (MPI_Op op : {MPI_MAX, MPI_PROD}) run(m, op, big, 0, false);
    }
    run(ZCOLL_MODE_CPR_P2P, MPI_SUM, big, 0, false);
    if (red) {
      run(ZCOLL_MODE_HOM, MPI_SUM, big, 0, true);
      zcoll_comm_set_average(e.fine, 0);
    }
    zcoll_comm_set_algorithm(e.fine, row.coll, ZCOLL_ALGO_AUTO);
  }
  node_aware_auto(e, big);
}

void group_large(const Env& e) {
  const size_t big = 1u << 20;
  for (zcoll_mode m : kModes) {
    Case c = base(e, e.coarse, "large");
    c.mode = m;
    c.count = big + 17;
    for (zcoll_algorithm al : {ZCOLL_ALGO_RING, ZCOLL_ALGO_RECURSIVE_DOUBLING}) {
      c.algo = al;
      t_allreduce<float>(c);
    }
    c.algo = ZCOLL_ALGO_AUTO;
    t_reduce_scatter<float>(c, false);
    t_reduce<float>(c);
    t_bcast<float>(c);  // the default: the chain (>= 256 KiB per rank)
    for (zcoll_algorithm al : {ZCOLL_ALGO_BINOMIAL, ZCOLL_ALGO_CHAIN}) {
      c.algo = al;
      c.root = e.size - 1;
      t_bcast<float>(c);
    }
    c.algo = ZCOLL_ALGO_AUTO;
    c.root = 0;
    c.count = big / e.size + 3;
    t_allgather<float>(c);
    t_scatter<float>(c);
    t_gather<float>(c);
  }
  zcoll_comm_set_algorithm(e.coarse, ZCOLL_COLL_ALLREDUCE, ZCOLL_ALGO_AUTO);
}

// algorithms are chosen per collective, among the collective's own
void special_algorithm_choice(const Env& e) {
  EXPECT(
      zcoll_comm_set_algorithm(e.fine, ZCOLL_COLL_BCAST, ZCOLL_ALGO_RING) == ZCOLL_ERR_INVALID_ARG,
      "bcast has no ring algorithm");
  EXPECT(zcoll_comm_set_algorithm(e.fine, static_cast<zcoll_collective>(8), ZCOLL_ALGO_AUTO) ==
             ZCOLL_ERR_INVALID_ARG,
         "8 (the former ZCOLL_COLL_COUNT) is not a collective");
  EXPECT(zcoll_comm_set_algorithm(e.fine, ZCOLL_COLL_BCAST, ZCOLL_ALGO_BINOMIAL) == ZCOLL_SUCCESS,
         "bcast binomial: %s", zcoll_last_error());
  EXPECT(zcoll_comm_set_algorithm(e.fine, ZCOLL_COLL_BCAST, ZCOLL_ALGO_CHAIN) == ZCOLL_SUCCESS,
         "bcast chain: %s", zcoll_last_error());
  EXPECT(zcoll_comm_set_algorithm(e.fine, ZCOLL_COLL_ALLREDUCE, ZCOLL_ALGO_CHAIN) ==
             ZCOLL_ERR_INVALID_ARG,
         "allreduce has no chain algorithm");
  zcoll_comm_set_algorithm(e.fine, ZCOLL_COLL_BCAST, ZCOLL_ALGO_AUTO);
}

// the struct_size rule on the MPI side: a struct smaller than the first
// version is refused; a newer (larger) one gets its unknown tail zeroed
void special_struct_size(const Env& e) {
  zcoll_report rep = ZCOLL_REPORT_INITIALIZER;
  rep.struct_size = sizeof(size_t);
  EXPECT(zcoll_comm_last_report(e.fine, &rep) == ZCOLL_ERR_INVALID_ARG, "tiny report accepted");
  struct {
    zcoll_report r;
    double newer_field;
  } big;
  std::memset(&big, 0xff, sizeof big);
  big.r.struct_size = sizeof big;
  EXPECT(zcoll_comm_last_report(e.fine, &big.r) == ZCOLL_SUCCESS && big.newer_field == 0 &&
             big.r.struct_size == sizeof big,
         "newer report: %s", zcoll_last_error());
}

// NaN / Inf through every mode (raw chunks carry them exactly; IEEE results)
void special_nonfinite(const Env& e) {
  for (zcoll_mode m : kModes)
    for (int dt = 0; dt < 2; ++dt)
      for (zcoll_algorithm al : {ZCOLL_ALGO_RING, ZCOLL_ALGO_RECURSIVE_DOUBLING}) {
        Case c = base(e, e.fine, "nan/inf");
        c.mode = m;
        c.algo = al;
        c.count = 5000;
        for (MPI_Op op : kOps) {
          // MPI leaves NaN in MAX/MIN unspecified; zcoll propagates it
          if (m == ZCOLL_MODE_MPI && (op == MPI_MAX || op == MPI_MIN)) continue;
          c.op = op;
          if (dt == 0)
            t_allreduce<float>(c, 1);
          else
            t_allreduce<double>(c, 1);
        }
        c.op = MPI_SUM;
        if (dt == 0)
          t_bcast<float>(c, 1);
        else
          t_bcast<double>(c, 1);
      }
  zcoll_comm_set_algorithm(e.fine, ZCOLL_COLL_ALLREDUCE, ZCOLL_ALGO_AUTO);
}

// the final-result bound: error within the configured bound itself
void special_result_bound(const Env& e) {
  zcoll_comm_config cfg = ZCOLL_COMM_CONFIG_INITIALIZER;
  cfg.min_bytes = 0;
  cfg.eb_mode = ZCOLL_EB_ABS;
  cfg.error_bound = 1e-2;
  cfg.bound = ZCOLL_BOUND_RESULT;
  cfg.chunk_size = 1024;
  cfg.pipeline_values = 2048;
  zcoll_comm* zc = nullptr;
  EXPECT(zcoll_comm_create(e.comm, &cfg, &zc) == ZCOLL_SUCCESS, "create: %s", zcoll_last_error());
  for (zcoll_mode m : {ZCOLL_MODE_CPR_P2P, ZCOLL_MODE_DOC, ZCOLL_MODE_HOM})
    for (zcoll_algorithm al : {ZCOLL_ALGO_RING, ZCOLL_ALGO_RECURSIVE_DOUBLING})
      for (MPI_Op op : kOps) {
        Case c = base(e, zc, "result-bound");
        c.mode = m;
        c.algo = al;
        c.op = op;
        c.count = 9000;
        t_allreduce<float>(c);
        zcoll_report rep = last(zc);
        EXPECT(rep.error_bound <= 1e-2 * (1 + 1e-12), "result bound %.17g > 1e-2 (%s %s %s)",
               rep.error_bound, zcoll_mode_name(m), zcoll_algorithm_name(al), op_name(op));
        c.algo = ZCOLL_ALGO_AUTO;
        t_reduce<double>(c);
        rep = last(zc);
        EXPECT(rep.error_bound <= 1e-2 * (1 + 1e-12), "reduce result bound %.17g", rep.error_bound);
      }
  zcoll_comm_free(zc);
}

// mismatched error bounds: every rank reports ZCOLL_ERR_MISMATCH, nobody hangs
void special_mismatched_bounds(const Env& e) {
  if (e.size > 1) {
    std::vector<float> x(6000, 1.5f), y(6000 * e.size);
    zcoll_comm_set_error_bound(e.fine, ZCOLL_EB_ABS, e.rank == 0 ? 1e-3 : 1e-4);
    for (zcoll_mode m : {ZCOLL_MODE_CPR_P2P, ZCOLL_MODE_DOC, ZCOLL_MODE_HOM}) {
      zcoll_comm_set_mode(e.fine, m);
      zcoll_status s = zcoll_allreduce(e.fine, x.data(), y.data(), x.size(), MPI_FLOAT, MPI_SUM);
      EXPECT(s == ZCOLL_ERR_MISMATCH, "allreduce with mismatched bounds (%s): %s",
             zcoll_mode_name(m), zcoll_status_string(s));
      EXPECT(last(e.fine).status == ZCOLL_ERR_MISMATCH, "report status of mismatch");
      s = zcoll_bcast(e.fine, x.data(), x.size(), MPI_FLOAT, e.size - 1);
      EXPECT(s == ZCOLL_ERR_MISMATCH, "bcast with mismatched bounds: %s", zcoll_status_string(s));
      s = zcoll_allgather(e.fine, x.data(), y.data(), x.size(), MPI_FLOAT);
      EXPECT(s == ZCOLL_ERR_MISMATCH, "allgather with mismatched bounds: %s",
             zcoll_status_string(s));
      s = zcoll_reduce(e.fine, x.data(), y.data(), x.size(), MPI_FLOAT, MPI_MAX, 0);
      EXPECT(s == ZCOLL_ERR_MISMATCH, "reduce with mismatched bounds: %s", zcoll_status_string(s));
    }
    // and the handle still works afterwards
    zcoll_comm_set_error_bound(e.fine, ZCOLL_EB_REL, 1e-4);
    Case c = base(e, e.fine, "after mismatch");
    c.mode = ZCOLL_MODE_HOM;
    c.count = 3000;
    t_allreduce<float>(c);
  }
}

// non-float datatypes and other ops go to MPI and are exact
void special_not_float(const Env& e) {
  std::vector<int> a(5000), b(5000);
  for (size_t i = 0; i < a.size(); ++i) a[i] = static_cast<int>(i) + e.rank;
  zcoll_comm_set_mode(e.fine, ZCOLL_MODE_HOM);
  zcoll_status s = zcoll_allreduce(e.fine, a.data(), b.data(), a.size(), MPI_INT, MPI_SUM);
  EXPECT(s == ZCOLL_SUCCESS && last(e.fine).mode == ZCOLL_MODE_MPI, "int allreduce -> MPI");
  bool ok = true;
  for (size_t i = 0; i < a.size(); ++i)
    ok = ok && b[i] == static_cast<int>(i) * e.size + e.size * (e.size - 1) / 2;
  EXPECT(ok, "int allreduce values");
  // an op zcoll does not handle (MPI_BAND on ints) also goes to MPI
  s = zcoll_allreduce(e.fine, a.data(), b.data(), a.size(), MPI_INT, MPI_BAND);
  EXPECT(s == ZCOLL_SUCCESS && last(e.fine).mode == ZCOLL_MODE_MPI, "int BAND -> MPI");
}

// an OpenMP team per rank (threads = 2): same guarantees
void special_threads(const Env& e) {
  zcoll_comm_config cfg = ZCOLL_COMM_CONFIG_INITIALIZER;
  cfg.min_bytes = 0;
  cfg.threads = 2;
  cfg.chunk_size = 1024;
  zcoll_comm* zc = nullptr;
  EXPECT(zcoll_comm_create(e.comm, &cfg, &zc) == ZCOLL_SUCCESS, "create: %s", zcoll_last_error());
  for (zcoll_mode m : {ZCOLL_MODE_RAW, ZCOLL_MODE_CPR_P2P, ZCOLL_MODE_DOC, ZCOLL_MODE_HOM}) {
    Case c = base(e, zc, "threads=2");
    c.mode = m;
    c.count = 70000;
    for (zcoll_algorithm al : {ZCOLL_ALGO_RING, ZCOLL_ALGO_RECURSIVE_DOUBLING}) {
      c.algo = al;
      t_allreduce<float>(c);
    }
    c.algo = ZCOLL_ALGO_AUTO;
    t_reduce_scatter<double>(c, true);
    t_allgather<float>(c);
  }
  zcoll_comm_free(zc);
}

// ZCOLL_* environment variables override the configuration; a bad value
// fails zcoll_comm_create on every rank
void special_env(const Env& e) {
  setenv("ZCOLL_MODE", "doc", 1);
  setenv("ZCOLL_MIN_BYTES", "0", 1);
  zcoll_comm* zc = nullptr;
  EXPECT(zcoll_comm_create(e.comm, nullptr, &zc) == ZCOLL_SUCCESS, "create with env: %s",
         zcoll_last_error());
  zcoll_comm_config got = ZCOLL_COMM_CONFIG_INITIALIZER;
  zcoll_comm_get_config(zc, &got);
  EXPECT(got.mode == ZCOLL_MODE_DOC && got.min_bytes == 0, "env not applied");
  std::vector<float> x(3000, 2.0f), y(3000);
  EXPECT(zcoll_allreduce(zc, x.data(), y.data(), x.size(), MPI_FLOAT, MPI_SUM) == ZCOLL_SUCCESS &&
             last(zc).mode == ZCOLL_MODE_DOC,
         "env mode doc used: %s", zcoll_mode_name(last(zc).mode));
  zcoll_comm_free(zc);
  setenv("ZCOLL_MODE", e.rank == 0 ? "bogus" : "hom", 1);
  zc = nullptr;
  zcoll_status s = zcoll_comm_create(e.comm, nullptr, &zc);
  EXPECT(s == ZCOLL_ERR_INVALID_ARG && zc == nullptr, "bad ZCOLL_MODE on rank 0: %s",
         zcoll_status_string(s));
  unsetenv("ZCOLL_MODE");
  unsetenv("ZCOLL_MIN_BYTES");
}

// ZCOLL_REL_RANGE=sampled: the REL range from one line in 16; the result
// is within the reported bound, which is at most the exact REL bound (one
// spike the sample misses makes it smaller); mismatched across ranks: every
// rank reports ZCOLL_ERR_MISMATCH
void special_rel_range_sampled(const Env& e) {
  const size_t n = size_t{1} << 17;
  std::vector<float> x(n), y(n);
  for (size_t i = 0; i < n; ++i) x[i] = std::sin(0.001f * static_cast<float>(i)) + 0.1f * e.rank;
  x[77777] = 40.0f;  // not on a sampled line (line 4861, 4861 % 16 != 0)
  double lo = 1e300, hi = -1e300;
  for (int r = 0; r < e.size; ++r) {  // the exact range over all ranks' inputs
    lo = std::min(lo, -1.0 + 0.1 * r);
    hi = std::max(hi, 40.0);
  }
  setenv("ZCOLL_REL_RANGE", "sampled", 1);
  zcoll_comm* zc = nullptr;
  EXPECT(zcoll_comm_create(e.comm, nullptr, &zc) == ZCOLL_SUCCESS, "create sampled: %s",
         zcoll_last_error());
  zcoll_comm_set_error_bound(zc, ZCOLL_EB_REL, 1e-3);
  for (zcoll_mode m : {ZCOLL_MODE_DOC, ZCOLL_MODE_HOM}) {
    zcoll_comm_set_mode(zc, m);
    EXPECT(zcoll_allreduce(zc, x.data(), y.data(), n, MPI_FLOAT, MPI_SUM) == ZCOLL_SUCCESS,
           "sampled allreduce: %s", zcoll_last_error());
    const zcoll_report rep = last(zc);
    EXPECT(rep.eb_per_compression > 0 && rep.eb_per_compression <= 1e-3 * (hi - lo) / 2,
           "sampled eb %.9g: expected > 0 and below half the exact one %.9g (the spike is "
           "not sampled)",
           rep.eb_per_compression, 1e-3 * (hi - lo));
    double err = 0;
    for (size_t i = 0; i < n; ++i) {
      double ref = 0;
      for (int r = 0; r < e.size; ++r)
        ref += i == 77777
                   ? 40.0
                   : static_cast<double>(std::sin(0.001f * static_cast<float>(i)) + 0.1f * r);
      err = std::max(err, std::fabs(static_cast<double>(y[i]) - ref));
    }
    EXPECT(err <= rep.error_bound * (1 + 1e-6) + 1e-6 * e.size,
           "sampled %s: error %.9g > bound %.9g", zcoll_mode_name(m), err, rep.error_bound);
  }
  zcoll_comm_free(zc);
  if (e.size > 1) {
    setenv("ZCOLL_REL_RANGE", e.rank == 0 ? "sampled" : "exact", 1);
    zc = nullptr;
    EXPECT(zcoll_comm_create(e.comm, nullptr, &zc) == ZCOLL_SUCCESS, "create: %s",
           zcoll_last_error());
    zcoll_comm_set_error_bound(zc, ZCOLL_EB_REL, 1e-3);
    zcoll_comm_set_mode(zc, ZCOLL_MODE_HOM);
    const zcoll_status st = zcoll_allreduce(zc, x.data(), y.data(), n, MPI_FLOAT, MPI_SUM);
    EXPECT(st == ZCOLL_ERR_MISMATCH, "mixed ZCOLL_REL_RANGE: %s", zcoll_status_string(st));
    zcoll_comm_free(zc);
  }
  unsetenv("ZCOLL_REL_RANGE");
}

// a large message below the threshold goes to MPI
void special_threshold(const Env& e) {
  zcoll_comm_config cfg = ZCOLL_COMM_CONFIG_INITIALIZER;
  cfg.min_bytes = 1 << 20;
  zcoll_comm* zc = nullptr;
  zcoll_comm_create(e.comm, &cfg, &zc);
  std::vector<float> x(1000, 1.0f), y(1000);
  EXPECT(zcoll_allreduce(zc, x.data(), y.data(), x.size(), MPI_FLOAT, MPI_SUM) == ZCOLL_SUCCESS,
         "threshold allreduce");
  EXPECT(last(zc).mode == ZCOLL_MODE_MPI, "below threshold -> mpi, got %s",
         zcoll_mode_name(last(zc).mode));
  zcoll_comm_free(zc);
}

void group_special(const Env& e) {
  special_algorithm_choice(e);
  special_struct_size(e);
  special_nonfinite(e);
  special_result_bound(e);
  special_mismatched_bounds(e);
  special_not_float(e);
  special_threads(e);
  special_env(e);
  special_rel_range_sampled(e);
  special_threshold(e);
}

// ---- mode AUTO and the cost model -------------------------------------------------

zcoll_model make_model(double latency, double bandwidth, double codec) {
  zcoll_model m{};
  m.struct_size = sizeof m;
  m.latency = latency;
  m.bandwidth = bandwidth;
  m.compress_bw = codec;
  m.decompress_bw = 2 * codec;
  m.hom_bw = 4 * codec;
  m.reduce_bw = 4 * codec;
  m.overlap = 1;
  m.growth_bits = 0.7;
  m.threads = 1;
  return m;
}

// every rank of these tests shares one node, where auto runs MPI without a
// model; first that, then the model on one node (ZCOLL_AUTO_LOCAL=model)
void auto_one_node(const Env& e) {
  zcoll_comm* zc = make_comm(e.comm, 1024, 2048, ZCOLL_EB_REL, 1e-4);
  const zcoll_model slow = make_model(5e-5, 1e6, 3e9);
  zcoll_comm_set_model(zc, &slow);
  Case c = base(e, zc, "auto on one node");
  c.mode = ZCOLL_MODE_AUTO;
  c.count = 50000;
  t_allreduce<float>(c);
  EXPECT(last(zc).mode == ZCOLL_MODE_MPI && std::strstr(last(zc).reason, "one node"),
         "auto on one node ran %s (%s)", zcoll_mode_name(last(zc).mode), last(zc).reason);
  zcoll_comm_free(zc);
  setenv("ZCOLL_AUTO_LOCAL", "sometimes", 1);
  zcoll_comm_config cfg = ZCOLL_COMM_CONFIG_INITIALIZER;
  EXPECT(zcoll_comm_create(e.comm, &cfg, &zc) == ZCOLL_ERR_INVALID_ARG, "bad ZCOLL_AUTO_LOCAL");
}

// the pure model: MPI wins on a fast network, compression on a slow one,
// and predictions grow with size and shrink with the ratio
void auto_pure_model(const Env& e) {
  const zcoll_model fast = make_model(1e-6, 1e11, 3e9), slow = make_model(5e-5, 1.25e7, 3e9);
  for (zcoll_collective coll :
       {ZCOLL_COLL_ALLREDUCE, ZCOLL_COLL_REDUCE_SCATTER, ZCOLL_COLL_ALLGATHER, ZCOLL_COLL_BCAST,
        ZCOLL_COLL_SCATTER, ZCOLL_COLL_REDUCE, ZCOLL_COLL_GATHER}) {
    double s = 0, s2 = 0;
    zcoll_mode cm;
    zcoll_algorithm ca;
    EXPECT(zcoll_predict(&fast, coll, ZCOLL_MODE_AUTO, ZCOLL_ALGO_AUTO, 4, 1 << 22, ZCOLL_FLOAT32,
                         5, &s, &cm, &ca) == ZCOLL_SUCCESS,
           "predict: %s", zcoll_last_error());
    EXPECT(cm == ZCOLL_MODE_MPI, "%s, fast network: auto picks %s", zcoll_collective_name(coll),
           zcoll_mode_name(cm));
    EXPECT(zcoll_predict(&slow, coll, ZCOLL_MODE_AUTO, ZCOLL_ALGO_AUTO, 4, 1 << 22, ZCOLL_FLOAT32,
                         5, &s, &cm, &ca) == ZCOLL_SUCCESS,
           "predict: %s", zcoll_last_error());
    EXPECT(cm == ZCOLL_MODE_DOC || cm == ZCOLL_MODE_HOM, "%s, slow network: auto picks %s",
           zcoll_collective_name(coll), zcoll_mode_name(cm));
    for (zcoll_mode md :
         {ZCOLL_MODE_MPI, ZCOLL_MODE_RAW, ZCOLL_MODE_CPR_P2P, ZCOLL_MODE_DOC, ZCOLL_MODE_HOM}) {
      EXPECT(zcoll_predict(&slow, coll, md, ZCOLL_ALGO_AUTO, 5, 1 << 20, ZCOLL_FLOAT64, 4, &s,
                           nullptr, nullptr) == ZCOLL_SUCCESS &&
                 s > 0,
             "predict %s", zcoll_mode_name(md));
      EXPECT(zcoll_predict(&slow, coll, md, ZCOLL_ALGO_AUTO, 5, 1 << 21, ZCOLL_FLOAT64, 4, &s2,
                           nullptr, nullptr) == ZCOLL_SUCCESS &&
                 s2 > s,
             "prediction grows with size (%s)", zcoll_mode_name(md));
      if (md >= ZCOLL_MODE_CPR_P2P) {
        EXPECT(zcoll_predict(&slow, coll, md, ZCOLL_ALGO_AUTO, 5, 1 << 21, ZCOLL_FLOAT64, 8, &s,
                             nullptr, nullptr) == ZCOLL_SUCCESS &&
                   s < s2,
               "prediction shrinks with ratio (%s)", zcoll_mode_name(md));
      }
    }
  }
  double s = 0;
  zcoll_model bad = fast;
  bad.bandwidth = 0;
  EXPECT(zcoll_predict(&bad, ZCOLL_COLL_ALLREDUCE, ZCOLL_MODE_HOM, ZCOLL_ALGO_AUTO, 4, 100,
                       ZCOLL_FLOAT32, 5, &s, nullptr, nullptr) == ZCOLL_ERR_INVALID_ARG,
         "unusable model rejected");
  EXPECT(zcoll_predict(&fast, ZCOLL_COLL_BCAST, ZCOLL_MODE_HOM, ZCOLL_ALGO_RING, 4, 100,
                       ZCOLL_FLOAT32, 5, &s, nullptr, nullptr) == ZCOLL_ERR_INVALID_ARG,
         "no ring bcast");
  EXPECT(zcoll_predict(&fast, ZCOLL_COLL_ALLREDUCE, ZCOLL_MODE_HOM, ZCOLL_ALGO_AUTO, 0, 100,
                       ZCOLL_FLOAT32, 5, &s, nullptr, nullptr) == ZCOLL_ERR_INVALID_ARG,
         "nranks 0 rejected");
  EXPECT(zcoll_comm_set_model(e.fine, &bad) == ZCOLL_ERR_INVALID_ARG,
         "set_model rejects bandwidth 0");
}

// the probe gives a usable model on every rank, the same everywhere
void auto_probe(const Env& e) {
  zcoll_comm* zc = make_comm(e.comm, 1024, 2048, ZCOLL_EB_REL, 1e-4);
  zcoll_model m = ZCOLL_MODEL_INITIALIZER;
  m.struct_size = sizeof m;
  EXPECT(zcoll_comm_get_model(zc, &m) == ZCOLL_ERR_INVALID_ARG, "no model before the probe");
  EXPECT(zcoll_comm_calibrate(zc) == ZCOLL_SUCCESS, "probe: %s", zcoll_last_error());
  EXPECT(zcoll_comm_get_model(zc, &m) == ZCOLL_SUCCESS && m.source == ZCOLL_MODEL_SOURCE_PROBE,
         "model after the probe");
  EXPECT(m.latency >= 0 && m.bandwidth > 0 && m.compress_bw > 1e6 && m.decompress_bw > 1e6 &&
             m.hom_bw > 1e6 && m.reduce_bw > 1e6 && m.overlap == 0.5 && m.mpi_scale > 0,
         "probed model: lat %g bw %g c %g d %g h %g g %g", m.latency, m.bandwidth, m.compress_bw,
         m.decompress_bw, m.hom_bw, m.reduce_bw);
  // the dense codec's rates (ZCOLL_CODEC=auto): measured (not which codec is
  // faster: a timing, and this test runs oversubscribed; bench/ compares them)
  EXPECT(m.dense_compress_bw > 1e6 && m.dense_decompress_bw > 1e6,
         "probed dense rates: c %g d %g (fast c %g)", m.dense_compress_bw, m.dense_decompress_bw,
         m.compress_bw);
  double v[4] = {m.bandwidth, -m.bandwidth, m.dense_compress_bw, -m.dense_compress_bw};
  MPI_Allreduce(MPI_IN_PLACE, v, 4, MPI_DOUBLE, MPI_MAX, e.comm);
  EXPECT(v[0] == -v[1] && v[2] == -v[3], "probed model differs across ranks");
  zcoll_comm_free(zc);
}

// AUTO on every collective, with a model that makes MPI win and one that
// makes compression win: results within the reported bound either way
void auto_every_collective(const Env& e, const zcoll_model models[2]) {
  const int N = e.size;
  for (int mi = 0; mi < 2; ++mi) {
    zcoll_comm* zc = make_comm(e.comm, 1024, 2048, ZCOLL_EB_REL, 1e-4);
    EXPECT(zcoll_comm_set_model(zc, &models[mi]) == ZCOLL_SUCCESS, "set_model: %s",
           zcoll_last_error());
    const bool slow = mi == 1;
    for (size_t n : counts_for(N))
      for (MPI_Op op : {MPI_SUM, MPI_MAX}) {
        Case c = base(e, zc, slow ? "auto slow net" : "auto fast net");
        c.mode = ZCOLL_MODE_AUTO;
        c.op = op;
        c.count = n;
        t_allreduce<float>(c);
        zcoll_report rep = last(zc);
        const bool big = n > static_cast<size_t>(N) + 2 && N > 1;
        if (big && !slow)
          EXPECT(rep.mode == ZCOLL_MODE_MPI, "fast net: auto ran %s (%s)",
                 zcoll_mode_name(rep.mode), rep.reason);
        if (big && slow)
          EXPECT(rep.mode == (op == MPI_SUM ? ZCOLL_MODE_HOM : ZCOLL_MODE_DOC),
                 "slow net, %s: auto ran %s (%s)", op_name(op), zcoll_mode_name(rep.mode),
                 rep.reason);
        if (big) EXPECT(rep.time_predicted > 0, "auto reports its prediction");
        if (big && slow)
          EXPECT(rep.ratio_estimate > 1, "auto reports its ratio estimate %g", rep.ratio_estimate);
        t_allreduce<double>(c);
        t_reduce_scatter<float>(c, false);
        t_reduce<double>(c);
        t_allgather<float>(c);
        t_gather<double>(c);
        for (int root : roots_for(N)) {
          c.root = root;
          t_bcast<float>(c);
          t_scatter<double>(c);
        }
      }
    zcoll_comm_free(zc);
  }
}

// AUTO estimates the ratio once, then decides from the agreed (remembered)
// ratio for the next calls with the same settings; new settings estimate again
void auto_remembered_ratio(const Env& e, const zcoll_model& slow) {
  zcoll_comm* zc = make_comm(e.comm, 1024, 2048, ZCOLL_EB_REL, 1e-4);
  zcoll_comm_set_model(zc, &slow);
  Case c = base(e, zc, "auto remembered ratio");
  c.mode = ZCOLL_MODE_AUTO;
  c.count = 20000;
  t_allreduce<float>(c);
  const zcoll_report first = last(zc);
  t_allreduce<float>(c);
  const zcoll_report second = last(zc);
  EXPECT(std::strstr(first.reason, "recent") == nullptr && first.ratio_estimate > 1,
         "first auto call estimates: %s", first.reason);
  EXPECT(std::strstr(second.reason, "recent ratio") != nullptr &&
             second.ratio_estimate == first.ratio_estimate && second.mode == first.mode,
         "second auto call decides from the first's ratio %g: %s (%g)", first.ratio_estimate,
         second.reason, second.ratio_estimate);
  zcoll_comm_set_error_bound(zc, ZCOLL_EB_REL, 1e-3);
  t_allreduce<float>(c);
  EXPECT(std::strstr(last(zc).reason, "recent") == nullptr, "a new bound estimates again: %s",
         last(zc).reason);
  zcoll_comm_free(zc);
}

// a forced Allreduce algorithm is respected by AUTO
void auto_forced_algorithm(const Env& e, const zcoll_model& slow) {
  zcoll_comm* zc = make_comm(e.comm, 1024, 2048, ZCOLL_EB_ABS, 1e-3);
  zcoll_comm_set_model(zc, &slow);
  for (zcoll_algorithm al : {ZCOLL_ALGO_RING, ZCOLL_ALGO_RECURSIVE_DOUBLING}) {
    Case c = base(e, zc, "auto forced algorithm");
    c.mode = ZCOLL_MODE_AUTO;
    c.algo = al;
    c.count = 20000;
    t_allreduce<float>(c);
    EXPECT(last(zc).algorithm == al, "auto with forced %s ran %s", zcoll_algorithm_name(al),
           zcoll_algorithm_name(last(zc).algorithm));
  }
  zcoll_comm_free(zc);
}

// models that differ across ranks: every rank returns ZCOLL_ERR_MISMATCH
void auto_mismatched_models(const Env& e, const zcoll_model& slow_model) {
  zcoll_comm* zc = make_comm(e.comm, 1024, 2048, ZCOLL_EB_ABS, 1e-3);
  zcoll_model m = slow_model;
  if (e.rank == 0) m.compress_bw *= 1.5;
  zcoll_comm_set_model(zc, &m);
  std::vector<float> x(50000, 1.0f), y(50000);
  zcoll_comm_set_mode(zc, ZCOLL_MODE_AUTO);
  zcoll_status s = zcoll_allreduce(zc, x.data(), y.data(), x.size(), MPI_FLOAT, MPI_SUM);
  EXPECT(s == ZCOLL_ERR_MISMATCH, "mismatched models: %s", zcoll_status_string(s));
  zcoll_comm_free(zc);
  // the same through the environment (a tune-file or ZCOLL_* value on one rank only)
  if (e.rank == 0) setenv("ZCOLL_NET_BANDWIDTH", "1gbit", 1);
  zc = make_comm(e.comm, 1024, 2048, ZCOLL_EB_ABS, 1e-3);
  zcoll_comm_set_mode(zc, ZCOLL_MODE_AUTO);
  s = zcoll_allreduce(zc, x.data(), y.data(), x.size(), MPI_FLOAT, MPI_SUM);
  EXPECT(s == ZCOLL_ERR_MISMATCH, "mismatched ZCOLL_NET_BANDWIDTH: %s", zcoll_status_string(s));
  unsetenv("ZCOLL_NET_BANDWIDTH");
  zcoll_comm_free(zc);
}

// bad values in the environment fail the handle's creation, naming the variable
void auto_bad_env(const Env& e) {
  setenv("ZCOLL_NET_BANDWIDTH", "fast", 1);
  zcoll_comm_config cfg = ZCOLL_COMM_CONFIG_INITIALIZER;
  zcoll_comm* zc = nullptr;
  zcoll_status s = zcoll_comm_create(e.comm, &cfg, &zc);
  EXPECT(s == ZCOLL_ERR_INVALID_ARG && std::strstr(zcoll_last_error(), "ZCOLL_NET_BANDWIDTH"),
         "bad ZCOLL_NET_BANDWIDTH: %s (%s)", zcoll_status_string(s), zcoll_last_error());
  unsetenv("ZCOLL_NET_BANDWIDTH");
  setenv("ZCOLL_TUNE_FILE", "/nonexistent/zcoll_tune.json", 1);
  s = zcoll_comm_create(e.comm, &cfg, &zc);
  EXPECT(s == ZCOLL_ERR_INVALID_ARG && std::strstr(zcoll_last_error(), "ZCOLL_TUNE_FILE"),
         "missing tune file: %s (%s)", zcoll_status_string(s), zcoll_last_error());
  unsetenv("ZCOLL_TUNE_FILE");
  // a complete model from the environment: no probe, source 3
  setenv("ZCOLL_NET_LATENCY", "20us", 1);
  setenv("ZCOLL_NET_BANDWIDTH", "1gbit", 1);
  setenv("ZCOLL_COMPRESS_BW", "2.5GB", 1);
  setenv("ZCOLL_DECOMPRESS_BW", "5GB", 1);
  setenv("ZCOLL_HOM_BW", "8GB", 1);
  setenv("ZCOLL_REDUCE_BW", "6e9", 1);
  EXPECT(zcoll_comm_create(e.comm, &cfg, &zc) == ZCOLL_SUCCESS, "create: %s", zcoll_last_error());
  std::vector<float> x(50000, 1.0f), y(50000);
  EXPECT(zcoll_allreduce(zc, x.data(), y.data(), x.size(), MPI_FLOAT, MPI_SUM) == ZCOLL_SUCCESS,
         "allreduce with an env model: %s", zcoll_last_error());
  zcoll_model m = ZCOLL_MODEL_INITIALIZER;
  m.struct_size = sizeof m;
  EXPECT(zcoll_comm_get_model(zc, &m) == ZCOLL_SUCCESS && m.source == ZCOLL_MODEL_SOURCE_SET &&
             std::fabs(m.bandwidth - 1.25e8) < 1 && std::fabs(m.latency - 2e-5) < 1e-12 &&
             m.reduce_bw == 6e9,
         "env model: bw %g lat %g source %d", m.bandwidth, m.latency, m.source);
  for (const char* v : {"ZCOLL_NET_LATENCY", "ZCOLL_NET_BANDWIDTH", "ZCOLL_COMPRESS_BW",
                        "ZCOLL_DECOMPRESS_BW", "ZCOLL_HOM_BW", "ZCOLL_REDUCE_BW"})
    unsetenv(v);
  zcoll_comm_free(zc);
}

void group_auto(const Env& e) {
  auto_one_node(e);
  setenv("ZCOLL_AUTO_LOCAL", "model", 1);
  auto_pure_model(e);
  auto_probe(e);
  const zcoll_model models[2] = {make_model(1e-6, 1e11, 3e9), make_model(5e-5, 1e6, 3e9)};
  auto_every_collective(e, models);
  if (e.size > 1) {
    auto_remembered_ratio(e, models[1]);
    auto_forced_algorithm(e, models[1]);
    auto_mismatched_models(e, models[1]);
  }
  auto_bad_env(e);
  unsetenv("ZCOLL_AUTO_LOCAL");
}

// ---- the codec: ZCOLL_CODEC=fast|dense|auto ---------------------------------------

// A handle with codec_flags, REL 1e-4: chunks of 1024 values in segments of
// 2048 (the `fine` kind), or the default chunk and segment (chunk 0).
zcoll_comm* make_codec_comm(MPI_Comm comm, uint64_t codec_flags, uint32_t chunk = 1024) {
  zcoll_comm_config cfg = ZCOLL_COMM_CONFIG_INITIALIZER;
  cfg.min_bytes = 0;
  cfg.chunk_size = chunk;
  cfg.pipeline_values = chunk ? 2 * chunk : 0;
  cfg.codec_flags = codec_flags;
  zcoll_comm* zc = nullptr;
  EXPECT(zcoll_comm_create(comm, &cfg, &zc) == ZCOLL_SUCCESS, "create codec 0x%llx: %s",
         static_cast<unsigned long long>(codec_flags), zcoll_last_error());
  return zc;
}

// A model with both codecs' rates: the fast codec at 3 GB/s (decompression 6),
// the dense one at 0.3 / 0.5 GB/s; the link at `bandwidth` bytes/s.
zcoll_model codec_model(double bandwidth) {
  zcoll_model m = make_model(5e-5, bandwidth, 3e9);
  m.dense_compress_bw = 0.3e9;
  m.dense_decompress_bw = 0.5e9;
  return m;
}

// Every collective under one handle and mode: results within the reported bound.
void codec_collectives(const Env& e, zcoll_comm* zc, zcoll_mode m, bool dense, const char* label) {
  const int N = e.size;
  for (size_t n : counts_for(N))
    for (MPI_Op op : {MPI_SUM, MPI_MAX}) {
      Case c = base(e, zc, label);
      c.mode = m;
      c.op = op;
      c.count = n;
      c.dense = dense;
      t_allreduce<float>(c);
      t_allreduce<double>(c);
      t_reduce_scatter<float>(c, false);
      t_reduce<double>(c);
      if (op != MPI_SUM) continue;  // data movement: once
      t_allgather<float>(c);
      t_gather<double>(c);
      for (int root : roots_for(N)) {
        c.root = root;
        t_bcast<double>(c);
        t_scatter<float>(c);
      }
    }
}

// ZCOLL_CODEC=dense: every collective in every compressed mode (hom runs as doc),
// the report names the codec
void codec_dense(const Env& e) {
  zcoll_comm* zc = make_codec_comm(e.comm, ZCOLL_FORMAT_FLAG_DENSE);
  for (zcoll_mode m : {ZCOLL_MODE_CPR_P2P, ZCOLL_MODE_DOC, ZCOLL_MODE_HOM})
    codec_collectives(e, zc, m, true, "codec dense");
  Case c = base(e, zc, "codec dense report");
  c.mode = ZCOLL_MODE_DOC;
  c.count = 20000;
  c.dense = true;
  t_allreduce<float>(c);
  EXPECT(last(zc).codec == ZCOLL_CODEC_DENSE, "dense handle reports codec %d (%s)",
         static_cast<int>(last(zc).codec), last(zc).reason);
  zcoll_comm_free(zc);
}

// The codec AUTO picks for an Allreduce of 2^18 values of a slow sine (where
// Lorenzo prediction pays: at REL 1e-4 the dense codec's ratio is ~1.5x the
// fast one's) on a link of `bandwidth`.
zcoll_report codec_auto_pick(const Env& e, zcoll_comm* zc, double bandwidth, zcoll_mode mode) {
  const zcoll_model m = codec_model(bandwidth);
  EXPECT(zcoll_comm_set_model(zc, &m) == ZCOLL_SUCCESS, "set_model: %s", zcoll_last_error());
  zcoll_comm_set_mode(zc, mode);
  const size_t n = size_t{1} << 18;
  std::vector<float> x(n), y(n);
  for (size_t i = 0; i < n; ++i) x[i] = std::sin(1e-3f * static_cast<float>(i) + e.rank);
  const zcoll_status s = zcoll_allreduce(zc, x.data(), y.data(), n, MPI_FLOAT, MPI_SUM);
  EXPECT(s == ZCOLL_SUCCESS, "codec auto pick: %s", zcoll_last_error());
  return last(zc);
}

// zcoll_predict_codec with the live call's inputs (the model, ranks, count and
// the two ratios the call estimated, from its reason) picks what the call ran.
void expect_predicted_pick(const Env& e, double bandwidth, zcoll_mode mode, const zcoll_report& r) {
  const zcoll_model m = codec_model(bandwidth);
  const char* at = std::strstr(r.reason, "ratio fast ~");
  double rf = 0, rd = 0;
  EXPECT(at && std::sscanf(at, "ratio fast ~%lf, dense ~%lf", &rf, &rd) == 2,
         "no ratios in the reason '%s'", r.reason);
  if (!(rf > 0 && rd > 0)) return;
  double s = 0;
  zcoll_mode cm = ZCOLL_MODE_DEFAULT;
  zcoll_algorithm ca = ZCOLL_ALGO_AUTO;
  zcoll_codec cc = ZCOLL_CODEC_FAST;
  EXPECT(zcoll_predict_codec(&m, ZCOLL_COLL_ALLREDUCE, mode, ZCOLL_ALGO_AUTO, e.size,
                             size_t{1} << 18, ZCOLL_FLOAT32, ZCOLL_PREDICT_CODEC_AUTO, rf, rd, &s,
                             &cm, &ca, &cc) == ZCOLL_SUCCESS,
         "predict codec auto: %s", zcoll_last_error());
  EXPECT(cm == r.mode && ca == r.algorithm && cc == r.codec,
         "%s at %g B/s: predicted %s/%s codec %d, ran %s/%s codec %d (%s)", zcoll_mode_name(mode),
         bandwidth, zcoll_mode_name(cm), zcoll_algorithm_name(ca), static_cast<int>(cc),
         zcoll_mode_name(r.mode), zcoll_algorithm_name(r.algorithm), static_cast<int>(r.codec),
         r.reason);
  if (mode == ZCOLL_MODE_AUTO)  // the live prediction, at ratios rounded to 3 digits
    EXPECT(std::fabs(s - r.time_predicted) <= 0.01 * r.time_predicted,
           "predicted %g s, the call's model %g s", s, r.time_predicted);
}

// ZCOLL_CODEC=auto: dense on a slow link, fast on a fast one (mode auto and
// an explicit doc; zcoll_predict_codec agrees), MPI on a link faster than both; every collective in every
// mode within the bound, on a slow link (where the dense codec wins on smooth
// data in the default chunks; in chunks of 1024 its tables cost more than it
// saves, and the model sees it in the estimate: both run)
void codec_auto(const Env& e) {
  zcoll_comm* zc = make_codec_comm(e.comm, ZCOLL_CODEC_FLAG_AUTO, 0);
  for (zcoll_mode m : {ZCOLL_MODE_AUTO, ZCOLL_MODE_DOC}) {
    zcoll_report r = codec_auto_pick(e, zc, 1e6, m);
    EXPECT(r.mode == ZCOLL_MODE_DOC && r.codec == ZCOLL_CODEC_DENSE,
           "%s, 8 Mbit/s: ran %s with codec %d (%s)", zcoll_mode_name(m), zcoll_mode_name(r.mode),
           static_cast<int>(r.codec), r.reason);
    expect_predicted_pick(e, 1e6, m, r);
    r = codec_auto_pick(e, zc, 1e9, m);
    EXPECT(r.mode != ZCOLL_MODE_MPI && r.codec == ZCOLL_CODEC_FAST,
           "%s, 8 Gbit/s: ran %s with codec %d (%s)", zcoll_mode_name(m), zcoll_mode_name(r.mode),
           static_cast<int>(r.codec), r.reason);
    expect_predicted_pick(e, 1e9, m, r);
  }
  EXPECT(codec_auto_pick(e, zc, 1e12, ZCOLL_MODE_AUTO).mode == ZCOLL_MODE_MPI,
         "8 Tbit/s: auto runs MPI (%s)", last(zc).reason);
  const zcoll_model slow = codec_model(1e6);
  zcoll_comm_set_model(zc, &slow);
  for (zcoll_mode m : {ZCOLL_MODE_AUTO, ZCOLL_MODE_DOC, ZCOLL_MODE_HOM, ZCOLL_MODE_CPR_P2P})
    codec_collectives(e, zc, m, false, "codec auto");
  zcoll_comm_free(zc);
  zc = make_codec_comm(e.comm, ZCOLL_CODEC_FLAG_AUTO);
  zcoll_comm_set_model(zc, &slow);
  for (zcoll_mode m : {ZCOLL_MODE_AUTO, ZCOLL_MODE_DOC})
    codec_collectives(e, zc, m, false, "codec auto, chunks of 1024");
  zcoll_comm_free(zc);
}

// ZCOLL_CODEC and the dense rates from the environment; bad values fail the
// handle's creation on every rank, naming the variable
void codec_env(const Env& e) {
  for (const char* w : {"dense", "auto", "fast"}) {
    setenv("ZCOLL_CODEC", w, 1);
    zcoll_comm* zc = make_codec_comm(e.comm, 0);
    zcoll_comm_config got = ZCOLL_COMM_CONFIG_INITIALIZER;
    zcoll_comm_get_config(zc, &got);
    const uint64_t want = w[0] == 'd'   ? ZCOLL_FORMAT_FLAG_DENSE
                          : w[0] == 'a' ? ZCOLL_CODEC_FLAG_AUTO
                                        : 0;
    EXPECT(got.codec_flags == want, "ZCOLL_CODEC=%s: codec_flags 0x%llx", w,
           static_cast<unsigned long long>(got.codec_flags));
    zcoll_comm_free(zc);
  }
  for (const char* bad : {"bogus", "fast,dense", "densest"}) {
    setenv("ZCOLL_CODEC", bad, 1);
    zcoll_comm_config cfg = ZCOLL_COMM_CONFIG_INITIALIZER;
    zcoll_comm* zc = nullptr;
    const zcoll_status s = zcoll_comm_create(e.comm, &cfg, &zc);
    EXPECT(s == ZCOLL_ERR_INVALID_ARG && zc == nullptr &&
               std::strstr(zcoll_last_error(), "ZCOLL_CODEC"),
           "ZCOLL_CODEC='%s': %s (%s)", bad, zcoll_status_string(s), zcoll_last_error());
  }
  unsetenv("ZCOLL_CODEC");
  setenv("ZCOLL_DENSE_COMPRESS_BW", "fast", 1);
  zcoll_comm* zc = nullptr;
  EXPECT(zcoll_comm_create(e.comm, nullptr, &zc) == ZCOLL_ERR_INVALID_ARG &&
             std::strstr(zcoll_last_error(), "ZCOLL_DENSE_COMPRESS_BW"),
         "bad ZCOLL_DENSE_COMPRESS_BW: %s", zcoll_last_error());
  unsetenv("ZCOLL_DENSE_COMPRESS_BW");
}

// codec settings that differ across ranks: ZCOLL_ERR_MISMATCH on every rank,
// also on a link (8 Gbit/s) where the fast codec beats MPI and the dense one
// does not (AUTO's first look must not send one rank to MPI and the other to
// the agreement)
void codec_mismatch(const Env& e) {
  const uint64_t pairs[][2] = {{ZCOLL_CODEC_FLAG_AUTO, 0},
                               {ZCOLL_FORMAT_FLAG_DENSE, 0},
                               {ZCOLL_CODEC_FLAG_AUTO, ZCOLL_FORMAT_FLAG_DENSE}};
  std::vector<float> x(1 << 18), y(1 << 18);
  for (size_t i = 0; i < x.size(); ++i) x[i] = std::sin(1e-3f * static_cast<float>(i));
  for (double bw : {1e6, 1e9})
    for (const auto& p : pairs)
      for (zcoll_mode m : {ZCOLL_MODE_DOC, ZCOLL_MODE_AUTO}) {
        const zcoll_model model = codec_model(bw);
        zcoll_comm* zc = make_codec_comm(e.comm, p[e.rank == 0 ? 0 : 1]);
        zcoll_comm_set_model(zc, &model);
        zcoll_comm_set_mode(zc, m);
        const zcoll_status s =
            zcoll_allreduce(zc, x.data(), y.data(), x.size(), MPI_FLOAT, MPI_SUM);
        EXPECT(s == ZCOLL_ERR_MISMATCH, "codec 0x%llx vs 0x%llx, mode %s, %g B/s: %s",
               static_cast<unsigned long long>(p[0]), static_cast<unsigned long long>(p[1]),
               zcoll_mode_name(m), bw, zcoll_status_string(s));
        zcoll_comm_free(zc);
      }
}

// The bytes Bcast of a smooth 2-D field (rows x cols, REL 1e-3) sends with
// the dense codec, with the shape set or not.
uint64_t shaped_bcast_bytes(const Env& e, zcoll_comm* zc, bool shaped) {
  const uint64_t rows = 96, cols = 256;
  std::vector<float> x(rows * cols);
  for (uint64_t i = 0; i < rows; ++i)
    for (uint64_t j = 0; j < cols; ++j)
      x[i * cols + j] = static_cast<float>(100 * std::sin(0.05 * i) * std::cos(0.07 * j) + 0.3 * i);
  const uint64_t dims[2] = {rows, cols};
  EXPECT(zcoll_comm_set_shape(zc, shaped ? 2 : 0, dims) == ZCOLL_SUCCESS, "set_shape: %s",
         zcoll_last_error());
  zcoll_comm_set_mode(zc, ZCOLL_MODE_DOC);
  zcoll_comm_set_error_bound(zc, ZCOLL_EB_REL, 1e-3);
  std::vector<float> buf = x;
  if (e.rank != 0) std::fill(buf.begin(), buf.end(), 0.0f);
  const zcoll_status s = zcoll_bcast(zc, buf.data(), buf.size(), MPI_FLOAT, 0);
  EXPECT(s == ZCOLL_SUCCESS, "shaped bcast: %s", zcoll_last_error());
  const zcoll_report r = last(zc);
  double worst = 0;
  for (size_t i = 0; i < x.size(); ++i)
    worst = std::max(worst, std::fabs(static_cast<double>(buf[i]) - x[i]));
  EXPECT(worst <= r.error_bound, "shaped=%d bcast: max error %g over the bound %g", shaped, worst,
         r.error_bound);
  uint64_t sent = e.rank == 0 ? r.bytes_sent : 0;
  MPI_Allreduce(MPI_IN_PLACE, &sent, 1, MPI_UINT64_T, MPI_SUM, e.comm);
  return sent;
}

// zcoll_comm_set_shape with the dense codec: Bcast, Allgather, Gather and
// Scatter of blocks that have the shape (2-D, 3-D, and 1-D) or not, within
// the reported bound; a smooth 2-D field sends fewer bytes with its shape;
// bad arguments are errors; ranks that set different shapes fail the call.
void codec_shape(const Env& e) {
  zcoll_comm* zc = make_codec_comm(e.comm, ZCOLL_FORMAT_FLAG_DENSE);
  const uint64_t shapes[][3] = {{60, 97, 0}, {7, 13, 64}, {5000, 0, 0}, {3, 1, 1000}};
  for (const auto& sh : shapes) {
    const uint32_t nd = sh[2] ? 3 : sh[1] ? 2 : 1;
    uint64_t product = 1;
    for (uint32_t d = 0; d < nd; ++d) product *= sh[d];
    EXPECT(zcoll_comm_set_shape(zc, nd, sh) == ZCOLL_SUCCESS, "set_shape: %s", zcoll_last_error());
    // the block has the shape; one value more (1-D)
    for (size_t n : {static_cast<size_t>(product), static_cast<size_t>(product) + 1})
      for (zcoll_mode m : {ZCOLL_MODE_DOC, ZCOLL_MODE_CPR_P2P}) {
        Case c = base(e, zc, "shape");
        c.mode = m;
        c.count = n;
        c.dense = true;
        t_allgather<float>(c);
        t_gather<double>(c);
        for (int root : roots_for(e.size)) {
          c.root = root;
          t_bcast<float>(c);
          t_scatter<double>(c);
        }
        t_allreduce<float>(c);  // a reduction: the shape does not apply
      }
  }
  zcoll_comm_free(zc);
  // the ratio: chunks of 4096 values, segments of 8192
  zc = make_codec_comm(e.comm, ZCOLL_FORMAT_FLAG_DENSE, 4096);
  const uint64_t flat = shaped_bcast_bytes(e, zc, false), shaped = shaped_bcast_bytes(e, zc, true);
  EXPECT(shaped > 0 && 5 * shaped < 4 * flat,
         "bcast of a smooth 2-D field: %llu bytes with its "
         "shape, %llu without",
         static_cast<unsigned long long>(shaped), static_cast<unsigned long long>(flat));
  // with ZCOLL_CODEC=auto the pieces stay 1-D (the model prices the 1-D codec),
  // also where it picks the dense codec (a slow link): the bytes of a flat call
  {
    zcoll_comm* za = make_codec_comm(e.comm, ZCOLL_CODEC_FLAG_AUTO, 4096);
    const zcoll_model slow = codec_model(1e6);
    zcoll_comm_set_model(za, &slow);
    const uint64_t a_flat = shaped_bcast_bytes(e, za, false);
    const uint64_t a_shaped = shaped_bcast_bytes(e, za, true);
    const zcoll_report r = last(za);
    EXPECT(r.codec == ZCOLL_CODEC_DENSE && a_shaped == a_flat && a_flat == flat,
           "codec auto with a shape: codec %s, %llu bytes (flat %llu, dense flat %llu): %s",
           r.codec == ZCOLL_CODEC_DENSE ? "dense" : "fast",
           static_cast<unsigned long long>(a_shaped), static_cast<unsigned long long>(a_flat),
           static_cast<unsigned long long>(flat), r.reason);
    zcoll_comm_free(za);
  }
  // bad arguments
  const uint64_t bad[2] = {4, 0}, big[2] = {uint64_t{1} << 40, uint64_t{1} << 40};
  EXPECT(zcoll_comm_set_shape(nullptr, 0, nullptr) == ZCOLL_ERR_INVALID_ARG, "NULL handle");
  EXPECT(zcoll_comm_set_shape(zc, 2, nullptr) == ZCOLL_ERR_INVALID_ARG, "NULL dims");
  EXPECT(zcoll_comm_set_shape(zc, 2, bad) == ZCOLL_ERR_INVALID_ARG, "a dim of 0");
  EXPECT(zcoll_comm_set_shape(zc, 2, big) == ZCOLL_ERR_INVALID_ARG, "product overflows");
  EXPECT(zcoll_comm_set_shape(zc, ZCOLL_MAX_DIMS + 1, big) == ZCOLL_ERR_INVALID_ARG,
         "too many dims");
  // a mismatch: rank 0 cuts its segments at rows of 256, the others flat
  if (e.size > 1) {
    const uint64_t dims[2] = {96, 256};
    zcoll_comm_set_shape(zc, e.rank == 0 ? 2 : 0, dims);
    std::vector<float> buf(96 * 256, 1.0f);
    const zcoll_status s = zcoll_bcast(zc, buf.data(), buf.size(), MPI_FLOAT, 0);
    EXPECT(s == ZCOLL_ERR_MISMATCH, "shapes differing across ranks: status %d (%s)",
           static_cast<int>(s), last(zc).reason);
  }
  zcoll_comm_free(zc);
}

void group_codec(const Env& e) {
  setenv("ZCOLL_AUTO_LOCAL", "model", 1);  // one node: auto would run MPI
  codec_dense(e);
  codec_shape(e);
  if (e.size > 1) {
    codec_auto(e);
    codec_mismatch(e);
  }
  codec_env(e);
  unsetenv("ZCOLL_AUTO_LOCAL");
}

const char* const kGroups[] = {"allreduce",  "reduce_scatter", "allgather", "bcast",   "scatter",
                               "reduce",     "gather",         "large",     "special", "auto",
                               "node_aware", "codec",          nullptr};

void run_groups(const Env& e, const std::vector<std::string>& groups) {
  auto want = [&](const char* g) {
    if (groups.empty()) return true;
    for (auto& s : groups)
      if (s == g) return true;
    return false;
  };
  if (want("allreduce")) group_allreduce(e);
  if (want("reduce_scatter")) group_reduce_scatter(e);
  if (want("allgather")) group_allgather(e);
  if (want("bcast")) group_bcast(e);
  if (want("scatter")) group_scatter(e);
  if (want("reduce")) group_reduce(e);
  if (want("gather")) group_gather(e);
  if (want("large")) group_large(e);
  if (want("special")) group_special(e);
  if (want("auto")) group_auto(e);
  if (want("codec")) group_codec(e);
  // not part of "all": the layouts it needs come from ZCOLL_NODE_MAP (CTest)
  if (!groups.empty() && want("node_aware")) group_node_aware(e);
}

Env make_env(MPI_Comm comm) {
  Env e;
  e.comm = comm;
  MPI_Comm_rank(comm, &e.rank);
  MPI_Comm_size(comm, &e.size);
  e.fine = make_comm(comm, 1024, 2048, ZCOLL_EB_REL, 1e-4);
  e.coarse = make_comm(comm, 0, 0, ZCOLL_EB_ABS, 1e-3);
  return e;
}

void free_env(Env& e) {
  zcoll_comm_free(e.fine);
  zcoll_comm_free(e.coarse);
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
  MPI_Comm_size(MPI_COMM_WORLD, &g_size);
  std::vector<std::string> groups;
  bool subcomm = false;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--subcomm") == 0) {
      subcomm = true;
    } else if (std::strcmp(argv[i], "--type") == 0 && i + 1 < argc) {
      ++i;
      g_types = std::strcmp(argv[i], "f32") == 0 ? 1 : std::strcmp(argv[i], "f64") == 0 ? 2 : 0;
      if (g_types == 0) {
        if (g_rank == 0) std::fprintf(stderr, "coll_test: --type f32 or f64, not %s\n", argv[i]);
        MPI_Finalize();
        return 2;
      }
    } else
      groups.emplace_back(argv[i]);
  }
  const double t0 = MPI_Wtime();
  if (!zcoll_testing::check_group_names(groups, kGroups)) {
    MPI_Finalize();
    return 2;
  }
  if (!subcomm) {
    Env e = make_env(MPI_COMM_WORLD);
    run_groups(e, groups);
    free_env(e);
  } else {
    // two sub-communicators with a reversed rank order
    MPI_Comm sub;
    MPI_Comm_split(MPI_COMM_WORLD, g_rank % 2, -g_rank, &sub);
    Env e = make_env(sub);
    run_groups(e, groups);
    free_env(e);
    MPI_Comm_free(&sub);
  }
  long mine[2] = {zcoll_testing::g_checks.load(), zcoll_testing::g_failures.load()},
       all[2] = {0, 0};
  MPI_Allreduce(mine, all, 2, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
  std::string what = "zcoll mpi tests (" + std::to_string(g_size) + " ranks" +
                     (subcomm ? ", split communicators" : "") +
                     (g_types == 1   ? ", float"
                      : g_types == 2 ? ", double"
                                     : "") +
                     "):";
  for (const std::string& g : groups) what += " " + g;
  if (groups.empty()) what += " all";
  const double seconds = MPI_Wtime() - t0;
  int rc = 0;
  if (g_rank == 0)
    rc = zcoll_testing::finish(what.c_str(), all[0], all[1], seconds);
  else
    rc = all[0] > 0 && all[1] == 0 ? 0 : 1;
  MPI_Finalize();
  return rc;
}
