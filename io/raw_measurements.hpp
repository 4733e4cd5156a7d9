// io/raw_measurements.hpp: the raw-measurements JSON that `calibrate`
// writes after every measurement and the replay backend answers from.
//
// { "schema_version": 1,
//   "provenance": {backend, device, gpus, compute_units, versions{}, notes[], git_sha, date,
//                  command, c3advisor_version},
//   "records": [ {key, what, <the query's parameters>, ok, error, median_s, min_s, max_s,
//                 runs_s[], warmup_runs, verified} ] }
//
// Parameters by `what`: gemm: m n k dtype cus_removed; collective: kind size_bytes ranks
// transport cus; concurrent: m n k dtype kind size_bytes ranks strategy; copy: path
// size_bytes. `key` is measurement_key() of those parameters and is checked on load.
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "c3/validator.hpp"
#include "io/query.hpp"

namespace c3::validator {

/// Where a set of measurements comes from.
struct RawProvenance {
  std::string backend;
  std::string device;
  int gpus = 0;
  int compute_units = 0;
  std::map<std::string, std::string> versions;
  std::vector<std::string> notes;
  std::string git_sha;
  std::string date;
  std::string command;
  std::string c3advisor_version;
  friend bool operator==(const RawProvenance&, const RawProvenance&) = default;
};

struct Record {
  Query query;
  Measurement measurement;
};

struct RawMeasurements {
  RawProvenance provenance;
  std::vector<Record> records;
};

/// Provenance from a backend's capabilities (git sha, date and command left empty).
RawProvenance provenance_of(const Capabilities& caps);

/// Parses the JSON text; `origin` (a path) names it in ConfigErrors, with the key path
/// of the bad field ("records[3].size_bytes").
RawMeasurements parse_raw_measurements(std::string_view json_text, const std::string& origin);
/// Reads a file. Throws ConfigError, also when it cannot be read.
RawMeasurements load_raw_measurements(const std::string& path);
/// The JSON text (pretty-printed, records in order).
std::string raw_measurements_json(const RawMeasurements& raw);
/// Writes `path` atomically (io::write_file: a temporary file beside it, fsync, then a
/// rename). Throws c3::Error naming `path` when it cannot be written.
void save_raw_measurements(const std::string& path, const RawMeasurements& raw);

}  // namespace c3::validator
