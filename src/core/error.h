// error.h — status helpers: set the thread's detailed message and return a code,
// and the guard that keeps C++ exceptions from crossing the C API.
#pragma once

#include <exception>
#include <new>

#include "zcoll.h"

extern "C" {
// Set (message != NULL) or clear (NULL) the calling thread's last-error message.
// Defined and exported by libzcoll (src/codec/library.cc), undocumented: core is
// linked into libzcoll and libzcoll_mpi, and both report through this one slot,
// so zcoll_last_error() sees the failures of either library.
ZCOLL_API void zcoll_internal_set_error(const char* message);
}

namespace zcoll {

// Record a printf-style message for zcoll_last_error() and return status. Cold:
// the compiler moves the paths that fail out of the way of the ones that succeed.
zcoll_status fail(zcoll_status status, const char* fmt, ...)
    __attribute__((format(printf, 2, 3), cold));
void clear_error();

// The status of an exception caught at the C boundary (with its message
// recorded): std::bad_alloc -> ZCOLL_ERR_NO_MEMORY, anything else ->
// ZCOLL_ERR_INTERNAL. Call only inside a catch block.
zcoll_status status_of_current_exception(const char* where) noexcept;

// Run the body of an extern "C" entry point: no exception leaves it.
//   zcoll_status zcoll_x(...) { return zcoll::guarded("zcoll_x", [&] { ... }); }
template <typename Body>
zcoll_status guarded(const char* where, Body&& body) noexcept {
  try {
    return body();
  } catch (...) {
    return status_of_current_exception(where);
  }
}

// Exceptions must not leave an OpenMP region either: each thread runs its part
// through run(), which keeps the first exception; rethrow() after the region
// hands it to the entry point's guard.
//   TeamErrors errs;
//   #pragma omp parallel
//   errs.run([&] { ... });
//   errs.rethrow();
class TeamErrors {
 public:
  template <typename Work>
  void run(Work&& work) noexcept {
    try {
      work();
    } catch (...) {
      keep(std::current_exception());
    }
  }
  void rethrow() const {
    if (first_) std::rethrow_exception(first_);
  }
  // Whether a thread's work threw (read it after the team's barrier).
  bool failed() const { return first_ != nullptr; }

 private:
  void keep(std::exception_ptr e) noexcept;
  std::exception_ptr first_;
};

}  // namespace zcoll

#define ZCOLL_CHECK(expr)                                       \
  do {                                                          \
    zcoll_status zcoll_check_s_ = (expr);                       \
    if (zcoll_check_s_ != ZCOLL_SUCCESS) return zcoll_check_s_; \
  } while (0)
