// bench_common.h — pieces shared by the modes of zcoll-codec-bench: timing and
// statistics, the parallel memcpy reference, quality measures, machine/build
// information for the JSON record, and an aligned text table.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "zcoll.h"

namespace zcoll_bench {

using Json = nlohmann::ordered_json;

// ---- timing ------------------------------------------------------------------
template <class F>
double seconds_of(F&& f) {
  auto t0 = std::chrono::steady_clock::now();
  f();
  auto t1 = std::chrono::steady_clock::now();
  return std::chrono::duration<double>(t1 - t0).count();
}

// Push every earlier run's data out of the caches: read a buffer of three times
// the last-level cache (at least 96 MiB) on `threads` OpenMP threads, those of
// the timed run that follows, so that each of their cores' private caches is
// refilled too. Reading, not writing: the lines left behind are clean, so the
// timed run pays no write-back of them. Returns a value of the reads (keeps
// them from being optimized away).
uint64_t evict_caches(int threads);

// The CPU and wall seconds evict_caches() has taken so far (CpuShare leaves
// them out).
struct EvictionSeconds {
  double cpu = 0, wall = 0;
};
EvictionSeconds eviction_seconds();

// CPU time (user + system) of the whole process so far, all threads.
double process_cpu_seconds();

// Measures how much of the CPU a stretch of timed work actually got:
// cpu seconds / (wall seconds x threads). Well below 1 means the threads were
// descheduled (a busy machine) and the timings of that stretch are suspect.
// The evictions of --cold are left out (they run on every CPU).
class CpuShare {
 public:
  CpuShare()
      : cpu0_(process_cpu_seconds()),
        t0_(std::chrono::steady_clock::now()),
        evict0_(eviction_seconds()) {}
  double share(int threads) const;

 private:
  double cpu0_;
  std::chrono::steady_clock::time_point t0_;
  EvictionSeconds evict0_;
};

enum class Stat { kMedian, kBest };

// Wall times of repeated runs of one operation.
struct Samples {
  std::vector<double> seconds;
  double best() const;    // shortest
  double median() const;  // middle (mean of the two middle ones for an even count)
  double pick(Stat s) const { return s == Stat::kBest ? best() : median(); }
};

// 1e9 bytes per second.
inline double gbps(double bytes, double seconds) { return seconds > 0 ? bytes / seconds / 1e9 : 0; }

// {"best_s", "median_s", "best_gbps", "median_gbps", "samples_s"} for bytes per run.
Json samples_json(const Samples& s, double bytes);

// memcpy of `bytes` by `threads` OpenMP threads, each copying one contiguous piece
// (64-byte aligned boundaries): the reference the codec rates are compared with.
void parallel_memcpy(void* dst, const void* src, size_t bytes, int threads);

// FNV-1a of a byte range (to check that streams do not depend on the thread count).
uint64_t fnv1a(const void* p, size_t bytes);

// ---- quality -------------------------------------------------------------------
struct Quality {
  double max_abs_error = 0;
  double rmse = 0;
  double value_range = 0;
  double psnr = 0;                  // dB, +inf when rmse == 0
  uint64_t nonfinite = 0;           // originals that are NaN/Inf
  uint64_t nonfinite_mismatch = 0;  // of those, not reproduced bit-exactly
  std::string source;               // "zcoll_quality_compare" or "local"
};

// Compare reconstructed values with the originals (float or double): through
// zcoll_quality_compare; if that call fails, a local computation with the same
// definitions (max abs error and RMSE in double over finite originals,
// PSNR = 20 log10(range / RMSE)).
template <typename T>
Quality compare_quality(const T* original, const T* reconstructed, size_t n);

// max |ref - x| over positions where ref is finite, in double; *nonfinite_mismatch
// counts positions where ref is not finite but x is finite (or the reverse).
template <typename T>
double max_error_vs(const double* ref, const T* x, size_t n, uint64_t* nonfinite_mismatch);


// ---- machine / build description ---------------------------------------------
Json machine_info();  // cpu model, logical cpus, OpenMP threads, host, kernel, load
Json build_info();    // zcoll version, format version, kernel set, ZCOLL_SIMD, compiler
std::string cpu_model();
std::string kernel_set_name();  // zcoll::active_kernels().name
std::string utc_now();          // 2024-01-31T12:34:56Z
std::string loadavg();          // first three fields of /proc/loadavg ("" if unreadable)
double loadavg1();              // the 1-minute load average (-1 if unreadable)

// ---- text ------------------------------------------------------------------------
std::string strf(const char* fmt, ...) __attribute__((format(printf, 1, 2)));

// A table printed with aligned columns; the first `left` columns are left-aligned,
// the others right-aligned.
class Table {
 public:
  Table(std::vector<std::string> headers, size_t left)
      : headers_(std::move(headers)), left_(left) {}
  void add(std::vector<std::string> row) { rows_.push_back(std::move(row)); }
  // A row of `first` cells, "-" in the rest and "ERROR" in the last column.
  void add_error(std::vector<std::string> first) {
    first.resize(headers_.size() - 1, "-");
    first.push_back("ERROR");
    rows_.push_back(std::move(first));
  }
  void print(std::FILE* f) const;
  bool empty() const { return rows_.empty(); }

 private:
  std::vector<std::string> headers_;
  std::vector<std::vector<std::string>> rows_;
  size_t left_;
};

// dtype helpers
template <typename T>
constexpr zcoll_dtype dtype_of() {
  return sizeof(T) == 4 ? ZCOLL_FLOAT32 : ZCOLL_FLOAT64;
}
template <typename T>
constexpr const char* dtype_name() {
  return sizeof(T) == 4 ? "f32" : "f64";
}

// "zcoll_compress: <status>: <last error>"
std::string api_error(const char* what, zcoll_status s);

// Codec parameters for a relative bound, as every benchmark mode sets them up.
inline zcoll_params rel_params(double rel, uint32_t chunk_size) {
  zcoll_params p;
  zcoll_params_init(&p);
  p.eb_mode = ZCOLL_EB_REL;
  p.error_bound = rel;
  p.chunk_size = chunk_size;
  return p;
}

}  // namespace zcoll_bench
