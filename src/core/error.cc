// error.cc — status strings and the per-thread last-error message.
#include "core/error.h"

#include <cstdarg>
#include <cstdio>

namespace zcoll {

namespace {
thread_local char t_last_error[512] = "";
}

zcoll_status fail(zcoll_status status, const char* fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  std::vsnprintf(t_last_error, sizeof t_last_error, fmt, ap);
  va_end(ap);
  return status;
}

void clear_error() { t_last_error[0] = '\0'; }

}  // namespace zcoll

extern "C" const char* zcoll_status_string(zcoll_status status) {
  switch (status) {
    case ZCOLL_SUCCESS: return "success";
    case ZCOLL_ERR_INVALID_ARG: return "invalid argument";
    case ZCOLL_ERR_BUFFER_TOO_SMALL: return "output buffer too small";
    case ZCOLL_ERR_CORRUPT: return "corrupt compressed stream";
    case ZCOLL_ERR_TRUNCATED: return "truncated compressed stream";
    case ZCOLL_ERR_UNSUPPORTED: return "unsupported format version, type or operation";
    case ZCOLL_ERR_MISMATCH: return "streams cannot be combined (settings differ)";
    case ZCOLL_ERR_NO_MEMORY: return "out of memory";
    case ZCOLL_ERR_INTERNAL: return "internal error";
    case ZCOLL_ERR_MPI: return "MPI error";
  }
  return "unknown status code";
}

extern "C" const char* zcoll_last_error(void) { return zcoll::t_last_error; }
