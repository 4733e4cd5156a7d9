// views/advice_output.cpp: the `advise` document (JSON) and its text form.
#include "c3/evaluate.hpp"
#include "c3/model.hpp"
#include "c3/views.hpp"
#include "io/json_document.hpp"
#include "views/json_parts.hpp"
#include "views/text_format.hpp"

namespace c3::io {
namespace {

using detail::Json;

// The recommended decomposed schedule's pipeline as the model runs it (docs/model.md §7.2):
// when each GEMM job and step ends; empty for other strategies.
std::vector<TimelineMark> recommended_pipeline(const HardwareProfile& hw, const Advice& advice) {
  const Strategy& s = advice.recommendation().strategy;
  if (s.kind != StrategyKind::chunked) return {};
  return validator::predicted_timeline(hw, advice.pair, s);
}

std::string pipeline_line(const std::vector<TimelineMark>& marks) {
  std::string gemm, steps;
  for (const TimelineMark& m : marks)
    (m.stream == "gemm" ? gemm : steps) += (m.index == 0 ? " " : ", ") + detail::format_seconds(m.end_s);
  return "GEMM jobs end at" + gemm + "; steps at" + steps;
}

Json recommendation_json(const HardwareProfile& hw, const Advice& advice) {
  const StrategyPrediction& p = advice.recommendation();
  Json j{{"name", p.strategy.label()},
              {"kind", to_string(p.strategy.kind)},
              {"predicted_s", p.predicted_s},
              {"speedup", p.speedup},
              {"fraction_of_ideal", p.fraction_of_ideal},
              {"reason", advice.reason},
              {"collective_cus", p.collective_cus},
              {"gemm_cus", p.gemm_cus},
              {"chunks", p.strategy.chunks},
              {"order", to_string(p.strategy.order())},
              {"transport", to_string(p.strategy.transport())}};
  if (const auto marks = recommended_pipeline(hw, advice); !marks.empty())
    j["pipeline"] = validator::json::timeline_json(marks);
  return j;
}

std::string collective_line(const HardwareProfile& hw, const Advice& advice) {
  const Collective& c = advice.pair.collective;
  std::string line = std::string(to_string(c.kind)) + " " + format_size(c.size_bytes) + " on " +
                     std::to_string(c.ranks) + " ranks, " +
                     std::string(to_string(advice.taxonomy.collective)) + ", " +
                     detail::format_seconds(advice.isolated.collective_s) + " on " +
                     std::string(compute_unit_name(hw));
  if (advice.isolated.collective_dma_s > 0) {
    line += ", " + detail::format_seconds(advice.isolated.collective_dma_s) + " on copy engines";
  }
  return line;
}

std::string strategy_table(const HardwareProfile& hw, const Advice& advice) {
  using Align = detail::TextTable::Align;
  const std::string units(compute_unit_name(hw));
  detail::TextTable table({{"strategy"}, {"order"}, {"transport"}, {"coll " + units, Align::right},
                           {"GEMM " + units, Align::right}, {"predicted", Align::right},
                           {"speedup", Align::right}, {"of ideal", Align::right}, {""}});
  for (std::size_t i = 0; i < advice.strategies.size(); ++i) {
    const StrategyPrediction& p = advice.strategies[i];
    table.add_row({p.strategy.label(), std::string(to_string(p.strategy.order())),
                   std::string(to_string(p.strategy.transport())), std::to_string(p.collective_cus),
                   std::to_string(p.gemm_cus), detail::format_seconds(p.predicted_s),
                   detail::format_speedup(p.speedup), detail::format_percent(p.fraction_of_ideal),
                   i == advice.recommended ? "<- recommended" : ""});
  }
  return table.render();
}

std::string heuristics_line(const std::vector<HeuristicPick>& heuristics) {
  std::string line;
  for (const HeuristicPick& pick : heuristics) {
    line += (line.empty() ? "" : ", ") + pick.name + ": " + pick.strategy.label();
  }
  return line;
}

}  // namespace

std::vector<HeuristicPick> heuristic_picks(const Advisor& advisor, const C3Pair& pair) {
  std::vector<HeuristicPick> picks;
  if (pair.dependency != Dependency::none) return picks;  // the paper's heuristics are for independent pairs
  for (const std::string& name : heuristic_names()) picks.push_back({name, advisor.heuristic(name, pair)});
  return picks;
}

namespace {

// Where a GEMM's isolated time came from (docs/model.md §1.2): §1's roofline ("model"), the
// profile's table ("measured"), or the pair's own time ("given": files 0).
std::string gemm_time_source(const GemmTimeShape* measured) {
  return !measured ? "model" : measured->files == 0 ? "given" : "measured";
}

}  // namespace

std::string advice_json(const HardwareProfile& hw, const Advice& advice,
                        const std::vector<HeuristicPick>& heuristics) {
  Json doc = detail::document_header(hw.name);
  doc["gemm"] = detail::gemm_json(advice.pair.gemm);
  doc["collective"] = detail::collective_json(advice.pair.collective);
  doc["dependency"] = to_string(advice.pair.dependency);
  doc["chained"] = advice.pair.chained;  // always, as in plan entries
  doc["isolated"] = detail::isolated_json(advice.isolated);
  // Where the GEMM's time came from: the profile's measured time of this shape, or §1's roofline.
  const GemmTimeShape* measured = model::measured_gemm_time(hw, model::gemm_as_run(advice.pair));
  doc["gemm_time"] = Json{{"source", gemm_time_source(measured)}, {"files", measured ? measured->files : 0}};
  doc["taxonomy"] = detail::taxonomy_json(advice.taxonomy);
  doc["ideal_speedup"] = advice.ideal_speedup;
  doc["strategies"] = detail::strategies_json(advice);
  doc["recommendation"] = recommendation_json(hw, advice);
  doc["settings"] = detail::settings_json(framework_settings(hw, advice.recommendation()));
  if (advice.strategies.size() > 1) {
    const Confidence& c = advice.confidence;
    const StrategyPrediction& runner = advice.strategies.at(c.runner_up);
    doc["confidence"] = Json{{"runner_up", runner.strategy.label()},
                             {"runner_up_predicted_s", runner.predicted_s},
                             {"margin", c.margin},
                             {"expected_error", c.expected_error},
                             {"hedge_error", c.hedge_error},
                             {"hedged", c.hedged}};
  }
  doc["heuristics"] = Json::object();
  for (const HeuristicPick& pick : heuristics) doc["heuristics"][pick.name] = pick.strategy.label();
  doc["warnings"] = advice.warnings;
  doc["value_sources"] = detail::value_sources_json(hw);
  return detail::dump(doc);
}

std::string advice_text(const HardwareProfile& hw, const Advice& advice,
                        const std::vector<HeuristicPick>& heuristics) {
  std::string out;
  if (!advice.pair.name.empty()) out += "pair         " + advice.pair.name + "\n";
  out += "profile      " + hw.name + " (" + std::to_string(hw.gpu_count) + "x " + hw.gpu + ")\n";
  out += "values       " + detail::source_counts_text(hw) + "\n";
  const GemmTimeShape* measured = model::measured_gemm_time(hw, model::gemm_as_run(advice.pair));
  out += "GEMM         " + format_gemm(advice.pair.gemm) + ", " +
         std::string(to_string(advice.taxonomy.gemm)) + ", " +
         detail::format_seconds(advice.isolated.gemm_s) +
         (!measured              ? std::string()
          : measured->files == 0 ? std::string(" (measured: given with the pair)")
                                 : " (measured: the profile's gemm_times, median of " +
                                       std::to_string(measured->files) + " files)") +
         "\n";
  out += "collective   " + collective_line(hw, advice) + "\n";
  out += "taxonomy     " + std::string(model::to_string(advice.taxonomy.overlap)) +
         ", ideal speedup " + detail::format_speedup(advice.ideal_speedup) + "\n\n";
  out += strategy_table(hw, advice) + "\n";
  out += "recommended  " + advice.recommendation().strategy.label() + ": " + advice.reason + "\n";
  if (const auto marks = recommended_pipeline(hw, advice); !marks.empty())
    out += "pipeline     " + pipeline_line(marks) + " (the model's, docs/model.md §7.2)\n";
  if (!heuristics.empty()) out += "heuristics   " + heuristics_line(heuristics) + "\n";
  for (const std::string& w : advice.warnings) out += "warning      " + w + "\n";
  return out;
}

}  // namespace c3::io
