// backends/cuda/driver.hpp: the CUDA driver API functions the backend uses, resolved at run
// time through cudaGetDriverEntryPointByVersion. The backend therefore does not link
// libcuda.so.1, so that binaries built with C3_ENABLE_CUDA still start (and report "no CUDA
// device") on machines without an NVIDIA driver, such as CI.
#pragma once

#include <cuda.h>

namespace c3::cuda {

// Member names go through cuda.h's versioning macros (cuCtxPushCurrent ->
// cuCtxPushCurrent_v2, ...) consistently, so each pointer has the prototype of the version
// these headers call; the loader looks up the base name for that CUDA version.
#define C3_DRIVER_FUNCTIONS(X) \
  X(cuInit)                     \
  X(cuGetErrorName)             \
  X(cuGetErrorString)           \
  X(cuDeviceGet)                \
  X(cuDeviceGetDevResource)     \
  X(cuDevSmResourceSplitByCount) \
  X(cuDevResourceGenerateDesc)  \
  X(cuGreenCtxCreate)           \
  X(cuGreenCtxDestroy)          \
  X(cuCtxFromGreenCtx)          \
  X(cuGreenCtxStreamCreate)     \
  X(cuCtxPushCurrent)           \
  X(cuCtxPopCurrent)            \
  X(cuEventCreate)              \
  X(cuEventDestroy)             \
  X(cuEventRecord)              \
  X(cuEventQuery)               \
  X(cuEventElapsedTime)         \
  X(cuStreamWaitEvent)          \
  X(cuStreamQuery)              \
  X(cuStreamDestroy)

struct Driver {
#define C3_DRIVER_MEMBER(name) decltype(&::name) name = nullptr;
  C3_DRIVER_FUNCTIONS(C3_DRIVER_MEMBER)
#undef C3_DRIVER_MEMBER
};

/// The driver's functions, resolved on first use. Throws CudaFailure("unsupported") when
/// there is no driver or a function is missing (driver older than the headers).
const Driver& driver();

}  // namespace c3::cuda
