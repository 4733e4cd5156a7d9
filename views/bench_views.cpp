// Collective benchmarks as nccl-tests-style text and SVG charts (views/bench_views.hpp).
#include <algorithm>
#include <cstdio>
#include <sstream>
#include <string>
#include <vector>

#include "views/bench_views.hpp"

#include "c3/errors.hpp"
#include "c3/measure.hpp"
#include "views/charts.hpp"

namespace c3::validator {

namespace {

std::string block_of(const BenchRecord& r) {
  return std::string(to_string(r.kind)) + "  transport " + r.transport + "  ranks " + std::to_string(r.ranks);
}

std::string block_header(const std::string& block) {
  char line[256];
  std::string out = "\n# " + block + "\n";
  std::snprintf(line, sizeof line, "# %12s %12s %11s %9s %9s %7s\n", "size(B)", "count(bf16)", "time(us)", "algbw",
                "busbw", "#wrong");
  out += line;
  std::snprintf(line, sizeof line, "# %12s %12s %11s %9s %9s %7s\n", "", "", "", "(GB/s)", "(GB/s)", "");
  return out + line;
}

std::string record_line(const BenchRecord& r) {
  char line[256];
  const Measurement& m = r.measurement;
  const auto count = static_cast<long long>(r.size_bytes / static_cast<std::int64_t>(kElemBytes));
  if (!m.ok) {
    std::snprintf(line, sizeof line, "  %12s %12lld %11s %9s %9s  ", std::to_string(r.size_bytes).c_str(), count,
                  "-", "-", "-");
    return line + ("failed: " + m.error) + "\n";
  }
  std::snprintf(line, sizeof line, "  %12s %12lld %11.2f %9.2f %9.2f %7s\n", std::to_string(r.size_bytes).c_str(),
                count, m.median_s * 1e6, algbw_bytes_per_s(r) / 1e9, busbw_bytes_per_s(r) / 1e9,
                m.verified ? "0" : "n/a");
  return line;
}

}  // namespace

std::string bench_table(const BenchFile& file) {
  std::ostringstream os;
  os << "# c3advisor bench-collective: " << file.provenance.device << " (backend " << file.provenance.backend
     << ")\n";
  for (const auto& [component, version] : file.provenance.versions) os << "# " << component << " " << version << "\n";
  os << "# time: median of the measured runs; algbw = size / time; busbw = algbw x (n-1)/n "
        "(all_reduce 2(n-1)/n), as nccl-tests\n";
  // One block per (kind, transport, ranks), in the order each first appears, its records in
  // file order: a file that alternates transports size by size still reads as tables.
  std::vector<std::string> blocks;
  for (const BenchRecord& r : file.records)
    if (std::find(blocks.begin(), blocks.end(), block_of(r)) == blocks.end()) blocks.push_back(block_of(r));
  for (const std::string& block : blocks) {
    os << block_header(block);
    for (const BenchRecord& r : file.records)
      if (block_of(r) == block) os << record_line(r);
  }
  return os.str();
}

namespace {

charts::XYChart bench_chart(const BenchFile& file, CollectiveKind kind) {
  charts::XYChart chart;
  chart.title = std::string(to_string(kind)) + ": bus bandwidth vs size";
  chart.subtitle = file.provenance.device + (file.provenance.date.empty() ? "" : ", " + file.provenance.date) +
                   " (c3advisor bench-collective)";
  chart.x = charts::Axis{"size (bytes)", true, false, true};
  chart.y = charts::Axis{"bus bandwidth (GB/s)", true, false};
  chart.style = charts::XYChart::Style::lines;
  std::vector<std::pair<std::string, int>> transports;  // in file order
  for (const BenchRecord& r : file.records)
    if (r.kind == kind && std::find(transports.begin(), transports.end(), std::make_pair(r.transport, r.ranks)) ==
                              transports.end())
      transports.emplace_back(r.transport, r.ranks);
  const bool several_ranks = std::any_of(transports.begin(), transports.end(),
                                         [&](const auto& t) { return t.second != transports.front().second; });
  for (const auto& [transport, ranks] : transports) {
    charts::Series s;
    s.name = transport + (several_ranks ? " x" + std::to_string(ranks) : "");
    for (const auto& [size, time] : bench_curve(file, kind, transport, ranks)) {
      s.x.push_back(size);
      s.y.push_back(size / time * bus_factor(kind, ranks) / 1e9);
    }
    if (!s.x.empty()) chart.series.push_back(std::move(s));
  }
  if (chart.series.empty())
    throw InputError("no successful " + std::string(to_string(kind)) + " records to chart");
  return chart;
}

}  // namespace

std::string bench_chart_svg(const BenchFile& file, CollectiveKind kind) { return charts::svg(bench_chart(file, kind)); }

std::string bench_chart_csv(const BenchFile& file, CollectiveKind kind) { return charts::csv(bench_chart(file, kind)); }

}  // namespace c3::validator
