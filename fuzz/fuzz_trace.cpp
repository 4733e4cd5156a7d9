// fuzz_trace: c3::io::parse_trace on arbitrary YAML. Entries that parse are valid pairs
// with repeat > 0, and the trace is planned (`c3advisor plan`) on every embedded
// profile: finite, non-negative step times and plan text/JSON without nan/inf.
// Seeds: data/traces, tests/unit/fixtures/trace_small.yaml.
#include <cstdint>
#include <string>

#include "c3/advisor.hpp"
#include "c3/io.hpp"
#include "fuzz_support.hpp"

namespace {

using namespace c3;
using namespace c3::fuzz;

constexpr std::size_t kMaxEntriesPlanned = 16;  // keeps an input's time bounded (ASan, every profile)

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  Trace trace;
  if (!typed("parse_trace", [&] { trace = io::parse_trace(as_text(data, size), "fuzz.yaml"); }))
    return 0;
  C3_FUZZ_CHECK(!trace.entries.empty() && !trace.name.empty(), "parse_trace: %zu entries, name '%s'",
                trace.entries.size(), trace.name.c_str());
  for (const TraceEntry& e : trace.entries) {
    C3_FUZZ_CHECK(e.repeat > 0, "entry '%s': repeat %lld", e.pair.name.c_str(),
                  static_cast<long long>(e.repeat));
    no_throw("validate(trace gemm)", [&] { validate(e.pair.gemm); });
    no_throw("validate(trace collective)", [&] { validate(e.pair.collective); });
  }
  if (trace.entries.size() > kMaxEntriesPlanned) trace.entries.resize(kMaxEntriesPlanned);
  for (const Advisor& advisor : EmbeddedAdvisors::get().advisors) {
    Plan p;
    if (!typed("plan", [&] { p = plan(advisor, trace); })) continue;
    check_time(p.advised_s, "plan.advised_s");
    check_time(p.serial_s, "plan.serial_s");
    check_time(p.base_s, "plan.base_s");
    const HardwareProfile& hw = advisor.profile();
    for (const PlanEntry& e : p.entries) check_advice(hw, e.advice);
    no_throw("io::plan_text", [&] {
      io::plan_text(hw, trace, p);  // with the user's names: must not fail
      check_text(io::plan_text(hw, scrubbed(trace), scrubbed(p)), "plan_text");
    });
    no_throw("io::plan_json", [&] { check_json_text(io::plan_json(hw, trace, p), "plan_json"); });
  }
  return 0;
}
