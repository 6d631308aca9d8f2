// settings.cc — the shim's configuration, read once at MPI_Init from the
// ZCOLL_PMPI* variables of the registry (src/core/config.cc), and the datatype
// and op rules of eligibility.
#include <cstdio>
#include <cstring>

#include "core/config.h"
#include "coll/control/collective.h"
#include "pmpi/shim.h"

namespace zcoll::pmpi {

namespace {
Settings g_settings;

bool flag(config::Var v, bool* out, std::string* message) {
  const char* w = nullptr;
  if (config::get_choice(v, &w) != ZCOLL_SUCCESS) {
    *message = zcoll_last_error();
    return false;
  }
  *out = std::strcmp(w, "1") == 0;
  return true;
}

bool list(config::Var v, const char** out, std::string* message) {
  if (config::get_list(v, out) != ZCOLL_SUCCESS) {
    *message = zcoll_last_error();
    return false;
  }
  return true;
}
}  // namespace

const char* coll_word(Coll c) { return coll::is_collective(c) ? coll::traits(c).name : "?"; }

const Settings& settings() { return g_settings; }

bool load_settings(std::string* message) {
  Settings s;
  bool on = false;
  if (!flag(config::kPmpi, &on, message)) return false;
  if (!on) {
    g_settings = s;  // disabled
    return true;
  }
  // No default bound under the shim: both variables must be set.
  const char* eb_mode = nullptr;
  double eb = 0;
  bool mode_set = false, eb_set = false;
  if (config::get_choice(config::kEbMode, &eb_mode, &mode_set) != ZCOLL_SUCCESS ||
      config::get_double(config::kErrorBound, &eb, &eb_set) != ZCOLL_SUCCESS) {
    *message = zcoll_last_error();
    return false;
  }
  if (!mode_set || !eb_set) {
    *message =
        "ZCOLL_PMPI=1 needs an explicit error bound: set both ZCOLL_EB_MODE (abs|rel) and "
        "ZCOLL_ERROR_BOUND (no default applies under the shim; docs/pmpi.md)";
    return false;
  }
  char text[64];
  std::snprintf(text, sizeof text, "%s %g", eb_mode, eb);
  s.eb_text = text;

  const char* types = nullptr;
  const char* ops = nullptr;
  const char* colls = nullptr;
  const char* comms = nullptr;
  if (!list(config::kPmpiTypes, &types, message) || !list(config::kPmpiOps, &ops, message) ||
      !list(config::kPmpiColls, &colls, message))
    return false;
  if (config::get_path(config::kPmpiComms, &comms) != ZCOLL_SUCCESS ||
      config::get_size(config::kPmpiMinBytes, &s.min_bytes) != ZCOLL_SUCCESS) {
    *message = zcoll_last_error();
    return false;
  }
  s.comms = comms;
  s.type_float = config::list_has(types, "float");
  s.type_double = config::list_has(types, "double");
  s.type_real = config::list_has(types, "real");
  s.type_double_precision = config::list_has(types, "double_precision");
  s.op_sum = config::list_has(ops, "sum");
  s.op_max = config::list_has(ops, "max");
  s.op_min = config::list_has(ops, "min");
  s.op_prod = config::list_has(ops, "prod");
  const bool all = config::list_has(colls, "all");
  for (int c = 0; c < ZCOLL_MAX_COLLECTIVES; ++c)
    s.coll[c] = coll::is_collective(static_cast<Coll>(c)) &&
                (all || config::list_has(colls, coll_word(static_cast<Coll>(c))));
  if (!flag(config::kPmpiReport, &s.report, message) ||
      !flag(config::kPmpiVerify, &s.verify, message))
    return false;
  s.enabled = true;
  g_settings = s;
  return true;
}

MPI_Datatype zcoll_type(MPI_Datatype dt) {
  const Settings& s = g_settings;
  if (dt == MPI_DATATYPE_NULL) return MPI_DATATYPE_NULL;
  if (dt == MPI_FLOAT) return s.type_float ? MPI_FLOAT : MPI_DATATYPE_NULL;
  if (dt == MPI_DOUBLE) return s.type_double ? MPI_DOUBLE : MPI_DATATYPE_NULL;
  // The Fortran types only when listed, and only with the C type's size.
  int size = 0;
  if (s.type_real && dt == MPI_REAL && PMPI_Type_size(dt, &size) == MPI_SUCCESS &&
      size == sizeof(float))
    return MPI_FLOAT;
  if (s.type_double_precision && dt == MPI_DOUBLE_PRECISION &&
      PMPI_Type_size(dt, &size) == MPI_SUCCESS && size == sizeof(double))
    return MPI_DOUBLE;
  return MPI_DATATYPE_NULL;
}

bool op_allowed(MPI_Op op) {
  const Settings& s = g_settings;
  return (op == MPI_SUM && s.op_sum) || (op == MPI_MAX && s.op_max) ||
         (op == MPI_MIN && s.op_min) || (op == MPI_PROD && s.op_prod);
}

}  // namespace zcoll::pmpi
