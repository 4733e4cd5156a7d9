// calibrate/pairs_fit.hpp: fitting from measured pairs of the train split
// (`calibrate --pairs`, docs/calibration.md "From measured pairs"). The calibration run
// measures its own fixed shapes; the pairs add what only many real pairs show: the kernel
// cuBLASLt picks per shape, how each collective kind interferes, how long a GEMM launched
// first holds the collective back.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "c3/measurements.hpp"
#include "c3/profile.hpp"

namespace c3::validator {

/// Groups with fewer measured pairs than this keep the transport's factors.
inline constexpr std::size_t kMinPairsPerGroup = 4;

/// A measured pair under one strategy, with the pair's measured serial time.
struct PairObservation {
  C3Pair pair;
  Strategy strategy;
  double time_s = 0;    ///< the strategy's measured median
  double serial_s = 0;  ///< the same pair's measured serial median
};

/// Every successful concurrent record that has a successful serial record of the same pair.
std::vector<PairObservation> pair_observations(const std::vector<RawMeasurements>& files);

/// The same for dependent pairs: every decomposed schedule (chunked:*) with its pair's serial.
std::vector<PairObservation> dependent_observations(const std::vector<RawMeasurements>& files);

/// The median of |relative_residual| over dependent pairs' decomposed schedules: how far a
/// schedule's predicted ratio to serial typically is from the measured one (the advisor's
/// hedge for dependent pairs, docs/model.md "The recommendation"). Throws InputError when
/// `obs` is empty.
double decomposed_ratio_error(const HardwareProfile& hw, const std::vector<PairObservation>& obs);

/// decomposed_ratio_error per family of schedules, the advisor's hedge errors: "chunked" over
/// the schedules without a partition (over the partitioned ones where `obs` has none: it is
/// every schedule's fallback), kPartitionedScheduleError over those in one (chunked:C:cu:c),
/// absent where `obs` has none; empty for an empty `obs`.
std::map<std::string, double> decomposed_ratio_errors(const HardwareProfile& hw,
                                                      const std::vector<PairObservation>& obs);

/// The 90th percentile (nearest rank) of |predicted / measured - 1| per strategy kind, and
/// "serial" from the pairs' serial records.
std::map<std::string, double> prediction_errors(const HardwareProfile& hw,
                                                const std::vector<PairObservation>& obs);

/// Residual of one observation: (model T / model serial) / (measured T / measured serial) - 1.
/// Against serial, so that an error of the isolated predictions is not taken for
/// interference. Throws InputError where the model cannot predict the pair.
double relative_residual(const HardwareProfile& hw, const PairObservation& o);

/// The mean over the pairs of `independent` of the advisor's loss: recommend() over each
/// pair's measured strategies (serial included) by their predicted times, its measured time
/// / the pair's fastest measured time - 1. Throws InputError when there is no pair.
double mean_pick_loss(const HardwareProfile& hw, const std::vector<PairObservation>& independent);

/// model.md §4.3: sets hw.gemm_first_delay_factor for the decisions it drives. On a grid of
/// 0.05 over [0, 2], the factor whose picks (recommend() over each pair's measured
/// strategies, serial included) lose least against the pair's fastest measured strategy,
/// mean over the pairs of `independent`; among equal losses, the least squared
/// relative_residual of the base observations; then refined by that misfit between the
/// grid neighbours where the loss stays the least. Returns the factor. A least-squares fit
/// alone sits on a plateau (base predicted as serial for most multi-wave GEMMs, where
/// decisions turn on a few percent). Throws InputError without base observations.
double fit_delay_factor(HardwareProfile& hw, const std::vector<PairObservation>& independent);

/// model.md §4.3: sets hw.gemm_launch_s and hw.gemm_first_delay_factor together, for the
/// decisions they drive: over 25 launch times in [0, 4 x gemm_latency_s], fit_delay_factor
/// at each, and the pair whose picks lose least (mean_pick_loss), the least squared
/// relative_residual of base among equal losses. Returns the launch time. Throws
/// InputError without base observations or without gemm_latency_s.
double fit_gemm_first(HardwareProfile& hw, const std::vector<PairObservation>& independent);

/// The observations the model can predict (relative_residual does not throw); each other
/// one is skipped with a note naming its measurement key.
std::vector<PairObservation> predictable(const HardwareProfile& hw, const std::vector<PairObservation>& all,
                                         std::vector<std::string>& notes);

/// The independent pairs of `files` (pair_observations) the model can predict (predictable,
/// which notes each other one), priced chained (C3Pair::chained) when `chained`.
std::vector<PairObservation> independent_observations(const HardwareProfile& hw, const std::vector<RawMeasurements>& files,
                                                      bool chained, std::vector<std::string>& notes);

/// Fits interference.by_kind.KIND.TRANSPORT.CLASS of every group (kind, transport, GEMM
/// class) with at least kMinPairsPerGroup observations: sp and rp:* observations fit the cu
/// factors, dma and dma_rp:* the dma ones; both factors of a group at once by
/// Levenberg-Marquardt (Eigen) on relative_residual, in log space, within [1, 4]. A group
/// starts from its present factors, else the transport's. Fitted values get `source`;
/// each group is noted (or why it was not fitted).
void fit_interference_by_kind(HardwareProfile& hw, const std::vector<PairObservation>& obs,
                              const Provenance& source, std::vector<std::string>& notes);

/// model.md §4.4: the host launch cost of a collective launched first on `transport`
/// (collectives.*.TRANSPORT.launch_s, one value for every kind, as fit_launch): on a grid of
/// 25 values over [0, 4 x gemm_latency_s], the transport's by-kind factors refitted at each
/// (fit_interference_by_kind on the observations that use them), the value whose picks
/// (the advisor's rule over each pair's measured strategies) lose least; among equal losses
/// the least misfit of those observations, then the shorter launch. Sets the launch in `hw`
/// (not the factors: fit them again) and returns it; nullopt (hw unchanged) when no
/// observation uses the transport's factors. Throws InputError without gemm_latency_s.
std::optional<double> fit_collective_launch(HardwareProfile& hw, const std::vector<PairObservation>& obs,
                                            Transport transport);

/// model.md §7.3: sets hw.chunk_batch_reread, the share of B that each block of a
/// strided-batched step GEMM after the first reads again, by golden-section search in [0, 1]
/// on the relative residuals (against serial) of the decomposed schedules it changes (those
/// whose batched step GEMMs are memory-bound). Returns the value, or nullopt (hw unchanged)
/// when no schedule of `dependent` depends on it.
std::optional<double> fit_chunk_batch_reread(HardwareProfile& hw, const std::vector<PairObservation>& dependent);

/// fit_chunk_batch_reread with its bookkeeping: the fitted value gets `source` and a note
/// (from where); where no schedule depends on it, a note says it was kept. Returns whether
/// it was fitted.
bool fit_batch_reread(HardwareProfile& hw, const std::vector<PairObservation>& dependent, const Provenance& source,
                      std::vector<std::string>& notes);

/// Terms fitted from the pairs only when asked (calibrate options).
struct PairFitOptions {
  /// Refit the collectives' launch_s per transport from the pairs' decisions
  /// (fit_collective_launch) instead of keeping the calibration's tiny-pair value.
  bool launch = false;
  /// Price the independent pairs chained (C3Pair::chained, docs/model.md §4.6) in every fit.
  bool chained = false;
  /// Fit schedule_corrections after the dependent pairs' other fits (fit_schedule_corrections).
  bool schedule_corrections = false;
};

/// model.md §7.4: replaces hw.schedule_corrections with one factor per group of decomposed
/// schedules (model::schedule_group) that has at least kMinPairsPerGroup of `dependent`:
/// exp of the median of log(measured / measured serial) - log(predicted / predicted serial)
/// over them, the predictions without corrections. Groups with fewer keep none. Returns the
/// number of groups fitted.
std::size_t fit_schedule_corrections(HardwareProfile& hw, const std::vector<PairObservation>& dependent);

/// Groups of an independent pair's strategies with fewer observations than this keep no
/// strategy correction (model.md §4.7): a median of fewer is one file's noise.
inline constexpr std::size_t kMinPairsPerStrategyGroup = 20;

/// model.md §4.7: replaces hw.strategy_corrections with one factor per group (collective kind,
/// GEMM class, strategy label) of the independent, concurrent (not serial, not chunked)
/// observations of `independent` whose uncorrected prediction takes at least min_predicted_s,
/// where a group has at least kMinPairsPerStrategyGroup of them: exp of the median of
/// log(measured / measured serial) - log(predicted / predicted serial). Sets
/// hw.strategy_correction_min_s = min_predicted_s. Returns the number of groups fitted (0: the
/// profile has none). Throws InputError for a negative or non-finite min_predicted_s.
std::size_t fit_strategy_corrections(HardwareProfile& hw, const std::vector<PairObservation>& independent,
                                     double min_predicted_s);

/// A pick more than kSerialSlack slower than serial costs this many right decisions where a
/// hedge error is chosen by its picks (fit_schedule_hedges).
inline constexpr double kHedgeSlowerCost = 3.0;
/// Families of dependent pairs with fewer pairs than this keep the "chunked" hedge error.
inline constexpr std::size_t kMinPairsPerHedgeGroup = 20;
/// The hedge errors fit_schedule_hedges tries: 0 to kHedgeGridMax in steps of kHedgeGridStep.
inline constexpr double kHedgeGridStep = 0.0025;
inline constexpr double kHedgeGridMax = 0.05;

/// docs/model.md "The recommendation": replaces hw.schedule_hedges with, per family of
/// dependent pairs (HedgeGroup: dependency, collective kind) that has at least
/// kMinPairsPerHedgeGroup pairs in `files` (a pair in several files counts once per file; for
/// one ground truth from several processes, merge them first: median_over_processes), the hedge error of its
/// schedules without a partition whose picks do best on them. Each candidate error (the family's present one,
/// schedule_error, and the grid of kHedgeGridStep over [0, kHedgeGridMax]) is scored by the advisor's rule
/// (recommend_hedged over each pair's measured strategies, serial included; partitioned schedules keep their
/// hedge error): right decisions (within kDecisionTolerance of the fastest measured) less
/// kHedgeSlowerCost per pick more than kSerialSlack slower than serial. The present error
/// stays unless a grid point scores strictly more; among the best, the one nearest it.
/// Observations the model cannot predict are skipped with a note. Returns the number of
/// families fitted.
std::size_t fit_schedule_hedges(HardwareProfile& hw, const std::vector<RawMeasurements>& files,
                                std::vector<std::string>& notes);

/// Fits into `hw` from the pairs, in this order (each noted in `notes`):
///  1. gemm_kernels (measured_kernels), so that waves and idle CUs use real tiles;
///  2. with options.launch, collectives.*.cu.launch_s and .dma.launch_s
///     (fit_collective_launch); then interference_by_kind: per kind, transport and GEMM class with at least
///     kMinPairsPerGroup pairs (sp and rp:* for cu; dma and dma_rp:* for dma), both factors
///     at once by Levenberg-Marquardt (Eigen) on relative_residual, in log space;
///  3. gemm_first_delay_factor and gemm_launch_s from every pair's picks and base records;
///  4. from the decomposed schedules of dependent pairs: chunk_piece_latency_s (1-D), then
///     pipeline_interference per kind and transport with at least kMinPairsPerGroup
///     schedules (both factors at once, as 2.), then chunk_piece_latency_s again, then
///     chunk_batch_reread (fit_chunk_batch_reread; kept where no schedule depends on it),
///     then with options.schedule_corrections, schedule_corrections (fit_schedule_corrections);
///  5. prediction_error: per strategy kind, the 90th percentile of |predicted / measured - 1|
///     over the independent pairs with the fitted profile, and decomposed_ratio_errors of the
///     dependent ones ("chunked" and kPartitionedScheduleError: the advisor's hedge, advisor.hpp).
/// Every fitted value's source is `source`.
void fit_from_pairs(HardwareProfile& hw, const std::vector<RawMeasurements>& files, const Provenance& source,
                    std::vector<std::string>& notes, const PairFitOptions& options = {});

}  // namespace c3::validator
