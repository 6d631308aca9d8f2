// hom_mode.cc — `zcoll-codec-bench --hom`: homomorphic addition (zcoll_hom_add,
// compressed in -> compressed out) against decompress-operate-compress (DOC) on
// two different inputs of each field, compressed at the same absolute bound.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>

#include "modes.h"

namespace zcoll_bench {

namespace {

template <typename T>
struct HomData {
  std::vector<T> a, b;
  std::vector<double> exact;  // a + b in double
  std::string how;
};

struct HomBuffers {
  std::vector<uint8_t> sa, sb, hom, doc, doc_acc, fused;
  std::vector<unsigned char> copy;
};

template <typename T>
struct HomScratch {
  std::vector<T> sum, addend, check;  // DOC: a' (then a' + b'), b'; outputs decoded
};

// x[i] += y[i] with `threads` threads (the "add in the value type" step of DOC)
template <typename T>
void add_into(T* x, const T* y, size_t n, int threads) {
#pragma omp parallel for num_threads(threads) schedule(static)
  for (int64_t i = 0; i < static_cast<int64_t>(n); ++i) x[i] += y[i];
}

std::string pct(uint64_t part, uint64_t total) {
  return total ? strf("%.0f", 100.0 * static_cast<double>(part) / static_cast<double>(total)) : "-";
}

// The timed runs of one row: hom, DOC, DOCacc and DOCf on the streams sa (na
// bytes) and sb (nb), and the sizes of their outputs.
struct HomTimes {
  Samples mc, hom, doc, acc, fused;
  double cpu_share = 0;
  size_t n_hom = 0, n_doc = 0, n_acc = 0, n_fused = 0;
  zcoll_status st_fused = ZCOLL_SUCCESS;  // DOCf may fail: reported, not a failed row
};

// Warm-up runs, then o.repeat timed runs of every operation, interleaved.
// Returns "" or what failed.
template <typename T>
std::string time_hom(const Options& o, const HomData<T>& in, int threads, const zcoll_params& p,
                     size_t na, size_t nb, HomBuffers& buf, HomScratch<T>& w, HomTimes* t) {
  const size_t n = in.a.size(), bytes = n * sizeof(T), cap = buf.hom.size();
  const zcoll_dtype dt = dtype_of<T>();
  zcoll_status st_hom = ZCOLL_SUCCESS, st_doc = ZCOLL_SUCCESS, st_acc = ZCOLL_SUCCESS;
  zcoll_status& st_fused = t->st_fused;
  auto op_memcpy = [&] { parallel_memcpy(buf.copy.data(), in.a.data(), bytes, threads); };
  auto op_hom = [&] {
    st_hom = zcoll_hom_add(buf.sa.data(), na, buf.sb.data(), nb, buf.hom.data(), cap, &t->n_hom,
                           nullptr, threads);
  };
  // DOC: decompress both, add in the value type, compress the sum at the same bound
  auto op_doc = [&] {
    st_doc = zcoll_decompress(buf.sa.data(), na, w.sum.data(), n, threads);
    if (st_doc == ZCOLL_SUCCESS)
      st_doc = zcoll_decompress(buf.sb.data(), nb, w.addend.data(), n, threads);
    if (st_doc != ZCOLL_SUCCESS) return;
    add_into(w.sum.data(), w.addend.data(), n, threads);
    st_doc = zcoll_compress(&p, dt, w.sum.data(), n, buf.doc.data(), cap, &t->n_doc, threads);
  };
  // DOCacc: the same with the add fused into decoding b (zcoll_decompress_accumulate):
  // one pass less, the strongest DOC built from public calls
  auto op_acc = [&] {
    st_acc = zcoll_decompress(buf.sa.data(), na, w.sum.data(), n, threads);
    if (st_acc == ZCOLL_SUCCESS)
      st_acc = zcoll_decompress_accumulate(buf.sb.data(), nb, w.sum.data(), n, threads);
    if (st_acc == ZCOLL_SUCCESS)
      st_acc = zcoll_compress(&p, dt, w.sum.data(), n, buf.doc_acc.data(), cap, &t->n_acc, threads);
  };
  auto op_fused = [&] {
    st_fused = zcoll_doc_combine(buf.sa.data(), na, buf.sb.data(), nb, ZCOLL_OP_SUM,
                                 buf.fused.data(), cap, &t->n_fused, threads);
  };
  auto check_status = [&]() -> std::string {
    if (st_hom != ZCOLL_SUCCESS) return api_error("zcoll_hom_add", st_hom);
    if (st_doc != ZCOLL_SUCCESS) return api_error("DOC path", st_doc);
    if (st_acc != ZCOLL_SUCCESS) return api_error("DOCacc path", st_acc);
    return "";
  };
  for (int k = 0; k < o.warmup; ++k) {
    op_memcpy();
    op_hom();
    op_doc();
    op_acc();
    op_fused();
    std::string e = check_status();
    if (!e.empty()) return e;
  }
  const CpuShare cpu;
  for (int k = 0; k < o.repeat; ++k) {
    t->mc.seconds.push_back(timed(o, threads, op_memcpy));
    t->hom.seconds.push_back(timed(o, threads, op_hom));
    t->doc.seconds.push_back(timed(o, threads, op_doc));
    t->acc.seconds.push_back(timed(o, threads, op_acc));
    t->fused.seconds.push_back(timed(o, threads, op_fused));
    std::string e = check_status();
    if (!e.empty()) return e;
  }
  t->cpu_share = cpu.share(threads);
  return "";
}

// The outputs against the exact double sum.
struct HomErrors {
  zcoll_hom_stats hs = ZCOLL_HOM_STATS_INITIALIZER;  // pipeline counts (an untimed call)
  zcoll_info hinfo = ZCOLL_INFO_INITIALIZER;         // of its output
  size_t n_hom2 = 0;                                 // its output's bytes
  double hom_err = 0, doc_err = 0, fused_err = std::numeric_limits<double>::quiet_NaN();
  uint64_t hom_mismatch = 0, doc_mismatch = 0, fused_mismatch = 0;
  bool doc_variants_identical = false;
  double doc_bound = 0;  // DOC: two decoding errors, the rounding of the sum, the re-encoding
};

// Decodes the outputs of one more hom call, DOC and DOCf; returns "" or what failed.
template <typename T>
std::string measure_errors(const HomData<T>& in, int threads, double eb, size_t na, size_t nb,
                           const HomTimes& t, HomBuffers& buf, HomScratch<T>& w, HomErrors* e) {
  const size_t n = in.a.size(), cap = buf.hom.size();
  zcoll_status s = zcoll_hom_add(buf.sa.data(), na, buf.sb.data(), nb, buf.hom.data(), cap,
                                 &e->n_hom2, &e->hs, threads);
  if (s != ZCOLL_SUCCESS) return api_error("zcoll_hom_add (stats)", s);
  if ((s = zcoll_inspect(buf.hom.data(), e->n_hom2, &e->hinfo)) != ZCOLL_SUCCESS)
    return api_error("zcoll_inspect (hom output)", s);
  std::vector<T>& check = w.check;
  if ((s = zcoll_decompress(buf.hom.data(), e->n_hom2, check.data(), n, threads)) != ZCOLL_SUCCESS)
    return api_error("zcoll_decompress (hom output)", s);
  e->hom_err = max_error_vs(in.exact.data(), check.data(), n, &e->hom_mismatch);
  if ((s = zcoll_decompress(buf.doc.data(), t.n_doc, check.data(), n, threads)) != ZCOLL_SUCCESS)
    return api_error("zcoll_decompress (DOC output)", s);
  e->doc_err = max_error_vs(in.exact.data(), check.data(), n, &e->doc_mismatch);
  // DOC and DOCacc add the same values in the same type: the streams must agree
  e->doc_variants_identical = t.n_doc == t.n_acc &&
                              std::memcmp(buf.doc.data(), buf.doc_acc.data(), t.n_doc) == 0;
  if (t.st_fused == ZCOLL_SUCCESS &&
      zcoll_decompress(buf.fused.data(), t.n_fused, check.data(), n, threads) == ZCOLL_SUCCESS)
    e->fused_err = max_error_vs(in.exact.data(), check.data(), n, &e->fused_mismatch);
  double max_abs_sum = 0;
  for (double v : in.exact)
    if (std::isfinite(v)) max_abs_sum = std::max(max_abs_sum, std::fabs(v));
  e->doc_bound = 3 * eb + std::numeric_limits<T>::epsilon() * max_abs_sum;
  return "";
}

// The row's checks; false (and a failure for each) when one fails.
bool judge(const HomErrors& e, const HomTimes& t, const std::string& where, ModeResult* r) {
  bool ok = true;
  auto failed = [&](const std::string& why) {
    ok = false;
    r->failures.push_back(where + why);
  };
  if (!(e.hom_err <= e.hinfo.error_bound))
    failed(
        strf(": hom error %.6g exceeds the output's bound %.6g", e.hom_err, e.hinfo.error_bound));
  if (!(e.doc_err <= e.doc_bound))
    failed(strf(": DOC error %.6g exceeds 3 eb + rounding = %.6g", e.doc_err, e.doc_bound));
  if (e.hom_mismatch || e.doc_mismatch)
    failed(strf(": non-finite positions differ from a+b (hom %llu, DOC %llu)",
                static_cast<unsigned long long>(e.hom_mismatch),
                static_cast<unsigned long long>(e.doc_mismatch)));
  if (!e.doc_variants_identical)
    failed(": DOC and DOCacc (decompress_accumulate) gave different streams");
  if (e.n_hom2 != t.n_hom || e.hinfo.terms != 2)
    failed(strf(": hom output: %zu vs %zu bytes between calls, terms %u", t.n_hom, e.n_hom2,
                e.hinfo.terms));
  return ok;
}

// GB/s of the row's statistic, and the speedups.
struct HomRates {
  double mc, hom, doc, acc, fused, speedup, speedup_best;
};

HomRates hom_rates(const HomTimes& t, size_t bytes, Stat stat) {
  HomRates g;
  g.mc = gbps(bytes, t.mc.pick(stat));
  g.hom = gbps(bytes, t.hom.pick(stat));
  g.doc = gbps(bytes, t.doc.pick(stat));
  g.acc = gbps(bytes, t.acc.pick(stat));
  g.fused = t.st_fused == ZCOLL_SUCCESS ? gbps(bytes, t.fused.pick(stat)) : 0;
  const double best_doc = std::max({g.doc, g.acc, g.fused});
  g.speedup = g.doc > 0 ? g.hom / g.doc : 0;
  g.speedup_best = best_doc > 0 ? g.hom / best_doc : 0;
  return g;
}

uint64_t blocks_of(const zcoll_hom_stats& hs) {
  uint64_t blocks = 0;
  for (uint64_t c : hs.pipeline) blocks += c;
  return blocks;
}

void fill_hom_row(Json& row, Stat stat, size_t bytes, double eb, size_t na, size_t nb,
                  const HomTimes& t, const HomRates& g, const HomErrors& e) {
  const bool fused_ok = t.st_fused == ZCOLL_SUCCESS;
  auto ratio_of = [&](size_t sz) { return static_cast<double>(bytes) / static_cast<double>(sz); };
  row["ratio_a"] = ratio_of(na);
  row["ratio_b"] = ratio_of(nb);
  row["stat"] = stat_name(stat);
  row["hom"] = samples_json(t.hom, bytes);
  row["doc"] = samples_json(t.doc, bytes);
  row["doc_acc"] = samples_json(t.acc, bytes);
  row["doc_fused"] = fused_ok ? samples_json(t.fused, bytes) : Json(nullptr);
  row["memcpy"] = samples_json(t.mc, bytes);
  row["hom_gbps"] = g.hom;
  row["doc_gbps"] = g.doc;
  row["doc_acc_gbps"] = g.acc;
  row["doc_fused_gbps"] = fused_ok ? Json(g.fused) : Json(nullptr);
  row["memcpy_gbps"] = g.mc;
  row["speedup_hom_over_doc"] = g.speedup;
  row["speedup_hom_over_best_doc"] = g.speedup_best;
  row["hom_over_memcpy"] = g.mc > 0 ? g.hom / g.mc : 0;
  const zcoll_hom_stats& hs = e.hs;
  const uint64_t blocks = blocks_of(hs);
  row["pipeline_blocks"] = {hs.pipeline[0], hs.pipeline[1], hs.pipeline[2], hs.pipeline[3]};
  Json pp = Json::array();
  for (uint64_t c : hs.pipeline)
    pp.push_back(blocks ? 100.0 * static_cast<double>(c) / static_cast<double>(blocks) : 0.0);
  row["pipeline_pct"] = pp;
  row["raw_chunks"] = hs.raw_chunks;
  row["widened_chunks"] = hs.widened_chunks;
  row["chunks"] = e.hinfo.chunks;
  row["hom_bytes"] = t.n_hom;
  row["hom_ratio"] = ratio_of(t.n_hom);
  row["hom_stream_error_bound"] = e.hinfo.error_bound;
  row["hom_max_abs_error"] = e.hom_err;
  row["hom_err_over_eb"] = e.hom_err / eb;
  row["hom_nonfinite_mismatch"] = e.hom_mismatch;
  row["doc_bytes"] = t.n_doc;
  row["doc_ratio"] = ratio_of(t.n_doc);
  row["doc_error_bound"] = e.doc_bound;
  row["doc_max_abs_error"] = e.doc_err;
  row["doc_err_over_eb"] = e.doc_err / eb;
  row["doc_nonfinite_mismatch"] = e.doc_mismatch;
  row["doc_variants_identical"] = e.doc_variants_identical;
  if (!fused_ok) row["doc_fused_error"] = api_error("zcoll_doc_combine", t.st_fused);
  if (fused_ok) {
    row["doc_fused_bytes"] = t.n_fused;
    row["doc_fused_max_abs_error"] = e.fused_err;
    row["doc_fused_nonfinite_mismatch"] = e.fused_mismatch;
  }
}

// The table's cells from the hom column on.
std::vector<std::string> hom_cells(size_t bytes, double eb, size_t na, const HomTimes& t,
                                   const HomRates& g, const HomErrors& e, bool ok) {
  const zcoll_hom_stats& hs = e.hs;
  const uint64_t blocks = blocks_of(hs);
  auto ratio_of = [&](size_t sz) { return static_cast<double>(bytes) / static_cast<double>(sz); };
  return {strf("%.3f", g.hom),
          strf("%.3f", g.doc),
          strf("%.3f", g.acc),
          t.st_fused == ZCOLL_SUCCESS ? strf("%.3f", g.fused) : "-",
          strf("%.2f", g.mc),
          strf("%.1fx", g.speedup),
          strf("%.1fx", g.speedup_best),
          strf("%.3f", g.mc > 0 ? g.hom / g.mc : 0),
          pct(hs.pipeline[0], blocks) + "/" + pct(hs.pipeline[1], blocks) + "/" +
              pct(hs.pipeline[2], blocks) + "/" + pct(hs.pipeline[3], blocks),
          strf("%llu/%llu", static_cast<unsigned long long>(hs.raw_chunks),
               static_cast<unsigned long long>(e.hinfo.chunks)),
          std::to_string(hs.widened_chunks),
          strf("%.2f", ratio_of(na)),
          strf("%.2f", ratio_of(t.n_hom)),
          strf("%.2f", ratio_of(t.n_doc)),
          strf("%.3f", e.hom_err / eb),
          strf("%.3f", e.doc_err / eb),
          strf("%.0f", 100 * t.cpu_share),
          ok ? "ok" : "FAIL"};
}

template <typename T>
void hom_row(const Options& o, const DatasetSpec& d, const HomData<T>& in, int threads, double rel,
             HomBuffers& buf, HomScratch<T>& w, ModeResult* r) {
  const size_t n = in.a.size(), bytes = n * sizeof(T), cap = buf.hom.size();
  const zcoll_dtype dt = dtype_of<T>();
  const std::string where = strf("%s %s threads=%d rel=%s", d.name.c_str(), dtype_name<T>(),
                                 threads, rel_text(rel).c_str());
  Json row;
  row["dataset"] = d.name;
  row["shape"] = d.shape();
  row["inputs"] = in.how;
  row["dtype"] = dtype_name<T>();
  row["n"] = n;
  row["bytes_one_input"] = bytes;
  row["threads"] = threads;
  row["rel"] = rel;
  auto fail_row = [&](const std::string& msg) {
    record_failure(r, row, where, msg,
                   {d.name, dtype_name<T>(), std::to_string(threads), rel_text(rel)});
  };

  // one absolute bound for both inputs: REL of the first
  zcoll_params p = rel_params(rel, o.chunk_size);
  double eb = 0;
  zcoll_status s = zcoll_resolve_error_bound(&p, dt, in.a.data(), n, &eb, threads);
  if (s != ZCOLL_SUCCESS) return fail_row(api_error("zcoll_resolve_error_bound", s));
  p.eb_mode = ZCOLL_EB_ABS;
  p.error_bound = eb;
  row["abs_eb"] = eb;
  size_t na = 0, nb = 0;
  if ((s = zcoll_compress(&p, dt, in.a.data(), n, buf.sa.data(), cap, &na, threads)) !=
          ZCOLL_SUCCESS ||
      (s = zcoll_compress(&p, dt, in.b.data(), n, buf.sb.data(), cap, &nb, threads)) !=
          ZCOLL_SUCCESS)
    return fail_row(api_error("zcoll_compress", s));

  HomTimes t;
  std::string error = time_hom(o, in, threads, p, na, nb, buf, w, &t);
  if (!error.empty()) return fail_row(error);
  // ---- correctness against the exact double sum ----
  HomErrors e;
  error = measure_errors(in, threads, eb, na, nb, t, buf, w, &e);
  if (!error.empty()) return fail_row(error);
  const bool ok = judge(e, t, where, r);

  const HomRates g = hom_rates(t, bytes, o.stat);
  fill_hom_row(row, o.stat, bytes, eb, na, nb, t, g, e);
  row["cpu_share"] = t.cpu_share;
  row["ok"] = ok;
  r->rows.push_back(row);
  std::vector<std::string> cells = {d.name, dtype_name<T>(), std::to_string(threads), rel_text(rel),
                                    strf("%.3g", eb)};
  for (std::string& c : hom_cells(bytes, eb, na, t, g, e, ok)) cells.push_back(std::move(c));
  r->table.add(cells);
  std::fprintf(stderr, "  %-50s hom %.3f  DOC %.3f GB/s  speedup %.1fx\n", where.c_str(), g.hom,
               g.doc, g.speedup);
}

template <typename T>
void hom_dataset(const Options& o, const DatasetSpec& d, const InputPair& pair32, ModeResult* r) {
  HomData<T> in;
  in.a.assign(pair32.a.begin(), pair32.a.end());
  in.b.assign(pair32.b.begin(), pair32.b.end());
  in.how = pair32.how;
  const size_t n = in.a.size();
  in.exact.resize(n);
  for (size_t i = 0; i < n; ++i)
    in.exact[i] = static_cast<double>(in.a[i]) + static_cast<double>(in.b[i]);
  HomBuffers buf;
  const size_t cap = zcoll_compress_bound(n, dtype_of<T>());
  for (auto* v : {&buf.sa, &buf.sb, &buf.hom, &buf.doc, &buf.doc_acc, &buf.fused})
    v->assign(cap, 0);
  buf.copy.assign(n * sizeof(T), 0);
  HomScratch<T> w;
  w.sum.resize(n);
  w.addend.resize(n);
  w.check.resize(n);
  for (int t : o.threads)
    for (double rel : o.rels) hom_row<T>(o, d, in, t, rel, buf, w, r);
}

// The footer's performance targets (informative: they do not change the exit status).
void hom_targets(const Options& o, ModeResult* r) {
  std::vector<std::string>& f = r->footer;
  std::vector<std::string> slower;
  for (const Json& row : r->rows) {
    if (!row.contains("speedup_hom_over_doc")) continue;
    const double sp = row["speedup_hom_over_doc"];
    const double sp_best = row["speedup_hom_over_best_doc"];
    const double share = row["cpu_share"];
    // rows whose threads were descheduled: their timings say little
    const std::string suspect = share < 0.8 ? strf(" [cpu %.0f%%: suspect, re-run]", 100 * share)
                                            : std::string();
    const std::string name = row["dataset"].get<std::string>() + " " +
                             row["dtype"].get<std::string>() +
                             " thr=" + std::to_string(row["threads"].get<int>()) +
                             " rel=" + rel_text(row["rel"].get<double>());
    if (sp < 1) slower.push_back(strf("%s (%.2fx)%s", name.c_str(), sp, suspect.c_str()));
    if (row["dataset"].get<std::string>().rfind("synthetic-smooth_", 0) == 0) {
      const double rel = row["rel"];
      double target = 0;
      if (std::fabs(rel / 1e-2 - 1) < 1e-9) target = 10;
      if (std::fabs(rel / 1e-4 - 1) < 1e-9) target = 3;
      if (target > 0)
        f.push_back(strf(
            "target hom >= %.0fx DOC on a smooth field: %s: %.1fx %s (vs the "
            "fastest DOC variant: %.1fx)%s",
            target, name.c_str(), sp, sp >= target ? "met" : "MISSED", sp_best, suspect.c_str()));
    }
  }
  f.push_back(slower.empty() ? "target hom never slower than DOC: met on every row"
                             : "target hom never slower than DOC: MISSED on " +
                                   std::to_string(slower.size()) + " rows:");
  for (const std::string& s : slower) f.push_back("  " + s);
  f.push_back(
      strf("(targets are checked on this run's %s timings; on a busy machine re-run "
           "before concluding)",
           stat_name(o.stat)));
}

// The footer's legend of the table's columns.
void hom_legend(const Options& o, std::vector<std::string>* footer) {
  std::vector<std::string>& f = *footer;
  f.push_back("");
  f.push_back(
      strf("GB/s = 1e9 bytes of ONE uncompressed input per second (%s of %d runs after "
           "%d warm-up, interleaved%s).",
           stat_name(o.stat), o.repeat, o.warmup,
           o.cold ? "; the caches emptied before every run, memcpy's too" : ""));
  f.push_back("hom  = zcoll_hom_add(a, b): compressed in, compressed out.   hom/DOC = speedup.");
  f.push_back(
      "DOC  = zcoll_decompress(a), zcoll_decompress(b), add in the value type, "
      "zcoll_compress(sum, same ABS eb).");
  f.push_back(
      "DOCacc = the same with zcoll_decompress_accumulate(b) doing the add (one pass "
      "less).   hom/best = hom vs the fastest DOC variant.");
  f.push_back(
      "DOCf = zcoll_doc_combine(a, b, SUM), the library's fused DOC ('-' if it failed).   "
      "memcpy = one input, same threads.");
  f.push_back(
      "a and b: two different inputs of the field (JSON 'inputs'), both compressed at eb "
      "= REL x range(a).");
  f.push_back(
      "p0..p3 = % of blocks by hom pipeline: 0 both constant, 1 only a constant, 2 only "
      "b constant, 3 neither.");
  f.push_back(
      "raw/chunks, wide = chunks that went through floats / all chunks, chunks whose "
      "codes overflowed.");
  f.push_back(
      "err/eb = max |exact a+b (double) - output| / eb: hom must stay within its stream's "
      "bound (2 eb), DOC within 3 eb.");
  f.push_back(
      "cpu% = CPU time the timed runs got / (wall x threads): well under 100 = "
      "descheduled, timings suspect.");
}

}  // namespace

void run_hom_mode(const Options& o, const std::vector<DatasetSpec>& datasets, ModeResult* r) {
  r->table = Table(
      {"dataset",    "dt",   "thr",     "rel",       "abs eb",    "hom",        "DOC",
       "DOCacc",     "DOCf", "memcpy",  "hom/DOC",   "hom/best",  "hom/mc",     "p0/p1/p2/p3 %",
       "raw/chunks", "wide", "ratio a", "ratio hom", "ratio DOC", "hom err/eb", "DOC err/eb",
       "cpu%",       "ok"},
      1);
  for (const DatasetSpec& d : datasets) {
    InputPair pair;
    try {
      pair = make_input_pair(d);
    } catch (const std::exception& e) {
      r->failures.push_back(d.name + ": " + e.what());
      continue;
    }
    for (const std::string& dt : o.dtypes) {
      if (dt == "f64")
        hom_dataset<double>(o, d, pair, r);
      else
        hom_dataset<float>(o, d, pair, r);
    }
  }

  hom_targets(o, r);
  hom_legend(o, &r->footer);
}

}  // namespace zcoll_bench
