// apps/validate.cpp: `c3advisor validate`: how good is the advice on measured data?
// Replays recorded measurements (--backend replay:FILE) or measures live (sim, cuda),
// scores the advisor's pick and the paper's heuristics against the fastest measured
// strategy (validator/accuracy.hpp), and optionally checks an accuracy gate
// (scripts/accuracy-gate.sh, data/accuracy-gate.json; docs/accuracy.md).
#include <nlohmann/json.hpp>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <memory>

#include "apps/commands.hpp"
#include "apps/options.hpp"
#include "apps/run_support.hpp"
#include "c3/advisor.hpp"
#include "c3/errors.hpp"
#include "c3/io.hpp"
#include "c3/validator.hpp"
#include "io/json_parts.hpp"
#include "io/text_format.hpp"
#include "validator/accuracy.hpp"
#include "validator/measure.hpp"
#include "validator/raw_measurements.hpp"
#include "validator/replay.hpp"

namespace c3::apps {
namespace {

using io::detail::Json;
using io::detail::TextTable;
using io::detail::format_percent;
using io::detail::format_seconds;
using io::detail::format_speedup;
using validator::AccuracyReport;
using validator::AccuracySummary;
using validator::GateThreshold;
using validator::GroupFractions;
using validator::ScenarioResult;
using validator::StrategyResult;

struct ValidateOptions {
  std::string profile;
  std::string backend;
  std::string scenarios = "paper";
  std::string only;
  int ranks = 0;
  CLI::Option* ranks_given = nullptr;
  bool json = false;
  bool skip_missing = false;
  std::vector<int> rp = {8, 16, 32, 64};
  std::vector<int> dma_rp = {8, 16, 32};
  CLI::Option* rp_given = nullptr;
  CLI::Option* dma_rp_given = nullptr;
  int runs = 9;
  int warmup = 6;
  std::string gate;
  std::string gate_check = "default";
  bool update_gate = false;
};

std::string scenario_name(const C3Pair& p) {
  return (p.name.empty() ? format_gemm(p.gemm) : p.name) + " (" +
         std::string(to_string(p.collective.kind)) + ")";
}

std::string pct(double fraction) { return format_percent(fraction); }

std::string ratio(int right, int total) {
  return std::to_string(right) + "/" + std::to_string(total) + " (" +
         pct(total > 0 ? static_cast<double>(right) / total : 0.0) + ")";
}

// ---- the measured data ----

struct Backend {
  std::unique_ptr<Validator> validator;
  validator::StrategySource strategies;
  std::optional<validator::RawMeasurements> raw;  // replay only
  std::string spec;
};

bool is_replay(const std::string& spec) { return spec == "replay" || spec.rfind("replay:", 0) == 0; }

Backend make_backend(const ValidateOptions& o, const HardwareProfile& hw) {
  Backend b;
  b.spec = o.backend;
  if (is_replay(o.backend)) {
    if (o.rp_given->count() > 0 || o.dma_rp_given->count() > 0)
      throw InputError("--rp and --dma-rp choose what a live backend measures; a replay "
                       "validates every strategy recorded in its file");
    const std::string path = o.backend.size() > 7 ? o.backend.substr(7) : "";
    if (path.empty()) throw InputError("replay needs a measurements file: --backend replay:FILE");
    b.raw = validator::load_raw_measurements(path);
    b.validator = validator::make_replay_validator(*b.raw, path);
    b.strategies = validator::recorded_strategy_source(*b.raw);
    return b;
  }
  b.validator = make_validator(o.backend, hw);
  b.validator->set_run_config(RunConfig{o.warmup, o.runs});
  validator::MeasureOptions m;
  m.rp_cus = o.rp;
  m.dma_rp_cus = o.dma_rp;
  b.strategies = validator::planned_strategy_source(m);
  return b;
}

// Ranks at which `raw` holds concurrent measurements (for a hint when none match).
std::vector<int> recorded_ranks(const validator::RawMeasurements& raw) {
  std::vector<int> out;
  for (const validator::Record& r : raw.records)
    if (const auto* q = std::get_if<validator::ConcurrentQuery>(&r.query))
      if (std::find(out.begin(), out.end(), q->collective.ranks) == out.end())
        out.push_back(q->collective.ranks);
  std::sort(out.begin(), out.end());
  return out;
}

// Pairs the replay file cannot answer: an error, or skipped with --skip-missing.
std::vector<validator::SkippedScenario> check_replay(const ValidateOptions& o,
                                                     const validator::RawMeasurements& raw,
                                                     std::vector<C3Pair>& pairs) {
  std::vector<validator::SkippedScenario> missing;
  std::vector<C3Pair> kept;
  for (const C3Pair& p : pairs) {
    const std::vector<std::string> why = validator::missing_measurements(raw, p);
    if (why.empty()) {
      kept.push_back(p);
      continue;
    }
    std::string reason;
    for (const std::string& w : why) reason += (reason.empty() ? "" : "; ") + w;
    missing.push_back({p, reason});
  }
  if (!missing.empty() && !o.skip_missing) {
    std::string list;
    const std::size_t shown = std::min<std::size_t>(missing.size(), 5);
    for (std::size_t i = 0; i < shown; ++i)
      list += (i ? "; " : "") + scenario_name(missing[i].pair) + ": " + missing[i].reason;
    if (missing.size() > shown) list += "; and " + std::to_string(missing.size() - shown) + " more";
    std::string hint;
    const std::vector<int> ranks = recorded_ranks(raw);
    const int asked = pairs.front().collective.ranks;
    if (!ranks.empty() && std::find(ranks.begin(), ranks.end(), asked) == ranks.end()) {
      std::string r;
      for (int x : ranks) r += (r.empty() ? "" : ",") + std::to_string(x);
      hint = " (the file has concurrent measurements at ranks " + r + " only: try --ranks " +
             std::to_string(ranks.front()) + ")";
    }
    throw InputError(o.backend.substr(7) + " lacks measurements for " +
                     std::to_string(missing.size()) + " of " + std::to_string(pairs.size()) +
                     " scenarios" + hint + ": " + list +
                     " (--skip-missing validates the others)");
  }
  pairs = std::move(kept);
  return missing;
}

// ---- the accuracy gate file ----
//
// {"schema_version": 1, "description": "...",
//  "checks": {"NAME": {"command": "...", "scenarios": N,
//                      "thresholds": [{"metric": M, "at_least"|"at_most": X,
//                                      "reached": V, "tolerance": T}, ...]}, ...}}

// Tolerances used when a check is first written (docs/accuracy.md).
std::vector<GateThreshold> default_tolerances() {
  return {{"decision_accuracy", 0, 0.034},
          {"worst_loss_vs_oracle", 0, 0.01},
          {"prediction_error_median", 0, 0.01},
          {"advisor_fraction_of_ideal", 0, 0.02}};
}

io::detail::Json read_gate_file(const std::string& path) {
  const std::string text = io::read_file(path);
  Json doc;
  try {
    doc = Json::parse(text);
  } catch (const Json::exception& e) {  // parse_error; out_of_range for "1e400"
    throw ConfigError(path, 0, "", std::string("not JSON: ") + e.what());
  }
  if (!doc.is_object() || !doc.contains("checks") || !doc["checks"].is_object())
    throw ConfigError(path, 0, "checks", "missing, or not a mapping of check names");
  return doc;
}

// The thresholds of check `name`; an error naming the checks when it is absent.
std::vector<GateThreshold> load_gate(const std::string& path, const std::string& name) {
  const Json doc = read_gate_file(path);
  if (!doc["checks"].contains(name)) {
    std::string names;
    for (const auto& [k, v] : doc["checks"].items()) names += (names.empty() ? "" : ", ") + k;
    throw ConfigError(path, 0, "checks", "no check named '" + name + "' (it has: " + names +
                                             "); choose one with --gate-check");
  }
  const std::string base = "checks." + name + ".thresholds";
  const Json& list = doc["checks"][name].contains("thresholds") ? doc["checks"][name]["thresholds"]
                                                                 : Json();
  if (!list.is_array()) throw ConfigError(path, 0, base, "missing, or not a list");
  std::vector<GateThreshold> out;
  for (std::size_t i = 0; i < list.size(); ++i) {
    const Json& t = list[i];
    const std::string key = base + "[" + std::to_string(i) + "]";
    if (!t.is_object() || !t.contains("metric") || !t["metric"].is_string())
      throw ConfigError(path, 0, key + ".metric", "missing, or not a string");
    GateThreshold g;
    g.metric = t["metric"].get<std::string>();
    bool higher = false;
    try {
      higher = validator::higher_is_better(g.metric);
    } catch (const InputError& e) {
      throw ConfigError(path, 0, key + ".metric", e.what());
    }
    const char* limit_key = higher ? "at_least" : "at_most";
    if (!t.contains(limit_key) || !t[limit_key].is_number())
      throw ConfigError(path, 0, key + "." + limit_key,
                        std::string("missing, or not a number (") + g.metric + " needs " +
                            limit_key + ")");
    g.limit = t[limit_key].get<double>();
    if (t.contains("tolerance")) {
      if (!t["tolerance"].is_number() || t["tolerance"].get<double>() < 0)
        throw ConfigError(path, 0, key + ".tolerance", "must be a number >= 0");
      g.tolerance = t["tolerance"].get<double>();
    }
    out.push_back(g);
  }
  return out;
}

std::string command_line(const ValidateOptions& o) {
  std::string cmd = "c3advisor validate --profile " + o.profile + " --backend " + o.backend +
                    " --scenarios " + o.scenarios;
  if (o.ranks_given->count() > 0) cmd += " --ranks " + std::to_string(o.ranks);
  if (!o.only.empty()) cmd += " --only " + o.only;
  if (o.skip_missing) cmd += " --skip-missing";
  return cmd + " --gate " + o.gate + " --gate-check " + o.gate_check;
}

// Rewrites check `gate_check` of the gate file from `summary` (keeping its
// tolerances, and every other check); creates the file or the check when absent.
void write_gate(const ValidateOptions& o, const AccuracySummary& summary) {
  Json doc = Json::object();
  std::vector<GateThreshold> tolerances = default_tolerances();
  if (std::filesystem::exists(o.gate)) {
    doc = read_gate_file(o.gate);
    if (doc["checks"].contains(o.gate_check)) tolerances = load_gate(o.gate, o.gate_check);
  }
  const std::vector<GateThreshold> thresholds = validator::gate_thresholds_from(summary, tolerances);
  Json list = Json::array();
  for (const GateThreshold& t : thresholds) {
    const bool higher = validator::higher_is_better(t.metric);
    list.push_back(Json{{"metric", t.metric},
                        {higher ? "at_least" : "at_most", t.limit},
                        {"reached", validator::summary_metric(summary, t.metric)},
                        {"tolerance", t.tolerance}});
  }
  Json out;
  out["schema_version"] = io::kSchemaVersion;
  out["description"] =
      "Accuracy gate (scripts/accuracy-gate.sh, docs/accuracy.md): `c3advisor validate ... --gate "
      "FILE --gate-check NAME` fails when a summary metric is worse than its limit. Each limit is "
      "the value reached when the check was last written, worsened by its tolerance. Rewrite "
      "with scripts/accuracy-gate.sh --update.";
  Json checks = doc.contains("checks") ? doc["checks"] : Json::object();
  checks[o.gate_check] =
      Json{{"command", command_line(o)}, {"scenarios", summary.scenarios}, {"thresholds", list}};
  out["checks"] = checks;
  write_file(o.gate, io::detail::dump(out));
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
  for (const validator::HeuristicResult& h : s.heuristics) {
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

std::string report_json(const HardwareProfile& hw, const Backend& b, const AccuracyReport& r) {
  Json doc = io::detail::document_header(hw.name);
  const Capabilities caps = b.validator->capabilities();
  doc["backend"] = Json{{"spec", b.spec}, {"name", caps.backend}, {"device", caps.device}};
  doc["decision_tolerance"] = r.tolerance;
  Json scenarios = Json::array();
  for (const ScenarioResult& s : r.scenarios) scenarios.push_back(scenario_json(s, r.tolerance));
  doc["scenarios"] = scenarios;
  Json skipped = Json::array();
  for (const validator::SkippedScenario& s : r.skipped)
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

std::string report_text(const HardwareProfile& hw, const Backend& b, const AccuracyReport& r) {
  const Capabilities caps = b.validator->capabilities();
  std::string out = std::to_string(r.scenarios.size()) + " scenarios: profile " + hw.name + " (" +
                    hw.gpu + ") against " + b.spec + " (" + caps.device + ")\n";
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
    for (const validator::SkippedScenario& s : r.skipped)
      out += "  " + scenario_name(s.pair) + ": " + s.reason + "\n";
  }
  bool any_note = false;
  for (const ScenarioResult& s : r.scenarios)
    for (const std::string& n : s.notes) {
      if (!any_note) out += "\nnotes\n";
      any_note = true;
      out += "  " + scenario_name(s.pair) + ": " + n + "\n";
    }
  return out;
}

// ---- the command ----

std::string run_validate(const ValidateOptions& o) {
  if (o.update_gate && o.gate.empty()) throw InputError("--update-gate needs --gate FILE");
  const Advisor advisor(io::resolve_profile(o.profile));
  std::vector<C3Pair> pairs = select_scenarios(io::resolve_scenarios(o.scenarios), o.only);
  if (o.ranks_given->count() > 0) io::set_ranks(pairs, o.ranks);
  if (pairs.empty()) throw InputError("no scenarios to validate");
  Backend backend = make_backend(o, advisor.profile());
  std::vector<validator::SkippedScenario> missing;
  if (backend.raw) missing = check_replay(o, *backend.raw, pairs);
  if (pairs.empty()) throw InputError("no scenario left to validate: every one lacks measurements");

  AccuracyReport report =
      validator::evaluate_accuracy(advisor, pairs, *backend.validator, backend.strategies);
  report.skipped.insert(report.skipped.begin(), missing.begin(), missing.end());
  if (report.scenarios.empty()) {
    std::string why;
    for (const auto& s : report.skipped) why += (why.empty() ? "" : "; ") + scenario_name(s.pair) + ": " + s.reason;
    throw BackendError("no scenario could be validated: " + why);
  }

  std::string gate_line;
  if (!o.gate.empty()) {
    if (o.update_gate) {
      write_gate(o, report.summary);
      gate_line = "accuracy gate " + o.gate + " check '" + o.gate_check + "' rewritten from this run\n";
    } else {
      const std::vector<std::string> failures =
          validator::gate_failures(report.summary, load_gate(o.gate, o.gate_check));
      const std::string what = "accuracy gate " + o.gate + " check '" + o.gate_check + "'";
      if (!failures.empty()) {
        std::string list;
        for (const std::string& f : failures) list += (list.empty() ? "" : "; ") + f;
        throw Error(what + " failed: " + list);
      }
      gate_line = what + ": every threshold met\n";
    }
  }
  if (o.json) return report_json(advisor.profile(), backend, report);
  return report_text(advisor.profile(), backend, report) + (gate_line.empty() ? "" : "\n" + gate_line);
}

}  // namespace

Command add_validate(CLI::App& app) {
  auto o = std::make_shared<ValidateOptions>();
  CLI::App* sub = app.add_subcommand(
      "validate",
      "Score the advice on measured data: oracle, pick, loss, prediction error, fraction of ideal");
  add_profile_option(*sub, o->profile);
  sub->add_option("--backend", o->backend,
                  "replay:FILE (recorded raw measurements), or measure live: sim[:noise=X,seed=N], "
                  "cuda[:N]")
      ->required();
  sub->add_option("--scenarios", o->scenarios, "'paper' or a scenarios YAML file")
      ->capture_default_str();
  sub->add_option("--only", o->only, "Comma-separated scenario names (default: all)");
  o->ranks_given = add_ranks_option(*sub, o->ranks, "default: each scenario's own");
  o->ranks_given->check(CLI::Range(2, 1 << 20));
  sub->add_flag("--json", o->json, "Print a JSON document (schema in docs/accuracy.md)");
  sub->add_flag("--skip-missing", o->skip_missing,
                "Replay: skip scenarios the file has no measurements for (default: an error)");
  o->rp_given = sub->add_option("--rp", o->rp, "Live backends: collective CU counts measured for rp")
                    ->delimiter(',')
                    ->capture_default_str()
                    ->check(CLI::PositiveNumber);
  o->dma_rp_given =
      sub->add_option("--dma-rp", o->dma_rp, "Live backends: CUs the GEMM gives up under dma_rp")
          ->delimiter(',')
          ->capture_default_str()
          ->check(CLI::PositiveNumber);
  sub->add_option("--runs", o->runs, "Live backends: measured runs per measurement")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  sub->add_option("--warmup", o->warmup, "Live backends: warm-up runs per measurement")
      ->capture_default_str()
      ->check(CLI::NonNegativeNumber);
  sub->add_option("--gate", o->gate,
                  "Accuracy gate file (JSON): fail (exit 1) when a summary metric is worse than "
                  "its threshold");
  sub->add_option("--gate-check", o->gate_check, "Which check of the --gate file")
      ->capture_default_str();
  sub->add_flag("--update-gate", o->update_gate,
                "Rewrite the --gate file from this run: thresholds = reached values worsened by "
                "each metric's tolerance");
  sub->footer(
      "Examples:\n"
      "  c3advisor validate --profile h200x2 --ranks 2 \\\n"
      "      --backend replay:data/measurements/paper-h200x2-2026-11-21.json\n"
      "  c3advisor validate --profile h200x2 --ranks 2 --json \\\n"
      "      --backend replay:data/measurements/paper-h200x2-2026-11-21.json > validate.json\n"
      "  c3advisor validate --profile h200_sxm --backend cuda:2 --ranks 2 --rp 8,16,32,64 --dma-rp 8,16,32\n"
      "  c3advisor validate --backend sim --only cb1_896M\n");
  return {sub, [o] { return run_validate(*o); }};
}

}  // namespace c3::apps
