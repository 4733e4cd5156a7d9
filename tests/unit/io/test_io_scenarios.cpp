// Scenario files: expansion into pairs, defaults, the paper's 30 scenarios, and
// malformed input naming its file, line and key path.
#include <gtest/gtest.h>

#include "c3/io.hpp"
#include "support/test_io_support.hpp"

namespace c3 {
namespace {

using test::config_error;
using test::fixture;
using test::line_of;
using test::replace_once;

constexpr const char* kOrigin = "scenarios.yaml";

std::vector<C3Pair> parse_small() {
  return io::parse_scenarios(fixture("scenarios_small.yaml"), kOrigin);
}

TEST(IoScenarios, ExpandsEachPairPerCollective) {
  const std::vector<C3Pair> pairs = parse_small();
  ASSERT_EQ(pairs.size(), 3u);
  EXPECT_EQ(pairs[0].name, "g1_64M");
  EXPECT_EQ(pairs[0].collective.kind, CollectiveKind::all_gather);
  EXPECT_EQ(pairs[1].name, "g1_64M");
  EXPECT_EQ(pairs[1].collective.kind, CollectiveKind::reduce_scatter);
  EXPECT_EQ(pairs[1].collective.size_bytes, 64LL << 20);
  EXPECT_EQ(pairs[1].gemm, (Gemm{4096, 4096, 4096, DType::bf16}));
  EXPECT_FALSE(pairs[1].gemm_class.has_value());
}

TEST(IoScenarios, AppliesDefaultsAndOverrides) {
  const std::vector<C3Pair> pairs = parse_small();
  EXPECT_EQ(pairs[0].collective.ranks, 4);
  EXPECT_EQ(pairs[2].collective.ranks, 2);
  EXPECT_EQ(pairs[2].collective.size_bytes, 1LL << 30);
  EXPECT_EQ(pairs[2].gemm, (Gemm{8192, 1024, 2048, DType::fp8}));
  EXPECT_EQ(pairs[2].gemm_class, GemmClass::memory_bound);
}

TEST(IoScenarios, ReadsAGemmsLayout) {
  const std::string yaml = fixture("scenarios_small.yaml");
  const std::string row = replace_once(yaml, "ref: \"square\"}", "ref: \"square\", layout: row_major}");
  const std::vector<C3Pair> pairs = io::parse_scenarios(row, kOrigin);
  EXPECT_EQ(pairs[0].gemm.layout, GemmLayout::row_major);
  EXPECT_EQ(pairs[2].gemm.layout, GemmLayout::tn);  // the default
  const ConfigError e = config_error(
      [&] { io::parse_scenarios(replace_once(yaml, "ref: \"square\"}", "ref: \"square\", layout: nt}"), kOrigin); });
  EXPECT_NE(std::string(e.what()).find("gemms.g1.layout"), std::string::npos) << e.what();
  EXPECT_NE(std::string(e.what()).find("row_major"), std::string::npos) << e.what();
}

TEST(IoScenarios, SetRanksOverridesEveryPair) {
  std::vector<C3Pair> pairs = parse_small();
  io::set_ranks(pairs, 16);
  for (const C3Pair& pair : pairs) EXPECT_EQ(pair.collective.ranks, 16);
}

TEST(IoScenarios, PaperHasThirtyScenarios) {
  const std::vector<C3Pair> pairs = io::resolve_scenarios("paper");
  ASSERT_EQ(pairs.size(), 30u);
  int all_gathers = 0;
  for (const C3Pair& pair : pairs) {
    all_gathers += pair.collective.kind == CollectiveKind::all_gather ? 1 : 0;
    EXPECT_EQ(pair.collective.ranks, 8) << pair.name;
    EXPECT_EQ(pair.gemm.dtype, DType::bf16) << pair.name;
  }
  EXPECT_EQ(all_gathers, 15);
  const auto cb1 = std::find_if(pairs.begin(), pairs.end(),
                                [](const C3Pair& p) { return p.name == "cb1_896M"; });
  ASSERT_NE(cb1, pairs.end());
  EXPECT_EQ(cb1->gemm, (Gemm{8192, 8192, 8192, DType::bf16}));
  EXPECT_EQ(cb1->collective.size_bytes, 896LL << 20);
}

TEST(IoScenarios, PaperMatchesItsDataFile) {
  const std::vector<C3Pair> file = io::load_scenarios(test::source_path("data/scenarios/paper.yaml"));
  const std::vector<C3Pair> embedded = io::resolve_scenarios("paper");
  ASSERT_EQ(file.size(), embedded.size());
  for (std::size_t i = 0; i < file.size(); ++i) {
    EXPECT_EQ(file[i].name, embedded[i].name);
    EXPECT_EQ(file[i].collective, embedded[i].collective);
  }
}

TEST(IoScenarios, ResolvesAFileAndRejectsAnUnknownName) {
  EXPECT_EQ(io::resolve_scenarios(test::fixture_path("scenarios_small.yaml")).size(), 3u);
  try {
    io::resolve_scenarios("papr");
    FAIL() << "expected an InputError";
  } catch (const ConfigError&) {
    FAIL() << "an unknown name is not a malformed file";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("'papr'"), std::string::npos);
  }
}

using BadScenarios = test::BadInput;

class IoBadScenarios : public ::testing::TestWithParam<BadScenarios> {};

TEST_P(IoBadScenarios, NamesFileLineAndKey) {
  test::expect_bad_input(GetParam(), fixture("scenarios_small.yaml"), kOrigin,
                         [](const std::string& text, const char* origin) { io::parse_scenarios(text, origin); });
}

const BadScenarios kBadScenarios[] = {
    {"syntax", "collectives: [all_gather], ranks: 2}", "collectives: [all_gather, ranks: 2}", "",
     "[all_gather, ranks: 2}", "flow"},
    {"schema_version", "schema_version: 1", "schema_version: 3", "schema_version",
     "schema_version", "unsupported schema_version 3"},
    {"missing_pairs", "pairs:", "pears:", "pears", "pears:", "unknown key"},
    {"unknown_gemm", "gemm: g2,", "gemm: g3,", "pairs[1].gemm", "g3", "unknown GEMM 'g3'"},
    {"bad_size", "size: 64MiB", "size: 64XB", "pairs[0].size", "64XB", "64XB"},
    {"zero_size", "size: 64MiB", "size: 0MiB", "pairs[0].size", "0MiB", ""},
    {"negative_size", "size: 64MiB", "size: -64MiB", "pairs[0].size", "-64MiB", ""},
    {"nan_size", "size: 64MiB", "size: .nan", "pairs[0].size", ".nan", ""},
    {"unknown_collective", "[all_gather, reduce_scatter]", "[all_gather, reduce_scater]",
     "pairs[0].collectives[1]", "reduce_scater", "unknown collective 'reduce_scater'"},
    {"no_collectives", "[all_gather, reduce_scatter]", "[]", "pairs[0].collectives", "g1_64M",
     "at least one collective"},
    {"one_rank", "ranks: 2}", "ranks: 1}", "pairs[1].ranks", "g2_1G", "at least 2"},
    {"default_ranks", "ranks: 4}", "ranks: 0}", "defaults.ranks", "defaults", "at least 2"},
    {"no_ranks", "defaults: {dtype: bf16, ranks: 4}", "defaults: {dtype: bf16}", "pairs[0].ranks",
     "g1_64M", "no defaults.ranks"},
    {"zero_m", "{m: 4096, n: 4096, k: 4096,", "{m: 0, n: 4096, k: 4096,", "gemms.g1.m", "g1:",
     "must be > 0"},
    {"float_n", "{m: 4096, n: 4096, k: 4096,", "{m: 4096, n: 4096.5, k: 4096,", "gemms.g1.n",
     "g1:", "expected an integer"},
    {"missing_k", "{m: 4096, n: 4096, k: 4096,", "{m: 4096, n: 4096,", "gemms.g1.k", "g1:",
     "required key is missing"},
    {"unknown_dtype", "dtype: fp8", "dtype: fp4", "gemms.g2.dtype", "fp4", "unknown dtype 'fp4'"},
    {"unknown_class", "gemm_class: memory_bound", "gemm_class: io_bound", "gemms.g2.gemm_class",
     "io_bound", "unknown GEMM class 'io_bound'"},
    {"unknown_pair_key", "size: 1G,", "size: 1G, repeat: 2,", "pairs[1].repeat", "repeat: 2",
     "unknown key"},
    {"empty_pairs",
     "  - {name: g1_64M, gemm: g1, size: 64MiB, collectives: [all_gather, reduce_scatter]}\n"
     "  - {name: g2_1G, gemm: g2, size: 1G, collectives: [all_gather], ranks: 2}\n",
     "  []\n", "pairs", "pairs:", "at least one pair"},
    {"pair_not_mapping", "  - {name: g1_64M,", "  - g1_64M\n  - {name: g1_64M,", "pairs[0]",
     "  - g1_64M\n", "expected a mapping, got a scalar"},
    {"bad_source", "{source: published, ref: \"tests\"}", "{source: folklore, ref: \"tests\"}",
     "provenance.source", "folklore", "unknown source 'folklore'"},
    // each name once (--only and the reports name pairs), each collective once per pair
    {"duplicate_name", "{name: g2_1G,", "{name: g1_64M,", "pairs[1].name", "gemm: g2, size: 1G",
     "pair name 'g1_64M' used twice (first at line 11)"},
    {"duplicate_collective", "[all_gather, reduce_scatter]", "[all_gather, all_gather]", "pairs[0].collectives[1]",
     "[all_gather, all_gather]", "collective 'all_gather' listed twice"},
};

INSTANTIATE_TEST_SUITE_P(Cases, IoBadScenarios, ::testing::ValuesIn(kBadScenarios),
                         [](const auto& info) { return std::string(info.param.label); });

// ---- dependent pairs (docs/formats.md, "Scenarios") ----

std::vector<C3Pair> parse_dependent(const std::string& text) { return io::parse_scenarios(text, kOrigin); }

TEST(IoScenarios, ReadsDependentPairs) {
  const std::vector<C3Pair> pairs = parse_dependent(fixture("scenarios_dependent.yaml"));
  ASSERT_EQ(pairs.size(), 4u);
  // The all-gather and the all-to-all both deliver the 8192 x 8192 bf16 A: 128 MiB.
  EXPECT_EQ(pairs[0].dependency, Dependency::collective_feeds_gemm);
  EXPECT_EQ(pairs[0].collective.kind, CollectiveKind::all_gather);
  EXPECT_EQ(pairs[1].dependency, Dependency::collective_feeds_gemm);
  EXPECT_EQ(pairs[1].collective.kind, CollectiveKind::all_to_all);
  EXPECT_EQ(pairs[1].collective.size_bytes, 128LL << 20);
  EXPECT_EQ(pairs[3].dependency, Dependency::none);
  EXPECT_EQ(pairs[3].collective.size_bytes, 64LL << 20);
  // The independent fixture has no dependency key: none.
  for (const C3Pair& pair : parse_small()) EXPECT_EQ(pair.dependency, Dependency::none);
}

TEST(IoScenarios, DependentPairsSizeDefaultsToTheOperand) {
  const std::vector<C3Pair> pairs = parse_dependent(fixture("scenarios_dependent.yaml"));
  // down_rs gives no size: the reduce-scatter moves C, 8192 x 8192 x 2 bytes.
  EXPECT_EQ(pairs[2].name, "down_rs");
  EXPECT_EQ(pairs[2].dependency, Dependency::gemm_feeds_collective);
  EXPECT_EQ(pairs[2].collective.kind, CollectiveKind::reduce_scatter);
  EXPECT_EQ(pairs[2].collective.size_bytes, 8192LL * 8192 * 2);
  EXPECT_EQ(pairs[2].collective.ranks, 2);
}

TEST(IoScenarios, DependencyInTheDefaultsAppliesToPairsWithoutOne) {
  std::string text = replace_once(fixture("scenarios_dependent.yaml"), "defaults: {dtype: bf16, ranks: 2}",
                                  "defaults: {dtype: bf16, ranks: 2, dependency: collective_feeds_gemm}");
  text = replace_once(text, "all_to_all], dependency: collective_feeds_gemm}", "all_to_all]}");
  const std::vector<C3Pair> pairs = parse_dependent(text);
  EXPECT_EQ(pairs[0].dependency, Dependency::collective_feeds_gemm);  // from the defaults
  EXPECT_EQ(pairs[2].dependency, Dependency::gemm_feeds_collective);  // its own
  EXPECT_EQ(pairs[3].dependency, Dependency::none);                   // its own: none
}

TEST(IoScenarios, TracesTakeNoDependencyDefault) {
  // Only scenario files know dependencies; a trace's defaults keep their two keys.
  const std::string trace =
      "schema_version: 1\nname: t\ndefaults: {ranks: 2, dependency: collective_feeds_gemm}\n"
      "entries:\n  - {name: a, gemm: 64x64x64, collective: all_gather, size: 8KiB, repeat: 1}\n";
  const ConfigError e = config_error([&] { io::parse_trace(trace, "trace.yaml"); });
  EXPECT_EQ(e.key(), "defaults.dependency");
}

class IoBadDependentScenarios : public ::testing::TestWithParam<BadScenarios> {};

TEST_P(IoBadDependentScenarios, NamesFileLineAndKey) {
  test::expect_bad_input(GetParam(), fixture("scenarios_dependent.yaml"), kOrigin,
                         [](const std::string& text, const char* origin) { io::parse_scenarios(text, origin); });
}

const BadScenarios kBadDependentScenarios[] = {
    {"wrong_size", "size: 128MiB", "size: 64MiB", "pairs[0].size", "name: ag_qkv",
     "moves the GEMM's A (m x k = 8192 x 8192 bf16, 134217728 bytes = 128MiB), not 67108864 bytes"},
    {"wrong_kind", "collectives: [reduce_scatter]", "collectives: [all_gather]", "pairs[1].collectives[0]",
     "name: down_rs", "dependency gemm_feeds_collective takes reduce_scatter or all_to_all, not all_gather"},
    {"all_reduce_feeds", "collectives: [all_gather, all_to_all]", "collectives: [all_gather, all_reduce]",
     "pairs[0].collectives[1]", "name: ag_qkv", "takes all_gather or all_to_all, not all_reduce"},
    {"unknown_spelling", "dependency: gemm_feeds_collective", "dependency: gemm_feeds_colective",
     "pairs[1].dependency", "name: down_rs",
     "unknown dependency 'gemm_feeds_colective' (valid: none, collective_feeds_gemm, gemm_feeds_collective)"},
    {"unknown_default", "ranks: 2}", "ranks: 2, dependency: feeds}", "defaults.dependency", "defaults:",
     "unknown dependency 'feeds'"},
    {"independent_needs_size", "size: 64MiB, ", "", "pairs[2].size", "name: independent",
     "required key is missing"},
    {"operand_overflows", "down: {m: 8192, n: 8192, k: 14336", "down: {m: 3000000000, n: 3000000000, k: 1",
     "pairs[1].gemm", "name: down_rs", "overflows"},
};

INSTANTIATE_TEST_SUITE_P(Cases, IoBadDependentScenarios, ::testing::ValuesIn(kBadDependentScenarios),
                         [](const auto& info) { return std::string(info.param.label); });

}  // namespace
}  // namespace c3
