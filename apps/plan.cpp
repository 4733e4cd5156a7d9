// apps/plan.cpp: `c3advisor plan`: advice for every pair of a training step.
#include <memory>

#include "apps/commands.hpp"
#include "apps/options.hpp"
#include "c3/advisor.hpp"
#include "c3/errors.hpp"
#include "c3/io.hpp"
#include "c3/views.hpp"

namespace c3::apps {
namespace {

struct PlanOptions {
  std::string profile;
  std::string trace;
  bool json = false;
};

std::string run_plan(const PlanOptions& o) {
  const Advisor advisor(io::resolve_profile(o.profile));
  const Trace trace = io::load_trace(o.trace);
  const Plan step = [&] {
    try {
      return plan(advisor, trace);
    } catch (const ConfigError&) {
      throw;
    } catch (const InputError& e) {  // the trace file, as a reader's errors name it
      throw InputError(o.trace + ": " + e.what());
    }
  }();
  return o.json ? io::plan_json(advisor.profile(), trace, step)
                : io::plan_text(advisor.profile(), trace, step);
}

}  // namespace

Command add_plan(CLI::App& app) {
  auto o = std::make_shared<PlanOptions>();
  CLI::App* sub = app.add_subcommand(
      "plan", "Advise every pair of a trace (one training step) and total the step's time");
  add_profile_option(*sub, o->profile);
  sub->add_option("--trace", o->trace, "A trace YAML file (docs/formats.md)")->required();
  sub->add_flag("--json", o->json, "Print a JSON document (schema in docs/cli.md)");
  sub->footer(
      "Examples:\n"
      "  c3advisor plan --trace data/traces/llama70b_fsdp.yaml\n"
      "  c3advisor plan --profile h200_sxm --trace data/traces/llama405b_fsdp.yaml --json\n");
  return {sub, [o] { return run_plan(*o); }};
}

}  // namespace c3::apps
