// c3/calibrate.hpp: the calibration procedure, generic over any Validator
// (docs/calibration.md). It measures the ceilings, the isolated curves and the
// interference pairs, saves the raw measurements after every one (so that a
// crashed run resumes where it stopped), records failures instead of stopping,
// and fits a profile with source `measured`.
#pragma once

#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "c3/profile.hpp"
#include "c3/validator.hpp"
#include "c3/measure.hpp"
#include "c3/measurements.hpp"
#include "c3/splits.hpp"

namespace c3::validator {

struct CalibrationOptions {
  int gpus = 0;          ///< ranks of every collective; 2 <= gpus <= the backend's GPUs
  bool quick = false;    ///< fewer sizes and a power-of-two CU grid
  std::string name;      ///< the profile's name
  bool resume = false;   ///< start from raw_path's successful records
  bool overwrite = false;  ///< replace a raw_path that holds data (else InputError, as MeasureOptions)
  std::string raw_path;   ///< raw measurements, saved after every measurement ("" = not saved)
  /// The file named as every measured value's `ref` ("" = raw_path): the replayed file for a
  /// replay backend, whose records the raw output repeats. Ignored (raw_path) when
  /// collectives_path seeds the sweeps: then only the raw output holds every record used.
  std::string measurements_ref;
  /// Implementation of the dma transport to calibrate (Validator::set_dma_variant; "" = the
  /// backend's default). Recorded in the profile's provenance as "dma_variant". A name the
  /// backend cannot run (not in Capabilities::dma_variants) needs collectives_path with its
  /// records: the backend measures with its default variant, and the dma transport's
  /// bandwidth, latency and curves come from the file (docs/calibration.md).
  std::string dma_variant;
  /// A bench-collective file (c3/measurements.hpp) measured on the same device
  /// ("" = none): its successful records at `gpus` ranks on "nccl" and on the dma variant in
  /// use seed the size sweeps, which are then not measured again. Successful records of a
  /// resumed raw file win over them. With a dma_variant the backend cannot run, only that
  /// variant's records are used, after every other fit (calibrate/shipped_dma.hpp); nothing
  /// is seeded. Recorded in the profile's provenance as "collectives".
  std::string collectives_path;
  /// Measured pairs (raw measurement files of `measure`, from the train split; none = none):
  /// after the calibration fits, validator::fit_from_pairs refines the profile from them
  /// (GEMM kernels, interference per kind, the GEMM-first delay). Each must be measured on
  /// the calibrated device's GPU model (any count). Recorded in the profile's provenance as "pairs".
  std::vector<std::string> pairs_paths;
  /// With pairs_paths: also refit each transport's collective launch cost (launch_s) from
  /// the pairs' decisions, instead of the calibration's tiny-pair value (docs/model.md §4.4).
  bool fit_launch = false;
  /// With pairs_paths: price the independent pairs chained in every fit (C3Pair::chained,
  /// docs/model.md §4.6: queued ahead, no launch cost, `sp` as `base`), for a profile of
  /// queued-ahead work fitted from gated runs; the profile is then meant to be asked with
  /// `--chained`. Recorded in the profile's provenance as "pairs_priced: chained".
  bool chained_pairs = false;
  /// With pairs_paths: also fit schedule_corrections, one factor per group of decomposed
  /// schedules with at least 4 of them among the dependent pairs (docs/model.md §7.4).
  bool schedule_corrections = false;
  /// Dependent pairs (measure's raw JSON, train split; none = none) used for one value only:
  /// the batched step's re-read share chunk_batch_reread (docs/model.md §7.3), fitted from
  /// their memory-bound batched steps after pairs_paths, so that a set chosen for that term
  /// does not weigh on the other fits. Recorded in the profile's provenance as "batched_step_pairs".
  std::vector<std::string> batched_step_pairs_paths;
  /// Pairs timed with the shipped dma_variant itself (measurement files of
  /// scripts/gpu-jobs/torch_pairs.py, train split; none = none): only with a dma_variant
  /// taken from collectives_path. After that variant's curves, its interference per kind and
  /// GEMM class and its launch cost are refitted from these files' dma records
  /// (validator::apply_shipped_dma_pairs), so that they are the variant's own and not the
  /// backend's. Recorded in the profile's provenance as "dma_pairs".
  std::vector<std::string> dma_pairs_paths;
  /// Files of `measure` (train split; none = none) whose isolated GEMM records with
  /// operands not aligned to 16 bytes fit gemm_unaligned_compute and gemm_unaligned_memory
  /// (calibrate/unaligned_fit.hpp, docs/model.md §1.1), before the pairs' fits so that
  /// those see the GEMMs' times as the profile predicts them. Of the calibrated device's
  /// GPU model (any count). Recorded in the profile's provenance as "unaligned_gemms".
  std::vector<std::string> unaligned_gemms_paths;
  /// Files of `measure --isolated-only --collective-partitions` (train split; none = none)
  /// whose collectives timed on the library's default CUs and on fewer, at --gpus ranks, fit
  /// collective_slowdown_by_size (calibrate/partition_fit.hpp, docs/model.md §3), before the
  /// pairs' fits. Of the calibrated device's GPU model. Recorded in the profile's provenance
  /// as "collective_partitions".
  std::vector<std::string> collective_partitions_paths;
  /// Independent pairs (measure's raw JSON, train split; none = none) used for one term only,
  /// after every other fit: strategy_corrections, per group (collective kind, GEMM class,
  /// strategy) of at least 20 concurrent strategies predicted at strategy_correction_min_s or
  /// more, the median ratio of measured to predicted time relative to serial
  /// (validator::fit_strategy_corrections, docs/model.md §4.7). A base profile's corrections are
  /// never kept (they were fitted against other terms). Recorded in the profile's provenance
  /// as "strategy_correction_pairs".
  std::vector<std::string> strategy_correction_pairs_paths;
  /// Sets of dependent pairs (measure's raw JSON, train split; none = none) used for one term
  /// only, after every other fit and the queued copy-engine steps' terms: schedule_hedges, per family (dependency, collective kind) of
  /// at least 20 pairs, the hedge error of the schedules without a partition whose picks do
  /// best on them (validator::fit_schedule_hedges, docs/model.md "The recommendation"). A set
  /// is one file, or "A+B+C": the same pairs measured in several processes, each measurement
  /// the median over them (median_over_processes, io/replay_files.hpp), the ground truth the
  /// test rounds score against. A base profile's hedges are never kept. Recorded in the
  /// profile's provenance as "hedge_pairs".
  std::vector<std::string> hedge_pairs_paths;
  /// Set after every fit but the hedges, which are chosen with them (not fitted: chosen on train by leaving one seed out,
  /// scripts/loso_dma_step.py): chunk_dma_step_latency_s and chunk_dma_step_min_s, in
  /// seconds (model.md §7.3). Unset: the profile has neither (a base's are never kept).
  std::optional<double> dma_step_latency_s;
  std::optional<double> dma_step_min_s;
  /// With strategy_correction_pairs_paths: the least uncorrected prediction, in seconds, that a
  /// correction is fitted from and applied to (>= 0; default 100 us).
  double strategy_correction_min_s = 100e-6;
  /// Files of `measure` (train split; none = none) whose isolated GEMM records (no CUs
  /// removed) give gemm_times: per shape, the median over the files of their medians
  /// (calibrate/gemm_times_fit.hpp, docs/model.md §1.2). Fitted last, so that no other fit
  /// sees them (each was fitted against §1's roofline), and prediction_error is not computed
  /// again (the table's own shapes would score in-sample). Measured on the calibrated device
  /// itself (the same GPU model and count: a GEMM's time here includes the host's launch
  /// pacing of every GPU), all host-paced or all gated. A base profile's table is never kept.
  /// Recorded in the profile's provenance as "gemm_times".
  std::vector<std::string> gemm_times_paths;
  /// A sustained-GEMM file (scripts/gpu-jobs/torch_sustained.py, train split; "" = none),
  /// measured on the calibrated device's GPU model: the profile's sustained_gemm_slowdown is
  /// fitted from it (calibrate/sustained_fit.hpp, docs/model.md §4.6). Recorded in the
  /// profile's provenance as "sustained".
  std::string sustained_path;
  /// The train/test manifest: a resumed raw file or a collectives file listed as test
  /// there is refused (InputError), as test files are never fitted to.
  Splits splits;
  std::string git_sha;   ///< provenance of this run
  std::string date;
  std::string command;
};


struct CalibrationResult {
  HardwareProfile profile;
  RawMeasurements raw;
  std::vector<std::string> notes;  ///< failed measurements, skipped fits, extra findings
  /// Failed measurements among the queries this run planned (0: the profile was fitted
  /// from a complete set).
  std::size_t failed = 0;
  /// Failed records of queries this run did not plan, kept from a resumed file (a plan
  /// derived from an earlier, failed run: interference sizes follow the isolated times).
  std::size_t failed_unplanned = 0;
};

using CalibrationStep = Step;

/// Calibrates `validator` starting from `base` (the identity, the partition grid and
/// every value calibration does not measure). Throws InputError for bad options
/// (a resume or collectives file from another device, or listed as test in
/// options.splits; a dma variant the backend cannot run without a collectives file that
/// has it for every copy-engine kind: ConfigError naming the file and field); a failed measurement is
/// recorded and named in `notes`, never thrown.
CalibrationResult calibrate(Validator& validator, const HardwareProfile& base,
                            const CalibrationOptions& options, const ProgressFn& progress);

}  // namespace c3::validator
