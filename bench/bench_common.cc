// bench_common.cc — see bench_common.h.
#include "bench_common.h"

#include <omp.h>
#include <sys/resource.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdarg>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <fstream>
#include <limits>
#include <thread>

#include "codec/chunk_codec.h"  // zcoll::active_kernels(): internal, needs zcoll_static

#ifndef ZCOLL_BENCH_BUILD_TYPE
#define ZCOLL_BENCH_BUILD_TYPE ""
#endif

namespace zcoll_bench {

double Samples::best() const {
  return seconds.empty() ? 0 : *std::min_element(seconds.begin(), seconds.end());
}

double Samples::median() const {
  if (seconds.empty()) return 0;
  std::vector<double> s = seconds;
  std::sort(s.begin(), s.end());
  const size_t m = s.size() / 2;
  return s.size() % 2 ? s[m] : 0.5 * (s[m - 1] + s[m]);
}

Json samples_json(const Samples& s, double bytes) {
  Json j;
  j["best_s"] = s.best();
  j["median_s"] = s.median();
  j["best_gbps"] = gbps(bytes, s.best());
  j["median_gbps"] = gbps(bytes, s.median());
  j["samples_s"] = s.seconds;
  return j;
}

double process_cpu_seconds() {
  rusage u{};
  if (getrusage(RUSAGE_SELF, &u) != 0) return 0;
  auto sec = [](const timeval& t) { return static_cast<double>(t.tv_sec) + 1e-6 * t.tv_usec; };
  return sec(u.ru_utime) + sec(u.ru_stime);
}

double CpuShare::share(int threads) const {
  const EvictionSeconds e = eviction_seconds();
  const double wall =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0_).count() -
      (e.wall - evict0_.wall);
  const double cpu = process_cpu_seconds() - cpu0_ - (e.cpu - evict0_.cpu);
  return wall > 0 && threads > 0 ? cpu / (wall * threads) : 0;
}

namespace {
EvictionSeconds g_eviction;
}

EvictionSeconds eviction_seconds() { return g_eviction; }

uint64_t evict_caches(int threads) {
  const double cpu0 = process_cpu_seconds();
  const auto t0 = std::chrono::steady_clock::now();
  static const std::vector<uint64_t> buf = [] {
    const long llc = std::max({sysconf(_SC_LEVEL3_CACHE_SIZE), sysconf(_SC_LEVEL2_CACHE_SIZE), 0L});
    const size_t bytes = std::max<size_t>(3 * static_cast<size_t>(llc), size_t{96} << 20);
    return std::vector<uint64_t>(bytes / sizeof(uint64_t), 1);
  }();
  // On the run's OpenMP team, which it leaves as a loop of calls would: awake.
  // (Threads of its own left the team's workers asleep, and on a virtual
  // machine waking one took milliseconds: the 2-thread runs after an eviction
  // timed that, at 0.1-0.2 GB/s. A team larger than the run's left a worker
  // spinning beside a 1-thread run: its cpu% read 170.)
  uint64_t sum = 0;
  const int64_t n = static_cast<int64_t>(buf.size());
#pragma omp parallel for num_threads(std::max(threads, 1)) schedule(static) reduction(+ : sum)
  for (int64_t i = 0; i < n; i += 8) sum += buf[i];  // a load per 64-byte line
  g_eviction.cpu += process_cpu_seconds() - cpu0;
  g_eviction.wall += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return sum;
}

void parallel_memcpy(void* dst, const void* src, size_t bytes, int threads) {
  if (threads <= 1) {
    std::memcpy(dst, src, bytes);
    return;
  }
  auto* d = static_cast<unsigned char*>(dst);
  const auto* s = static_cast<const unsigned char*>(src);
#pragma omp parallel num_threads(threads)
  {
    const size_t t = static_cast<size_t>(omp_get_thread_num());
    const size_t nt = static_cast<size_t>(omp_get_num_threads());
    const size_t a = (bytes / nt * t) & ~size_t{63};
    const size_t b = t + 1 == nt ? bytes : (bytes / nt * (t + 1)) & ~size_t{63};
    if (b > a) std::memcpy(d + a, s + a, b - a);
  }
}

uint64_t fnv1a(const void* p, size_t bytes) {
  const auto* c = static_cast<const unsigned char*>(p);
  uint64_t h = 0xcbf29ce484222325ull;
  for (size_t i = 0; i < bytes; ++i) h = (h ^ c[i]) * 0x100000001b3ull;
  return h;
}

// ---- quality -------------------------------------------------------------------

namespace {

// Whether the n bytes at a and at b are equal: a non-finite value reproduced
// bit for bit (its NaN payload and sign), which == does not compare.
bool same_bytes(const void* a, const void* b, size_t n) { return std::memcmp(a, b, n) == 0; }

template <typename T>
Quality local_quality(const T* x, const T* y, size_t n) {
  Quality q;
  double max_err = 0, sq = 0, lo = std::numeric_limits<double>::infinity(), hi = -lo;
  uint64_t finite = 0, nonfinite = 0, mismatch = 0;
#pragma omp parallel for reduction(max : max_err, hi) reduction(min : lo) \
    reduction(+ : sq, finite, nonfinite, mismatch) schedule(static)
  for (int64_t i = 0; i < static_cast<int64_t>(n); ++i) {
    const double a = x[i];
    if (std::isfinite(a)) {
      const double e = std::fabs(a - static_cast<double>(y[i]));
      // a NaN reconstruction of a finite value counts as an infinite error
      max_err = std::max(max_err, std::isnan(e) ? std::numeric_limits<double>::infinity() : e);
      sq += e * e;
      ++finite;
      lo = std::min(lo, a);
      hi = std::max(hi, a);
    } else {
      ++nonfinite;
      mismatch += !same_bytes(&x[i], &y[i], sizeof(T));
    }
  }
  q.max_abs_error = max_err;
  q.rmse = finite ? std::sqrt(sq / static_cast<double>(finite)) : 0;
  q.value_range = finite ? hi - lo : 0;
  q.psnr = q.rmse > 0 ? 20 * std::log10(q.value_range / q.rmse)
                      : std::numeric_limits<double>::infinity();
  q.nonfinite = nonfinite;
  q.nonfinite_mismatch = mismatch;
  q.source = "local";
  return q;
}

}  // namespace

template <typename T>
Quality compare_quality(const T* original, const T* reconstructed, size_t n) {
  zcoll_quality zq = ZCOLL_QUALITY_INITIALIZER;
  const zcoll_status s =
      zcoll_quality_compare(dtype_of<T>(), original, reconstructed, n, 0, &zq, 0);
  if (s == ZCOLL_SUCCESS) {
    Quality q;
    q.max_abs_error = zq.max_abs_error;
    q.rmse = zq.rmse;
    q.value_range = zq.value_range;
    q.psnr = zq.psnr;
    q.nonfinite = zq.nonfinite;
    q.nonfinite_mismatch = zq.nonfinite_mismatch;
    q.source = "zcoll_quality_compare";
    return q;
  }
  Quality q = local_quality(original, reconstructed, n);
  q.source += std::string(" (zcoll_quality_compare: ") + zcoll_status_string(s) + ")";
  return q;
}
template Quality compare_quality<float>(const float*, const float*, size_t);
template Quality compare_quality<double>(const double*, const double*, size_t);

template <typename T>
double max_error_vs(const double* ref, const T* x, size_t n, uint64_t* nonfinite_mismatch) {
  double max_err = 0;
  uint64_t mismatch = 0;
#pragma omp parallel for reduction(max : max_err) reduction(+ : mismatch) schedule(static)
  for (int64_t i = 0; i < static_cast<int64_t>(n); ++i) {
    const double r = ref[i], v = x[i];
    if (std::isfinite(r) != std::isfinite(v)) {
      ++mismatch;
    } else if (std::isfinite(r)) {
      max_err = std::max(max_err, std::fabs(r - v));
    }
  }
  *nonfinite_mismatch = mismatch;
  return max_err;
}
template double max_error_vs<float>(const double*, const float*, size_t, uint64_t*);
template double max_error_vs<double>(const double*, const double*, size_t, uint64_t*);

// ---- machine / build -------------------------------------------------------------

std::string cpu_model() {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("model name", 0) == 0) {
      size_t c = line.find(':');
      if (c != std::string::npos) {
        size_t b = line.find_first_not_of(" \t", c + 1);
        return b == std::string::npos ? "" : line.substr(b);
      }
    }
  }
  return "unknown";
}

std::string kernel_set_name() { return zcoll::active_kernels().name; }

std::string utc_now() {
  std::time_t t = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

std::string loadavg() {
  std::ifstream in("/proc/loadavg");
  std::string a, b, c;
  if (!(in >> a >> b >> c)) return "";
  return a + " " + b + " " + c;
}

namespace {
std::string env_or_empty(const char* name) {
  const char* v = std::getenv(name);
  return v ? v : "";
}
}  // namespace

double loadavg1() {
  std::ifstream in("/proc/loadavg");
  double a = -1;
  if (!(in >> a)) return -1;
  return a;
}

Json machine_info() {
  Json j;
  j["cpu_model"] = cpu_model();
  j["logical_cpus"] = std::thread::hardware_concurrency();
  j["omp_max_threads"] = omp_get_max_threads();
  char host[256] = {0};
  if (gethostname(host, sizeof host - 1) == 0) j["hostname"] = host;
  utsname u;
  if (uname(&u) == 0) j["os"] = std::string(u.sysname) + " " + u.release + " " + u.machine;
  j["loadavg_start"] = loadavg();
  j["OMP_PROC_BIND"] = env_or_empty("OMP_PROC_BIND");
  j["OMP_PLACES"] = env_or_empty("OMP_PLACES");
  return j;
}

Json build_info() {
  Json j;
  j["zcoll_version"] =
      strf("%d.%d.%d", ZCOLL_VERSION_MAJOR, ZCOLL_VERSION_MINOR, ZCOLL_VERSION_PATCH);
  j["format_version"] = ZCOLL_FORMAT_VERSION;
  j["kernels"] = kernel_set_name();
  j["ZCOLL_SIMD"] = env_or_empty("ZCOLL_SIMD");
  j["compiler"] = std::string("gcc-compatible ") + __VERSION__;
  j["build_type"] = ZCOLL_BENCH_BUILD_TYPE;
  return j;
}

// ---- text ------------------------------------------------------------------------

std::string strf(const char* fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  char buf[512];
  int len = std::vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  if (len < 0) return "";
  if (static_cast<size_t>(len) < sizeof buf) return std::string(buf, static_cast<size_t>(len));
  std::string s(static_cast<size_t>(len) + 1, '\0');
  va_start(ap, fmt);
  std::vsnprintf(&s[0], s.size(), fmt, ap);
  va_end(ap);
  s.resize(static_cast<size_t>(len));
  return s;
}

void Table::print(std::FILE* f) const {
  std::vector<size_t> w(headers_.size(), 0);
  for (size_t c = 0; c < headers_.size(); ++c) w[c] = headers_[c].size();
  for (const auto& r : rows_)
    for (size_t c = 0; c < r.size() && c < w.size(); ++c) w[c] = std::max(w[c], r[c].size());
  auto line = [&](const std::vector<std::string>& r) {
    std::string s;
    for (size_t c = 0; c < w.size(); ++c) {
      const std::string& v = c < r.size() ? r[c] : std::string();
      const std::string pad(w[c] - std::min(w[c], v.size()), ' ');
      s += c ? "  " : "";
      s += c < left_ ? v + pad : pad + v;
    }
    while (!s.empty() && s.back() == ' ') s.pop_back();
    std::fprintf(f, "%s\n", s.c_str());
  };
  line(headers_);
  size_t total = 0;
  for (size_t c = 0; c < w.size(); ++c) total += w[c] + (c ? 2 : 0);
  std::fprintf(f, "%s\n", std::string(total, '-').c_str());
  for (const auto& r : rows_) line(r);
}

std::string api_error(const char* what, zcoll_status s) {
  return std::string(what) + ": " + zcoll_status_string(s) + ": " + zcoll_last_error();
}

}  // namespace zcoll_bench
