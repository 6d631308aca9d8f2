// zcoll-codec-bench — throughput, ratio and error of the zcoll compressor on real
// and synthetic float fields, and (--hom) homomorphic addition against
// decompress-operate-compress. A benchmark, and a correctness check on the way:
// a row fails (and the exit status is 1) when an error bound is broken, a NaN/Inf
// is not reproduced, or a stream depends on the thread count.
//
// Usage
//   zcoll-codec-bench [options]
//     --data-dir DIR     *.f32 files to run (raw little-endian float32, shape in the
//                        name: <stem>_<d0>x<d1>[x<d2>].f32, slowest first). Default:
//                        <repo>/../shared/data if it exists, else <repo>/data.
//     --files P...       only datasets whose name contains one of these strings
//                        (e.g. --files etopo5 smooth); synthetic ones included.
//     --list             print the datasets that would run, and exit.
//     --dtype f32|f64... value type(s); f64 converts the float32 data. Default f32.
//     --threads N...     thread counts (default 1 2).
//     --rel R...         REL bounds (default 1e-2 1e-3 1e-4); lists may also be
//                        comma-separated: --rel 1e-2,1e-4.
//     --repeat N         timed runs per measurement (default 5), interleaved
//                        between the operations compared;
//     --warmup N         untimed runs of each operation first (default 1).
//     --stat best|median the statistic shown in the table (default best: other work
//                        only ever slows a run down; the JSON has both).
//     --chunk-size N     values per chunk (default: the library default, 16384).
//     --side N           synthetic fields are N x N (default 4096: ~16.8M values).
//     --hom              homomorphic-addition mode (see below).
//     --ceiling          in-cache scaling mode (see below).
//     --cold             before every timed run, read a buffer of three times the
//                        last-level cache (at least 96 MiB) on every CPU: each run,
//                        memcpy too, starts with its inputs and outputs in memory,
//                        as a large collective's are (the rates at the memory
//                        limit). Without it a field smaller than the caches is
//                        timed between caches after the first run.
//     --quick            smoke test: the synthetic smooth field at 1024 x 1024 (or
//                        the first --files match), 1 repeat.
//     --json FILE        write every row plus machine/build information as JSON.
//     --label TEXT       free text stored in the JSON (e.g. a git commit).
//
// Datasets: every *.f32 file, plus synthetic-smooth (a sum of four low-frequency
// sine products on a 2-D grid), synthetic-noise (white noise: no prediction gain) and
// synthetic-smooth-nan (the smooth field with a NaN every 16 chunks: raw chunks).
//
// Default (codec) mode, for each dataset x dtype x threads x REL:
//   cREL   GB/s of the whole zcoll_compress call with eb_mode REL, which includes
//          the min/max pass over the data (what a user calling it gets);
//   cABS   GB/s of zcoll_compress with the same bound given as ABS, no min/max pass
//          (what the collectives use: they agree on one absolute bound first);
//   dec    GB/s of zcoll_decompress; memcpy: GB/s of memcpy of the same buffer with
//          the same number of threads (one contiguous piece each), measured
//          interleaved with the codec runs; cABS/mc and dec/mc are the ratios;
//   minmax GB/s of zcoll_value_range alone (the pass that REL adds);
//   ratio, max abs error, error / eb, PSNR (zcoll_quality_compare), raw chunks /
//   chunks;
//   cpu%   CPU time the timed runs got / (wall x threads): far below 100 means the
//          threads were descheduled by other work and the row's timings are suspect.
//   GB/s always counts uncompressed bytes (1e9 bytes / s).
//
// --hom mode, for each dataset: two different inputs a and b of the field (3-D:
// first and second half along the slowest axis, e.g. months of the wind fields;
// 2-D: the field and the field shifted by one row; synthetic: two snapshots / two
// noise seeds / NaNs in different chunks), both compressed at eb = REL x range(a);
// then times
//   hom     zcoll_hom_add(a, b)                    (compressed in, compressed out)
//   DOC     decompress a and b, add in the value type, compress the sum at eb
//   DOCacc  the same with zcoll_decompress_accumulate doing the add (one pass less)
//   DOCf    zcoll_doc_combine(a, b, SUM)
// in GB/s of ONE input's uncompressed bytes, the speedups hom/DOC and hom/(fastest
// DOC variant), the block pipelines of zcoll_hom_stats, the output ratios and the
// max error against the exact (double) a + b, memcpy beside. The targets (hom >=
// 10x DOC on the smooth field at REL 1e-2, >= 3x at 1e-4, never slower) are
// reported, not enforced.
//
// --ceiling mode, for each dataset x REL: the 2-thread scaling the machine allows
// with memory out of the way (bench/ceiling_mode.cc): compress, decompress and
// hom add, each thread on its own L2-resident copy of a slice of the field, and
// alu, an integer loop with no memory operands; aggregate rates, N threads / the
// first --threads count, interleaved. --cold does not apply (the point is warm).
//
// Exit status: 0 all rows ok; 1 a correctness failure or a failing call (listed
// under the table; --hom also when zcoll_hom_add is not built); 2 no dataset
// matches; other non-zero values: bad arguments (CLI11).
//
// Timings are as good as the machine is quiet: compare runs only from the same
// machine (the JSON records CPU, kernel set, load average and date).
//
// Examples
//   zcoll-codec-bench --json results/codec.json
//   zcoll-codec-bench --files etopo5 smooth --threads 1 --rel 1e-3 --repeat 9
//   zcoll-codec-bench --hom --dtype f32 f64 --json results/hom.json
//   ZCOLL_SIMD=scalar zcoll-codec-bench --quick
#include <CLI/CLI.hpp>
#include <cstdio>
#include <filesystem>
#include <fstream>

#include "modes.h"

#ifndef ZCOLL_BENCH_SOURCE_DIR
#define ZCOLL_BENCH_SOURCE_DIR "."
#endif

using namespace zcoll_bench;

namespace {

std::string default_data_dir() {
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::path root(ZCOLL_BENCH_SOURCE_DIR);
  const fs::path shared = root / ".." / "shared" / "data";
  if (fs::is_directory(shared, ec)) return fs::weakly_canonical(shared, ec).string();
  return (root / "data").string();
}

void add_options(CLI::App& app, Options& o, bool* list, std::string* stat) {
  app.option_defaults()->always_capture_default();
  app.add_option("--data-dir", o.data_dir, "directory of *.f32 files")
      ->check(CLI::ExistingDirectory);
  app.add_option("--files", o.files, "dataset name patterns (substrings)")->delimiter(',');
  app.add_flag("--list", *list, "list the selected datasets and exit");
  app.add_option("--dtype", o.dtypes, "f32 and/or f64")
      ->delimiter(',')
      ->check(CLI::IsMember({"f32", "f64"}));
  app.add_option("--threads", o.threads, "thread counts")
      ->delimiter(',')
      ->check(CLI::Range(1, 1024));
  app.add_option("--rel", o.rels, "REL error bounds")
      ->delimiter(',')
      ->check(CLI::Range(1e-300, 1.0));
  app.add_option("--repeat", o.repeat, "timed runs per measurement")->check(CLI::Range(1, 100000));
  app.add_option("--warmup", o.warmup, "untimed runs first")->check(CLI::Range(0, 1000));
  app.add_option("--stat", *stat, "statistic in the table")
      ->check(CLI::IsMember({"median", "best"}));
  app.add_option("--chunk-size", o.chunk_size, "values per chunk (0 = default)");
  app.add_option("--side", o.side, "synthetic fields are side x side")
      ->check(CLI::Range(32, 65536));
  app.add_flag("--hom", o.hom, "homomorphic addition vs DOC");
  app.add_flag("--ceiling", o.ceiling, "in-cache 2-thread scaling (compress, decompress, hom, alu)")
      ->excludes("--hom");
  app.add_flag("--cold", o.cold, "empty the caches before every timed run (memory-limited rates)");
  app.add_flag("--checksum", o.checksum, "streams with chunk checksums (ZCOLL_FLAG_CHECKSUM)");
  app.add_flag("--quick", o.quick, "smoke test: one small dataset, 1 repeat");
  app.add_option("--json", o.json_path, "write results as JSON");
  app.add_option("--label", o.label, "free text stored in the JSON");
}

void print_header(const Options& o, size_t datasets, const Json& machine, const Json& build,
                  const char* mode, const std::string& date) {
  std::printf("zcoll-codec-bench, %s mode, %s\n", mode, date.c_str());
  std::printf("cpu: %s (%u logical CPUs, load %s); zcoll %s, format %d, kernels %s%s, %s build\n",
              machine["cpu_model"].get<std::string>().c_str(),
              machine["logical_cpus"].get<unsigned>(), loadavg().c_str(),
              build["zcoll_version"].get<std::string>().c_str(), ZCOLL_FORMAT_VERSION,
              build["kernels"].get<std::string>().c_str(),
              build["ZCOLL_SIMD"].get<std::string>().empty()
                  ? ""
                  : (" (ZCOLL_SIMD=" + build["ZCOLL_SIMD"].get<std::string>() + ")").c_str(),
              build["build_type"].get<std::string>().c_str());
  std::printf("data: %s; %zu datasets; %s of %d runs after %d warm-up%s\n", o.data_dir.c_str(),
              datasets, stat_name(o.stat), o.repeat, o.warmup,
              o.cold ? "; caches emptied before every run (--cold)" : "");
  const double load = loadavg1();
  if (load >= 0.5)
    std::printf(
        "NOTE: load average %.2f on %u logical CPUs before the run: other work is running "
        "and timings will be noisy (watch cpu%%; more --repeat and --stat best help)\n",
        load, machine["logical_cpus"].get<unsigned>());
  std::printf("\n");
  std::fflush(stdout);
}

void print_results(const ModeResult& r) {
  std::printf("\n");
  if (!r.table.empty()) r.table.print(stdout);
  std::printf("\n");
  for (const auto& line : r.footer) std::printf("%s\n", line.c_str());
  if (!r.failures.empty()) {
    std::printf("\nFAILED (%zu):\n", r.failures.size());
    for (const auto& f : r.failures) std::printf("  %s\n", f.c_str());
  } else {
    std::printf("\nall rows ok: bounds kept, non-finite values reproduced\n");
  }
}

// The run as JSON at o.json_path; false: it could not be written.
bool write_json(const Options& o, const std::vector<DatasetSpec>& datasets, const Json& machine,
                const Json& build, const char* mode, const std::string& date, const ModeResult& r,
                const std::vector<std::string>& warnings) {
  Json j;
  j["tool"] = "zcoll-codec-bench";
  j["mode"] = mode;
  j["date_utc"] = date;
  j["label"] = o.label;
  j["machine"] = machine;
  j["build"] = build;
  j["settings"] = {{"data_dir", o.data_dir},
                   {"datasets", Json::array()},
                   {"dtypes", o.dtypes},
                   {"threads", o.threads},
                   {"rel", o.rels},
                   {"repeat", o.repeat},
                   {"warmup", o.warmup},
                   {"stat", stat_name(o.stat)},
                   {"chunk_size", o.chunk_size},
                   {"checksum", o.checksum},
                   {"cold", o.cold},
                   {"synthetic_side", o.side},
                   {"quick", o.quick}};
  for (const auto& d : datasets) j["settings"]["datasets"].push_back(d.name);
  j["units"] = {{"gbps", "1e9 uncompressed bytes per second (hom mode: bytes of one input)"},
                {"time", "seconds"},
                {"psnr_db", "null when infinite (lossless)"}};
  j["rows"] = r.rows;
  j["failures"] = r.failures;
  j["warnings"] = warnings;
  std::ofstream out(o.json_path);
  out << j.dump(1) << "\n";
  if (!out) {
    std::fprintf(stderr, "cannot write %s\n", o.json_path.c_str());
    return false;
  }
  std::printf("wrote %s\n", o.json_path.c_str());
  return true;
}

int bench_main(int argc, char** argv) {
  Options o;
  bool list = false;
  std::string stat = "best";
  CLI::App app{
      "zcoll-codec-bench: compressor and homomorphic-addition throughput, ratio and "
      "error (see the comment at the top of bench/codec_bench.cc)"};
  add_options(app, o, &list, &stat);
  CLI11_PARSE(app, argc, argv);
  o.stat = stat == "best" ? Stat::kBest : Stat::kMedian;
  const bool side_given = app.count("--side") > 0;

  if (o.quick) {
    o.repeat = 1;
    if (!side_given) o.side = 1024;
    if (o.files.empty()) o.files = {"synthetic-smooth_"};
  }
  if (o.data_dir.empty()) o.data_dir = default_data_dir();

  std::vector<std::string> warnings;
  std::vector<DatasetSpec> datasets =
      select_datasets(discover_datasets(o.data_dir, o.side, &warnings), o.files);
  if (o.quick && datasets.size() > 1) datasets.resize(1);
  for (const auto& w : warnings) std::fprintf(stderr, "warning: %s\n", w.c_str());
  if (datasets.empty()) {
    std::fprintf(stderr, "no dataset matches --files (try --list)\n");
    return 2;
  }
  if (list) {
    for (const auto& d : datasets)
      std::printf("%-40s %-14s %9.1f MB  %s\n", d.name.c_str(), d.shape().c_str(),
                  d.count() * 4 / 1e6, d.path.empty() ? "synthetic" : d.path.c_str());
    return 0;
  }

  const std::string date = utc_now();
  Json machine = machine_info();
  const Json build = build_info();
  const char* mode = o.hom ? "hom" : o.ceiling ? "ceiling" : "codec";
  print_header(o, datasets.size(), machine, build, mode, date);

  ModeResult r;
  if (o.hom)
    run_hom_mode(o, datasets, &r);
  else if (o.ceiling)
    run_ceiling_mode(o, datasets, &r);
  else
    run_codec_mode(o, datasets, &r);
  machine["loadavg_end"] = loadavg();
  print_results(r);
  if (!o.json_path.empty() && !write_json(o, datasets, machine, build, mode, date, r, warnings))
    return 1;
  return r.failures.empty() ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return bench_main(argc, argv);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "zcoll-codec-bench: %s\n", e.what());
    return 1;
  }
}
