// zcoll-gpu-bench — throughput of libzcoll_cuda next to a device-to-device copy
// measured in the same run: compress, decompress, hom add and DOC (SUM) at
// several REL bounds, with ratio and max error. GB/s count uncompressed bytes (for
// hom add and DOC: the bytes of one input). Prints a table; --json writes JSON.
// Exit status 4 without a CUDA device, 5 when an error exceeds its bound.
//
//   zcoll-gpu-bench [--input FILE.f32 ...] [--type f32|f64] [--rel 1e-2,1e-3,1e-4]
//                   [--repeat 20] [--min-mb 256] [--json out.json]
// Without --input: a smooth synthetic field. Small inputs are tiled to --min-mb.
// Plain argument parsing (no CLI11): GPU machines may lack the CLI packages.
#include <cuda_runtime_api.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

#include "zcoll.h"
#include "gpu_checks.h"
#include "zcoll_cuda.h"

namespace {

struct Row {
  std::string input, type;
  double rel = 0, ratio = 0, max_err = 0, bound = 0;
  double copy_gbs = 0, comp_gbs = 0, decomp_gbs = 0, hom_gbs = 0, doc_gbs = 0;
  size_t n = 0;
};

std::vector<double> split_doubles(const std::string& s) {
  std::vector<double> v;
  size_t i = 0;
  while (i < s.size()) {
    size_t j = s.find(',', i);
    if (j == std::string::npos) j = s.size();
    v.push_back(std::atof(s.substr(i, j - i).c_str()));
    i = j + 1;
  }
  return v;
}

// Median of `repeat` timings (ms) of fn on stream 0, with cudaEvents.
template <typename Fn>
double time_ms(int repeat, Fn fn) {
  cudaEvent_t a, b;
  CK(cudaEventCreate(&a));
  CK(cudaEventCreate(&b));
  fn();  // warm-up (allocator pool, caches)
  CK(cudaDeviceSynchronize());
  std::vector<double> t;
  for (int r = 0; r < repeat; ++r) {
    CK(cudaEventRecord(a, nullptr));
    fn();
    CK(cudaEventRecord(b, nullptr));
    CK(cudaEventSynchronize(b));
    float ms = 0;
    CK(cudaEventElapsedTime(&ms, a, b));
    t.push_back(ms);
  }
  cudaEventDestroy(a);
  cudaEventDestroy(b);
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

template <typename T>
Row run(const std::string& name, const std::vector<T>& x, double rel, int repeat) {
  const zcoll_dtype dt = sizeof(T) == 4 ? ZCOLL_FLOAT32 : ZCOLL_FLOAT64;
  const size_t n = x.size(), bytes = n * sizeof(T);
  const size_t cap = zcoll_compress_bound(n, dt);
  void *dx, *dy, *dc, *dc2, *dout, *dvals;
  zcoll_cuda_result* res;
  CK(cudaMalloc(&dx, bytes));
  CK(cudaMalloc(&dy, bytes));
  CK(cudaMalloc(&dvals, bytes));
  CK(cudaMalloc(&dc, cap));
  CK(cudaMalloc(&dc2, cap));
  CK(cudaMalloc(&dout, cap));
  CK(cudaMalloc(reinterpret_cast<void**>(&res), sizeof *res));
  CK(cudaMemcpy(dx, x.data(), bytes, cudaMemcpyHostToDevice));
  // the second operand: the field reversed (same value range, other values)
  std::vector<T> y(x.rbegin(), x.rend());
  CK(cudaMemcpy(dy, y.data(), bytes, cudaMemcpyHostToDevice));

  // one absolute bound for both operands (hom add needs the same quantum)
  zcoll_params p = ZCOLL_PARAMS_INITIALIZER;
  p.eb_mode = ZCOLL_EB_REL;
  p.error_bound = rel;
  double eb = 0;
  ZK(zcoll_resolve_error_bound(&p, dt, x.data(), n, &eb, 0));
  p.eb_mode = ZCOLL_EB_ABS;
  p.error_bound = eb;

  Row r;
  r.input = name;
  r.type = sizeof(T) == 4 ? "f32" : "f64";
  r.rel = rel;
  r.n = n;
  r.bound = eb;
  const double gb = static_cast<double>(bytes) / 1e9;
  r.copy_gbs =
      gb /
      (time_ms(repeat,
               [&] { CK(cudaMemcpyAsync(dvals, dx, bytes, cudaMemcpyDeviceToDevice, nullptr)); }) /
       1e3);
  size_t csize = 0, csize2 = 0, osize = 0;
  r.comp_gbs =
      gb /
      (time_ms(repeat, [&] { ZK(zcoll_cuda_compress(&p, dt, dx, n, dc, cap, res, nullptr)); }) /
       1e3);
  ZK(zcoll_cuda_result_get(res, &csize, nullptr));
  ZK(zcoll_cuda_compress(&p, dt, dy, n, dc2, cap, res, nullptr));
  ZK(zcoll_cuda_result_get(res, &csize2, nullptr));
  r.ratio = static_cast<double>(bytes) / static_cast<double>(csize);
  r.decomp_gbs =
      gb / (time_ms(repeat, [&] { ZK(zcoll_cuda_decompress(dc, csize, dvals, n, res, nullptr)); }) /
            1e3);
  ZK(zcoll_cuda_result_get(res, nullptr, nullptr));
  std::vector<T> back(n);
  CK(cudaMemcpy(back.data(), dvals, bytes, cudaMemcpyDeviceToHost));
  for (size_t i = 0; i < n; ++i)
    if (std::isfinite(static_cast<double>(x[i])))
      r.max_err =
          std::max(r.max_err, std::fabs(static_cast<double>(x[i]) - static_cast<double>(back[i])));
  r.hom_gbs =
      gb /
      (time_ms(repeat,
               [&] { ZK(zcoll_cuda_hom_add(dc, csize, dc2, csize2, dout, cap, res, nullptr)); }) /
       1e3);
  ZK(zcoll_cuda_result_get(res, &osize, nullptr));
  r.doc_gbs = gb / (time_ms(repeat,
                            [&] {
                              ZK(zcoll_cuda_doc_combine(dc, csize, dc2, csize2, ZCOLL_OP_SUM, dout,
                                                        cap, res, nullptr));
                            }) /
                    1e3);
  ZK(zcoll_cuda_result_get(res, &osize, nullptr));
  for (void* q : {dx, dy, dc, dc2, dout, dvals}) cudaFree(q);
  cudaFree(res);
  return r;
}

std::vector<float> smooth_field(size_t n) {
  std::vector<float> v(n);
  for (size_t i = 0; i < n; ++i)
    v[i] = static_cast<float>(std::sin(i * 1e-4) * 50 + std::cos(i * 3.7e-3) * 5 +
                              std::sin(i * 0.11) * 0.2);
  return v;
}

struct Options {
  std::vector<std::string> inputs;
  std::string type = "f32", json;
  std::vector<double> rels = {1e-2, 1e-3, 1e-4};
  int repeat = 20;
  double min_mb = 256;
};

// The command line into *o; -1, or the exit status (usage, --help).
int parse_args(int argc, char** argv, Options* o) {
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto next = [&]() -> std::string {
      if (i + 1 >= argc) {
        std::fprintf(stderr, "%s needs a value\n", a.c_str());
        std::exit(1);
      }
      return argv[++i];
    };
    if (a == "--input")
      o->inputs.push_back(next());
    else if (a == "--type")
      o->type = next();
    else if (a == "--rel")
      o->rels = split_doubles(next());
    else if (a == "--repeat")
      o->repeat = std::max(1, std::atoi(next().c_str()));
    else if (a == "--min-mb")
      o->min_mb = std::atof(next().c_str());
    else if (a == "--json")
      o->json = next();
    else {
      std::fprintf(stderr,
                   "usage: %s [--input F.f32]... [--type f32|f64] [--rel a,b,c] "
                   "[--repeat N] [--min-mb MB] [--json FILE]\n",
                   argv[0]);
      return a == "--help" ? 0 : 1;
    }
  }
  return -1;
}

using Fields = std::vector<std::pair<std::string, std::vector<float>>>;

// The synthetic field, or the --input files, tiled to --min-mb; false: a file
// cannot be read.
bool load_fields(const Options& o, Fields* fields) {
  const size_t min_values = static_cast<size_t>(o.min_mb * 1e6 / (o.type == "f64" ? 8 : 4));
  if (o.inputs.empty()) fields->push_back({"synthetic-smooth", smooth_field(min_values)});
  for (const auto& f : o.inputs) {
    std::ifstream in(f, std::ios::binary | std::ios::ate);
    if (!in) {
      std::fprintf(stderr, "cannot read %s\n", f.c_str());
      return false;
    }
    std::vector<float> v(static_cast<size_t>(in.tellg()) / 4);
    in.seekg(0);
    in.read(reinterpret_cast<char*>(v.data()), static_cast<std::streamsize>(v.size() * 4));
    const std::vector<float> one(v);  // tile (a range of v itself may not be inserted into v)
    while (v.size() < min_values && !one.empty()) v.insert(v.end(), one.begin(), one.end());
    std::string name = f.substr(f.find_last_of('/') + 1);
    fields->push_back({name, std::move(v)});
  }
  return true;
}

void print_rows(const cudaDeviceProp& prop, const std::vector<Row>& rows, int repeat) {
  std::printf("device: %s (%d SMs)\n", prop.name, prop.multiProcessorCount);
  std::printf("%-34s %4s %7s %8s %9s %9s %9s %9s %9s %7s %10s\n", "input", "type", "rel", "ratio",
              "copy", "compress", "decomp", "hom_add", "doc_sum", "hom/doc", "max_err/eb");
  for (const Row& r : rows)
    std::printf("%-34s %4s %7.0e %8.2f %9.1f %9.1f %9.1f %9.1f %9.1f %7.2f %10.3f\n",
                r.input.c_str(), r.type.c_str(), r.rel, r.ratio, r.copy_gbs, r.comp_gbs,
                r.decomp_gbs, r.hom_gbs, r.doc_gbs, r.hom_gbs / r.doc_gbs, r.max_err / r.bound);
  std::printf(
      "(GB/s of uncompressed bytes, median of %d; copy = cudaMemcpyAsync device to device)\n",
      repeat);
}

// false: the file cannot be written.
bool write_json(const std::string& path, const cudaDeviceProp& prop, const std::vector<Row>& rows,
                int repeat) {
  FILE* f = std::fopen(path.c_str(), "w");
  if (!f) {
    std::fprintf(stderr, "cannot write %s\n", path.c_str());
    return false;
  }
  std::fprintf(f, "{\n  \"device\": \"%s\",\n  \"sms\": %d,\n  \"repeat\": %d,\n  \"rows\": [\n",
               prop.name, prop.multiProcessorCount, repeat);
  for (size_t i = 0; i < rows.size(); ++i) {
    const Row& r = rows[i];
    std::fprintf(
        f,
        "    {\"input\": \"%s\", \"type\": \"%s\", \"n\": %zu, \"rel\": %g, \"abs_bound\": "
        "%.17g, "
        "\"ratio\": %.6g, \"max_error\": %.17g, \"copy_gbs\": %.6g, \"compress_gbs\": %.6g, "
        "\"decompress_gbs\": %.6g, \"hom_add_gbs\": %.6g, \"doc_sum_gbs\": %.6g}%s\n",
        r.input.c_str(), r.type.c_str(), r.n, r.rel, r.bound, r.ratio, r.max_err, r.copy_gbs,
        r.comp_gbs, r.decomp_gbs, r.hom_gbs, r.doc_gbs, i + 1 < rows.size() ? "," : "");
  }
  std::fprintf(f, "  ]\n}\n");
  std::fclose(f);
  return true;
}

int bench_main(int argc, char** argv) {
  Options o;
  const int rc = parse_args(argc, argv, &o);
  if (rc >= 0) return rc;
  if (zcoll_cuda_device_count() == 0) {
    std::fprintf(stderr, "zcoll-gpu-bench: no CUDA device\n");
    return 4;
  }
  cudaDeviceProp prop;
  CK(cudaGetDeviceProperties(&prop, 0));
  Fields fields;
  if (!load_fields(o, &fields)) return 1;
  std::vector<Row> rows;
  for (auto& [name, v] : fields)
    for (double rel : o.rels) {
      if (o.type == "f64")
        rows.push_back(run<double>(name, std::vector<double>(v.begin(), v.end()), rel, o.repeat));
      else
        rows.push_back(run<float>(name, v, rel, o.repeat));
    }
  print_rows(prop, rows, o.repeat);
  // the benchmark is a check too: every decompressed value within the bound
  int wrong = 0;
  for (const Row& r : rows)
    if (!(r.max_err <= r.bound)) {
      std::fprintf(stderr, "check: %s %s rel %g: max |error| %g exceeds the bound %g\n",
                   r.input.c_str(), r.type.c_str(), r.rel, r.max_err, r.bound);
      ++wrong;
    }
  if (!o.json.empty() && !write_json(o.json, prop, rows, o.repeat)) return 1;
  return wrong ? 5 : 0;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return bench_main(argc, argv);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "zcoll-gpu-bench: %s\n", e.what());
    return 1;
  }
}
