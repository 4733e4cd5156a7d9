// apps/calibrate.cpp: `c3advisor calibrate`: measure a backend and write a
// profile (docs/calibration.md). Progress goes to stderr, one line per measurement;
// the profile and the raw measurements go to files; stdout gets a summary.
#include <charconv>
#include <filesystem>
#include <iostream>
#include <memory>
#include <optional>

#include "apps/commands.hpp"
#include "apps/options.hpp"
#include "apps/run_support.hpp"
#include "c3/errors.hpp"
#include "c3/evaluate.hpp"
#include "c3/io.hpp"
#include "c3/validator.hpp"
#include "c3/calibrate.hpp"
#include "c3/splits.hpp"

namespace c3::apps {
namespace {

struct CalibrateOptions {
  std::string backend;
  int gpus = 0;
  std::string out;
  std::string raw;
  bool resume = false;
  bool overwrite = false;
  std::string name;
  std::string base_profile = kDefaultProfile;
  int runs = 9;
  int warmup = 6;
  bool quick = false;
  std::string dma_variant;
  std::string collectives;
  std::vector<std::string> pairs;
  bool fit_launch = false;
  bool chained = false;
  bool schedule_corrections = false;
  std::vector<std::string> batched_step_pairs;
  std::vector<std::string> dma_pairs;
  std::string sustained;
  std::vector<std::string> unaligned_gemms;
  std::vector<std::string> collective_partitions;
  std::vector<std::string> strategy_correction_pairs;
  double strategy_correction_min_us = 100;
  std::vector<std::string> gemm_times;
  std::vector<std::string> hedge_pairs;
  std::optional<double> dma_step_latency_us;
  std::optional<double> dma_step_min_us;
  std::string splits = kDefaultSplits;
  CLI::Option* splits_given = nullptr;

  /// --name, else the file name of --out without its extension.
  std::string name_or_default() const {
    return name.empty() ? std::filesystem::path(out).stem().string() : name;
  }
};

// The shortest decimal text that reads back as x.
std::string shortest(double x) {
  char text[32];
  const auto [end, ec] = std::to_chars(text, text + sizeof text, x);
  return ec == std::errc() ? std::string(text, end) : std::to_string(x);
}

// The command line, rebuilt from the parsed options (what a reader needs to rerun it).
std::string command_line(const CalibrateOptions& o, const std::string& raw) {
  std::string cmd = "c3advisor calibrate --backend " + shell_word(o.backend) + " --gpus " +
                    std::to_string(o.gpus) + " --out " + shell_word(o.out) + " --raw " + shell_word(raw) +
                    " --name " + shell_word(o.name_or_default()) + " --base-profile " +
                    shell_word(o.base_profile) + " --runs " + std::to_string(o.runs) + " --warmup " +
                    std::to_string(o.warmup);
  if (o.quick) cmd += " --quick";
  if (!o.dma_variant.empty()) cmd += " --dma-variant " + shell_word(o.dma_variant);
  if (!o.collectives.empty()) cmd += " --collectives " + shell_word(o.collectives);
  for (const std::string& p : o.pairs) cmd += " --pairs " + shell_word(p);
  if (o.fit_launch) cmd += " --fit-launch";
  if (o.chained) cmd += " --chained";
  if (o.schedule_corrections) cmd += " --schedule-corrections";
  for (const std::string& p : o.batched_step_pairs) cmd += " --batched-step-pairs " + shell_word(p);
  for (const std::string& p : o.dma_pairs) cmd += " --dma-pairs " + shell_word(p);
  if (!o.sustained.empty()) cmd += " --sustained " + shell_word(o.sustained);
  for (const std::string& p : o.unaligned_gemms) cmd += " --unaligned-gemms " + shell_word(p);
  for (const std::string& p : o.collective_partitions) cmd += " --collective-partitions " + shell_word(p);
  for (const std::string& p : o.strategy_correction_pairs)
    cmd += " --strategy-correction-pairs " + shell_word(p);
  if (!o.strategy_correction_pairs.empty())
    cmd += " --strategy-correction-min-us " + shortest(o.strategy_correction_min_us);
  for (const std::string& p : o.gemm_times) cmd += " --gemm-times " + shell_word(p);
  for (const std::string& p : o.hedge_pairs) cmd += " --hedge-pairs " + shell_word(p);
  if (o.dma_step_latency_us) cmd += " --dma-step-latency-us " + shortest(*o.dma_step_latency_us);
  if (o.dma_step_min_us) cmd += " --dma-step-min-us " + shortest(*o.dma_step_min_us);
  if (o.resume) cmd += " --resume";
  if (o.overwrite) cmd += " --overwrite";
  return cmd;
}

// Before anything is measured: every file a fit reads is readable and not test, and the
// profile and raw file can be written (a GPU calibration takes minutes; each of these
// failed only at its end).
void check_files(const CalibrateOptions& o, const std::string& raw, const Splits& splits) {
  const std::vector<std::pair<const char*, std::vector<std::string>>> inputs = {
      {"--pairs", o.pairs},
      {"--collectives", o.collectives.empty() ? std::vector<std::string>{} : std::vector{o.collectives}},
      {"--batched-step-pairs", o.batched_step_pairs},
      {"--dma-pairs", o.dma_pairs},
      {"--sustained", o.sustained.empty() ? std::vector<std::string>{} : std::vector{o.sustained}},
      {"--unaligned-gemms", o.unaligned_gemms},
      {"--collective-partitions", o.collective_partitions},
      {"--strategy-correction-pairs", o.strategy_correction_pairs},
      {"--gemm-times", o.gemm_times},
      {"--hedge-pairs", o.hedge_pairs}};
  for (const auto& [option, paths] : inputs)
    for (const std::string& path : paths) {
      // --hedge-pairs takes sets of processes, "A+B+C"
      const bool sets = std::string_view(option) == "--hedge-pairs";
      for (const std::string& file : sets ? validator::replay_files_of("replay:" + path) : std::vector{path}) {
        io::require_not_test(splits, file, std::string("calibrate ") + option);
        io::require_readable(file);
      }
    }
  io::require_writable(o.out);
  if (!o.resume) io::require_writable(raw);
  validator::require_resume_or_overwrite(raw, o.resume, o.overwrite,
                                         o.raw.empty() ? "the default --raw" : "--raw");
}

std::string run_calibrate(const CalibrateOptions& o) {
  const std::string raw = o.raw.empty() ? std::filesystem::path(o.out).replace_extension(".raw.json").string() : o.raw;
  const Splits splits = io::load_splits(o.splits, o.splits_given->count() == 0);
  for (const std::string& file : validator::replay_files_of(o.backend))  // each of "replay:A+B+C"
    io::require_not_test(splits, file, "calibrate --backend replay");
  check_files(o, raw, splits);
  const HardwareProfile base = io::resolve_profile(o.base_profile);
  const std::unique_ptr<Validator> backend = make_validator(o.backend, base);
  backend->set_run_config(RunConfig{o.warmup, o.runs});

  validator::CalibrationOptions options;
  options.gpus = o.gpus;
  options.quick = o.quick;
  options.dma_variant = o.dma_variant;
  options.collectives_path = o.collectives;
  options.pairs_paths = o.pairs;
  options.fit_launch = o.fit_launch;
  options.chained_pairs = o.chained;
  options.schedule_corrections = o.schedule_corrections;
  options.batched_step_pairs_paths = o.batched_step_pairs;
  options.dma_pairs_paths = o.dma_pairs;
  options.sustained_path = o.sustained;
  options.unaligned_gemms_paths = o.unaligned_gemms;
  options.collective_partitions_paths = o.collective_partitions;
  options.strategy_correction_pairs_paths = o.strategy_correction_pairs;
  options.strategy_correction_min_s = o.strategy_correction_min_us / 1e6;
  options.gemm_times_paths = o.gemm_times;
  options.hedge_pairs_paths = o.hedge_pairs;
  if (o.dma_step_latency_us) options.dma_step_latency_s = *o.dma_step_latency_us / 1e6;
  if (o.dma_step_min_us) options.dma_step_min_s = *o.dma_step_min_us / 1e6;
  options.splits = splits;
  options.name = o.name_or_default();
  options.raw_path = raw;
  if (o.backend.rfind("replay:", 0) == 0) options.measurements_ref = o.backend.substr(7);
  options.resume = o.resume;
  options.overwrite = o.overwrite;
  options.git_sha = git_sha();
  options.date = utc_now();
  options.command = command_line(o, raw);

  const validator::CalibrationResult result = validator::calibrate(*backend, base, options, print_step);
  for (const std::string& note : result.notes) std::cerr << "note: " << note << "\n";
  io::write_file(o.out, io::profile_yaml(result.profile));

  return "wrote " + o.out + " (profile '" + result.profile.name + "') from " +
         std::to_string(result.raw.records.size() - result.failed_unplanned) + " measurements (" +
         std::to_string(result.failed) + " failed) in " + raw +
         (result.failed_unplanned == 0 ? std::string()
                                       : "; " + std::to_string(result.failed_unplanned) +
                                             " failed records of an earlier plan kept there, not used") +
         "\n";
}

}  // namespace

Command add_calibrate(CLI::App& app) {
  auto o = std::make_shared<CalibrateOptions>();
  CLI::App* sub = app.add_subcommand(
      "calibrate", "Measure a GPU node (or the simulator) and write a profile with measured tables");
  sub->add_option("--backend", o->backend, "Validator backend: sim[:noise=X,seed=N], cuda[:N[,OPTION=VALUE...]], hip[:N[,...]] (docs/device.md), replay:FILE")
      ->required();
  sub->add_option("--gpus", o->gpus, "GPUs (ranks) of every collective, at least 2")->required();
  sub->add_option("--out", o->out, "The profile to write (YAML)")->required();
  sub->add_option("--raw", o->raw, "Raw measurements JSON, saved after every measurement (default: OUT with .raw.json)");
  add_resume_options(*sub, o->resume, o->overwrite, "--raw");
  sub->add_option("--name", o->name, "The profile's name (default: the file name of --out without .yaml)");
  sub->add_option("--base-profile", o->base_profile,
                  "Profile (embedded name or file) for the partition grid and every value not measured")
      ->capture_default_str();
  sub->add_option("--runs", o->runs, "Measured runs per measurement")->capture_default_str()->transform(positive_check());
  sub->add_option("--warmup", o->warmup, "Warm-up runs per measurement")->capture_default_str()->transform(non_negative_check());
  sub->add_option("--dma-variant", o->dma_variant,
                  "Copy-engine implementation calibrated as the dma transport (bench-collective's "
                  "transport names, e.g. ce_push_peer; default: the backend's). One the backend cannot "
                  "run (e.g. torch_symm_pull) is taken from --collectives");
  sub->add_option("--collectives", o->collectives,
                  "bench-collective JSON measured on the same device: its curves at --gpus ranks on nccl "
                  "and on the dma variant calibrated are taken instead of measured again (only the dma "
                  "variant's, after every other fit, when the backend cannot run it)");
  CLI::Option* pairs_option = sub->add_option("--pairs", o->pairs,
                  "Measured pairs (measure's raw JSON, train split only; repeatable): the GEMM kernels "
                  "per shape, each collective kind's interference and the GEMM-first delay are fitted "
                  "from them after the calibration (docs/calibration.md)");
  sub->add_flag("--fit-launch", o->fit_launch,
                "With --pairs: refit each transport's collective launch cost from the pairs' decisions "
                "(25 values over [0, 4 x the GEMM latency], the kinds' factors refitted at each) instead "
                "of keeping the calibration's tiny-pair value (docs/model.md §4.4)")
      ->needs(pairs_option);
  sub->add_flag("--chained", o->chained,
                "With --pairs: price the independent pairs chained in every fit (docs/model.md 4.6: queued "
                "ahead, no launch cost, collective-first as GEMM-first), for a profile of queued-ahead work "
                "fitted from gated runs (gate=1); ask it with advise/validate --chained")
      ->needs(pairs_option);
  sub->add_flag("--schedule-corrections", o->schedule_corrections,
                "With --pairs: also fit one factor per group of decomposed schedules (dependency, kind, "
                "transport, partition, chunks) with at least 4 of them among the dependent pairs: the "
                "median of their measured / predicted ratio to serial (docs/model.md 7.4)")
      ->needs(pairs_option);
  sub->add_option("--batched-step-pairs", o->batched_step_pairs,
                  "Dependent pairs (measure's raw JSON, train split only; repeatable) fitted for one value "
                  "only, after --pairs: the share of B each block of a memory-bound batched step GEMM reads "
                  "again (chunk_batch_reread, docs/model.md §7.3)");
  sub->add_option("--dma-pairs", o->dma_pairs,
                  "Pairs timed with the --dma-variant taken from --collectives (measurement JSON of "
                  "scripts/gpu-jobs/torch_pairs.py, train split only; repeatable): that variant's "
                  "interference with GEMMs per kind and its launch cost are refitted from them");
  sub->add_option("--sustained", o->sustained,
                  "GEMMs timed alone and back to back on the same GPU model (JSON of "
                  "scripts/gpu-jobs/torch_sustained.py, train split only): the slowdown of a GEMM in a "
                  "chain at the GPU's power limit is fitted from it (docs/model.md §4.6)");
  sub->add_option("--unaligned-gemms", o->unaligned_gemms,
                  "Measurement JSON of `measure` (train split only; repeatable): their isolated GEMMs whose "
                  "leading dimensions are not multiples of 16 bytes fit the factors of the slower kernels "
                  "such GEMMs get (gemm_unaligned_compute / _memory, docs/model.md §1.1)");
  sub->add_option("--collective-partitions", o->collective_partitions,
                  "Measurement JSON of `measure --isolated-only --collective-partitions` (train split only; "
                  "repeatable): the collectives timed on NCCL's own CTAs and on fewer fit the slowdown of a "
                  "collective in a partition by size and CTAs (collective_slowdown_by_size, docs/model.md §3)");
  CLI::Option* correction_pairs = sub->add_option(
      "--strategy-correction-pairs", o->strategy_correction_pairs,
      "Independent pairs (measure's raw JSON, train split only; repeatable) fitted for one term only, after "
      "every other fit: per group (collective kind, GEMM class, strategy) of at least 20 concurrent "
      "strategies predicted at --strategy-correction-min-us or more, the median of their measured / "
      "predicted ratio to serial (strategy_corrections, docs/model.md §4.7)");
  sub->add_option("--strategy-correction-min-us", o->strategy_correction_min_us,
                  "With --strategy-correction-pairs: the least predicted time, in us, a correction is fitted "
                  "from and applied to (default 100)")
      ->check(CLI::Range(0.0, 1e6))
      ->needs(correction_pairs);
  sub->add_option(
      "--gemm-times", o->gemm_times,
      "Measurement JSON of `measure` on the calibrated device itself (train split only; repeatable), "
      "all host-paced or all gated: their isolated GEMMs' medians, per shape the median over the "
      "files, become the profile's GEMM times (gemm_times: a GEMM of one of these shapes takes its "
      "measured time instead of the roofline; docs/model.md §1.2); fitted after every other fit");
  sub->add_option(
      "--hedge-pairs", o->hedge_pairs,
      "Dependent pairs (measure's raw JSON, train split only; repeatable; FILE, or FILE1+FILE2[+...]: "
      "the same pairs measured in several processes, each time the median over them, as "
      "validate's replay:A+B+C) fitted for one term only, after every other fit: per family "
      "(dependency, collective kind) of at least 20 pairs, the hedge error of its schedules "
      "without a partition whose picks do best on them, a pick more than 1% slower than serial "
      "costing 3 right ones (schedule_hedges, docs/model.md \"The recommendation\")");
  CLI::Option* dma_step =
      sub->add_option("--dma-step-latency-us", o->dma_step_latency_us,
                      "The fixed cost, in us, of a copy-engine step of a decomposed schedule queued behind "
                      "another, in place of the transport's latency (chunk_dma_step_latency_s, docs/model.md "
                      "§7.3); set after the fits, before the hedges are chosen, as given (chosen on train: "
                      "scripts/loso_dma_step.py)")
          ->check(CLI::Range(0.0, 1e6));
  sub->add_option("--dma-step-min-us", o->dma_step_min_us,
                  "With --dma-step-latency-us: a queued step shorter than this, in us, keeps the transport's "
                  "latency (chunk_dma_step_min_s; the host's issue paces short steps)")
      ->check(CLI::Range(0.0, 1e6))
      ->needs(dma_step);
  o->splits_given = sub->add_option("--splits", o->splits,
                                    "Train/test manifest: a measurement file listed as test there is refused "
                                    "(default: data/splits.yaml when present)");
  sub->add_flag("--quick", o->quick, "Fewer sizes (x8 steps up to 1 GiB) and a power-of-two CU grid");
  sub->footer(
      "Examples:\n"
      "  c3advisor calibrate --backend sim --gpus 8 --out sim_mi300x.yaml --quick\n"
      "  c3advisor calibrate --backend cuda --gpus 4 --base-profile h200_sxm \\\n"
      "      --out data/profiles/h200x4.yaml --raw data/measurements/h200x4_calibration.json --resume\n"
      "  c3advisor calibrate --backend cuda:2 --gpus 2 --base-profile h200_sxm --out h200x2.yaml \\\n"
      "      --dma-variant ce_push_peer --collectives data/measurements/collectives-h200x2-2026-11-22.json\n"
      "  c3advisor calibrate --backend replay:data/measurements/calibration-h200x2-2026-11-22.json --gpus 2 \\\n"
      "      --base-profile h200_sxm --out h200x2-torch.yaml --dma-variant torch_symm_pull \\\n"
      "      --collectives data/measurements/collectives-torch-h200x2-2026-11-23.json");
  return {sub, [o] { return run_calibrate(*o); }};
}

}  // namespace c3::apps
