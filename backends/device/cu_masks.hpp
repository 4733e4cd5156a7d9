// backends/device/cu_masks.hpp: a partition of an AMD GPU's compute units as the two CU
// masks of hipExtStreamCreateWithCUMask (the ConCCL paper's mechanism): the group that a
// partition takes (the collective's, or the CUs removed from a GEMM) and the rest.
//
// The amdgpu driver maps mask bit i of a multi-XCC GPU (MI300X: 8 XCDs of 38 CUs) to XCC
// i mod n_xcc (mqd_symmetrically_map_cu_mask): the lowest k bits are spread evenly over
// the XCCs when k is a multiple of their count. Work is dispatched round-robin over the
// XCCs, so a mask must hold CUs on every XCC: a group is rounded up to a multiple of
// `granule` (the XCC count; 8 on MI300X, which is also the paper's minimum of 8 CUs).
// Plain data: unit-tested in CI; the hip backend creates the streams.
#pragma once

#include <cstdint>
#include <vector>

namespace c3::device {

struct CuPartition {
  int requested = 0;  ///< compute units asked for
  int group = 0;      ///< compute units in the group (requested rounded up to the granule)
  int rest = 0;       ///< total - group
  std::vector<std::uint32_t> group_mask;  ///< bits [0, group), 32 CUs per word
  std::vector<std::uint32_t> rest_mask;   ///< bits [group, total)
};

/// The partition of `total` compute units taking `cus` into the group, rounded up to a
/// multiple of `granule` (>= 1). Throws Failure("unsupported") when cus <= 0, granule < 1,
/// or the group would leave no compute unit to the rest.
CuPartition cu_partition(int total, int cus, int granule);

/// Set bits of a mask.
int mask_count(const std::vector<std::uint32_t>& mask);

}  // namespace c3::device
