// error.h — status helpers: set the thread's detailed message and return a code.
#pragma once

#include "zcoll.h"

namespace zcoll {

// Record a printf-style message for zcoll_last_error() and return status.
zcoll_status fail(zcoll_status status, const char* fmt, ...)
    __attribute__((format(printf, 2, 3)));
void clear_error();

}  // namespace zcoll

#define ZCOLL_CHECK(expr)                       \
  do {                                          \
    zcoll_status zcoll_check_s_ = (expr);       \
    if (zcoll_check_s_ != ZCOLL_SUCCESS) return zcoll_check_s_; \
  } while (0)
