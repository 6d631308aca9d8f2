// zcoll-soak — a randomized soak of every compressed collective (docs/reliability.md).
//
// Each iteration is one case drawn from its own seed (base seed + iteration),
// identically on every rank: communicator (world, a random MPI_Comm_split, a
// dup), handle (fresh with a drawn configuration, or one of several long-lived
// ones), collective and variant, mode, algorithm, datatype, op, count, error
// bound, bound semantics, threads, chunk and pipeline sizes, and the data.
// Every rank regenerates every rank's input from the seed, computes the exact
// result in double and checks its own output against the documented bound, the
// report for consistency, its input buffers and the guard bytes after its output
// for changes. A watchdog aborts the run with the case and its replay command if
// a call does not return in time. Exit status: 0 when every case passed.
// The driver is generic over the collective: buffer shapes, MPI_IN_PLACE
// placement, where each output value comes from and the call itself come from
// the library's collective traits table (tools/common/coll_driver.h).
//
// --seeds-file FILE runs a fixed list of cases instead (the regression seeds:
// tools/zcoll_soak/regression_seeds.txt), those recorded for this world size;
// --subgroups draws, for half of the world cases, a group of the first k world
// ranks (k = 1..world size), so that one run at 8 ranks covers groups of 1-8.
// --nonblocking (MPI_THREAD_MULTIPLE: the handles' progress threads) runs three
// cases in four through the nonblocking call (zcoll_iallreduce & co.): waited
// at once, or with a blocking call on the same handle before the wait, or with
// a second request started behind it and waited first.
#include <mpi.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cinttypes>
#include <cmath>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "../common/coll_driver.h"
#include "zcoll.h"
#include "zcoll_mpi.h"

#ifndef ZCOLL_SOAK_DATA_DIR
#define ZCOLL_SOAK_DATA_DIR "data"
#endif

namespace {

using zcoll::coll::CollectiveTraits;
using zcoll::coll::InPlace;
using zcoll::tools::Bufs;
using zcoll::tools::call_of;
using zcoll::tools::driver_coll;
using zcoll::tools::DriverColl;
using zcoll::tools::has_input;
using zcoll::tools::has_output;
using zcoll::tools::source_of;

// ---- random numbers ------------------------------------------------------------
struct Rng {
  uint64_t s;
  explicit Rng(uint64_t seed) : s(seed * 0x9E3779B97F4A7C15ull + 0x632BE59BD9B4E019ull) {}
  uint64_t next() {
    uint64_t z = (s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  uint64_t below(uint64_t n) { return n ? next() % n : 0; }
  int pick(int n) { return static_cast<int>(below(static_cast<uint64_t>(n))); }
  double uniform() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }
  bool chance(double p) { return uniform() < p; }
  template <typename T, size_t K>
  T of(const T (&a)[K]) {
    return a[below(K)];
  }
};

uint64_t mix(uint64_t a, uint64_t b) {
  Rng r(a ^ (b * 0xD1B54A32D192ED03ull));
  return r.next();
}

// ---- options and global state ------------------------------------------------------
struct Options {
  uint64_t seed = 1;
  long iterations = -1;
  double seconds = -1;
  double timeout = 60;
  double max_mib = 24;        // largest buffer of a "large" case
  size_t max_count = 300000;  // largest count of the other cases
  bool keep_going = true;
  bool verbose = false;
  bool subgroups = false;    // half of the world cases on the first k ranks
  bool nonblocking = false;  // three cases in four through the nonblocking call
  std::string seeds_file;    // run these recorded cases instead of drawing
  std::string data_dir = ZCOLL_SOAK_DATA_DIR;
};
Options g_opt;
int g_wrank = 0, g_wsize = 1;
std::string g_argv0;
std::vector<std::vector<float>> g_fields;  // the real fields of data/

// Watchdog: the main thread arms it around every collective call.
std::atomic<double> g_deadline{0};
std::atomic<bool> g_stop{false};
char g_case_text[1024];
std::atomic<uint64_t> g_case_seed{0};

double now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

void replay_line(uint64_t seed, char* out, size_t cap) {
  std::snprintf(out, cap,
                "mpiexec -n %d %s --seed %" PRIu64
                " --iterations 1 --max-mib %g --max-count %zu%s%s",
                g_wsize, g_argv0.c_str(), seed, g_opt.max_mib, g_opt.max_count,
                g_opt.subgroups ? " --subgroups" : "", g_opt.nonblocking ? " --nonblocking" : "");
}

void watchdog() {
  while (!g_stop.load()) {
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    const double d = g_deadline.load();
    if (d > 0 && now() > d) {
      char rp[512];
      replay_line(g_case_seed.load(), rp, sizeof rp);
      std::fprintf(stderr,
                   "zcoll-soak: HANG on world rank %d: no return within %.0f s\n  case: %s\n  "
                   "replay: %s\n",
                   g_wrank, g_opt.timeout, g_case_text, rp);
      std::fflush(stderr);
      std::_Exit(3);
    }
  }
}

// ---- the case ------------------------------------------------------------------------
enum Dt { kF32, kF64, kInt, kDerived, kDoubleInt };
enum Op { kSum, kMax, kMin, kProd, kMaxloc, kUser };
enum Data { kField, kNoise, kSmooth, kConstant, kDenormal, kZeros, kNearLimit, kWide, kDataKinds };
enum Variant { kPlain, kInPlace, kCountsVariant };
enum Mismatch {
  kNoMismatch,
  kMmEb,
  kMmRoot,
  kMmOp,
  kMmCount,
  kMmDtype,
  kMmMode,
  kMmChunk,
  kMmAlgo
};

const char* const kDtNames[] = {"f32", "f64", "int", "derived3f", "double_int"};
const char* const kOpNames[] = {"sum", "max", "min", "prod", "maxloc", "user_sum"};
const char* const kDataNames[] = {"field",    "noise", "smooth",     "constant",
                                  "denormal", "zeros", "near_limit", "wide"};
const char* const kMmNames[] = {"none",  "eb",   "root",  "op",  "count",
                                "dtype", "mode", "chunk", "algo"};

struct Case {
  uint64_t seed = 0;
  int comm_kind = 0;  // 0 world, 1 split, 2 dup, 3 the first `prefix` world ranks
  int prefix = 0;     // comm_kind 3 (--subgroups)
  int colors = 1;
  int pool = -1;  // -1: a fresh handle; else the long-lived handle index
  zcoll_comm_config cfg;
  bool auto_local_model = true;
  int net = -1;  // a fixed cost model for AUTO (index into kNets), -1: the handle probes
  zcoll_mode mode = ZCOLL_MODE_DEFAULT;  // per-call setting (DEFAULT: the configured mode)
  zcoll_algorithm algo = ZCOLL_ALGO_AUTO;
  bool set_eb = false;
  zcoll_eb_mode eb_mode = ZCOLL_EB_REL;
  double eb = 1e-4;
  bool average = false;
  zcoll_collective coll = ZCOLL_COLL_ALLREDUCE;
  int variant = kPlain;
  bool null_recv = false;  // non-root recvbuf of reduce/gather passed as NULL
  int root = 0;
  Dt dt = kF32;
  Op op = kSum;
  size_t count = 0;
  std::vector<size_t> recvcounts;
  int data = kNoise;
  double scale = 1, shift = 0;
  double special_p = 0;   // chance of NaN/Inf per value...
  int special_ranks = 0;  // ...on rank 0 only (1) or on every rank (2)
  int mismatch = kNoMismatch;
  int mismatch_rank = 0;
  // --nonblocking: 0 the blocking call; 1 started and waited; 2 a blocking call
  // on the handle before the wait; 3 a second request started behind it, waited first
  int nb = 0;
  // group
  int N = 1, rank = 0;
};

const CollectiveTraits& traits_of(zcoll_collective c) { return zcoll::coll::traits(c); }
bool compressible(const Case& k) {
  return (k.dt == kF32 || k.dt == kF64) && (!traits_of(k.coll).reduction || k.op <= kProd);
}

const size_t kPrimes[] = {2,    3,    5,    7,    13,    31,    97,    127,    251,    509,
                          1021, 2039, 4093, 8191, 16381, 32749, 65521, 131071, 262139, 524287};

zcoll_comm_config draw_config(Rng& g) {
  zcoll_comm_config c;
  zcoll_comm_config_init(&c);
  const zcoll_mode modes[] = {ZCOLL_MODE_MPI, ZCOLL_MODE_RAW, ZCOLL_MODE_CPR_P2P,
                              ZCOLL_MODE_DOC, ZCOLL_MODE_HOM, ZCOLL_MODE_AUTO};
  c.mode = g.of(modes);
  c.eb_mode = g.chance(0.5) ? ZCOLL_EB_REL : ZCOLL_EB_ABS;
  c.error_bound = c.eb_mode == ZCOLL_EB_REL ? 1e-3 : 1e-2;
  c.bound = g.chance(0.5) ? ZCOLL_BOUND_PER_COMPRESSION : ZCOLL_BOUND_RESULT;
  c.threads = g.chance(0.7) ? 1 : 2;
  const size_t mins[] = {0, 0, 0, 0, 1024, 65536};
  c.min_bytes = g.of(mins);
  const uint32_t chunks[] = {0, 1024, 1056, 2048, 4096, 16384, 32768};
  c.chunk_size = g.of(chunks);
  const size_t pipes[] = {0, 0, 1, 32, 100, 1000, 4096, 65536, 1u << 20};
  c.pipeline_values = g.of(pipes);
  return c;
}

// AUTO, or one of the collective's algorithms (the library's table, in its
// order: a collective with one algorithm draws nothing more).
zcoll_algorithm draw_algorithm(Rng& g, zcoll_collective coll) {
  if (g.chance(0.4)) return ZCOLL_ALGO_AUTO;
  zcoll_algorithm list[16];
  const int n = std::min(16, zcoll_algorithms_of(coll, list, 16));
  if (n <= 1) return n == 1 ? list[0] : ZCOLL_ALGO_AUTO;
  return list[std::min(n - 1, static_cast<int>(g.uniform() * n))];
}

size_t draw_count(Rng& g, int N, size_t vbytes) {
  const size_t small[] = {0, 1, 2, 31, 32, 33, 63, 64, 65, 1023, 1024, 1025};
  const int r = g.pick(20);
  if (r < 5) return g.of(small);
  if (r < 10) return g.of(kPrimes);
  if (r < 13) return static_cast<size_t>(N) * (1 + g.below(5000)) + 1 + g.below(N > 1 ? N - 1 : 1);
  if (r < 19) return 1 + g.below(std::min<size_t>(r < 16 ? 5000 : 300000, g_opt.max_count));
  // large: up to max_mib in the largest buffer of the call (N * count for the
  // gathering collectives, divided below)
  const double cap = g_opt.max_mib * 1048576.0 / static_cast<double>(vbytes);
  return static_cast<size_t>(cap * (0.3 + 0.7 * g.uniform()));
}

// The group (world, a split, a dup; --subgroups: the first k ranks), the
// handle and --nonblocking's form; the last two from their own streams, so
// that the other draws stay as they are.
void draw_group(Case& k, Rng& g) {
  const int ck = g.pick(10);
  k.comm_kind = ck < 6 ? 0 : ck < 9 ? 1 : 2;
  k.colors = 1 + g.pick(3);
  k.pool = g.chance(0.5) ? g.pick(3) : -1;
  if (k.comm_kind != 0) k.pool = -1;  // the long-lived handles are on world
  if (g_opt.subgroups && k.comm_kind == 0) {
    Rng gs(mix(k.seed, 7000));
    if (gs.chance(0.5)) {
      k.comm_kind = 3;
      k.prefix = 1 + gs.pick(g_wsize);
      k.pool = -1;
    }
  }
  if (g_opt.nonblocking) {
    Rng gn(mix(k.seed, 8000));
    k.nb = gn.pick(4);
  }
}

// The collective, its algorithm and variant (MPI_IN_PLACE, the counts form).
void draw_collective(Case& k, Rng& g) {
  const zcoll_collective colls[] = {
      ZCOLL_COLL_ALLREDUCE, ZCOLL_COLL_REDUCE_SCATTER, ZCOLL_COLL_ALLGATHER, ZCOLL_COLL_BCAST,
      ZCOLL_COLL_SCATTER,   ZCOLL_COLL_REDUCE,         ZCOLL_COLL_GATHER,    ZCOLL_COLL_ALLREDUCE};
  k.coll = g.of(colls);
  k.algo = draw_algorithm(g, k.coll);
  k.variant = g.chance(0.3) ? kInPlace : kPlain;
  if (driver_coll(k.coll).counts_form && g.chance(0.5)) k.variant |= kCountsVariant;
  if (traits_of(k.coll).in_place == InPlace::kNone) k.variant = kPlain;  // one buffer
  k.null_recv = g.chance(0.5);
}

// The call's error bound (or the configuration's) and the average setting.
void draw_bound(Case& k, Rng& g) {
  k.set_eb = k.pool >= 0 || g.chance(0.6);
  k.eb_mode = g.chance(0.5) ? ZCOLL_EB_REL : ZCOLL_EB_ABS;
  if (k.eb_mode == ZCOLL_EB_REL) {
    const double v[] = {1e-1, 1e-2, 1e-3, 1e-4, 1e-5, 1e-6, 1e-9, 1e-12, 0.5, 10};
    k.eb = g.of(v);
  } else {
    const double v[] = {1e-3, 1e-2, 1e-1, 1, 1e-6, 1e-9, 1e-30, 1e3, 1e9, 0.25};
    k.eb = g.of(v);
  }
  k.average = g.chance(0.15);
}

// The datatype and, for a reduction, the op (which may change the datatype).
void draw_type(Case& k, Rng& g) {
  const int d = g.pick(20);
  k.dt = d < 9 ? kF32 : d < 16 ? kF64 : d < 18 ? kInt : kDerived;
  if (!traits_of(k.coll).reduction) return;
  const int o = g.pick(20);
  k.op = o < 9 ? kSum : o < 12 ? kMax : o < 15 ? kMin : o < 17 ? kProd : o < 18 ? kMaxloc : kUser;
  if (k.op == kMaxloc) k.dt = kDoubleInt;
  if (k.dt == kDerived) k.dt = kInt;
  if (k.op == kUser && k.dt != kF64) k.dt = kF32;
}

// Draws everything but the group-dependent parts (done in finish_case).
Case draw_case(uint64_t seed) {
  Case k;
  k.seed = seed;
  Rng g(seed);
  draw_group(k, g);
  k.cfg = draw_config(g);
  k.auto_local_model = g.chance(0.8);
  k.net = g.chance(0.9) ? g.pick(3) : -1;
  const zcoll_mode modes[] = {ZCOLL_MODE_DEFAULT, ZCOLL_MODE_MPI, ZCOLL_MODE_RAW,
                              ZCOLL_MODE_CPR_P2P, ZCOLL_MODE_DOC, ZCOLL_MODE_HOM,
                              ZCOLL_MODE_AUTO,    ZCOLL_MODE_DOC, ZCOLL_MODE_HOM};
  k.mode = g.of(modes);
  draw_collective(k, g);
  draw_bound(k, g);
  draw_type(k, g);
  k.data = g.pick(kDataKinds);
  k.scale = std::pow(10.0, g.pick(13) - 6);
  k.shift = g.chance(0.3) ? k.scale * (g.uniform() * 200 - 100) : 0;
  if (g.chance(0.15)) {
    k.special_p = g.chance(0.5) ? 1e-4 : 0.02;
    k.special_ranks = g.chance(0.5) ? 1 : 2;
  }
  if (g.chance(0.05)) k.mismatch = 1 + g.pick(8);
  k.mismatch_rank = static_cast<int>(g.below(1u << 20));
  return k;
}

size_t vbytes_of(Dt dt) {
  switch (dt) {
    case kF32: return 4;
    case kF64: return 8;
    case kInt: return 4;
    case kDerived: return 12;
    case kDoubleInt: return 16;
  }
  return 4;
}

// Whether the mismatch k drew can show: only where the library compares
// settings (a compressed mode, more than one rank, values to move).
bool mismatch_shows(const Case& k, int N) {
  const bool cmp_mode = k.mode == ZCOLL_MODE_RAW || k.mode == ZCOLL_MODE_CPR_P2P ||
                        k.mode == ZCOLL_MODE_DOC || k.mode == ZCOLL_MODE_HOM;
  size_t total = k.count;
  for (size_t rc : k.recvcounts) total += rc;
  const bool ok = N > 1 && cmp_mode && compressible(k) && total > 0 && k.cfg.min_bytes == 0 &&
                  k.pool < 0;
  const bool cmp = k.mode != ZCOLL_MODE_RAW;
  const CollectiveTraits& t = traits_of(k.coll);
  switch (k.mismatch) {
    case kMmEb: return ok && cmp;
    case kMmRoot: return ok && t.rooted;
    case kMmOp: return ok && t.reduction && k.op <= kProd && k.mode != ZCOLL_MODE_HOM;
    case kMmCount: return ok && !driver_coll(k.coll).counts_form;
    case kMmDtype: return ok;
    case kMmMode: return ok && k.mode != ZCOLL_MODE_HOM;
    case kMmChunk: return ok && cmp;
    case kMmAlgo: return ok && zcoll_algorithms_of(k.coll, nullptr, 0) >= 2;
  }
  return ok;
}

// The parts that depend on the group size; and the mismatch, which only makes
// sense where the library compares settings.
void finish_case(Case& k, int N, int rank) {
  k.N = N;
  k.rank = rank;
  Rng g(mix(k.seed, 1000 + N));
  const size_t vb = vbytes_of(k.dt);
  size_t c = draw_count(g, N, vb);
  const double cap = g_opt.max_mib * 1048576.0 / static_cast<double>(vb);
  // the collectives with a buffer of every rank's blocks
  if (traits_of(k.coll).per_rank_count && c > cap / N) c = static_cast<size_t>(cap / N);
  if (k.dt == kDoubleInt || k.dt == kInt || k.dt == kDerived) c = std::min<size_t>(c, 200000);
  if (driver_coll(k.coll).counts_form) {
    if (k.variant & kCountsVariant) {
      k.recvcounts.assign(N, 0);
      size_t each = c / std::max(1, N);
      for (int i = 0; i < N; ++i)
        k.recvcounts[i] = g.chance(0.15) ? 0 : static_cast<size_t>(g.below(2 * each + 2));
      c = 0;
    } else {
      c = c / std::max(1, N) + g.below(3);
    }
  }
  k.count = c;
  k.root = g.pick(N);
  if (k.mismatch) {
    if (!mismatch_shows(k, N)) k.mismatch = kNoMismatch;
    if (k.mismatch == kMmEb) k.set_eb = true;  // the differing bound is a call setting
    k.mismatch_rank %= std::max(1, N);
  }
}

void describe(const Case& k, char* out, size_t cap) {
  char rc[160] = "";
  for (size_t i = 0, pos = 0; i < k.recvcounts.size() && pos + 24 < sizeof rc; ++i)
    pos += std::snprintf(rc + pos, sizeof rc - pos, "%s%zu", i ? "," : "", k.recvcounts[i]);
  std::snprintf(
      out, cap,
      "seed=%" PRIu64
      " N=%d comm=%s handle=%s coll=%s%s%s root=%d mode=%s(cfg %s) algo=%s dt=%s op=%s count=%zu "
      "rc=[%s] eb=%s:%g(%s) bound=%s threads=%d min_bytes=%zu chunk=%u pipe=%zu avg=%d data=%s "
      "scale=%g shift=%g special=%g/%d mismatch=%s@%d auto_local=%s net=%d%s",
      k.seed, k.N,
      k.comm_kind == 0   ? "world"
      : k.comm_kind == 1 ? "split"
      : k.comm_kind == 2 ? "dup"
                         : "prefix",
      k.pool < 0 ? "fresh" : "pool", zcoll_collective_name(k.coll),
      (k.variant & 1) ? "+in_place" : "", (k.variant & 2) ? "+counts" : "", k.root,
      zcoll_mode_name(k.mode), zcoll_mode_name(k.cfg.mode), zcoll_algorithm_name(k.algo),
      kDtNames[k.dt], traits_of(k.coll).reduction ? kOpNames[k.op] : "-", k.count, rc,
      k.eb_mode == ZCOLL_EB_REL ? "rel" : "abs", k.eb, k.set_eb ? "call" : "config",
      k.cfg.bound == ZCOLL_BOUND_RESULT ? "result" : "per_compression", k.cfg.threads,
      k.cfg.min_bytes, k.cfg.chunk_size, k.cfg.pipeline_values, k.average, kDataNames[k.data],
      k.scale, k.shift, k.special_p, k.special_ranks, kMmNames[k.mismatch], k.mismatch_rank,
      k.auto_local_model ? "model" : "mpi", k.net,
      k.nb == 0   ? ""
      : k.nb == 1 ? " nonblocking"
      : k.nb == 2 ? " nonblocking+blocking"
                  : " nonblocking+request");
}

// ---- data ----------------------------------------------------------------------------
// The settings rank p uses (differ from the others' only on a mismatch case).
struct RankView {
  Dt dt;
  Op op;
  size_t count;
  int root;
  double eb;
  zcoll_mode mode;
  uint32_t chunk;
  zcoll_algorithm algo;
};
RankView view_of(const Case& k, int p) {
  RankView v{k.dt, k.op, k.count, k.root, k.eb, k.mode, k.cfg.chunk_size, k.algo};
  if (k.mismatch == kNoMismatch || p != k.mismatch_rank) return v;
  switch (k.mismatch) {
    case kMmEb: v.eb = k.eb * 2; break;
    case kMmRoot: v.root = (k.root + 1) % k.N; break;
    case kMmOp: v.op = k.op == kSum ? kMax : kSum; break;
    case kMmCount: v.count = k.count + 1; break;
    case kMmDtype: v.dt = k.dt == kF32 ? kF64 : kF32; break;
    case kMmMode: v.mode = k.mode == ZCOLL_MODE_RAW ? ZCOLL_MODE_DOC : ZCOLL_MODE_RAW; break;
    case kMmChunk: v.chunk = k.cfg.chunk_size == 1024 ? 2048 : 1024; break;
    case kMmAlgo: {  // another algorithm of the collective (the first two of the table)
      zcoll_algorithm two[2];
      zcoll_algorithms_of(k.coll, two, 2);
      v.algo = k.algo == two[0] ? two[1] : two[0];
      break;
    }
  }
  return v;
}

// Integer, derived (3 floats) and MPI_DOUBLE_INT inputs.
void fill_int(const RankView& v, Rng& g, uint8_t* buf, size_t n) {
  int* x = reinterpret_cast<int*>(buf);
  for (size_t i = 0; i < n; ++i) {
    if (v.op == kProd) {
      const int s[] = {1, 1, 1, -1, 2};
      x[i] = g.of(s);
    } else {
      x[i] = static_cast<int>(g.below(2001)) - 1000;
    }
  }
}
void fill_derived(Rng& g, uint8_t* buf, size_t n) {
  float* x = reinterpret_cast<float*>(buf);
  for (size_t i = 0; i < 3 * n; ++i) x[i] = static_cast<float>(g.uniform() * 1e3 - 500);
}
void fill_double_int(Rng& g, uint8_t* buf, size_t n) {
  for (size_t i = 0; i < n; ++i) {
    const double val = static_cast<double>(g.below(5));  // ties on purpose
    const int idx = static_cast<int>(g.below(100));
    std::memcpy(buf + i * 16, &val, 8);
    std::memcpy(buf + i * 16 + 8, &idx, 4);
    std::memset(buf + i * 16 + 12, 0, 4);
  }
}

// The data kinds of ordinary values: a real field, noise, smooth, constant.
void draw_plain(const Case& k, int p, Rng& g, std::vector<double>& x) {
  const size_t n = x.size();
  const double S = k.scale, B = k.shift;
  switch (k.data) {
    case kField: {
      const std::vector<float>& f = g_fields[g.below(g_fields.size())];
      size_t off = f.size() > n ? g.below(f.size() - n) : 0;
      for (size_t i = 0; i < n; ++i) x[i] = f[(off + i) % f.size()] * (S / 10) + B;
      break;
    }
    case kNoise:
      for (size_t i = 0; i < n; ++i) x[i] = (g.uniform() * 2 - 1) * S + B;
      break;
    case kSmooth: {
      const double ph = g.uniform() * 6.28, w = 1e-3 + g.uniform() * 0.05;
      for (size_t i = 0; i < n; ++i)
        x[i] = S * std::sin(ph + w * i) + 0.01 * S * (g.uniform() - 0.5) + B + p;
      break;
    }
    case kConstant: {
      const double c = g.chance(0.5) ? S : S * (1 + p);
      for (size_t i = 0; i < n; ++i) x[i] = c + B;
      break;
    }
    default: break;
  }
}

// The data kinds at the edges: denormals, signed zeros, codes near the
// format's limit, a wide range of magnitudes.
void draw_edge(const Case& k, bool f32, Rng& g, std::vector<double>& x) {
  const size_t n = x.size();
  switch (k.data) {
    case kDenormal: {
      const double dm = f32 ? std::numeric_limits<float>::denorm_min()
                            : std::numeric_limits<double>::denorm_min();
      for (size_t i = 0; i < n; ++i) {
        const int r = g.pick(4);
        x[i] = r == 0   ? 0.0
               : r == 1 ? -0.0
                        : dm * static_cast<double>(g.below(1000)) * (r == 2 ? 1 : -1);
      }
      break;
    }
    case kZeros:
      for (size_t i = 0; i < n; ++i) x[i] = g.chance(0.5) ? 0.0 : -0.0;
      break;
    case kNearLimit: {
      // |x| / quantum near 2^30, the largest code the format takes (ABS bounds;
      // for REL the range makes eb large and the values simply large)
      const double q = 2 * k.eb;
      for (size_t i = 0; i < n; ++i) {
        const double c = 1073741824.0 + static_cast<double>(g.below(64)) - 32;
        x[i] = (g.chance(0.5) ? 1 : -1) * c * q * (1 + (g.uniform() - 0.5) * 1e-6);
      }
      break;
    }
    case kWide:
      for (size_t i = 0; i < n; ++i)
        x[i] = (g.uniform() - 0.5) * k.scale *
               std::pow(10.0, static_cast<double>(g.pick(f32 ? 20 : 40)) - (f32 ? 10 : 20));
      break;
    default: break;
  }
}

// Products kept finite and meaningful, float sums finite, NaN/Inf sprinkled.
void shape_values(const Case& k, const RankView& v, int p, Rng& g, std::vector<double>& x) {
  const double S = k.scale;
  if (v.op == kProd) {
    for (double& y : x)
      y = (g.chance(0.02) ? 0.0 : 0.5 + std::fabs(std::fmod(y / (S + 1e-300), 1.0)));
  }
  if (v.dt == kF32)
    for (double& y : x) y = std::max(-1e30, std::min(1e30, y));
  if (k.special_p > 0 && (k.special_ranks == 2 || p == 0)) {
    for (double& y : x) {
      if (!g.chance(k.special_p)) continue;
      const int r = g.pick(3);
      y = r == 0   ? std::numeric_limits<double>::infinity()
          : r == 1 ? -std::numeric_limits<double>::infinity()
                   : std::numeric_limits<double>::quiet_NaN();
    }
  }
}

// The values in the datatype, NaNs with a few payload bits (to check that they
// move bit for bit).
void store_values(bool f32, Rng& g, const std::vector<double>& x, uint8_t* buf) {
  const size_t n = x.size();
  if (f32) {
    float* o = reinterpret_cast<float*>(buf);
    for (size_t i = 0; i < n; ++i) o[i] = static_cast<float>(x[i]);
    for (size_t i = 0; i < n; ++i)
      if (std::isnan(o[i])) {
        uint32_t b = 0x7FC00000u | static_cast<uint32_t>(g.below(1u << 20));
        std::memcpy(&o[i], &b, 4);
      }
    return;
  }
  double* o = reinterpret_cast<double*>(buf);
  for (size_t i = 0; i < n; ++i) {
    o[i] = x[i];
    if (std::isnan(o[i])) {
      uint64_t b = 0x7FF8000000000000ull | g.below(1ull << 40);
      std::memcpy(&o[i], &b, 8);
    }
  }
}

// Rank p's input: n elements of k's datatype (as bytes).
std::vector<uint8_t> make_input(const Case& k, int p, size_t n) {
  const RankView v = view_of(k, p);
  std::vector<uint8_t> buf(n * vbytes_of(v.dt));
  Rng g(mix(k.seed, 77 + static_cast<uint64_t>(p)));
  if (v.dt == kInt) {
    fill_int(v, g, buf.data(), n);
  } else if (v.dt == kDerived) {
    fill_derived(g, buf.data(), n);
  } else if (v.dt == kDoubleInt) {
    fill_double_int(g, buf.data(), n);
  } else {  // float / double: in double first
    std::vector<double> x(n);
    draw_plain(k, p, g, x);
    draw_edge(k, v.dt == kF32, g, x);
    shape_values(k, v, p, g, x);
    store_values(v.dt == kF32, g, x, buf.data());
  }
  return buf;
}

// The call's shape for the traits table, as rank p sees it.
zcoll::coll::Call shape_of(const Case& k, const RankView& v) {
  Bufs b;
  b.count = v.count;
  b.root = v.root;
  b.recvcounts = (k.variant & kCountsVariant) ? k.recvcounts.data() : nullptr;
  return call_of(k.coll, b);
}

// How many elements rank p's input has.
size_t input_elems(const Case& k, int p) {
  return zcoll::coll::input_values(shape_of(k, view_of(k, p)), k.N, p);
}

// A cost model for AUTO from the environment (the probe at handle creation
// costs ~0.1 s): a slow, a medium and a fast network, so that AUTO picks
// compressed modes as well as MPI. net < 0: unset, the handle probes.
void set_model_env(int net) {
  const char* vars[] = {"ZCOLL_NET_LATENCY",   "ZCOLL_NET_BANDWIDTH", "ZCOLL_COMPRESS_BW",
                        "ZCOLL_DECOMPRESS_BW", "ZCOLL_HOM_BW",        "ZCOLL_REDUCE_BW"};
  const char* nets[3][6] = {{"50us", "100mbit", "2GB", "3GB", "4GB", "8GB"},
                            {"5us", "10gbit", "1GB", "1.5GB", "2GB", "4GB"},
                            {"1us", "100GB", "1GB", "1GB", "1GB", "2GB"}};
  for (int i = 0; i < 6; ++i) {
    if (net < 0)
      unsetenv(vars[i]);
    else
      setenv(vars[i], nets[net][i], 1);
  }
}

// ---- the long-lived handles ---------------------------------------------------------
struct Pool {
  zcoll_comm* h[3] = {nullptr, nullptr, nullptr};
};

// ---- checking ------------------------------------------------------------------------
struct Outcome {
  long checks = 0;
  long wrong = 0;
  char first[512] = "";
  void bad(const char* fmt, ...) __attribute__((format(printf, 2, 3)));
};
void Outcome::bad(const char* fmt, ...) {
  if (wrong++ == 0) {
    va_list ap;
    va_start(ap, fmt);
    std::vsnprintf(first, sizeof first, fmt, ap);
    va_end(ap);
  }
}

double load(Dt dt, const uint8_t* p, size_t i) {
  if (dt == kF32) {
    float f;
    std::memcpy(&f, p + 4 * i, 4);
    return f;
  }
  double d;
  std::memcpy(&d, p + 8 * i, 8);
  return d;
}
bool same_bits(Dt dt, const uint8_t* a, size_t i, const uint8_t* b, size_t j) {
  const size_t vb = vbytes_of(dt);
  return std::memcmp(a + vb * i, b + vb * j, vb) == 0;
}

// The bound the configuration asks for (error_bound.h: target_bound), over the
// finite values of the inputs that decide it.
double target_of(zcoll_eb_mode m, double v, double mn, double mx) {
  if (m == ZCOLL_EB_ABS) return v;
  if (!(mx >= mn)) return v;
  if (mx - mn > 0) return v * (mx - mn);
  return v * std::max(std::fabs(mn), 1.0);
}

using Inputs = std::vector<std::vector<uint8_t>>;

// Output element j, moved from rank p's input element src: bit for bit in an
// exact mode (and for non-finite values), else within the reported bound.
void check_moved(const Case& k, const uint8_t* x, int p, size_t src, const uint8_t* out, size_t j,
                 const zcoll_report& rep, Outcome* o) {
  const Dt dt = k.dt;
  const bool fp = dt == kF32 || dt == kF64;
  const bool exact_mode = rep.mode == ZCOLL_MODE_MPI || rep.mode == ZCOLL_MODE_RAW;
  if (!fp || exact_mode || rep.error_bound == 0) {
    if (!same_bits(dt, out, j, x, src))
      o->bad("element %zu (from rank %d [%zu]) differs bitwise in an exact mode", j, p, src);
    return;
  }
  const double a = load(dt, out, j), b = load(dt, x, src);
  if (!std::isfinite(b)) {
    if (!same_bits(dt, out, j, x, src))
      o->bad("element %zu: non-finite input %g (rank %d [%zu]) not carried bit for bit: %g", j, b,
             p, src, a);
  } else if (!(std::fabs(a - b) <= rep.error_bound)) {
    o->bad("element %zu: |%.17g - %.17g| = %.3g above the reported bound %.3g", j, a, b,
           std::fabs(a - b), rep.error_bound);
  }
}

// An integer reduction: exact (the MPI fallback has no average for integers:
// the library leaves the sum).
void check_int(const Case& k, const Inputs& in, size_t src, const uint8_t* out, size_t j,
               Outcome* o) {
  long long acc = 0;
  for (int p = 0; p < k.N; ++p) {
    int v;
    std::memcpy(&v, in[p].data() + 4 * src, 4);
    if (p == 0) {
      acc = v;
      continue;
    }
    switch (k.op) {
      case kSum: acc += v; break;
      case kMax: acc = std::max<long long>(acc, v); break;
      case kMin: acc = std::min<long long>(acc, v); break;
      case kProd: acc *= v; break;
      default: break;
    }
  }
  int got;
  std::memcpy(&got, out + 4 * j, 4);
  if (got != acc) o->bad("int element %zu: %d, expected %lld", j, got, acc);
}

// MAXLOC on MPI_DOUBLE_INT: exact, the lowest index among ties.
void check_maxloc(const Case& k, const Inputs& in, size_t src, const uint8_t* out, size_t j,
                  Outcome* o) {
  double best = 0;
  int bi = 0;
  for (int p = 0; p < k.N; ++p) {
    double v;
    int i;
    std::memcpy(&v, in[p].data() + 16 * src, 8);
    std::memcpy(&i, in[p].data() + 16 * src + 8, 4);
    if (p == 0 || v > best || (v == best && i < bi)) {
      best = v;
      bi = i;
    }
  }
  double gv;
  int gi;
  std::memcpy(&gv, out + 16 * j, 8);
  std::memcpy(&gi, out + 16 * j + 8, 4);
  if (gv != best || gi != bi)
    o->bad("maxloc element %zu: (%g, %d), expected (%g, %d)", j, gv, gi, best, bi);
}

// The exact result of a float / double reduction at src, in double, and the
// magnitude its rounding scales with.
struct Exact {
  double acc = 0, mag = 0;
  bool nan_in = false;
  // A finite value within the bound of 0 may be reconstructed as 0, and IEEE gives
  // inf * 0 = NaN: a PROD whose exact result is infinite may then be NaN. The value
  // may be an input or a partial product that an algorithm recompresses (cpr_p2p,
  // doc), or one below the type's range (flushed to 0): see smallest_partial.
  bool may_be_zero = false;
};

// Whether a partial product of the finite factors |v| may reach 0: the factors
// below 1 multiplied smallest first, each at its smallest reconstruction
// (|v| - eb) and each partial product recompressed (eb off again), until it is
// within eb of 0 or below the smallest normal number of the type. (Taking each
// factor at |v| + eb, as this once did, missed seed 8000757 at 8 ranks: eight
// factors 0.5-1.2 at eb 0.15, a partial product of four of them reconstructed
// as 0, inf * 0 = NaN.) Sorts mags in place (the caller's scratch).
bool partial_product_may_be_zero(std::vector<double>& mags, double eb, double smallest_normal) {
  std::sort(mags.begin(), mags.end());
  double partial = 1;
  for (double m : mags) {
    const double f = std::max(0.0, m - eb);
    if (f >= 1) break;
    partial = partial * f - eb;
    if (partial <= eb || partial < smallest_normal) return true;
  }
  return false;
}

Exact exact_fp(const Case& k, const Inputs& in, size_t src, double eb) {
  Exact e;
  // reused from element to element: an allocation per element of a PROD case
  // cost most of the sanitizer soak (its malloc takes a full stack trace)
  thread_local std::vector<double> finite_mags;
  finite_mags.clear();
  for (int p = 0; p < k.N; ++p) {
    const double v = load(k.dt, in[p].data(), src);
    e.nan_in = e.nan_in || std::isnan(v);
    e.may_be_zero = e.may_be_zero || (std::isfinite(v) && std::fabs(v) <= eb);
    if (std::isfinite(v) && k.op == kProd) finite_mags.push_back(std::fabs(v));
    if (p == 0) {
      e.acc = v;
      e.mag = std::fabs(v) + eb;
      continue;
    }
    switch (k.op) {
      case kSum:
      case kUser:
        e.acc += v;
        e.mag += std::fabs(v) + eb;
        break;
      case kMax: e.acc = (std::isnan(e.acc) || std::isnan(v)) ? NAN : std::max(e.acc, v); break;
      case kMin: e.acc = (std::isnan(e.acc) || std::isnan(v)) ? NAN : std::min(e.acc, v); break;
      case kProd:
        e.acc *= v;
        e.mag *= std::fabs(v) + eb;
        break;
      default: break;
    }
  }
  if (k.op == kProd && !e.may_be_zero)
    e.may_be_zero = partial_product_may_be_zero(
        finite_mags, eb,
        k.dt == kF32 ? std::numeric_limits<float>::min() : std::numeric_limits<double>::min());
  if (k.average && k.op == kSum) {
    e.acc /= k.N;
    e.mag /= k.N;
  }
  return e;
}

// A float / double reduction: IEEE for non-finite results, else within the
// reported bound plus the rounding in the datatype.
void check_fp(const Case& k, const Inputs& in, size_t src, const uint8_t* out, size_t j,
              const zcoll_report& rep, Outcome* o) {
  const Exact e = exact_fp(k, in, src, rep.eb_per_compression);
  const double got = load(k.dt, out, j);
  if (!std::isfinite(e.acc)) {
    if (std::isnan(e.acc)) {
      // MPI's own MAX/MIN (MPICH: a > b ? a : b) need not propagate NaN
      const bool mpi_minmax = rep.mode == ZCOLL_MODE_MPI && (k.op == kMax || k.op == kMin);
      if (!std::isnan(got) && !mpi_minmax)
        o->bad("element %zu: expected NaN (IEEE), got %.17g", j, got);
    } else if (got != e.acc && !(k.op == kProd && e.may_be_zero && std::isnan(got))) {
      o->bad("element %zu: expected %g, got %.17g", j, e.acc, got);
    }
    return;
  }
  if (e.nan_in && rep.mode == ZCOLL_MODE_MPI) return;
  const double u = k.dt == kF32 ? 0x1p-24 : 0x1p-53;
  const double tiny = k.dt == kF32 ? std::numeric_limits<float>::denorm_min()
                                   : std::numeric_limits<double>::denorm_min();
  double tol = rep.error_bound;
  if (k.op == kSum || k.op == kUser || k.op == kProd)
    tol += (k.N + 2) * u * e.mag + (k.N + 2) * tiny;  // rounding in T (documented term), denormals
  if (!(std::fabs(got - e.acc) <= tol))
    o->bad("element %zu: %.17g, exact %.17g: error %.3g above %.3g (reported bound %.3g)", j, got,
           e.acc, std::fabs(got - e.acc), tol, rep.error_bound);
}

// Checks rank k.rank's result. in[p] are the inputs of every rank (empty where
// not needed), out the output buffer (nullptr where the rank has none); where
// each output element comes from is the traits table's (source_of).
void check_result(const Case& k, const Inputs& in, const uint8_t* out, size_t out_elems,
                  const zcoll_report& rep, Outcome* o) {
  if (!out) return;
  const zcoll::coll::Call shape = shape_of(k, view_of(k, k.rank));
  for (size_t j = 0; j < out_elems; ++j) {
    ++o->checks;
    int p = 0;
    const size_t src = source_of(shape, k.rank, j, &p);
    if (p >= 0)
      check_moved(k, in[p].data(), p, src, out, j, rep, o);
    else if (k.dt == kInt)
      check_int(k, in, src, out, j, o);
    else if (k.dt == kDoubleInt)
      check_maxloc(k, in, src, out, j, o);
    else
      check_fp(k, in, src, out, j, rep, o);
  }
}

// ---- one call ----------------------------------------------------------------------------
struct Stats {
  long calls = 0, wrong = 0, errors = 0, mismatch_ok = 0, hangs = 0;
  long checks = 0;
  long cover[ZCOLL_MAX_COLLECTIVES][7][9] = {};  // collective x reported mode x N (1..8)
};

MPI_Datatype mpi_type(Dt dt, MPI_Datatype derived) {
  switch (dt) {
    case kF32: return MPI_FLOAT;
    case kF64: return MPI_DOUBLE;
    case kInt: return MPI_INT;
    case kDerived: return derived;
    case kDoubleInt: return MPI_DOUBLE_INT;
  }
  return MPI_FLOAT;
}

void user_sum(void* in, void* inout, int* len, MPI_Datatype* dt) {
  if (*dt == MPI_FLOAT) {
    const float* a = static_cast<const float*>(in);
    float* b = static_cast<float*>(inout);
    for (int i = 0; i < *len; ++i) b[i] += a[i];
  } else {
    const double* a = static_cast<const double*>(in);
    double* b = static_cast<double*>(inout);
    for (int i = 0; i < *len; ++i) b[i] += a[i];
  }
}
MPI_Op g_user_op = MPI_OP_NULL;

MPI_Op mpi_op(Op op) {
  switch (op) {
    case kSum: return MPI_SUM;
    case kMax: return MPI_MAX;
    case kMin: return MPI_MIN;
    case kProd: return MPI_PROD;
    case kMaxloc: return MPI_MAXLOC;
    case kUser: return g_user_op;
  }
  return MPI_SUM;
}

// memcpy without the undefined behaviour of a null pointer when n == 0.
void copy_bytes(void* dst, const void* src, size_t n) {
  if (n) std::memcpy(dst, src, n);
}

const uint8_t kGuard = 0xA5;
const size_t kGuardBytes = 64;

// One case on this rank: the case, this rank's view of it, its handle and its
// buffers (their shapes from the traits table).
struct CaseRun {
  const Case& k;
  const RankView me;
  const CollectiveTraits& t;
  const DriverColl& dc;
  const int N, r;
  const size_t vb;
  zcoll::coll::Call shape;  // this rank's count and root
  Outcome o;
  // the handle and its effective settings
  zcoll_comm* zc = nullptr;
  bool fresh = false;
  zcoll_comm_config eff{};
  // every rank's input where the check needs it; the buffers of the call
  Inputs in;
  std::vector<uint8_t> send, recv;
  size_t out_elems = 0, recv_elems = 0;
  bool has_out = true;
  Bufs b;
  const uint8_t* outp = nullptr;  // where this rank's output is after the call
  bool keeps_block = false;       // Scatter in place at the root: its block stays in sendbuf
  zcoll_report rep = ZCOLL_REPORT_INITIALIZER;

  explicit CaseRun(const Case& kk)
      : k(kk),
        me(view_of(kk, kk.rank)),
        t(traits_of(kk.coll)),
        dc(driver_coll(kk.coll)),
        N(kk.N),
        r(kk.rank),
        vb(vbytes_of(me.dt)),
        shape(shape_of(kk, me)) {}
};

// The handle (a long-lived one, or a fresh one from the case's configuration)
// and the call settings on it; false: it could not be created.
bool open_handle(CaseRun& c, MPI_Comm comm, Pool& pool, std::string* msg) {
  const Case& k = c.k;
  zcoll_comm_config cfg = k.cfg;
  cfg.chunk_size = c.me.chunk;
  if (k.pool >= 0 && k.comm_kind == 0) {
    c.zc = pool.h[k.pool];
  } else {
    setenv("ZCOLL_AUTO_LOCAL", k.auto_local_model ? "model" : "mpi", 1);
    set_model_env(k.net);
    if (zcoll_comm_create(comm, &cfg, &c.zc) != ZCOLL_SUCCESS) {
      *msg = std::string("zcoll_comm_create failed: ") + zcoll_last_error();
      return false;
    }
    c.fresh = true;
  }
  auto setting = [&](zcoll_status s, const char* what) {
    if (s != ZCOLL_SUCCESS) c.o.bad("%s failed: %s", what, zcoll_last_error());
  };
  setting(zcoll_comm_set_mode(c.zc, c.me.mode), "set_mode");
  setting(zcoll_comm_set_algorithm(c.zc, k.coll, c.me.algo), "set_algorithm");
  if (k.set_eb) setting(zcoll_comm_set_error_bound(c.zc, k.eb_mode, c.me.eb), "set_error_bound");
  setting(zcoll_comm_set_average(c.zc, k.average), "set_average");
  zcoll_comm_config_init(&c.eff);
  zcoll_comm_get_config(c.zc, &c.eff);
  return true;
}

// The inputs and the receive buffer (guard bytes after it); MPI_IN_PLACE's
// input placed where the library binds it (collective.h: bind_args).
void make_buffers(CaseRun& c, MPI_Datatype derived) {
  const Case& k = c.k;
  const int r = c.r, root = c.me.root;
  c.in.assign(c.N, {});
  for (int p = 0; p < c.N; ++p)  // Bcast, Scatter: only the root's values reach the outputs
    if (p == r || !c.t.root_contributes_only || p == root)
      c.in[p] = make_input(k, p, input_elems(k, p));
  const std::vector<uint8_t>& mine = c.in[r];
  c.out_elems = zcoll::coll::output_values(c.shape, c.N, r);
  c.has_out = has_output(c.shape, c.N, r);
  const bool may = !c.t.in_place_root_only || r == root;
  const bool ip = (k.variant & kInPlace) && may;
  const bool in_recv = c.t.in_place == InPlace::kRecvbuf || c.t.in_place == InPlace::kOwnBlock;
  c.recv_elems = c.has_out ? c.out_elems : 0;
  if (ip && c.t.in_place == InPlace::kRecvbuf) c.recv_elems = mine.size() / c.vb;
  c.recv.assign(c.recv_elems * c.vb + kGuardBytes, kGuard);
  c.send = mine;  // a copy: the input must stay unchanged
  void* rb = c.recv.data();
  if (!c.has_out && k.null_recv) rb = nullptr;
  c.b.sendbuf = ip && in_recv                ? MPI_IN_PLACE
                : has_input(c.shape, c.N, r) ? static_cast<const void*>(c.send.data())
                                             : nullptr;
  c.b.recvbuf = ip && c.t.in_place == InPlace::kRootSendBlock ? MPI_IN_PLACE : rb;
  c.b.count = c.me.count;
  c.b.recvcounts = c.shape.recvcounts;
  c.b.datatype = mpi_type(c.me.dt, derived);
  c.b.op = mpi_op(c.me.op);
  c.b.root = root;
  std::vector<size_t> counts(c.N), displs(c.N);
  const zcoll::coll::Args a =
      zcoll::coll::bind_args(call_of(k.coll, c.b), c.N, r, c.vb, counts.data(), displs.data());
  if (a.in_place && in_recv) copy_bytes(const_cast<void*>(a.in), mine.data(), mine.size());
  if (c.t.in_place == InPlace::kNone && r == root)  // one buffer: the root's input
    copy_bytes(c.recv.data(), mine.data(), mine.size());
  c.keeps_block = a.in_place && c.t.in_place == InPlace::kRootSendBlock;
  c.outp = c.has_out ? static_cast<const uint8_t*>(a.out) : nullptr;
}

// The companion of nonblocking forms 2 and 3: a small MPI_INT Allreduce on the
// same handle (the MPI fallback on every rank, whatever the case's settings), exact.
struct Companion {
  int in[5], out[5] = {0, 0, 0, 0, 0};
  explicit Companion(int r) {
    for (int i = 0; i < 5; ++i) in[i] = (r + 1) * (i + 1);
  }
  void check(zcoll_status cs, int N, Outcome& o) const {
    if (cs != ZCOLL_SUCCESS) o.bad("the companion Allreduce returned %s", zcoll_status_string(cs));
    for (int i = 0; i < 5; ++i)
      if (out[i] != N * (N + 1) / 2 * (i + 1)) {
        o.bad("the companion Allreduce is wrong: %d at %d", out[i], i);
        break;
      }
  }
};

// The nonblocking call (k.nb 1..3): started and waited; or a blocking call on
// the handle before the wait (2); or a second request started behind it and
// waited first (3). The request must be complete after either.
zcoll_status run_started(CaseRun& c) {
  Companion comp(c.r);
  zcoll_request* q = nullptr;
  zcoll_status s = c.dc.call(c.zc, c.b, &q);
  if (s != ZCOLL_SUCCESS || !q) c.o.bad("start returned %s", zcoll_status_string(s));
  if (q && c.k.nb == 2) {  // a blocking call first: it runs after the request
    comp.check(zcoll_allreduce(c.zc, comp.in, comp.out, 5, MPI_INT, MPI_SUM), c.N, c.o);
    int done = 0;
    zcoll_test(q, &done);
    if (!done) c.o.bad("the request is not complete after a later blocking call");
  }
  zcoll_request* q2 = nullptr;
  if (q && c.k.nb == 3) {  // a second request behind it, waited first
    const zcoll_status s2 = zcoll_iallreduce(c.zc, comp.in, comp.out, 5, MPI_INT, MPI_SUM, &q2);
    if (s2 != ZCOLL_SUCCESS) c.o.bad("the second start returned %s", zcoll_status_string(s2));
    comp.check(zcoll_wait(q2, nullptr), c.N, c.o);
    int done = 0;
    zcoll_test(q, &done);
    if (!done) c.o.bad("the request is not complete after a later one completed");
  }
  if (q) s = zcoll_wait(q, &c.rep);
  zcoll_request_free(q);
  zcoll_request_free(q2);
  return s;
}

// The call under the watchdog; its status, the error text in *err.
zcoll_status run_call(CaseRun& c, const char* text, std::string* err) {
  std::snprintf(g_case_text, sizeof g_case_text, "%s", text);
  g_case_seed = c.k.seed;
  g_deadline = now() + g_opt.timeout;
  const zcoll_status s = c.k.nb == 0 ? c.dc.call(c.zc, c.b, nullptr) : run_started(c);
  *err = s ? zcoll_last_error() : "";
  g_deadline = 0;
  if (c.k.nb == 0) zcoll_comm_last_report(c.zc, &c.rep);
  return s;
}

// The report's collective, size and count, and the mode and algorithm that ran
// against what the case asked for. Returns the mode asked.
zcoll_mode check_selection(CaseRun& c) {
  const Case& k = c.k;
  const zcoll_report& rep = c.rep;
  if (rep.status != ZCOLL_SUCCESS) c.o.bad("report.status %d", rep.status);
  if (rep.collective != k.coll) c.o.bad("report.collective %d", rep.collective);
  if (rep.comm_size != c.N) c.o.bad("report.comm_size %d, not %d", rep.comm_size, c.N);
  // a reduction's count is its input's values; the others' count as passed
  const size_t want_count = c.t.reduction ? zcoll::coll::input_values(c.shape, c.N, c.r)
                                          : c.me.count;
  if (rep.count != want_count) c.o.bad("report.count %" PRIu64 ", not %zu", rep.count, want_count);
  const zcoll_mode asked = c.me.mode != ZCOLL_MODE_DEFAULT ? c.me.mode : c.eff.mode;
  const size_t total = zcoll::coll::total_values(c.shape, c.N);
  const bool fallback = !compressible(k) || asked == ZCOLL_MODE_MPI ||
                        total * c.vb < c.eff.min_bytes;
  if (total == 0) {
    if (rep.algorithm != ZCOLL_ALGO_NONE) c.o.bad("count 0 ran algorithm %d", rep.algorithm);
  } else if (fallback) {
    if (rep.mode != ZCOLL_MODE_MPI || rep.algorithm != ZCOLL_ALGO_NATIVE)
      c.o.bad("expected the MPI fallback, report says %s/%s", zcoll_mode_name(rep.mode),
              zcoll_algorithm_name(rep.algorithm));
  } else if (asked != ZCOLL_MODE_AUTO) {
    zcoll_mode okm = asked;
    if (asked == ZCOLL_MODE_HOM && c.t.reduction && k.op != kSum) okm = ZCOLL_MODE_DOC;
    if (rep.mode != okm && rep.mode != ZCOLL_MODE_RAW)
      c.o.bad("asked %s, report.mode %s", zcoll_mode_name(asked), zcoll_mode_name(rep.mode));
    if (c.me.algo != ZCOLL_ALGO_AUTO && rep.algorithm != c.me.algo)
      c.o.bad("asked algorithm %s, report %s", zcoll_algorithm_name(c.me.algo),
              zcoll_algorithm_name(rep.algorithm));
  }
  return asked;
}

// The bound the configuration asks for, over the inputs that decide it (only
// the root's for Bcast and Scatter), against the report's.
void check_target(CaseRun& c) {
  const zcoll_report& rep = c.rep;
  double mn = INFINITY, mx = -INFINITY;
  for (int p = 0; p < c.N; ++p) {
    if (c.t.root_contributes_only && p != c.me.root) continue;
    const size_t n = c.in[p].size() / c.vb;
    for (size_t i = 0; i < n; ++i) {
      const double v = load(c.me.dt, c.in[p].data(), i);
      if (std::isfinite(v)) {
        mn = std::min(mn, v);
        mx = std::max(mx, v);
      }
    }
  }
  const zcoll_eb_mode ebm = c.k.set_eb ? c.k.eb_mode : c.eff.eb_mode;
  const double ebv = c.k.set_eb ? c.me.eb : c.eff.error_bound;
  const double target = target_of(ebm, ebv, mn, mx);
  if (c.eff.bound == ZCOLL_BOUND_RESULT) {
    if (!(rep.error_bound <= target * (1 + 1e-12)))
      c.o.bad("bound=result: report.error_bound %.17g above the target %.17g", rep.error_bound,
              target);
  } else if (!(std::fabs(rep.eb_per_compression - target) <= 1e-12 * target)) {
    c.o.bad("bound=per_compression: eb %.17g, target %.17g", rep.eb_per_compression, target);
  }
}

// The report's bounds and byte counts for the mode that ran.
void check_bounds(CaseRun& c) {
  const zcoll_report& rep = c.rep;
  if (!(std::isfinite(rep.error_bound) && rep.error_bound >= 0))
    c.o.bad("report.error_bound %g", rep.error_bound);
  const bool cmpm = rep.mode == ZCOLL_MODE_CPR_P2P || rep.mode == ZCOLL_MODE_DOC ||
                    rep.mode == ZCOLL_MODE_HOM;
  if (!cmpm && (rep.error_bound != 0 || rep.eb_per_compression != 0))
    c.o.bad("exact mode %s reports bound %g / %g", zcoll_mode_name(rep.mode), rep.error_bound,
            rep.eb_per_compression);
  if (cmpm && zcoll::coll::total_values(c.shape, c.N) > 0) {
    if (!(rep.eb_per_compression > 0)) c.o.bad("compressed mode without a per-compression bound");
    check_target(c);
  }
  if (rep.mode == ZCOLL_MODE_MPI && rep.bytes_sent != 0) c.o.bad("mode mpi reports bytes sent");
  if (rep.mode == ZCOLL_MODE_RAW && rep.bytes_sent != rep.bytes_uncompressed)
    c.o.bad("mode raw: bytes_sent %" PRIu64 " != bytes_uncompressed %" PRIu64, rep.bytes_sent,
            rep.bytes_uncompressed);
}

// The guard bytes after the output, a non-root's unused receive buffer and
// the input, unchanged.
void check_buffers(CaseRun& c) {
  const size_t used = c.recv_elems * c.vb;
  for (size_t i = 0; i < kGuardBytes; ++i)
    if (c.recv[used + i] != kGuard) {
      c.o.bad("byte %zu after the receive buffer was written", i);
      break;
    }
  if (!c.has_out && c.b.recvbuf)
    for (size_t i = 0; i < c.recv.size(); ++i)
      if (c.recv[i] != kGuard) {
        c.o.bad("non-root receive buffer written");
        break;
      }
  const std::vector<uint8_t>& mine = c.in[c.r];
  if (!c.keeps_block && !mine.empty() && std::memcmp(c.send.data(), mine.data(), mine.size()) != 0)
    c.o.bad("the send buffer changed");
}

// Every rank holds the same bits (Allreduce but cpr_p2p: docs/algorithms.md).
// Mode mpi: MPI's own Allreduce (MPICH) may give ranks different NaN payloads
// and signs of zero (the order of operands differs by rank), so the hash there
// is of the values with NaN and -0 made canonical.
void check_identical(CaseRun& c, MPI_Comm comm) {
  if (!c.dc.identical_on_all_ranks || c.rep.mode == ZCOLL_MODE_CPR_P2P || !c.outp) return;
  const size_t n = c.out_elems, vb = c.vb;
  std::vector<uint8_t> canon;
  const uint8_t* hp = c.outp;
  if (c.rep.mode == ZCOLL_MODE_MPI && (c.me.dt == kF32 || c.me.dt == kF64)) {
    canon.assign(c.outp, c.outp + n * vb);
    for (size_t i = 0; i < n; ++i) {
      double v = load(c.me.dt, canon.data(), i);
      if (!(std::isnan(v) || v == 0)) continue;
      if (c.me.dt == kF32) {
        const float f = std::isnan(v) ? NAN : 0.0f;
        std::memcpy(canon.data() + 4 * i, &f, 4);
      } else {
        v = std::isnan(v) ? NAN : 0.0;
        std::memcpy(canon.data() + 8 * i, &v, 8);
      }
    }
    hp = canon.data();
  }
  uint64_t h = 1469598103934665603ull;
  for (size_t i = 0; i < n * vb; ++i) h = (h ^ hp[i]) * 1099511628211ull;
  uint64_t hmax = h, hmin = h;
  MPI_Allreduce(MPI_IN_PLACE, &hmax, 1, MPI_UINT64_T, MPI_MAX, comm);
  MPI_Allreduce(MPI_IN_PLACE, &hmin, 1, MPI_UINT64_T, MPI_MIN, comm);
  if (hmax != hmin) c.o.bad("allreduce results differ between ranks");
}

// The outcome of a call that returned: the mismatch's error, or the report,
// the data, the buffers.
void check_call(CaseRun& c, zcoll_status s, const std::string& err, MPI_Comm comm, Stats& st) {
  const Case& k = c.k;
  if (k.mismatch != kNoMismatch) {
    if (s != ZCOLL_ERR_MISMATCH)
      c.o.bad("mismatch (%s on rank %d) returned %s, not ZCOLL_ERR_MISMATCH", kMmNames[k.mismatch],
              k.mismatch_rank, zcoll_status_string(s));
    else if (c.r == 0)
      ++st.mismatch_ok;
    return;
  }
  if (s != ZCOLL_SUCCESS) {
    c.o.bad("returned %s: %s", zcoll_status_string(s), err.c_str());
    ++st.errors;
    return;
  }
  check_selection(c);
  check_bounds(c);
  check_result(k, c.in, c.outp, c.has_out ? c.out_elems : 0, c.rep, &c.o);
  check_buffers(c);
  check_identical(c, comm);
  const int mode = c.rep.mode;
  if (mode >= 1 && mode <= 6 && c.N <= 8 && c.r == 0) ++st.cover[k.coll][mode][c.N];
}

// The failure's text: the first wrong value, the case, the report, the replay.
std::string failure_text(const CaseRun& c, const char* text) {
  char rp[512];
  replay_line(c.k.seed, rp, sizeof rp);
  char line[2600];
  std::snprintf(line, sizeof line,
                "zcoll-soak: WRONG on world rank %d (group rank %d/%d): %ld bad, first: %s\n  "
                "case: %s\n  report: mode=%s algo=%s eb=%.3g bound=%.3g reason=\"%s\"\n  "
                "replay: %s\n",
                g_wrank, c.r, c.N, c.o.wrong, c.o.first, text, zcoll_mode_name(c.rep.mode),
                zcoll_algorithm_name(c.rep.algorithm), c.rep.eb_per_compression, c.rep.error_bound,
                c.rep.reason, rp);
  return line;
}

// Runs case k on group comm (this rank's view), checks it; returns whether it
// passed. The caller agrees on the outcome over the group.
bool run_case(const Case& k, MPI_Comm comm, Pool& pool, MPI_Datatype derived, Stats& st,
              std::string* msg) {
  CaseRun c(k);
  char text[1024];
  describe(k, text, sizeof text);
  if (!open_handle(c, comm, pool, msg)) return false;
  make_buffers(c, derived);
  std::string err;
  const zcoll_status s = run_call(c, text, &err);
  ++st.calls;
  check_call(c, s, err, comm, st);
  st.checks += c.o.checks;
  if (c.fresh) {
    g_deadline = now() + g_opt.timeout;
    if (zcoll_comm_free(c.zc) != ZCOLL_SUCCESS) c.o.bad("zcoll_comm_free failed");
    g_deadline = 0;
  }
  if (!c.o.wrong) return true;
  *msg = failure_text(c, text);
  return false;
}

void load_fields() {
  const char* names[] = {"ferret_fnoc-uwnd_132x73x144.f32", "ncarg_rect3d-t_17x96x192.f32",
                         "proj_egm96-geoid_721x1440.f32"};
  for (const char* n : names) {
    std::string path = g_opt.data_dir + "/" + n;
    FILE* f = std::fopen(path.c_str(), "rb");
    if (!f) continue;
    std::fseek(f, 0, SEEK_END);
    const long sz = std::ftell(f);
    std::fseek(f, 0, SEEK_SET);
    std::vector<float> v(static_cast<size_t>(sz) / 4);
    const size_t got = std::fread(v.data(), 4, v.size(), f);
    std::fclose(f);
    v.resize(got);
    if (!v.empty()) g_fields.push_back(std::move(v));
  }
  if (g_fields.empty()) {  // no data directory: a smooth synthetic field stands in
    std::vector<float> v(1 << 20);
    for (size_t i = 0; i < v.size(); ++i)
      v[i] = static_cast<float>(std::sin(i * 1e-3) * 30 + std::cos(i * 7e-3) * 5);
    g_fields.push_back(std::move(v));
  }
}

// A case recorded in a seeds file (--seeds-file): where it failed once.
struct Recorded {
  uint64_t seed = 0;
  double max_mib = 24;
  size_t max_count = 300000;
  bool subgroups = false;
  bool nonblocking = false;
};

// Lines "RANKS SEED [MAX_MIB MAX_COUNT] [subgroups] [nonblocking]  # why"; keeps
// this world size's.
bool read_seeds_file(const std::string& path, std::vector<Recorded>* out) {
  FILE* f = std::fopen(path.c_str(), "r");
  if (!f) return false;
  char line[512];
  while (std::fgets(line, sizeof line, f)) {
    if (char* hash = std::strchr(line, '#')) *hash = 0;
    int ranks = 0;
    Recorded rc;
    char flag[32] = "", flag2[32] = "";
    const int got = std::sscanf(line, "%d %" SCNu64 " %lf %zu %31s %31s", &ranks, &rc.seed,
                                &rc.max_mib, &rc.max_count, flag, flag2);
    if (got < 2) continue;  // blank or comment
    rc.subgroups = std::strcmp(flag, "subgroups") == 0 || std::strcmp(flag2, "subgroups") == 0;
    rc.nonblocking = std::strcmp(flag, "nonblocking") == 0 ||
                     std::strcmp(flag2, "nonblocking") == 0;
    if (ranks == g_wsize) out->push_back(rc);
  }
  std::fclose(f);
  return true;
}

// Whether any line of a seeds file (any world size) is a nonblocking case.
bool seeds_file_has_nonblocking(const char* path) {
  FILE* f = std::fopen(path, "r");
  if (!f) return false;
  char line[512];
  bool any = false;
  while (std::fgets(line, sizeof line, f)) {
    if (char* hash = std::strchr(line, '#')) *hash = 0;
    any = any || std::strstr(line, "nonblocking") != nullptr;
  }
  std::fclose(f);
  return any;
}

void usage() {
  std::fprintf(stderr,
               "usage: zcoll-soak [--seed S] [--iterations N | --seconds T] [--timeout T]\n"
               "                  [--max-mib M] [--max-count C] [--data DIR] [--stop-on-failure] "
               "[--verbose]\n"
               "                  [--subgroups] [--nonblocking] [--seeds-file FILE]\n"
               "Each iteration i draws case seed S+i; a failing case prints its replay command.\n"
               "--subgroups: half of the world cases run on the first k ranks (k = 1..size).\n"
               "--nonblocking: 3 cases in 4 run the nonblocking call (MPI_THREAD_MULTIPLE).\n"
               "--seeds-file: the cases FILE lists for this world size (lines\n"
               "  'RANKS SEED [MAX_MIB MAX_COUNT] [subgroups] [nonblocking]  # why'), instead of\n"
               "  drawing.\n");
}

// --nonblocking needs the progress threads: MPI_THREAD_MULTIPLE (decided
// before MPI_Init; a seeds file with a nonblocking case asks for it too).
void init_mpi(int* argc, char*** argv) {
  bool want_threads = false;
  for (int i = 1; i < *argc; ++i) {
    want_threads = want_threads || std::strcmp((*argv)[i], "--nonblocking") == 0;
    if (std::strcmp((*argv)[i], "--seeds-file") == 0 && i + 1 < *argc)
      want_threads = want_threads || seeds_file_has_nonblocking((*argv)[i + 1]);
  }
  if (want_threads) {
    int provided = 0;
    MPI_Init_thread(argc, argv, MPI_THREAD_MULTIPLE, &provided);
  } else {
    MPI_Init(argc, argv);
  }
}

// The command line into g_opt; false: an unknown option (usage printed).
bool parse_args(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto val = [&]() -> const char* {
      if (i + 1 >= argc) {
        if (g_wrank == 0) usage();
        MPI_Abort(MPI_COMM_WORLD, 2);
      }
      return argv[++i];
    };
    if (a == "--seed")
      g_opt.seed = std::strtoull(val(), nullptr, 10);
    else if (a == "--iterations")
      g_opt.iterations = std::atol(val());
    else if (a == "--seconds")
      g_opt.seconds = std::atof(val());
    else if (a == "--timeout")
      g_opt.timeout = std::atof(val());
    else if (a == "--max-mib")
      g_opt.max_mib = std::atof(val());
    else if (a == "--max-count")
      g_opt.max_count = std::strtoull(val(), nullptr, 10);
    else if (a == "--data")
      g_opt.data_dir = val();
    else if (a == "--stop-on-failure")
      g_opt.keep_going = false;
    else if (a == "--verbose")
      g_opt.verbose = true;
    else if (a == "--subgroups")
      g_opt.subgroups = true;
    else if (a == "--nonblocking")
      g_opt.nonblocking = true;
    else if (a == "--seeds-file")
      g_opt.seeds_file = val();
    else {
      if (g_wrank == 0) usage();
      return false;
    }
  }
  if (g_opt.iterations < 0 && g_opt.seconds < 0) g_opt.iterations = 100;
  return true;
}

// --seeds-file: this world size's recorded cases, their number the iterations.
bool load_recorded(std::vector<Recorded>* recorded) {
  if (g_opt.seeds_file.empty()) return true;
  if (!read_seeds_file(g_opt.seeds_file, recorded)) {
    if (g_wrank == 0)
      std::fprintf(stderr, "zcoll-soak: cannot read %s\n", g_opt.seeds_file.c_str());
    return false;
  }
  g_opt.iterations = static_cast<long>(recorded->size());
  g_opt.seconds = -1;
  if (g_wrank == 0)
    std::printf("zcoll-soak: %zu recorded case(s) of %s for %d ranks\n", recorded->size(),
                g_opt.seeds_file.c_str(), g_wsize);
  return true;
}

// The long-lived handles on world (fixed configurations, so that a replay is the same).
void open_pool(Pool& pool) {
  for (int j = 0; j < 3; ++j) {
    Rng g(4242 + j);
    zcoll_comm_config c = draw_config(g);
    setenv("ZCOLL_AUTO_LOCAL", j == 2 ? "mpi" : "model", 1);
    set_model_env(j == 1 ? -1 : j);
    if (zcoll_comm_create(MPI_COMM_WORLD, &c, &pool.h[j]) != ZCOLL_SUCCESS) {
      std::fprintf(stderr, "zcoll-soak: zcoll_comm_create: %s\n", zcoll_last_error());
      MPI_Abort(MPI_COMM_WORLD, 2);
    }
  }
}

// The case's group: world, a split, a dup, or the first k.prefix ranks (the
// others get MPI_COMM_NULL and sit this case out).
MPI_Comm group_of(const Case& k) {
  MPI_Comm comm = MPI_COMM_NULL;
  if (k.comm_kind == 0) {
    comm = MPI_COMM_WORLD;
  } else if (k.comm_kind == 1) {
    Rng g(mix(k.seed, 9000 + static_cast<uint64_t>(g_wrank)));
    const int color = g.pick(k.colors);
    const int key = g.pick(1000);
    MPI_Comm_split(MPI_COMM_WORLD, color, key, &comm);
  } else if (k.comm_kind == 2) {
    MPI_Comm_dup(MPI_COMM_WORLD, &comm);
  } else {
    MPI_Comm_split(MPI_COMM_WORLD, g_wrank < k.prefix ? 0 : MPI_UNDEFINED, g_wrank, &comm);
  }
  return comm;
}

// Iteration it: its case (drawn, or recorded: its seed and the options it
// was found with), run on its group; whether it failed on any rank.
bool run_iteration(long it, const std::vector<Recorded>& recorded, Pool& pool, MPI_Datatype derived,
                   Stats& st, uint64_t* seed_out) {
  uint64_t seed = g_opt.seed + static_cast<uint64_t>(it);
  if (!recorded.empty()) {
    const Recorded& rc = recorded[static_cast<size_t>(it)];
    seed = rc.seed;
    g_opt.max_mib = rc.max_mib;
    g_opt.max_count = rc.max_count;
    g_opt.subgroups = rc.subgroups;
    g_opt.nonblocking = rc.nonblocking;
  }
  Case k = draw_case(seed);
  *seed_out = k.seed;
  MPI_Comm comm = group_of(k);
  int N = k.prefix, r = -1;
  if (comm != MPI_COMM_NULL) {
    MPI_Comm_size(comm, &N);
    MPI_Comm_rank(comm, &r);
  }
  finish_case(k, N, r);
  if (g_opt.verbose && g_wrank == 0) {
    char t[1024];
    describe(k, t, sizeof t);
    std::printf("case %ld: %s\n", it, t);
    std::fflush(stdout);
  }
  std::string msg;
  const bool pass = comm == MPI_COMM_NULL || run_case(k, comm, pool, derived, st, &msg);
  if (!pass) {
    std::fprintf(stderr, "%s", msg.c_str());
    std::fflush(stderr);
  }
  // the outcome over the world: every rank sees every failure
  int bad = pass ? 0 : 1;
  MPI_Allreduce(MPI_IN_PLACE, &bad, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  if (k.comm_kind != 0 && comm != MPI_COMM_NULL) MPI_Comm_free(&comm);
  return bad != 0;
}

// The coverage table: successful group calls by collective x reported mode x N.
void print_coverage(const std::vector<long>& cover) {
  std::printf("coverage (successful group calls by collective x reported mode x N):\n");
  for (int c = 1; c < ZCOLL_MAX_COLLECTIVES; ++c)
    for (int m = 1; m <= 6; ++m) {
      std::string row;
      long any = 0;
      for (int n = 1; n <= 8; ++n) {
        const long v = cover[(c * 7 + m) * 9 + n];
        any += v;
        char cell[32];
        std::snprintf(cell, sizeof cell, " N%d=%ld", n, v);
        row += cell;
      }
      if (any)
        std::printf("  %-15s %-8s%s\n", zcoll_collective_name(static_cast<zcoll_collective>(c)),
                    zcoll_mode_name(static_cast<zcoll_mode>(m)), row.c_str());
    }
}

// The figure: calls are counted once per group (on each group's rank 0 via cover).
void print_summary(const Stats& st, long cases, long failed_cases, uint64_t last_seed,
                   double t_start) {
  std::vector<long> cover(sizeof st.cover / sizeof(long));
  std::memcpy(cover.data(), st.cover, sizeof st.cover);
  MPI_Allreduce(MPI_IN_PLACE, cover.data(), static_cast<int>(cover.size()), MPI_LONG, MPI_SUM,
                MPI_COMM_WORLD);
  long sums[4] = {st.calls, st.checks, st.errors, st.mismatch_ok};
  MPI_Allreduce(MPI_IN_PLACE, sums, 4, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
  if (g_wrank != 0) return;
  long cover_total = 0;
  for (long c : cover) cover_total += c;
  std::printf("zcoll-soak: seeds %" PRIu64 "..%" PRIu64
              " on %d ranks: %ld cases, %ld group calls "
              "(%ld rank calls), %ld values checked, %ld failed cases, %ld error returns, %ld "
              "mismatches detected, 0 hangs, %.1f s\n",
              g_opt.seed, last_seed, g_wsize, cases, cover_total, sums[0], sums[1], failed_cases,
              sums[2], sums[3], now() - t_start);
  print_coverage(cover);
  std::printf("zcoll-soak: %s\n", failed_cases ? "FAILED" : "passed");
}

}  // namespace

int main(int argc, char** argv) {
  init_mpi(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &g_wrank);
  MPI_Comm_size(MPI_COMM_WORLD, &g_wsize);
  g_argv0 = argv[0];
  std::vector<Recorded> recorded;
  if (!parse_args(argc, argv) || !load_recorded(&recorded)) {
    MPI_Finalize();
    return 2;
  }
  // errors of MPI calls come back as codes (the library turns them into ZCOLL_ERR_MPI)
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  load_fields();
  MPI_Op_create(user_sum, 1, &g_user_op);
  MPI_Datatype derived;
  MPI_Type_contiguous(3, MPI_FLOAT, &derived);
  MPI_Type_commit(&derived);
  std::thread dog(watchdog);
  Pool pool;
  open_pool(pool);
  Stats st;
  const double t_start = now();
  long it = 0, failed_cases = 0;
  uint64_t last_seed = g_opt.seed;
  for (;; ++it) {
    // all ranks decide together whether to go on
    int go = g_opt.iterations >= 0 ? it < g_opt.iterations : (now() - t_start) < g_opt.seconds;
    MPI_Bcast(&go, 1, MPI_INT, 0, MPI_COMM_WORLD);
    if (!go) break;
    const bool bad = run_iteration(it, recorded, pool, derived, st, &last_seed);
    if (bad) ++failed_cases;
    if (bad && !g_opt.keep_going) break;
  }
  for (zcoll_comm*& h : pool.h) zcoll_comm_free(h);
  g_stop = true;
  dog.join();
  print_summary(st, it, failed_cases, last_seed, t_start);
  MPI_Op_free(&g_user_op);
  MPI_Type_free(&derived);
  MPI_Finalize();
  return failed_cases ? 1 : 0;
}
