// An advice as the settings a framework applies (c3/settings.hpp).
#include "c3/settings.hpp"

namespace c3 {
namespace {

std::string copy_engine_name(const HardwareProfile& hw) {
  const auto it = hw.provenance_details.find("dma_variant");
  return it != hw.provenance_details.end() && !it->second.empty() ? it->second
                                                                  : std::string(kUnspecifiedCopyEngine);
}

}  // namespace

FrameworkSettings framework_settings(const HardwareProfile& hw, const StrategyPrediction& prediction) {
  const ExecutionPlan plan = strategies::plan_of(prediction.strategy);
  FrameworkSettings s;
  s.launch_order = plan.order;
  s.overlap = plan.order != LaunchOrder::serial;
  s.prefetch = plan.order == LaunchOrder::collective_first;
  s.chunks = plan.chunks;
  if (plan.transport == Transport::cu) {
    s.nccl = FrameworkSettings::Nccl{prediction.collective_cus, prediction.collective_cus};
  } else {
    s.copy_engine = copy_engine_name(hw);
  }
  if (plan.collective_cus > 0 || plan.gemm_cus_removed > 0) {
    s.green_contexts = FrameworkSettings::GreenContexts{hw.compute_units - plan.gemm_cus_removed,
                                                        plan.collective_cus};
  }
  return s;
}

}  // namespace c3
