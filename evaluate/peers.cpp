// evaluate/peers.cpp: a framework's own runs of dependent pairs (RawMeasurements::peers,
// scripts/gpu-jobs/async_tp.py) set beside the advisor's pick and serial (c3/evaluate.hpp,
// docs/accuracy.md "Peers").
#include <cmath>

#include "c3/evaluate.hpp"

namespace c3::validator {

std::optional<double> measured_serial_s(const ScenarioResult& scenario) {
  for (const StrategyResult& r : scenario.strategies)
    if (r.strategy.kind == StrategyKind::serial) return r.measured_s;
  return std::nullopt;
}

void attach_peers(AccuracyReport& report, const RawMeasurements& raw) {
  struct Sums {
    PeerSummary summary;
    double pick_log = 0;
    double serial_log = 0;
  };
  std::vector<Sums> sums;  // by implementation, in order of first appearance
  const auto sums_of = [&](const std::string& implementation) -> Sums& {
    for (Sums& s : sums)
      if (s.summary.implementation == implementation) return s;
    sums.push_back({});
    sums.back().summary.implementation = implementation;
    return sums.back();
  };
  for (ScenarioResult& s : report.scenarios) {
    s.peers.clear();
    for (const PeerRecord& p : raw.peers) {
      if (!peer_of(p, s.pair)) continue;
      s.peers.push_back(p);
      Sums& sum = sums_of(p.implementation);
      if (!p.measurement.ok) continue;
      const double peer_s = p.measurement.median_s;
      ++sum.summary.scenarios;
      sum.pick_log += std::log(s.pick_result().measured_s / peer_s);
      if (const std::optional<double> serial_s = measured_serial_s(s)) {
        ++sum.summary.serial_scenarios;
        sum.serial_log += std::log(*serial_s / peer_s);
      }
    }
  }
  report.peers.clear();
  for (Sums& s : sums) {
    if (s.summary.scenarios > 0) s.summary.pick_geomean_vs_peer = std::exp(s.pick_log / s.summary.scenarios);
    if (s.summary.serial_scenarios > 0)
      s.summary.serial_geomean_vs_peer = std::exp(s.serial_log / s.summary.serial_scenarios);
    report.peers.push_back(s.summary);
  }
}

}  // namespace c3::validator
