// The decomposed family (strategies/family_decomposed.cpp): labels, which pairs it runs,
// its candidates and plans, and the advisor's choice for dependent pairs.
#include <gtest/gtest.h>

#include "c3/advisor.hpp"
#include "c3/errors.hpp"
#include "c3/model.hpp"
#include "c3/strategy.hpp"
#include "support/toy_profile.hpp"

namespace c3 {
namespace {

using testing::toy_profile;

C3Pair dependent(CollectiveKind kind, Dependency dependency, std::int64_t m = 1600) {
  C3Pair p;
  p.gemm = Gemm{m, 1000, 1000, DType::bf16};
  p.collective = {kind, dependent_operand_bytes(p.gemm, dependency), 2};
  p.dependency = dependency;
  return p;
}

TEST(Decomposed, LabelsRoundTrip) {
  for (const char* label : {"chunked:4:cu", "chunked:4:dma", "chunked:8:cu:16", "chunked:2:cu"}) {
    const Strategy s = parse_strategy(label);
    EXPECT_EQ(s.kind, StrategyKind::chunked);
    EXPECT_EQ(s.label(), label);
  }
  const Strategy s = parse_strategy("chunked:8:cu:16");
  EXPECT_EQ(s.chunks, 8);
  EXPECT_EQ(s.chunk_transport, Transport::cu);
  EXPECT_EQ(s.collective_cus, 16);
  EXPECT_EQ(s.gemm_cus_removed, 16);
  EXPECT_EQ(parse_strategy("chunked:4:dma").chunk_transport, Transport::dma);
  EXPECT_EQ(parse_strategy("rp:32").label(), "rp:32");  // the default label of one count
}

TEST(Decomposed, BadLabelsSayWhatIsExpected) {
  for (const char* label : {"chunked", "chunked:4", "chunked:4:pcie", "chunked:4:dma:8", "chunked:0:cu",
                            "chunked:x:cu", "chunked:4:cu:16:1", "chunked:4:cu:-2"}) {
    try {
      parse_strategy(label);
      ADD_FAILURE() << label << " parsed";
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find("chunked"), std::string::npos) << e.what();
    }
  }
}

TEST(Decomposed, OnlyDependentPairsAndOnlyItAndSerial) {
  const auto hw = toy_profile();
  const C3Pair ag = dependent(CollectiveKind::all_gather, Dependency::collective_feeds_gemm);
  const std::vector<Strategy> cands = strategies::candidates(hw, ag);
  ASSERT_FALSE(cands.empty());
  EXPECT_EQ(cands.front().kind, StrategyKind::serial);
  int dma = 0, partitioned = 0;
  for (std::size_t i = 1; i < cands.size(); ++i) {
    EXPECT_EQ(cands[i].kind, StrategyKind::chunked) << cands[i].label();
    EXPECT_EQ(ag.gemm.m % cands[i].chunks, 0);
    dma += cands[i].chunk_transport == Transport::dma;
    partitioned += cands[i].collective_cus > 0;
  }
  EXPECT_EQ(dma, 4);          // 2, 4, 8, 16 chunks divide 1600
  EXPECT_EQ(partitioned, 0);  // partitions of 8, 16 or 32: not on the toy's grid (multiples of 10)
  // A reduction has no copy-engine pieces.
  for (const Strategy& s : strategies::candidates(hw, dependent(CollectiveKind::reduce_scatter,
                                                                Dependency::gemm_feeds_collective)))
    EXPECT_EQ(s.chunk_transport, Transport::cu) << s.label();
  // Concurrent strategies cannot run a dependent pair; chunked cannot run an independent one.
  EXPECT_THROW(strategies::predict(hw, ag, Strategy{StrategyKind::sp, 0, 0}), InputError);
  C3Pair independent = ag;
  independent.dependency = Dependency::none;
  for (const Strategy& s : strategies::candidates(hw, independent)) EXPECT_NE(s.kind, StrategyKind::chunked);
  EXPECT_THROW(strategies::predict(hw, independent, parse_strategy("chunked:4:cu")), InputError);
}

TEST(Decomposed, PlanCarriesChunksTransportAndPartition) {
  const ExecutionPlan dma = strategies::plan_of(parse_strategy("chunked:4:dma"));
  EXPECT_EQ(dma.chunks, 4);
  EXPECT_EQ(dma.transport, Transport::dma);
  EXPECT_EQ(dma.order, LaunchOrder::collective_first);
  const ExecutionPlan part = strategies::plan_of(parse_strategy("chunked:8:cu:20"));
  EXPECT_EQ(part.collective_cus, 20);
  EXPECT_EQ(part.gemm_cus_removed, 20);
  EXPECT_EQ(part.transport, Transport::cu);
  // Simpler first among ties: fewer mechanisms, then fewer chunks (canonical order).
  EXPECT_LT(strategies::complexity(parse_strategy("chunked:4:cu")), strategies::complexity(parse_strategy("chunked:4:dma")));
  EXPECT_TRUE(strategies::canonical_less(parse_strategy("chunked:2:dma"), parse_strategy("chunked:4:cu")));
}

TEST(Decomposed, AdvisorRecommendsAPipelineOverSerialAndExplainsIt) {
  const Advisor advisor(toy_profile());
  const Advice a = advisor.advise(dependent(CollectiveKind::all_gather, Dependency::collective_feeds_gemm));
  EXPECT_EQ(a.recommendation().strategy.kind, StrategyKind::chunked);
  EXPECT_LT(a.recommendation().predicted_s, a.strategies.front().predicted_s);  // serial first
  EXPECT_NE(a.reason.find("pieces"), std::string::npos) << a.reason;
  EXPECT_THROW(advisor.heuristic("launch_order", a.pair), InputError);
  // The size must be the GEMM operand's.
  C3Pair wrong = a.pair;
  wrong.collective.size_bytes += 2;
  EXPECT_THROW(advisor.advise(wrong), InputError);
  // Its own schedule prices it: never a chained pair (docs/model.md §4.6).
  C3Pair chained = a.pair;
  chained.chained = true;
  EXPECT_THROW(advisor.advise(chained), InputError);
}

}  // namespace
}  // namespace c3
