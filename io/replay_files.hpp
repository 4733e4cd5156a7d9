// io/replay_files.hpp: one ground truth from several processes' measurement files of the
// same scenarios, the median over them ("A.json+B.json+C.json": less run-to-run noise than one
// process). What `validate --backend replay:A+B+C` answers from (backends/replay) and what
// `calibrate --hedge-pairs A+B+C` fits to.
#pragma once

#include <string>
#include <vector>

#include "c3/measurements.hpp"

namespace c3::validator {

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

/// "A, B, C": names joined for notes and messages.
std::string joined_names(const std::vector<std::string>& names);

}  // namespace c3::validator
