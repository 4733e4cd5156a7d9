// backends/cuda/kernels.cu: the backend's own kernels: pattern fill, on-device output
// checks (collectives, copies, moved GEMM operands), gathers for sampled GEMM checks, and
// the SM-partition probes.
#include "backends/cuda/kernels.hpp"

#include <cuda_runtime.h>

#include <algorithm>

#include "backends/cuda/patterns.hpp"

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

__global__ void fill_kernel(std::uint16_t* p, std::size_t n, int kind, std::uint64_t seed,
                            std::uint64_t offset) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += stride) {
    const std::uint64_t index = offset + i;
    std::uint16_t v;
    switch (kind) {
      case 1:
        v = pattern::int_to_bf16_bits(pattern::small_int_value(seed, index));
        break;
      case 2:
        v = pattern::gemm_bf16_bits(seed, index);
        break;
      case 3:
        v = pattern::gemm_fp16_bits(seed, index);
        break;
      default:
        v = pattern::random_bits(seed, index);
        break;
    }
    p[i] = v;
  }
}

__device__ std::uint16_t expected(const CheckArgs& a, std::size_t i) {
  using namespace pattern;
  const std::size_t c = a.count;
  switch (a.kind) {
    case CheckKind::all_gather: {
      const int r = static_cast<int>(i / c);
      return random_bits(seed_for(a.role, r, a.epoch), i % c);
    }
    case CheckKind::all_to_all: {
      const int p = static_cast<int>(i / c);
      return random_bits(seed_for(a.role, p, a.epoch), static_cast<std::uint64_t>(a.rank) * c + i % c);
    }
    case CheckKind::reduce_scatter: {
      std::uint32_t sum = 0;
      for (int r = 0; r < a.ranks; ++r)
        sum += small_int_value(seed_for(a.role, r, a.epoch), static_cast<std::uint64_t>(a.rank) * c + i);
      return int_to_bf16_bits(sum);
    }
    case CheckKind::all_reduce: {
      std::uint32_t sum = 0;
      for (int r = 0; r < a.ranks; ++r) sum += small_int_value(seed_for(a.role, r, a.epoch), i);
      return int_to_bf16_bits(sum);
    }
    case CheckKind::operand:
      return a.fp16 ? gemm_fp16_bits(a.copy_seed, a.copy_offset + i) : gemm_bf16_bits(a.copy_seed, a.copy_offset + i);
    default:
      return random_bits(a.copy_seed, a.copy_offset + i);
  }
}

__global__ void check_kernel(CheckArgs a, std::size_t n, unsigned long long* mismatches,
                             unsigned long long* first_bad) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  unsigned long long bad = 0;
  unsigned long long first = ~0ull;
  for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += stride) {
    if (a.out[i] != expected(a, i)) {
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

}  // namespace

cudaError_t fill(std::uint16_t* p, std::size_t n, FillKind kind, std::uint64_t seed,
                 std::uint64_t index_offset, cudaStream_t stream) {
  if (n == 0) return cudaSuccess;
  fill_kernel<<<grid_for(n), kThreads, 0, stream>>>(p, n, static_cast<int>(kind), seed, index_offset);
  return cudaGetLastError();
}

cudaError_t check(const CheckArgs& args, unsigned long long* mismatches,
                  unsigned long long* first_bad, cudaStream_t stream) {
  std::size_t n = args.count;
  if (args.kind == CheckKind::all_gather || args.kind == CheckKind::all_to_all)
    n = args.count * static_cast<std::size_t>(args.ranks);
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

}  // namespace c3::cuda::kernels
