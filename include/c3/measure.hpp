// c3/measure.hpp: measuring on a Validator, saving after every measurement so that a
// crashed run resumes where it stopped. `measure` gives the ground truth of pairs under
// every strategy (raw measurements, c3/measurements.hpp); `run_bench` times collectives
// per size and transport, nccl-tests style (bench-collective). A failed measurement is
// recorded (Measurement::ok = false), never thrown. Times in seconds, sizes in bytes.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "c3/measurements.hpp"
#include "c3/types.hpp"
#include "c3/validator.hpp"

namespace c3::validator {

// ---- progress ----

/// One measurement done (or taken from the resumed file).
struct Step {
  std::size_t index = 0;  ///< 1-based
  std::size_t total = 0;
  std::string description;  ///< describe(query)
  Measurement measurement;
  bool resumed = false;
};
using ProgressFn = std::function<void(const Step&)>;

// ---- ground truth of pairs (`c3advisor measure`) ----

struct MeasureOptions {
  /// The values measured for each parametrized kind, by kind name: "rp" -> collective
  /// CUs, "dma_rp" -> CUs the GEMM gives up, "chunked" -> chunk counts of dependent pairs
  /// ("chunked_cus" -> their collective's partitions). A parametrized kind not listed is
  /// not measured.
  std::map<std::string, std::vector<int>, std::less<>> parameters;
  std::string raw_path;         ///< saved after every measurement ("" = not saved)
  bool resume = false;          ///< keep raw_path's successful records and measure the rest
  /// Replace a raw_path that already holds data; without it (and without resume) such a
  /// file is refused (InputError) before anything is measured, so no run's measurements
  /// are lost to a repeated command.
  bool overwrite = false;
  /// Implementation of the dma transport (Validator::set_dma_variant; "" = the backend's
  /// default); named in the provenance notes as "dma variant: NAME".
  std::string dma_variant;
  /// Only each pair's GEMM on every CU, once per shape: isolated times and the kernel the
  /// backend picks per shape (Measurement::gemm_kernel), on a machine of one GPU.
  bool gemms_only = false;
  /// With gemms_only or isolated_only (else InputError): each GEMM also alone in every
  /// partition a strategy would give it, i.e. with the CUs removed of each value of
  /// parameters["rp"] and parameters["dma_rp"] (ascending, once each): the partitioned
  /// GEMM's own time, per shape and kernel.
  bool gemm_partitions = false;
  /// Only each pair's isolated measurements, each once: its GEMM on every CU and its
  /// collective on the library's CUs and, where the kind can, on the copy engines; no
  /// strategy. Excludes gemms_only (InputError). With gemm_partitions as above.
  bool isolated_only = false;
  /// With isolated_only: each collective also on every CU count of parameters["rp"] (the
  /// collective of rp:c alone). InputError without isolated_only.
  bool collective_partitions = false;
  /// Each pair's measurements in this many rounds (>= 1): round r runs every measurement of
  /// the pair (its isolated GEMM and collectives, then each strategy; rotated by r) for
  /// ceil(runs / rounds) measured runs after the full warm-up, and a measurement's record is
  /// the runs of all its rounds (merge_rounds). Slow drifts of clock, power and temperature
  /// then fall on every strategy of a pair alike instead of on whichever ran in a bad stretch.
  /// 1 = each measurement's runs back to back (the run config as given).
  int rounds = 1;
  std::string git_sha;
  std::string date;
  std::string command;
};

/// Every strategy measured for `pair`: independent pairs: serial, base, sp, rp:c, and
/// where the kind can use copy engines dma and dma_rp:r; dependent pairs: serial and
/// chunked:C:cu, chunked:C:cu:c, chunked:C:dma (copy engines where the kind can use them).
std::vector<Strategy> measured_strategies(const C3Pair& pair, const MeasureOptions& options);

/// The queries for `pairs`, isolated ones first for each pair (with gemms_only, each
/// distinct GEMM once, on every CU and, with gemm_partitions, with each partition's CUs removed;
/// with isolated_only, each distinct isolated measurement once). InputError for options that
/// exclude each other (MeasureOptions).
std::vector<Query> measure_queries(const std::vector<C3Pair>& pairs, const MeasureOptions& options);

/// The queries of each pair (measure_queries, grouped): with gemms_only, one group per
/// distinct GEMM.
std::vector<std::vector<Query>> measure_query_groups(const std::vector<C3Pair>& pairs, const MeasureOptions& options);

/// One measurement from its rounds' measurements, in round order: the runs of every round in
/// order, their median, min and max; warm-up runs summed; verified when every round was;
/// the first round's kernel and host launch time. A failed round fails the whole ("round i:
/// its error", 1-based; the runs of the rounds before it kept). Throws InputError for no rounds.
Measurement merge_rounds(const std::vector<Measurement>& rounds);

/// The run config of one round of `rounds`: ceil(measured_runs / rounds) measured runs,
/// min_time_s / rounds, at most ceil(max_runs / rounds) runs (no fewer than the measured and
/// warm-up runs); the warm-up as given. Throws InputError for rounds < 1.
RunConfig round_config(const RunConfig& whole, int rounds);

/// Throws InputError where the output file `path` (named by the command's `option`, e.g.
/// "--out") already holds data and neither `resume` nor `overwrite` is set: a repeated
/// command never replaces earlier measurements unasked. measure, calibrate and run_bench
/// check it themselves; commands call it first too, to refuse before a backend starts.
void require_resume_or_overwrite(const std::string& path, bool resume, bool overwrite,
                                 const std::string& option);

/// Measures every query on `validator` (options.rounds > 1: each pair's queries in rounds).
/// Failures are recorded, never thrown; throws InputError for a resume file from another
/// backend or device, an earlier file neither resumed nor overwritten
/// (require_resume_or_overwrite) or rounds < 1, c3::Error when the file cannot be written.
RawMeasurements measure(Validator& validator, const std::vector<C3Pair>& pairs,
                        const MeasureOptions& options, const ProgressFn& progress);

// ---- collective benchmarks (`c3advisor bench-collective`) ----

/// Sizes from `min_bytes` to `max_bytes` (inclusive when reached), each `factor` times the
/// last (nccl-tests -b -e -f). Throws InputError for min < 1, max < min or factor < 2.
std::vector<std::int64_t> size_sweep(std::int64_t min_bytes, std::int64_t max_bytes, std::int64_t factor);

struct BenchOptions {
  std::vector<CollectiveKind> kinds;
  std::vector<std::string> transports;  ///< "nccl" and dma variant names, in this order
  std::vector<std::int64_t> sizes;
  int ranks = 0;
  std::string path;     ///< the JSON file, rewritten after every record ("" = not saved)
  bool resume = false;  ///< keep path's successful records and measure the rest
  bool overwrite = false;  ///< replace a path that holds data (else InputError, as MeasureOptions)
};

/// One record done (measured or resumed), for progress lines.
struct BenchStep {
  std::size_t index = 0;  ///< 1-based
  std::size_t total = 0;
  const BenchRecord* record = nullptr;
  bool resumed = false;
};
using BenchProgress = std::function<void(const BenchStep&)>;

/// Measures every kind x transport x size on `validator` (a dma transport the kind cannot
/// use, e.g. all_reduce on copy engines, is skipped). A backend failure or an unknown
/// variant becomes a failed record, never an exception. Throws InputError for bad options
/// (no kinds, sizes or transports; ranks < 2 or above the backend's GPUs; a resume file from
/// another backend or device); c3::Error when the file cannot be written.
BenchFile run_bench(Validator& validator, const BenchOptions& options, RawProvenance provenance,
                    const BenchProgress& progress);

}  // namespace c3::validator
