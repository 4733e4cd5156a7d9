// backends/hip/common.cpp: named failures and device memory (common.hpp).
#include "backends/hip/common.hpp"

#include <utility>

namespace c3::hip {
namespace {

device::PoisonState g_poison;

}  // namespace

const char* platform_name() { return amd_platform() ? "AMD" : "NVIDIA"; }

std::string where(const char* call, const char* file, int line) {
  std::string f = file;
  const auto slash = f.find_last_of('/');
  if (slash != std::string::npos) f = f.substr(slash + 1);
  return std::string(call) + " (" + f + ":" + std::to_string(line) + ")";
}

bool is_sticky(hipError_t e) {
  switch (e) {
    case hipErrorIllegalAddress:
    case hipErrorLaunchFailure:
    case hipErrorAssert:
    case hipErrorLaunchTimeOut:
    case hipErrorECCNotCorrectable:
    case hipErrorUnknown:
      return true;
    default:
      return false;
  }
}

const device::PoisonState& poison_state() { return g_poison; }
bool device_poisoned() { return g_poison.poisoned(); }
void poison_device(const std::string& why) { g_poison.poison(why); }
std::string poison_reason() { return g_poison.reason(); }

void throw_hip(hipError_t e, const char* call, const char* file, int line) {
  const std::string detail = std::string(hipGetErrorName(e)) + " (" + hipGetErrorString(e) + ") in " +
                             where(call, file, line);
  // A non-sticky error stays the runtime's "last error" until read: clear it, so that the
  // next launch check does not report it again.
  (void)hipGetLastError();
  if (e == hipErrorOutOfMemory) throw HipFailure("out_of_memory", detail);
  if (is_sticky(e)) poison_device(detail);
  throw HipFailure("hip_error", detail);
}

DeviceBuffer::DeviceBuffer(int device, std::size_t bytes) : device_(device), bytes_(bytes) {
  if (device_poisoned()) throw HipFailure("device_unusable", poison_reason());
  C3_HIP(hipSetDevice(device));
  if (bytes == 0) return;
  void* p = nullptr;
  C3_HIP(hipMalloc(&p, bytes));
  ptr_ = p;
}

DeviceBuffer::~DeviceBuffer() { reset(); }

DeviceBuffer::DeviceBuffer(DeviceBuffer&& other) noexcept
    : device_(std::exchange(other.device_, -1)),
      ptr_(std::exchange(other.ptr_, nullptr)),
      bytes_(std::exchange(other.bytes_, 0)) {}

DeviceBuffer& DeviceBuffer::operator=(DeviceBuffer&& other) noexcept {
  if (this != &other) {
    reset();
    device_ = std::exchange(other.device_, -1);
    ptr_ = std::exchange(other.ptr_, nullptr);
    bytes_ = std::exchange(other.bytes_, 0);
  }
  return *this;
}

void DeviceBuffer::reset() {
  if (ptr_ && !device_poisoned()) {
    int current = 0;
    (void)hipGetDevice(&current);
    (void)hipSetDevice(device_);
    (void)hipFree(ptr_);
    (void)hipSetDevice(current);
  }
  ptr_ = nullptr;
  bytes_ = 0;
}

}  // namespace c3::hip
