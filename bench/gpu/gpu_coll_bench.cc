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

int calibrate(const std::map<std::string, std::string>& o) {
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
  cudaStream_t st;
  CK(cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking));
  zcoll_cuda_result* res;
  CK(cudaMalloc(reinterpret_cast<void**>(&res), nsegs(n) * sizeof(zcoll_cuda_result)));
  float *dx, *vals, *tmp, *acc;
  CK(cudaMalloc(reinterpret_cast<void**>(&dx), n * 4));
  CK(cudaMalloc(reinterpret_cast<void**>(&vals), n * 4));
  CK(cudaMalloc(reinterpret_cast<void**>(&tmp), n * 4));
  CK(cudaMalloc(reinterpret_cast<void**>(&acc), n * 4));
  CK(cudaMemset(acc, 0, n * 4));
  DevStreams one = alloc_streams(n), sum = alloc_streams(n), nxt = alloc_streams(n),
             work = alloc_streams(n);
  Cal cs{st, res, n, true};
  auto compress_into = [&](const float* v, DevStreams& s, Cal& c) {
    c.each(
        [&](size_t k, zcoll_cuda_result* r) {
          return zcoll_cuda_compress(&p, ZCOLL_FLOAT32, v + k * kSeg, seglen(n, k),
                                     s.buf + s.off[k],
                                     zcoll_compress_bound(seglen(n, k), ZCOLL_FLOAT32), r, st);
        },
        &s.size);
  };
  input(K - 1);
  upload(dx, x.data(), n * 4, st);
  compress_into(dx, one, cs);
  std::vector<double> exact(n, 0.0);  // the sum of the inputs so far
  size_t wrong = 0;
  double worst = 0;
  std::map<std::string, std::map<std::string, std::map<int, double>>> g;  // way -> kind -> k
  std::map<int, double> ratio;
  size_t ti = 0;
  for (int k = 1; k <= K; ++k) {
    input(k - 1);
    upload(dx, x.data(), n * 4, st);
    for (size_t i = 0; i < n; ++i) exact[i] += static_cast<double>(x[i]);
    if (k == 1) {
      compress_into(dx, sum, cs);
    } else {
      compress_into(dx, work, cs);
      cs.each(
          [&](size_t s, zcoll_cuda_result* r) {
            return zcoll_cuda_hom_add(sum.buf + sum.off[s], sum.size[s], work.buf + work.off[s],
                                      work.size[s], nxt.buf + nxt.off[s],
                                      zcoll_compress_bound(seglen(n, s), ZCOLL_FLOAT32), r, st);
          },
          &nxt.size);
      std::swap(sum, nxt);
    }
    if (ti >= terms.size() || k != terms[ti]) continue;
    ++ti;
    ratio[k] = static_cast<double>(n * 4) / static_cast<double>(sum.total());
    cs.each(
        [&](size_t s, zcoll_cuda_result* r) {
          return zcoll_cuda_decompress(sum.buf + sum.off[s], sum.size[s], vals + s * kSeg,
                                       seglen(n, s), r, st);
        },
        nullptr);
    {  // the sum of k inputs, each within eb: within k * eb of the exact sum
      std::vector<float> got(n);
      CK(cudaMemcpyAsync(got.data(), vals, n * 4, cudaMemcpyDeviceToHost, st));
      CK(cudaStreamSynchronize(st));
      double w = 0;
      const size_t bad = count_wrong(got, exact, k * eb, &w);
      if (bad)
        std::fprintf(stderr, "check: %zu of %zu values of the sum of %d inputs wrong\n", bad, n, k);
      wrong += bad;
      worst = std::max(worst, w);
    }
    for (int way = 0; way < 2; ++way) {
      Cal c{st, res, n, way == 0};
      auto& T = g[way == 0 ? "synced" : "async"];
      std::vector<size_t> sizes(nsegs(n));
      T["compress"][k] = best_gbps(n * 4, repeat, [&] { compress_into(vals, work, c); });
      T["decompress"][k] = best_gbps(n * 4, repeat, [&] {
        c.each(
            [&](size_t s, zcoll_cuda_result* r) {
              return zcoll_cuda_decompress(sum.buf + sum.off[s], sum.size[s], tmp + s * kSeg,
                                           seglen(n, s), r, st);
            },
            nullptr);
      });
      T["accumulate"][k] = best_gbps(n * 4, repeat, [&] {
        c.each(
            [&](size_t s, zcoll_cuda_result* r) {
              return zcoll_cuda_decompress_accumulate(sum.buf + sum.off[s], sum.size[s],
                                                      acc + s * kSeg, seglen(n, s), r, st);
            },
            nullptr);
      });
      T["hom_add"][k] = best_gbps(n * 4, repeat, [&] {
        c.each(
            [&](size_t s, zcoll_cuda_result* r) {
              return zcoll_cuda_hom_add(sum.buf + sum.off[s], sum.size[s], one.buf + one.off[s],
                                        one.size[s], work.buf + work.off[s],
                                        zcoll_compress_bound(seglen(n, s), ZCOLL_FLOAT32), r, st);
            },
            &sizes);
      });
      if (k == 1) {
        // the element-wise kernel the collectives use (elementwise.cu), one call
        // per segment; the synced way waits after each as the collectives' next
        // synchronizing step does at the latest
        T["reduce"][1] = best_gbps(n * 4, repeat, [&] {
          for (size_t s = 0; s < nsegs(n); ++s) {
            CK(zcoll::cuda::coll::launch_reduce(ZCOLL_FLOAT32, ZCOLL_OP_SUM, tmp + s * kSeg,
                                                vals + s * kSeg, dx + s * kSeg, seglen(n, s), st));
            if (c.synced) CK(cudaStreamSynchronize(st));
          }
          CK(cudaStreamSynchronize(st));
        });
        T["copy"][1] = best_gbps(n * 4, repeat, [&] {
          CK(cudaMemcpyAsync(tmp, vals, n * 4, cudaMemcpyDeviceToDevice, st));
          CK(cudaStreamSynchronize(st));
        });
      }
      std::fprintf(stderr, "%s terms %4d: ratio %.3f  c %.1f d %.1f a %.1f h %.1f GB/s\n",
                   way == 0 ? "synced" : "async ", k, ratio[k], T["compress"][k],
                   T["decompress"][k], T["accumulate"][k], T["hom_add"][k]);
    }
  }
  cudaDeviceProp prop{};
  int dev = 0;
  cudaGetDevice(&dev);
  cudaGetDeviceProperties(&prop, dev);
  std::FILE* f = std::fopen(o.at("json").c_str(), "w");
  if (!f) return 2;
  std::fprintf(f,
               "{\n \"tool\": \"zcoll-gpu-coll-bench calibrate\",\n \"device\": \"%s\",\n"
               " \"data\": \"%s\",\n \"rel\": %.17g,\n \"values\": %zu,\n"
               " \"segment_values\": %zu,\n \"repeat\": %d,\n \"gbps\": {",
               prop.name, o.at("data").c_str(), rel, n, kSeg, repeat);
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
  std::fprintf(f, "},\n \"ratio\": {");
  bool fr = true;
  for (auto& [k, r] : ratio) {
    std::fprintf(f, "%s\"%d\": %.6g", fr ? "" : ", ", k, r);
    fr = false;
  }
  std::fprintf(f, "},\n \"check\": {\"wrong\": %zu, \"max_error_over_bound\": %.6g}\n}\n", wrong,
               worst);
  std::fclose(f);
  std::fprintf(stderr, "check: %zu wrong values, max |error| / bound %.3g\n", wrong, worst);
  return wrong ? 5 : 0;
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

int coll(const std::map<std::string, std::string>& o) {
  int rank = 0, N = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &N);
  const int repeat = o.count("repeat") ? std::atoi(o.at("repeat").c_str()) : 5;
  const double rel = o.count("rel") ? std::atof(o.at("rel").c_str()) : 1e-4;
  std::vector<float> src;
  if (o.count("data")) src = read_f32(o.at("data"));
  zcoll_cuda_comm* zcc = nullptr;
  ZK(zcoll_cuda_comm_create(
      MPI_COMM_WORLD, nullptr,
      o.count("cuda-aware") ? ZCOLL_CUDA_TRANSPORT_MPI_CUDA_AWARE : ZCOLL_CUDA_TRANSPORT_MPI_STAGED,
      &zcc));
  ZK(zcoll_cuda_comm_set_error_bound(zcc, ZCOLL_EB_REL, rel));
  cudaStream_t st;
  CK(cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking));
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
    const size_t n = static_cast<size_t>(std::atof(mbs.c_str()) * 1e6 / 4);
    auto value = [&](int r, size_t i) {
      return src.empty() ? static_cast<float>(std::sin(1e-4 * i + r))
                         : src[(i + static_cast<size_t>(r) * 7919) % src.size()];
    };
    std::vector<float> h(n * N);
    for (size_t i = 0; i < h.size(); ++i) h[i] = value(rank, i);
    // the exact Allreduce result, and the sum of magnitudes that bounds the
    // rounding of adding N floats (partial sums may be larger than the result)
    std::vector<double> sum(n, 0.0), mag(n, 0.0);
    for (int r = 0; r < N; ++r)
      for (size_t i = 0; i < n; ++i) {
        sum[i] += static_cast<double>(value(r, i));
        mag[i] += std::fabs(static_cast<double>(value(r, i)));
      }
    float *a, *b;
    CK(cudaMalloc(reinterpret_cast<void**>(&a), h.size() * 4));
    CK(cudaMalloc(reinterpret_cast<void**>(&b), h.size() * 4));
    upload(a, h.data(), h.size() * 4, st);
    for (auto& cname : colls) {
      for (auto& mname : modes) {
        zcoll_mode mode;
        ZK(zcoll_mode_from_name(mname.c_str(), &mode));
        ZK(zcoll_cuda_comm_set_mode(zcc, mode));
        ZK(zcoll_cuda_comm_set_algorithm(
            zcc, ZCOLL_COLL_ALLREDUCE,
            cname == "allreduce_rd" ? ZCOLL_ALGO_RECURSIVE_DOUBLING : ZCOLL_ALGO_RING));
        const size_t blk = n / N;  // rooted / gathering collectives: n values in all
        auto call = [&](zcoll_report* rep) -> zcoll_status {
          if (cname == "allreduce" || cname == "allreduce_rd")
            return zcoll_cuda_allreduce(zcc, a, b, n, MPI_FLOAT, MPI_SUM, st, rep);
          if (cname == "reduce_scatter")
            return zcoll_cuda_reduce_scatter_block(zcc, a, b, blk, MPI_FLOAT, MPI_SUM, st, rep);
          if (cname == "allgather") return zcoll_cuda_allgather(zcc, a, b, blk, MPI_FLOAT, st, rep);
          if (cname == "bcast") return zcoll_cuda_bcast(zcc, b, n, MPI_FLOAT, 0, st, rep);
          if (cname == "scatter") return zcoll_cuda_scatter(zcc, a, b, blk, MPI_FLOAT, 0, st, rep);
          if (cname == "reduce")
            return zcoll_cuda_reduce(zcc, a, b, n, MPI_FLOAT, MPI_SUM, 0, st, rep);
          if (cname == "gather") return zcoll_cuda_gather(zcc, a, b, blk, MPI_FLOAT, 0, st, rep);
          return ZCOLL_ERR_INVALID_ARG;
        };
        if (cname == "bcast") {
          CK(cudaMemcpyAsync(b, a, n * 4, cudaMemcpyDeviceToDevice, st));
          CK(cudaStreamSynchronize(st));
        }
        zcoll_report rep{};
        std::vector<double> ts;
        zcoll_status s = ZCOLL_SUCCESS;
        for (int r = 0; r <= repeat && s == ZCOLL_SUCCESS; ++r) {  // r = 0: warm-up
          MPI_Barrier(MPI_COMM_WORLD);
          const double t0 = now();
          s = call(&rep);
          double t = now() - t0;
          MPI_Allreduce(MPI_IN_PLACE, &t, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
          if (r > 0) ts.push_back(t);
        }
        CollRow row{};
        row.coll = cname;
        row.mode = mname;
        row.bytes = n * 4;
        row.status = s;
        if (!ts.empty()) {
          std::sort(ts.begin(), ts.end());
          row.t_median = ts[ts.size() / 2];
          row.t_min = ts[0];
        }
        row.compress = rep.time_compress;
        row.reduce = rep.time_reduce;
        row.comm = rep.time_comm;
        row.sent = rep.bytes_sent;
        row.ratio = rep.bytes_sent ? static_cast<double>(rep.bytes_uncompressed) / rep.bytes_sent
                                   : 0;
        row.bound = rep.error_bound;
        row.wrong = -1;
        if (s == ZCOLL_SUCCESS && (cname == "allreduce" || cname == "allreduce_rd")) {
          std::vector<float> got(n);
          CK(cudaMemcpyAsync(got.data(), b, n * 4, cudaMemcpyDeviceToHost, st));
          CK(cudaStreamSynchronize(st));
          double worst = 0;
          row.wrong = static_cast<long>(count_wrong(got, sum, rep.error_bound, &worst, mag, N));
        }
        long wrong_all = row.wrong;
        MPI_Allreduce(MPI_IN_PLACE, &wrong_all, 1, MPI_LONG, MPI_MAX, MPI_COMM_WORLD);
        if (wrong_all > 0) failed_checks = true;
        uint64_t staged = 0;
        ZK(zcoll_cuda_comm_device_stats(zcc, &row.kernel, &row.kernels, &staged, &row.staging));
        rows.push_back(row);
        if (rank == 0)
          std::printf(
              "%-15s %-8s %9.1f MB  %9.3f ms (min %.3f)  kernels %.3f ms (%llu)  "
              "staging %.3f ms  ratio %.2f  %s%s\n",
              cname.c_str(), mname.c_str(), n * 4 / 1e6, row.t_median * 1e3, row.t_min * 1e3,
              row.kernel * 1e3, static_cast<unsigned long long>(row.kernels), row.staging * 1e3,
              row.ratio, zcoll_status_string(s),
              wrong_all > 0 ? "  WRONG (values outside the bound)" : "");
      }
    }
    {  // the baseline: MPI_Allreduce on the device buffers
      std::vector<double> ts;
      for (int r = 0; r <= repeat; ++r) {
        MPI_Barrier(MPI_COMM_WORLD);
        const double t0 = now();
        ZK(zcoll_cuda_baseline_allreduce(zcc, a, b, n, MPI_FLOAT, MPI_SUM, st));
        double t = now() - t0;
        MPI_Allreduce(MPI_IN_PLACE, &t, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
        if (r > 0) ts.push_back(t);
      }
      std::sort(ts.begin(), ts.end());
      CollRow row{};
      row.wrong = -1;
      row.coll = "allreduce";
      row.mode = "baseline_mpi";
      row.bytes = n * 4;
      row.t_median = ts[ts.size() / 2];
      row.t_min = ts[0];
      rows.push_back(row);
      if (rank == 0)
        std::printf("%-15s %-8s %9.1f MB  %9.3f ms\n", "allreduce", "baseline", n * 4 / 1e6,
                    row.t_median * 1e3);
    }
    cudaFree(a);
    cudaFree(b);
  }
  if (rank == 0 && o.count("json")) {
    std::FILE* f = std::fopen(o.at("json").c_str(), "w");
    if (!f) return 2;
    cudaDeviceProp prop{};
    int dev = 0;
    cudaGetDevice(&dev);
    cudaGetDeviceProperties(&prop, dev);
    std::fprintf(f,
                 "{\"tool\": \"zcoll-gpu-coll-bench coll\", \"device\": \"%s\", \"ranks\": %d, "
                 "\"transport\": \"%s\", \"rel\": %.17g, \"data\": \"%s\", \"rows\": [",
                 prop.name, N, o.count("cuda-aware") ? "mpi_cuda_aware" : "mpi_staged", rel,
                 o.count("data") ? o.at("data").c_str() : "synthetic");
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
  }
  cudaStreamDestroy(st);
  ZK(zcoll_cuda_comm_free(zcc));
  if (failed_checks && rank == 0) std::fprintf(stderr, "check: some Allreduce results are wrong\n");
  return failed_checks ? 5 : 0;
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rc = 2;
  std::map<std::string, std::string> o;
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
