// stream_internal.h — helpers shared by the stream API and the homomorphic ops.
#pragma once

#include <omp.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <type_traits>
#include <vector>

#include "codec/chunk_codec.h"
#include "codec/dense.h"
#include "codec/format.h"
#include "core/error.h"
#include "core/params.h"
#include "zcoll.h"

namespace zcoll {

// threads (0 = OpenMP default), capped by the number of work items, at least 1.
// Where that is 1, the callers do their work without an OpenMP team: entering a
// parallel region, even one of one thread, runs the runtime's code and touches
// its state. On caches that other work has emptied, the part of a 590 KB hom
// add or decompression on one thread that warm code would save fell from
// 15-19 us to 8-10 us without the region (and with fail() cold; the call took
// 36-57 us; docs/reports/2026-11-30-codec-frontier-16.md).
int resolve_threads(int threads, uint64_t work_items);
// threads >= 0 (0 = omp_get_max_threads()). (check_params, check_dtype: core/params.h.)
zcoll_status check_threads(int threads);
// Framing check of chunk c (kind byte, raw size, code lengths vs size and, for a
// stream with kFlagChunkChecksums, its CRC-32C); report: say why through fail()
// (the calling thread's error message), else only the status (any thread may
// call it).
zcoll_status check_chunk(const StreamView& v, uint64_t c, bool report);
// Chunks [first, last) in order; the first bad one says why.
zcoll_status validate_chunks_serial(const StreamView& v, uint64_t first, uint64_t last);
// The checksum trailer of a checksummed output whose chunks (sizes[c] bytes
// each, back to back) start at data: written at data + sum(sizes); returns its
// bytes (0 when h has no checksum flag).
size_t append_trailer(const Header& h, uint8_t* data, const uint32_t* sizes);

// Decode chunk c of a stream whose framing was validated. With apply_divisor the
// result is what decompression returns; without it, the represented values
// (codes * quantum, raw values as stored) that homomorphic float paths combine.
// A raw chunk of a stream with a divisor is divided like the quantized ones.
template <typename T>
void decode_chunk(const StreamView& v, uint64_t c, T* out, bool accumulate, bool apply_divisor) {
  const uint8_t* in = v.chunk(c);
  const uint32_t len = v.h.chunk_len(c);
  if (in[0] == kChunkRaw && apply_divisor && v.h.divisor != 1) {
    const uint8_t* p = in + kRawChunkHeaderBytes;
    const double d = static_cast<double>(v.h.divisor);
    for (uint32_t i = 0; i < len; ++i) {
      using V = ValueTraits<T>;
      T x;
      std::memcpy(&x, p + size_t{i} * sizeof(T), sizeof(T));
      const T r = V::from_double(static_cast<double>(V::widen(x)) / d);
      out[i] = accumulate ? add_values(out[i], r) : r;
    }
    return;
  }
  const double factor = apply_divisor ? v.h.dequant_factor() : v.h.quantum;
  if (in[0] == kChunkDense) {
    decompress_dense_chunk<T>(in, v.chunk_bytes(c), len, factor, out, accumulate);
    return;
  }
  decompress_chunk<T>(active_kernels(), in, v.chunk_bytes(c), len, factor, out, accumulate);
}

// Decode chunks c and c + 1 at once where both are dense chunks of the same
// 1-D predictor and length (dense.h: decompress_dense_pair), as decode_chunk
// decodes each; false (nothing written) otherwise.
template <typename T>
bool decode_chunk_pair(const StreamView& v, uint64_t c, T* out, bool accumulate,
                       bool apply_divisor) {
  const uint8_t *a = v.chunk(c), *b = v.chunk(c + 1);
  const uint32_t len = v.h.chunk_len(c);
  if (!dense_pair_candidate(a) || !dense_pair_candidate(b) || v.h.chunk_len(c + 1) != len)
    return false;
  const double factor = apply_divisor ? v.h.dequant_factor() : v.h.quantum;
  return decompress_dense_pair<T>(a, v.chunk_bytes(c), b, v.chunk_bytes(c + 1), len, factor, out,
                                  out + v.h.chunk_size, accumulate);
}

// Moving the runs of produce_chunks together: run t (run_bytes[t] bytes at
// run_from[t]) to to[t], the end of run t-1. In parallel, by pieces, when no run's
// destination overlaps a source still to be read (then every byte moves once,
// whatever the order; true when the chunks compress at least 2:1); otherwise run
// after run. The pieces are about a quarter of each thread's share (16-256 KiB):
// a 2-thread hom add of a 3 MB field at ratio 4 moves about 400 KB, a tenth of
// the call's time when one thread moves it.
struct RunMoves {
  std::vector<size_t> to;
  size_t piece = 0;
  std::vector<std::pair<int, size_t>> pieces;  // (run, offset in the run); empty: serial
};
inline RunMoves plan_run_moves(int nt, const size_t* run_from, const size_t* run_bytes) {
  RunMoves m;
  m.to.assign(nt + 1, 0);
  for (int t = 0; t < nt; ++t) m.to[t + 1] = m.to[t] + run_bytes[t];
  bool disjoint = true;  // no moving run's destination meets any run's source
  for (int t = 0; t < nt; ++t)
    for (int s = 0; s < nt && m.to[t] != run_from[t]; ++s)
      disjoint = disjoint && (m.to[t + 1] <= run_from[s] || run_from[s] + run_bytes[s] <= m.to[t]);
  const size_t moved = m.to[nt] - run_bytes[0];
  m.piece =
      std::clamp<size_t>(moved / (4 * static_cast<size_t>(nt)), size_t{1} << 14, size_t{1} << 18);
  if (!disjoint || moved < 2 * m.piece) return m;  // (one run: nothing moved)
  for (int t = 1; t < nt; ++t)
    for (size_t o = 0; m.to[t] != run_from[t] && o < run_bytes[t]; o += m.piece)
      m.pieces.push_back({t, o});
  return m;
}

// Thread me of a team of team's part of moving the runs together: its contiguous
// share of the pieces when they may move in any order, else (thread 0) every run in
// order. The team's threads call it with the same run sizes, so they make the same
// plan; a thread whose plan fails to allocate moves nothing (the call fails).
inline void move_runs_together(int nt, const size_t* run_from, const size_t* run_bytes, int me,
                               int team, uint8_t* dst) {
  const RunMoves moves = plan_run_moves(nt, run_from, run_bytes);
  if (!moves.pieces.empty()) {
    const size_t pieces = moves.pieces.size();
    for (size_t i = pieces * me / team; i < pieces * (me + 1) / team; ++i) {
      const int r = moves.pieces[i].first;
      const size_t o = moves.pieces[i].second, n = std::min(moves.piece, run_bytes[r] - o);
      std::memcpy(dst + moves.to[r] + o, dst + run_from[r] + o, n);
    }
  } else if (me == 0) {
    for (int r = 1; r < nt; ++r)
      if (moves.to[r] != run_from[r] && run_bytes[r])
        std::memmove(dst + moves.to[r], dst + run_from[r], run_bytes[r]);
  }
}

// Produce chunks [first, last) in parallel and pack them compactly into dst.
// chunk_fn(c, out, run) writes chunk c at out (room: worst(c) bytes) and returns
// its size; run (0 .. threads - 1) indexes per-run scratch: one thread at a time
// works on a run, and the thread's number in OpenMP is not the run's (a 1-thread
// call has no team, and inside another region, with nesting off, a team has one
// thread whatever it asked: its threads then take the other runs too).
// Threads take contiguous runs of chunks, write each run compactly at the run's
// worst-case offset, then the runs are moved together in order, so the bytes do
// not depend on the thread count. dst must hold sum(worst(c)). An exception of
// chunk_fn is rethrown after the parallel region. crcs (may be null) receives
// the CRC-32C of every chunk, computed by the thread that wrote it while it is
// in cache (the checksum trailer, format.h kFlagChunkChecksums).
// check(c) (optional; first_bad with it): each thread first checks the chunks of
// its run (their inputs' framing), and only when every check on every thread
// passed does any thread produce; otherwise *first_bad is the first chunk that
// failed and nothing is written (returns 0). Checks, production and the moves
// are one parallel region: on a machine whose idle workers sleep (a passive
// OMP_WAIT_POLICY, an oversubscribed node) every region costs a wake-up. On one
// thread there is no region (resolve_threads).
struct NoCheck {
  bool operator()(uint64_t) const { return true; }
};
template <typename WorstFn, typename ChunkFn, typename CheckFn = NoCheck>
size_t produce_chunks(uint64_t first, uint64_t last, int threads, uint8_t* dst, uint32_t* sizes,
                      WorstFn worst, ChunkFn chunk_fn, uint32_t* crcs = nullptr, CheckFn check = {},
                      uint64_t* first_bad = nullptr) {
  const uint64_t count = last - first;
  if (count == 0) return 0;
  const int nt = resolve_threads(threads, count);
  constexpr bool kChecked = !std::is_same_v<CheckFn, NoCheck>;
  // The first chunk of [a, b) that fails its check, else b.
  const auto first_failing = [&](uint64_t a, uint64_t b) {
    if constexpr (kChecked)
      for (uint64_t c = a; c < b; ++c)
        if (!check(c)) return c;
    return b;
  };
  // Chunks [a, b) written compactly from dst + pos with scratch index `index`; the end.
  const auto put_chunks = [&](uint64_t a, uint64_t b, size_t pos, int index) {
    for (uint64_t c = a; c < b; ++c) {
      const size_t bytes = chunk_fn(c, dst + pos, index);
      sizes[c - first] = static_cast<uint32_t>(bytes);
      if (crcs) crcs[c - first] = crc32c(0, dst + pos, bytes);
      pos += bytes;
    }
    return pos;
  };
  if (nt == 1) {  // one run, in place: no team (resolve_threads) and nothing to allocate
    if (const uint64_t c = first_failing(first, last); c != last) {
      if (first_bad) *first_bad = c;
      return 0;
    }
    return put_chunks(first, last, 0, 0);
  }
  std::vector<uint64_t> run_begin(nt + 1), bad(nt, last);
  std::vector<size_t> run_from(nt + 1, 0), run_bytes(nt, 0);
  for (int t = 0; t <= nt; ++t) run_begin[t] = first + count * t / nt;
  for (int t = 0; t < nt; ++t) {
    size_t w = 0;
    for (uint64_t c = run_begin[t]; c < run_begin[t + 1]; ++c) w += worst(c);
    run_from[t + 1] = run_from[t] + w;
  }
  // Run t's first bad chunk (in bad[t]) and its chunks, written compactly from
  // run_from[t] (their bytes in run_bytes[t]).
  const auto check_run = [&](int t) {
    const uint64_t c = first_failing(run_begin[t], run_begin[t + 1]);
    bad[t] = c == run_begin[t + 1] ? last : c;
  };
  const auto produce_run = [&](int t) {
    run_bytes[t] = put_chunks(run_begin[t], run_begin[t + 1], run_from[t], t) - run_from[t];
  };
  TeamErrors errors;  // chunk_fn may allocate (scratch buffers): nothing leaves the region
  bool go = true;
#pragma omp parallel num_threads(nt)
  {  // runs by the team the runtime gave (fewer threads take more runs each)
    const int me = omp_get_thread_num(), team = omp_get_num_threads();
    if constexpr (kChecked) {
      for (int t = me; t < nt; t += team) check_run(t);
#pragma omp barrier
    }
    const bool all_good =
        std::all_of(bad.begin(), bad.end(), [&](uint64_t b) { return b == last; });
    if (all_good)
      for (int t = me; t < nt; t += team) errors.run([&] { produce_run(t); });
#pragma omp barrier
    // Every thread plans the same moves from the run sizes, so none waits for
    // another's plan: two barriers fewer, each a wake-up where idle threads sleep.
    // (The plan allocates: a failure is the call's, as any of chunk_fn's.)
    if (all_good && !errors.failed())
      errors.run([&] { move_runs_together(nt, run_from.data(), run_bytes.data(), me, team, dst); });
    if (me == 0) go = all_good;
  }
  errors.rethrow();
  if (!go) {
    if (first_bad) *first_bad = *std::min_element(bad.begin(), bad.end());
    return 0;
  }
  size_t total = 0;
  for (int t = 0; t < nt; ++t) total += run_bytes[t];
  return total;
}

}  // namespace zcoll
