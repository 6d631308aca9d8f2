// library.cc — libzcoll's library-wide entry points: status strings, the
// version, and the process's one last-error slot (per thread). libzcoll_mpi has
// no slot of its own: its copy of core reports here (zcoll_internal_set_error).
#include <cstring>

#include "core/error.h"
#include "zcoll_version.h"

namespace {
thread_local char t_last_error[512] = "";
}

extern "C" {

void zcoll_internal_set_error(const char* message) {
  if (!message) {
    t_last_error[0] = '\0';
    return;
  }
  std::strncpy(t_last_error, message, sizeof t_last_error - 1);
  t_last_error[sizeof t_last_error - 1] = '\0';
}

const char* zcoll_last_error(void) { return t_last_error; }

const char* zcoll_status_string(zcoll_status status) {
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

zcoll_status zcoll_get_version(int* version) {
  zcoll::clear_error();
  if (!version) return zcoll::fail(ZCOLL_ERR_INVALID_ARG, "version is NULL");
  *version = ZCOLL_VERSION_CODE;
  return ZCOLL_SUCCESS;
}

const char* zcoll_version_string(void) { return ZCOLL_VERSION_STRING; }

}  // extern "C"
