// fiber.cc — stacks and context switches of the emulated GPU threads (fiber.h).
#include "cuda_emu/fiber.h"

#include <pthread.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>

#if defined(__SANITIZE_ADDRESS__)
#define ZCOLL_EMU_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define ZCOLL_EMU_ASAN 1
#endif
#endif
#if defined(ZCOLL_EMU_ASAN)
#include <sanitizer/asan_interface.h>
#include <sanitizer/common_interface_defs.h>
#endif

#if defined(__x86_64__)
// zcoll_emu_swap(void** save_sp, void* new_sp): push the callee-saved registers
// on the running stack, save its pointer, load the other one and pop its
// registers. The floating-point control words (MXCSR, x87) are not switched:
// every fiber runs with the host thread's. zcoll_emu_trampoline: the first
// "return address" of a new fiber; calls r13(r12).
asm(R"(
  .text
  .p2align 4
  .globl zcoll_emu_swap
  .hidden zcoll_emu_swap
  .type zcoll_emu_swap,@function
zcoll_emu_swap:
  pushq %rbp
  pushq %rbx
  pushq %r12
  pushq %r13
  pushq %r14
  pushq %r15
  movq %rsp, (%rdi)
  movq %rsi, %rsp
  popq %r15
  popq %r14
  popq %r13
  popq %r12
  popq %rbx
  popq %rbp
  ret
  .size zcoll_emu_swap, .-zcoll_emu_swap

  .p2align 4
  .globl zcoll_emu_trampoline
  .hidden zcoll_emu_trampoline
  .type zcoll_emu_trampoline,@function
zcoll_emu_trampoline:
  movq %r12, %rdi
  callq *%r13
  ud2
  .size zcoll_emu_trampoline, .-zcoll_emu_trampoline
)");
extern "C" void zcoll_emu_swap(void** save_sp, void* new_sp);
extern "C" void zcoll_emu_trampoline();
#endif

namespace zcoll::emu::internal {

bool fiber_make_stack(Fiber* f, size_t bytes) {
  if (f->map) return true;
  const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  const size_t size = (bytes + page - 1) / page * page + page;
  void* m = mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
                 -1, 0);
  if (m == MAP_FAILED) return false;
  mprotect(m, page, PROT_NONE);  // a stack overflow faults instead of writing elsewhere
  f->map = m;
  f->map_size = size;
  f->stack_lo = static_cast<char*>(m) + page;
  f->stack_size = size - page;
  return true;
}

void fiber_prepare(Fiber* f, void (*entry)(void*), void* arg) {
#if defined(ZCOLL_EMU_ASAN)
  // a stack used before keeps the redzones of the frames its fiber was in when
  // it ended (it never returned through them; returned frames clear their own):
  // clear them, from a little below the last frame to the top
  if (f->exit_sp) {
    const auto lo = reinterpret_cast<uintptr_t>(f->stack_lo);
    const auto hi = lo + f->stack_size;
    uintptr_t from = reinterpret_cast<uintptr_t>(f->exit_sp) - 1024;
    if (from < lo) from = lo;
    __asan_unpoison_memory_region(reinterpret_cast<void*>(from), hi - from);
    f->exit_sp = nullptr;
  }
#endif
#if defined(__x86_64__)
  auto top = reinterpret_cast<uintptr_t>(f->stack_lo) + f->stack_size;
  top &= ~uintptr_t{15};
  // the frame zcoll_emu_swap pops: r15 r14 r13 r12 rbx rbp, then the return
  // address; the trampoline starts with a 16-byte aligned stack, as a call needs
  auto* frame = reinterpret_cast<uint64_t*>(top - 56);
  frame[0] = 0;                                  // r15
  frame[1] = 0;                                  // r14
  frame[2] = reinterpret_cast<uint64_t>(entry);  // r13
  frame[3] = reinterpret_cast<uint64_t>(arg);    // r12
  frame[4] = 0;                                  // rbx
  frame[5] = 0;                                  // rbp: the end of frame-pointer chains
  frame[6] = reinterpret_cast<uint64_t>(&zcoll_emu_trampoline);
  f->sp = frame;
#else
  getcontext(&f->uc);
  f->uc.uc_stack.ss_sp = const_cast<void*>(f->stack_lo);
  f->uc.uc_stack.ss_size = f->stack_size;
  f->uc.uc_link = nullptr;
  // makecontext passes int arguments: the pointer in two halves
  const auto p = reinterpret_cast<uintptr_t>(arg);
  struct Start {
    static void run(unsigned hi, unsigned lo, unsigned ehi, unsigned elo) {
      auto e = reinterpret_cast<void (*)(void*)>((uintptr_t{ehi} << 32) | elo);
      e(reinterpret_cast<void*>((uintptr_t{hi} << 32) | lo));
    }
  };
  const auto e = reinterpret_cast<uintptr_t>(entry);
  makecontext(&f->uc, reinterpret_cast<void (*)()>(&Start::run), 4, static_cast<unsigned>(p >> 32),
              static_cast<unsigned>(p), static_cast<unsigned>(e >> 32), static_cast<unsigned>(e));
#endif
}

void fiber_switch(Fiber* from, Fiber* to, bool exiting) {
#if defined(ZCOLL_EMU_ASAN)
  void* fake = nullptr;
  if (exiting) from->exit_sp = static_cast<char*>(__builtin_frame_address(0));
  __sanitizer_start_switch_fiber(exiting ? nullptr : &fake, to->stack_lo, to->stack_size);
#else
  (void)exiting;
#endif
#if defined(__x86_64__)
  zcoll_emu_swap(&from->sp, to->sp);
#else
  swapcontext(&from->uc, &to->uc);
#endif
#if defined(ZCOLL_EMU_ASAN)
  const void* lo = nullptr;
  size_t size = 0;
  __sanitizer_finish_switch_fiber(fake, &lo, &size);
#endif
}

void fiber_init_main(Fiber* main) {
#if defined(ZCOLL_EMU_ASAN)
  thread_local void* lo = nullptr;  // the thread's stack, read once
  thread_local size_t size = 0;
  if (!lo) {
    pthread_attr_t a;
    if (pthread_getattr_np(pthread_self(), &a) == 0) {
      pthread_attr_getstack(&a, &lo, &size);
      pthread_attr_destroy(&a);
    }
  }
  main->stack_lo = lo;
  main->stack_size = size;
#else
  (void)main;
#endif
}

void fiber_started() {
#if defined(ZCOLL_EMU_ASAN)
  const void* lo = nullptr;
  size_t size = 0;
  __sanitizer_finish_switch_fiber(nullptr, &lo, &size);
#endif
}

}  // namespace zcoll::emu::internal
