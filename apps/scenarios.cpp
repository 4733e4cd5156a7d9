// apps/scenarios.cpp: `c3advisor scenarios generate`: GEMM + collective pairs drawn from a
// catalog of public model configurations (docs/scenarios.md), written as a scenarios YAML
// that `measure`, `validate` and `sweep` read.
#include <algorithm>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "apps/commands.hpp"
#include "apps/options.hpp"
#include "c3/catalog.hpp"
#include "c3/errors.hpp"
#include "c3/generate.hpp"
#include "c3/io.hpp"
#include "c3/splits.hpp"

#include <nlohmann/json.hpp>

namespace c3::apps {
namespace {

// --exclude FILE... and --exclude-split SPLIT[,SPLIT] [--splits FILE]: pairs already measured.
struct ExcludeOptions {
  std::vector<std::string> exclude;
  std::vector<std::string> exclude_split;  ///< "train", "test" or both, each once
  std::string splits = kDefaultSplits;
};

struct GenerateOptions {
  generate::Options options;
  std::string catalog = "data/catalog";
  std::string profile = "h200x2";
  std::string dependency = "none";
  ExcludeOptions excluded;
  std::string out;
};

struct OverlapOptions {
  std::string scenarios;
  ExcludeOptions excluded;
  bool json = false;
};

// The pairs of one scenario set, added to `out`.
void add_pairs(const std::string& set, generate::Exclusion& out) {
  for (const C3Pair& pair : io::resolve_scenarios(set))
    out.pairs.insert(generate::pair_key(pair.gemm, pair.collective, pair.dependency));
  ++out.sets;
}

// The pairs of the manifest's --exclude-split sets and of --exclude's scenario sets. A set named
// twice (listed for both splits, or also given with --exclude) counts once.
generate::Exclusion exclusion(const ExcludeOptions& o) {
  generate::Exclusion out;
  std::vector<std::string> done;
  if (!o.exclude_split.empty()) {
    std::vector<std::string> names;  // each split once, in the order given
    for (const std::string& name : o.exclude_split)
      if (std::find(names.begin(), names.end(), name) == names.end()) names.push_back(name);
    std::string splits_named;
    for (const std::string& name : names) splits_named += (splits_named.empty() ? "" : ",") + name;
    out.source =
        "--exclude-split " + splits_named + (o.splits == kDefaultSplits ? "" : " --splits " + o.splits);
    const Splits manifest = io::load_splits(o.splits);
    for (const std::string& name : names) {
      const SplitKind split = name == "test" ? SplitKind::test : SplitKind::train;
      for (const std::string& set : io::scenario_sets_of(manifest, split)) {
        if (std::find(done.begin(), done.end(), set) != done.end()) continue;
        done.push_back(set);
        try {
          add_pairs(set, out);
        } catch (const InputError& e) {
          throw InputError(std::string(e.what()) + " (listed for the " + name + " split by " + o.splits +
                           ")");
        }
      }
    }
  }
  for (const std::string& file : o.exclude) {
    if (std::find(done.begin(), done.end(), file) == done.end()) {
      done.push_back(file);
      add_pairs(file, out);
    }
    out.source += (out.source.empty() ? "" : " ") + std::string("--exclude ") + file;
  }
  return out;
}

std::string run_generate(const GenerateOptions& o) {
  generate::Options options = o.options;
  options.dependency = generate::parse_dependent_draw(o.dependency);
  options.exclude = exclusion(o.excluded);
  const GenerateOptions defaults;
  if (o.catalog != defaults.catalog) options.inputs += " --catalog " + o.catalog;
  if (o.profile != defaults.profile) options.inputs += " --profile " + o.profile;
  const Catalog catalog = io::load_catalog(o.catalog);
  const generate::Generated generated =
      generate::generate(catalog, io::resolve_profile(o.profile), options, [&](int pairs, int drawn) {
        std::cerr << "scenarios generate: " << pairs << " of " << options.count << " pairs after " << drawn
                  << " draws" << std::endl;
      });
  io::write_file(o.out, generate::scenarios_yaml(generated));
  std::string rejected;
  for (const auto& [why, n] : generated.rejected)
    rejected += (rejected.empty() ? "" : ", ") + std::to_string(n) + " " + why;
  const std::string excluded = options.exclude.source.empty()
                                   ? ""
                                   : "; excluded: the " + std::to_string(options.exclude.pairs.size()) +
                                         " pairs of " + std::to_string(options.exclude.sets) +
                                         " scenario sets (" + options.exclude.source + ")";
  return "wrote " + o.out + ": " + std::to_string(generated.pairs.size()) + " pairs from " +
         std::to_string(catalog.models.size()) + " models (catalog fnv1a64:" + catalog.digest + "), " +
         std::to_string(generated.drawn) + " drawn" + (rejected.empty() ? "" : ", rejected: " + rejected) +
         excluded + "\n";
}

// Which pairs of a scenarios file are among the excluded ones (those `generate` would not draw).
std::string run_overlap(const OverlapOptions& o) {
  const generate::Exclusion against = exclusion(o.excluded);
  if (against.source.empty())
    throw InputError("scenarios overlap: give --exclude FILE or --exclude-split SPLIT");
  const std::vector<C3Pair> pairs = io::resolve_scenarios(o.scenarios);
  std::vector<std::string> seen;
  for (const C3Pair& pair : pairs)
    if (against.pairs.count(generate::pair_key(pair.gemm, pair.collective, pair.dependency)))
      seen.push_back(pair.name);
  if (o.json) {
    const nlohmann::ordered_json doc = {{"schema_version", io::kSchemaVersion},
                                {"c3advisor_version", io::version()},
                                {"scenarios", o.scenarios},
                                {"pairs", pairs.size()},
                                {"against", against.source},
                                {"against_sets", against.sets},
                                {"against_pairs", against.pairs.size()},
                                {"seen", seen}};
    return doc.dump(2) + "\n";
  }
  std::string out = o.scenarios + ": " + std::to_string(seen.size()) + " of " + std::to_string(pairs.size()) +
                    " pairs are among the " + std::to_string(against.pairs.size()) + " pairs of " +
                    std::to_string(against.sets) + " scenario sets (" + against.source + ")\n";
  for (const std::string& name : seen) out += "  " + name + "\n";
  return out;
}

// `what` says what the sets are for: generate never draws their pairs, overlap names them.
void add_exclude_options(CLI::App* sub, ExcludeOptions& o, const std::string& what) {
  sub->add_option("--exclude", o.exclude,
                  what + ": the pairs of this scenario set (a scenarios YAML, or paper); repeatable. Same pair: the "
                         "GEMM's m, n, k, the collective's kind and size, the dependency");
  sub->add_option(
         "--exclude-split", o.exclude_split,
         what +
             ": the pairs of every scenario set the manifest lists for this split (train: the pairs a "
             "train file measured; train,test: every set the manifest lists, measured ones only); repeatable")
      ->delimiter(',')
      ->check(CLI::IsMember({"train", "test"}));
  sub->add_option("--splits", o.splits, "The train/test manifest of --exclude-split")->capture_default_str();
}

}  // namespace

Command add_scenarios(CLI::App& app) {
  auto o = std::make_shared<GenerateOptions>();
  CLI::App* sub = app.add_subcommand("scenarios", "Generate scenario files from a catalog of model configurations (generate), or name the pairs of a file already measured (overlap)");
  sub->require_subcommand(1);
  CLI::App* gen = sub->add_subcommand(
      "generate", "Draw GEMM + collective pairs of public models (training, prefill, decode; FSDP, TP, EP, DP), "
      "independent or dependent");
  gen->add_option("--seed", o->options.seed, "Seed of the draws: the same seed gives the same file")
      ->required()
      ->transform(unsigned_64_check());
  gen->add_option("--count", o->options.count, "Pairs to generate")->required()->check(CLI::Range(1, generate::kMaxCount));
  gen->add_option("--catalog", o->catalog, "Catalog: a YAML file or a folder of them")->capture_default_str();
  gen->add_option("--ranks", o->options.ranks, "Ranks of every collective")
      ->capture_default_str()
      ->check(CLI::Range(2, 1 << 20));
  gen->add_option("--profile", o->profile, "Profile (embedded name or file) whose model filters by serial time")
      ->capture_default_str();
  gen->add_option("--max-memory", o->options.max_memory_bytes, "Filter: bytes per GPU (GEMM + collective buffers)")
      ->capture_default_str()
      ->transform(positive_check());
  gen->add_option("--max-serial-us", o->options.max_serial_us, "Filter: predicted t_gemm + t_coll, microseconds")
      ->capture_default_str()
      ->transform(positive_check());
  gen->add_option("--min-serial-us", o->options.min_serial_us, "Filter: the least predicted t_gemm + t_coll")
      ->capture_default_str()
      ->transform(non_negative_check());
  gen->add_option("--dependency", o->dependency,
                  "Independent pairs (none), or dependent ones: the collective moves the GEMM's A "
                  "(collective_feeds_gemm), its C (gemm_feeds_collective), or either (any)")
      ->capture_default_str()
      ->check(CLI::IsMember({"none", "any", "collective_feeds_gemm", "gemm_feeds_collective"}));
  add_exclude_options(gen, o->excluded, "Never draw");
  gen->add_option("--out", o->out, "The scenarios YAML to write")->required();
  gen->footer(
      "Examples:\n"
      "  c3advisor scenarios generate --seed 11 --count 150 --out data/scenarios/generated-s11.yaml\n"
      "  c3advisor scenarios generate --seed 7 --count 20 --catalog data/catalog/llama.yaml --out "
      "pairs.yaml\n"
      "  c3advisor scenarios generate --seed 2201 --count 48 --dependency any --out dependent.yaml\n"
      "  c3advisor scenarios generate --seed 22101 --count 128 --exclude-split train --out test-set.yaml\n"
      "  c3advisor scenarios generate --seed 25601 --count 128 --exclude-split train,test --out "
      "fresh-pairs.yaml\n");
  auto v = std::make_shared<OverlapOptions>();
  CLI::App* overlap = sub->add_subcommand(
      "overlap",
      "Which pairs of a scenarios file are already measured: among the --exclude sets or the scenario "
      "sets of a split (what generate --exclude / --exclude-split would not draw)");
  overlap->add_option("--scenarios", v->scenarios, "The scenarios file (or paper)")->required();
  add_exclude_options(overlap, v->excluded, "Already measured");
  overlap->add_flag("--json", v->json,
                    "Print a JSON document: the counts and the names of the pairs already measured");
  overlap->footer(
      "Example:\n"
      "  c3advisor scenarios overlap --scenarios data/scenarios/generated-s21801-n128.yaml --exclude-split "
      "train\n");
  return {sub, [o, v, gen] { return gen->parsed() ? run_generate(*o) : run_overlap(*v); }};
}

}  // namespace c3::apps
