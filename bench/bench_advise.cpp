// Throughput of the query path: Advisor::advise on the paper's scenarios, one
// thread and many (advise is const and shared across threads).
#include <benchmark/benchmark.h>

#include "c3/c3.hpp"

namespace {

const c3::Advisor& advisor() {
  static const c3::Advisor a(c3::io::resolve_profile("mi300x"));
  return a;
}

const std::vector<c3::C3Pair>& pairs() {
  static const std::vector<c3::C3Pair> p = c3::io::resolve_scenarios("paper");
  return p;
}

void BM_Advise(benchmark::State& state) {
  const auto& ps = pairs();
  std::size_t i = 0;
  for (auto _ : state) {
    benchmark::DoNotOptimize(advisor().advise(ps[i++ % ps.size()]));
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_Advise)->ThreadRange(1, 2)->UseRealTime();

// The same query with a profile that carries per-group strategy corrections (h200x2,
// docs/model.md §4.7) on generated pairs: the corrections' cost on the query path.
void BM_AdviseCorrected(benchmark::State& state) {
  static const c3::Advisor a(c3::io::resolve_profile("h200x2"));
  static const std::vector<c3::C3Pair> ps =
      c3::io::load_scenarios(std::string(C3_SOURCE_DIR) + "/data/scenarios/generated-s1101-n160.yaml");
  std::size_t i = 0;
  for (auto _ : state) {
    benchmark::DoNotOptimize(a.advise(ps[i++ % ps.size()]));
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_AdviseCorrected)->UseRealTime();

void BM_HeuristicCuSplit(benchmark::State& state) {
  const auto& ps = pairs();
  std::size_t i = 0;
  for (auto _ : state) {
    benchmark::DoNotOptimize(advisor().heuristic("cu_split", ps[i++ % ps.size()]));
  }
}
BENCHMARK(BM_HeuristicCuSplit);

// The sim backend on the paper's largest pair (a unit test asserted < 1 ms per pair
// until 2026-11-23; a time belongs in a benchmark).
void BM_SimConcurrentPair(benchmark::State& state) {
  c3::register_builtin_backends();
  const auto sim = c3::make_validator("sim", c3::io::resolve_profile("mi300x"));
  c3::C3Pair pair;
  pair.gemm = c3::parse_gemm("16384x106496x8192");
  pair.collective = c3::parse_collective("all_to_all:26.5GiB", 8);
  const c3::Strategy sp = c3::parse_strategy("sp");
  for (auto _ : state) benchmark::DoNotOptimize(sim->concurrent(pair, sp));
}
BENCHMARK(BM_SimConcurrentPair);

}  // namespace

BENCHMARK_MAIN();
