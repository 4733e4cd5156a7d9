// calibrate/median.hpp: the median the fits take of their per-bin values.
#pragma once

#include <algorithm>
#include <vector>

namespace c3::validator {

/// The median of `v` (the mean of the middle two for an even count); `v` must not be empty.
inline double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 == 1 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

}  // namespace c3::validator
