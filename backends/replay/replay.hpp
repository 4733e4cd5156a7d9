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

/// The files of a replay backend's argument, split on '+': "a.json+b.json" -> {a.json, b.json};
/// "a.json" -> {a.json}. Throws InputError naming `arg` when it is empty or has an empty part
/// ("a.json++b.json", a leading or trailing '+').
std::vector<std::string> replay_files(const std::string& arg);

/// One set of measurements from `files`, the same scenarios measured once per process
/// (`names[i]` names files[i] in errors and in the provenance). Records are merged by
/// measurement_key, in the order each key first appears. For each key, over the files where
/// its measurement is ok: median_s is the median of their median_s (median_of: the mean of
/// the middle two for an even count), min_s the least min_s, max_s the greatest max_s,
/// runs_s their median_s in file order (so that median_of(runs_s) == median_s), verified
/// when every one was; warmup_runs, gemm_kernel and host_launch_s are the first ok file's;
/// no timeline. A key that only some files have is the median over those that have it; a key
/// ok in none keeps the failed measurement (its error) of the first file that has it.
/// Provenance: the first file's, with a note naming the files; peers: those of the first
/// file that has any. Throws ConfigError naming the file and record for a key twice in one
/// file (as the replay backend does), InputError when `files` is empty or `names` is not
/// one name per file.
RawMeasurements median_over_processes(std::vector<RawMeasurements> files,
                                      const std::vector<std::string>& names);

/// The measurements a replay of `arg` answers from: one file (load_raw_measurements, as
/// recorded), or the files of "A+B[+C...]" loaded and merged by median_over_processes.
/// Throws InputError for a bad `arg` (replay_files), ConfigError for a bad file.
RawMeasurements load_replay_files(const std::string& arg);

}  // namespace c3::validator
