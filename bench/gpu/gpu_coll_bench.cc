// zcoll-gpu-coll-bench — the GPU side of the collectives (docs/gpu.md):
//
//   zcoll-gpu-coll-bench calibrate --data FILE.f32 [--rel 1e-4] [--values 4M]
//       [--terms 1,2,8,64,512] [--repeat 5] --json OUT
//     One process. The device rates of every local step of a collective, measured
//     as tools/simscale/zcoll-calibrate measures the CPU's (same inputs: rank p's
//     input starts p/K into the file; same 65536-value pipeline segments; ABS bound
//     = REL x the data's range; the sum of k inputs built homomorphically), in two
//     ways: "synced" = one host wait per segment, as the collectives run today
//     (sizes go back to the host after each operation), and "async" = all segments
//     enqueued, one wait (the kernels' own rate). GB/s of uncompressed bytes.
//     tools/simscale/gpu_profile.py turns the JSON into a SimGrid profile.
//     Also a check: the decompressed sum of k inputs against the exact sum,
//     within the k compressions' bounds ("check" in the JSON).
//
//   mpirun -np N zcoll-gpu-coll-bench coll [--data FILE.f32] [--mb 1,16,64]
//       [--modes mpi,raw,cpr_p2p,doc,hom] [--colls all] [--rel 1e-4] [--repeat 5]
//       [--cuda-aware] --json OUT
//     The collectives on device buffers through libzcoll_cuda_mpi: per call the
//     median wall time over --repeat calls and, from rank 0, the report's codec /
//     reduce / communication times and the device time of its kernels
//     (zcoll_cuda_comm_device_stats), next to the baseline MPI_Allreduce on the
//     same device buffers. Also a check: each Allreduce's result against the
//     exact sum within the reported bound ("wrong" values per row).
// Every upload goes to the stream the work runs on (a cudaMemcpy goes to the
// legacy default stream, which the cudaStreamNonBlocking stream does not wait
// for). Exit status 4 when there is no CUDA device, 5 when a check failed.
#include <cuda_runtime_api.h>
#include <mpi.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "cuda/coll/kernels.h"
#include "gpu_checks.h"
#include "zcoll_cuda_mpi.h"

namespace {

double now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

std::vector<std::string> split(const std::string& s, char c) {
  std::vector<std::string> v;
  size_t i = 0;
  while (i <= s.size()) {
    size_t j = s.find(c, i);
    if (j == std::string::npos) j = s.size();
    if (j > i) v.push_back(s.substr(i, j - i));
    i = j + 1;
  }
  return v;
}

std::vector<float> read_f32(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  if (!f) {
    std::fprintf(stderr, "cannot open %s\n", path.c_str());
    std::exit(2);
  }
  std::vector<char> b((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  std::vector<float> v(b.size() / 4);
  std::memcpy(v.data(), b.data(), v.size() * 4);
  return v;
}

// Host -> device on stream st, complete on return (h may be reused at once).
void upload(void* d, const void* h, size_t bytes, cudaStream_t st) {
  CK(cudaMemcpyAsync(d, h, bytes, cudaMemcpyHostToDevice, st));
  CK(cudaStreamSynchronize(st));
}

// Values of got farther from want than bound plus the rounding of a float sum
// of `terms` values whose magnitudes add up to mag[i] (want[i]'s own when mag is
// empty); non-finite results count. *worst = max |got - want| / bound.
size_t count_wrong(const std::vector<float>& got, const std::vector<double>& want, double bound,
                   double* worst, const std::vector<double>& mag = {}, int terms = 1) {
  size_t wrong = 0;
  *worst = 0;
  for (size_t i = 0; i < got.size(); ++i) {
    const double err = std::fabs(static_cast<double>(got[i]) - want[i]);
    const double m = mag.empty() ? std::fabs(want[i]) : mag[i];
    const double slack = 1.2e-7 * (terms + 1) * std::max(1e-30, m);
    if (!(err <= bound + slack)) ++wrong;
    if (bound > 0 && err / bound > *worst) *worst = err / bound;
  }
  return wrong;
}

// ---- calibrate ---------------------------------------------------------------------
constexpr size_t kSeg = 65536;

struct DevStreams {  // a piece as segment streams in one device buffer
  uint8_t* buf = nullptr;
  std::vector<size_t> off, size;
  size_t total() const {
    size_t t = 0;
    for (size_t s : size) t += s;
    return t;
  }
};

size_t nsegs(size_t n) { return (n + kSeg - 1) / kSeg; }
size_t seglen(size_t n, size_t k) { return std::min(kSeg, n - k * kSeg); }

DevStreams alloc_streams(size_t n) {
  DevStreams s;
  size_t pos = 0;
  for (size_t k = 0; k < nsegs(n); ++k) {
    s.off.push_back(pos);
    s.size.push_back(0);
    pos += zcoll_compress_bound(seglen(n, k), ZCOLL_FLOAT32);
  }
  CK(cudaMalloc(reinterpret_cast<void**>(&s.buf), pos + 8));
  return s;
}

struct Cal {
  cudaStream_t st;
  zcoll_cuda_result* res;  // one per segment
  size_t n;
  bool synced;
  // each op of segment k: enqueue; synced: wait at once and keep the size
  template <typename F>
  void each(F enqueue, std::vector<size_t>* sizes) {
    for (size_t k = 0; k < nsegs(n); ++k) {
      ZK(enqueue(k, res + k));
      if (synced) {
        size_t sz = 0;
        ZK(zcoll_cuda_result_get(res + k, &sz, st));
        if (sizes) (*sizes)[k] = sz;
      }
    }
    if (!synced) {
      CK(cudaStreamSynchronize(st));
      if (sizes)
        for (size_t k = 0; k < nsegs(n); ++k) {
          size_t sz = 0;
          ZK(zcoll_cuda_result_get(res + k, &sz, st));
          (*sizes)[k] = sz;
        }
    }
  }
};

template <typename F>
double best_gbps(size_t bytes, int repeat, F f) {
  double best = 1e300;
  f();
  for (int r = 0; r < repeat; ++r) {
    const double t0 = now();
    f();
    best = std::min(best, now() - t0);
  }
  return static_cast<double>(bytes) / best / 1e9;
}

using Args = std::map<std::string, std::string>;
using Curves = std::map<std::string, std::map<int, double>>;  // kind -> terms -> GB/s

// The device buffers of a calibration over n values: dx an input, vals the
// values of the k-input sum; one input's streams `one`, the sum's `sum`.
struct CalBuffers {
  cudaStream_t st;
  zcoll_cuda_result* res;  // one per segment
  float *dx, *vals, *tmp, *acc;
  DevStreams one, sum, nxt, work;
};

CalBuffers alloc_cal(size_t n) {
  CalBuffers b;
  CK(cudaStreamCreateWithFlags(&b.st, cudaStreamNonBlocking));
  CK(cudaMalloc(reinterpret_cast<void**>(&b.res), nsegs(n) * sizeof(zcoll_cuda_result)));
  CK(cudaMalloc(reinterpret_cast<void**>(&b.dx), n * 4));
  CK(cudaMalloc(reinterpret_cast<void**>(&b.vals), n * 4));
  CK(cudaMalloc(reinterpret_cast<void**>(&b.tmp), n * 4));
  CK(cudaMalloc(reinterpret_cast<void**>(&b.acc), n * 4));
  CK(cudaMemset(b.acc, 0, n * 4));
  b.one = alloc_streams(n);
  b.sum = alloc_streams(n);
  b.nxt = alloc_streams(n);
  b.work = alloc_streams(n);
  return b;
}

// The c.n values at v compressed into s, segment by segment.
void compress_into(const zcoll_params& p, const float* v, DevStreams& s, Cal& c) {
  const size_t n = c.n;
  c.each(
      [&](size_t k, zcoll_cuda_result* r) {
        return zcoll_cuda_compress(&p, ZCOLL_FLOAT32, v + k * kSeg, seglen(n, k), s.buf + s.off[k],
                                   zcoll_compress_bound(seglen(n, k), ZCOLL_FLOAT32), r, c.st);
      },
      &s.size);
}

// sum += the input at dx (hom add segment by segment, through nxt).
void add_input(const zcoll_params& p, CalBuffers& b, Cal& c) {
  const size_t n = c.n;
  compress_into(p, b.dx, b.work, c);
  c.each(
      [&](size_t s, zcoll_cuda_result* r) {
        return zcoll_cuda_hom_add(
            b.sum.buf + b.sum.off[s], b.sum.size[s], b.work.buf + b.work.off[s], b.work.size[s],
            b.nxt.buf + b.nxt.off[s], zcoll_compress_bound(seglen(n, s), ZCOLL_FLOAT32), r, c.st);
      },
      &b.nxt.size);
  std::swap(b.sum, b.nxt);
}

// The element-wise kernel the collectives use (elementwise.cu), one call per
// segment (the synced way waits after each, as the collectives' next
// synchronizing step does at the latest), and a device-to-device copy.
void measure_reduce_and_copy(CalBuffers& b, const Cal& c, int repeat, Curves& T) {
  const size_t n = c.n;
  cudaStream_t st = b.st;
  T["reduce"][1] = best_gbps(n * 4, repeat, [&] {
    for (size_t s = 0; s < nsegs(n); ++s) {
      CK(zcoll::cuda::coll::launch_reduce(ZCOLL_FLOAT32, ZCOLL_OP_SUM, b.tmp + s * kSeg,
                                          b.vals + s * kSeg, b.dx + s * kSeg, seglen(n, s), st));
      if (c.synced) CK(cudaStreamSynchronize(st));
    }
    CK(cudaStreamSynchronize(st));
  });
  T["copy"][1] = best_gbps(n * 4, repeat, [&] {
    CK(cudaMemcpyAsync(b.tmp, b.vals, n * 4, cudaMemcpyDeviceToDevice, st));
    CK(cudaStreamSynchronize(st));
  });
}

// The device rates on the k-input sum, one way (c.synced or not).
void measure_way(const zcoll_params& p, CalBuffers& b, Cal& c, int k, int repeat, Curves& T) {
  const size_t n = c.n;
  cudaStream_t st = b.st;
  const DevStreams &sum = b.sum, &one = b.one;
  std::vector<size_t> sizes(nsegs(n));
  T["compress"][k] = best_gbps(n * 4, repeat, [&] { compress_into(p, b.vals, b.work, c); });
  T["decompress"][k] = best_gbps(n * 4, repeat, [&] {
    c.each(
        [&](size_t s, zcoll_cuda_result* r) {
          return zcoll_cuda_decompress(sum.buf + sum.off[s], sum.size[s], b.tmp + s * kSeg,
                                       seglen(n, s), r, st);
        },
        nullptr);
  });
  T["accumulate"][k] = best_gbps(n * 4, repeat, [&] {
    c.each(
        [&](size_t s, zcoll_cuda_result* r) {
          return zcoll_cuda_decompress_accumulate(sum.buf + sum.off[s], sum.size[s],
                                                  b.acc + s * kSeg, seglen(n, s), r, st);
        },
        nullptr);
  });
  T["hom_add"][k] = best_gbps(n * 4, repeat, [&] {
    c.each(
        [&](size_t s, zcoll_cuda_result* r) {
          return zcoll_cuda_hom_add(sum.buf + sum.off[s], sum.size[s], one.buf + one.off[s],
                                    one.size[s], b.work.buf + b.work.off[s],
                                    zcoll_compress_bound(seglen(n, s), ZCOLL_FLOAT32), r, st);
        },
        &sizes);
  });
  if (k == 1) measure_reduce_and_copy(b, c, repeat, T);
}

// The sum of k inputs decoded into vals, each input within eb: within k * eb of
// the exact sum. Returns the wrong values; *worst = max |error| / bound.
size_t check_sum(const CalBuffers& b, Cal& cs, const std::vector<double>& exact, int k, double eb,
                 double* worst) {
  const size_t n = cs.n;
  cs.each(
      [&](size_t s, zcoll_cuda_result* r) {
        return zcoll_cuda_decompress(b.sum.buf + b.sum.off[s], b.sum.size[s], b.vals + s * kSeg,
                                     seglen(n, s), r, b.st);
      },
      nullptr);
  std::vector<float> got(n);
  CK(cudaMemcpyAsync(got.data(), b.vals, n * 4, cudaMemcpyDeviceToHost, b.st));
  CK(cudaStreamSynchronize(b.st));
  const size_t bad = count_wrong(got, exact, k * eb, worst);
  if (bad)
    std::fprintf(stderr, "check: %zu of %zu values of the sum of %d inputs wrong\n", bad, n, k);
  return bad;
}

std::string device_name() {
  cudaDeviceProp prop{};
  int dev = 0;
  cudaGetDevice(&dev);
  cudaGetDeviceProperties(&prop, dev);
  return prop.name;
}

// A JSON object of curves: {"WAY": {"KIND": {"TERMS": GB/s, ...}, ...}, ...}.
void write_gbps(std::FILE* f, const std::map<std::string, Curves>& g) {
  bool fw = true;
  for (auto& [way, kinds] : g) {
    std::fprintf(f, "%s\n  \"%s\": {", fw ? "" : ",", way.c_str());
    fw = false;
    bool fk = true;
    for (auto& [kind, curve] : kinds) {
      std::fprintf(f, "%s\n   \"%s\": {", fk ? "" : ",", kind.c_str());
      fk = false;
      bool fc = true;
      for (auto& [k, v] : curve) {
        std::fprintf(f, "%s\"%d\": %.6g", fc ? "" : ", ", k, v);
        fc = false;
      }
      std::fprintf(f, "}");
    }
    std::fprintf(f, "}");
  }
}

// What calibrate measured.
struct CalResult {
  std::map<std::string, Curves> g;  // way -> kind -> k
  std::map<int, double> ratio;
  size_t wrong = 0;
  double worst = 0;
};

bool write_cal_json(const Args& o, double rel, size_t n, int repeat, const CalResult& cr) {
  std::FILE* f = std::fopen(o.at("json").c_str(), "w");
  if (!f) return false;
  std::fprintf(f,
               "{\n \"tool\": \"zcoll-gpu-coll-bench calibrate\",\n \"device\": \"%s\",\n"
               " \"data\": \"%s\",\n \"rel\": %.17g,\n \"values\": %zu,\n"
               " \"segment_values\": %zu,\n \"repeat\": %d,\n \"gbps\": {",
               device_name().c_str(), o.at("data").c_str(), rel, n, kSeg, repeat);
  write_gbps(f, cr.g);
  std::fprintf(f, "},\n \"ratio\": {");
  bool fr = true;
  for (auto& [k, r] : cr.ratio) {
    std::fprintf(f, "%s\"%d\": %.6g", fr ? "" : ", ", k, r);
    fr = false;
  }
  std::fprintf(f, "},\n \"check\": {\"wrong\": %zu, \"max_error_over_bound\": %.6g}\n}\n", cr.wrong,
               cr.worst);
  std::fclose(f);
  return true;
}

int calibrate(const Args& o) {
  if (!o.count("data") || !o.count("json")) {
    std::fprintf(stderr, "calibrate needs --data FILE.f32 and --json OUT\n");
    return 2;
  }
  const std::vector<float> src = read_f32(o.at("data"));
  if (src.empty()) return 2;
  const double rel = o.count("rel") ? std::atof(o.at("rel").c_str()) : 1e-4;
  const size_t n = o.count("values") ? std::strtoull(o.at("values").c_str(), nullptr, 10)
                                     : size_t{4} << 20;
  const int repeat = o.count("repeat") ? std::atoi(o.at("repeat").c_str()) : 5;
  std::vector<int> terms;
  for (auto& t : split(o.count("terms") ? o.at("terms") : "1,2,8,64,512", ','))
    terms.push_back(std::atoi(t.c_str()));
  std::sort(terms.begin(), terms.end());
  const int K = terms.back();
  const size_t m = src.size();
  auto [lo_it, hi_it] = std::minmax_element(src.begin(), src.end());
  const double eb = rel * (static_cast<double>(*hi_it) - *lo_it);
  zcoll_params p;
  std::memset(&p, 0, sizeof p);
  p.struct_size = sizeof p;
  p.eb_mode = ZCOLL_EB_ABS;
  p.error_bound = eb;
  std::vector<float> x(n);
  auto input = [&](int r) {
    const size_t start = static_cast<size_t>(r) * (m / K) + static_cast<size_t>(r) * 7919;
    for (size_t i = 0; i < n; ++i) x[i] = src[(i + start) % m];
  };
  CalBuffers b = alloc_cal(n);
  Cal cs{b.st, b.res, n, true};
  input(K - 1);
  upload(b.dx, x.data(), n * 4, b.st);
  compress_into(p, b.dx, b.one, cs);
  std::vector<double> exact(n, 0.0);  // the sum of the inputs so far
  CalResult cr;
  size_t ti = 0;
  for (int k = 1; k <= K; ++k) {
    input(k - 1);
    upload(b.dx, x.data(), n * 4, b.st);
    for (size_t i = 0; i < n; ++i) exact[i] += static_cast<double>(x[i]);
    if (k == 1)
      compress_into(p, b.dx, b.sum, cs);
    else
      add_input(p, b, cs);
    if (ti >= terms.size() || k != terms[ti]) continue;
    ++ti;
    cr.ratio[k] = static_cast<double>(n * 4) / static_cast<double>(b.sum.total());
    double w = 0;
    cr.wrong += check_sum(b, cs, exact, k, eb, &w);
    cr.worst = std::max(cr.worst, w);
    for (int way = 0; way < 2; ++way) {
      Cal c{b.st, b.res, n, way == 0};
      Curves& T = cr.g[way == 0 ? "synced" : "async"];
      measure_way(p, b, c, k, repeat, T);
      std::fprintf(stderr, "%s terms %4d: ratio %.3f  c %.1f d %.1f a %.1f h %.1f GB/s\n",
                   way == 0 ? "synced" : "async ", k, cr.ratio[k], T["compress"][k],
                   T["decompress"][k], T["accumulate"][k], T["hom_add"][k]);
    }
  }
  if (!write_cal_json(o, rel, n, repeat, cr)) return 2;
  std::fprintf(stderr, "check: %zu wrong values, max |error| / bound %.3g\n", cr.wrong, cr.worst);
  return cr.wrong ? 5 : 0;
}

// ---- coll --------------------------------------------------------------------------
struct CollRow {
  std::string coll, mode;
  size_t bytes;
  double t_median, t_min, compress, reduce, comm, kernel, staging, ratio, bound;
  uint64_t sent, kernels;
  int status;
  long wrong;  // Allreduce: values outside the bound (-1: not checked)
};

// What every row of `coll` shares.
struct CollRun {
  int rank = 0, N = 1, repeat = 5;
  zcoll_cuda_comm* zcc = nullptr;
  cudaStream_t st = nullptr;
};

// One message size: n floats a rank (device buffers a, b), the exact Allreduce
// result, and the sum of magnitudes that bounds the rounding of adding N floats
// (partial sums may be larger than the result).
struct Message {
  size_t n = 0;
  float *a = nullptr, *b = nullptr;
  std::vector<double> sum, mag;
};

Message make_message(const CollRun& run, const std::vector<float>& src, double mb) {
  Message msg;
  const size_t n = msg.n = static_cast<size_t>(mb * 1e6 / 4);
  auto value = [&](int r, size_t i) {
    return src.empty() ? static_cast<float>(std::sin(1e-4 * i + r))
                       : src[(i + static_cast<size_t>(r) * 7919) % src.size()];
  };
  std::vector<float> h(n * run.N);
  for (size_t i = 0; i < h.size(); ++i) h[i] = value(run.rank, i);
  msg.sum.assign(n, 0.0);
  msg.mag.assign(n, 0.0);
  for (int r = 0; r < run.N; ++r)
    for (size_t i = 0; i < n; ++i) {
      msg.sum[i] += static_cast<double>(value(r, i));
      msg.mag[i] += std::fabs(static_cast<double>(value(r, i)));
    }
  CK(cudaMalloc(reinterpret_cast<void**>(&msg.a), h.size() * 4));
  CK(cudaMalloc(reinterpret_cast<void**>(&msg.b), h.size() * 4));
  upload(msg.a, h.data(), h.size() * 4, run.st);
  return msg;
}

// One call of collective `cname` on the message (rooted / gathering
// collectives: n values in all, blocks of n / N).
zcoll_status call_coll(const CollRun& run, const std::string& cname, const Message& msg,
                       zcoll_report* rep) {
  zcoll_cuda_comm* zcc = run.zcc;
  float *a = msg.a, *b = msg.b;
  const size_t n = msg.n, blk = n / run.N;
  cudaStream_t st = run.st;
  if (cname == "allreduce" || cname == "allreduce_rd")
    return zcoll_cuda_allreduce(zcc, a, b, n, MPI_FLOAT, MPI_SUM, st, rep);
  if (cname == "reduce_scatter")
    return zcoll_cuda_reduce_scatter_block(zcc, a, b, blk, MPI_FLOAT, MPI_SUM, st, rep);
  if (cname == "allgather") return zcoll_cuda_allgather(zcc, a, b, blk, MPI_FLOAT, st, rep);
  if (cname == "bcast") return zcoll_cuda_bcast(zcc, b, n, MPI_FLOAT, 0, st, rep);
  if (cname == "scatter") return zcoll_cuda_scatter(zcc, a, b, blk, MPI_FLOAT, 0, st, rep);
  if (cname == "reduce") return zcoll_cuda_reduce(zcc, a, b, n, MPI_FLOAT, MPI_SUM, 0, st, rep);
  if (cname == "gather") return zcoll_cuda_gather(zcc, a, b, blk, MPI_FLOAT, 0, st, rep);
  return ZCOLL_ERR_INVALID_ARG;
}

// A warm-up and `repeat` timed runs of call(), timed as the slowest rank's:
// the sorted times. Stops at the first failure (*status).
template <typename F>
std::vector<double> time_calls(int repeat, F call, zcoll_status* status) {
  std::vector<double> ts;
  zcoll_status s = ZCOLL_SUCCESS;
  for (int r = 0; r <= repeat && s == ZCOLL_SUCCESS; ++r) {  // r = 0: warm-up
    MPI_Barrier(MPI_COMM_WORLD);
    const double t0 = now();
    s = call();
    double t = now() - t0;
    MPI_Allreduce(MPI_IN_PLACE, &t, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    if (r > 0) ts.push_back(t);
  }
  std::sort(ts.begin(), ts.end());
  *status = s;
  return ts;
}

// One collective in one mode; *wrong_all: the most wrong values on any rank.
CollRow coll_row(const CollRun& run, const std::string& cname, const std::string& mname,
                 const Message& msg, long* wrong_all) {
  zcoll_mode mode;
  ZK(zcoll_mode_from_name(mname.c_str(), &mode));
  ZK(zcoll_cuda_comm_set_mode(run.zcc, mode));
  ZK(zcoll_cuda_comm_set_algorithm(
      run.zcc, ZCOLL_COLL_ALLREDUCE,
      cname == "allreduce_rd" ? ZCOLL_ALGO_RECURSIVE_DOUBLING : ZCOLL_ALGO_RING));
  const size_t n = msg.n;
  if (cname == "bcast") {
    CK(cudaMemcpyAsync(msg.b, msg.a, n * 4, cudaMemcpyDeviceToDevice, run.st));
    CK(cudaStreamSynchronize(run.st));
  }
  zcoll_report rep{};
  zcoll_status s = ZCOLL_SUCCESS;
  const std::vector<double> ts = time_calls(
      run.repeat, [&] { return call_coll(run, cname, msg, &rep); }, &s);
  CollRow row{};
  row.coll = cname;
  row.mode = mname;
  row.bytes = n * 4;
  row.status = s;
  if (!ts.empty()) {
    row.t_median = ts[ts.size() / 2];
    row.t_min = ts[0];
  }
  row.compress = rep.time_compress;
  row.reduce = rep.time_reduce;
  row.comm = rep.time_comm;
  row.sent = rep.bytes_sent;
  row.ratio = rep.bytes_sent ? static_cast<double>(rep.bytes_uncompressed) / rep.bytes_sent : 0;
  row.bound = rep.error_bound;
  row.wrong = -1;
  if (s == ZCOLL_SUCCESS && (cname == "allreduce" || cname == "allreduce_rd")) {
    std::vector<float> got(n);
    CK(cudaMemcpyAsync(got.data(), msg.b, n * 4, cudaMemcpyDeviceToHost, run.st));
    CK(cudaStreamSynchronize(run.st));
    double worst = 0;
    row.wrong =
        static_cast<long>(count_wrong(got, msg.sum, rep.error_bound, &worst, msg.mag, run.N));
  }
  *wrong_all = row.wrong;
  MPI_Allreduce(MPI_IN_PLACE, wrong_all, 1, MPI_LONG, MPI_MAX, MPI_COMM_WORLD);
  uint64_t staged = 0;
  ZK(zcoll_cuda_comm_device_stats(run.zcc, &row.kernel, &row.kernels, &staged, &row.staging));
  return row;
}

// The baseline: MPI_Allreduce on the device buffers.
CollRow baseline_row(const CollRun& run, const Message& msg) {
  zcoll_status s = ZCOLL_SUCCESS;
  const std::vector<double> ts = time_calls(
      run.repeat,
      [&] {
        ZK(zcoll_cuda_baseline_allreduce(run.zcc, msg.a, msg.b, msg.n, MPI_FLOAT, MPI_SUM, run.st));
        return ZCOLL_SUCCESS;
      },
      &s);
  CollRow row{};
  row.wrong = -1;
  row.coll = "allreduce";
  row.mode = "baseline_mpi";
  row.bytes = msg.n * 4;
  row.t_median = ts[ts.size() / 2];
  row.t_min = ts[0];
  return row;
}

bool write_coll_json(const Args& o, int N, double rel, const std::vector<CollRow>& rows) {
  std::FILE* f = std::fopen(o.at("json").c_str(), "w");
  if (!f) return false;
  std::fprintf(f,
               "{\"tool\": \"zcoll-gpu-coll-bench coll\", \"device\": \"%s\", \"ranks\": %d, "
               "\"transport\": \"%s\", \"rel\": %.17g, \"data\": \"%s\", \"rows\": [",
               device_name().c_str(), N, o.count("cuda-aware") ? "mpi_cuda_aware" : "mpi_staged",
               rel, o.count("data") ? o.at("data").c_str() : "synthetic");
  for (size_t i = 0; i < rows.size(); ++i) {
    const CollRow& r = rows[i];
    std::fprintf(f,
                 "%s\n {\"collective\": \"%s\", \"mode\": \"%s\", \"bytes\": %zu, "
                 "\"status\": %d, \"t_median\": %.6g, \"t_min\": %.6g, \"rank0\": "
                 "{\"time_compress\": %.6g, \"time_reduce\": %.6g, \"time_comm\": %.6g, "
                 "\"device_kernel_seconds\": %.6g, \"device_ops\": %llu, \"staging_seconds\": "
                 "%.6g, \"bytes_sent\": %llu, \"ratio\": %.6g, \"error_bound\": %.6g}, "
                 "\"wrong\": %ld}",
                 i ? "," : "", r.coll.c_str(), r.mode.c_str(), r.bytes, r.status, r.t_median,
                 r.t_min, r.compress, r.reduce, r.comm, r.kernel,
                 static_cast<unsigned long long>(r.kernels), r.staging,
                 static_cast<unsigned long long>(r.sent), r.ratio, r.bound, r.wrong);
  }
  std::fprintf(f, "\n]}\n");
  std::fclose(f);
  return true;
}

int coll(const Args& o) {
  CollRun run;
  MPI_Comm_rank(MPI_COMM_WORLD, &run.rank);
  MPI_Comm_size(MPI_COMM_WORLD, &run.N);
  run.repeat = o.count("repeat") ? std::atoi(o.at("repeat").c_str()) : 5;
  const double rel = o.count("rel") ? std::atof(o.at("rel").c_str()) : 1e-4;
  std::vector<float> src;
  if (o.count("data")) src = read_f32(o.at("data"));
  ZK(zcoll_cuda_comm_create(
      MPI_COMM_WORLD, nullptr,
      o.count("cuda-aware") ? ZCOLL_CUDA_TRANSPORT_MPI_CUDA_AWARE : ZCOLL_CUDA_TRANSPORT_MPI_STAGED,
      &run.zcc));
  ZK(zcoll_cuda_comm_set_error_bound(run.zcc, ZCOLL_EB_REL, rel));
  CK(cudaStreamCreateWithFlags(&run.st, cudaStreamNonBlocking));
  std::vector<std::string> colls = split(o.count("colls")
                                             ? o.at("colls")
                                             : "allreduce,allreduce_rd,reduce_scatter,allgather,"
                                               "bcast,scatter,reduce,gather",
                                         ',');
  std::vector<std::string> modes =
      split(o.count("modes") ? o.at("modes") : "mpi,raw,cpr_p2p,doc,hom", ',');
  std::vector<CollRow> rows;
  bool failed_checks = false;
  for (auto& mbs : split(o.count("mb") ? o.at("mb") : "1,16,64", ',')) {
    // the message: MB per rank of floats (the total for scatter/gather blocks: / N)
    const Message msg = make_message(run, src, std::atof(mbs.c_str()));
    for (auto& cname : colls)
      for (auto& mname : modes) {
        long wrong_all = 0;
        const CollRow row = coll_row(run, cname, mname, msg, &wrong_all);
        if (wrong_all > 0) failed_checks = true;
        rows.push_back(row);
        if (run.rank == 0)
          std::printf(
              "%-15s %-8s %9.1f MB  %9.3f ms (min %.3f)  kernels %.3f ms (%llu)  "
              "staging %.3f ms  ratio %.2f  %s%s\n",
              cname.c_str(), mname.c_str(), msg.n * 4 / 1e6, row.t_median * 1e3, row.t_min * 1e3,
              row.kernel * 1e3, static_cast<unsigned long long>(row.kernels), row.staging * 1e3,
              row.ratio, zcoll_status_string(static_cast<zcoll_status>(row.status)),
              wrong_all > 0 ? "  WRONG (values outside the bound)" : "");
      }
    rows.push_back(baseline_row(run, msg));
    if (run.rank == 0)
      std::printf("%-15s %-8s %9.1f MB  %9.3f ms\n", "allreduce", "baseline", msg.n * 4 / 1e6,
                  rows.back().t_median * 1e3);
    cudaFree(msg.a);
    cudaFree(msg.b);
  }
  if (run.rank == 0 && o.count("json") && !write_coll_json(o, run.N, rel, rows)) return 2;
  cudaStreamDestroy(run.st);
  ZK(zcoll_cuda_comm_free(run.zcc));
  if (failed_checks && run.rank == 0)
    std::fprintf(stderr, "check: some Allreduce results are wrong\n");
  return failed_checks ? 5 : 0;
}

int bench_main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rc = 2;
  Args o;
  const std::string cmd = argc > 1 ? argv[1] : "";
  for (int i = 2; i < argc; ++i) {
    std::string a = argv[i];
    if (a.rfind("--", 0) != 0) continue;
    a = a.substr(2);
    if (a == "cuda-aware")
      o[a] = "1";
    else if (i + 1 < argc)
      o[a] = argv[++i];
  }
  if (zcoll_cuda_device_count() < 1) {
    std::fprintf(stderr, "zcoll-gpu-coll-bench: no CUDA device\n");
    rc = 4;
  } else if (cmd == "calibrate") {
    int rank = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    rc = rank == 0 ? calibrate(o) : 0;
  } else if (cmd == "coll") {
    rc = coll(o);
  } else {
    std::fprintf(stderr, "usage: zcoll-gpu-coll-bench calibrate|coll [options] (see the source)\n");
  }
  MPI_Finalize();
  return rc;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return bench_main(argc, argv);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "zcoll-gpu-coll-bench: %s\n", e.what());
    MPI_Abort(MPI_COMM_WORLD, 1);
    return 1;
  }
}
