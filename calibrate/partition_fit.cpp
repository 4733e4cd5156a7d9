// docs/model.md §3, docs/calibration.md "A collective's slowdown by size": partition_fit.hpp.
#include "calibrate/partition_fit.hpp"

#include <cmath>
#include <set>
#include <variant>

#include "c3/validator.hpp"

namespace c3::validator {
namespace {

// A file's CU-transport collectives at `ranks`: [kind][size][cus] -> median time.
using Times = std::map<CollectiveKind, std::map<std::int64_t, std::map<int, double>>>;

Times times_of(const RawMeasurements& file, int ranks, int compute_units) {
  Times out;
  for (const Record& record : file.records) {
    const auto* q = std::get_if<CollectiveQuery>(&record.query);
    const Measurement& m = record.measurement;
    if (q == nullptr || q->transport != Transport::cu || q->collective.ranks != ranks) continue;
    if (q->cus < 0 || q->cus >= compute_units || !m.ok || !m.verified || !(m.median_s > 0)) continue;
    out[q->collective.kind][q->collective.size_bytes][q->cus] = m.median_s;
  }
  return out;
}

// One kind's table from its ratios per size ([size][cus] -> ratios over files).
SizedSlowdown table_of(const std::map<std::int64_t, std::map<int, std::vector<double>>>& ratios,
                       const std::set<int>& cus, const std::string& name, const Provenance& source) {
  std::vector<std::pair<double, std::vector<double>>> sizes;  // (size, median ratio per CU count)
  for (const auto& [size, by_cus] : ratios) {
    if (by_cus.size() != cus.size()) continue;  // not measured at every CU count
    std::vector<double> row;
    for (const auto& [c, values] : by_cus) row.push_back(median_of(values));
    sizes.emplace_back(static_cast<double>(size), std::move(row));
  }
  SizedSlowdown table;
  table.name = name;
  table.provenance = source;
  if (sizes.size() < kMinSizesPerPartitionRow) return table;
  for (const int c : cus) table.cus.push_back(c);
  std::vector<std::vector<std::size_t>> rows{{}};
  for (std::size_t i = 0; i < sizes.size(); ++i) {
    const std::vector<std::size_t>& open = rows.back();
    if (open.size() >= kMinSizesPerPartitionRow && sizes[i].first > kPartitionRowSpan * sizes[open.front()].first)
      rows.emplace_back();
    rows.back().push_back(i);
  }
  if (rows.size() > 1 && rows.back().size() < kMinSizesPerPartitionRow) {
    const std::vector<std::size_t> tail = rows.back();
    rows.pop_back();
    rows.back().insert(rows.back().end(), tail.begin(), tail.end());
  }
  for (const std::vector<std::size_t>& row : rows) {
    double log_sum = 0;
    for (const std::size_t i : row) log_sum += std::log(sizes[i].first);
    table.size_bytes.push_back(std::round(std::exp(log_sum / static_cast<double>(row.size()))));
    std::vector<double>& out = table.slowdown.emplace_back();
    for (std::size_t j = 0; j < cus.size(); ++j) {
      std::vector<double> values;
      for (const std::size_t i : row) values.push_back(sizes[i].second[j]);
      out.push_back(median_of(values));
    }
  }
  return table;
}

}  // namespace

std::map<CollectiveKind, SizedSlowdown> fit_collective_partitions(const std::vector<RawMeasurements>& files,
                                                                  int ranks, int compute_units,
                                                                  const Provenance& source,
                                                                  std::vector<std::string>& notes) {
  std::map<CollectiveKind, std::map<std::int64_t, std::map<int, std::vector<double>>>> ratios;
  std::map<CollectiveKind, std::set<int>> cus;
  for (const RawMeasurements& file : files)
    for (const auto& [kind, by_size] : times_of(file, ranks, compute_units))
      for (const auto& [size, by_cus] : by_size) {
        const auto base = by_cus.find(0);
        if (base == by_cus.end()) continue;
        for (const auto& [c, time_s] : by_cus) {
          if (c == 0) continue;
          ratios[kind][size][c].push_back(time_s / base->second);
          cus[kind].insert(c);
        }
      }
  std::map<CollectiveKind, SizedSlowdown> out;
  for (const auto& [kind, by_size] : ratios) {
    const std::string name = "collective_slowdown_by_size." + std::string(to_string(kind));
    SizedSlowdown table = table_of(by_size, cus[kind], name, source);
    if (table.size_bytes.empty()) {
      notes.push_back(name + ": not fitted (fewer than " + std::to_string(kMinSizesPerPartitionRow) +
                      " sizes measured on the default CUs and on every CU count of the kind)");
      continue;
    }
    std::string counts;
    for (const double c : table.cus) counts += (counts.empty() ? "" : ", ") + std::to_string(static_cast<int>(c));
    notes.push_back(name + ": " + std::to_string(table.size_bytes.size()) + " rows over " +
                    std::to_string(by_size.size()) + " sizes, at " + counts + " CUs");
    out.emplace(kind, std::move(table));
  }
  if (out.empty())
    notes.push_back("collective_slowdown_by_size: not fitted (no collective measured at " + std::to_string(ranks) +
                    " ranks both on the default CUs and on fewer)");
  return out;
}

}  // namespace c3::validator
