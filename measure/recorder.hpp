// measure/recorder.hpp: runs queries on a Validator, keeps every record in
// order, saves the raw-measurements file after each new one and reuses the
// successful records of a resumed file. Shared by `calibrate` and `measure`.
#pragma once

#include <cstddef>
#include <functional>
#include <map>
#include <optional>
#include <string>

#include "c3/measure.hpp"
#include "c3/validator.hpp"

namespace c3::validator {

class Recorder {
 public:
  /// `raw_path` empty: nothing is saved. `total` is only for progress lines.
  Recorder(Validator& validator, RawMeasurements raw, std::string raw_path, ProgressFn progress,
           std::size_t total);

  /// A successful record is reused; a failed or missing one is measured (again).
  /// A backend's c3::Error becomes a failed record, never an exception.
  void measure(const Query& query);

  /// The median of a successful record, if any.
  std::optional<double> median(const Query& query) const;

  const RawMeasurements& raw() const { return raw_; }

 private:
  Measurement run_recorded(const Query& query);
  void report(const Query& query, const Measurement& m, bool resumed);

  Validator& validator_;
  RawMeasurements raw_;
  std::string raw_path_;
  ProgressFn progress_;
  std::size_t total_ = 0;
  std::size_t done_ = 0;
  std::map<std::string, std::size_t> position_;
};

/// The records (and peer entries) to resume from: `path`'s when `resume` and the file
/// exists, after checking it was measured on the same backend and device as `now`. Throws
/// InputError otherwise.
RawMeasurements starting_records(bool resume, const std::string& path, const RawProvenance& now);

}  // namespace c3::validator
