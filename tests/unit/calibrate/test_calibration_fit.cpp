// The calibration fits against a known truth: measurements made by the model itself
// from a profile with chosen values, so that each fit must give those values back
// (memory-bound GEMM line, monotone collective curves, launch_s).
#include <gtest/gtest.h>

#include <cmath>
#include <map>

#include "c3/io.hpp"
#include "c3/model.hpp"
#include "calibrate/calibrate_fit.hpp"
#include "calibrate/calibrate_plan.hpp"

namespace c3::validator {
namespace {

// Every query answered by the model on `truth` (optionally with a spike).
MeasuredFn model_of(const HardwareProfile& truth, std::function<double(const Query&, double)> edit = nullptr) {
  return [truth, edit](const Query& q) -> std::optional<double> {
    double t = 0;
    if (const auto* g = std::get_if<GemmQuery>(&q)) {
      t = model::gemm_time_s(truth, g->gemm) * (g->cus_removed ? model::gemm_slowdown(truth, model::gemm_class(truth, g->gemm), g->cus_removed) : 1.0);
    } else if (const auto* c = std::get_if<CollectiveQuery>(&q)) {
      if (c->cus != 0) return std::nullopt;  // the CU tables are not what these tests check
      t = model::collective_time_s(truth, c->collective, c->transport);
    } else if (const auto* p = std::get_if<ConcurrentQuery>(&q)) {
      t = strategies::predicted_time_s(truth, C3Pair{"", p->gemm, p->collective, {}, ""}, p->strategy);
    } else {
      return std::nullopt;
    }
    return edit ? edit(q, t) : t;
  };
}

class CalibrationFit : public ::testing::Test {
 protected:
  // The roofline fits, so the truth prices every GEMM by §1 (no measured times per shape).
  CalibrationFit()
      : truth_(without_gemm_times(io::resolve_profile("h200x2"))), plan_(make_plan(truth_, 2, true)) {}
  static HardwareProfile without_gemm_times(HardwareProfile hw) {
    hw.gemm_times.clear();
    return hw;
  }
  HardwareProfile truth_;
  CalibrationPlan plan_;
  Provenance source_{SourceKind::measured, "test"};
  std::vector<std::string> notes_;
};

TEST_F(CalibrationFit, MemoryLineSeparatesFixedCostFromBandwidth) {
  truth_.gemm_latency_s = 12e-6;
  truth_.gemm_efficiency_memory = 0.95;
  HardwareProfile hw = truth_;
  hw.gemm_latency_s = 0;
  hw.gemm_efficiency_memory = 0.5;
  fit_isolated(hw, plan_, model_of(truth_), source_, notes_);
  EXPECT_NEAR(hw.gemm_latency_s, 12e-6, 0.05e-6);
  EXPECT_NEAR(hw.gemm_efficiency_memory, 0.95, 0.002);
  EXPECT_EQ(hw.sources.at("gemm_latency_s").ref, "test");
}

TEST_F(CalibrationFit, CollectiveCurvesNeverFallWithSize) {
  // a hiccup: the 64 KiB all_gather measured twice as long as it is
  const MeasuredFn spiky = model_of(truth_, [](const Query& q, double t) {
    const auto* c = std::get_if<CollectiveQuery>(&q);
    return c && c->collective.size_bytes == 64 * 1024 && c->collective.kind == CollectiveKind::all_gather ? 2 * t : t;
  });
  HardwareProfile hw = truth_;
  fit_isolated(hw, plan_, spiky, source_, notes_);
  const Table& curve = hw.collectives.at(CollectiveKind::all_gather).at(Transport::cu).curve_time_s;
  ASSERT_GE(curve.x.size(), 3u);
  for (std::size_t i = 1; i < curve.y.size(); ++i) EXPECT_LE(curve.y[i - 1], curve.y[i]) << "at " << curve.x[i];
}

TEST_F(CalibrationFit, MemoryBoundTableIsTheMedianOverDecodeShapes) {
  // the reference decode GEMM quantizes badly in every partition: 1.4x slower than its class
  const MeasuredFn quantized = model_of(truth_, [&](const Query& q, double t) {
    const auto* g = std::get_if<GemmQuery>(&q);
    return g && g->gemm == plan_.memory_gemm && g->cus_removed > 0 ? 1.4 * t : t;
  });
  HardwareProfile hw = truth_;
  fit_isolated(hw, plan_, quantized, source_, notes_);
  const Table& fitted = hw.gemm_slowdown.at(GemmClass::memory_bound);
  const Table& truth = truth_.gemm_slowdown.at(GemmClass::memory_bound);
  ASSERT_EQ(fitted.x.size(), plan_.cus_removed.size());
  EXPECT_EQ(slowdown_gemms(plan_, GemmClass::memory_bound).size(), 4u);
  for (std::size_t i = 0; i < fitted.x.size(); ++i)
    EXPECT_NEAR(fitted.y[i], model::interpolate(truth, fitted.x[i]), 1e-9) << "at " << fitted.x[i];
}

TEST_F(CalibrationFit, LaunchCostIsTheMedianOverKindsPerTransport) {
  // truth: a different launch cost per kind; the fit gives each transport the median
  const std::map<CollectiveKind, double> cu_us = {{CollectiveKind::all_gather, 10}, {CollectiveKind::all_to_all, 20},
                                                  {CollectiveKind::reduce_scatter, 30}, {CollectiveKind::all_reduce, 40}};
  const std::map<CollectiveKind, double> dma_us = {{CollectiveKind::all_gather, 14}, {CollectiveKind::all_to_all, 18}};
  for (auto& [kind, transports] : truth_.collectives)
    for (auto& [transport, params] : transports)
      params.launch_s = 1e-6 * (transport == Transport::dma ? dma_us.at(kind) : cu_us.at(kind));
  HardwareProfile hw = truth_;
  for (auto& [kind, transports] : hw.collectives)
    for (auto& [transport, params] : transports) params.launch_s = 0;
  fit_launch(hw, plan_, model_of(truth_), source_, notes_);
  for (const auto& [kind, transports] : hw.collectives)
    for (const auto& [transport, params] : transports) {
      SCOPED_TRACE(std::string(to_string(kind)) + " " + std::string(to_string(transport)));
      EXPECT_NEAR(params.launch_s, transport == Transport::dma ? 16e-6 : 25e-6, 0.1e-6);
      EXPECT_EQ(hw.sources.at("collectives." + std::string(to_string(kind)) + "." +
                              std::string(to_string(transport)) + ".launch_s").ref, "test");
    }
  EXPECT_TRUE(notes_.empty()) << notes_.front();
}

TEST_F(CalibrationFit, LaunchQueriesCoverEveryKindAndTransport) {
  std::size_t sp = 0, dma = 0;
  for (const ConcurrentQuery& q : launch_queries(plan_)) {
    EXPECT_EQ(q.gemm, plan_.latency_gemm);
    EXPECT_EQ(q.collective.size_bytes, plan_.latency_bytes);
    (q.strategy.kind == StrategyKind::dma ? dma : sp) += 1;
  }
  EXPECT_EQ(sp, calibrated_kinds().size());
  EXPECT_EQ(dma, 2u);  // all_gather and all_to_all
}

TEST(ModelLaunch, GemmWaitsForTheCollectivesLaunch) {
  HardwareProfile hw = io::resolve_profile("h200x2");
  hw.strategy_corrections.clear();  // the launch alone (§4.4), not §4.7's factors on 1 ms
  const C3Pair pair{"tiny", {64, 6144, 4096, DType::bf16}, {CollectiveKind::all_gather, 64 * 1024, 2}, {}, ""};
  const double before = strategies::predicted_time_s(hw, pair, Strategy{StrategyKind::dma, 0, 0});
  const double gemm = model::gemm_time_s(hw, pair.gemm);
  hw.collectives.at(CollectiveKind::all_gather).at(Transport::dma).launch_s = 1e-3;  // longer than both
  EXPECT_DOUBLE_EQ(strategies::predicted_time_s(hw, pair, Strategy{StrategyKind::dma, 0, 0}), 1e-3 + gemm);
  EXPECT_GT(1e-3 + gemm, before);
  // sp uses the CU transport's launch_s, untouched here
  hw.collectives.at(CollectiveKind::all_gather).at(Transport::cu).launch_s = 0;
  EXPECT_LT(strategies::predicted_time_s(hw, pair, Strategy{StrategyKind::sp, 0, 0}), 1e-3);
}

}  // namespace
}  // namespace c3::validator
