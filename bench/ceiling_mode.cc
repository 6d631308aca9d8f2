// ceiling_mode.cc — the --ceiling mode of zcoll-codec-bench: how far this machine
// lets threads scale when memory is out of the way. The 2-thread goals (issue
// 34: compress, decompress and hom add on 2 threads >= 1.8x one thread) mix the
// codec's own scaling with the machine's: memcpy's 2t / 1t in the codec mode is
// the memory's share. This mode measures the rest, in the same run:
//   compress, decompress, hom   each thread calls zcoll_compress / decompress /
//          hom_add (threads = 1) again and again on its own copy of a slice of the
//          field, small enough to stay in its core's L2 (kSliceValues): the codec's
//          instructions without DRAM traffic;
//   alu    each thread runs an integer loop with no memory operands: the cores'
//          own scaling (a virtual machine's CPUs may share a physical core, or
//          slow down when both run).
// Rates are aggregates (all threads' bytes, or iterations, per second); the
// kernels and thread counts are interleaved in every repeat, so a row's 2t / 1t
// compares runs made side by side. A timed run is `reps` calls, set in the
// warm-up so that it takes about kTimedSeconds on one thread.
#include <omp.h>

#include <algorithm>
#include <cstdio>
#include <map>

#include "modes.h"

namespace zcoll_bench {

namespace {

constexpr size_t kSliceValues = size_t{1} << 16;  // 256 KiB of f32: L2-resident
constexpr double kTimedSeconds = 0.015;
const char* const kKernels[] = {"compress", "decompress", "hom", "alu"};
constexpr int kNumKernels = 4;

// One thread's buffers: its copies of the inputs, their streams, the outputs.
struct SliceBuffers {
  std::vector<float> a, b, decoded;
  std::vector<uint8_t> sa, sb, out;
  size_t na = 0, nb = 0;
};

// An integer loop of `iters` iterations with no loads or stores: four
// independent dependency chains of cheap ALU operations.
uint64_t alu_loop(uint64_t iters, uint64_t seed) {
  uint64_t a = seed | 1, b = 3, c = 5, d = 7;
  for (uint64_t i = 0; i < iters; ++i) {
    a = a * 6364136223846793005ull + 1;
    b ^= b >> 7;
    b += a;
    c = (c << 1) ^ b;
    d += c >> 3;
    __asm__ volatile("" : "+r"(a), "+r"(b), "+r"(c), "+r"(d));  // keep the loop as written
  }
  return a ^ b ^ c ^ d;
}

// One call of kernel k on one thread's buffers; false: the call failed.
bool call_kernel(int k, const zcoll_params& p, SliceBuffers& s, uint64_t alu_iters,
                 uint64_t* sink) {
  size_t n_out = 0;
  switch (k) {
    case 0:
      return zcoll_compress(&p, ZCOLL_FLOAT32, s.a.data(), s.a.size(), s.out.data(), s.out.size(),
                            &n_out, 1) == ZCOLL_SUCCESS;
    case 1:
      return zcoll_decompress(s.sa.data(), s.na, s.decoded.data(), s.decoded.size(), 1) ==
             ZCOLL_SUCCESS;
    case 2:
      return zcoll_hom_add(s.sa.data(), s.na, s.sb.data(), s.nb, s.out.data(), s.out.size(), &n_out,
                           nullptr, 1) == ZCOLL_SUCCESS;
    default: *sink += alu_loop(alu_iters, *sink); return true;
  }
}

// `threads` threads, each making `reps` calls of kernel k on its own buffers.
// Returns the wall seconds, or a negative value when a call failed.
double timed_team(int k, int threads, int reps, const zcoll_params& p,
                  std::vector<SliceBuffers>& bufs, uint64_t alu_iters, uint64_t* sink) {
  int failed = 0;
  uint64_t total = 0;
  const double s = seconds_of([&] {
#pragma omp parallel num_threads(threads) reduction(+ : failed, total)
    {
      SliceBuffers& b = bufs[static_cast<size_t>(omp_get_thread_num())];
      uint64_t local = 0;
      for (int i = 0; i < reps; ++i) failed += !call_kernel(k, p, b, alu_iters, &local);
      total += local;
    }
  });
  *sink += total;
  return failed ? -1 : s;
}

// Every thread's buffers: copies of the same slice (the same work for each
// thread) and their streams. Returns "" or what failed.
std::string prepare_slices(const zcoll_params& p, const std::vector<float>& x, size_t n,
                           std::vector<SliceBuffers>& bufs) {
  const auto at = [&](size_t i) { return x.begin() + static_cast<std::ptrdiff_t>(i); };
  const size_t cap = zcoll_compress_bound(n, ZCOLL_FLOAT32);
  for (SliceBuffers& s : bufs) {
    s.a.assign(at(0), at(n));
    s.b.assign(at(n), at(2 * n));
    s.decoded.resize(n);
    s.sa.resize(cap), s.sb.resize(cap), s.out.resize(cap);
    zcoll_status st;
    if ((st = zcoll_compress(&p, ZCOLL_FLOAT32, s.a.data(), n, s.sa.data(), cap, &s.na, 1)) !=
            ZCOLL_SUCCESS ||
        (st = zcoll_compress(&p, ZCOLL_FLOAT32, s.b.data(), n, s.sb.data(), cap, &s.nb, 1)) !=
            ZCOLL_SUCCESS)
      return api_error("zcoll_compress", st);
  }
  return "";
}

void ceiling_row(const Options& o, const DatasetSpec& d, const std::vector<float>& x, double rel,
                 ModeResult* r) {
  const size_t n = std::min(kSliceValues, x.size() / 2);
  const std::string where = strf("%s rel=%s", d.name.c_str(), rel_text(rel).c_str());
  Json base;
  base["dataset"] = d.name;
  base["rel"] = rel;
  base["slice_values"] = n;
  auto fail = [&](const std::string& msg) {
    record_failure(r, base, where, msg, {d.name, rel_text(rel)});
  };
  if (n == 0) return fail("the field has fewer than 2 values");
  zcoll_params p = rel_params(rel, o.chunk_size);
  double eb = 0;
  zcoll_status st = zcoll_resolve_error_bound(&p, ZCOLL_FLOAT32, x.data(), n, &eb, 1);
  if (st != ZCOLL_SUCCESS) return fail(api_error("zcoll_resolve_error_bound", st));
  p.eb_mode = ZCOLL_EB_ABS;
  p.error_bound = eb;
  base["abs_eb"] = eb;

  std::vector<SliceBuffers> bufs(
      static_cast<size_t>(*std::max_element(o.threads.begin(), o.threads.end())));
  const std::string error = prepare_slices(p, x, n, bufs);
  if (!error.empty()) return fail(error);

  // warm-up on one thread: each kernel's reps for about kTimedSeconds
  uint64_t sink = 0, alu_iters = 1u << 16;
  int reps[kNumKernels];
  for (int k = 0; k < kNumKernels; ++k) {
    for (int w = 0; w <= o.warmup; ++w) {
      const double s = timed_team(k, 1, 1, p, bufs, alu_iters, &sink);
      if (s < 0) return fail(strf("%s failed", kKernels[k]));
      reps[k] = static_cast<int>(std::clamp(kTimedSeconds / std::max(s, 1e-9), 1.0, 1e6));
    }
  }

  std::map<int, std::vector<Samples>> times;  // threads -> per kernel
  for (int t : o.threads) times[t].resize(kNumKernels);
  for (int rep = 0; rep < o.repeat; ++rep)
    for (int t : o.threads)
      for (int k = 0; k < kNumKernels; ++k) {
        const double s = timed_team(k, t, reps[k], p, bufs, alu_iters, &sink);
        if (s < 0) return fail(strf("%s failed on %d threads", kKernels[k], t));
        times[t][static_cast<size_t>(k)].seconds.push_back(s);
      }

  // the work of one timed run per thread: bytes of one input (alu: iterations)
  auto work = [&](int k) {
    return static_cast<double>(reps[k]) *
           (k == 3 ? static_cast<double>(alu_iters) : static_cast<double>(n * sizeof(float)));
  };
  const int t1 = o.threads.front();
  std::vector<std::string> cells{d.name, rel_text(rel)};
  for (int t : o.threads) {
    Json row = base;
    row["threads"] = t;
    for (int k = 0; k < kNumKernels; ++k) {
      const Samples& s = times[t][static_cast<size_t>(k)];
      Json j = samples_json(s, work(k) * t);
      j["calls_per_thread"] = reps[k];
      row[kKernels[k]] = j;
    }
    row["ok"] = true;
    r->rows.push_back(row);
  }
  for (int t : o.threads) {
    if (t == t1) continue;
    for (int k = 0; k < kNumKernels; ++k) {
      const double m1 = times[t1][static_cast<size_t>(k)].median();
      const double mt = times[t][static_cast<size_t>(k)].median();
      cells.push_back(strf("%.2f", mt > 0 ? (m1 * t) / (mt * t1) : 0));
    }
  }
  r->table.add(cells);
  if (sink == 42) std::printf(" ");  // keeps the alu loop's result alive
}

}  // namespace

void run_ceiling_mode(const Options& o, const std::vector<DatasetSpec>& datasets, ModeResult* r) {
  std::vector<std::string> headers{"dataset", "rel"};
  const int t1 = o.threads.front();
  for (int t : o.threads)
    if (t != t1)
      for (const char* k : kKernels) headers.push_back(strf("%s %dt/%dt", k, t, t1));
  r->table = Table(headers, 2);
  for (const DatasetSpec& d : datasets) {
    const std::vector<float> x = load_dataset(d);
    for (double rel : o.rels) ceiling_row(o, d, x, rel, r);
  }
  r->footer.push_back(
      strf("In-cache scaling: aggregate rate on N threads / on %d, medians of %d interleaved runs. "
           "Each thread works on its own copy of a %zu-value slice (L2-resident), threads = 1 per "
           "call; alu: an integer loop with no memory operands.",
           t1, o.repeat, kSliceValues));
}

}  // namespace zcoll_bench
