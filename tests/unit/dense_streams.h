// dense_streams.h — what the dense-codec tests read off a stream.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "codec/dense.h"
#include "codec/format.h"
#include "test_util.h"

namespace zt {

// The predictor id of every chunk of a stream (docs/format.md §5.3; 0 for a
// chunk that is not dense).
inline std::vector<int> dense_predictors(const std::vector<uint8_t>& z) {
  const zcoll_info info = inspect(z);
  std::vector<int> ids;
  size_t at = info.header_size;
  for (uint64_t c = 0; c < info.chunks; ++c) {
    ids.push_back(z[at] == zcoll::kChunkDense ? z[at + 1] : 0);
    at += zcoll::load_u32(&z[48 + 4 * c]);  // the index: chunk sizes from byte 48
  }
  return ids;
}

}  // namespace zt
