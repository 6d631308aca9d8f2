// gpu_checks.h — the GPU benchmarks' error exits: CK for CUDA runtime calls,
// ZK for zcoll calls (a benchmark has nothing to recover: it reports and stops).
#pragma once

#include <cuda_runtime_api.h>

#include <cstdio>
#include <cstdlib>

#include "zcoll.h"

#define CK(x)                                                                                 \
  do {                                                                                        \
    cudaError_t e_ = (x);                                                                     \
    if (e_ != cudaSuccess) {                                                                  \
      std::fprintf(stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_)); \
      std::exit(2);                                                                           \
    }                                                                                         \
  } while (0)
#define ZK(x)                                                                   \
  do {                                                                          \
    zcoll_status s_ = (x);                                                      \
    if (s_ != ZCOLL_SUCCESS) {                                                  \
      std::fprintf(stderr, "%s failed: %s (%s)\n", #x, zcoll_status_string(s_), \
                   zcoll_last_error());                                         \
      std::exit(3);                                                             \
    }                                                                           \
  } while (0)
