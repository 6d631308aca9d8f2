// config.h — the one registry of ZCOLL_* environment variables. Each knob is
// declared once (name, accepted values, default, meaning, how it applies to a
// zcoll_comm_config); docs/env.md and zcoll_mpi_env_help() come from this table.
#pragma once

#include <cstddef>

#include "zcoll_mpi.h"

namespace zcoll::config {

struct Param {
  const char* name;      // ZCOLL_...
  const char* values;    // accepted values
  const char* def;       // default
  const char* doc;       // one-line meaning
  // Parse text into cfg; nullptr for variables read elsewhere (ZCOLL_DEBUG, ZCOLL_SIMD).
  zcoll_status (*apply)(const char* text, zcoll_comm_config* cfg);
};

// The table (static storage).
const Param* params(size_t* count);

// Apply every set ZCOLL_* variable to cfg. A bad value fails with
// ZCOLL_ERR_INVALID_ARG naming the variable.
zcoll_status apply_env(zcoll_comm_config* cfg);

// Validate a configuration (after the environment).
zcoll_status validate(const zcoll_comm_config& cfg);

// "1M", "64K", "65536", "2G" -> bytes/values; false on junk.
bool parse_size(const char* text, size_t* out);

// The help table (static, built once).
const char* help_text();

}  // namespace zcoll::config
