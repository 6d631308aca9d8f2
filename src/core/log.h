// log.h — ZCOLL_DEBUG logging: NONE (default), WARN, INFO (one line per
// collective call: mode, algorithm and why), TRACE (every phase, all ranks).
#pragma once

namespace zcoll::log {

enum Level { kNone = 0, kWarn = 1, kInfo = 2, kTrace = 3 };

// The level from ZCOLL_DEBUG (read once; NONE/WARN/INFO/TRACE or 0..3).
Level level();
// Parse a level name; false if unknown.
bool parse_level(const char* text, Level* out);

// Print "zcoll <LEVEL> [rank/size] message" to stderr if lvl <= level().
// rank < 0 leaves out the rank prefix.
void write(Level lvl, int rank, int size, const char* fmt, ...)
    __attribute__((format(printf, 4, 5)));

}  // namespace zcoll::log

#define ZCOLL_LOG(lvl, rank, size, ...)                                                          \
  do {                                                                                           \
    if (::zcoll::log::level() >= (lvl)) ::zcoll::log::write((lvl), (rank), (size), __VA_ARGS__); \
  } while (0)
