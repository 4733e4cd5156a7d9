// JSON, CSV and text outputs: every document echoes the advice it was given,
// with the schema of docs/cli.md.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <numeric>
#include <sstream>
#include <tuple>

#include "c3/io.hpp"
#include "c3/views.hpp"
#include "support/test_io_support.hpp"

namespace c3 {
namespace {

using Json = nlohmann::json;

class IoOutput : public ::testing::Test {
 protected:
  IoOutput() : advisor_(io::parse_profile(test::fixture("profiles/small.yaml"), "small.yaml")) {}

  std::vector<Advice> advise_all(const std::vector<C3Pair>& pairs) const {
    std::vector<Advice> out;
    for (const C3Pair& pair : pairs) out.push_back(advisor_.advise(pair));
    return out;
  }
  std::vector<Advice> small_sweep() const {
    return advise_all(io::parse_scenarios(test::fixture("scenarios_small.yaml"), "s.yaml"));
  }
  Advice advise(const char* gemm, const char* collective) const {
    C3Pair pair;
    pair.name = "p";
    pair.gemm = parse_gemm(gemm);
    pair.collective = parse_collective(collective, 4);
    return advisor_.advise(pair);
  }
  const HardwareProfile& hw() const { return advisor_.profile(); }

  Advisor advisor_;
};

std::vector<std::string> lines(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

TEST_F(IoOutput, AdviceJsonEchoesTheAdvice) {
  const Advice a = advise("4096x4096x4096", "all_gather:256MiB");
  const auto picks = io::heuristic_picks(advisor_, a.pair);
  const Json doc = Json::parse(io::advice_json(hw(), a, picks));
  EXPECT_EQ(doc["schema_version"], io::kSchemaVersion);
  EXPECT_EQ(doc["c3advisor_version"], std::string(io::version()));
  EXPECT_EQ(doc["profile"], "small");
  EXPECT_EQ(doc["gemm"], (Json{{"m", 4096}, {"n", 4096}, {"k", 4096}, {"dtype", "bf16"}, {"layout", "tn"}}));
  EXPECT_EQ(doc["collective"],
            (Json{{"kind", "all_gather"}, {"size_bytes", 256LL << 20}, {"ranks", 4}}));
  EXPECT_EQ(doc["isolated"]["gemm_s"].get<double>(), a.isolated.gemm_s);
  EXPECT_EQ(doc["isolated"]["collective_dma_s"].get<double>(), a.isolated.collective_dma_s);
  EXPECT_EQ(doc["taxonomy"]["overlap"], std::string(model::to_string(a.taxonomy.overlap)));
  EXPECT_EQ(doc["taxonomy"]["gemm"], std::string(to_string(a.taxonomy.gemm)));
  EXPECT_EQ(doc["ideal_speedup"].get<double>(), a.ideal_speedup);
  ASSERT_EQ(doc["strategies"].size(), a.strategies.size());
  for (std::size_t i = 0; i < a.strategies.size(); ++i) {
    const Json& s = doc["strategies"][i];
    EXPECT_EQ(s["name"], a.strategies[i].strategy.label());
    EXPECT_EQ(s["predicted_s"].get<double>(), a.strategies[i].predicted_s);
    EXPECT_EQ(s["gemm_cus"], a.strategies[i].gemm_cus);
  }
  const Json& rec = doc["recommendation"];
  EXPECT_EQ(rec["name"], a.recommendation().strategy.label());
  EXPECT_EQ(rec["reason"], a.reason);
  EXPECT_EQ(rec["transport"], std::string(to_string(a.recommendation().strategy.transport())));
  EXPECT_EQ(doc["heuristics"]["launch_order"],
            advisor_.heuristic("launch_order", a.pair).label());
  EXPECT_EQ(doc["heuristics"]["cu_split"], advisor_.heuristic("cu_split", a.pair).label());
}

TEST_F(IoOutput, AdviceJsonKeysAreInSchemaOrder) {
  const std::string text = io::advice_json(hw(), advise("4096x4096x4096", "all_gather:1GiB"));
  std::size_t last = 0;
  for (const char* key : {"schema_version", "c3advisor_version", "profile", "gemm", "collective",
                          "isolated", "taxonomy", "ideal_speedup", "strategies", "recommendation",
                          "heuristics"}) {
    const std::size_t at = text.find("\n  \"" + std::string(key) + "\":");
    ASSERT_NE(at, std::string::npos) << key;
    EXPECT_GT(at, last) << key;
    last = at;
  }
  EXPECT_TRUE(Json::parse(text)["heuristics"].empty());
}

TEST_F(IoOutput, AdviceJsonHasNoDmaTimeForAReduction) {
  const Json doc = Json::parse(io::advice_json(hw(), advise("4096x4096x4096", "reduce_scatter:1GiB")));
  EXPECT_TRUE(doc["isolated"]["collective_dma_s"].is_null());
  for (const Json& s : doc["strategies"]) EXPECT_EQ(s["transport"], "cu");
}

TEST_F(IoOutput, AdviceTextNamesTheRecommendation) {
  const Advice a = advise("4096x4096x4096", "all_gather:256MiB");
  const std::string text = io::advice_text(hw(), a, io::heuristic_picks(advisor_, a.pair));
  EXPECT_NE(text.find("recommended  " + a.recommendation().strategy.label() + ": " + a.reason),
            std::string::npos);
  EXPECT_NE(text.find("<- recommended"), std::string::npos);
  EXPECT_NE(text.find("heuristics   launch_order: "), std::string::npos);
  EXPECT_EQ(io::advice_text(hw(), a).find("heuristics"), std::string::npos);
  // The values line counts the profile's values per source, the kinds it has only.
  std::string counts;
  for (const auto& [kind, n] : source_counts(hw()))
    if (n > 0) counts += (counts.empty() ? "" : ", ") + std::to_string(n) + " " + std::string(to_string(kind));
  EXPECT_NE(text.find("\nvalues       " + counts + "\n"), std::string::npos) << text;
  EXPECT_NE(counts.find(" spec"), std::string::npos) << counts;
}

TEST(ComputeUnitName, SmsOnNvidiaGpusCusElsewhere) {
  HardwareProfile hw;
  for (const char* gpu : {"NVIDIA H200", "NVIDIA H100 SXM5 80GB", "nvidia h200"}) {
    hw.gpu = gpu;
    EXPECT_EQ(compute_unit_name(hw), "SMs") << gpu;
  }
  for (const char* gpu : {"AMD Instinct MI300X", "Test GPU", "", "NVIDI", "An NVIDIA GPU"}) {
    hw.gpu = gpu;
    EXPECT_EQ(compute_unit_name(hw), "CUs") << gpu;
  }
}

TEST(AdviceUnits, NvidiaAdviceSaysSmsAndAmdAdviceCus) {
  C3Pair pair;
  pair.gemm = parse_gemm("8192x8192x8192");
  pair.collective = parse_collective("all_gather:1GiB", 2);
  for (const auto& [profile, unit, other] : {std::tuple{"h200x2", "SMs", "CUs"}, std::tuple{"mi300x", "CUs", "SMs"}}) {
    const Advisor advisor(io::resolve_profile(profile));
    const Advice a = advisor.advise(pair);
    const std::string text = io::advice_text(advisor.profile(), a, io::heuristic_picks(advisor, a.pair));
    EXPECT_NE(text.find(std::string("coll ") + unit), std::string::npos) << text;
    EXPECT_EQ(text.find(std::string(" ") + other), std::string::npos) << text;
    const std::string sweep = io::sweep_text(advisor.profile(), {a});
    EXPECT_NE(sweep.find(std::string("rp @ ") + unit + " given to the collective"), std::string::npos) << sweep;
  }
}

TEST_F(IoOutput, SweepJsonReportsTheBestOfEachFamily) {
  const std::vector<Advice> advice = small_sweep();
  const Json doc = Json::parse(io::sweep_json(hw(), advice));
  ASSERT_EQ(doc["scenarios"].size(), advice.size());
  for (std::size_t i = 0; i < advice.size(); ++i) {
    const Json& s = doc["scenarios"][i];
    EXPECT_EQ(s["name"], advice[i].pair.name);
    EXPECT_EQ(s["recommendation"]["name"], advice[i].recommendation().strategy.label());
    for (const StrategyKind kind : {StrategyKind::serial, StrategyKind::base, StrategyKind::sp,
                                    StrategyKind::rp, StrategyKind::dma, StrategyKind::dma_rp}) {
      const StrategyPrediction* best = nullptr;
      for (const StrategyPrediction& p : advice[i].strategies) {
        if (p.strategy.kind == kind && (best == nullptr || p.predicted_s < best->predicted_s)) best = &p;
      }
      const std::string family(to_string(kind));
      ASSERT_EQ(s["families"].contains(family), best != nullptr) << family;
      if (best != nullptr) EXPECT_EQ(s["families"][family]["name"], best->strategy.label());
    }
  }
  // The small profile has no slowdown table for reduce_scatter, and it cannot use DMA.
  EXPECT_FALSE(doc["scenarios"][1]["families"].contains("rp"));
  EXPECT_FALSE(doc["scenarios"][1]["families"].contains("dma"));
  EXPECT_TRUE(doc["scenarios"][0]["families"].contains("dma_rp"));
}

TEST_F(IoOutput, SweepJsonAveragesByGroup) {
  const std::vector<Advice> advice = small_sweep();
  const Json averages = Json::parse(io::sweep_json(hw(), advice))["averages"];
  EXPECT_EQ(averages["overall"]["scenarios"], 3);
  const double recommended = std::accumulate(advice.begin(), advice.end(), 0.0,
                                             [](double sum, const Advice& a) {
                                               return sum + a.recommendation().fraction_of_ideal;
                                             }) / 3.0;
  EXPECT_DOUBLE_EQ(averages["overall"]["fraction_of_ideal"]["recommended"].get<double>(), recommended);
  // dma applies to the two all_gather scenarios only.
  EXPECT_DOUBLE_EQ(averages["by_collective"]["all_gather"]["fraction_of_ideal"]["dma"].get<double>(),
                   averages["overall"]["fraction_of_ideal"]["dma"].get<double>());
  EXPECT_EQ(averages["by_collective"]["all_gather"]["scenarios"], 2);
  EXPECT_FALSE(averages["by_collective"]["reduce_scatter"]["fraction_of_ideal"].contains("dma"));
  int by_overlap = 0;
  for (const auto& [name, group] : averages["by_overlap"].items()) by_overlap += group["scenarios"].get<int>();
  EXPECT_EQ(by_overlap, 3);
}

TEST_F(IoOutput, SweepCsvHasOneRowPerScenario) {
  std::vector<Advice> advice = small_sweep();
  advice[0].pair.name = "with,comma \"quoted\"";
  const std::vector<std::string> rows = lines(io::sweep_csv(hw(), advice));
  ASSERT_EQ(rows.size(), advice.size() + 1);
  const auto fields = [](const std::string& row) { return std::count(row.begin(), row.end(), ','); };
  EXPECT_EQ(rows[0].rfind("name,m,n,k,dtype,collective,size_bytes,ranks,", 0), 0u);
  EXPECT_EQ(rows[1].rfind("\"with,comma \"\"quoted\"\"\",4096,", 0), 0u);
  EXPECT_EQ(fields(rows[2]), fields(rows[0]));
  EXPECT_EQ(fields(rows[3]), fields(rows[0]));
  EXPECT_NE(rows[2].find(",reduce_scatter,"), std::string::npos);
  EXPECT_NE(rows[2].find(",,,,"), std::string::npos);  // no dma family for a reduction
}

TEST_F(IoOutput, SweepTextOfThePaperFitsA120ColumnTerminal) {
  const Advisor mi300x(io::resolve_profile("mi300x"));
  std::vector<Advice> advice;
  for (const C3Pair& pair : io::resolve_scenarios("paper")) advice.push_back(mi300x.advise(pair));
  const std::string text = io::sweep_text(mi300x.profile(), advice);
  for (const std::string& line : lines(text)) EXPECT_LE(line.size(), 120u) << line;
  EXPECT_NE(text.find("cb5_20G"), std::string::npos);
  EXPECT_NE(text.find("\nall_to_all "), std::string::npos);
  EXPECT_NE(text.find("\nc_long "), std::string::npos);
}

TEST_F(IoOutput, PlanJsonTotalsTheStep) {
  const Trace trace = io::parse_trace(test::fixture("trace_small.yaml"), "t.yaml");
  const Plan step = plan(advisor_, trace);
  const Json doc = Json::parse(io::plan_json(hw(), trace, step));
  EXPECT_EQ(doc["trace"]["name"], "small_step");
  ASSERT_EQ(doc["entries"].size(), 2u);
  EXPECT_EQ(doc["entries"][1]["repeat"], 2);
  EXPECT_EQ(doc["entries"][1]["recommendation"]["name"],
            step.entries[1].advice.recommendation().strategy.label());
  const Json& totals = doc["totals"];
  EXPECT_EQ(totals["advised_s"].get<double>(), step.advised_s);
  EXPECT_EQ(totals["serial_s"].get<double>(), step.serial_s);
  EXPECT_EQ(totals["base_s"].get<double>(), step.base_s);
  EXPECT_DOUBLE_EQ(totals["speedup_vs_serial"].get<double>(), step.serial_s / step.advised_s);
  const double serial_total = 3 * doc["entries"][0]["serial_s"].get<double>() +
                              2 * doc["entries"][1]["serial_s"].get<double>();
  EXPECT_DOUBLE_EQ(serial_total, step.serial_s);
}

TEST_F(IoOutput, APrefetchChainChainsItsIndependentEntries) {
  const Advisor h200x2(io::resolve_profile("h200x2"));
  const std::string head = "schema_version: 1\nname: fsdp\ndefaults: {ranks: 2}\n";
  const std::string entries =
      "entries:\n"
      "  - {name: qkv, gemm: 8192x6144x4096, collective: all_gather, size: 48MiB, repeat: 8}\n"
      "  - {name: tp, gemm: 8192x5120x8192, collective: all_gather, dependency: collective_feeds_gemm, repeat: 1}\n";
  const Trace alone = io::parse_trace(head + entries, "alone.yaml");
  const Trace chained = io::parse_trace(head + "chain: prefetch\n" + entries, "chained.yaml");
  EXPECT_FALSE(alone.prefetch_chain);
  EXPECT_TRUE(chained.prefetch_chain);
  EXPECT_FALSE(alone.entries[0].pair.chained);
  EXPECT_TRUE(chained.entries[0].pair.chained);
  EXPECT_FALSE(chained.entries[1].pair.chained);  // a dependent entry keeps its own schedule (§7)
  EXPECT_TRUE(chained.entries[0].pair.at_power_limit);  // a step's GEMMs back to back (§4.6)
  EXPECT_FALSE(alone.entries[0].pair.at_power_limit);
  const Plan step = plan(h200x2, chained);
  const Json doc = Json::parse(io::plan_json(h200x2.profile(), chained, step));
  EXPECT_EQ(doc["trace"]["chain"], "prefetch");
  const Json& qkv = doc["entries"][0];
  EXPECT_EQ(qkv["chained"], true);
  EXPECT_EQ(qkv["base_s"], qkv["strategies"][2]["predicted_s"]);  // sp runs as base
  EXPECT_EQ(qkv["strategies"][2]["name"], "sp");
  EXPECT_TRUE(qkv["settings"].is_object());
  EXPECT_NE(io::plan_text(h200x2.profile(), chained, step).find("issued as a prefetch chain"), std::string::npos);
  try {
    io::parse_trace(head + "chain: sometimes\n" + entries, "bad.yaml");
    FAIL() << "accepted chain: sometimes";
  } catch (const ConfigError& e) {
    EXPECT_EQ(e.key(), "chain");
    EXPECT_NE(std::string(e.what()).find("expected prefetch or none"), std::string::npos) << e.what();
  }
}

TEST_F(IoOutput, PlanOfDependentEntries) {
  // A dependent pair has no `base`: the plan counts its serial time there.
  const Advisor h200x2(io::resolve_profile("h200x2"));
  const Trace trace = io::parse_trace(
      "schema_version: 1\nname: tp\ndefaults: {ranks: 2}\nentries:\n"
      "  - {name: qkv, gemm: 8192x5120x8192, collective: all_gather, dependency: collective_feeds_gemm, repeat: 4}\n"
      "  - {name: down, gemm: 8192x8192x14336, collective: reduce_scatter, dependency: gemm_feeds_collective,"
      " repeat: 2}\n",
      "tp.yaml");
  const Plan step = plan(h200x2, trace);
  const Json doc = Json::parse(io::plan_json(h200x2.profile(), trace, step));
  ASSERT_EQ(doc["entries"].size(), 2u);
  EXPECT_EQ(doc["entries"][0]["dependency"], "collective_feeds_gemm");
  EXPECT_EQ(doc["entries"][1]["dependency"], "gemm_feeds_collective");
  double advised = 0, serial = 0;
  for (std::size_t i = 0; i < 2; ++i) {
    const Json& e = doc["entries"][i];
    EXPECT_EQ(e["base_s"], e["serial_s"]);
    EXPECT_GT(e["serial_s"].get<double>(), 0.0);
    advised += e["repeat"].get<int>() * e["recommendation"]["predicted_s"].get<double>();
    serial += e["repeat"].get<int>() * e["serial_s"].get<double>();
  }
  EXPECT_GT(step.entries[0].advice.recommendation().strategy.chunks, 1);  // the all-gather is cut
  EXPECT_DOUBLE_EQ(step.advised_s, advised);
  EXPECT_DOUBLE_EQ(step.serial_s, serial);
  EXPECT_DOUBLE_EQ(step.base_s, step.serial_s);
  const std::string text = io::plan_text(h200x2.profile(), trace, step);
  EXPECT_NE(text.find("all_gather 128MiB -> GEMM"), std::string::npos) << text;
  EXPECT_NE(text.find("reduce_scatter 128MiB <- GEMM"), std::string::npos) << text;
}

TEST_F(IoOutput, PlanTextListsEntriesAndTotals) {
  const Trace trace = io::parse_trace(test::fixture("trace_small.yaml"), "t.yaml");
  const std::string text = io::plan_text(hw(), trace, plan(advisor_, trace));
  EXPECT_NE(text.find("\nfwd "), std::string::npos);
  EXPECT_NE(text.find("\nbwd "), std::string::npos);
  EXPECT_NE(text.find("step total   advised "), std::string::npos);
}

TEST_F(IoOutput, ProfilesListsEachProfile) {
  const std::vector<HardwareProfile> profiles{hw(), io::resolve_profile("mi300x")};
  const Json doc = Json::parse(io::profiles_json(profiles));
  ASSERT_EQ(doc["profiles"].size(), 2u);
  EXPECT_EQ(doc["profiles"][0]["name"], "small");
  EXPECT_EQ(doc["profiles"][0]["source"], "measured");
  EXPECT_EQ(doc["profiles"][1]["compute_units"], 304);
  EXPECT_EQ(doc["profiles"][1]["value_sources"]["counts"]["fitted"], doc["profiles"][1]["value_sources"]["fitted"].size());
  EXPECT_EQ(doc["profiles"][1]["value_sources"]["fitted"][0]["key"], "gemm_first_delay_factor");
  const std::string text = io::profiles_text(profiles);
  const std::vector<std::string> rows = lines(text);
  ASSERT_GE(rows.size(), 6u);  // header, rule, two profiles, then mi300x's fitted values
  EXPECT_EQ(rows[2].rfind("small ", 0), 0u);
  EXPECT_NE(rows[3].find(" fitted"), std::string::npos) << rows[3];  // the values column
  EXPECT_NE(text.find("\nmi300x: "), std::string::npos) << text;
  EXPECT_NE(text.find("\n  gemm_first_delay_factor\n"), std::string::npos) << text;
  EXPECT_EQ(text.find("\nsmall: "), std::string::npos) << text;  // nothing fitted in it
}

}  // namespace
}  // namespace c3
