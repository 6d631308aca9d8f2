// node_aware_test.cc — the node-aware algorithms (hierarchy.h; the rows of the
// table with kNodeAware) over the in-process transport, ranks as threads with
// node labels, run as the library runs them (run_algorithm: the call's bracket):
//   * every node-aware row in every mode and op at the layouts 2x2, 3x2 (ranks
//     interleaved), 2x3, 4x4, 3+1 and 1+2+2 (not by node), 4+3, one node, one
//     rank per node; each result against a double reference within the bound
//     its error model derives for that layout (inproc_case.h), Allreduce
//     bit-identical on all ranks; on one node every compressed mode is exact;
//   * the derived bounds: a rail step over M nodes, not N ranks;
//   * faults across nested transports: a send that fails in any step (node,
//     rail, node) on any rank, and scratch allocations that fail: every rank
//     returns an error, none hangs, and the next call on the same transports
//     gives the fault-free result bit for bit.
// Exit status != 0 on failure.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <functional>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "coll/control/algorithms.h"
#include "coll/datapath/hierarchy.h"
#include "coll/datapath/primitives.h"
#include "core/error.h"
#include "harness.h"
#include "inproc_case.h"
#include "thread_transport.h"

using namespace zcoll;
using namespace zcoll::coll;
using transport::Locality;
using transport::Req;
using transport::ThreadFabric;
using transport::ThreadTransport;
using transport::Transport;
using zcoll_testing::Case;
using zcoll_testing::Setup;

namespace {

struct Layout {
  const char* name;
  std::vector<int64_t> labels;  // a node label per rank
};

const std::vector<Layout>& layouts() {
  static const std::vector<Layout> all = {
      {"2x2", {0, 0, 1, 1}},
      {"3x2 interleaved", {0, 1, 2, 0, 1, 2}},
      {"2x3", {0, 0, 0, 1, 1, 1}},
      {"3+1 not by node", {0, 1, 0, 0}},
      {"1+2+2 not by node", {5, 9, 7, 9, 7}},
      {"4+3", {0, 0, 0, 0, 1, 1, 1}},
      {"4x4", {0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3}},
      {"one node", {3, 3, 3}},
      {"one rank per node", {0, 1, 2}},
  };
  return all;
}

void on_threads(int N, const std::function<void(int)>& body) {
  std::vector<std::thread> threads;
  for (int r = 0; r < N; ++r) threads.emplace_back(body, r);
  for (auto& t : threads) t.join();
}

std::vector<const Algorithm*> node_aware_rows() {
  std::vector<const Algorithm*> rows;
  size_t n = 0;
  const Algorithm* algs = algorithms(&n);
  for (size_t i = 0; i < n; ++i)
    if (algs[i].restrictions & kNodeAware) rows.push_back(&algs[i]);
  return rows;
}

// ---- fault injection through every sub-transport ----------------------------------

// What fails, shared by every rank's transports of one run.
struct Plan {
  std::atomic<int> victim{-1};  // the rank (of the whole group) whose nth isend fails
  int nth = -1;
  std::atomic<bool> fired{false};
};

// A transport that forwards to another it owns and fails the victim's nth
// isend, counted over all of the rank's transports: the sub-groups it splits
// (node, rail) are wrapped too, so the failure can land in any step.
class InjectTransport final : public Transport {
 public:
  InjectTransport(std::unique_ptr<Transport> inner, Plan* plan, int origin,
                  std::shared_ptr<int> sends)
      : in_(std::move(inner)), plan_(plan), origin_(origin), sends_(std::move(sends)) {}
  int rank() const override { return in_->rank(); }
  int size() const override { return in_->size(); }
  zcoll_status isend(const void* b, size_t n, int p, int t, Req* q) override {
    if (origin_ == plan_->victim && (*sends_)++ == plan_->nth) {
      plan_->fired = true;
      return fail(ZCOLL_ERR_MPI, "injected: the send failed");
    }
    return in_->isend(b, n, p, t, q);
  }
  zcoll_status irecv(void* b, size_t n, int p, int t, Req* q) override {
    return in_->irecv(b, n, p, t, q);
  }
  zcoll_status wait(Req q, size_t* n) override { return in_->wait(q, n); }
  zcoll_status test(Req q, bool* d) override { return in_->test(q, d); }
  zcoll_status wait_any(const Req* q, int n, int* i) override { return in_->wait_any(q, n, i); }
  void progress() override { in_->progress(); }
  zcoll_status begin_call(int d, int n) override { return in_->begin_call(d, n); }
  void abort_call(zcoll_status s) override { in_->abort_call(s); }
  zcoll_status end_call(bool f) override { return in_->end_call(f); }
  zcoll_status allreduce_max(double* v, int n) override { return in_->allreduce_max(v, n); }
  zcoll_status allgather_u64(const uint64_t* m, int k, uint64_t* a) override {
    return in_->allgather_u64(m, k, a);
  }
  zcoll_status locality(const Locality** out) override { return in_->locality(out); }
  zcoll_status split(int color, int key, std::unique_ptr<Transport>* out) override {
    std::unique_ptr<Transport> sub;
    ZCOLL_CHECK(in_->split(color, key, &sub));
    if (sub)
      *out = std::make_unique<InjectTransport>(std::move(sub), plan_, origin_, sends_);
    else
      out->reset();
    return ZCOLL_SUCCESS;
  }

 private:
  std::unique_ptr<Transport> in_;
  Plan* plan_;
  int origin_;
  std::shared_ptr<int> sends_;
};

// ---- correctness at every layout ---------------------------------------------------------

template <typename T>
void run_case(const Layout& lay, const Algorithm& al, Setup s) {
  const int N = static_cast<int>(lay.labels.size());
  s.nodes = lay.labels;
  Case<T> c(al, N, s);
  auto fabric = std::make_shared<ThreadFabric>(N, lay.labels);
  on_threads(N, [&](int r) {
    ThreadTransport tp(fabric, r);
    c.run_rank(tp, r, true);
  });
  c.check();  // within the bound derived for this layout
  // one node: nothing crosses a rail, nothing is compressed: bound 0 (the
  // check above then allows only the rounding of the node's sums)
  if (Locality::from_labels(lay.labels, 0).nodes == 1)
    EXPECT(c.bound() == 0, "%s %s: bound %g on one node", lay.name, c.what(), c.bound());
}

void test_layouts() {
  const zcoll_mode modes[] = {ZCOLL_MODE_RAW, ZCOLL_MODE_CPR_P2P, ZCOLL_MODE_DOC, ZCOLL_MODE_HOM};
  const zcoll_op ops[] = {ZCOLL_OP_SUM, ZCOLL_OP_MAX, ZCOLL_OP_MIN, ZCOLL_OP_PROD};
  int k = 0;
  for (const Layout& lay : layouts())
    for (const Algorithm* al : node_aware_rows()) {
      const int N = static_cast<int>(lay.labels.size());
      const bool red = zcoll_testing::is_reduction(al->coll);
      for (zcoll_mode m : modes)
        for (zcoll_op op : ops) {
          if (!red && op != ZCOLL_OP_SUM) continue;
          for (size_t n : {size_t{1}, static_cast<size_t>(N) + 3, size_t{5000}}) {
            if (op != ZCOLL_OP_SUM && n != 5000) continue;
            Setup s{al->coll, al->algo, m, op, n, (N - 1) * (k % 3) / 2, false};
            ++k;
            if (k % 2)
              run_case<float>(lay, *al, s);
            else
              run_case<double>(lay, *al, s);
          }
        }
      if (red) {  // the average, and the long vector in small segments
        Setup s{al->coll, al->algo, ZCOLL_MODE_HOM, ZCOLL_OP_SUM, 7001, 0, true};
        run_case<float>(lay, *al, s);
        s.average = false;
        s.pipeline = 64;
        run_case<double>(lay, *al, s);
      }
      // every root (Reduce: hom, the odd roots averaging)
      if (al->coll == ZCOLL_COLL_BCAST || al->coll == ZCOLL_COLL_REDUCE ||
          al->coll == ZCOLL_COLL_GATHER || al->coll == ZCOLL_COLL_SCATTER)
        for (int root = 0; root < N; ++root) {
          const zcoll_mode m = al->coll == ZCOLL_COLL_REDUCE ? ZCOLL_MODE_HOM : ZCOLL_MODE_DOC;
          Setup s{al->coll,
                  al->algo,
                  m,
                  ZCOLL_OP_SUM,
                  3001,
                  root,
                  al->coll == ZCOLL_COLL_REDUCE && root % 2 == 1};
          run_case<float>(lay, *al, s);
        }
    }
}

// The bounds the models derive: the rail step is over M nodes.
void test_bounds() {
  for (const Algorithm* al : node_aware_rows()) {
    ModelIn m;
    m.size = 16;
    m.mode = ZCOLL_MODE_HOM;
    m.op = ZCOLL_OP_SUM;
    m.hom = zcoll_testing::is_reduction(al->coll);
    m.eb = 1;
    m.max_abs = 10;
    const double flat = al->model(m).e;  // layout unknown: a node per rank
    m.nodes = 4;
    m.min_local = m.max_local = 4;
    const double four = al->model(m).e;
    m.nodes = 1;
    m.min_local = m.max_local = 16;
    const double one = al->model(m).e;
    EXPECT(one == 0, "%s: bound %g on one node", al->function, one);
    EXPECT(four <= flat && four > 0, "%s: bound %g at 4x4, %g flat", al->function, four, flat);
    const std::string name = al->function;
    if (name == "allreduce_node_aware")
      EXPECT(four == 4, "%s: hom 4 nodes: %g", al->function, four);
    if (name == "reduce_scatter_node_aware")
      EXPECT(four == 3, "%s: hom 4 nodes: %g", al->function, four);
    if (!m.hom) EXPECT(four == 1, "%s: data movement: %g", al->function, four);
    // PROD: a node's partial has the magnitude of 4 inputs
    if (zcoll_testing::is_reduction(al->coll)) {
      ModelIn p = m;
      p.nodes = 4;
      p.min_local = p.max_local = 4;
      p.op = ZCOLL_OP_PROD;
      p.hom = false;
      p.mode = ZCOLL_MODE_DOC;
      p.eb = 1e-3;
      p.max_abs = 1.1;
      ModelIn q = p;
      q.min_local = q.max_local = 1;  // as if each node partial were one input
      EXPECT(al->model(p).e > al->model(q).e, "%s: PROD bound %g not above %g", al->function,
             al->model(p).e, al->model(q).e);
    }
  }
}

// ---- faults --------------------------------------------------------------------------

// One run of (layout, row, mode): rank victim fails its nth send (counted over
// all of its transports) or its fail_alloc-th scratch allocation; then the
// same call again on the same transports. Returns whether the fault fired.
bool run_fault(const Layout& lay, const Algorithm& al, zcoll_mode mode, int victim, int nth,
               int fail_alloc) {
  const int N = static_cast<int>(lay.labels.size());
  Setup s{al.coll, al.algo, mode, ZCOLL_OP_SUM, 3000, N - 1, false};
  s.nodes = lay.labels;
  Case<float> first(al, N, s), clean(al, N, s);
  s.tag = 5;  // the next call's tags, as the library's epochs
  Case<float> second(al, N, s);
  Plan plan;
  plan.victim = fail_alloc > 0 ? -1 : victim;
  plan.nth = nth;
  std::vector<int> alloc_fired(N, 0);
  {
    auto fabric = std::make_shared<ThreadFabric>(N, lay.labels);
    on_threads(N, [&](int r) {
      InjectTransport tp(std::make_unique<ThreadTransport>(fabric, r), &plan, r,
                         std::make_shared<int>(0));
      const int fa = r == victim ? fail_alloc : 0;
      alloc_fired[r] = first.run_rank(tp, r, true, fa);
      if (plan.victim == r) plan.victim = -1;  // only the first call fails
      second.run_rank(tp, r, true);
    });
  }
  auto fabric = std::make_shared<ThreadFabric>(N, lay.labels);
  on_threads(N, [&](int r) {
    ThreadTransport tp(fabric, r);
    clean.run_rank(tp, r, true);
  });
  const bool fired = plan.fired || std::count(alloc_fired.begin(), alloc_fired.end(), 1) > 0;
  int failed = 0;
  for (int r = 0; r < N; ++r) failed += first.status(r) != ZCOLL_SUCCESS;
  EXPECT(failed == (fired ? N : 0), "%s %s %s victim %d nth %d alloc %d: %d of %d ranks failed",
         lay.name, al.function, zcoll_mode_name(mode), victim, nth, fail_alloc, failed, N);
  if (!fired) first.check();
  second.check();
  for (int r = 0; r < N; ++r)
    EXPECT(std::memcmp(second.output(r).data(), clean.output(r).data(),
                       second.n_out() * sizeof(float)) == 0,
           "%s %s %s: rank %d's next call differs from a fault-free one", lay.name, al.function,
           zcoll_mode_name(mode), r);
  return fired;
}

void test_faults() {
  int runs = 0, fired = 0;
  for (size_t li : {size_t{0}, size_t{3}, size_t{4}})  // 2x2, 3+1, 1+2+2
    for (const Algorithm* al : node_aware_rows())
      for (zcoll_mode mode : {ZCOLL_MODE_RAW, ZCOLL_MODE_HOM}) {
        const Layout& lay = layouts()[li];
        const int N = static_cast<int>(lay.labels.size());
        // every send of one victim until none is left to fail: the faults
        // land in each step in turn
        for (int victim : {N - 1}) {
          for (int nth = 0; nth < 40; ++nth) {
            ++runs;
            if (!run_fault(lay, *al, mode, victim, nth, 0)) break;
            ++fired;
          }
        }
        for (int k = 1; k <= 4; ++k) {
          ++runs;
          fired += run_fault(lay, *al, mode, 0, -1, k);
        }
      }
  std::printf("  faults: %d runs, %d with the fault reached\n", runs, fired);
  EXPECT(fired > 100, "only %d faults reached", fired);
}

}  // namespace

int main() {
  const auto t0 = std::chrono::steady_clock::now();
  auto lap = [&](const char* what) {
    std::printf("  %-24s %.1f s\n", what,
                std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  };
  EXPECT(node_aware_rows().size() >= 8, "node-aware rows: %zu", node_aware_rows().size());
  test_bounds();
  test_layouts();
  lap("layouts");
  test_faults();
  lap("faults");
  return zcoll_testing::finish(
      "zcoll node-aware algorithm tests", zcoll_testing::g_checks, zcoll_testing::g_failures,
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
}
