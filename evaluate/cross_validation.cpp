// evaluate/cross_validation.cpp: K-fold cross-validation of what the pairs fit, the
// advisor's tie margin (c3/evaluate.hpp, docs/accuracy.md "Cross-validation").
#include <algorithm>
#include <cmath>

#include "c3/errors.hpp"
#include "evaluate/accuracy.hpp"

namespace c3::validator {
namespace {

// `scenarios` with each pick chosen again under `margin`.
std::vector<ScenarioResult> repicked(std::vector<ScenarioResult> scenarios, double margin) {
  for (ScenarioResult& s : scenarios)
    if (!s.candidates.empty()) s.pick = recommend_among(s.strategies, s.candidates, margin);
  return scenarios;
}

// The margin of the grid with the highest accuracy on `train`, then the lowest mean loss,
// then the smallest margin (the grid's order when it is sorted).
double fit_margin(const std::vector<ScenarioResult>& train, const std::vector<double>& grid, double tolerance) {
  double best = grid.front();
  double best_accuracy = -1;
  double best_loss = 0;
  for (const double margin : grid) {
    const std::vector<ScenarioResult> picked = repicked(train, margin);
    int right = 0;
    double loss = 0;
    for (const ScenarioResult& s : picked) {
      right += s.correct(tolerance) ? 1 : 0;
      loss += s.loss_vs_oracle();
    }
    const double accuracy = static_cast<double>(right) / static_cast<double>(picked.size());
    loss /= static_cast<double>(picked.size());
    if (accuracy > best_accuracy + 1e-12 || (std::fabs(accuracy - best_accuracy) <= 1e-12 && loss < best_loss - 1e-12)) {
      best = margin;
      best_accuracy = accuracy;
      best_loss = loss;
    }
  }
  return best;
}

MetricSpread spread(const std::vector<double>& values) {
  MetricSpread out;
  if (values.empty()) return out;
  double sum = 0;
  for (double v : values) sum += v;
  out.mean = sum / static_cast<double>(values.size());
  double squares = 0;
  for (double v : values) squares += (v - out.mean) * (v - out.mean);
  out.stddev = std::sqrt(squares / static_cast<double>(values.size()));
  out.min = *std::min_element(values.begin(), values.end());
  out.max = *std::max_element(values.begin(), values.end());
  return out;
}

}  // namespace

std::vector<double> default_margin_grid() { return {0.0, 0.005, 0.01, 0.02, 0.03, 0.05}; }

CrossValidation cross_validate(const std::vector<ScenarioResult>& scenarios, int k,
                               const std::vector<double>& margin_grid, double tolerance) {
  if (k < 2 || static_cast<std::size_t>(k) > scenarios.size())
    throw InputError("--cv K needs 2 <= K <= the scenarios validated (" + std::to_string(scenarios.size()) +
                     "), got " + std::to_string(k));
  if (margin_grid.empty()) throw InputError("cross_validate: no tie margin to choose from");
  std::vector<double> grid = margin_grid;
  std::sort(grid.begin(), grid.end());
  CrossValidation cv;
  cv.k = k;
  cv.margin_grid = grid;
  std::map<std::string, std::vector<double>> values;
  for (int fold = 0; fold < k; ++fold) {
    std::vector<ScenarioResult> train;
    std::vector<ScenarioResult> test;
    for (std::size_t i = 0; i < scenarios.size(); ++i)
      (static_cast<int>(i % static_cast<std::size_t>(k)) == fold ? test : train).push_back(scenarios[i]);
    FoldResult r;
    r.fold = fold;
    r.train_scenarios = static_cast<int>(train.size());
    r.test_scenarios = static_cast<int>(test.size());
    r.tie_margin = fit_margin(train, grid, tolerance);
    r.summary = summarize_accuracy(repicked(test, r.tie_margin), tolerance);
    values["decision_accuracy"].push_back(r.summary.decision_accuracy);
    values["mean_loss_vs_oracle"].push_back(r.summary.mean_loss_vs_oracle);
    values["worst_loss_vs_oracle"].push_back(r.summary.worst_loss_vs_oracle);
    values["prediction_error_median"].push_back(r.summary.prediction_error_median);
    values["prediction_error_p90"].push_back(r.summary.prediction_error_p90);
    if (r.summary.default_scenarios > 0)
      values["advisor_geomean_vs_default"].push_back(r.summary.advisor_geomean_vs_default);
    values["tie_margin"].push_back(r.tie_margin);
    cv.folds.push_back(std::move(r));
  }
  for (const auto& [name, v] : values) cv.metrics[name] = spread(v);
  return cv;
}

}  // namespace c3::validator
