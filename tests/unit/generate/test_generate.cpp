// The scenario generator (docs/scenarios.md): shapes derived by hand for known models,
// the PRNG, determinism against a golden file, coverage of a large draw, the filter, and
// catalog errors naming file, line and field.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <set>

#include "c3/catalog.hpp"
#include "c3/errors.hpp"
#include "c3/generate.hpp"
#include "c3/io.hpp"
#include "c3/model.hpp"
#include "support/temp_dir.hpp"
#include "support/test_io_support.hpp"

namespace c3 {
namespace {

using generate::LayerGemm;
using generate::Split;

ModelConfig model_named(const Catalog& catalog, const std::string& name) {
  for (const ModelConfig& m : catalog.models)
    if (m.name == name) return m;
  throw std::logic_error("no model " + name);
}

Catalog repo_catalog() { return io::load_catalog(test::source_path("data/catalog")); }

Gemm role(const std::vector<LayerGemm>& gemms, const std::string& name) {
  for (const LayerGemm& g : gemms)
    if (g.role == name) return g.gemm;
  throw std::logic_error("no GEMM " + name);
}

// ---- shapes, checked by hand ----

TEST(GenerateShapes, Llama70bTensorParallel4ByHand) {
  // LLaMA-3 70B: hidden 8192, 64 heads of 128, 8 KV heads, FFN 28672 (gated), vocab 128256.
  const ModelConfig m = model_named(repo_catalog(), "llama3-70b");
  const auto gemms = generate::layer_gemms(m, Split{8192, 4, 1});
  // QKV: (64/4 + 2 x 8/4) heads x 128 = 2560 outputs; out_proj: K = 16 x 128 = 2048.
  EXPECT_EQ(role(gemms, "qkv"), (Gemm{8192, 2560, 8192, DType::bf16}));
  EXPECT_EQ(role(gemms, "out_proj"), (Gemm{8192, 8192, 2048, DType::bf16}));
  // MLP gate+up: 2 x 28672 / 4 = 14336; down: K = 7168.
  EXPECT_EQ(role(gemms, "mlp_up"), (Gemm{8192, 14336, 8192, DType::bf16}));
  EXPECT_EQ(role(gemms, "mlp_down"), (Gemm{8192, 8192, 7168, DType::bf16}));
  EXPECT_EQ(role(gemms, "lm_head"), (Gemm{8192, 32064, 8192, DType::bf16}));
  EXPECT_EQ(gemms.size(), 5u);
}

TEST(GenerateShapes, BackwardPassesTransposeTheForwardGemm) {
  const Gemm fwd{8192, 14336, 4096, DType::bf16};
  EXPECT_EQ(generate::pass_gemm(fwd, generate::Pass::backward_data), (Gemm{8192, 4096, 14336, DType::bf16}));
  EXPECT_EQ(generate::pass_gemm(fwd, generate::Pass::backward_weight), (Gemm{4096, 14336, 8192, DType::bf16}));
}

TEST(GenerateShapes, MixtralExpertsSeeRoutedTokens) {
  // 4096 tokens x top-2 x ep 2 over 8 experts: 2048 tokens per local expert.
  const ModelConfig m = model_named(repo_catalog(), "mixtral-8x7b");
  const auto gemms = generate::layer_gemms(m, Split{4096, 1, 2});
  EXPECT_EQ(role(gemms, "expert_up"), (Gemm{2048, 28672, 4096, DType::bf16}));
  EXPECT_EQ(role(gemms, "expert_down"), (Gemm{2048, 4096, 14336, DType::bf16}));
  EXPECT_FALSE(std::any_of(gemms.begin(), gemms.end(), [](const LayerGemm& g) { return g.role == "mlp_up"; }));
}

TEST(GenerateShapes, DeepSeekLatentAttentionByHand) {
  const ModelConfig m = model_named(repo_catalog(), "deepseek-v3");
  const auto gemms = generate::layer_gemms(m, Split{4096, 1, 1});
  // q_lora 1536 + kv_lora 512 + rope 64; 128 heads x (128 + 64); 128 x (128 + 128).
  EXPECT_EQ(role(gemms, "qkv_down"), (Gemm{4096, 2112, 7168, DType::bf16}));
  EXPECT_EQ(role(gemms, "q_up"), (Gemm{4096, 24576, 1536, DType::bf16}));
  EXPECT_EQ(role(gemms, "kv_up"), (Gemm{4096, 32768, 512, DType::bf16}));
  EXPECT_EQ(role(gemms, "out_proj"), (Gemm{4096, 7168, 16384, DType::bf16}));
  // 4096 x 8 / 256 = 128 tokens per expert; the shared expert sees every token.
  EXPECT_EQ(role(gemms, "expert_up"), (Gemm{128, 4096, 7168, DType::bf16}));
  EXPECT_EQ(role(gemms, "shared_down"), (Gemm{4096, 7168, 2048, DType::bf16}));
}

TEST(GenerateShapes, BlockWeightsOfLlama8bByHand) {
  // Attention 4096 x (32 + 2 x 8) x 128 + 32 x 128 x 4096 = 41943040; MLP 3 x 4096 x 14336
  // = 176160768: 218103808 elements, the 436 MB all-gather of data/scenarios/heldout.yaml.
  const ModelConfig m = model_named(repo_catalog(), "llama3-8b");
  EXPECT_EQ(generate::block_weight_elements(m, 1), 218103808);
  EXPECT_EQ(generate::block_weight_elements(m, 2), 109051904);
}

TEST(GenerateShapes, PairMemoryCountsGemmAndCollectiveBuffers) {
  const Gemm g{1024, 2048, 512, DType::bf16};  // (1024x512 + 512x2048 + 1024x2048) x 2 bytes
  const std::int64_t gemm_bytes = (1024 * 512 + 512 * 2048 + 1024 * 2048) * 2;
  EXPECT_EQ(generate::pair_memory_bytes(g, Collective{CollectiveKind::all_gather, 1 << 20, 4}),
            gemm_bytes + (1 << 20) + (1 << 18));
  EXPECT_EQ(generate::pair_memory_bytes(g, Collective{CollectiveKind::all_to_all, 1 << 20, 4}),
            gemm_bytes + (2 << 20));
}

// ---- the PRNG ----

TEST(GenerateRng, SeedsWithSplitmix64) {
  // splitmix64's first output from state 0 is 0xE220A8397B1DCDAF (Vigna's reference code);
  // xoshiro256**'s first output is rotl(s1 * 5, 7) * 9 of the seeded state.
  generate::Rng a(0);
  generate::Rng b(0);
  const std::uint64_t first = a.next();
  EXPECT_EQ(first, b.next());
  EXPECT_NE(first, generate::Rng(1).next());
  for (int i = 0; i < 1000; ++i) EXPECT_LT(a.below(7), 7u);
  EXPECT_THROW(a.below(0), InputError);
  std::vector<int> hits(3, 0);
  for (int i = 0; i < 3000; ++i) ++hits[a.weighted({1, 0, 2})];
  EXPECT_EQ(hits[1], 0);
  EXPECT_GT(hits[2], hits[0]);
}

// ---- determinism ----

generate::Options small_options() {
  generate::Options o;
  o.seed = 7;
  o.count = 6;
  o.ranks = 2;
  return o;
}

std::string small_yaml() {
  const Catalog catalog = io::load_catalog(test::fixture_path("catalog_small.yaml"));
  return generate::scenarios_yaml(generate::generate(catalog, io::resolve_profile("h200x2"), small_options()));
}

TEST(GenerateDeterminism, SameSeedSameBytesAsTheGolden) {
  // The golden was written by this generator (version 1); a change of the draws, the
  // shapes or the text must bump kGeneratorVersion and rewrite it (docs/scenarios.md).
  const std::string yaml = small_yaml();
  EXPECT_EQ(yaml, small_yaml());
  EXPECT_EQ(yaml, test::fixture("generated_small_s7_n6.yaml"));
  const std::vector<C3Pair> pairs = io::parse_scenarios(yaml, "generated.yaml");
  ASSERT_EQ(pairs.size(), 6u);
  for (const C3Pair& p : pairs) EXPECT_EQ(p.collective.ranks, 2);
}

TEST(GenerateDeterminism, OtherSeedOtherFile) {
  const Catalog catalog = io::load_catalog(test::fixture_path("catalog_small.yaml"));
  generate::Options o = small_options();
  o.seed = 8;
  EXPECT_NE(generate::scenarios_yaml(generate::generate(catalog, io::resolve_profile("h200x2"), o)), small_yaml());
}

TEST(GenerateDeterminism, TheHeadersCommandNamesACatalogAndProfileNotTheDefaults) {
  const Catalog catalog = io::load_catalog(test::fixture_path("catalog_small.yaml"));
  generate::Options o = small_options();
  o.inputs = " --catalog tests/unit/fixtures/catalog_small.yaml --profile h100x2";
  const std::string yaml =
      generate::scenarios_yaml(generate::generate(catalog, io::resolve_profile("h200x2"), o));
  EXPECT_EQ(yaml.rfind("# Generated by `c3advisor scenarios generate --seed 7 --count 6 --ranks 2 --catalog "
                       "tests/unit/fixtures/catalog_small.yaml --profile h100x2` (docs/scenarios.md)",
                       0),
            0u)
      << yaml.substr(0, 200);
}

TEST(GenerateDeterminism, ProvenanceRecordsSeedCountDigestVersion) {
  const std::string yaml = small_yaml();
  const Catalog catalog = io::load_catalog(test::fixture_path("catalog_small.yaml"));
  EXPECT_NE(yaml.find("  seed: 7\n"), std::string::npos);
  EXPECT_NE(yaml.find("  count: 6\n"), std::string::npos);
  EXPECT_NE(yaml.find("  version: " + std::to_string(generate::kGeneratorVersion) + "\n"), std::string::npos);
  EXPECT_NE(yaml.find("catalog_digest: fnv1a64:" + catalog.digest), std::string::npos);
  EXPECT_EQ(catalog.digest.size(), 16u);
}

TEST(GenerateExclude, NoExcludedPairIsDrawnAndTheFileSaysWhy) {
  const Catalog catalog = io::load_catalog(test::fixture_path("catalog_small.yaml"));
  const HardwareProfile hw = io::resolve_profile("h200x2");
  const generate::Generated plain = generate::generate(catalog, hw, small_options());
  generate::Options o = small_options();
  // The first three pairs of the plain draw are excluded: none may come back.
  std::set<generate::PairKey> first;
  for (int i = 0; i < 3; ++i) {
    const generate::GeneratedPair& p = plain.pairs.at(static_cast<std::size_t>(i));
    first.insert(generate::pair_key(p.gemm, p.collective, p.dependency));
  }
  o.exclude = {first, 1, "--exclude seen.yaml"};
  const generate::Generated excluded = generate::generate(catalog, hw, o);
  ASSERT_EQ(excluded.pairs.size(), 6u);
  for (const generate::GeneratedPair& p : excluded.pairs)
    EXPECT_EQ(first.count(generate::pair_key(p.gemm, p.collective, p.dependency)), 0u) << p.name;
  EXPECT_GE(excluded.rejected.at("excluded"), 3);
  // Pairs the plain draw kept after the excluded ones are still drawn (the same stream).
  const generate::GeneratedPair& fourth = plain.pairs.at(3);
  EXPECT_EQ(generate::pair_key(excluded.pairs.at(0).gemm, excluded.pairs.at(0).collective,
                               excluded.pairs.at(0).dependency),
            generate::pair_key(fourth.gemm, fourth.collective, fourth.dependency));
  const std::string yaml = generate::scenarios_yaml(excluded);
  EXPECT_NE(yaml.find("--count 6 --ranks 2 --exclude seen.yaml`"), std::string::npos) << yaml;
  EXPECT_NE(yaml.find("  exclude: {pairs: 3, sets: 1, source: \"--exclude seen.yaml\"}\n"), std::string::npos)
      << yaml;
  EXPECT_NE(yaml.find("excluded: "), std::string::npos);
  EXPECT_EQ(generate::generate(catalog, hw, o).pairs.size(), 6u);
  EXPECT_EQ(generate::scenarios_yaml(generate::generate(catalog, hw, o)), yaml);  // deterministic
  // Nothing excluded: the file of before (the golden of SameSeedSameBytesAsTheGolden).
  EXPECT_EQ(small_yaml().find("exclude"), std::string::npos);
}

TEST(GenerateExclude, PairsDifferingInOneFieldAreOtherPairs) {
  const Gemm g{1024, 2048, 4096, DType::bf16};
  const Collective c{CollectiveKind::all_gather, 1 << 20, 2};
  const generate::PairKey key = generate::pair_key(g, c, Dependency::none);
  EXPECT_EQ(key, generate::pair_key(g, Collective{CollectiveKind::all_gather, 1 << 20, 4}, Dependency::none));
  EXPECT_NE(key, generate::pair_key(Gemm{1024, 2048, 2048, DType::bf16}, c, Dependency::none));
  EXPECT_NE(key, generate::pair_key(g, Collective{CollectiveKind::all_to_all, 1 << 20, 2}, Dependency::none));
  EXPECT_NE(key, generate::pair_key(g, Collective{CollectiveKind::all_gather, 2 << 20, 2}, Dependency::none));
  EXPECT_NE(key, generate::pair_key(g, c, Dependency::collective_feeds_gemm));
}

// ---- coverage and the filter ----

TEST(GenerateCoverage, LargeDrawCoversEveryKindPhaseAndParallelism) {
  const Catalog catalog = repo_catalog();
  const HardwareProfile hw = io::resolve_profile("h200x2");
  generate::Options o;
  o.seed = 2026;
  o.count = 400;
  const generate::Generated g = generate::generate(catalog, hw, o);
  ASSERT_EQ(g.pairs.size(), 400u);
  std::set<CollectiveKind> kinds;
  std::set<generate::Phase> phases;
  std::set<generate::Parallelism> parallelisms;
  std::set<std::string> models;
  std::set<std::string> names;
  std::int64_t smallest = INT64_MAX;
  std::int64_t largest = 0;
  double min_flops = 1e300;
  double max_flops = 0;
  for (const generate::GeneratedPair& p : g.pairs) {
    kinds.insert(p.collective.kind);
    phases.insert(p.phase);
    parallelisms.insert(p.parallelism);
    models.insert(p.model);
    EXPECT_TRUE(names.insert(p.name).second) << p.name;
    smallest = std::min(smallest, p.collective.size_bytes);
    largest = std::max(largest, p.collective.size_bytes);
    min_flops = std::min(min_flops, model::gemm_flops(p.gemm));
    max_flops = std::max(max_flops, model::gemm_flops(p.gemm));
    // The filter holds for every pair.
    EXPECT_LE(generate::pair_memory_bytes(p.gemm, p.collective), o.max_memory_bytes) << p.name;
    C3Pair q;
    q.gemm = p.gemm;
    q.collective = p.collective;
    EXPECT_LE(model::serial_time_s(model::isolated_times(hw, q)), 0.1) << p.name;
    EXPECT_GE(p.collective.size_bytes, 16 << 10);
    EXPECT_LE(p.collective.size_bytes, std::int64_t{16} << 30);
    EXPECT_EQ(p.collective.size_bytes % (1024 * o.ranks), 0) << p.name;
    EXPECT_NE(p.ref.find(p.model), std::string::npos);
  }
  EXPECT_EQ(kinds.size(), 4u);
  EXPECT_EQ(phases.size(), 3u);
  EXPECT_EQ(parallelisms.size(), 4u);
  EXPECT_GE(models.size(), 15u);
  EXPECT_EQ(smallest, 16 << 10);            // decode all-reduces are clamped up to 16 KiB
  EXPECT_GE(largest, std::int64_t{1} << 30);  // FSDP all-gathers of large blocks
  EXPECT_LE(min_flops, 2.0 * 256 * 8192 * 8192);  // decode-size GEMMs
  EXPECT_GE(max_flops, 3e13);  // and training ones beyond the top of h200x2's efficiency curve
}

TEST(GenerateCoverage, TheFilterRedrawsWhatIsTooLongOrTooLarge) {
  const Catalog catalog = repo_catalog();
  const HardwareProfile hw = io::resolve_profile("h200x2");
  generate::Options o;
  o.seed = 5;
  o.count = 60;
  o.max_serial_us = 2000;
  o.max_memory_bytes = 2'000'000'000;
  const generate::Generated g = generate::generate(catalog, hw, o);
  EXPECT_GT(g.rejected.at("time"), 0);
  EXPECT_GT(g.rejected.at("memory"), 0);
  int rejected = 0;
  for (const auto& [why, n] : g.rejected) rejected += n;
  EXPECT_EQ(g.drawn, 60 + rejected);
  for (const generate::GeneratedPair& p : g.pairs) {
    EXPECT_LE(generate::pair_memory_bytes(p.gemm, p.collective), o.max_memory_bytes) << p.name;
    C3Pair q;
    q.gemm = p.gemm;
    q.collective = p.collective;
    EXPECT_LE(model::serial_time_s(model::isolated_times(hw, q)), 2e-3) << p.name;
  }
}

TEST(GenerateCoverage, ProgressIsReportedEveryMillionDrawsAndMovesNoDraw) {
  const Catalog catalog = io::load_catalog(test::fixture_path("catalog_small.yaml"));
  const HardwareProfile hw = io::resolve_profile("h200x2");
  generate::Options o = small_options();
  std::vector<std::pair<int, int>> calls;
  const auto record = [&](int pairs, int drawn) { calls.emplace_back(pairs, drawn); };
  // a short draw: no report, and the same pairs as without a callback
  const generate::Generated with = generate::generate(catalog, hw, o, record);
  EXPECT_TRUE(calls.empty());
  EXPECT_EQ(generate::scenarios_yaml(with), generate::scenarios_yaml(generate::generate(catalog, hw, o)));
  // nothing passes: 1000 x count draws, one report per kProgressDraws of them, then the error
  o.max_serial_us = 1;
  o.count = generate::kProgressDraws / 1000 + 1;
  EXPECT_THROW(generate::generate(catalog, hw, o, record), InputError);
  EXPECT_EQ(calls, (std::vector<std::pair<int, int>>{{0, generate::kProgressDraws}}));
}

TEST(GenerateCoverage, BadOptionsAreInputErrors) {
  const Catalog catalog = io::load_catalog(test::fixture_path("catalog_small.yaml"));
  const HardwareProfile hw = io::resolve_profile("h200x2");
  generate::Options o = small_options();
  o.count = 0;
  EXPECT_THROW(generate::generate(catalog, hw, o), InputError);
  o.count = generate::kMaxCount + 1;  // its draws would not fit the int that counts them
  EXPECT_THROW(generate::generate(catalog, hw, o), InputError);
  o = small_options();
  o.ranks = 4;  // the filter's profile has 2 GPUs
  EXPECT_THROW(generate::generate(catalog, hw, o), InputError);
  o = small_options();
  o.max_serial_us = 1;  // nothing passes: an error after 1000 x count draws
  EXPECT_THROW(generate::generate(catalog, hw, o), InputError);
}

TEST(GenerateCoverage, SizeTextIsExactIntegers) {
  EXPECT_EQ(generate::size_text(16 << 10), "16KiB");
  EXPECT_EQ(generate::size_text(3 << 20), "3MiB");
  EXPECT_EQ(generate::size_text(std::int64_t{16} << 30), "16GiB");
  EXPECT_EQ(generate::size_text(1536 * 1024), "1536KiB");
  EXPECT_EQ(generate::size_text(1000), "1000");
}

// ---- dependent pairs (docs/scenarios.md, "Dependent pairs") ----

generate::Generated dependent(const Catalog& catalog, std::uint64_t seed, int count,
                              generate::DependentDraw draw = generate::DependentDraw::any) {
  generate::Options o;
  o.seed = seed;
  o.count = count;
  o.ranks = 2;
  o.dependency = draw;
  return generate::generate(catalog, io::resolve_profile("h200x2"), o);
}

TEST(GenerateDependent, EveryPairMovesItsGemmsOwnActivations) {
  const Catalog catalog = repo_catalog();
  const generate::Generated g = dependent(catalog, 2026, 300);
  ASSERT_EQ(g.pairs.size(), 300u);
  std::set<std::pair<CollectiveKind, Dependency>> cases;
  std::set<generate::Phase> phases;
  std::set<generate::Pass> passes;
  std::set<std::string> models;
  for (const generate::GeneratedPair& p : g.pairs) {
    const ModelConfig m = model_named(catalog, p.model);
    cases.insert({p.collective.kind, p.dependency});
    phases.insert(p.phase);
    passes.insert(p.pass);
    models.insert(p.model);
    EXPECT_NO_THROW(validate_dependency(p.gemm, p.collective, p.dependency)) << p.name;
    // Every chunk count of the decomposed strategies (2..16) divides m at 2 ranks.
    EXPECT_EQ(p.gemm.m % 32, 0) << p.name;
    // The operand moved is the layer's activations, rows x hidden: the GEMM's A has the
    // hidden columns (k) when the collective feeds it, its C (n) when it feeds the collective.
    const bool feeds = p.dependency == Dependency::collective_feeds_gemm;
    EXPECT_EQ(feeds ? p.gemm.k : p.gemm.n, m.hidden) << p.name;
    EXPECT_EQ(p.collective.size_bytes, p.gemm.m * m.hidden * 2) << p.name;
    if (p.parallelism == generate::Parallelism::ep) {
      EXPECT_EQ(p.collective.kind, CollectiveKind::all_to_all) << p.name;
      EXPECT_TRUE(m.moe()) << p.name;
      EXPECT_EQ(p.gemm.m % m.top_k, 0) << p.name;  // tokens x top_k routed rows
    } else {
      ASSERT_EQ(p.parallelism, generate::Parallelism::tp) << p.name;
      EXPECT_EQ(p.collective.kind, feeds ? CollectiveKind::all_gather : CollectiveKind::reduce_scatter) << p.name;
    }
    EXPECT_NE(p.ref.find(std::string(to_string(p.dependency))), std::string::npos) << p.ref;
  }
  EXPECT_EQ(cases.size(), 4u);  // all-gather, reduce-scatter, dispatch, combine
  EXPECT_EQ(phases.size(), 3u);
  EXPECT_EQ(passes.size(), 2u);  // forward and backward-data (never backward-weight)
  EXPECT_GE(models.size(), 15u);
}

TEST(GenerateDependent, TheYamlRoundTripsTheDependency) {
  const generate::Generated g = dependent(repo_catalog(), 31, 40);
  const std::vector<C3Pair> read = io::parse_scenarios(generate::scenarios_yaml(g), "dependent.yaml");
  ASSERT_EQ(read.size(), g.pairs.size());
  for (std::size_t i = 0; i < read.size(); ++i) {
    EXPECT_EQ(read[i].name, g.pairs[i].name);
    EXPECT_EQ(read[i].gemm, g.pairs[i].gemm);
    EXPECT_EQ(read[i].collective, g.pairs[i].collective);
    EXPECT_EQ(read[i].dependency, g.pairs[i].dependency);
  }
}

TEST(GenerateDependent, OneDirectionOnly) {
  const Catalog catalog = repo_catalog();
  for (const auto [draw, want] : {std::pair{generate::DependentDraw::collective_feeds_gemm,
                                            Dependency::collective_feeds_gemm},
                                  std::pair{generate::DependentDraw::gemm_feeds_collective,
                                            Dependency::gemm_feeds_collective}}) {
    const generate::Generated g = dependent(catalog, 5, 30, draw);
    for (const generate::GeneratedPair& p : g.pairs) EXPECT_EQ(p.dependency, want) << p.name;
  }
}

TEST(GenerateDependent, SameSeedSameBytesAsTheGolden) {
  // Written by this generator (version 1) and checked by hand, e.g. p2: Mixtral's QKV at
  // TP 2 is 8192 x (16 + 2 x 4) x 128 x 4096, its backward-data 8192 x 4096 x 3072, whose C
  // (8192 x 4096 bf16 = 64 MiB) is reduce-scattered; p6: ViT-H/14's 32 x 257 tokens
  // (m = 8224 = 32 x 257) x 1280 bf16 = 21053440 bytes gathered. A change of the draws or
  // the text rewrites it and bumps kGeneratorVersion.
  const Catalog catalog = io::load_catalog(test::fixture_path("catalog_small.yaml"));
  const std::string yaml = generate::scenarios_yaml(dependent(catalog, 7, 6));
  EXPECT_EQ(yaml, generate::scenarios_yaml(dependent(catalog, 7, 6)));
  EXPECT_EQ(yaml, test::fixture("dependent_small_s7_n6.yaml"));
}

TEST(GenerateDependent, IndependentDrawsAreUnchanged) {
  // The option's default draws exactly as before: the seed's golden (above) and a
  // dependent file differ from the first draw on.
  const Catalog catalog = io::load_catalog(test::fixture_path("catalog_small.yaml"));
  generate::Options o = small_options();
  o.dependency = generate::DependentDraw::none;
  EXPECT_EQ(generate::scenarios_yaml(generate::generate(catalog, io::resolve_profile("h200x2"), o)),
            test::fixture("generated_small_s7_n6.yaml"));
}

TEST(GenerateDependent, SerialTimeWindowHolds) {
  const Catalog catalog = repo_catalog();
  const HardwareProfile hw = io::resolve_profile("h200x2");
  generate::Options o;
  o.seed = 9;
  o.count = 40;
  o.dependency = generate::DependentDraw::any;
  o.min_serial_us = 100;
  o.max_serial_us = 30000;
  const generate::Generated g = generate::generate(catalog, hw, o);
  EXPECT_GT(g.rejected.at("time"), 0);
  for (const generate::GeneratedPair& p : g.pairs) {
    C3Pair q;
    q.gemm = p.gemm;
    q.collective = p.collective;
    q.dependency = p.dependency;
    const double serial_s = model::serial_time_s(model::isolated_times(hw, q));
    EXPECT_GE(serial_s, 100e-6) << p.name;
    EXPECT_LE(serial_s, 30e-3) << p.name;
  }
  const std::string yaml = generate::scenarios_yaml(g);
  EXPECT_NE(yaml.find("--dependency any --min-serial-us 100 --max-serial-us 30000`"), std::string::npos);
  EXPECT_NE(yaml.find("min_serial_us: 100, max_serial_us: 30000"), std::string::npos);
  EXPECT_NE(yaml.find("  dependency: any\n"), std::string::npos);
}

TEST(GenerateDependent, BadOptionsAreInputErrors) {
  Catalog catalog = io::load_catalog(test::fixture_path("catalog_small.yaml"));
  const HardwareProfile hw = io::resolve_profile("h200x2");
  generate::Options o = small_options();
  o.dependency = generate::DependentDraw::any;
  o.min_serial_us = 200'000;  // above max_serial_us
  EXPECT_THROW(generate::generate(catalog, hw, o), InputError);
  // No model splits over the ranks: odd heads, no experts.
  o.min_serial_us = 0;
  catalog.models = {model_named(catalog, "llama3-8b")};
  catalog.models[0].heads = 3;
  catalog.models[0].kv_heads = 3;
  try {
    generate::generate(catalog, hw, o);
    FAIL() << "expected an InputError";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("no catalog model has pairs of --dependency any at 2 ranks"), std::string::npos)
        << e.what();
  }
  EXPECT_EQ(generate::parse_dependent_draw("gemm_feeds_collective"), generate::DependentDraw::gemm_feeds_collective);
  EXPECT_THROW(generate::parse_dependent_draw("dependent"), InputError);
}

// ---- the catalog ----

TEST(Catalog, RepositoryCatalogHasTheModelsTheIssueAsksFor) {
  const Catalog catalog = repo_catalog();
  EXPECT_GE(catalog.models.size(), 15u);
  int moe = 0;
  int encoders = 0;
  int vision = 0;
  for (const ModelConfig& m : catalog.models) {
    EXPECT_FALSE(m.source.empty()) << m.name;
    moe += m.moe() ? 1 : 0;
    encoders += m.architecture == Architecture::encoder || m.architecture == Architecture::encoder_decoder;
    vision += m.architecture == Architecture::vision;
  }
  EXPECT_GE(moe, 3);
  EXPECT_GE(encoders, 1);
  EXPECT_GE(vision, 1);
  EXPECT_TRUE(std::is_sorted(catalog.models.begin(), catalog.models.end(),
                             [](const ModelConfig& a, const ModelConfig& b) { return a.name < b.name; }));
}

const test::BadInput kBadCatalog[] = {
    {"negative hidden", "hidden: 1280", "hidden: -1280", "models[2].hidden", "hidden: -1280", "must be in [1, "},
    {"unknown key", "layers: 32\n    seq_lens: [257]", "layers: 32\n    seq_len: [257]", "models[2].seq_len",
     "seq_len: [257]", "unknown key"},
    {"unknown architecture", "architecture: vision", "architecture: image", "models[2].architecture",
     "architecture: image", "unknown architecture"},
    {"unknown mlp", "mlp: plain", "mlp: swiglu", "models[2].mlp", "mlp: swiglu", "unknown mlp"},
    {"kv heads not dividing heads", "kv_heads: 8\n    head_dim: 128", "kv_heads: 5\n    head_dim: 128",
     "models[0].kv_heads", "kv_heads: 5", "multiple of kv_heads"},
    {"top_k above experts", "top_k: 2", "top_k: 9", "models[1].top_k", "top_k: 9", "must be in [1, 8]"},
    {"MoE field without experts", "ffn: 5120", "ffn: 5120\n    top_k: 3", "models[2].top_k", "top_k: 3",
     "give experts too"},
    {"dense model without ffn", "4096\n    ffn: 14336\n", "4096\n", "models[0].ffn", "name: llama3-8b", "required key is missing"},
    {"empty seq_lens", "seq_lens: [257]", "seq_lens: []", "models[2].seq_lens", "seq_lens: []", "at least one"},
    {"duplicate name", "name: vit-h-14", "name: llama3-8b", "models[2].name",
     "name: llama3-8b\n    source: \"https://huggingface.co/google",
     "defined twice"},
};

class BadCatalog : public ::testing::TestWithParam<test::BadInput> {};

TEST_P(BadCatalog, NamesFileLineAndField) {
  test::expect_bad_input(GetParam(), test::fixture("catalog_small.yaml"), "catalog.yaml",
                         [](const std::string& text, const char* origin) { io::parse_catalog(text, origin); });
}

INSTANTIATE_TEST_SUITE_P(Catalog, BadCatalog, ::testing::ValuesIn(kBadCatalog));

TEST(Catalog, ModelDefinedInTwoFilesNamesBoth) {
  test::TempDir tmp;
  const std::string text = test::fixture("catalog_small.yaml");
  std::ofstream(tmp.file("a.yaml")) << text;
  std::ofstream(tmp.file("b.yaml")) << text;
  const ConfigError e = test::config_error([&] { io::load_catalog(tmp.path().string()); });
  EXPECT_EQ(e.file(), tmp.file("b.yaml"));
  EXPECT_NE(e.message().find(tmp.file("a.yaml")), std::string::npos) << e.what();
}

TEST(Catalog, MissingPathAndEmptyFolderAreConfigErrors) {
  test::TempDir tmp;
  EXPECT_THROW(io::load_catalog(tmp.file("none.yaml")), ConfigError);
  EXPECT_THROW(io::load_catalog(tmp.path().string()), ConfigError);
}

TEST(Catalog, DigestFollowsTheBytes) {
  test::TempDir tmp;
  const std::string text = test::fixture("catalog_small.yaml");
  std::ofstream(tmp.file("a.yaml")) << text;
  const std::string first = io::load_catalog(tmp.path().string()).digest;
  std::ofstream(tmp.file("a.yaml")) << text << "# edited\n";
  EXPECT_NE(io::load_catalog(tmp.path().string()).digest, first);
}

}  // namespace
}  // namespace c3
