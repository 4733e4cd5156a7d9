// The `replay` backend (backends/replay/replay.hpp).
#include "backends/replay/replay.hpp"

#include <algorithm>
#include <map>

#include "c3/errors.hpp"
#include "io/query.hpp"
#include "io/replay_files.hpp"

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

}  // namespace

std::unique_ptr<Validator> make_replay_validator(RawMeasurements raw, const std::string& origin,
                                                 const std::vector<std::string>& files) {
  const std::string note = files.size() < 2 ? std::string()
                                            : kReplayMedianNote + std::to_string(files.size()) +
                                                  " files: " + joined_names(files) +
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
