// backends/hip/common.hpp: internal to the hip backend: error checks that turn every HIP /
// hipBLASLt / RCCL failure into a named failure (backends/device/failure.hpp), the
// backend's poisoned-device record, and RAII for device memory.
//
// Platforms: the backend is written against HIP. On AMD (__HIP_PLATFORM_AMD__) it uses
// ROCm: CU masks, SDMA engines, hipBLASLt, RCCL. On HIP's NVIDIA platform
// (__HIP_PLATFORM_NVIDIA__, HIP's headers over CUDA) the same source runs on NVIDIA GPUs
// with NCCL standing in for RCCL (the same API); CU masks and hipBLASLt do not exist there
// and are reported as unsupported. C3_HIP_HAVE_HIPBLASLT / C3_HIP_HAVE_RCCL (0 or 1, set
// by backends/hip/CMakeLists.txt) say whether the libraries are built in.
#pragma once

#include <hip/hip_runtime_api.h>

#include <cstddef>
#include <string>

#include "c3/errors.hpp"
#include "c3/types.hpp"
#include "backends/device/failure.hpp"
#include "backends/device/patterns.hpp"

#ifndef C3_HIP_HAVE_HIPBLASLT
#define C3_HIP_HAVE_HIPBLASLT 0
#endif
#ifndef C3_HIP_HAVE_RCCL
#define C3_HIP_HAVE_RCCL 0
#endif

namespace c3::hip {

namespace pattern = device::pattern;

/// A failure with a short machine-readable code ("out_of_memory", "hip_error",
/// "hipblaslt_error", "rccl_error", "timeout", "verification_failed", "unsupported",
/// "device_unusable"). what() = "code: detail".
using HipFailure = device::Failure;

/// True on the AMD platform (ROCm), false on HIP's NVIDIA platform.
constexpr bool amd_platform() {
#if defined(__HIP_PLATFORM_AMD__)
  return true;
#else
  return false;
#endif
}
/// "AMD" or "NVIDIA": the platform HIP was compiled for.
const char* platform_name();

/// True for errors after which the device cannot be used again by this process.
bool is_sticky(hipError_t e);
/// The hip backend's poisoned-device record (device::PoisonState).
const device::PoisonState& poison_state();
bool device_poisoned();
void poison_device(const std::string& why);
std::string poison_reason();

[[noreturn]] void throw_hip(hipError_t e, const char* call, const char* file, int line);
/// "call (file:line)", the place a failure names.
std::string where(const char* call, const char* file, int line);

}  // namespace c3::hip

#define C3_HIP(call)                                                            \
  do {                                                                          \
    const hipError_t c3_e_ = (call);                                            \
    if (c3_e_ != hipSuccess) ::c3::hip::throw_hip(c3_e_, #call, __FILE__, __LINE__); \
  } while (0)

namespace c3::hip {

/// Device memory (hipMalloc), freed on destruction (unless the device is poisoned). Move-only.
class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  DeviceBuffer(int device, std::size_t bytes);
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
};

}  // namespace c3::hip
