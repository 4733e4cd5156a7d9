// views/sweep_summary.hpp: what a sweep reports per scenario (the best strategy of
// each family) and on average (by collective kind, by overlap class, overall).
#pragma once

#include <string>
#include <map>
#include <string_view>
#include <vector>

#include "c3/advisor.hpp"
#include "c3/fractions.hpp"

namespace c3::io::detail {

/// The strategy kinds some advice predicts, in the order of the tables
/// (strategies::all_kinds()): a sweep of independent pairs has no `chunked` column, one
/// of dependent pairs no `base`.
std::vector<StrategyKind> table_kinds(const std::vector<Advice>& advice);

/// The fastest prediction of family `kind`; nullptr when it does not apply.
const StrategyPrediction* best_of(const Advice& advice, StrategyKind kind);

/// The averaged columns: table_kinds but serial (always 1x, 0% of ideal), then
/// "recommended": "base", "sp", "rp", "dma", "dma_rp", "recommended".
std::vector<std::string> average_columns(const std::vector<Advice>& advice);

/// Averages by collective kind, by overlap class and overall (c3/fractions.hpp): each
/// column over the scenarios it applies to (its best strategy in each), keys in
/// average_columns(advice) order.
FractionsByGroup summarize(const std::vector<Advice>& advice);

}  // namespace c3::io::detail
