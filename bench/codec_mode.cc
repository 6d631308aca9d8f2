// codec_mode.cc — the default mode of zcoll-codec-bench: compression and
// decompression throughput next to memcpy, ratio and error of every dataset.
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <map>

#include "modes.h"

namespace zcoll_bench {

namespace {

// One row: a dataset (already in T) at one thread count and one REL bound.
struct CodecBuffers {
  std::vector<uint8_t> s_rel, s_abs;  // streams of the REL and the ABS call
  std::vector<unsigned char> copy;    // memcpy destination
};

template <typename T>
void codec_row(const Options& o, const DatasetSpec& d, const std::vector<T>& x, int threads,
               double rel, CodecBuffers& buf, std::map<double, uint64_t>* stream_hash,
               std::vector<T>& out, ModeResult* r) {
  const size_t n = x.size(), bytes = n * sizeof(T);
  const zcoll_dtype dt = dtype_of<T>();
  const std::string where = strf("%s %s threads=%d rel=%s", d.name.c_str(), dtype_name<T>(),
                                 threads, rel_text(rel).c_str());
  Json row;
  row["dataset"] = d.name;
  row["shape"] = d.shape();
  row["dtype"] = dtype_name<T>();
  row["n"] = n;
  row["bytes"] = bytes;
  row["threads"] = threads;
  row["rel"] = rel;

  auto fail_row = [&](const std::string& msg) {
    record_failure(r, row, where, msg,
                   {d.name, dtype_name<T>(), std::to_string(threads), rel_text(rel)});
  };

  zcoll_params prel = rel_params(rel, o.chunk_size);
  if (o.checksum) prel.flags = ZCOLL_FLAG_CHECKSUM;
  double eb = 0;
  zcoll_status s = zcoll_resolve_error_bound(&prel, dt, x.data(), n, &eb, threads);
  if (s != ZCOLL_SUCCESS) return fail_row(api_error("zcoll_resolve_error_bound", s));
  zcoll_params pabs = prel;
  pabs.eb_mode = ZCOLL_EB_ABS;
  pabs.error_bound = eb;
  row["abs_eb"] = eb;
  row["chunk_size"] = o.chunk_size ? o.chunk_size : ZCOLL_DEFAULT_CHUNK_SIZE;
  row["checksum"] = o.checksum;

  size_t size_rel = 0, size_abs = 0;
  zcoll_status st_rel = ZCOLL_SUCCESS, st_abs = ZCOLL_SUCCESS, st_dec = ZCOLL_SUCCESS;
  auto op_memcpy = [&] { parallel_memcpy(buf.copy.data(), x.data(), bytes, threads); };
  auto op_rel = [&] {
    st_rel = zcoll_compress(&prel, dt, x.data(), n, buf.s_rel.data(), buf.s_rel.size(), &size_rel,
                            threads);
  };
  auto op_abs = [&] {
    st_abs = zcoll_compress(&pabs, dt, x.data(), n, buf.s_abs.data(), buf.s_abs.size(), &size_abs,
                            threads);
  };
  auto op_dec = [&] {
    st_dec = zcoll_decompress(buf.s_abs.data(), size_abs, out.data(), n, threads);
  };
  double mn = 0, mx = 0;  // the min/max pass alone: explains cREL vs cABS
  auto op_range = [&] { zcoll_value_range(dt, x.data(), n, &mn, &mx, threads); };

  for (int w = 0; w < o.warmup; ++w) {
    op_memcpy();
    op_rel();
    op_abs();
    if (st_rel != ZCOLL_SUCCESS) return fail_row(api_error("zcoll_compress (REL)", st_rel));
    if (st_abs != ZCOLL_SUCCESS) return fail_row(api_error("zcoll_compress (ABS)", st_abs));
    op_dec();
    if (st_dec != ZCOLL_SUCCESS) return fail_row(api_error("zcoll_decompress", st_dec));
    op_range();
  }
  // interleaved, so that every operation sees the same machine conditions
  Samples t_mc, t_rel, t_abs, t_dec, t_range;
  const CpuShare cpu;
  for (int k = 0; k < o.repeat; ++k) {
    t_mc.seconds.push_back(seconds_of(op_memcpy));
    t_rel.seconds.push_back(seconds_of(op_rel));
    t_abs.seconds.push_back(seconds_of(op_abs));
    t_dec.seconds.push_back(seconds_of(op_dec));
    t_range.seconds.push_back(seconds_of(op_range));
    if (st_rel != ZCOLL_SUCCESS) return fail_row(api_error("zcoll_compress (REL)", st_rel));
    if (st_abs != ZCOLL_SUCCESS) return fail_row(api_error("zcoll_compress (ABS)", st_abs));
    if (st_dec != ZCOLL_SUCCESS) return fail_row(api_error("zcoll_decompress", st_dec));
  }
  const double cpu_share = cpu.share(threads);

  // ---- correctness: the benchmark is also a check ----
  bool ok = true;
  const bool same_streams = size_rel == size_abs &&
                            std::memcmp(buf.s_rel.data(), buf.s_abs.data(), size_abs) == 0;
  if (!same_streams) {
    ok = false;
    r->failures.push_back(where + ": REL and ABS calls with the same bound gave different streams");
  }
  const uint64_t h = fnv1a(buf.s_abs.data(), size_abs);
  auto it = stream_hash->find(rel);
  bool same_across_threads = true;
  if (it == stream_hash->end()) {
    (*stream_hash)[rel] = h;
  } else if (it->second != h) {
    same_across_threads = false;
    ok = false;
    r->failures.push_back(where + ": stream differs from the one of another thread count");
  }
  zcoll_info info = ZCOLL_INFO_INITIALIZER;
  s = zcoll_inspect(buf.s_abs.data(), size_abs, &info);
  if (s != ZCOLL_SUCCESS) return fail_row(api_error("zcoll_inspect", s));
  const Quality q = compare_quality(x.data(), out.data(), n);
  if (!(q.max_abs_error <= eb)) {
    ok = false;
    r->failures.push_back(where +
                          strf(": max error %.6g exceeds the bound %.6g", q.max_abs_error, eb));
  }
  if (q.nonfinite_mismatch) {
    ok = false;
    r->failures.push_back(where + strf(": %llu non-finite values not reproduced bit-exactly",
                                       static_cast<unsigned long long>(q.nonfinite_mismatch)));
  }

  const double ratio = static_cast<double>(bytes) / static_cast<double>(size_abs);
  const double g_mc = gbps(bytes, t_mc.pick(o.stat)), g_rel = gbps(bytes, t_rel.pick(o.stat)),
               g_abs = gbps(bytes, t_abs.pick(o.stat)), g_dec = gbps(bytes, t_dec.pick(o.stat)),
               g_range = gbps(bytes, t_range.pick(o.stat));
  row["compressed_bytes"] = size_abs;
  row["ratio"] = ratio;
  row["stat"] = stat_name(o.stat);
  row["compress_rel"] = samples_json(t_rel, bytes);
  row["compress_abs"] = samples_json(t_abs, bytes);
  row["decompress"] = samples_json(t_dec, bytes);
  row["memcpy"] = samples_json(t_mc, bytes);
  row["value_range_pass"] = samples_json(t_range, bytes);
  row["compress_rel_gbps"] = g_rel;
  row["compress_abs_gbps"] = g_abs;
  row["decompress_gbps"] = g_dec;
  row["memcpy_gbps"] = g_mc;
  row["value_range_pass_gbps"] = g_range;
  row["compress_rel_over_memcpy"] = g_mc > 0 ? g_rel / g_mc : 0;
  row["compress_abs_over_memcpy"] = g_mc > 0 ? g_abs / g_mc : 0;
  row["decompress_over_memcpy"] = g_mc > 0 ? g_dec / g_mc : 0;
  row["max_abs_error"] = q.max_abs_error;
  row["err_over_eb"] = q.max_abs_error / eb;
  row["rmse"] = q.rmse;
  row["value_range"] = q.value_range;
  row["psnr_db"] = q.psnr;  // null in JSON when infinite (lossless)
  row["nonfinite"] = q.nonfinite;
  row["nonfinite_mismatch"] = q.nonfinite_mismatch;
  row["quality_source"] = q.source;
  row["chunks"] = info.chunks;
  row["raw_chunks"] = info.raw_chunks;
  row["rel_abs_streams_identical"] = same_streams;
  row["same_stream_across_threads"] = same_across_threads;
  row["cpu_share"] = cpu_share;
  row["ok"] = ok;
  r->rows.push_back(row);

  r->table.add({d.name, dtype_name<T>(), std::to_string(threads), rel_text(rel), strf("%.3g", eb),
                strf(ratio < 100 ? "%.2f" : "%.1f", ratio), strf("%.3f", g_rel),
                strf("%.3f", g_abs), strf("%.2f", g_range), strf("%.3f", g_dec), strf("%.2f", g_mc),
                strf("%.3f", g_mc > 0 ? g_abs / g_mc : 0),
                strf("%.3f", g_mc > 0 ? g_dec / g_mc : 0), strf("%.3g", q.max_abs_error),
                strf("%.3f", q.max_abs_error / eb),
                std::isinf(q.psnr) ? "inf" : strf("%.1f", q.psnr),
                strf("%llu/%llu", static_cast<unsigned long long>(info.raw_chunks),
                     static_cast<unsigned long long>(info.chunks)),
                strf("%.0f", 100 * cpu_share), ok ? "ok" : "FAIL"});
  std::fprintf(stderr,
               "  %-50s ratio %8.2f  compREL %.3f  compABS %.3f  dec %.3f  memcpy %.2f GB/s\n",
               where.c_str(), ratio, g_rel, g_abs, g_dec, g_mc);
}

template <typename T>
void codec_dataset(const Options& o, const DatasetSpec& d, const std::vector<float>& x32,
                   ModeResult* r) {
  std::vector<T> x(x32.begin(), x32.end());
  const size_t n = x.size();
  CodecBuffers buf;
  const size_t cap = zcoll_compress_bound(n, dtype_of<T>());
  buf.s_rel.assign(cap, 0);
  buf.s_abs.assign(cap, 0);
  buf.copy.assign(n * sizeof(T), 0);
  std::vector<T> out(n);
  std::map<double, uint64_t> stream_hash;  // per REL: the stream must not depend on threads
  for (int t : o.threads)
    for (double rel : o.rels) codec_row<T>(o, d, x, t, rel, buf, &stream_hash, out, r);
}

}  // namespace

void run_codec_mode(const Options& o, const std::vector<DatasetSpec>& datasets, ModeResult* r) {
  r->table = Table(
      {"dataset", "dt", "thr", "rel", "abs eb", "ratio", "cREL", "cABS", "minmax", "dec", "memcpy",
       "cABS/mc", "dec/mc", "max err", "err/eb", "PSNR", "raw/chunks", "cpu%", "ok"},
      1);
  std::string quality_source;
  for (const DatasetSpec& d : datasets) {
    std::vector<float> x32;
    try {
      x32 = load_dataset(d);
    } catch (const std::exception& e) {
      r->failures.push_back(d.name + ": " + e.what());
      continue;
    }
    for (const std::string& dt : o.dtypes) {
      if (dt == "f64")
        codec_dataset<double>(o, d, x32, r);
      else
        codec_dataset<float>(o, d, x32, r);
    }
  }
  for (const Json& row : r->rows)
    if (row.contains("quality_source")) quality_source = row["quality_source"];
  r->footer = {
      strf("GB/s = 1e9 uncompressed input bytes per second (%s of %d runs after %d warm-up, "
           "operations interleaved).",
           stat_name(o.stat), o.repeat, o.warmup),
      "cREL   = whole zcoll_compress call with eb_mode REL: includes the min/max pass (what a "
      "user gets).",
      "cABS   = zcoll_compress with the same bound given as ABS: no min/max pass (what the "
      "collectives use).",
      "minmax = zcoll_value_range alone (the pass REL adds to cABS).",
      "dec    = zcoll_decompress.   memcpy = memcpy of the same buffer, same threads "
      "(contiguous piece per thread).",
      "cABS/mc, dec/mc = codec rate / memcpy rate.   ratio = uncompressed / compressed bytes.",
      "max err = max |x - x'| over finite x; err/eb = max err / abs eb (<= 1 required); PSNR = "
      "20 log10(range/RMSE) dB (" +
          (quality_source.empty() ? std::string("n/a") : quality_source) + ").",
      "raw/chunks = chunks stored uncompressed / all chunks.   cpu% = CPU time the timed runs got "
      "/ "
      "(wall x threads): well under 100 = descheduled, timings suspect.",
      "ok = bound kept, NaN/Inf bit-exact, REL and ABS streams identical, stream independent of "
      "threads."};
}

std::string rel_text(double rel) {
  // 1e-03, 2.5e-03: the mantissa without trailing zeros
  std::string s = strf("%.3e", rel);
  const size_t e = s.find('e');
  std::string m = s.substr(0, e);
  while (m.find('.') != std::string::npos && (m.back() == '0' || m.back() == '.')) m.pop_back();
  return m + s.substr(e);
}

}  // namespace zcoll_bench
