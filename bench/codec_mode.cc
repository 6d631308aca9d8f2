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

// The timed runs of one row, and the streams' sizes.
struct CodecTimes {
  Samples mc, rel, abs, dec, range;
  double cpu_share = 0;
  size_t size_rel = 0, size_abs = 0;
};

// Warm-up runs, then o.repeat timed runs of every operation, interleaved so
// that every operation sees the same machine conditions. Returns "" or what
// failed.
template <typename T>
std::string time_codec(const Options& o, const std::vector<T>& x, int threads,
                       const zcoll_params& prel, const zcoll_params& pabs, CodecBuffers& buf,
                       std::vector<T>& out, CodecTimes* t) {
  const size_t n = x.size(), bytes = n * sizeof(T);
  const zcoll_dtype dt = dtype_of<T>();
  size_t& size_rel = t->size_rel;
  size_t& size_abs = t->size_abs;
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
    if (st_rel != ZCOLL_SUCCESS) return api_error("zcoll_compress (REL)", st_rel);
    if (st_abs != ZCOLL_SUCCESS) return api_error("zcoll_compress (ABS)", st_abs);
    op_dec();
    if (st_dec != ZCOLL_SUCCESS) return api_error("zcoll_decompress", st_dec);
    op_range();
  }
  const CpuShare cpu;
  for (int k = 0; k < o.repeat; ++k) {
    t->mc.seconds.push_back(timed(o, threads, op_memcpy));
    t->rel.seconds.push_back(timed(o, threads, op_rel));
    t->abs.seconds.push_back(timed(o, threads, op_abs));
    t->dec.seconds.push_back(timed(o, threads, op_dec));
    t->range.seconds.push_back(timed(o, threads, op_range));
    if (st_rel != ZCOLL_SUCCESS) return api_error("zcoll_compress (REL)", st_rel);
    if (st_abs != ZCOLL_SUCCESS) return api_error("zcoll_compress (ABS)", st_abs);
    if (st_dec != ZCOLL_SUCCESS) return api_error("zcoll_decompress", st_dec);
  }
  t->cpu_share = cpu.share(threads);
  return "";
}

// What the streams must be: the REL call's the ABS call's, and the same at every
// thread count (stream_hash: per REL bound, the first one's hash).
struct StreamChecks {
  bool same_streams = true;
  bool same_across_threads = true;
};

StreamChecks check_streams(const CodecBuffers& buf, const CodecTimes& t, double rel,
                           std::map<double, uint64_t>* stream_hash, const std::string& where,
                           ModeResult* r) {
  StreamChecks c;
  c.same_streams = t.size_rel == t.size_abs &&
                   std::memcmp(buf.s_rel.data(), buf.s_abs.data(), t.size_abs) == 0;
  if (!c.same_streams)
    r->failures.push_back(where + ": REL and ABS calls with the same bound gave different streams");
  const uint64_t h = fnv1a(buf.s_abs.data(), t.size_abs);
  auto it = stream_hash->find(rel);
  if (it == stream_hash->end()) {
    (*stream_hash)[rel] = h;
  } else if (it->second != h) {
    c.same_across_threads = false;
    r->failures.push_back(where + ": stream differs from the one of another thread count");
  }
  return c;
}

// The bound and the non-finite values; false (and a failure) when either is broken.
bool check_quality(const Quality& q, double eb, const std::string& where, ModeResult* r) {
  bool ok = true;
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
  return ok;
}

// GB/s of the row's statistic.
struct CodecRates {
  double mc, rel, abs, dec, range;
};

CodecRates rates_of(const CodecTimes& t, size_t bytes, Stat stat) {
  return {gbps(bytes, t.mc.pick(stat)), gbps(bytes, t.rel.pick(stat)),
          gbps(bytes, t.abs.pick(stat)), gbps(bytes, t.dec.pick(stat)),
          gbps(bytes, t.range.pick(stat))};
}

void fill_row(Json& row, Stat stat, size_t bytes, const CodecTimes& t, const CodecRates& g,
              const Quality& q, double eb) {
  row["compressed_bytes"] = t.size_abs;
  row["ratio"] = static_cast<double>(bytes) / static_cast<double>(t.size_abs);
  row["stat"] = stat_name(stat);
  row["compress_rel"] = samples_json(t.rel, bytes);
  row["compress_abs"] = samples_json(t.abs, bytes);
  row["decompress"] = samples_json(t.dec, bytes);
  row["memcpy"] = samples_json(t.mc, bytes);
  row["value_range_pass"] = samples_json(t.range, bytes);
  row["compress_rel_gbps"] = g.rel;
  row["compress_abs_gbps"] = g.abs;
  row["decompress_gbps"] = g.dec;
  row["memcpy_gbps"] = g.mc;
  row["value_range_pass_gbps"] = g.range;
  row["compress_rel_over_memcpy"] = g.mc > 0 ? g.rel / g.mc : 0;
  row["compress_abs_over_memcpy"] = g.mc > 0 ? g.abs / g.mc : 0;
  row["decompress_over_memcpy"] = g.mc > 0 ? g.dec / g.mc : 0;
  row["max_abs_error"] = q.max_abs_error;
  row["err_over_eb"] = q.max_abs_error / eb;
  row["rmse"] = q.rmse;
  row["value_range"] = q.value_range;
  row["psnr_db"] = q.psnr;  // null in JSON when infinite (lossless)
  row["nonfinite"] = q.nonfinite;
  row["nonfinite_mismatch"] = q.nonfinite_mismatch;
  row["quality_source"] = q.source;
}

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

  CodecTimes t;
  const std::string error = time_codec(o, x, threads, prel, pabs, buf, out, &t);
  if (!error.empty()) return fail_row(error);

  // ---- correctness: the benchmark is also a check ----
  const StreamChecks sc = check_streams(buf, t, rel, stream_hash, where, r);
  bool ok = sc.same_streams && sc.same_across_threads;
  zcoll_info info = ZCOLL_INFO_INITIALIZER;
  s = zcoll_inspect(buf.s_abs.data(), t.size_abs, &info);
  if (s != ZCOLL_SUCCESS) return fail_row(api_error("zcoll_inspect", s));
  const Quality q = compare_quality(x.data(), out.data(), n);
  if (!check_quality(q, eb, where, r)) ok = false;

  const double ratio = static_cast<double>(bytes) / static_cast<double>(t.size_abs);
  const CodecRates g = rates_of(t, bytes, o.stat);
  fill_row(row, o.stat, bytes, t, g, q, eb);
  row["chunks"] = info.chunks;
  row["raw_chunks"] = info.raw_chunks;
  row["rel_abs_streams_identical"] = sc.same_streams;
  row["same_stream_across_threads"] = sc.same_across_threads;
  row["cpu_share"] = t.cpu_share;
  row["ok"] = ok;
  r->rows.push_back(row);

  r->table.add({d.name, dtype_name<T>(), std::to_string(threads), rel_text(rel), strf("%.3g", eb),
                strf(ratio < 100 ? "%.2f" : "%.1f", ratio), strf("%.3f", g.rel),
                strf("%.3f", g.abs), strf("%.2f", g.range), strf("%.3f", g.dec), strf("%.2f", g.mc),
                strf("%.3f", g.mc > 0 ? g.abs / g.mc : 0),
                strf("%.3f", g.mc > 0 ? g.dec / g.mc : 0), strf("%.3g", q.max_abs_error),
                strf("%.3f", q.max_abs_error / eb),
                std::isinf(q.psnr) ? "inf" : strf("%.1f", q.psnr),
                strf("%llu/%llu", static_cast<unsigned long long>(info.raw_chunks),
                     static_cast<unsigned long long>(info.chunks)),
                strf("%.0f", 100 * t.cpu_share), ok ? "ok" : "FAIL"});
  std::fprintf(stderr,
               "  %-50s ratio %8.2f  compREL %.3f  compABS %.3f  dec %.3f  memcpy %.2f GB/s\n",
               where.c_str(), ratio, g.rel, g.abs, g.dec, g.mc);
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

// The footer's legend of the table's columns.
void codec_legend(const Options& o, const std::string& quality_source,
                  std::vector<std::string>* footer) {
  std::vector<std::string>& f = *footer;
  f.push_back(
      strf("GB/s = 1e9 uncompressed input bytes per second (%s of %d runs after %d warm-up, "
           "operations interleaved%s).",
           stat_name(o.stat), o.repeat, o.warmup,
           o.cold ? "; the caches emptied before every run, memcpy's too" : ""));
  f.push_back(
      "cREL   = whole zcoll_compress call with eb_mode REL: includes the min/max pass (what a "
      "user gets).");
  f.push_back(
      "cABS   = zcoll_compress with the same bound given as ABS: no min/max pass (what the "
      "collectives use).");
  f.push_back("minmax = zcoll_value_range alone (the pass REL adds to cABS).");
  f.push_back(
      "dec    = zcoll_decompress.   memcpy = memcpy of the same buffer, same threads "
      "(contiguous piece per thread).");
  f.push_back(
      "cABS/mc, dec/mc = codec rate / memcpy rate.   ratio = uncompressed / compressed bytes.");
  f.push_back(
      "max err = max |x - x'| over finite x; err/eb = max err / abs eb (<= 1 required); PSNR = "
      "20 log10(range/RMSE) dB (" +
      (quality_source.empty() ? std::string("n/a") : quality_source) + ").");
  f.push_back(
      "raw/chunks = chunks stored uncompressed / all chunks.   cpu% = CPU time the timed runs "
      "got / (wall x threads): well under 100 = descheduled, timings suspect.");
  f.push_back(
      "ok = bound kept, NaN/Inf bit-exact, REL and ABS streams identical, stream independent of "
      "threads.");
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
  codec_legend(o, quality_source, &r->footer);
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
