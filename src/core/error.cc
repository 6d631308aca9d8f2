// error.cc — fail() / clear_error() and the exception-to-status mapping. The
// message slot itself is libzcoll's (zcoll_internal_set_error, library.cc).
#include "core/error.h"

#include <cstdarg>
#include <cstdio>
#include <stdexcept>

namespace zcoll {

zcoll_status fail(zcoll_status status, const char* fmt, ...) {
  char msg[512];
  va_list ap;
  va_start(ap, fmt);
  std::vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  zcoll_internal_set_error(msg);
  return status;
}

void clear_error() { zcoll_internal_set_error(nullptr); }

zcoll_status status_of_current_exception(const char* where) noexcept {
  try {
    throw;
  } catch (const std::bad_alloc&) {
    return fail(ZCOLL_ERR_NO_MEMORY, "%s: out of memory", where);
  } catch (const std::exception& e) {
    return fail(ZCOLL_ERR_INTERNAL, "%s: internal error: %s", where, e.what());
  } catch (...) {
    return fail(ZCOLL_ERR_INTERNAL, "%s: internal error (unknown exception)", where);
  }
}

void TeamErrors::keep(std::exception_ptr e) noexcept {
#pragma omp critical(zcoll_team_errors)
  if (!first_) first_ = e;
}

}  // namespace zcoll
