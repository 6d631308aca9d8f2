// error_bound.h — from the bound the user configured to the absolute bound of
// one compression, and back to the bound the report states. Pure functions
// (no MPI, no handle): the dispatcher calls them after the settings agreement,
// and the unit tests call them directly.
#pragma once

#include "coll/control/algorithms.h"

namespace zcoll::coll {

// The absolute bound the configuration asks for: ABS -> value; REL -> value *
// (gmax - gmin) over every rank's finite inputs; a constant field (range 0)
// -> value * max(|gmin|, 1); no finite value anywhere (gmax < gmin) -> value.
double target_bound(zcoll_eb_mode eb_mode, double value, double gmin, double gmax);

// The per-compression bound eb for an algorithm whose error model is `model`
// evaluated at m (m.eb ignored):
//   PER_COMPRESSION: eb = target;
//   RESULT:          the largest eb with model(eb).e <= target (linear models
//                    are divided by their factor, then nudged down until the
//                    inequality holds in floating point; PROD by bisection).
// Returns 0 when no positive finite eb exists (the caller then runs RAW).
double per_compression_bound(ModelFn model, const ModelIn& m, double target,
                             zcoll_bound_semantics semantics);

// The bound of the result the algorithm guarantees at per-compression bound eb.
double result_bound(ModelFn model, const ModelIn& m, double eb);

}  // namespace zcoll::coll
