// zcoll_bench.cc — zcoll-bench: benchmark and validate the compressed MPI
// collectives, in the style of nccl-tests / OSU.
//
//   mpirun -np 4 zcoll-bench allreduce -b 1M -e 256M -f 2 --data FILE|synthetic
//          --rel 1e-4 --modes mpi,raw,cpr_p2p,doc,hom --threads 1,2 [--json F] [--breakdown]
//
// One row per size, thread count and mode: time in microseconds (min / avg / max
// over all ranks and timed iterations), algorithm and bus bandwidth (on the
// uncompressed bytes, as nccl-tests defines them), speedup over `mpi` from the
// same run, compression ratio (uncompressed / sent bytes over all ranks), the
// maximum error and PSNR against the exact result (double precision), the bound
// the library reported, and pass/fail: within that bound (plus the rounding of
// the op in the datatype) and, for allreduce, identical on all ranks. The exit
// status is non-zero if any row fails. --breakdown adds the time split
// (compression, MPI, reduction, other) as in C-Coll's Figure 2.
//
// Mode `auto` lets the library choose per call; its row shows what ran
// ("auto" in the mode column, the chosen mode/algorithm in the algo column).
// Every row also shows the cost model's prediction (t_model): the library's
// own for `auto`, zcoll_predict_codec() with the handle's calibrated model, the
// codec that ran and its measured compression ratio of one input for the
// other modes.
//
// Sizes are bytes of the collective's buffer: the vector of allreduce / bcast /
// reduce, the input of reduce_scatter, the output of allgather / gather, the
// input of scatter. Data larger than the file is tiled; every rank reads a
// different slice (rank r starts r/N of the way into the file), so reductions
// do not combine identical inputs.
//
// --repeats R runs the whole size x thread x mode grid R times, the order of
// the modes rotated by one in each repeat (--shuffle SEED: a seeded shuffle
// instead), so that slow drifts of a shared machine fall on every mode alike;
// the warm-up iterations run in the first repeat only.
// Each repeat gives one time per row: the collective's time of an iteration is
// the maximum over ranks (the last rank to finish), averaged over --iters. The
// table shows the median of those times and their range (min-max over the
// repeats); the JSON keeps every repeat's time ("time_coll_us") and the
// speedup over MPI of the same repeat ("speedup_repeats"), each with median,
// min and max. t_min/t_avg/t_max and speedup_vs_mpi keep their meaning (per
// rank, over all iterations of all repeats).
#include <mpi.h>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <limits>
#include <map>
#include <numeric>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "../common/coll_driver.h"
#include "../common/split.h"
#include "core/units.h"
#include "coll/control/collective.h"
#include "coll/control/comm.h"
#include "zcoll_mpi.h"
#include "zcoll_tuner.h"

namespace {

int g_rank = 0, g_size = 1;

// Sizes follow core/units.h ("64K", "1M" binary; "1MB" = 10^6).
bool parse_size(const std::string& t, size_t* out) {
  uint64_t v = 0;
  if (!zcoll::units::parse_size(t.c_str(), &v)) return false;
  *out = static_cast<size_t>(v);
  return true;
}

std::string human(size_t b) {
  char buf[24];
  return zcoll::units::format_size(b, buf, sizeof buf);
}

using zcoll::tools::Bufs;
using zcoll::tools::driver_coll;
using zcoll::tools::DriverColl;
using zcoll::tools::has_output;
using zcoll::tools::source_of;
using zcoll::tools::split;

using Coll = zcoll_collective;  // the collective traits table (coll/control/collective.h)

bool is_reduction(Coll c) { return zcoll::coll::traits(c).reduction; }

// The source values (the file, or a smooth synthetic field), as doubles.
struct Source {
  std::vector<double> v;
  std::string name;
};

Source load_source(const std::string& data, size_t min_values) {
  Source s;
  if (data.empty() || data == "synthetic") {
    s.name = "synthetic";
    const size_t n = std::max<size_t>(min_values, 1 << 16);
    s.v.resize(n);
    for (size_t i = 0; i < n; ++i) {
      double x = i * 1e-4;
      s.v[i] = 10 * std::sin(x) + 3 * std::cos(7.3 * x) + 0.5 * std::sin(131.0 * x) +
               0.01 * std::sin(1e3 * x);
    }
    return s;
  }
  std::ifstream f(data, std::ios::binary);
  if (!f) throw std::runtime_error("cannot open " + data);
  std::vector<char> bytes((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  const bool f64 = data.size() > 4 && (data.substr(data.size() - 4) == ".f64" ||
                                       data.substr(data.size() - 4) == ".d64");
  const size_t vs = f64 ? 8 : 4;
  const size_t n = bytes.size() / vs;
  if (n == 0) throw std::runtime_error(data + " holds no values");
  s.v.resize(n);
  for (size_t i = 0; i < n; ++i) {
    if (f64) {
      double d;
      std::memcpy(&d, bytes.data() + i * 8, 8);
      s.v[i] = d;
    } else {
      float x;
      std::memcpy(&x, bytes.data() + i * 4, 4);
      s.v[i] = x;
    }
  }
  s.name = data.substr(data.find_last_of('/') + 1);
  return s;
}

// Rank p's i-th input value: the source tiled, starting p/N of the way in.
inline double input_value(const Source& s, int p, int N, size_t i, bool prod) {
  const size_t n = s.v.size();
  double x = s.v[(i + static_cast<size_t>(p) * (n / N) + static_cast<size_t>(p) * 7919) % n];
  if (prod) return 1.0 + 1e-3 * std::tanh(x);  // products stay near 1
  return x;
}

struct Options {
  std::string coll = "allreduce";
  std::string begin = "1M", end = "16M";
  double factor = 2;
  std::string data = "synthetic";
  double rel = 1e-4, abs_eb = 0;
  std::string bound = "per_compression";
  std::string modes = "mpi,raw,cpr_p2p,doc,hom";
  std::string threads = "1";
  std::string algo = "auto";
  std::string codec = "fast";
  std::string dtype = "float";
  std::string op = "sum";
  bool average = false;
  int warmup = 2, iters = 5;
  int root = 0;
  std::string json;
  bool breakdown = false;
  std::string min_bytes = "0";
  bool list_env = false;
  int repeats = 1;
  long shuffle = -1;           // < 0: rotate the mode order per repeat
  std::vector<uint64_t> dims;  // --dims: the data's shape (zcoll_comm_set_shape)
};

struct Row {
  size_t bytes = 0, count = 0;
  int threads = 1;
  std::string mode, algo, reason, ran_mode;
  std::string codec = "none";              // the codec that ran (fast, dense; none: uncompressed)
  double t_model = 0, ratio_in = 0;        // model prediction (us), one input's ratio
  double t_min = 0, t_avg = 0, t_max = 0;  // microseconds
  double algbw = 0, busbw = 0, speedup = 0, ratio = 0;
  double max_err = 0, psnr = 0, bound = 0, eb = 0;
  double t_comp = 0, t_mpi = 0, t_red = 0, t_other = 0;    // avg microseconds
  double t_range = 0, t_first_send = 0, t_after_recv = 0;  // timeline, avg microseconds
  bool identical = true, pass = true;
  std::string status;
  double t_coll = 0;                 // this repeat: mean over iterations of the max over ranks
  std::vector<double> coll_reps;     // t_coll of every repeat
  std::vector<double> speedup_reps;  // MPI's t_coll / this row's, per repeat
};

double median_of(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}
double min_of(const std::vector<double>& v) {
  return v.empty() ? 0 : *std::min_element(v.begin(), v.end());
}
double max_of(const std::vector<double>& v) {
  return v.empty() ? 0 : *std::max_element(v.begin(), v.end());
}

template <typename T>
MPI_Datatype mpi_type() {
  return sizeof(T) == 4 ? MPI_FLOAT : MPI_DOUBLE;
}

double apply(MPI_Op op, double a, double b) {
  if (op == MPI_SUM) return a + b;
  if (op == MPI_PROD) return a * b;
  if (std::isnan(a) || std::isnan(b)) return std::nan("");
  if (op == MPI_MAX) return a > b ? a : b;
  return a < b ? a : b;
}

// One row's settings.
struct RowSpec {
  const Options& o;
  Coll coll;
  zcoll_comm* zc;
  zcoll_mode mode;
  size_t bytes;
  int threads;
  const Source& src;
  MPI_Op op;
  int warmup;
};

// --dims (the data file's shape, slowest first): a block of `count` values made of
// whole slices along the slowest dim gets the shape {count / slice, the other
// dims} (the data is tiled from the file's start, so the root's Bcast buffer is
// whole slices); any other count, or no --dims, none.
void set_block_shape(zcoll_comm* zc, const std::vector<uint64_t>& dims, size_t count) {
  std::vector<uint64_t> shape;
  if (dims.size() > 1) {
    uint64_t slice = 1;
    for (size_t d = 1; d < dims.size(); ++d) slice *= dims[d];
    if (count % slice == 0) {
      shape.push_back(count / slice);
      shape.insert(shape.end(), dims.begin() + 1, dims.end());
    }
  }
  zcoll_comm_set_shape(zc, static_cast<uint32_t>(shape.size()), shape.data());
}

// One row's buffers, their shapes from the collective traits table
// (collective.h): the per-rank block, this rank's input and output values.
template <typename T>
struct RowData {
  const RowSpec& s;
  const DriverColl& dc;
  const int N = g_size, r = g_rank;
  zcoll::coll::Call shape;
  size_t n_in = 0, n_out = 0;
  std::vector<T> in, out;

  explicit RowData(const RowSpec& spec) : s(spec), dc(driver_coll(spec.coll)) {
    shape.coll = s.coll;
    shape.block = true;
    shape.root = s.o.root % N;
    shape.count = s.bytes / sizeof(T) / (dc.traits().per_rank_count ? N : 1);
    n_in = zcoll::coll::input_values(shape, N, r);
    n_out = zcoll::coll::output_values(shape, N, r);
    in.resize(n_in);
    out.resize(n_out + 1);
    const int from = dc.traits().root_contributes_only ? shape.root : r;  // Bcast, Scatter
    for (size_t i = 0; i < n_in; ++i) in[i] = value_of(from, i);
  }
  T value_of(int p, size_t i) const {
    return static_cast<T>(input_value(s.src, p, N, i, s.op == MPI_PROD));
  }
  zcoll_status call() {
    // one buffer (Bcast): the root's input is copied in, inside the timed call
    if (dc.traits().in_place == zcoll::coll::InPlace::kNone && r == shape.root)
      std::copy(in.begin(), in.end(), out.begin());
    Bufs b;
    b.sendbuf = in.data();
    b.recvbuf = out.data();
    b.count = shape.count;
    b.datatype = mpi_type<T>();
    b.op = s.op;
    b.root = shape.root;
    return dc.call(s.zc, b, nullptr);
  }
};

// The timed iterations of a row (after the warm-up): each one's time on this
// rank, and the sums of its reports.
struct Timing {
  std::vector<double> times;
  double comp = 0, mpi = 0, red = 0, tot = 0, range = 0, first = 0, after = 0;
  uint64_t sent = 0, logical = 0;
  zcoll_report rep = ZCOLL_REPORT_INITIALIZER;
  zcoll_status st = ZCOLL_SUCCESS;
  void add(const zcoll_report& r) {
    comp += r.time_compress;
    mpi += r.time_comm;
    red += r.time_reduce;
    tot += r.time_total;
    range += r.time_range;
    first += r.time_first_send;
    after += r.time_after_recv;
    sent += r.bytes_sent;
    logical += r.bytes_uncompressed;
  }
};

template <typename T>
Timing time_row(RowData<T>& d) {
  Timing tm;
  for (int w = 0; w < d.s.warmup && tm.st == ZCOLL_SUCCESS; ++w) {
    MPI_Barrier(MPI_COMM_WORLD);
    tm.st = d.call();
  }
  tm.rep.struct_size = sizeof tm.rep;
  for (int it = 0; it < d.s.o.iters && tm.st == ZCOLL_SUCCESS; ++it) {
    MPI_Barrier(MPI_COMM_WORLD);
    const double t0 = MPI_Wtime();
    tm.st = d.call();
    tm.times.push_back((MPI_Wtime() - t0) * 1e6);
    zcoll_comm_last_report(d.s.zc, &tm.rep);
    tm.add(tm.rep);
  }
  return tm;
}

// The row's times across ranks and iterations, bandwidths, breakdown, ratio.
void fill_times(Row& row, const RowSpec& s, const Timing& tm) {
  const int N = g_size;
  const std::vector<double>& times = tm.times;
  double lmin = *std::min_element(times.begin(), times.end());
  double lmax = *std::max_element(times.begin(), times.end());
  double lsum = 0;
  for (double t : times) lsum += t;
  MPI_Allreduce(&lmin, &row.t_min, 1, MPI_DOUBLE, MPI_MIN, MPI_COMM_WORLD);
  MPI_Allreduce(&lmax, &row.t_max, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  MPI_Allreduce(&lsum, &row.t_avg, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  {  // the collective's time per iteration: the last rank to finish
    std::vector<double> tmax(times.size());
    MPI_Allreduce(times.data(), tmax.data(), static_cast<int>(times.size()), MPI_DOUBLE, MPI_MAX,
                  MPI_COMM_WORLD);
    row.t_coll = std::accumulate(tmax.begin(), tmax.end(), 0.0) / static_cast<double>(tmax.size());
  }
  row.t_avg /= static_cast<double>(times.size()) * N;
  row.algbw = s.bytes / (row.t_avg * 1e-6) / 1e9;
  row.busbw = row.algbw * driver_coll(s.coll).bus_factor(N);
  double sums[9] = {tm.comp,
                    tm.mpi,
                    tm.red,
                    tm.tot,
                    static_cast<double>(tm.sent),
                    static_cast<double>(tm.logical),
                    tm.range,
                    tm.first,
                    tm.after};
  MPI_Allreduce(MPI_IN_PLACE, sums, 9, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  const double k = 1e6 / (static_cast<double>(s.o.iters) * N);
  row.t_comp = sums[0] * k;
  row.t_mpi = sums[1] * k;
  row.t_red = sums[2] * k;
  row.t_other = std::max(0.0, sums[3] * k - row.t_comp - row.t_mpi - row.t_red);
  row.t_range = sums[6] * k;
  row.t_first_send = sums[7] * k;
  row.t_after_recv = sums[8] * k;
  row.ratio = sums[4] > 0 ? sums[5] / sums[4] : 1.0;
}

// The errors of one rank's output against the exact result.
struct ErrStats {
  double maxerr = 0, sq = 0, lo = std::numeric_limits<double>::infinity(), hi = -lo;
  long bad = 0, nvals = 0;
  void check(double y, double ref, double tol) {
    if (std::isnan(ref)) {
      bad += !std::isnan(y);
      return;
    }
    if (std::isinf(ref)) {
      bad += y != ref;
      return;
    }
    double e = std::fabs(y - ref);
    maxerr = std::max(maxerr, e);
    sq += e * e;
    lo = std::min(lo, ref);
    hi = std::max(hi, ref);
    ++nvals;
    if (!(e <= tol)) ++bad;
  }
};

// Output value j's check: the exact result in double from every rank's input
// (the traits table says where it comes from), within the reported bound plus
// the rounding of the op in T.
template <typename T>
void check_value(const RowData<T>& d, const zcoll_report& rep, size_t j, ErrStats* es) {
  const double u = std::numeric_limits<T>::epsilon() / 2;
  const MPI_Op op = d.s.op;
  int p = 0;
  const size_t src = source_of(d.shape, d.r, j, &p);
  if (p >= 0) {  // data movement: rank p's value
    const double ref = static_cast<double>(d.value_of(p, src));
    es->check(d.out[j], ref, rep.error_bound * (1 + 1e-9) + u * std::fabs(ref));
    return;
  }
  double ref = static_cast<double>(d.value_of(0, src)), sabs = std::fabs(ref);
  for (int q = 1; q < d.N; ++q) {
    double x = static_cast<double>(d.value_of(q, src));
    ref = apply(op, ref, x);
    sabs += std::fabs(x);
  }
  if (d.s.o.average && op == MPI_SUM) {
    ref /= d.N;
    sabs /= d.N;
  }
  double tol = rep.error_bound * (1 + 1e-9);
  if (op == MPI_SUM)
    tol += (d.N + 3) * u * (sabs + d.N * rep.eb_per_compression + std::fabs(ref));
  else if (op == MPI_PROD)
    tol += (d.N + 3) * u * (std::fabs(ref) + rep.error_bound);
  else
    tol += 2 * u * std::fabs(ref);
  es->check(d.out[j], ref, tol);
}

// Max error, PSNR and pass over all ranks; the identical-bits check where the
// collective's output is the same on every rank.
template <typename T>
void validate(Row& row, const RowData<T>& d, const zcoll_report& rep) {
  ErrStats es;
  if (has_output(d.shape, d.N, d.r))
    for (size_t j = 0; j < d.n_out; ++j) check_value(d, rep, j, &es);
  double agg[4] = {es.maxerr, es.hi, -es.lo, 0};
  MPI_Allreduce(MPI_IN_PLACE, agg, 3, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  double sums2[3] = {es.sq, static_cast<double>(es.nvals), static_cast<double>(es.bad)};
  MPI_Allreduce(MPI_IN_PLACE, sums2, 3, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  row.max_err = agg[0];
  const double range = agg[1] + agg[2];
  const double rmse = sums2[1] > 0 ? std::sqrt(sums2[0] / sums2[1]) : 0;
  row.psnr = rmse > 0 ? 20 * std::log10(range / rmse) : std::numeric_limits<double>::infinity();
  row.pass = sums2[2] == 0;
  if (d.dc.identical_on_all_ranks) {
    uint64_t h = 1469598103934665603ULL;
    const auto* b = reinterpret_cast<const unsigned char*>(d.out.data());
    for (size_t i = 0; i < d.n_out * sizeof(T); ++i) h = (h ^ b[i]) * 1099511628211ULL;
    uint64_t hmin = h, hmax = h;
    MPI_Allreduce(MPI_IN_PLACE, &hmin, 1, MPI_UINT64_T, MPI_MIN, MPI_COMM_WORLD);
    MPI_Allreduce(MPI_IN_PLACE, &hmax, 1, MPI_UINT64_T, MPI_MAX, MPI_COMM_WORLD);
    row.identical = hmin == hmax;
    row.pass = row.pass && row.identical;
  }
  row.status = row.pass ? "pass" : (row.identical ? "FAIL (bound)" : "FAIL (ranks differ)");
}

// The cost model's prediction. One input's compression ratio at the bound the
// call used (the smallest over ranks), measured with the real compressor and
// the codec the call ran.
template <typename T>
void predict(Row& row, const RowData<T>& d, const zcoll_report& rep) {
  const zcoll_dtype zt = sizeof(T) == 4 ? ZCOLL_FLOAT32 : ZCOLL_FLOAT64;
  const bool holds_input = !d.dc.traits().root_contributes_only || d.r == d.shape.root;
  double ratio_in = 0;
  if (rep.eb_per_compression > 0 && d.n_in > 0 && holds_input) {
    zcoll_params p = {};
    p.struct_size = sizeof p;
    p.eb_mode = ZCOLL_EB_ABS;
    p.error_bound = rep.eb_per_compression;
    p.codec = rep.codec;
    std::vector<uint8_t> buf(zcoll_compress_bound(d.n_in, zt));
    size_t sz = 0;
    if (zcoll_compress(&p, zt, d.in.data(), d.n_in, buf.data(), buf.size(), &sz, d.s.threads) ==
            ZCOLL_SUCCESS &&
        sz > 0)
      ratio_in = static_cast<double>(d.n_in * sizeof(T)) / static_cast<double>(sz);
  }
  double rmin = ratio_in > 0 ? ratio_in : 1e300;
  MPI_Allreduce(MPI_IN_PLACE, &rmin, 1, MPI_DOUBLE, MPI_MIN, MPI_COMM_WORLD);
  row.ratio_in = rmin < 1e300 ? rmin : 0;
  if (d.s.mode == ZCOLL_MODE_AUTO) {
    row.t_model = rep.time_predicted * 1e6;
    return;
  }
  zcoll_model model = ZCOLL_MODEL_INITIALIZER;
  model.struct_size = sizeof model;
  double secs = 0;
  if (zcoll_comm_get_model(d.s.zc, &model) == ZCOLL_SUCCESS &&
      zcoll_predict_codec(&model, rep.collective, rep.mode, rep.algorithm, d.N, d.shape.count, zt,
                          rep.codec, row.ratio_in, row.ratio_in, &secs, nullptr, nullptr,
                          nullptr) == ZCOLL_SUCCESS)
    row.t_model = secs * 1e6;
}

// Run one (size, threads, mode) row.
template <typename T>
Row run_row(const RowSpec& s) {
  Row row;
  row.bytes = s.bytes;
  row.threads = s.threads;
  row.mode = zcoll_mode_name(s.mode);
  RowData<T> d(s);
  row.count = d.shape.count;
  zcoll_comm_set_mode(s.zc, s.mode);
  zcoll_comm_set_average(s.zc, s.o.average);
  set_block_shape(s.zc, s.o.dims, d.shape.count);
  const Timing tm = time_row(d);
  int ok_local = tm.st == ZCOLL_SUCCESS, ok_all = 0;
  MPI_Allreduce(&ok_local, &ok_all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  if (!ok_all) {
    row.pass = false;
    row.status = std::string("error: ") + (tm.st ? zcoll_last_error() : "on another rank");
    return row;
  }
  const zcoll_report& rep = tm.rep;
  row.algo = zcoll_algorithm_name(rep.algorithm);
  row.ran_mode = zcoll_mode_name(rep.mode);
  const bool compressed = rep.mode != ZCOLL_MODE_MPI && rep.mode != ZCOLL_MODE_RAW;
  if (compressed) row.codec = rep.codec == ZCOLL_CODEC_DENSE ? "dense" : "fast";
  if (s.mode == ZCOLL_MODE_AUTO)
    row.algo = rep.mode == ZCOLL_MODE_MPI ? "mpi" : row.ran_mode + "/" + row.algo;
  if (rep.codec == ZCOLL_CODEC_DENSE && compressed) row.algo += "/dense";
  row.reason = rep.reason;
  row.bound = rep.error_bound;
  row.eb = rep.eb_per_compression;
  fill_times(row, s, tm);
  validate(row, d, rep);
  predict(row, d, rep);
  return row;
}

int finish(int rc) {
  MPI_Finalize();
  return rc;
}

// The command line into o; -1: go on, else the exit status.
int parse_options(int argc, char** argv, Options& o) {
  CLI::App app{"zcoll-bench: benchmark and validate zcoll's compressed MPI collectives"};
  std::vector<std::string> names;
  for (int c = 1; c <= zcoll::coll::kCollectives; ++c)
    names.emplace_back(zcoll::coll::traits(static_cast<Coll>(c)).name);
  app.add_option("collective", o.coll,
                 "allreduce | reduce_scatter | allgather | bcast | scatter | reduce | gather")
      ->check(CLI::IsMember(names));
  app.add_option("-b,--begin", o.begin, "smallest buffer size in bytes (1M, 64K)");
  app.add_option("-e,--end", o.end, "largest buffer size in bytes");
  app.add_option("-f,--factor", o.factor, "size multiplication factor")
      ->check(CLI::Range(1.01, 1e6));
  app.add_option("--data", o.data, "raw .f32 (or .f64) file, or 'synthetic'");
  app.add_option("--rel", o.rel, "relative error bound (x value range of all inputs)");
  app.add_option("--abs", o.abs_eb, "absolute error bound (overrides --rel)");
  app.add_option("--bound", o.bound, "per_compression | result")
      ->check(CLI::IsMember({"per_compression", "result"}));
  app.add_option("--modes", o.modes, "comma list of mpi,raw,cpr_p2p,doc,hom,auto");
  app.add_option("--threads", o.threads, "comma list of OpenMP threads per rank");
  app.add_option("--algo", o.algo,
                 "the collective's algorithm: auto, or one of its algorithms in the library's "
                 "table (allreduce: ring, rd; bcast: chain, binomial; ...)");
  app.add_option("--codec", o.codec,
                 "codec of the compressed messages: fast | dense | auto (the cost model picks "
                 "per call; ZCOLL_CODEC overrides)")
      ->check(CLI::IsMember({"fast", "dense", "auto"}));
  app.add_option("--dtype", o.dtype, "float | double")->check(CLI::IsMember({"float", "double"}));
  app.add_option("--dims", o.dims,
                 "the data's shape, slowest dim first (721 1440): blocks of whole slices along "
                 "the first dim are given it (zcoll_comm_set_shape; the dense codec predicts along "
                 "it)")
      ->expected(1, 8);
  app.add_option("--op", o.op, "sum | max | min | prod")
      ->check(CLI::IsMember({"sum", "max", "min", "prod"}));
  app.add_flag("--avg", o.average, "average (sum divided by the number of ranks)");
  app.add_option("-w,--warmup", o.warmup, "warm-up iterations per row (in the first repeat)")
      ->check(CLI::NonNegativeNumber);
  app.add_option("-n,--iters", o.iters, "timed iterations")->check(CLI::PositiveNumber);
  app.add_option("--root", o.root, "root of bcast/scatter/reduce/gather");
  app.add_option("--min-bytes", o.min_bytes, "messages below go to MPI (default 0: never)");
  app.add_option("--json", o.json, "write the rows as JSON to this file");
  app.add_flag("--breakdown", o.breakdown, "time split: compression / MPI / reduction / other");
  app.add_option("--repeats", o.repeats,
                 "run the whole size x mode grid this many times, modes interleaved; median and "
                 "range per row")
      ->check(CLI::PositiveNumber);
  app.add_option("--shuffle", o.shuffle,
                 "with --repeats: shuffle the mode order of each repeat from this seed (default: "
                 "rotate it by one per repeat)")
      ->check(CLI::NonNegativeNumber);
  app.add_flag("--list-env", o.list_env, "print the ZCOLL_* environment variables and exit");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return g_rank == 0 ? app.exit(e) : (e.get_exit_code());
  }
  return -1;
}

// What the options name: the grid's sizes, modes and thread counts, the
// collective, its algorithm and op, the source data.
struct Setup {
  std::vector<size_t> sizes;
  size_t min_bytes = 0;
  std::vector<zcoll_mode> modes;
  std::vector<int> threads;
  Coll coll = ZCOLL_COLL_NONE;
  zcoll_algorithm algo = ZCOLL_ALGO_AUTO;
  MPI_Op op = MPI_SUM;
  bool f64 = false;
  Source src;
};

bool fail_setup(const std::string& message) {
  if (g_rank == 0) std::fprintf(stderr, "zcoll-bench: %s\n", message.c_str());
  return false;
}

bool make_setup(const Options& o, Setup* s) {
  size_t b0 = 0, b1 = 0;
  if (!parse_size(o.begin, &b0) || !parse_size(o.end, &b1) ||
      !parse_size(o.min_bytes, &s->min_bytes) || b0 == 0 || b1 < b0)
    return fail_setup("bad sizes -b " + o.begin + " -e " + o.end);
  for (auto& m : split(o.modes, ',')) {
    zcoll_mode zm;
    if (zcoll_mode_from_name(m.c_str(), &zm) != ZCOLL_SUCCESS || zm == ZCOLL_MODE_DEFAULT)
      return fail_setup("unknown mode '" + m + "'");
    s->modes.push_back(zm);
  }
  for (auto& t : split(o.threads, ',')) s->threads.push_back(std::max(0, std::atoi(t.c_str())));
  if (zcoll_collective_from_name(o.coll.c_str(), &s->coll) != ZCOLL_SUCCESS ||
      zcoll_algorithm_from_name(s->coll, o.algo.c_str(), &s->algo) != ZCOLL_SUCCESS)
    return fail_setup(zcoll_last_error());
  s->op = o.op == "sum" ? MPI_SUM : o.op == "max" ? MPI_MAX : o.op == "min" ? MPI_MIN : MPI_PROD;
  s->f64 = o.dtype == "double";
  try {
    s->src = load_source(o.data, b1 / (s->f64 ? 8 : 4));
  } catch (const std::exception& e) {
    return fail_setup(e.what());
  }
  for (size_t bytes = b0; bytes <= b1;
       bytes = std::max(bytes + 1, static_cast<size_t>(std::llround(bytes * o.factor))))
    s->sizes.push_back(bytes);
  return true;
}

// One handle per thread count, calibrated for the t_model column (the probe,
// or ZCOLL_TUNE_FILE / env).
bool open_handles(const Options& o, const Setup& s, std::map<int, zcoll_comm*>* comms) {
  for (int t : s.threads) {
    zcoll_comm_config cfg = ZCOLL_COMM_CONFIG_INITIALIZER;
    cfg.threads = t;
    cfg.min_bytes = s.min_bytes;
    cfg.eb_mode = o.abs_eb > 0 ? ZCOLL_EB_ABS : ZCOLL_EB_REL;
    cfg.error_bound = o.abs_eb > 0 ? o.abs_eb : o.rel;
    cfg.bound = o.bound == "result" ? ZCOLL_BOUND_RESULT : ZCOLL_BOUND_PER_COMPRESSION;
    cfg.algorithm[s.coll] = s.algo;
    cfg.codec_flags = o.codec == "dense"  ? ZCOLL_FORMAT_FLAG_DENSE
                      : o.codec == "auto" ? ZCOLL_CODEC_FLAG_AUTO
                                          : 0;
    zcoll_comm* zc = nullptr;
    if (zcoll_comm_create(MPI_COMM_WORLD, &cfg, &zc) != ZCOLL_SUCCESS)
      return fail_setup(zcoll_last_error());
    (*comms)[t] = zc;
    if (zcoll_comm_calibrate(zc) != ZCOLL_SUCCESS && g_rank == 0)
      std::fprintf(stderr, "zcoll-bench: calibration: %s\n", zcoll_last_error());
  }
  return true;
}

void print_header(const Options& o, const Setup& s) {
  std::printf(
      "# zcoll-bench %s: %d ranks, %s %s%s, data %s (%zu values), %s %g (%s), %d warm-up + %d "
      "iterations\n",
      o.coll.c_str(), g_size, o.dtype.c_str(), is_reduction(s.coll) ? o.op.c_str() : "",
      o.average ? " avg" : "", s.src.name.c_str(), s.src.v.size(), o.abs_eb > 0 ? "abs" : "rel",
      o.abs_eb > 0 ? o.abs_eb : o.rel, o.bound.c_str(), o.warmup, o.iters);
  if (o.repeats > 1)
    std::printf(
        "# %d repeats of the whole grid, mode order %s per repeat; t_coll: median over the "
        "repeats of the collective's time (max over ranks, mean over iterations), range: "
        "min-max over the repeats\n",
        o.repeats, o.shuffle >= 0 ? "shuffled from a seed" : "rotated");
  std::printf(
      "# time in us (min/avg/max over ranks and iterations); bandwidth in GB/s on uncompressed "
      "bytes\n");
  std::fflush(stdout);
}

// The grid: rows by (size, threads, mode); mpi_index the first `mpi` mode.
struct Grid {
  size_t nm = 0, nt = 0, mpi_index = 0;
  std::vector<Row> rows;
  size_t cell(size_t si, size_t ti, size_t mi) const { return (si * nt + ti) * nm + mi; }
};

// A later repeat's row into the first's: min / mean / max, breakdown means,
// worst status.
void accumulate(Row& acc, const Row& row) {
  acc.t_min = std::min(acc.t_min, row.t_min);
  acc.t_max = std::max(acc.t_max, row.t_max);
  acc.t_avg += row.t_avg;
  acc.t_comp += row.t_comp;
  acc.t_mpi += row.t_mpi;
  acc.t_red += row.t_red;
  acc.t_other += row.t_other;
  acc.max_err = std::max(acc.max_err, row.max_err);
  if (acc.pass && !row.pass) {
    acc.status = row.status;
    acc.identical = row.identical;
  }
  acc.pass = acc.pass && row.pass;
  if (acc.algo != row.algo) acc.algo += "|" + row.algo;  // auto changed its pick
  if (acc.codec != row.codec) acc.codec += "|" + row.codec;
}

// Repeat rp of one (size, threads) cell: every mode, in this repeat's order
// (rotated by one per repeat, or shuffled: the same generator and seed on
// every rank, so the same order).
void run_cell(const Options& o, const Setup& s, std::map<int, zcoll_comm*>& comms, Grid& g,
              size_t si, size_t ti, int rp, std::mt19937_64& rng) {
  std::vector<size_t> order(g.nm);
  std::iota(order.begin(), order.end(), size_t{0});
  if (o.shuffle >= 0)
    std::shuffle(order.begin(), order.end(), rng);
  else
    std::rotate(order.begin(), order.begin() + static_cast<long>(rp % g.nm), order.end());
  std::vector<double> tc(g.nm, 0);
  const int t = s.threads[ti];
  const int w = rp == 0 ? o.warmup : 0;  // later repeats find the row warm
  for (size_t mi : order) {
    const RowSpec spec{o, s.coll, comms[t], s.modes[mi], s.sizes[si], t, s.src, s.op, w};
    Row row = s.f64 ? run_row<double>(spec) : run_row<float>(spec);
    tc[mi] = row.t_coll;
    Row& acc = g.rows[g.cell(si, ti, mi)];
    if (rp == 0)
      acc = row;
    else
      accumulate(acc, row);
    acc.coll_reps.push_back(row.t_coll);
  }
  for (size_t mi = 0; mi < g.nm; ++mi) {
    Row& acc = g.rows[g.cell(si, ti, mi)];
    if (g.mpi_index < g.nm && tc[g.mpi_index] > 0 && tc[mi] > 0)
      acc.speedup_reps.push_back(tc[g.mpi_index] / tc[mi]);
  }
}

Grid run_grid(const Options& o, const Setup& s, std::map<int, zcoll_comm*>& comms) {
  Grid g;
  g.nm = s.modes.size();
  g.nt = s.threads.size();
  g.rows.resize(s.sizes.size() * g.nt * g.nm);
  g.mpi_index = g.nm;
  for (size_t mi = 0; mi < g.nm; ++mi)
    if (s.modes[mi] == ZCOLL_MODE_MPI && g.mpi_index == g.nm) g.mpi_index = mi;
  std::mt19937_64 rng(static_cast<uint64_t>(o.shuffle >= 0 ? o.shuffle : 0));
  for (int rp = 0; rp < o.repeats; ++rp) {
    for (size_t si = 0; si < s.sizes.size(); ++si)
      for (size_t ti = 0; ti < g.nt; ++ti) run_cell(o, s, comms, g, si, ti, rp, rng);
    if (g_rank == 0 && o.repeats > 1) {
      std::printf("# repeat %d of %d done\n", rp + 1, o.repeats);
      std::fflush(stdout);
    }
  }
  return g;
}

// Over the repeats: the means, bandwidths and speedup of every row.
void finish_row(const Options& o, const Setup& s, Grid& g, size_t si, size_t ti, size_t mi) {
  Row& row = g.rows[g.cell(si, ti, mi)];
  const double R = static_cast<double>(o.repeats);
  if (o.repeats > 1) {
    row.t_avg /= R;
    row.t_comp /= R;
    row.t_mpi /= R;
    row.t_red /= R;
    row.t_other /= R;
    row.algbw = row.t_avg > 0 ? s.sizes[si] / (row.t_avg * 1e-6) / 1e9 : 0;
    row.busbw = row.algbw * driver_coll(s.coll).bus_factor(g_size);
  }
  const double t_mpi_avg = g.mpi_index < g.nm ? g.rows[g.cell(si, ti, g.mpi_index)].t_avg : 0;
  row.speedup = t_mpi_avg > 0 && row.t_avg > 0 ? t_mpi_avg / row.t_avg : 0;
}

void print_titles(const Options& o) {
  std::printf(
      "%10s %11s %3s %8s %18s %10s %10s %10s %10s %10s %21s %8s %8s %7s %13s %7s %10s "
      "%10s %7s",
      "size", "count", "thr", "mode", "algo", "t_min", "t_avg", "t_max", "t_model", "t_coll",
      "t_coll range", "algbw", "busbw", "speedup", "spd range", "ratio", "max_err", "bound",
      "psnr");
  if (o.breakdown) std::printf(" %9s %9s %9s %9s", "t_comp", "t_mpi", "t_reduce", "t_other");
  std::printf("  %s\n", "status");
}

void print_row(const Options& o, const Row& row, size_t bytes, int threads) {
  char range[48], srange[32];
  std::snprintf(range, sizeof range, "%.1f-%.1f", min_of(row.coll_reps), max_of(row.coll_reps));
  std::snprintf(srange, sizeof srange, "%.2f-%.2f", min_of(row.speedup_reps),
                max_of(row.speedup_reps));
  std::printf(
      "%10s %11zu %3d %8s %18s %10.1f %10.1f %10.1f %10.1f %10.1f %21s %8.3f %8.3f %7.2f "
      "%13s %7.2f %10.3g %10.3g %7.1f",
      human(bytes).c_str(), row.count, threads, row.mode.c_str(), row.algo.c_str(), row.t_min,
      row.t_avg, row.t_max, row.t_model, median_of(row.coll_reps), range, row.algbw, row.busbw,
      row.speedup, srange, row.ratio, row.max_err, row.bound, row.psnr);
  if (o.breakdown)
    std::printf(" %9.1f %9.1f %9.1f %9.1f", row.t_comp, row.t_mpi, row.t_red, row.t_other);
  std::printf("  %s\n", row.status.c_str());
}

// Finishes every row and prints the table (rank 0); whether every row passed.
bool report_table(const Options& o, const Setup& s, Grid& g) {
  if (g_rank == 0) print_titles(o);
  bool all_pass = true;
  for (size_t si = 0; si < s.sizes.size(); ++si)
    for (size_t ti = 0; ti < g.nt; ++ti)
      for (size_t mi = 0; mi < g.nm; ++mi) {
        finish_row(o, s, g, si, ti, mi);
        const Row& row = g.rows[g.cell(si, ti, mi)];
        all_pass = all_pass && row.pass;
        if (g_rank == 0) print_row(o, row, s.sizes[si], s.threads[ti]);
      }
  return all_pass;
}

nlohmann::json row_json(const Row& r) {
  nlohmann::json x;
  x["bytes"] = r.bytes;
  x["count"] = r.count;
  x["threads"] = r.threads;
  x["mode"] = r.mode;
  x["algorithm"] = r.algo;
  x["ran_mode"] = r.ran_mode;
  x["codec"] = r.codec;
  x["time_model_us"] = r.t_model;
  x["ratio_one_input"] = r.ratio_in;
  x["reason"] = r.reason;
  x["time_us"] = {{"min", r.t_min}, {"avg", r.t_avg}, {"max", r.t_max}};
  x["algbw_GBps"] = r.algbw;
  x["busbw_GBps"] = r.busbw;
  x["speedup_vs_mpi"] = r.speedup;
  x["ratio"] = r.ratio;
  x["max_error"] = r.max_err;
  x["psnr_db"] = std::isfinite(r.psnr) ? nlohmann::json(r.psnr) : nlohmann::json("inf");
  x["error_bound"] = r.bound;
  x["eb_per_compression"] = r.eb;
  x["identical_on_all_ranks"] = r.identical;
  x["breakdown_us"] = {{"compress", r.t_comp},
                       {"mpi", r.t_mpi},
                       {"reduce", r.t_red},
                       {"other", r.t_other}};
  x["time_coll_us"] = {{"repeats", r.coll_reps},
                       {"median", median_of(r.coll_reps)},
                       {"min", min_of(r.coll_reps)},
                       {"max", max_of(r.coll_reps)}};
  x["speedup_repeats"] = {{"values", r.speedup_reps},
                          {"median", median_of(r.speedup_reps)},
                          {"min", min_of(r.speedup_reps)},
                          {"max", max_of(r.speedup_reps)}};
  x["timeline_us"] = {{"range", r.t_range},
                      {"first_send", r.t_first_send},
                      {"after_last_recv", r.t_after_recv}};
  x["pass"] = r.pass;
  x["status"] = r.status;
  return x;
}

// The run as JSON (--json); whether the file was written.
bool write_json(const Options& o, const Setup& s, const Grid& g, bool all_pass) {
  nlohmann::json j;
  j["collective"] = o.coll;
  j["ranks"] = g_size;
  j["dtype"] = o.dtype;
  j["op"] = o.op;
  j["average"] = o.average;
  j["data"] = s.src.name;
  j["eb_mode"] = o.abs_eb > 0 ? "abs" : "rel";
  j["error_bound"] = o.abs_eb > 0 ? o.abs_eb : o.rel;
  j["bound"] = o.bound;
  j["iterations"] = o.iters;
  j["warmup"] = o.warmup;
  j["repeats"] = o.repeats;
  j["mode_order"] = o.shuffle >= 0 ? "shuffled" : "rotated";
  if (o.shuffle >= 0) j["shuffle_seed"] = o.shuffle;
  j["pass"] = all_pass;
  for (const Row& r : g.rows) j["rows"].push_back(row_json(r));
  std::ofstream f(o.json);
  f << j.dump(2) << "\n";
  if (f) return true;
  std::fprintf(stderr, "zcoll-bench: cannot write %s\n", o.json.c_str());
  return false;
}

int bench_main(int argc, char** argv) {
  Options o;
  const int rc = parse_options(argc, argv, o);
  if (rc >= 0) return finish(rc);
  if (o.list_env) {
    if (g_rank == 0) std::fputs(zcoll_mpi_env_help(), stdout);
    return finish(0);
  }
  Setup s;
  std::map<int, zcoll_comm*> comms;
  if (!make_setup(o, &s) || !open_handles(o, s, &comms)) return finish(2);
  if (g_rank == 0) print_header(o, s);
  Grid g = run_grid(o, s, comms);
  bool all_pass = report_table(o, s, g);
  if (g_rank == 0) {
    std::printf("# %s: %zu rows, %s\n", all_pass ? "OK" : "FAILED", g.rows.size(),
                all_pass ? "every result within its reported bound" : "some rows failed");
    std::fflush(stdout);  // the line marks the end of the output (tools/netcluster waits for it)
    if (!o.json.empty()) all_pass = write_json(o, s, g, all_pass) && all_pass;
  }
  for (auto& kv : comms) zcoll_comm_free(kv.second);
  int pass_local = all_pass, pass_all = 0;
  MPI_Allreduce(&pass_local, &pass_all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  return finish(pass_all ? 0 : 1);
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
  MPI_Comm_size(MPI_COMM_WORLD, &g_size);
  try {
    return bench_main(argc, argv);
  } catch (const std::exception& e) {  // bad_alloc and the like: the whole run ends
    std::fprintf(stderr, "zcoll-bench: %s\n", e.what());
  } catch (...) {
    std::fprintf(stderr, "zcoll-bench: unknown exception\n");
  }
  MPI_Abort(MPI_COMM_WORLD, 2);
  return 2;
}
