// fuzz_validate: what `c3advisor validate` computes and `c3advisor report` draws, from
// an arbitrary raw-measurements file. The validate JSON that `report` re-reads is parsed
// by apps/report.cpp itself (no library reader exists), so this target fuzzes the
// library path on both sides of that document instead: parse_raw_measurements -> the
// replay backend -> validator::evaluate_accuracy on every embedded profile, for the
// pairs the file measured concurrently (validator/accuracy.hpp, internal), then the
// charts report draws from the result (validator/accuracy_charts.hpp, internal).
// Checks: typed errors only; every measured and predicted time, speedup, loss and
// summary figure finite (times and speedups > 0, losses >= 0); indices in range; the
// SVG without nan/inf. Fuzz fuzz_report_charts for the charts on arbitrary numbers.
// Seeds: as fuzz_raw_measurements (pair slices of data/measurements).
#include <cmath>
#include <cstdint>
#include <map>
#include <string>

#include "c3/io.hpp"
#include "fuzz_support.hpp"
#include "raw_seeds.hpp"
#include "seeds.hpp"
#include "c3/evaluate.hpp"
#include "views/charts.hpp"
#include "c3/measurements.hpp"
#include "c3/measurements.hpp"
#include "backends/replay/replay.hpp"

namespace {

using namespace c3;
using namespace c3::fuzz;
using namespace c3::validator;

constexpr std::size_t kMaxPairs = 4;

std::vector<C3Pair> measured_pairs(const RawMeasurements& raw) {
  std::vector<C3Pair> out;
  for (const Record& r : raw.records) {
    const auto* q = std::get_if<ConcurrentQuery>(&r.query);
    if (q == nullptr) continue;
    const bool seen = std::any_of(out.begin(), out.end(), [&](const C3Pair& p) {
      return p.gemm == q->gemm && p.collective == q->collective;
    });
    if (!seen && out.size() < kMaxPairs) out.push_back(C3Pair{"p" + std::to_string(out.size()), q->gemm, q->collective, {}, {}});
  }
  return out;
}

void check_group(const GroupFractions& g, const char* what) {
  check_finite(g.ideal_speedup, what);
  for (const auto& [key, f] : g.fraction_of_ideal) check_finite(f, (std::string(what) + " fraction " + key).c_str());
  for (const auto& [key, s] : g.speedup) check_speedup(s, (std::string(what) + " speedup " + key).c_str());
}

void check_report(const AccuracyReport& report) {
  for (const ScenarioResult& s : report.scenarios) {
    check_time(s.gemm_s, "scenario gemm_s");
    check_time(s.collective_s, "scenario collective_s");
    if (s.collective_dma_s) check_time(*s.collective_dma_s, "scenario collective_dma_s");
    check_speedup(s.ideal_speedup, "scenario ideal_speedup");
    C3_FUZZ_CHECK(!s.strategies.empty() && s.oracle < s.strategies.size() && s.pick < s.strategies.size(),
                  "scenario indices: oracle %zu, pick %zu of %zu", s.oracle, s.pick, s.strategies.size());
    for (const StrategyResult& r : s.strategies) {
      const std::string label = r.strategy.label();
      check_time(r.measured_s, (label + " measured_s").c_str());
      if (r.predicted_s) check_time(*r.predicted_s, (label + " predicted_s").c_str());
      check_speedup(r.speedup, (label + " speedup").c_str());
      check_finite(r.fraction_of_ideal, (label + " fraction_of_ideal").c_str());
      check_time(r.loss_vs_oracle, (label + " loss_vs_oracle").c_str(), false);
    }
    for (const HeuristicResult& h : s.heuristics) {
      if (h.scored) C3_FUZZ_CHECK(*h.scored < s.strategies.size(), "heuristic %s scored out of range", h.name.c_str());
      if (h.family_best) C3_FUZZ_CHECK(*h.family_best < s.strategies.size(), "heuristic %s family out of range", h.name.c_str());
    }
  }
  const AccuracySummary& m = report.summary;
  for (double x : {m.decision_accuracy, m.mean_loss_vs_oracle, m.worst_loss_vs_oracle,
                   m.prediction_error_median, m.prediction_error_p90, m.prediction_error_max})
    check_time(x, "summary figure", false);
  C3_FUZZ_CHECK(m.right >= 0 && m.right <= m.scenarios, "right %d of %d scenarios", m.right, m.scenarios);
  const ShareInterval& ci = m.decision_accuracy_ci95;
  C3_FUZZ_CHECK(0.0 <= ci.low && ci.low <= ci.high && ci.high <= 1.0, "decision accuracy interval [%g, %g]",
                ci.low, ci.high);
  C3_FUZZ_CHECK(m.scenarios == 0 ||
                    (ci.low <= m.decision_accuracy + 1e-12 && m.decision_accuracy <= ci.high + 1e-12),
                "decision accuracy %g outside its interval [%g, %g]", m.decision_accuracy, ci.low, ci.high);
  check_group(m.overall, "overall");
  for (const auto& [kind, g] : m.by_collective) check_group(g, "by_collective");
  for (const auto& [cls, g] : m.by_overlap) check_group(g, "by_overlap");
  for (const auto& [name, h] : m.heuristics) {
    for (double x : {h.decision_accuracy, h.mean_loss_vs_oracle, h.worst_loss_vs_oracle, h.family_accuracy})
      check_time(x, ("heuristic " + name).c_str(), false);
    // A pick outside its family (cu_split falls back to sp) may beat the family's best.
    check_finite(h.mean_loss_vs_family_best, ("heuristic " + name).c_str());
    check_finite(h.worst_loss_vs_family_best, ("heuristic " + name).c_str());
  }
}

// The charts `c3advisor report` draws from a validate document, built from the report.
void check_charts(const AccuracyReport& report) {
  charts::BarChart bars;
  bars.title = "fraction of ideal";
  bars.y = {"fraction", false, true};
  std::vector<const GroupFractions*> groups{&report.summary.overall};
  bars.groups.push_back("all");
  for (const auto& [kind, g] : report.summary.by_collective) {
    groups.push_back(&g);
    bars.groups.push_back(std::string(to_string(kind)));
  }
  for (const std::string& key : report.summary.overall.keys) {
    charts::BarSeries s{key, {}};
    for (const GroupFractions* g : groups) {
      const auto it = g->fraction_of_ideal.find(key);
      s.values.push_back(it == g->fraction_of_ideal.end() ? std::nullopt : std::optional<double>(it->second));
    }
    bars.series.push_back(std::move(s));
  }
  if (!bars.series.empty()) bars.references.push_back({0, 0, 0.42});
  std::string svg;
  if (typed("charts::svg(bars)", [&] { svg = charts::svg(bars); })) check_text(svg, "bar chart");

  charts::XYChart xy;
  xy.title = "predicted vs measured";
  xy.x = {"measured (ms, log)", true, false};
  xy.y = {"predicted (ms, log)", true, false};
  xy.style = charts::XYChart::Style::points;
  xy.identity_line = true;
  std::map<std::string, charts::Series> by_family;
  for (const ScenarioResult& s : report.scenarios)
    for (const StrategyResult& r : s.strategies) {
      if (!r.predicted_s) continue;
      charts::Series& series = by_family[std::string(to_string(r.strategy.kind))];
      series.name = std::string(to_string(r.strategy.kind));
      series.x.push_back(r.measured_s * 1e3);
      series.y.push_back(*r.predicted_s * 1e3);
    }
  for (auto& [name, series] : by_family) xy.series.push_back(series);
  if (typed("charts::svg(xy)", [&] { svg = charts::svg(xy); })) check_text(svg, "predicted vs measured chart");
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int* argc, char*** argv) {
  make_seeds_if_asked(*argc, *argv, [](const std::string& dir) { write_raw_seeds(dir); });
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  RawMeasurements raw;
  if (!typed("parse_raw_measurements", [&] { raw = parse_raw_measurements(as_text(data, size), "fuzz.json"); }))
    return 0;
  const std::vector<C3Pair> pairs = measured_pairs(raw);
  if (pairs.empty()) return 0;
  std::unique_ptr<Validator> replay;
  if (!typed("make_replay_validator", [&] { replay = make_replay_validator(raw, "fuzz.json"); }))
    return 0;
  const StrategySource strategies = recorded_strategy_source(raw);
  for (const Advisor& advisor : EmbeddedAdvisors::get().advisors) {
    AccuracyReport report;
    if (!typed("evaluate_accuracy", [&] { report = evaluate_accuracy(advisor, pairs, *replay, strategies); }))
      continue;
    check_report(report);
    check_charts(report);
  }
  return 0;
}
