// measure/recorder.hpp: runs queries on a Validator, keeps every record in
// order, saves the raw-measurements file after each new one and reuses the
// successful records of a resumed file. Shared by `calibrate` and `measure`.
#pragma once

#include <cstddef>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

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

  /// The queries of one pair in `rounds` rounds (MeasureOptions::rounds): those without a
  /// successful record are measured round after round under round_config (the validator's
  /// run config is restored after), each round rotated by one, and recorded as merge_rounds
  /// of their rounds. A query that fails in a round is not run in later ones. Saved once the
  /// pair's rounds are done: a run killed inside a pair measures that pair again on resume.
  void measure_rounds(const std::vector<Query>& group, int rounds);

  /// The median of a successful record, if any.
  std::optional<double> median(const Query& query) const;

  const RawMeasurements& raw() const { return raw_; }

 private:
  Measurement run_recorded(const Query& query);
  bool reuse(const Query& query);  ///< reports and returns true for a successful record
  void store(const Query& query, const Measurement& m);
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
/// InputError otherwise, and where neither `resume` nor `overwrite` is set and `path`
/// already holds data (io::require_no_earlier_data; `option` names it in the message).
RawMeasurements starting_records(bool resume, bool overwrite, const std::string& path,
                                 const std::string& option, const RawProvenance& now);

}  // namespace c3::validator
