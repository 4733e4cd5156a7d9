// calibrate --dma-variant NAME --collectives FILE where the backend cannot run NAME
// (calibrate/shipped_dma.hpp): the sim measures everything with its own variant "ce"; the
// profile's dma bandwidth, latency and curves come from the file's records of NAME.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>

#include "backends/sim/sim.hpp"
#include "c3/errors.hpp"
#include "c3/io.hpp"
#include "c3/measurements.hpp"
#include "c3/model.hpp"
#include "c3/settings.hpp"
#include "c3/strategy.hpp"
#include "calibrate/calibrate.hpp"
#include "calibrate/calibrate_plan.hpp"
#include "calibrate/shipped_dma.hpp"
#include "measure/collective_bench.hpp"
#include "support/sim_calibration.hpp"
#include "support/temp_dir.hpp"
#include "support/wrapped_validator.hpp"

namespace c3::validator {
namespace {

constexpr const char* kShipped = "shipped_ce";
constexpr double kShippedFloorS = 200e-6;  // added to the sim's ce times: a shipped path's floor

class ShippedDmaTest : public test::SimCalibrationTest {
 protected:
  ShippedDmaTest() : SimCalibrationTest("noise=0.005,seed=11") {
    bench_path_ = tmp_.file("c3_shipped_bench.json");
  }

  CalibrationOptions options() const {
    CalibrationOptions o;
    o.gpus = 8;
    o.quick = true;
    o.name = "sim_mi300x_shipped";
    o.command = "test";
    return o;
  }

  // The sim's nccl and ce collectives at 8 ranks, 64 KiB to 1 GiB; the ce records renamed
  // kShipped with kShippedFloorS added, so that its curve can be told from the sim's.
  BenchFile bench() const {
    auto sim = make_sim_validator(params_);
    BenchOptions o;
    o.kinds = {CollectiveKind::all_gather, CollectiveKind::all_to_all};
    o.transports = {"nccl", "ce"};
    o.sizes = size_sweep(64 * 1024, std::int64_t{1} << 30, 2);
    o.ranks = 8;
    RawProvenance p = provenance_of(sim->capabilities());
    p.command = "test";
    BenchFile f = run_bench(*sim, o, p, nullptr);
    for (BenchRecord& r : f.records)
      if (r.transport == "ce") {
        r.transport = kShipped;
        r.measurement.median_s += kShippedFloorS;
      }
    return f;
  }

  void write(const BenchFile& f) const { std::ofstream(bench_path_) << bench_json(f); }

  CalibrationResult run(const CalibrationOptions& o, int* collective_calls = nullptr) {
    int calls = 0;
    WrappedValidator counting(make_sim_validator(params_), [&](int, const std::string& what) {
      if (what == "collective") ++calls;
      return WrappedValidator::Action::pass;
    });
    CalibrationResult r = calibrate(counting, base_, o, nullptr);
    if (collective_calls) *collective_calls = calls;
    return r;
  }

  // The ConfigError of calibrating with the file as written, or a failure.
  std::string refusal(const CalibrationOptions& o) {
    try {
      run(o);
    } catch (const ConfigError& e) {
      EXPECT_EQ(e.file(), bench_path_);
      return e.key() + ": " + e.message();
    }
    ADD_FAILURE() << "accepted";
    return "";
  }

  std::string bench_path_;
};

TEST_F(ShippedDmaTest, TheDmaCurvesComeFromTheFileAndEverythingElseFromTheBackend) {
  const BenchFile file = bench();
  write(file);
  int plain_calls = 0, shipped_calls = 0;
  const HardwareProfile plain = run(options(), &plain_calls).profile;
  CalibrationOptions o = options();
  o.dma_variant = kShipped;
  o.collectives_path = bench_path_;
  const CalibrationResult r = run(o, &shipped_calls);
  const HardwareProfile& hw = r.profile;

  EXPECT_EQ(shipped_calls, plain_calls);  // nothing seeded: the backend measured every sweep
  const auto& notes = r.raw.provenance.notes;
  EXPECT_NE(std::find(notes.begin(), notes.end(), "dma variant: ce"), notes.end());  // measured with "ce"

  for (const CollectiveKind kind : copy_engine_kinds()) {
    const CollectiveParams& dma = hw.collectives.at(kind).at(Transport::dma);
    const auto expected = bench_curve(file, kind, kShipped, 8);
    ASSERT_EQ(dma.curve_time_s.x.size(), expected.size()) << to_string(kind);
    for (std::size_t i = 0; i < expected.size(); ++i) {
      EXPECT_DOUBLE_EQ(dma.curve_time_s.x[i], expected[i].first);
      EXPECT_LE(dma.curve_time_s.y[i], expected[i].second);  // made non-decreasing
      EXPECT_GE(dma.curve_time_s.y[i], kShippedFloorS);
    }
    EXPECT_EQ(dma.curve_ranks, 8);
    EXPECT_EQ(dma.curve_time_s.provenance.ref, bench_path_);
    const std::string path = "collectives." + std::string(to_string(kind)) + ".dma.";
    EXPECT_EQ(hw.sources.at(path + "latency_s").ref, bench_path_);
    EXPECT_EQ(hw.sources.at(path + "bus_bw_bytes_per_s").ref, bench_path_);
    // the floor is the shipped path's, not the backend's
    const CollectiveParams& plain_dma = plain.collectives.at(kind).at(Transport::dma);
    EXPECT_GT(dma.latency_s, plain_dma.latency_s + 0.5 * kShippedFloorS);
    // measured only by the backend: its values, labelled with its variant
    EXPECT_DOUBLE_EQ(dma.launch_s, plain_dma.launch_s);
    EXPECT_DOUBLE_EQ(dma.unaligned_slowdown, plain_dma.unaligned_slowdown);
    EXPECT_NE(hw.sources.at(path + "launch_s").ref.find("(measured with ce, not shipped_ce)"), std::string::npos);
    // NCCL stays the backend's
    EXPECT_EQ(hw.collectives.at(kind).at(Transport::cu).curve_time_s.y,
              plain.collectives.at(kind).at(Transport::cu).curve_time_s.y);
  }
  for (const auto& [cls, f] : plain.interference.at(Transport::dma)) {
    EXPECT_DOUBLE_EQ(hw.interference.at(Transport::dma).at(cls).gemm_slowdown, f.gemm_slowdown);
    EXPECT_DOUBLE_EQ(hw.interference.at(Transport::dma).at(cls).collective_slowdown, f.collective_slowdown);
    const std::string path = "interference.dma." + std::string(to_string(cls)) + ".gemm_slowdown";
    EXPECT_NE(hw.sources.at(path).ref.find("(measured with ce, not shipped_ce)"), std::string::npos);
  }
  EXPECT_EQ(hw.sources.at("interference.cu.compute_bound.gemm_slowdown").ref.find("measured with"),
            std::string::npos);

  EXPECT_EQ(hw.provenance_details.at("dma_variant"), kShipped);
  EXPECT_EQ(hw.provenance_details.at("dma_interference_variant"), "ce");
  EXPECT_EQ(hw.provenance_details.at("collectives"), bench_path_);
  EXPECT_NE(hw.description.find(bench_path_), std::string::npos) << hw.description;
  const HardwareProfile loaded = io::parse_profile(io::profile_yaml(hw), "shipped.yaml");  // keys known
  EXPECT_EQ(loaded.provenance_details.at("dma_interference_variant"), "ce");

  // the advice names the shipped implementation
  StrategyPrediction dma;
  dma.strategy = Strategy{StrategyKind::dma, 0, 0};
  EXPECT_EQ(framework_settings(loaded, dma).copy_engine.value_or(""), kShipped);
}

TEST_F(ShippedDmaTest, AVariantTheBackendCannotRunNeedsAFileWithIt) {
  CalibrationOptions o = options();
  o.dma_variant = kShipped;
  try {
    run(o);
    FAIL() << "accepted a variant the sim cannot run without a file";
  } catch (const InputError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("no dma variant 'shipped_ce'"), std::string::npos) << what;
    EXPECT_NE(what.find("--collectives FILE"), std::string::npos) << what;
  }
  write(bench());
  o.collectives_path = bench_path_;
  o.dma_variant = "other_ce";
  EXPECT_NE(refusal(o).find("records[].transport: no record of 'other_ce' (the file's transports: nccl, shipped_ce)"),
            std::string::npos);
}

TEST_F(ShippedDmaTest, AFileLackingAKindRanksOrSizesIsRefusedNamingTheField) {
  CalibrationOptions o = options();
  o.dma_variant = kShipped;
  o.collectives_path = bench_path_;
  const BenchFile full = bench();

  BenchFile f = full;
  std::erase_if(f.records, [](const BenchRecord& r) { return r.kind == CollectiveKind::all_to_all; });
  write(f);
  EXPECT_NE(refusal(o).find("records[].kind: no 'shipped_ce' record of all_to_all (its kinds in the file: all_gather)"),
            std::string::npos);

  f = full;
  for (BenchRecord& r : f.records) r.ranks = 4;
  write(f);
  EXPECT_NE(refusal(o).find("records[].ranks: no 'shipped_ce' all_gather record at 8 ranks"), std::string::npos);

  f = full;
  for (BenchRecord& r : f.records)
    if (r.kind == CollectiveKind::all_to_all && r.size_bytes > 128 * 1024) {
      r.measurement.ok = false;
      r.measurement.error = "nccl_error: test";
    }
  write(f);
  EXPECT_NE(refusal(o).find("records[].size_bytes: 2 successful sizes of 'shipped_ce' all_to_all at 8 ranks"),
            std::string::npos);

  f = full;  // a flat curve: no bandwidth
  for (BenchRecord& r : f.records)
    if (r.transport == kShipped && r.kind == CollectiveKind::all_gather) r.measurement.median_s = 1e-3;
  write(f);
  EXPECT_NE(refusal(o).find("records[].time_s: no bandwidth can be fitted"), std::string::npos);
}

// Pairs timed with the shipped variant itself (scripts/gpu-jobs/torch_pairs.py's file):
// timed here by a "true" profile whose all_gather copy engines interfere more than the
// backend's, and whose launch call takes 80 us.
class ShippedDmaPairsTest : public ShippedDmaTest {
 protected:
  static Measurement measured(double t, double host_launch_s = 0) {
    Measurement m;
    m.ok = m.verified = true;
    m.median_s = m.min_s = m.max_s = t;
    m.runs_s = {t};
    m.host_launch_s = host_launch_s;
    return m;
  }

  CalibrationOptions shipped_options() {
    write(bench());
    CalibrationOptions o = options();
    o.dma_variant = kShipped;
    o.collectives_path = bench_path_;
    return o;
  }

  static std::vector<C3Pair> pairs() {
    std::vector<C3Pair> out;
    for (const Gemm& g : {Gemm{8192, 8192, 8192, DType::bf16}, Gemm{4096, 8192, 8192, DType::bf16},
                          Gemm{8192, 4096, 16384, DType::bf16}})
      for (const std::int64_t size : {std::int64_t{64} << 20, std::int64_t{256} << 20, std::int64_t{1} << 30})
        out.push_back(C3Pair{"", g, {CollectiveKind::all_gather, size, 8}, {}, {}});
    return out;
  }

  // The file: every pair under serial and dma, dma with its host launch time; device as
  // the sim's.
  std::string pairs_file(const HardwareProfile& truth, bool with_dma = true) {
    RawMeasurements raw;
    raw.provenance.device = make_sim_validator(params_)->capabilities().device;
    for (const C3Pair& p : pairs())
      for (const Strategy s : {Strategy{StrategyKind::serial, 0, 0}, Strategy{StrategyKind::dma, 0, 0}})
        if (with_dma || s.kind == StrategyKind::serial)
          raw.records.push_back({ConcurrentQuery{p.gemm, p.collective, s},
                                 measured(strategies::predicted_time_s(truth, p, s),
                                          s.kind == StrategyKind::dma ? kLaunchS : 0.0)});
    const std::string path = tmp_.file(with_dma ? "c3_shipped_pairs.json" : "c3_shipped_serial_only.json");
    save_raw_measurements(path, raw);
    return path;
  }

  static constexpr double kLaunchS = 80e-6;
};

TEST_F(ShippedDmaPairsTest, ItsOwnPairsGiveTheVariantsInterferenceAndLaunchCost) {
  CalibrationOptions o = shipped_options();
  const HardwareProfile first = run(o).profile;  // interference and launch of the backend's "ce"
  const GemmClass cls = model::classify(first, pairs().front()).gemm;
  HardwareProfile truth = first;
  truth.interference_by_kind[CollectiveKind::all_gather][Transport::dma][cls] = {1.3, 1.15};
  truth.collectives.at(CollectiveKind::all_gather).at(Transport::dma).launch_s = kLaunchS;

  o.dma_pairs_paths = {pairs_file(truth)};
  const CalibrationResult r = run(o);
  const HardwareProfile& hw = r.profile;
  const Interference& f = hw.interference_by_kind.at(CollectiveKind::all_gather).at(Transport::dma).at(cls);
  EXPECT_NEAR(f.gemm_slowdown, 1.3, 1e-3);
  EXPECT_NEAR(f.collective_slowdown, 1.15, 1e-3);
  const std::string group = "interference.by_kind.all_gather.dma." + std::string(to_string(cls));
  EXPECT_EQ(hw.sources.at(group + ".gemm_slowdown").ref, o.dma_pairs_paths[0]);
  for (const CollectiveKind kind : copy_engine_kinds()) {
    EXPECT_DOUBLE_EQ(hw.collectives.at(kind).at(Transport::dma).launch_s, kLaunchS);
    EXPECT_EQ(hw.sources.at("collectives." + std::string(to_string(kind)) + ".dma.launch_s").ref,
              o.dma_pairs_paths[0]);
  }
  // all_to_all has no pairs in the file: the backend's factors, labelled as such
  const auto& a2a = first.interference_by_kind.find(CollectiveKind::all_to_all);
  if (a2a != first.interference_by_kind.end())
    for (const auto& [c, factors] : a2a->second.at(Transport::dma)) {
      EXPECT_DOUBLE_EQ(hw.interference_by_kind.at(CollectiveKind::all_to_all).at(Transport::dma).at(c).gemm_slowdown,
                       factors.gemm_slowdown);
    }
  EXPECT_NE(hw.sources.at("interference.dma." + std::string(to_string(cls)) + ".gemm_slowdown")
                .ref.find("(measured with ce, not shipped_ce)"),
            std::string::npos);
  EXPECT_EQ(hw.provenance_details.at("dma_pairs"), o.dma_pairs_paths[0]);
  EXPECT_NE(hw.provenance_details.at("dma_interference_variant").find("shipped_ce"), std::string::npos);
  EXPECT_NE(hw.description.find("from its own pairs in " + o.dma_pairs_paths[0]), std::string::npos) << hw.description;
  const HardwareProfile loaded = io::parse_profile(io::profile_yaml(hw), "shipped.yaml");  // keys known
  EXPECT_EQ(loaded.provenance_details.at("dma_pairs"), o.dma_pairs_paths[0]);
}

TEST_F(ShippedDmaPairsTest, PairsNeedAShippedVariantAndDmaRecords) {
  CalibrationOptions o = options();
  o.dma_pairs_paths = {"pairs.json"};
  try {
    run(o);
    FAIL() << "accepted --dma-pairs without a shipped variant";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("--dma-pairs: pairs of a copy-engine implementation"), std::string::npos)
        << e.what();
  }
  o = shipped_options();
  const HardwareProfile first = run(o).profile;
  o.dma_pairs_paths = {pairs_file(first, /*with_dma=*/false)};
  try {
    run(o);
    FAIL() << "accepted a pairs file without dma records";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("no successful dma record"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find(o.dma_pairs_paths[0]), std::string::npos) << e.what();
  }
  o.dma_pairs_paths = {tmp_.file("missing.json")};
  EXPECT_THROW(run(o), InputError);
}

}  // namespace
}  // namespace c3::validator
