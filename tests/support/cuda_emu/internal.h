// internal.h — what the parts of the CUDA emulation share (not for its users).
#pragma once

#include <cstdarg>
#include <functional>
#include <mutex>

#include "cuda_emu/emu.h"

namespace zcoll::emu::internal {

// One lock for the whole emulated device: API calls and the grids they run.
std::recursive_mutex& device_mutex();

struct Grid {
  dim3 grid, block;
  std::function<void()> body;
  const char* name;
  const char* file;
  int line;
};
// Run every block of the grid (exec.cc); the caller holds device_mutex().
void run_grid(const Grid& g);

// Counters of stats() (runtime.cc)
Stats& counters();

// Print "zcoll CUDA emulation: <message>", where (kernel, block, thread) when a
// grid runs, and abort.
[[noreturn]] void die(const char* fmt, ...) __attribute__((format(printf, 1, 2)));

// Environment knobs (read once).
unsigned env_unsigned(const char* name, unsigned fallback);

}  // namespace zcoll::emu::internal
