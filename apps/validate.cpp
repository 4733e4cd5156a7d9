// apps/validate.cpp: `c3advisor validate`: how good is the advice on measured data?
// Replays recorded measurements (--backend replay:FILE, or replay:A+B+C: the median over
// several processes' files) or measures live (sim, cuda: as `measure` does, into a raw file,
// then scored as a replay of it), scores the advisor's pick and the paper's heuristics against
// the fastest measured strategy (c3/evaluate.hpp), and optionally checks an accuracy gate
// (scripts/accuracy-gate.sh, data/accuracy-gate.json; docs/accuracy.md).
#include <unistd.h>

#include <filesystem>
#include <iostream>
#include <memory>
#include <optional>

#include "apps/commands.hpp"
#include "apps/options.hpp"
#include "apps/run_support.hpp"
#include "c3/advisor.hpp"
#include "c3/errors.hpp"
#include "c3/evaluate.hpp"
#include "c3/io.hpp"
#include "c3/measurements.hpp"
#include "c3/model.hpp"
#include "c3/splits.hpp"
#include "c3/validator.hpp"
#include "c3/views.hpp"

namespace c3::apps {
namespace {

struct ValidateOptions {
  std::string profile;
  std::string backend;
  std::string scenarios = "paper";
  std::string only;
  int ranks = 0;
  CLI::Option* ranks_given = nullptr;
  bool json = false;
  bool skip_missing = false;
  bool chained = false;
  std::vector<int> rp = {8, 16, 32, 64};
  std::vector<int> dma_rp = {8, 16, 32};
  std::vector<int> chunks = {2, 4, 8};
  std::vector<int> chunked_cus = {16};
  CLI::Option* rp_given = nullptr;
  CLI::Option* dma_rp_given = nullptr;
  int runs = 9;
  int warmup = 6;
  std::string gate;
  std::string gate_check = "default";
  bool update_gate = false;
  std::string splits = kDefaultSplits;
  CLI::Option* splits_given = nullptr;
  int cv = 0;
  std::string gemm_kernels = "recorded";
  std::string gemm_times = "profile";
  std::string out;          // live: the raw measurements
  bool resume = false;      // live, with out
  bool overwrite = false;   // live, with out
  std::string dma_variant;  // live
};

// Live, without --out: the raw measurements go to a new temporary file (its path on stderr
// before measuring starts), removed once the report has reached stdout (`discard`); when
// measuring, scoring or writing the report failed its path is printed again: nothing
// measured is lost. Still empty then (the backend failed before measuring), it is removed.
class LiveRawFile {
 public:
  explicit LiveRawFile(std::string given) : path_(std::move(given)) {
    if (!path_.empty()) return;
    std::string name = (std::filesystem::temp_directory_path() / "c3advisor-validate-live-XXXXXX").string();
    const int fd = ::mkstemp(name.data());
    if (fd < 0) throw Error("cannot create a temporary file for the raw measurements in " + name + " (give --out FILE)");
    ::close(fd);
    path_ = name + ".json";
    std::error_code ec;
    std::filesystem::rename(name, path_, ec);  // the reserved unique name, with the extension
    if (ec) path_ = name;
    temporary_ = true;
    std::cerr << "validate: raw measurements in " << path_ << " (temporary: --out FILE keeps them)" << std::endl;
  }
  LiveRawFile(const LiveRawFile&) = delete;
  LiveRawFile& operator=(const LiveRawFile&) = delete;
  ~LiveRawFile() {
    if (!temporary_ || discarded_) return;
    std::error_code ec;
    if (!std::filesystem::exists(path_, ec)) return;
    if (std::filesystem::file_size(path_, ec) == 0 && !ec) {  // nothing measured: nothing to keep
      std::filesystem::remove(path_, ec);
      return;
    }
    std::cerr << "validate: the raw measurements so far are kept in " << path_ << std::endl;
  }
  const std::string& path() const { return path_; }
  // The report is out: a temporary file has served its purpose.
  void discard() {
    if (!temporary_) return;
    std::error_code ec;
    std::filesystem::remove(path_, ec);
    discarded_ = true;
  }

 private:
  std::string path_;
  bool temporary_ = false;
  bool discarded_ = false;
};

// "NAME (kind): reason; ...": why each skipped scenario could not be validated.
std::string skipped_reasons(const std::vector<validator::SkippedScenario>& skipped) {
  std::string why;
  for (const auto& s : skipped) why += (why.empty() ? "" : "; ") + validator::scenario_label(s.pair) + ": " + s.reason;
  return why;
}

// The file of a replay spec ("replay:FILE"), or its files as given ("replay:A+B+C": "A+B+C");
// "" for "replay" alone and for a live backend.
std::string replay_path(const std::string& spec) {
  return validator::is_replay_spec(spec) && spec.size() > 7 ? spec.substr(7) : "";
}

// The split of the measurements scored: the replay files' in the manifest (one split for
// all of them: a median over train and test files is neither), or "live".
std::string scored_split(const std::string& backend, const Splits& splits) {
  if (!validator::is_replay_spec(backend)) return "live";
  const std::vector<std::string> files = validator::replay_files_of(backend);
  std::string split;
  std::string each;
  bool mixed = false;
  for (const std::string& file : files) {
    const std::string s(to_string(splits.split_of(file)));
    mixed = mixed || (!split.empty() && s != split);
    if (split.empty()) split = s;
    each += (each.empty() ? "" : ", ") + file + " is " + s;
  }
  if (mixed) throw InputError("replay files of different splits: " + each + " (in " + splits.path + ")");
  return split;
}

std::string command_line(const ValidateOptions& o) {
  std::string cmd = "c3advisor validate --profile " + shell_word(o.profile) + " --backend " +
                    shell_word(o.backend) + " --scenarios " + shell_word(o.scenarios);
  if (o.ranks_given->count() > 0) cmd += " --ranks " + std::to_string(o.ranks);
  if (!o.only.empty()) cmd += " --only " + shell_word(o.only);
  if (!o.out.empty()) cmd += " --out " + shell_word(o.out);
  if (o.resume) cmd += " --resume";
  if (o.overwrite) cmd += " --overwrite";
  if (!o.dma_variant.empty()) cmd += " --dma-variant " + shell_word(o.dma_variant);
  if (o.skip_missing) cmd += " --skip-missing";
  if (o.chained) cmd += " --chained";
  if (o.gemm_kernels != "recorded") cmd += " --gemm-kernels " + shell_word(o.gemm_kernels);
  if (o.gemm_times != "profile") cmd += " --gemm-times " + shell_word(o.gemm_times);
  if (!validator::is_replay_spec(o.backend)) {  // what a live run measured
    cmd += " --rp " + join_ints(o.rp) + " --dma-rp " + join_ints(o.dma_rp) + " --chunks " + join_ints(o.chunks);
    if (!o.chunked_cus.empty()) cmd += " --chunked-cus " + join_ints(o.chunked_cus);
    cmd += " --runs " + std::to_string(o.runs) + " --warmup " + std::to_string(o.warmup);
  }
  if (!o.gate.empty()) cmd += " --gate " + shell_word(o.gate) + " --gate-check " + shell_word(o.gate_check);
  return cmd;
}

// ---- the command ----

std::string run_validate(const ValidateOptions& o, std::optional<LiveRawFile>& live_raw) {
  if (o.update_gate && o.gate.empty()) throw InputError("--update-gate needs --gate FILE");
  const Splits splits = io::load_splits(o.splits, o.splits_given->count() == 0);
  if (validator::is_replay_spec(o.backend) && replay_path(o.backend).empty())
    throw InputError("replay needs a measurements file: --backend replay:FILE");
  const std::string split = scored_split(o.backend, splits);  // before anything is read
  if (o.cv > 0)
    for (const std::string& file : validator::replay_files_of(o.backend))
      io::require_not_test(splits, file, "validate --cv (a fit)");
  // A resumed live file is scored, and with --cv fitted on, like a replay of it.
  if (o.cv > 0 && o.resume) io::require_not_test(splits, o.out, "validate --cv (a fit) on a resumed --out file");
  HardwareProfile hw = io::resolve_profile(o.profile);
  std::vector<C3Pair> pairs = select_scenarios(io::resolve_scenarios(o.scenarios), o.only);
  if (o.ranks_given->count() > 0) io::set_ranks(pairs, o.ranks);
  if (pairs.empty()) throw InputError("no scenarios to validate");
  note_if_fitted_chained(hw, o.chained);
  // Dependent pairs keep their own schedule (validate_chained would refuse them).
  if (o.chained)
    for (C3Pair& p : pairs) p.chained = p.dependency == Dependency::none;
  validator::MeasureOptions planned;
  planned.parameters["rp"] = o.rp;
  planned.parameters["dma_rp"] = o.dma_rp;
  planned.parameters["chunked"] = o.chunks;
  if (!o.chunked_cus.empty()) planned.parameters["chunked_cus"] = o.chunked_cus;
  const bool live = !validator::is_replay_spec(o.backend);
  if (!live && (!o.out.empty() || o.resume || o.overwrite || !o.dma_variant.empty()))
    throw InputError(
        "--out, --resume, --overwrite and --dma-variant are for a live backend; a replay scores its file as "
        "recorded");
  if (o.resume && o.out.empty()) throw InputError("--resume needs --out FILE (the file to resume)");
  if (o.overwrite && o.out.empty()) throw InputError("--overwrite needs --out FILE (the file to replace)");
  // Live: measured up front as `measure` does (progress, the raw file after each
  // measurement), then scored as a replay of that file.
  validator::ValidationBackend backend;
  if (live) {
    require_known_backend(o.backend);  // before a temporary file is made for it
    validator::require_resume_or_overwrite(o.out, o.resume, o.overwrite, "--out");
    live_raw.emplace(o.out);
    planned.raw_path = live_raw->path();
    planned.resume = o.resume;
    planned.overwrite = o.overwrite;
    planned.dma_variant = o.dma_variant;
    planned.git_sha = git_sha();
    planned.date = utc_now();
    planned.command = command_line(o);
    backend = validator::measure_live(o.backend, hw, RunConfig{o.warmup, o.runs}, pairs, planned, print_step);
  } else {
    backend = validator::make_validation_backend(o.backend, hw, RunConfig{o.warmup, o.runs}, planned,
                                                 o.rp_given->count() > 0 || o.dma_rp_given->count() > 0);
  }
  const std::string raw_path = live ? live_raw->path() : replay_path(o.backend);
  // A replay file records the kernel cuBLASLt chose for each GEMM shape (no timing: the
  // library's heuristic for the shape): the model uses it over the nearest profile shape.
  // Live, the run's own choices; a backend that records none (sim) keeps the profile's.
  bool use_recorded = backend.raw && o.gemm_kernels == "recorded";
  std::size_t recorded_kernels = 0;
  if (use_recorded) {
    const std::vector<GemmKernelShape> kernels = validator::measured_kernels({*backend.raw});
    recorded_kernels = kernels.size();
    use_recorded = !(live && kernels.empty());
    hw = model::with_gemm_kernels(std::move(hw), kernels);
  }
  // --gemm-times recorded: each GEMM at its own isolated time in the file validated (an analysis
  // of the model given the GEMM's time on the day, not a prediction from the shape alone).
  const bool recorded_times = backend.raw && o.gemm_times == "recorded";
  if (recorded_times)
    hw = model::with_gemm_times(std::move(hw), validator::measured_gemm_times({*backend.raw}));
  const Advisor advisor(hw);
  std::vector<validator::SkippedScenario> missing;
  // Live: a pair whose measurements failed is skipped with the reason, not an error.
  if (backend.raw) missing = validator::drop_unrecorded(*backend.raw, raw_path, pairs, o.skip_missing || live);
  if (pairs.empty() && live) throw BackendError("no scenario could be validated: " + skipped_reasons(missing));
  if (pairs.empty()) throw InputError("no scenario left to validate: every one lacks measurements");

  validator::AccuracyReport report =
      validator::evaluate_accuracy(advisor, pairs, *backend.validator, backend.strategies);
  report.skipped.insert(report.skipped.begin(), missing.begin(), missing.end());
  if (backend.raw) validator::attach_peers(report, *backend.raw);  // the file's framework runs
  report.splits_file = splits.path;
  report.split = split;
  if (use_recorded) {
    report.gemm_kernels = "recorded";
    report.recorded_kernels = static_cast<int>(recorded_kernels);
  }
  report.gemm_times_shapes = static_cast<int>(hw.gemm_times.size());
  report.gemm_times = recorded_times ? "recorded" : "profile";
  for (const validator::ScenarioResult& s : report.scenarios)
    if (model::measured_gemm_time(hw, model::gemm_as_run(s.pair)) != nullptr) ++report.gemm_times_pairs;
  report.paper_scenarios = o.scenarios == "paper";
  report.chained = o.chained;
  if (report.scenarios.empty()) throw BackendError("no scenario could be validated: " + skipped_reasons(report.skipped));

  if (o.cv > 0) report.cross_validation = validator::cross_validate(report.scenarios, o.cv);
  std::string gate_line;
  if (!o.gate.empty()) {
    const std::string what = "accuracy gate " + o.gate + " check '" + o.gate_check + "'";
    if (o.update_gate) {
      const bool added =
          validator::update_gate_file(report.summary, o.gate, o.gate_check, command_line(o), report.split);
      gate_line = what + (added ? " added (a new check) from this run\n" : " rewritten from this run\n");
    } else {
      const std::vector<std::string> failures =
          validator::gate_file_failures(report.summary, o.gate, o.gate_check, report.split);
      if (!failures.empty()) {
        std::string list;
        for (const std::string& f : failures) list += (list.empty() ? "" : "; ") + f;
        throw Error(what + " failed: " + list);
      }
      gate_line = what + ": every threshold met\n";
    }
  }
  // Live, the backend that measured (the scoring replays its file).
  const Capabilities caps = backend.measured_on ? *backend.measured_on : backend.validator->capabilities();
  if (o.json) return validator::accuracy_json(advisor.profile(), backend.spec, caps, report);
  return validator::accuracy_text(advisor.profile(), backend.spec, caps, report) +
         (gate_line.empty() ? "" : "\n" + gate_line);
}

}  // namespace

Command add_validate(CLI::App& app) {
  auto o = std::make_shared<ValidateOptions>();
  CLI::App* sub = app.add_subcommand(
      "validate",
      "Score the advice on measured data: oracle, pick, loss, prediction error, fraction of ideal");
  add_profile_option(*sub, o->profile);
  sub->add_option(
         "--backend", o->backend,
         "replay:FILE (recorded raw measurements; replay:FILE1+FILE2...: the median over files of the "
         "same pairs, each measured in its own process), or measure live: sim[:noise=X,seed=N], "
         "cuda[:N[,OPTION=VALUE...]], hip[:N[,...]] (when built; docs/device.md)")
      ->required();
  sub->add_option("--scenarios", o->scenarios, "'paper' or a scenarios YAML file")
      ->capture_default_str();
  sub->add_option("--only", o->only, "Comma-separated scenario names (default: all)");
  o->ranks_given = add_ranks_option(*sub, o->ranks, "default: each scenario's own");
  o->ranks_given->check(CLI::Range(2, 1 << 20));
  sub->add_flag("--json", o->json, "Print a JSON document (schema in docs/accuracy.md)");
  sub->add_flag("--chained", o->chained,
                "Price every independent pair chained (docs/model.md 4.6: queued ahead of the GPU, no launch cost, "
                "sp as base; the GEMM at its time alone, as measured), e.g. pairs measured with the cuda option gate=1");
  sub->add_flag("--skip-missing", o->skip_missing,
                "Replay: skip scenarios the file has no measurements for (default: an error)");
  sub->add_option("--out", o->out,
                  "Live backends: write the raw measurements here (JSON, as `measure --out`, saved after each "
                  "one; replay it later with --backend replay:FILE); default: a temporary file, removed after the "
                  "scoring unless measuring or scoring fails");
  add_resume_options(*sub, o->resume, o->overwrite, "--out", "Live backends: ");
  sub->add_option("--dma-variant", o->dma_variant,
                  "Live backends: implementation of the dma transport (as `measure --dma-variant`; "
                  "default: the one the profile was calibrated with where the backend has it, else the backend's)");
  o->rp_given = sub->add_option("--rp", o->rp, "Live backends: collective CU counts measured for rp")
                    ->delimiter(',')
                    ->capture_default_str()
                    ->transform(positive_check());
  o->dma_rp_given =
      sub->add_option("--dma-rp", o->dma_rp, "Live backends: CUs the GEMM gives up under dma_rp")
          ->delimiter(',')
          ->capture_default_str()
          ->transform(positive_check());
  sub->add_option("--chunks", o->chunks, "Live backends, dependent pairs: chunk counts measured for chunked")
      ->delimiter(',')
      ->capture_default_str()
      ->check(CLI::Range(1, 1 << 16));
  sub->add_option("--chunked-cus", o->chunked_cus,
                  "Live backends, dependent pairs: partitions measured for chunked:C:cu:c")
      ->delimiter(',')
      ->capture_default_str()
      ->transform(positive_check());
  sub->add_option("--runs", o->runs, "Live backends: measured runs per measurement")
      ->capture_default_str()
      ->transform(positive_check());
  sub->add_option("--warmup", o->warmup, "Live backends: warm-up runs per measurement")
      ->capture_default_str()
      ->transform(non_negative_check());
  sub->add_option("--gate", o->gate,
                  "Accuracy gate file (JSON): fail (exit 1) when a summary metric is worse than "
                  "its threshold");
  sub->add_option("--gate-check", o->gate_check, "Which check of the --gate file")
      ->capture_default_str();
  o->splits_given =
      sub->add_option("--splits", o->splits,
                      "Train/test manifest: the output says which split the replay file is in (several "
                      "files: all in one split; default: data/splits.yaml when present)");
  sub->add_option("--cv", o->cv,
                  "K-fold cross-validation over the scenarios of a train (or unlisted) file: the tie margin "
                  "fitted on K-1 folds, each metric's mean and spread")
      ->check(CLI::Range(2, 1 << 20));
  sub->add_option("--gemm-kernels", o->gemm_kernels,
                  "Replay: the GEMM kernels the model uses: 'recorded' (the file's kernel for each GEMM "
                  "shape it recorded, cuBLASLt's choice, over the profile's) or 'profile' (the profile's "
                  "nearest measured shape only)")
      ->capture_default_str()
      ->check(CLI::IsMember({"recorded", "profile"}));
  sub->add_option(
         "--gemm-times", o->gemm_times,
         "Replay: the isolated GEMM times the model uses: 'profile' (the profile's measured times "
         "per shape, else the roofline: a prediction from the shape) or 'recorded' (each GEMM's own "
         "time alone in the file, as advise --gemm-time-us gives it: the model given the GEMM's time "
         "on the day; not a score of issue 11's prediction)")
      ->capture_default_str()
      ->check(CLI::IsMember({"profile", "recorded"}));
  sub->add_flag("--update-gate", o->update_gate,
                "Rewrite the --gate file from this run: thresholds = reached values worsened by "
                "each metric's tolerance");
  sub->footer(
      "Examples:\n"
      "  c3advisor validate --profile h200x2 --ranks 2 \\\n"
      "      --backend replay:data/measurements/paper-h200x2-2026-11-21.json\n"
      "  c3advisor validate --profile h200x2 --ranks 2 --json \\\n"
      "      --backend replay:data/measurements/paper-h200x2-2026-11-21.json > validate.json\n"
      "  c3advisor validate --profile h200x2 --backend cuda:2 --ranks 2 --rp 8,16,32,64 --dma-rp 8,16,32 \\\n"
      "      --dma-variant ce_push_batch_ovl --out live.json\n"
      "  c3advisor validate --backend sim --only cb1_896M\n");
  // The live raw file outlives the runner: removed only once the report is written.
  auto live_raw = std::make_shared<std::optional<LiveRawFile>>();
  return {sub, [o, live_raw] { return run_validate(*o, *live_raw); },
          [live_raw](bool written) {
            if (written && *live_raw) (*live_raw)->discard();
          }};
}

}  // namespace c3::apps
