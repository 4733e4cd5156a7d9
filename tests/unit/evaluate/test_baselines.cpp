// Baselines (fixed rules), the fraction of the faster transport's ideal, K-fold
// cross-validation of the tie margin, and the train/test manifest, on constructed
// scenarios whose answers are worked out by hand in the comments.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>

#include "c3/errors.hpp"
#include "c3/model.hpp"
#include "c3/splits.hpp"
#include "evaluate/accuracy.hpp"
#include "support/temp_dir.hpp"
#include "support/test_io_support.hpp"

namespace c3::validator {
namespace {

Strategy S(const char* label) { return parse_strategy(label); }

StrategyResult result(const char* label, double measured_s, double predicted_s) {
  StrategyResult r;
  r.strategy = S(label);
  r.measured_s = measured_s;
  r.predicted_s = predicted_s;
  return r;
}

// A scenario whose pick follows the advisor's rule over every strategy (all candidates).
ScenarioResult scenario(CollectiveKind kind, std::vector<StrategyResult> strategies) {
  ScenarioResult s;
  s.pair.gemm = parse_gemm("1024x1024x1024");
  s.pair.collective = Collective{kind, 1 << 20, 2};
  s.gemm_s = 8e-3;
  s.collective_s = 4e-3;
  s.ideal_speedup = model::ideal_speedup(s.gemm_s, s.collective_s);
  s.strategies = std::move(strategies);
  for (std::size_t i = 0; i < s.strategies.size(); ++i) {
    if (s.strategies[i].measured_s < s.strategies[s.oracle].measured_s) s.oracle = i;
    s.candidates.push_back(i);
  }
  for (StrategyResult& r : s.strategies) {
    r.speedup = model::speedup(s.gemm_s, s.collective_s, r.measured_s);
    r.loss_vs_oracle = r.measured_s / s.strategies[s.oracle].measured_s - 1.0;
  }
  s.pick = recommend_among(s.strategies, s.candidates);
  return s;
}

// A: all_gather; base 11, sp 10, dma 9 (oracle); predicted dma fastest: pick dma.
// B: reduce_scatter (no dma); base 9 (oracle), sp 10; predicted base: pick base.
std::vector<ScenarioResult> two() {
  return {scenario(CollectiveKind::all_gather,
                   {result("base", 11e-3, 11e-3), result("sp", 10e-3, 10e-3), result("dma", 9e-3, 9e-3)}),
          scenario(CollectiveKind::reduce_scatter, {result("base", 9e-3, 9e-3), result("sp", 10e-3, 10e-3)})};
}

const BaselineSummary& baseline(const AccuracySummary& s, const std::string& name) {
  for (const BaselineSummary& b : s.baselines)
    if (b.name == name) return b;
  throw std::logic_error("no baseline " + name);
}

TEST(Baselines, FixedRulesScoredAgainstTheOracleAndTheDefault) {
  const AccuracySummary sum = summarize_accuracy(two());
  // always_sp: 10 vs 9 in both: losses 1/9, wrong twice; it is the default: ratio 1.
  const BaselineSummary& sp = baseline(sum, "always_sp");
  EXPECT_EQ(sp.scenarios, 2);
  EXPECT_DOUBLE_EQ(sp.decision_accuracy, 0.0);
  EXPECT_NEAR(sp.worst_loss_vs_oracle, 1.0 / 9.0, 1e-12);
  EXPECT_NEAR(sp.geomean_vs_default, 1.0, 1e-12);
  // always_base: 11 (loss 2/9) and 9 (right); vs default sqrt(11/10 x 9/10).
  const BaselineSummary& base = baseline(sum, "always_base");
  EXPECT_DOUBLE_EQ(base.decision_accuracy, 0.5);
  EXPECT_NEAR(base.worst_loss_vs_oracle, 2.0 / 9.0, 1e-12);
  EXPECT_NEAR(base.geomean_vs_default, std::sqrt(1.1 * 0.9), 1e-12);
  // dma_else_sp: dma (9, right) then sp for the reduction (10, wrong).
  const BaselineSummary& dma = baseline(sum, "dma_else_sp");
  EXPECT_DOUBLE_EQ(dma.decision_accuracy, 0.5);
  EXPECT_NEAR(dma.geomean_vs_default, std::sqrt(0.9 * 1.0), 1e-12);
  // The advisor picks dma and base: both right, vs default sqrt(0.9 x 0.9) = 0.9.
  EXPECT_DOUBLE_EQ(dma.advisor_decision_accuracy, 1.0);
  EXPECT_NEAR(dma.advisor_geomean_vs_default, 0.9, 1e-12);
  EXPECT_NEAR(sum.advisor_geomean_vs_default, 0.9, 1e-12);
  EXPECT_NEAR(sum.oracle_geomean_vs_default, 0.9, 1e-12);
  EXPECT_EQ(sum.default_scenarios, 2);
  EXPECT_NEAR(summary_metric(sum, "advisor_geomean_vs_default"), 0.9, 1e-12);
  EXPECT_FALSE(higher_is_better("advisor_geomean_vs_default"));
}

TEST(Baselines, PickAgainstSerialCountsWhatIsMoreThanTheSlackSlower) {
  // A: serial 10, chunked:2:dma 9.5 (predicted 9): pick chunked, 0.95 of serial.
  // B: serial 10, chunked:4:dma 10.3 measured (predicted 9): pick chunked, 1.03: slower.
  // C: no serial measured: not counted.
  std::vector<ScenarioResult> s = {
      scenario(CollectiveKind::all_gather, {result("serial", 10e-3, 10e-3), result("chunked:2:dma", 9.5e-3, 9e-3)}),
      scenario(CollectiveKind::all_gather, {result("serial", 10e-3, 10e-3), result("chunked:4:dma", 10.3e-3, 9e-3)}),
      scenario(CollectiveKind::all_gather, {result("base", 11e-3, 11e-3), result("dma", 9e-3, 9e-3)})};
  const AccuracySummary sum = summarize_accuracy(s);
  EXPECT_EQ(sum.serial_scenarios, 2);
  EXPECT_NEAR(sum.advisor_geomean_vs_serial, std::sqrt(0.95 * 1.03), 1e-12);
  EXPECT_NEAR(sum.advisor_worst_vs_serial, 1.03, 1e-12);
  EXPECT_EQ(sum.advisor_slower_than_serial, 1);
  EXPECT_NEAR(summary_metric(sum, "advisor_worst_vs_serial"), 1.03, 1e-12);
  EXPECT_FALSE(higher_is_better("advisor_worst_vs_serial"));
  // With a hedge error above B's predicted 10% gain, its pick is serial: none is slower.
  for (StrategyResult& r : s[1].strategies)
    if (r.strategy.kind != StrategyKind::serial) r.hedge_error = 0.2;
  s[1].pick = recommend_among(s[1].strategies, s[1].candidates);
  EXPECT_EQ(s[1].pick_result().strategy.label(), "serial");
  EXPECT_EQ(summarize_accuracy(s).advisor_slower_than_serial, 0);
}

TEST(Baselines, ARuleWhoseStrategyWasNotMeasuredSkipsThatScenario) {
  std::vector<ScenarioResult> s = two();
  s[1].strategies.pop_back();  // no sp in B: neither the rule nor the default there
  s[1].candidates = {0};
  const AccuracySummary sum = summarize_accuracy(s);
  EXPECT_EQ(baseline(sum, "always_base").scenarios, 1);
  EXPECT_EQ(sum.default_scenarios, 1);
}

// ---- the faster transport's ideal ----

TEST(FastIdeal, UsesTheFasterTransportOrThePapersIdeal) {
  // t_g 1, t_cu 4, t_dma 0.5: paper ideal 5/4; fast ideal 5/max(1, 0.5) = 5.
  EXPECT_DOUBLE_EQ(model::ideal_speedup(1, 4), 1.25);
  EXPECT_DOUBLE_EQ(model::fast_ideal_speedup(1, 4, 0.5), 5.0);
  // No dma transport (0): the paper's ideal.
  EXPECT_DOUBLE_EQ(model::fast_ideal_speedup(1, 4, 0), 1.25);
  // A slower dma changes nothing.
  EXPECT_DOUBLE_EQ(model::fast_ideal_speedup(2, 1, 3), 1.5);
  // Measured 2 (speedup 2.5): 600% of the paper's ideal, 37.5% of the fast one.
  EXPECT_DOUBLE_EQ(model::fraction_of_ideal(2.5, 1.25), 6.0);
  EXPECT_DOUBLE_EQ(model::fraction_of_ideal(2.5, 5.0), 0.375);
}

// ---- cross-validation ----

// Ties decide: dma predicted 1.5% faster than sp, measured 5% faster. A margin >= 2% makes
// the simpler sp win (wrong); 0 to 1% keeps dma (right). Cross-validation must pick <= 1%.
ScenarioResult near_tie() {
  return scenario(CollectiveKind::all_gather,
                  {result("sp", 10e-3, 10.15e-3), result("dma", 9.5e-3, 10e-3)});
}

TEST(CrossValidation, FitsTheTieMarginOnTheOtherFolds) {
  std::vector<ScenarioResult> s(6, near_tie());
  const CrossValidation cv = cross_validate(s, 3);
  ASSERT_EQ(cv.folds.size(), 3u);
  for (const FoldResult& f : cv.folds) {
    EXPECT_EQ(f.train_scenarios, 4);
    EXPECT_EQ(f.test_scenarios, 2);
    EXPECT_DOUBLE_EQ(f.tie_margin, 0.0);  // the smallest of the margins that are all right
    EXPECT_DOUBLE_EQ(f.summary.decision_accuracy, 1.0);
  }
  EXPECT_DOUBLE_EQ(cv.metrics.at("decision_accuracy").mean, 1.0);
  EXPECT_DOUBLE_EQ(cv.metrics.at("decision_accuracy").stddev, 0.0);
}

TEST(CrossValidation, SpreadAcrossFolds) {
  // Fold 0 holds the wrong-for-every-margin scenario: accuracy 1/2 there, 1 elsewhere.
  std::vector<ScenarioResult> s(4, near_tie());
  s[0] = scenario(CollectiveKind::all_gather, {result("sp", 10e-3, 9e-3), result("dma", 8e-3, 10e-3)});
  const CrossValidation cv = cross_validate(s, 2);
  EXPECT_DOUBLE_EQ(cv.folds[0].summary.decision_accuracy, 0.5);
  EXPECT_DOUBLE_EQ(cv.folds[1].summary.decision_accuracy, 1.0);
  EXPECT_DOUBLE_EQ(cv.metrics.at("decision_accuracy").mean, 0.75);
  EXPECT_DOUBLE_EQ(cv.metrics.at("decision_accuracy").stddev, 0.25);
  EXPECT_DOUBLE_EQ(cv.metrics.at("decision_accuracy").min, 0.5);
}

TEST(CrossValidation, KMustFitTheScenarios) {
  const std::vector<ScenarioResult> s(3, near_tie());
  EXPECT_THROW(cross_validate(s, 1), InputError);
  EXPECT_THROW(cross_validate(s, 4), InputError);
}

// ---- the train/test manifest ----

TEST(Splits, RepositoryManifestListsEveryMeasurementFile) {
  const Splits splits = io::load_splits(test::source_path("data/splits.yaml"));
  for (const auto& entry : std::filesystem::directory_iterator(test::source_path("data/measurements"))) {
    if (entry.path().extension() != ".json") continue;
    EXPECT_NE(splits.split_of(entry.path().string()), SplitKind::unlisted) << entry.path();
  }
  EXPECT_EQ(splits.split_of("data/measurements/heldout-h200x2-2026-11-22.json"), SplitKind::train);
}

TEST(Splits, TestFilesAreRefusedByNameWherever) {
  const Splits splits = io::parse_splits(
      "schema_version: 1\nfiles:\n  - {file: data/measurements/x.json, split: test, scenarios: s.yaml, seed: 9}\n",
      "splits.yaml");
  EXPECT_EQ(splits.entries.at(0).seed, 9u);
  EXPECT_EQ(splits.split_of("/elsewhere/x.json"), SplitKind::test);
  EXPECT_EQ(splits.split_of("y.json"), SplitKind::unlisted);
  try {
    io::require_not_test(splits, "/elsewhere/x.json", "calibrate --collectives");
    FAIL() << "expected an InputError";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("/elsewhere/x.json is listed as test in splits.yaml"), std::string::npos)
        << e.what();
  }
  EXPECT_NO_THROW(io::require_not_test(splits, "y.json", "calibrate"));
  EXPECT_NO_THROW(io::require_not_test(Splits{}, "x.json", "calibrate"));
}

TEST(Splits, ScenarioSetsOfASplitAreTheLeadingPathsOnce) {
  const Splits splits = io::parse_splits(
      "schema_version: 1\nfiles:\n"
      "  - {file: a.json, split: train, scenarios: data/scenarios/g-s1.yaml (scenarios generate --seed 1), "
      "seed: 1}\n"
      "  - {file: b.json, split: train, scenarios: \"data/scenarios/g-s1.yaml, all pairs, a second "
      "process\"}\n"
      "  - {file: c.json, split: train, scenarios: paper}\n"
      "  - {file: d.json, split: train, scenarios: calibration plan of h200x2}\n"
      "  - {file: e.json, split: train, scenarios: the 87 pairs with a dma record of b.json}\n"
      "  - {file: f.json, split: test, scenarios: data/scenarios/g-s2.yaml}\n",
      "splits.yaml");
  EXPECT_EQ(io::scenario_sets_of(splits, SplitKind::train),
            (std::vector<std::string>{"data/scenarios/g-s1.yaml", "paper"}));
  EXPECT_EQ(io::scenario_sets_of(splits, SplitKind::test),
            (std::vector<std::string>{"data/scenarios/g-s2.yaml"}));
  EXPECT_TRUE(io::scenario_sets_of(Splits{}, SplitKind::train).empty());
}

TEST(Splits, BadManifestNamesTheField) {
  const auto bad = [](const std::string& text) {
    return test::config_error([&] { io::parse_splits(text, "splits.yaml"); });
  };
  EXPECT_EQ(bad("schema_version: 1\nfiles:\n  - {file: a.json, split: dev, scenarios: s}\n").key(), "files[0].split");
  EXPECT_EQ(bad("schema_version: 1\nfiles:\n  - {file: a.json, split: test}\n").key(), "files[0].scenarios");
  const ConfigError twice = bad(
      "schema_version: 1\nfiles:\n  - {file: d/a.json, split: test, scenarios: s}\n"
      "  - {file: e/a.json, split: train, scenarios: s}\n");
  EXPECT_EQ(twice.key(), "files[1].file");
  EXPECT_EQ(twice.line(), 4);
  EXPECT_TRUE(io::load_splits("/nonexistent/splits.yaml", true).entries.empty());
  EXPECT_THROW(io::load_splits("/nonexistent/splits.yaml", false), ConfigError);
}

}  // namespace
}  // namespace c3::validator
