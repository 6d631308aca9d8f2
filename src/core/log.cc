// log.cc — ZCOLL_DEBUG logging to stderr.
#include "core/log.h"

#include <cstdarg>
#include <cstdio>
#include <cstring>
#include <strings.h>

#include "core/config.h"

namespace zcoll::log {

bool parse_level(const char* t, Level* out) {
  if (!t || !*t) return false;
  static const struct {
    const char* name;
    Level lvl;
  } kNames[] = {{"NONE", kNone}, {"0", kNone}, {"WARN", kWarn},   {"1", kWarn},
                {"INFO", kInfo}, {"2", kInfo}, {"TRACE", kTrace}, {"3", kTrace}};
  for (const auto& n : kNames)
    if (strcasecmp(t, n.name) == 0) {
      *out = n.lvl;
      return true;
    }
  return false;
}

Level level() {
  static const Level lvl = [] {
    Level l = kNone;
    const char* word = "NONE";
    if (config::get_choice(config::kDebug, &word) != ZCOLL_SUCCESS) {
      std::fprintf(stderr, "zcoll WARN %s; using WARN\n", zcoll_last_error());
      return kWarn;
    }
    parse_level(word, &l);
    return l;
  }();
  return lvl;
}

void write(Level lvl, int rank, int size, const char* fmt, ...) {
  static const char* kTag[] = {"NONE", "WARN", "INFO", "TRACE"};
  char msg[1024];
  va_list ap;
  va_start(ap, fmt);
  std::vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  if (rank >= 0)
    std::fprintf(stderr, "zcoll %s [%d/%d] %s\n", kTag[lvl], rank, size, msg);
  else
    std::fprintf(stderr, "zcoll %s %s\n", kTag[lvl], msg);
}

}  // namespace zcoll::log
