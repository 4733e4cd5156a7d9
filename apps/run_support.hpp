// apps/run_support.hpp: what the measuring subcommands (calibrate, measure,
// bench-collective, validate with a live backend) share: provenance of a run and progress lines.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "c3/measure.hpp"
#include "c3/measurements.hpp"

namespace c3::apps {

/// $C3_GIT_SHA if set, else `git rev-parse HEAD` of the working directory, else "".
std::string git_sha();
/// Now, as 2026-11-21T22:25:00Z.
std::string utc_now();
/// One progress line on stderr: "[12/87] collective all_gather 64MiB cu ... 1.234 ms".
void print_step(const validator::Step& step);
/// "8,16,32": a list option as a command line spells it (provenance).
std::string join_ints(const std::vector<int>& values);
/// `value` as one word of a POSIX shell command line (provenance): unchanged when it holds only
/// letters, digits and `_./:=,@+%-`, else in single quotes (a quote inside as '\'').
std::string shell_word(const std::string& value);
/// How many records of `raw` failed.
std::size_t count_failed(const validator::RawMeasurements& raw);

}  // namespace c3::apps
