// apps/measure.cpp: `c3advisor measure`: ground truth. Runs every strategy of
// every scenario on a backend and writes the raw measurements (JSON), saved after
// each measurement so that a crashed run resumes (--resume).
#include <cstdio>
#include <memory>

#include "apps/commands.hpp"
#include "apps/options.hpp"
#include "apps/run_support.hpp"
#include "c3/errors.hpp"
#include "c3/io.hpp"
#include "c3/validator.hpp"
#include "c3/measure.hpp"

namespace c3::apps {
namespace {

struct MeasureCliOptions {
  std::string backend;
  std::string profile;
  std::string scenarios = "paper";
  std::string only;  // comma-separated pair names
  int ranks = 0;
  std::string out;
  bool resume = false;
  bool overwrite = false;
  std::vector<int> rp = {16, 32, 64};
  std::vector<int> dma_rp = {8, 16};
  std::vector<int> chunks = {2, 4, 8};
  std::vector<int> chunked_cus = {16};
  int runs = 9;
  int warmup = 6;
  double min_time_s = 0;
  double min_warmup_s = 0;
  int max_runs = 1000;
  int rounds = 1;
  std::string dma_variant;
  bool gemms_only = false;
  bool gemm_partitions = false;
  bool isolated_only = false;
  bool collective_partitions = false;
};

// A number of seconds as the command line took it (%g: 0.002, 1e-05).
std::string seconds_arg(double s) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", s);
  return buf;
}

std::string command_line(const MeasureCliOptions& o) {
  std::string cmd = "c3advisor measure --backend " + shell_word(o.backend) + " --profile " +
                    shell_word(o.profile) + " --scenarios " + shell_word(o.scenarios) + " --out " +
                    shell_word(o.out) + " --rp " + join_ints(o.rp) + " --dma-rp " + join_ints(o.dma_rp) +
                    " --chunks " + join_ints(o.chunks) +
                    (o.chunked_cus.empty() ? std::string() : " --chunked-cus " + join_ints(o.chunked_cus)) +
                    " --runs " + std::to_string(o.runs) + " --warmup " + std::to_string(o.warmup);
  if (o.min_time_s > 0) cmd += " --min-time " + seconds_arg(o.min_time_s);
  if (o.min_warmup_s > 0) cmd += " --min-warmup-time " + seconds_arg(o.min_warmup_s);
  if (o.min_time_s > 0 || o.min_warmup_s > 0) cmd += " --max-runs " + std::to_string(o.max_runs);
  if (o.rounds > 1) cmd += " --rounds " + std::to_string(o.rounds);
  if (o.ranks > 0) cmd += " --ranks " + std::to_string(o.ranks);
  if (!o.only.empty()) cmd += " --only " + shell_word(o.only);
  if (!o.dma_variant.empty()) cmd += " --dma-variant " + shell_word(o.dma_variant);
  if (o.gemms_only) cmd += " --gemms-only";
  if (o.isolated_only) cmd += " --isolated-only";
  if (o.gemm_partitions) cmd += " --gemm-partitions";
  if (o.collective_partitions) cmd += " --collective-partitions";
  if (o.resume) cmd += " --resume";
  if (o.overwrite) cmd += " --overwrite";
  return cmd;
}

std::string run_measure(const MeasureCliOptions& o) {
  if (o.gemm_partitions && !o.gemms_only && !o.isolated_only)
    throw InputError("--gemm-partitions needs --gemms-only or --isolated-only");
  validator::require_resume_or_overwrite(o.out, o.resume, o.overwrite, "--out");  // before a GPU starts
  const HardwareProfile hw = io::resolve_profile(o.profile);
  std::vector<C3Pair> pairs = select_scenarios(io::resolve_scenarios(o.scenarios), o.only);
  if (o.ranks > 0) io::set_ranks(pairs, o.ranks);
  const std::unique_ptr<Validator> backend = make_validator(o.backend, hw);
  RunConfig runs{o.warmup, o.runs};
  runs.min_time_s = o.min_time_s;
  runs.min_warmup_s = o.min_warmup_s;
  runs.max_runs = o.max_runs;
  backend->set_run_config(runs);  // InputError on an inconsistent set

  validator::MeasureOptions options;
  options.parameters["rp"] = o.rp;
  options.parameters["dma_rp"] = o.dma_rp;
  options.parameters["chunked"] = o.chunks;
  if (!o.chunked_cus.empty()) options.parameters["chunked_cus"] = o.chunked_cus;
  options.raw_path = o.out;
  options.resume = o.resume;
  options.overwrite = o.overwrite;
  options.dma_variant = o.dma_variant;
  options.gemms_only = o.gemms_only;
  options.gemm_partitions = o.gemm_partitions;
  options.isolated_only = o.isolated_only;
  options.collective_partitions = o.collective_partitions;
  options.rounds = o.rounds;
  options.git_sha = git_sha();
  options.date = utc_now();
  options.command = command_line(o);
  const validator::RawMeasurements raw = validator::measure(*backend, pairs, options, print_step);

  const std::size_t failed = count_failed(raw);
  if (failed > 0 && failed == raw.records.size())
    throw Error("every one of the " + std::to_string(failed) + " measurements failed (their errors are in " +
                o.out + ")");
  return "wrote " + o.out + ": " + std::to_string(raw.records.size()) + " measurements of " +
         std::to_string(pairs.size()) + " scenarios (" + std::to_string(failed) + " failed)\n";
}

}  // namespace

Command add_measure(CLI::App& app) {
  auto o = std::make_shared<MeasureCliOptions>();
  CLI::App* sub = app.add_subcommand(
      "measure", "Measure every strategy of every scenario on a backend (ground truth, raw JSON)");
  sub->add_option("--backend", o->backend, "Validator backend: sim[:noise=X,seed=N], cuda[:N[,OPTION=VALUE...]], hip[:N[,...]] (docs/device.md), replay:FILE")
      ->required();
  add_profile_option(*sub, o->profile);
  sub->add_option("--scenarios", o->scenarios, "'paper' or a scenarios YAML file")->capture_default_str();
  sub->add_option("--only", o->only, "Comma-separated scenario names to measure (default: all)");
  add_ranks_option(*sub, o->ranks, "default: each scenario's own")->check(CLI::Range(2, 1 << 20));
  sub->add_option("--out", o->out, "Raw measurements JSON, saved after every measurement")->required();
  add_resume_options(*sub, o->resume, o->overwrite, "--out");
  sub->add_option("--rp", o->rp, "Collective CU counts measured for rp")->delimiter(',')->capture_default_str()
      ->transform(positive_check());
  sub->add_option("--dma-rp", o->dma_rp, "CUs the GEMM gives up under dma_rp")->delimiter(',')
      ->capture_default_str()->transform(positive_check());
  sub->add_option("--chunks", o->chunks,
                  "Dependent pairs: chunk counts measured for chunked:C:cu and chunked:C:dma (those the "
                  "ranks divide and that divide m)")
      ->delimiter(',')->capture_default_str()->check(CLI::Range(1, 1 << 16));
  sub->add_option("--chunked-cus", o->chunked_cus,
                  "Dependent pairs: partitions (SMs/CUs) measured for chunked:C:cu:c")
      ->delimiter(',')->capture_default_str()->transform(positive_check());
  sub->add_option("--dma-variant", o->dma_variant,
                  "Copy-engine implementation of dma and dma_rp (bench-collective's transport names, "
                  "e.g. ce_push_batch_ovl; default: the backend's)");
  CLI::Option* gemms = sub->add_flag("--gemms-only", o->gemms_only,
                "Only each scenario's GEMM, once per shape (isolated times and the kernel picked per "
                "shape; one GPU is enough)");
  CLI::Option* isolated = sub->add_flag(
      "--isolated-only", o->isolated_only,
      "Only each scenario's isolated GEMM and collectives (library CUs, copy engines), each once; no strategy")
      ->excludes(gemms);
  sub->add_flag("--gemm-partitions", o->gemm_partitions,
                "With --gemms-only or --isolated-only: each GEMM also alone in every partition of --rp and "
                "--dma-rp (the CUs each takes from it)");
  sub->add_flag("--collective-partitions", o->collective_partitions,
                "With --isolated-only: each collective also alone on every CU count of --rp (rp:C's collective)")
      ->needs(isolated);
  sub->add_option("--runs", o->runs, "Measured runs per measurement")->capture_default_str()->transform(positive_check());
  sub->add_option("--warmup", o->warmup, "Warm-up runs per measurement")->capture_default_str()->transform(non_negative_check());
  sub->add_option("--min-time", o->min_time_s,
                  "GPU backends: measured runs go on until they add up to this many seconds of device time "
                  "(at least --runs, at most --max-runs; 0: --runs alone), e.g. 0.002 for decode-size pairs")
      ->capture_default_str()->check(CLI::Range(0.0, 3600.0));
  sub->add_option("--min-warmup-time", o->min_warmup_s,
                  "GPU backends: warm-up runs go on until they add up to this many seconds (at least --warmup)")
      ->capture_default_str()->check(CLI::Range(0.0, 3600.0));
  sub->add_option("--max-runs", o->max_runs, "The most warm-up and the most measured runs of one measurement")
      ->capture_default_str()->transform(positive_check());
  sub->add_option("--rounds", o->rounds,
                  "Measure each pair in this many rounds: each round runs all of the pair's measurements "
                  "(rotated) for ceil(--runs / N) runs after --warmup warm-up runs, and a record holds the runs "
                  "of every round, so that drifts of clock and temperature fall on every strategy alike")
      ->capture_default_str()->check(CLI::Range(1, 1000));
  sub->footer(
      "Examples:\n"
      "  c3advisor measure --backend sim --scenarios paper --out /tmp/paper-sim.json\n"
      "  c3advisor measure --backend cuda:2 --profile h200_sxm --scenarios pairs.yaml --ranks 2 \\\n"
      "      --out pairs-h200x2.json --runs 9 --warmup 3 --rounds 3\n"
      "  c3advisor measure --backend cuda:2 --profile h200_sxm --scenarios paper --ranks 2 \\\n"
      "      --out data/measurements/paper-h200x2.json --resume");
  return {sub, [o] { return run_measure(*o); }};
}

}  // namespace c3::apps
