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

int run_eval(const EvalOptions& o) {
  const zcoll_dtype dtype = parse_dtype(o.type);
  size_t n = 0;
  const Buffer in = read_raw_values(o.input, dtype, &n);
  if (n == 0) throw Error("'" + o.input + "' is empty: nothing to evaluate");
  const zcoll_params p = make_params(o.bound, o.chunk_size);
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
  zcoll_info info = ZCOLL_INFO_INITIALIZER;
  check(zcoll_inspect(comp.data(), comp_size, &info), "inspecting the compressed stream");

  Buffer out(in.size());
  double t_decomp = std::numeric_limits<double>::infinity();
  for (int r = 0; r < o.repeat; ++r) {
    const auto t0 = std::chrono::steady_clock::now();
    check(zcoll_decompress(comp.data(), comp_size, out.data(), n, o.threads), "decompressing");
    t_decomp = std::min(t_decomp, seconds_since(t0));
  }

  zcoll_quality q = ZCOLL_QUALITY_INITIALIZER;
  check(zcoll_quality_compare(dtype, in.data(), out.data(), n, comp_size, &q, o.threads),
        "comparing");
  const double eb = info.error_bound;  // the absolute bound the stream guarantees
  const double err_over_eb = q.max_abs_error / eb;
  const bool bound_ok = q.max_abs_error <= eb && q.nonfinite_mismatch == 0;
  const double comp_gbps = raw_bytes / t_comp / 1e9;
  const double decomp_gbps = raw_bytes / t_decomp / 1e9;
  const char* mode = o.bound.rel > 0 ? "rel" : "abs";
  const double given = o.bound.rel > 0 ? o.bound.rel : o.bound.abs;

  if (o.json) {
    // JSON has no infinity: nlohmann writes a non-finite number (PSNR of an
    // exact reconstruction) as null
    nlohmann::ordered_json j;
    j["file"] = o.input;
    j["dtype"] = dtype_name(dtype);
    j["n"] = n;
    j["eb_mode"] = mode;
    j["eb"] = given;
    j["abs_eb"] = eb;
    j["chunk_size"] = info.chunk_size;
    j["threads"] = o.threads;
    j["repeat"] = o.repeat;
    j["raw_bytes"] = in.size();
    j["compressed_bytes"] = comp_size;
    j["ratio"] = q.compression_ratio;
    j["bits_per_value"] = q.bits_per_value;
    j["compress_gbps"] = comp_gbps;
    j["decompress_gbps"] = decomp_gbps;
    j["max_abs_error"] = q.max_abs_error;
    j["err_over_eb"] = err_over_eb;
    j["rmse"] = q.rmse;
    j["nrmse"] = q.nrmse;
    j["psnr"] = q.psnr;
    j["value_range"] = q.value_range;
    j["nonfinite"] = q.nonfinite;
    j["nonfinite_mismatch"] = q.nonfinite_mismatch;
    j["raw_chunks"] = info.raw_chunks;
    j["bound_ok"] = bound_ok;
    std::cout << j.dump() << '\n';
  } else {
    std::printf("file              %s\n", o.input.c_str());
    std::printf("values            %zu %s (%.0f bytes)\n", n, dtype_name(dtype), raw_bytes);
    std::printf("error bound       %s %g -> abs %.6g\n", mode, given, eb);
    std::printf("compressed        %zu bytes, ratio %.3f, %.3f bits/value\n", comp_size,
                q.compression_ratio, q.bits_per_value);
    std::printf("compression       %.3f GB/s (best of %d, threads %d%s)\n", comp_gbps, o.repeat,
                o.threads, o.threads == 0 ? " = all" : "");
    std::printf("decompression     %.3f GB/s\n", decomp_gbps);
    std::printf("max abs error     %.6g (%.4f of the bound)\n", q.max_abs_error, err_over_eb);
    std::printf("PSNR              %.2f dB\n", q.psnr);
    std::printf("NRMSE             %.4g\n", q.nrmse);
    std::printf("non-finite        %llu (%llu not reproduced)\n",
                static_cast<unsigned long long>(q.nonfinite),
                static_cast<unsigned long long>(q.nonfinite_mismatch));
    std::printf("bound check       %s\n", bound_ok ? "ok" : "FAILED");
  }
  std::fflush(stdout);
  if (!bound_ok) {
    char msg[256];
    std::snprintf(msg, sizeof msg,
                  "error bound violated: max abs error %.17g > bound %.17g, or %llu non-finite "
                  "values changed",
                  q.max_abs_error, eb, static_cast<unsigned long long>(q.nonfinite_mismatch));
    throw Error(msg);
  }
  return 0;
}

}  // namespace zcoll_cli
