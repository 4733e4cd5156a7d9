// The partition family (the paper's "resource partitioning"): the collective launched
// first in its own partition of c compute units, the GEMM in the rest (`rp:c`;
// model.md §4.5). On NVIDIA both run in green contexts; on AMD under CU masks.
#include "strategies/families.hpp"

namespace c3::strategies {
namespace {

class Partition final : public Family {
 public:
  std::string_view name() const override { return "partition"; }
  int position() const override { return 20; }
  std::vector<StrategyKind> kinds() const override { return {StrategyKind::rp}; }
  bool parametrized(StrategyKind) const override { return true; }
  int parameter(const Strategy& s) const override { return s.collective_cus; }
  Strategy make(StrategyKind kind, int cus) const override { return Strategy{kind, cus, cus}; }

  void check(const Strategy& s, int compute_units) const override {
    if (s.collective_cus <= 0) fail(s, "rp needs collective_cus > 0");
    if (s.gemm_cus_removed != s.collective_cus) fail(s, "rp removes exactly collective_cus from the GEMM");
    check_cus(s.collective_cus, compute_units, "collective_cus");
  }

  std::vector<Strategy> candidates(const HardwareProfile& hw, const C3Pair& pair) const override {
    std::vector<Strategy> out;
    for (int cus : model::allowed_collective_cus(hw, pair)) out.push_back(make(StrategyKind::rp, cus));
    return out;
  }

  Estimate predict(const HardwareProfile& hw, const C3Pair& pair, const Strategy& s) const override {
    const model::Isolated iso = model::isolated_times(hw, pair);
    const model::Taxonomy tax = model::classify(hw, pair);
    return {model::partition_time_s(hw, pair, iso, tax, s.collective_cus), s.collective_cus,
            hw.compute_units - s.collective_cus};
  }

  std::string describe(const DescribeContext& c) const override {
    return "Launch the " + collective_name(c) + " first on " + std::to_string(c.estimate.collective_cus) +
           " " + unit_name(c) + " and keep the other " + std::to_string(c.estimate.gemm_cus) + " for the " +
           gemm_class_name(c) + " GEMM";
  }

  ExecutionPlan plan(const Strategy& s) const override {
    return {LaunchOrder::collective_first, Transport::cu, s.collective_cus, s.collective_cus, 1};
  }
  int complexity(const Strategy&) const override { return 4; }
};

}  // namespace

const Family& family_partition() {
  static const Partition family;
  return family;
}

}  // namespace c3::strategies
