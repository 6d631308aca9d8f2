// transport_mpi_test.cc — the transport seams over MPI (docs/transport.md),
// under mpiexec, one rank per process:
//   * the locality MpiTransport::create finds — MPI_Comm_split_type on this
//     machine (one node), or the nodes ZCOLL_NODE_MAP emulates — against the
//     layout given as argv[1] (Locality::describe(), e.g. "2 nodes (2+1, not by
//     node)"); a malformed or short ZCOLL_NODE_MAP fails zcoll_comm_create on
//     every rank, one set on some ranks only fails the first use of the
//     locality on every rank; AUTO's one-node rule follows the layout;
//   * node, rail and split transports (MPI_Comm_split): their members against
//     the locality, and every algorithm in every mode on them, all groups at
//     once, as the library runs it (run_algorithm), each rank's result against
//     a double reference, Allreduce's the same bytes on every rank of a group;
//   * a failed send inside one node's transport: that node's ranks fail, the
//     others do not, and the next call there is right;
//   * every algorithm x mode through SizePrefixedTransport over MPI, with
//     messages past MPI's eager limit;
//   * the calibration probe through the transport: one model on every rank,
//     MPI_Allreduce's scale in range.
// Exit status != 0 on failure.
#include <mpi.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "coll/control/algorithms.h"
#include "coll/control/calibrate.h"
#include "coll/control/comm.h"
#include "failing_transport.h"
#include "harness.h"
#include "inproc_case.h"
#include "transport/mpi_transport.h"
#include "transport/size_prefixed_transport.h"

using namespace zcoll;
using namespace zcoll::coll;
using transport::Locality;
using transport::MpiTransport;
using transport::Transport;
using zcoll_testing::Case;
using zcoll_testing::Setup;

namespace {

int g_size = 1;

std::unique_ptr<MpiTransport> world_transport() {
  MPI_Comm dup = MPI_COMM_NULL;
  MPI_Comm_dup(MPI_COMM_WORLD, &dup);
  MPI_Comm_set_errhandler(dup, MPI_ERRORS_RETURN);
  auto tp = std::make_unique<MpiTransport>(dup);
  // more processes than cores here: test-and-sleep waits (ZCOLL_WAIT_SLEEP),
  // which the sub-group transports inherit
  if (g_size > 2) tp->set_wait_sleep(20e-6);
  return tp;
}

const Locality& loc(Transport& t) {
  const Locality* l = nullptr;
  const zcoll_status st = t.locality(&l);
  EXPECT(st == ZCOLL_SUCCESS && l, "locality(): %s", zcoll_last_error());
  static const Locality none;
  return l ? *l : none;
}

// With ZCOLL_NODE_MAP = map on the ranks where `on` holds (unset elsewhere):
// zcoll_comm_create's status, else that of AUTO's one-node rule (the first
// use of the handle's locality). The variable is restored afterwards.
zcoll_status create_with_map(const char* map, bool on) {
  const char* old = std::getenv("ZCOLL_NODE_MAP");
  const std::string saved = old ? old : "";
  if (on)
    setenv("ZCOLL_NODE_MAP", map, 1);
  else
    unsetenv("ZCOLL_NODE_MAP");
  zcoll_comm* zc = nullptr;
  zcoll_status st = zcoll_comm_create(MPI_COMM_WORLD, nullptr, &zc);
  if (zc) {
    st = ensure_locality(zc);
    zcoll_comm_free(zc);
  }
  if (old)
    setenv("ZCOLL_NODE_MAP", saved.c_str(), 1);
  else
    unsetenv("ZCOLL_NODE_MAP");
  return st;
}

void test_locality(Transport& tp, const char* expected) {
  const Locality& l = loc(tp);  // (collective: the first call)
  EXPECT(l.describe() == expected, "locality: %s, expected %s", l.describe().c_str(), expected);
  EXPECT(l.rank == tp.rank() && l.size == tp.size(), "locality: rank and size");
  // a malformed map, a map without this world's last rank, a map on one rank only
  const int world = g_size;
  EXPECT(create_with_map("0,x", true) == ZCOLL_ERR_INVALID_ARG, "ZCOLL_NODE_MAP=0,x accepted");
  if (world > 1) {
    std::string short_map = "0";
    for (int r = 1; r < world - 1; ++r) short_map += ",0";
    EXPECT(create_with_map(short_map.c_str(), true) == ZCOLL_ERR_INVALID_ARG,
           "ZCOLL_NODE_MAP=%s accepted at %d ranks", short_map.c_str(), world);
    EXPECT(create_with_map("0,0,0,0,0,0,0,0", tp.rank() == 0) == ZCOLL_ERR_MISMATCH,
           "ZCOLL_NODE_MAP on one rank only accepted");
  }
  // AUTO's one-node rule on a handle: the same layout
  zcoll_comm* zc = nullptr;
  EXPECT(zcoll_comm_create(MPI_COMM_WORLD, nullptr, &zc) == ZCOLL_SUCCESS, "create");
  if (!zc) return;
  EXPECT(ensure_locality(zc) == ZCOLL_SUCCESS && zc->single_node == (l.nodes == 1 ? 1 : 0),
         "ensure_locality: single_node %d with %d nodes", zc->single_node, l.nodes);
  EXPECT(loc(*zc->tp).describe() == expected, "the handle's locality: %s",
         loc(*zc->tp).describe().c_str());
  zcoll_comm_free(zc);
}

enum class Kind { kNode, kRail, kSplit };
const char* kind_name(Kind k) {
  return k == Kind::kNode ? "node" : k == Kind::kRail ? "rail" : "split";
}

// This rank's group for a kind: (its index, its parent ranks in order).
std::pair<int, std::vector<int>> expected_group(Kind k, const Locality& l) {
  if (k == Kind::kNode) return {l.node, l.ranks_on_node(l.node)};
  if (k == Kind::kRail) return {l.local_rank, l.rail_ranks(l.local_rank)};
  std::vector<int> g;  // color rank % 2, key -rank: the reverse order
  for (int r = l.size - 1; r >= 0; --r)
    if (r % 2 == l.rank % 2) g.push_back(r);
  return {l.rank % 2, g};
}

Transport* sub_of(Transport& tp, Kind k, std::unique_ptr<Transport>* own) {
  Transport* sub = nullptr;
  zcoll_status st = ZCOLL_SUCCESS;
  if (k == Kind::kNode) st = tp.node_transport(&sub);
  if (k == Kind::kRail) st = tp.rail_transport(&sub);
  if (k == Kind::kSplit) {
    st = tp.split(tp.rank() % 2, -tp.rank(), own);
    sub = own->get();
  }
  EXPECT(st == ZCOLL_SUCCESS && sub, "%s transport: %s", kind_name(k), zcoll_last_error());
  return sub;
}

// Run one case on this rank's group and check this rank's part; Allreduce:
// the same bytes on every rank of the group.
template <typename T>
void run_case(Transport& sub, const Algorithm& al, Setup s) {
  Case<T> c(al, sub.size(), s);
  c.run_rank(sub, sub.rank(), true);
  const long bad = c.check_rank(sub.rank());
  EXPECT(bad == 0, "%s: rank %d of %d: %ld values outside the bound", c.what(), sub.rank(),
         sub.size(), bad);
  if (al.coll == ZCOLL_COLL_ALLREDUCE) {
    uint64_t h = 1469598103934665603ull;  // FNV-1a of the result's bytes
    const auto* p = reinterpret_cast<const uint8_t*>(c.output(sub.rank()).data());
    for (size_t i = 0; i < c.n_out() * sizeof(T); ++i) h = (h ^ p[i]) * 1099511628211ull;
    std::vector<uint64_t> all(sub.size());
    sub.allgather_u64(&h, 1, all.data());
    for (int r = 0; r < sub.size(); ++r)
      EXPECT(all[r] == h, "%s: rank %d's result differs from rank %d's", c.what(), r, sub.rank());
  }
}

void test_subgroups(Transport& tp) {
  const Locality& l = loc(tp);
  std::unique_ptr<Transport> own;
  size_t n_algos = 0;
  const Algorithm* algs = algorithms(&n_algos);
  int k = 0;
  for (Kind kind : {Kind::kNode, Kind::kRail, Kind::kSplit}) {
    Transport* sub = sub_of(tp, kind, &own);
    if (!sub) continue;
    const auto [gi, members] = expected_group(kind, l);
    uint64_t mine = static_cast<uint64_t>(tp.rank());
    std::vector<uint64_t> all(sub->size());
    sub->allgather_u64(&mine, 1, all.data());
    EXPECT(std::vector<int>(all.begin(), all.end()) == members,
           "%s transport: members differ from the locality's", kind_name(kind));
    for (size_t ai = 0; ai < n_algos; ++ai)
      for (zcoll_mode m : {ZCOLL_MODE_RAW, ZCOLL_MODE_CPR_P2P, ZCOLL_MODE_DOC, ZCOLL_MODE_HOM}) {
        const int n = sub->size();
        Setup s{algs[ai].coll, algs[ai].algo, m, ZCOLL_OP_SUM, ++k % 2 ? size_t{2500} : 3,
                (n - 1) / 2,   false};
        s.data = 10 * gi;
        if (k % 3)
          run_case<float>(*sub, algs[ai], s);
        else
          run_case<double>(*sub, algs[ai], s);
      }
  }
}

void test_fault(Transport& tp) {
  if (g_size < 2) return;
  Transport* node = nullptr;
  tp.node_transport(&node);
  const Algorithm* al = find_algorithm(ZCOLL_COLL_ALLREDUCE, ZCOLL_ALGO_RING);
  const int victim = 1;
  const Locality& l = loc(tp);
  for (zcoll_mode m : {ZCOLL_MODE_RAW, ZCOLL_MODE_HOM}) {
    Setup s{al->coll, al->algo, m, ZCOLL_OP_SUM, 5000, 0, false};
    Case<float> first(*al, node->size(), s);
    zcoll_testing::FailingTransport faulty(node, tp.rank() == victim ? 1 : -1);
    first.run_rank(faulty, node->rank(), true);
    const bool hit = l.node == l.node_of_rank[victim] && node->size() > 1;
    EXPECT((first.status(node->rank()) != ZCOLL_SUCCESS) == hit,
           "%s: status %d after a failure on rank %d's node", zcoll_mode_name(m),
           first.status(node->rank()), victim);
    s.tag = 5;
    run_case<float>(*node, *al, s);
  }
}

void test_size_prefixed(Transport& tp) {
  transport::SizePrefixedTransport sp(&tp);
  size_t n_algos = 0;
  const Algorithm* algs = algorithms(&n_algos);
  for (size_t ai = 0; ai < n_algos; ++ai) {
    for (zcoll_mode m : {ZCOLL_MODE_RAW, ZCOLL_MODE_CPR_P2P, ZCOLL_MODE_DOC, ZCOLL_MODE_HOM})
      for (size_t count : {size_t{1}, size_t{3000}}) {
        Setup s{algs[ai].coll, algs[ai].algo, m, ZCOLL_OP_SUM, count, g_size - 1, false};
        run_case<double>(sp, algs[ai], s);
      }
    // unsegmented messages of 64 KB and more: past MPI's eager limit
    Setup s{algs[ai].coll, algs[ai].algo, ZCOLL_MODE_RAW, ZCOLL_OP_SUM, 40000, 0, false};
    s.pipeline = size_t{1} << 20;
    run_case<double>(sp, algs[ai], s);
  }
  EXPECT(sp.active_requests() == 0, "size-prefixed: %zu requests left", sp.active_requests());
}

void test_probe(Transport& tp) {
  zcoll_model fixed;
  std::memset(&fixed, 0, sizeof fixed);
  fixed.struct_size = sizeof fixed;
  const double nan = std::numeric_limits<double>::quiet_NaN();
  for (double* f : {&fixed.latency, &fixed.sync_latency, &fixed.bandwidth, &fixed.compress_bw,
                    &fixed.decompress_bw, &fixed.hom_bw, &fixed.reduce_bw, &fixed.overlap,
                    &fixed.growth_bits, &fixed.mpi_scale, &fixed.mpi_scale_small})
    *f = nan;
  zcoll_model m;
  EXPECT(probe_model(tp, 1, 1024, fixed, &m) == ZCOLL_SUCCESS, "probe: %s", zcoll_last_error());
  const double v[] = {m.latency,   m.bandwidth,    m.compress_bw, m.decompress_bw,  m.hom_bw,
                      m.reduce_bw, m.sync_latency, m.mpi_scale,   m.mpi_scale_small};
  const int n = sizeof v / sizeof v[0];
  std::vector<uint64_t> mine(n), all(static_cast<size_t>(n) * tp.size());
  std::memcpy(mine.data(), v, sizeof v);
  tp.allgather_u64(mine.data(), n, all.data());
  for (int r = 0; r < tp.size(); ++r)
    EXPECT(std::memcmp(all.data() + static_cast<size_t>(r) * n, mine.data(), sizeof v) == 0,
           "probe: rank %d's model differs", r);
  for (int i = tp.size() > 1 ? 0 : 1; i < 6; ++i)  // (one rank: no latency)
    EXPECT(v[i] > 0 && std::isfinite(v[i]), "probe: field %d = %g", i, v[i]);
  if (tp.size() > 1)
    EXPECT(m.mpi_scale >= 0.5 && m.mpi_scale <= 2 && m.mpi_scale_small >= 0.5 &&
               m.mpi_scale_small <= 2,
           "probe: MPI scales %g %g", m.mpi_scale, m.mpi_scale_small);
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &zcoll_testing::g_rank);
  MPI_Comm_size(MPI_COMM_WORLD, &g_size);
  const auto t0 = std::chrono::steady_clock::now();
  if (argc != 2) {
    std::fprintf(stderr, "usage: transport_mpi_test \"<expected layout>\"\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  {
    std::unique_ptr<MpiTransport> tp = world_transport();
    auto lap = [&](const char* what) {
      if (zcoll_testing::g_rank == 0)
        std::printf("  %-24s %.1f s\n", what,
                    std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
    };
    if (tp) {
      test_locality(*tp, argv[1]);
      lap("locality");
      test_subgroups(*tp);
      lap("sub-groups");
      test_fault(*tp);
      lap("fault");
      test_size_prefixed(*tp);
      lap("size-prefixed");
      if (g_size <= 3) test_probe(*tp);  // (5 processes on a small machine: slow)
      lap("probe");
      EXPECT(tp->release() == ZCOLL_SUCCESS, "release");
    }
  }
  long counts[2] = {zcoll_testing::g_checks, zcoll_testing::g_failures}, sums[2];
  MPI_Allreduce(counts, sums, 2, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  int rc = 0;
  if (zcoll_testing::g_rank == 0) {
    const std::string what = std::string("zcoll transport MPI tests, ") + argv[1];
    rc = zcoll_testing::finish(what.c_str(), sums[0], sums[1], s);
  }
  MPI_Bcast(&rc, 1, MPI_INT, 0, MPI_COMM_WORLD);
  MPI_Finalize();
  return rc;
}
