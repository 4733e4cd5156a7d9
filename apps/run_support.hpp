// apps/run_support.hpp: what the measuring subcommands (calibrate, measure)
// share: provenance of a run, progress lines, atomic file writes.
#pragma once

#include <string>

#include "measure/recorder.hpp"

namespace c3::apps {

/// $C3_GIT_SHA if set, else `git rev-parse HEAD` of the working directory, else "".
std::string git_sha();
/// Now, as 2026-11-21T22:25:00Z.
std::string utc_now();
/// "1.234 ms" or "56.7 us".
std::string format_time(double seconds);
/// One progress line on stderr: "[12/87] collective all_gather 64MiB cu ... 1.234 ms".
void print_step(const validator::Step& step);
/// How many records of `raw` failed.
std::size_t count_failed(const validator::RawMeasurements& raw);
/// Writes `text` to `path` through a temporary file and a rename. Throws c3::Error.
void write_file(const std::string& path, const std::string& text);

}  // namespace c3::apps
