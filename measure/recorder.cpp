// The measuring loop shared by calibrate and measure (measure/recorder.hpp).
#include "measure/recorder.hpp"

#include <filesystem>

#include "c3/errors.hpp"
#include "c3/io.hpp"
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

bool Recorder::reuse(const Query& query) {
  const auto it = position_.find(measurement_key(query));
  if (it == position_.end() || !raw_.records[it->second].measurement.ok) return false;
  report(query, raw_.records[it->second].measurement, true);
  return true;
}

void Recorder::store(const Query& query, const Measurement& m) {
  const std::string key = measurement_key(query);
  const auto it = position_.find(key);
  if (it != position_.end()) {
    raw_.records[it->second] = Record{query, m};
  } else {
    position_[key] = raw_.records.size();
    raw_.records.push_back(Record{query, m});
  }
}

void Recorder::measure(const Query& query) {
  if (reuse(query)) return;
  const Measurement m = run_recorded(query);
  store(query, m);
  if (!raw_path_.empty()) save_raw_measurements(raw_path_, raw_);
  report(query, m, false);
}

void Recorder::measure_rounds(const std::vector<Query>& group, int rounds) {
  const RunConfig whole = validator_.run_config();
  const RunConfig part = round_config(whole, rounds);  // InputError for rounds < 1
  std::vector<std::size_t> todo;
  for (std::size_t i = 0; i < group.size(); ++i)
    if (!reuse(group[i])) todo.push_back(i);
  if (todo.empty()) return;
  std::vector<std::vector<Measurement>> done(todo.size());
  {
    struct Restore {
      Validator& v;
      RunConfig config;
      ~Restore() { v.set_run_config(config); }
    } restore{validator_, whole};
    validator_.set_run_config(part);
    for (int r = 0; r < rounds; ++r)
      for (std::size_t j = 0; j < todo.size(); ++j) {
        const std::size_t t = (j + static_cast<std::size_t>(r)) % todo.size();
        if (!done[t].empty() && !done[t].back().ok) continue;  // failed in an earlier round
        done[t].push_back(run_recorded(group[todo[t]]));
      }
  }
  std::vector<Measurement> merged;
  for (std::size_t t = 0; t < todo.size(); ++t) {
    Measurement m = merge_rounds(done[t]);
    if (!m.ok && done[t].size() < static_cast<std::size_t>(rounds))
      m.error += " (" + std::to_string(rounds - static_cast<int>(done[t].size())) + " later rounds not run)";
    store(group[todo[t]], m);
    merged.push_back(std::move(m));
  }
  if (!raw_path_.empty()) save_raw_measurements(raw_path_, raw_);
  for (std::size_t t = 0; t < todo.size(); ++t) report(group[todo[t]], merged[t], false);
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

void require_resume_or_overwrite(const std::string& path, bool resume, bool overwrite,
                                 const std::string& option) {
  if (!resume && !overwrite)
    io::require_no_earlier_data(
        path, option, "--resume keeps what it holds and measures the rest, --overwrite replaces it");
}

RawMeasurements starting_records(bool resume, bool overwrite, const std::string& path,
                                 const std::string& option, const RawProvenance& now) {
  require_resume_or_overwrite(path, resume, overwrite, option);
  RawMeasurements raw;
  raw.provenance = now;
  if (!resume || io::data_bytes(path) == 0) return raw;  // nothing yet to resume (a missing or empty file)
  RawMeasurements previous = load_raw_measurements(path);
  if (previous.provenance.backend != now.backend || previous.provenance.device != now.device)
    throw InputError("--resume: " + path + " was measured with backend '" +
                     previous.provenance.backend + "' on '" + previous.provenance.device +
                     "', not '" + now.backend + "' on '" + now.device + "'");
  // The copy-engine transport must be the same implementation (none named: the backend's default).
  const auto variant = [](const RawProvenance& p) {
    for (const std::string& note : p.notes)
      if (note.rfind("dma variant: ", 0) == 0) return note.substr(13);
    return std::string("the backend's default");
  };
  if (variant(previous.provenance) != variant(now))
    throw InputError("--resume: " + path + " was measured with dma variant '" + variant(previous.provenance) +
                     "', not '" + variant(now) + "'");
  raw.records = std::move(previous.records);
  raw.peers = std::move(previous.peers);  // a framework's runs of the same pairs (async_tp.py)
  return raw;
}

}  // namespace c3::validator
