// backends/cuda/common.cpp: named failures and device memory (see common.hpp).
#include "backends/cuda/common.hpp"

#include <mutex>
#include <utility>

namespace c3::cuda {
namespace {

device::PoisonState g_poison;

std::string where(const char* call, const char* file, int line) {
  std::string f = file;
  const auto slash = f.find_last_of('/');
  if (slash != std::string::npos) f = f.substr(slash + 1);
  return std::string(call) + " (" + f + ":" + std::to_string(line) + ")";
}

}  // namespace

const Driver& driver() {
  static Driver d;
  static std::string error;
  static std::once_flag once;
  std::call_once(once, [] {
    auto load = [](const char* name, void** slot) {
      cudaDriverEntryPointQueryResult status = cudaDriverEntryPointSymbolNotFound;
      void* fn = nullptr;
      const cudaError_t e =
          cudaGetDriverEntryPointByVersion(name, &fn, CUDA_VERSION, cudaEnableDefault, &status);
      if (e != cudaSuccess || status != cudaDriverEntryPointSuccess || !fn) {
        if (error.empty())
          error = std::string("CUDA driver function ") + name + " unavailable (" +
                  (e != cudaSuccess ? cudaGetErrorString(e)
                                    : status == cudaDriverEntryPointVersionNotSufficent
                                          ? "driver older than CUDA " + std::to_string(CUDA_VERSION)
                                          : std::string("symbol not found")) +
                  ")";
        cudaGetLastError();
        return;
      }
      *slot = fn;
    };
#define C3_LOAD(name) load(#name, reinterpret_cast<void**>(&d.name));
    C3_DRIVER_FUNCTIONS(C3_LOAD)
#undef C3_LOAD
  });
  if (!error.empty()) throw CudaFailure("unsupported", error);
  return d;
}

bool is_sticky(cudaError_t e) {
  switch (e) {
    case cudaErrorIllegalAddress:
    case cudaErrorLaunchFailure:
    case cudaErrorHardwareStackError:
    case cudaErrorIllegalInstruction:
    case cudaErrorMisalignedAddress:
    case cudaErrorInvalidAddressSpace:
    case cudaErrorInvalidPc:
    case cudaErrorAssert:
    case cudaErrorLaunchTimeout:
    case cudaErrorECCUncorrectable:
    case cudaErrorUnknown:
    case cudaErrorDevicesUnavailable:
      return true;
    default:
      return false;
  }
}

const device::PoisonState& poison_state() { return g_poison; }

bool device_poisoned() { return g_poison.poisoned(); }

void poison_device(const std::string& why) { g_poison.poison(why); }

std::string poison_reason() { return g_poison.reason(); }

void throw_cuda(cudaError_t e, const char* call, const char* file, int line) {
  const std::string detail = std::string(cudaGetErrorName(e)) + " (" + cudaGetErrorString(e) +
                             ") in " + where(call, file, line);
  if (e == cudaErrorMemoryAllocation) {
    cudaGetLastError();  // clear the (non-sticky) error
    throw CudaFailure("out_of_memory", detail);
  }
  if (is_sticky(e)) poison_device(detail);
  // A non-sticky error stays the runtime's "last error" until read: clear it, or the next
  // kernel launch check (cudaGetLastError) would report this failure again (seen after a
  // refused stream capture: the next measurement's fill kernel failed with it).
  cudaGetLastError();
  throw CudaFailure("cuda_error", detail);
}

void throw_driver(CUresult e, const char* call, const char* file, int line) {
  const char* name = nullptr;
  const char* text = nullptr;
  driver().cuGetErrorName(e, &name);
  driver().cuGetErrorString(e, &text);
  const std::string detail = std::string(name ? name : "CUresult " + std::to_string(e)) + " (" +
                             (text ? text : "?") + ") in " + where(call, file, line);
  if (e == CUDA_ERROR_OUT_OF_MEMORY) throw CudaFailure("out_of_memory", detail);
  if (e == CUDA_ERROR_ILLEGAL_ADDRESS || e == CUDA_ERROR_LAUNCH_FAILED) poison_device(detail);
  throw CudaFailure("driver_error", detail);
}

void throw_cublas(cublasStatus_t e, const char* call, const char* file, int line) {
  const std::string detail = std::string(cublasLtGetStatusName(e)) + " (" +
                             cublasLtGetStatusString(e) + ") in " + where(call, file, line);
  if (e == CUBLAS_STATUS_ALLOC_FAILED) throw CudaFailure("out_of_memory", detail);
  if (e == CUBLAS_STATUS_NOT_SUPPORTED) throw CudaFailure("unsupported", detail);
  throw CudaFailure("cublas_error", detail);
}

void throw_nccl(ncclResult_t e, const char* call, const char* file, int line) {
  const char* last = ncclGetLastError(nullptr);
  std::string detail = std::string(ncclGetErrorString(e)) + " in " + where(call, file, line);
  if (last && *last) detail += ": " + std::string(last);
  throw CudaFailure("nccl_error", detail);
}

DeviceBuffer::DeviceBuffer(int device, std::size_t bytes, Alloc alloc)
    : device_(device), bytes_(bytes), alloc_(alloc) {
  if (device_poisoned()) throw CudaFailure("device_unusable", poison_reason());
  C3_CUDA(cudaSetDevice(device));
  if (bytes == 0) return;
  void* p = nullptr;
  if (alloc == Alloc::nccl_mem)
    C3_NCCL(ncclMemAlloc(&p, bytes));
  else
    C3_CUDA(cudaMalloc(&p, bytes));
  ptr_ = p;
}

DeviceBuffer::~DeviceBuffer() { reset(); }

DeviceBuffer::DeviceBuffer(DeviceBuffer&& other) noexcept
    : device_(std::exchange(other.device_, -1)),
      ptr_(std::exchange(other.ptr_, nullptr)),
      bytes_(std::exchange(other.bytes_, 0)),
      alloc_(other.alloc_) {}

DeviceBuffer& DeviceBuffer::operator=(DeviceBuffer&& other) noexcept {
  if (this != &other) {
    reset();
    device_ = std::exchange(other.device_, -1);
    ptr_ = std::exchange(other.ptr_, nullptr);
    bytes_ = std::exchange(other.bytes_, 0);
    alloc_ = other.alloc_;
  }
  return *this;
}

void DeviceBuffer::reset() {
  if (ptr_ && !device_poisoned()) {
    int current = 0;
    cudaGetDevice(&current);
    cudaSetDevice(device_);
    if (alloc_ == Alloc::nccl_mem)
      ncclMemFree(ptr_);
    else
      cudaFree(ptr_);
    cudaSetDevice(current);
  }
  ptr_ = nullptr;
  bytes_ = 0;
}

ScopedContext::ScopedContext(CUcontext ctx) {
  if (ctx) {
    C3_CU(driver().cuCtxPushCurrent(ctx));
    pushed_ = true;
  }
}

ScopedContext::~ScopedContext() {
  if (pushed_) {
    CUcontext popped = nullptr;
    driver().cuCtxPopCurrent(&popped);
  }
}

cudaDataType_t cuda_data_type(DType t) {
  switch (t) {
    case DType::bf16:
      return CUDA_R_16BF;
    case DType::fp16:
      return CUDA_R_16F;
    default:
      throw CudaFailure("unsupported", "the cuda backend runs bf16 and fp16 GEMMs only (got " +
                                           std::string(to_string(t)) + ")");
  }
}

}  // namespace c3::cuda
