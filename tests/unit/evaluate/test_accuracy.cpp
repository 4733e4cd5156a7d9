// Accuracy metrics (evaluate/accuracy.hpp) on constructed measurements whose
// answers are known: oracle, pick, loss, decision accuracy, quantiles, fractions of
// ideal by group, heuristic mapping, the gate.
#include <gtest/gtest.h>

#include <cmath>
#include <stdexcept>

#include "backends/replay/replay.hpp"
#include "c3/advisor.hpp"
#include "c3/errors.hpp"
#include "c3/evaluate.hpp"
#include "c3/io.hpp"
#include "c3/model.hpp"
#include "evaluate/accuracy.hpp"
#include "support/temp_dir.hpp"
#include "support/toy_profile.hpp"

namespace c3::validator {
namespace {

Strategy S(const char* label) { return parse_strategy(label); }

StrategyResult result(const char* label, double measured_s, std::optional<double> predicted_s) {
  StrategyResult r;
  r.strategy = S(label);
  r.measured_s = measured_s;
  r.predicted_s = predicted_s;
  return r;
}

// A scenario built by hand: isolated times, strategies, and the derived values
// evaluate_accuracy would compute (speedup, fraction of ideal, loss, oracle).
ScenarioResult scenario(CollectiveKind kind, double gemm_s, double coll_s,
                        std::vector<StrategyResult> strategies, const char* pick) {
  ScenarioResult s;
  s.pair.name = "hand";
  s.pair.gemm = parse_gemm("1024x1024x1024");
  s.pair.collective = Collective{kind, 1 << 20, 2};
  s.gemm_s = gemm_s;
  s.collective_s = coll_s;
  s.taxonomy.overlap = model::overlap_class(gemm_s, coll_s);
  s.ideal_speedup = model::ideal_speedup(gemm_s, coll_s);
  s.strategies = std::move(strategies);
  for (std::size_t i = 0; i < s.strategies.size(); ++i)
    if (s.strategies[i].measured_s < s.strategies[s.oracle].measured_s) s.oracle = i;
  for (std::size_t i = 0; i < s.strategies.size(); ++i) {
    StrategyResult& r = s.strategies[i];
    r.speedup = model::speedup(gemm_s, coll_s, r.measured_s);
    r.fraction_of_ideal = model::fraction_of_ideal(r.speedup, s.ideal_speedup);
    r.loss_vs_oracle = r.measured_s / s.strategies[s.oracle].measured_s - 1.0;
    if (r.strategy == S(pick)) s.pick = i;
  }
  return s;
}

// Scenario A (all_gather, G-long: 8 + 4 ms, ideal 1.5x): oracle dma (9 ms), pick sp
// (10 ms): loss 1/9, wrong. Scenario B (all_to_all, C-long: 4 + 8 ms): pick = oracle
// = rp:32 (9.6 ms), right.
std::vector<ScenarioResult> two_scenarios() {
  return {scenario(CollectiveKind::all_gather, 8e-3, 4e-3,
                   {result("serial", 12e-3, 12e-3), result("sp", 10e-3, 9e-3),
                    result("rp:16", 11e-3, 11e-3), result("rp:32", 10.5e-3, 10.5e-3),
                    result("dma", 9e-3, 9.9e-3)},
                   "sp"),
          scenario(CollectiveKind::all_to_all, 4e-3, 8e-3,
                   {result("serial", 12e-3, 12.6e-3), result("sp", 10e-3, 10e-3),
                    result("rp:16", 10.4e-3, 13e-3), result("rp:32", 9.6e-3, 9.6e-3),
                    result("dma", 12e-3, std::nullopt)},
                   "rp:32")};
}

TEST(AccuracySummary, DecisionAccuracyAndLossAgainstTheOracle) {
  const std::vector<ScenarioResult> s = two_scenarios();
  EXPECT_EQ(s[0].oracle_result().strategy, S("dma"));
  EXPECT_FALSE(s[0].correct());
  EXPECT_TRUE(s[1].correct());
  const AccuracySummary sum = summarize_accuracy(s);
  EXPECT_EQ(sum.scenarios, 2);
  EXPECT_DOUBLE_EQ(sum.decision_accuracy, 0.5);
  EXPECT_NEAR(sum.worst_loss_vs_oracle, 10.0 / 9.0 - 1.0, 1e-12);
  EXPECT_NEAR(sum.mean_loss_vs_oracle, (10.0 / 9.0 - 1.0) / 2, 1e-12);
  // A looser tolerance makes scenario A right.
  EXPECT_DOUBLE_EQ(summarize_accuracy(s, 0.12).decision_accuracy, 1.0);
  EXPECT_EQ(sum.right, 1);
  // Wilson's 95% interval of 1 right of 2 (published: 0.0945 to 0.9055).
  EXPECT_NEAR(sum.decision_accuracy_ci95.low, 0.094531, 1e-6);
  EXPECT_NEAR(sum.decision_accuracy_ci95.high, 0.905469, 1e-6);
}

TEST(WilsonInterval, MatchesTheScoreIntervalAndStaysInsideZeroOne) {
  // 350 of 400 (issue 12's pooled rounds): 83.9% to 90.4%.
  const ShareInterval pooled = wilson_interval(350, 400);
  EXPECT_NEAR(pooled.low, 0.838981, 1e-6);
  EXPECT_NEAR(pooled.high, 0.903885, 1e-6);
  // All or none right: one end at the bound, the other (z^2/n) / (1 + z^2/n) away.
  const ShareInterval none = wilson_interval(0, 10);
  EXPECT_DOUBLE_EQ(none.low, 0.0);
  EXPECT_NEAR(none.high, 0.277533, 1e-6);
  const ShareInterval all = wilson_interval(10, 10);
  EXPECT_NEAR(all.low, 0.722467, 1e-6);
  EXPECT_LE(all.high, 1.0);
  EXPECT_NEAR(all.high, 1.0, 1e-12);
  // Narrower with more draws at the same share, wider with a larger z.
  EXPECT_LT(wilson_interval(700, 800).high - wilson_interval(700, 800).low, pooled.high - pooled.low);
  EXPECT_GT(wilson_interval(350, 400, 2.576).high, pooled.high);
  // No draws: nothing is known.
  const ShareInterval empty = wilson_interval(0, 0);
  EXPECT_DOUBLE_EQ(empty.low, 0.0);
  EXPECT_DOUBLE_EQ(empty.high, 1.0);
}

TEST(WilsonInterval, RefusesImpossibleCounts) {
  EXPECT_THROW(wilson_interval(3, 2), std::invalid_argument);
  EXPECT_THROW(wilson_interval(-1, 2), std::invalid_argument);
  EXPECT_THROW(wilson_interval(0, -1), std::invalid_argument);
  EXPECT_THROW(wilson_interval(1, 2, 0.0), std::invalid_argument);
  EXPECT_THROW(wilson_interval(1, 2, std::nan("")), std::invalid_argument);
}

TEST(AccuracySummary, PredictionErrorsOverEveryPredictedStrategy) {
  // |pred - meas| / meas: A: 0, 0.1, 0, 0, 0.1; B: 0.05, 0, 0.25, 0 (dma not predicted).
  const AccuracySummary sum = summarize_accuracy(two_scenarios());
  EXPECT_EQ(sum.predictions, 9);
  // sorted: 0 0 0 0 0 0.05 0.1 0.1 0.25 -> median the 5th, p90 at 7.2 between 0.1 and 0.25
  EXPECT_NEAR(sum.prediction_error_median, 0.0, 1e-12);
  EXPECT_NEAR(sum.prediction_error_p90, 0.1 + 0.2 * 0.15, 1e-12);
  EXPECT_NEAR(sum.prediction_error_max, 0.25, 1e-12);
}

TEST(AccuracySummary, FractionsOfIdealByFamilyCollectiveAndOverlap) {
  const AccuracySummary sum = summarize_accuracy(two_scenarios());
  // A: ideal 1.5; sp 12/10 = 1.2x -> 0.4; dma 12/9 -> (4/3 - 1)/0.5 = 2/3; rp:32 12/10.5.
  // B: ideal 1.5; rp:32 12/9.6 = 1.25x -> 0.5; rp:16 12/10.4.
  const double a_dma = 2.0 / 3.0, a_sp = 0.4, a_rp32 = (12.0 / 10.5 - 1) / 0.5;
  const double b_rp32 = 0.5, b_sp = 0.4, b_dma = 0.0;
  const GroupFractions& all = sum.overall;
  EXPECT_EQ(all.scenarios, 2);
  EXPECT_DOUBLE_EQ(all.ideal_speedup, 1.5);
  EXPECT_NEAR(all.fraction_of_ideal.at("advisor"), (a_sp + b_rp32) / 2, 1e-12);
  EXPECT_NEAR(all.fraction_of_ideal.at("oracle"), (a_dma + b_rp32) / 2, 1e-12);
  EXPECT_NEAR(all.fraction_of_ideal.at("sp"), (a_sp + b_sp) / 2, 1e-12);
  EXPECT_NEAR(all.fraction_of_ideal.at("rp(best)"), (a_rp32 + b_rp32) / 2, 1e-12);
  EXPECT_NEAR(all.fraction_of_ideal.at("dma"), (a_dma + b_dma) / 2, 1e-12);
  EXPECT_EQ(all.count.at("dma"), 2);
  EXPECT_NEAR(all.speedup.at("advisor"), (1.2 + 1.25) / 2, 1e-12);
  EXPECT_NEAR(all.speedup.at("oracle"), (12.0 / 9.0 + 1.25) / 2, 1e-12);
  const std::vector<std::string> keys{"advisor", "oracle", "serial", "sp", "rp(best)",
                                      "rp:16",   "rp:32",  "dma"};
  EXPECT_EQ(all.keys, keys);  // no heuristics scored in hand-built scenarios
  ASSERT_EQ(sum.by_collective.size(), 2u);
  EXPECT_NEAR(sum.by_collective.at(CollectiveKind::all_gather).fraction_of_ideal.at("advisor"), a_sp,
              1e-12);
  EXPECT_EQ(sum.by_overlap.at(model::OverlapClass::g_long).scenarios, 1);
  EXPECT_NEAR(sum.by_overlap.at(model::OverlapClass::c_long).fraction_of_ideal.at("oracle"), b_rp32,
              1e-12);
  EXPECT_FALSE(sum.by_overlap.contains(model::OverlapClass::gc_equal));
}

TEST(AccuracySummary, EmptyIsZero) {
  const AccuracySummary sum = summarize_accuracy({});
  EXPECT_EQ(sum.scenarios, 0);
  EXPECT_EQ(sum.decision_accuracy, 0);
  EXPECT_EQ(sum.right, 0);
  EXPECT_DOUBLE_EQ(sum.decision_accuracy_ci95.low, 0.0);
  EXPECT_DOUBLE_EQ(sum.decision_accuracy_ci95.high, 1.0);
  EXPECT_EQ(sum.prediction_error_max, 0);
}

TEST(Quantile, LinearBetweenOrderStatistics) {
  EXPECT_EQ(quantile({}, 0.5), 0);
  EXPECT_DOUBLE_EQ(quantile({3, 1, 2}, 0.5), 2);
  EXPECT_DOUBLE_EQ(quantile({1, 2, 3, 4}, 0.5), 2.5);
  EXPECT_DOUBLE_EQ(quantile({0, 10}, 0.9), 9);
  EXPECT_DOUBLE_EQ(quantile({5}, 0.9), 5);
  EXPECT_DOUBLE_EQ(quantile({1, 2, 3, 4}, 1.0), 4);
  EXPECT_THROW(quantile({1}, 1.5), InputError);
}

TEST(RecommendAmong, TheSimplestWithinTheTieMarginOfTheFastest) {
  const std::vector<StrategyResult> s{result("sp", 1, 9.98e-3), result("rp:32", 1, 9.9e-3),
                                      result("dma", 1, 9.95e-3), result("dma_rp:8", 1, 9.0e-3)};
  EXPECT_EQ(recommend_among(s, {0, 1, 2, 3}), 3u);  // dma_rp:8 is 10% faster: it earns it
  EXPECT_EQ(recommend_among(s, {0, 1, 2}), 0u);     // sp, rp:32, dma within 1%: sp
  EXPECT_EQ(recommend_among(s, {1, 2}), 2u);        // dma is simpler than rp
  EXPECT_THROW(recommend_among(s, {}), InputError);
}

TEST(MapToMeasured, ExactNearestSplitOrNone) {
  const std::vector<StrategyResult> m{result("sp", 1, 1.0), result("rp:16", 1, 1.0),
                                      result("rp:32", 1, 1.0)};
  std::string note;
  EXPECT_EQ(map_to_measured(m, S("sp"), note), 0u);
  EXPECT_TRUE(note.empty());
  EXPECT_EQ(map_to_measured(m, S("rp:24"), note), 1u);  // a tie keeps the smaller split
  EXPECT_NE(note.find("rp:24 was not measured; scored as rp:16"), std::string::npos) << note;
  EXPECT_EQ(map_to_measured(m, S("rp:88"), note), 2u);
  EXPECT_FALSE(map_to_measured(m, S("base"), note).has_value());
  EXPECT_NE(note.find("not scored"), std::string::npos);
}

// ---- the procedure, through the replay backend ----

Record rec(Query q, double t) { return {std::move(q), summarize_runs({t}, 0, true)}; }

C3Pair toy_pair() {
  C3Pair p;
  p.name = "toy";
  p.gemm = parse_gemm("8192x8192x8192");        // 2.2 ms on the toy profile
  p.collective = parse_collective("all_gather:256MiB", 8);  // 2.36 ms
  return p;
}

// Every strategy of `strategies` measured at the model's prediction times `scale`
// (1 when absent), plus the isolated times.
RawMeasurements measured(const HardwareProfile& hw, const C3Pair& pair,
                         const std::vector<Strategy>& strategies,
                         const std::map<std::string, double>& scale = {}) {
  RawMeasurements raw;
  const model::Isolated iso = model::isolated_times(hw, pair);
  raw.records.push_back(rec(GemmQuery{pair.gemm, 0}, iso.gemm_s));
  raw.records.push_back(rec(CollectiveQuery{pair.collective, Transport::cu, 0}, iso.collective_s));
  for (const Strategy& s : strategies) {
    double t = 0.02;  // for a strategy the model cannot predict
    try {
      t = strategies::predicted_time_s(hw, pair, s);
    } catch (const InputError&) {
    }
    const auto it = scale.find(s.label());
    raw.records.push_back(
        rec(ConcurrentQuery{pair.gemm, pair.collective, s}, t * (it == scale.end() ? 1.0 : it->second)));
  }
  return raw;
}

AccuracyReport evaluate(const HardwareProfile& hw, const std::vector<C3Pair>& pairs,
                        const RawMeasurements& raw) {
  const Advisor advisor(hw);
  auto replay = make_replay_validator(raw, "mem.json");
  return evaluate_accuracy(advisor, pairs, *replay, recorded_strategy_source(raw));
}

TEST(EvaluateAccuracy, MeasuredAsPredictedThePickIsTheAdvisorsRecommendation) {
  const HardwareProfile hw = testing::toy_profile();
  const C3Pair pair = toy_pair();
  const Advice advice = Advisor(hw).advise(pair);
  std::vector<Strategy> all;
  for (const StrategyPrediction& p : advice.strategies) all.push_back(p.strategy);
  const AccuracyReport r = evaluate(hw, {pair}, measured(hw, pair, all));
  ASSERT_EQ(r.scenarios.size(), 1u);
  const ScenarioResult& s = r.scenarios[0];
  EXPECT_EQ(s.strategies.size(), all.size());
  EXPECT_EQ(s.pick_result().strategy, advice.recommendation().strategy);
  ASSERT_TRUE(s.advisor_recommendation.has_value());
  EXPECT_EQ(*s.advisor_recommendation, advice.recommendation().strategy);
  EXPECT_TRUE(s.correct());  // the advisor's rule stays within 1% of the fastest prediction
  EXPECT_NEAR(r.summary.prediction_error_max, 0.0, 1e-12);
  EXPECT_EQ(r.summary.heuristics.size(), 2u);
  EXPECT_TRUE(r.skipped.empty());
}

TEST(EvaluateAccuracy, KnownOracleKnownPickKnownLoss) {
  const HardwareProfile hw = testing::toy_profile();
  const C3Pair pair = toy_pair();
  // Measured: sp, dma as the model says; base 20% faster than predicted, so that it is
  // the oracle while the model picks among sp and dma; rp:70 outside the toy tables.
  const std::vector<Strategy> strategies{S("serial"), S("base"), S("sp"), S("dma"), S("rp:70")};
  const double t_base = strategies::predicted_time_s(hw, pair, S("base")) * 0.5;
  RawMeasurements raw = measured(hw, pair, strategies, {{"base", 0.5}});
  const AccuracyReport r = evaluate(hw, {pair}, raw);
  ASSERT_EQ(r.scenarios.size(), 1u);
  const ScenarioResult& s = r.scenarios[0];
  EXPECT_EQ(s.oracle_result().strategy, S("base"));
  EXPECT_DOUBLE_EQ(s.oracle_result().measured_s, t_base);
  // The pick is the advisor's rule over the predicted strategies it offers.
  std::vector<std::size_t> candidates;
  for (std::size_t i = 0; i < s.strategies.size(); ++i)
    if (s.strategies[i].strategy.kind != StrategyKind::rp) candidates.push_back(i);
  EXPECT_EQ(s.pick, recommend_among(s.strategies, candidates));
  EXPECT_NE(s.pick_result().strategy, S("base"));
  EXPECT_NEAR(s.loss_vs_oracle(), s.pick_result().measured_s / t_base - 1.0, 1e-12);
  EXPECT_FALSE(s.correct());
  // rp:70 measured but not predicted: no prediction, a note.
  const StrategyResult& rp70 = s.strategies.at(3);
  EXPECT_EQ(rp70.strategy, S("rp:70"));
  EXPECT_FALSE(rp70.predicted_s.has_value());
  bool noted = false;
  for (const std::string& n : s.notes) noted = noted || n.rfind("rp:70 not predicted", 0) == 0;
  EXPECT_TRUE(noted);
  // base's prediction error is +100% (predicted twice the measured time).
  EXPECT_NEAR(*s.strategies.at(1).prediction_error(), 1.0, 1e-12);
  EXPECT_NEAR(r.summary.prediction_error_max, 1.0, 1e-12);
  // Ideal and fraction of ideal from the measured isolated times.
  const model::Isolated iso = model::isolated_times(hw, pair);
  EXPECT_DOUBLE_EQ(s.ideal_speedup, model::ideal_speedup(iso.gemm_s, iso.collective_s));
  EXPECT_DOUBLE_EQ(s.oracle_result().fraction_of_ideal,
                   model::fraction_of_ideal(model::speedup(iso.gemm_s, iso.collective_s, t_base),
                                            s.ideal_speedup));
}

TEST(EvaluateAccuracy, FailedAndMissingMeasurements) {
  const HardwareProfile hw = testing::toy_profile();
  const C3Pair pair = toy_pair();
  RawMeasurements raw = measured(hw, pair, {S("serial"), S("sp"), S("dma")});
  raw.records.back().measurement = Measurement{};  // dma failed
  raw.records.back().measurement.error = "NCCL error";
  C3Pair other = pair;
  other.name = "other";
  other.collective.size_bytes *= 2;  // never measured
  EXPECT_TRUE(missing_measurements(raw, pair).empty());
  const std::vector<std::string> missing = missing_measurements(raw, other);
  ASSERT_EQ(missing.size(), 2u);  // the same GEMM was measured
  EXPECT_EQ(missing[0].rfind("no isolated collective measurement 'collective all_gather", 0), 0u)
      << missing[0];
  EXPECT_EQ(missing[1].rfind("no concurrent measurement of 8192x8192x8192:bf16", 0), 0u)
      << missing[1];

  const AccuracyReport r = evaluate(hw, {pair, other}, raw);
  ASSERT_EQ(r.scenarios.size(), 1u);
  ASSERT_EQ(r.skipped.size(), 1u);
  EXPECT_EQ(r.skipped[0].pair.name, "other");
  EXPECT_EQ(r.scenarios[0].strategies.size(), 2u);  // serial, sp
  bool noted = false;
  for (const std::string& n : r.scenarios[0].notes)
    noted = noted || n.find("dma left out: its measurement failed: NCCL error") == 0;
  EXPECT_TRUE(noted);
  EXPECT_EQ(r.summary.scenarios, 1);
}

// A live validate measures first, into its raw file, and scores a replay of that file: the
// same report as `validate --backend replay:FILE` later, even with a noisy backend.
TEST(MeasureLive, ScoresExactlyWhatAReplayOfItsFileScores) {
  const HardwareProfile hw = io::resolve_profile("mi300x");
  std::vector<C3Pair> pairs;
  for (const C3Pair& p : io::resolve_scenarios("paper"))
    if (p.name == "cb1_896M") pairs.push_back(p);
  ASSERT_EQ(pairs.size(), 2u);  // its all-gather and all-to-all
  MeasureOptions options;
  options.parameters["rp"] = {32, 64};
  options.parameters["dma_rp"] = {8};
  options.raw_path = ::testing::TempDir() + "measure-live.json";
  options.overwrite = true;  // an earlier run's file
  std::size_t steps = 0;
  const ValidationBackend live = measure_live("sim:noise=0.05,seed=7", hw, RunConfig{0, 3}, pairs, options,
                                              [&](const Step&) { ++steps; });
  ASSERT_TRUE(live.raw.has_value());
  EXPECT_EQ(live.spec, "sim:noise=0.05,seed=7");
  ASSERT_TRUE(live.measured_on.has_value());
  EXPECT_EQ(live.measured_on->backend, "sim");  // reported as measured, though scored from the file
  EXPECT_GE(steps, live.raw->records.size());  // a progress line for every measurement (shared ones too)
  const Advisor advisor(hw);
  const AccuracyReport scored = evaluate_accuracy(advisor, pairs, *live.validator, live.strategies);
  const ValidationBackend later = make_validation_backend("replay:" + options.raw_path, hw, RunConfig{}, {}, false);
  const AccuracyReport replayed = evaluate_accuracy(advisor, pairs, *later.validator, later.strategies);
  ASSERT_EQ(scored.scenarios.size(), 2u);
  ASSERT_EQ(replayed.scenarios.size(), 2u);
  for (std::size_t i = 0; i < 2; ++i) {
    ASSERT_EQ(scored.scenarios[i].strategies.size(), replayed.scenarios[i].strategies.size());
    for (std::size_t j = 0; j < scored.scenarios[i].strategies.size(); ++j)
      EXPECT_DOUBLE_EQ(scored.scenarios[i].strategies[j].measured_s, replayed.scenarios[i].strategies[j].measured_s);
    EXPECT_EQ(scored.scenarios[i].pick, replayed.scenarios[i].pick);
  }
  EXPECT_DOUBLE_EQ(scored.summary.mean_loss_vs_oracle, replayed.summary.mean_loss_vs_oracle);
  // A profile calibrated with a variant this backend lacks: measured on the backend's own.
  HardwareProfile other = hw;
  other.provenance_details["dma_variant"] = "ce_push_batch_ovl";
  MeasureOptions again = options;
  again.raw_path = ::testing::TempDir() + "measure-live-variant.json";
  EXPECT_NO_THROW(measure_live("sim", other, RunConfig{0, 1}, pairs, again, {}));
  MeasureOptions isolated = again;
  isolated.isolated_only = true;
  EXPECT_THROW(measure_live("sim", hw, RunConfig{0, 1}, pairs, isolated, {}), InputError);
  // A replay spec or no file is refused.
  EXPECT_THROW(measure_live("replay:" + options.raw_path, hw, RunConfig{}, pairs, options, {}), InputError);
  MeasureOptions nowhere = options;
  nowhere.raw_path.clear();
  EXPECT_THROW(measure_live("sim", hw, RunConfig{}, pairs, nowhere, {}), InputError);
}

TEST(RecordedStrategies, CanonicalOrderForThisPairOnly) {
  const HardwareProfile hw = testing::toy_profile();
  const C3Pair pair = toy_pair();
  C3Pair other = pair;
  other.collective.ranks = 4;
  RawMeasurements raw = measured(hw, pair, {S("dma"), S("rp:30"), S("serial"), S("rp:10")});
  const RawMeasurements more = measured(hw, other, {S("sp")});
  raw.records.insert(raw.records.end(), more.records.begin(), more.records.end());
  const std::vector<Strategy> want{S("serial"), S("rp:10"), S("rp:30"), S("dma")};
  EXPECT_EQ(recorded_strategies(raw, pair), want);
  EXPECT_EQ(recorded_strategy_source(raw)(other), std::vector<Strategy>{S("sp")});
  MeasureOptions m;
  m.parameters["rp"] = {32, 16};
  m.parameters["dma_rp"] = {8};
  const std::vector<Strategy> planned{S("serial"), S("base"), S("sp"), S("rp:16"),
                                      S("rp:32"),  S("dma"),  S("dma_rp:8")};
  EXPECT_EQ(planned_strategy_source(m)(pair), planned);
}

TEST(AccuracyHeuristics, ScoredOnTheMeasuredStrategiesAndWithinTheirFamily) {
  const HardwareProfile hw = testing::toy_profile();
  const C3Pair pair = toy_pair();
  const Advisor advisor(hw);
  const Strategy split = advisor.heuristic("cu_split", pair);
  ASSERT_EQ(split.kind, StrategyKind::rp);
  // Measure only other splits, so that cu_split is mapped to the nearest one.
  std::vector<Strategy> strategies{S("serial"), S("base"), S("sp"), S("dma")};
  for (int cus : {10, 20, 30, 40, 50})
    if (cus != split.collective_cus) strategies.push_back({StrategyKind::rp, cus, cus});
  const AccuracyReport r = evaluate(hw, {pair}, measured(hw, pair, strategies));
  ASSERT_EQ(r.scenarios.size(), 1u);
  const ScenarioResult& s = r.scenarios[0];
  ASSERT_EQ(s.heuristics.size(), 2u);
  for (const HeuristicResult& h : s.heuristics) {
    ASSERT_TRUE(h.scored.has_value()) << h.name;
    ASSERT_TRUE(h.family_best.has_value()) << h.name;
    const auto family = heuristic_family(h.name);
    EXPECT_NE(std::find(family.begin(), family.end(), s.strategies[*h.family_best].strategy.kind),
              family.end());
    if (h.name == "cu_split") {
      EXPECT_EQ(s.strategies[*h.scored].strategy.kind, StrategyKind::rp);
      EXPECT_NE(h.note.find("nearest measured split"), std::string::npos) << h.note;
    }
  }
  EXPECT_EQ(r.summary.heuristics.at("launch_order").scenarios, 1);
  EXPECT_TRUE(r.summary.overall.fraction_of_ideal.contains("cu_split"));
}

// ---- the gate ----

TEST(Gate, ThresholdsFromASummaryAndTheirFailures) {
  const AccuracySummary sum = summarize_accuracy(two_scenarios());
  const std::vector<GateThreshold> t = gate_thresholds_from(
      sum, {{"decision_accuracy", 0, 0.1}, {"worst_loss_vs_oracle", 0, 0.01},
            {"prediction_error_median", 0, 0.01}, {"advisor_fraction_of_ideal", 0, 0.02}});
  EXPECT_NEAR(t[0].limit, 0.4, 1e-12);
  EXPECT_NEAR(t[1].limit, 10.0 / 9.0 - 1.0 + 0.01, 1e-12);
  EXPECT_TRUE(gate_failures(sum, t).empty());

  std::vector<GateThreshold> strict{{"decision_accuracy", 0.9, 0}, {"worst_loss_vs_oracle", 0.03, 0},
                                    {"prediction_error_median", 0.05, 0}};
  const std::vector<std::string> failures = gate_failures(sum, strict);
  ASSERT_EQ(failures.size(), 2u);
  EXPECT_EQ(failures[0].rfind("decision_accuracy 0.5, at least 0.9 required", 0), 0u) << failures[0];
  EXPECT_EQ(failures[1].rfind("worst_loss_vs_oracle 0.1111, at most 0.03 required", 0), 0u) << failures[1];
  EXPECT_THROW(summary_metric(sum, "speed"), InputError);
  EXPECT_TRUE(higher_is_better("advisor_fraction_of_ideal"));
  EXPECT_FALSE(higher_is_better("prediction_error_p90"));
  EXPECT_FALSE(gate_failures(summarize_accuracy({}), {}).empty());  // nothing evaluated
}

TEST(Gate, UpdatingSaysWhetherTheCheckIsNewAndKeepsItsTolerances) {
  test::TempDir tmp;
  const std::string path = tmp.file("gate.json");
  const AccuracySummary sum = summarize_accuracy(two_scenarios());
  EXPECT_TRUE(update_gate_file(sum, path, "a", "c3advisor validate ... a"));          // no file yet: new
  EXPECT_TRUE(update_gate_file(sum, path, "b", "c3advisor validate ... b", "test"));  // another check: new
  // A tolerance edited in the file is the one the rewrite keeps.
  io::GateCheck a = io::load_gate_check(path, "a", higher_is_better);
  a.thresholds = {{"decision_accuracy", 0, 0.25}};
  a.reached = {0.5};
  io::save_gate_check(path, "a", a, higher_is_better);
  EXPECT_FALSE(update_gate_file(sum, path, "a", "c3advisor validate ... a"));  // there: rewritten
  const io::GateCheck again = io::load_gate_check(path, "a", higher_is_better);
  ASSERT_EQ(again.thresholds.size(), 1u);
  EXPECT_NEAR(again.thresholds[0].limit, 0.5 - 0.25, 1e-12);
  EXPECT_EQ(io::load_gate_check(path, "b", higher_is_better).split, "test");  // the other check kept
}

}  // namespace
}  // namespace c3::validator
