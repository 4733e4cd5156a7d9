// calibrate/sustained_fit.hpp: a GEMM's slowdown back to back in a chain, where the GPU
// holds its power limit (docs/model.md §4.6), fitted from a sustained-GEMM file
// (scripts/gpu-jobs/torch_sustained.py; calibrate --sustained).
#pragma once

#include <string>
#include <vector>

#include "c3/measurements.hpp"
#include "c3/profile.hpp"

namespace c3::validator {

/// Records a bin needs to give a point.
inline constexpr std::size_t kMinSustainedPerBin = 3;

/// The profile's sustained_gemm_slowdown from `file`: its ok, verified records binned by
/// their time alone in octaves (2^i us <= burst_s < 2^(i+1) us); each bin of
/// kMinSustainedPerBin records or more gives one point, x the bin's median burst_s and y
/// the median of sustained_s / burst_s, held at >= 1 (the power limit only slows a GEMM; a
/// small GEMM is faster back to back because its launch is hidden, which §4.4 prices, not
/// this). Fewer than two points: an empty Table (not fitted), and a note says why. The
/// table's name is "sustained_gemm_slowdown" and its provenance `source`.
Table fit_sustained_slowdown(const SustainedFile& file, const Provenance& source, std::vector<std::string>& notes);

}  // namespace c3::validator
