// The copy-engine family (ConCCL): the collective on the GPU's copy engines (`dma`),
// optionally with the GEMM giving up g compute units to ease its pressure on memory
// (`dma_rp:g`; model.md §4.5). Copy engines cannot reduce: all-gather and all-to-all only.
#include "strategies/families.hpp"

namespace c3::strategies {
namespace {

// The profile has a copy-engine curve and interference factors for this kind.
bool offers_dma(const HardwareProfile& hw, CollectiveKind kind) {
  if (!dma_capable(kind)) return false;
  const auto coll = hw.collectives.find(kind);
  const auto intf = hw.interference.find(Transport::dma);
  return coll != hw.collectives.end() && coll->second.contains(Transport::dma) &&
         intf != hw.interference.end();
}

class CopyEngine final : public Family {
 public:
  std::string_view name() const override { return "copy_engine"; }
  int position() const override { return 30; }
  std::vector<StrategyKind> kinds() const override { return {StrategyKind::dma, StrategyKind::dma_rp}; }
  bool parametrized(StrategyKind kind) const override { return kind == StrategyKind::dma_rp; }
  int parameter(const Strategy& s) const override { return s.gemm_cus_removed; }
  Strategy make(StrategyKind kind, int cus) const override {
    return Strategy{kind, 0, kind == StrategyKind::dma_rp ? cus : 0};
  }

  void check(const Strategy& s, int compute_units) const override {
    if (s.kind == StrategyKind::dma) {
      if (s.collective_cus != 0 || s.gemm_cus_removed != 0) fail(s, "takes no CU split");
      return;
    }
    if (s.collective_cus != 0) fail(s, "dma_rp gives the collective no CUs");
    if (s.gemm_cus_removed <= 0) fail(s, "dma_rp needs gemm_cus_removed > 0");
    check_cus(s.gemm_cus_removed, compute_units, "gemm_cus_removed");
  }

  std::vector<Strategy> candidates(const HardwareProfile& hw, const C3Pair& pair) const override {
    std::vector<Strategy> out;
    if (!offers_dma(hw, pair.collective.kind)) return out;
    out.push_back(make(StrategyKind::dma, 0));
    for (int cus : model::allowed_dma_rp_cus(hw, pair)) out.push_back(make(StrategyKind::dma_rp, cus));
    return out;
  }

  Estimate predict(const HardwareProfile& hw, const C3Pair& pair, const Strategy& s) const override {
    const model::Isolated iso = model::isolated_times(hw, pair);
    const model::Taxonomy tax = model::classify(hw, pair);
    return {model::copy_engine_time_s(hw, pair, iso, tax, s.gemm_cus_removed), 0,
            hw.compute_units - s.gemm_cus_removed};
  }

  std::string describe(const DescribeContext& c) const override {
    if (c.strategy.kind == StrategyKind::dma)
      return "Move the " + collective_name(c) + " to the copy engines, so that the " + gemm_class_name(c) +
             " GEMM keeps all " + all_units(c) + " " + unit_name(c);
    return "Move the " + collective_name(c) + " to the copy engines and run the " + gemm_class_name(c) +
           " GEMM on " + std::to_string(c.estimate.gemm_cus) + " of " + all_units(c) + " " + unit_name(c) +
           ", which eases its pressure on memory";
  }

  ExecutionPlan plan(const Strategy& s) const override {
    return {LaunchOrder::collective_first, Transport::dma, 0, s.gemm_cus_removed, 1};
  }
  int complexity(const Strategy& s) const override { return s.kind == StrategyKind::dma ? 3 : 5; }
};

}  // namespace

const Family& family_copy_engine() {
  static const CopyEngine family;
  return family;
}

}  // namespace c3::strategies
