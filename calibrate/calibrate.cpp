// The calibration procedure (calibrate/calibrate.hpp).
#include "calibrate/calibrate.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>
#include <set>
#include <tuple>

#include "c3/errors.hpp"
#include "calibrate/calibrate_fit.hpp"
#include "calibrate/calibrate_plan.hpp"
#include "calibrate/gemm_times_fit.hpp"
#include "calibrate/pairs_fit.hpp"
#include "calibrate/partition_fit.hpp"
#include "calibrate/shipped_dma.hpp"
#include "calibrate/sustained_fit.hpp"
#include "calibrate/unaligned_fit.hpp"
#include "io/query.hpp"
#include "io/replay_files.hpp"
#include "measure/collective_bench.hpp"
#include "measure/recorder.hpp"

namespace c3::validator {
namespace {

void check_options(const CalibrationOptions& o, const Capabilities& caps) {
  if (o.gpus < 2) throw InputError("--gpus must be at least 2 (got " + std::to_string(o.gpus) + ")");
  if (caps.gpus > 0 && o.gpus > caps.gpus)
    throw InputError("--gpus " + std::to_string(o.gpus) + ": backend '" + caps.backend + "' has " +
                     std::to_string(caps.gpus) + " GPUs");
  if (o.name.empty()) throw InputError("the calibrated profile needs a name");
  if (o.resume && o.raw_path.empty()) throw InputError("--resume needs the raw measurements file (--raw)");
  if (o.resume) io::require_not_test(o.splits, o.raw_path, "calibrate --resume (--raw)");
  if (!o.collectives_path.empty()) io::require_not_test(o.splits, o.collectives_path, "calibrate --collectives");
  if (!(o.strategy_correction_min_s >= 0) || !std::isfinite(o.strategy_correction_min_s))
    throw InputError("--strategy-correction-min-us must be a finite number >= 0");
  for (const auto& [value, option] : {std::pair{o.dma_step_latency_s, "--dma-step-latency-us"},
                                      std::pair{o.dma_step_min_s, "--dma-step-min-us"}})
    if (value && (!(*value >= 0) || !std::isfinite(*value)))
      throw InputError(std::string(option) + " must be a finite number >= 0");
  if (o.dma_step_min_s && !o.dma_step_latency_s)
    throw InputError(
        "--dma-step-min-us needs --dma-step-latency-us (the threshold of the queued steps' latency)");
  if (!o.dma_pairs_paths.empty() && (o.dma_variant.empty() || o.collectives_path.empty()))
    throw InputError("--dma-pairs: pairs of a copy-engine implementation the backend cannot run need its "
                     "--dma-variant NAME and its --collectives FILE (docs/calibration.md)");
}

RawProvenance provenance_now(const CalibrationOptions& o, const Capabilities& caps) {
  RawProvenance p = provenance_of(caps);
  p.git_sha = o.git_sha;
  p.date = o.date;
  p.command = o.command;
  return p;
}

// "NVIDIA H200 x2" -> "NVIDIA H200": the profile's gpu names one GPU; gpu_count counts them.
std::string gpu_model(const std::string& device) {
  const auto x = device.rfind(" x");
  if (x == std::string::npos || x + 2 == device.size()) return device;
  const bool digits = device.find_first_not_of("0123456789", x + 2) == std::string::npos;
  return digits ? device.substr(0, x) : device;
}

// `base` with this run's identity: name, device, GPU count, provenance.
HardwareProfile identity(const HardwareProfile& base, const CalibrationOptions& o, const RawProvenance& p,
                         const Provenance& source) {
  HardwareProfile hw = base;
  hw.name = o.name;
  hw.gpu = gpu_model(p.device);
  hw.gpu_count = o.gpus;
  if (p.compute_units > 0 && p.compute_units != hw.compute_units) {
    hw.compute_units = p.compute_units;
    hw.sources["compute_units"] = source;
  }
  hw.description = "measured by c3advisor calibrate (backend " + p.backend + ") on " + p.device +
                   (o.date.empty() ? "" : ", " + o.date) + "; values not measured come from profile '" +
                   base.name + "'";
  hw.provenance = source;
  hw.provenance_details = {{"device", p.device}, {"gpus", std::to_string(o.gpus)}};
  for (const char* component : {"driver", "cuda", "cublas", "nccl", "hip", "hipblaslt", "rccl"})
    if (const auto it = p.versions.find(component); it != p.versions.end())
      hw.provenance_details[component] = it->second;
  const std::pair<const char*, const std::string*> run_fields[] = {
      {"git_sha", &o.git_sha}, {"date", &o.date}, {"command", &o.command}};
  for (const auto& [key, value] : run_fields)
    if (!value->empty()) hw.provenance_details[key] = *value;
  return hw;
}

// options.collectives_path, checked to be of the calibrated device (InputError otherwise;
// ConfigError, an InputError, for a file that cannot be read).
BenchFile load_collectives(const CalibrationOptions& o, const Capabilities& caps) {
  BenchFile bench = load_bench(o.collectives_path);
  if (bench.provenance.device != caps.device)
    throw InputError("--collectives: " + o.collectives_path + " was measured on '" + bench.provenance.device +
                     "', not on the calibrated device '" + caps.device + "'");
  return bench;
}

// Measured pair files named by `option` (--pairs, --dma-pairs): train split only, of the
// calibrated device's GPU model (any count: kernels per shape may come from a one-GPU run,
// measure --gemms-only). Returns the files and their paths, comma-separated.
std::pair<std::vector<RawMeasurements>, std::string> load_pair_files(const std::vector<std::string>& paths,
                                                                      const std::string& option,
                                                                      const CalibrationOptions& o,
                                                                      const Capabilities& caps) {
  std::vector<RawMeasurements> files;
  std::string joined;
  for (const std::string& path : paths) {
    io::require_not_test(o.splits, path, "calibrate " + option);
    files.push_back(load_raw_measurements(path));
    if (gpu_model(files.back().provenance.device) != gpu_model(caps.device))
      throw InputError(option + ": " + path + " was measured on '" + files.back().provenance.device +
                       "', not on the calibrated device's GPU '" + gpu_model(caps.device) + "'");
    joined += (joined.empty() ? "" : ", ") + path;
  }
  return {std::move(files), joined};
}

// The copy-engine implementation taken from options.collectives_path instead of measured
// (shipped_dma.hpp): options.dma_variant when the backend cannot run it and a collectives
// file is given; none otherwise. Throws InputError (ConfigError naming the file and field)
// when the file lacks what the profile needs.
std::optional<ShippedDma> shipped_dma(const CalibrationOptions& o, const Capabilities& caps) {
  if (o.dma_variant.empty() || o.collectives_path.empty()) return std::nullopt;
  if (std::find(caps.dma_variants.begin(), caps.dma_variants.end(), o.dma_variant) != caps.dma_variants.end()) {
    if (!o.dma_pairs_paths.empty())
      throw InputError("--dma-pairs: backend '" + caps.backend + "' runs " + o.dma_variant +
                       " itself; pairs it measured are fitted with --pairs");
    return std::nullopt;
  }
  ShippedDma shipped{o.dma_variant, o.collectives_path, load_collectives(o, caps), {}, {}};
  check_shipped_dma(shipped, o.gpus);
  std::tie(shipped.pairs, shipped.pairs_ref) = load_pair_files(o.dma_pairs_paths, "--dma-pairs", o, caps);
  return shipped;
}

// Selects options.dma_variant on the backend (its default in `shipped` mode); a name the
// backend cannot run without a collectives file is refused with what would make it work.
void select_dma_variant(Validator& validator, const CalibrationOptions& o, bool shipped) {
  try {
    validator.set_dma_variant(shipped ? std::string() : o.dma_variant);
  } catch (const InputError& e) {
    throw InputError(std::string(e.what()) +
                     "; a copy-engine implementation that runs elsewhere is calibrated from its "
                     "bench-collective measurements: --collectives FILE (docs/calibration.md)");
  }
}

// The records of options.collectives_path to seed the calibration with (none without one).
std::vector<Record> collective_seeds(const CalibrationOptions& o, const Capabilities& caps,
                                     const std::string& dma_variant) {
  if (o.collectives_path.empty()) return {};
  return bench_records_as_queries(load_collectives(o, caps), o.gpus, dma_variant);
}

// Adds `seeds` to `raw`: a successful record already there (resumed) wins, a failed one is
// replaced. Returns how many were taken.
std::size_t add_seeds(RawMeasurements& raw, const std::vector<Record>& seeds) {
  std::map<std::string, std::size_t> position;
  for (std::size_t i = 0; i < raw.records.size(); ++i) position.emplace(measurement_key(raw.records[i].query), i);
  std::size_t taken = 0;
  for (const Record& seed : seeds) {
    const std::string key = measurement_key(seed.query);
    const auto it = position.find(key);
    if (it == position.end()) {
      position.emplace(key, raw.records.size());
      raw.records.push_back(seed);
    } else if (!raw.records[it->second].measurement.ok) {
      raw.records[it->second] = seed;
    } else {
      continue;
    }
    ++taken;
  }
  return taken;
}

// Notes every failed record; counts those of this run's plan and those kept from an
// earlier plan separately.
void note_failures(const std::set<std::string>& planned, CalibrationResult& result) {
  for (const Record& r : result.raw.records) {
    if (r.measurement.ok) continue;
    const std::string key = measurement_key(r.query);
    if (planned.count(key)) {
      ++result.failed;
      result.notes.push_back("failed: " + key + ": " + r.measurement.error);
    } else {
      ++result.failed_unplanned;
      result.notes.push_back("kept from an earlier plan, not used: " + key + ": " + r.measurement.error);
    }
  }
}

// Fits the unaligned GEMMs' factors from options.unaligned_gemms_paths (unaligned_fit.hpp).
void fit_unaligned(HardwareProfile& hw, const CalibrationOptions& o, const Capabilities& caps,
                   std::vector<std::string>& notes) {
  if (o.unaligned_gemms_paths.empty()) return;
  const auto [files, paths] = load_pair_files(o.unaligned_gemms_paths, "--unaligned-gemms", o, caps);
  const Provenance source{SourceKind::measured, paths};
  const UnalignedFit fit = fit_unaligned_gemms(hw, files, source, notes);
  hw.gemm_unaligned_compute = fit.compute;
  hw.gemm_unaligned_memory = fit.memory;
  hw.gemm_unaligned_latency_s = fit.latency_s;
  // A table not fitted is left out of the profile (factor 1, no fixed time), with no source.
  for (const auto& [key, table] : {std::pair{"gemm_unaligned_compute", &fit.compute},
                                   std::pair{"gemm_unaligned_memory", &fit.memory},
                                   std::pair{"gemm_unaligned_latency_s", &fit.latency_s}}) {
    if (table->x.empty())
      hw.sources.erase(key);
    else
      hw.sources[key] = source;
  }
  hw.provenance_details["unaligned_gemms"] = paths;
}

// Fits collective_slowdown_by_size from options.collective_partitions_paths (partition_fit.hpp).
void fit_partitions(HardwareProfile& hw, const CalibrationOptions& o, const Capabilities& caps,
                    std::vector<std::string>& notes) {
  if (o.collective_partitions_paths.empty()) return;
  const auto [files, paths] = load_pair_files(o.collective_partitions_paths, "--collective-partitions", o, caps);
  const Provenance source{SourceKind::measured, paths};
  hw.collective_slowdown_by_size = fit_collective_partitions(files, o.gpus, hw.compute_units, source, notes);
  if (hw.collective_slowdown_by_size.empty())
    throw InputError("--collective-partitions " + paths + ": no collective measured at " + std::to_string(o.gpus) +
                     " ranks both on the default CUs and on fewer (nothing to fit)");
  for (const auto& [kind, table] : hw.collective_slowdown_by_size) hw.sources["tables." + table.name] = source;
  hw.provenance_details["collective_partitions"] = paths;
}

// Refines the fitted profile from options.pairs_paths (pairs_fit.hpp). Returns the files read
// (none without --pairs), for the fits after it.
std::vector<RawMeasurements> fit_pairs(HardwareProfile& hw, const CalibrationOptions& o, const Capabilities& caps,
                                       std::vector<std::string>& notes) {
  if (o.pairs_paths.empty()) return {};
  auto [files, paths] = load_pair_files(o.pairs_paths, "--pairs", o, caps);
  fit_from_pairs(hw, files, Provenance{SourceKind::measured, paths}, notes,
                 PairFitOptions{o.fit_launch, o.chained_pairs, o.schedule_corrections});
  hw.provenance_details["pairs"] = paths;
  if (o.chained_pairs) hw.provenance_details["pairs_priced"] = "chained";
  return std::move(files);
}

// Fits chunk_batch_reread from options.batched_step_pairs_paths alone (pairs_fit.hpp).
void fit_batched_step(HardwareProfile& hw, const CalibrationOptions& o, const Capabilities& caps,
                      std::vector<std::string>& notes) {
  if (o.batched_step_pairs_paths.empty()) return;
  const auto [files, paths] = load_pair_files(o.batched_step_pairs_paths, "--batched-step-pairs", o, caps);
  const std::vector<PairObservation> dependent = predictable(hw, dependent_observations(files), notes);
  if (!fit_batch_reread(hw, dependent, Provenance{SourceKind::measured, paths}, notes))
    throw InputError("--batched-step-pairs " + paths +
                     ": no decomposed schedule whose batched step GEMM is memory-bound (nothing to fit)");
  hw.provenance_details["batched_step_pairs"] = paths;
}

// Fits sustained_gemm_slowdown from options.sustained_path (sustained_fit.hpp).
void fit_sustained(HardwareProfile& hw, const CalibrationOptions& o, const Capabilities& caps,
                   std::vector<std::string>& notes) {
  if (o.sustained_path.empty()) return;
  io::require_not_test(o.splits, o.sustained_path, "calibrate --sustained");
  const SustainedFile file = load_sustained(o.sustained_path);
  if (gpu_model(file.provenance.device) != gpu_model(caps.device))
    throw InputError("--sustained: " + o.sustained_path + " was measured on '" + file.provenance.device +
                     "', not on the calibrated device's GPU '" + gpu_model(caps.device) + "'");
  const Provenance source{SourceKind::measured, o.sustained_path};
  hw.sustained_gemm_slowdown = fit_sustained_slowdown(file, source, notes);
  if (!hw.sustained_gemm_slowdown.x.empty()) hw.sources["sustained_gemm_slowdown"] = source;
  hw.provenance_details["sustained"] = o.sustained_path;
}

// Fits strategy_corrections from options.strategy_correction_pairs_paths, last (pairs_fit.hpp);
// `pairs`: the --pairs files, whose prediction_error is computed again with the corrections.
void fit_strategy_correction_pairs(HardwareProfile& hw, const CalibrationOptions& o, const Capabilities& caps,
                                   const std::vector<RawMeasurements>& pairs, std::vector<std::string>& notes) {
  if (o.strategy_correction_pairs_paths.empty()) return;
  const auto [files, paths] =
      load_pair_files(o.strategy_correction_pairs_paths, "--strategy-correction-pairs", o, caps);
  const std::vector<PairObservation> independent = independent_observations(hw, files, o.chained_pairs, notes);
  const std::size_t groups = fit_strategy_corrections(hw, independent, o.strategy_correction_min_s);
  std::string line;
  for (const auto& [g, factor] : hw.strategy_corrections)
    line += (line.empty() ? "" : ", ") + std::string(to_string(g.kind)) + " " + std::string(to_string(g.gemm_class)) +
            " " + g.strategy + " " + std::to_string(factor);
  notes.push_back("strategy_corrections: " + std::to_string(groups) + " groups of at least " +
                  std::to_string(kMinPairsPerStrategyGroup) + " strategies predicted at " +
                  std::to_string(o.strategy_correction_min_s * 1e6) + " us or more, from " +
                  std::to_string(independent.size()) + " observations" + (line.empty() ? "" : " (" + line + ")"));
  if (groups > 0)
    hw.sources["strategy_corrections"] = Provenance{SourceKind::measured, paths};
  else
    hw.sources.erase("strategy_corrections");
  hw.provenance_details["strategy_correction_pairs"] = paths;
  // The independent kinds' expected errors (prediction_error: the advice's confidence) are the
  // --pairs' p90 after every fit, so again with the corrections; the dependent ones are kept.
  if (groups == 0 || pairs.empty()) return;
  std::vector<std::string> skipped;  // noted once already, by fit_pairs
  const std::vector<PairObservation> usable = independent_observations(hw, pairs, o.chained_pairs, skipped);
  if (usable.empty()) return;
  std::map<std::string, double> errors = prediction_errors(hw, usable);
  std::string kept;
  for (const char* key : {"chunked", kPartitionedScheduleError})
    if (const auto it = hw.prediction_error.find(key); it != hw.prediction_error.end()) {
      errors[key] = it->second;
      kept += std::string(kept.empty() ? "" : ", ") + key + " " + std::to_string(it->second);
    }
  hw.prediction_error = errors;
  notes.push_back("prediction_error: the independent kinds' p90 over the --pairs again, with the strategy corrections" +
                  (kept.empty() ? std::string() : "; kept from the dependent pairs: " + kept));
}

// Fits gemm_times from options.gemm_times_paths, after every other fit (gemm_times_fit.hpp).
void fit_gemm_times_files(HardwareProfile& hw, const CalibrationOptions& o, const Capabilities& caps,
                          std::vector<std::string>& notes) {
  if (o.gemm_times_paths.empty()) return;
  const auto [files, paths] = load_pair_files(o.gemm_times_paths, "--gemm-times", o, caps);
  for (std::size_t i = 0; i < files.size(); ++i)
    if (files[i].provenance.device != caps.device)
      throw InputError("--gemm-times: " + o.gemm_times_paths[i] + " was measured on '" +
                       files[i].provenance.device + "', not on the calibrated device '" + caps.device + "'");
  hw.gemm_times = fit_gemm_times(files, o.gemm_times_paths, notes);
  if (hw.gemm_times.empty())
    throw InputError("--gemm-times " + paths +
                     ": no ok, verified isolated GEMM on every CU (nothing to fit)");
  hw.sources["gemm_times"] = Provenance{SourceKind::measured, "the " + std::to_string(files.size()) +
                                                                  " files of provenance.gemm_times"};
  hw.provenance_details["gemm_times"] = paths;
}

// Fits schedule_hedges from options.hedge_pairs_paths, after every other fit and the queued
// copy-engine steps' terms (pairs_fit.hpp).
void fit_hedge_pairs(HardwareProfile& hw, const CalibrationOptions& o, const Capabilities& caps,
                     std::vector<std::string>& notes) {
  if (o.hedge_pairs_paths.empty()) return;
  std::vector<RawMeasurements> files;  // one per set: a file, or the median over "A+B+C"
  std::string paths;
  for (const std::string& set : o.hedge_pairs_paths) {
    const std::vector<std::string> names = replay_files(set);
    auto [processes, joined] = load_pair_files(names, "--hedge-pairs", o, caps);
    files.push_back(processes.size() == 1 ? std::move(processes.front())
                                          : median_over_processes(std::move(processes), names));
    paths += (paths.empty() ? "" : ", ") + set;
  }
  std::vector<std::string> skipped;
  const std::size_t families = fit_schedule_hedges(hw, files, skipped);
  if (!skipped.empty())
    notes.push_back("schedule_hedges: skipped " + std::to_string(skipped.size()) +
                    " observations the model cannot predict (first: " + skipped.front() + ")");
  std::string line;
  for (const auto& [g, error] : hw.schedule_hedges)
    line += (line.empty() ? "" : ", ") + std::string(to_string(g.dependency)) + " " +
            std::string(to_string(g.kind)) + " " + std::to_string(error);
  notes.push_back("schedule_hedges: " + std::to_string(families) + " families of at least " +
                  std::to_string(kMinPairsPerHedgeGroup) + " pairs, from " + std::to_string(files.size()) +
                  " sets" + (line.empty() ? "" : " (" + line + ")"));
  if (families > 0)
    hw.sources["schedule_hedges"] = Provenance{SourceKind::measured, "the " + std::to_string(files.size()) +
                                                                         " sets of provenance.hedge_pairs"};
  else
    hw.sources.erase("schedule_hedges");
  hw.provenance_details["hedge_pairs"] = paths;
}

// The queued copy-engine steps' terms as given (options.dma_step_*), after every fit but the
// hedges: they were chosen with the fitted terms (model.md §7.3), and the hedges, a decision
// rule over the model's predictions, are chosen with them.
void set_dma_steps(HardwareProfile& hw, const CalibrationOptions& o, std::vector<std::string>& notes) {
  const std::string ref =
      "given to calibrate (--dma-step-latency-us, --dma-step-min-us): chosen on the dependent train "
      "sets by leaving one seed out (scripts/loso_dma_step.py, docs/accuracy.md \"Queued "
      "copy-engine steps\")";
  if (o.dma_step_latency_s) {
    hw.chunk_dma_step_latency_s = o.dma_step_latency_s;
    hw.sources["chunk_dma_step_latency_s"] = Provenance{SourceKind::measured, ref};
    notes.push_back("chunk_dma_step_latency_s: " + std::to_string(*o.dma_step_latency_s * 1e6) +
                    " us (given)");
  }
  if (o.dma_step_min_s) {
    hw.chunk_dma_step_min_s = o.dma_step_min_s;
    hw.sources["chunk_dma_step_min_s"] = Provenance{SourceKind::measured, ref};
    notes.push_back("chunk_dma_step_min_s: " + std::to_string(*o.dma_step_min_s * 1e6) + " us (given)");
  }
}

}  // namespace

CalibrationResult calibrate(Validator& validator, const HardwareProfile& base,
                            const CalibrationOptions& options, const ProgressFn& progress) {
  const Capabilities caps = validator.capabilities();
  check_options(options, caps);
  const std::optional<ShippedDma> shipped = shipped_dma(options, caps);
  select_dma_variant(validator, options, shipped.has_value());  // throws InputError for an unknown name
  RawProvenance now = provenance_now(options, caps);
  if (!validator.dma_variant().empty()) now.notes.push_back("dma variant: " + validator.dma_variant());
  // A shipped variant's curves replace the fitted ones at the end; nothing is seeded, so that
  // every value fitted before (interference pairs sized from the curves) is the backend's.
  const std::vector<Record> seeds = shipped ? std::vector<Record>{} : collective_seeds(options, caps, validator.dma_variant());
  // The raw output holds the seeds too: then only it has every record the values came from.
  const bool seeded = !options.collectives_path.empty() && !shipped;
  const std::string ref = !options.measurements_ref.empty() && !seeded ? options.measurements_ref
                          : options.raw_path.empty()                  ? "c3advisor calibrate"
                                                                      : options.raw_path;
  const Provenance source{SourceKind::measured, ref};
  CalibrationResult result;
  result.profile = identity(base, options, now, source);
  result.profile.strategy_corrections.clear();  // fitted against the base's terms: stale here
  result.profile.sources.erase("strategy_corrections");
  result.profile.schedule_hedges.clear();  // chosen with the base's terms: stale here
  result.profile.sources.erase("schedule_hedges");
  result.profile.chunk_dma_step_latency_s.reset();  // chosen with the base's terms too
  result.profile.chunk_dma_step_min_s.reset();
  result.profile.sources.erase("chunk_dma_step_latency_s");
  result.profile.sources.erase("chunk_dma_step_min_s");
  result.profile.gemm_times.clear();  // measured on the base's machine
  result.profile.sources.erase("gemm_times");
  for (const auto& [kind, table] : result.profile.collective_slowdown_by_size)  // the class tables are measured
    result.profile.sources.erase("tables." + table.name);                     // again: fitted anew or none
  result.profile.collective_slowdown_by_size.clear();
  if (!validator.dma_variant().empty()) result.profile.provenance_details["dma_variant"] = validator.dma_variant();
  if (!options.collectives_path.empty()) result.profile.provenance_details["collectives"] = options.collectives_path;

  const CalibrationPlan plan = make_plan(result.profile, options.gpus, options.quick);
  const std::vector<Query> isolated = isolated_queries(plan);
  RawMeasurements start = starting_records(options.resume, options.overwrite, options.raw_path, "--raw", now);
  if (shipped) {
    const std::string note = "copy-engine collectives of the profile: " + shipped->variant + " from " +
                             shipped->path + " (not measured here)";
    auto& notes = start.provenance.notes;
    if (std::find(notes.begin(), notes.end(), note) == notes.end()) notes.push_back(note);
  } else if (!options.collectives_path.empty()) {
    const std::size_t taken = add_seeds(start, seeds);
    start.provenance.notes.push_back(
        "collective curves: " + std::to_string(taken) + " records from " + options.collectives_path +
        " (transports " + std::string(kLibraryTransport) +
        (validator.dma_variant().empty() ? "" : ", " + validator.dma_variant()) + ")");
  }
  Recorder recorder(validator, std::move(start), options.raw_path, progress,
                    isolated.size() + interference_query_count(plan));
  const MeasuredFn measured = [&](const Query& q) { return recorder.median(q); };
  std::set<std::string> planned;
  const auto measure = [&](const Query& q) {
    planned.insert(measurement_key(q));
    recorder.measure(q);
  };

  for (const Query& q : isolated) measure(q);
  fit_isolated(result.profile, plan, measured, source, result.notes);

  const std::vector<InterferencePoint> points =
      interference_points(result.profile, plan, measured, result.notes);
  for (const InterferencePoint& p : points) measure(p.query);
  fit_interference(result.profile, points, measured, source, result.notes);
  for (const ConcurrentQuery& q : launch_queries(plan)) measure(q);
  fit_launch(result.profile, plan, measured, source, result.notes);

  result.raw = recorder.raw();
  note_failures(planned, result);
  fit_unaligned(result.profile, options, caps, result.notes);
  const std::vector<RawMeasurements> pairs = fit_pairs(result.profile, options, caps, result.notes);
  fit_batched_step(result.profile, options, caps, result.notes);
  // After the pairs (model.md §3): their interference factors, delay and pipeline terms keep
  // the values fitted against the class tables; the strategy corrections below see the table.
  fit_partitions(result.profile, options, caps, result.notes);
  if (shipped)
    apply_shipped_dma(result.profile, *shipped, options.gpus, validator.dma_variant(), result.notes);
  fit_sustained(result.profile, options, caps, result.notes);
  fit_strategy_correction_pairs(result.profile, options, caps, pairs, result.notes);
  fit_gemm_times_files(result.profile, options, caps, result.notes);
  set_dma_steps(result.profile, options, result.notes);
  fit_hedge_pairs(result.profile, options, caps, result.notes);
  return result;
}

}  // namespace c3::validator
