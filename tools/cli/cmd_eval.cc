// cmd_eval.cc — `zcoll eval`: compress and decompress in memory, report ratio,
// throughput and error metrics, and fail if the error bound was not kept.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <iostream>
#include <limits>
#include <nlohmann/json.hpp>

#include "commands.h"
#include "common.h"

namespace zcoll_cli {

namespace {
// What one evaluation measured and derived.
struct Eval {
  zcoll_dtype dtype = ZCOLL_FLOAT32;
  size_t n = 0;          // values
  size_t raw_size = 0;   // bytes of the input
  size_t comp_size = 0;  // bytes of the stream
  zcoll_info info = ZCOLL_INFO_INITIALIZER;
  zcoll_quality q = ZCOLL_QUALITY_INITIALIZER;
  double comp_gbps = 0, decomp_gbps = 0;
  double eb = 0;  // the absolute bound the stream guarantees
  double err_over_eb = 0;
  bool bound_ok = false;
  const char* mode = "abs";  // the bound as given: "rel" or "abs", and its value
  double given = 0;
};

void print_json(const EvalOptions& o, const Eval& e) {
  // JSON has no infinity: nlohmann writes a non-finite number (PSNR of an
  // exact reconstruction) as null
  nlohmann::ordered_json j;
  j["file"] = o.input;
  j["dtype"] = dtype_name(e.dtype);
  j["n"] = e.n;
  j["eb_mode"] = e.mode;
  j["eb"] = e.given;
  j["abs_eb"] = e.eb;
  j["codec"] = o.codec;
  j["dims"] = o.dims;
  j["chunk_size"] = e.info.chunk_size;
  j["threads"] = o.threads;
  j["repeat"] = o.repeat;
  j["raw_bytes"] = e.raw_size;
  j["compressed_bytes"] = e.comp_size;
  j["ratio"] = e.q.compression_ratio;
  j["bits_per_value"] = e.q.bits_per_value;
  j["compress_gbps"] = e.comp_gbps;
  j["decompress_gbps"] = e.decomp_gbps;
  j["max_abs_error"] = e.q.max_abs_error;
  j["err_over_eb"] = e.err_over_eb;
  j["rmse"] = e.q.rmse;
  j["nrmse"] = e.q.nrmse;
  j["psnr"] = e.q.psnr;
  j["value_range"] = e.q.value_range;
  j["nonfinite"] = e.q.nonfinite;
  j["nonfinite_mismatch"] = e.q.nonfinite_mismatch;
  j["raw_chunks"] = e.info.raw_chunks;
  j["bound_ok"] = e.bound_ok;
  std::cout << j.dump() << '\n';
}

void print_text(const EvalOptions& o, const Eval& e) {
  const zcoll_quality& q = e.q;
  std::printf("file              %s\n", o.input.c_str());
  std::printf("values            %zu %s (%.0f bytes)\n", e.n, dtype_name(e.dtype),
              static_cast<double>(e.raw_size));
  std::printf("error bound       %s %g -> abs %.6g\n", e.mode, e.given, e.eb);
  std::printf("compressed        %zu bytes, ratio %.3f, %.3f bits/value\n", e.comp_size,
              q.compression_ratio, q.bits_per_value);
  std::printf("compression       %.3f GB/s (best of %d, threads %d%s)\n", e.comp_gbps, o.repeat,
              o.threads, o.threads == 0 ? " = all" : "");
  std::printf("decompression     %.3f GB/s\n", e.decomp_gbps);
  std::printf("max abs error     %.6g (%.4f of the bound)\n", q.max_abs_error, e.err_over_eb);
  std::printf("PSNR              %.2f dB\n", q.psnr);
  std::printf("NRMSE             %.4g\n", q.nrmse);
  std::printf("non-finite        %llu (%llu not reproduced)\n",
              static_cast<unsigned long long>(q.nonfinite),
              static_cast<unsigned long long>(q.nonfinite_mismatch));
  std::printf("bound check       %s\n", e.bound_ok ? "ok" : "FAILED");
}
}  // namespace

int run_eval(const EvalOptions& o) {
  Eval e;
  e.dtype = parse_dtype(o.type);
  const zcoll_dtype dtype = e.dtype;
  size_t n = 0;
  const Buffer in = read_raw_values(o.input, dtype, &n);
  if (n == 0) throw Error("'" + o.input + "' is empty: nothing to evaluate");
  const zcoll_params p = make_params(o.bound, o.chunk_size, o.codec, o.dims);
  const double raw_bytes = static_cast<double>(in.size());

  // Best of `repeat` runs: the first run also pays for page faults on the
  // output buffer, later ones show the codec's speed.
  Buffer comp(zcoll_compress_bound(n, dtype));
  size_t comp_size = 0;
  double t_comp = std::numeric_limits<double>::infinity();
  for (int r = 0; r < o.repeat; ++r) {
    const auto t0 = std::chrono::steady_clock::now();
    check(zcoll_compress(&p, dtype, in.data(), n, comp.data(), comp.size(), &comp_size, o.threads),
          "compressing '" + o.input + "'");
    t_comp = std::min(t_comp, seconds_since(t0));
  }
  check(zcoll_inspect(comp.data(), comp_size, &e.info), "inspecting the compressed stream");

  Buffer out(in.size());
  double t_decomp = std::numeric_limits<double>::infinity();
  for (int r = 0; r < o.repeat; ++r) {
    const auto t0 = std::chrono::steady_clock::now();
    check(zcoll_decompress(comp.data(), comp_size, out.data(), n, o.threads), "decompressing");
    t_decomp = std::min(t_decomp, seconds_since(t0));
  }

  zcoll_quality& q = e.q;
  check(zcoll_quality_compare(dtype, in.data(), out.data(), n, comp_size, &q, o.threads),
        "comparing");
  e.n = n;
  e.raw_size = in.size();
  e.comp_size = comp_size;
  e.eb = e.info.error_bound;
  e.err_over_eb = q.max_abs_error / e.eb;
  e.bound_ok = q.max_abs_error <= e.eb && q.nonfinite_mismatch == 0;
  e.comp_gbps = raw_bytes / t_comp / 1e9;
  e.decomp_gbps = raw_bytes / t_decomp / 1e9;
  e.mode = o.bound.rel > 0 ? "rel" : "abs";
  e.given = o.bound.rel > 0 ? o.bound.rel : o.bound.abs;

  if (o.json)
    print_json(o, e);
  else
    print_text(o, e);
  std::fflush(stdout);
  if (!e.bound_ok) {
    char msg[256];
    std::snprintf(msg, sizeof msg,
                  "error bound violated: max abs error %.17g > bound %.17g, or %llu non-finite "
                  "values changed",
                  q.max_abs_error, e.eb, static_cast<unsigned long long>(q.nonfinite_mismatch));
    throw Error(msg);
  }
  return 0;
}

}  // namespace zcoll_cli
