#include "core/params.h"

#include <cmath>
#include <cstdio>
#include <cstring>
#include <string>

#include "core/error.h"
#include "core/struct_io.h"

namespace zcoll {

// Chunks hold whole blocks of 32 values (format v1; codec/format.h kBlock).
constexpr uint32_t kChunkMultiple = 32;

zcoll_status check_params(const zcoll_params* in, zcoll_params* p, uint32_t* chunk_size) {
  *p = ZCOLL_PARAMS_INITIALIZER;
  ZCOLL_CHECK(read_struct(in, ZCOLL_STRUCT_V1_SIZE(zcoll_params, chunk_size), "params", p));
  // read as an int: a C caller may store any value, which is not a valid C++ enum load
  static_assert(sizeof(zcoll_eb_mode) == sizeof(int), "enum size");
  int mode;
  std::memcpy(&mode, &p->eb_mode, sizeof mode);
  if (mode != ZCOLL_EB_ABS && mode != ZCOLL_EB_REL)
    return fail(ZCOLL_ERR_INVALID_ARG, "unknown error-bound mode %d", mode);
  if (!(std::isfinite(p->error_bound) && p->error_bound > 0))
    return fail(ZCOLL_ERR_INVALID_ARG, "error bound must be a positive finite number, got %g",
                p->error_bound);
  uint32_t cs = p->chunk_size ? p->chunk_size : ZCOLL_DEFAULT_CHUNK_SIZE;
  if (cs % kChunkMultiple != 0 || cs < ZCOLL_MIN_CHUNK_SIZE || cs > ZCOLL_MAX_CHUNK_SIZE)
    return fail(ZCOLL_ERR_INVALID_ARG, "chunk size %u must be a multiple of 32 in [%u, %u]", cs,
                ZCOLL_MIN_CHUNK_SIZE, ZCOLL_MAX_CHUNK_SIZE);
  if (p->flags & ~static_cast<uint64_t>(ZCOLL_FLAG_CHECKSUM))
    return fail(ZCOLL_ERR_INVALID_ARG, "unknown params.flags 0x%llx",
                static_cast<unsigned long long>(p->flags));
  int codec;
  static_assert(sizeof(zcoll_codec) == sizeof(int), "enum size");
  std::memcpy(&codec, &p->codec, sizeof codec);
  if (codec != ZCOLL_CODEC_FAST && codec != ZCOLL_CODEC_DENSE)
    return fail(ZCOLL_ERR_INVALID_ARG, "unknown codec %d", codec);
  if (p->ndims > ZCOLL_MAX_DIMS)
    return fail(ZCOLL_ERR_INVALID_ARG, "ndims %u exceeds ZCOLL_MAX_DIMS = %u", p->ndims,
                ZCOLL_MAX_DIMS);
  for (uint32_t d = 0; d < p->ndims; ++d)
    if (p->dims[d] == 0) return fail(ZCOLL_ERR_INVALID_ARG, "dims[%u] is 0", d);
  *chunk_size = cs;
  return ZCOLL_SUCCESS;
}

zcoll_status check_dims(const zcoll_params& p, size_t n) {
  if (p.ndims == 0) return ZCOLL_SUCCESS;
  uint64_t prod = 1;
  bool over = false;
  for (uint32_t d = 0; d < p.ndims; ++d)
    over = over || __builtin_mul_overflow(prod, p.dims[d], &prod);
  if (over || prod != n) {
    char shape[8 * 21 + 1] = "";
    size_t at = 0;
    for (uint32_t d = 0; d < p.ndims && at < sizeof shape; ++d)
      at += static_cast<size_t>(std::snprintf(shape + at, sizeof shape - at, d ? "x%llu" : "%llu",
                                              static_cast<unsigned long long>(p.dims[d])));
    return fail(ZCOLL_ERR_INVALID_ARG, "dims %s hold %s values, not n = %zu", shape,
                over ? "more than 2^64" : std::to_string(prod).c_str(), n);
  }
  return ZCOLL_SUCCESS;
}

zcoll_status check_dtype(zcoll_dtype dtype) {
  if (dtype != ZCOLL_FLOAT32 && dtype != ZCOLL_FLOAT64 && dtype != ZCOLL_BFLOAT16 &&
      dtype != ZCOLL_FLOAT16)
    return fail(ZCOLL_ERR_UNSUPPORTED, "unsupported dtype code %d", static_cast<int>(dtype));
  return ZCOLL_SUCCESS;
}

}  // namespace zcoll
