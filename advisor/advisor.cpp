// The advisor: every strategy's prediction, the recommendation and its reason;
// the paper's two cheap heuristics; trace planning.
#include "c3/advisor.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>

#include "c3/errors.hpp"

namespace c3 {
namespace {

std::string fmt(const char* format, double value) {
  char buf[64];
  std::snprintf(buf, sizeof buf, format, value);
  return buf;
}

std::string reason(const HardwareProfile& hw, const Advice& a) {
  const StrategyPrediction& p = a.recommendation();
  const c3::strategies::Estimate estimate{p.predicted_s, p.collective_cus, p.gemm_cus};
  const std::string what = c3::strategies::family_of(p.strategy.kind)
                               .describe({hw, a.pair, a.taxonomy.gemm, p.strategy, estimate});
  return what + ": predicted " + fmt("%.3g", p.predicted_s * 1e3) + " ms, " +
         fmt("%.2f", p.speedup) + "x over serial (" + fmt("%.0f", p.fraction_of_ideal * 100.0) +
         "% of the ideal " + fmt("%.2f", a.ideal_speedup) + "x).";
}

// Every time positive and finite, every speedup finite: a profile whose values are valid
// one by one (positive, finite) may still overflow or underflow a double together
// (a peak of 1e-300 flop/s, a curve's time of 1e-320 s).
void check_finite(const HardwareProfile& hw, const Advice& a) {
  const auto time = [](double t) { return t > 0 && std::isfinite(t); };
  bool ok = time(a.isolated.gemm_s) && time(a.isolated.collective_s) &&
            std::isfinite(a.isolated.collective_dma_s) && a.isolated.collective_dma_s >= 0 &&
            std::isfinite(a.ideal_speedup);
  for (const StrategyPrediction& p : a.strategies)
    ok = ok && time(p.predicted_s) && std::isfinite(p.speedup) && std::isfinite(p.fraction_of_ideal);
  if (!ok)
    throw InputError("profile '" + hw.name + "': its values give this pair a time or speedup beyond " +
                     "what a double holds (GEMM " + format_gemm(a.pair.gemm) + ", " +
                     std::string(to_string(a.pair.collective.kind)) + " " +
                     format_size(a.pair.collective.size_bytes) + ")");
}

// The model's expected error for strategy `s` of `pair`, as Confidence reports it.
// Independent pairs: the profile's p90 per strategy kind. Dependent pairs: schedule_error.
double expected_error(const HardwareProfile& hw, const C3Pair& pair, const Strategy& s) {
  if (pair.dependency != Dependency::none) return schedule_error(hw, pair, s);
  const auto it = hw.prediction_error.find(std::string(to_string(s.kind)));
  return it == hw.prediction_error.end() ? 0.0 : it->second;
}

// The runner-up, the margin and the expected error of the current recommendation.
Confidence confidence(const HardwareProfile& hw, const Advice& a) {
  Confidence c;
  if (a.strategies.size() < 2) return c;
  const StrategyPrediction& rec = a.recommendation();
  std::size_t runner = a.strategies.size();
  for (std::size_t i = 0; i < a.strategies.size(); ++i)
    if (i != a.recommended && (runner == a.strategies.size() ||
                               a.strategies[i].predicted_s < a.strategies[runner].predicted_s))
      runner = i;
  c.runner_up = runner;
  c.margin = a.strategies[runner].predicted_s / rec.predicted_s - 1.0;
  c.expected_error = std::max(expected_error(hw, a.pair, rec.strategy), expected_error(hw, a.pair, a.strategies[runner].strategy));
  c.hedge_error =
      std::max(hedge_error(hw, a.pair, rec.strategy), hedge_error(hw, a.pair, a.strategies[runner].strategy));
  return c;
}

std::string hedge_reason(const Advice& a, std::size_t fastest) {
  const StrategyPrediction& f = a.strategies[fastest];
  return " " + f.strategy.label() + " is predicted " +
         fmt("%.1f", (a.recommendation().predicted_s / f.predicted_s - 1.0) * 100) +
         "% faster, inside the error the advisor allows here (" +
         fmt("%.1f", a.confidence.hedge_error * 100) + "%): this pick has the smallest predicted worst case.";
}

}  // namespace

std::vector<std::string> heuristic_names() { return {"launch_order", "cu_split"}; }

double schedule_error(const HardwareProfile& hw, const C3Pair& pair, const Strategy& s) {
  if (pair.dependency == Dependency::none || s.kind == StrategyKind::serial) return 0.0;
  if (s.kind == StrategyKind::chunked && s.collective_cus > 0)
    if (const auto it = hw.prediction_error.find(kPartitionedScheduleError); it != hw.prediction_error.end())
      return it->second;
  const auto it = hw.prediction_error.find(std::string(to_string(s.kind)));
  return it == hw.prediction_error.end() ? 0.0 : it->second;
}

double hedge_error(const HardwareProfile& hw, const C3Pair& pair, const Strategy& s) {
  if (s.kind == StrategyKind::chunked && s.collective_cus == 0 && pair.dependency != Dependency::none)
    if (const auto it = hw.schedule_hedges.find(HedgeGroup{pair.dependency, pair.collective.kind});
        it != hw.schedule_hedges.end())
      return it->second;
  return schedule_error(hw, pair, s);
}

std::size_t recommend_hedged(const std::vector<Strategy>& strategies, const std::vector<double>& predicted_s,
                             const std::vector<double>& hedge_errors, double tie_margin) {
  if (hedge_errors.size() != strategies.size())
    throw InputError("recommend_hedged: needs one hedge error per strategy");
  const std::size_t pick = recommend(strategies, predicted_s, tie_margin);
  std::size_t runner = strategies.size();
  for (std::size_t i = 0; i < strategies.size(); ++i)
    if (i != pick && (runner == strategies.size() || predicted_s[i] < predicted_s[runner])) runner = i;
  if (runner == strategies.size()) return pick;
  const double margin = predicted_s[runner] / predicted_s[pick] - 1.0;
  if (!(margin < std::max(hedge_errors[pick], hedge_errors[runner]))) return pick;
  // Inside the model's error: the smallest predicted worst case, time x (1 + error).
  std::vector<double> worst_s;
  for (std::size_t i = 0; i < strategies.size(); ++i) worst_s.push_back(predicted_s[i] * (1.0 + hedge_errors[i]));
  return recommend(strategies, worst_s, tie_margin);
}

std::size_t recommend(const std::vector<Strategy>& strategies, const std::vector<double>& predicted_s) {
  return recommend(strategies, predicted_s, kTieMargin);
}

std::size_t recommend(const std::vector<Strategy>& strategies, const std::vector<double>& predicted_s,
                      double tie_margin) {
  if (strategies.empty() || strategies.size() != predicted_s.size())
    throw InputError("recommend: needs one predicted time per strategy, and at least one");
  const double fastest = *std::min_element(predicted_s.begin(), predicted_s.end());
  std::size_t pick = strategies.size();
  for (std::size_t i = 0; i < strategies.size(); ++i) {
    if (predicted_s[i] > fastest * (1.0 + tie_margin)) continue;
    if (pick == strategies.size()) {
      pick = i;
      continue;
    }
    const int ci = c3::strategies::complexity(strategies[i]), cp = c3::strategies::complexity(strategies[pick]);
    if (ci < cp || (ci == cp && predicted_s[i] < predicted_s[pick])) pick = i;
  }
  return pick;
}

Advisor::Advisor(HardwareProfile profile) : profile_(std::move(profile)) {
  if (profile_.compute_units <= 0)
    throw InputError("profile '" + profile_.name + "': compute_units must be positive");
  if (profile_.peak_flops_per_s.empty() || !(profile_.hbm_bw_bytes_per_s > 0))
    throw InputError("profile '" + profile_.name + "' has no peak flops or HBM bandwidth");
}

Advice Advisor::advise(const C3Pair& pair) const {
  validate(pair.gemm);
  validate(pair.collective);
  validate_dependency(pair.gemm, pair.collective, pair.dependency);
  validate_chained(pair);
  const HardwareProfile& hw = profile_;
  Advice a;
  a.pair = pair;
  a.warnings = model::domain_warnings(hw, pair);
  a.isolated = model::isolated_times(hw, pair);
  a.taxonomy = model::classify(hw, pair);
  a.ideal_speedup = model::ideal_speedup(a.isolated.gemm_s, a.isolated.collective_s);
  for (const Strategy& s : c3::strategies::candidates(hw, pair)) {
    const c3::strategies::Estimate e = c3::strategies::predict(hw, pair, s);
    StrategyPrediction p;
    p.strategy = s;
    p.collective_cus = e.collective_cus;
    p.gemm_cus = e.gemm_cus;
    p.predicted_s = e.time_s;
    p.speedup = model::speedup(a.isolated.gemm_s, a.isolated.collective_s, p.predicted_s);
    p.fraction_of_ideal = model::fraction_of_ideal(p.speedup, a.ideal_speedup);
    a.strategies.push_back(p);
  }
  check_finite(hw, a);
  std::vector<Strategy> strategies;
  std::vector<double> predicted_s;
  for (const auto& p : a.strategies) {
    strategies.push_back(p.strategy);
    predicted_s.push_back(p.predicted_s);
  }
  std::vector<double> hedge_errors;
  for (const Strategy& st : strategies) hedge_errors.push_back(hedge_error(hw, pair, st));
  const std::size_t fastest = recommend(strategies, predicted_s);
  a.recommended = recommend_hedged(strategies, predicted_s, hedge_errors);
  a.confidence = confidence(hw, a);
  a.confidence.hedged = a.recommended != fastest;
  a.reason = reason(hw, a) + (a.confidence.hedged ? hedge_reason(a, fastest) : std::string());
  return a;
}

Strategy Advisor::heuristic(std::string_view name, const C3Pair& pair) const {
  model::domain_warnings(profile_, pair);  // throws outside the profile's hard limits
  if (pair.dependency != Dependency::none)
    throw InputError("the paper's heuristics choose how to overlap an independent pair; this pair is " +
                     std::string(to_string(pair.dependency)));
  const HardwareProfile& hw = profile_;
  if (name == "launch_order") {
    // The paper: launch kernels in increasing order of their workgroup count.
    const auto coll_wg = model::collective_default_cus(hw, pair.collective.kind);
    return coll_wg <= model::gemm_workgroups(hw, pair.gemm) ? Strategy{StrategyKind::sp, 0, 0}
                                                            : Strategy{StrategyKind::base, 0, 0};
  }
  if (name == "cu_split") {
    // The paper: roofline times at 70% efficiency (compute, memory, network),
    // scaled by the tables' slowdowns; the split with the lowest max of the two.
    const model::Taxonomy tax = model::classify(hw, pair);
    const double gemm_s = model::gemm_roofline_time_s(hw, pair.gemm, hw.heuristic_efficiency);
    const double coll_s =
        model::wire_bytes(pair.collective) / (hw.link_bw_bytes_per_s * hw.heuristic_efficiency);
    Strategy best{StrategyKind::sp, 0, 0};
    double best_s = std::numeric_limits<double>::infinity();
    for (int cus : model::allowed_collective_cus(hw, pair)) {
      const double t = std::max(
          gemm_s * model::gemm_slowdown(hw, tax.gemm, cus),
          coll_s * model::collective_slowdown(hw, pair.collective.kind, tax.collective, cus));
      if (t < best_s) {
        best_s = t;
        best = Strategy{StrategyKind::rp, cus, cus};
      }
    }
    return best;
  }
  std::string names;
  for (const auto& n : heuristic_names()) names += (names.empty() ? "" : ", ") + n;
  throw InputError("unknown heuristic '" + std::string(name) + "' (valid: " + names + ")");
}

Plan plan(const Advisor& advisor, const Trace& trace) {
  Plan out;
  for (const TraceEntry& e : trace.entries) {
    if (e.repeat <= 0)
      throw InputError("trace entry '" + e.pair.name + "': repeat must be positive");
    PlanEntry pe{e, [&] {
                   try {
                     return advisor.advise(e.pair);
                   } catch (const ConfigError&) {
                     throw;  // a file's error names its file and line already
                   } catch (const InputError& error) {  // which entry: the trace may hold hundreds
                     throw InputError("trace entry '" + e.pair.name + "': " + error.what());
                   }
                 }()};
    const auto find = [&](StrategyKind k) {
      for (const auto& p : pe.advice.strategies)
        if (p.strategy.kind == k) return p.predicted_s;
      return 0.0;
    };
    const auto repeat = static_cast<double>(e.repeat);
    out.advised_s += repeat * pe.advice.recommendation().predicted_s;
    out.serial_s += repeat * find(StrategyKind::serial);
    // A dependent pair has no `base` (its two halves cannot start together): serial is its base.
    const double base_s = find(StrategyKind::base);
    out.base_s += repeat * (base_s > 0 ? base_s : find(StrategyKind::serial));
    out.entries.push_back(std::move(pe));
  }
  return out;
}

}  // namespace c3
