// fuzz_advise: Advisor::advise on arbitrary pairs against every embedded profile, and
// everything printed from the advice (text, JSON, heuristics, a one-entry plan, a sweep).
// The input bytes are a pair (fuzz/advise_input.hpp). Seeds: the paper's and the held-out
// scenarios, written by `fuzz_advise --c3-make-seeds=DIR`.
#include <cstdint>
#include <string>

#include "advise_input.hpp"
#include "c3/advisor.hpp"
#include "c3/io.hpp"
#include "fuzz_support.hpp"
#include "seeds.hpp"

namespace {

using namespace c3;
using namespace c3::fuzz;

void check_plan(const Advisor& advisor, const C3Pair& pair, std::int64_t repeat) {
  const Trace trace{"fuzz", "", {TraceEntry{pair, repeat}}};
  Plan p;
  if (!typed("plan", [&] { p = plan(advisor, trace); })) return;
  check_time(p.advised_s, "plan.advised_s");
  check_time(p.serial_s, "plan.serial_s");
  check_time(p.base_s, "plan.base_s");
  no_throw("io::plan_text", [&] { check_text(io::plan_text(advisor.profile(), trace, p), "plan_text"); });
  no_throw("io::plan_json", [&] { check_json_text(io::plan_json(advisor.profile(), trace, p), "plan_json"); });
}

void check_sweep(const Advisor& advisor, const Advice& a) {
  const std::vector<Advice> all{a};
  const HardwareProfile& hw = advisor.profile();
  no_throw("io::sweep_text", [&] { check_text(io::sweep_text(hw, all), "sweep_text"); });
  no_throw("io::sweep_csv", [&] { check_text(io::sweep_csv(hw, all), "sweep_csv"); });
  no_throw("io::sweep_json", [&] { check_json_text(io::sweep_json(hw, all), "sweep_json", {"collective_dma_s"}); });
}

void make_seeds(const std::string& dir) {
  int n = 0;
  const auto add = [&](const C3Pair& p, std::int64_t repeat) {
    write_seed(dir, "pair-" + std::to_string(n++), AdviseInput::of(p, repeat).encode());
  };
  for (const std::string& file : {std::string("paper"),
                                  std::string(C3_SOURCE_DIR) + "/data/scenarios/heldout.yaml"})
    for (const C3Pair& p : io::resolve_scenarios(file)) add(p, 3);
  // Edges: the smallest pair, odd sizes and ranks, every kind, a class measured elsewhere.
  for (int kind = 0; kind < 4; ++kind) {
    C3Pair p{"edge", Gemm{1, 1, 1, DType::fp8}, Collective{static_cast<CollectiveKind>(kind), 1, 2}, {}, {}};
    add(p, 1);
    p.gemm = Gemm{4096, 4096, 4096, DType::fp32};
    p.collective = Collective{static_cast<CollectiveKind>(kind), 1000003, 7};
    p.gemm_class = GemmClass::memory_bound;
    p.gemm_class_measured_on = "elsewhere";
    add(p, 1000);
    p.collective = Collective{static_cast<CollectiveKind>(kind), std::int64_t{1} << 40, 64};
    add(p, 1);
  }
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int* argc, char*** argv) {
  make_seeds_if_asked(*argc, *argv, make_seeds);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const AdviseInput in = AdviseInput::decode(data, size);
  for (const Advisor& advisor : EmbeddedAdvisors::get().advisors) {
    const C3Pair pair = in.pair(advisor.profile().name);
    Advice a;
    if (!advise_and_print(advisor, pair, &a)) continue;
    check_sweep(advisor, a);
    check_plan(advisor, pair, in.repeat);
  }
  return 0;
}
