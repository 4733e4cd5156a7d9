// backends/cuda/kernels.hpp: host launchers of the backend's own kernels (fill, check,
// gather, probes). Each returns the launch's cudaError_t; none synchronizes.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

namespace c3::cuda::kernels {

enum class FillKind : int {
  random_bits = 0,  ///< any finite non-zero bf16 (movement)
  small_int = 1,    ///< 1..31 (reductions)
  gemm_bf16 = 2,    ///< GEMM operands
  gemm_fp16 = 3,
};

/// p[i] = pattern(seed, index_offset + i), i < n (16-bit elements).
cudaError_t fill(std::uint16_t* p, std::size_t n, FillKind kind, std::uint64_t seed,
                 std::uint64_t index_offset, cudaStream_t stream);

enum class CheckKind : int {
  copy = 0,            ///< out[e] = random_bits(seed(rank0 role), offset + e)
  all_gather = 1,      ///< out[r*c + e] = random_bits(seed_r, e)
  all_to_all = 2,      ///< out on rank q: out[p*c + e] = random_bits(seed_p, q*c + e)
  reduce_scatter = 3,  ///< out on rank q: out[e] = sum_r small_int(seed_r, q*c + e)
  all_reduce = 4,      ///< out[e] = sum_r small_int(seed_r, e)
  operand = 5,         ///< out[e] = gemm_bf16 (fp16: gemm_fp16) pattern(copy_seed, copy_offset + e)
};

struct CheckArgs {
  CheckKind kind = CheckKind::copy;
  const std::uint16_t* out = nullptr;
  std::size_t count = 0;     ///< c: elements per rank chunk (copy: elements)
  int ranks = 1;
  int rank = 0;              ///< the rank whose output this is
  std::uint32_t role = 0;    ///< pattern::seed_for(role, r, epoch) gives rank r's input seed
  std::uint32_t epoch = 0;
  std::uint64_t copy_seed = 0;    ///< copy: the seed and index offset of the source
  std::uint64_t copy_offset = 0;
  bool fp16 = false;              ///< operand: the fp16 pattern rather than bf16
};

/// Adds to *mismatches the number of output elements that differ from the expected
/// pattern (bitwise), and lowers *first_bad to the smallest mismatching index.
cudaError_t check(const CheckArgs& args, unsigned long long* mismatches,
                  unsigned long long* first_bad, cudaStream_t stream);

/// out[i] = src[idx[i]], i < n.
cudaError_t gather16(const std::uint16_t* src, const std::int64_t* idx, std::uint16_t* out,
                     int n, cudaStream_t stream);

/// Probe: `blocks` blocks of 128 threads each spin `spin_ns` and write their SM id to
/// sm_ids[block].
cudaError_t probe_smid(unsigned* sm_ids, int blocks, std::uint64_t spin_ns, cudaStream_t stream);

/// Hog: `blocks` blocks of 1024 threads (at most 2 per SM, so 2 per SM fill every thread
/// slot) spin for `spin_ns`.
cudaError_t hog(int blocks, std::uint64_t spin_ns, cudaStream_t stream);

}  // namespace c3::cuda::kernels
