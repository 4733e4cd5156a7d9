// Collective benchmarks (validator/collective_bench.hpp).
#include "validator/collective_bench.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <limits>
#include <map>
#include <set>
#include <sstream>

#include "c3/errors.hpp"
#include "c3/io.hpp"
#include "validator/accuracy_charts.hpp"
#include "validator/json_support.hpp"

namespace c3::validator {
namespace {

using json::Json;
using json::Reader;

constexpr std::string_view kFileType = "collective_bench";
constexpr std::size_t kElemBytes = 2;  // bf16, the element type of every backend's collectives

bool same_point(const BenchRecord& a, const BenchRecord& b) {
  return a.kind == b.kind && a.transport == b.transport && a.ranks == b.ranks && a.size_bytes == b.size_bytes;
}

Measurement failed(const std::string& error) {
  Measurement m;
  m.error = error;
  return m;
}

Measurement measure_one(Validator& v, const BenchRecord& r) {
  const Collective coll{r.kind, r.size_bytes, r.ranks};
  try {
    if (r.transport == kLibraryTransport) return v.collective(coll, Transport::cu, 0);
    v.set_dma_variant(r.transport);
    return v.collective(coll, Transport::dma, 0);
  } catch (const Error& e) {
    return failed(e.what());
  }
}

void check_options(const BenchOptions& o, const Capabilities& caps) {
  if (o.kinds.empty()) throw InputError("bench-collective: no collective kinds");
  if (o.transports.empty()) throw InputError("bench-collective: no transports");
  if (o.sizes.empty()) throw InputError("bench-collective: no sizes");
  for (const std::int64_t s : o.sizes)
    if (s <= 0) throw InputError("bench-collective: size " + std::to_string(s) + " must be > 0 bytes");
  if (o.ranks < 2) throw InputError("bench-collective: --ranks must be at least 2 (got " + std::to_string(o.ranks) + ")");
  if (caps.gpus > 0 && o.ranks > caps.gpus)
    throw InputError("bench-collective: --ranks " + std::to_string(o.ranks) + ": backend '" + caps.backend +
                     "' has " + std::to_string(caps.gpus) + " GPUs");
  if (o.resume && o.path.empty()) throw InputError("bench-collective: --resume needs --out");
}

Json record_json(const BenchRecord& r) {
  Json j;
  j["kind"] = std::string(to_string(r.kind));
  j["transport"] = r.transport;
  j["ranks"] = r.ranks;
  j["size_bytes"] = r.size_bytes;
  j["count"] = r.size_bytes / static_cast<std::int64_t>(kElemBytes);
  json::put_measurement(j, r.measurement, "time_s");
  j["algbw_bytes_per_s"] = algbw_bytes_per_s(r);
  j["busbw_bytes_per_s"] = busbw_bytes_per_s(r);
  return j;
}

BenchRecord read_record(const Reader& r, const Json& j, const std::string& path) {
  BenchRecord rec;
  rec.kind = r.parsed(j, "kind", path, parse_collective_kind);
  rec.transport = r.text(j, "transport", path);
  if (rec.transport.empty()) r.fail(path + ".transport", "must not be empty");
  rec.ranks = r.small_integer(j, "ranks", path);
  if (rec.ranks < 1) r.fail(path + ".ranks", "must be >= 1");
  rec.size_bytes = r.integer(j, "size_bytes", path);
  if (rec.size_bytes <= 0) r.fail(path + ".size_bytes", "must be > 0");
  rec.measurement = json::read_measurement(r, j, path, "time_s");
  return rec;
}

}  // namespace

double bus_factor(CollectiveKind kind, int ranks) {
  if (ranks < 1) throw InputError("bus_factor: ranks must be >= 1");
  const double n = ranks;
  return kind == CollectiveKind::all_reduce ? 2.0 * (n - 1) / n : (n - 1) / n;
}

double algbw_bytes_per_s(const BenchRecord& r) {
  const Measurement& m = r.measurement;
  return m.ok && m.median_s > 0 ? static_cast<double>(r.size_bytes) / m.median_s : 0.0;
}

double busbw_bytes_per_s(const BenchRecord& r) { return algbw_bytes_per_s(r) * bus_factor(r.kind, r.ranks); }

std::vector<std::int64_t> size_sweep(std::int64_t min_bytes, std::int64_t max_bytes, std::int64_t factor) {
  if (min_bytes < 1) throw InputError("minimum size must be >= 1 byte (got " + std::to_string(min_bytes) + ")");
  if (max_bytes < min_bytes)
    throw InputError("maximum size " + std::to_string(max_bytes) + " is below the minimum " + std::to_string(min_bytes));
  if (factor < 2) throw InputError("step factor must be >= 2 (got " + std::to_string(factor) + ")");
  std::vector<std::int64_t> out;
  for (std::int64_t s = min_bytes;; s *= factor) {
    out.push_back(s);
    if (s > max_bytes / factor) break;  // the next step would pass max (or overflow)
  }
  return out;
}

BenchFile run_bench(Validator& validator, const BenchOptions& o, RawProvenance provenance,
                    const BenchProgress& progress) {
  const Capabilities caps = validator.capabilities();
  check_options(o, caps);
  BenchFile file;
  file.provenance = std::move(provenance);
  std::vector<BenchRecord> previous;
  if (o.resume && std::filesystem::exists(o.path)) {
    BenchFile old = load_bench(o.path);
    if (old.provenance.backend != file.provenance.backend || old.provenance.device != file.provenance.device)
      throw InputError("--resume: " + o.path + " was measured with backend '" + old.provenance.backend + "' on '" +
                       old.provenance.device + "', not '" + file.provenance.backend + "' on '" +
                       file.provenance.device + "'");
    previous = std::move(old.records);
  }
  std::vector<BenchRecord> todo;
  for (const CollectiveKind kind : o.kinds)
    for (const std::string& t : o.transports) {
      if (t != kLibraryTransport && !dma_capable(kind)) continue;
      for (const std::int64_t size : o.sizes) todo.push_back(BenchRecord{kind, t, o.ranks, size, {}});
    }
  const std::string variant_before = validator.dma_variant();
  std::size_t index = 0;
  for (BenchRecord& r : todo) {
    const auto old = std::find_if(previous.begin(), previous.end(),
                                  [&](const BenchRecord& p) { return same_point(p, r) && p.measurement.ok; });
    const bool resumed = old != previous.end();
    r.measurement = resumed ? old->measurement : measure_one(validator, r);
    file.records.push_back(r);
    if (!o.path.empty()) json::write_atomically(o.path, bench_json(file));
    if (progress) progress(BenchStep{++index, todo.size(), &file.records.back(), resumed});
  }
  validator.set_dma_variant(variant_before);  // accepted before the run, so accepted now
  return file;
}

std::string bench_json(const BenchFile& file) {
  Json doc;
  doc["schema_version"] = io::kSchemaVersion;
  doc["type"] = std::string(kFileType);
  doc["provenance"] = json::provenance_json(file.provenance);
  doc["records"] = Json::array();
  for (const BenchRecord& r : file.records) doc["records"].push_back(record_json(r));
  return doc.dump(1) + "\n";
}

BenchFile parse_bench(std::string_view json_text, const std::string& origin) {
  const Reader r(origin);
  const Json doc = json::parse_document(r, json_text);
  if (r.text(doc, "type", "") != kFileType)
    r.fail("type", "must be '" + std::string(kFileType) + "' (a c3advisor bench-collective file)");
  BenchFile file;
  file.provenance = json::read_provenance(r, r.member(doc, "provenance", ""));
  const Json& records = r.array(doc, "records", "");
  for (std::size_t i = 0; i < records.size(); ++i)
    file.records.push_back(read_record(r, records[i], "records[" + std::to_string(i) + "]"));
  return file;
}

BenchFile load_bench(const std::string& path) { return parse_bench(io::read_file(path), path); }

std::string bench_table(const BenchFile& file) {
  std::ostringstream os;
  os << "# c3advisor bench-collective: " << file.provenance.device << " (backend " << file.provenance.backend
     << ")\n";
  for (const auto& [component, version] : file.provenance.versions) os << "# " << component << " " << version << "\n";
  os << "# time: median of the measured runs; algbw = size / time; busbw = algbw x (n-1)/n "
        "(all_reduce 2(n-1)/n), as nccl-tests\n";
  std::string block;
  char line[256];
  for (const BenchRecord& r : file.records) {
    const std::string this_block = std::string(to_string(r.kind)) + " " + r.transport + " ranks " +
                                   std::to_string(r.ranks);
    if (this_block != block) {
      block = this_block;
      os << "\n# " << to_string(r.kind) << "  transport " << r.transport << "  ranks " << r.ranks << "\n";
      std::snprintf(line, sizeof line, "# %12s %12s %11s %9s %9s %7s\n", "size(B)", "count(bf16)", "time(us)",
                    "algbw", "busbw", "#wrong");
      os << line;
      std::snprintf(line, sizeof line, "# %12s %12s %11s %9s %9s %7s\n", "", "", "", "(GB/s)", "(GB/s)", "");
      os << line;
    }
    const Measurement& m = r.measurement;
    if (m.ok) {
      std::snprintf(line, sizeof line, "  %12s %12lld %11.2f %9.2f %9.2f %7s\n", std::to_string(r.size_bytes).c_str(),
                    static_cast<long long>(r.size_bytes / static_cast<std::int64_t>(kElemBytes)), m.median_s * 1e6,
                    algbw_bytes_per_s(r) / 1e9, busbw_bytes_per_s(r) / 1e9, m.verified ? "0" : "n/a");
      os << line;
    } else {
      std::snprintf(line, sizeof line, "  %12s %12lld %11s %9s %9s  ", std::to_string(r.size_bytes).c_str(),
                    static_cast<long long>(r.size_bytes / static_cast<std::int64_t>(kElemBytes)), "-", "-", "-");
      os << line << "failed: " << m.error << "\n";
    }
  }
  return os.str();
}

std::vector<std::pair<double, double>> bench_curve(const BenchFile& file, CollectiveKind kind,
                                                   std::string_view transport, int ranks) {
  std::vector<std::pair<double, double>> out;
  for (const BenchRecord& r : file.records)
    if (r.kind == kind && r.transport == transport && r.ranks == ranks && r.measurement.ok)
      out.emplace_back(static_cast<double>(r.size_bytes), r.measurement.median_s);
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end(),
                        [](const auto& a, const auto& b) { return a.first == b.first; }),
            out.end());
  return out;
}

std::vector<Record> bench_records_as_queries(const BenchFile& file, int ranks, std::string_view dma_variant) {
  std::vector<Record> out;
  std::set<std::string> keys;
  for (const BenchRecord& r : file.records) {
    if (r.ranks != ranks || !r.measurement.ok) continue;
    Transport transport = Transport::cu;
    if (r.transport == kLibraryTransport)
      transport = Transport::cu;
    else if (!dma_variant.empty() && r.transport == dma_variant && dma_capable(r.kind))
      transport = Transport::dma;
    else
      continue;
    Record record{CollectiveQuery{Collective{r.kind, r.size_bytes, r.ranks}, transport, 0}, r.measurement};
    if (keys.insert(measurement_key(record.query)).second) out.push_back(std::move(record));
  }
  return out;
}

std::string bench_chart_svg(const BenchFile& file, CollectiveKind kind) {
  charts::XYChart chart;
  chart.title = std::string(to_string(kind)) + ": bus bandwidth vs size";
  chart.subtitle = file.provenance.device + (file.provenance.date.empty() ? "" : ", " + file.provenance.date) +
                   " (c3advisor bench-collective)";
  chart.x = charts::Axis{"size (bytes)", true, false};
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
  return charts::svg(chart);
}

}  // namespace c3::validator
