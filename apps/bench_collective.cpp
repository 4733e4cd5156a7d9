// apps/bench_collective.cpp: `c3advisor bench-collective`: nccl-tests-style timing of
// collectives on a backend for NCCL and copy-engine variants side by side; prints the
// table (or JSON), writes the JSON file after every record and, with --chart-dir, the
// bus-bandwidth-vs-size charts. With --from it re-renders an existing file instead.
#include <algorithm>
#include <filesystem>
#include <iostream>
#include <memory>
#include <sstream>

#include "apps/commands.hpp"
#include "apps/options.hpp"
#include "apps/run_support.hpp"
#include "c3/errors.hpp"
#include "c3/io.hpp"
#include "c3/measure.hpp"
#include "c3/measurements.hpp"
#include "c3/validator.hpp"
#include "c3/views.hpp"

namespace c3::apps {
namespace {

struct BenchCliOptions {
  std::string backend;
  std::string profile;
  std::string from;
  int ranks = 0;
  std::vector<std::string> kinds;  // measured: default all_gather,all_to_all; --from: every kind
  std::vector<std::string> transports;
  std::string min_bytes = "4KiB";
  std::string max_bytes = "1GiB";
  std::int64_t step_factor = 2;
  std::vector<std::string> sizes;
  int runs = 9;
  int warmup = 6;
  std::string out;
  bool resume = false;
  bool overwrite = false;
  bool json = false;
  std::string chart_dir;
};

template <class T>
std::string join(const std::vector<T>& v) {
  std::ostringstream os;
  for (std::size_t i = 0; i < v.size(); ++i) os << (i ? "," : "") << v[i];
  return os.str();
}

std::string command_line(const BenchCliOptions& o, const std::vector<std::string>& transports) {
  std::string cmd = "c3advisor bench-collective --backend " + shell_word(o.backend) + " --ranks " +
                    std::to_string(o.ranks) + " --kinds " + shell_word(join(o.kinds)) + " --transports " +
                    shell_word(join(transports));
  if (o.sizes.empty())
    cmd += " -b " + shell_word(o.min_bytes) + " -e " + shell_word(o.max_bytes) + " -f " +
           std::to_string(o.step_factor);
  else
    cmd += " --sizes " + shell_word(join(o.sizes));
  cmd += " --runs " + std::to_string(o.runs) + " --warmup " + std::to_string(o.warmup);
  if (!o.profile.empty()) cmd += " --profile " + shell_word(o.profile);
  if (!o.out.empty()) cmd += " --out " + shell_word(o.out);
  if (o.resume) cmd += " --resume";
  if (o.overwrite) cmd += " --overwrite";
  return cmd;
}

// "nccl", the backend's default dma variant, or "all" (nccl and every dma variant); InputError
// for a name the backend does not have.
std::vector<std::string> resolve_transports(const std::vector<std::string>& asked, Validator& backend) {
  const Capabilities caps = backend.capabilities();
  std::vector<std::string> out;
  auto add = [&](const std::string& t) {
    if (std::find(out.begin(), out.end(), t) == out.end()) out.push_back(t);
  };
  if (asked.empty()) {
    add(std::string(validator::kLibraryTransport));
    if (!caps.dma_variants.empty()) add(caps.dma_variants.front());
    return out;
  }
  for (const std::string& t : asked) {
    if (t == "all") {
      add(std::string(validator::kLibraryTransport));
      for (const std::string& v : caps.dma_variants) add(v);
    } else {
      if (t != validator::kLibraryTransport) {  // the backend's own check (a grammar on cuda), then back
        const std::string before = backend.dma_variant();
        try {
          backend.set_dma_variant(t);
        } catch (const InputError&) {  // each of its records would fail
          std::string names(validator::kLibraryTransport);
          for (const std::string& v : caps.dma_variants) names += ", " + v;
          throw InputError("--transports: backend '" + caps.backend + "' has no transport '" + t + "' (it has: " +
                           names + ", or all)");
        }
        backend.set_dma_variant(before);
      }
      add(t);
    }
  }
  return out;
}

std::string write_charts(const validator::BenchFile& file, const std::string& dir) {
  std::filesystem::create_directories(dir);
  std::string written;
  for (const CollectiveKind kind : {CollectiveKind::all_gather, CollectiveKind::all_to_all,
                                    CollectiveKind::reduce_scatter, CollectiveKind::all_reduce}) {
    const bool any = std::any_of(file.records.begin(), file.records.end(), [&](const validator::BenchRecord& r) {
      return r.kind == kind && r.measurement.ok;
    });
    if (!any) continue;
    const std::filesystem::path stem = std::filesystem::path(dir) / ("busbw-" + std::string(to_string(kind)));
    io::write_file(stem.string() + ".svg", validator::bench_chart_svg(file, kind));
    io::write_file(stem.string() + ".csv", validator::bench_chart_csv(file, kind));
    written += "wrote " + stem.string() + ".svg and its data in " + stem.string() + ".csv\n";
  }
  return written;
}

std::string render(const validator::BenchFile& file, const BenchCliOptions& o) {
  std::string out = o.json ? validator::bench_json(file) : validator::bench_table(file);
  if (!o.chart_dir.empty()) {
    const std::string charts = write_charts(file, o.chart_dir);
    std::cerr << charts;
  }
  return out;
}

std::string run_bench_collective(BenchCliOptions o) {
  if (!o.from.empty()) {
    if (!o.backend.empty()) throw InputError("bench-collective: --from re-renders a file; it takes no --backend");
    std::vector<CollectiveKind> kinds;
    for (const std::string& k : o.kinds) kinds.push_back(parse_collective_kind(k));
    return render(validator::select_bench(validator::load_bench(o.from), kinds, o.transports, o.from), o);
  }
  if (o.kinds.empty()) o.kinds = {"all_gather", "all_to_all"};
  if (o.backend.empty()) throw InputError("bench-collective: --backend is required (or --from FILE)");
  if (o.resume && o.out.empty()) throw InputError("bench-collective: --resume needs --out");
  if (o.overwrite && o.out.empty()) throw InputError("bench-collective: --overwrite needs --out");
  validator::require_resume_or_overwrite(o.out, o.resume, o.overwrite, "--out");  // before a GPU starts
  const HardwareProfile hw = io::resolve_profile(o.profile.empty() ? kDefaultProfile : o.profile);
  const std::unique_ptr<Validator> backend = make_validator(o.backend, hw);
  backend->set_run_config(RunConfig{o.warmup, o.runs});
  const Capabilities caps = backend->capabilities();

  validator::BenchOptions options;
  for (const std::string& k : o.kinds) options.kinds.push_back(parse_collective_kind(k));
  options.transports = resolve_transports(o.transports, *backend);
  if (o.sizes.empty()) {
    options.sizes = validator::size_sweep(parse_size_bytes(o.min_bytes), parse_size_bytes(o.max_bytes), o.step_factor);
  } else {
    for (const std::string& s : o.sizes) options.sizes.push_back(parse_size_bytes(s));
  }
  if (o.ranks == 0) o.ranks = caps.gpus;
  options.ranks = o.ranks;
  options.path = o.out;
  options.resume = o.resume;
  options.overwrite = o.overwrite;

  validator::RawProvenance provenance = validator::provenance_of(caps);
  provenance.git_sha = git_sha();
  provenance.date = utc_now();
  provenance.command = command_line(o, options.transports);
  const validator::BenchFile file = validator::run_bench(
      *backend, options, provenance, [](const validator::BenchStep& s) { std::cerr << validator::bench_progress_line(s) << std::endl; });
  std::size_t failed = 0;
  for (const auto& r : file.records) failed += r.measurement.ok ? 0 : 1;
  if (!o.out.empty())
    std::cerr << "wrote " << o.out << ": " << file.records.size() << " records (" << failed << " failed)\n";
  return render(file, o);
}

}  // namespace

Command add_bench_collective(CLI::App& app) {
  auto o = std::make_shared<BenchCliOptions>();
  CLI::App* sub = app.add_subcommand(
      "bench-collective",
      "Time collectives per size for NCCL and copy-engine variants, nccl-tests style (table or JSON)");
  sub->add_option("--backend", o->backend, "Validator backend: sim[:noise=X,seed=N], cuda[:N[,OPTION=VALUE...]], hip[:N[,...]] (docs/device.md), replay:FILE");
  CLI::Option* from =
      sub->add_option("--from", o->from, "Re-render a bench-collective JSON file instead of measuring");
  sub->add_option("--profile", o->profile, "Profile the backend is checked against (sim: the one simulated)");
  add_ranks_option(*sub, o->ranks, "default: every GPU of the backend")->check(CLI::Range(2, 1 << 20));
  sub->add_option("--kinds", o->kinds, "Collective kinds (default: all_gather,all_to_all; with --from: every kind of the file)")
      ->delimiter(',');
  sub->add_option("--transports", o->transports,
                  "nccl and/or dma variants (ce_{push|pull}_{peer|batch}[_cN][_ovl][_graph][_fixed], nccl_ce), "
                  "or 'all' (default: nccl and the backend's default dma variant; with --from: every transport of the file)")
      ->delimiter(',');
  sub->add_option("-b,--min-bytes", o->min_bytes, "Smallest size (nccl-tests convention)")->capture_default_str();
  sub->add_option("-e,--max-bytes", o->max_bytes, "Largest size")->capture_default_str();
  sub->add_option("-f,--step-factor", o->step_factor, "Each size is this many times the last")
      ->capture_default_str()->check(CLI::Range(2, 1 << 20));
  sub->add_option("--sizes", o->sizes, "Explicit sizes instead of -b/-e/-f (e.g. 64KiB,1MiB,1000006)")->delimiter(',');
  sub->add_option("--runs", o->runs, "Measured runs per size")->capture_default_str()->transform(positive_check());
  sub->add_option("--warmup", o->warmup, "Warm-up runs per size")->capture_default_str()->transform(non_negative_check());
  // measuring options: with --from they would be ignored, so they are refused
  sub->add_option("--out", o->out, "JSON file, rewritten after every record")->excludes(from);
  const auto [resume, overwrite] = add_resume_options(*sub, o->resume, o->overwrite, "--out");
  resume->excludes(from);
  overwrite->excludes(from);
  sub->add_flag("--json", o->json, "Print the JSON document instead of the table");
  sub->add_option("--chart-dir", o->chart_dir, "Also write busbw-<kind>.svg charts into this folder");
  sub->footer(
      "Examples:\n"
      "  c3advisor bench-collective --backend cuda:2 --transports all -b 4KiB -e 4GiB \\\n"
      "      --out data/measurements/collectives-h200x2.json --chart-dir docs/img/collectives\n"
      "  c3advisor bench-collective --backend sim --profile h200x2 --ranks 2 --sizes 64KiB,256MiB\n"
      "  c3advisor bench-collective --from data/measurements/collectives-h200x2.json --chart-dir /tmp/charts");
  return {sub, [o] { return run_bench_collective(*o); }};
}

}  // namespace c3::apps
