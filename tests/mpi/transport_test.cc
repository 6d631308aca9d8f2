// transport_test.cc — the transport seams in process (ranks as threads;
// docs/transport.md):
//   * Locality: node numbering, local ranks, rails, from labels at the layouts
//     2x2, 3x2, 2x3, 3+1 and 1+2+2 (ranks not by node), one node, one rank per
//     node; ZCOLL_NODE_MAP's syntax;
//   * sub-group transports (node, rail, split) of the thread transport: their
//     members and order, their own message space, color < 0;
//   * every algorithm of the registry in every mode on the node, rail and split
//     transports of those layouts, all groups at once, each checked against a
//     double reference (inproc_case.h), run as the library runs it
//     (run_algorithm: the fault protocol's bracket);
//   * a transfer failure inside a sub-group: that group's ranks fail, the
//     others do not, and the next call on the same transports is right;
//   * SizePrefixedTransport over an exact-size, rendezvous thread transport
//     (which fails any receive whose size is not the message's): its channel
//     order, empty and oversized messages, wait_any, two ranks that wait for
//     their sends first; every algorithm x mode through it, also on its
//     sub-groups; and the same algorithms without it fail there (the
//     exact-size check bites);
//   * the calibration probe and the one-node rule (calibrate.h) over threads.
// Exit status != 0 on failure.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <functional>
#include <limits>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "coll/control/algorithms.h"
#include "coll/control/calibrate.h"
#include "failing_transport.h"
#include "harness.h"
#include "inproc_case.h"
#include "thread_transport.h"
#include "transport/size_prefixed_transport.h"

using namespace zcoll;
using namespace zcoll::coll;
using transport::Locality;
using transport::Req;
using transport::ThreadFabric;
using transport::ThreadTransport;
using transport::Transport;
using zcoll_testing::Case;
using zcoll_testing::FailingTransport;
using zcoll_testing::Setup;

namespace {

// Run body(rank) on N threads and join them.
void on_threads(int N, const std::function<void(int)>& body) {
  std::vector<std::thread> threads;
  for (int r = 0; r < N; ++r) threads.emplace_back(body, r);
  for (auto& t : threads) t.join();
}

// A transport's locality (free on the thread transport and sub-groups).
const Locality& loc(Transport& t) {
  const Locality* l = nullptr;
  EXPECT(t.locality(&l) == ZCOLL_SUCCESS && l, "locality()");
  return *l;
}

std::string text(const std::vector<int>& v) {
  std::string s;
  for (size_t i = 0; i < v.size(); ++i) s += (i ? "," : "") + std::to_string(v[i]);
  return s;
}

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
      {"one node", {3, 3, 3}},
      {"one rank per node", {0, 1, 2}},
  };
  return all;
}

// ---- Locality ----------------------------------------------------------------

void expect_locality(const char* name, const std::vector<int64_t>& labels,
                     const std::vector<int>& node_of, const std::vector<int>& local_of,
                     const std::vector<int>& node_size, bool blocked, const char* describe) {
  for (int r = 0; r < static_cast<int>(labels.size()); ++r) {
    const Locality l = Locality::from_labels(labels, r);
    EXPECT(l.node_of_rank == node_of, "%s: node_of_rank %s", name, text(l.node_of_rank).c_str());
    EXPECT(l.local_of_rank == local_of, "%s: local_of_rank %s", name,
           text(l.local_of_rank).c_str());
    EXPECT(l.node_size == node_size, "%s: node_size %s", name, text(l.node_size).c_str());
    EXPECT(l.nodes == static_cast<int>(node_size.size()) && l.node == node_of[r] &&
               l.local_rank == local_of[r] && l.local_size == node_size[node_of[r]] &&
               l.rank == r && l.size == static_cast<int>(labels.size()),
           "%s: rank %d's fields", name, r);
    EXPECT(l.blocked == blocked, "%s: blocked %d", name, l.blocked);
    EXPECT(l.describe() == describe, "%s: describe() = \"%s\"", name, l.describe().c_str());
    const int mn = *std::min_element(node_size.begin(), node_size.end());
    const int mx = *std::max_element(node_size.begin(), node_size.end());
    EXPECT(l.min_local_size == mn && l.max_local_size == mx && l.uniform() == (mn == mx),
           "%s: min/max local size", name);
  }
}

void test_locality() {
  expect_locality("2x2", {0, 0, 1, 1}, {0, 0, 1, 1}, {0, 1, 0, 1}, {2, 2}, true,
                  "2 nodes (2+2, by node)");
  expect_locality("3x2 interleaved", {0, 1, 2, 0, 1, 2}, {0, 1, 2, 0, 1, 2}, {0, 0, 0, 1, 1, 1},
                  {2, 2, 2}, false, "3 nodes (2+2+2, not by node)");
  expect_locality("2x3", {4, 4, 4, 2, 2, 2}, {0, 0, 0, 1, 1, 1}, {0, 1, 2, 0, 1, 2}, {3, 3}, true,
                  "2 nodes (3+3, by node)");
  expect_locality("3+1", {0, 1, 0, 0}, {0, 1, 0, 0}, {0, 0, 1, 2}, {3, 1}, false,
                  "2 nodes (3+1, not by node)");
  expect_locality("1+2+2", {5, 9, 7, 9, 7}, {0, 1, 2, 1, 2}, {0, 0, 0, 1, 1}, {1, 2, 2}, false,
                  "3 nodes (1+2+2, not by node)");
  expect_locality("one node", {3, 3, 3}, {0, 0, 0}, {0, 1, 2}, {3}, true, "1 node (3, by node)");
  expect_locality("one rank", {0}, {0}, {0}, {1}, true, "1 node (1, by node)");
  const Locality flat = Locality::one_per_node(3, 1);
  EXPECT(flat.nodes == 3 && flat.node == 1 && flat.local_size == 1 && flat.blocked,
         "one_per_node: %s", flat.describe().c_str());
  // rails on uneven nodes: one rank from each node that has that many
  const Locality u = Locality::from_labels({0, 1, 0, 0}, 0);
  EXPECT(u.rail_ranks(0) == std::vector<int>({0, 1}), "3+1 rail 0: %s",
         text(u.rail_ranks(0)).c_str());
  EXPECT(u.rail_ranks(1) == std::vector<int>({2}), "3+1 rail 1: %s", text(u.rail_ranks(1)).c_str());
  EXPECT(u.rail_ranks(2) == std::vector<int>({3}), "3+1 rail 2: %s", text(u.rail_ranks(2)).c_str());
  EXPECT(u.ranks_on_node(0) == std::vector<int>({0, 2, 3}), "3+1 node 0");
  const Locality v = Locality::from_labels({5, 9, 7, 9, 7}, 3);
  EXPECT(v.rail_ranks(0) == std::vector<int>({0, 1, 2}) &&
             v.rail_ranks(1) == std::vector<int>({3, 4}) && v.rail_ranks(2).empty(),
         "1+2+2 rails");
  // a sub-group's locality: its ranks' nodes, renumbered
  const Locality s = Locality::subset(v, {4, 3, 1}, 0);  // nodes 2, 1, 1
  EXPECT(s.node_of_rank == std::vector<int>({0, 1, 1}) && s.nodes == 2 && s.blocked, "subset: %s",
         text(s.node_of_rank).c_str());
  // ZCOLL_NODE_MAP's syntax
  std::vector<int64_t> m;
  EXPECT(transport::parse_node_map("0,0,1,12", &m) == ZCOLL_SUCCESS &&
             m == std::vector<int64_t>({0, 0, 1, 12}),
         "parse 0,0,1,12");
  for (const char* bad : {"", "a", "0,,1", "-1", "1,2,", "1;2", "1.5"})
    EXPECT(transport::parse_node_map(bad, &m) == ZCOLL_ERR_INVALID_ARG, "parse \"%s\" accepted",
           bad);
}

// ---- sub-group transports of the thread transport ---------------------------

// The expected members of each group (parent ranks, in sub-rank order) when
// every rank passes color_of(rank), key_of(rank).
std::vector<std::vector<int>> groups_of(int N, const std::function<int(int)>& color_of,
                                        const std::function<int(int)>& key_of) {
  int colors = 0;
  for (int r = 0; r < N; ++r) colors = std::max(colors, color_of(r) + 1);
  std::vector<std::vector<int>> g(colors);
  for (int r = 0; r < N; ++r)
    if (color_of(r) >= 0) g[color_of(r)].push_back(r);
  for (auto& members : g)
    std::stable_sort(members.begin(), members.end(),
                     [&](int a, int b) { return key_of(a) < key_of(b); });
  return g;
}

enum class Kind { kNode, kRail, kSplit };
const char* kind_name(Kind k) {
  return k == Kind::kNode ? "node" : k == Kind::kRail ? "rail" : "split";
}

// The groups a kind makes at a layout, and this rank's color: node (color =
// node, key = rank), rail (local rank, node), split (rank % 2, -rank: the
// reverse order).
std::vector<std::vector<int>> groups(Kind k, const Locality& l) {
  if (k == Kind::kNode)
    return groups_of(
        l.size, [&](int r) { return l.node_of_rank[r]; }, [](int r) { return r; });
  if (k == Kind::kRail)
    return groups_of(
        l.size, [&](int r) { return l.local_of_rank[r]; },
        [&](int r) { return l.node_of_rank[r]; });
  return groups_of(
      l.size, [](int r) { return r % 2; }, [](int r) { return -r; });
}

zcoll_status sub_transport(Transport& tp, Kind k, Transport** sub,
                           std::unique_ptr<Transport>* own) {
  if (k == Kind::kNode) return tp.node_transport(sub);
  if (k == Kind::kRail) return tp.rail_transport(sub);
  ZCOLL_CHECK(tp.split(tp.rank() % 2, -tp.rank(), own));
  *sub = own->get();
  return ZCOLL_SUCCESS;
}

// Where parent rank r sits: (group, rank in it).
std::pair<int, int> place(const std::vector<std::vector<int>>& g, int r) {
  for (size_t i = 0; i < g.size(); ++i)
    for (size_t j = 0; j < g[i].size(); ++j)
      if (g[i][j] == r) return {static_cast<int>(i), static_cast<int>(j)};
  return {-1, -1};
}

// The sub-transport of kind k on rank r of tp: its rank, members and locality
// as the groups say, and the node and rail transports kept.
void check_sub_transport(ThreadTransport& tp, const Layout& lay, int r, Kind k) {
  const Locality& l = loc(tp);
  const auto g = groups(k, l);
  const auto [gi, sr] = place(g, r);
  Transport* sub = nullptr;
  std::unique_ptr<Transport> own;
  EXPECT(sub_transport(tp, k, &sub, &own) == ZCOLL_SUCCESS && sub, "%s %s: no transport", lay.name,
         kind_name(k));
  if (!sub) return;
  const int n = static_cast<int>(g[gi].size());
  EXPECT(sub->rank() == sr && sub->size() == n, "%s %s: rank %d is %d of %d, expected %d of %d",
         lay.name, kind_name(k), r, sub->rank(), sub->size(), sr, n);
  // the members, in order, as the group itself says
  uint64_t mine = static_cast<uint64_t>(r);
  std::vector<uint64_t> all(sub->size());
  EXPECT(sub->allgather_u64(&mine, 1, all.data()) == ZCOLL_SUCCESS, "allgather");
  std::vector<int> got(all.begin(), all.end());
  EXPECT(got == g[gi], "%s %s: rank %d's group is %s, expected %s", lay.name, kind_name(k), r,
         text(got).c_str(), text(g[gi]).c_str());
  // its locality: the parent's, restricted
  std::vector<int64_t> sub_labels;
  for (int p : g[gi]) sub_labels.push_back(l.node_of_rank[p]);
  const Locality want = Locality::from_labels(sub_labels, sr);
  EXPECT(loc(*sub).node_of_rank == want.node_of_rank && loc(*sub).rank == sr,
         "%s %s: sub-group locality %s", lay.name, kind_name(k), loc(*sub).describe().c_str());
  if (k == Kind::kNode)
    EXPECT(loc(*sub).nodes == 1 && sub->size() == l.local_size, "%s node: one node", lay.name);
  if (k == Kind::kRail)
    EXPECT(loc(*sub).nodes == sub->size(), "%s rail: one rank per node", lay.name);
  Transport* again = nullptr;
  if (k == Kind::kNode) tp.node_transport(&again);
  if (k == Kind::kRail) tp.rail_transport(&again);
  if (k != Kind::kSplit) EXPECT(again == sub, "%s %s: not kept", lay.name, kind_name(k));
}

// Message spaces: the same tag on the parent and on the node transport
// (sub-rank 0 of the node is a parent rank too): nothing crosses.
void check_message_spaces(ThreadTransport& tp, const Layout& lay, int r, int N) {
  const Locality& l = loc(tp);
  Transport* node = nullptr;
  tp.node_transport(&node);
  const int tag = 9;
  const uint64_t on_parent = 1000 + r, on_node = 2000 + r;
  Req a = transport::kNoReq, b = transport::kNoReq;
  tp.isend(&on_parent, 8, 0, tag, &a);
  node->isend(&on_node, 8, 0, tag, &b);
  if (r == 0)
    for (int p = 0; p < N; ++p) {
      uint64_t v = 0;
      Req q;
      tp.irecv(&v, 8, p, tag, &q);
      tp.wait(q, nullptr);
      EXPECT(v == 1000u + p, "%s: parent got %llu from %d", lay.name,
             static_cast<unsigned long long>(v), p);
    }
  if (node->rank() == 0) {
    const auto members = l.ranks_on_node(l.node);
    for (int p = 0; p < node->size(); ++p) {
      uint64_t v = 0;
      Req q;
      node->irecv(&v, 8, p, tag, &q);
      node->wait(q, nullptr);
      EXPECT(v == 2000u + members[p], "%s: node got %llu from %d", lay.name,
             static_cast<unsigned long long>(v), p);
    }
  }
  tp.wait(a, nullptr);
  node->wait(b, nullptr);
}

void test_split() {
  for (const Layout& lay : layouts()) {
    const int N = static_cast<int>(lay.labels.size());
    auto fabric = std::make_shared<ThreadFabric>(N, lay.labels);
    on_threads(N, [&](int r) {
      ThreadTransport tp(fabric, r);
      const Locality& l = loc(tp);
      EXPECT(l.node_of_rank == Locality::from_labels(lay.labels, r).node_of_rank,
             "%s: the thread transport's locality", lay.name);
      for (Kind k : {Kind::kNode, Kind::kRail, Kind::kSplit}) check_sub_transport(tp, lay, r, k);
      check_message_spaces(tp, lay, r, N);
      // color < 0: no transport for that rank
      std::unique_ptr<Transport> some;
      EXPECT(tp.split(r == 0 ? -1 : 4, 0, &some) == ZCOLL_SUCCESS, "split");
      EXPECT((r == 0) == !some, "%s: color < 0", lay.name);
      if (some) EXPECT(some->size() == N - 1 && some->rank() == r - 1, "%s: the rest", lay.name);
    });
  }
}

// ---- the algorithms on sub-groups ------------------------------------------

// How each rank's transport for a case is made: from its parent transport
// (owned by the thread), e.g. a sub-group, a wrapper.
using Parent = std::function<std::unique_ptr<Transport>(std::shared_ptr<ThreadFabric>, int)>;

std::unique_ptr<Transport> plain(std::shared_ptr<ThreadFabric> f, int r) {
  return std::make_unique<ThreadTransport>(std::move(f), r);
}

// Every algorithm in every mode, on the groups a kind makes at a layout, all
// groups at once; the data of each group differs.
template <typename T>
void run_groups(const Layout& lay, Kind k, const Algorithm& al, zcoll_mode mode, size_t count,
                zcoll_op op, const ThreadFabric::Options& options, const Parent& parent) {
  const int N = static_cast<int>(lay.labels.size());
  const auto g = groups(k, Locality::from_labels(lay.labels, 0));
  std::vector<std::unique_ptr<Case<T>>> cases;
  for (size_t i = 0; i < g.size(); ++i) {
    const int n = static_cast<int>(g[i].size());
    Setup s{al.coll, al.algo, mode, op, count, (n - 1) / 2, false};
    s.data = 10 * static_cast<int>(i);
    if (al.restrictions & kNodeAware)  // its bound depends on the group's layout
      for (int p : g[i]) s.nodes.push_back(lay.labels[p]);
    cases.push_back(std::make_unique<Case<T>>(al, n, s));
  }
  auto fabric = std::make_shared<ThreadFabric>(N, lay.labels, options);
  on_threads(N, [&](int r) {
    std::unique_ptr<Transport> tp = parent(fabric, r);
    Transport* sub = nullptr;
    std::unique_ptr<Transport> own;
    if (sub_transport(*tp, k, &sub, &own) != ZCOLL_SUCCESS || !sub) {
      EXPECT(false, "%s %s: no sub-transport for rank %d", lay.name, kind_name(k), r);
      return;
    }
    const auto [gi, sr] = place(g, r);
    cases[gi]->run_rank(*sub, sr, true);
  });
  for (auto& c : cases) c->check();
  EXPECT(fabric->exact_mismatches() == 0, "%s: %ld exact-size mismatches", lay.name,
         fabric->exact_mismatches());
}

void test_algorithms_on_subgroups() {
  size_t n_algos = 0;
  const Algorithm* algs = algorithms(&n_algos);
  int k = 0;
  for (const Layout& lay : layouts())
    for (Kind kind : {Kind::kNode, Kind::kRail, Kind::kSplit})
      for (size_t ai = 0; ai < n_algos; ++ai)
        for (zcoll_mode m : {ZCOLL_MODE_RAW, ZCOLL_MODE_CPR_P2P, ZCOLL_MODE_DOC, ZCOLL_MODE_HOM}) {
          const size_t count = ++k % 2 ? 3001 : 7;
          if (k % 3)
            run_groups<float>(lay, kind, algs[ai], m, count, ZCOLL_OP_SUM, {}, plain);
          else
            run_groups<double>(lay, kind, algs[ai], m, count, ZCOLL_OP_SUM, {}, plain);
        }
  // the other ops once per algorithm, on the uneven layout's rails
  for (size_t ai = 0; ai < n_algos; ++ai)
    if (zcoll_testing::is_reduction(algs[ai].coll))
      for (zcoll_op op : {ZCOLL_OP_MAX, ZCOLL_OP_MIN, ZCOLL_OP_PROD})
        run_groups<double>(layouts()[4], Kind::kNode, algs[ai], ZCOLL_MODE_DOC, 2000, op, {},
                           plain);
}

// ---- a failure inside one sub-group ---------------------------------------

// On the node transports of `lay`, rank `victim` (a parent rank) fails its
// nth send in an Allreduce; then the same call again without the fault.
void run_fault(const Layout& lay, const ThreadFabric::Options& options, const Parent& parent,
               zcoll_mode mode, int victim, int nth) {
  const int N = static_cast<int>(lay.labels.size());
  const Locality l0 = Locality::from_labels(lay.labels, 0);
  const auto g = groups(Kind::kNode, l0);
  const Algorithm* al = find_algorithm(ZCOLL_COLL_ALLREDUCE, ZCOLL_ALGO_RING);
  std::vector<std::unique_ptr<Case<float>>> first, second;
  for (size_t i = 0; i < g.size(); ++i) {
    const int n = static_cast<int>(g[i].size());
    Setup s{al->coll, al->algo, mode, ZCOLL_OP_SUM, 5000, 0, false};
    s.data = static_cast<int>(i);
    first.push_back(std::make_unique<Case<float>>(*al, n, s));
    s.tag = 5;  // the next call's tags (a new epoch, as the library's)
    second.push_back(std::make_unique<Case<float>>(*al, n, s));
  }
  auto fabric = std::make_shared<ThreadFabric>(N, lay.labels, options);
  std::vector<size_t> left(N, 0);
  on_threads(N, [&](int r) {
    std::unique_ptr<Transport> tp = parent(fabric, r);
    Transport* node = nullptr;
    if (tp->node_transport(&node) != ZCOLL_SUCCESS) return;
    const auto [gi, sr] = place(g, r);
    FailingTransport faulty(node, r == victim ? nth : -1);
    first[gi]->run_rank(faulty, sr, true);
    second[gi]->run_rank(*node, sr, true);
    if (auto* sp = dynamic_cast<transport::SizePrefixedTransport*>(node))
      left[r] = sp->active_requests() +
                static_cast<ThreadTransport*>(sp->inner())->active_requests();
    else
      left[r] = static_cast<ThreadTransport*>(node)->active_requests();
  });
  const int vg = place(g, victim).first;
  for (size_t i = 0; i < g.size(); ++i)
    for (int sr = 0; sr < static_cast<int>(g[i].size()); ++sr) {
      const bool hit = static_cast<int>(i) == vg;
      EXPECT((first[i]->status(sr) != ZCOLL_SUCCESS) == hit,
             "%s %s: node %zu rank %d: status %d after a failure on node %d", lay.name,
             zcoll_mode_name(mode), i, sr, first[i]->status(sr), vg);
    }
  for (auto& c : second) c->check();
  for (int r = 0; r < N; ++r)
    EXPECT(left[r] == 0, "%s: rank %d has %zu requests left", lay.name, r, left[r]);
}

void test_faults_on_subgroups() {
  for (zcoll_mode m : {ZCOLL_MODE_RAW, ZCOLL_MODE_HOM}) {
    run_fault(layouts()[3], {}, plain, m, 2, 1);  // 3+1: rank 2 is on the 3-rank node
    run_fault(layouts()[2], {}, plain, m, 4, 0);
  }
}

// ---- SizePrefixedTransport -------------------------------------------------

const ThreadFabric::Options kExact{true, true};  // exact sizes, rendezvous sends

std::unique_ptr<Transport> prefixed(std::shared_ptr<ThreadFabric> f, int r) {
  return std::make_unique<transport::SizePrefixedTransport>(
      std::make_unique<ThreadTransport>(std::move(f), r));
}

// wait_any over two channels of the adapter: the one whose message comes
// (rank 0 sends the second channel's first, the first's once rank 1 has it).
void adapter_wait_any(transport::SizePrefixedTransport& tp, int r, std::atomic<int>& done) {
  if (r == 1) {
    uint32_t u = 0, v = 0;
    Req q[2];
    tp.irecv(&u, 4, 0, 5, &q[0]);
    tp.irecv(&v, 4, 0, 6, &q[1]);
    int idx = -1;
    EXPECT(tp.wait_any(q, 2, &idx) == ZCOLL_SUCCESS && idx == 1, "wait_any: %d", idx);
    tp.wait(q[1], nullptr);
    EXPECT(v == 66, "wait_any: value %u", v);
    ++done;
    tp.wait(q[0], nullptr);
    EXPECT(u == 55, "wait_any: second value %u", u);
  } else {
    const uint32_t v = 66, u = 55;
    Req a, b;
    tp.isend(&v, 4, 1, 6, &b);
    while (done == 0) std::this_thread::yield();
    tp.isend(&u, 4, 1, 5, &a);
    tp.wait(a, nullptr);
    tp.wait(b, nullptr);
  }
}

void test_adapter_channels() {
  auto fabric = std::make_shared<ThreadFabric>(2, std::vector<int64_t>{}, kExact);
  std::atomic<int> done{0};
  on_threads(2, [&](int r) {
    ThreadTransport inner(fabric, r);
    transport::SizePrefixedTransport tp(&inner);
    EXPECT(inner.exact_receives() && !tp.exact_receives(), "exact_receives");
    const size_t sizes[4] = {0, 5, 100000, 7};
    std::vector<std::vector<uint8_t>> msg(4);
    for (int i = 0; i < 4; ++i) {
      msg[i].resize(sizes[i]);
      for (size_t j = 0; j < sizes[i]; ++j) msg[i][j] = static_cast<uint8_t>(j * 7 + i);
    }
    if (r == 0) {
      Req s[4];
      for (int i = 0; i < 4; ++i) tp.isend(msg[i].data(), sizes[i], 1, 3, &s[i]);
      for (int i = 0; i < 4; ++i) EXPECT(tp.wait(s[i], nullptr) == ZCOLL_SUCCESS, "send %d", i);
      // too big for its receive, then one that fits on the same channel
      std::vector<uint8_t> big(100, 1), small(10, 2);
      Req a, b;
      tp.isend(big.data(), big.size(), 1, 4, &a);
      tp.isend(small.data(), small.size(), 1, 4, &b);
      tp.wait(a, nullptr);
      tp.wait(b, nullptr);
    } else {
      // four receives on one channel, waited for newest first
      std::vector<std::vector<uint8_t>> in(4, std::vector<uint8_t>(200000));
      Req q[4];
      for (int i = 0; i < 4; ++i) tp.irecv(in[i].data(), in[i].size(), 0, 3, &q[i]);
      for (int i = 3; i >= 0; --i) {
        size_t n = 0;
        EXPECT(tp.wait(q[i], &n) == ZCOLL_SUCCESS && n == sizes[i], "receive %d: %zu bytes", i, n);
        EXPECT(std::memcmp(in[i].data(), msg[i].data(), sizes[i]) == 0, "receive %d: bytes", i);
      }
      std::vector<uint8_t> x(10), y(10);
      Req a, b;
      tp.irecv(x.data(), x.size(), 0, 4, &a);
      tp.irecv(y.data(), y.size(), 0, 4, &b);
      bool ready = false;
      zcoll_status st = ZCOLL_SUCCESS;
      while (!ready && st == ZCOLL_SUCCESS) st = tp.test(b, &ready);
      EXPECT(st == ZCOLL_SUCCESS, "test");
      size_t n = 0;
      EXPECT(tp.wait(a, &n) == ZCOLL_ERR_BUFFER_TOO_SMALL && n == 100, "oversized: %zu", n);
      EXPECT(tp.wait(b, &n) == ZCOLL_SUCCESS && n == 10 && y[9] == 2, "after the oversized");
    }
    adapter_wait_any(tp, r, done);
    // both ranks wait for their (rendezvous) sends before their receives: each
    // must post the payload's receive while it waits
    std::vector<uint8_t> out(300000, static_cast<uint8_t>(r + 1)), in(300000);
    Req s, q;
    tp.isend(out.data(), out.size(), 1 - r, 8, &s);
    tp.irecv(in.data(), in.size(), 1 - r, 8, &q);
    EXPECT(tp.wait(s, nullptr) == ZCOLL_SUCCESS, "send first");
    EXPECT(tp.wait(q, nullptr) == ZCOLL_SUCCESS && in[299999] == 2 - r, "then receive");
    EXPECT(tp.active_requests() == 0 && inner.active_requests() == 0, "requests left: %zu, %zu",
           tp.active_requests(), inner.active_requests());
  });
  EXPECT(fabric->exact_mismatches() == 0, "adapter: %ld exact-size mismatches",
         fabric->exact_mismatches());
}

// A program that is correct over MPI with rendezvous sends, where a rank
// blocked on a send must take a size that arrives meanwhile: B waits for its
// send to C; C receives from B only after A's message; A sends to C only once
// its send to B completed, which needs B to post that payload's receive.
void test_adapter_progress() {
  auto fabric = std::make_shared<ThreadFabric>(3, std::vector<int64_t>{}, kExact);
  on_threads(3, [&](int r) {
    ThreadTransport inner(fabric, r);
    transport::SizePrefixedTransport tp(&inner);
    std::vector<uint8_t> big(50000, 3), in(50000);
    uint32_t one = 1, got = 0;
    Req a, b;
    if (r == 0) {                                                  // A
      std::this_thread::sleep_for(std::chrono::milliseconds(50));  // B is blocked by now
      tp.isend(big.data(), big.size(), 1, 2, &a);
      EXPECT(tp.wait(a, nullptr) == ZCOLL_SUCCESS, "A's send to B");
      tp.isend(&one, 4, 2, 2, &b);
      EXPECT(tp.wait(b, nullptr) == ZCOLL_SUCCESS, "A's send to C");
    } else if (r == 1) {  // B
      tp.irecv(in.data(), in.size(), 0, 2, &a);
      tp.isend(&one, 4, 2, 3, &b);
      EXPECT(tp.wait(b, nullptr) == ZCOLL_SUCCESS, "B's send to C");
      EXPECT(tp.wait(a, nullptr) == ZCOLL_SUCCESS && in[49999] == 3, "B's receive from A");
    } else {  // C
      tp.irecv(&got, 4, 0, 2, &a);
      EXPECT(tp.wait(a, nullptr) == ZCOLL_SUCCESS && got == 1, "C's receive from A");
      tp.irecv(&got, 4, 1, 3, &b);
      EXPECT(tp.wait(b, nullptr) == ZCOLL_SUCCESS && got == 1, "C's receive from B");
    }
  });
}

// Every algorithm x mode through the adapter at 1, 2, 3, 5 ranks, and on its
// sub-groups; the exact-size fabric counts any receive of the wrong size.
void test_algorithms_size_prefixed() {
  size_t n_algos = 0;
  const Algorithm* algs = algorithms(&n_algos);
  int k = 0;
  for (int N : {1, 2, 3, 5}) {
    std::vector<int64_t> labels(N);
    for (int r = 0; r < N; ++r) labels[r] = r % 2;
    const Layout lay{"size-prefixed", labels};
    for (size_t ai = 0; ai < n_algos; ++ai)
      for (zcoll_mode m : {ZCOLL_MODE_RAW, ZCOLL_MODE_CPR_P2P, ZCOLL_MODE_DOC, ZCOLL_MODE_HOM})
        for (size_t count : {size_t{1}, size_t{4099}}) {
          const Kind kind = N == 5 && ++k % 2 ? Kind::kRail : Kind::kSplit;
          if (N < 5)  // the whole group: a split with one color per parity is not it
            run_groups<double>(Layout{"size-prefixed", std::vector<int64_t>(N, 0)}, Kind::kNode,
                               algs[ai], m, count, ZCOLL_OP_SUM, kExact, prefixed);
          else
            run_groups<float>(lay, kind, algs[ai], m, count, ZCOLL_OP_SUM, kExact, prefixed);
        }
  }
  for (zcoll_mode m : {ZCOLL_MODE_CPR_P2P, ZCOLL_MODE_HOM})
    run_fault(layouts()[2], kExact, prefixed, m, 1, 2);
}

// Without the adapter, the exact-size fabric fails the compressed modes: the
// algorithms post capacities, not sizes (so the check above can fail).
void test_exact_without_adapter_fails() {
  size_t n_algos = 0;
  const Algorithm* algs = algorithms(&n_algos);
  for (size_t ai = 0; ai < n_algos; ++ai) {
    const Algorithm& al = algs[ai];
    const int N = 3;
    Setup s{al.coll, al.algo, ZCOLL_MODE_CPR_P2P, ZCOLL_OP_SUM, 3000, 0, false};
    // a node-aware algorithm compresses only between nodes: two of them
    if (al.restrictions & kNodeAware) s.nodes = {0, 1, 0};
    Case<double> c(al, N, s);
    auto fabric = std::make_shared<ThreadFabric>(N, s.nodes, ThreadFabric::Options{true, false});
    on_threads(N, [&](int r) {
      ThreadTransport tp(fabric, r);
      c.run_rank(tp, r, true);
    });
    int failed = 0;
    for (int r = 0; r < N; ++r) failed += c.status(r) != ZCOLL_SUCCESS;
    EXPECT(failed == N && fabric->exact_mismatches() > 0,
           "%s: %d of %d ranks failed, %ld mismatches, over the exact-size fabric without the "
           "adapter",
           al.name, failed, N, fabric->exact_mismatches());
  }
}

// ---- calibration through the transport --------------------------------------

zcoll_model unset() {
  zcoll_model m;
  std::memset(&m, 0, sizeof m);
  m.struct_size = sizeof m;
  const double nan = std::numeric_limits<double>::quiet_NaN();
  for (double* f :
       {&m.latency, &m.sync_latency, &m.bandwidth, &m.compress_bw, &m.decompress_bw, &m.hom_bw,
        &m.reduce_bw, &m.overlap, &m.growth_bits, &m.mpi_scale, &m.mpi_scale_small})
    *f = nan;
  return m;
}

// A transport with the thread transport's point-to-point and helpers but no
// baseline library (the default baseline_allreduce).
class NoBaseline final : public Transport {
 public:
  explicit NoBaseline(Transport* in) : in_(in) {}
  int rank() const override { return in_->rank(); }
  int size() const override { return in_->size(); }
  zcoll_status isend(const void* b, size_t n, int p, int t, Req* q) override {
    return in_->isend(b, n, p, t, q);
  }
  zcoll_status irecv(void* b, size_t n, int p, int t, Req* q) override {
    return in_->irecv(b, n, p, t, q);
  }
  zcoll_status wait(Req q, size_t* n) override { return in_->wait(q, n); }
  zcoll_status test(Req q, bool* d) override { return in_->test(q, d); }
  void progress() override {}
  zcoll_status allreduce_max(double* v, int n) override { return in_->allreduce_max(v, n); }
  zcoll_status allgather_u64(const uint64_t* m, int k, uint64_t* a) override {
    return in_->allgather_u64(m, k, a);
  }

 private:
  Transport* in_;
};

void test_probe() {
  const int N = 3;
  for (bool baseline : {true, false}) {
    auto fabric = std::make_shared<ThreadFabric>(N);
    std::vector<zcoll_model> got(N);
    std::vector<zcoll_status> st(N);
    zcoll_model fixed = unset();
    fixed.overlap = 0.25;  // a fixed field stays
    on_threads(N, [&](int r) {
      ThreadTransport tp(fabric, r);
      NoBaseline nb(&tp);
      Transport& t = baseline ? static_cast<Transport&>(tp) : nb;
      st[r] = probe_model(t, 1, 1024, fixed, &got[r]);
    });
    const zcoll_model& m = got[0];
    EXPECT(st[0] == ZCOLL_SUCCESS && st[1] == ZCOLL_SUCCESS && st[2] == ZCOLL_SUCCESS,
           "probe: status %d %d %d", st[0], st[1], st[2]);
    for (double v : {m.latency, m.sync_latency, m.bandwidth, m.compress_bw, m.decompress_bw,
                     m.hom_bw, m.reduce_bw})
      EXPECT(v > 0 && std::isfinite(v), "probe: a parameter is %g", v);
    EXPECT(m.overlap == 0.25 && m.source == ZCOLL_MODEL_SOURCE_PROBE && m.threads == 1,
           "probe: fixed field, source, threads");
    if (baseline)
      EXPECT(m.mpi_scale >= 0.5 && m.mpi_scale <= 2 && m.mpi_scale_small >= 0.5 &&
                 m.mpi_scale_small <= 2,
             "probe: baseline scales %g %g", m.mpi_scale, m.mpi_scale_small);
    else
      EXPECT(m.mpi_scale == 1 && m.mpi_scale_small == 1, "probe without a baseline: %g %g",
             m.mpi_scale, m.mpi_scale_small);
    for (int r = 1; r < N; ++r)  // the slowest rank's values everywhere
      EXPECT(got[r].latency == m.latency && got[r].bandwidth == m.bandwidth &&
                 got[r].compress_bw == m.compress_bw && got[r].mpi_scale == m.mpi_scale,
             "probe: rank %d's model differs", r);
  }
  // the one-node rule: from the transport's locality; ZCOLL_AUTO_LOCAL agreed
  struct C {
    std::vector<int64_t> labels;
    std::vector<bool> local_model;
    zcoll_status want;
    int single;
  };
  for (const C& c : {C{{0, 0, 0}, {false, false, false}, ZCOLL_SUCCESS, 1},
                     C{{0, 1, 0}, {false, false, false}, ZCOLL_SUCCESS, 0},
                     C{{0, 0, 0}, {true, true, true}, ZCOLL_SUCCESS, 0},
                     C{{0, 0, 0}, {true, false, false}, ZCOLL_ERR_MISMATCH, -1}}) {
    const int n = static_cast<int>(c.labels.size());
    auto fabric = std::make_shared<ThreadFabric>(n, c.labels);
    on_threads(n, [&](int r) {
      ThreadTransport tp(fabric, r);
      int single = -1;
      const zcoll_status s = agree_locality(tp, c.local_model[r], &single);
      EXPECT(s == c.want && (s != ZCOLL_SUCCESS || single == c.single),
             "agree_locality: rank %d: status %d single %d", r, s, single);
    });
  }
}

}  // namespace

int main() {
  const auto t0 = std::chrono::steady_clock::now();
  auto lap = [&](const char* what) {
    std::printf("  %-32s %.1f s\n", what,
                std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  };
  test_locality();
  test_split();
  lap("locality, split");
  test_algorithms_on_subgroups();
  lap("algorithms on sub-groups");
  test_faults_on_subgroups();
  lap("faults on sub-groups");
  test_adapter_channels();
  test_adapter_progress();
  test_algorithms_size_prefixed();
  test_exact_without_adapter_fails();
  lap("size-prefixed");
  test_probe();
  lap("probe");
  return zcoll_testing::finish(
      "zcoll transport tests", zcoll_testing::g_checks, zcoll_testing::g_failures,
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
}
