// views/accuracy_views.cpp: the report of `c3advisor validate` as text and as a JSON
// document (c3/views.hpp; schema in docs/accuracy.md).
#include <cmath>

#include "c3/views.hpp"
#include "views/json_parts.hpp"
#include "views/text_format.hpp"

namespace c3::validator {
namespace {

using io::detail::Json;
using io::detail::TextTable;
using io::detail::format_percent;
using io::detail::format_seconds;
using io::detail::format_speedup;

std::string pct(double fraction) { return format_percent(fraction); }

std::string ratio(int right, int total) {
  return std::to_string(right) + "/" + std::to_string(total) + " (" +
         pct(total > 0 ? static_cast<double>(right) / total : 0.0) + ")";
}

// ---- JSON ----

Json opt(const std::optional<double>& v) { return v ? Json(*v) : Json(nullptr); }

Json group_json(const GroupFractions& g) {
  Json fractions = Json::object();
  Json speedups = Json::object();
  Json counts = Json::object();
  for (const std::string& key : g.keys) {
    fractions[key] = g.fraction_of_ideal.at(key);
    speedups[key] = g.speedup.at(key);
    counts[key] = g.count.at(key);
  }
  return Json{{"scenarios", g.scenarios},
              {"ideal_speedup", g.ideal_speedup},
              {"fraction_of_ideal", fractions},
              {"speedup", speedups},
              {"count", counts}};
}

Json summary_json(const AccuracySummary& s) {
  Json by_collective = Json::object();
  for (const auto& [kind, g] : s.by_collective) by_collective[to_string(kind)] = group_json(g);
  Json by_overlap = Json::object();
  for (const auto& [cls, g] : s.by_overlap) by_overlap[model::to_string(cls)] = group_json(g);
  Json heuristics = Json::object();
  for (const auto& [name, h] : s.heuristics)
    heuristics[name] = Json{{"scenarios", h.scenarios},
                            {"decision_accuracy", h.decision_accuracy},
                            {"mean_loss_vs_oracle", h.mean_loss_vs_oracle},
                            {"worst_loss_vs_oracle", h.worst_loss_vs_oracle},
                            {"mean_fraction_of_ideal", h.mean_fraction_of_ideal},
                            {"family_accuracy", h.family_accuracy},
                            {"mean_loss_vs_family_best", h.mean_loss_vs_family_best},
                            {"worst_loss_vs_family_best", h.worst_loss_vs_family_best}};
  return Json{{"scenarios", s.scenarios},
              {"decision_accuracy", s.decision_accuracy},
              {"mean_loss_vs_oracle", s.mean_loss_vs_oracle},
              {"worst_loss_vs_oracle", s.worst_loss_vs_oracle},
              {"prediction_error_median", s.prediction_error_median},
              {"prediction_error_p90", s.prediction_error_p90},
              {"prediction_error_max", s.prediction_error_max},
              {"fraction_of_ideal", Json{{"overall", group_json(s.overall)},
                                         {"by_collective", by_collective},
                                         {"by_overlap", by_overlap}}},
              {"heuristics", heuristics}};
}

Json scenario_json(const ScenarioResult& s, double tolerance) {
  Json strategies = Json::array();
  for (const StrategyResult& r : s.strategies)
    strategies.push_back(Json{{"name", r.strategy.label()},
                              {"measured_s", r.measured_s},
                              {"predicted_s", opt(r.predicted_s)},
                              {"prediction_error", opt(r.prediction_error())},
                              {"speedup", r.speedup},
                              {"fraction_of_ideal", r.fraction_of_ideal},
                              {"loss_vs_oracle", r.loss_vs_oracle}});
  Json heuristics = Json::object();
  for (const HeuristicResult& h : s.heuristics) {
    Json j{{"advised", h.advised.label()}, {"scored_as", nullptr}, {"loss_vs_oracle", nullptr},
           {"fraction_of_ideal", nullptr}, {"family_best", nullptr},
           {"loss_vs_family_best", nullptr}};
    if (h.scored) {
      const StrategyResult& r = s.strategies.at(*h.scored);
      j["scored_as"] = r.strategy.label();
      j["loss_vs_oracle"] = r.loss_vs_oracle;
      j["fraction_of_ideal"] = r.fraction_of_ideal;
      if (h.family_best) {
        const StrategyResult& b = s.strategies.at(*h.family_best);
        j["family_best"] = b.strategy.label();
        j["loss_vs_family_best"] = r.measured_s / b.measured_s - 1.0;
      }
    }
    heuristics[h.name] = j;
  }
  return Json{{"name", s.pair.name},
              {"gemm", io::detail::gemm_json(s.pair.gemm)},
              {"collective", io::detail::collective_json(s.pair.collective)},
              {"taxonomy", io::detail::taxonomy_json(s.taxonomy)},
              {"measured_isolated", Json{{"gemm_s", s.gemm_s},
                                         {"collective_s", s.collective_s},
                                         {"collective_dma_s", opt(s.collective_dma_s)}}},
              {"predicted_isolated", io::detail::isolated_json(s.predicted_isolated)},
              {"ideal_speedup", s.ideal_speedup},
              {"oracle", s.oracle_result().strategy.label()},
              {"pick", s.pick_result().strategy.label()},
              {"advisor_recommendation", s.advisor_recommendation
                                             ? Json(s.advisor_recommendation->label())
                                             : Json(nullptr)},
              {"loss_vs_oracle", s.loss_vs_oracle()},
              {"correct", s.correct(tolerance)},
              {"heuristics", heuristics},
              {"strategies", strategies},
              {"notes", s.notes}};
}

std::string json_document(const HardwareProfile& hw, const std::string& spec, const Capabilities& caps,
                          const AccuracyReport& r) {
  Json doc = io::detail::document_header(hw.name);
  doc["backend"] = Json{{"spec", spec}, {"name", caps.backend}, {"device", caps.device}};
  doc["decision_tolerance"] = r.tolerance;
  Json scenarios = Json::array();
  for (const ScenarioResult& s : r.scenarios) scenarios.push_back(scenario_json(s, r.tolerance));
  doc["scenarios"] = scenarios;
  Json skipped = Json::array();
  for (const SkippedScenario& s : r.skipped)
    skipped.push_back(Json{{"name", s.pair.name},
                           {"collective", to_string(s.pair.collective.kind)},
                           {"reason", s.reason}});
  doc["skipped"] = skipped;
  doc["summary"] = summary_json(r.summary);
  return io::detail::dump(doc);
}

// ---- text ----

std::string gemm_tag(GemmClass c) { return c == GemmClass::compute_bound ? "cb" : "mb"; }
std::string coll_tag(CollectiveClass c) {
  return c == CollectiveClass::latency_bound ? "lat" : "bw";
}

std::string text_report(const HardwareProfile& hw, const std::string& spec, const Capabilities& caps,
                        const AccuracyReport& r) {
  std::string out = std::to_string(r.scenarios.size()) + " scenarios: profile " + hw.name + " (" +
                    hw.gpu + ") against " + spec + " (" + caps.device + ")\n";
  out += "oracle: the fastest measured strategy; pick: the advisor's choice among the measured "
         "strategies it offers (the simplest predicted within " +
         pct(kTieMargin) + " of the fastest); right when within " + pct(r.tolerance) +
         " of the oracle\n";
  out += "fraction of ideal from measured times: (speedup - 1) / (ideal - 1), ideal = (t_g + t_c) "
         "/ max(t_g, t_c)\n\n";

  TextTable table({{"scenario", TextTable::Align::left},
                   {"collective", TextTable::Align::left},
                   {"size", TextTable::Align::right},
                   {"taxonomy", TextTable::Align::left},
                   {"ideal", TextTable::Align::right},
                   {"oracle", TextTable::Align::left},
                   {"pick", TextTable::Align::left},
                   {"loss", TextTable::Align::right},
                   {"right", TextTable::Align::left},
                   {"pick predicted", TextTable::Align::right},
                   {"pick measured", TextTable::Align::right},
                   {"error", TextTable::Align::right},
                   {"pick of ideal", TextTable::Align::right},
                   {"oracle of ideal", TextTable::Align::right}});
  for (const ScenarioResult& s : r.scenarios) {
    const StrategyResult& p = s.pick_result();
    table.add_row({s.pair.name, std::string(to_string(s.pair.collective.kind)),
                   format_size(s.pair.collective.size_bytes),
                   std::string(model::to_string(s.taxonomy.overlap)) + " " +
                       gemm_tag(s.taxonomy.gemm) + " " + coll_tag(s.taxonomy.collective),
                   format_speedup(s.ideal_speedup), s.oracle_result().strategy.label(),
                   p.strategy.label(), pct(s.loss_vs_oracle()), s.correct(r.tolerance) ? "yes" : "NO",
                   format_seconds(*p.predicted_s), format_seconds(p.measured_s),
                   (p.prediction_error().value_or(0) >= 0 ? "+" : "") +
                       pct(p.prediction_error().value_or(0)),
                   pct(p.fraction_of_ideal), pct(s.oracle_result().fraction_of_ideal)});
  }
  out += table.render();

  const AccuracySummary& sm = r.summary;
  int right = 0;
  for (const ScenarioResult& s : r.scenarios) right += s.correct(r.tolerance) ? 1 : 0;
  out += "\nsummary over " + std::to_string(sm.scenarios) + " scenarios\n";
  TextTable summary({{"metric", TextTable::Align::left}, {"value", TextTable::Align::left}});
  summary.add_row({"decision accuracy", ratio(right, sm.scenarios) + " within " +
                                            pct(r.tolerance) + " of the oracle"});
  summary.add_row({"loss vs oracle", "mean " + pct(sm.mean_loss_vs_oracle) + ", worst " +
                                         pct(sm.worst_loss_vs_oracle)});
  summary.add_row({"prediction error", "median " + pct(sm.prediction_error_median) + ", p90 " +
                                           pct(sm.prediction_error_p90) + ", max " +
                                           pct(sm.prediction_error_max) + " (|pred - meas| / meas, " +
                                           std::to_string(sm.predictions) + " strategy times)"});
  summary.add_row({"advisor, of ideal",
                   pct(sm.overall.fraction_of_ideal.count("advisor")
                           ? sm.overall.fraction_of_ideal.at("advisor")
                           : 0.0) +
                       " (oracle " +
                       pct(sm.overall.fraction_of_ideal.count("oracle")
                               ? sm.overall.fraction_of_ideal.at("oracle")
                               : 0.0) +
                       ")"});
  for (const auto& [name, h] : sm.heuristics)
    summary.add_row({"heuristic " + name,
                     ratio(static_cast<int>(std::lround(h.decision_accuracy * h.scenarios)),
                           h.scenarios) +
                         " right, mean loss " + pct(h.mean_loss_vs_oracle) + ", worst " +
                         pct(h.worst_loss_vs_oracle) + ", " + pct(h.mean_fraction_of_ideal) +
                         " of ideal; within its family " +
                         ratio(static_cast<int>(std::lround(h.family_accuracy * h.scenarios)),
                               h.scenarios) +
                         " right, worst loss " + pct(h.worst_loss_vs_family_best)});
  out += summary.render();

  // Fraction of ideal: one row per strategy column, one column per group.
  std::vector<std::pair<std::string, const GroupFractions*>> groups{{"all", &sm.overall}};
  for (const auto& [kind, g] : sm.by_collective) groups.emplace_back(to_string(kind), &g);
  for (const auto& [cls, g] : sm.by_overlap) groups.emplace_back(model::to_string(cls), &g);
  std::vector<TextTable::Column> cols{{"fraction of ideal", TextTable::Align::left}};
  for (const auto& [name, g] : groups)
    cols.push_back({name + " (" + std::to_string(g->scenarios) + ")", TextTable::Align::right});
  TextTable fractions(cols);
  std::vector<std::string> ideal{"ideal speedup"};
  for (const auto& [name, g] : groups) ideal.push_back(format_speedup(g->ideal_speedup));
  fractions.add_row(ideal);
  for (const std::string& key : sm.overall.keys) {
    std::vector<std::string> row{key};
    for (const auto& [name, g] : groups) {
      const auto it = g->fraction_of_ideal.find(key);
      row.push_back(it == g->fraction_of_ideal.end()
                        ? "-"
                        : pct(it->second) + " (" + format_speedup(g->speedup.at(key)) + ")");
    }
    fractions.add_row(row);
  }
  out += "\nmean fraction of ideal realized (mean realized speedup (t_g + t_c) / t), by collective "
         "and overlap class (scenarios)\n";
  out += fractions.render();

  if (!r.skipped.empty()) {
    out += "\nskipped\n";
    for (const SkippedScenario& s : r.skipped)
      out += "  " + scenario_label(s.pair) + ": " + s.reason + "\n";
  }
  bool any_note = false;
  for (const ScenarioResult& s : r.scenarios)
    for (const std::string& n : s.notes) {
      if (!any_note) out += "\nnotes\n";
      any_note = true;
      out += "  " + scenario_label(s.pair) + ": " + n + "\n";
    }
  return out;
}

}  // namespace

std::string accuracy_text(const HardwareProfile& hw, const std::string& backend_spec,
                          const Capabilities& caps, const AccuracyReport& report) {
  return text_report(hw, backend_spec, caps, report);
}

std::string accuracy_json(const HardwareProfile& hw, const std::string& backend_spec,
                          const Capabilities& caps, const AccuracyReport& report) {
  return json_document(hw, backend_spec, caps, report);
}

}  // namespace c3::validator
