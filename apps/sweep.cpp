// apps/sweep.cpp: `c3advisor sweep`: advice for a set of scenarios, with averages.
#include <memory>

#include "apps/commands.hpp"
#include "apps/options.hpp"
#include "c3/advisor.hpp"
#include "c3/errors.hpp"
#include "c3/io.hpp"
#include "c3/views.hpp"

namespace c3::apps {
namespace {

struct SweepOptions {
  std::string profile;
  std::string scenarios = "paper";
  int ranks = 0;
  CLI::Option* ranks_given = nullptr;
  bool json = false;
  bool csv = false;
};

Advice advise_scenario(const Advisor& advisor, const C3Pair& pair) {
  try {
    return advisor.advise(pair);
  } catch (const InputError& e) {
    throw InputError("scenario " + pair.name + " (" + std::string(to_string(pair.collective.kind)) +
                     "): " + e.what());
  }
}

std::string run_sweep(const SweepOptions& o) {
  const Advisor advisor(io::resolve_profile(o.profile));
  std::vector<C3Pair> pairs = io::resolve_scenarios(o.scenarios);
  if (o.ranks_given->count() > 0) io::set_ranks(pairs, o.ranks);
  std::vector<Advice> advice;
  advice.reserve(pairs.size());
  for (const C3Pair& pair : pairs) advice.push_back(advise_scenario(advisor, pair));
  if (o.json) return io::sweep_json(advisor.profile(), advice);
  if (o.csv) return io::sweep_csv(advisor.profile(), advice);
  return io::sweep_text(advisor.profile(), advice);
}

}  // namespace

Command add_sweep(CLI::App& app) {
  auto o = std::make_shared<SweepOptions>();
  CLI::App* sub = app.add_subcommand(
      "sweep", "Advise every pair of a scenario set; averages by collective and by taxonomy");
  add_profile_option(*sub, o->profile);
  sub->add_option("--scenarios", o->scenarios,
                  "'paper' (the ConCCL paper's 30 scenarios, embedded) or a scenarios YAML file")
      ->capture_default_str();
  o->ranks_given = add_ranks_option(*sub, o->ranks, "default: as the scenarios say");
  CLI::Option* json = sub->add_flag("--json", o->json, "Print a JSON document (schema in docs/cli.md)");
  sub->add_flag("--csv", o->csv, "Print CSV: one row per scenario")->excludes(json);
  sub->footer(
      "Examples:\n"
      "  c3advisor sweep\n"
      "  c3advisor sweep --profile h100_sxm --scenarios paper --ranks 4 --csv\n"
      "  c3advisor sweep --scenarios my_pairs.yaml --json\n");
  return {sub, [o] { return run_sweep(*o); }};
}

}  // namespace c3::apps
