// stream_internal.h — helpers shared by the stream API and the homomorphic ops.
#pragma once

#include <cstdint>

#include "codec/format.h"
#include "zcoll.h"

namespace zcoll {

// threads (0 = OpenMP default), capped by the number of work items, at least 1.
int resolve_threads(int threads, uint64_t work_items);
// Validate params; on success *chunk_size is the effective chunk size.
zcoll_status check_params(const zcoll_params* p, uint32_t* chunk_size);
zcoll_status check_dtype(zcoll_dtype dtype);
// Framing check of every chunk (kind byte, raw size, code lengths vs size).
zcoll_status validate_all_chunks(const StreamView& v);

}  // namespace zcoll
