// calibrate --gemm-times (calibrate/gemm_times_fit.hpp, docs/model.md §1.2): which records
// count, the median over files, the refusals, and the calibration that takes the table last.
#include <gtest/gtest.h>

#include "backends/sim/sim.hpp"
#include "c3/errors.hpp"
#include "c3/io.hpp"
#include "c3/measurements.hpp"
#include "c3/model.hpp"
#include "calibrate/calibrate.hpp"
#include "calibrate/gemm_times_fit.hpp"
#include "support/gemm_record.hpp"
#include "support/sim_calibration.hpp"
#include "support/temp_dir.hpp"

namespace c3::validator {
namespace {

using testing::gemm_record;

RawMeasurements file_of(std::vector<Record> records, bool gated = false,
                        const std::string& backend = "cuda") {
  RawMeasurements f;
  f.provenance.backend = backend;
  f.provenance.device = "NVIDIA H200 x2";
  if (gated)
    f.provenance.notes.push_back("timing: gated runs: every GPU's launches queued behind a blocking kernel");
  f.records = std::move(records);
  return f;
}

const Gemm kA{4096, 4096, 4096, DType::bf16};
const Gemm kB{64, 8192, 4096, DType::bf16};
const Gemm kC{64, 8192, 4096, DType::fp16};

TEST(GemmTimesFit, TheMedianOverFilesOfEachFilesFirstRecord) {
  const std::vector<RawMeasurements> files{
      file_of(
          {gemm_record(kA, 1e-3), gemm_record(kA, 9e-3), gemm_record(kB, 2e-5)}),  // kA again: not counted
      file_of({gemm_record(kA, 3e-3), gemm_record(kC, 4e-5)}),
      // left out: CUs removed, failed, unverified, row-major, a median of 0
      file_of({gemm_record(kA, 2e-3), gemm_record(kB, 1.0, 8), gemm_record(kB, 1.0, 0, false),
               gemm_record(kB, 1.0, 0, true, false),
               gemm_record(Gemm{64, 8192, 4096, DType::bf16, GemmLayout::row_major}, 1.0),
               gemm_record(Gemm{8, 8, 8, DType::bf16}, 0.0)}),
      file_of({gemm_record(kB, 1.0, 16)})};
  std::vector<std::string> notes;
  const std::vector<GemmTimeShape> table =
      fit_gemm_times(files, {"a.json", "b.json", "c.json", "d.json"}, notes);
  ASSERT_EQ(table.size(), 3u);
  // sorted by (dtype, m, n, k): bf16 before fp16, then m
  EXPECT_EQ(table[0].gemm, kB);
  EXPECT_DOUBLE_EQ(table[0].seconds, 2e-5);
  EXPECT_EQ(table[0].files, 1);
  EXPECT_EQ(table[1].gemm, kA);
  EXPECT_DOUBLE_EQ(table[1].seconds, 2e-3);  // the median of 1, 3 and 2 ms
  EXPECT_EQ(table[1].files, 3);
  EXPECT_EQ(table[2].gemm, kC);
  ASSERT_EQ(notes.size(), 1u);
  EXPECT_EQ(notes[0], "gemm_times: 3 shapes from 3 of 4 files");
}

TEST(GemmTimesFit, RefusesMixedTimingPyTorchFilesAndMissingPaths) {
  std::vector<std::string> notes;
  try {
    fit_gemm_times({file_of({gemm_record(kA, 1e-3)}), file_of({gemm_record(kA, 1e-3)}, true)},
                   {"u.json", "g.json"}, notes);
    FAIL() << "mixed gated and host-paced files";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("g.json was timed gated and u.json host-paced"), std::string::npos)
        << e.what();
  }
  try {
    fit_gemm_times({file_of({gemm_record(kA, 1e-3)}, false, "torch")}, {"t.json"}, notes);
    FAIL() << "a PyTorch file";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("t.json was timed by PyTorch"), std::string::npos) << e.what();
  }
  EXPECT_THROW(fit_gemm_times({file_of({})}, {}, notes), InputError);
  // all gated is one kind of run
  EXPECT_EQ(fit_gemm_times({file_of({gemm_record(kA, 1e-3)}, true), file_of({gemm_record(kA, 3e-3)}, true)},
                           {"g1.json", "g2.json"}, notes)
                .at(0)
                .seconds,
            2e-3);
}

class GemmTimesCalibration : public test::SimCalibrationTest {
 protected:
  CalibrationOptions options(const std::string& device, const Gemm& gemm, double seconds) {
    CalibrationOptions o;
    o.gpus = 8;
    o.quick = true;
    o.name = "sim_gemm_times";
    o.command = "test";
    RawMeasurements f = file_of({gemm_record(gemm, seconds)});
    f.provenance.device = device;
    o.gemm_times_paths = {tmp_.file("times.json")};
    save_raw_measurements(o.gemm_times_paths[0], f);
    return o;
  }

  CalibrationResult run(const CalibrationOptions& o, const HardwareProfile& base) {
    return calibrate_on_sim(o, base);
  }
};

TEST_F(GemmTimesCalibration, TheProfileTakesTheTableLastAndDropsTheBasesTable) {
  const std::string device = make_sim_validator(params_)->capabilities().device;
  const CalibrationOptions o = options(device, kA, 7e-4);
  HardwareProfile base = base_;
  base.gemm_times = {{kB, 1.0, 1}};  // another machine's: not kept
  base.sources["gemm_times"] = Provenance{SourceKind::measured, "elsewhere.json"};
  CalibrationOptions none = o;
  none.gemm_times_paths.clear();
  const CalibrationResult without = run(none, base_);
  const CalibrationResult with = run(o, base);
  const HardwareProfile& hw = with.profile;
  ASSERT_EQ(hw.gemm_times.size(), 1u);
  EXPECT_EQ(hw.gemm_times[0].gemm, kA);
  EXPECT_DOUBLE_EQ(model::gemm_time_s(hw, kA), 7e-4);
  EXPECT_DOUBLE_EQ(model::gemm_time_s(hw, kB), model::gemm_time_s(without.profile, kB));
  EXPECT_EQ(hw.sources.at("gemm_times").ref, "the 1 files of provenance.gemm_times");
  EXPECT_EQ(hw.provenance_details.at("gemm_times"), o.gemm_times_paths[0]);
  // fitted last: every other value is the one fitted without the table
  HardwareProfile rest = hw;
  rest.gemm_times.clear();
  rest.sources.erase("gemm_times");
  rest.provenance_details.erase("gemm_times");
  EXPECT_EQ(io::profile_yaml(rest), io::profile_yaml(without.profile));
  const HardwareProfile back = io::parse_profile(io::profile_yaml(hw), "written.yaml");
  ASSERT_EQ(back.gemm_times.size(), 1u);
  EXPECT_DOUBLE_EQ(back.gemm_times[0].seconds, 7e-4);
}

TEST_F(GemmTimesCalibration, AnotherDeviceOrATestFileIsRefused) {
  CalibrationOptions o = options("NVIDIA H200 x1", kA, 7e-4);
  try {
    run(o, base_);
    FAIL() << "accepted another device's file";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("--gemm-times: " + o.gemm_times_paths[0] + " was measured on"),
              std::string::npos)
        << e.what();
  }
  o = options(make_sim_validator(params_)->capabilities().device, kA, 7e-4);
  o.splits.path = "splits.yaml";
  o.splits.entries.push_back({o.gemm_times_paths[0], SplitKind::test, "times", std::nullopt, ""});
  try {
    run(o, base_);
    FAIL() << "accepted a test file";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("calibrate --gemm-times"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace c3::validator
