// views/accuracy_views.cpp: the report of `c3advisor validate` as text and as a JSON
// document (c3/views.hpp; schema in docs/accuracy.md).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <optional>

#include "c3/views.hpp"
#include "io/json_document.hpp"
#include "views/json_parts.hpp"
#include "views/paper_figures.hpp"
#include "views/text_format.hpp"

namespace c3::validator {
namespace {

using io::detail::Json;
using io::detail::TextTable;
using io::detail::format_percent;
using io::detail::format_seconds;
using io::detail::format_speedup;

std::string pct(double fraction) { return format_percent(fraction); }

// A ratio near 1 with three decimals: "0.934".
std::string format_ratio(double ratio) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3f", ratio);
  return buf;
}

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
  Json fast = Json::object();
  for (const std::string& key : g.keys) {
    fast[key] = g.fraction_of_fast_ideal.at(key);
    fractions[key] = g.fraction_of_ideal.at(key);
    speedups[key] = g.speedup.at(key);
    counts[key] = g.count.at(key);
  }
  return Json{{"scenarios", g.scenarios},
              {"ideal_speedup", g.ideal_speedup},
              {"fraction_of_ideal", fractions},
              {"speedup", speedups},
              {"count", counts},
              {"fast_ideal_speedup", g.fast_ideal_speedup},
              {"fraction_of_fast_ideal", fast}};
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
  Json baselines = Json::array();
  for (const BaselineSummary& b : s.baselines)
    baselines.push_back(Json{{"name", b.name},
                             {"rule", b.rule},
                             {"scenarios", b.scenarios},
                             {"decision_accuracy", b.decision_accuracy},
                             {"mean_loss_vs_oracle", b.mean_loss_vs_oracle},
                             {"worst_loss_vs_oracle", b.worst_loss_vs_oracle},
                             {"geomean_vs_default", b.geomean_vs_default},
                             {"advisor", Json{{"decision_accuracy", b.advisor_decision_accuracy},
                                              {"mean_loss_vs_oracle", b.advisor_mean_loss_vs_oracle},
                                              {"worst_loss_vs_oracle", b.advisor_worst_loss_vs_oracle},
                                              {"geomean_vs_default", b.advisor_geomean_vs_default}}},
                             {"advisor_margin",
                              Json{{"decision_accuracy", b.advisor_decision_accuracy - b.decision_accuracy},
                                   {"mean_loss_vs_oracle", b.mean_loss_vs_oracle - b.advisor_mean_loss_vs_oracle},
                                   {"worst_loss_vs_oracle", b.worst_loss_vs_oracle - b.advisor_worst_loss_vs_oracle},
                                   {"geomean_vs_default", b.geomean_vs_default / b.advisor_geomean_vs_default - 1.0}}}});
  return Json{{"scenarios", s.scenarios},
              {"right", s.right},
              {"decision_accuracy", s.decision_accuracy},
              {"decision_accuracy_ci95",
               Json::array({s.decision_accuracy_ci95.low, s.decision_accuracy_ci95.high})},
              {"mean_loss_vs_oracle", s.mean_loss_vs_oracle},
              {"worst_loss_vs_oracle", s.worst_loss_vs_oracle},
              {"prediction_error_median", s.prediction_error_median},
              {"prediction_error_p90", s.prediction_error_p90},
              {"prediction_error_max", s.prediction_error_max},
              {"fraction_of_ideal", Json{{"overall", group_json(s.overall)},
                                         {"by_collective", by_collective},
                                         {"by_overlap", by_overlap}}},
              {"heuristics", heuristics},
              {"framework_default", Json{{"strategy", std::string(kFrameworkDefault.name())},
                                         {"scenarios", s.default_scenarios},
                                         {"advisor_geomean_vs_default", s.advisor_geomean_vs_default},
                                         {"oracle_geomean_vs_default", s.oracle_geomean_vs_default}}},
              {"baselines", baselines},
              {"serial", Json{{"scenarios", s.serial_scenarios},
                              {"slack", kSerialSlack},
                              {"advisor_geomean_vs_serial", s.advisor_geomean_vs_serial},
                              {"advisor_worst_vs_serial", s.advisor_worst_vs_serial},
                              {"advisor_slower_than_serial", s.advisor_slower_than_serial}}}};
}

// t / t(peer): below 1 is faster than the peer; none when the peer failed.
std::optional<double> vs_peer(std::optional<double> t, const PeerRecord& peer) {
  if (!t || !peer.measurement.ok) return std::nullopt;
  return *t / peer.measurement.median_s;
}

Json peers_json(const ScenarioResult& s) {
  Json out = Json::array();
  for (const PeerRecord& p : s.peers)
    out.push_back(Json{{"implementation", p.implementation},
                       {"ok", p.measurement.ok},
                       {"error", p.measurement.error},
                       {"measured_s", p.measurement.ok ? Json(p.measurement.median_s) : Json(nullptr)},
                       {"verified", p.measurement.verified},
                       {"pick_vs_peer", opt(vs_peer(s.pick_result().measured_s, p))},
                       {"serial_vs_peer", opt(vs_peer(measured_serial_s(s), p))},
                       {"device", p.device},
                       {"versions", p.versions}});
  return out;
}

Json peer_summary_json(const std::vector<PeerSummary>& peers) {
  Json out = Json::array();
  for (const PeerSummary& p : peers)
    out.push_back(Json{
        {"implementation", p.implementation},
        {"scenarios", p.scenarios},
        {"pick_geomean_vs_peer", p.scenarios > 0 ? Json(p.pick_geomean_vs_peer) : Json(nullptr)},
        {"serial_scenarios", p.serial_scenarios},
        {"serial_geomean_vs_peer", p.serial_scenarios > 0 ? Json(p.serial_geomean_vs_peer) : Json(nullptr)}});
  return out;
}

Json scenario_json(const ScenarioResult& s, double tolerance) {
  Json strategies = Json::array();
  for (const StrategyResult& r : s.strategies) {
    Json j{{"name", r.strategy.label()},
           {"measured_s", r.measured_s},
           {"predicted_s", opt(r.predicted_s)},
           {"prediction_error", opt(r.prediction_error())},
           {"speedup", r.speedup},
           {"fraction_of_ideal", r.fraction_of_ideal},
           {"fraction_of_fast_ideal", r.fraction_of_fast_ideal},
           {"loss_vs_oracle", r.loss_vs_oracle}};
    // Dependent pairs: the model's pipeline and, where the runs were traced, the measured one.
    if (!r.predicted_timeline.empty()) j["predicted_timeline"] = validator::json::timeline_json(r.predicted_timeline);
    if (!r.timeline.empty()) j["timeline"] = validator::json::timeline_json(r.timeline);
    strategies.push_back(std::move(j));
  }
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
  Json j{{"name", s.pair.name},
         {"gemm", io::detail::gemm_json(s.pair.gemm)},
         {"collective", io::detail::collective_json(s.pair.collective)},
         {"taxonomy", io::detail::taxonomy_json(s.taxonomy)},
         {"measured_isolated", Json{{"gemm_s", s.gemm_s},
                                    {"collective_s", s.collective_s},
                                    {"collective_dma_s", opt(s.collective_dma_s)}}},
         {"predicted_isolated", io::detail::isolated_json(s.predicted_isolated)},
         {"ideal_speedup", s.ideal_speedup},
         {"fast_ideal_speedup", s.fast_ideal_speedup},
         {"oracle", s.oracle_result().strategy.label()},
         {"pick", s.pick_result().strategy.label()},
         {"advisor_recommendation",
          s.advisor_recommendation ? Json(s.advisor_recommendation->label()) : Json(nullptr)},
         {"loss_vs_oracle", s.loss_vs_oracle()},
         {"correct", s.correct(tolerance)},
         {"heuristics", heuristics},
         {"strategies", strategies},
         {"notes", s.notes}};
  if (s.pair.dependency != Dependency::none) j["dependency"] = std::string(to_string(s.pair.dependency));
  if (!s.peers.empty()) j["peers"] = peers_json(s);  // only where the replay file has peer runs
  return j;
}

Json cross_validation_json(const CrossValidation& cv) {
  Json folds = Json::array();
  for (const FoldResult& f : cv.folds)
    folds.push_back(Json{{"fold", f.fold},
                         {"train_scenarios", f.train_scenarios},
                         {"test_scenarios", f.test_scenarios},
                         {"tie_margin", f.tie_margin},
                         {"decision_accuracy", f.summary.decision_accuracy},
                         {"mean_loss_vs_oracle", f.summary.mean_loss_vs_oracle},
                         {"worst_loss_vs_oracle", f.summary.worst_loss_vs_oracle},
                         {"prediction_error_median", f.summary.prediction_error_median},
                         {"prediction_error_p90", f.summary.prediction_error_p90},
                         {"advisor_geomean_vs_default", f.summary.advisor_geomean_vs_default}});
  Json metrics = Json::object();
  for (const auto& [name, m] : cv.metrics)
    metrics[name] = Json{{"mean", m.mean}, {"stddev", m.stddev}, {"min", m.min}, {"max", m.max}};
  return Json{{"k", cv.k},
              {"fitted", "tie_margin"},
              {"margin_grid", cv.margin_grid},
              {"folds", folds},
              {"metrics", metrics}};
}

std::string json_document(const HardwareProfile& hw, const std::string& spec, const Capabilities& caps,
                          const AccuracyReport& r) {
  Json doc = io::detail::document_header(hw.name);
  doc["backend"] = Json{{"spec", spec}, {"name", caps.backend}, {"device", caps.device}};
  doc["split"] = Json{{"name", r.split}, {"manifest", r.splits_file}};
  doc["gemm_kernels"] = Json{{"source", r.gemm_kernels}, {"recorded_shapes", r.recorded_kernels}};
  doc["gemm_times"] = Json{{"source", r.gemm_times},
                           {"profile_shapes", r.gemm_times_shapes},
                           {"pairs_measured", r.gemm_times_pairs}};
  doc["chained"] = r.chained;
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
  if (r.cross_validation) doc["cross_validation"] = cross_validation_json(*r.cross_validation);
  if (!r.peers.empty()) doc["peers"] = peer_summary_json(r.peers);
  return io::detail::dump(doc);
}

// ---- text ----

std::string gemm_tag(GemmClass c) { return c == GemmClass::compute_bound ? "cb" : "mb"; }
std::string coll_tag(CollectiveClass c) {
  return c == CollectiveClass::latency_bound ? "lat" : "bw";
}

// The fixed rules next to the advisor, each over the scenarios where it and the framework
// default were measured; the advisor's margin on the same scenarios.
std::string baselines_text(const AccuracySummary& sm) {
  if (sm.baselines.empty()) return "";
  std::string out = "\nbaselines: fixed rules scored like the advisor; vs default = geometric mean of t(rule) / t(" +
                    std::string(kFrameworkDefault.name()) + ", the framework default: collective first on the library)\n";
  TextTable t({{"rule", TextTable::Align::left},
               {"scenarios", TextTable::Align::right},
               {"right", TextTable::Align::right},
               {"mean loss", TextTable::Align::right},
               {"worst loss", TextTable::Align::right},
               {"vs default", TextTable::Align::right},
               {"advisor right", TextTable::Align::right},
               {"advisor worst", TextTable::Align::right},
               {"advisor vs default", TextTable::Align::right},
               {"advisor margin", TextTable::Align::left}});
  const auto signed_pct = [](double v) { return (v >= 0 ? "+" : "") + pct(v); };
  for (const BaselineSummary& b : sm.baselines)
    t.add_row({b.name, std::to_string(b.scenarios), pct(b.decision_accuracy), pct(b.mean_loss_vs_oracle),
               pct(b.worst_loss_vs_oracle), format_ratio(b.geomean_vs_default), pct(b.advisor_decision_accuracy),
               pct(b.advisor_worst_loss_vs_oracle), format_ratio(b.advisor_geomean_vs_default),
               signed_pct(b.advisor_decision_accuracy - b.decision_accuracy) + " right, " +
                   signed_pct(b.worst_loss_vs_oracle - b.advisor_worst_loss_vs_oracle) + " worst loss, " +
                   signed_pct(b.geomean_vs_default / b.advisor_geomean_vs_default - 1.0) + " time"});
  out += t.render();
  if (sm.default_scenarios > 0)
    out += "advisor vs default " + format_ratio(sm.advisor_geomean_vs_default) + ", oracle vs default " +
           format_ratio(sm.oracle_geomean_vs_default) + " (geometric means over " +
           std::to_string(sm.default_scenarios) + " scenarios)\n";
  return out;
}

// A framework's own runs of the pairs (RawMeasurements::peers) beside the pick and serial.
std::string peers_text(const AccuracyReport& r) {
  if (r.peers.empty()) return "";
  std::string out =
      "\npeers: a framework's own runs of the pair, timed in the same run; vs peer = t / t(peer), "
      "below 1 is faster than the peer\n";
  TextTable t({{"scenario", TextTable::Align::left},
               {"collective", TextTable::Align::left},
               {"size", TextTable::Align::right},
               {"peer", TextTable::Align::left},
               {"peer time", TextTable::Align::right},
               {"verified", TextTable::Align::left},
               {"pick", TextTable::Align::left},
               {"pick time", TextTable::Align::right},
               {"pick vs peer", TextTable::Align::right},
               {"serial time", TextTable::Align::right},
               {"serial vs peer", TextTable::Align::right}});
  const auto ratio_or_dash = [](std::optional<double> v) { return v ? format_ratio(*v) : std::string("-"); };
  for (const ScenarioResult& s : r.scenarios)
    for (const PeerRecord& p : s.peers) {
      const std::optional<double> serial_s = measured_serial_s(s);
      t.add_row({s.pair.name.empty() ? format_gemm(s.pair.gemm) : s.pair.name,
                 std::string(to_string(s.pair.collective.kind)), format_size(s.pair.collective.size_bytes),
                 p.implementation,
                 p.measurement.ok ? format_seconds(p.measurement.median_s) : "FAILED: " + p.measurement.error,
                 p.measurement.verified ? "yes" : "no", s.pick_result().strategy.label(),
                 format_seconds(s.pick_result().measured_s),
                 ratio_or_dash(vs_peer(s.pick_result().measured_s, p)),
                 serial_s ? format_seconds(*serial_s) : "-", ratio_or_dash(vs_peer(serial_s, p))});
    }
  out += t.render();
  for (const PeerSummary& p : r.peers) {
    out += "pick vs " + p.implementation + ": ";
    if (p.scenarios == 0) {
      out += "no successful run\n";
      continue;
    }
    out += "geometric mean " + format_ratio(p.pick_geomean_vs_peer) + " over " + std::to_string(p.scenarios) +
           " scenarios";
    if (p.serial_scenarios > 0)
      out += " (serial " + format_ratio(p.serial_geomean_vs_peer) + " over " +
             std::to_string(p.serial_scenarios) + ")";
    out += "\n";
  }
  return out;
}

std::string cross_validation_text(const CrossValidation& cv) {
  std::string out = "\n" + std::to_string(cv.k) +
                    "-fold cross-validation (scenario i in fold i mod K): the profile's tables come from "
                    "calibration runs, not from these pairs; fitted on K-1 folds: the tie margin\n";
  TextTable t({{"metric", TextTable::Align::left},
               {"mean", TextTable::Align::right},
               {"stddev", TextTable::Align::right},
               {"min", TextTable::Align::right},
               {"max", TextTable::Align::right}});
  for (const auto& [name, m] : cv.metrics) {
    const bool ratio_metric = name == "advisor_geomean_vs_default";
    const auto f = [&](double v) { return ratio_metric ? format_ratio(v) : pct(v); };
    t.add_row({name, f(m.mean), f(m.stddev), f(m.min), f(m.max)});
  }
  return out + t.render();
}

// The ConCCL paper's MI300X figures (views/paper_figures.hpp) beside this run's: the
// paper's averages over its 30 scenarios against the measured means over the scenarios
// validated here.
std::string paper_text(const AccuracyReport& r) {
  const AccuracySummary& sm = r.summary;
  const auto measured_key = [&](std::string_view key) -> std::string {
    const auto it = sm.overall.fraction_of_ideal.find(std::string(key));
    return it == sm.overall.fraction_of_ideal.end() ? "-" : pct(it->second);
  };
  // Per scenario: the best sp or rp result's fraction; the best dma_rp result's speedup.
  double cu_sum = 0, dma_rp_max = 0;
  int cu_n = 0;
  for (const ScenarioResult& s : r.scenarios) {
    std::optional<double> best_cu;
    for (const StrategyResult& res : s.strategies) {
      const std::string kind(res.strategy.kind.name());
      if (kind == "sp" || kind == "rp") best_cu = std::max(best_cu.value_or(-1e300), res.fraction_of_ideal);
      if (kind == "dma_rp") dma_rp_max = std::max(dma_rp_max, res.speedup);
    }
    if (best_cu) {
      cu_sum += *best_cu;
      ++cu_n;
    }
  }
  TextTable t({{"figure", TextTable::Align::left},
               {"paper (8x MI300X)", TextTable::Align::right},
               {"measured here", TextTable::Align::right}});
  for (const PaperFigure& f : kPaperMi300xFractions)
    t.add_row({std::string(f.series) + ", fraction of ideal", pct(f.fraction_of_ideal), measured_key(f.series)});
  t.add_row({"best of sp and rp per scenario, fraction of ideal", pct(kPaperMi300xBestCuBased),
             cu_n ? pct(cu_sum / cu_n) : "-"});
  t.add_row({"dma_rp, largest speedup", "up to " + format_speedup(kPaperMi300xLargestDmaRpSpeedup),
             dma_rp_max > 0 ? format_speedup(dma_rp_max) : "-"});
  const auto h = sm.heuristics.find("cu_split");
  t.add_row({"heuristic cu_split, right within rp",
             std::to_string(kPaperMi300xHeuristicRight) + "/" + std::to_string(kPaperMi300xHeuristicScenarios) +
                 ", worst loss " + pct(kPaperMi300xHeuristicWorstLoss),
             h == sm.heuristics.end()
                 ? "-"
                 : ratio(static_cast<int>(std::lround(h->second.family_accuracy * h->second.scenarios)),
                         h->second.scenarios) +
                       ", worst loss " + pct(h->second.worst_loss_vs_family_best)});
  return "\nthe ConCCL paper's published figures (8x MI300X, its 30 scenarios) beside the measured ones (" +
         std::to_string(r.scenarios.size()) + " scenarios)\n" + t.render();
}

// The scenarios' notes, one line per note; a note that several scenarios share (the same
// text) is printed once with how many and the first few names (validate --json lists each).
std::string notes_text(const std::vector<ScenarioResult>& scenarios) {
  constexpr std::size_t kNamesShown = 3;
  std::vector<std::pair<std::string, std::vector<std::string>>> notes;  // text -> labels, in order
  for (const ScenarioResult& s : scenarios)
    for (const std::string& n : s.notes) {
      auto it = std::find_if(notes.begin(), notes.end(), [&](const auto& e) { return e.first == n; });
      if (it == notes.end()) it = notes.insert(notes.end(), {n, {}});
      it->second.push_back(scenario_label(s.pair));
    }
  if (notes.empty()) return "";
  std::string out = "\nnotes\n";
  for (const auto& [text, labels] : notes) {
    if (labels.size() == 1) {
      out += "  " + labels.front() + ": " + text + "\n";
      continue;
    }
    std::string names;
    for (std::size_t i = 0; i < std::min(labels.size(), kNamesShown); ++i)
      names += (i ? ", " : "") + labels[i];
    if (labels.size() > kNamesShown) names += " and " + std::to_string(labels.size() - kNamesShown) + " more";
    out += "  " + std::to_string(labels.size()) + " scenarios (" + names + "): " + text + "\n";
  }
  return out;
}

std::string text_report(const HardwareProfile& hw, const std::string& spec, const Capabilities& caps,
                        const AccuracyReport& r) {
  std::string out = std::to_string(r.scenarios.size()) + " scenarios: profile " + hw.name + " (" +
                    hw.gpu + ") against " + spec + " (" + caps.device + ")\n";
  for (const std::string& note : caps.notes)  // a replay of several files: the median over them
    if (note.rfind(kReplayMedianNote, 0) == 0) out += note + "\n";
  out += "split: " + r.split + (r.splits_file.empty() ? "" : " (" + r.splits_file + ")") + "\n";
  out += "gemm kernels: " +
         (r.gemm_kernels == "recorded"
              ? "recorded: " + std::to_string(r.recorded_kernels) +
                    " shapes from the replay file (cuBLASLt's choice per shape), the profile's for the rest"
              : std::string("the profile's (nearest measured shape)")) +
         "\n";
  if (r.gemm_times == "recorded")
    out += "gemm times: recorded: each pair's GEMM at its own time alone in the replay file (" +
           std::to_string(r.gemm_times_pairs) +
           " pairs; the model given the GEMM's time on the day, not a prediction from the shape)\n";
  else if (r.gemm_times_shapes > 0)
    out += "gemm times: the profile's measured time (gemm_times, " + std::to_string(r.gemm_times_shapes) +
           " shapes) for " + std::to_string(r.gemm_times_pairs) +
           " of the pairs' GEMMs, the roofline for the rest" +
           (r.split == "train" && r.gemm_times_pairs > 0 ? " (fitted on train files: in-sample here)" : "") +
           "\n";
  if (r.chained)
    out += "pricing: every independent pair chained (docs/model.md 4.6: queued ahead, no launch cost, sp as base)\n";
  out += "oracle: the fastest measured strategy; pick: the advisor's choice among the measured "
         "strategies it offers (the simplest predicted within " +
         pct(kTieMargin) + " of the fastest); right when within " + pct(r.tolerance) +
         " of the oracle\n";
  out += "fraction of ideal from measured times: (speedup - 1) / (ideal - 1), ideal = (t_g + t_c) "
         "/ max(t_g, t_c); of fast ideal: ideal = (t_g + t_c) / max(t_g, min(t_c, t_dma))\n\n";

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
                   {"oracle of ideal", TextTable::Align::right},
                   {"pick of fast ideal", TextTable::Align::right}});
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
                   pct(p.fraction_of_ideal), pct(s.oracle_result().fraction_of_ideal),
                   pct(p.fraction_of_fast_ideal)});
  }
  out += table.render();

  const AccuracySummary& sm = r.summary;
  out += "\nsummary over " + std::to_string(sm.scenarios) + " scenarios\n";
  TextTable summary({{"metric", TextTable::Align::left}, {"value", TextTable::Align::left}});
  summary.add_row({"decision accuracy",
                   ratio(sm.right, sm.scenarios) + " within " + pct(r.tolerance) +
                       " of the oracle; 95% interval " + pct(sm.decision_accuracy_ci95.low) + " to " +
                       pct(sm.decision_accuracy_ci95.high) + " (Wilson, pairs as independent draws)"});
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
  const auto fast_of = [&](const char* key) {
    const auto it = sm.overall.fraction_of_fast_ideal.find(key);
    return pct(it == sm.overall.fraction_of_fast_ideal.end() ? 0.0 : it->second);
  };
  summary.add_row({"advisor, of fast ideal", fast_of("advisor") + " (oracle " + fast_of("oracle") +
                                                 "; ideal with the faster transport)"});
  if (sm.serial_scenarios > 0)
    summary.add_row({"advisor vs serial", "geomean " + format_ratio(sm.advisor_geomean_vs_serial) + ", worst " +
                                              format_ratio(sm.advisor_worst_vs_serial) + "; " +
                                              std::to_string(sm.advisor_slower_than_serial) + " of " +
                                              std::to_string(sm.serial_scenarios) + " picks more than " +
                                              pct(kSerialSlack) + " slower than serial"});
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
  out += baselines_text(sm);
  out += peers_text(r);

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
  if (r.paper_scenarios) out += paper_text(r);

  if (r.cross_validation) out += cross_validation_text(*r.cross_validation);

  if (!r.skipped.empty()) {
    out += "\nskipped\n";
    for (const SkippedScenario& s : r.skipped)
      out += "  " + scenario_label(s.pair) + ": " + s.reason + "\n";
  }
  out += notes_text(r.scenarios);
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
