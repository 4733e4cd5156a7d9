// The serial family: the GEMM, then the collective, on one stream (model.md §4.5); a
// dependent pair in its dependency's order (§7).
#include "strategies/families.hpp"

namespace c3::strategies {
namespace {

class Serial final : public UnparametrizedFamily {
 public:
  std::string_view name() const override { return "serial"; }
  int position() const override { return 0; }
  std::vector<StrategyKind> kinds() const override { return {StrategyKind::serial}; }
  bool handles(Dependency) const override { return true; }  // in the dependency's order

  std::vector<Strategy> candidates(const HardwareProfile&, const C3Pair&) const override {
    return {Strategy{StrategyKind::serial, 0, 0}};
  }

  Estimate predict(const HardwareProfile& hw, const C3Pair& pair, const Strategy&) const override {
    const model::Isolated iso = model::isolated_times(hw, pair);
    return {model::serial_time_s(iso), model::collective_default_cus(hw, pair.collective.kind),
            hw.compute_units};
  }

  std::string describe(const DescribeContext& c) const override {
    if (c.pair.dependency == Dependency::collective_feeds_gemm)
      return "Run the " + collective_name(c) + ", then the GEMM that reads its output: cutting them in "
             "pieces would cost more than it hides";
    if (c.pair.dependency == Dependency::gemm_feeds_collective)
      return "Run the GEMM, then the " + collective_name(c) + " of its output: cutting them in pieces "
             "would cost more than it hides";
    return "Run the GEMM and the " + collective_name(c) +
           " one after the other: overlapping them would cost more in contention than it saves";
  }

  ExecutionPlan plan(const Strategy&) const override { return {LaunchOrder::serial, Transport::cu, 0, 0, 1}; }
  int complexity(const Strategy&) const override { return 0; }
};

}  // namespace

const Family& family_serial() {
  static const Serial family;
  return family;
}

}  // namespace c3::strategies
