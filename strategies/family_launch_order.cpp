// The launch-order family (the paper's "schedule prioritization"): both kernels on the
// collective library's defaults, launched GEMM first (`base`) or collective first (`sp`)
// on two streams (model.md §4.3-4.5).
#include <algorithm>

#include "strategies/families.hpp"

namespace c3::strategies {
namespace {

class LaunchOrderFamily final : public UnparametrizedFamily {
 public:
  std::string_view name() const override { return "launch_order"; }
  int position() const override { return 10; }
  std::vector<StrategyKind> kinds() const override { return {StrategyKind::base, StrategyKind::sp}; }

  std::vector<Strategy> candidates(const HardwareProfile&, const C3Pair&) const override {
    return {Strategy{StrategyKind::base, 0, 0}, Strategy{StrategyKind::sp, 0, 0}};
  }

  Estimate predict(const HardwareProfile& hw, const C3Pair& pair, const Strategy& s) const override {
    const model::Isolated iso = model::isolated_times(hw, pair);
    const model::Taxonomy tax = model::classify(hw, pair);
    const int default_cus = model::collective_default_cus(hw, pair.collective.kind);
    if (s.kind == StrategyKind::base)
      return {model::gemm_first_time_s(hw, pair, iso, tax), default_cus, hw.compute_units};
    return {model::collective_first_time_s(hw, pair, iso, tax), default_cus,
            hw.compute_units - std::min(default_cus, hw.compute_units - 1)};
  }

  std::string describe(const DescribeContext& c) const override {
    if (c.strategy.kind == StrategyKind::base)
      return "Launch the GEMM first and the " + collective_name(c) + " beside it";
    return "Launch the " + collective_name(c) + " first, so that its " +
           std::to_string(c.estimate.collective_cus) + " workgroups are not queued behind the GEMM's " +
           std::to_string(model::gemm_workgroups(c.hw, c.pair.gemm));
  }

  ExecutionPlan plan(const Strategy& s) const override {
    return {s.kind == StrategyKind::base ? LaunchOrder::gemm_first : LaunchOrder::collective_first,
            Transport::cu, 0, 0, 1};
  }
  int complexity(const Strategy& s) const override { return s.kind == StrategyKind::base ? 1 : 2; }
};

}  // namespace

const Family& family_launch_order() {
  static const LaunchOrderFamily family;
  return family;
}

}  // namespace c3::strategies
