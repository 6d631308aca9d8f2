// cuda_runtime_api.h — zcoll's CUDA runtime emulation (docs/gpu.md, "The CUDA
// code on the CPU"): the host API subset that libzcoll_cuda, libzcoll_cuda_mpi,
// their tests and benchmarks use, declared with CUDA's names and types so that
// the CUDA sources compile unchanged as C++ for the host. Only the emulated
// targets see this directory on their include path; the real build uses the
// CUDA toolkit's header.
//
// What it is: device memory is host memory (behind a guard page), a "GPU" that
// runs kernels one block after another on the calling thread, and streams whose
// work runs at the latest point the CUDA ordering rules allow (or at once, with
// ZCOLL_EMU_SCHEDULE=sync). See tests/support/cuda_emu/emu.h for the details and the
// hooks tests use.
#pragma once

#include <cstddef>
#include <cstdint>

#if !defined(ZCOLL_CUDA_EMU)
#error "tests/support/cuda_emu/include is for the emulated build only (ZCOLL_CUDA_EMU)"
#endif

#define ZCOLL_EMU_API __attribute__((visibility("default")))

struct dim3 {
  unsigned x, y, z;
  constexpr dim3(unsigned vx = 1, unsigned vy = 1, unsigned vz = 1) : x(vx), y(vy), z(vz) {}
};
struct uint3 {
  unsigned x, y, z;
};

// The numbers are CUDA's.
enum cudaError {
  cudaSuccess = 0,
  cudaErrorInvalidValue = 1,
  cudaErrorMemoryAllocation = 2,
  cudaErrorInitializationError = 3,
  cudaErrorInvalidConfiguration = 9,
  cudaErrorInvalidDevicePointer = 17,
  cudaErrorInvalidMemcpyDirection = 21,
  cudaErrorNoDevice = 100,
  cudaErrorInvalidDevice = 101,
  cudaErrorInvalidResourceHandle = 400,
  cudaErrorNotReady = 600,
  cudaErrorLaunchOutOfResources = 701,
  cudaErrorLaunchFailure = 719,
  cudaErrorNotSupported = 801,
  cudaErrorUnknown = 999
};
typedef enum cudaError cudaError_t;

typedef struct CUstream_st* cudaStream_t;
typedef struct CUevent_st* cudaEvent_t;
typedef struct CUmemPoolHandle_st* cudaMemPool_t;

#define cudaStreamDefault 0x00u
#define cudaStreamNonBlocking 0x01u
#define cudaStreamLegacy (reinterpret_cast<cudaStream_t>(0x1))
#define cudaStreamPerThread (reinterpret_cast<cudaStream_t>(0x2))
#define cudaEventDefault 0x00u

enum cudaMemcpyKind {
  cudaMemcpyHostToHost = 0,
  cudaMemcpyHostToDevice = 1,
  cudaMemcpyDeviceToHost = 2,
  cudaMemcpyDeviceToDevice = 3,
  cudaMemcpyDefault = 4
};

enum cudaMemoryType {
  cudaMemoryTypeUnregistered = 0,
  cudaMemoryTypeHost = 1,
  cudaMemoryTypeDevice = 2,
  cudaMemoryTypeManaged = 3
};

struct cudaPointerAttributes {
  enum cudaMemoryType type;
  int device;
  void* devicePointer;
  void* hostPointer;
};

enum cudaDeviceAttr {
  cudaDevAttrMaxThreadsPerBlock = 1,
  cudaDevAttrWarpSize = 10,
  cudaDevAttrMultiProcessorCount = 16,
  cudaDevAttrComputeCapabilityMajor = 75,
  cudaDevAttrComputeCapabilityMinor = 76
};

struct cudaDeviceProp {
  char name[256];
  size_t totalGlobalMem;
  size_t sharedMemPerBlock;
  int warpSize;
  int maxThreadsPerBlock;
  int maxThreadsDim[3];
  int maxGridSize[3];
  int major;
  int minor;
  int multiProcessorCount;
  int l2CacheSize;
};

enum cudaMemPoolAttr {
  cudaMemPoolReuseFollowEventDependencies = 1,
  cudaMemPoolReuseAllowOpportunistic = 2,
  cudaMemPoolReuseAllowInternalDependencies = 3,
  cudaMemPoolAttrReleaseThreshold = 4,
  cudaMemPoolAttrReservedMemCurrent = 5,
  cudaMemPoolAttrReservedMemHigh = 6,
  cudaMemPoolAttrUsedMemCurrent = 7,
  cudaMemPoolAttrUsedMemHigh = 8
};
enum cudaMemAllocationType { cudaMemAllocationTypeInvalid = 0, cudaMemAllocationTypePinned = 1 };
enum cudaMemAllocationHandleType { cudaMemHandleTypeNone = 0 };
enum cudaMemLocationType { cudaMemLocationTypeInvalid = 0, cudaMemLocationTypeDevice = 1 };
struct cudaMemLocation {
  enum cudaMemLocationType type;
  int id;
};
struct cudaMemPoolProps {
  enum cudaMemAllocationType allocType;
  enum cudaMemAllocationHandleType handleTypes;
  struct cudaMemLocation location;
  void* win32SecurityAttributes;
  size_t maxSize;
  unsigned short usage;
  unsigned char reserved[54];
};

// ---- errors and devices
ZCOLL_EMU_API cudaError_t cudaGetLastError(void);
ZCOLL_EMU_API cudaError_t cudaPeekAtLastError(void);
ZCOLL_EMU_API const char* cudaGetErrorString(cudaError_t error);
ZCOLL_EMU_API const char* cudaGetErrorName(cudaError_t error);
ZCOLL_EMU_API cudaError_t cudaGetDeviceCount(int* count);
ZCOLL_EMU_API cudaError_t cudaGetDevice(int* device);
ZCOLL_EMU_API cudaError_t cudaSetDevice(int device);
ZCOLL_EMU_API cudaError_t cudaDeviceGetAttribute(int* value, enum cudaDeviceAttr attr, int device);
ZCOLL_EMU_API cudaError_t cudaGetDeviceProperties(struct cudaDeviceProp* prop, int device);
ZCOLL_EMU_API cudaError_t cudaDeviceSynchronize(void);

// ---- memory
ZCOLL_EMU_API cudaError_t cudaMalloc(void** ptr, size_t size);
ZCOLL_EMU_API cudaError_t cudaFree(void* ptr);
ZCOLL_EMU_API cudaError_t cudaMallocHost(void** ptr, size_t size);
ZCOLL_EMU_API cudaError_t cudaFreeHost(void* ptr);
ZCOLL_EMU_API cudaError_t cudaMallocManaged(void** ptr, size_t size, unsigned flags = 1);
ZCOLL_EMU_API cudaError_t cudaPointerGetAttributes(struct cudaPointerAttributes* attributes,
                                                   const void* ptr);
ZCOLL_EMU_API cudaError_t cudaMemcpy(void* dst, const void* src, size_t count,
                                     enum cudaMemcpyKind kind);
ZCOLL_EMU_API cudaError_t cudaMemcpyAsync(void* dst, const void* src, size_t count,
                                          enum cudaMemcpyKind kind, cudaStream_t stream = 0);
ZCOLL_EMU_API cudaError_t cudaMemset(void* dst, int value, size_t count);
ZCOLL_EMU_API cudaError_t cudaMemsetAsync(void* dst, int value, size_t count,
                                          cudaStream_t stream = 0);

// ---- stream-ordered allocation and memory pools
ZCOLL_EMU_API cudaError_t cudaMallocAsync(void** ptr, size_t size, cudaStream_t stream);
ZCOLL_EMU_API cudaError_t cudaMallocFromPoolAsync(void** ptr, size_t size, cudaMemPool_t pool,
                                                  cudaStream_t stream);
ZCOLL_EMU_API cudaError_t cudaFreeAsync(void* ptr, cudaStream_t stream);
ZCOLL_EMU_API cudaError_t cudaDeviceGetDefaultMemPool(cudaMemPool_t* pool, int device);
ZCOLL_EMU_API cudaError_t cudaMemPoolCreate(cudaMemPool_t* pool,
                                            const struct cudaMemPoolProps* props);
ZCOLL_EMU_API cudaError_t cudaMemPoolDestroy(cudaMemPool_t pool);
ZCOLL_EMU_API cudaError_t cudaMemPoolSetAttribute(cudaMemPool_t pool, enum cudaMemPoolAttr attr,
                                                  void* value);
ZCOLL_EMU_API cudaError_t cudaMemPoolGetAttribute(cudaMemPool_t pool, enum cudaMemPoolAttr attr,
                                                  void* value);
ZCOLL_EMU_API cudaError_t cudaMemPoolTrimTo(cudaMemPool_t pool, size_t min_bytes_to_keep);

// ---- streams and events
ZCOLL_EMU_API cudaError_t cudaStreamCreate(cudaStream_t* stream);
ZCOLL_EMU_API cudaError_t cudaStreamCreateWithFlags(cudaStream_t* stream, unsigned flags);
ZCOLL_EMU_API cudaError_t cudaStreamDestroy(cudaStream_t stream);
ZCOLL_EMU_API cudaError_t cudaStreamSynchronize(cudaStream_t stream);
ZCOLL_EMU_API cudaError_t cudaStreamQuery(cudaStream_t stream);
ZCOLL_EMU_API cudaError_t cudaStreamWaitEvent(cudaStream_t stream, cudaEvent_t event,
                                              unsigned flags = 0);
ZCOLL_EMU_API cudaError_t cudaEventCreate(cudaEvent_t* event);
ZCOLL_EMU_API cudaError_t cudaEventCreateWithFlags(cudaEvent_t* event, unsigned flags);
ZCOLL_EMU_API cudaError_t cudaEventDestroy(cudaEvent_t event);
ZCOLL_EMU_API cudaError_t cudaEventRecord(cudaEvent_t event, cudaStream_t stream = 0);
ZCOLL_EMU_API cudaError_t cudaEventSynchronize(cudaEvent_t event);
ZCOLL_EMU_API cudaError_t cudaEventQuery(cudaEvent_t event);
ZCOLL_EMU_API cudaError_t cudaEventElapsedTime(float* ms, cudaEvent_t start, cudaEvent_t end);
