// Calibration on the sim backend: it recovers the simulator's ceilings, writes a
// profile the loader and the Advisor accept, resumes, and records failures.
#include <gtest/gtest.h>

#include <limits>

#include <algorithm>
#include <filesystem>
#include <fstream>

#include "backends/sim/sim.hpp"
#include "c3/advisor.hpp"
#include "c3/errors.hpp"
#include "c3/io.hpp"
#include "calibrate/calibrate.hpp"
#include "calibrate/calibrate_plan.hpp"
#include "measure/collective_bench.hpp"
#include "support/sim_calibration.hpp"
#include "support/temp_dir.hpp"
#include "support/wrapped_validator.hpp"

namespace c3::validator {
namespace {

class CalibrationTest : public test::SimCalibrationTest {
 protected:
  CalibrationTest() : SimCalibrationTest("noise=0.005,seed=11") {}

  CalibrationOptions options(const std::string& raw_name) const {
    CalibrationOptions o;
    o.gpus = 8;
    o.quick = true;
    o.name = "sim_mi300x";
    if (!raw_name.empty()) o.raw_path = tmp_.file(raw_name);
    o.command = "test";
    return o;
  }

  CalibrationResult calibrate_sim(const CalibrationOptions& o) { return calibrate_on_sim(o); }
};

double peak_of(const SimParams& p) { return p.cu_flops_per_s.at(DType::bf16) * p.compute_units; }

TEST_F(CalibrationTest, RecoversTheSimulatorsCeilings) {
  const CalibrationResult r = calibrate_sim(options(""));
  const HardwareProfile& hw = r.profile;
  EXPECT_NEAR(hw.hbm_bw_bytes_per_s / params_.hbm_bw_bytes_per_s, 1.0, 0.03);
  EXPECT_NEAR(hw.peak_flops_per_s.at(DType::bf16) * hw.gemm_efficiency_compute / peak_of(params_), 1.0, 0.03);
  EXPECT_NEAR(hw.link_bw_bytes_per_s / params_.link_bw_bytes_per_s, 1.0, 0.03);
  EXPECT_EQ(hw.provenance.source, SourceKind::measured);
  EXPECT_EQ(hw.sources.at("hbm_bw_bytes_per_s").source, SourceKind::measured);
  for (const Record& rec : r.raw.records) EXPECT_TRUE(rec.measurement.ok) << rec.measurement.error;
}

TEST_F(CalibrationTest, FitsCollectivesAndTablesFromTheSweeps) {
  const HardwareProfile hw = calibrate_sim(options("")).profile;
  const CollectiveParams& ag = hw.collectives.at(CollectiveKind::all_gather).at(Transport::cu);
  EXPECT_EQ(ag.curve_ranks, 8);
  EXPECT_EQ(ag.curve_time_s.x.size(), 7u);  // 4 KiB to 1 GiB in steps of 8
  EXPECT_GT(ag.latency_s, 0);
  EXPECT_LT(ag.bus_bw_bytes_per_s, params_.link_bw_bytes_per_s * 1.01);  // links bound it
  const CollectiveParams& dma = hw.collectives.at(CollectiveKind::all_gather).at(Transport::dma);
  EXPECT_GT(dma.latency_s, ag.latency_s);  // host launch and sync
  const Table& cb = hw.gemm_slowdown.at(GemmClass::compute_bound);
  EXPECT_EQ(cb.x.front(), 0);
  EXPECT_DOUBLE_EQ(cb.y.front(), 1.0);
  EXPECT_GT(cb.y.back(), cb.y.front());  // slower with fewer CUs
  EXPECT_GE(hw.gemm_first_delay_factor, 0.5);  // GEMM first: close to serial
}

TEST_F(CalibrationTest, WritesAProfileTheLoaderAndTheAdvisorAccept) {
  const HardwareProfile hw = calibrate_sim(options("")).profile;
  const HardwareProfile loaded = io::parse_profile(io::profile_yaml(hw), "sim_mi300x.yaml");
  EXPECT_EQ(loaded.name, "sim_mi300x");
  EXPECT_DOUBLE_EQ(loaded.hbm_bw_bytes_per_s, hw.hbm_bw_bytes_per_s);
  const Advisor advisor(loaded);
  C3Pair pair;
  pair.gemm = parse_gemm("8192x8192x8192");
  pair.collective = parse_collective("all_gather:896MiB", 8);
  const Advice advice = advisor.advise(pair);
  EXPECT_GT(advice.recommendation().predicted_s, 0);
}

TEST_F(CalibrationTest, AResumedRunEndsWithTheRecordsOfAnUninterruptedOne) {
  const CalibrationOptions o = options("c3_resume.json");
  const CalibrationResult whole = calibrate_sim(o);
  std::filesystem::remove(o.raw_path);
  WrappedValidator crashing(make_sim_validator(params_), [](int call, const std::string&) {
    return call == 40 ? WrappedValidator::Action::crash : WrappedValidator::Action::pass;
  });
  EXPECT_THROW(calibrate(crashing, base_, o, nullptr), std::runtime_error);
  EXPECT_EQ(load_raw_measurements(o.raw_path).records.size(), 40u);  // saved after each one

  CalibrationOptions resume = o;
  resume.resume = true;
  std::size_t resumed_steps = 0;
  auto sim = make_sim_validator(params_);
  const CalibrationResult resumed = calibrate(*sim, base_, resume, [&](const CalibrationStep& s) {
    resumed_steps += s.resumed ? 1 : 0;
  });
  EXPECT_EQ(resumed_steps, 40u);
  EXPECT_EQ(raw_measurements_json(RawMeasurements{{}, resumed.raw.records}),
            raw_measurements_json(RawMeasurements{{}, whole.raw.records}));
  EXPECT_EQ(io::profile_yaml(resumed.profile), io::profile_yaml(whole.profile));
}

TEST_F(CalibrationTest, AFailingMeasurementIsRecordedAndNamed) {
  WrappedValidator failing(make_sim_validator(params_), [](int, const std::string& what) {
    return what == "copy one_peer" ? WrappedValidator::Action::fail : WrappedValidator::Action::pass;
  });
  const CalibrationResult r = calibrate(failing, base_, options(""), nullptr);
  const auto failed = std::find_if(r.raw.records.begin(), r.raw.records.end(),
                                   [](const Record& rec) { return !rec.measurement.ok; });
  ASSERT_NE(failed, r.raw.records.end());
  EXPECT_EQ(measurement_key(failed->query), measurement_key(CopyQuery{CopyPath::one_peer, 1 << 30}));
  EXPECT_NE(failed->measurement.error.find("simulated GPU failure"), std::string::npos);
  const auto named = std::find_if(r.notes.begin(), r.notes.end(), [&](const std::string& n) {
    return n.find(measurement_key(failed->query)) != std::string::npos;
  });
  EXPECT_NE(named, r.notes.end());
  EXPECT_GT(r.profile.hbm_bw_bytes_per_s, 0);  // the rest was still fitted
}

TEST_F(CalibrationTest, ProgressCountsEveryStep) {
  std::vector<CalibrationStep> steps;
  auto sim = make_sim_validator(params_);
  calibrate(*sim, base_, options(""), [&](const CalibrationStep& s) { steps.push_back(s); });
  ASSERT_FALSE(steps.empty());
  EXPECT_EQ(steps.back().index, steps.back().total);
  EXPECT_EQ(steps.front().index, 1u);
}

TEST_F(CalibrationTest, ABaseProfilesStrategyCorrectionsAreNotKept) {
  // Fitted against the base's other terms (docs/model.md §4.7): a calibration drops them.
  base_.strategy_corrections[StrategyGroup{CollectiveKind::all_gather, GemmClass::compute_bound, "sp"}] = 1.5;
  base_.strategy_correction_min_s = 1e-4;
  base_.sources["strategy_corrections"] = Provenance{SourceKind::measured, "old.json"};
  const CalibrationResult r = calibrate_sim(options(""));
  EXPECT_TRUE(r.profile.strategy_corrections.empty());
  EXPECT_FALSE(r.profile.sources.count("strategy_corrections"));
}

TEST_F(CalibrationTest, ABaseProfilesHedgesAndQueuedStepTermsAreNotKept) {
  // Chosen with the base's terms (docs/model.md §7.3, "The recommendation"): a calibration
  // drops them, and sets the queued-step terms only as given.
  base_.schedule_hedges[HedgeGroup{Dependency::collective_feeds_gemm, CollectiveKind::all_gather}] = 0.3;
  base_.sources["schedule_hedges"] = Provenance{SourceKind::measured, "old.json"};
  base_.chunk_dma_step_latency_s = 3e-6;
  base_.chunk_dma_step_min_s = 5e-5;
  base_.sources["chunk_dma_step_latency_s"] = Provenance{SourceKind::measured, "old"};
  base_.sources["chunk_dma_step_min_s"] = Provenance{SourceKind::measured, "old"};
  const CalibrationResult dropped = calibrate_sim(options(""));
  EXPECT_TRUE(dropped.profile.schedule_hedges.empty());
  EXPECT_FALSE(dropped.profile.chunk_dma_step_latency_s.has_value());
  EXPECT_FALSE(dropped.profile.chunk_dma_step_min_s.has_value());
  for (const char* key : {"schedule_hedges", "chunk_dma_step_latency_s", "chunk_dma_step_min_s"})
    EXPECT_FALSE(dropped.profile.sources.count(key)) << key;
  CalibrationOptions given = options("");
  given.dma_step_latency_s = 4e-6;
  const CalibrationResult set = calibrate_sim(given);
  ASSERT_TRUE(set.profile.chunk_dma_step_latency_s.has_value());
  EXPECT_DOUBLE_EQ(*set.profile.chunk_dma_step_latency_s, 4e-6);
  EXPECT_FALSE(set.profile.chunk_dma_step_min_s.has_value());  // not the base's
  EXPECT_TRUE(set.profile.sources.count("chunk_dma_step_latency_s"));
}

TEST_F(CalibrationTest, BadOptionsAreInputErrors) {
  CalibrationOptions o = options("");
  o.gpus = 16;  // the simulated node has 8
  auto sim = make_sim_validator(params_);
  EXPECT_THROW(calibrate(*sim, base_, o, nullptr), InputError);
  o.gpus = 1;
  EXPECT_THROW(calibrate(*sim, base_, o, nullptr), InputError);
  o = options("");
  o.resume = true;  // without a raw file
  EXPECT_THROW(calibrate(*sim, base_, o, nullptr), InputError);
  for (const double bad : {-1e-6, std::numeric_limits<double>::quiet_NaN(), std::numeric_limits<double>::infinity()}) {
    o = options("");
    o.strategy_correction_min_s = bad;
    EXPECT_THROW(calibrate(*sim, base_, o, nullptr), InputError) << bad;
  }
}

TEST_F(CalibrationTest, MeasuredValuesNameTheMeasurementsRef) {
  CalibrationOptions o = options("c3_ref_raw.json");
  EXPECT_EQ(calibrate_sim(o).profile.sources.at("hbm_bw_bytes_per_s").ref, o.raw_path);
  o.measurements_ref = "recorded.json";  // a replay's file
  EXPECT_THROW(calibrate_sim(o), InputError);  // the raw file of the first calibration is not replaced
  o.overwrite = true;
  const HardwareProfile hw = calibrate_sim(o).profile;
  EXPECT_EQ(hw.sources.at("hbm_bw_bytes_per_s").ref, "recorded.json");
  EXPECT_EQ(hw.provenance.ref, "recorded.json");
  std::filesystem::remove(o.raw_path);
}

// --collectives: a bench-collective file of the same device seeds the size sweeps.
class SeededCalibrationTest : public CalibrationTest {
 protected:
  SeededCalibrationTest() {
    params_.noise = 0;  // times strictly grow with size: the fitted curve is the measured one
    bench_path_ = tmp_.file("c3_seed_bench.json");
  }

  // all four kinds on nccl and the sim's dma variant "ce", at the quick plan's sweep sizes
  // and one size it does not measure; the ce times scaled by `ce_scale` so that a curve
  // taken from the file can be told from one measured again.
  BenchFile write_bench(const SimParams& params, int ranks, double ce_scale) const {
    auto sim = make_sim_validator(params);
    BenchOptions o;
    o.kinds = calibrated_kinds();
    o.transports = {"nccl", "ce"};
    o.sizes = size_sweep(4096, std::int64_t{1} << 30, 8);
    o.sizes.push_back(3 * 4096);
    o.ranks = ranks;
    RawProvenance p = provenance_of(sim->capabilities());
    p.command = "test";
    BenchFile f = run_bench(*sim, o, p, nullptr);
    for (BenchRecord& r : f.records)
      if (r.transport == "ce") {
        r.measurement.median_s *= ce_scale;
        for (double& t : r.measurement.runs_s) t *= ce_scale;
      }
    std::ofstream(bench_path_) << bench_json(f);
    return f;
  }

  // Calibrates, counting the collectives measured and the steps taken from the start records.
  CalibrationResult counted(const CalibrationOptions& o, int& collective_calls, std::size_t& resumed) {
    collective_calls = 0;
    resumed = 0;
    WrappedValidator counting(make_sim_validator(params_), [&](int, const std::string& what) {
      if (what == "collective") ++collective_calls;
      return WrappedValidator::Action::pass;
    });
    return calibrate(counting, base_, o, [&](const CalibrationStep& s) { resumed += s.resumed ? 1 : 0; });
  }

  std::string bench_path_;
};

TEST_F(SeededCalibrationTest, TheBenchCurvesAreTakenNotMeasuredAgain) {
  const BenchFile bench = write_bench(params_, 8, 1.5);
  int plain_calls = 0, seeded_calls = 0;
  std::size_t plain_resumed = 0, seeded_resumed = 0;
  counted(options(""), plain_calls, plain_resumed);
  CalibrationOptions o = options("");
  o.collectives_path = bench_path_;
  o.measurements_ref = "recorded.json";
  const CalibrationResult r = counted(o, seeded_calls, seeded_resumed);

  // the quick sweeps: 7 sizes x (4 kinds on cu + 2 kinds on dma); 12 KiB is not in the plan
  constexpr std::size_t kSweepQueries = 7 * (4 + 2);
  EXPECT_EQ(plain_resumed, 0u);
  EXPECT_EQ(seeded_resumed, kSweepQueries);
  EXPECT_EQ(plain_calls - seeded_calls, static_cast<int>(kSweepQueries));

  const HardwareProfile& hw = r.profile;
  const CollectiveParams& dma = hw.collectives.at(CollectiveKind::all_gather).at(Transport::dma);
  ASSERT_EQ(dma.curve_time_s.x.size(), 7u);
  for (std::size_t i = 0; i < dma.curve_time_s.x.size(); ++i) {
    const auto size = static_cast<std::int64_t>(dma.curve_time_s.x[i]);
    const auto rec = std::find_if(bench.records.begin(), bench.records.end(), [&](const BenchRecord& b) {
      return b.kind == CollectiveKind::all_gather && b.transport == "ce" && b.size_bytes == size;
    });
    ASSERT_NE(rec, bench.records.end()) << size;
    EXPECT_DOUBLE_EQ(dma.curve_time_s.y[i], rec->measurement.median_s) << size;
  }

  EXPECT_EQ(hw.provenance_details.at("collectives"), bench_path_);
  EXPECT_EQ(hw.sources.at("hbm_bw_bytes_per_s").ref, "c3advisor calibrate");  // not a replay's file: seeded
  const std::vector<std::string>& notes = r.raw.provenance.notes;
  const std::string note = "collective curves: 48 records from " + bench_path_ + " (transports nccl, ce)";
  EXPECT_NE(std::find(notes.begin(), notes.end(), note), notes.end()) << "no note: " << note;
  const HardwareProfile loaded = io::parse_profile(io::profile_yaml(hw), "seeded.yaml");  // the key is known
  EXPECT_EQ(loaded.provenance_details.at("collectives"), bench_path_);
}

TEST_F(SeededCalibrationTest, ResumedRecordsWinAndNoneIsDoubled) {
  write_bench(params_, 8, 1.0);
  CalibrationOptions o = options("c3_seed_resume.json");
  std::filesystem::remove(o.raw_path);
  o.collectives_path = bench_path_;
  auto sim = make_sim_validator(params_);
  const CalibrationResult first = calibrate(*sim, base_, o, nullptr);
  o.resume = true;
  int calls = 0;
  std::size_t resumed = 0;
  const CalibrationResult again = counted(o, calls, resumed);
  EXPECT_EQ(calls, 0);  // everything resumed
  EXPECT_EQ(again.raw.records.size(), first.raw.records.size());
  const std::vector<std::string>& notes = again.raw.provenance.notes;
  const std::string note = "collective curves: 0 records from " + bench_path_ + " (transports nccl, ce)";
  EXPECT_NE(std::find(notes.begin(), notes.end(), note), notes.end()) << "no note: " << note;
  std::filesystem::remove(o.raw_path);
}

TEST_F(SeededCalibrationTest, ABenchFileOfAnotherDeviceIsRefused) {
  SimParams other = sim_params(io::resolve_profile("h200x2"));
  write_bench(other, 2, 1.0);
  CalibrationOptions o = options("");
  o.collectives_path = bench_path_;
  auto sim = make_sim_validator(params_);
  try {
    calibrate(*sim, base_, o, nullptr);
    FAIL() << "accepted a bench file of another device";
  } catch (const InputError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("'" + other.device + "'"), std::string::npos) << what;
    EXPECT_NE(what.find("'" + params_.device + "'"), std::string::npos) << what;
    EXPECT_NE(what.find(bench_path_), std::string::npos) << what;
  }
  o.collectives_path = tmp_.file("no_such_bench.json");
  EXPECT_THROW(calibrate(*sim, base_, o, nullptr), InputError);
}

}  // namespace
}  // namespace c3::validator
