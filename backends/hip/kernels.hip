// backends/hip/kernels.hip: the hip backend's own kernels: pattern fill, on-device output
// checks (collectives, copies), gathers for sampled GEMM checks, and the CU-id probe of
// CU-mask partitions. Compiled by hipcc (AMD) or, on HIP's NVIDIA platform, by nvcc.
#include <hip/hip_runtime.h>

#include <algorithm>

#include "backends/hip/kernels.hpp"

namespace c3::hip::kernels {
namespace {

constexpr int kThreads = 256;

int grid_for(std::size_t n) {
  const std::size_t blocks = (n + kThreads - 1) / kThreads;
  return static_cast<int>(std::max<std::size_t>(1, std::min<std::size_t>(blocks, 304 * 8)));
}

__global__ void fill_kernel(std::uint16_t* p, std::size_t n, FillKind kind, std::uint64_t seed, std::uint64_t offset) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride)
    p[i] = device::fill_value(kind, seed, offset + i);
}

// A block-wide reduction in shared memory (portable across wavefront and warp sizes), then
// one atomic per block that saw a mismatch.
__global__ void check_kernel(CheckArgs a, std::size_t n, unsigned long long* mismatches,
                             unsigned long long* first_bad) {
  __shared__ unsigned long long bad_s[kThreads];
  __shared__ unsigned long long first_s[kThreads];
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  unsigned long long bad = 0;
  unsigned long long first = ~0ull;
  for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride)
    if (a.out[i] != device::expected_value(a, i)) {
      ++bad;
      if (i < first) first = i;
    }
  bad_s[threadIdx.x] = bad;
  first_s[threadIdx.x] = first;
  __syncthreads();
  for (unsigned half = blockDim.x / 2; half > 0; half /= 2) {
    if (threadIdx.x < half) {
      bad_s[threadIdx.x] += bad_s[threadIdx.x + half];
      first_s[threadIdx.x] = min(first_s[threadIdx.x], first_s[threadIdx.x + half]);
    }
    __syncthreads();
  }
  if (threadIdx.x == 0 && bad_s[0]) {
    atomicAdd(mismatches, bad_s[0]);
    atomicMin(first_bad, first_s[0]);
  }
}

__global__ void gather_kernel(const std::uint16_t* src, const std::int64_t* idx, std::uint16_t* out, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = src[idx[i]];
}

__device__ unsigned long long clock_ticks() {
#if defined(__HIP_PLATFORM_AMD__)
#if defined(__HIP_DEVICE_COMPILE__)
  return __builtin_amdgcn_s_memrealtime();  // 100 MHz on MI200 and MI300
#else
  return 0;
#endif
#else
  unsigned long long t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));  // nanoseconds
  return t;
#endif
}

__device__ unsigned cu_id() {
#if defined(__HIP_PLATFORM_AMD__)
  return __smid();
#else
  unsigned id;
  asm volatile("mov.u32 %0, %%smid;" : "=r"(id));
  return id;
#endif
}

__global__ void probe_kernel(unsigned* ids, unsigned long long spin_ticks) {
  const unsigned long long t0 = clock_ticks();
  while (clock_ticks() - t0 < spin_ticks) {
  }
  if (threadIdx.x == 0) ids[blockIdx.x] = cu_id();
}

}  // namespace

hipError_t fill(std::uint16_t* p, std::size_t n, FillKind kind, std::uint64_t seed, std::uint64_t index_offset,
                hipStream_t stream) {
  if (n == 0) return hipSuccess;
  hipLaunchKernelGGL(fill_kernel, dim3(grid_for(n)), dim3(kThreads), 0, stream, p, n, kind, seed, index_offset);
  return hipGetLastError();
}

hipError_t check(const CheckArgs& args, unsigned long long* mismatches, unsigned long long* first_bad,
                 hipStream_t stream) {
  const std::size_t n = device::check_elements(args);
  if (n == 0) return hipSuccess;
  hipLaunchKernelGGL(check_kernel, dim3(grid_for(n)), dim3(kThreads), 0, stream, args, n, mismatches, first_bad);
  return hipGetLastError();
}

hipError_t gather16(const std::uint16_t* src, const std::int64_t* idx, std::uint16_t* out, int n, hipStream_t stream) {
  if (n <= 0) return hipSuccess;
  hipLaunchKernelGGL(gather_kernel, dim3((n + 127) / 128), dim3(128), 0, stream, src, idx, out, n);
  return hipGetLastError();
}

hipError_t probe_cu_ids(unsigned* ids, int blocks, unsigned spin_us, hipStream_t stream) {
#if defined(__HIP_PLATFORM_AMD__)
  const unsigned long long ticks = 100ull * spin_us;  // s_memrealtime: 100 MHz
#else
  const unsigned long long ticks = 1000ull * spin_us;  // %globaltimer: ns
#endif
  hipLaunchKernelGGL(probe_kernel, dim3(blocks), dim3(64), 0, stream, ids, ticks);
  return hipGetLastError();
}

}  // namespace c3::hip::kernels
