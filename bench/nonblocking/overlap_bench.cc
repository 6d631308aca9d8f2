// overlap_bench.cc — zcoll-overlap-bench: how much of a large compressed
// Allreduce a nonblocking call hides behind computation on the calling thread
// (docs/nonblocking.md). Per repeat, after a barrier each:
//   comm     zcoll_allreduce alone
//   compute  the compute kernel alone (cache-resident FMAs on this thread)
//   serial   zcoll_allreduce, then the kernel (what a blocking code does)
//   overlap  zcoll_iallreduce, the kernel, zcoll_wait
//   nb_only  zcoll_iallreduce + zcoll_wait at once (the cost of the thread hop)
//   mpi_nb   MPI_Iallreduce (the MPI library's, uncompressed), the kernel,
//            MPI_Wait: no progress call during the kernel (what "MPI
//            nonblocking primitives driven by test calls" gives a code that
//            does not call test)
// overlap fraction = (serial - overlap) / min(comm, compute): 1 = the shorter
// one is hidden completely, 0 = nothing is. The kernel is sized to take as
// long as `comm` (--compute-ratio scales it). Medians over --repeats with the
// range; --json FILE writes them. Every result is checked against the
// blocking call's (bit for bit) and the report's bound; a mismatch fails the run.
//
//   mpiexec -n 2 zcoll-overlap-bench [--count N] [--mode hom] [--abs 1e-4]
//       [--repeats 7] [--compute-ratio 1] [--threads 1] [--json out.json]
#include <mpi.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "zcoll_mpi.h"

namespace {

struct Options {
  size_t count = size_t{16} << 20;  // 64 MiB of float
  std::string mode = "hom";
  double abs_eb = 1e-4;
  int repeats = 7;
  double compute_ratio = 1.0;
  int threads = 1;
  std::string json;
};

double now() { return MPI_Wtime(); }

// The computation: FMAs over a 64 KiB array (stays in L1/L2: no memory
// traffic competing with the collective), `iters` passes.
volatile double g_sink = 0;
void compute(long iters) {
  static std::vector<double> a(8192, 1.0);
  double s = 0;
  for (long it = 0; it < iters; ++it)
    for (size_t i = 0; i < a.size(); ++i) {
      a[i] = a[i] * 0.999999 + 1e-7;
      s += a[i];
    }
  g_sink = g_sink + s;
}

struct Stat {
  std::vector<double> v;
  double median() const {
    std::vector<double> s = v;
    std::sort(s.begin(), s.end());
    return s.empty() ? 0 : s[s.size() / 2];
  }
  double lo() const { return v.empty() ? 0 : *std::min_element(v.begin(), v.end()); }
  double hi() const { return v.empty() ? 0 : *std::max_element(v.begin(), v.end()); }
};

// The slowest rank's time of each measurement is the one that counts.
double max_over_ranks(double t) {
  double m = 0;
  MPI_Allreduce(&t, &m, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  return m;
}

int usage() {
  std::fprintf(stderr,
               "usage: zcoll-overlap-bench [--count N] [--mode M] [--abs EB] [--repeats R]\n"
               "                           [--compute-ratio X] [--threads T] [--json FILE]\n");
  return 2;
}

// The command line into *o; false: a usage error.
bool parse_args(int argc, char** argv, Options* o) {
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (i + 1 >= argc) return false;
    const char* v = argv[++i];
    if (a == "--count")
      o->count = std::strtoull(v, nullptr, 10);
    else if (a == "--mode")
      o->mode = v;
    else if (a == "--abs")
      o->abs_eb = std::atof(v);
    else if (a == "--repeats")
      o->repeats = std::max(1, std::atoi(v));
    else if (a == "--compute-ratio")
      o->compute_ratio = std::atof(v);
    else if (a == "--threads")
      o->threads = std::atoi(v);
    else if (a == "--json")
      o->json = v;
    else
      return false;
  }
  return true;
}

// The kernel's passes that take about compute_ratio x one zcoll_allreduce of
// x (rank 0's measurement, for everyone).
long size_kernel(zcoll_comm* zc, const std::vector<float>& x, std::vector<float>& y,
                 double compute_ratio) {
  const size_t n = x.size();
  double t_comm0 = 0;
  for (int k = 0; k < 2; ++k) {
    MPI_Barrier(MPI_COMM_WORLD);
    const double t = now();
    zcoll_allreduce(zc, x.data(), y.data(), n, MPI_FLOAT, MPI_SUM);
    t_comm0 = max_over_ranks(now() - t);
  }
  long iters = 64;
  for (;;) {  // calibrate: passes per second of the kernel
    const double t = now();
    compute(iters);
    double dt = now() - t;
    MPI_Bcast(&dt, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    if (dt > 0.05) {
      iters = static_cast<long>(iters * (t_comm0 * compute_ratio) / dt);
      break;
    }
    iters *= 4;
  }
  return std::max(1L, iters);
}

// The measurements, slowest rank's seconds of each repeat.
struct Stats {
  Stat comm, comp, serial, overlap, nb_only, mpi_nb, mpi_alone;
  std::array<std::pair<const char*, const Stat*>, 7> rows() const {
    return {{{"comm", &comm},
             {"compute", &comp},
             {"serial", &serial},
             {"overlap", &overlap},
             {"nb_only", &nb_only},
             {"mpi_alone", &mpi_alone},
             {"mpi_nb", &mpi_nb}}};
  }
};

// One repeat of every measurement (outputs y and z, reused: no page faults in
// the timed calls); returns the results that differ from ref (bit for bit) or
// failed.
long measure(zcoll_comm* zc, const std::vector<float>& x, const std::vector<float>& ref, long iters,
             std::vector<float>& y, std::vector<float>& z, Stats* st) {
  const size_t n = x.size();
  long wrong = 0;
  auto check = [&](const std::vector<float>& got) {
    if (std::memcmp(got.data(), ref.data(), n * sizeof(float)) != 0) ++wrong;
  };
  MPI_Barrier(MPI_COMM_WORLD);
  double t = now();
  zcoll_allreduce(zc, x.data(), y.data(), n, MPI_FLOAT, MPI_SUM);
  st->comm.v.push_back(max_over_ranks(now() - t));
  check(y);

  MPI_Barrier(MPI_COMM_WORLD);
  t = now();
  compute(iters);
  st->comp.v.push_back(max_over_ranks(now() - t));

  MPI_Barrier(MPI_COMM_WORLD);
  t = now();
  zcoll_allreduce(zc, x.data(), y.data(), n, MPI_FLOAT, MPI_SUM);
  compute(iters);
  st->serial.v.push_back(max_over_ranks(now() - t));

  MPI_Barrier(MPI_COMM_WORLD);
  std::fill(z.begin(), z.end(), 0.f);
  t = now();
  zcoll_request* q = nullptr;
  zcoll_iallreduce(zc, x.data(), z.data(), n, MPI_FLOAT, MPI_SUM, &q);
  compute(iters);
  const zcoll_status s = zcoll_wait(q, nullptr);
  st->overlap.v.push_back(max_over_ranks(now() - t));
  zcoll_request_free(q);
  if (s != ZCOLL_SUCCESS) ++wrong;
  check(z);

  MPI_Barrier(MPI_COMM_WORLD);
  t = now();
  zcoll_iallreduce(zc, x.data(), z.data(), n, MPI_FLOAT, MPI_SUM, &q);
  zcoll_wait(q, nullptr);
  st->nb_only.v.push_back(max_over_ranks(now() - t));
  zcoll_request_free(q);
  check(z);

  MPI_Barrier(MPI_COMM_WORLD);
  t = now();
  MPI_Allreduce(x.data(), z.data(), static_cast<int>(n), MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
  st->mpi_alone.v.push_back(max_over_ranks(now() - t));

  MPI_Barrier(MPI_COMM_WORLD);
  t = now();
  MPI_Request mr;
  MPI_Iallreduce(x.data(), z.data(), static_cast<int>(n), MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD, &mr);
  compute(iters);
  MPI_Wait(&mr, MPI_STATUS_IGNORE);
  st->mpi_nb.v.push_back(max_over_ranks(now() - t));
  return wrong;
}

// The result within the reported bound of the exact sum (double), plus the
// float rounding of the sum, (N+2) u sum|x|, as zcoll_mpi.h states: the values
// outside; *max_err = the largest error.
long outside_bound(const std::vector<float>& x, const std::vector<float>& ref, int size,
                   double bound, double* max_err) {
  const size_t n = x.size();
  long outside = 0;
  std::vector<double> xd(x.begin(), x.end()), exact(n), ax(n), absum(n);
  MPI_Allreduce(xd.data(), exact.data(), static_cast<int>(n), MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  for (size_t i = 0; i < n; ++i) ax[i] = std::fabs(xd[i]);
  MPI_Allreduce(ax.data(), absum.data(), static_cast<int>(n), MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  for (size_t i = 0; i < n; ++i) {
    const double e = std::fabs(ref[i] - exact[i]);
    *max_err = std::max(*max_err, e);
    if (!(e <= bound + (size + 2) * 0x1p-24 * absum[i])) ++outside;
  }
  return outside;
}

// What rank 0 prints and writes.
struct Summary {
  int size = 1;
  bool threaded = false, multiple = false;
  zcoll_report rep = ZCOLL_REPORT_INITIALIZER;
  double f = 0, f_mpi = 0;  // overlap fractions: zcoll's, MPI's without progress calls
  double max_err = 0;
  long wrong_all = 0, outside_all = 0;
  bool ok = false;
};

void print_summary(const Options& o, const Stats& st, const Summary& s) {
  const zcoll_report& rep = s.rep;
  std::printf(
      "zcoll-overlap-bench: %d ranks, %zu floats (%.0f MiB), mode %s abs %g, "
      "threads %d, progress %s, MPI thread level %s, %d repeats\n",
      s.size, o.count, o.count * 4.0 / 1048576, o.mode.c_str(), o.abs_eb, o.threads,
      s.threaded ? "thread" : "inline", s.multiple ? "MULTIPLE" : "below MULTIPLE", o.repeats);
  std::printf("report: mode %s algorithm %s, bound %.3g, sent %llu of %llu bytes\n",
              zcoll_mode_name(rep.mode), zcoll_algorithm_name(rep.algorithm), rep.error_bound,
              static_cast<unsigned long long>(rep.bytes_sent),
              static_cast<unsigned long long>(rep.bytes_uncompressed));
  std::printf("%-10s %10s %10s %10s   (seconds, slowest rank)\n", "", "median", "min", "max");
  for (const auto& r : st.rows())
    std::printf("%-10s %10.4f %10.4f %10.4f\n", r.first, r.second->median(), r.second->lo(),
                r.second->hi());
  std::printf(
      "overlap fraction: zcoll %.2f (serial %.3f s -> %.3f s), MPI_Iallreduce without "
      "progress calls %.2f\n",
      s.f, st.serial.median(), st.overlap.median(), s.f_mpi);
  std::printf(
      "# %s: results bit-identical to the blocking call: %s; max |error| %.3g, bound "
      "%.3g (+ rounding), %ld values outside\n",
      s.ok ? "OK" : "FAILED", s.wrong_all ? "NO" : "yes", s.max_err, rep.error_bound,
      s.outside_all);
}

void write_json(const Options& o, const Stats& st, const Summary& s) {
  FILE* fj = std::fopen(o.json.c_str(), "w");
  if (!fj) return;
  const zcoll_report& rep = s.rep;
  std::fprintf(fj,
               "{\n  \"ranks\": %d, \"count\": %zu, \"mode\": \"%s\", \"abs\": %g, "
               "\"threads\": %d,\n  \"progress\": \"%s\", \"repeats\": %d, "
               "\"compute_ratio\": %g,\n  \"ran\": {\"mode\": \"%s\", \"algorithm\": "
               "\"%s\", \"error_bound\": %g, \"bytes_sent\": %llu, "
               "\"bytes_uncompressed\": %llu},\n",
               s.size, o.count, o.mode.c_str(), o.abs_eb, o.threads,
               s.threaded ? "thread" : "inline", o.repeats, o.compute_ratio,
               zcoll_mode_name(rep.mode), zcoll_algorithm_name(rep.algorithm), rep.error_bound,
               static_cast<unsigned long long>(rep.bytes_sent),
               static_cast<unsigned long long>(rep.bytes_uncompressed));
  for (const auto& r : st.rows()) {
    std::fprintf(fj,
                 "  \"%s\": {\"median\": %.6g, \"min\": %.6g, \"max\": %.6g, "
                 "\"all\": [",
                 r.first, r.second->median(), r.second->lo(), r.second->hi());
    for (size_t i = 0; i < r.second->v.size(); ++i)
      std::fprintf(fj, "%s%.6g", i ? ", " : "", r.second->v[i]);
    std::fprintf(fj, "]},\n");
  }
  std::fprintf(fj,
               "  \"overlap_fraction\": %.4f, \"overlap_fraction_mpi_no_progress\": %.4f,\n"
               "  \"bit_identical\": %s, \"max_error\": %.6g, \"ok\": %s\n}\n",
               s.f, s.f_mpi, s.wrong_all ? "false" : "true", s.max_err, s.ok ? "true" : "false");
  std::fclose(fj);
}

// (serial - overlap) / the shorter of the two parts.
double overlap_fraction(double serial_t, double overlap_t, double a, double b) {
  const double shorter = std::min(a, b);
  return shorter > 0 ? (serial_t - overlap_t) / shorter : 0;
}

int bench_main(int argc, char** argv) {
  int provided = 0;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  int rank = 0;
  Summary sum;
  sum.multiple = provided == MPI_THREAD_MULTIPLE;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &sum.size);
  Options o;
  if (!parse_args(argc, argv, &o)) {
    if (rank == 0) usage();
    MPI_Finalize();
    return 2;
  }
  zcoll_comm_config cfg = ZCOLL_COMM_CONFIG_INITIALIZER;
  if (zcoll_mode_from_name(o.mode.c_str(), &cfg.mode) != ZCOLL_SUCCESS) {
    if (rank == 0) std::fprintf(stderr, "unknown mode %s\n", o.mode.c_str());
    MPI_Finalize();
    return 2;
  }
  cfg.eb_mode = ZCOLL_EB_ABS;
  cfg.error_bound = o.abs_eb;
  cfg.min_bytes = 0;
  cfg.threads = o.threads;
  zcoll_comm* zc = nullptr;
  if (zcoll_comm_create(MPI_COMM_WORLD, &cfg, &zc) != ZCOLL_SUCCESS) {
    std::fprintf(stderr, "zcoll_comm_create: %s\n", zcoll_last_error());
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  int threaded = 0;
  zcoll_comm_progress(zc, &threaded);
  sum.threaded = threaded != 0;

  // a smooth field with some noise, different on every rank
  const size_t n = o.count;
  std::vector<float> x(n), y(n), ref(n), z(n);
  for (size_t i = 0; i < n; ++i)
    x[i] = static_cast<float>(10 * std::sin(i * 1e-4 + rank) + 0.01 * std::sin(i * 0.37));

  // the reference result (blocking) and the kernel's size
  zcoll_allreduce(zc, x.data(), ref.data(), n, MPI_FLOAT, MPI_SUM);
  zcoll_comm_last_report(zc, &sum.rep);
  const long iters = size_kernel(zc, x, y, o.compute_ratio);

  Stats st;
  long wrong = 0;
  for (int r = 0; r < o.repeats; ++r) wrong += measure(zc, x, ref, iters, y, z, &st);
  const long outside = outside_bound(x, ref, sum.size, sum.rep.error_bound, &sum.max_err);
  long bad[2] = {wrong, outside}, bad_all[2] = {0, 0};
  MPI_Allreduce(bad, bad_all, 2, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
  sum.wrong_all = bad_all[0];
  sum.outside_all = bad_all[1];
  sum.ok = bad_all[0] == 0 && bad_all[1] == 0;
  sum.f =
      overlap_fraction(st.serial.median(), st.overlap.median(), st.comm.median(), st.comp.median());
  sum.f_mpi = overlap_fraction(st.mpi_alone.median() + st.comp.median(), st.mpi_nb.median(),
                               st.mpi_alone.median(), st.comp.median());
  if (rank == 0) {
    print_summary(o, st, sum);
    if (!o.json.empty()) write_json(o, st, sum);
  }
  zcoll_comm_free(zc);
  MPI_Finalize();
  return sum.ok ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return bench_main(argc, argv);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "zcoll-overlap-bench: %s\n", e.what());
    MPI_Abort(MPI_COMM_WORLD, 1);
    return 1;
  }
}
