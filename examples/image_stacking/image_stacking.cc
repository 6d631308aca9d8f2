// image_stacking.cc — stack noisy exposures of one image across MPI ranks, once
// with MPI_Allreduce (exact) and once with zcoll's compressed Allreduce, and
// compare the two stacks: time, compression ratio, PSNR / NRMSE, the largest
// error against the bound the library reports, and the PSNR predicted from the
// bound and the number of ranks.
//
// Written the way an application would use zcoll: only the public headers
// <zcoll.h> and <zcoll_mpi.h>. The exact stack is a plain MPI_Allreduce, so a
// PMPI interposer can intercept this same program.
//
//   mpirun -np 4 image_stacking --image data/hst-acs_j8bt06nyq-sci_1024x1024.f32
//          [--shape 1024x1024] [--crop RxC] [--exposures 6] [--sigma 5e-3] [--poisson PEAK]
//          [--tiles T] [--bounds 1e-4,1e-3,1e-2] [--modes hom,doc,auto]
//          [--repeats 5] [--seed 1] [--json out.json] [--dump DIR]
//          [--psnr-tolerance DB]
//
// The scene. The image (raw little-endian float32, rows x cols) is normalised to
// [0, 1] (clean = (x - min) / (max - min)) and repeated --tiles times along its
// rows, so a rank's message is tiles * 4 * rows * cols bytes. Each rank makes
// --exposures frames: clean + Gaussian noise of standard deviation sigma (in the
// normalised unit), each frame from its own random stream seeded by (seed, rank,
// exposure, tile); with --poisson PEAK the clean frame is first replaced by
// Poisson counts with PEAK expected counts at the brightest pixel (then divided
// by PEAK). A rank adds its frames up (exactly, in double, stored as float); the
// stack of all F = ranks x exposures frames is the Allreduce of these sums:
//   sum:  stack = sum over ranks of each rank's sum of its frames
//   mean: each rank sends its frames' mean, the collective averages over the
//         ranks (zcoll_comm_set_average; for MPI: divide by the rank count)
//
// Bounds. ABS error bounds on the normalised unit, one per compression
// (ZCOLL_BOUND_PER_COMPRESSION). The library reports in zcoll_report the bound
// that holds for the result (e.g. N * eb for a sum over N ranks with a
// homomorphic ring). The program checks every value against it and exits
// non-zero if any is broken.
//
// Predicted PSNR (docs/image_stacking.md has the derivation). The codec rounds
// each value to the nearest multiple of 2*eb. Where a rank's input varies by at
// least eb from pixel to pixel (its noise sigma_r >= eb, i.e. half a bin), the
// error of that rounding is close to uniform on [-eb, eb] (variance eb^2/3) and
// independent between ranks (independent noise). Each of the N ranks' inputs
// is rounded once; partial sums of rounded values lie on the grid already, so
// recompressing them (doc) adds nothing, whatever the worst-case error factor
// says. A mean whose division happens before a last compression (doc) adds one
// fresh rounding per such compression: x = (the report's error factor) - 1 for
// a mean (0 for hom, whose divisor is applied at decompression). So
//   sum:  RMS^2 = N eb^2/3          mean: RMS^2 = (N/N^2 + x) eb^2/3
//   PSNR_pred = 20 log10(range(exact stack) / RMS)  [dB],  NRMSE_pred = RMS / range
// with PSNR and NRMSE as in SZ and the papers' artifacts (range of the reference
// stack; NRMSE = RMSE / range; PSNR = -20 log10 NRMSE). Where sigma_r < eb the
// rounding error follows the image itself (every rank rounds the same smooth sky
// the same way), errors add coherently, and the prediction is optimistic; such
// rows are marked "coarse" instead of "dithered" and are not checked.
#include <mpi.h>
#include <zcoll.h>
#include <zcoll_mpi.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

namespace {

struct Options {
  std::string image = "data/hst-acs_j8bt06nyq-sci_1024x1024.f32";
  size_t rows = 0, cols = 0;            // 0: square, from the file size
  size_t crop_rows = 0, crop_cols = 0;  // 0: the whole image
  int exposures = 6;
  double sigma = 5e-3;
  double poisson_peak = 0;  // 0: Gaussian noise only
  int tiles = 1;
  std::vector<double> bounds = {1e-4, 1e-3, 1e-2};
  std::vector<std::string> modes = {"hom", "doc", "auto"};
  int repeats = 5;
  uint64_t seed = 1;
  std::string json;
  std::string dump;
  double psnr_tolerance = -1;  // < 0: report the prediction, do not enforce it
};

// The papers' image-stacking figures (../shared/papers; ABS 1E-4 unless noted).
struct PaperFigure {
  const char* system;
  const char* setting;
  double eb;
  double psnr;   // NaN: not given
  double nrmse;  // NaN: not given
  const char* speedup;
};
const double kNaN = std::numeric_limits<double>::quiet_NaN();
const PaperFigure kPapers[] = {
    {"C-Coll", "RTM, 16 Broadwell nodes, CPU", 1e-4, 79.57, 1e-4, "-"},
    {"C-Coll", "RTM, 16 Broadwell nodes, CPU", 1e-3, 57.97, 1e-3, "-"},
    {"C-Coll", "RTM, 16 Broadwell nodes, CPU", 1e-2, 42.86, 7e-3, "1.5x vs MPI"},
    {"hZCCL", "RTM, Broadwell nodes, CPU", 1e-4, 62.00, 8.0e-4,
     "1.81x (1 thread), 5.02x (multi-thread) vs MPI"},
    {"gZCCL", "A100 GPUs, ABS 2E-4", 2e-4, kNaN, kNaN,
     "4.15x (ring), 10.16x (rec. doubling) vs Cray MPI"},
    {"ghZCCL", "A100 GPUs", 1e-4, 73.60, 2.1e-4, "2.34x vs NCCL"},
};

[[noreturn]] void die(int rank, const char* fmt, const char* arg) {
  if (rank == 0) {
    std::fprintf(stderr, "image_stacking: ");
    std::fprintf(stderr, fmt, arg);
    std::fprintf(stderr, "\n");
  }
  MPI_Abort(MPI_COMM_WORLD, 2);
  std::exit(2);
}

std::vector<std::string> split(const std::string& s) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start <= s.size()) {
    size_t comma = s.find(',', start);
    if (comma == std::string::npos) comma = s.size();
    if (comma > start) out.push_back(s.substr(start, comma - start));
    start = comma + 1;
  }
  return out;
}

double to_double(int rank, const char* s) {
  char* end = nullptr;
  errno = 0;
  double v = std::strtod(s, &end);
  if (errno != 0 || end == s || *end != '\0' || !std::isfinite(v)) die(rank, "not a number: %s", s);
  return v;
}

Options parse(int argc, char** argv, int rank) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "-h" || a == "--help") {
      if (rank == 0)
        std::printf(
            "usage: mpirun -np N image_stacking [--image F32] [--shape RxC] [--crop RxC] "
            "[--exposures E]\n"
            "  [--sigma S] [--poisson PEAK] [--tiles T] [--bounds EB,...] [--modes hom,doc,auto]\n"
            "  [--repeats R] [--seed S] [--json FILE] [--dump DIR] [--psnr-tolerance DB]\n"
            "Stacks N*E noisy exposures of the image with MPI_Allreduce and with zcoll's\n"
            "Allreduce (as sum and as mean) and compares them; see the top of the source.\n");
      MPI_Finalize();
      std::exit(0);
    }
    if (i + 1 >= argc) die(rank, "option %s needs a value", a.c_str());
    const char* v = argv[++i];
    if (a == "--image") {
      o.image = v;
    } else if (a == "--shape") {
      if (std::sscanf(v, "%zux%zu", &o.rows, &o.cols) != 2 || o.rows == 0 || o.cols == 0)
        die(rank, "--shape wants ROWSxCOLS, got %s", v);
    } else if (a == "--crop") {
      if (std::sscanf(v, "%zux%zu", &o.crop_rows, &o.crop_cols) != 2 || o.crop_rows == 0 ||
          o.crop_cols == 0)
        die(rank, "--crop wants ROWSxCOLS, got %s", v);
    } else if (a == "--exposures") {
      o.exposures = static_cast<int>(to_double(rank, v));
    } else if (a == "--sigma") {
      o.sigma = to_double(rank, v);
    } else if (a == "--poisson") {
      o.poisson_peak = to_double(rank, v);
    } else if (a == "--tiles") {
      o.tiles = static_cast<int>(to_double(rank, v));
    } else if (a == "--bounds") {
      o.bounds.clear();
      for (const std::string& b : split(v)) o.bounds.push_back(to_double(rank, b.c_str()));
    } else if (a == "--modes") {
      o.modes = split(v);
    } else if (a == "--repeats") {
      o.repeats = static_cast<int>(to_double(rank, v));
    } else if (a == "--seed") {
      o.seed = static_cast<uint64_t>(to_double(rank, v));
    } else if (a == "--json") {
      o.json = v;
    } else if (a == "--dump") {
      o.dump = v;
    } else if (a == "--psnr-tolerance") {
      o.psnr_tolerance = to_double(rank, v);
    } else {
      die(rank, "unknown option %s (--help lists them)", a.c_str());
    }
  }
  if (o.exposures < 1 || o.tiles < 1 || o.repeats < 1 || o.sigma < 0 || o.poisson_peak < 0)
    die(rank, "%s", "--exposures, --tiles and --repeats must be >= 1, --sigma and --poisson >= 0");
  if (o.bounds.empty() || o.modes.empty())
    die(rank, "%s", "--bounds and --modes must not be empty");
  for (double b : o.bounds)
    if (!(b > 0)) die(rank, "%s", "every bound must be > 0");
  for (const std::string& m : o.modes) {
    zcoll_mode mode;
    if (zcoll_mode_from_name(m.c_str(), &mode) != ZCOLL_SUCCESS)
      die(rank, "unknown mode %s", m.c_str());
  }
  return o;
}

// Reads the raw float32 image; every rank reads the file (it is small).
std::vector<float> load_image(Options& o, int rank) {
  FILE* f = std::fopen(o.image.c_str(), "rb");
  if (!f) die(rank, "cannot open %s", o.image.c_str());
  std::fseek(f, 0, SEEK_END);
  long bytes = std::ftell(f);
  std::fseek(f, 0, SEEK_SET);
  if (bytes <= 0 || bytes % 4 != 0) die(rank, "%s is not a float32 file", o.image.c_str());
  size_t n = static_cast<size_t>(bytes) / 4;
  if (o.rows == 0) {
    size_t side = static_cast<size_t>(std::llround(std::sqrt(static_cast<double>(n))));
    if (side * side != n) die(rank, "%s is not square: give --shape ROWSxCOLS", o.image.c_str());
    o.rows = o.cols = side;
  }
  if (o.rows * o.cols != n) die(rank, "--shape does not match the size of %s", o.image.c_str());
  std::vector<float> img(n);
  if (std::fread(img.data(), 4, n, f) != n) die(rank, "short read from %s", o.image.c_str());
  std::fclose(f);
  if (o.crop_rows == 0) return img;
  // --crop: the centred ROWSxCOLS window
  if (o.crop_rows > o.rows || o.crop_cols > o.cols)
    die(rank, "%s", "--crop is larger than the image");
  size_t r0 = (o.rows - o.crop_rows) / 2, c0 = (o.cols - o.crop_cols) / 2;
  std::vector<float> crop(o.crop_rows * o.crop_cols);
  for (size_t r = 0; r < o.crop_rows; ++r)
    std::copy_n(img.begin() + static_cast<long>((r0 + r) * o.cols + c0), o.crop_cols,
                crop.begin() + static_cast<long>(r * o.crop_cols));
  o.rows = o.crop_rows;
  o.cols = o.crop_cols;
  return crop;
}

// Quality of `x` against the reference `ref` as in SZ and the papers' artifacts:
// range = max - min of the reference, NRMSE = RMSE / range, PSNR = -20 log10(NRMSE).
struct Quality {
  double psnr = 0, nrmse = 0, max_abs = 0, range = 0;
};
Quality compare(const float* ref, const float* x, size_t n) {
  double lo = ref[0], hi = ref[0], se = 0, mx = 0;
  for (size_t i = 0; i < n; ++i) {
    double r = ref[i], d = static_cast<double>(x[i]) - r;
    lo = std::min(lo, r);
    hi = std::max(hi, r);
    se += d * d;
    mx = std::max(mx, std::fabs(d));
  }
  Quality q;
  q.range = hi - lo;
  q.max_abs = mx;
  q.nrmse = std::sqrt(se / static_cast<double>(n)) / q.range;
  q.psnr = q.nrmse > 0 ? -20.0 * std::log10(q.nrmse) : std::numeric_limits<double>::infinity();
  return q;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  size_t k = v.size();
  return k % 2 ? v[k / 2] : 0.5 * (v[k / 2 - 1] + v[k / 2]);
}

// JSON number: null for inf/NaN (JSON has neither).
std::string num(double v) {
  if (!std::isfinite(v)) return "null";
  char b[32];
  std::snprintf(b, sizeof b, "%.9g", v);
  return b;
}

void write_f32(const std::string& path, const float* x, size_t n) {
  FILE* f = std::fopen(path.c_str(), "wb");
  if (!f || std::fwrite(x, 4, n, f) != n) {
    std::fprintf(stderr, "image_stacking: cannot write %s\n", path.c_str());
    std::exit(1);
  }
  std::fclose(f);
}

struct Row {
  std::string kind, mode_requested, mode_ran, algorithm, regime;
  double eb = 0, t_mpi = 0, t_mpi_min = 0, t_mpi_max = 0, t_zc = 0, t_zc_min = 0, t_zc_max = 0;
  std::vector<double> times_mpi, times_zc;
  double ratio = 0, error_bound = 0, error_factor = 0, extra_roundings = 0, max_err = 0, slack = 0;
  double psnr = 0, nrmse = 0, psnr_pred = 0, nrmse_pred = 0;
  double psnr_exact_clean = 0, psnr_zc_clean = 0, sigma_rank = 0;
  bool bound_ok = true, prediction_ok = true;
  std::string dump_file;
};

// The scene: the normalised clean image, tiled.
struct Scene {
  std::vector<float> clean;
  size_t npix = 0, n = 0;  // pixels of the image, values of a rank's message
  double img_min = 0, img_range = 0;
};

Scene make_scene(Options& o, int rank) {
  Scene sc;
  std::vector<float> img = load_image(o, rank);
  sc.npix = o.rows * o.cols;
  auto [mn, mx] = std::minmax_element(img.begin(), img.end());
  sc.img_min = *mn;
  sc.img_range = static_cast<double>(*mx) - *mn;
  if (!(sc.img_range > 0)) die(rank, "%s is constant", o.image.c_str());
  sc.n = sc.npix * static_cast<size_t>(o.tiles);
  if (sc.n > static_cast<size_t>(std::numeric_limits<int>::max()))
    die(rank, "%s", "too many values for MPI_Allreduce's int count");
  sc.clean.resize(sc.n);
  for (size_t t = 0; t < static_cast<size_t>(o.tiles); ++t)
    for (size_t i = 0; i < sc.npix; ++i)
      sc.clean[t * sc.npix + i] = static_cast<float>((img[i] - sc.img_min) / sc.img_range);
  return sc;
}

// This rank's exposures, added up (and rank 0's first frame, for --dump).
struct Exposures {
  std::vector<float> local_sum, local_mean, frame0;
};

// Exposure e's tile t: clean + noise, from its own random stream.
void expose(const Options& o, const Scene& sc, int rank, int e, size_t t,
            std::vector<float>& frame) {
  std::seed_seq seq{static_cast<uint32_t>(o.seed), static_cast<uint32_t>(o.seed >> 32),
                    static_cast<uint32_t>(rank), static_cast<uint32_t>(e),
                    static_cast<uint32_t>(t)};
  std::mt19937_64 rng(seq);
  std::normal_distribution<double> gauss(0.0, o.sigma);
  for (size_t i = t * sc.npix; i < (t + 1) * sc.npix; ++i) {
    double v = sc.clean[i];
    if (o.poisson_peak > 0) {
      std::poisson_distribution<long long> counts(std::max(v, 0.0) * o.poisson_peak);
      v = static_cast<double>(counts(rng)) / o.poisson_peak;
    }
    frame[i] = static_cast<float>(v + (o.sigma > 0 ? gauss(rng) : 0.0));
  }
}

Exposures make_exposures(const Options& o, const Scene& sc, int rank) {
  const size_t n = sc.n;
  Exposures ex;
  ex.local_sum.resize(n);
  ex.local_mean.resize(n);
  std::vector<double> acc(n, 0.0);
  std::vector<float> frame(n);
  for (int e = 0; e < o.exposures; ++e) {
    for (size_t t = 0; t < static_cast<size_t>(o.tiles); ++t) expose(o, sc, rank, e, t, frame);
    for (size_t i = 0; i < n; ++i) acc[i] += frame[i];
    if (e == 0 && rank == 0) ex.frame0.assign(frame.begin(), frame.begin() + sc.npix);
  }
  for (size_t i = 0; i < n; ++i) {
    ex.local_sum[i] = static_cast<float>(acc[i]);
    ex.local_mean[i] = static_cast<float>(acc[i] / o.exposures);
  }
  return ex;
}

void print_header(const Options& o, const Scene& sc, int nranks) {
  const int frames = nranks * o.exposures;
  std::printf("image_stacking: %s, %zux%zu, normalised to [0,1] (range %.9g in the file's unit)\n",
              o.image.c_str(), o.rows, o.cols, sc.img_range);
  std::printf(
      "  %d ranks x %d exposures = %d frames; noise: Gaussian sigma %.3g (= %.6g in the file's "
      "unit)%s\n",
      nranks, o.exposures, frames, o.sigma, o.sigma * sc.img_range,
      o.poisson_peak > 0 ? ", Poisson counts" : "");
  if (o.poisson_peak > 0)
    std::printf("  Poisson: %g expected counts at the brightest pixel\n", o.poisson_peak);
  std::printf(
      "  %d tile(s): %zu values, %.2f MiB per rank; seed %llu; %d timed repeats (median, max "
      "over ranks)\n",
      o.tiles, sc.n, sc.n * 4.0 / (1 << 20), static_cast<unsigned long long>(o.seed), o.repeats);
  std::printf(
      "  bounds: ABS per compression on the normalised unit; 'bound' = the library's reported "
      "result bound\n\n");
  std::printf(
      "  PSNR, NRMSE: zcoll stack vs exact stack; pred: predicted PSNR; clean: PSNR of the\n"
      "  exact (MPI) and zcoll stacks vs the clean image; auto>X: auto ran mode X\n\n");
  std::printf("%-4s %-7s %-9s %-6s %9s %9s %7s %6s %7s %9s %7s %7s %7s %9s %9s %6s %s\n", "kind",
              "eb", "mode", "algo", "t_mpi ms", "t_zc ms", "speedup", "ratio", "PSNR", "NRMSE",
              "pred", "cln:mpi", "cln:zc", "max err", "bound", "err/b", "regime");
}

// What every row of one kind (sum or mean) shares.
struct Stack {
  const Options& o;
  int rank, nranks;
  size_t n;
  zcoll_comm* zc;
  bool average;
  const std::vector<float>& input;      // this rank's sum or mean
  double scale;                         // 1, or 1 / nranks for the mean
  double rank_noise;                    // the per-rank input's noise (see the top)
  double slack;                         // the rounding slack of the bound check
  std::vector<float>& exact;            // MPI's stack
  std::vector<float>& stacked;          // zcoll's stack
  const std::vector<float>& clean_ref;  // the clean image at the stack's scale
};

void mpi_stack(const Stack& k) {
  MPI_Allreduce(k.input.data(), k.exact.data(), static_cast<int>(k.n), MPI_FLOAT, MPI_SUM,
                MPI_COMM_WORLD);
  if (k.average)
    for (float& v : k.exact) v = static_cast<float>(v * k.scale);
}

// A warm-up of both, then the repeats interleaved: MPI, zcoll, MPI, zcoll, ...
// (the slowest rank's times into r); the last zcoll call's report.
zcoll_report time_stacks(const Stack& k, Row* r) {
  for (int it = -1; it < k.o.repeats; ++it) {
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    mpi_stack(k);
    double t_mpi = MPI_Wtime() - t0;
    MPI_Barrier(MPI_COMM_WORLD);
    t0 = MPI_Wtime();
    zcoll_status s =
        zcoll_allreduce(k.zc, k.input.data(), k.stacked.data(), k.n, MPI_FLOAT, MPI_SUM);
    double t_zc = MPI_Wtime() - t0;
    if (s != ZCOLL_SUCCESS) {
      std::fprintf(stderr, "image_stacking: rank %d: zcoll_allreduce: %s: %s\n", k.rank,
                   zcoll_status_string(s), zcoll_last_error());
      MPI_Abort(MPI_COMM_WORLD, 1);
    }
    double t[2] = {t_mpi, t_zc}, tmax[2];
    MPI_Allreduce(t, tmax, 2, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    if (it >= 0) {
      r->times_mpi.push_back(tmax[0]);
      r->times_zc.push_back(tmax[1]);
    }
  }
  zcoll_report rep = ZCOLL_REPORT_INITIALIZER;
  zcoll_comm_last_report(k.zc, &rep);
  r->t_mpi = median(r->times_mpi);
  r->t_zc = median(r->times_zc);
  r->t_mpi_min = *std::min_element(r->times_mpi.begin(), r->times_mpi.end());
  r->t_mpi_max = *std::max_element(r->times_mpi.begin(), r->times_mpi.end());
  r->t_zc_min = *std::min_element(r->times_zc.begin(), r->times_zc.end());
  r->t_zc_max = *std::max_element(r->times_zc.begin(), r->times_zc.end());
  return rep;
}

// The stacks compared: the bound (every rank its own result), PSNR / NRMSE, and
// the prediction (N independent uniform roundings on [-eb, eb], plus x of the mean).
void judge_row(const Stack& k, const zcoll_report& rep, Row* r) {
  const size_t n = k.n;
  double my_err = 0;
  for (size_t i = 0; i < n; ++i)
    my_err = std::max(my_err, std::fabs(static_cast<double>(k.stacked[i]) - k.exact[i]));
  MPI_Allreduce(&my_err, &r->max_err, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  r->slack = k.slack;
  r->bound_ok = r->max_err <= r->error_bound + r->slack;
  Quality q = compare(k.exact.data(), k.stacked.data(), n);
  r->psnr = q.psnr;
  r->nrmse = q.nrmse;
  r->psnr_exact_clean = compare(k.clean_ref.data(), k.exact.data(), n).psnr;
  r->psnr_zc_clean = compare(k.clean_ref.data(), k.stacked.data(), n).psnr;
  if (rep.eb_per_compression > 0) {
    const double e = rep.eb_per_compression;
    r->extra_roundings = k.average ? std::max(0.0, std::round(rep.error_factor - 1.0)) : 0.0;
    double var = k.nranks * k.scale * k.scale * e * e / 3.0 + r->extra_roundings * e * e / 3.0;
    r->nrmse_pred = std::sqrt(var) / q.range;
    r->psnr_pred = -20.0 * std::log10(r->nrmse_pred);
    r->regime = k.rank_noise >= e ? "dithered" : "coarse";
  } else {
    r->nrmse_pred = 0;
    r->psnr_pred = std::numeric_limits<double>::infinity();
    r->regime = "exact";
  }
  if (k.o.psnr_tolerance >= 0 && r->regime == "dithered" &&
      std::fabs(r->psnr - r->psnr_pred) > k.o.psnr_tolerance)
    r->prediction_ok = false;
}

void print_row(const Row& r) {
  const std::string shown_mode =
      r.mode_requested == r.mode_ran ? r.mode_ran : r.mode_requested + ">" + r.mode_ran;
  std::printf(
      "%-4s %-7g %-9s %-6s %9.2f %9.2f %7.2f %6.2f %7.2f %9.2e %7.2f %7.2f %7.2f %9.3g "
      "%9.3g %6.3f %s%s\n",
      r.kind.c_str(), r.eb, shown_mode.c_str(),
      r.algorithm == "recursive_doubling" ? "rd" : r.algorithm.c_str(), r.t_mpi * 1e3, r.t_zc * 1e3,
      r.t_mpi / r.t_zc, r.ratio, r.psnr, r.nrmse, r.psnr_pred, r.psnr_exact_clean, r.psnr_zc_clean,
      r.max_err, r.error_bound, r.error_bound > 0 ? r.max_err / r.error_bound : 0.0,
      r.regime.c_str(),
      r.bound_ok ? (r.prediction_ok ? "" : "  PREDICTION MISSED") : "  BOUND BROKEN");
  std::fflush(stdout);
}

// One row: the stack of kind k at bound eb in mode mname.
Row stack_row(const Stack& k, double eb, const std::string& mname, size_t npix) {
  zcoll_mode mode = ZCOLL_MODE_AUTO;
  zcoll_mode_from_name(mname.c_str(), &mode);
  zcoll_comm_set_mode(k.zc, mode);
  zcoll_comm_set_error_bound(k.zc, ZCOLL_EB_ABS, eb);
  zcoll_comm_set_average(k.zc, k.average);
  Row r;
  r.kind = k.average ? "mean" : "sum";
  r.eb = eb;
  r.mode_requested = mname;
  r.sigma_rank = k.rank_noise;
  const zcoll_report rep = time_stacks(k, &r);
  r.mode_ran = zcoll_mode_name(rep.mode);
  r.algorithm = zcoll_algorithm_name(rep.algorithm);
  // compression ratio over all ranks: bytes the algorithm would send / sent
  double bytes[2] = {static_cast<double>(rep.bytes_uncompressed),
                     static_cast<double>(rep.bytes_sent)};
  double tot[2];
  MPI_Allreduce(bytes, tot, 2, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  r.ratio = tot[1] > 0 ? tot[0] / tot[1] : 1.0;
  r.error_bound = rep.error_bound;
  r.error_factor = rep.error_factor;
  judge_row(k, rep, &r);
  if (!k.o.dump.empty() && k.rank == 0 && k.average) {
    char name[128];
    std::snprintf(name, sizeof name, "zcoll_mean_%s_%g.f32", mname.c_str(), eb);
    r.dump_file = name;
    write_f32(k.o.dump + "/" + name, k.stacked.data(), npix);
  }
  if (k.rank == 0) print_row(r);
  return r;
}

void print_papers() {
  std::printf("\npapers' image-stacking figures (their data, their machines; not this run):\n");
  for (const PaperFigure& p : kPapers)
    std::printf("  %-7s ABS %-6g PSNR %-6s NRMSE %-7s speedup %s  (%s)\n", p.system, p.eb,
                std::isfinite(p.psnr) ? num(p.psnr).c_str() : "-",
                std::isfinite(p.nrmse) ? num(p.nrmse).c_str() : "-", p.speedup, p.setting);
}

std::string mpi_library() {
  char lib[MPI_MAX_LIBRARY_VERSION_STRING];
  int len = 0;
  MPI_Get_library_version(lib, &len);
  std::string libs(lib, static_cast<size_t>(len));
  libs = libs.substr(0, libs.find('\n'));
  for (char& c : libs)
    if (c == '"' || c == '\\' || static_cast<unsigned char>(c) < 0x20) c = ' ';
  return libs;
}

void write_json_settings(FILE* f, const Options& o, const Scene& sc, int nranks) {
  std::fprintf(f, "{\n  \"program\": \"image_stacking\",\n  \"zcoll_version\": \"%s\",\n",
               zcoll_version_string());
  std::fprintf(f, "  \"mpi_library\": \"%s\",\n", mpi_library().c_str());
  std::fprintf(f,
               "  \"image\": \"%s\", \"rows\": %zu, \"cols\": %zu, \"image_min\": %s, "
               "\"image_range\": %s,\n"
               "  \"tiles\": %d, \"values\": %zu, \"bytes_per_rank\": %zu,\n"
               "  \"ranks\": %d, \"exposures\": %d, \"frames\": %d,\n"
               "  \"sigma\": %s, \"sigma_file_unit\": %s, \"poisson_peak\": %s, \"seed\": "
               "%llu, \"repeats\": %d,\n"
               "  \"bound_semantics\": \"per_compression\", \"eb_mode\": \"abs\",\n",
               o.image.c_str(), o.rows, o.cols, num(sc.img_min).c_str(), num(sc.img_range).c_str(),
               o.tiles, sc.n, sc.n * 4, nranks, o.exposures, nranks * o.exposures,
               num(o.sigma).c_str(), num(o.sigma * sc.img_range).c_str(),
               num(o.poisson_peak).c_str(), static_cast<unsigned long long>(o.seed), o.repeats);
  std::fprintf(f, "  \"papers\": [\n");
  for (size_t i = 0; i < sizeof kPapers / sizeof kPapers[0]; ++i) {
    const PaperFigure& p = kPapers[i];
    std::fprintf(f,
                 "    {\"system\": \"%s\", \"setting\": \"%s\", \"eb\": %s, \"psnr\": %s, "
                 "\"nrmse\": %s, \"speedup\": \"%s\"}%s\n",
                 p.system, p.setting, num(p.eb).c_str(), num(p.psnr).c_str(), num(p.nrmse).c_str(),
                 p.speedup, i + 1 < sizeof kPapers / sizeof kPapers[0] ? "," : "");
  }
}

void write_json_row(FILE* f, const Row& r, bool last) {
  auto list = [](const std::vector<double>& v) {
    std::string s = "[";
    for (size_t k = 0; k < v.size(); ++k) s += (k ? ", " : "") + num(v[k]);
    return s + "]";
  };
  std::fprintf(
      f,
      "    {\"kind\": \"%s\", \"eb\": %s, \"mode\": \"%s\", \"mode_ran\": \"%s\", "
      "\"algorithm\": \"%s\",\n"
      "     \"t_mpi_s\": %s, \"t_zcoll_s\": %s, \"speedup\": %s, \"times_mpi_s\": %s, "
      "\"times_zcoll_s\": %s,\n"
      "     \"ratio\": %s, \"psnr\": %s, \"nrmse\": %s, \"psnr_predicted\": %s, "
      "\"nrmse_predicted\": %s,\n"
      "     \"regime\": \"%s\", \"psnr_exact_vs_clean\": %s, \"psnr_zcoll_vs_clean\": %s,\n"
      "     \"max_abs_error\": %s, \"error_bound\": %s, \"error_factor\": %s, "
      "\"extra_roundings\": %s,\n     \"rounding_slack\": %s, \"sigma_rank\": %s,\n"
      "     \"bound_ok\": %s, \"prediction_ok\": %s, \"dump\": \"%s\"}%s\n",
      r.kind.c_str(), num(r.eb).c_str(), r.mode_requested.c_str(), r.mode_ran.c_str(),
      r.algorithm.c_str(), num(r.t_mpi).c_str(), num(r.t_zc).c_str(), num(r.t_mpi / r.t_zc).c_str(),
      list(r.times_mpi).c_str(), list(r.times_zc).c_str(), num(r.ratio).c_str(),
      num(r.psnr).c_str(), num(r.nrmse).c_str(), num(r.psnr_pred).c_str(),
      num(r.nrmse_pred).c_str(), r.regime.c_str(), num(r.psnr_exact_clean).c_str(),
      num(r.psnr_zc_clean).c_str(), num(r.max_err).c_str(), num(r.error_bound).c_str(),
      num(r.error_factor).c_str(), num(r.extra_roundings).c_str(), num(r.slack).c_str(),
      num(r.sigma_rank).c_str(), r.bound_ok ? "true" : "false", r.prediction_ok ? "true" : "false",
      r.dump_file.c_str(), last ? "" : ",");
}

// false: the file cannot be written.
bool write_json(const Options& o, const Scene& sc, int nranks, const std::vector<Row>& rows,
                bool failed) {
  FILE* f = std::fopen(o.json.c_str(), "w");
  if (!f) {
    std::fprintf(stderr, "image_stacking: cannot write %s\n", o.json.c_str());
    return false;
  }
  write_json_settings(f, o, sc, nranks);
  std::fprintf(f, "  ],\n  \"results\": [\n");
  for (size_t i = 0; i < rows.size(); ++i) write_json_row(f, rows[i], i + 1 == rows.size());
  std::fprintf(f, "  ],\n  \"ok\": %s\n}\n", failed ? "false" : "true");
  std::fclose(f);
  return true;
}

// max over values of the sum over ranks of |x| (local_sum: this rank's x).
double abs_sum_max(const std::vector<float>& local_sum) {
  double abs_local = 0;
  for (float v : local_sum) abs_local = std::max(abs_local, static_cast<double>(std::fabs(v)));
  double m = 0;
  MPI_Allreduce(&abs_local, &m, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  return m;
}

zcoll_comm* make_comm() {
  zcoll_comm_config cfg = ZCOLL_COMM_CONFIG_INITIALIZER;
  cfg.eb_mode = ZCOLL_EB_ABS;
  cfg.bound = ZCOLL_BOUND_PER_COMPRESSION;
  zcoll_comm* zc = nullptr;
  if (zcoll_comm_create(MPI_COMM_WORLD, &cfg, &zc) != ZCOLL_SUCCESS) {
    std::fprintf(stderr, "image_stacking: zcoll_comm_create: %s\n", zcoll_last_error());
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  return zc;
}

// Every bound and mode of kind k; a row that fails is added to *failure.
void stack_rows(const Stack& k, size_t npix, std::vector<Row>* rows, std::string* failure) {
  for (double eb : k.o.bounds)
    for (const std::string& mname : k.o.modes) {
      const Row r = stack_row(k, eb, mname, npix);
      if (!r.bound_ok || !r.prediction_ok) {
        char b[200];
        std::snprintf(b, sizeof b, "%s %s eb %g: %s; ", r.kind.c_str(), mname.c_str(), eb,
                      !r.bound_ok ? "bound broken" : "PSNR off the prediction");
        *failure += b;
      }
      rows->push_back(r);
    }
}

void print_verdict(const Options& o, bool failed, const std::string& failure) {
  if (failed)
    std::printf("# FAILED: %s\n", failure.c_str());
  else
    std::printf("# OK: every value within its reported bound%s\n",
                o.psnr_tolerance >= 0 ? "; PSNR within the tolerance of the prediction" : "");
  std::fflush(stdout);
}

int stacking_main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, nranks = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &nranks);
  Options o = parse(argc, argv, rank);
  const Scene sc = make_scene(o, rank);
  const size_t n = sc.n, npix = sc.npix;
  const Exposures ex = make_exposures(o, sc, rank);
  // Rounding slack of float summation for the bound check (docs/algorithms.md:
  // the bound is that of exact arithmetic; each of the two float reductions
  // rounds at most (N+1)*u*sum|x_i|): 2(N+1)u * max_i sum over ranks |x_i|.
  const double slack_sum = 2.0 * (nranks + 1) * std::ldexp(1.0, -24) * abs_sum_max(ex.local_sum);
  zcoll_comm* zc = make_comm();
  std::vector<float> exact(n), stacked(n);
  std::vector<Row> rows;
  std::string failure;
  if (rank == 0) print_header(o, sc, nranks);
  for (int average = 0; average <= 1; ++average) {
    const double scale = average ? 1.0 / nranks : 1.0;
    // the clean image at the stack's scale (E[sum stack] = frames * clean)
    std::vector<float> clean_ref(n);
    for (size_t i = 0; i < n; ++i)
      clean_ref[i] = static_cast<float>(sc.clean[i] * (average ? 1.0 : nranks * o.exposures));
    const double noise = average ? o.sigma / std::sqrt(o.exposures)
                                 : o.sigma * std::sqrt(o.exposures);
    const std::vector<float>& input = average ? ex.local_mean : ex.local_sum;
    const Stack k{
        o,     rank,    nranks,   n, zc, average != 0, input, scale, noise, slack_sum * scale,
        exact, stacked, clean_ref};
    stack_rows(k, npix, &rows, &failure);
    if (!o.dump.empty() && rank == 0 && average) {
      write_f32(o.dump + "/exact_mean.f32", exact.data(), npix);
      write_f32(o.dump + "/clean.f32", sc.clean.data(), npix);
      write_f32(o.dump + "/frame0.f32", ex.frame0.data(), npix);
    }
  }
  zcoll_comm_free(zc);
  bool failed = !failure.empty();
  if (rank == 0) print_papers();
  if (rank == 0 && !o.json.empty() && !write_json(o, sc, nranks, rows, failed)) failed = true;
  if (rank == 0) print_verdict(o, failed, failure);
  MPI_Finalize();
  return failed ? 1 : 0;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return stacking_main(argc, argv);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "image_stacking: %s\n", e.what());
    MPI_Abort(MPI_COMM_WORLD, 1);
    return 1;
  }
}
