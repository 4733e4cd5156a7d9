// evaluate/baselines.cpp: fixed rules scored next to the advisor (c3/evaluate.hpp,
// docs/accuracy.md "Baselines"): what a user gets without c3advisor.
#include <algorithm>
#include <cmath>

#include "evaluate/accuracy.hpp"

namespace c3::validator {
namespace {

struct Rule {
  const char* name;
  const char* rule;
};
constexpr Rule kRules[] = {
    {"always_base", "launch the GEMM first, the collective beside it on the library's defaults"},
    {"always_sp", "launch the collective first on the library's defaults (the framework default); a dependent "
                  "pair: serial, the collective and the GEMM one after the other (what a framework does without "
                  "a decomposition)"},
    {"dma_else_sp", "the collective on copy engines where it can run there (no reduction), else always_sp"},
    {"launch_order", "the ConCCL paper's launch-order heuristic (Advisor::heuristic)"},
    {"cu_split", "the ConCCL paper's CU-split heuristic (Advisor::heuristic)"},
};

std::optional<std::size_t> measured(const ScenarioResult& s, StrategyKind kind) {
  for (std::size_t i = 0; i < s.strategies.size(); ++i)
    if (s.strategies[i].strategy.kind == kind && s.strategies[i].strategy.label() == std::string(kind.name()))
      return i;
  return std::nullopt;
}

// Accumulates one rule's picks (and the advisor's on the same scenarios).
struct Tally {
  int right = 0;
  int advisor_right = 0;
  std::vector<double> losses;
  std::vector<double> advisor_losses;
  double log_ratio = 0;
  double advisor_log_ratio = 0;
};

double mean_of(const std::vector<double>& v) {
  double sum = 0;
  for (double x : v) sum += x;
  return v.empty() ? 0 : sum / static_cast<double>(v.size());
}

double worst_of(const std::vector<double>& v) { return v.empty() ? 0 : *std::max_element(v.begin(), v.end()); }

}  // namespace

std::vector<std::string> baseline_names() {
  std::vector<std::string> out;
  for (const Rule& r : kRules) out.emplace_back(r.name);
  return out;
}

std::optional<std::size_t> baseline_pick(const ScenarioResult& s, const std::string& name) {
  if (name == "always_base") return measured(s, StrategyKind::base);
  if (name == "always_sp")
    return measured(s, s.pair.dependency == Dependency::none ? StrategyKind::sp : StrategyKind::serial);
  if (name == "dma_else_sp")
    return dma_capable(s.pair.collective.kind) ? measured(s, StrategyKind::dma) : measured(s, StrategyKind::sp);
  for (const HeuristicResult& h : s.heuristics)
    if (h.name == name) return h.scored;
  return std::nullopt;
}

std::vector<BaselineSummary> summarize_baselines(const std::vector<ScenarioResult>& scenarios, double tolerance) {
  std::vector<BaselineSummary> out;
  for (const Rule& rule : kRules) {
    Tally t;
    for (const ScenarioResult& s : scenarios) {
      const auto pick = baseline_pick(s, rule.name);
      const auto base = measured(s, kFrameworkDefault);
      if (!pick || !base) continue;
      const StrategyResult& r = s.strategies[*pick];
      const double default_s = s.strategies[*base].measured_s;
      t.right += r.loss_vs_oracle <= tolerance + 1e-12 ? 1 : 0;
      t.advisor_right += s.correct(tolerance) ? 1 : 0;
      t.losses.push_back(r.loss_vs_oracle);
      t.advisor_losses.push_back(s.loss_vs_oracle());
      t.log_ratio += std::log(r.measured_s / default_s);
      t.advisor_log_ratio += std::log(s.pick_result().measured_s / default_s);
    }
    if (t.losses.empty()) continue;
    const double n = static_cast<double>(t.losses.size());
    BaselineSummary b;
    b.name = rule.name;
    b.rule = rule.rule;
    b.scenarios = static_cast<int>(t.losses.size());
    b.decision_accuracy = t.right / n;
    b.mean_loss_vs_oracle = mean_of(t.losses);
    b.worst_loss_vs_oracle = worst_of(t.losses);
    b.geomean_vs_default = std::exp(t.log_ratio / n);
    b.advisor_decision_accuracy = t.advisor_right / n;
    b.advisor_mean_loss_vs_oracle = mean_of(t.advisor_losses);
    b.advisor_worst_loss_vs_oracle = worst_of(t.advisor_losses);
    b.advisor_geomean_vs_default = std::exp(t.advisor_log_ratio / n);
    out.push_back(b);
  }
  return out;
}

}  // namespace c3::validator
