// zcoll_calibrate.cc — measure, on this machine and real data, what the SMPI
// simulation charges (docs/scale.md): the throughput of every local step of
// the collectives at 1 and 2 threads, and the compression ratio of a partial
// sum of k inputs. Writes a JSON report and the profile that the simulated
// library reads (ZCOLL_SIM_PROFILE, src/coll/datapath/sim_cost.h).
//
//   zcoll-calibrate --data FILE.f32 [--rel 1e-4] [--values 4M] [--threads 1,2]
//                   [--terms 1,2,8,64,512] [--repeat 5] --json OUT.json --profile OUT.txt
//
// Inputs: input p (p = 0..K-1, K = the largest --terms) is FILE tiled, starting
// p/K of the way in (plus p*7919 values), as zcoll-bench gives rank p of K.
// The bound is --rel times the file's value range (ABS, as the collectives
// use it). Everything works on pipeline segments of 65536 values (the
// collectives' default ZCOLL_PIPELINE_VALUES = 4 chunks), one stream each.
//
// Measured, GB/s of uncompressed bytes (best of --repeat passes over --values
// values, segment by segment):
//   compress    zcoll_compress of the values of a k-input partial sum
//   decompress  zcoll_decompress of the k-input stream
//   accumulate  zcoll_decompress_accumulate of it (dst += x')
//   hom_add     zcoll_hom_add(k-input stream, one input's stream) (bytes of one input)
//   reduce      dst[i] = a[i] + b[i] in float (the collectives' local SUM), OpenMP
//   copy        memmove of the values
// Ratio(k): bytes of the values / bytes of the k-input hom sum streams.
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "../common/split.h"
#include "core/units.h"
#include "zcoll.h"

namespace {

constexpr size_t kSeg = 65536;

double now() {
  using namespace std::chrono;
  return duration<double>(steady_clock::now().time_since_epoch()).count();
}

using zcoll::tools::split;

void check(zcoll_status s, const char* what) {
  if (s != ZCOLL_SUCCESS)
    throw std::runtime_error(std::string(what) + ": " + zcoll_status_string(s) + ": " +
                             zcoll_last_error());
}

// A piece as consecutive segment streams.
struct Streams {
  std::vector<uint8_t> buf;
  std::vector<size_t> off, size;
  size_t total() const {
    size_t t = 0;
    for (size_t s : size) t += s;
    return t;
  }
};

size_t nsegs(size_t n) { return (n + kSeg - 1) / kSeg; }
size_t seglen(size_t n, size_t k) { return std::min(kSeg, n - k * kSeg); }

Streams alloc_streams(size_t n) {
  Streams s;
  size_t pos = 0;
  for (size_t k = 0; k < nsegs(n); ++k) {
    s.off.push_back(pos);
    s.size.push_back(0);
    pos += zcoll_compress_bound(seglen(n, k), ZCOLL_FLOAT32);
  }
  s.buf.resize(pos + 8);
  return s;
}

void compress_all(const zcoll_params& p, const float* x, size_t n, Streams& s, int threads) {
  for (size_t k = 0; k < nsegs(n); ++k)
    check(zcoll_compress(&p, ZCOLL_FLOAT32, x + k * kSeg, seglen(n, k), s.buf.data() + s.off[k],
                         zcoll_compress_bound(seglen(n, k), ZCOLL_FLOAT32), &s.size[k], threads),
          "compress");
}

template <typename F>
double best_gbps(size_t bytes, int repeat, F f) {
  double best = 1e300;
  f();  // warm-up
  for (int r = 0; r < repeat; ++r) {
    const double t0 = now();
    f();
    best = std::min(best, now() - t0);
  }
  return static_cast<double>(bytes) / best / 1e9;
}

struct Options {
  std::string data, json, profile;
  double rel = 1e-4;
  size_t values = size_t{4} << 20;
  std::string threads_s = "1,2", terms_s = "1,2,8,64,512";
  int repeat = 5;
};

// The command line into *o; returns false after printing the usage.
bool parse_args(int argc, char** argv, Options* o) {
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto next = [&]() -> std::string {
      if (i + 1 >= argc) throw std::runtime_error(a + " needs a value");
      return argv[++i];
    };
    if (a == "--data")
      o->data = next();
    else if (a == "--json")
      o->json = next();
    else if (a == "--profile")
      o->profile = next();
    else if (a == "--rel")
      o->rel = std::stod(next());
    else if (a == "--values") {
      const std::string v = next();
      uint64_t n = 0;
      if (!zcoll::units::parse_size(v.c_str(), &n) || n == 0)
        throw std::runtime_error("--values " + v + ": expected a count (4M, 65536)");
      o->values = static_cast<size_t>(n);
    } else if (a == "--threads")
      o->threads_s = next();
    else if (a == "--terms")
      o->terms_s = next();
    else if (a == "--repeat")
      o->repeat = std::stoi(next());
    else {
      std::fprintf(
          stderr,
          "usage: zcoll-calibrate --data FILE.f32 [--rel 1e-4] [--values 4M] [--threads 1,2]\n"
          "       [--terms 1,2,8,64,512] [--repeat 5] [--json OUT] [--profile OUT]\n");
      return false;
    }
  }
  return true;
}

std::vector<float> read_values(const std::string& data) {
  std::ifstream f(data, std::ios::binary);
  if (!f) throw std::runtime_error("cannot open " + data);
  std::vector<char> bytes((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  std::vector<float> src(bytes.size() / 4);
  std::memcpy(src.data(), bytes.data(), src.size() * 4);
  if (src.empty()) throw std::runtime_error(data + " holds no values");
  return src;
}

using Curves = std::map<std::string, std::map<int, double>>;  // kind -> terms -> GB/s
using Throughput = std::map<int, Curves>;                     // threads -> ...

// The buffers of the measurement over n values: x an input, vals the values
// of the k-input partial sum; its streams `sum`, one input's `one`.
struct Bench {
  Bench(const zcoll_params& params, size_t count, int reps)
      : p(params),
        n(count),
        repeat(reps),
        x(count),
        vals(count),
        tmp(count),
        acc(count),
        one(alloc_streams(count)),
        sum(alloc_streams(count)),
        nxt(alloc_streams(count)),
        work(alloc_streams(count)) {}
  const zcoll_params& p;
  size_t n;
  int repeat;
  std::vector<float> x, vals, tmp, acc;
  Streams one, sum, nxt, work;
  std::vector<uint8_t> one_copy;  // one's bytes
};

// sum += x (hom_add segment by segment, through nxt).
void add_input(Bench& b) {
  const size_t n = b.n;
  compress_all(b.p, b.x.data(), n, b.work, 1);
  for (size_t s = 0; s < nsegs(n); ++s)
    check(zcoll_hom_add(
              b.sum.buf.data() + b.sum.off[s], b.sum.size[s], b.work.buf.data() + b.work.off[s],
              b.work.size[s], b.nxt.buf.data() + b.nxt.off[s],
              zcoll_compress_bound(seglen(n, s), ZCOLL_FLOAT32), &b.nxt.size[s], nullptr, 1),
          "hom_add");
  std::swap(b.sum, b.nxt);
}

// The local SUM (one pipeline segment per call, as the collectives do) and
// memmove, on t threads.
void measure_reduce_and_copy(Bench& b, int t, Curves& T) {
  const size_t n = b.n;
  const int nt = t;
  T["reduce"][1] = best_gbps(n * 4, b.repeat, [&] {
    for (size_t s = 0; s < nsegs(n); ++s) {
      float* o = b.tmp.data() + s * kSeg;
      const float* x = b.vals.data() + s * kSeg;
      const float* y = b.x.data() + s * kSeg;
      const int64_t len = static_cast<int64_t>(seglen(n, s));
#pragma omp parallel for num_threads(nt) schedule(static) if (nt > 1)
      for (int64_t i = 0; i < len; ++i) o[i] = x[i] + y[i];
    }
  });
  T["copy"][1] =
      best_gbps(n * 4, b.repeat, [&] { std::memmove(b.tmp.data(), b.vals.data(), n * 4); });
}

// The codec's throughputs on the k-input partial sum with t threads.
void measure(Bench& b, int k, int t, Curves& T) {
  const size_t n = b.n;
  const Streams& sum = b.sum;
  T["compress"][k] =
      best_gbps(n * 4, b.repeat, [&] { compress_all(b.p, b.vals.data(), n, b.work, t); });
  T["decompress"][k] = best_gbps(n * 4, b.repeat, [&] {
    for (size_t s = 0; s < nsegs(n); ++s)
      check(zcoll_decompress(sum.buf.data() + sum.off[s], sum.size[s], b.tmp.data() + s * kSeg,
                             seglen(n, s), t),
            "decompress");
  });
  T["accumulate"][k] = best_gbps(n * 4, b.repeat, [&] {
    for (size_t s = 0; s < nsegs(n); ++s)
      check(zcoll_decompress_accumulate(sum.buf.data() + sum.off[s], sum.size[s],
                                        b.acc.data() + s * kSeg, seglen(n, s), t),
            "accumulate");
  });
  T["hom_add"][k] = best_gbps(n * 4, b.repeat, [&] {
    for (size_t s = 0; s < nsegs(n); ++s)
      check(zcoll_hom_add(
                sum.buf.data() + sum.off[s], sum.size[s], b.one_copy.data() + b.one.off[s],
                b.one.size[s], b.work.buf.data() + b.work.off[s],
                zcoll_compress_bound(seglen(n, s), ZCOLL_FLOAT32), &b.work.size[s], nullptr, t),
            "hom_add");
  });
  if (k == 1) measure_reduce_and_copy(b, t, T);
}

void write_profile(const Options& o, double eb, const std::map<int, double>& ratio,
                   const Throughput& tput) {
  std::FILE* pf = std::fopen(o.profile.c_str(), "w");
  if (!pf) throw std::runtime_error("cannot write " + o.profile);
  std::fprintf(pf, "# zcoll simulation profile (zcoll-calibrate): %s, REL %g (ABS %.9g)\n",
               o.data.c_str(), o.rel, eb);
  std::fprintf(pf, "# tput THREADS KIND TERMS GB/s  |  ratio TERMS RATIO\n");
  for (auto& [t, kinds] : tput)
    for (auto& [kind, curve] : kinds)
      for (auto& [k, g] : curve) std::fprintf(pf, "tput %d %s %d %.6g\n", t, kind.c_str(), k, g);
  for (auto& [k, r] : ratio) std::fprintf(pf, "ratio %d %.6g\n", k, r);
  std::fclose(pf);
}

std::string cpu_model() {
  std::ifstream cpu("/proc/cpuinfo");
  std::string line, model = "?";
  while (std::getline(cpu, line))
    if (line.rfind("model name", 0) == 0) {
      model = line.substr(line.find(':') + 2);
      break;
    }
  return model;
}

// The "gbps" object's members: {"T": {"KIND": {"TERMS": GB/s, ...}, ...}, ...}.
void write_gbps(std::FILE* jf, const Throughput& tput) {
  bool ft = true;
  for (auto& [t, kinds] : tput) {
    std::fprintf(jf, "%s\n    \"%d\": {", ft ? "" : ",", t);
    ft = false;
    bool fk = true;
    for (auto& [kind, curve] : kinds) {
      std::fprintf(jf, "%s\n      \"%s\": {", fk ? "" : ",", kind.c_str());
      fk = false;
      bool fc = true;
      for (auto& [k, g] : curve) {
        std::fprintf(jf, "%s\"%d\": %.6g", fc ? "" : ", ", k, g);
        fc = false;
      }
      std::fprintf(jf, "}");
    }
    std::fprintf(jf, "\n    }");
  }
}

void write_json(const Options& o, double eb, int K, const std::map<int, double>& ratio,
                const Throughput& tput) {
  std::FILE* jf = std::fopen(o.json.c_str(), "w");
  if (!jf) throw std::runtime_error("cannot write " + o.json);
  std::fprintf(jf,
               "{\n  \"tool\": \"zcoll-calibrate\",\n  \"cpu\": \"%s\",\n  \"omp_procs\": %d,\n",
               cpu_model().c_str(), omp_get_num_procs());
  std::fprintf(jf, "  \"data\": \"%s\",\n  \"rel\": %g,\n  \"abs_bound\": %.9g,\n", o.data.c_str(),
               o.rel, eb);
  std::fprintf(jf,
               "  \"values\": %zu,\n  \"segment_values\": %zu,\n  \"inputs\": %d,\n  \"repeat\": "
               "%d,\n",
               o.values, kSeg, K, o.repeat);
  std::fprintf(jf, "  \"ratio\": {");
  bool first = true;
  for (auto& [k, r] : ratio) {
    std::fprintf(jf, "%s\"%d\": %.6g", first ? "" : ", ", k, r);
    first = false;
  }
  std::fprintf(jf, "},\n  \"gbps\": {");
  write_gbps(jf, tput);
  std::fprintf(jf, "\n  }\n}\n");
  std::fclose(jf);
}

void calibrate(const Options& o) {
  const std::vector<float> src = read_values(o.data);
  double lo = 0, hi = 0;
  check(zcoll_value_range(ZCOLL_FLOAT32, src.data(), src.size(), &lo, &hi, 1), "range");
  const double eb = o.rel * (hi - lo);
  std::vector<int> threads, terms;
  for (auto& t : split(o.threads_s, ',')) threads.push_back(std::stoi(t));
  for (auto& t : split(o.terms_s, ',')) terms.push_back(std::stoi(t));
  std::sort(terms.begin(), terms.end());
  const int K = terms.back();
  const size_t n = o.values, m = src.size();

  zcoll_params p;
  std::memset(&p, 0, sizeof p);
  p.struct_size = sizeof p;
  p.eb_mode = ZCOLL_EB_ABS;
  p.error_bound = eb;
  p.chunk_size = 0;

  auto input = [&](int r, std::vector<float>& x) {
    const size_t start = static_cast<size_t>(r) * (m / K) + static_cast<size_t>(r) * 7919;
    for (size_t i = 0; i < n; ++i) x[i] = src[(i + start) % m];
  };

  Bench b(p, n, o.repeat);
  std::map<int, double> ratio;
  Throughput tput;
  // one input's stream, for the hom_add measurement
  input(K - 1, b.x);
  compress_all(p, b.x.data(), n, b.one, 1);
  b.one_copy = b.one.buf;

  size_t ti = 0;
  for (int k = 1; k <= K; ++k) {
    input(k - 1, b.x);
    if (k == 1)
      compress_all(p, b.x.data(), n, b.sum, 1);
    else
      add_input(b);
    if (ti >= terms.size() || k != terms[ti]) continue;
    ++ti;
    ratio[k] = static_cast<double>(n * 4) / static_cast<double>(b.sum.total());
    // the partial's values (what DOC compresses)
    for (size_t s = 0; s < nsegs(n); ++s)
      check(zcoll_decompress(b.sum.buf.data() + b.sum.off[s], b.sum.size[s],
                             b.vals.data() + s * kSeg, seglen(n, s), 1),
            "decompress");
    for (int t : threads) {
      Curves& T = tput[t];
      measure(b, k, t, T);
      std::fprintf(stderr, "terms %4d threads %d: ratio %.3f  c %.2f d %.2f a %.2f h %.2f GB/s\n",
                   k, t, ratio[k], T["compress"][k], T["decompress"][k], T["accumulate"][k],
                   T["hom_add"][k]);
    }
  }
  if (!o.profile.empty()) write_profile(o, eb, ratio, tput);
  if (!o.json.empty()) write_json(o, eb, K, ratio, tput);
}

}  // namespace

int main(int argc, char** argv) {
  try {
    Options o;
    if (!parse_args(argc, argv, &o)) return 2;
    if (o.data.empty()) {
      std::fprintf(stderr, "zcoll-calibrate: --data FILE.f32 is required\n");
      return 2;
    }
    calibrate(o);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "zcoll-calibrate: %s\n", e.what());
    return 1;
  }
  return 0;
}
