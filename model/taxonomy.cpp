// model.md §5: taxonomy, ideal speedup and the fraction of it realized; and the
// CU splits a pair may use.
#include <algorithm>
#include <cstdint>

#include "c3/model.hpp"

namespace c3::model {
namespace {
constexpr double kEqualBand = 1.15;  // the paper's 15% band
}

std::string_view to_string(OverlapClass c) {
  switch (c) {
    case OverlapClass::g_long:
      return "g_long";
    case OverlapClass::c_long:
      return "c_long";
    case OverlapClass::gc_equal:
      return "gc_equal";
  }
  return "?";
}

OverlapClass overlap_class(double gemm_s, double collective_s) {
  if (gemm_s > kEqualBand * collective_s) return OverlapClass::g_long;
  if (collective_s > kEqualBand * gemm_s) return OverlapClass::c_long;
  return OverlapClass::gc_equal;
}

double ideal_speedup(double gemm_s, double collective_s) {
  return (gemm_s + collective_s) / std::max(gemm_s, collective_s);
}

double speedup(double gemm_s, double collective_s, double concurrent_s) {
  return (gemm_s + collective_s) / concurrent_s;
}

double fast_ideal_speedup(double gemm_s, double collective_cu_s, double collective_dma_s) {
  const double collective_s = collective_dma_s > 0 ? std::min(collective_cu_s, collective_dma_s) : collective_cu_s;
  const double longest = std::max(gemm_s, collective_s);
  return longest > 0 ? (gemm_s + collective_cu_s) / longest : 1.0;
}

double fraction_of_ideal(double realized_speedup, double ideal) {
  constexpr double kNoGain = 1e-12;
  if (ideal - 1.0 < kNoGain) return 0.0;
  return (realized_speedup - 1.0) / (ideal - 1.0);
}

Taxonomy classify(const HardwareProfile& hw, const C3Pair& pair) {
  // The times every strategy starts from (§4.6: a pair at the power limit: its GEMM at its sustained time).
  const Isolated iso = isolated_times(hw, pair);
  const bool measured_here = pair.gemm_class_measured_on.empty() || pair.gemm_class_measured_on == hw.name;
  const GemmClass gcls =
      pair.gemm_class && measured_here ? *pair.gemm_class : gemm_class(hw, pair.gemm);
  return Taxonomy{overlap_class(iso.gemm_s, iso.collective_s), gcls, collective_class(hw, pair.collective)};
}

std::vector<int> allowed_collective_cus(const HardwareProfile& hw, const C3Pair& pair) {
  const Taxonomy tax = classify(hw, pair);
  std::vector<int> out;
  const int step = std::max(hw.partition_step_cus, 1);
  const int first = (std::max(hw.partition_min_cus, 1) + step - 1) / step * step;
  // 64-bit, so that a step past INT_MAX ends the loop instead of wrapping
  for (std::int64_t cus = first; cus < hw.compute_units; cus += step)
    if (split_covered(hw, tax.gemm, pair.collective.kind, tax.collective, static_cast<int>(cus)))
      out.push_back(static_cast<int>(cus));
  return out;
}

std::vector<int> allowed_dma_rp_cus(const HardwareProfile& hw, const C3Pair& pair) {
  std::vector<int> out;
  if (!dma_capable(pair.collective.kind)) return out;
  const GemmClass cls = classify(hw, pair).gemm;
  const auto table = hw.gemm_slowdown.find(cls);
  if (table == hw.gemm_slowdown.end() || table->second.x.empty()) return out;
  const int step = std::max(hw.partition_step_cus, 1);
  const int first = (std::max(hw.partition_min_cus, 1) + step - 1) / step * step;
  const double limit = std::min(table->second.x.back(), hw.compute_units / 4.0);
  for (int cus = first; cus <= limit; cus += step) out.push_back(cus);
  return out;
}

}  // namespace c3::model
