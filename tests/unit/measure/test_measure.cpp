// Ground-truth measurement (measure/measure.hpp) on the sim backend: which
// queries, saving and resuming, and failures recorded rather than thrown.
#include <gtest/gtest.h>

#include <filesystem>

#include "c3/errors.hpp"
#include "c3/io.hpp"
#include "measure/measure.hpp"
#include "io/query.hpp"
#include "support/temp_dir.hpp"
#include "support/wrapped_validator.hpp"

namespace c3::validator {
namespace {

class MeasureTest : public ::testing::Test {
 protected:
  MeasureTest() : hw_(io::resolve_profile("mi300x")), pairs_(io::resolve_scenarios("paper")) {
    pairs_.resize(4);  // mb1_896M and mb2_3.25G, all_gather and all_to_all
    options_.parameters["rp"] = {16, 64};
    options_.parameters["dma_rp"] = {8};
    path_ = tmp_.file("c3_measure.json");
  }

  HardwareProfile hw_;
  std::vector<C3Pair> pairs_;
  MeasureOptions options_;
  test::TempDir tmp_;
  std::string path_;
};

TEST_F(MeasureTest, EveryStrategyOfEveryPair) {
  const C3Pair& ag = pairs_[0];
  std::vector<std::string> labels;
  for (const Strategy& s : measured_strategies(ag, options_)) labels.push_back(s.label());
  EXPECT_EQ(labels, (std::vector<std::string>{"serial", "base", "sp", "rp:16", "rp:64", "dma",
                                              "dma_rp:8"}));
  C3Pair rs = ag;
  rs.collective.kind = CollectiveKind::reduce_scatter;
  EXPECT_EQ(measured_strategies(rs, options_).size(), 5u);  // no DMA for a reduction
  // per all_gather/all_to_all pair: gemm, collective cu, collective dma, 7 strategies
  EXPECT_EQ(measure_queries(pairs_, options_).size(), 4u * 10u);
}

TEST_F(MeasureTest, DependentPairsGetSerialAndTheirChunkedSchedules) {
  C3Pair ag;
  ag.gemm = Gemm{1000, 512, 512, DType::bf16};  // 2, 4, 8 divide 1000; 16 does not
  ag.dependency = Dependency::collective_feeds_gemm;
  ag.collective = {CollectiveKind::all_gather, dependent_operand_bytes(ag.gemm, ag.dependency), 2};
  options_.parameters["chunked"] = {2, 3, 4, 8, 16};
  options_.parameters["chunked_cus"] = {16};
  std::vector<std::string> labels;
  for (const Strategy& s : measured_strategies(ag, options_)) labels.push_back(s.label());
  EXPECT_EQ(labels, (std::vector<std::string>{"serial", "chunked:2:cu", "chunked:2:cu:16", "chunked:2:dma",
                                              "chunked:4:cu", "chunked:4:cu:16", "chunked:4:dma", "chunked:8:cu",
                                              "chunked:8:cu:16", "chunked:8:dma"}));
  C3Pair rs = ag;
  rs.dependency = Dependency::gemm_feeds_collective;
  rs.collective = {CollectiveKind::reduce_scatter, dependent_operand_bytes(rs.gemm, rs.dependency), 2};
  EXPECT_EQ(measured_strategies(rs, options_).size(), 7u);  // no copy engines for a reduction
  // The queries carry the dependency; its key names it, and the JSON round-trips it.
  const std::vector<Query> queries = measure_queries({ag}, options_);
  const auto& q = std::get<ConcurrentQuery>(queries.back());
  EXPECT_EQ(q.dependency, Dependency::collective_feeds_gemm);
  EXPECT_NE(measurement_key(q).find("dependency=collective_feeds_gemm"), std::string::npos);
  RawMeasurements raw;
  raw.records.push_back({q, summarize_runs({1e-3}, 0, true)});
  const RawMeasurements back = parse_raw_measurements(raw_measurements_json(raw), "t.json");
  ASSERT_EQ(back.records.size(), 1u);
  EXPECT_EQ(std::get<ConcurrentQuery>(back.records[0].query), q);
  // A record whose size is not the operand's names the field.
  std::string bad = raw_measurements_json(raw);
  const std::string size = std::to_string(ag.collective.size_bytes);
  bad.replace(bad.find(size), size.size(), "4096");
  bad.replace(bad.find(size), size.size(), "4096");  // the key too
  try {
    parse_raw_measurements(bad, "t.json");
    ADD_FAILURE() << "accepted";
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("dependency"), std::string::npos) << e.what();
  }
}

TEST_F(MeasureTest, GemmsOnlyMeasuresEachShapeOnce) {
  options_.gemms_only = true;
  // the 4 pairs share 2 GEMM shapes (each with an all_gather and an all_to_all)
  const std::vector<Query> queries = measure_queries(pairs_, options_);
  ASSERT_EQ(queries.size(), 2u);
  for (const Query& q : queries) EXPECT_EQ(std::get<GemmQuery>(q).cus_removed, 0);
  EXPECT_NE(std::get<GemmQuery>(queries[0]).gemm, std::get<GemmQuery>(queries[1]).gemm);
}

TEST_F(MeasureTest, SavesAfterEveryMeasurementAndResumes) {
  options_.raw_path = path_;
  auto sim = make_validator("sim", hw_);
  const RawMeasurements full = measure(*sim, pairs_, options_, nullptr);
  std::filesystem::remove(path_);

  // A crash after 11 measurements leaves a file with the first 11 records...
  WrappedValidator crashing(make_validator("sim", hw_), [](int call, const std::string&) {
    return call < 11 ? WrappedValidator::Action::pass : WrappedValidator::Action::crash;
  });
  EXPECT_THROW(measure(crashing, pairs_, options_, nullptr), std::runtime_error);
  EXPECT_EQ(load_raw_measurements(path_).records.size(), 11u);

  // ...and --resume measures only the rest, ending with the same records.
  options_.resume = true;
  int measured = 0;
  WrappedValidator counting(make_validator("sim", hw_), [&](int, const std::string&) {
    ++measured;
    return WrappedValidator::Action::pass;
  });
  const RawMeasurements resumed = measure(counting, pairs_, options_, nullptr);
  EXPECT_EQ(static_cast<std::size_t>(measured) + 11u, full.records.size());
  ASSERT_EQ(resumed.records.size(), full.records.size());
  for (std::size_t i = 0; i < full.records.size(); ++i) {
    EXPECT_EQ(measurement_key(resumed.records[i].query), measurement_key(full.records[i].query));
    EXPECT_DOUBLE_EQ(resumed.records[i].measurement.median_s, full.records[i].measurement.median_s);
  }
}

TEST_F(MeasureTest, FailuresAreRecordedNotThrown) {
  WrappedValidator failing(make_validator("sim", hw_), [](int, const std::string& what) {
    return what == "concurrent" ? WrappedValidator::Action::fail : WrappedValidator::Action::pass;
  });
  const RawMeasurements raw = measure(failing, pairs_, options_, nullptr);
  for (const Record& r : raw.records) {
    const bool concurrent = what(r.query) == "concurrent";
    EXPECT_EQ(r.measurement.ok, !concurrent) << measurement_key(r.query);
    if (concurrent) EXPECT_NE(r.measurement.error.find("simulated GPU failure"), std::string::npos);
  }
}

TEST_F(MeasureTest, BadOptions) {
  auto sim = make_validator("sim", hw_);
  EXPECT_THROW(measure(*sim, {}, options_, nullptr), InputError);
  options_.resume = true;  // without a file
  EXPECT_THROW(measure(*sim, pairs_, options_, nullptr), InputError);
}

}  // namespace
}  // namespace c3::validator
