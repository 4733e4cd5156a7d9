// backends/hip/kernels.hpp: host launchers of the hip backend's own kernels (fill, check,
// gather, CU-id probe), kernels.hip. Each returns the launch's hipError_t; none
// synchronizes. What they compute is backends/device/kernel_args.hpp's.
#pragma once

#include <hip/hip_runtime_api.h>

#include <cstddef>
#include <cstdint>

#include "backends/device/kernel_args.hpp"

namespace c3::hip::kernels {

using device::CheckArgs;
using device::CheckKind;
using device::FillKind;

/// p[i] = device::fill_value(kind, seed, index_offset + i), i < n (16-bit elements).
hipError_t fill(std::uint16_t* p, std::size_t n, FillKind kind, std::uint64_t seed, std::uint64_t index_offset,
                hipStream_t stream);

/// Adds to *mismatches the output elements that differ from device::expected_value
/// (bitwise), and lowers *first_bad to the smallest mismatching index.
hipError_t check(const CheckArgs& args, unsigned long long* mismatches, unsigned long long* first_bad,
                 hipStream_t stream);

/// out[i] = src[idx[i]], i < n.
hipError_t gather16(const std::uint16_t* src, const std::int64_t* idx, std::uint16_t* out, int n, hipStream_t stream);

/// Probe: `blocks` blocks of 64 threads each spin about `spin_us` microseconds and write
/// the id of the compute unit they ran on (AMD: __smid(), CU and shader engine; NVIDIA:
/// %smid) to ids[block].
hipError_t probe_cu_ids(unsigned* ids, int blocks, unsigned spin_us, hipStream_t stream);

}  // namespace c3::hip::kernels
