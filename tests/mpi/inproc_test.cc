// inproc_test.cc — the algorithms over the in-process transport (ranks as
// threads, no MPI launcher): every algorithm, mode and op at rank counts that
// are slow to launch as processes on a small machine (up to 16), checked
// against a double-precision reference and the algorithm's error model.
// Exit status != 0 on failure.
#include <chrono>
#include <cstdio>
#include <memory>
#include <thread>
#include <vector>

#include "coll/control/algorithms.h"
#include "coll/datapath/primitives.h"
#include "harness.h"
#include "inproc_case.h"
#include "thread_transport.h"

using namespace zcoll;
using namespace zcoll::coll;
using zcoll_testing::is_reduction;
using zcoll_testing::Setup;

namespace {

template <typename T>
void run(int N, Setup s) {
  const Algorithm* alg = find_algorithm(s.coll, s.algo);
  if (!alg) {
    EXPECT(false, "no algorithm");
    return;
  }
  // A node-aware algorithm runs on two nodes, ranks interleaved (odd N:
  // uneven), as the library runs it (the call's bracket: its steps' failures
  // are agreed there); node_aware_test.cc covers the other layouts.
  const bool node_aware = (alg->restrictions & kNodeAware) != 0;
  if (node_aware)
    for (int r = 0; r < N; ++r) s.nodes.push_back(r % 2);
  zcoll_testing::Case<T> c(*alg, N, s);
  auto fabric = std::make_shared<transport::ThreadFabric>(N, s.nodes);
  std::vector<size_t> peak(N, 0);  // each rank's most requests in flight
  std::vector<std::thread> threads;
  for (int r = 0; r < N; ++r)
    threads.emplace_back([&, r] {
      transport::ThreadTransport tp(fabric, r);
      c.run_rank(tp, r, node_aware);
      peak[r] = tp.peak_requests();
    });
  for (auto& t : threads) t.join();
  // Requests in flight stay bounded whatever the configured segment (a message
  // cut into 10^5 segments made the MPI library match for minutes: issue 24).
  // A rank posts each segment of a message at most once per peer and direction.
  int log2N = 0;
  while ((1 << log2N) < N) ++log2N;
  const size_t max_requests = (2 + static_cast<size_t>(log2N)) * kMaxSegments + 64;
  for (int r = 0; r < N; ++r)
    EXPECT(peak[r] <= max_requests, "%s: rank %d had %zu requests in flight (at most %zu)",
           c.what(), r, peak[r], max_requests);
  c.check();
}

}  // namespace

int main() {
  std::chrono::steady_clock::time_point t0 = std::chrono::steady_clock::now();
  const zcoll_mode modes[] = {ZCOLL_MODE_RAW, ZCOLL_MODE_CPR_P2P, ZCOLL_MODE_DOC, ZCOLL_MODE_HOM};
  const zcoll_op ops[] = {ZCOLL_OP_SUM, ZCOLL_OP_MAX, ZCOLL_OP_MIN, ZCOLL_OP_PROD};
  size_t n_algos = 0;
  const Algorithm* algs = algorithms(&n_algos);
  int k = 0;
  for (int N : {1, 2, 3, 4, 5, 6, 7, 8, 11, 16}) {
    for (size_t ai = 0; ai < n_algos; ++ai) {
      const Algorithm& al = algs[ai];
      const bool red = is_reduction(al.coll);
      for (zcoll_mode m : modes)
        for (zcoll_op op : ops) {
          if (!red && op != ZCOLL_OP_SUM) continue;
          for (size_t n : {size_t{1}, static_cast<size_t>(N) + 3, size_t{5000}}) {
            Setup s{al.coll, al.algo, m, op, n, (N - 1) * (k % 3) / 2, false};
            ++k;
            if (k % 2)
              run<float>(N, s);
            else
              run<double>(N, s);
          }
          if (red && op == ZCOLL_OP_SUM) {
            Setup s{al.coll, al.algo, m, op, 4000, N / 2, true};
            run<float>(N, s);
          }
        }
    }
  }
  // 32-value segments of a long message (zcoll-soak seed 1 at 5 ranks, issue 24:
  // 95 000 segments in flight; MPI's matching made the call take hours)
  for (size_t ai = 0; ai < n_algos; ++ai) {
    const Algorithm& al = algs[ai];
    for (zcoll_mode m : {ZCOLL_MODE_RAW, ZCOLL_MODE_HOM}) {
      Setup s{al.coll, al.algo, m, ZCOLL_OP_SUM, 60001, 3, false};
      s.pipeline = 32;
      run<double>(5, s);
    }
  }
  // the dense codec (format 1.3) in every algorithm: the data-movement modes and
  // doc (hom runs as doc), SUM and MAX, odd counts and rank counts
  for (int N : {1, 2, 3, 5, 8}) {
    for (size_t ai = 0; ai < n_algos; ++ai) {
      const Algorithm& al = algs[ai];
      for (zcoll_mode m : {ZCOLL_MODE_CPR_P2P, ZCOLL_MODE_DOC, ZCOLL_MODE_HOM})
        for (zcoll_op op : {ZCOLL_OP_SUM, ZCOLL_OP_MAX}) {
          if (!is_reduction(al.coll) && op != ZCOLL_OP_SUM) continue;
          Setup s{al.coll, al.algo, m, op, 5000 + static_cast<size_t>(N), N / 2, false};
          s.dense = true;
          run<float>(N, s);
          if (N == 3) run<double>(N, s);
        }
    }
  }
  // mismatched bounds, detected from the stream headers (no agreement step here)
  for (int N : {2, 3, 5, 8}) {
    for (size_t ai = 0; ai < n_algos; ++ai) {
      const Algorithm& al = algs[ai];
      for (zcoll_mode m : {ZCOLL_MODE_CPR_P2P, ZCOLL_MODE_DOC, ZCOLL_MODE_HOM}) {
        Setup s{al.coll, al.algo, m, ZCOLL_OP_SUM, 6000, 0, false, true};
        run<float>(N, s);
        s.op = ZCOLL_OP_MAX;
        if (is_reduction(al.coll)) run<double>(N, s);
      }
    }
  }
  return zcoll_testing::finish(
      "zcoll in-process algorithm tests", zcoll_testing::g_checks, zcoll_testing::g_failures,
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
}
