// backends/cuda/kernels.hpp: host launchers of the backend's own kernels (fill, check,
// gather, probes). Each returns the launch's cudaError_t; none synchronizes.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

#include "backends/device/kernel_args.hpp"

namespace c3::cuda::kernels {

// What the kernels compute (fill values, expected outputs) is vendor-neutral
// (backends/device/kernel_args.hpp).
using device::CheckArgs;
using device::CheckKind;
using device::FillKind;

/// p[i] = pattern(seed, index_offset + i), i < n (16-bit elements).
cudaError_t fill(std::uint16_t* p, std::size_t n, FillKind kind, std::uint64_t seed,
                 std::uint64_t index_offset, cudaStream_t stream);

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

/// Gate (nvbench's blocking kernel): one thread waits until *flag >= generation (a host
/// write to mapped pinned memory), polling every microsecond; after `timeout_ns` it gives up
/// and writes `generation` to *gave_up.
cudaError_t gate(const volatile int* flag, int generation, std::uint64_t timeout_ns, int* gave_up,
                 cudaStream_t stream);

}  // namespace c3::cuda::kernels
