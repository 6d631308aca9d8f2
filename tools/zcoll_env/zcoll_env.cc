// zcoll_env.cc — zcoll-env: the ZCOLL_* environment variables, from the
// registry (src/core/config.cc).
//
//   zcoll-env              every variable with its value here (or its default),
//                          malformed values and unknown ZCOLL_* names flagged;
//                          exit status 1 if there is any
//   zcoll-env --table      name, values, default and meaning of each variable
//   zcoll-env --markdown   docs/env.md (the test docs.env_md compares them)
//   zcoll-env --parse size|rate|time TEXT...
//                          what the units module reads in each TEXT (bytes,
//                          bytes/s, seconds), "invalid" if it refuses it
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>

#include "core/config.h"
#include "core/units.h"
#ifdef ZCOLL_ENV_WITH_COLL
#include "coll/control/collective.h"
#endif

namespace {

int parse(const char* kind, int n, char** texts) {
  bool size = std::strcmp(kind, "size") == 0, rate = std::strcmp(kind, "rate") == 0,
       time = std::strcmp(kind, "time") == 0;
  if (!size && !rate && !time) {
    std::fprintf(stderr, "zcoll-env --parse: size, rate or time, not '%s'\n", kind);
    return 2;
  }
  for (int i = 0; i < n; ++i) {
    uint64_t b = 0;
    double x = 0;
    bool ok = size   ? zcoll::units::parse_size(texts[i], &b)
              : rate ? zcoll::units::parse_rate(texts[i], &x)
                     : zcoll::units::parse_time(texts[i], &x);
    if (!ok)
      std::printf("invalid\n");
    else if (size)
      std::printf("%llu\n", static_cast<unsigned long long>(b));
    else
      std::printf("%.17g\n", x);
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
#ifdef ZCOLL_ENV_WITH_COLL
  zcoll::coll::declare_algorithm_words();  // ZCOLL_<COLLECTIVE>_ALGO: the algorithm table's
#endif
  if (argc >= 3 && std::strcmp(argv[1], "--parse") == 0) return parse(argv[2], argc - 3, argv + 3);
  const char* opt = argc == 2 ? argv[1] : argc == 1 ? "" : "--help";
  if (std::strcmp(opt, "--markdown") == 0) {
    std::fputs(zcoll::config::markdown().c_str(), stdout);
    return 0;
  }
  if (std::strcmp(opt, "--table") == 0) {
    std::fputs(zcoll::config::help_text(), stdout);
    return 0;
  }
  if (*opt) {
    std::fprintf(stderr,
                 "usage: zcoll-env [--table | --markdown | --parse size|rate|time TEXT...]\n"
                 "  (no option)  every ZCOLL_* variable with its value in this environment\n"
                 "  --table      what each variable accepts, its default and meaning\n"
                 "  --markdown   the reference page docs/env.md\n"
                 "  --parse      what each TEXT means as a size (bytes), rate (bytes/s) or\n"
                 "               time (seconds), by the rules in docs/env.md\n");
    return std::strcmp(opt, "--help") == 0 || std::strcmp(opt, "-h") == 0 ? 0 : 2;
  }
  const std::string values = zcoll::config::current_values();
  std::fputs(values.c_str(), stdout);
  const bool flagged = values.find("<- INVALID") != std::string::npos ||
                       values.find("<- UNKNOWN") != std::string::npos;
  return flagged ? 1 : 0;
}
