// calibrate/partition_fit.hpp: a collective's slowdown in a partition by size and CUs
// (docs/model.md §3), fitted from the isolated collectives of `measure --isolated-only
// --collective-partitions` files (calibrate --collective-partitions).
#pragma once

#include <cstddef>
#include <map>
#include <string>
#include <vector>

#include "c3/measurements.hpp"
#include "c3/profile.hpp"

namespace c3::validator {

/// Sizes a row of the table needs (the median over them is its value).
inline constexpr std::size_t kMinSizesPerPartitionRow = 3;
/// Sizes within this factor of each other start in one row (a row is closed at the first
/// size past it once it holds kMinSizesPerPartitionRow sizes).
inline constexpr double kPartitionRowSpan = 4.0;

/// The profile's collective_slowdown_by_size from the ok, verified records of `files` at
/// `ranks` ranks on the library's transport: for each collective kind and size measured both
/// on the library's default CUs (cus 0) and on every CU count c > 0 (below `compute_units`)
/// measured for that kind, the ratio time(c) / time(default) within each file, and its median
/// over the files. Sizes in increasing order are grouped into rows (a row holds
/// kMinSizesPerPartitionRow sizes or more, and starts a new one at the first size more than
/// kPartitionRowSpan times its first; fewer sizes left at the end join the last row); a row's
/// size is the geometric mean of its sizes (whole bytes) and its slowdown at c the median of their ratios.
/// A kind with fewer than kMinSizesPerPartitionRow such sizes gets no table; a note says what
/// each kind got. Named "collective_slowdown_by_size.<kind>", provenance `source`.
std::map<CollectiveKind, SizedSlowdown> fit_collective_partitions(const std::vector<RawMeasurements>& files,
                                                                  int ranks, int compute_units,
                                                                  const Provenance& source,
                                                                  std::vector<std::string>& notes);

}  // namespace c3::validator
