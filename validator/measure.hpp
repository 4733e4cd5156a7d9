// validator/measure.hpp: ground truth for accuracy work. For each pair, measures
// the isolated GEMM and collective (CUs and, where possible, copy engines) and
// every strategy concurrently, saving the raw measurements after each one.
#pragma once

#include <functional>
#include <map>
#include <string>
#include <vector>

#include "c3/types.hpp"
#include "c3/validator.hpp"
#include "validator/raw_measurements.hpp"
#include "validator/recorder.hpp"

namespace c3::validator {

struct MeasureOptions {
  /// The values measured for each parametrized kind, by kind name: "rp" -> collective
  /// CUs, "dma_rp" -> CUs the GEMM gives up. A parametrized kind not listed is not measured.
  std::map<std::string, std::vector<int>, std::less<>> parameters;
  std::string raw_path;         ///< saved after every measurement ("" = not saved)
  bool resume = false;
  /// Implementation of the dma transport (Validator::set_dma_variant; "" = the backend's
  /// default); named in the provenance notes as "dma variant: NAME".
  std::string dma_variant;
  std::string git_sha;
  std::string date;
  std::string command;
};

/// Every strategy measured for `pair`: serial, base, sp, rp:c, and where the kind
/// can use copy engines dma and dma_rp:r.
std::vector<Strategy> measured_strategies(const C3Pair& pair, const MeasureOptions& options);

/// The queries for `pairs`, isolated ones first for each pair.
std::vector<Query> measure_queries(const std::vector<C3Pair>& pairs, const MeasureOptions& options);

/// Measures every query on `validator`. Failures are recorded, never thrown;
/// throws InputError for a resume file from another backend or device.
RawMeasurements measure(Validator& validator, const std::vector<C3Pair>& pairs,
                        const MeasureOptions& options, const ProgressFn& progress);

}  // namespace c3::validator
