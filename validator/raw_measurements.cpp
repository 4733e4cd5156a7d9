// Raw-measurements JSON (validator/raw_measurements.hpp).
#include "validator/raw_measurements.hpp"

#include <filesystem>
#include <limits>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "c3/errors.hpp"
#include "c3/io.hpp"

namespace c3::validator {
namespace {

using Json = nlohmann::ordered_json;

template <class... F>
struct Overloaded : F... {
  using F::operator()...;
};

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
  const Measurement& m = r.measurement;
  j["ok"] = m.ok;
  j["error"] = m.error;
  j["median_s"] = m.median_s;
  j["min_s"] = m.min_s;
  j["max_s"] = m.max_s;
  j["runs_s"] = m.runs_s;
  j["warmup_runs"] = m.warmup_runs;
  j["verified"] = m.verified;
  return j;
}

Json provenance_json(const RawProvenance& p) {
  Json j;
  j["backend"] = p.backend;
  j["device"] = p.device;
  j["gpus"] = p.gpus;
  j["compute_units"] = p.compute_units;
  j["versions"] = Json::object();
  for (const auto& [component, version] : p.versions) j["versions"][component] = version;
  j["notes"] = p.notes;
  j["git_sha"] = p.git_sha;
  j["date"] = p.date;
  j["command"] = p.command;
  j["c3advisor_version"] = p.c3advisor_version;
  return j;
}

// ---- reading: every error names the origin and the key path ----

class Reader {
 public:
  explicit Reader(const std::string& origin) : origin_(origin) {}

  [[noreturn]] void fail(const std::string& path, const std::string& message) const {
    throw ConfigError(origin_, 0, path, message);
  }

  const Json& member(const Json& obj, const std::string& name, const std::string& path) const {
    if (!obj.is_object()) fail(path, "must be an object");
    const auto it = obj.find(name);
    if (it == obj.end()) fail(join(path, name), "missing");
    return *it;
  }

  std::string text(const Json& obj, const std::string& name, const std::string& path) const {
    const Json& v = member(obj, name, path);
    if (!v.is_string()) fail(join(path, name), "must be a string");
    return v.get<std::string>();
  }

  std::int64_t integer(const Json& obj, const std::string& name, const std::string& path) const {
    const Json& v = member(obj, name, path);
    if (!v.is_number_integer()) fail(join(path, name), "must be an integer");
    return v.get<std::int64_t>();
  }

  int small_integer(const Json& obj, const std::string& name, const std::string& path) const {
    const std::int64_t v = integer(obj, name, path);
    if (v < std::numeric_limits<int>::min() || v > std::numeric_limits<int>::max())
      fail(join(path, name), "out of range");
    return static_cast<int>(v);
  }

  double number(const Json& obj, const std::string& name, const std::string& path) const {
    const Json& v = member(obj, name, path);
    if (!v.is_number()) fail(join(path, name), "must be a number");
    return v.get<double>();
  }

  bool boolean(const Json& obj, const std::string& name, const std::string& path) const {
    const Json& v = member(obj, name, path);
    if (!v.is_boolean()) fail(join(path, name), "must be true or false");
    return v.get<bool>();
  }

  const Json& array(const Json& obj, const std::string& name, const std::string& path) const {
    const Json& v = member(obj, name, path);
    if (!v.is_array()) fail(join(path, name), "must be a list");
    return v;
  }

  // Parses a field with one of c3's parse functions, turning its InputError into a
  // ConfigError at the field.
  template <class Parse>
  auto parsed(const Json& obj, const std::string& name, const std::string& path, Parse parse) const {
    const std::string value = text(obj, name, path);
    try {
      return parse(value);
    } catch (const InputError& e) {
      fail(join(path, name), e.what());
    }
  }

  static std::string join(const std::string& path, const std::string& name) {
    return path.empty() ? name : path + "." + name;
  }

 private:
  std::string origin_;
};

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
  if (kind == "concurrent")
    return ConcurrentQuery{read_gemm(r, j, path), read_collective(r, j, path),
                           r.parsed(j, "strategy", path, parse_strategy)};
  if (kind == "copy")
    return CopyQuery{r.parsed(j, "path", path, parse_copy_path), r.integer(j, "size_bytes", path)};
  r.fail(Reader::join(path, "what"),
         "unknown '" + kind + "' (valid: gemm, collective, concurrent, copy)");
}

Measurement read_measurement(const Reader& r, const Json& j, const std::string& path) {
  Measurement m;
  m.ok = r.boolean(j, "ok", path);
  m.error = r.text(j, "error", path);
  m.median_s = r.number(j, "median_s", path);
  m.min_s = r.number(j, "min_s", path);
  m.max_s = r.number(j, "max_s", path);
  const Json& runs = r.array(j, "runs_s", path);
  for (std::size_t i = 0; i < runs.size(); ++i) {
    if (!runs[i].is_number()) r.fail(path + ".runs_s[" + std::to_string(i) + "]", "must be a number");
    m.runs_s.push_back(runs[i].get<double>());
  }
  m.warmup_runs = r.small_integer(j, "warmup_runs", path);
  m.verified = r.boolean(j, "verified", path);
  if (m.ok && m.median_s <= 0) r.fail(path + ".median_s", "must be > 0 when ok");
  return m;
}

Record read_record(const Reader& r, const Json& j, const std::string& path) {
  Record rec{read_query(r, j, path), read_measurement(r, j, path)};
  const std::string key = r.text(j, "key", path);
  if (key != measurement_key(rec.query))
    r.fail(path + ".key", "'" + key + "' does not match its parameters ('" +
                              measurement_key(rec.query) + "')");
  return rec;
}

RawProvenance read_provenance(const Reader& r, const Json& j) {
  const std::string path = "provenance";
  RawProvenance p;
  p.backend = r.text(j, "backend", path);
  p.device = r.text(j, "device", path);
  p.gpus = r.small_integer(j, "gpus", path);
  p.compute_units = r.small_integer(j, "compute_units", path);
  for (const auto& [component, version] : r.member(j, "versions", path).items()) {
    if (!version.is_string()) r.fail(path + ".versions." + component, "must be a string");
    p.versions[component] = version.get<std::string>();
  }
  for (const Json& note : r.array(j, "notes", path)) {
    if (!note.is_string()) r.fail(path + ".notes", "must be a list of strings");
    p.notes.push_back(note.get<std::string>());
  }
  p.git_sha = r.text(j, "git_sha", path);
  p.date = r.text(j, "date", path);
  p.command = r.text(j, "command", path);
  p.c3advisor_version = r.text(j, "c3advisor_version", path);
  return p;
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
  Json doc;
  try {
    doc = Json::parse(json_text);
  } catch (const Json::parse_error& e) {
    r.fail("", std::string("not valid JSON: ") + e.what());
  }
  if (r.integer(doc, "schema_version", "") != io::kSchemaVersion)
    r.fail("schema_version", "unsupported (this build reads " + std::to_string(io::kSchemaVersion) + ")");
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
  const std::string tmp = path + ".tmp";
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    out << raw_measurements_json(raw);
    out.flush();
    if (!out) throw Error("cannot write " + tmp);
  }
  std::error_code ec;
  std::filesystem::rename(tmp, path, ec);
  if (ec) throw Error("cannot rename " + tmp + " to " + path + ": " + ec.message());
}

}  // namespace c3::validator
