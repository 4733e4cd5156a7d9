// io/sweep_summary.hpp: what a sweep reports per scenario (the best strategy of
// each family) and on average (by collective kind, by overlap class, overall).
#pragma once

#include <string>
#include <map>
#include <string_view>
#include <vector>

#include "c3/advisor.hpp"

namespace c3::io::detail {

/// Every strategy kind, in the order of the tables (strategies::all_kinds()).
const std::vector<StrategyKind>& table_kinds();

/// The fastest prediction of family `kind`; nullptr when it does not apply.
const StrategyPrediction* best_of(const Advice& advice, StrategyKind kind);

class Mean {
 public:
  void add(double x) {
    sum_ += x;
    ++count_;
  }
  int count() const { return count_; }
  double value() const { return count_ > 0 ? sum_ / count_ : 0.0; }

 private:
  double sum_ = 0;
  int count_ = 0;
};

/// Averages over a group of scenarios. Columns: the kinds but serial (always
/// 1x, 0% of ideal), then the recommendation. A kind is averaged over the
/// scenarios it applies to (its best strategy in each).
struct GroupAverages {
  /// "base", "sp", "rp", "dma", "dma_rp", "recommended".
  static const std::vector<std::string>& columns();
  int scenarios = 0;
  Mean ideal_speedup;
  std::vector<Mean> fraction_of_ideal = std::vector<Mean>(columns().size());
  std::vector<Mean> speedup = std::vector<Mean>(columns().size());

  void add(const Advice& advice);
};

struct SweepAverages {
  GroupAverages overall;
  std::map<CollectiveKind, GroupAverages> by_collective;
  std::map<model::OverlapClass, GroupAverages> by_overlap;
};

SweepAverages summarize(const std::vector<Advice>& advice);

}  // namespace c3::io::detail
