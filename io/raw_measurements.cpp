// Raw-measurements JSON (io/raw_measurements.hpp).
#include "io/raw_measurements.hpp"

#include <filesystem>
#include <limits>
#include <nlohmann/json.hpp>
#include <sstream>

#include "c3/errors.hpp"
#include "c3/io.hpp"
#include "io/json_document.hpp"

namespace c3::validator {
namespace {

using json::Json;
using json::Reader;
using json::provenance_json;
using json::read_provenance;

template <class... F>
struct Overloaded : F... {
  using F::operator()...;
};
// Spelled out for compilers without aggregate deduction (clang before 17).
template <class... F>
Overloaded(F...) -> Overloaded<F...>;

// ---- writing ----

void put_gemm(Json& j, const Gemm& g) {
  j["m"] = g.m;
  j["n"] = g.n;
  j["k"] = g.k;
  j["dtype"] = std::string(to_string(g.dtype));
}

void put_collective(Json& j, const Collective& c) {
  j["kind"] = std::string(to_string(c.kind));
  j["size_bytes"] = c.size_bytes;
  j["ranks"] = c.ranks;
}

void put_params(Json& j, const Query& query) {
  std::visit(Overloaded{[&](const GemmQuery& q) {
                          put_gemm(j, q.gemm);
                          j["cus_removed"] = q.cus_removed;
                        },
                        [&](const CollectiveQuery& q) {
                          put_collective(j, q.collective);
                          j["transport"] = std::string(to_string(q.transport));
                          j["cus"] = q.cus;
                        },
                        [&](const ConcurrentQuery& q) {
                          put_gemm(j, q.gemm);
                          put_collective(j, q.collective);
                          j["strategy"] = q.strategy.label();
                          if (q.dependency != Dependency::none) j["dependency"] = std::string(to_string(q.dependency));
                        },
                        [&](const CopyQuery& q) {
                          j["path"] = std::string(to_string(q.path));
                          j["size_bytes"] = q.size_bytes;
                        }},
             query);
}

Json record_json(const Record& r) {
  Json j;
  j["key"] = measurement_key(r.query);
  j["what"] = std::string(what(r.query));
  put_params(j, r.query);
  json::put_measurement(j, r.measurement, "median_s");
  return j;
}


CopyPath parse_copy_path(std::string_view text) {
  for (const CopyPath p : {CopyPath::device_local, CopyPath::one_peer, CopyPath::all_peers})
    if (to_string(p) == text) return p;
  throw InputError("unknown copy path '" + std::string(text) +
                   "' (valid: device_local, one_peer, all_peers)");
}

Transport parse_transport(std::string_view text) {
  if (text == "cu") return Transport::cu;
  if (text == "dma") return Transport::dma;
  throw InputError("unknown transport '" + std::string(text) + "' (valid: cu, dma)");
}

Gemm read_gemm(const Reader& r, const Json& j, const std::string& path) {
  return Gemm{r.integer(j, "m", path), r.integer(j, "n", path), r.integer(j, "k", path),
              r.parsed(j, "dtype", path, parse_dtype)};
}

Collective read_collective(const Reader& r, const Json& j, const std::string& path) {
  return Collective{r.parsed(j, "kind", path, parse_collective_kind),
                    r.integer(j, "size_bytes", path), r.small_integer(j, "ranks", path)};
}

Query read_query(const Reader& r, const Json& j, const std::string& path) {
  const std::string kind = r.text(j, "what", path);
  if (kind == "gemm") return GemmQuery{read_gemm(r, j, path), r.small_integer(j, "cus_removed", path)};
  if (kind == "collective")
    return CollectiveQuery{read_collective(r, j, path),
                           r.parsed(j, "transport", path, parse_transport),
                           r.small_integer(j, "cus", path)};
  if (kind == "concurrent") {
    ConcurrentQuery q{read_gemm(r, j, path), read_collective(r, j, path),
                      r.parsed(j, "strategy", path, parse_strategy)};
    if (j.contains("dependency")) {
      q.dependency = r.parsed(j, "dependency", path, parse_dependency);
      try {
        validate_dependency(q.gemm, q.collective, q.dependency);
      } catch (const InputError& e) {
        r.fail(Reader::join(path, "dependency"), e.what());
      }
    }
    return q;
  }
  if (kind == "copy")
    return CopyQuery{r.parsed(j, "path", path, parse_copy_path), r.integer(j, "size_bytes", path)};
  r.fail(Reader::join(path, "what"),
         "unknown '" + kind + "' (valid: gemm, collective, concurrent, copy)");
}

Record read_record(const Reader& r, const Json& j, const std::string& path) {
  Record rec{read_query(r, j, path), json::read_measurement(r, j, path, "median_s")};
  const std::string key = r.text(j, "key", path);
  if (key != measurement_key(rec.query))
    r.fail(path + ".key", "'" + key + "' does not match its parameters ('" +
                              measurement_key(rec.query) + "')");
  return rec;
}


}  // namespace

RawProvenance provenance_of(const Capabilities& caps) {
  RawProvenance p;
  p.backend = caps.backend;
  p.device = caps.device;
  p.gpus = caps.gpus;
  p.compute_units = caps.compute_units;
  p.versions = caps.versions;
  p.notes = caps.notes;
  p.c3advisor_version = std::string(io::version());
  return p;
}

RawMeasurements parse_raw_measurements(std::string_view json_text, const std::string& origin) {
  const Reader r(origin);
  const Json doc = json::parse_document(r, json_text);
  RawMeasurements raw;
  raw.provenance = read_provenance(r, r.member(doc, "provenance", ""));
  const Json& records = r.array(doc, "records", "");
  for (std::size_t i = 0; i < records.size(); ++i)
    raw.records.push_back(read_record(r, records[i], "records[" + std::to_string(i) + "]"));
  return raw;
}

RawMeasurements load_raw_measurements(const std::string& path) {
  return parse_raw_measurements(io::read_file(path), path);
}

std::string raw_measurements_json(const RawMeasurements& raw) {
  Json doc;
  doc["schema_version"] = io::kSchemaVersion;
  doc["provenance"] = provenance_json(raw.provenance);
  doc["records"] = Json::array();
  for (const Record& rec : raw.records) doc["records"].push_back(record_json(rec));
  return doc.dump(1) + "\n";
}

void save_raw_measurements(const std::string& path, const RawMeasurements& raw) {
  io::write_file(path, raw_measurements_json(raw));
}

}  // namespace c3::validator
