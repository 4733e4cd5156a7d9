// io/json_document.hpp: internal helpers shared by the JSON files the validator
// layer reads and writes (raw measurements, collective benchmarks): a checked reader whose
// every error names the file and the key path of the bad field, the provenance block, and
// atomic writes (a temporary file beside the target, then a rename).
#pragma once

#include <cstdint>
#include <limits>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "c3/errors.hpp"
#include "io/raw_measurements.hpp"

namespace c3::validator::json {

using Json = nlohmann::ordered_json;

/// Reads fields of a parsed document; every failure is a ConfigError naming the origin
/// (a path) and the key path of the field ("records[3].size_bytes").
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
    // An integer above INT64_MAX is stored unsigned; get<int64_t> would wrap it.
    if (v.is_number_unsigned() && v.get<std::uint64_t>() > std::uint64_t(std::numeric_limits<std::int64_t>::max()))
      fail(join(path, name), "out of range");
    return v.get<std::int64_t>();
  }

  int small_integer(const Json& obj, const std::string& name, const std::string& path) const {
    const std::int64_t v = integer(obj, name, path);
    if (v < std::numeric_limits<int>::min() || v > std::numeric_limits<int>::max())
      fail(join(path, name), "out of range");
    return static_cast<int>(v);
  }

  /// A count (GPUs, compute units, runs): an int >= 0.
  int count(const Json& obj, const std::string& name, const std::string& path) const {
    const int v = small_integer(obj, name, path);
    if (v < 0) fail(join(path, name), "must be >= 0 (got " + std::to_string(v) + ")");
    return v;
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

/// Json::parse that refuses a key given twice in one object (nlohmann keeps the last one
/// silently): r.fail(KEY_PATH, "duplicate key"), the path spelled as Reader's
/// ("records[3].median_s"). Text that is not JSON throws Json::exception as Json::parse
/// does; each caller words that error. Every JSON file c3advisor reads goes through it.
Json parse_strict(const Reader& r, std::string_view json_text);

/// Parses a whole document (parse_strict) and checks its schema_version
/// (io::kSchemaVersion); failures are ConfigErrors at `r`'s origin.
Json parse_document(const Reader& r, std::string_view json_text);

/// The "provenance" object.
Json provenance_json(const RawProvenance& p);
/// Reads the "provenance" object `j` (key path "provenance").
RawProvenance read_provenance(const Reader& r, const Json& j);

/// A file of one `type` (bench-collective's "collective_bench", "sustained_gemms"):
/// parse_document, its "type" (else a ConfigError: "must be 'TYPE' (WHAT)"), its
/// provenance, and each of its "records" through read(r, record_json, "records[i]").
template <class File, class Read>
File parse_typed_records(const Reader& r, std::string_view json_text, std::string_view type, std::string_view what,
                         Read read) {
  const Json doc = parse_document(r, json_text);
  if (r.text(doc, "type", "") != type)
    r.fail("type", "must be '" + std::string(type) + "' (" + std::string(what) + ")");
  File file;
  file.provenance = read_provenance(r, r.member(doc, "provenance", ""));
  const Json& records = r.array(doc, "records", "");
  for (std::size_t i = 0; i < records.size(); ++i)
    file.records.push_back(read(r, records[i], "records[" + std::to_string(i) + "]"));
  return file;
}

/// A Measurement's fields in the order files write them: ok, error, the median under
/// `median_key` ("median_s" in raw measurements, "time_s" in collective benchmarks),
/// min_s, max_s, runs_s, warmup_runs, verified.
void put_measurement(Json& j, const Measurement& m, const char* median_key);
/// A timeline (Measurement::timeline) as the JSON array of the raw-measurements file:
/// [{stream, rank, index, [peer,] end_s}, ...].
Json timeline_json(const std::vector<TimelineMark>& marks);
/// Reads them back; when ok, the median must be positive and finite, and min, max and
/// every run finite and >= 0.
Measurement read_measurement(const Reader& r, const Json& j, const std::string& path, const char* median_key);

/// io::write_file (c3/io.hpp): `text` to `path` through a temporary file, fsync and a
/// rename. Throws c3::Error naming `path` when it cannot be written.
void write_atomically(const std::string& path, const std::string& text);

}  // namespace c3::validator::json
