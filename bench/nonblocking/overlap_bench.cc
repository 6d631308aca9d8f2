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

}  // namespace

int main(int argc, char** argv) {
  int provided = 0;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (i + 1 >= argc) {
      if (rank == 0) usage();
      MPI_Finalize();
      return 2;
    }
    const char* v = argv[++i];
    if (a == "--count")
      o.count = std::strtoull(v, nullptr, 10);
    else if (a == "--mode")
      o.mode = v;
    else if (a == "--abs")
      o.abs_eb = std::atof(v);
    else if (a == "--repeats")
      o.repeats = std::max(1, std::atoi(v));
    else if (a == "--compute-ratio")
      o.compute_ratio = std::atof(v);
    else if (a == "--threads")
      o.threads = std::atoi(v);
    else if (a == "--json")
      o.json = v;
    else {
      if (rank == 0) usage();
      MPI_Finalize();
      return 2;
    }
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

  // a smooth field with some noise, different on every rank
  const size_t n = o.count;
  std::vector<float> x(n), y(n), ref(n), z(n);
  for (size_t i = 0; i < n; ++i)
    x[i] = static_cast<float>(10 * std::sin(i * 1e-4 + rank) + 0.01 * std::sin(i * 0.37));

  // the reference result (blocking) and the kernel's size
  zcoll_allreduce(zc, x.data(), ref.data(), n, MPI_FLOAT, MPI_SUM);
  zcoll_report rep = ZCOLL_REPORT_INITIALIZER;
  zcoll_comm_last_report(zc, &rep);
  double t_comm0 = 0;
  for (int k = 0; k < 2; ++k) {
    MPI_Barrier(MPI_COMM_WORLD);
    const double t = now();
    zcoll_allreduce(zc, x.data(), y.data(), n, MPI_FLOAT, MPI_SUM);
    t_comm0 = max_over_ranks(now() - t);
  }
  long iters = 64;
  for (;;) {  // calibrate: passes per second of the kernel (rank 0's, for everyone)
    const double t = now();
    compute(iters);
    double dt = now() - t;
    MPI_Bcast(&dt, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    if (dt > 0.05) {
      iters = static_cast<long>(iters * (t_comm0 * o.compute_ratio) / dt);
      break;
    }
    iters *= 4;
  }
  iters = std::max(1L, iters);

  Stat comm, comp, serial, overlap, nb_only, mpi_nb, mpi_alone;
  long wrong = 0;
  auto check = [&](const std::vector<float>& got) {
    if (std::memcmp(got.data(), ref.data(), n * sizeof(float)) != 0) ++wrong;
  };
  for (int r = 0; r < o.repeats; ++r) {
    MPI_Barrier(MPI_COMM_WORLD);
    double t = now();
    zcoll_allreduce(zc, x.data(), y.data(), n, MPI_FLOAT, MPI_SUM);
    comm.v.push_back(max_over_ranks(now() - t));
    check(y);

    MPI_Barrier(MPI_COMM_WORLD);
    t = now();
    compute(iters);
    comp.v.push_back(max_over_ranks(now() - t));

    MPI_Barrier(MPI_COMM_WORLD);
    t = now();
    zcoll_allreduce(zc, x.data(), y.data(), n, MPI_FLOAT, MPI_SUM);
    compute(iters);
    serial.v.push_back(max_over_ranks(now() - t));

    MPI_Barrier(MPI_COMM_WORLD);
    std::fill(z.begin(), z.end(), 0.f);
    t = now();
    zcoll_request* q = nullptr;
    zcoll_iallreduce(zc, x.data(), z.data(), n, MPI_FLOAT, MPI_SUM, &q);
    compute(iters);
    const zcoll_status st = zcoll_wait(q, nullptr);
    overlap.v.push_back(max_over_ranks(now() - t));
    zcoll_request_free(q);
    if (st != ZCOLL_SUCCESS) ++wrong;
    check(z);

    MPI_Barrier(MPI_COMM_WORLD);
    t = now();
    zcoll_iallreduce(zc, x.data(), z.data(), n, MPI_FLOAT, MPI_SUM, &q);
    zcoll_wait(q, nullptr);
    nb_only.v.push_back(max_over_ranks(now() - t));
    zcoll_request_free(q);
    check(z);

    MPI_Barrier(MPI_COMM_WORLD);
    t = now();
    MPI_Allreduce(x.data(), z.data(), static_cast<int>(n), MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
    mpi_alone.v.push_back(max_over_ranks(now() - t));

    MPI_Barrier(MPI_COMM_WORLD);
    t = now();
    MPI_Request mr;
    MPI_Iallreduce(x.data(), z.data(), static_cast<int>(n), MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD,
                   &mr);
    compute(iters);
    MPI_Wait(&mr, MPI_STATUS_IGNORE);
    mpi_nb.v.push_back(max_over_ranks(now() - t));
  }
  // the result within the reported bound of the exact sum (double)
  // (plus the float rounding of the sum, (N+2) u sum|x|, as zcoll_mpi.h states)
  double max_err = 0;
  long outside = 0;
  {
    std::vector<double> xd(x.begin(), x.end()), exact(n), ax(n), absum(n);
    MPI_Allreduce(xd.data(), exact.data(), static_cast<int>(n), MPI_DOUBLE, MPI_SUM,
                  MPI_COMM_WORLD);
    for (size_t i = 0; i < n; ++i) ax[i] = std::fabs(xd[i]);
    MPI_Allreduce(ax.data(), absum.data(), static_cast<int>(n), MPI_DOUBLE, MPI_SUM,
                  MPI_COMM_WORLD);
    for (size_t i = 0; i < n; ++i) {
      const double e = std::fabs(ref[i] - exact[i]);
      max_err = std::max(max_err, e);
      if (!(e <= rep.error_bound + (size + 2) * 0x1p-24 * absum[i])) ++outside;
    }
  }
  long bad[2] = {wrong, outside}, bad_all[2] = {0, 0};
  MPI_Allreduce(bad, bad_all, 2, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
  const long wrong_all = bad_all[0];
  const bool ok = bad_all[0] == 0 && bad_all[1] == 0;

  auto frac = [](double serial_t, double overlap_t, double a, double b) {
    const double shorter = std::min(a, b);
    return shorter > 0 ? (serial_t - overlap_t) / shorter : 0;
  };
  const double f = frac(serial.median(), overlap.median(), comm.median(), comp.median());
  const double f_mpi =
      frac(mpi_alone.median() + comp.median(), mpi_nb.median(), mpi_alone.median(), comp.median());
  if (rank == 0) {
    std::printf(
        "zcoll-overlap-bench: %d ranks, %zu floats (%.0f MiB), mode %s abs %g, "
        "threads %d, progress %s, MPI thread level %s, %d repeats\n",
        size, n, n * 4.0 / 1048576, o.mode.c_str(), o.abs_eb, o.threads,
        threaded ? "thread" : "inline",
        provided == MPI_THREAD_MULTIPLE ? "MULTIPLE" : "below MULTIPLE", o.repeats);
    std::printf("report: mode %s algorithm %s, bound %.3g, sent %llu of %llu bytes\n",
                zcoll_mode_name(rep.mode), zcoll_algorithm_name(rep.algorithm), rep.error_bound,
                static_cast<unsigned long long>(rep.bytes_sent),
                static_cast<unsigned long long>(rep.bytes_uncompressed));
    std::printf("%-10s %10s %10s %10s   (seconds, slowest rank)\n", "", "median", "min", "max");
    const std::pair<const char*, const Stat*> rows[] = {
        {"comm", &comm},       {"compute", &comp},    {"serial", &serial},
        {"overlap", &overlap}, {"nb_only", &nb_only}, {"mpi_alone", &mpi_alone},
        {"mpi_nb", &mpi_nb}};
    for (const auto& r : rows)
      std::printf("%-10s %10.4f %10.4f %10.4f\n", r.first, r.second->median(), r.second->lo(),
                  r.second->hi());
    std::printf(
        "overlap fraction: zcoll %.2f (serial %.3f s -> %.3f s), MPI_Iallreduce without "
        "progress calls %.2f\n",
        f, serial.median(), overlap.median(), f_mpi);
    std::printf(
        "# %s: results bit-identical to the blocking call: %s; max |error| %.3g, bound "
        "%.3g (+ rounding), %ld values outside\n",
        ok ? "OK" : "FAILED", wrong_all ? "NO" : "yes", max_err, rep.error_bound, bad_all[1]);
    if (!o.json.empty()) {
      FILE* fj = std::fopen(o.json.c_str(), "w");
      if (fj) {
        std::fprintf(fj,
                     "{\n  \"ranks\": %d, \"count\": %zu, \"mode\": \"%s\", \"abs\": %g, "
                     "\"threads\": %d,\n  \"progress\": \"%s\", \"repeats\": %d, "
                     "\"compute_ratio\": %g,\n  \"ran\": {\"mode\": \"%s\", \"algorithm\": "
                     "\"%s\", \"error_bound\": %g, \"bytes_sent\": %llu, "
                     "\"bytes_uncompressed\": %llu},\n",
                     size, n, o.mode.c_str(), o.abs_eb, o.threads, threaded ? "thread" : "inline",
                     o.repeats, o.compute_ratio, zcoll_mode_name(rep.mode),
                     zcoll_algorithm_name(rep.algorithm), rep.error_bound,
                     static_cast<unsigned long long>(rep.bytes_sent),
                     static_cast<unsigned long long>(rep.bytes_uncompressed));
        for (const auto& r : rows) {
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
                     f, f_mpi, wrong_all ? "false" : "true", max_err, ok ? "true" : "false");
        std::fclose(fj);
      }
    }
  }
  zcoll_comm_free(zc);
  MPI_Finalize();
  return ok ? 0 : 1;
}
