// backends/device/cu_masks.cpp: CU-mask partitions (cu_masks.hpp).
#include "backends/device/cu_masks.hpp"

#include <bit>
#include <string>

#include "backends/device/failure.hpp"

namespace c3::device {

CuPartition cu_partition(int total, int cus, int granule) {
  if (granule < 1) throw Failure("unsupported", "CU granule must be at least 1, got " + std::to_string(granule));
  if (cus <= 0 || cus >= total)
    throw Failure("unsupported", "cannot take " + std::to_string(cus) + " of " + std::to_string(total) +
                                     " CUs into a partition");
  CuPartition p;
  p.requested = cus;
  p.group = (cus + granule - 1) / granule * granule;
  if (p.group >= total)
    throw Failure("unsupported", std::to_string(cus) + " CUs round up to " + std::to_string(p.group) +
                                     " (a multiple of " + std::to_string(granule) + "), leaving none of " +
                                     std::to_string(total) + " CUs to the rest");
  p.rest = total - p.group;
  const auto words = static_cast<std::size_t>((total + 31) / 32);
  p.group_mask.assign(words, 0);
  p.rest_mask.assign(words, 0);
  for (int i = 0; i < total; ++i) {
    auto& mask = i < p.group ? p.group_mask : p.rest_mask;
    mask[static_cast<std::size_t>(i / 32)] |= 1u << (i % 32);
  }
  return p;
}

int mask_count(const std::vector<std::uint32_t>& mask) {
  int n = 0;
  for (std::uint32_t w : mask) n += std::popcount(w);
  return n;
}

}  // namespace c3::device
