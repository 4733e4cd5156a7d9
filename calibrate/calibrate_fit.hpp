// calibrate/calibrate_fit.hpp: turning calibration measurements into a profile
// (docs/calibration.md, "How each value is fitted"). Every fit takes only the
// measurements that succeeded; what it had to skip it says in `notes`.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "c3/profile.hpp"
#include "calibrate/calibrate_plan.hpp"
#include "io/query.hpp"

namespace c3::validator {

/// The median time of a query's successful measurement; nullopt if it failed or is absent.
using MeasuredFn = std::function<std::optional<double>(const Query&)>;

/// A concurrent measurement of the interference phase, with the class of its GEMM.
struct InterferencePoint {
  ConcurrentQuery query;
  GemmClass gemm_class = GemmClass::compute_bound;
};

/// Fits, into `hw`: peak efficiency, HBM and link bandwidth, memory efficiency, the
/// GEMM and collective slowdown tables, and each collective's alpha-beta parameters
/// and curve. Values it cannot fit keep what `hw` had. Every fitted value's source
/// is `source`.
void fit_isolated(HardwareProfile& hw, const CalibrationPlan& plan, const MeasuredFn& measured,
                  const Provenance& source, std::vector<std::string>& notes);

/// The size-sweep fit of fit_isolated for one kind and transport, from its times at
/// `sizes_bytes` (increasing) at `ranks` ranks: collectives.KIND.TRANSPORT's bus bandwidth
/// (least squares over the largest third of the sizes, at least 2), latency (mean of time
/// - wire / bandwidth over the smallest third) and curve (made non-decreasing in size).
/// Returns false, with a note, and leaves the bandwidth, latency and curve as they were when
/// fewer than 3 sizes were measured or the time does not grow with size.
bool fit_collective_sweep(HardwareProfile& hw, CollectiveKind kind, Transport t, int ranks,
                          const std::vector<std::int64_t>& sizes_bytes, const MeasuredFn& measured,
                          const Provenance& source, std::vector<std::string>& notes);

/// The interference pairs for `hw` (after fit_isolated): per GEMM class, an
/// all-gather sized to plan.interference_ratios times the GEMM's measured time,
/// under each of kInterferenceStrategies that `hw` can model.
std::vector<InterferencePoint> interference_points(const HardwareProfile& hw,
                                                   const CalibrationPlan& plan,
                                                   const MeasuredFn& measured,
                                                   std::vector<std::string>& notes);

/// Fits the interference factors (per transport and GEMM class, alternating 1-D
/// least-squares fits of the GEMM's and the collective's slowdown) and then
/// gemm_first_delay_factor, by solving strategies::predicted_time_s against the
/// measured concurrent times.
void fit_interference(HardwareProfile& hw, const std::vector<InterferencePoint>& points,
                      const MeasuredFn& measured, const Provenance& source,
                      std::vector<std::string>& notes);

/// Fits launch_s from launch_queries(plan): per tiny pair, the value that makes
/// strategies::predicted_time_s match its measurement; then, per transport, the median over
/// the kinds, given to every kind of that transport. A transport without any usable pair
/// keeps what `hw` had.
void fit_launch(HardwareProfile& hw, const CalibrationPlan& plan, const MeasuredFn& measured,
                const Provenance& source, std::vector<std::string>& notes);

/// Argument of the minimum of `f` on [lo, hi] by golden-section search (f unimodal).
double minimize_1d(const std::function<double(double)>& f, double lo, double hi);

}  // namespace c3::validator
