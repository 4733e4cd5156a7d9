// c3/settings.hpp: an advice as the settings a framework applies: the collective
// library's CTA budget, green-context SM counts (only when a partition is advised), the
// launch order as a prefetch decision, and the copy-engine implementation by name.
// Written into `advise --json` ("settings", docs/cli.md) and the C API's c3a_settings.
#pragma once

#include <optional>
#include <string>

#include "c3/advisor.hpp"
#include "c3/profile.hpp"
#include "c3/strategy.hpp"

namespace c3 {

/// What a framework sets to run one pair as advised (docs/capi.md, "Settings").
struct FrameworkSettings {
  /// The collective library's CTA budget (NCCL's `max_ctas` / `min_ctas`, one CTA per SM):
  /// the CTAs the prediction assumed: the partition's size under `rp`, else the profile's
  /// default for this collective (what the library used when it was calibrated).
  struct Nccl {
    int max_ctas = 0;
    int min_ctas = 0;
  };
  /// SM partitions (CUDA green contexts): the GEMM's SMs, and the collective's (0 when the
  /// collective runs on the copy engines and needs none).
  struct GreenContexts {
    int gemm_sms = 0;
    int collective_sms = 0;
  };
  LaunchOrder launch_order = LaunchOrder::serial;
  bool overlap = false;   ///< the two run concurrently (launch_order is not serial)
  bool prefetch = false;  ///< the collective is issued before the GEMM (collective_first)
  std::optional<Nccl> nccl;                    ///< none when the collective runs on copy engines
  std::optional<GreenContexts> green_contexts;  ///< only when the strategy partitions the SMs
  /// The copy-engine implementation when the transport is dma: the variant the profile
  /// was calibrated with (provenance `dma_variant`, e.g. "ce_push_batch_ovl", or
  /// "torch_symm_pull" for one calibrated from its benchmark), else
  /// "unspecified"; none on the library's kernels.
  std::optional<std::string> copy_engine;
  int chunks = 1;  ///< pieces the pair is decomposed into (1: the whole pair at once)
};

/// The copy-engine implementation named when the profile records none.
inline constexpr const char* kUnspecifiedCopyEngine = "unspecified";

/// The settings of one predicted strategy of `hw` (the recommendation, usually).
FrameworkSettings framework_settings(const HardwareProfile& hw, const StrategyPrediction& prediction);

}  // namespace c3
