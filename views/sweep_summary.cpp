// views/sweep_summary.cpp: see sweep_summary.hpp.
#include "views/sweep_summary.hpp"

#include <algorithm>

namespace c3::io::detail {

const StrategyPrediction* best_of(const Advice& advice, StrategyKind kind) {
  const StrategyPrediction* best = nullptr;
  for (const StrategyPrediction& p : advice.strategies) {
    if (p.strategy.kind == kind && (best == nullptr || p.predicted_s < best->predicted_s)) best = &p;
  }
  return best;
}

std::vector<StrategyKind> table_kinds(const std::vector<Advice>& advice) {
  std::vector<StrategyKind> out;
  for (StrategyKind kind : strategies::all_kinds()) {
    const bool predicted = std::any_of(advice.begin(), advice.end(),
                                       [&](const Advice& a) { return best_of(a, kind) != nullptr; });
    if (predicted) out.push_back(kind);
  }
  return out;
}

std::vector<std::string> average_columns(const std::vector<Advice>& advice) {
  std::vector<std::string> c;
  for (StrategyKind kind : table_kinds(advice))
    if (kind != StrategyKind::serial) c.emplace_back(kind.name());
  c.emplace_back("recommended");
  return c;
}

FractionsByGroup summarize(const std::vector<Advice>& advice) {
  FractionAggregator fractions;
  const std::vector<std::string> cols = average_columns(advice);
  for (const Advice& a : advice) {
    const double fast_ideal =
        model::fast_ideal_speedup(a.isolated.gemm_s, a.isolated.collective_s, a.isolated.collective_dma_s);
    std::vector<ColumnValue> values;
    for (const std::string& col : cols) {
      const StrategyPrediction* p =
          col == "recommended" ? &a.recommendation() : best_of(a, parse_strategy_kind(col));
      if (p != nullptr)
        values.push_back({col, p->fraction_of_ideal, p->speedup, model::fraction_of_ideal(p->speedup, fast_ideal)});
    }
    fractions.add(a.pair.collective.kind, a.taxonomy.overlap, a.ideal_speedup, fast_ideal, values);
  }
  return fractions.finish(cols);
}

}  // namespace c3::io::detail
