// exec.cc — how the emulation runs a grid (emu.h): blocks one after another,
// the threads of a block as fibers, block barriers and warp operations as
// rendezvous, with the checks that turn undefined behaviour into an abort.
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <thread>
#include <vector>

#include "cuda_emu/fiber.h"
#include "cuda_emu/internal.h"

namespace zcoll::emu {
namespace detail {
ThreadView* g_thread = nullptr;
GridView g_grid{};
}  // namespace detail

namespace internal {
namespace {

#if defined(__SANITIZE_ADDRESS__)
constexpr size_t kStackBytes = 512 * 1024;  // instrumented frames are larger
#else
constexpr size_t kStackBytes = 64 * 1024;
#endif
constexpr uint32_t kSpinLimit = 1u << 20;  // unchanged atomics in a row: a wait
constexpr uint32_t kNapLimit = 1u << 16;   // __nanosleep calls by one thread

const char* barrier_name(int kind) {
  switch (kind) {
    case detail::kSync: return "__syncthreads";
    case detail::kSyncOr: return "__syncthreads_or";
    case detail::kSyncAnd: return "__syncthreads_and";
    default: return "__syncthreads_count";
  }
}
const char* warp_name(int kind) {
  switch (kind) {
    case detail::kShfl: return "__shfl_sync";
    case detail::kShflUp: return "__shfl_up_sync";
    case detail::kShflDown: return "__shfl_down_sync";
    case detail::kShflXor: return "__shfl_xor_sync";
    case detail::kBallot: return "__ballot_sync";
    case detail::kAny: return "__any_sync";
    case detail::kAll: return "__all_sync";
    default: return "__syncwarp";
  }
}
bool same_site(const char* f1, int l1, const char* f2, int l2) {
  return l1 == l2 && (f1 == f2 || std::strcmp(f1, f2) == 0);
}

struct Thread : detail::ThreadView {
  Fiber fiber;
  unsigned linear = 0, warp = 0, lane = 0;
  bool done = false;
  uint64_t bar_gen = 0, warp_gen = 0;  // the rendezvous this thread waits in
  const void* spin_addr = nullptr;
  uint32_t spins = 0, naps = 0;
};

struct Warp {
  unsigned lanes = 0, lane_mask = 0;
  unsigned arrived = 0, done = 0, at_barrier = 0;
  int kind = 0, width = 32;
  const char* file = "";
  int line = 0;
  unsigned mask = 0;
  uint64_t gen = 0;
  uint64_t val[32];
  int arg[32];
  uint64_t res[2][32];
  Thread* waiting[32];
};

struct Block {
  unsigned threads = 0, arrived = 0, done = 0;
  int kind = 0;
  const char* file = "";
  int line = 0;
  int acc_or = 0, acc_and = 1, acc_count = 0;
  uint64_t gen = 0;
  int res[2] = {0, 0};
  std::vector<Thread*> waiting;
};

// The state of the grid that runs (one at a time: device_mutex()).
struct Exec {
  const Grid* grid = nullptr;
  Fiber main;
  std::vector<std::unique_ptr<Thread>> threads;  // reused by later blocks and grids
  std::vector<Warp> warps;
  Block block;
  std::vector<Thread*> ready;  // a FIFO: ready[head..]
  size_t head = 0;
  void push(Thread* t) { ready.push_back(t); }
  Thread* pop() {
    if (head == ready.size()) return nullptr;
    Thread* t = ready[head++];
    if (head == ready.size()) ready.clear(), head = 0;
    return t;
  }
};
Exec g;

// The stall watchdog (a thread of its own): no fiber switch, barrier or warp
// operation for ZCOLL_EMU_STALL_SECONDS while a grid runs is a wait that will
// never end (a spin on another block, or on this block without a barrier).
std::atomic<uint64_t> g_progress{0};
std::atomic<bool> g_in_grid{false};
std::atomic<const char*> g_stall_kernel{""};
std::atomic<unsigned> g_stall_block{0}, g_stall_thread{0};

void watchdog() {
  const unsigned limit = env_unsigned("ZCOLL_EMU_STALL_SECONDS", 120);
  uint64_t seen = ~uint64_t{0};
  unsigned still = 0;
  for (;;) {
    std::this_thread::sleep_for(std::chrono::seconds(1));
    const uint64_t p = g_progress.load(std::memory_order_relaxed);
    if (!g_in_grid.load(std::memory_order_relaxed) || p != seen) {
      seen = p;
      still = 0;
      continue;
    }
    if (++still >= limit) {
      std::fprintf(stderr,
                   "zcoll CUDA emulation: no progress for %u s in kernel %s (block %u, thread %u): "
                   "a wait on another block (blocks run one after another here) or on a thread "
                   "of this block without a barrier (threads switch only at barriers and warp "
                   "operations), or an endless loop\n",
                   still, g_stall_kernel.load(), g_stall_block.load(), g_stall_thread.load());
      std::fflush(stderr);
      std::abort();
    }
  }
}
void start_watchdog() {
  static std::once_flag once;
  std::call_once(once, [] { std::thread(watchdog).detach(); });
}

Thread* current(const char* what, const char* file, int line) {
  auto* t = static_cast<Thread*>(detail::g_thread);
  if (!t || !g.grid) die("%s at %s:%d called outside a kernel", what, file, line);
  return t;
}

void progress() {  // one writer: no atomic read-modify-write
  g_progress.store(g_progress.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
}

// Leave the running thread t (it waits in a rendezvous, or has ended) for the
// next ready thread, or for the scheduler when none is ready.
void leave(Thread* t, bool exiting) {
  progress();
  Thread* n = g.pop();
  detail::g_thread = n;
  if (n) {
    g_stall_thread.store(n->linear, std::memory_order_relaxed);
    fiber_switch(&t->fiber, &n->fiber, exiting);
  } else {
    fiber_switch(&t->fiber, &g.main, exiting);
  }
}
void wait_here(Thread* t) { leave(t, false); }

void thread_main(void* arg) {
  auto* t = static_cast<Thread*>(arg);
  fiber_started();
  detail::g_thread = t;
  g.grid->body();
  t->done = true;
  ++g.block.done;
  Warp& w = g.warps[t->warp];
  ++w.done;
  if (g.block.arrived > 0)
    die("thread %u exited while %u threads of its block wait at %s at %s:%d: a barrier in "
        "divergent code (every thread of the block must reach it)",
        t->linear, g.block.arrived, barrier_name(g.block.kind), g.block.file, g.block.line);
  if (w.arrived > 0)
    die("lane %u of warp %u exited while %u lanes wait at %s at %s:%d (divergent warp operation)",
        t->lane, t->warp, w.arrived, warp_name(w.kind), w.file, w.line);
  leave(t, true);
  __builtin_unreachable();
}

void run_block(unsigned linear_block) {
  const Grid& gr = *g.grid;
  const unsigned bx = gr.block.x, by = gr.block.y;
  const unsigned n = gr.block.x * gr.block.y * gr.block.z;
  const unsigned gx = gr.grid.x, gy = gr.grid.y;
  detail::g_grid.block_idx = {linear_block % gx, (linear_block / gx) % gy,
                              linear_block / (gx * gy)};
  g_stall_block.store(linear_block, std::memory_order_relaxed);
  while (g.threads.size() < n) g.threads.push_back(std::make_unique<Thread>());
  const unsigned nwarps = (n + 31) / 32;
  g.warps.assign(nwarps, Warp{});
  for (unsigned w = 0; w < nwarps; ++w) {
    g.warps[w].lanes = n - 32 * w < 32 ? n - 32 * w : 32;
    g.warps[w].lane_mask = g.warps[w].lanes == 32 ? 0xFFFFFFFFu : (1u << g.warps[w].lanes) - 1;
  }
  Block& b = g.block;
  b.threads = n;
  b.arrived = b.done = 0;
  b.gen = 0;
  b.waiting.clear();
  g.ready.clear();
  g.head = 0;
  for (unsigned i = 0; i < n; ++i) {
    Thread* t = g.threads[i].get();
    t->thread_idx = {i % bx, (i / bx) % by, i / (bx * by)};
    t->linear = i;
    t->warp = i / 32;
    t->lane = i % 32;
    t->done = false;
    t->bar_gen = t->warp_gen = 0;
    t->spin_addr = nullptr;
    t->spins = t->naps = 0;
    if (!fiber_make_stack(&t->fiber, kStackBytes))
      die("cannot map a %zu-byte stack for thread %u", kStackBytes, i);
    fiber_prepare(&t->fiber, thread_main, t);
    g.push(t);
  }
  // threads hand over to each other; back here when none is ready
  while (Thread* t = g.pop()) {
    detail::g_thread = t;
    g_stall_thread.store(t->linear, std::memory_order_relaxed);
    fiber_switch(&g.main, &t->fiber, false);
  }
  detail::g_thread = nullptr;
  if (b.done != n)  // the checks at each arrival leave no other way: keep a message anyway
    die("%u of %u threads never finished (a rendezvous that did not complete)", n - b.done, n);
}

}  // namespace

void run_grid(const Grid& gr) {
  start_watchdog();
  fiber_init_main(&g.main);
  const unsigned blocks = gr.grid.x * gr.grid.y * gr.grid.z;
  const bool reverse = env_unsigned("ZCOLL_EMU_BLOCK_ORDER_REVERSE", 0) != 0;
  g.grid = &gr;
  detail::g_grid.block_dim = gr.block;
  detail::g_grid.grid_dim = gr.grid;
  g_stall_kernel.store(gr.name, std::memory_order_relaxed);
  g_in_grid.store(true, std::memory_order_relaxed);
  for (unsigned k = 0; k < blocks; ++k) run_block(reverse ? blocks - 1 - k : k);
  g_in_grid.store(false, std::memory_order_relaxed);
  g.grid = nullptr;
  counters().grids_run += 1;
  counters().blocks_run += blocks;
  counters().threads_run += uint64_t{blocks} * gr.block.x * gr.block.y * gr.block.z;
}

[[noreturn]] void die(const char* fmt, ...) {
  char msg[1024];
  va_list ap;
  va_start(ap, fmt);
  std::vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  std::fprintf(stderr, "zcoll CUDA emulation: %s\n", msg);
  if (g.grid) {
    const uint3 bi = detail::g_grid.block_idx;
    std::fprintf(stderr, "  in kernel %s launched at %s:%d, block (%u,%u,%u)", g.grid->name,
                 g.grid->file, g.grid->line, bi.x, bi.y, bi.z);
    if (detail::g_thread) {
      const uint3 ti = detail::g_thread->thread_idx;
      std::fprintf(stderr, ", thread (%u,%u,%u)", ti.x, ti.y, ti.z);
    }
    std::fprintf(stderr, "\n");
  }
  std::fflush(stderr);
  std::abort();
}

}  // namespace internal

namespace detail {
using internal::die;
using internal::g;

int barrier(int kind, int predicate, const char* file, int line) {
  internal::Thread* t = internal::current(internal::barrier_name(kind), file, line);
  internal::Block& b = g.block;
  internal::Warp& w = g.warps[t->warp];
  if (b.done > 0)
    die("%s at %s:%d: %u threads of the block have exited and never reach it: a barrier in "
        "divergent code",
        internal::barrier_name(kind), file, line, b.done);
  if (w.arrived > 0)
    die("%s at %s:%d reached by lane %u while %u lanes of its warp wait at %s at %s:%d: divergent "
        "code",
        internal::barrier_name(kind), file, line, t->lane, w.arrived, internal::warp_name(w.kind),
        w.file, w.line);
  if (b.arrived == 0) {
    b.kind = kind;
    b.file = file;
    b.line = line;
    b.acc_or = b.acc_count = 0;
    b.acc_and = 1;
  } else if (kind != b.kind || !internal::same_site(file, line, b.file, b.line)) {
    die("%s at %s:%d reached while %u threads of the block wait at %s at %s:%d: a barrier in "
        "divergent code",
        internal::barrier_name(kind), file, line, b.arrived, internal::barrier_name(b.kind), b.file,
        b.line);
  }
  b.acc_or |= predicate != 0;
  b.acc_and &= predicate != 0;
  b.acc_count += predicate != 0;
  internal::progress();
  t->spins = t->naps = 0;
  const uint64_t gen = b.gen;
  const int slot = static_cast<int>(gen & 1);
  if (++b.arrived == b.threads) {
    b.res[slot] = kind == kSyncOr ? b.acc_or : kind == kSyncAnd ? b.acc_and : b.acc_count;
    b.arrived = 0;
    ++b.gen;
    for (internal::Thread* o : b.waiting) {
      --g.warps[o->warp].at_barrier;
      g.push(o);
    }
    b.waiting.clear();
    return b.res[slot];
  }
  ++w.at_barrier;
  t->bar_gen = gen;
  b.waiting.push_back(t);
  internal::wait_here(t);
  return b.res[slot];
}

namespace {
// The lane whose value lane l of a warp operation of `kind` gets: a shuffle's
// source lane within l's segment of `width` lanes (l itself where the shuffle
// leaves the segment, as CUDA's do); l for the other kinds.
long shuffle_source(int kind, unsigned l, int arg, int width) {
  const unsigned seg = l & ~static_cast<unsigned>(width - 1);
  switch (kind) {
    case kShfl: return seg + (static_cast<unsigned>(arg) & static_cast<unsigned>(width - 1));
    case kShflUp:
      return static_cast<long>(l) - arg >= static_cast<long>(seg) ? static_cast<long>(l) - arg : l;
    case kShflDown: {
      const long s = static_cast<long>(l) + arg;
      return s < static_cast<long>(seg) + width ? s : l;
    }
    case kShflXor: {
      const long s = static_cast<long>(l ^ static_cast<unsigned>(arg));
      return s >= static_cast<long>(seg) && s < static_cast<long>(seg) + width ? s : l;
    }
    default: return l;
  }
}
}  // namespace

uint64_t warp(int kind, unsigned mask, uint64_t value, int arg, int width, const char* file,
              int line) {
  internal::Thread* t = internal::current(internal::warp_name(kind), file, line);
  internal::Warp& w = g.warps[t->warp];
  if (mask != w.lane_mask)
    die("%s at %s:%d with mask 0x%08x, but warp %u has lanes 0x%08x: a partial mask (the "
        "emulation, like this project's kernels, takes whole-warp masks only)",
        internal::warp_name(kind), file, line, mask, t->warp, w.lane_mask);
  if (width < 1 || width > 32 || (width & (width - 1)) != 0)
    die("%s at %s:%d with width %d (a power of 2 up to 32)", internal::warp_name(kind), file, line,
        width);
  if (w.done > 0)
    die("%s at %s:%d: %u lanes of warp %u have exited and never reach it (divergent warp "
        "operation)",
        internal::warp_name(kind), file, line, w.done, t->warp);
  if (w.at_barrier > 0)
    die("%s at %s:%d reached by lane %u while %u lanes of its warp wait at %s at %s:%d: divergent "
        "code",
        internal::warp_name(kind), file, line, t->lane, w.at_barrier,
        internal::barrier_name(g.block.kind), g.block.file, g.block.line);
  if (w.arrived == 0) {
    w.kind = kind;
    w.width = width;
    w.file = file;
    w.line = line;
  } else if (kind != w.kind || width != w.width ||
             !internal::same_site(file, line, w.file, w.line)) {
    die("%s at %s:%d reached by lane %u while %u lanes of warp %u wait at %s at %s:%d (divergent "
        "warp operation)",
        internal::warp_name(kind), file, line, t->lane, w.arrived, t->warp,
        internal::warp_name(w.kind), w.file, w.line);
  }
  w.val[t->lane] = value;
  w.arg[t->lane] = arg;
  internal::progress();
  t->spins = t->naps = 0;
  const uint64_t gen = w.gen;
  const int slot = static_cast<int>(gen & 1);
  if (++w.arrived < w.lanes) {
    w.waiting[w.arrived - 1] = t;
    t->warp_gen = gen;
    internal::wait_here(t);
    return w.res[slot][t->lane];
  }
  // the last lane: every lane's result
  uint64_t* r = w.res[slot];
  const unsigned n = w.lanes;
  uint32_t bits = 0;
  for (unsigned l = 0; l < n; ++l) bits |= (w.val[l] != 0 ? 1u : 0u) << l;
  for (unsigned l = 0; l < n; ++l) {
    const long src = shuffle_source(kind, l, w.arg[l], width);
    if (kind <= kShflXor && src >= static_cast<long>(n))
      die("%s at %s:%d: lane %u reads lane %ld, which warp %u does not have",
          internal::warp_name(kind), file, line, l, src, t->warp);
    switch (kind) {
      case kBallot: r[l] = bits; break;
      case kAny: r[l] = bits != 0; break;
      case kAll: r[l] = bits == w.lane_mask; break;
      case kSyncWarp: r[l] = 0; break;
      default: r[l] = w.val[src]; break;
    }
  }
  w.arrived = 0;
  ++w.gen;
  for (unsigned k = 0; k + 1 < n; ++k) g.push(w.waiting[k]);
  return r[t->lane];
}

void atomic_done(const void* addr, bool changed) {
  auto* t = static_cast<internal::Thread*>(g_thread);
  if (!t) return;
  if (changed) {
    t->spins = 0;
    return;
  }
  if (addr != t->spin_addr) {
    t->spin_addr = addr;
    t->spins = 1;
    return;
  }
  if (++t->spins >= internal::kSpinLimit)
    die("%u atomics in a row on %p left it unchanged: a wait for another block (which never runs "
        "meanwhile: blocks run one after another here) or for a thread of this block without a "
        "barrier in between",
        t->spins, addr);
}

void nanosleep_done() {
  auto* t = static_cast<internal::Thread*>(g_thread);
  if (t && ++t->naps >= internal::kNapLimit)
    die("%u __nanosleep calls without a barrier: a wait for another block (blocks run one after "
        "another here)",
        t->naps);
}

void device_abort(const char* what, const char* file, int line) {
  die("%s at %s:%d", what, file, line);
}

}  // namespace detail
}  // namespace zcoll::emu
