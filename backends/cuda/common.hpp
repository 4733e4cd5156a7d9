// backends/cuda/common.hpp: internal to the cuda backend: error checks that turn every
// CUDA / driver / cuBLAS / NCCL failure into a named failure (backends/device/failure.hpp),
// the backend's poisoned-device record, and RAII for device memory.
#pragma once

#include <cublasLt.h>
#include <cuda.h>
#include <cuda_runtime_api.h>
#include <nccl.h>

#include <cstddef>
#include <string>

#include "c3/errors.hpp"
#include "c3/types.hpp"
#include "backends/cuda/driver.hpp"
#include "backends/device/failure.hpp"
#include "backends/device/patterns.hpp"

namespace c3::cuda {

namespace pattern = device::pattern;

/// A failure with a short machine-readable code ("out_of_memory", "cuda_error",
/// "driver_error", "cublas_error", "nccl_error", "timeout", "verification_failed",
/// "unsupported", "device_unusable"). what() = "code: detail".
using CudaFailure = device::Failure;

/// True for errors after which the CUDA context cannot be used again.
bool is_sticky(cudaError_t e);
/// Set once a sticky error or a timeout happened: later work fails fast and memory is
/// no longer freed (freeing would wait for hung kernels). The cuda backend's own record.
const device::PoisonState& poison_state();
bool device_poisoned();
void poison_device(const std::string& why);
std::string poison_reason();

[[noreturn]] void throw_cuda(cudaError_t e, const char* call, const char* file, int line);
[[noreturn]] void throw_driver(CUresult e, const char* call, const char* file, int line);
[[noreturn]] void throw_cublas(cublasStatus_t e, const char* call, const char* file, int line);
[[noreturn]] void throw_nccl(ncclResult_t e, const char* call, const char* file, int line);

}  // namespace c3::cuda

#define C3_CUDA(call)                                                             \
  do {                                                                            \
    const cudaError_t c3_e_ = (call);                                             \
    if (c3_e_ != cudaSuccess) ::c3::cuda::throw_cuda(c3_e_, #call, __FILE__, __LINE__); \
  } while (0)
#define C3_CU(call)                                                                  \
  do {                                                                               \
    const CUresult c3_e_ = (call);                                                   \
    if (c3_e_ != CUDA_SUCCESS) ::c3::cuda::throw_driver(c3_e_, #call, __FILE__, __LINE__); \
  } while (0)
#define C3_CUBLAS(call)                                                                       \
  do {                                                                                        \
    const cublasStatus_t c3_e_ = (call);                                                      \
    if (c3_e_ != CUBLAS_STATUS_SUCCESS) ::c3::cuda::throw_cublas(c3_e_, #call, __FILE__, __LINE__); \
  } while (0)
#define C3_NCCL(call)                                                                 \
  do {                                                                                \
    const ncclResult_t c3_e_ = (call);                                                \
    if (c3_e_ != ncclSuccess) ::c3::cuda::throw_nccl(c3_e_, #call, __FILE__, __LINE__); \
  } while (0)

namespace c3::cuda {

/// How a DeviceBuffer is allocated: cudaMalloc, or ncclMemAlloc (cuMem-backed memory that
/// NCCL can register in a symmetric window; its copy-engine path needs it).
enum class Alloc { cuda_malloc, nccl_mem };

/// Device memory, freed on destruction (unless the device is poisoned). Move-only.
class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  DeviceBuffer(int device, std::size_t bytes, Alloc alloc = Alloc::cuda_malloc);
  ~DeviceBuffer();
  DeviceBuffer(DeviceBuffer&& other) noexcept;
  DeviceBuffer& operator=(DeviceBuffer&& other) noexcept;
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;

  void* get() const { return ptr_; }
  template <typename T>
  T* as() const {
    return static_cast<T*>(ptr_);
  }
  std::size_t bytes() const { return bytes_; }
  int device() const { return device_; }
  void reset();

 private:
  int device_ = -1;
  void* ptr_ = nullptr;
  std::size_t bytes_ = 0;
  Alloc alloc_ = Alloc::cuda_malloc;
};

/// Makes `ctx` current for the scope (a green context's CUcontext), then restores.
class ScopedContext {
 public:
  explicit ScopedContext(CUcontext ctx);
  ~ScopedContext();
  ScopedContext(const ScopedContext&) = delete;
  ScopedContext& operator=(const ScopedContext&) = delete;

 private:
  bool pushed_ = false;
};

/// The CUDA type of a GEMM operand: bf16 or fp16. Throws CudaFailure("unsupported") for others.
cudaDataType_t cuda_data_type(DType t);

}  // namespace c3::cuda
