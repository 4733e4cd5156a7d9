// fuzz_scenarios: c3::io::parse_scenarios on arbitrary YAML. Pairs that parse are valid
// (validate() accepts their GEMM and collective) and are advised, as `c3advisor sweep`
// does, on every embedded profile: finite, non-negative predictions; sweep text, CSV and
// JSON without nan/inf. Seeds: data/scenarios, tests/unit/fixtures/scenarios_small.yaml.
#include <cstdint>
#include <string>

#include "c3/advisor.hpp"
#include "c3/io.hpp"
#include "fuzz_support.hpp"

namespace {

using namespace c3;
using namespace c3::fuzz;

constexpr std::size_t kMaxPairsAdvised = 16;  // keeps an input's time bounded (ASan, every profile)

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::vector<C3Pair> pairs;
  if (!typed("parse_scenarios", [&] { pairs = io::parse_scenarios(as_text(data, size), "fuzz.yaml"); }))
    return 0;
  C3_FUZZ_CHECK(!pairs.empty(), "parse_scenarios returned no pair");
  for (const C3Pair& p : pairs) {
    no_throw("validate(scenario gemm)", [&] { validate(p.gemm); });
    no_throw("validate(scenario collective)", [&] { validate(p.collective); });
  }
  if (pairs.size() > kMaxPairsAdvised) pairs.resize(kMaxPairsAdvised);
  for (const Advisor& advisor : EmbeddedAdvisors::get().advisors) {
    std::vector<Advice> all;
    for (const C3Pair& p : pairs) {
      Advice a;
      if (advise_and_print(advisor, p, &a)) all.push_back(std::move(a));
    }
    if (all.empty()) continue;
    const HardwareProfile& hw = advisor.profile();
    std::vector<Advice> named;  // without the user's names, for the nan/inf check
    for (const Advice& a : all) named.push_back(scrubbed(a));
    no_throw("io::sweep_text", [&] {
      io::sweep_text(hw, all);
      check_text(io::sweep_text(hw, named), "sweep_text");
    });
    no_throw("io::sweep_csv", [&] {
      io::sweep_csv(hw, all);
      check_text(io::sweep_csv(hw, named), "sweep_csv");
    });
    no_throw("io::sweep_json", [&] { check_json_text(io::sweep_json(hw, all), "sweep_json", {"collective_dma_s"}); });
  }
  return 0;
}
