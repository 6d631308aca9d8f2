// report.cc — what the shim did (ZCOLL_PMPI_REPORT: one table on rank 0 at
// MPI_Finalize) and the exact-call check of ZCOLL_PMPI_VERIFY.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <mutex>

#include "coll/control/collective.h"
#include "pmpi/shim.h"

namespace zcoll::pmpi {

namespace {

struct Counters {
  // per collective: calls seen, calls compressed (mode other than MPI), bytes
  // the algorithm would send uncompressed / sent, seconds in the calls, the
  // largest reported error bound
  double seen[ZCOLL_MAX_COLLECTIVES] = {0};
  double compressed[ZCOLL_MAX_COLLECTIVES] = {0};
  double bytes_before[ZCOLL_MAX_COLLECTIVES] = {0};
  double bytes_after[ZCOLL_MAX_COLLECTIVES] = {0};
  double seconds[ZCOLL_MAX_COLLECTIVES] = {0};
  double max_bound[ZCOLL_MAX_COLLECTIVES] = {0};
  double nested = 0;    // calls that came back into the shim (passed through)
  double verified = 0;  // calls checked by ZCOLL_PMPI_VERIFY
  double worst = 0;     // the largest |error| / allowed of those
};
Counters g_count;
// count_compressed of a nonblocking call runs on the handle's progress thread
std::mutex g_count_mutex;

const char* mpi_name(int c) { return coll::traits(static_cast<zcoll_collective>(c)).mpi_name; }

}  // namespace

void count_call(Coll c, double seconds) {
  std::lock_guard<std::mutex> lk(g_count_mutex);
  g_count.seen[c] += 1;
  g_count.seconds[c] += seconds;
}

void count_compressed(Coll c, const zcoll_report& r) {
  if (r.mode == ZCOLL_MODE_MPI) return;  // AUTO chose the MPI library's collective
  std::lock_guard<std::mutex> lk(g_count_mutex);
  g_count.compressed[c] += 1;
  g_count.bytes_before[c] += static_cast<double>(r.bytes_uncompressed);
  g_count.bytes_after[c] += static_cast<double>(r.bytes_sent);
  g_count.max_bound[c] = std::max(g_count.max_bound[c], r.error_bound);
}

void count_nested() {
  std::lock_guard<std::mutex> lk(g_count_mutex);
  g_count.nested += 1;
}

void print_report() {
  // calls and seconds: the largest over ranks; bytes: summed over ranks
  constexpr int kN = ZCOLL_MAX_COLLECTIVES;  // rows by zcoll_collective
  double mx[3 * kN + 2], sum[2 * kN + 2], gmx[3 * kN + 2], gsum[2 * kN + 2];
  for (int c = 0; c < kN; ++c) {
    mx[c] = g_count.seen[c];
    mx[kN + c] = g_count.compressed[c];
    mx[2 * kN + c] = g_count.seconds[c];
    sum[c] = g_count.bytes_before[c];
    sum[kN + c] = g_count.bytes_after[c];
  }
  mx[3 * kN] = g_count.worst;
  mx[3 * kN + 1] = g_count.verified;
  sum[2 * kN] = g_count.nested;
  sum[2 * kN + 1] = 0;
  double bound[kN], gbound[kN];
  for (int c = 0; c < kN; ++c) bound[c] = g_count.max_bound[c];
  PMPI_Reduce(mx, gmx, 3 * kN + 2, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
  PMPI_Reduce(sum, gsum, 2 * kN + 2, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
  PMPI_Reduce(bound, gbound, kN, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
  int rank = 0, size = 0;
  PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
  PMPI_Comm_size(MPI_COMM_WORLD, &size);
  if (rank != 0) return;
  const Settings& s = settings();
  std::string colls;
  for (int c = 0; c < kN; ++c)
    if (s.coll[c] && coll::is_collective(static_cast<Coll>(c)))
      colls += std::string(colls.empty() ? "" : ",") + coll_word(static_cast<Coll>(c));
  std::fprintf(stderr,
               "zcoll-pmpi report: %d ranks, bound %s, collectives %s, min %llu bytes, comms "
               "\"%s\", %d handles\n",
               size, s.eb_text.c_str(), colls.c_str(), static_cast<unsigned long long>(s.min_bytes),
               s.comms.c_str(), handles_created());
  std::fprintf(stderr, "zcoll-pmpi report: %-20s %8s %10s %14s %14s %7s %10s %11s\n", "collective",
               "seen", "compressed", "bytes_before", "bytes_after", "ratio", "seconds",
               "max_bound");
  for (int c = 0; c < kN; ++c) {
    if (gmx[c] == 0) continue;
    const double ratio = gsum[kN + c] > 0 ? gsum[c] / gsum[kN + c] : 0;
    std::fprintf(
        stderr, "zcoll-pmpi report: %-20s %8.0f %10.0f %14.0f %14.0f %7.2f %10.4f %11.4g\n",
        mpi_name(c), gmx[c], gmx[kN + c], gsum[c], gsum[kN + c], ratio, gmx[2 * kN + c], gbound[c]);
  }
  std::fprintf(stderr,
               "zcoll-pmpi report: (seen/compressed/seconds: the largest of any rank; bytes: "
               "all ranks; re-entered calls passed through: %.0f)\n",
               gsum[2 * kN]);
  if (s.verify)
    std::fprintf(stderr,
                 "zcoll-pmpi report: verify: %.0f calls checked, largest |error| / allowed = "
                 "%.4g\n",
                 gmx[3 * kN + 1], gmx[3 * kN]);
}

void Verify::note_input(const void* in, size_t n) {
  double m = 0;
  if (zdt == MPI_FLOAT) {
    const float* x = static_cast<const float*>(in);
    for (size_t i = 0; i < n; ++i)
      if (std::isfinite(x[i])) m = std::max(m, static_cast<double>(std::fabs(x[i])));
  } else {
    const double* x = static_cast<const double*>(in);
    for (size_t i = 0; i < n; ++i)
      if (std::isfinite(x[i])) m = std::max(m, std::fabs(x[i]));
  }
  PMPI_Allreduce(&m, &input_absmax, 1, MPI_DOUBLE, MPI_MAX, comm);
}

void Verify::check(const void* got, const zcoll_report& r) {
  int size = 1;
  PMPI_Comm_size(comm, &size);
  const double u = zdt == MPI_FLOAT ? std::ldexp(1.0, -24) : std::ldexp(1.0, -53);
  // zcoll_mpi.h: the bound is that of exact arithmetic; the rounding of the
  // reduction in the datatype comes on top, for both results compared here
  // (SUM: (N+1) u sum_i |x_i| <= (N+1) u N max|x|), and each result's final
  // rounding to the datatype (u |value|).
  double allowance = r.error_bound;
  if (op == MPI_SUM) allowance += 2.0 * (size + 1) * u * size * input_absmax;
  double worst = 0;
  size_t worst_i = 0;
  double worst_got = 0, worst_exact = 0, worst_allowed = 0;
  bool bad = false;
  for (size_t i = 0; i < out_n; ++i) {
    double e, g;
    if (zdt == MPI_FLOAT) {
      e = reinterpret_cast<const float*>(exact.data())[i];
      g = static_cast<const float*>(got)[i];
    } else {
      e = reinterpret_cast<const double*>(exact.data())[i];
      g = static_cast<const double*>(got)[i];
    }
    if (!std::isfinite(e) || !std::isfinite(g)) {
      const bool same = (std::isnan(e) && std::isnan(g)) || e == g;
      if (!same && !bad) {
        bad = true;
        worst_i = i, worst_got = g, worst_exact = e, worst_allowed = allowance;
      }
      continue;
    }
    double allowed = allowance + 2.0 * u * std::fabs(e);
    if (op == MPI_PROD) allowed += 2.0 * (size + 1) * u * std::fabs(e);
    const double err = std::fabs(g - e);
    const double q = allowed > 0 ? err / allowed : (err > 0 ? INFINITY : 0);
    if (q > worst) {
      worst = q;
      if (!bad) worst_i = i, worst_got = g, worst_exact = e, worst_allowed = allowed;
    }
  }
  g_count.verified += 1;
  g_count.worst = std::max(g_count.worst, worst);
  if (bad || worst > 1) {
    int rank = 0;
    PMPI_Comm_rank(comm, &rank);
    die(comm,
        "ZCOLL_PMPI_VERIFY: %s (%s) left its bound on rank %d: value %zu is %.9g, the exact "
        "call gives %.9g, |error| %.3g > allowed %.3g (reported bound %.3g); run without the "
        "shim for this collective (ZCOLL_PMPI_COLLS) or tighten ZCOLL_ERROR_BOUND",
        mpi_name(coll), zcoll_mode_name(r.mode), rank, worst_i, worst_got, worst_exact,
        std::fabs(worst_got - worst_exact), worst_allowed, r.error_bound);
  }
}

}  // namespace zcoll::pmpi
