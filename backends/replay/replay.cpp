// The `replay` backend (backends/replay/replay.hpp).
#include "backends/replay/replay.hpp"

#include <algorithm>
#include <map>

#include "c3/errors.hpp"
#include "io/query.hpp"

namespace c3::validator {
namespace {

class ReplayValidator final : public Validator {
 public:
  ReplayValidator(RawMeasurements raw, std::string origin, std::string median_note)
      : provenance_(std::move(raw.provenance)),
        origin_(std::move(origin)),
        median_note_(std::move(median_note)) {
    for (std::size_t i = 0; i < raw.records.size(); ++i) {
      Record& r = raw.records[i];
      const std::string key = measurement_key(r.query);
      if (!by_key_.emplace(key, std::move(r.measurement)).second)
        throw ConfigError(origin_, 0, "records[" + std::to_string(i) + "].key",
                          "duplicate measurement '" + key + "'");
    }
  }

 private:
  Capabilities do_capabilities() const override {
    Capabilities caps;
    caps.backend = "replay";
    caps.device = provenance_.device;
    caps.gpus = provenance_.gpus;
    caps.compute_units = provenance_.compute_units;
    caps.versions = provenance_.versions;
    caps.strategies = strategies::all_kinds();  // whatever was recorded
    caps.notes = {"replays " + origin_ + " (measured by backend '" + provenance_.backend + "')"};
    if (!median_note_.empty()) caps.notes.push_back(median_note_);
    // The dma implementation the file was measured with (calibrate and measure note it as
    // "dma variant: NAME"): the only one a replay can answer for.
    constexpr std::string_view kVariantNote = "dma variant: ";
    for (const std::string& note : provenance_.notes)
      if (note.rfind(kVariantNote, 0) == 0) caps.dma_variants = {note.substr(kVariantNote.size())};
    return caps;
  }

  Measurement do_gemm(const Gemm& g, int cus_removed) override {
    return lookup(GemmQuery{g, cus_removed});
  }
  Measurement do_collective(const Collective& c, Transport transport, int cus) override {
    return lookup(CollectiveQuery{c, transport, cus});
  }
  Measurement do_concurrent(const C3Pair& pair, const Strategy& s) override {
    return lookup(ConcurrentQuery{pair.gemm, pair.collective, s, pair.dependency});
  }
  Measurement do_copy(CopyPath path, std::int64_t size_bytes) override {
    return lookup(CopyQuery{path, size_bytes});
  }

  Measurement lookup(const Query& query) const {
    const std::string key = measurement_key(query);
    const auto it = by_key_.find(key);
    if (it != by_key_.end()) return it->second;
    Measurement missing;
    missing.error = "replay: no measurement '" + key + "' in " + origin_;
    return missing;
  }

  RawProvenance provenance_;
  std::string origin_;
  std::string median_note_;  // several files: how they are merged ("" for one file)
  std::map<std::string, Measurement> by_key_;
};

// "A, B, C": the files of a replay, in order.
std::string joined(const std::vector<std::string>& names) {
  std::string out;
  for (const std::string& n : names) out += (out.empty() ? "" : ", ") + n;
  return out;
}

// The merge of one key's measurements, one per file that has it, in file order (not empty).
Measurement median_of_measurements(const std::vector<const Measurement*>& measured) {
  std::vector<const Measurement*> ok;
  for (const Measurement* m : measured)
    if (m->ok) ok.push_back(m);
  if (ok.empty()) return *measured.front();  // failed everywhere: the first file's error
  Measurement out;
  out.ok = true;
  out.min_s = ok.front()->min_s;
  out.max_s = ok.front()->max_s;
  out.verified = true;
  for (const Measurement* m : ok) {
    out.runs_s.push_back(m->median_s);
    out.min_s = std::min(out.min_s, m->min_s);
    out.max_s = std::max(out.max_s, m->max_s);
    out.verified = out.verified && m->verified;
  }
  out.median_s = median_of(out.runs_s);
  out.warmup_runs = ok.front()->warmup_runs;
  out.gemm_kernel = ok.front()->gemm_kernel;
  out.host_launch_s = ok.front()->host_launch_s;
  return out;
}

}  // namespace

std::vector<std::string> replay_files(const std::string& arg) {
  if (arg.empty()) throw InputError("replay needs a measurements file: --backend replay:FILE");
  std::vector<std::string> files;
  std::size_t start = 0;
  while (true) {
    const std::size_t plus = arg.find('+', start);
    const std::string part = arg.substr(start, plus == std::string::npos ? std::string::npos : plus - start);
    if (part.empty())
      throw InputError("replay:" + arg +
                       ": an empty file name (expected replay:FILE or replay:FILE1+FILE2[+FILE3...])");
    files.push_back(part);
    if (plus == std::string::npos) return files;
    start = plus + 1;
  }
}

RawMeasurements median_over_processes(std::vector<RawMeasurements> files,
                                      const std::vector<std::string>& names) {
  if (files.empty() || names.size() != files.size())
    throw InputError("median_over_processes needs one name per file and at least one file (got " +
                     std::to_string(files.size()) + " files, " + std::to_string(names.size()) + " names)");
  // Each key's record in each file that has it (a key twice in one file is refused).
  std::vector<std::string> order;
  std::map<std::string, std::vector<const Record*>> by_key;
  for (std::size_t f = 0; f < files.size(); ++f) {
    std::map<std::string, std::size_t> seen;
    for (std::size_t i = 0; i < files[f].records.size(); ++i) {
      const Record& r = files[f].records[i];
      const std::string key = measurement_key(r.query);
      if (!seen.emplace(key, i).second)
        throw ConfigError(names[f], 0, "records[" + std::to_string(i) + "].key",
                          "duplicate measurement '" + key + "'");
      std::vector<const Record*>& records = by_key[key];
      if (records.empty()) order.push_back(key);
      records.push_back(&r);
    }
  }
  RawMeasurements out;
  out.provenance = files.front().provenance;
  out.provenance.notes.push_back("replay: the median over " + std::to_string(files.size()) +
                                 " processes' files: " + joined(names));
  for (const RawMeasurements& f : files)
    if (!f.peers.empty()) {
      out.peers = f.peers;
      break;
    }
  for (const std::string& key : order) {
    const std::vector<const Record*>& records = by_key.at(key);
    std::vector<const Measurement*> measured;
    for (const Record* r : records) measured.push_back(&r->measurement);
    out.records.push_back({records.front()->query, median_of_measurements(measured)});
  }
  return out;
}

RawMeasurements load_replay_files(const std::string& arg) {
  const std::vector<std::string> names = replay_files(arg);
  if (names.size() == 1) return load_raw_measurements(names.front());
  std::vector<RawMeasurements> files;
  for (const std::string& name : names) files.push_back(load_raw_measurements(name));
  return median_over_processes(std::move(files), names);
}

std::unique_ptr<Validator> make_replay_validator(RawMeasurements raw, const std::string& origin,
                                                 const std::vector<std::string>& files) {
  const std::string note = files.size() < 2 ? std::string()
                                            : kReplayMedianNote + std::to_string(files.size()) +
                                                  " files: " + joined(files) +
                                                  " (each measurement: the median of the files' medians)";
  return std::make_unique<ReplayValidator>(std::move(raw), origin, note);
}

std::unique_ptr<Validator> make_replay_validator(const std::string& arg, const HardwareProfile&) {
  return make_replay_validator(load_replay_files(arg), arg, replay_files(arg));
}

}  // namespace c3::validator

namespace c3::backends {

/// Called by c3::register_builtin_backends() (backends/replay/CMakeLists.txt).
void register_replay() {
  register_backend("replay", [](const std::string& arg, const HardwareProfile& hw) {
    return validator::make_replay_validator(arg, hw);
  });
}

}  // namespace c3::backends
