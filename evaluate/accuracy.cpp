// Accuracy of the advice on measured data (evaluate/accuracy.hpp).
#include "evaluate/accuracy.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <memory>
#include <set>
#include <tuple>

#include "c3/errors.hpp"
#include "io/query.hpp"

namespace c3::validator {
namespace {

// Families by position, kinds in family order, then by CUs (c3::strategies::canonical_less).
void sort_canonical(std::vector<Strategy>& strategies) {
  std::sort(strategies.begin(), strategies.end(), c3::strategies::canonical_less);
  strategies.erase(std::unique(strategies.begin(), strategies.end()), strategies.end());
}

std::string fmt(const char* format, double value) {
  char buf[64];
  std::snprintf(buf, sizeof buf, format, value);
  return buf;
}

const Record* find_record(const RawMeasurements& raw, const Query& query) {
  const std::string key = measurement_key(query);
  for (const Record& r : raw.records)
    if (measurement_key(r.query) == key) return &r;
  return nullptr;
}

double mean(const std::vector<double>& v) {
  if (v.empty()) return 0;
  double sum = 0;
  for (double x : v) sum += x;
  return sum / static_cast<double>(v.size());
}

// "rp(best)": the best measured strategy of a parametrized kind.
std::string best_key(StrategyKind kind) { return std::string(kind.name()) + "(best)"; }

// The per-key (fraction of ideal, speedup) of one scenario (GroupFractions' keys).
std::map<std::string, const StrategyResult*> scenario_keys(const ScenarioResult& s) {
  std::map<std::string, const StrategyResult*> out;
  out["advisor"] = &s.pick_result();
  out["oracle"] = &s.oracle_result();
  for (const HeuristicResult& h : s.heuristics)
    if (h.scored) out[h.name] = &s.strategies.at(*h.scored);
  for (const StrategyResult& r : s.strategies) {
    out[r.strategy.label()] = &r;
    if (!c3::strategies::family_of(r.strategy.kind).parametrized(r.strategy.kind)) continue;
    const std::string best = best_key(r.strategy.kind);
    const auto it = out.find(best);
    if (it == out.end() || r.measured_s < it->second->measured_s) out[best] = &r;
  }
  return out;
}

// Column order: the advisor, the oracle, the heuristics, then every measured family.
std::vector<std::string> key_order(const std::vector<ScenarioResult>& scenarios) {
  std::vector<std::string> keys{"advisor", "oracle"};
  for (const std::string& h : heuristic_names()) keys.push_back(h);
  std::vector<Strategy> all;
  for (const ScenarioResult& s : scenarios)
    for (const StrategyResult& r : s.strategies) all.push_back(r.strategy);
  sort_canonical(all);
  std::set<StrategyKind> best_added;
  for (const Strategy& st : all) {
    if (c3::strategies::family_of(st.kind).parametrized(st.kind) && best_added.insert(st.kind).second)
      keys.push_back(best_key(st.kind));
    keys.push_back(st.label());
  }
  return keys;
}

}  // namespace

std::size_t recommend_among(const std::vector<StrategyResult>& strategies,
                            const std::vector<std::size_t>& candidates, double tie_margin) {
  if (candidates.empty()) throw InputError("recommend_among: no candidate");
  std::vector<Strategy> offered;
  std::vector<double> predicted_s, hedge_errors;
  for (std::size_t i : candidates) {
    offered.push_back(strategies.at(i).strategy);
    predicted_s.push_back(strategies.at(i).predicted_s.value());
    hedge_errors.push_back(strategies.at(i).hedge_error);
  }
  return candidates[recommend_hedged(offered, predicted_s, hedge_errors, tie_margin)];
}

// ---- which strategies were measured ----

std::vector<Strategy> recorded_strategies(const RawMeasurements& raw, const C3Pair& pair) {
  std::vector<Strategy> out;
  for (const Record& r : raw.records) {
    const auto* q = std::get_if<ConcurrentQuery>(&r.query);
    if (q != nullptr && q->gemm == pair.gemm && q->collective == pair.collective && q->dependency == pair.dependency)
      out.push_back(q->strategy);
  }
  sort_canonical(out);
  return out;
}

StrategySource recorded_strategy_source(RawMeasurements raw) {
  auto shared = std::make_shared<const RawMeasurements>(std::move(raw));
  return [shared](const C3Pair& pair) { return recorded_strategies(*shared, pair); };
}

StrategySource planned_strategy_source(MeasureOptions options) {
  return [options = std::move(options)](const C3Pair& pair) {
    std::vector<Strategy> out = measured_strategies(pair, options);
    sort_canonical(out);
    return out;
  };
}

std::vector<std::string> missing_measurements(const RawMeasurements& raw, const C3Pair& pair) {
  std::vector<std::string> out;
  const auto check = [&](const Query& q, const std::string& what) {
    const Record* r = find_record(raw, q);
    if (r == nullptr)
      out.push_back("no " + what + " measurement '" + measurement_key(q) + "'");
    else if (!r->measurement.ok)
      out.push_back(what + " measurement failed: " + r->measurement.error);
  };
  check(GemmQuery{pair.gemm, 0}, "isolated GEMM");
  check(CollectiveQuery{pair.collective, Transport::cu, 0}, "isolated collective");
  const std::vector<Strategy> strategies = recorded_strategies(raw, pair);
  bool any_ok = false;
  for (const Strategy& s : strategies) {
    const Record* r = find_record(raw, ConcurrentQuery{pair.gemm, pair.collective, s, pair.dependency});
    any_ok = any_ok || (r != nullptr && r->measurement.ok);
  }
  if (strategies.empty())
    out.push_back("no concurrent measurement of " + format_gemm(pair.gemm) + " + " +
                  std::string(to_string(pair.collective.kind)) + " size_bytes=" +
                  std::to_string(pair.collective.size_bytes) +
                  " ranks=" + std::to_string(pair.collective.ranks));
  else if (!any_ok)
    out.push_back("every concurrent measurement failed");
  return out;
}

// ---- results ----

std::vector<TimelineMark> predicted_timeline(const HardwareProfile& hw, const C3Pair& pair, const Strategy& s) {
  const model::PipelineTimes t = model::pipeline_times(
      model::decomposed_pipeline(hw, pair, {s.chunks, s.chunk_transport, s.collective_cus}));
  std::vector<TimelineMark> out;
  for (std::size_t i = 0; i < t.gemm_end_s.size(); ++i) out.push_back({"gemm", 0, static_cast<int>(i), -1, t.gemm_end_s[i]});
  for (std::size_t i = 0; i < t.comm_end_s.size(); ++i)
    out.push_back({"collective", 0, static_cast<int>(i), -1, t.comm_end_s[i]});
  return out;
}

std::optional<double> StrategyResult::prediction_error() const {
  if (!predicted_s || !(measured_s > 0)) return std::nullopt;
  return (*predicted_s - measured_s) / measured_s;
}

bool ScenarioResult::correct(double tolerance) const {
  return loss_vs_oracle() <= tolerance + 1e-12;
}

double quantile(std::vector<double> values, double q) {
  if (values.empty()) return 0;
  if (q < 0 || q > 1) throw InputError("quantile: q must be in [0, 1]");
  std::sort(values.begin(), values.end());
  const double pos = q * static_cast<double>(values.size() - 1);
  const auto lo = static_cast<std::size_t>(std::floor(pos));
  const std::size_t hi = std::min(lo + 1, values.size() - 1);
  return values[lo] + (pos - static_cast<double>(lo)) * (values[hi] - values[lo]);
}

std::optional<std::size_t> map_to_measured(const std::vector<StrategyResult>& measured,
                                           const Strategy& advised, std::string& note) {
  note.clear();
  for (std::size_t i = 0; i < measured.size(); ++i)
    if (measured[i].strategy == advised) return i;
  if (advised.kind == StrategyKind::rp) {
    std::optional<std::size_t> best;
    for (std::size_t i = 0; i < measured.size(); ++i) {
      if (measured[i].strategy.kind != StrategyKind::rp) continue;
      const int d = std::abs(measured[i].strategy.collective_cus - advised.collective_cus);
      if (!best || d < std::abs(measured[*best].strategy.collective_cus - advised.collective_cus))
        best = i;  // measured in increasing CUs: a tie keeps the smaller split
    }
    if (best) {
      note = advised.label() + " was not measured; scored as " +
             measured[*best].strategy.label() + ", the nearest measured split";
      return best;
    }
  }
  note = advised.label() + " was not measured; not scored";
  return std::nullopt;
}

std::vector<StrategyKind> heuristic_family(const std::string& name) {
  if (name == "launch_order") return {StrategyKind::base, StrategyKind::sp};
  if (name == "cu_split") return {StrategyKind::rp};
  return {};
}

// ---- the procedure ----

AccuracyReport evaluate_accuracy(const Advisor& advisor, const std::vector<C3Pair>& pairs,
                                 Validator& validator, const StrategySource& strategies,
                                 double tolerance) {
  const HardwareProfile& hw = advisor.profile();
  AccuracyReport report;
  report.tolerance = tolerance;
  for (const C3Pair& pair : pairs) {
    validate(pair.gemm);
    validate(pair.collective);
    const auto skip = [&](const std::string& reason) {
      report.skipped.push_back({pair, reason});
    };
    ScenarioResult s;
    s.pair = pair;
    const Measurement gm = validator.gemm(pair.gemm, 0);
    if (!gm.ok) {
      skip("isolated GEMM: " + gm.error);
      continue;
    }
    const Measurement cm = validator.collective(pair.collective, Transport::cu, 0);
    if (!cm.ok) {
      skip("isolated collective: " + cm.error);
      continue;
    }
    s.gemm_s = gm.median_s;
    s.collective_s = cm.median_s;
    if (dma_capable(pair.collective.kind)) {
      const Measurement dm = validator.collective(pair.collective, Transport::dma, 0);
      if (dm.ok) s.collective_dma_s = dm.median_s;
    }
    try {
      s.predicted_isolated = model::isolated_times(hw, pair);
      s.taxonomy = model::classify(hw, pair);
    } catch (const InputError& e) {
      skip(std::string("the model cannot predict this pair: ") + e.what());
      continue;
    }
    s.taxonomy.overlap = model::overlap_class(s.gemm_s, s.collective_s);
    s.ideal_speedup = model::ideal_speedup(s.gemm_s, s.collective_s);
    s.fast_ideal_speedup = model::fast_ideal_speedup(s.gemm_s, s.collective_s, s.collective_dma_s.value_or(0.0));

    for (const Strategy& st : strategies(pair)) {
      const Measurement m = validator.concurrent(pair, st);
      if (!m.ok) {
        s.notes.push_back(st.label() + " left out: its measurement failed: " + m.error);
        continue;
      }
      StrategyResult r;
      r.strategy = st;
      r.measured_s = m.median_s;
      r.speedup = model::speedup(s.gemm_s, s.collective_s, r.measured_s);
      r.fraction_of_ideal = model::fraction_of_ideal(r.speedup, s.ideal_speedup);
      r.fraction_of_fast_ideal = model::fraction_of_ideal(r.speedup, s.fast_ideal_speedup);
      r.timeline = m.timeline;
      try {
        r.predicted_s = c3::strategies::predicted_time_s(hw, pair, st);
        r.hedge_error = hedge_error(hw, pair, st);
        if (st.kind == StrategyKind::chunked) r.predicted_timeline = predicted_timeline(hw, pair, st);
      } catch (const InputError& e) {
        s.notes.push_back(st.label() + " not predicted, so not a candidate for the pick: " +
                          e.what());
      }
      s.strategies.push_back(r);
    }
    if (s.strategies.empty()) {
      skip("no successful concurrent measurement");
      continue;
    }
    for (std::size_t i = 0; i < s.strategies.size(); ++i)
      if (s.strategies[i].measured_s < s.strategies[s.oracle].measured_s) s.oracle = i;
    for (StrategyResult& r : s.strategies)
      r.loss_vs_oracle = r.measured_s / s.strategies[s.oracle].measured_s - 1.0;

    // The advisor's candidates among the measured strategies: those it offers for this
    // pair (Advisor::advise) and the model predicts; then the advisor's own rule.
    std::optional<Advice> advice;
    try {
      advice = advisor.advise(pair);
      s.advisor_recommendation = advice->recommendation().strategy;
    } catch (const InputError& e) {
      s.notes.push_back(std::string("the advisor cannot advise this pair, so every predicted "
                                    "strategy is a candidate: ") +
                        e.what());
    }
    std::vector<std::size_t> candidates;
    for (std::size_t i = 0; i < s.strategies.size(); ++i) {
      const StrategyResult& r = s.strategies[i];
      if (!r.predicted_s) continue;
      const bool offered =
          !advice || std::any_of(advice->strategies.begin(), advice->strategies.end(),
                                 [&](const StrategyPrediction& p) { return p.strategy == r.strategy; });
      if (offered)
        candidates.push_back(i);
      else
        s.notes.push_back(r.strategy.label() +
                          " is not among the strategies the advisor offers for this pair, so not a "
                          "candidate for the pick");
    }
    if (candidates.empty()) {
      skip("the model predicts none of the measured strategies");
      continue;
    }
    s.pick = recommend_among(s.strategies, candidates);
    s.candidates = candidates;
    if (s.advisor_recommendation && !(*s.advisor_recommendation == s.pick_result().strategy)) {
      const bool measured =
          std::any_of(s.strategies.begin(), s.strategies.end(), [&](const StrategyResult& r) {
            return r.strategy == *s.advisor_recommendation;
          });
      s.notes.push_back("over every strategy it offers the advisor recommends " +
                        s.advisor_recommendation->label() + (measured ? "" : " (not measured)") +
                        "; its rule over the measured ones picks " +
                        s.pick_result().strategy.label());
    }
    for (const std::string& name : heuristic_names()) {
      HeuristicResult h;
      h.name = name;
      try {
        h.advised = advisor.heuristic(name, pair);
      } catch (const InputError& e) {
        s.notes.push_back(name + " not scored: " + e.what());
        continue;
      }
      h.scored = map_to_measured(s.strategies, h.advised, h.note);
      const std::vector<StrategyKind> family = heuristic_family(name);
      for (std::size_t i = 0; i < s.strategies.size(); ++i) {
        if (std::find(family.begin(), family.end(), s.strategies[i].strategy.kind) == family.end())
          continue;
        if (!h.family_best || s.strategies[i].measured_s < s.strategies[*h.family_best].measured_s)
          h.family_best = i;
      }
      if (!h.note.empty()) s.notes.push_back(name + ": " + h.note);
      s.heuristics.push_back(h);
    }
    report.scenarios.push_back(std::move(s));
  }
  report.summary = summarize_accuracy(report.scenarios, tolerance);
  return report;
}

AccuracySummary summarize_accuracy(const std::vector<ScenarioResult>& scenarios, double tolerance) {
  AccuracySummary out;
  out.scenarios = static_cast<int>(scenarios.size());
  std::vector<double> losses;
  std::vector<double> errors;
  int correct = 0;
  FractionAggregator fractions;
  struct HeuristicAcc {
    int right = 0;
    int family_right = 0;
    std::vector<double> losses;
    std::vector<double> family_losses;
    std::vector<double> fractions;
  };
  std::map<std::string, HeuristicAcc> heuristics;

  for (const ScenarioResult& s : scenarios) {
    losses.push_back(s.loss_vs_oracle());
    correct += s.correct(tolerance) ? 1 : 0;
    for (const StrategyResult& r : s.strategies)
      if (const auto e = r.prediction_error()) errors.push_back(std::fabs(*e));
    std::vector<ColumnValue> values;
    for (const auto& [key, r] : scenario_keys(s))
      values.push_back({key, r->fraction_of_ideal, r->speedup, r->fraction_of_fast_ideal});
    fractions.add(s.pair.collective.kind, s.taxonomy.overlap, s.ideal_speedup, s.fast_ideal_speedup, values);
    for (const HeuristicResult& h : s.heuristics) {
      if (!h.scored) continue;
      const StrategyResult& r = s.strategies.at(*h.scored);
      HeuristicAcc& acc = heuristics[h.name];
      acc.right += r.loss_vs_oracle <= tolerance + 1e-12 ? 1 : 0;
      acc.losses.push_back(r.loss_vs_oracle);
      acc.fractions.push_back(r.fraction_of_ideal);
      const double family_loss =
          h.family_best ? r.measured_s / s.strategies.at(*h.family_best).measured_s - 1.0 : 0.0;
      acc.family_right += family_loss <= tolerance + 1e-12 ? 1 : 0;
      acc.family_losses.push_back(family_loss);
    }
  }
  out.right = correct;
  if (!scenarios.empty()) {
    out.decision_accuracy = static_cast<double>(correct) / static_cast<double>(scenarios.size());
    out.decision_accuracy_ci95 = wilson_interval(correct, static_cast<int>(scenarios.size()));
    out.mean_loss_vs_oracle = mean(losses);
    out.worst_loss_vs_oracle = *std::max_element(losses.begin(), losses.end());
  }
  out.predictions = static_cast<int>(errors.size());
  out.prediction_error_median = quantile(errors, 0.5);
  out.prediction_error_p90 = quantile(errors, 0.9);
  out.prediction_error_max = errors.empty() ? 0 : *std::max_element(errors.begin(), errors.end());

  FractionsByGroup groups = fractions.finish(key_order(scenarios));
  out.overall = std::move(groups.overall);
  out.by_collective = std::move(groups.by_collective);
  out.by_overlap = std::move(groups.by_overlap);
  for (const auto& [name, acc] : heuristics) {
    HeuristicSummary h;
    h.scenarios = static_cast<int>(acc.losses.size());
    h.decision_accuracy = static_cast<double>(acc.right) / static_cast<double>(h.scenarios);
    h.mean_loss_vs_oracle = mean(acc.losses);
    h.worst_loss_vs_oracle = *std::max_element(acc.losses.begin(), acc.losses.end());
    h.mean_fraction_of_ideal = mean(acc.fractions);
    h.family_accuracy = static_cast<double>(acc.family_right) / static_cast<double>(h.scenarios);
    h.mean_loss_vs_family_best = mean(acc.family_losses);
    h.worst_loss_vs_family_best =
        *std::max_element(acc.family_losses.begin(), acc.family_losses.end());
    out.heuristics[name] = h;
  }
  double advisor_log = 0;
  double oracle_log = 0;
  for (const ScenarioResult& s : scenarios) {
    const auto default_index = baseline_pick(s, "always_sp");
    if (!default_index) continue;
    const double default_s = s.strategies[*default_index].measured_s;
    ++out.default_scenarios;
    advisor_log += std::log(s.pick_result().measured_s / default_s);
    oracle_log += std::log(s.oracle_result().measured_s / default_s);
  }
  if (out.default_scenarios > 0) {
    out.advisor_geomean_vs_default = std::exp(advisor_log / out.default_scenarios);
    out.oracle_geomean_vs_default = std::exp(oracle_log / out.default_scenarios);
  }
  double serial_log = 0;
  for (const ScenarioResult& s : scenarios) {
    const auto serial = std::find_if(s.strategies.begin(), s.strategies.end(), [](const StrategyResult& r) {
      return r.strategy.kind == StrategyKind::serial;
    });
    if (serial == s.strategies.end()) continue;
    const double ratio = s.pick_result().measured_s / serial->measured_s;
    ++out.serial_scenarios;
    serial_log += std::log(ratio);
    out.advisor_worst_vs_serial = std::max(out.advisor_worst_vs_serial, ratio);
    if (ratio > 1.0 + kSerialSlack) ++out.advisor_slower_than_serial;
  }
  if (out.serial_scenarios > 0) out.advisor_geomean_vs_serial = std::exp(serial_log / out.serial_scenarios);
  out.baselines = summarize_baselines(scenarios, tolerance);
  return out;
}

// ---- the accuracy gate ----

namespace {

struct MetricInfo {
  const char* name;
  bool higher_is_better;
};
constexpr MetricInfo kMetrics[] = {
    {"decision_accuracy", true},        {"mean_loss_vs_oracle", false},
    {"worst_loss_vs_oracle", false},    {"prediction_error_median", false},
    {"prediction_error_p90", false},    {"prediction_error_max", false},
    {"advisor_fraction_of_ideal", true}, {"advisor_geomean_vs_default", false},
    {"advisor_worst_vs_serial", false}};

const MetricInfo& metric_info(const std::string& name) {
  for (const MetricInfo& m : kMetrics)
    if (name == m.name) return m;
  std::string names;
  for (const MetricInfo& m : kMetrics) names += (names.empty() ? "" : ", ") + std::string(m.name);
  throw InputError("unknown accuracy metric '" + name + "' (valid: " + names + ")");
}

}  // namespace

bool higher_is_better(const std::string& metric) { return metric_info(metric).higher_is_better; }

double summary_metric(const AccuracySummary& s, const std::string& name) {
  metric_info(name);
  if (name == "decision_accuracy") return s.decision_accuracy;
  if (name == "mean_loss_vs_oracle") return s.mean_loss_vs_oracle;
  if (name == "worst_loss_vs_oracle") return s.worst_loss_vs_oracle;
  if (name == "prediction_error_median") return s.prediction_error_median;
  if (name == "prediction_error_p90") return s.prediction_error_p90;
  if (name == "prediction_error_max") return s.prediction_error_max;
  if (name == "advisor_geomean_vs_default") return s.advisor_geomean_vs_default;
  if (name == "advisor_worst_vs_serial") return s.advisor_worst_vs_serial;
  const auto it = s.overall.fraction_of_ideal.find("advisor");
  return it == s.overall.fraction_of_ideal.end() ? 0.0 : it->second;
}

std::vector<std::string> gate_failures(const AccuracySummary& summary,
                                       const std::vector<GateThreshold>& thresholds) {
  std::vector<std::string> out;
  if (summary.scenarios == 0) out.push_back("no scenario was evaluated");
  for (const GateThreshold& t : thresholds) {
    const double v = summary_metric(summary, t.metric);
    const bool higher = higher_is_better(t.metric);
    const bool fails = higher ? v < t.limit - 1e-12 : v > t.limit + 1e-12;
    if (fails)
      out.push_back(t.metric + " " + fmt("%.4g", v) + (higher ? ", at least " : ", at most ") +
                    fmt("%.4g", t.limit) + " required");
  }
  return out;
}

std::vector<GateThreshold> gate_thresholds_from(const AccuracySummary& summary,
                                                std::vector<GateThreshold> tolerances) {
  for (GateThreshold& t : tolerances) {
    if (!(t.tolerance >= 0)) throw InputError(t.metric + ": tolerance must be >= 0");
    const double v = summary_metric(summary, t.metric);
    t.limit = higher_is_better(t.metric) ? v - t.tolerance : v + t.tolerance;
    if (t.metric == "decision_accuracy") t.limit = std::max(0.0, t.limit);
  }
  return tolerances;
}

}  // namespace c3::validator
