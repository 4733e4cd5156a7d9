// backends/cuda/kernels.cu: the backend's own kernels: pattern fill, on-device output
// checks (collectives, copies, moved GEMM operands), gathers for sampled GEMM checks, and
// the SM-partition probes.
#include "backends/cuda/kernels.hpp"

#include <cuda_runtime.h>

#include <algorithm>

namespace c3::cuda::kernels {
namespace {

constexpr int kThreads = 256;

int grid_for(std::size_t n) {
  const std::size_t blocks = (n + kThreads - 1) / kThreads;
  return static_cast<int>(std::max<std::size_t>(1, std::min<std::size_t>(blocks, 132 * 16)));
}

__device__ __forceinline__ std::uint64_t globaltimer() {
  std::uint64_t t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

__device__ __forceinline__ unsigned smid() {
  unsigned id;
  asm volatile("mov.u32 %0, %%smid;" : "=r"(id));
  return id;
}

__global__ void fill_kernel(std::uint16_t* p, std::size_t n, FillKind kind, std::uint64_t seed,
                            std::uint64_t offset) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += stride)
    p[i] = device::fill_value(kind, seed, offset + i);
}

__global__ void check_kernel(CheckArgs a, std::size_t n, unsigned long long* mismatches,
                             unsigned long long* first_bad) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  unsigned long long bad = 0;
  unsigned long long first = ~0ull;
  for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += stride) {
    if (a.out[i] != device::expected_value(a, i)) {
      ++bad;
      if (i < first) first = i;
    }
  }
  // warp-aggregate, then one atomic per warp that saw a mismatch
  for (int off = 16; off > 0; off >>= 1) {
    bad += __shfl_down_sync(0xFFFFFFFFu, bad, off);
    const unsigned long long other = __shfl_down_sync(0xFFFFFFFFu, first, off);
    first = other < first ? other : first;
  }
  if ((threadIdx.x & 31) == 0 && bad) {
    atomicAdd(mismatches, bad);
    atomicMin(first_bad, first);
  }
}

__global__ void gather_kernel(const std::uint16_t* src, const std::int64_t* idx, std::uint16_t* out,
                              int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = src[idx[i]];
}

__global__ void probe_smid_kernel(unsigned* ids, std::uint64_t spin_ns) {
  const std::uint64_t t0 = globaltimer();
  while (globaltimer() - t0 < spin_ns) {
  }
  if (threadIdx.x == 0) ids[blockIdx.x] = smid();
}

__global__ void __launch_bounds__(1024, 2) hog_kernel(std::uint64_t spin_ns) {
  const std::uint64_t t0 = globaltimer();
  while (globaltimer() - t0 < spin_ns) {
  }
}

__global__ void gate_kernel(const volatile int* flag, int generation, std::uint64_t timeout_ns, int* gave_up) {
  const std::uint64_t t0 = globaltimer();
  while (*flag < generation) {
    if (globaltimer() - t0 > timeout_ns) {
      *reinterpret_cast<volatile int*>(gave_up) = generation;
      return;
    }
    __nanosleep(1000);
  }
}

}  // namespace

cudaError_t fill(std::uint16_t* p, std::size_t n, FillKind kind, std::uint64_t seed,
                 std::uint64_t index_offset, cudaStream_t stream) {
  if (n == 0) return cudaSuccess;
  fill_kernel<<<grid_for(n), kThreads, 0, stream>>>(p, n, kind, seed, index_offset);
  return cudaGetLastError();
}

cudaError_t check(const CheckArgs& args, unsigned long long* mismatches,
                  unsigned long long* first_bad, cudaStream_t stream) {
  const std::size_t n = device::check_elements(args);
  if (n == 0) return cudaSuccess;
  check_kernel<<<grid_for(n), kThreads, 0, stream>>>(args, n, mismatches, first_bad);
  return cudaGetLastError();
}

cudaError_t gather16(const std::uint16_t* src, const std::int64_t* idx, std::uint16_t* out,
                     int n, cudaStream_t stream) {
  if (n <= 0) return cudaSuccess;
  gather_kernel<<<(n + 127) / 128, 128, 0, stream>>>(src, idx, out, n);
  return cudaGetLastError();
}

cudaError_t probe_smid(unsigned* sm_ids, int blocks, std::uint64_t spin_ns, cudaStream_t stream) {
  probe_smid_kernel<<<blocks, 128, 0, stream>>>(sm_ids, spin_ns);
  return cudaGetLastError();
}

cudaError_t hog(int blocks, std::uint64_t spin_ns, cudaStream_t stream) {
  hog_kernel<<<blocks, 1024, 0, stream>>>(spin_ns);
  return cudaGetLastError();
}

cudaError_t gate(const volatile int* flag, int generation, std::uint64_t timeout_ns, int* gave_up,
                 cudaStream_t stream) {
  gate_kernel<<<1, 1, 0, stream>>>(flag, generation, timeout_ns, gave_up);
  return cudaGetLastError();
}

}  // namespace c3::cuda::kernels
