// backends/replay/replay.hpp: the `replay` backend answers from a raw-measurements file
// (io/raw_measurements.hpp), such as the one `calibrate` writes or one
// recorded on real GPUs, so that accuracy checks can run without hardware.
#pragma once

#include <memory>
#include <string>

#include "c3/profile.hpp"
#include "c3/validator.hpp"
#include "io/raw_measurements.hpp"

namespace c3::validator {

/// A replay backend over `raw`; `origin` names the source in errors. A query with no
/// record gives a failed Measurement naming its key and the origin. Throws
/// ConfigError if two records have the same key.
std::unique_ptr<Validator> make_replay_validator(RawMeasurements raw, const std::string& origin);
/// The registry's factory: `arg` is the file. Throws InputError without one.
std::unique_ptr<Validator> make_replay_validator(const std::string& arg, const HardwareProfile& hw);

}  // namespace c3::validator
