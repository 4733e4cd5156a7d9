// The collective-benchmark file format (io/bench_file.hpp).
#include "io/bench_file.hpp"

#include <algorithm>
#include <set>

#include "c3/errors.hpp"
#include "c3/io.hpp"
#include "io/json_document.hpp"

namespace c3::validator {
namespace {

using json::Json;
using json::Reader;

constexpr std::string_view kFileType = "collective_bench";

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
  return json::parse_typed_records<BenchFile>(Reader(origin), json_text, kFileType,
                                              "a c3advisor bench-collective file", read_record);
}

BenchFile load_bench(const std::string& path) { return parse_bench(io::read_file(path), path); }

BenchFile select_bench(BenchFile file, const std::vector<CollectiveKind>& kinds,
                       const std::vector<std::string>& transports, const std::string& origin) {
  const bool all_transports =
      transports.empty() || std::find(transports.begin(), transports.end(), "all") != transports.end();
  // What the file has, in file order, for the messages.
  std::vector<std::string> file_kinds;
  std::vector<std::string> file_transports;
  const auto add = [](std::vector<std::string>& names, const std::string& name) {
    if (std::find(names.begin(), names.end(), name) == names.end()) names.push_back(name);
  };
  for (const BenchRecord& r : file.records) {
    add(file_kinds, std::string(to_string(r.kind)));
    add(file_transports, r.transport);
  }
  const auto check = [&](const std::string& what, const std::string& name, const std::vector<std::string>& has) {
    if (std::find(has.begin(), has.end(), name) != has.end()) return;
    std::string list;
    for (const std::string& h : has) list += (list.empty() ? "" : ", ") + h;
    throw InputError(origin + ": no record of " + what + " '" + name + "' (the file has " + what + "s: " +
                     (list.empty() ? "none" : list) + ")");
  };
  for (const CollectiveKind k : kinds) check("kind", std::string(to_string(k)), file_kinds);
  if (!all_transports)
    for (const std::string& t : transports) check("transport", t, file_transports);

  std::erase_if(file.records, [&](const BenchRecord& r) {
    const bool kind_kept = kinds.empty() || std::find(kinds.begin(), kinds.end(), r.kind) != kinds.end();
    const bool transport_kept =
        all_transports || std::find(transports.begin(), transports.end(), r.transport) != transports.end();
    return !kind_kept || !transport_kept;
  });
  return file;
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

}  // namespace c3::validator
