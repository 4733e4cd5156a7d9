// c3/evaluate.hpp: how good is the advice on measured data? For each pair,
// every measured strategy is predicted by the model and compared with its
// measurement: the oracle (fastest measured), the advisor's pick among the measured
// strategies, its loss against the oracle, prediction errors, and the fraction of the
// ideal speedup each strategy realized (ideal and realized from MEASURED isolated
// times, as the ConCCL paper computes them). The paper's two cheap heuristics are
// scored the same way. docs/accuracy.md describes every metric.
//
// A pure procedure over a Validator: usually `replay:FILE` (recorded measurements),
// or a live backend (sim, cuda) that measures as it goes.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "c3/advisor.hpp"
#include "c3/fractions.hpp"
#include "c3/io.hpp"
#include "c3/measure.hpp"
#include "c3/measurements.hpp"
#include "c3/model.hpp"
#include "c3/types.hpp"
#include "c3/validator.hpp"

namespace c3::validator {

// ---- which strategies were measured ----

/// The strategies to query for one pair.
using StrategySource = std::function<std::vector<Strategy>(const C3Pair&)>;

/// Strategies with a concurrent record for `pair` (same GEMM and collective, the
/// pair's name is ignored) in `raw`, failed records included, in the canonical order:
/// serial, base, sp, rp by CUs, dma, dma_rp by CUs.
std::vector<Strategy> recorded_strategies(const RawMeasurements& raw, const C3Pair& pair);
/// recorded_strategies over `raw` (kept by value).
StrategySource recorded_strategy_source(RawMeasurements raw);
/// What `measure` runs for these options (validator::measured_strategies): for live backends.
StrategySource planned_strategy_source(MeasureOptions options);

/// Why `raw` cannot answer for `pair`: one line per missing or failed isolated
/// measurement, or "no concurrent measurement" when no strategy is recorded.
/// Empty when the pair can be evaluated.
std::vector<std::string> missing_measurements(const RawMeasurements& raw, const C3Pair& pair);

// ---- results ----

/// A decision counts as right when the pick is within this of the oracle.
inline constexpr double kDecisionTolerance = 0.02;

struct StrategyResult {
  Strategy strategy;
  double measured_s = 0;
  std::optional<double> predicted_s;  ///< none when the model cannot predict it
  double speedup = 0;                 ///< measured: (t_g + t_c) / measured_s
  double fraction_of_ideal = 0;       ///< measured: (speedup - 1) / (ideal - 1)
  double fraction_of_fast_ideal = 0;  ///< measured: (speedup - 1) / (fast ideal - 1)
  double loss_vs_oracle = 0;          ///< measured_s / oracle's measured_s - 1
  double hedge_error = 0;             ///< what the advisor's hedge allows it (hedge_error)
  /// Measured: the traced runs' marks (Measurement::timeline; empty where not traced).
  std::vector<TimelineMark> timeline;
  /// Predicted, for a decomposed schedule (chunked:*): when each GEMM job ("gemm") and
  /// step ("collective") of the model's pipeline ends (docs/model.md §7.2), rank 0; empty
  /// for other strategies.
  std::vector<TimelineMark> predicted_timeline;

  /// (predicted - measured) / measured; none without a prediction.
  std::optional<double> prediction_error() const;
};

/// The model's timeline of a decomposed schedule (StrategyResult::predicted_timeline).
/// Throws InputError where the model cannot decompose the pair (model::check_decomposition).
std::vector<TimelineMark> predicted_timeline(const HardwareProfile& hw, const C3Pair& pair, const Strategy& s);

/// A heuristic's pick for one scenario, mapped onto the measured strategies.
struct HeuristicResult {
  std::string name;            ///< "launch_order", "cu_split"
  Strategy advised;            ///< what the heuristic chose
  std::optional<std::size_t> scored;  ///< index into ScenarioResult::strategies; none if unmappable
  std::string note;            ///< how it was mapped, when not as advised
  /// The fastest measured strategy of the kinds the heuristic chooses among
  /// (launch_order: base, sp; cu_split: rp), as the paper scored its heuristics.
  std::optional<std::size_t> family_best;
};

/// The strategy kinds a heuristic chooses among (launch_order: base, sp; cu_split: rp).
std::vector<StrategyKind> heuristic_family(const std::string& name);

struct ScenarioResult {
  C3Pair pair;
  double gemm_s = 0;        ///< measured, all CUs
  double collective_s = 0;  ///< measured, CU transport, library default
  std::optional<double> collective_dma_s;  ///< measured on copy engines where recorded
  model::Isolated predicted_isolated;
  model::Taxonomy taxonomy;  ///< overlap class from the measured times; GEMM/collective class from the model
  double ideal_speedup = 1;  ///< measured
  /// Measured, with the faster transport: (t_g + t_c) / max(t_g, min(t_c, t_dma)).
  double fast_ideal_speedup = 1;
  std::vector<StrategyResult> strategies;  ///< measured ones, canonical order
  std::size_t oracle = 0;                  ///< fastest measured
  std::size_t pick = 0;  ///< the advisor's rule over the measured strategies it offers (recommend_among)
  std::vector<std::size_t> candidates;  ///< the strategies the pick was chosen among
  std::optional<Strategy> advisor_recommendation;  ///< Advisor::advise, over every strategy it knows
  std::vector<HeuristicResult> heuristics;
  std::vector<std::string> notes;
  /// A framework's own runs of this pair from the replay file (attach_peers), in file
  /// order: shown beside the pick, never among the strategies.
  std::vector<PeerRecord> peers;

  const StrategyResult& oracle_result() const { return strategies.at(oracle); }
  const StrategyResult& pick_result() const { return strategies.at(pick); }
  double loss_vs_oracle() const { return pick_result().loss_vs_oracle; }
  bool correct(double tolerance = kDecisionTolerance) const;
};

/// A scenario that could not be evaluated, and why.
struct SkippedScenario {
  C3Pair pair;
  std::string reason;
};

// Mean fractions of ideal over a group of scenarios: GroupFractions (c3/fractions.hpp).
// Keys (columns, in order): "advisor", "oracle", "launch_order", "cu_split", then every
// measured strategy family: "serial", "base", "sp", "rp(best)", "rp:C"..., "dma",
// "dma_rp(best)", "dma_rp:G"...; each averaged over the scenarios where it was measured.

struct HeuristicSummary {
  int scenarios = 0;  ///< scenarios where it could be scored
  double decision_accuracy = 0;  ///< within tolerance of the oracle (every measured strategy)
  double mean_loss_vs_oracle = 0;
  double worst_loss_vs_oracle = 0;
  double mean_fraction_of_ideal = 0;
  /// Within its own family (heuristic_family), as the paper scored it: the share of
  /// scenarios within tolerance of the family's fastest measured strategy, and the loss.
  double family_accuracy = 0;
  double mean_loss_vs_family_best = 0;
  double worst_loss_vs_family_best = 0;
};

// ---- baselines: fixed rules a user could adopt without c3advisor (docs/accuracy.md) ----

/// The strategy every framework runs unless told otherwise: the collective launched first
/// on the collective library's defaults (NCCL/RCCL), `sp`.
inline constexpr StrategyKind kFrameworkDefault = StrategyKind::sp;
/// A pick counts as slower than serial when t(pick) > (1 + kSerialSlack) * t(serial)
/// (issue 12: the advised schedule is never more than 1% slower than serial).
inline constexpr double kSerialSlack = 0.01;

/// One fixed rule scored over the scenarios where its strategy and the framework default
/// were measured, with the advisor's pick scored over the same scenarios.
struct BaselineSummary {
  std::string name;  ///< "always_base", "always_sp", "dma_else_sp", "launch_order", "cu_split"
  std::string rule;  ///< one sentence
  int scenarios = 0;
  double decision_accuracy = 0;  ///< within tolerance of the oracle
  double mean_loss_vs_oracle = 0;
  double worst_loss_vs_oracle = 0;
  /// Geometric mean over the scenarios of t(rule) / t(framework default): below 1 is faster.
  double geomean_vs_default = 0;
  // The advisor on the same scenarios: its margin is these minus (or over) the rule's.
  double advisor_decision_accuracy = 0;
  double advisor_mean_loss_vs_oracle = 0;
  double advisor_worst_loss_vs_oracle = 0;
  double advisor_geomean_vs_default = 0;
};

/// The names of the baselines, in report order.
std::vector<std::string> baseline_names();
/// The measured strategy (index into s.strategies) rule `name` runs for `s`; none when it
/// was not measured (launch_order and cu_split: the heuristic's pick as scored).
std::optional<std::size_t> baseline_pick(const ScenarioResult& s, const std::string& name);
/// Every baseline over `scenarios` (a rule with no scored scenario is left out).
std::vector<BaselineSummary> summarize_baselines(const std::vector<ScenarioResult>& scenarios,
                                                 double tolerance = kDecisionTolerance);

/// A two-sided interval for a share (a decision accuracy), both ends in [0, 1].
struct ShareInterval {
  double low = 0;
  double high = 1;
};

/// z of a two-sided 95% interval of the standard normal distribution.
inline constexpr double kZ95 = 1.959963984540054;

/// Wilson's score interval for `successes` of `trials` independent draws (docs/accuracy.md,
/// "Summary"): with p = successes / trials and n = trials,
///   centre = (p + z²/2n) / (1 + z²/n),  half-width = z·sqrt(p(1 − p)/n + z²/4n²) / (1 + z²/n),
/// clamped to [0, 1]; {0, 1} for no trials. Throws std::invalid_argument when trials < 0,
/// successes is outside [0, trials], or z is not finite and positive.
ShareInterval wilson_interval(int successes, int trials, double z = kZ95);

struct AccuracySummary {
  int scenarios = 0;
  int right = 0;                 ///< scenarios whose pick is within tolerance
  double decision_accuracy = 0;  ///< right / scenarios
  /// Wilson's 95% interval of decision_accuracy, the scenarios taken as independent draws
  /// (pairs measured in one process share its state, so the real uncertainty is wider).
  ShareInterval decision_accuracy_ci95;
  double mean_loss_vs_oracle = 0;
  double worst_loss_vs_oracle = 0;
  int predictions = 0;                ///< strategy times compared
  double prediction_error_median = 0; ///< of |predicted - measured| / measured
  double prediction_error_p90 = 0;
  double prediction_error_max = 0;
  GroupFractions overall;
  std::map<CollectiveKind, GroupFractions> by_collective;
  std::map<model::OverlapClass, GroupFractions> by_overlap;
  std::map<std::string, HeuristicSummary> heuristics;  ///< by heuristic name
  /// Over the scenarios with the framework default measured (kFrameworkDefault): the
  /// geometric mean of t(advisor's pick) / t(default) and of t(oracle) / t(default).
  int default_scenarios = 0;
  double advisor_geomean_vs_default = 0;
  double oracle_geomean_vs_default = 0;
  std::vector<BaselineSummary> baselines;  ///< in baseline_names() order
  /// Over the scenarios with serial measured: t(advisor's pick) / t(serial), its geometric
  /// mean and worst, and how many picks are more than kSerialSlack slower than serial.
  int serial_scenarios = 0;
  double advisor_geomean_vs_serial = 0;
  double advisor_worst_vs_serial = 0;
  int advisor_slower_than_serial = 0;
};

// ---- cross-validation (`validate --cv K`, docs/accuracy.md) ----

/// A metric's mean and spread over the folds.
struct MetricSpread {
  double mean = 0;
  double stddev = 0;  ///< population standard deviation over the folds
  double min = 0;
  double max = 0;
};

/// One fold: the tie margin fitted on the other folds and the summary on this one.
struct FoldResult {
  int fold = 0;
  int train_scenarios = 0;
  int test_scenarios = 0;
  double tie_margin = 0;
  AccuracySummary summary;
};

/// K-fold cross-validation over already evaluated scenarios. The profile's tables come
/// from calibration runs, not from these pairs, so what is fitted on the K-1 training
/// folds is what the pairs decide: the advisor's tie margin (kTieMargin), chosen from
/// `margin_grid` for the highest decision accuracy, then the lowest mean loss, then the
/// smallest margin; each fold is scored with its margin. Scenario i is in fold i mod K.
struct CrossValidation {
  int k = 0;
  std::vector<double> margin_grid;
  std::vector<FoldResult> folds;
  /// By metric: "decision_accuracy", "mean_loss_vs_oracle", "worst_loss_vs_oracle",
  /// "prediction_error_median", "prediction_error_p90", "advisor_geomean_vs_default",
  /// "tie_margin".
  std::map<std::string, MetricSpread> metrics;
};

/// The tie margins `validate --cv` chooses among: 0, 0.5%, 1%, 2%, 3%, 5%.
std::vector<double> default_margin_grid();
/// Throws InputError unless 2 <= k <= scenarios.size() and the grid is not empty.
CrossValidation cross_validate(const std::vector<ScenarioResult>& scenarios, int k,
                               const std::vector<double>& margin_grid = default_margin_grid(),
                               double tolerance = kDecisionTolerance);

/// One peer implementation (PeerRecord::implementation) against c3advisor over the
/// scenarios where its entry succeeded: geometric means of t(pick) / t(peer) and of
/// t(serial) / t(peer), measured (below 1: faster than the peer).
struct PeerSummary {
  std::string implementation;
  int scenarios = 0;  ///< with a successful entry
  double pick_geomean_vs_peer = 0;
  int serial_scenarios = 0;  ///< of those, with c3advisor's serial measured
  double serial_geomean_vs_peer = 0;
};

struct AccuracyReport {
  double tolerance = kDecisionTolerance;
  /// The split of the scored measurements in the train/test manifest (c3/splits.hpp):
  /// "train", "test", "unlisted", or "live" for a live backend; set by the caller.
  std::string split = "unlisted";
  std::string splits_file;  ///< the manifest consulted ("" = none)
  /// Where the model's GEMM kernels came from (set by the caller): "profile" (each GEMM's
  /// nearest measured shape in the profile), or "recorded" (the replay file's kernel for each
  /// GEMM it recorded, cuBLASLt's choice for that shape, over the profile's).
  std::string gemm_kernels = "profile";
  int recorded_kernels = 0;  ///< shapes taken from the replay file ("recorded")
  /// The profile's measured GEMM times (HardwareProfile::gemm_times, docs/model.md §1.2), set
  /// by the caller: how many shapes it holds, and how many scored pairs' GEMMs (as run) took
  /// their time from it instead of §1's roofline.
  int gemm_times_shapes = 0;
  int gemm_times_pairs = 0;
  /// "profile", or "recorded": the replay file's own isolated GEMM times were added to the
  /// table (`validate --gemm-times recorded`), set by the caller.
  std::string gemm_times = "profile";
  /// The independent pairs were priced chained (docs/model.md §4.6: queued ahead of the GPU,
  /// no launch cost, `sp` as `base`, sustained clocks): `validate --chained`, set by the caller.
  bool chained = false;
  std::optional<CrossValidation> cross_validation;  ///< `validate --cv K`
  std::vector<ScenarioResult> scenarios;
  std::vector<SkippedScenario> skipped;
  AccuracySummary summary;
  std::vector<PeerSummary> peers;  ///< by implementation, in order of first appearance (attach_peers)
  /// The scenarios are the ConCCL paper's (`validate --scenarios paper`; set by the
  /// caller): the text view prints the paper's published MI300X figures beside the
  /// measured ones.
  bool paper_scenarios = false;
};

// ---- the procedure ----

/// Evaluates `advisor` on `pairs` measured by `validator`; `strategies` says which
/// strategies to query for each pair. A pair whose isolated GEMM or collective
/// measurement fails, or with no successful concurrent measurement, is skipped (with
/// its reason); a failed strategy is left out with a note; a strategy the model
/// cannot predict (e.g. a split outside the profile's tables) is measured but not
/// a candidate for the pick, with a note. Throws InputError for an invalid pair.
AccuracyReport evaluate_accuracy(const Advisor& advisor, const std::vector<C3Pair>& pairs,
                                 Validator& validator, const StrategySource& strategies,
                                 double tolerance = kDecisionTolerance);

/// The summary of already evaluated scenarios (evaluate_accuracy calls it).
AccuracySummary summarize_accuracy(const std::vector<ScenarioResult>& scenarios,
                                   double tolerance = kDecisionTolerance);

/// The advisor's decision rule (Advisor::advise, recommend_hedged) applied to `candidates`
/// (indices of predicted strategies): among those predicted within the tie margin of the
/// fastest, the simplest (serial, base, sp, dma, rp, dma_rp), then the faster; hedged with
/// each strategy's `hedge_error` (dependent pairs). Throws InputError when there is no
/// candidate.
std::size_t recommend_among(const std::vector<StrategyResult>& strategies,
                            const std::vector<std::size_t>& candidates, double tie_margin = kTieMargin);

/// The q-quantile (0 <= q <= 1) by linear interpolation between order statistics
/// (numpy's default): sorted[q (n - 1)]. 0 for an empty list.
double quantile(std::vector<double> values, double q);

/// Index of the measured strategy a heuristic's `advised` strategy is scored as:
/// itself when measured; for an rp split that was not measured, the nearest measured
/// rp split (the smaller on a tie), with `note` saying so. None when neither exists.
std::optional<std::size_t> map_to_measured(const std::vector<StrategyResult>& measured,
                                           const Strategy& advised, std::string& note);

/// Copies into each scenario of `report` the entries of `raw.peers` for its pair (peer_of)
/// and sets report.peers from them. Scenarios without entries are left as they are.
void attach_peers(AccuracyReport& report, const RawMeasurements& raw);
/// The measured time of the scenario's `serial` strategy; none when it was not measured.
std::optional<double> measured_serial_s(const ScenarioResult& scenario);

// ---- the accuracy gate (scripts/accuracy-gate.sh, data/accuracy-gate.json) ----

/// Summary metrics the gate can check, by name: "decision_accuracy",
/// "mean_loss_vs_oracle", "worst_loss_vs_oracle", "prediction_error_median",
/// "prediction_error_p90", "prediction_error_max", "advisor_fraction_of_ideal"
/// (overall mean of the advisor's pick). Throws InputError for another name.
double summary_metric(const AccuracySummary& summary, const std::string& name);
/// True for metrics where higher is better (accuracy, fraction of ideal).
bool higher_is_better(const std::string& metric);

using io::GateThreshold;

/// Every threshold `summary` violates, one line each
/// ("decision_accuracy 0.8333, at least 0.9 required").
std::vector<std::string> gate_failures(const AccuracySummary& summary,
                                       const std::vector<GateThreshold>& thresholds);
/// Thresholds set from `summary`: each metric's value, worsened by its tolerance.
std::vector<GateThreshold> gate_thresholds_from(const AccuracySummary& summary,
                                                std::vector<GateThreshold> tolerances);
/// The tolerances a check gets when it is first written (docs/accuracy.md).
std::vector<GateThreshold> default_gate_tolerances();

/// Every threshold of check `check` of gate file `path` that `summary` violates (see
/// gate_failures), and a failure when the check is bound to a split (a "split" key) other
/// than `split`, the split of the measurements scored. Throws ConfigError for a missing or malformed file, or no such check.
std::vector<std::string> gate_file_failures(const AccuracySummary& summary, const std::string& path,
                                            const std::string& check, const std::string& split = "");
/// Rewrites check `check` of gate file `path` from `summary`: thresholds from the check's
/// tolerances (default_gate_tolerances() for a new check), the values reached, and
/// `command` (the command line that reruns it), bound to `split` when it is "train" or
/// "test"; every other check is kept and the file is
/// created when absent. Returns true when the check is new (the file had none of that
/// name). Throws ConfigError for a malformed file, c3::Error when it cannot be written.
bool update_gate_file(const AccuracySummary& summary, const std::string& path, const std::string& check,
                      const std::string& command, const std::string& split = "");

// ---- what validate measures against ----

/// "gemm (kind)" or "NAME (kind)": a scenario in messages and reports.
std::string scenario_label(const C3Pair& pair);

/// A backend for evaluate_accuracy: `replay:FILE` (the recorded file, every strategy
/// recorded in it; `replay:A+B+C`, the median over several) or a live backend (the
/// strategies `measure` would run).
struct ValidationBackend {
  std::string spec;
  std::unique_ptr<Validator> validator;
  StrategySource strategies;
  std::optional<RawMeasurements> raw;  ///< replay, and live measured by measure_live
  std::optional<Capabilities> measured_on;  ///< measure_live: the live backend that measured
};
/// True for "replay", "replay:FILE" and "replay:FILE1+FILE2[+...]".
bool is_replay_spec(const std::string& spec);
/// The files of a replay spec: "replay:A+B" -> {A, B}, "replay:A" -> {A}; none for "replay"
/// alone and for a live backend. Throws InputError naming the spec for an empty file name
/// ("replay:A++B", a trailing '+').
std::vector<std::string> replay_files_of(const std::string& spec);
/// Makes the backend of `spec` checked against `hw`. A live backend runs `run` and
/// measures the strategies of `planned` (its "rp" and "dma_rp" parameters); a replay
/// takes neither: `strategies_chosen` (--rp or --dma-rp given) is then an InputError, as is
/// replay without a file. A replay of several files ("replay:A+B+C", each measured in its
/// own process) answers with the median over them (backends/replay/replay.hpp,
/// median_over_processes), `raw` holding the merged records. Throws ConfigError for a bad
/// file, InputError/BackendError from the registry.
ValidationBackend make_validation_backend(const std::string& spec, const HardwareProfile& hw,
                                          const RunConfig& run, const MeasureOptions& planned,
                                          bool strategies_chosen);
/// A live backend measured up front, as `measure` would with the same options: every strategy
/// of `options` for each of `pairs` on the backend of `spec` (run config `run`), the raw
/// measurements written to options.raw_path after each one (required; options.resume keeps the
/// file's records), then replayed from that file, so that a live validate scores what
/// `validate --backend replay:FILE` scores from the same file and keeps what it measured when it
/// stops early. Without options.dma_variant, the profile's (`provenance.dma_variant`, the one it
/// was calibrated with) where the backend offers it. The result's `spec` stays `spec`; its
/// `strategies` are those of `options`, its `raw` the file's records (failed measurements as
/// failed records; with resume also what the file held before), `measured_on` the live backend.
/// Throws InputError for an empty raw_path, gemms_only or isolated_only, or a replay spec, and
/// what `measure` and the registry throw.
ValidationBackend measure_live(const std::string& spec, const HardwareProfile& hw, const RunConfig& run,
                               const std::vector<C3Pair>& pairs, const MeasureOptions& options,
                               const ProgressFn& progress);
/// Removes from `pairs` those `raw` (read from `path`) cannot answer and returns them with
/// the reason. Unless `skip_missing`, any such pair is an InputError naming up to five of
/// them (and the ranks the file has, when the pairs' ranks are not among them).
std::vector<SkippedScenario> drop_unrecorded(const RawMeasurements& raw, const std::string& path,
                                             std::vector<C3Pair>& pairs, bool skip_missing);

}  // namespace c3::validator
