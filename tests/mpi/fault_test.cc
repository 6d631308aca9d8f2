// fault_test.cc — the faults a user will hit on the wire, over the in-process
// transport (ranks as threads) wrapped in a transport that injects them
// (docs/reliability.md, "Faults"):
//   * a transfer fails (what MPI_ERRORS_RETURN gives back): the rank that sees
//     it and every rank after it get ZCOLL_ERR_MPI (the network is down), no
//     crash, no hang;
//   * a bit flips in a message (a corrupt peer): every flip in the stream header
//     or chunk index is detected (CRC-32C) and no rank crashes or hangs; flips in
//     chunk payloads are counted by outcome (detected, harmless, silently
//     changed, outside the bound) and printed, since the format does not
//     checksum payloads (docs/format.md).
// Exit status != 0 on failure.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <map>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "coll/algorithms.h"
#include "coll/primitives.h"
#include "harness.h"
#include "thread_transport.h"

using namespace zcoll;
using namespace zcoll::coll;

namespace {

// What the injector does, shared by the ranks of one run.
struct Plan {
  enum Kind { kNone, kFailSend, kFlip } kind = kNone;
  int rank = 0;         // the rank whose k-th message is hit
  int nth = 0;          // kFailSend: its nth isend; kFlip: its nth received message
  size_t bit = 0;       // kFlip: the bit (modulo the message's bits)
  bool header = false;  // kFlip: restrict to the stream's header and index
  std::atomic<bool> down{false};
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
      plan_->down = true;
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
  // all[p * bytes ...] = rank p's mine (bytes each).
  zcoll_status exchange(const void* mine, size_t bytes, void* all) {
    const int N = size();
    std::vector<transport::Req> reqs;
    auto* out = static_cast<uint8_t*>(all);
    for (int p = 0; p < N; ++p) {
      transport::Req q = transport::kNoReq;
      if (p == rank()) {
        std::memcpy(out + p * bytes, mine, bytes);
        continue;
      }
      ZCOLL_CHECK(inner_irecv(out + p * bytes, bytes, p, &q));
      reqs.push_back(q);
      ZCOLL_CHECK(isend(mine, bytes, p, kHelperTag, &q));
      reqs.push_back(q);
    }
    zcoll_status st = ZCOLL_SUCCESS;
    for (transport::Req q : reqs)
      if (zcoll_status s = wait(q, nullptr)) st = s;
    return st;
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
};

struct Outcome {
  std::vector<zcoll_status> status;
  std::vector<std::vector<float>> out;
  bool all_ok() const {
    for (zcoll_status s : status)
      if (s != ZCOLL_SUCCESS) return false;
    return true;
  }
  int failed() const {
    int f = 0;
    for (zcoll_status s : status) f += s != ZCOLL_SUCCESS;
    return f;
  }
};

float input(int p, size_t i) { return static_cast<float>(10 * std::sin(i * 0.01 + p) + p); }

// One collective over N threads under plan; returns every rank's status and output.
Outcome run(const Algorithm& alg, zcoll_mode mode, int N, size_t n, Plan* plan, double eb) {
  Outcome o;
  o.status.assign(N, ZCOLL_SUCCESS);
  const size_t n_out = alg.coll == ZCOLL_COLL_ALLGATHER ? n * N : n;
  o.out.assign(N, std::vector<float>(n_out, -7.f));
  std::vector<std::vector<float>> in(N, std::vector<float>(n));
  for (int p = 0; p < N; ++p)
    for (size_t i = 0; i < n; ++i) in[p][i] = input(p, i);
  zcoll_params params = ZCOLL_PARAMS_INITIALIZER;
  params.eb_mode = ZCOLL_EB_ABS;
  params.error_bound = eb;
  params.chunk_size = 1024;
  uint8_t probe[256];
  size_t psz = 0;
  const float zero = 0;
  zcoll_info info = ZCOLL_INFO_INITIALIZER;
  zcoll_compress(&params, ZCOLL_FLOAT32, &zero, 1, probe, sizeof probe, &psz, 1);
  zcoll_inspect(probe, psz, &info);
  auto fabric = std::make_shared<transport::ThreadFabric>(N);
  // Transports and workspaces outlive every thread: a rank that returns early
  // leaves receives posted into them, which its peers may still complete.
  std::vector<std::unique_ptr<FaultTransport>> tps;
  std::vector<Workspace> wss(N);
  for (int r = 0; r < N; ++r) tps.push_back(std::make_unique<FaultTransport>(fabric, r, plan));
  std::vector<std::thread> th;
  for (int r = 0; r < N; ++r)
    th.emplace_back([&, r] {
      FaultTransport& tp = *tps[r];
      Workspace& ws = wss[r];
      Ctx x;
      x.tp = &tp;
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
      x.ws = &ws;
      x.tag = 1;
      Args a;
      a.count = n;
      a.root = 0;
      if (alg.coll == ZCOLL_COLL_BCAST) {
        o.out[r] = r == 0 ? in[0] : std::vector<float>(n, -7.f);
        a.in = o.out[r].data();
      } else {
        a.in = in[r].data();
      }
      a.out = o.out[r].data();
      zcoll_status st = alg.run(x, a);
      o.status[r] = st != ZCOLL_SUCCESS ? st : x.failed;
    });
  for (auto& t : th) t.join();
  return o;
}

void failed_transfers() {
  size_t n_algos = 0;
  const Algorithm* algs = algorithms(&n_algos);
  int runs = 0;
  for (size_t ai = 0; ai < n_algos; ++ai) {
    const Algorithm& al = algs[ai];
    if (al.coll != ZCOLL_COLL_ALLREDUCE && al.coll != ZCOLL_COLL_BCAST &&
        al.coll != ZCOLL_COLL_ALLGATHER && al.coll != ZCOLL_COLL_REDUCE)
      continue;
    for (zcoll_mode m : {ZCOLL_MODE_RAW, ZCOLL_MODE_DOC, ZCOLL_MODE_HOM})
      for (int N : {2, 3, 5})
        for (int nth : {0, 1, 3}) {
          Plan plan;
          plan.kind = Plan::kFailSend;
          plan.rank = N - 1 - nth % N;
          plan.nth = nth;
          Outcome o = run(al, m, N, 5000, &plan, 1e-3);
          ++runs;
          // The injected failure may not be reached (a rank with fewer sends).
          if (!plan.down) {
            EXPECT(o.all_ok(), "%s %s N=%d: failed without a fault", al.name, zcoll_mode_name(m),
                   N);
            continue;
          }
          EXPECT(o.status[plan.rank] == ZCOLL_ERR_MPI, "%s %s N=%d: the failing rank got %d",
                 al.name, zcoll_mode_name(m), N, o.status[plan.rank]);
          for (int r = 0; r < N; ++r)
            EXPECT(o.status[r] == ZCOLL_SUCCESS || o.status[r] == ZCOLL_ERR_MPI,
                   "%s %s N=%d: rank %d status %d", al.name, zcoll_mode_name(m), N, r, o.status[r]);
        }
  }
  std::printf("failed transfers: %d runs, every failing rank returned ZCOLL_ERR_MPI\n", runs);
}

void bit_flips() {
  const Algorithm* ring = find_algorithm(ZCOLL_COLL_ALLREDUCE, ZCOLL_ALGO_RING);
  const Algorithm* bino = find_algorithm(ZCOLL_COLL_BCAST, ZCOLL_ALGO_BINOMIAL);
  const double eb = 1e-3;
  const size_t n = 5000;
  for (const Algorithm* al : {ring, bino})
    for (zcoll_mode m : {ZCOLL_MODE_DOC, ZCOLL_MODE_HOM})
      for (bool header : {true, false}) {
        const int N = 3;
        Plan clean;
        const Outcome ref = run(*al, m, N, n, &clean, eb);
        EXPECT(ref.all_ok(), "%s %s: fault-free run failed", al->name, zcoll_mode_name(m));
        long trials = 0, detected = 0, everywhere = 0, harmless = 0, changed = 0, wrong = 0;
        for (int t = 0; t < 60; ++t) {
          Plan plan;
          plan.kind = Plan::kFlip;
          plan.rank = 1 + t % (N - 1);
          plan.nth = t % 2;
          plan.bit = static_cast<size_t>(t) * 2654435761u;
          plan.header = header;
          const Outcome o = run(*al, m, N, n, &plan, eb);
          if (!plan.flipped) continue;
          ++trials;
          if (!o.all_ok()) {
            ++detected;
            everywhere += o.failed() == N;
            for (int r = 0; r < N; ++r)
              EXPECT(o.status[r] == ZCOLL_SUCCESS || o.status[r] == ZCOLL_ERR_CORRUPT ||
                         o.status[r] == ZCOLL_ERR_MISMATCH || o.status[r] == ZCOLL_ERR_TRUNCATED ||
                         o.status[r] == ZCOLL_ERR_UNSUPPORTED,
                     "flip: rank %d status %d", r, o.status[r]);
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
            "bit flips in %s, %s %s: %ld flips: %ld detected (%ld on every rank), %ld harmless, "
            "%ld changed the result within the bound, %ld silently outside the bound\n",
            header ? "header+index" : "whole messages", al->name, zcoll_mode_name(m), trials,
            detected, everywhere, harmless, changed, wrong);
        EXPECT(trials > 0, "no flip was injected");
        if (header)
          EXPECT(detected == trials, "%s %s: %ld of %ld header flips went undetected", al->name,
                 zcoll_mode_name(m), trials - detected, trials);
      }
}

}  // namespace

int main() {
  const auto t0 = std::chrono::steady_clock::now();
  failed_transfers();
  bit_flips();
  return zcoll_test::finish(
      "zcoll fault injection tests", zcoll_test::g_checks, zcoll_test::g_failures,
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
}
