// advisor/fractions.cpp: see c3/fractions.hpp.
#include "c3/fractions.hpp"

namespace c3 {
namespace {

double mean(const std::vector<double>& v) {
  if (v.empty()) return 0;
  double sum = 0;
  for (double x : v) sum += x;
  return sum / static_cast<double>(v.size());
}

}  // namespace

void FractionAggregator::Group::add(double ideal_speedup, double fast_ideal_speedup,
                                    const std::vector<ColumnValue>& values) {
  ++scenarios;
  ideal.push_back(ideal_speedup);
  fast_ideal.push_back(fast_ideal_speedup);
  for (const ColumnValue& v : values) {
    fractions[v.key].push_back(v.fraction_of_ideal);
    fast_fractions[v.key].push_back(v.fraction_of_fast_ideal);
    speedups[v.key].push_back(v.speedup);
  }
}

GroupFractions FractionAggregator::Group::finish(const std::vector<std::string>& key_order) const {
  GroupFractions g;
  g.scenarios = scenarios;
  g.ideal_speedup = mean(ideal);
  g.fast_ideal_speedup = mean(fast_ideal);
  for (const std::string& key : key_order) {
    const auto it = fractions.find(key);
    if (it == fractions.end() || it->second.empty()) continue;
    g.keys.push_back(key);
    g.fraction_of_ideal[key] = mean(it->second);
    g.speedup[key] = mean(speedups.at(key));
    g.fraction_of_fast_ideal[key] = mean(fast_fractions.at(key));
    g.count[key] = static_cast<int>(it->second.size());
  }
  return g;
}

void FractionAggregator::add(CollectiveKind kind, model::OverlapClass overlap, double ideal_speedup,
                             double fast_ideal_speedup, const std::vector<ColumnValue>& values) {
  overall_.add(ideal_speedup, fast_ideal_speedup, values);
  by_collective_[kind].add(ideal_speedup, fast_ideal_speedup, values);
  by_overlap_[overlap].add(ideal_speedup, fast_ideal_speedup, values);
}

FractionsByGroup FractionAggregator::finish(const std::vector<std::string>& key_order) const {
  FractionsByGroup out;
  out.overall = overall_.finish(key_order);
  for (const auto& [kind, g] : by_collective_) out.by_collective[kind] = g.finish(key_order);
  for (const auto& [cls, g] : by_overlap_) out.by_overlap[cls] = g.finish(key_order);
  return out;
}

}  // namespace c3
