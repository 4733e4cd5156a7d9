// evaluate/intervals.cpp: how sure a measured share is (docs/accuracy.md, "Summary").
#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

#include "c3/evaluate.hpp"

namespace c3::validator {

ShareInterval wilson_interval(int successes, int trials, double z) {
  if (trials < 0 || successes < 0 || successes > trials)
    throw std::invalid_argument("wilson_interval: " + std::to_string(successes) + " successes of " +
                                std::to_string(trials) + " trials (need 0 <= successes <= trials)");
  if (!std::isfinite(z) || z <= 0)
    throw std::invalid_argument("wilson_interval: z must be finite and positive");
  if (trials == 0) return {};
  const double n = trials;
  const double p = successes / n;
  const double z2 = z * z;
  const double denominator = 1.0 + z2 / n;
  const double centre = (p + z2 / (2.0 * n)) / denominator;
  const double half_width = z * std::sqrt(p * (1.0 - p) / n + z2 / (4.0 * n * n)) / denominator;
  return {std::max(0.0, centre - half_width), std::min(1.0, centre + half_width)};
}

}  // namespace c3::validator
