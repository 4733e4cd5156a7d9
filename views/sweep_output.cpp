// views/sweep_output.cpp: a sweep over many pairs as JSON, CSV and a text table.
#include <algorithm>

#include "c3/views.hpp"
#include "views/json_parts.hpp"
#include "views/sweep_summary.hpp"
#include "views/text_format.hpp"

namespace c3::io {
namespace {

using detail::Json;

// ---- JSON ----

Json scenario_json(const Advice& advice) {
  Json families = Json::object();
  for (const StrategyKind kind : detail::table_kinds({advice})) {
    if (const StrategyPrediction* best = detail::best_of(advice, kind)) {
      families[std::string(to_string(kind))] = detail::prediction_json(*best);
    }
  }
  return Json{{"name", advice.pair.name},
              {"gemm", detail::gemm_json(advice.pair.gemm)},
              {"collective", detail::collective_json(advice.pair.collective)},
              {"dependency", to_string(advice.pair.dependency)},
              {"isolated", detail::isolated_json(advice.isolated)},
              {"taxonomy", detail::taxonomy_json(advice.taxonomy)},
              {"ideal_speedup", advice.ideal_speedup},
              {"families", families},
              {"recommendation", detail::prediction_json(advice.recommendation())},
              {"warnings", advice.warnings}};
}

Json means_json(const std::map<std::string, double>& means, const std::vector<std::string>& columns) {
  Json out = Json::object();
  for (const std::string& column : columns) {
    const auto it = means.find(column);
    if (it != means.end()) out[column] = it->second;
  }
  return out;
}

Json group_json(const GroupFractions& group, const std::vector<std::string>& columns) {
  return Json{{"scenarios", group.scenarios},
              {"ideal_speedup", group.ideal_speedup},
              {"fraction_of_ideal", means_json(group.fraction_of_ideal, columns)},
              {"speedup", means_json(group.speedup, columns)},
              {"fast_ideal_speedup", group.fast_ideal_speedup},
              {"fraction_of_fast_ideal", means_json(group.fraction_of_fast_ideal, columns)}};
}

template <typename Key>
Json groups_json(const std::map<Key, GroupFractions>& groups, const std::vector<std::string>& columns) {
  Json out = Json::object();
  for (const auto& [key, group] : groups) {
    out[std::string(to_string(key))] = group_json(group, columns);
  }
  return out;
}

// ---- CSV ----

std::vector<std::string> csv_header(const std::vector<StrategyKind>& kinds) {
  std::vector<std::string> header{"name",    "m",          "n",          "k",
                                  "dtype",   "collective", "size_bytes", "ranks",
                                  "dependency", "overlap", "gemm_class", "collective_class",
                                  "ideal_speedup"};
  std::vector<std::string> groups;
  for (const StrategyKind kind : kinds) groups.emplace_back(to_string(kind));
  groups.emplace_back("recommended");
  for (const std::string& group : groups) {
    for (const char* field : {"strategy", "predicted_s", "speedup", "fraction_of_ideal"}) {
      header.push_back(group + "_" + field);
    }
  }
  return header;
}

void append_prediction(std::vector<std::string>& row, const StrategyPrediction* p) {
  if (p == nullptr) {
    row.insert(row.end(), 4, "");
    return;
  }
  row.insert(row.end(), {p->strategy.label(), detail::format_number(p->predicted_s),
                         detail::format_number(p->speedup), detail::format_number(p->fraction_of_ideal)});
}

std::vector<std::string> csv_row(const Advice& a, const std::vector<StrategyKind>& kinds) {
  const Gemm& g = a.pair.gemm;
  const Collective& c = a.pair.collective;
  std::vector<std::string> row{a.pair.name,
                               std::to_string(g.m),
                               std::to_string(g.n),
                               std::to_string(g.k),
                               std::string(to_string(g.dtype)),
                               std::string(to_string(c.kind)),
                               std::to_string(c.size_bytes),
                               std::to_string(c.ranks),
                               std::string(to_string(a.pair.dependency)),
                               std::string(model::to_string(a.taxonomy.overlap)),
                               std::string(to_string(a.taxonomy.gemm)),
                               std::string(to_string(a.taxonomy.collective)),
                               detail::format_number(a.ideal_speedup)};
  for (const StrategyKind kind : kinds) append_prediction(row, detail::best_of(a, kind));
  append_prediction(row, &a.recommendation());
  return row;
}

// ---- text ----

std::string short_gemm_class(GemmClass cls) { return cls == GemmClass::compute_bound ? "cb" : "mb"; }
std::string short_collective_class(CollectiveClass cls) {
  return cls == CollectiveClass::latency_bound ? "lat" : "bw";
}

/// A kind's cell: its fraction of ideal, with the split for parametrized kinds (rp, dma_rp).
std::string family_cell(const Advice& a, StrategyKind kind) {
  const StrategyPrediction* p = detail::best_of(a, kind);
  if (p == nullptr) return "-";
  const std::string percent = detail::format_percent(p->fraction_of_ideal);
  const strategies::Family& family = strategies::family_of(kind);
  if (family.parametrized(kind)) return percent + " @" + std::to_string(family.parameter(p->strategy));
  return percent;
}

std::string scenarios_table(const std::vector<Advice>& advice) {
  using Align = detail::TextTable::Align;
  std::vector<detail::TextTable::Column> columns{{"scenario"}, {"collective"}, {"size", Align::right},
                                                 {"overlap"}, {"gemm"}, {"coll"},
                                                 {"ideal", Align::right}};
  const std::vector<StrategyKind> kinds = detail::table_kinds(advice);
  for (const StrategyKind kind : kinds) {
    if (kind != StrategyKind::serial) columns.push_back({std::string(to_string(kind)), Align::right});
  }
  columns.push_back({"recommended"});
  detail::TextTable table(std::move(columns));
  for (const Advice& a : advice) {
    std::vector<std::string> row{a.pair.name, std::string(to_string(a.pair.collective.kind)),
                                 format_size(a.pair.collective.size_bytes),
                                 std::string(model::to_string(a.taxonomy.overlap)),
                                 short_gemm_class(a.taxonomy.gemm),
                                 short_collective_class(a.taxonomy.collective),
                                 detail::format_speedup(a.ideal_speedup)};
    for (const StrategyKind kind : kinds) {
      if (kind != StrategyKind::serial) row.push_back(family_cell(a, kind));
    }
    row.push_back(a.recommendation().strategy.label() + " " +
                  detail::format_speedup(a.recommendation().speedup));
    table.add_row(std::move(row));
  }
  return table.render();
}

// One group's row: the paper's fraction of ideal, or (fast) the faster transport's.
std::vector<std::string> averages_row(const std::string& group, const GroupFractions& g, bool fast,
                                      const std::vector<std::string>& columns) {
  const std::map<std::string, double>& fractions = fast ? g.fraction_of_fast_ideal : g.fraction_of_ideal;
  std::vector<std::string> row{group, std::to_string(g.scenarios),
                               detail::format_speedup(fast ? g.fast_ideal_speedup : g.ideal_speedup)};
  for (const std::string& column : columns) {
    const auto it = fractions.find(column);
    row.push_back(it == fractions.end()
                      ? "-"
                      : detail::format_percent(it->second) + " (" +
                            detail::format_speedup(g.speedup.at(column)) + ")");
  }
  return row;
}

std::string averages_table(const FractionsByGroup& averages, bool fast, const std::vector<std::string>& cols) {
  using Align = detail::TextTable::Align;
  std::vector<detail::TextTable::Column> columns{{"average over"}, {"n", Align::right},
                                                 {"ideal", Align::right}};
  for (const std::string& column : cols) columns.push_back({column, Align::right});
  detail::TextTable table(std::move(columns));
  table.add_row(averages_row("all", averages.overall, fast, cols));
  for (const auto& [kind, group] : averages.by_collective) {
    table.add_row(averages_row(std::string(to_string(kind)), group, fast, cols));
  }
  for (const auto& [overlap, group] : averages.by_overlap) {
    table.add_row(averages_row(std::string(model::to_string(overlap)), group, fast, cols));
  }
  return table.render();
}

}  // namespace

std::string sweep_json(const HardwareProfile& hw, const std::vector<Advice>& advice) {
  Json doc = detail::document_header(hw.name);
  doc["scenarios"] = Json::array();
  for (const Advice& a : advice) doc["scenarios"].push_back(scenario_json(a));
  const FractionsByGroup averages = detail::summarize(advice);
  const std::vector<std::string> cols = detail::average_columns(advice);
  doc["averages"] = Json{{"overall", group_json(averages.overall, cols)},
                         {"by_collective", groups_json(averages.by_collective, cols)},
                         {"by_overlap", groups_json(averages.by_overlap, cols)}};
  return detail::dump(doc);
}

std::string sweep_csv(const HardwareProfile&, const std::vector<Advice>& advice) {
  // every kind, whatever the scenarios: the columns do not depend on the input
  const std::vector<StrategyKind> kinds = strategies::all_kinds();
  std::string out = detail::csv_line(csv_header(kinds));
  for (const Advice& a : advice) out += detail::csv_line(csv_row(a, kinds));
  return out;
}

std::string sweep_text(const HardwareProfile& hw, const std::vector<Advice>& advice) {
  std::string out = std::to_string(advice.size()) + " scenarios on " + hw.name + " (" +
                    std::to_string(hw.gpu_count) + "x " + hw.gpu + ")\n";
  const std::string units(compute_unit_name(hw));
  out += "cells: fraction of the ideal speedup realized; rp @ " + units + " given to the collective, dma_rp @ " +
         units + " taken from the GEMM";
  const std::vector<StrategyKind> kinds = detail::table_kinds(advice);
  if (std::find(kinds.begin(), kinds.end(), StrategyKind::chunked) != kinds.end()) out += ", chunked @ pieces";
  out += "\n\n";
  out += scenarios_table(advice) + "\n";
  out += "averages: fraction of ideal (speedup), each family over the scenarios it applies to\n\n";
  const FractionsByGroup averages = detail::summarize(advice);
  const std::vector<std::string> cols = detail::average_columns(advice);
  out += averages_table(averages, false, cols);
  out += "\naverages: fraction of the faster transport's ideal, (t_g + t_c) / max(t_g, min(t_c, t_dma))\n\n";
  out += averages_table(averages, true, cols);
  for (const Advice& a : advice)
    for (const std::string& w : a.warnings) out += "warning: " + a.pair.name + ": " + w + "\n";
  return out;
}

}  // namespace c3::io
