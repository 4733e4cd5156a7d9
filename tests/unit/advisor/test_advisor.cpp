// Advisor decisions on constructed profiles where the right answer is known by
// construction; the paper's heuristics; plans; thread safety of advise().
#include <gtest/gtest.h>

#include <thread>

#include "c3/advisor.hpp"
#include "c3/errors.hpp"
#include "support/toy_profile.hpp"

namespace c3 {
namespace {

using testing::toy_profile;

const Gemm kBig{10000, 10000, 10000, DType::bf16};  // 4 ms, compute-bound on the toy

C3Pair pair(CollectiveKind kind, std::int64_t size_bytes) {
  return C3Pair{"p", kBig, {kind, size_bytes, 8}, {}};
}

const StrategyPrediction* find(const Advice& a, const std::string& label) {
  for (const auto& p : a.strategies)
    if (p.strategy.label() == label) return &p;
  return nullptr;
}

TEST(Advisor, PredictsEveryStrategyAndPicksTheFastest) {
  const Advisor advisor(toy_profile());
  const Advice a = advisor.advise(pair(CollectiveKind::all_gather, 1'000'000'000));
  // serial, base, sp, rp:10..50, dma, dma_rp:10, dma_rp:20
  std::vector<std::string> labels;
  for (const auto& p : a.strategies) labels.push_back(p.strategy.label());
  EXPECT_EQ(labels, (std::vector<std::string>{"serial", "base", "sp", "rp:10", "rp:20", "rp:30",
                                              "rp:40", "rp:50", "dma", "dma_rp:10",
                                              "dma_rp:20"}));
  for (const auto& p : a.strategies) EXPECT_GE(p.predicted_s, a.recommendation().predicted_s);
  EXPECT_FALSE(a.reason.empty());
  EXPECT_EQ(a.reason.back(), '.');
  // speedup is against serial; serial realizes none of the ideal
  EXPECT_DOUBLE_EQ(find(a, "serial")->speedup, 1.0);
  EXPECT_DOUBLE_EQ(find(a, "serial")->fraction_of_ideal, 0.0);
  EXPECT_EQ(find(a, "rp:30")->collective_cus, 30);
  EXPECT_EQ(find(a, "rp:30")->gemm_cus, 70);
  EXPECT_EQ(find(a, "dma_rp:20")->gemm_cus, 80);
  EXPECT_EQ(find(a, "dma")->collective_cus, 0);
}

TEST(Advisor, ConfidenceNamesTheRunnerUpAndHedgesInsideTheExpectedError) {
  HardwareProfile hw = toy_profile();
  const C3Pair p = pair(CollectiveKind::all_gather, 1'000'000'000);
  // sp and rp:20..rp:50 are all predicted c = 8.76 ms, dma 8.85 ms (model tests).
  const Advice plain = Advisor(hw).advise(p);
  EXPECT_EQ(plain.recommendation().strategy.label(), "sp");
  EXPECT_FALSE(plain.confidence.hedged);
  EXPECT_EQ(plain.confidence.expected_error, 0.0);  // the profile has no measured error
  EXPECT_NEAR(plain.confidence.margin, 0.0, 1e-12);  // rp:20..rp:50 tie with sp: the first of them
  EXPECT_EQ(plain.strategies[plain.confidence.runner_up].strategy.label(), "rp:20");
  // Independent pairs are reported with their expected error but not hedged (on the train
  // split hedging them cost decisions, docs/model.md "The recommendation").
  hw.prediction_error = {{"sp", 0.05}, {"rp", 0.05}, {"base", 0.05}, {"serial", 0.05}, {"dma", 0.0},
                         {"dma_rp", 0.0}};
  const Advice reported = Advisor(hw).advise(p);
  EXPECT_EQ(reported.recommendation().strategy.label(), "sp");
  EXPECT_FALSE(reported.confidence.hedged);
  EXPECT_DOUBLE_EQ(reported.confidence.expected_error, 0.05);
}

TEST(Advisor, DependentPairsKeepSerialUnlessASchedulesGainIsBeyondTheHedgeError) {
  HardwareProfile hw = toy_profile();
  C3Pair p{"p", kBig, {CollectiveKind::all_gather, 0, 2}, {}};
  p.dependency = Dependency::collective_feeds_gemm;
  p.collective.size_bytes = dependent_operand_bytes(kBig, p.dependency);
  const Advice plain = Advisor(hw).advise(p);
  ASSERT_EQ(plain.recommendation().strategy.kind, StrategyKind::chunked);
  const double gain = plain.strategies.front().predicted_s / plain.recommendation().predicted_s - 1.0;
  ASSERT_GT(gain, 0.0);
  EXPECT_FALSE(plain.confidence.hedged);
  // A hedge error above the predicted gain: serial's worst case (its own, the reference)
  // is the smallest, so serial is recommended and the reason says why.
  hw.prediction_error = {{"chunked", 2 * gain + 0.01}, {"serial", 0.5}};
  const Advice hedged = Advisor(hw).advise(p);
  EXPECT_EQ(hedged.recommendation().strategy.label(), "serial");
  EXPECT_TRUE(hedged.confidence.hedged);
  EXPECT_NE(hedged.reason.find("inside the error the advisor allows here"), std::string::npos)
      << hedged.reason;
  EXPECT_DOUBLE_EQ(hedged.confidence.expected_error, 2 * gain + 0.01);
  EXPECT_DOUBLE_EQ(hedged.confidence.hedge_error, 2 * gain + 0.01);
  // The pair's family with its own hedge error below the gain: the schedule stays, and the
  // confidence still reports the model's expected error beside the hedge's.
  hw.schedule_hedges[HedgeGroup{Dependency::collective_feeds_gemm, CollectiveKind::all_gather}] = gain / 2;
  const Advice family = Advisor(hw).advise(p);
  EXPECT_EQ(family.recommendation().strategy, plain.recommendation().strategy);
  EXPECT_FALSE(family.confidence.hedged);
  EXPECT_DOUBLE_EQ(family.confidence.expected_error, 2 * gain + 0.01);
  EXPECT_DOUBLE_EQ(family.confidence.hedge_error, gain / 2);
  // Another family's hedge does not apply to this pair.
  hw.schedule_hedges = {{HedgeGroup{Dependency::collective_feeds_gemm, CollectiveKind::all_to_all}, 0.0}};
  EXPECT_EQ(Advisor(hw).advise(p).recommendation().strategy.label(), "serial");
  // Below the gain (and the runner-up's margin): the schedule stays.
  hw.schedule_hedges.clear();
  hw.prediction_error = {{"chunked", 0.0}, {"serial", 0.5}};
  EXPECT_EQ(Advisor(hw).advise(p).recommendation().strategy, plain.recommendation().strategy);
}

TEST(Advisor, SchedulesInAPartitionAreHedgedWithTheirOwnError) {
  HardwareProfile hw = toy_profile();
  C3Pair p{"p", kBig, {CollectiveKind::all_gather, 0, 2}, {}};
  p.dependency = Dependency::collective_feeds_gemm;
  p.collective.size_bytes = dependent_operand_bytes(kBig, p.dependency);
  const Strategy whole = parse_strategy("chunked:4:dma"), cu = parse_strategy("chunked:4:cu"),
                 partitioned = parse_strategy("chunked:4:cu:16"), serial = parse_strategy("serial");
  hw.prediction_error = {{"chunked", 0.03}};
  // A profile without the partitioned family's entry: every schedule gets "chunked".
  EXPECT_DOUBLE_EQ(hedge_error(hw, p, partitioned), 0.03);
  hw.prediction_error[kPartitionedScheduleError] = 0.05;
  EXPECT_DOUBLE_EQ(hedge_error(hw, p, partitioned), 0.05);
  EXPECT_DOUBLE_EQ(hedge_error(hw, p, whole), 0.03);
  EXPECT_DOUBLE_EQ(hedge_error(hw, p, cu), 0.03);
  EXPECT_DOUBLE_EQ(hedge_error(hw, p, serial), 0.0);
  // A family's own hedge error replaces "chunked" for its schedules without a partition only.
  hw.schedule_hedges[HedgeGroup{Dependency::collective_feeds_gemm, CollectiveKind::all_gather}] = 0.01;
  EXPECT_DOUBLE_EQ(hedge_error(hw, p, whole), 0.01);
  EXPECT_DOUBLE_EQ(hedge_error(hw, p, cu), 0.01);
  EXPECT_DOUBLE_EQ(hedge_error(hw, p, partitioned), 0.05);
  EXPECT_DOUBLE_EQ(hedge_error(hw, p, serial), 0.0);
  EXPECT_DOUBLE_EQ(schedule_error(hw, p, whole), 0.03);  // the model's error, as confidence reports it
  // Independent pairs are not hedged, whatever the profile carries.
  C3Pair independent = p;
  independent.dependency = Dependency::none;
  EXPECT_DOUBLE_EQ(hedge_error(hw, independent, parse_strategy("rp:16")), 0.0);
}

TEST(Advisor, RecommendHedgedByHand) {
  const std::vector<Strategy> s = {parse_strategy("serial"), parse_strategy("chunked:2:dma"),
                                   parse_strategy("chunked:4:dma")};
  // chunked:4 is 3% faster than serial, 2% faster than chunked:2.
  const std::vector<double> t = {1.03, 1.02, 1.00};
  EXPECT_EQ(recommend_hedged(s, t, {0, 0, 0}), 2u);
  // Runner-up margin 2% < 5%: worst cases 1.03, 1.071, 1.05 -> serial.
  EXPECT_EQ(recommend_hedged(s, t, {0, 0.05, 0.05}), 0u);
  // 2% >= 1%: no hedge.
  EXPECT_EQ(recommend_hedged(s, t, {0, 0.01, 0.01}), 2u);
  EXPECT_THROW(recommend_hedged(s, t, {0, 0}), InputError);
}

TEST(Advisor, CuBasedWinsWhenCopyEnginesAreSlow) {
  // C-long pair: sp / rp:20+ take max(g', c) = c = 8.76 ms; DMA takes 8.85 ms.
  const Advisor advisor(toy_profile());
  const Advice a = advisor.advise(pair(CollectiveKind::all_gather, 1'000'000'000));
  EXPECT_EQ(a.recommendation().strategy.transport(), Transport::cu);  // sp and rp:20+ tie
  EXPECT_NEAR(a.recommendation().predicted_s, 8.76e-3, 1e-12);
}

TEST(Advisor, DmaWinsWhenCopyEnginesMatchAndCusAreScarce) {
  // Make the CU-based collective need 50 CUs to run at full speed and the copy
  // engines as fast as it: only DMA lets both run at full speed.
  auto hw = toy_profile();
  hw.collectives[CollectiveKind::all_gather][Transport::dma].latency_s = 1e-5;
  hw.collectives[CollectiveKind::all_gather][Transport::cu].default_cus = 50;
  hw.collective_slowdown[CollectiveKind::all_gather][CollectiveClass::bandwidth_bound] =
      testing::table("bw", {10, 50}, {3.0, 1.0});
  // a GEMM-long pair: GEMM 4 ms, collective 1 ms
  const std::int64_t size = 114'285'714;  // 0.875 * size / 1e11 + 1e-5 ~= 1 ms
  const Advice a = Advisor(hw).advise(pair(CollectiveKind::all_gather, size));
  EXPECT_EQ(a.taxonomy.overlap, model::OverlapClass::g_long);
  EXPECT_EQ(a.recommendation().strategy.kind, StrategyKind::dma);
  EXPECT_NEAR(a.recommendation().predicted_s, 4e-3, 1e-12);
  EXPECT_NEAR(a.recommendation().fraction_of_ideal, 1.0, 1e-9);
}

TEST(Advisor, TheSimplestStrategyWinsWithinTheTieMargin) {
  // DMA 0.5% faster than sp is a tie: sp is recommended; 2% faster is not.
  auto hw = toy_profile();
  const auto pair_c = pair(CollectiveKind::all_gather, 1'000'000'000);  // sp: 8.76 ms
  auto& dma = hw.collectives[CollectiveKind::all_gather][Transport::dma];
  dma.latency_s = 0;
  dma.bus_bw_bytes_per_s = 0.875e9 / (0.995 * 8.76e-3);  // dma = 0.995 * 8.76 ms
  EXPECT_EQ(Advisor(hw).advise(pair_c).recommendation().strategy.kind, StrategyKind::sp);
  dma.bus_bw_bytes_per_s = 0.875e9 / (0.98 * 8.76e-3);  // dma = 0.98 * 8.76 ms
  EXPECT_EQ(Advisor(hw).advise(pair_c).recommendation().strategy.kind, StrategyKind::dma);
}

TEST(Advisor, SerialWinsUnderCrushingInterference) {
  auto hw = toy_profile();
  hw.interference[Transport::cu][GemmClass::compute_bound] = {3.0, 3.0};
  hw.interference.erase(Transport::dma);  // no DMA offered
  const Advice a = Advisor(hw).advise(pair(CollectiveKind::all_gather, 1'000'000'000));
  EXPECT_EQ(find(a, "dma"), nullptr);
  EXPECT_EQ(a.recommendation().strategy.kind, StrategyKind::serial);
}

TEST(Advisor, ReductionsGetNoDmaStrategies) {
  const Advice a = Advisor(toy_profile()).advise(pair(CollectiveKind::reduce_scatter, 1 << 30));
  for (const auto& p : a.strategies) EXPECT_EQ(p.strategy.transport(), Transport::cu);
  EXPECT_EQ(a.isolated.collective_dma_s, 0.0);
}

TEST(Advisor, RejectsInvalidPairsAndProfiles) {
  const Advisor advisor(toy_profile());
  EXPECT_THROW(advisor.advise(pair(CollectiveKind::all_gather, 0)), InputError);
  EXPECT_THROW(advisor.advise(C3Pair{"p", Gemm{0, 1, 1, DType::bf16},
                                     {CollectiveKind::all_gather, 1, 8}, {}}),
               InputError);
  EXPECT_THROW(advisor.advise(pair(CollectiveKind::all_to_all, 1 << 20)), InputError);  // no params
  HardwareProfile empty;
  EXPECT_THROW(Advisor{empty}, InputError);
}

TEST(Heuristics, LaunchOrderByWorkgroupCount) {
  const Advisor advisor(toy_profile());
  // 20 collective workgroups < 10000 GEMM tiles: collective first
  EXPECT_EQ(advisor.heuristic("launch_order", pair(CollectiveKind::all_gather, 1 << 20)).kind,
            StrategyKind::sp);
  // a 1-tile GEMM has fewer workgroups than the collective: GEMM first
  const C3Pair tiny{"t", Gemm{100, 100, 100, DType::bf16}, {CollectiveKind::all_gather, 1 << 20, 8},
                    {}};
  EXPECT_EQ(advisor.heuristic("launch_order", tiny).kind, StrategyKind::base);
  EXPECT_THROW(advisor.heuristic("oracle", tiny), InputError);
}

TEST(Heuristics, CuSplitMinimizesTheLongerRooflineTime) {
  // Roofline at 50%: GEMM 4 ms; collective 0.875 GB / 50 GB/s = 17.5 ms.
  // GEMM x (1 + c/100); collective x table(c): 10 -> 2.0, 20+ -> 1.0.
  // max: c=10: 35 ms; c=20..50: 17.5 ms. The first minimum is c = 20.
  const Advisor advisor(toy_profile());
  const Strategy s = advisor.heuristic("cu_split", pair(CollectiveKind::all_gather, 1'000'000'000));
  EXPECT_EQ(s.label(), "rp:20");
}

TEST(Plan, SumsRepeatsUnderAdviceSerialAndBase) {
  const Advisor advisor(toy_profile());
  Trace t{"step", "", {{pair(CollectiveKind::all_gather, 1'000'000'000), 10},
                       {pair(CollectiveKind::reduce_scatter, 1 << 30), 3}}};
  const Plan p = plan(advisor, t);
  ASSERT_EQ(p.entries.size(), 2u);
  double advised = 0, serial = 0;
  for (const auto& e : p.entries) {
    advised += e.entry.repeat * e.advice.recommendation().predicted_s;
    serial += e.entry.repeat * (e.advice.isolated.gemm_s + e.advice.isolated.collective_s);
  }
  EXPECT_NEAR(p.advised_s, advised, 1e-12);
  EXPECT_NEAR(p.serial_s, serial, 1e-12);
  EXPECT_LE(p.advised_s, p.base_s);
  EXPECT_LE(p.advised_s, p.serial_s);
  t.entries[0].repeat = 0;
  EXPECT_THROW(plan(advisor, t), InputError);
}

TEST(Advisor, AdviseIsSafeFromManyThreads) {
  const Advisor advisor(toy_profile());
  const Advice expected = advisor.advise(pair(CollectiveKind::all_gather, 1'000'000'000));
  std::vector<std::thread> threads;
  std::vector<int> mismatches(8, 0);
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < 200; ++i) {
        const Advice a = advisor.advise(pair(CollectiveKind::all_gather, 1'000'000'000));
        if (a.recommendation().predicted_s != expected.recommendation().predicted_s) ++mismatches[t];
      }
    });
  }
  for (auto& th : threads) th.join();
  for (int m : mismatches) EXPECT_EQ(m, 0);
}

}  // namespace
}  // namespace c3
