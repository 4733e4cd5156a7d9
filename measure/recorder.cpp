// The measuring loop shared by calibrate and measure (measure/recorder.hpp).
#include "measure/recorder.hpp"

#include <filesystem>

#include "c3/errors.hpp"
#include "io/query.hpp"

namespace c3::validator {

Recorder::Recorder(Validator& validator, RawMeasurements raw, std::string raw_path,
                   ProgressFn progress, std::size_t total)
    : validator_(validator),
      raw_(std::move(raw)),
      raw_path_(std::move(raw_path)),
      progress_(std::move(progress)),
      total_(total) {
  for (std::size_t i = 0; i < raw_.records.size(); ++i)
    position_[measurement_key(raw_.records[i].query)] = i;
}

void Recorder::measure(const Query& query) {
  const std::string key = measurement_key(query);
  const auto it = position_.find(key);
  if (it != position_.end() && raw_.records[it->second].measurement.ok) {
    report(query, raw_.records[it->second].measurement, true);
    return;
  }
  Record record{query, run_recorded(query)};
  if (it != position_.end()) {
    raw_.records[it->second] = record;
  } else {
    position_[key] = raw_.records.size();
    raw_.records.push_back(record);
  }
  if (!raw_path_.empty()) save_raw_measurements(raw_path_, raw_);
  report(query, record.measurement, false);
}

std::optional<double> Recorder::median(const Query& query) const {
  const auto it = position_.find(measurement_key(query));
  if (it == position_.end() || !raw_.records[it->second].measurement.ok) return std::nullopt;
  return raw_.records[it->second].measurement.median_s;
}

Measurement Recorder::run_recorded(const Query& query) {
  try {
    return run(validator_, query);
  } catch (const Error& e) {
    Measurement failed;
    failed.error = e.what();
    return failed;
  }
}

void Recorder::report(const Query& query, const Measurement& m, bool resumed) {
  ++done_;
  if (progress_) progress_(Step{done_, total_, describe(query), m, resumed});
}

RawMeasurements starting_records(bool resume, const std::string& path, const RawProvenance& now) {
  RawMeasurements raw;
  raw.provenance = now;
  if (!resume || !std::filesystem::exists(path)) return raw;
  RawMeasurements previous = load_raw_measurements(path);
  if (previous.provenance.backend != now.backend || previous.provenance.device != now.device)
    throw InputError("--resume: " + path + " was measured with backend '" +
                     previous.provenance.backend + "' on '" + previous.provenance.device +
                     "', not '" + now.backend + "' on '" + now.device + "'");
  raw.records = std::move(previous.records);
  raw.peers = std::move(previous.peers);  // a framework's runs of the same pairs (async_tp.py)
  return raw;
}

}  // namespace c3::validator
