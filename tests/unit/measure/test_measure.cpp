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

TEST_F(MeasureTest, GemmPartitionsMeasureEachShapeInEveryPartitionOnce) {
  options_.gemms_only = true;
  options_.gemm_partitions = true;
  options_.parameters["rp"] = {32, 16};
  options_.parameters["dma_rp"] = {16, 8};
  const std::vector<std::vector<Query>> groups = measure_query_groups(pairs_, options_);
  ASSERT_EQ(groups.size(), 2u);  // one group per shape
  for (const std::vector<Query>& group : groups) {
    std::vector<int> removed;
    for (const Query& q : group) {
      EXPECT_EQ(std::get<GemmQuery>(q).gemm, std::get<GemmQuery>(group.front()).gemm);
      removed.push_back(std::get<GemmQuery>(q).cus_removed);
    }
    EXPECT_EQ(removed, (std::vector<int>{0, 8, 16, 32}));  // every CU first, then ascending, 16 once
  }
  // without the flag, the same options measure every CU only
  options_.gemm_partitions = false;
  EXPECT_EQ(measure_queries(pairs_, options_).size(), 2u);
  // partitions of the GEMM alone need a mode that measures it alone
  options_.gemms_only = false;
  options_.gemm_partitions = true;
  EXPECT_THROW(measure_queries(pairs_, options_), InputError);
}

TEST_F(MeasureTest, IsolatedOnlyMeasuresEachIsolatedQueryOnceAndNoStrategy) {
  options_.isolated_only = true;
  options_.gemm_partitions = true;
  options_.collective_partitions = true;
  options_.parameters["rp"] = {16, 64};
  options_.parameters["dma_rp"] = {8};
  const std::vector<Query> queries = measure_queries(pairs_, options_);
  int gemms = 0, collectives = 0;
  for (std::size_t i = 0; i < queries.size(); ++i) {
    EXPECT_EQ(std::find(queries.begin(), queries.begin() + static_cast<std::ptrdiff_t>(i), queries[i]),
              queries.begin() + static_cast<std::ptrdiff_t>(i)) << "measured twice: " << i;
    EXPECT_FALSE(std::holds_alternative<ConcurrentQuery>(queries[i]));
    if (const auto* g = std::get_if<GemmQuery>(&queries[i])) {
      ++gemms;
      EXPECT_TRUE(g->cus_removed == 0 || g->cus_removed == 8 || g->cus_removed == 16 || g->cus_removed == 64);
    } else {
      ++collectives;
    }
  }
  // 2 GEMM shapes x (every CU + 3 partitions); the 4 pairs' collectives are distinct: each on
  // its default CUs and at 16 and 64 CUs, and the copy engines for the all_gathers and all_to_alls.
  EXPECT_EQ(gemms, 2 * 4);
  EXPECT_GT(collectives, 4 * 3 - 1);
  options_.gemms_only = true;  // the two modes exclude each other
  EXPECT_THROW(measure_queries(pairs_, options_), InputError);
  options_.gemms_only = false;
  options_.isolated_only = false;  // collective partitions need isolated_only
  EXPECT_THROW(measure_queries(pairs_, options_), InputError);
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

// A resumed file must have been measured on the same copy-engine implementation: a record
// of another dma variant is not the same measurement.
TEST_F(MeasureTest, ResumeRefusesAFileOfAnotherDmaVariant) {
  options_.raw_path = path_;
  auto sim = make_validator("sim", hw_);
  measure(*sim, pairs_, options_, nullptr);
  RawMeasurements saved = load_raw_measurements(path_);
  std::erase_if(saved.provenance.notes, [](const std::string& n) { return n.rfind("dma variant: ", 0) == 0; });
  saved.provenance.notes.push_back("dma variant: ce_push_batch_ovl");
  save_raw_measurements(path_, saved);
  options_.resume = true;
  try {
    measure(*sim, pairs_, options_, nullptr);
    ADD_FAILURE() << "a file of another dma variant was resumed";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("dma variant 'ce_push_batch_ovl'"), std::string::npos) << e.what();
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

// Answers every call with run_config().measured_runs runs whose times are the call's
// number, and records what was called and the run config it saw; `fail_at` fails that call.
class RecordingValidator final : public Validator {
 public:
  struct Call {
    std::string what;
    int measured_runs;
    int warmup_runs;
  };
  std::vector<Call> calls;
  int fail_at = -1;

 private:
  Measurement answer(const std::string& what) {
    const int n = static_cast<int>(calls.size());
    calls.push_back({what, run_config().measured_runs, run_config().warmup_runs});
    if (n == fail_at) throw BackendError("simulated GPU failure");
    Measurement m = summarize_runs(std::vector<double>(static_cast<std::size_t>(run_config().measured_runs), 1.0 + n),
                                   run_config().warmup_runs, true);
    m.gemm_kernel.algo_id = n;
    return m;
  }
  Capabilities do_capabilities() const override {
    Capabilities c;
    c.backend = "recording";
    c.device = "none";
    c.gpus = 8;
    c.compute_units = 304;
    c.strategies = runnable_kinds({true, true, 16});
    return c;
  }
  Measurement do_gemm(const Gemm&, int) override { return answer("gemm"); }
  Measurement do_collective(const Collective&, Transport t, int) override {
    return answer(t == Transport::dma ? "collective dma" : "collective");
  }
  Measurement do_concurrent(const C3Pair&, const Strategy& s) override { return answer(s.label()); }
  Measurement do_copy(CopyPath, std::int64_t) override { return answer("copy"); }
};

TEST(MeasureRounds, ARoundRunsItsShareOfTheRunsAfterTheWholeWarmUp) {
  RunConfig whole{6, 9};
  whole.min_time_s = 0.003;
  whole.max_runs = 100;
  const RunConfig part = round_config(whole, 4);
  EXPECT_EQ(part.measured_runs, 3);  // ceil(9 / 4): the rounds run at least --runs in all
  EXPECT_EQ(part.warmup_runs, 6);
  EXPECT_DOUBLE_EQ(part.min_time_s, 0.003 / 4);
  EXPECT_EQ(part.max_runs, 25);
  whole.max_runs = 9;
  EXPECT_EQ(round_config(whole, 4).max_runs, 6);  // never below the warm-up
  EXPECT_EQ(round_config(whole, 1).measured_runs, 9);
  EXPECT_THROW(round_config(whole, 0), InputError);
}

TEST(MeasureRounds, MergedRoundsPoolTheirRunsAndAFailedRoundFailsTheWhole) {
  Measurement a = summarize_runs({3.0, 1.0}, 2, true);
  a.gemm_kernel.algo_id = 7;
  const Measurement b = summarize_runs({2.0, 5.0}, 2, true);
  const Measurement m = merge_rounds({a, b});
  ASSERT_TRUE(m.ok);
  EXPECT_EQ(m.runs_s, (std::vector<double>{3.0, 1.0, 2.0, 5.0}));  // in round order
  EXPECT_DOUBLE_EQ(m.median_s, 2.5);
  EXPECT_DOUBLE_EQ(m.min_s, 1.0);
  EXPECT_DOUBLE_EQ(m.max_s, 5.0);
  EXPECT_EQ(m.warmup_runs, 4);
  EXPECT_TRUE(m.verified);
  EXPECT_EQ(m.gemm_kernel.algo_id, 7);
  EXPECT_FALSE(merge_rounds({a, summarize_runs({2.0}, 2, false)}).verified);
  Measurement bad;
  bad.error = "verification_failed: 3 mismatching elements";
  bad.runs_s = {4.0};
  const Measurement f = merge_rounds({a, bad});
  EXPECT_FALSE(f.ok);
  EXPECT_EQ(f.error, "round 2: verification_failed: 3 mismatching elements");
  EXPECT_EQ(f.runs_s, (std::vector<double>{3.0, 1.0, 4.0}));  // nothing measured is dropped
  EXPECT_THROW(merge_rounds({}), InputError);
}

TEST_F(MeasureTest, RoundsRotateThroughAPairsMeasurementsAndRestoreTheRunConfig) {
  pairs_.resize(1);
  options_.rounds = 3;
  options_.raw_path = path_;
  RecordingValidator v;
  v.set_run_config(RunConfig{2, 9});
  const std::vector<Query> queries = measure_queries(pairs_, options_);
  const std::size_t n = queries.size();  // gemm, collective cu and dma, 7 strategies
  const RawMeasurements raw = measure(v, pairs_, options_, nullptr);
  ASSERT_EQ(v.calls.size(), 3 * n);
  for (const auto& c : v.calls) {
    EXPECT_EQ(c.measured_runs, 3);  // 9 runs in 3 rounds
    EXPECT_EQ(c.warmup_runs, 2);    // the whole warm-up in each
  }
  // Round r starts at the r-th measurement of the pair.
  EXPECT_EQ(v.calls[0].what, "gemm");
  EXPECT_EQ(v.calls[n].what, "collective");
  EXPECT_EQ(v.calls[2 * n].what, "collective dma");
  EXPECT_EQ(v.calls[2 * n - 1].what, "gemm");
  EXPECT_EQ(v.run_config().measured_runs, 9);  // restored
  ASSERT_EQ(raw.records.size(), n);
  // The GEMM ran as call 0, 2n-1 and 3n-2: its record holds those rounds' runs in order.
  const Measurement& g = raw.records[0].measurement;
  ASSERT_TRUE(g.ok);
  EXPECT_EQ(g.runs_s, (std::vector<double>{1, 1, 1, 2.0 * n, 2.0 * n, 2.0 * n, 3.0 * n - 1, 3.0 * n - 1, 3.0 * n - 1}));
  EXPECT_EQ(g.warmup_runs, 6);
  EXPECT_EQ(g.gemm_kernel.algo_id, 0);
  // Saved, named in the provenance, and a resume measures nothing again.
  const RawMeasurements saved = load_raw_measurements(path_);
  EXPECT_EQ(saved.records.size(), n);
  bool noted = false;
  for (const std::string& note : saved.provenance.notes) noted = noted || note.rfind("rounds: 3", 0) == 0;
  EXPECT_TRUE(noted);
  options_.resume = true;
  RecordingValidator again;
  measure(again, pairs_, options_, nullptr);
  EXPECT_TRUE(again.calls.empty());
}

TEST_F(MeasureTest, AMeasurementThatFailsInARoundIsNotRunInLaterRounds) {
  pairs_.resize(1);
  options_.rounds = 3;
  RecordingValidator v;
  v.fail_at = 3;  // round 1: serial
  const RawMeasurements raw = measure(v, pairs_, options_, nullptr);
  const std::size_t n = raw.records.size();
  EXPECT_EQ(v.calls.size(), 3 * n - 2);
  for (const Record& r : raw.records) {
    const bool serial = measurement_key(r.query).find("strategy=serial") != std::string::npos;
    EXPECT_EQ(r.measurement.ok, !serial) << measurement_key(r.query);
    if (serial) EXPECT_EQ(r.measurement.error, "round 1: simulated GPU failure (2 later rounds not run)");
  }
  options_.rounds = 0;
  EXPECT_THROW(measure(v, pairs_, options_, nullptr), InputError);
}

TEST_F(MeasureTest, BadOptions) {
  auto sim = make_validator("sim", hw_);
  EXPECT_THROW(measure(*sim, {}, options_, nullptr), InputError);
  options_.resume = true;  // without a file
  EXPECT_THROW(measure(*sim, pairs_, options_, nullptr), InputError);
}

}  // namespace
}  // namespace c3::validator
