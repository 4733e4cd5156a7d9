// Timelines of dependent pairs in the accuracy report: the model's pipeline of a decomposed
// schedule (predicted_timeline, docs/model.md §7.2) beside the measured one of traced runs
// (Measurement::timeline), carried through the replay backend into validate --json.
#include <gtest/gtest.h>

#include <algorithm>
#include <nlohmann/json.hpp>

#include "c3/advisor.hpp"
#include "c3/errors.hpp"
#include "c3/io.hpp"
#include "c3/model.hpp"
#include "c3/views.hpp"
#include "backends/replay/replay.hpp"
#include "evaluate/accuracy.hpp"
#include "support/dependent_pair.hpp"

namespace c3::validator {
namespace {

Record rec(Query q, double t) { return {std::move(q), summarize_runs({t}, 0, true)}; }

C3Pair reduce_scatter() {
  C3Pair p = test::dependent_pair(Gemm{8192, 8192, 4096, DType::bf16}, Dependency::gemm_feeds_collective,
                                  CollectiveKind::reduce_scatter);
  p.name = "rs";
  return p;
}

double last_end(const std::vector<TimelineMark>& marks) {
  double t = 0;
  for (const TimelineMark& m : marks) t = std::max(t, m.end_s);
  return t;
}

TEST(PredictedTimeline, OneMarkPerJobEndingAtThePrediction) {
  const HardwareProfile hw = io::resolve_profile("h200x2");
  const C3Pair rs = reduce_scatter();
  const Strategy s = parse_strategy("chunked:8:cu");
  const std::vector<TimelineMark> t = predicted_timeline(hw, rs, s);
  // 8 pieces on 2 ranks: 4 steps, each a GEMM job then its collective.
  ASSERT_EQ(t.size(), 8u);
  int gemms = 0;
  for (const TimelineMark& m : t) {
    gemms += m.stream == "gemm";
    EXPECT_EQ(m.rank, 0);
    EXPECT_EQ(m.peer, -1);
  }
  EXPECT_EQ(gemms, 4);
  for (int i = 0; i < 4; ++i) EXPECT_LE(t[static_cast<std::size_t>(i)].end_s, t[static_cast<std::size_t>(4 + i)].end_s);
  EXPECT_DOUBLE_EQ(last_end(t), strategies::predicted_time_s(hw, rs, s));
  EXPECT_THROW(predicted_timeline(hw, rs, parse_strategy("chunked:3:cu")), InputError);  // 2 ranks do not divide 3
}

TEST(PredictedTimeline, ValidateCarriesBothTimelinesOfDecomposedSchedulesOnly) {
  const HardwareProfile hw = io::resolve_profile("h200x2");
  const C3Pair rs = reduce_scatter();
  const model::Isolated iso = model::isolated_times(hw, rs);
  RawMeasurements raw;
  raw.records.push_back(rec(GemmQuery{rs.gemm, 0}, iso.gemm_s));
  raw.records.push_back(rec(CollectiveQuery{rs.collective, Transport::cu, 0}, iso.collective_s));
  raw.records.push_back(
      rec(ConcurrentQuery{rs.gemm, rs.collective, parse_strategy("serial"), rs.dependency}, iso.gemm_s + iso.collective_s));
  Record chunked = rec(ConcurrentQuery{rs.gemm, rs.collective, parse_strategy("chunked:8:cu"), rs.dependency}, 1e-3);
  chunked.measurement.timeline = {{"gemm", 0, 0, -1, 0.2e-3}, {"collective", 0, 0, -1, 0.35e-3}};
  raw.records.push_back(chunked);

  auto replay = make_replay_validator(raw, "mem.json");
  const AccuracyReport report = evaluate_accuracy(Advisor(hw), {rs}, *replay, recorded_strategy_source(raw));
  ASSERT_EQ(report.scenarios.size(), 1u);
  const ScenarioResult& sc = report.scenarios.front();
  ASSERT_EQ(sc.strategies.size(), 2u);
  for (const StrategyResult& r : sc.strategies) {
    if (r.strategy.kind == StrategyKind::serial) {
      EXPECT_TRUE(r.predicted_timeline.empty());
      EXPECT_TRUE(r.timeline.empty());
    } else {
      EXPECT_EQ(r.timeline, chunked.measurement.timeline);
      ASSERT_FALSE(r.predicted_timeline.empty());
      EXPECT_DOUBLE_EQ(last_end(r.predicted_timeline), r.predicted_s.value());
    }
  }
  const nlohmann::json doc = nlohmann::json::parse(accuracy_json(hw, "replay:mem.json", replay->capabilities(), report));
  const auto& strategies = doc["scenarios"][0]["strategies"];
  EXPECT_FALSE(strategies[0].contains("predicted_timeline"));
  EXPECT_EQ(strategies[1]["predicted_timeline"].size(), 8u);
  EXPECT_EQ(strategies[1]["timeline"][1]["stream"], "collective");
}

}  // namespace
}  // namespace c3::validator
