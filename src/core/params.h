// params.h — validation of the codec's public parameters, shared by the CPU
// codec (libzcoll) and the GPU one (libzcoll_cuda), so both accept and reject
// exactly the same zcoll_params and dtypes with the same messages.
#pragma once

#include <cstddef>
#include <cstdint>

#include "zcoll.h"

namespace zcoll {

// Read the caller's params (the struct_size rule) into *p and validate them; on
// success *chunk_size is the effective chunk size.
zcoll_status check_params(const zcoll_params* in, zcoll_params* p, uint32_t* chunk_size);
// params.dims (check_params checked ndims and that no dim is 0) against the
// count n: their product must be n (ndims 0: any n).
zcoll_status check_dims(const zcoll_params& p, size_t n);
// ZCOLL_FLOAT32, ZCOLL_FLOAT64, ZCOLL_BFLOAT16 or ZCOLL_FLOAT16 (the GPU codec
// refuses the 16-bit ones itself).
zcoll_status check_dtype(zcoll_dtype dtype);

}  // namespace zcoll
