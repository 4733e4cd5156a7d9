// The strategy families (include/c3/strategy.hpp): registry, labels, checks,
// execution plans, canonical order, and that each family's prediction is its
// model equation (model.md §4.5).
#include <gtest/gtest.h>

#include <algorithm>

#include "c3/errors.hpp"
#include "c3/model.hpp"
#include "c3/strategy.hpp"
#include "c3/validator.hpp"
#include "support/toy_profile.hpp"

namespace c3 {
namespace {

using strategies::family_of;
using strategies::plan_of;
using testing::toy_profile;

TEST(StrategyFamilies, EveryKindHasExactlyOneFamilyInCanonicalOrder) {
  const std::vector<StrategyKind> kinds = strategies::all_kinds();
  EXPECT_EQ(kinds, (std::vector<StrategyKind>{StrategyKind::serial, StrategyKind::base, StrategyKind::sp,
                                              StrategyKind::rp, StrategyKind::dma, StrategyKind::dma_rp,
                                              StrategyKind::chunked}));
  std::vector<std::string_view> names;
  for (const strategies::Family* f : strategies::families()) names.push_back(f->name());
  EXPECT_EQ(names, (std::vector<std::string_view>{"serial", "launch_order", "partition", "copy_engine", "decomposed"}));
  for (StrategyKind k : kinds) {
    int owners = 0;
    for (const strategies::Family* f : strategies::families()) {
      const auto fk = f->kinds();
      owners += static_cast<int>(std::count(fk.begin(), fk.end(), k));
    }
    EXPECT_EQ(owners, 1) << k.name();
  }
  EXPECT_THROW(family_of(StrategyKind{"no_such_kind"}), InputError);
}

TEST(StrategyFamilies, LabelsRoundTripThroughTheirFamily) {
  for (const char* label : {"serial", "base", "sp", "rp:32", "dma", "dma_rp:8"})
    EXPECT_EQ(parse_strategy(label).label(), label);
  EXPECT_EQ(parse_strategy("rp:16"), (Strategy{StrategyKind::rp, 16, 16}));
  EXPECT_EQ(parse_strategy("dma_rp:8"), (Strategy{StrategyKind::dma_rp, 0, 8}));
  for (const char* bad : {"rp", "dma_rp", "sp:8", "rp:0", "rp:-8", "rp:x", "chunked:4", ""})
    EXPECT_THROW(parse_strategy(bad), InputError) << bad;
}

TEST(StrategyFamilies, ExecutionPlans) {
  EXPECT_EQ(plan_of(parse_strategy("serial")), (ExecutionPlan{LaunchOrder::serial, Transport::cu, 0, 0, 1}));
  EXPECT_EQ(plan_of(parse_strategy("base")), (ExecutionPlan{LaunchOrder::gemm_first, Transport::cu, 0, 0, 1}));
  EXPECT_EQ(plan_of(parse_strategy("sp")),
            (ExecutionPlan{LaunchOrder::collective_first, Transport::cu, 0, 0, 1}));
  EXPECT_EQ(plan_of(parse_strategy("rp:32")),
            (ExecutionPlan{LaunchOrder::collective_first, Transport::cu, 32, 32, 1}));
  EXPECT_EQ(plan_of(parse_strategy("dma")),
            (ExecutionPlan{LaunchOrder::collective_first, Transport::dma, 0, 0, 1}));
  EXPECT_EQ(plan_of(parse_strategy("dma_rp:8")),
            (ExecutionPlan{LaunchOrder::collective_first, Transport::dma, 0, 8, 1}));
}

TEST(StrategyFamilies, ChecksNameTheField) {
  EXPECT_NO_THROW(strategies::check(parse_strategy("rp:32"), 132));
  EXPECT_THROW(strategies::check(Strategy{StrategyKind::rp, 0, 0}, 132), InputError);
  EXPECT_THROW(strategies::check(Strategy{StrategyKind::rp, 32, 16}, 132), InputError);
  EXPECT_THROW(strategies::check(Strategy{StrategyKind::rp, 132, 132}, 132), InputError);
  EXPECT_THROW(strategies::check(Strategy{StrategyKind::sp, 8, 0}, 132), InputError);
  EXPECT_THROW(strategies::check(Strategy{StrategyKind::dma, 0, 8}, 132), InputError);
  EXPECT_THROW(strategies::check(Strategy{StrategyKind::dma_rp, 8, 8}, 132), InputError);
  EXPECT_THROW(strategies::check(Strategy{StrategyKind::dma_rp, 0, 0}, 132), InputError);
  try {
    strategies::check(Strategy{StrategyKind::rp, 0, 0}, 132);
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("collective_cus"), std::string::npos) << e.what();
  }
}

TEST(StrategyFamilies, SimplerStrategiesWinTies) {
  const auto c = [](const char* label) { return strategies::complexity(parse_strategy(label)); };
  EXPECT_LT(c("serial"), c("base"));
  EXPECT_LT(c("base"), c("sp"));
  EXPECT_LT(c("sp"), c("dma"));
  EXPECT_LT(c("dma"), c("rp:32"));
  EXPECT_LT(c("rp:32"), c("dma_rp:8"));
}

TEST(StrategyFamilies, CanonicalOrderIsFamilyThenKindThenUnits) {
  std::vector<Strategy> v;
  for (const char* label : {"dma_rp:16", "rp:64", "dma", "sp", "dma_rp:8", "serial", "rp:16", "base"})
    v.push_back(parse_strategy(label));
  std::sort(v.begin(), v.end(), strategies::canonical_less);
  std::vector<std::string> labels;
  for (const Strategy& s : v) labels.push_back(s.label());
  EXPECT_EQ(labels, (std::vector<std::string>{"serial", "base", "sp", "rp:16", "rp:64", "dma", "dma_rp:8",
                                              "dma_rp:16"}));
}

TEST(StrategyFamilies, RunnableKindsFollowTheMechanisms) {
  const auto names = [](const std::vector<StrategyKind>& kinds) {
    std::string out;
    for (StrategyKind k : kinds) out += std::string(k.name()) + " ";
    return out;
  };
  EXPECT_EQ(names(runnable_kinds({false, false, 1})), "serial base sp ");
  EXPECT_EQ(names(runnable_kinds({true, false, 1})), "serial base sp rp ");
  EXPECT_EQ(names(runnable_kinds({false, true, 1})), "serial base sp dma ");
  EXPECT_EQ(names(runnable_kinds({true, true, 1})), "serial base sp rp dma dma_rp ");
}

// Each family predicts with its own model equation (§4.5) and reports the units it uses.
TEST(StrategyFamilies, PredictionsAreTheModelsEquations) {
  const HardwareProfile hw = toy_profile();
  const C3Pair pair{"big", {20000, 20000, 20000, DType::bf16}, {CollectiveKind::all_gather, 1'000'000'000, 8}, {}, ""};
  const model::Isolated iso = model::isolated_times(hw, pair);
  const model::Taxonomy tax = model::classify(hw, pair);
  const auto predict = [&](const char* label) { return strategies::predict(hw, pair, parse_strategy(label)); };
  EXPECT_DOUBLE_EQ(predict("serial").time_s, model::serial_time_s(iso));
  EXPECT_DOUBLE_EQ(predict("base").time_s, model::gemm_first_time_s(hw, pair, iso, tax));
  EXPECT_DOUBLE_EQ(predict("sp").time_s, model::collective_first_time_s(hw, pair, iso, tax));
  EXPECT_DOUBLE_EQ(predict("rp:30").time_s, model::partition_time_s(hw, pair, iso, tax, 30));
  EXPECT_DOUBLE_EQ(predict("dma").time_s, model::copy_engine_time_s(hw, pair, iso, tax, 0));
  EXPECT_DOUBLE_EQ(predict("dma_rp:20").time_s, model::copy_engine_time_s(hw, pair, iso, tax, 20));
  EXPECT_EQ(predict("sp").collective_cus, 20);
  EXPECT_EQ(predict("sp").gemm_cus, 80);
  EXPECT_EQ(predict("rp:30").collective_cus, 30);
  EXPECT_EQ(predict("rp:30").gemm_cus, 70);
  EXPECT_EQ(predict("dma_rp:20").collective_cus, 0);
  EXPECT_EQ(predict("dma_rp:20").gemm_cus, 80);
  // Candidates: families by position, each family's own order.
  std::vector<std::string> labels;
  for (const Strategy& s : strategies::candidates(hw, pair)) labels.push_back(s.label());
  ASSERT_GE(labels.size(), 5u);
  EXPECT_EQ(labels.front(), "serial");
  EXPECT_EQ(labels[1], "base");
  EXPECT_EQ(labels[2], "sp");
  EXPECT_TRUE(std::is_sorted(labels.begin(), labels.end(), [](const std::string& a, const std::string& b) {
    return strategies::canonical_less(parse_strategy(a), parse_strategy(b));
  }));
}

}  // namespace
}  // namespace c3
