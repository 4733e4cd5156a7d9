// views/plan_output.cpp: the advice for a trace (one training step) as JSON and text.
#include "c3/views.hpp"
#include "c3/settings.hpp"
#include "views/json_parts.hpp"
#include "views/sweep_summary.hpp"
#include "views/text_format.hpp"

namespace c3::io {
namespace {

using detail::Json;

/// Per-call time of family `kind` (serial applies to every pair; base to independent
/// ones, and is serial for a dependent pair, whose halves cannot start together).
double family_s(const Advice& advice, StrategyKind kind) {
  const StrategyPrediction* p = detail::best_of(advice, kind);
  if (p == nullptr && kind == StrategyKind::base) p = detail::best_of(advice, StrategyKind::serial);
  return p != nullptr ? p->predicted_s : 0.0;
}

/// The collective column: "all_gather 128MiB", and for a dependent pair which way the data goes.
std::string collective_cell(const C3Pair& pair) {
  const Collective& c = pair.collective;
  std::string cell = std::string(to_string(c.kind)) + " " + format_size(c.size_bytes);
  if (pair.dependency == Dependency::collective_feeds_gemm) cell += " -> GEMM";
  if (pair.dependency == Dependency::gemm_feeds_collective) cell += " <- GEMM";
  return cell;
}

Json entry_json(const HardwareProfile& hw, const PlanEntry& e) {
  const Advice& a = e.advice;
  Json recommendation = detail::prediction_json(a.recommendation());
  recommendation["reason"] = a.reason;
  return Json{{"name", e.entry.pair.name},
              {"repeat", e.entry.repeat},
              {"gemm", detail::gemm_json(a.pair.gemm)},
              {"collective", detail::collective_json(a.pair.collective)},
              {"dependency", std::string(to_string(a.pair.dependency))},
              {"chained", a.pair.chained},
              {"taxonomy", detail::taxonomy_json(a.taxonomy)},
              {"ideal_speedup", a.ideal_speedup},
              {"recommendation", recommendation},
              {"settings", detail::settings_json(framework_settings(hw, a.recommendation()))},
              {"strategies", detail::strategies_json(a)},
              {"serial_s", family_s(a, StrategyKind::serial)},
              {"base_s", family_s(a, StrategyKind::base)},
              {"warnings", a.warnings}};
}

double ratio(double num, double den) { return den > 0 ? num / den : 0.0; }

std::string entries_table(const Plan& plan) {
  using Align = detail::TextTable::Align;
  detail::TextTable table({{"entry"}, {"repeat", Align::right}, {"gemm"}, {"collective"},
                           {"recommended"}, {"per call", Align::right}, {"serial", Align::right},
                           {"base", Align::right}, {"speedup", Align::right}});
  for (const PlanEntry& e : plan.entries) {
    const Advice& a = e.advice;
    table.add_row({e.entry.pair.name, std::to_string(e.entry.repeat), format_gemm(a.pair.gemm),
                   collective_cell(a.pair),
                   a.recommendation().strategy.label(),
                   detail::format_seconds(a.recommendation().predicted_s),
                   detail::format_seconds(family_s(a, StrategyKind::serial)),
                   detail::format_seconds(family_s(a, StrategyKind::base)),
                   detail::format_speedup(a.recommendation().speedup)});
  }
  return table.render();
}

}  // namespace

std::string plan_json(const HardwareProfile& hw, const Trace& trace, const Plan& plan) {
  Json doc = detail::document_header(hw.name);
  doc["trace"] = Json{{"name", trace.name}, {"description", trace.description},
                      {"chain", trace.prefetch_chain ? "prefetch" : "none"}};
  doc["entries"] = Json::array();
  for (const PlanEntry& e : plan.entries) doc["entries"].push_back(entry_json(hw, e));
  doc["totals"] = Json{{"advised_s", plan.advised_s},
                       {"serial_s", plan.serial_s},
                       {"base_s", plan.base_s},
                       {"speedup_vs_serial", ratio(plan.serial_s, plan.advised_s)},
                       {"speedup_vs_base", ratio(plan.base_s, plan.advised_s)}};
  return detail::dump(doc);
}

std::string plan_text(const HardwareProfile& hw, const Trace& trace, const Plan& plan) {
  std::string out = "trace " + trace.name + " on " + hw.name + " (" + std::to_string(hw.gpu_count) +
                    "x " + hw.gpu + ")\n";
  if (!trace.description.empty()) out += trace.description + "\n";
  if (trace.prefetch_chain)
    out += "issued as a prefetch chain: no launch cost, and collective-first on the library's CUs runs GEMM-first "
           "(docs/model.md §4.6)\n";
  out += "\n" + entries_table(plan) + "\n";
  out += "step total   advised " + detail::format_seconds(plan.advised_s) + ", serial " +
         detail::format_seconds(plan.serial_s) + " (advice " +
         detail::format_speedup(ratio(plan.serial_s, plan.advised_s)) + " faster), base " +
         detail::format_seconds(plan.base_s) + " (advice " +
         detail::format_speedup(ratio(plan.base_s, plan.advised_s)) + " faster)\n";
  for (const PlanEntry& e : plan.entries)
    for (const std::string& w : e.advice.warnings) out += "warning: " + e.entry.pair.name + ": " + w + "\n";
  return out;
}

}  // namespace c3::io
