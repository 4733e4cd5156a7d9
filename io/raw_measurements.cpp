// Raw-measurements JSON (io/raw_measurements.hpp).
#include "io/raw_measurements.hpp"

#include <filesystem>
#include <limits>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <tuple>

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
  // Written only when not the default, so that files and keys of tn GEMMs are unchanged.
  if (g.layout != GemmLayout::tn) j["layout"] = std::string(to_string(g.layout));
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

Json peer_json(const PeerRecord& p) {
  Json j;
  j["implementation"] = p.implementation;
  put_gemm(j, p.gemm);
  put_collective(j, p.collective);
  j["dependency"] = std::string(to_string(p.dependency));
  json::put_measurement(j, p.measurement, "median_s");
  j["device"] = p.device;
  j["versions"] = Json::object();
  for (const auto& [component, version] : p.versions) j["versions"][component] = version;
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
  Gemm gemm{r.integer(j, "m", path), r.integer(j, "n", path), r.integer(j, "k", path),
            r.parsed(j, "dtype", path, parse_dtype)};
  if (j.contains("layout")) gemm.layout = r.parsed(j, "layout", path, parse_gemm_layout);
  return gemm;
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

// One entry of "peers": a dependent pair (validate_dependency holds), the measurement as in
// a record, the device and the versions of what ran it.
PeerRecord read_peer(const Reader& r, const Json& j, const std::string& path) {
  if (!j.is_object()) r.fail(path, "must be an object");
  PeerRecord p;
  p.implementation = r.text(j, "implementation", path);
  if (p.implementation.empty() || p.implementation.find_first_of(" \t\n") != std::string::npos)
    r.fail(Reader::join(path, "implementation"), "must be a non-empty name without spaces");
  p.gemm = read_gemm(r, j, path);
  p.collective = read_collective(r, j, path);
  p.dependency = r.parsed(j, "dependency", path, parse_dependency);
  if (p.dependency == Dependency::none)
    r.fail(Reader::join(path, "dependency"),
           "a peer runs a dependent pair: collective_feeds_gemm or "
           "gemm_feeds_collective, not none");
  try {
    validate_dependency(p.gemm, p.collective, p.dependency);
  } catch (const InputError& e) {
    r.fail(Reader::join(path, "dependency"), e.what());
  }
  p.measurement = json::read_measurement(r, j, path, "median_s");
  p.device = r.text(j, "device", path);
  const Json& versions = r.member(j, "versions", path);
  if (!versions.is_object()) r.fail(Reader::join(path, "versions"), "must be an object of strings");
  for (const auto& [component, version] : versions.items()) {
    if (!version.is_string()) r.fail(Reader::join(path, "versions") + "." + component, "must be a string");
    p.versions[component] = version.get<std::string>();
  }
  return p;
}

bool same_run(const PeerRecord& a, const PeerRecord& b) {
  return a.implementation == b.implementation && a.gemm == b.gemm && a.collective == b.collective &&
         a.dependency == b.dependency;
}

}  // namespace

bool peer_of(const PeerRecord& peer, const C3Pair& pair) {
  return peer.gemm == pair.gemm && peer.collective == pair.collective && peer.dependency == pair.dependency;
}

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
  if (doc.contains("peers")) {
    const Json& peers = r.array(doc, "peers", "");
    for (std::size_t i = 0; i < peers.size(); ++i) {
      const std::string path = "peers[" + std::to_string(i) + "]";
      PeerRecord p = read_peer(r, peers[i], path);
      for (std::size_t j = 0; j < raw.peers.size(); ++j)
        if (same_run(raw.peers[j], p))
          r.fail(path,
                 "repeats peers[" + std::to_string(j) + "] (" + p.implementation + " of the same pair)");
      raw.peers.push_back(std::move(p));
    }
  }
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
  if (!raw.peers.empty()) {  // absent when none: files without peers are written as before
    doc["peers"] = Json::array();
    for (const PeerRecord& p : raw.peers) doc["peers"].push_back(peer_json(p));
  }
  return doc.dump(1) + "\n";
}

void save_raw_measurements(const std::string& path, const RawMeasurements& raw) {
  io::write_file(path, raw_measurements_json(raw));
}

const GemmQuery* gemm_time_query(const Record& record) {
  const auto* q = std::get_if<GemmQuery>(&record.query);
  const Measurement& m = record.measurement;
  return q != nullptr && q->cus_removed == 0 && m.ok && m.verified && m.median_s > 0 ? q : nullptr;
}

std::vector<GemmTimeShape> measured_gemm_times(const std::vector<RawMeasurements>& files) {
  using Key = std::tuple<DType, GemmLayout, std::int64_t, std::int64_t, std::int64_t>;
  std::map<Key, std::vector<double>> by_shape;
  for (const RawMeasurements& file : files) {
    std::set<Key> seen;  // a file's first record of a shape
    for (const Record& record : file.records) {
      const GemmQuery* q = gemm_time_query(record);
      if (q == nullptr) continue;
      const Key key{q->gemm.dtype, q->gemm.layout, q->gemm.m, q->gemm.n, q->gemm.k};
      if (seen.insert(key).second) by_shape[key].push_back(record.measurement.median_s);
    }
  }
  std::vector<GemmTimeShape> out;
  for (auto& [key, values] : by_shape) {
    const auto& [dtype, layout, m, n, k] = key;
    out.push_back({Gemm{m, n, k, dtype, layout}, median_of(values), static_cast<int>(values.size())});
  }
  return out;
}

std::vector<GemmKernelShape> measured_kernels(const std::vector<RawMeasurements>& files) {
  std::map<std::string, GemmKernelShape> by_shape;
  for (const RawMeasurements& file : files)
    for (const Record& r : file.records) {
      const auto* q = std::get_if<GemmQuery>(&r.query);
      const GemmKernel& k = r.measurement.gemm_kernel;
      if (q == nullptr || q->cus_removed != 0 || !r.measurement.ok || !k.known()) continue;
      by_shape[measurement_key(r.query)] = GemmKernelShape{q->gemm, k.tile_m, k.tile_n, k.split_k};
    }
  std::vector<GemmKernelShape> out;
  for (const auto& [key, shape] : by_shape) out.push_back(shape);
  return out;
}

}  // namespace c3::validator
