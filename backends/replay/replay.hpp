// backends/replay/replay.hpp: the `replay` backend answers from a raw-measurements file
// (io/raw_measurements.hpp), such as the one `calibrate` writes or one
// recorded on real GPUs, so that accuracy checks can run without hardware; or from several
// files of the same scenarios, each measured in its own process, as the median over them
// ("replay:A.json+B.json+C.json": a ground truth with less run-to-run noise than one process).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "c3/profile.hpp"
#include "c3/validator.hpp"
#include "io/raw_measurements.hpp"
#include "io/replay_files.hpp"

namespace c3::validator {

/// A replay backend over `raw`; `origin` names the source in errors. A query with no
/// record gives a failed Measurement naming its key and the origin. `files`: those merged
/// into `raw` by median_over_processes, named in the capabilities' notes when more than one
/// (kReplayMedianNote, c3/measurements.hpp). Throws ConfigError if two records have the same key.
std::unique_ptr<Validator> make_replay_validator(RawMeasurements raw, const std::string& origin,
                                                 const std::vector<std::string>& files = {});
/// The registry's factory: `arg` is the file, or several joined by '+' (load_replay_files).
/// Throws InputError without one.
std::unique_ptr<Validator> make_replay_validator(const std::string& arg, const HardwareProfile& hw);

}  // namespace c3::validator
