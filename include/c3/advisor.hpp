// c3/advisor.hpp: predicts every strategy for a C3 pair and recommends one;
// the paper's two cheap heuristics; offline planning of a training step.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "c3/model.hpp"
#include "c3/profile.hpp"
#include "c3/strategy.hpp"
#include "c3/types.hpp"

namespace c3 {

/// One strategy's prediction for a pair.
struct StrategyPrediction {
  Strategy strategy;
  int collective_cus = 0;  ///< CUs the collective uses (0 on DMA)
  int gemm_cus = 0;        ///< CUs the GEMM may use
  double predicted_s = 0;
  double speedup = 0;            ///< serial / predicted
  double fraction_of_ideal = 0;  ///< (speedup - 1) / (ideal - 1)
};

/// How sure the recommendation is (advise --json `confidence`).
struct Confidence {
  std::size_t runner_up = 0;  ///< index into Advice::strategies: the fastest other strategy
  double margin = 0;          ///< predicted runner-up time / recommended time - 1 (may be < 0 after a hedge)
  /// The model's expected relative error for the recommended and the runner-up strategies
  /// (the larger of the profile's prediction_error for their kinds; 0: the profile has none;
  /// dependent pairs: the larger of their schedule_error).
  double expected_error = 0;
  /// Dependent pairs: the larger of the two strategies' hedge_error, the margin under which
  /// the advisor hedges (the expected error unless the profile has schedule_hedges for the
  /// pair's family); 0 for an independent pair.
  double hedge_error = 0;
  /// Dependent pairs only (recommend_hedged): the plain pick's margin was inside the hedge
  /// error, and the strategy with the smallest predicted worst case, time x (1 + its hedge
  /// error), is another one: that one is recommended (Advice::reason says so).
  bool hedged = false;
};

struct Advice {
  C3Pair pair;
  model::Isolated isolated;
  model::Taxonomy taxonomy;
  double ideal_speedup = 1;
  std::vector<StrategyPrediction> strategies;  ///< serial first, then base, sp, rp:*, dma, dma_rp:*
  std::size_t recommended = 0;  ///< index into strategies: the simplest within kTieMargin of the fastest
  std::string reason;                          ///< one sentence
  /// Where the prediction extrapolates beyond what the profile measured
  /// (model::domain_warnings); empty inside the profile's domain.
  std::vector<std::string> warnings;
  Confidence confidence;  ///< meaningful when strategies has more than one entry

  const StrategyPrediction& recommendation() const { return strategies.at(recommended); }
};

/// Strategies predicted within this fraction of the fastest count as ties; the
/// simplest of them is recommended (serial, base, sp, dma, rp, dma_rp, in that
/// order): a partition or a copy-engine path must earn its complexity.
inline constexpr double kTieMargin = 0.01;

/// The advisor's rule: the index of the simplest strategy within kTieMargin of
/// the fastest prediction (`predicted_s[i]` is the time of `strategies[i]`).
/// Throws InputError when empty or the sizes differ.
std::size_t recommend(const std::vector<Strategy>& strategies, const std::vector<double>& predicted_s);
/// The same rule with another tie margin (a fraction >= 0): what `validate --cv` fits.
std::size_t recommend(const std::vector<Strategy>& strategies, const std::vector<double>& predicted_s,
                      double tie_margin);

/// The model's expected error of strategy `s` of a dependent pair's predicted ratio to
/// serial (docs/model.md "The recommendation"): 0 for every strategy of an independent pair
/// and for serial (the reference); for a decomposed schedule the profile's
/// prediction_error["chunked"] (the median error of a schedule's predicted ratio to serial
/// over the train pairs; 0 when the profile has none), for one in an SM partition
/// (chunked:C:cu:c) prediction_error[kPartitionedScheduleError] where the profile has it.
double schedule_error(const HardwareProfile& hw, const C3Pair& pair, const Strategy& s);

/// The error the hedge allows strategy `s` of `pair`: the profile's schedule_hedges entry of
/// the pair's family (dependency, collective kind) for a decomposed schedule without a
/// partition where the profile has one, else schedule_error (0 for every strategy of an
/// independent pair: not hedged, on the train split hedging them cost decisions).
double hedge_error(const HardwareProfile& hw, const C3Pair& pair, const Strategy& s);

/// The advisor's whole rule, as advise and validate apply it: recommend(), then, when the
/// runner-up's predicted margin over that pick is inside the larger of the two's
/// `hedge_errors`, recommend() over the predicted worst cases, time x (1 + hedge error).
/// All zeros: recommend(). Throws InputError when empty or the sizes differ.
std::size_t recommend_hedged(const std::vector<Strategy>& strategies, const std::vector<double>& predicted_s,
                             const std::vector<double>& hedge_errors, double tie_margin = kTieMargin);

/// The paper's cheap heuristics, available by name for comparison:
///  "launch_order": launch in increasing workgroup count (sp or base);
///  "cu_split": roofline at 70% scaled by the slowdown tables, the rp split with the
///              lowest max(GEMM, collective).
std::vector<std::string> heuristic_names();

class Advisor {
 public:
  /// Throws InputError if the profile is unusable (no compute units, no peak).
  explicit Advisor(HardwareProfile profile);

  /// Every strategy's predicted time and the fastest. const and thread-safe.
  /// Throws InputError for an invalid pair (zero sizes, ranks < 2), one outside the
  /// profile's domain (more ranks than its node's GPUs; model::domain_warnings), and when
  /// the profile's values make a time or speedup of this pair overflow a double (every
  /// time returned is positive and finite).
  Advice advise(const C3Pair& pair) const;

  /// A named heuristic's pick for `pair`. Throws InputError for an unknown name and for a
  /// dependent pair (the paper's heuristics overlap independent pairs).
  Strategy heuristic(std::string_view name, const C3Pair& pair) const;

  const HardwareProfile& profile() const { return profile_; }

 private:
  HardwareProfile profile_;
};

/// One step of training or inference: pairs with repeat counts.
struct TraceEntry {
  C3Pair pair;
  std::int64_t repeat = 1;  ///< > 0
};
struct Trace {
  std::string name;
  std::string description;
  std::vector<TraceEntry> entries;
  /// `chain: prefetch` in the file: the entries run back to back, each collective launched
  /// while the previous pair still runs (an FSDP prefetch); its independent entries are
  /// C3Pair::chained (docs/model.md §4.6).
  bool prefetch_chain = false;
};

struct PlanEntry {
  TraceEntry entry;
  Advice advice;
};
struct Plan {
  std::vector<PlanEntry> entries;
  double advised_s = 0;  ///< sum of repeat * recommended time
  double serial_s = 0;   ///< sum of repeat * serial time
  double base_s = 0;     ///< sum of repeat * base time
};

/// Advice for every entry and the step's total time under the advice, serial and base.
Plan plan(const Advisor& advisor, const Trace& trace);

}  // namespace c3
