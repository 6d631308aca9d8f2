// fault_test.cc — the faults a user will hit on the wire, over the in-process
// transport (ranks as threads) wrapped in a transport that injects them
// (docs/reliability.md, "Faults"). Every call runs as the library runs it
// (run_algorithm: abort notices, the status agreement, the clean-up):
//   * a transfer fails (what MPI_ERRORS_RETURN gives back), with the network
//     then down or still up: the failing rank returns ZCOLL_ERR_MPI, every
//     other rank an error too, no crash, no hang;
//   * a bit flips in a message (a corrupt peer): every flip in the stream header
//     or chunk index is detected (CRC-32C); with ZCOLL_FLAG_CHECKSUM every flip
//     anywhere; a detected flip is an error on every rank. Without the flag,
//     payload flips are counted by outcome (detected, harmless, silently
//     changed, outside the bound) and printed (docs/format.md);
//   * a scratch allocation fails on one rank (Workspace::fail_countdown): that
//     rank returns ZCOLL_ERR_NO_MEMORY, every other rank an error, none hangs;
//   * after any of these, the next call on the same transports and workspaces
//     (no request of the failed call left, a new tag epoch) gives the result of
//     a fault-free run, bit for bit.
// Exit status != 0 on failure.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "coll/control/algorithms.h"
#include "coll/datapath/primitives.h"
#include "harness.h"
#include "thread_transport.h"

using namespace zcoll;
using namespace zcoll::coll;

namespace {

// What the injector does, shared by the ranks of one run.
struct Plan {
  enum Kind { kNone, kFailSend, kFlip } kind = kNone;
  int rank = 0;          // the rank whose k-th message is hit
  int nth = 0;           // kFailSend: its nth isend; kFlip: its nth received message
  size_t bit = 0;        // kFlip: the bit (modulo the message's bits)
  bool header = false;   // kFlip: restrict to the stream's header and index
  bool keep_up = false;  // kFailSend: only that send fails, the network stays up
  std::atomic<bool> down{false};
  std::atomic<bool> fired{false};
  std::atomic<int> flipped{0};
};

// A Transport that forwards to a ThreadTransport and injects the plan's fault.
// Waits poll (test) so that a rank whose peer is gone returns instead of
// blocking: once the network is down every operation fails with ZCOLL_ERR_MPI,
// as an MPI library with MPI_ERRORS_RETURN does after a failed transfer.
class FaultTransport final : public transport::Transport {
 public:
  FaultTransport(std::shared_ptr<transport::ThreadFabric> f, int rank, Plan* plan)
      : inner_(std::move(f), rank), plan_(plan) {}
  int rank() const override { return inner_.rank(); }
  int size() const override { return inner_.size(); }
  zcoll_status isend(const void* buf, size_t bytes, int peer, int tag,
                     transport::Req* req) override {
    if (plan_->down) return fail(ZCOLL_ERR_MPI, "injected: the network is down");
    if (plan_->kind == Plan::kFailSend && rank() == plan_->rank && sends_++ == plan_->nth) {
      plan_->fired = true;
      if (!plan_->keep_up) plan_->down = true;
      return fail(ZCOLL_ERR_MPI, "injected: MPI_Isend failed");
    }
    bytes_sent += bytes;
    return inner_.isend(buf, bytes, peer, tag, req);
  }
  zcoll_status irecv(void* buf, size_t capacity, int peer, int tag, transport::Req* req) override {
    if (plan_->down) return fail(ZCOLL_ERR_MPI, "injected: the network is down");
    zcoll_status s = inner_.irecv(buf, capacity, peer, tag, req);
    if (s == ZCOLL_SUCCESS) bufs_[*req] = static_cast<uint8_t*>(buf);
    return s;
  }
  zcoll_status wait(transport::Req req, size_t* bytes) override {
    if (req == transport::kNoReq) return inner_.wait(req, bytes);
    for (;;) {
      bool done = false;
      ZCOLL_CHECK(inner_.test(req, &done));
      if (done) break;
      if (plan_->down) return fail(ZCOLL_ERR_MPI, "injected: the network is down");
      if (uint32_t st = inner_.notice())  // a rank left the call (abort notice)
        return fail(static_cast<zcoll_status>(st), "another rank failed and left the call");
      std::this_thread::sleep_for(std::chrono::microseconds(20));
    }
    size_t n = 0;
    ZCOLL_CHECK(inner_.wait(req, &n));
    if (bytes) *bytes = n;
    auto it = bufs_.find(req);
    if (it != bufs_.end()) {
      uint8_t* buf = it->second;
      bufs_.erase(it);
      if (plan_->kind == Plan::kFlip && rank() == plan_->rank && n > 16 && recvs_++ == plan_->nth) {
        size_t span = n;
        if (plan_->header) span = std::min<size_t>(n, header_span(buf, n));
        const size_t b = plan_->bit % (span * 8);
        buf[b / 8] ^= static_cast<uint8_t>(1u << (b % 8));
        ++plan_->flipped;
      }
    }
    return ZCOLL_SUCCESS;
  }
  zcoll_status test(transport::Req req, bool* done) override {
    if (plan_->down) return fail(ZCOLL_ERR_MPI, "injected: the network is down");
    return inner_.test(req, done);
  }
  void progress() override {}
  zcoll_status begin_call(int data_tag, int notice_tag) override {
    return inner_.begin_call(data_tag, notice_tag);
  }
  void abort_call(zcoll_status s) override { inner_.abort_call(s); }
  zcoll_status end_call(bool failed) override {
    bufs_.clear();
    return inner_.end_call(failed);
  }
  size_t active_requests() const { return inner_.active_requests(); }
  // The two blocking helpers as point-to-point exchanges through wait(), so
  // that a rank whose peer is gone returns from them too.
  zcoll_status allreduce_max(double* v, int n) override {
    std::vector<double> all(static_cast<size_t>(n) * size());
    ZCOLL_CHECK(exchange(v, n * sizeof(double), all.data()));
    for (int p = 0; p < size(); ++p)
      for (int i = 0; i < n; ++i) v[i] = std::max(v[i], all[static_cast<size_t>(p) * n + i]);
    return ZCOLL_SUCCESS;
  }
  zcoll_status allgather_u64(const uint64_t* m, int k, uint64_t* a) override {
    return exchange(m, k * sizeof(uint64_t), a);
  }

 private:
  static constexpr int kHelperTag = 1 << 20;
  // all[p * bytes ...] = rank p's mine (bytes each). The receives land in
  // helper_in_, which lives as long as the transport: when the network goes
  // down mid-exchange this rank returns with receives still posted, and a peer
  // may still deliver into them after the caller's buffer is gone.
  zcoll_status exchange(const void* mine, size_t bytes, void* all) {
    const int N = size();
    std::vector<transport::Req> reqs;
    if (bytes * N > helper_in_.size())
      return fail(ZCOLL_ERR_INTERNAL, "fault test: helper exchange of %zu bytes", bytes * N);
    uint8_t* out = helper_in_.data();
    for (int p = 0; p < N; ++p) {
      transport::Req q = transport::kNoReq;
      if (p == rank()) {
        std::memcpy(out + p * bytes, mine, bytes);
        continue;
      }
      ZCOLL_CHECK(inner_irecv(out + p * bytes, bytes, p, &q));
      reqs.push_back(q);
      if (plan_->down) return fail(ZCOLL_ERR_MPI, "injected: the network is down");
      ZCOLL_CHECK(inner_.isend(mine, bytes, p, kHelperTag, &q));  // not a fault target
      reqs.push_back(q);
    }
    zcoll_status st = ZCOLL_SUCCESS;
    if (std::getenv("ZCOLL_FAULT_VERBOSE"))
      std::fprintf(stderr, "  rank %d exchange posted\n", rank());
    for (transport::Req q : reqs)
      if (zcoll_status s = wait_helper(q)) st = s;
    if (std::getenv("ZCOLL_FAULT_VERBOSE"))
      std::fprintf(stderr, "  rank %d exchange done\n", rank());
    if (st == ZCOLL_SUCCESS) std::memcpy(all, out, bytes * N);
    return st;
  }
  // A wait of the helpers: blind to abort notices (MPI's collectives are too).
  zcoll_status wait_helper(transport::Req req) {
    for (;;) {
      bool done = false;
      ZCOLL_CHECK(inner_.test(req, &done));
      if (done) return inner_.wait(req, nullptr);
      if (plan_->down) return fail(ZCOLL_ERR_MPI, "injected: the network is down");
      std::this_thread::sleep_for(std::chrono::microseconds(20));
    }
  }
  zcoll_status inner_irecv(void* buf, size_t cap, int peer, transport::Req* q) {
    if (plan_->down) return fail(ZCOLL_ERR_MPI, "injected: the network is down");
    return inner_.irecv(buf, cap, peer, kHelperTag, q);
  }
  // Header + chunk index of the stream in buf (the bytes the CRC covers).
  static size_t header_span(const uint8_t* buf, size_t n) {
    zcoll_info info = ZCOLL_INFO_INITIALIZER;
    if (zcoll_inspect(buf, n, &info) != ZCOLL_SUCCESS) return 48;
    return 48 + 4 * static_cast<size_t>(info.chunks);
  }
  transport::ThreadTransport inner_;
  Plan* plan_;
  std::map<transport::Req, uint8_t*> bufs_;
  int sends_ = 0, recvs_ = 0;
  std::vector<uint8_t> helper_in_ = std::vector<uint8_t>(size_t{1} << 16);  // never reallocated
};

struct Outcome {
  std::vector<zcoll_status> status;
  std::vector<std::vector<float>> out;
  bool all_ok() const {
    for (zcoll_status st : status)
      if (st != ZCOLL_SUCCESS) return false;
    return true;
  }
  int failed() const {
    int f = 0;
    for (zcoll_status st : status) f += st != ZCOLL_SUCCESS;
    return f;
  }
};

float input(int p, size_t i) { return static_cast<float>(10 * std::sin(i * 0.01 + p) + p); }

// N ranks whose transports and workspaces live across calls (as a handle's do).
struct Group {
  int N;
  std::shared_ptr<transport::ThreadFabric> fabric;
  std::vector<std::unique_ptr<FaultTransport>> tps;
  std::vector<Workspace> wss;
  int calls = 0;
  Group(int n, Plan* plan) : N(n), fabric(std::make_shared<transport::ThreadFabric>(n)), wss(n) {
    for (int r = 0; r < N; ++r) tps.push_back(std::make_unique<FaultTransport>(fabric, r, plan));
  }
  size_t leftover_requests() const {
    size_t k = 0;
    for (const auto& t : tps) k += t->active_requests();
    return k;
  }
};

// One collective call on every rank of g, as the library runs it (run_algorithm).
Outcome call(Group& g, const Algorithm& alg, zcoll_mode mode, size_t n, double eb,
             uint64_t flags = 0) {
  const int N = g.N;
  Outcome o;
  o.status.assign(N, ZCOLL_SUCCESS);
  const size_t n_out = alg.coll == ZCOLL_COLL_ALLGATHER ? n * N
                       : alg.coll == ZCOLL_COLL_GATHER  ? n * N
                                                        : n;
  o.out.assign(N, std::vector<float>(n_out, -7.f));
  const size_t n_in = alg.coll == ZCOLL_COLL_SCATTER ? n * N : n;
  std::vector<std::vector<float>> in(N, std::vector<float>(n_in));
  for (int p = 0; p < N; ++p)
    for (size_t i = 0; i < n_in; ++i) in[p][i] = input(p, i);
  std::vector<size_t> counts(N, n / N), displs(N);
  for (int p = 0; p < N; ++p) displs[p] = p * (n / N);
  zcoll_params params = ZCOLL_PARAMS_INITIALIZER;
  params.eb_mode = ZCOLL_EB_ABS;
  params.error_bound = eb;
  params.chunk_size = 1024;
  params.flags = flags;
  uint8_t probe[256];
  size_t psz = 0;
  const float zero = 0;
  zcoll_info info = ZCOLL_INFO_INITIALIZER;
  zcoll_compress(&params, ZCOLL_FLOAT32, &zero, 1, probe, sizeof probe, &psz, 1);
  zcoll_inspect(probe, psz, &info);
  const int tag = 100 + 2 * g.calls++;
  std::vector<std::thread> th;
  for (int r = 0; r < N; ++r)
    th.emplace_back([&, r] {
      Ctx x;
      x.tp = g.tps[r].get();
      x.rank = r;
      x.size = N;
      x.coll = alg.coll;
      x.dtype = ZCOLL_FLOAT32;
      x.vsize = 4;
      x.op = ZCOLL_OP_SUM;
      x.mode = mode;
      x.params = params;
      x.eb = mode == ZCOLL_MODE_RAW ? 0 : eb;
      x.quantum = info.quantum;
      x.seg_values = 2048;
      x.threads = 1;
      x.ws = &g.wss[r];
      x.tag = tag;
      Args a;
      a.count = alg.coll == ZCOLL_COLL_REDUCE_SCATTER ? n / N : n;
      a.counts = counts.data();
      a.displs = displs.data();
      a.root = 0;
      if (alg.coll == ZCOLL_COLL_BCAST) {
        o.out[r] = r == 0 ? in[0] : std::vector<float>(n, -7.f);
        a.in = o.out[r].data();
      } else {
        a.in = in[r].data();
      }
      if (alg.coll == ZCOLL_COLL_SCATTER) a.count = n;
      a.out = o.out[r].data();
      o.status[r] = run_algorithm(alg, x, a);
    });
  for (auto& t : th) t.join();
  return o;
}

Outcome run(const Algorithm& alg, zcoll_mode mode, int N, size_t n, Plan* plan, double eb,
            uint64_t flags = 0) {
  Group g(N, plan);
  return call(g, alg, mode, n, eb, flags);
}

bool same_outputs(const Outcome& a, const Outcome& b) {
  for (size_t r = 0; r < a.out.size(); ++r)
    if (std::memcmp(a.out[r].data(), b.out[r].data(), a.out[r].size() * sizeof(float)) != 0)
      return false;
  return true;
}

// After a failed call, the next call on the same group gives the fault-free result.
void expect_recovers(Group& g, const Algorithm& al, zcoll_mode m, size_t n, double eb,
                     uint64_t flags, const char* what) {
  EXPECT(g.leftover_requests() == 0, "%s: %zu requests of the failed call left", what,
         g.leftover_requests());
  Plan clean;
  const Outcome ref = run(al, m, g.N, n, &clean, eb, flags);
  const Outcome next = call(g, al, m, n, eb, flags);
  EXPECT(next.all_ok(), "%s: the call after the failure failed", what);
  EXPECT(same_outputs(next, ref), "%s: the call after the failure differs from a clean run", what);
}

void failed_transfers() {
  size_t n_algos = 0;
  const Algorithm* algs = algorithms(&n_algos);
  int runs = 0, injected = 0;
  for (size_t ai = 0; ai < n_algos; ++ai) {
    const Algorithm& al = algs[ai];
    if (al.coll != ZCOLL_COLL_ALLREDUCE && al.coll != ZCOLL_COLL_BCAST &&
        al.coll != ZCOLL_COLL_ALLGATHER && al.coll != ZCOLL_COLL_REDUCE)
      continue;
    // FaultTransport cannot split into node and rail transports: the
    // node-aware rows' faults are node_aware_test.cc's (through every step)
    if (al.restrictions & kNodeAware) continue;
    for (bool keep_up : {false, true})
      for (zcoll_mode m : {ZCOLL_MODE_RAW, ZCOLL_MODE_DOC, ZCOLL_MODE_HOM})
        for (int N : {2, 3, 5})
          for (int nth : {0, 1, 3}) {
            Plan plan;
            plan.kind = Plan::kFailSend;
            plan.rank = N - 1 - nth % N;
            plan.nth = nth;
            plan.keep_up = keep_up;
            Group g(N, &plan);
            char what[160];
            std::snprintf(what, sizeof what, "%s %s N=%d nth=%d %s", al.function,
                          zcoll_mode_name(m), N, nth, keep_up ? "network up" : "network down");
            if (std::getenv("ZCOLL_FAULT_VERBOSE")) std::fprintf(stderr, "%s\n", what);
            Outcome o = call(g, al, m, 5000, 1e-3);
            ++runs;
            // The injected failure may not be reached (a rank with fewer sends).
            if (!plan.fired) {
              EXPECT(o.all_ok(), "%s: failed without a fault", what);
              continue;
            }
            ++injected;
            EXPECT(o.status[plan.rank] == ZCOLL_ERR_MPI, "%s: the failing rank got %d", what,
                   o.status[plan.rank]);
            for (int r = 0; r < N; ++r)
              EXPECT(o.status[r] == ZCOLL_ERR_MPI, "%s: rank %d status %d", what, r, o.status[r]);
            if (keep_up) {
              plan.kind = Plan::kNone;
              expect_recovers(g, al, m, 5000, 1e-3, 0, what);
            }
          }
  }
  std::printf(
      "failed transfers: %d runs, %d with the failure injected: every rank returned "
      "ZCOLL_ERR_MPI; with the network up, the next call on the same transports was correct\n",
      runs, injected);
}

void bit_flips() {
  const Algorithm* ring = find_algorithm(ZCOLL_COLL_ALLREDUCE, ZCOLL_ALGO_RING);
  const Algorithm* bino = find_algorithm(ZCOLL_COLL_BCAST, ZCOLL_ALGO_BINOMIAL);
  const double eb = 1e-3;
  const size_t n = 5000;
  for (uint64_t flags : {uint64_t{0}, uint64_t{ZCOLL_FLAG_CHECKSUM}})
    for (const Algorithm* al : {ring, bino})
      for (zcoll_mode m : {ZCOLL_MODE_DOC, ZCOLL_MODE_HOM})
        for (bool header : {true, false}) {
          if (flags && header) continue;  // the whole message covers it
          const int N = 3;
          Plan clean;
          const Outcome ref = run(*al, m, N, n, &clean, eb, flags);
          EXPECT(ref.all_ok(), "%s %s: fault-free run failed", al->name, zcoll_mode_name(m));
          long trials = 0, detected = 0, everywhere = 0, harmless = 0, changed = 0, wrong = 0;
          for (int t = 0; t < 60; ++t) {
            Plan plan;
            plan.kind = Plan::kFlip;
            plan.rank = 1 + t % (N - 1);
            plan.nth = t % 2;
            plan.bit = static_cast<size_t>(t) * 2654435761u;
            plan.header = header;
            Group g(N, &plan);
            const Outcome o = call(g, *al, m, n, eb, flags);
            if (!plan.flipped) continue;
            ++trials;
            if (!o.all_ok()) {
              ++detected;
              everywhere += o.failed() == N;
              for (int r = 0; r < N; ++r)
                EXPECT(o.status[r] == ZCOLL_ERR_CORRUPT || o.status[r] == ZCOLL_ERR_MISMATCH ||
                           o.status[r] == ZCOLL_ERR_TRUNCATED ||
                           o.status[r] == ZCOLL_ERR_UNSUPPORTED,
                       "flip: rank %d status %d", r, o.status[r]);
              if (t < 6) {  // and the handle goes on
                plan.kind = Plan::kNone;
                expect_recovers(g, *al, m, n, eb, flags, "after a flip");
              }
              continue;
            }
            bool same = true, within = true;
            for (int r = 0; r < N; ++r) {
              same = same && o.out[r] == ref.out[r];
              for (size_t i = 0; i < n; ++i) {
                double exact = al->coll == ZCOLL_COLL_BCAST ? input(0, i) : 0;
                if (al->coll != ZCOLL_COLL_BCAST)
                  for (int p = 0; p < N; ++p) exact += input(p, i);
                const double bound = al->coll == ZCOLL_COLL_BCAST ? eb : 4 * N * eb;
                within = within && std::fabs(o.out[r][i] - exact) <= bound;
              }
            }
            harmless += same;
            changed += !same && within;
            wrong += !within;
          }
          std::printf(
              "bit flips in %s, %s %s%s: %ld flips: %ld detected (%ld on every rank), %ld "
              "harmless, %ld changed the result within the bound, %ld silently outside the "
              "bound\n",
              header ? "header+index" : "whole messages", al->name, zcoll_mode_name(m),
              flags ? " with ZCOLL_FLAG_CHECKSUM" : "", trials, detected, everywhere, harmless,
              changed, wrong);
          EXPECT(trials > 0, "no flip was injected");
          EXPECT(everywhere == detected, "%s %s: %ld detected flips failed only some ranks",
                 al->name, zcoll_mode_name(m), detected - everywhere);
          if (header || flags)
            EXPECT(detected == trials, "%s %s%s: %ld of %ld flips went undetected", al->name,
                   zcoll_mode_name(m), flags ? " (checksum)" : "", trials - detected, trials);
        }
}

// A scratch allocation fails on one rank only: every rank returns an error,
// none hangs, and the next call on the same group is correct.
void scratch_oom() {
  size_t n_algos = 0;
  const Algorithm* algs = algorithms(&n_algos);
  int runs = 0, fired = 0;
  for (size_t ai = 0; ai < n_algos; ++ai) {
    const Algorithm& al = algs[ai];
    if (al.restrictions & kNodeAware) continue;  // as in failed_transfers
    for (zcoll_mode m : {ZCOLL_MODE_RAW, ZCOLL_MODE_DOC, ZCOLL_MODE_HOM})
      for (int N : {2, 3, 5})
        for (int k : {1, 2, 3}) {
          const size_t n = 5000 + 7;
          const int victim = (k + N) % N;
          Plan plan;
          Group g(N, &plan);
          g.wss[victim].fail_countdown = k;
          const Outcome o = call(g, al, m, n, 1e-3);
          ++runs;
          char what[160];
          std::snprintf(what, sizeof what, "%s %s N=%d: allocation %d on rank %d fails",
                        al.function, zcoll_mode_name(m), N, k, victim);
          if (g.wss[victim].fail_countdown != 0) {  // the rank made fewer allocations
            g.wss[victim].fail_countdown = 0;
            EXPECT(o.all_ok(), "%s: failed without a fault", what);
            continue;
          }
          ++fired;
          EXPECT(o.status[victim] == ZCOLL_ERR_NO_MEMORY, "%s: that rank got %d", what,
                 o.status[victim]);
          for (int r = 0; r < N; ++r)
            EXPECT(o.status[r] != ZCOLL_SUCCESS, "%s: rank %d returned success", what, r);
          expect_recovers(g, al, m, n, 1e-3, 0, what);
        }
  }
  std::printf(
      "scratch allocation failures: %d runs, %d with the failure injected on one rank: it "
      "returned ZCOLL_ERR_NO_MEMORY, every other rank an error, none hung; the next call on "
      "the same transports and workspaces was correct\n",
      runs, fired);
  EXPECT(fired > 50, "only %d allocation failures fired", fired);
}

}  // namespace

int main() {
  const auto t0 = std::chrono::steady_clock::now();
  failed_transfers();
  bit_flips();
  scratch_oom();
  return zcoll_testing::finish(
      "zcoll fault injection tests", zcoll_testing::g_checks, zcoll_testing::g_failures,
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
}
