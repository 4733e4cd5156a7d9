// io/sweep_summary.cpp: see sweep_summary.hpp.
#include "io/sweep_summary.hpp"

namespace c3::io::detail {

const StrategyPrediction* best_of(const Advice& advice, StrategyKind kind) {
  const StrategyPrediction* best = nullptr;
  for (const StrategyPrediction& p : advice.strategies) {
    if (p.strategy.kind == kind && (best == nullptr || p.predicted_s < best->predicted_s)) best = &p;
  }
  return best;
}

const std::vector<StrategyKind>& table_kinds() {
  static const std::vector<StrategyKind> kinds = strategies::all_kinds();
  return kinds;
}

const std::vector<std::string>& GroupAverages::columns() {
  static const std::vector<std::string> out = [] {
    std::vector<std::string> c;
    for (StrategyKind kind : table_kinds())
      if (kind != StrategyKind::serial) c.emplace_back(kind.name());
    c.emplace_back("recommended");
    return c;
  }();
  return out;
}

void GroupAverages::add(const Advice& advice) {
  ++scenarios;
  ideal_speedup.add(advice.ideal_speedup);
  const std::vector<std::string>& cols = columns();
  for (std::size_t i = 0; i < cols.size(); ++i) {
    const StrategyPrediction* p =
        cols[i] == "recommended" ? &advice.recommendation() : best_of(advice, parse_strategy_kind(cols[i]));
    if (p == nullptr) continue;
    fraction_of_ideal[i].add(p->fraction_of_ideal);
    speedup[i].add(p->speedup);
  }
}

SweepAverages summarize(const std::vector<Advice>& advice) {
  SweepAverages out;
  for (const Advice& a : advice) {
    out.overall.add(a);
    out.by_collective[a.pair.collective.kind].add(a);
    out.by_overlap[a.taxonomy.overlap].add(a);
  }
  return out;
}

}  // namespace c3::io::detail
