// backends/device/runner.hpp: one measurement's runs, vendor-neutral: warm-up runs, then
// measured runs, each timed by the vendor (timing.hpp); with checks on, the first and the
// last run are preceded by poisoning the outputs and followed by checking them, and a
// mismatch ends the measurement as "verification_failed". The GPU backends time every
// measurement (GEMM, collective, pair, dependent pair, copy) through run_measurement.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "c3/validator.hpp"

namespace c3::device {

/// One timed run: device time (events, max over GPUs) and host time (first launch call to
/// observed completion), seconds.
struct RunTime {
  double device_s = 0;
  double host_s = 0;
};

/// What one measurement runs.
struct RunHooks {
  std::function<RunTime()> run;                       ///< one timed run (required)
  std::function<void()> poison;                       ///< before a checked run (may be empty)
  std::function<std::int64_t(std::string*)> verify;   ///< after a checked run: mismatches (empty: none)
  /// Once before every other run, its time not kept (may be empty): a gated backend's run
  /// without the gate, so that the one-time host work of a new shape (allocations, plan
  /// choices that synchronize) never waits behind a blocking kernel (timing.hpp).
  std::function<void()> prime;
};

/// What the runs left beside the Measurement.
struct RunLog {
  std::vector<double> host_runs_s;  ///< host time of every measured run
  std::int64_t mismatches = 0;      ///< summed over the checked runs
};

/// Runs hooks.prime when set, then cfg.warmup_runs + cfg.measured_runs runs of `hooks.run`; when `check` and
/// hooks.verify are set, the first and last runs are checked. Returns the measured runs'
/// summary (verified when a check ran), or a failed Measurement: "verification_failed: N
/// mismatching elements (first)" or a Failure's what() (the runs measured so far kept).
/// Exceptions other than Failure propagate (guarded() names them).
Measurement run_measurement(const RunHooks& hooks, const RunConfig& cfg, bool check, RunLog& log);

}  // namespace c3::device
