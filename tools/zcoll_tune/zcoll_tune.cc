// zcoll_tune.cc — zcoll-tune: run the cost model's probe (several times, the
// median of each parameter), print the model, write it as a tuning file that
// ZCOLL_TUNE_FILE points the library at, and print the model's predicted time
// of every mode over a range of sizes, with the mode AUTO would pick.
//
//   mpirun -np N zcoll-tune -o zcoll_tune.json [--threads T] [--repeat 5]
//          [--predict allreduce --sizes 1M:1G --ratio 5 --nranks 512
//           --codec fast|dense|auto --ratio-dense 7]
//
// --check reads the written file back (zcoll_model_load) and creates a handle
// with ZCOLL_TUNE_FILE set, failing if anything differs.
#include <mpi.h>

#include <CLI/CLI.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "core/units.h"
#include "zcoll_mpi.h"
#include "zcoll_tuner.h"

namespace {

int g_rank = 0;

// Sizes follow core/units.h ("64K", "1M" binary; "1MB" = 10^6); 0 is refused.
bool parse_bytes(const std::string& t, size_t* out) {
  uint64_t v = 0;
  if (!zcoll::units::parse_size(t.c_str(), &v) || v == 0) return false;
  *out = static_cast<size_t>(v);
  return true;
}

std::string human(double b) {
  char buf[32];
  if (b >= 1 << 30)
    std::snprintf(buf, sizeof buf, "%gG", b / (1 << 30));
  else if (b >= 1 << 20)
    std::snprintf(buf, sizeof buf, "%gM", b / (1 << 20));
  else
    std::snprintf(buf, sizeof buf, "%gK", b / 1024);
  return buf;
}

int die(const char* what) {
  if (g_rank == 0) std::fprintf(stderr, "zcoll-tune: %s: %s\n", what, zcoll_last_error());
  MPI_Finalize();
  return 1;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

// Every probed parameter (the first probe's values once stood for the last three).
constexpr double zcoll_model::*kFields[] = {&zcoll_model::latency,
                                            &zcoll_model::sync_latency,
                                            &zcoll_model::bandwidth,
                                            &zcoll_model::compress_bw,
                                            &zcoll_model::decompress_bw,
                                            &zcoll_model::hom_bw,
                                            &zcoll_model::reduce_bw,
                                            &zcoll_model::mpi_scale,
                                            &zcoll_model::mpi_scale_small,
                                            &zcoll_model::dense_compress_bw,
                                            &zcoll_model::dense_decompress_bw};

struct Options {
  std::string out, predict, sizes = "1M:1G", codec = "fast";
  int threads = 1, repeat = 3, nranks = 0;
  double ratio = 5, ratio_dense = 0;
  bool check = false;
};

void add_options(CLI::App& app, Options* o) {
  app.add_option("-o,--output", o->out, "tuning file to write (JSON; use with ZCOLL_TUNE_FILE)");
  app.add_option("--threads", o->threads, "OpenMP threads per rank the model is for")
      ->check(CLI::NonNegativeNumber);
  app.add_option("--repeat", o->repeat, "probes to run; each parameter is their median")
      ->check(CLI::Range(1, 50));
  app.add_option("--predict", o->predict, "print predictions for this collective")
      ->check(CLI::IsMember(
          {"allreduce", "reduce_scatter", "allgather", "bcast", "scatter", "reduce", "gather"}));
  app.add_option("--sizes", o->sizes,
                 "size range for --predict, bytes of the buffer: FIRST:LAST (x4 steps)");
  app.add_option("--ratio", o->ratio, "compression ratio of one input for --predict")
      ->check(CLI::Range(1.0, 1e4));
  app.add_option("--nranks", o->nranks, "process count for --predict (default: this run's)");
  app.add_option("--codec", o->codec,
                 "codec for --predict, as ZCOLL_CODEC: fast | dense | auto (the model picks "
                 "per call, from both codecs' rates and ratios)")
      ->check(CLI::IsMember({"fast", "dense", "auto"}));
  app.add_option("--ratio-dense", o->ratio_dense,
                 "the dense codec's compression ratio of one input for --predict with --codec "
                 "dense or auto (default: --ratio)")
      ->check(CLI::Range(1.0, 1e4));
  app.add_flag("--check", o->check, "read the file back and create a handle from it");
}

// `repeat` probes; *m gets the median of each probed parameter (the rest from
// the first). Returns nullptr, or what failed.
const char* probe(zcoll_comm* zc, int repeat, zcoll_model* m) {
  std::vector<zcoll_model> runs;
  for (int i = 0; i < repeat; ++i) {
    if (zcoll_comm_calibrate(zc) != ZCOLL_SUCCESS) return "probe";
    zcoll_model r = ZCOLL_MODEL_INITIALIZER;
    r.struct_size = sizeof r;
    if (zcoll_comm_get_model(zc, &r) != ZCOLL_SUCCESS) return "model";
    runs.push_back(r);
  }
  *m = runs[0];
  for (auto f : kFields) {
    std::vector<double> v;
    for (const zcoll_model& r : runs) v.push_back(r.*f);
    m->*f = median(v);
  }
  return nullptr;
}

void print_model(const zcoll_model& m, int size, const Options& o) {
  std::printf("# zcoll-tune: %d ranks, %d thread(s), median of %d probes\n", size, o.threads,
              o.repeat);
  std::printf("latency        %10.2f us\n", m.latency * 1e6);
  std::printf("sync           %10.2f us  (small allreduce)\n", m.sync_latency * 1e6);
  std::printf("bandwidth      %10.3f GB/s  (%.0f Mbit/s)\n", m.bandwidth * 1e-9,
              m.bandwidth * 8e-6);
  std::printf("compress       %10.3f GB/s\n", m.compress_bw * 1e-9);
  std::printf("decompress     %10.3f GB/s\n", m.decompress_bw * 1e-9);
  std::printf("hom add        %10.3f GB/s\n", m.hom_bw * 1e-9);
  std::printf("reduce         %10.3f GB/s\n", m.reduce_bw * 1e-9);
  std::printf("dense codec    %10.3f GB/s compress, %.3f GB/s decompress\n",
              m.dense_compress_bw * 1e-9, m.dense_decompress_bw * 1e-9);
  std::printf("MPI scale      %10.2f (256 KiB)  %.2f (4 MiB)\n", m.mpi_scale_small, m.mpi_scale);
  std::printf("overlap        %10.2f\ngrowth         %10.2f bits per doubling\n", m.overlap,
              m.growth_bits);
}

// Rank 0 writes the model to o.out and (--check) reads it back. Returns 0, or
// what failed (1 the write, 2 the read, 3 a value), on every rank.
int save_model(const Options& o, const zcoll_model& m) {
  int bad = 0;
  if (g_rank == 0) {
    if (zcoll_model_save(&m, o.out.c_str()) != ZCOLL_SUCCESS)
      bad = 1;
    else
      std::printf("# wrote %s (use: ZCOLL_TUNE_FILE=%s)\n", o.out.c_str(), o.out.c_str());
    if (!bad && o.check) {
      zcoll_model back = ZCOLL_MODEL_INITIALIZER;
      if (zcoll_model_load(o.out.c_str(), &back) != ZCOLL_SUCCESS) bad = 2;
      for (auto f : kFields)
        if (!bad && std::fabs(back.*f - m.*f) > 1e-12 * std::fabs(m.*f)) bad = 3;
      if (bad)
        std::fprintf(stderr, "zcoll-tune: read-back failed (%d): %s\n", bad, zcoll_last_error());
    }
  }
  MPI_Bcast(&bad, 1, MPI_INT, 0, MPI_COMM_WORLD);
  return bad;
}

// --check: a handle from the tune file has the file's model, no probe (*bad:
// 4 a value differs, 5 not from the file). Returns nullptr, or what failed.
const char* check_tune_file(const Options& o, const zcoll_model& m, const zcoll_comm_config& cfg,
                            int* bad) {
  setenv("ZCOLL_TUNE_FILE", o.out.c_str(), 1);
  setenv("ZCOLL_AUTO_LOCAL", "model", 1);  // on one node auto would not consult the model
  zcoll_comm* z2 = nullptr;
  if (zcoll_comm_create(MPI_COMM_WORLD, &cfg, &z2) != ZCOLL_SUCCESS) return "handle from tune file";
  std::vector<float> x(1 << 16, 1.0f), y(1 << 16);
  if (zcoll_allreduce(z2, x.data(), y.data(), x.size(), MPI_FLOAT, MPI_SUM) != ZCOLL_SUCCESS)
    return "allreduce with the tune file";
  zcoll_model got = ZCOLL_MODEL_INITIALIZER;
  got.struct_size = sizeof got;
  if (zcoll_comm_get_model(z2, &got) != ZCOLL_SUCCESS) return "model of the tune-file handle";
  for (auto f : kFields)
    if (std::fabs(got.*f - m.*f) > 1e-9 * std::fabs(m.*f)) *bad = 4;
  if (got.source != ZCOLL_MODEL_SOURCE_TUNE_FILE) *bad = 5;
  if (g_rank == 0)
    std::printf("# check: handle from %s: %s\n", o.out.c_str(), *bad ? "FAILED" : "ok");
  zcoll_comm_free(z2);
  return nullptr;
}

// --codec as zcoll_predict_codec's codec argument.
int predict_codec_of(const std::string& codec) {
  return codec == "dense"  ? ZCOLL_CODEC_DENSE
         : codec == "auto" ? ZCOLL_PREDICT_CODEC_AUTO
                           : ZCOLL_CODEC_FAST;
}

// One line of --predict: the time of each mode for `count` values with the
// codec o.codec (a "*" marks the dense codec where auto chose it), and AUTO's
// pick.
void print_prediction(const zcoll_model& m, zcoll_collective coll, int P, size_t bytes,
                      size_t count, const Options& o) {
  const zcoll_mode modes[] = {ZCOLL_MODE_MPI, ZCOLL_MODE_RAW, ZCOLL_MODE_CPR_P2P, ZCOLL_MODE_DOC,
                              ZCOLL_MODE_HOM};
  const int codec = predict_codec_of(o.codec);
  const double rd = o.ratio_dense > 0 ? o.ratio_dense : o.ratio;
  std::printf("%8s", human(static_cast<double>(bytes)).c_str());
  for (zcoll_mode md : modes) {
    double s = 0;
    zcoll_codec cc = ZCOLL_CODEC_FAST;
    if (zcoll_predict_codec(&m, coll, md, ZCOLL_ALGO_AUTO, P, count, ZCOLL_FLOAT32, codec, o.ratio,
                            rd, &s, nullptr, nullptr, &cc) == ZCOLL_SUCCESS)
      std::printf(" %9.3f%s", s * 1e3,
                  cc == ZCOLL_CODEC_DENSE && codec == ZCOLL_PREDICT_CODEC_AUTO ? "*" : " ");
    else
      std::printf(" %10s", "-");
  }
  double s = 0;
  zcoll_mode cm;
  zcoll_algorithm ca;
  zcoll_codec cc = ZCOLL_CODEC_FAST;
  if (zcoll_predict_codec(&m, coll, ZCOLL_MODE_AUTO, ZCOLL_ALGO_AUTO, P, count, ZCOLL_FLOAT32,
                          codec, o.ratio, rd, &s, &cm, &ca, &cc) == ZCOLL_SUCCESS)
    std::printf("   %s%s%s%s", zcoll_mode_name(cm), cm == ZCOLL_MODE_MPI ? "" : "/",
                cm == ZCOLL_MODE_MPI ? "" : zcoll_algorithm_name(ca),
                cc == ZCOLL_CODEC_DENSE ? "/dense" : "");
  else
    std::printf("   - (%s)", zcoll_last_error());
  std::printf("\n");
}

// --predict (rank 0): the table over o.sizes; false: bad --sizes.
bool print_predictions(const Options& o, const zcoll_model& m, int size) {
  const std::string& predict = o.predict;
  const zcoll_collective coll = predict == "allreduce"        ? ZCOLL_COLL_ALLREDUCE
                                : predict == "reduce_scatter" ? ZCOLL_COLL_REDUCE_SCATTER
                                : predict == "allgather"      ? ZCOLL_COLL_ALLGATHER
                                : predict == "bcast"          ? ZCOLL_COLL_BCAST
                                : predict == "scatter"        ? ZCOLL_COLL_SCATTER
                                : predict == "reduce"         ? ZCOLL_COLL_REDUCE
                                                              : ZCOLL_COLL_GATHER;
  const bool per_rank = coll == ZCOLL_COLL_REDUCE_SCATTER || coll == ZCOLL_COLL_ALLGATHER ||
                        coll == ZCOLL_COLL_SCATTER || coll == ZCOLL_COLL_GATHER;
  const int P = o.nranks > 0 ? o.nranks : size;
  size_t lo = 0, hi = 0;
  const size_t colon = o.sizes.find(':');
  if (colon == std::string::npos || !parse_bytes(o.sizes.substr(0, colon), &lo) ||
      !parse_bytes(o.sizes.substr(colon + 1), &hi) || hi < lo) {
    std::fprintf(stderr, "zcoll-tune: bad --sizes %s\n", o.sizes.c_str());
    return false;
  }
  std::printf("# predicted time (ms), %s, %d ranks, float, codec %s, ratio %.3g", predict.c_str(),
              P, o.codec.c_str(), o.ratio);
  if (o.codec != "fast") std::printf(", dense %.3g", o.ratio_dense > 0 ? o.ratio_dense : o.ratio);
  std::printf("%s\n", o.codec == "auto" ? " (* = the dense codec)" : "");
  std::printf("%8s %10s %10s %10s %10s %10s   %s\n", "size", "mpi", "raw", "cpr_p2p", "doc", "hom",
              "auto picks");
  for (size_t b = lo; b <= hi; b *= 4) {
    print_prediction(m, coll, P, b, b / 4 / (per_rank ? P : 1), o);
    if (b > hi / 4) break;
  }
  return true;
}

int tune_main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  Options o;
  CLI::App app{"zcoll-tune: calibrate zcoll's cost model and write a tuning file"};
  add_options(app, &o);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    int rc = g_rank == 0 ? app.exit(e) : e.get_exit_code();
    MPI_Finalize();
    return rc;
  }

  zcoll_comm_config cfg = ZCOLL_COMM_CONFIG_INITIALIZER;
  cfg.threads = o.threads;
  zcoll_comm* zc = nullptr;
  if (zcoll_comm_create(MPI_COMM_WORLD, &cfg, &zc) != ZCOLL_SUCCESS)
    return die("zcoll_comm_create");
  zcoll_model m = ZCOLL_MODEL_INITIALIZER;
  if (const char* what = probe(zc, o.repeat, &m)) return die(what);
  if (g_rank == 0) print_model(m, size, o);
  int bad = 0;
  if (!o.out.empty()) {
    bad = save_model(o, m);
    if (bad) {
      zcoll_comm_free(zc);
      MPI_Finalize();
      return 1;
    }
    if (o.check)
      if (const char* what = check_tune_file(o, m, cfg, &bad)) return die(what);
  }
  if (!o.predict.empty() && g_rank == 0 && !print_predictions(o, m, size)) bad = 1;
  MPI_Bcast(&bad, 1, MPI_INT, 0, MPI_COMM_WORLD);
  zcoll_comm_free(zc);
  MPI_Finalize();
  return bad ? 1 : 0;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return tune_main(argc, argv);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "zcoll-tune: %s\n", e.what());
    MPI_Abort(MPI_COMM_WORLD, 1);
    return 1;
  }
}
