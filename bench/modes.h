// modes.h — options of zcoll-codec-bench and its modes (codec, hom, ceiling).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "bench_common.h"
#include "datasets.h"

namespace zcoll_bench {

struct Options {
  std::string data_dir;
  std::vector<std::string> files;  // name patterns (substrings); empty = all
  std::vector<std::string> dtypes{"f32"};
  std::vector<int> threads{1, 2};
  std::vector<double> rels{1e-2, 1e-3, 1e-4};
  int repeat = 5;
  int warmup = 1;
  Stat stat = Stat::kBest;
  uint32_t chunk_size = 0;  // 0 = library default
  bool checksum = false;    // ZCOLL_FLAG_CHECKSUM on every stream (format 1.1)
  size_t side = 4096;       // synthetic fields are side x side
  bool quick = false;
  bool hom = false;
  bool ceiling = false;  // --ceiling: in-cache scaling (ceiling_mode.cc)
  bool cold = false;     // evict_caches() before every timed run
  std::string json_path;
  std::string label;
};

// What a mode hands back to main: the table, one JSON object per row, the lines
// printed under the table, and the correctness failures (non-empty = exit 1).
struct ModeResult {
  Table table{{}, 0};
  Json rows = Json::array();
  std::vector<std::string> footer;
  std::vector<std::string> failures;
};

// A row that failed: its message goes to the failures and into the row (which
// is kept, marked not ok), and the table gets an error line with these cells.
inline void record_failure(ModeResult* r, Json row, const std::string& where,
                           const std::string& msg, const std::vector<std::string>& cells) {
  r->failures.push_back(where + ": " + msg);
  row["ok"] = false;
  row["error"] = msg;
  r->rows.push_back(row);
  r->table.add_error(cells);
}

// One timed run of f on `threads` threads (seconds), after emptying the caches
// with --cold.
template <class F>
double timed(const Options& o, int threads, F&& f) {
  if (o.cold) evict_caches(threads);
  return seconds_of(f);
}

// The modes run every dataset x dtype x threads x REL (ceiling: dataset x REL,
// f32) and fill *r.
void run_codec_mode(const Options& o, const std::vector<DatasetSpec>& datasets, ModeResult* r);
void run_hom_mode(const Options& o, const std::vector<DatasetSpec>& datasets, ModeResult* r);
void run_ceiling_mode(const Options& o, const std::vector<DatasetSpec>& datasets, ModeResult* r);

// "1e-03" style text for a REL value; statistic name.
std::string rel_text(double rel);
inline const char* stat_name(Stat s) { return s == Stat::kBest ? "best" : "median"; }

}  // namespace zcoll_bench
