// c3/fractions.hpp: the mean fraction of the ideal speedup (and mean speedup) that each
// column realized over groups of scenarios: all of them, by collective kind and by
// overlap class. One aggregation for the sweep's averages (predicted, per strategy
// family) and validate's summary (measured, per family, advisor, oracle, heuristics).
// Each column is averaged over the scenarios that have it; means are the sum in the
// order added divided by the count. Nothing here throws.
#pragma once

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "c3/model.hpp"
#include "c3/types.hpp"

namespace c3 {

/// Means over one group of scenarios.
struct GroupFractions {
  int scenarios = 0;
  double ideal_speedup = 0;  ///< mean (0 when there is no scenario)
  double fast_ideal_speedup = 0;  ///< mean of the ideal with the faster transport
  std::vector<std::string> keys;  ///< the columns with at least one value, in column order
  std::map<std::string, double> fraction_of_ideal;  ///< mean per key: (speedup - 1) / (ideal - 1)
  std::map<std::string, double> speedup;            ///< mean realized speedup per key
  /// Mean per key of (speedup - 1) / (fast ideal - 1): the ideal of the faster transport.
  std::map<std::string, double> fraction_of_fast_ideal;
  std::map<std::string, int> count;                 ///< scenarios per key
};

struct FractionsByGroup {
  GroupFractions overall;
  std::map<CollectiveKind, GroupFractions> by_collective;
  std::map<model::OverlapClass, GroupFractions> by_overlap;
};

/// One column's value in one scenario.
struct ColumnValue {
  std::string key;
  double fraction_of_ideal = 0;
  double speedup = 0;
  double fraction_of_fast_ideal = 0;
};

/// Collects scenarios, then takes the means.
class FractionAggregator {
 public:
  /// One scenario of collective `kind` and overlap class `overlap`, with its ideal
  /// speedups (the paper's and the faster transport's) and a value for each column it has
  /// (a key at most once).
  void add(CollectiveKind kind, model::OverlapClass overlap, double ideal_speedup, double fast_ideal_speedup,
           const std::vector<ColumnValue>& values);
  /// The means; `key_order` orders each group's keys (keys not in it are left out).
  FractionsByGroup finish(const std::vector<std::string>& key_order) const;

 private:
  struct Group {
    int scenarios = 0;
    std::vector<double> ideal;
    std::vector<double> fast_ideal;
    std::map<std::string, std::vector<double>> fractions;
    std::map<std::string, std::vector<double>> fast_fractions;
    std::map<std::string, std::vector<double>> speedups;
    void add(double ideal_speedup, double fast_ideal_speedup, const std::vector<ColumnValue>& values);
    GroupFractions finish(const std::vector<std::string>& key_order) const;
  };
  Group overall_;
  std::map<CollectiveKind, Group> by_collective_;
  std::map<model::OverlapClass, Group> by_overlap_;
};

}  // namespace c3
