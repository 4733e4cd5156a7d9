// Profiles from YAML: every field of a valid file, and every malformed input
// naming its file, line and key path.
#include <gtest/gtest.h>

#include "c3/io.hpp"
#include "c3/model.hpp"
#include "support/test_io_support.hpp"

namespace c3 {
namespace {

using test::config_error;
using test::fixture;
using test::line_of;
using test::replace_once;

constexpr const char* kOrigin = "small.yaml";

HardwareProfile parse_small() { return io::parse_profile(fixture("profiles/small.yaml"), kOrigin); }

TEST(IoProfile, ReadsEveryField) {
  const HardwareProfile hw = parse_small();
  EXPECT_EQ(hw.name, "small");
  EXPECT_EQ(hw.gpu, "Test GPU");
  EXPECT_EQ(hw.gpu_count, 4);
  EXPECT_EQ(hw.description, "a made-up GPU for tests");
  EXPECT_EQ(hw.provenance.source, SourceKind::measured);
  EXPECT_EQ(hw.provenance_details.at("device"), "Test GPU x4");
  EXPECT_EQ(hw.provenance_details.at("date"), "2026-01-01");
  EXPECT_EQ(hw.compute_units, 64);
  EXPECT_EQ(hw.partition_min_cus, 8);
  EXPECT_EQ(hw.partition_step_cus, 8);
  EXPECT_EQ(hw.peak_flops_per_s.at(DType::bf16), 1.0e15);
  EXPECT_EQ(hw.peak_flops_per_s.at(DType::fp8), 2.0e15);
  EXPECT_FALSE(hw.peak_flops_per_s.contains(DType::fp16));
  EXPECT_EQ(hw.gemm_tile_m, 128);
  EXPECT_EQ(hw.gemm_workgroups_per_cu, 2);
  EXPECT_EQ(hw.hbm_bw_bytes_per_s, 2.0e12);
  EXPECT_EQ(hw.llc_bytes, 67108864.0);
  EXPECT_EQ(hw.link_bw_bytes_per_s, 4.0e11);
  EXPECT_EQ(hw.copy_engines, 8);
  EXPECT_EQ(hw.gemm_efficiency_memory, 0.8);
  EXPECT_EQ(hw.gemm_first_delay_factor, 0.5);
}

TEST(IoProfile, ReadsCollectivesTablesAndInterference) {
  const HardwareProfile hw = parse_small();
  const CollectiveParams& ag = hw.collectives.at(CollectiveKind::all_gather).at(Transport::cu);
  EXPECT_EQ(ag.latency_s, 1.0e-5);
  EXPECT_EQ(ag.default_cus, 32);
  EXPECT_EQ(ag.curve_ranks, 4);
  EXPECT_EQ(ag.curve_time_s.x, (std::vector<double>{4096, 1048576, 1073741824}));
  EXPECT_EQ(ag.curve_time_s.y.back(), 3.0e-3);
  EXPECT_EQ(hw.collectives.at(CollectiveKind::all_gather).at(Transport::dma).latency_s, 5.0e-5);
  EXPECT_FALSE(hw.collectives.at(CollectiveKind::reduce_scatter).contains(Transport::dma));
  EXPECT_EQ(hw.collectives.at(CollectiveKind::reduce_scatter).at(Transport::cu).latency_s, 1.0e-6);

  const Table& cb = hw.gemm_slowdown.at(GemmClass::compute_bound);
  EXPECT_EQ(cb.name, "gemm_slowdown.compute_bound");
  EXPECT_EQ(cb.x, (std::vector<double>{0, 16, 32}));
  EXPECT_EQ(cb.y, (std::vector<double>{1.0, 1.1, 1.2}));
  EXPECT_EQ(cb.provenance.ref, "cb table");
  EXPECT_EQ(hw.collective_slowdown.at(CollectiveKind::all_gather)
                .at(CollectiveClass::bandwidth_bound)
                .y.front(),
            4.0);
  EXPECT_FALSE(hw.collective_slowdown.contains(CollectiveKind::reduce_scatter));
  EXPECT_EQ(hw.interference.at(Transport::dma).at(GemmClass::memory_bound).collective_slowdown, 1.3);
  EXPECT_EQ(hw.interference.at(Transport::cu).at(GemmClass::compute_bound).gemm_slowdown, 1.05);
}

TEST(IoProfile, RecordsTheSourceOfEveryValue) {
  const HardwareProfile hw = parse_small();
  EXPECT_EQ(hw.sources.at("hbm_bw_bytes_per_s").ref, "datasheet p. 3");
  EXPECT_EQ(hw.sources.at("hbm_bw_bytes_per_s").source, SourceKind::spec);
  EXPECT_EQ(hw.sources.at("peak_flops_per_s.fp8").ref, "datasheet p. 2");
  EXPECT_EQ(hw.sources.at("collectives.all_gather.cu.latency_s").source, SourceKind::measured);
  EXPECT_EQ(hw.sources.at("collectives.all_gather.cu.curve").ref, "curve file");
  EXPECT_EQ(hw.sources.at("tables.gemm_slowdown.memory_bound").ref, "mb table");
  EXPECT_EQ(hw.sources.at("interference.dma.memory_bound.gemm_slowdown").ref, "dma mb g");
  // 15 top-level values (gemm_latency_s included) + 2 peaks + (3 + curve) + 2 + 3
  // collective values + 4 tables + 8 interference factors
  EXPECT_EQ(hw.sources.size(), 38u);
}

TEST(IoProfile, RoundTripsThroughProfileYaml) {
  const HardwareProfile first = parse_small();
  const std::string yaml = io::profile_yaml(first);
  const HardwareProfile second = io::parse_profile(yaml, "written.yaml");
  EXPECT_EQ(io::profile_yaml(second), yaml);
  EXPECT_EQ(second.sources.size(), first.sources.size());
  EXPECT_EQ(second.sources.at("collectives.all_gather.cu.curve").ref, "curve file");
  EXPECT_EQ(second.provenance_details, first.provenance_details);
  EXPECT_EQ(second.collectives.at(CollectiveKind::all_gather).at(Transport::cu).curve_time_s.x,
            first.collectives.at(CollectiveKind::all_gather).at(Transport::cu).curve_time_s.x);
  EXPECT_EQ(second.gemm_efficiency_compute, first.gemm_efficiency_compute);
}

TEST(IoProfile, RoundTripsGemmKernelsAndInterferenceByKind) {
  HardwareProfile hw = parse_small();
  hw.gemm_kernels = {{Gemm{8192, 8192, 8192, DType::bf16}, 128, 256, 1},
                     {Gemm{64, 4096, 4096, DType::fp16}, 64, 128, 4}};
  hw.sources["gemm_kernels"] = Provenance{SourceKind::measured, "train.json"};
  hw.interference_by_kind[CollectiveKind::all_to_all][Transport::cu][GemmClass::compute_bound] = {1.1, 1.7};
  hw.interference_by_kind[CollectiveKind::all_to_all][Transport::cu][GemmClass::memory_bound] = {1.2, 1.3};
  const std::string yaml = io::profile_yaml(hw);
  const HardwareProfile back = io::parse_profile(yaml, "written.yaml");
  EXPECT_EQ(io::profile_yaml(back), yaml);
  ASSERT_EQ(back.gemm_kernels.size(), 2u);
  EXPECT_EQ(back.gemm_kernels[1].gemm.dtype, DType::fp16);
  EXPECT_EQ(back.gemm_kernels[1].split_k, 4);
  EXPECT_EQ(back.sources.at("gemm_kernels").ref, "train.json");
  EXPECT_EQ(back.interference_by_kind.at(CollectiveKind::all_to_all)
                .at(Transport::cu)
                .at(GemmClass::compute_bound)
                .collective_slowdown,
            1.7);
  // A kernel with a zero tile, and copy-engine factors for a kind that cannot use them.
  const std::string bad = replace_once(yaml, "tile_m: 128", "tile_m: 0");
  EXPECT_NE(std::string(config_error([&] { io::parse_profile(bad, "bad.yaml"); }).what()).find("gemm_kernels.shapes"),
            std::string::npos);
  hw.interference_by_kind.clear();
  hw.interference_by_kind[CollectiveKind::reduce_scatter][Transport::dma][GemmClass::compute_bound] = {1, 1};
  hw.interference_by_kind[CollectiveKind::reduce_scatter][Transport::dma][GemmClass::memory_bound] = {1, 1};
  EXPECT_NE(std::string(config_error([&] { io::parse_profile(io::profile_yaml(hw), "bad.yaml"); }).what())
                .find("cannot run on copy engines"),
            std::string::npos);
}

TEST(IoProfile, RoundTripsGemmTimesSortedAndRejectsDuplicatesAndNonPositiveTimes) {
  HardwareProfile hw = parse_small();
  hw.gemm_times = {{Gemm{64, 4096, 4096, DType::bf16}, 3e-5, 2},
                   {Gemm{8192, 8192, 8192, DType::bf16}, 1.6e-3, 5}};
  hw.sources["gemm_times"] = Provenance{SourceKind::measured, "the 2 files of provenance.gemm_times"};
  const std::string yaml = io::profile_yaml(hw);
  const HardwareProfile back = io::parse_profile(yaml, "written.yaml");
  EXPECT_EQ(io::profile_yaml(back), yaml);
  ASSERT_EQ(back.gemm_times.size(), 2u);
  EXPECT_EQ(back.gemm_times[1].files, 5);
  EXPECT_DOUBLE_EQ(model::gemm_time_s(back, Gemm{8192, 8192, 8192, DType::bf16}), 1.6e-3);
  // written out of order, read sorted (the lookup's order)
  const std::string first = "    - {m: 64, n: 4096, k: 4096, dtype: bf16, seconds: 3e-05, files: 2}\n";
  const std::string second = "    - {m: 8192, n: 8192, k: 8192, dtype: bf16, seconds: 0.0016, files: 5}\n";
  ASSERT_NE(yaml.find(first + second), std::string::npos) << yaml;
  const HardwareProfile swapped =
      io::parse_profile(replace_once(yaml, first + second, second + first), "swapped.yaml");
  EXPECT_EQ(io::profile_yaml(swapped), yaml);
  const auto error_of = [&](const std::string& text) {
    return std::string(config_error([&] { io::parse_profile(text, "bad.yaml"); }).what());
  };
  EXPECT_NE(error_of(replace_once(yaml, second, first)).find("listed twice"), std::string::npos);
  EXPECT_NE(error_of(replace_once(yaml, "seconds: 3e-05", "seconds: 0")).find("gemm_times.shapes"),
            std::string::npos);
  EXPECT_NE(error_of(replace_once(yaml, "files: 2}", "files: 0}")).find("gemm_times.shapes"),
            std::string::npos);
  EXPECT_NE(error_of(replace_once(yaml, "seconds: 3e-05", "seconds: .nan")).find("gemm_times.shapes"),
            std::string::npos);
}

TEST(IoProfile, RoundTripsThePipelinesFactorsAndRejectsCopyEnginesThatReduce) {
  HardwareProfile hw = parse_small();
  hw.pipeline_interference[CollectiveKind::all_gather][Transport::dma] = {1.25, 1.5};
  hw.pipeline_interference[CollectiveKind::reduce_scatter][Transport::cu] = {2.0, 1.0};
  hw.sources["interference.pipeline.all_gather.dma.gemm_slowdown"] = Provenance{SourceKind::measured, "dep.json"};
  const std::string yaml = io::profile_yaml(hw);
  EXPECT_NE(yaml.find("  pipeline:\n    all_gather:\n      dma:\n        gemm_slowdown: {value: 1.25, source: measured"),
            std::string::npos);
  const HardwareProfile back = io::parse_profile(yaml, "written.yaml");
  EXPECT_EQ(io::profile_yaml(back), yaml);
  EXPECT_EQ(back.pipeline_interference.at(CollectiveKind::all_gather).at(Transport::dma).collective_slowdown, 1.5);
  EXPECT_EQ(back.pipeline_interference.at(CollectiveKind::reduce_scatter).at(Transport::cu).gemm_slowdown, 2.0);
  EXPECT_EQ(back.sources.at("interference.pipeline.all_gather.dma.gemm_slowdown").ref, "dep.json");
  hw.pipeline_interference[CollectiveKind::reduce_scatter][Transport::dma] = {1, 1};
  const std::string error = config_error([&] { io::parse_profile(io::profile_yaml(hw), "bad.yaml"); }).what();
  EXPECT_NE(error.find("interference.pipeline.reduce_scatter.dma"), std::string::npos) << error;
  EXPECT_NE(error.find("cannot run on copy engines"), std::string::npos) << error;
}

TEST(IoProfile, RoundTripsTheGemmsLaunchTimeAndRejectsANegativeOne) {
  HardwareProfile hw = parse_small();
  EXPECT_EQ(io::profile_yaml(hw).find("gemm_launch_s"), std::string::npos);  // 0, not measured: not written
  hw.gemm_launch_s = 2.25e-05;
  hw.sources["gemm_launch_s"] = Provenance{SourceKind::measured, "pairs.json"};
  const std::string yaml = io::profile_yaml(hw);
  EXPECT_NE(yaml.find("gemm_launch_s: {value: 2.25e-05, source: measured, ref: \"pairs.json\"}"), std::string::npos) << yaml;
  const HardwareProfile back = io::parse_profile(yaml, "written.yaml");
  EXPECT_EQ(io::profile_yaml(back), yaml);
  EXPECT_EQ(back.gemm_launch_s, 2.25e-05);
  const ConfigError e =
      config_error([&] { io::parse_profile(replace_once(yaml, "{value: 2.25e-05", "{value: -2.25e-05"), "bad.yaml"); });
  EXPECT_NE(std::string(e.what()).find("gemm_launch_s"), std::string::npos) << e.what();
}

TEST(IoProfile, RoundTripsTheBatchedStepsRereadAndRejectsOneAboveOne) {
  HardwareProfile hw = parse_small();
  EXPECT_EQ(io::profile_yaml(hw).find("chunk_batch_reread"), std::string::npos);  // unset: not written
  hw.chunk_batch_reread = 0.25;
  hw.sources["chunk_batch_reread"] = Provenance{SourceKind::measured, "pairs.json"};
  const std::string yaml = io::profile_yaml(hw);
  EXPECT_NE(yaml.find("chunk_batch_reread: {value: 0.25, source: measured, ref: \"pairs.json\"}"), std::string::npos) << yaml;
  const HardwareProfile back = io::parse_profile(yaml, "written.yaml");
  EXPECT_EQ(io::profile_yaml(back), yaml);
  EXPECT_EQ(back.chunk_batch_reread, 0.25);
  for (const char* bad : {"{value: 1.25", "{value: -0.25"}) {
    const ConfigError e = config_error([&] { io::parse_profile(replace_once(yaml, "{value: 0.25", bad), "bad.yaml"); });
    EXPECT_NE(std::string(e.what()).find("chunk_batch_reread"), std::string::npos) << e.what();
  }
}

TEST(IoProfile, RoundTripsTheQueuedCopyEngineStepsAndRejectsNegativeOnes) {
  HardwareProfile hw = parse_small();
  EXPECT_EQ(io::profile_yaml(hw).find("chunk_dma_step"), std::string::npos);  // unset: not written
  hw.chunk_dma_step_latency_s = 3.25e-06;
  hw.chunk_dma_step_min_s = 4.75e-05;
  hw.sources["chunk_dma_step_latency_s"] = Provenance{SourceKind::measured, "loso"};
  hw.sources["chunk_dma_step_min_s"] = Provenance{SourceKind::measured, "loso"};
  const std::string yaml = io::profile_yaml(hw);
  EXPECT_NE(yaml.find("chunk_dma_step_latency_s: {value: 3.25e-06, source: measured, ref: \"loso\"}"), std::string::npos)
      << yaml;
  EXPECT_NE(yaml.find("chunk_dma_step_min_s: {value: 4.75e-05, source: measured, ref: \"loso\"}"), std::string::npos)
      << yaml;
  const HardwareProfile back = io::parse_profile(yaml, "written.yaml");
  EXPECT_EQ(io::profile_yaml(back), yaml);
  EXPECT_EQ(back.chunk_dma_step_latency_s, 3.25e-06);
  EXPECT_EQ(back.chunk_dma_step_min_s, 4.75e-05);
  struct Bad {
    const char* from;
    const char* to;
    const char* key;
  };
  for (const Bad& bad : {Bad{"{value: 3.25e-06", "{value: -3.25e-06", "chunk_dma_step_latency_s"},
                         Bad{"{value: 4.75e-05", "{value: -4.75e-05", "chunk_dma_step_min_s"}}) {
    const ConfigError e =
        config_error([&] { io::parse_profile(replace_once(yaml, bad.from, bad.to), "bad.yaml"); });
    EXPECT_NE(std::string(e.what()).find(bad.key), std::string::npos) << e.what();
  }
  // The threshold bounds the latency: alone it is refused, naming it.
  const std::string alone = replace_once(yaml, "chunk_dma_step_latency_s:", "# chunk_dma_step_latency_s:");
  const ConfigError e = config_error([&] { io::parse_profile(alone, "bad.yaml"); });
  EXPECT_NE(std::string(e.what()).find("chunk_dma_step_min_s"), std::string::npos) << e.what();
  EXPECT_NE(e.message().find("needs chunk_dma_step_latency_s"), std::string::npos) << e.message();
}

TEST(IoProfile, RoundTripsScheduleCorrectionsAndNamesABadGroup) {
  HardwareProfile hw = parse_small();
  EXPECT_EQ(io::profile_yaml(hw).find("schedule_corrections"), std::string::npos);  // none: not written
  hw.schedule_corrections[ScheduleGroup{Dependency::collective_feeds_gemm, CollectiveKind::all_gather, Transport::cu, 16, 8}] = 1.25;
  hw.schedule_corrections[ScheduleGroup{Dependency::gemm_feeds_collective, CollectiveKind::reduce_scatter, Transport::cu, 0, 4}] = 0.5;
  hw.sources["schedule_corrections"] = Provenance{SourceKind::measured, "pairs.json"};
  const std::string yaml = io::profile_yaml(hw);
  const std::string entry =
      "- {dependency: collective_feeds_gemm, kind: all_gather, transport: cu, collective_cus: 16, chunks: 8, factor: 1.25}";
  EXPECT_NE(yaml.find(entry), std::string::npos) << yaml;
  const HardwareProfile back = io::parse_profile(yaml, "written.yaml");
  EXPECT_EQ(io::profile_yaml(back), yaml);
  EXPECT_EQ(back.schedule_corrections, hw.schedule_corrections);
  const std::vector<std::pair<std::string, std::string>> bad{
      {"factor: 1.25}", "factor: 0}"},
      {"factor: 1.25}", "factor: -1}"},
      {"factor: 1.25}", "factor: .nan}"},
      {"dependency: collective_feeds_gemm, kind: all_gather", "dependency: none, kind: all_gather"},
      {"kind: all_gather, transport: cu", "kind: all_gather, transport: nvlink"},
      {"collective_cus: 16", "collective_cus: -16"},
      {"chunks: 8", "chunks: 0"},
      {"chunks: 8, factor: 1.25}", "chunks: 8, factor: 1.25, extra: 1}"},
      {"chunks: 8, factor: 1.25}\n", "chunks: 8, factor: 1.25}\n    " + entry.substr(0) + "\n"}};  // the group twice
  for (const auto& change : bad) {  // not a structured binding: clang's lambdas cannot capture one
    const ConfigError e =
        config_error([&] { io::parse_profile(replace_once(yaml, change.first, change.second), "bad.yaml"); });
    EXPECT_NE(std::string(e.what()).find("schedule_corrections"), std::string::npos) << change.second << ": " << e.what();
    EXPECT_NE(std::string(e.what()).find("bad.yaml"), std::string::npos) << e.what();
  }
}

TEST(IoProfile, RoundTripsScheduleHedgesAndNamesABadFamily) {
  HardwareProfile hw = parse_small();
  EXPECT_EQ(io::profile_yaml(hw).find("schedule_hedges"), std::string::npos);  // none: not written
  hw.schedule_hedges[HedgeGroup{Dependency::gemm_feeds_collective, CollectiveKind::all_to_all}] = 0.01;
  hw.schedule_hedges[HedgeGroup{Dependency::collective_feeds_gemm, CollectiveKind::all_gather}] = 0;
  hw.sources["schedule_hedges"] = Provenance{SourceKind::measured, "the 2 sets of provenance.hedge_pairs"};
  hw.provenance_details["hedge_pairs"] = "a.json+b.json, c.json";
  const std::string yaml = io::profile_yaml(hw);
  const std::string entry = "- {dependency: gemm_feeds_collective, kind: all_to_all, error: 0.01}";
  EXPECT_NE(yaml.find(entry), std::string::npos) << yaml;
  const HardwareProfile back = io::parse_profile(yaml, "written.yaml");
  EXPECT_EQ(io::profile_yaml(back), yaml);
  EXPECT_EQ(back.schedule_hedges, hw.schedule_hedges);
  EXPECT_EQ(back.provenance_details.at("hedge_pairs"), "a.json+b.json, c.json");
  const std::vector<std::pair<std::string, std::string>> bad{
      {"error: 0.01}", "error: -0.01}"},
      {"error: 0.01}", "error: 1.5}"},
      {"error: 0.01}", "error: .nan}"},
      {"error: 0.01}", "error: x}"},
      {"dependency: gemm_feeds_collective, kind: all_to_all", "dependency: none, kind: all_to_all"},
      {"kind: all_to_all, error", "kind: all_to_none, error"},
      {"error: 0.01}", "error: 0.01, chunks: 4}"},
      {"error: 0.01}\n", "error: 0.01}\n    " + entry + "\n"}};  // the family twice
  for (const auto& change : bad) {
    const ConfigError e =
        config_error([&] { io::parse_profile(replace_once(yaml, change.first, change.second), "bad.yaml"); });
    EXPECT_NE(std::string(e.what()).find("schedule_hedges"), std::string::npos)
        << change.second << ": " << e.what();
    EXPECT_NE(std::string(e.what()).find("bad.yaml"), std::string::npos) << e.what();
  }
}

TEST(IoProfile, RoundTripsStrategyCorrectionsAndNamesABadGroup) {
  HardwareProfile hw = parse_small();
  EXPECT_EQ(io::profile_yaml(hw).find("strategy_corrections"), std::string::npos);  // none: not written
  hw.strategy_corrections[StrategyGroup{CollectiveKind::all_gather, GemmClass::compute_bound, "rp:32"}] = 1.25;
  hw.strategy_corrections[StrategyGroup{CollectiveKind::reduce_scatter, GemmClass::memory_bound, "sp"}] = 0.5;
  hw.strategy_correction_min_s = 1e-4;
  hw.sources["strategy_corrections"] = Provenance{SourceKind::measured, "pairs.json"};
  const std::string yaml = io::profile_yaml(hw);
  const std::string entry = "- {kind: all_gather, gemm_class: compute_bound, strategy: \"rp:32\", factor: 1.25}";
  EXPECT_NE(yaml.find(entry), std::string::npos) << yaml;
  EXPECT_NE(yaml.find("min_predicted_s: 1e-04"), std::string::npos) << yaml;
  const HardwareProfile back = io::parse_profile(yaml, "written.yaml");
  EXPECT_EQ(io::profile_yaml(back), yaml);
  EXPECT_EQ(back.strategy_corrections, hw.strategy_corrections);
  EXPECT_EQ(back.strategy_correction_min_s, 1e-4);
  EXPECT_EQ(back.sources.at("strategy_corrections").ref, "pairs.json");
  const std::vector<std::pair<std::string, std::string>> bad{
      {"factor: 1.25}", "factor: 0}"},
      {"factor: 1.25}", "factor: .nan}"},
      {"kind: all_gather, gemm_class", "kind: all_gatherer, gemm_class"},
      {"gemm_class: compute_bound, strategy: \"rp:32\"", "gemm_class: latency_bound, strategy: \"rp:32\""},
      {"strategy: \"rp:32\"", "strategy: \"rp:x\""},
      {"strategy: \"rp:32\"", "strategy: \"serial\""},
      {"strategy: \"rp:32\"", "strategy: \"chunked:4:dma\""},
      {"min_predicted_s: 1e-04", "min_predicted_s: -1"},
      {"factor: 1.25}", "factor: 1.25, extra: 1}"},
      {"factor: 1.25}\n", "factor: 1.25}\n    " + entry + "\n"}};  // the group twice
  for (const auto& change : bad) {  // not a structured binding: clang's lambdas cannot capture one
    const ConfigError e =
        config_error([&] { io::parse_profile(replace_once(yaml, change.first, change.second), "bad.yaml"); });
    EXPECT_NE(std::string(e.what()).find("strategy_corrections"), std::string::npos) << change.second << ": " << e.what();
    EXPECT_NE(std::string(e.what()).find("bad.yaml"), std::string::npos) << e.what();
  }
}

TEST(IoProfile, RoundTripsTheSustainedSlowdownAndRejectsOneBelowOne) {
  HardwareProfile hw = parse_small();
  hw.sustained_gemm_slowdown = Table{"sustained_gemm_slowdown", {1e-4, 1e-3, 1e-2}, {1.0, 1.12, 1.0},
                                     Provenance{SourceKind::measured, "sustained.json"}};
  const std::string yaml = io::profile_yaml(hw);
  EXPECT_NE(yaml.find("sustained_gemm_slowdown: {source: measured, ref: \"sustained.json\", points: "), std::string::npos);
  const HardwareProfile back = io::parse_profile(yaml, "written.yaml");
  EXPECT_EQ(io::profile_yaml(back), yaml);
  EXPECT_EQ(back.sustained_gemm_slowdown.y, (std::vector<double>{1.0, 1.12, 1.0}));
  EXPECT_EQ(back.sources.at("sustained_gemm_slowdown").ref, "sustained.json");
  const std::string bad = replace_once(yaml, "[0.001, 1.12]", "[0.001, 0.9]");
  const ConfigError e = config_error([&] { io::parse_profile(bad, "bad.yaml"); });
  EXPECT_NE(std::string(e.what()).find("sustained_gemm_slowdown.points"), std::string::npos) << e.what();
  EXPECT_NE(std::string(e.what()).find("must be >= 1 (point 1)"), std::string::npos) << e.what();
}

TEST(IoProfile, RoundTripsTheUnalignedGemmTablesAndRejectsBadPoints) {
  HardwareProfile hw = parse_small();
  const Provenance source{SourceKind::measured, "unaligned.json"};
  hw.gemm_unaligned_compute = Table{"gemm_unaligned_compute", {2, 4}, {0.125, 0.25}, source};
  hw.gemm_unaligned_memory = Table{"gemm_unaligned_memory", {4, 8}, {0.75, 0.875}, source};
  hw.gemm_unaligned_latency_s = Table{"gemm_unaligned_latency_s", {2}, {2e-5}, source};
  const std::string yaml = io::profile_yaml(hw);
  const HardwareProfile back = io::parse_profile(yaml, "written.yaml");
  EXPECT_EQ(io::profile_yaml(back), yaml);
  EXPECT_EQ(back.gemm_unaligned_compute.y, (std::vector<double>{0.125, 0.25}));
  EXPECT_EQ(back.gemm_unaligned_memory.x, (std::vector<double>{4, 8}));
  EXPECT_EQ(back.gemm_unaligned_latency_s.y, (std::vector<double>{2e-5}));
  EXPECT_EQ(back.sources.at("gemm_unaligned_latency_s").ref, "unaligned.json");
  struct Bad {
    std::string from, to, what;
  };
  for (const Bad& bad : {Bad{"[4, 0.25]", "[16, 0.25]", "below 16 bytes (point 1)"},
                         Bad{"[2, 0.125]", "[2, 1.5]", "in (0, 1] (point 0)"},
                         Bad{"[2, 2e-05]", "[2, 1.5]", "below 1 s (point 0)"}}) {  // not a structured binding: clang's lambdas cannot capture one
    ASSERT_NE(yaml.find(bad.from), std::string::npos) << bad.from << " in " << yaml;
    const ConfigError e = config_error([&] { io::parse_profile(replace_once(yaml, bad.from, bad.to), "bad.yaml"); });
    EXPECT_NE(std::string(e.what()).find(bad.what), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("gemm_unaligned"), std::string::npos) << e.what();
  }
}

TEST(IoProfile, RoundTripsTheCollectiveSlowdownBySizeAndRejectsBadRows) {
  HardwareProfile hw = parse_small();
  hw.collective_slowdown_by_size[CollectiveKind::all_gather] =
      SizedSlowdown{"collective_slowdown_by_size.all_gather", {65536, 16777216}, {8, 16},
                    {{1.05, 1.0}, {1.75, 1.125}}, Provenance{SourceKind::measured, "isolated.json"}};
  const std::string yaml = io::profile_yaml(hw);
  EXPECT_NE(yaml.find("all_gather: {source: measured, ref: \"isolated.json\", cus: [8, 16], rows: [[65536, 1.05, 1], "
                      "[16777216, 1.75, 1.125]]}"),
            std::string::npos)
      << yaml;
  const HardwareProfile back = io::parse_profile(yaml, "written.yaml");
  EXPECT_EQ(io::profile_yaml(back), yaml);
  const SizedSlowdown& t = back.collective_slowdown_by_size.at(CollectiveKind::all_gather);
  EXPECT_EQ(t.name, "collective_slowdown_by_size.all_gather");
  EXPECT_EQ(t.cus, (std::vector<double>{8, 16}));
  EXPECT_EQ(t.slowdown[1], (std::vector<double>{1.75, 1.125}));
  EXPECT_EQ(back.sources.at("tables.collective_slowdown_by_size.all_gather").ref, "isolated.json");
  struct Bad {
    std::string from, to, what;
  };
  for (const Bad& bad : {Bad{"cus: [8, 16]", "cus: [16, 8]", "CUs must increase"},
                         Bad{"cus: [8, 16]", "cus: [8, 100000]", "cus[1]"},
                         Bad{"cus: [8, 16]", "cus: []", "at least one CU count"},
                         Bad{"[65536, 1.05, 1]", "[65536, 1.05]", "one slowdown per CU count] (3 values; got 2)"},
                         Bad{"[65536, 1.05, 1]", "[16777216, 1.05, 1]", "size_bytes must increase"},
                         Bad{"[65536, 1.05, 1]", "[65536, 0, 1]", "rows[0][1]"},
                         Bad{"[65536, 1.05, 1]", "[-1, 1.05, 1]", "rows[0][0]"},
                         Bad{"all_gather: {source: measured", "all_gatherer: {source: measured", "all_gatherer"}}) {
    ASSERT_NE(yaml.find(bad.from), std::string::npos) << bad.from << " in " << yaml;
    const ConfigError e = config_error([&] { io::parse_profile(replace_once(yaml, bad.from, bad.to), "bad.yaml"); });
    EXPECT_NE(std::string(e.what()).find(bad.what), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("collective_slowdown_by_size"), std::string::npos) << e.what();
  }
}

TEST(IoProfile, RoundTripsEverySourceKind) {
  HardwareProfile hw = parse_small();
  hw.sources["gemm_first_delay_factor"] = {SourceKind::fitted, "the paper's 21% of ideal"};
  hw.sources["gemm_latency_s"] = {SourceKind::assumed, "order of magnitude"};
  hw.sources["copy_engines"] = {SourceKind::published, "a paper"};
  const std::string yaml = io::profile_yaml(hw);
  EXPECT_NE(yaml.find("source: fitted, ref: \"the paper's 21% of ideal\""), std::string::npos) << yaml;
  const HardwareProfile back = io::parse_profile(yaml, "written.yaml");
  for (const auto& [key, provenance] : hw.sources) EXPECT_EQ(back.sources.at(key).source, provenance.source) << key;
  EXPECT_EQ(source_counts(back), source_counts(hw));
  EXPECT_EQ(keys_from(back, SourceKind::fitted), std::vector<std::string>{"gemm_first_delay_factor"});
}

TEST(IoProfile, RoundTripsEveryEmbeddedProfile) {
  for (const std::string& name : io::embedded_profile_names()) {
    const HardwareProfile hw = io::resolve_profile(name);
    const std::string yaml = io::profile_yaml(hw);
    const HardwareProfile back = io::parse_profile(yaml, name);
    EXPECT_EQ(io::profile_yaml(back), yaml) << name;
    EXPECT_EQ(back.sources.size(), hw.sources.size()) << name;
    EXPECT_EQ(back.peak_flops_per_s, hw.peak_flops_per_s) << name;
  }
}

TEST(IoProfile, WritesStringsThatNeedQuoting) {
  HardwareProfile hw = parse_small();
  hw.description = "quotes \" and: colons # and a\nnewline";
  hw.sources["hbm_bw_bytes_per_s"].ref = "{not a mapping}";
  const HardwareProfile back = io::parse_profile(io::profile_yaml(hw), "written.yaml");
  EXPECT_EQ(back.description, hw.description);
  EXPECT_EQ(back.sources.at("hbm_bw_bytes_per_s").ref, "{not a mapping}");
}

TEST(IoProfile, MissingFileNamesIt) {
  const ConfigError e = config_error([] { io::load_profile("/nonexistent/p.yaml"); });
  EXPECT_EQ(e.file(), "/nonexistent/p.yaml");
  EXPECT_EQ(e.line(), 0);
  EXPECT_NE(std::string(e.what()).find("cannot read"), std::string::npos);
}

TEST(IoProfile, LoadsAFileUnderItsPath) {
  const std::string path = test::fixture_path("profiles/small.yaml");
  EXPECT_EQ(io::load_profile(path).name, "small");
  const std::string bad = replace_once(fixture("profiles/small.yaml"), "gpu_count: 4", "gpu_count: 0");
  EXPECT_EQ(config_error([&] { io::parse_profile(bad, path); }).file(), path);
}

using BadProfile = test::BadInput;

class IoBadProfile : public ::testing::TestWithParam<BadProfile> {};

TEST_P(IoBadProfile, NamesFileLineAndKey) {
  test::expect_bad_input(GetParam(), fixture("profiles/small.yaml"), kOrigin,
                         [](const std::string& text, const char* origin) { io::parse_profile(text, origin); });
}

const BadProfile kBadProfiles[] = {
    {"syntax_error", "gpu: Test GPU", "gpu: Test: GPU", "", "gpu: Test: GPU", "illegal map value"},
    {"unclosed_flow", "copy_engines: {value: 8,", "copy_engines: {value: [8,", "",
     "copy_engines", "flow"},
    {"schema_version", "schema_version: 1", "schema_version: 2", "schema_version",
     "schema_version", "unsupported schema_version 2"},
    {"schema_version_float", "schema_version: 1", "schema_version: 1.0", "schema_version",
     "schema_version", "expected an integer"},
    {"missing_key", "llc_bytes: {value: 67108864, source: spec, ref: \"datasheet p. 3\"}\n", "",
     "llc_bytes", "schema_version", "required key is missing"},
    {"missing_nested_key", "        ranks: 4\n", "", "collectives.all_gather.cu.curve.ranks",
     "curve:", "required key is missing"},
    {"missing_source", "{value: 8, source: spec, ref: \"datasheet p. 4\"}",
     "{value: 8, ref: \"datasheet p. 4\"}", "copy_engines.source", "copy_engines",
     "required key is missing"},
    {"unknown_key", "llc_bytes:", "llc_size:", "llc_size", "llc_size", "unknown key"},
    {"unknown_nested_key", "default_cus: {value: 32, source: published, ref: \"library default\"}\n      curve",
     "default_cu: {value: 32, source: published, ref: \"library default\"}\n      curve",
     "collectives.all_gather.cu.default_cu", "default_cu:", "unknown key"},
    {"duplicate_key", "gpu_count: 4", "gpu_count: 4\ngpu_count: 5", "gpu_count", "gpu_count: 5",
     "duplicate key"},
    {"quoted_number", "{value: 2.0e+12,", "{value: \"2.0e+12\",", "hbm_bw_bytes_per_s.value",
     "hbm_bw_bytes_per_s", "quoted string"},
    {"word_for_number", "{value: 2.0e+12,", "{value: fast,", "hbm_bw_bytes_per_s.value",
     "hbm_bw_bytes_per_s", "expected a number"},
    {"mapping_for_number", "{value: 2.0e+12,", "{value: {a: 1},", "hbm_bw_bytes_per_s.value",
     "hbm_bw_bytes_per_s", "got a mapping"},
    {"null_number", "{value: 2.0e+12,", "{value: ~,", "hbm_bw_bytes_per_s.value",
     "hbm_bw_bytes_per_s", "expected a number"},
    {"float_for_integer", "{value: 64,", "{value: 64.5,", "compute_units.value", "compute_units",
     "expected an integer"},
    {"exponent_for_integer", "{value: 64,", "{value: 6.4e1,", "compute_units.value",
     "compute_units", "expected an integer"},
    {"integer_overflow", "{value: 64,", "{value: 99999999999999999999,", "compute_units.value",
     "compute_units", "out of range"},
    {"int_overflow", "{value: 64,", "{value: 4294967296,", "compute_units.value", "compute_units",
     "must be in [1, 4096] (got 4294967296)"},
    {"too_many_cus", "{value: 64,", "{value: 4097,", "compute_units.value", "compute_units",
     "must be in [1, 4096] (got 4097)"},
    {"zero_rate", "{value: 2.0e+12,", "{value: 0,", "hbm_bw_bytes_per_s.value",
     "hbm_bw_bytes_per_s", "must be > 0"},
    {"negative_rate", "{value: 4.0e+11,", "{value: -4.0e+11,", "link_bw_bytes_per_s.value",
     "link_bw_bytes_per_s", "must be > 0"},
    {"nan", "{value: 2.0e+12,", "{value: .nan,", "hbm_bw_bytes_per_s.value", "hbm_bw_bytes_per_s",
     "expected a number"},
    {"plain_nan", "{value: 2.0e+12,", "{value: nan,", "hbm_bw_bytes_per_s.value",
     "hbm_bw_bytes_per_s", "finite"},
    {"inf", "{value: 2.0e+12,", "{value: .inf,", "hbm_bw_bytes_per_s.value", "hbm_bw_bytes_per_s",
     "expected a number"},
    {"plain_inf", "{value: 2.0e+12,", "{value: -inf,", "hbm_bw_bytes_per_s.value",
     "hbm_bw_bytes_per_s", "finite"},
    {"double_overflow", "{value: 2.0e+12,", "{value: 1e999,", "hbm_bw_bytes_per_s.value",
     "hbm_bw_bytes_per_s", "out of range"},
    {"zero_latency", "{value: 1.0e-06, source", "{value: 0, source",
     "collectives.reduce_scatter.cu.latency_s.value", "rs latency", "must be > 0"},
    {"zero_gemm_latency", "gemm_latency_s: {value: 1.0e-05,", "gemm_latency_s: {value: 0,",
     "gemm_latency_s.value", "gemm_latency_s", "must be > 0"},
    {"zero_count", "gpu_count: 4", "gpu_count: 0", "gpu_count", "gpu_count", "must be > 0"},
    {"one_gpu", "gpu_count: 4", "gpu_count: 1", "gpu_count", "gpu_count",
     "must be at least 2: a profile describes a node whose GPUs run collectives together"},
    {"efficiency_above_one", "{value: 0.8,", "{value: 1.5,", "gemm_efficiency_memory.value",
     "gemm_efficiency_memory", "(0, 1]"},
    {"partition_too_large", "partition_min_cus: {value: 8,", "partition_min_cus: {value: 65,",
     "partition_min_cus.value", "partition_min_cus", "[1, 64]"},
    {"default_cus_too_large", "default_cus: {value: 32, source: published, ref: \"library default\"}\n      curve",
     "default_cus: {value: 0, source: published, ref: \"library default\"}\n      curve",
     "collectives.all_gather.cu.default_cus.value", "{value: 0, source: published, ref: \"library default\"}\n      curve",
     "[1, 64]"},
    {"empty_name", "name: small", "name: \"\"", "name", "name:", "must not be empty"},
    {"unknown_source", "source: spec, ref: \"datasheet p. 1\"", "source: guessed, ref: \"datasheet p. 1\"",
     "compute_units.source", "compute_units", "unknown source 'guessed'"},
    {"unknown_dtype", "  fp8: {value: 2.0e+15", "  fp9: {value: 2.0e+15", "peak_flops_per_s.fp9",
     "fp9", "unknown dtype 'fp9'"},
    {"no_peaks", "  bf16: {value: 1.0e+15, source: spec, ref: \"datasheet p. 2\"}\n  fp8: {value: 2.0e+15, source: spec, ref: \"datasheet p. 2\"}\n",
     "  {}\n", "peak_flops_per_s", "peak_flops_per_s:", "at least one dtype"},
    {"unknown_collective", "\n  all_gather:\n    cu:", "\n  all_gathr:\n    cu:", "collectives.all_gathr",
     "all_gathr:", "unknown collective 'all_gathr'"},
    {"dma_reduction", "  reduce_scatter:\n    cu:\n", "  reduce_scatter:\n    dma: {}\n    cu:\n",
     "collectives.reduce_scatter.dma", "dma: {}", "cannot reduce"},
    {"dma_default_cus", "      latency_s: {value: 5.0e-05,", "      default_cus: {value: 8, source: spec, ref: x}\n      latency_s: {value: 5.0e-05,",
     "collectives.all_gather.dma.default_cus", "default_cus: {value: 8", "unknown key"},
    {"curve_ranks", "ranks: 4", "ranks: 1", "collectives.all_gather.cu.curve.ranks", "ranks: 1",
     "at least 2"},
    {"non_monotone", "[[0, 1.0], [16, 1.1], [32, 1.2]]", "[[0, 1.0], [64, 1.1], [32, 1.2]]",
     "tables.gemm_slowdown.compute_bound.points[2]", "[64, 1.1]", "x must increase (got 32 after 64)"},
    {"repeated_x", "[[8, 4.0], [16, 2.0], [32, 1.0]]", "[[8, 4.0], [8, 2.0], [32, 1.0]]",
     "tables.collective_slowdown.all_gather.bandwidth_bound.points[1]", "[8, 2.0]",
     "x must increase (got 8 after 8)"},
    {"empty_table", "[[0, 1.0], [16, 0.98], [32, 1.0]]", "[]",
     "tables.gemm_slowdown.memory_bound.points", "mb table", "at least one point"},
    {"gemm_table_not_from_zero", "[[0, 1.0], [16, 1.1], [32, 1.2]]", "[[8, 1.0], [16, 1.1], [32, 1.2]]",
     "tables.gemm_slowdown.compute_bound.points[0]", "cb table", "first x must be 0"},
    {"zero_y", "[[0, 1.0], [16, 1.1], [32, 1.2]]", "[[0, 1.0], [16, 0], [32, 1.2]]",
     "tables.gemm_slowdown.compute_bound.points[1][1]", "cb table", "must be > 0"},
    {"point_arity", "[[0, 1.0], [16, 1.1], [32, 1.2]]", "[[0, 1.0], [16, 1.1, 2], [32, 1.2]]",
     "tables.gemm_slowdown.compute_bound.points[1]", "cb table", "a point is [x, y]"},
    {"curve_size_zero", "[[4096, 2.0e-05],", "[[0, 2.0e-05],",
     "collectives.all_gather.cu.curve.points[0]", "[[0, 2.0e-05]", "x must be > 0"},
    {"missing_class_table", "    memory_bound: {source: published, ref: \"mb table\", points: [[0, 1.0], [16, 0.98], [32, 1.0]]}\n",
     "", "tables.gemm_slowdown.memory_bound", "  gemm_slowdown:\n", "required key is missing"},
    {"slowdown_class_typo", "      latency_bound:", "      latency:",
     "tables.collective_slowdown.all_gather.latency", "latency:", "unknown key"},
};

INSTANTIATE_TEST_SUITE_P(Cases, IoBadProfile, ::testing::ValuesIn(kBadProfiles),
                         [](const auto& info) { return std::string(info.param.label); });

TEST(IoProfile, RejectsAnEmptyDocument) {
  const ConfigError e = config_error([] { io::parse_profile("# nothing\n", kOrigin); });
  EXPECT_EQ(e.file(), kOrigin);
  EXPECT_EQ(e.message(), "empty document");
}

TEST(IoProfile, RejectsATopLevelSequence) {
  const ConfigError e = config_error([] { io::parse_profile("\n- a\n- b\n", kOrigin); });
  EXPECT_EQ(e.line(), 2);
  EXPECT_NE(e.message().find("mapping"), std::string::npos);
}

TEST(IoProfile, RejectsSeveralDocuments) {
  const std::string text = fixture("profiles/small.yaml") + "---\nname: other\n";
  const ConfigError e = config_error([&] { io::parse_profile(text, kOrigin); });
  EXPECT_EQ(e.line(), line_of(text, "---\nname: other"));
  EXPECT_NE(e.message().find("one YAML document"), std::string::npos);
}

// yaml-cpp stops deep nesting with "bad file"; the error says what is wrong, and where.
TEST(IoProfile, RejectsNestingTooDeep) {
  const std::string flow =
      "schema_version: 1\nname: deep\ngpu: " + std::string(10000, '[') + std::string(10000, ']') + "\n";
  ConfigError e = config_error([&] { io::parse_profile(flow, kOrigin); });
  EXPECT_EQ(e.file(), kOrigin);
  EXPECT_EQ(e.line(), 3);
  EXPECT_NE(e.message().find("nested too deeply"), std::string::npos) << e.what();
  std::string block = "schema_version: 1\nname: deep\ngpu:\n";
  for (int i = 0; i < 3000; ++i) block += std::string(2 * i + 2, ' ') + "-\n";
  e = config_error([&] { io::parse_profile(block, kOrigin); });
  EXPECT_GT(e.line(), 3);
  EXPECT_NE(e.message().find("nested too deeply"), std::string::npos) << e.what();
}

TEST(IoProfile, SurvivesInputThatMakesYamlCppLoopForever) {
  // yaml-cpp 0.7's LoadAll allocates without end on a lone ",".
  EXPECT_EQ(config_error([] { io::parse_profile(",\n", kOrigin); }).message(), "empty document");
  EXPECT_EQ(config_error([] { io::parse_profile(",# x\n0 a:\n", kOrigin); }).file(), kOrigin);
}

TEST(IoProfile, RejectsASequenceWhereAMappingBelongs) {
  const std::string text =
      replace_once(fixture("profiles/small.yaml"),
                   "compute_bound: {source: published, ref: \"cb table\", points: [[0, 1.0], [16, 1.1], [32, 1.2]]}",
                   "compute_bound: [1, 2]");
  const ConfigError e = config_error([&] { io::parse_profile(text, kOrigin); });
  EXPECT_EQ(e.key(), "tables.gemm_slowdown.compute_bound");
  EXPECT_EQ(e.line(), line_of(text, "compute_bound: [1, 2]"));
  EXPECT_NE(e.message().find("expected a mapping, got a sequence"), std::string::npos);
}

}  // namespace
}  // namespace c3

namespace c3 {
namespace {

// A profile calibrated on the hip backend records the HIP, hipBLASLt and RCCL versions.
TEST(IoProfile, ReadsTheHipBackendsVersions) {
  const std::string text = test::replace_once(
      test::fixture("profiles/small.yaml"), "date: \"2026-01-01\"}",
      "date: \"2026-01-01\", hip: \"6.3.0\", hipblaslt: \"built in\", rccl: \"2.21.5\"}");
  const HardwareProfile hw = io::parse_profile(text, "hip.yaml");
  EXPECT_EQ(hw.provenance_details.at("hip"), "6.3.0");
  EXPECT_EQ(hw.provenance_details.at("hipblaslt"), "built in");
  EXPECT_EQ(hw.provenance_details.at("rccl"), "2.21.5");
  const HardwareProfile again = io::parse_profile(io::profile_yaml(hw), "again.yaml");
  EXPECT_EQ(again.provenance_details, hw.provenance_details);
}

}  // namespace
}  // namespace c3
