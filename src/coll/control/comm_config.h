// comm_config.h — a handle's configuration from the ZCOLL_* environment: the
// registry (core/config.h) parses the variables, this applies them to a
// zcoll_comm_config and validates the result.
#pragma once

#include <cstddef>

#include "zcoll_mpi.h"

namespace zcoll::coll {

// Apply every set ZCOLL_* variable of the handle to cfg (the struct's values
// stay where a variable is unset), and check the handle's other variables
// (ZCOLL_AUTO_LOCAL, the per-collective algorithms). A bad value fails with
// ZCOLL_ERR_INVALID_ARG naming the variable.
zcoll_status apply_env(zcoll_comm_config* cfg);

// Validate a configuration (after the environment).
// ZCOLL_SUCCESS if algo is AUTO or an algorithm the collective has.
zcoll_status check_algorithm(zcoll_collective coll, zcoll_algorithm algo);

zcoll_status validate(const zcoll_comm_config& cfg);

// The struct_size rule (core/struct_io.h) for zcoll_comm_config, with zcoll
// 1.0's layout, whose algorithms sit in algorithm_v1 (v1_size: 1.0's size).
zcoll_status read_config(const zcoll_comm_config* in, size_t v1_size, zcoll_comm_config* out);
void write_config(zcoll_comm_config* out, const zcoll_comm_config& cfg);

// ZCOLL_AUTO_LOCAL=model (checked by apply_env).
bool auto_local_model();

}  // namespace zcoll::coll
