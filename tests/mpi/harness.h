// harness.h — what the MPI test programs share (coll_test.cc under mpiexec,
// inproc_test.cc with ranks as threads): EXPECT with a count of checks and
// failures, group names checked against the program's list (an unknown name is
// a failure, not a silent no-op), and the closing line, where a run that
// checked nothing fails too.
#pragma once

#include <atomic>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

namespace zcoll_testing {

inline std::atomic<long> g_checks{0}, g_failures{0};
inline int g_rank = 0;  // printed with each failure (MPI programs set it)

// Count a check; print the first 30 failures with this rank, file and line.
#define EXPECT(cond, ...)                                                                 \
  do {                                                                                    \
    ++zcoll_testing::g_checks;                                                            \
    if (!(cond) && ++zcoll_testing::g_failures <= 30) {                                   \
      std::fprintf(stderr, "[rank %d] FAIL %s:%d: %s: ", zcoll_testing::g_rank, __FILE__, \
                   __LINE__, #cond);                                                      \
      std::fprintf(stderr, __VA_ARGS__);                                                  \
      std::fprintf(stderr, "\n");                                                         \
    }                                                                                     \
  } while (0)

// False (with a message naming the known groups) if a requested group is not
// one of `known` (nullptr-terminated).
inline bool check_group_names(const std::vector<std::string>& requested, const char* const* known) {
  bool ok = true;
  for (const std::string& g : requested) {
    bool found = false;
    for (const char* const* k = known; *k; ++k) found = found || g == *k;
    if (!found) {
      std::fprintf(stderr, "unknown test group '%s'; known:", g.c_str());
      for (const char* const* k = known; *k; ++k) std::fprintf(stderr, " %s", *k);
      std::fprintf(stderr, "\n");
      ok = false;
    }
  }
  return ok;
}

// The closing line; the exit status: 0 only if something was checked and
// nothing failed.
inline int finish(const char* what, long checks, long failures, double seconds) {
  std::printf("%s: %ld checks, %ld failures, %.1f s%s\n", what, checks, failures, seconds,
              checks == 0 ? " (nothing was checked: a failure)" : "");
  return checks > 0 && failures == 0 ? 0 : 1;
}

}  // namespace zcoll_testing
