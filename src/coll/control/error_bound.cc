// error_bound.cc — see error_bound.h.
#include "coll/control/error_bound.h"

#include <algorithm>
#include <cmath>

namespace zcoll::coll {

double target_bound(zcoll_eb_mode eb_mode, double value, double gmin, double gmax) {
  if (eb_mode == ZCOLL_EB_ABS) return value;
  if (!(gmax >= gmin)) return value;  // no finite value anywhere
  const double range = gmax - gmin;
  if (range > 0) return value * range;
  return value * std::max(std::fabs(gmin), 1.0);
}

double result_bound(ModelFn model, const ModelIn& m, double eb) {
  ModelIn at = m;
  at.eb = eb;
  return model(at).e;
}

double per_compression_bound(ModelFn model, const ModelIn& m, double target,
                             zcoll_bound_semantics semantics) {
  if (!(std::isfinite(target) && target > 0)) return 0;
  double eb = 0;
  if (semantics == ZCOLL_BOUND_PER_COMPRESSION) {
    eb = target;
  } else if (m.op != ZCOLL_OP_PROD) {
    // Every other model is linear in eb: divide by its factor.
    const double f = result_bound(model, m, 1.0);
    eb = f > 0 ? target / f : target;
    while (f > 0 && eb > 0 && result_bound(model, m, eb) > target) eb = std::nextafter(eb, 0.0);
  } else {
    // PROD's model is a polynomial in eb with non-negative coefficients.
    double lo = 0, hi = target;
    if (result_bound(model, m, hi) <= target) {
      lo = hi;
    } else {
      for (int it = 0; it < 200 && hi - lo > 1e-300; ++it) {
        const double mid = 0.5 * (lo + hi);
        (result_bound(model, m, mid) <= target ? lo : hi) = mid;
      }
    }
    eb = lo;
  }
  return eb > 0 && std::isfinite(eb) ? eb : 0;
}

}  // namespace zcoll::coll
