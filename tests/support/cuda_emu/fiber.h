// fiber.h — the execution contexts of the emulated GPU threads: a stack of its
// own and a saved register set; a switch saves the running context and resumes
// another. x86-64: a hand-written switch (callee-saved registers, MXCSR and the
// x87 control word; no system call); elsewhere ucontext. Under
// AddressSanitizer every switch is announced (__sanitizer_*_switch_fiber).
#pragma once

#include <cstddef>

#if !defined(__x86_64__)
#include <ucontext.h>
#endif

namespace zcoll::emu::internal {

struct Fiber {
  void* sp = nullptr;  // saved stack pointer (x86-64)
#if !defined(__x86_64__)
  ucontext_t uc;
#endif
  void* map = nullptr;  // the stack's mapping (guard page at its low end)
  size_t map_size = 0;
  const void* stack_lo = nullptr;  // the usable stack
  size_t stack_size = 0;
  char* exit_sp = nullptr;  // where it ended (sanitizer: its frames' redzones above)
};

// Give f a stack of `bytes` (once; false when the memory is not there).
bool fiber_make_stack(Fiber* f, size_t bytes);
// The next switch to f starts entry(arg) on f's stack (entry must not return:
// it ends by switching away with exiting = true).
void fiber_prepare(Fiber* f, void (*entry)(void*), void* arg);
// Save the running context in `from` and resume `to`. exiting: `from` is never
// resumed again.
void fiber_switch(Fiber* from, Fiber* to, bool exiting);
// The calling thread's own context, before it switches to fibers (its stack
// bounds, for the sanitizer).
void fiber_init_main(Fiber* main);
// First thing a fiber's entry function does (sanitizer bookkeeping).
void fiber_started();

}  // namespace zcoll::emu::internal
