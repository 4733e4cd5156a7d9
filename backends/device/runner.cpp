// backends/device/runner.cpp: one measurement's runs (runner.hpp).
#include "backends/device/runner.hpp"

#include "backends/device/failure.hpp"

#include <optional>
#include <string>
#include <vector>

namespace c3::device {

Measurement run_measurement(const RunHooks& hooks, const RunConfig& cfg, bool check, RunLog& log) {
  const bool checking = check && static_cast<bool>(hooks.verify);
  int warm = 0;
  std::vector<double> runs;
  double warm_s = 0, measured_s = 0;
  bool checked_any = false;
  // One run, poisoned before and verified after when `checked`; its times.
  const auto one = [&](bool checked, std::string* error) -> std::optional<RunTime> {
    if (checked && hooks.poison) hooks.poison();
    const RunTime t = hooks.run();
    if (checked) {
      std::string first;
      const std::int64_t bad = hooks.verify(&first);
      log.mismatches += bad;
      checked_any = true;
      if (bad > 0) {
        *error = "verification_failed: " + std::to_string(bad) + " mismatching elements (" + first + ")";
        return std::nullopt;
      }
    }
    return t;
  };
  std::string error;
  try {
    if (hooks.prime) hooks.prime();
    // Warm-up: its count, then until its time adds up (at most max_runs runs).
    while (warm < cfg.warmup_runs || (warm_s < cfg.min_warmup_s && warm < cfg.max_runs)) {
      const auto t = one(checking && warm == 0, &error);  // the very first run is checked
      if (!t) return failed(error, warm, runs);
      warm_s += t->device_s;
      ++warm;
    }
    // Measured: the first of all (without warm-up) and the last are checked. A run is the last
    // when the count and the time are met before it, or it is the max_runs-th; when the time
    // is met only by a run that was not checked, one more (checked) run follows.
    for (;;) {
      const int n = static_cast<int>(runs.size());
      const bool time_met = measured_s >= cfg.min_time_s;
      const bool last = (n + 1 >= cfg.measured_runs && time_met) || n + 1 >= cfg.max_runs;
      const auto t = one(checking && ((warm == 0 && n == 0) || last), &error);
      if (!t) return failed(error, warm, runs);
      runs.push_back(t->device_s);
      log.host_runs_s.push_back(t->host_s);
      measured_s += t->device_s;
      if (last) break;
      // The count is met and the time too, now: the next run is the last (and checked);
      // unchecked, this one could end the measurement.
      if (!checking && n + 1 >= cfg.measured_runs && measured_s >= cfg.min_time_s) break;
    }
  } catch (const Failure& e) {
    return failed(e.what(), warm, runs);
  }
  return summarize_runs(runs, warm, checked_any);
}

}  // namespace c3::device
