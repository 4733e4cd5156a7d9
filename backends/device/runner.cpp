// backends/device/runner.cpp: one measurement's runs (runner.hpp).
#include "backends/device/runner.hpp"

#include "backends/device/failure.hpp"

namespace c3::device {

Measurement run_measurement(const RunHooks& hooks, const RunConfig& cfg, bool check, RunLog& log) {
  const int warm = cfg.warmup_runs;
  const int total = warm + cfg.measured_runs;
  std::vector<double> runs;
  bool checked_any = false;
  try {
    for (int r = 0; r < total; ++r) {
      const bool checked = check && hooks.verify && (r == 0 || r == total - 1);
      if (checked && hooks.poison) hooks.poison();
      const RunTime t = hooks.run();
      if (checked) {
        std::string first;
        const std::int64_t bad = hooks.verify(&first);
        log.mismatches += bad;
        checked_any = true;
        if (bad > 0)
          return failed("verification_failed: " + std::to_string(bad) + " mismatching elements (" + first + ")",
                        warm, runs);
      }
      if (r >= warm) {
        runs.push_back(t.device_s);
        log.host_runs_s.push_back(t.host_s);
      }
    }
  } catch (const Failure& e) {
    return failed(e.what(), warm, runs);
  }
  return summarize_runs(runs, warm, checked_any);
}

}  // namespace c3::device
