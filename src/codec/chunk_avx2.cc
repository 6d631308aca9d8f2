// placeholder, replaced below
#include "codec/chunk_codec.h"
namespace zcoll { const ChunkKernels* avx2_kernels() { return nullptr; } }
