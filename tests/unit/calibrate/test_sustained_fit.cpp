// calibrate --sustained (calibrate/sustained_fit.hpp, docs/model.md §4.6): the sustained
// file's reader, the octave fit, and the calibration that uses it (on the sim).
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include "backends/sim/sim.hpp"
#include "c3/errors.hpp"
#include "c3/io.hpp"
#include "c3/measurements.hpp"
#include "calibrate/calibrate.hpp"
#include "calibrate/sustained_fit.hpp"
#include "support/sim_calibration.hpp"
#include "support/temp_dir.hpp"

namespace c3::validator {
namespace {

using Json = nlohmann::ordered_json;

Json record(std::int64_t m, double burst_s, double sustained_s, bool ok = true, bool verified = true) {
  return Json{{"m", m},           {"n", 4096},
              {"k", 4096},        {"dtype", "bf16"},
              {"ok", ok},         {"error", ok ? "" : "out of memory"},
              {"burst_s", burst_s}, {"sustained_s", sustained_s},
              {"verified", verified}};
}

Json document(const std::string& device, Json records) {
  return Json{{"schema_version", 1},
              {"type", "sustained_gemms"},
              {"provenance",
               {{"backend", "torch"},
                {"device", device},
                {"gpus", 2},
                {"compute_units", 132},
                {"versions", Json::object()},
                {"notes", Json::array()},
                {"git_sha", "abc"},
                {"date", "2026-11-26T00:00:00Z"},
                {"command", "test"},
                {"c3advisor_version", "0.1.0"}}},
              {"records", std::move(records)}};
}

// Octave 2^8 us = 256..512 us: 300, 400, 450 us at 1.10, 1.12, 1.14 (median 1.12, x 400 us);
// octave 2^11 us = 2048..4096 us: three at 1.2; octave 2^6 us: three faster back to back
// (held at 1); one record alone in octave 2^13 us (left out), a failed and an unverified one.
Json records() {
  return Json::array({record(1, 300e-6, 330e-6), record(2, 400e-6, 448e-6), record(3, 450e-6, 513e-6),
                      record(4, 2.1e-3, 2.52e-3), record(5, 3e-3, 3.6e-3), record(6, 4e-3, 4.8e-3),
                      record(7, 70e-6, 50e-6), record(8, 80e-6, 60e-6), record(9, 90e-6, 70e-6),
                      record(10, 9e-3, 9.9e-3), record(11, 3e-3, 0, false), record(12, 3e-3, 9e-3, true, false)});
}

TEST(SustainedFit, OctavesGiveMediansHeldAtOne) {
  const SustainedFile file = parse_sustained(document("NVIDIA H200 x2", records()).dump(), "s.json");
  ASSERT_EQ(file.records.size(), 12u);
  EXPECT_EQ(file.provenance.device, "NVIDIA H200 x2");
  std::vector<std::string> notes;
  const Table t = fit_sustained_slowdown(file, Provenance{SourceKind::measured, "s.json"}, notes);
  EXPECT_EQ(t.name, "sustained_gemm_slowdown");
  EXPECT_EQ(t.provenance.ref, "s.json");
  ASSERT_EQ(t.x.size(), 3u);
  EXPECT_DOUBLE_EQ(t.x[0], 80e-6);
  EXPECT_DOUBLE_EQ(t.y[0], 1.0);  // 0.71-0.78 back to back: the launch, not the power limit
  EXPECT_DOUBLE_EQ(t.x[1], 400e-6);
  EXPECT_NEAR(t.y[1], 1.12, 1e-12);
  EXPECT_DOUBLE_EQ(t.x[2], 3e-3);
  EXPECT_NEAR(t.y[2], 1.2, 1e-12);
  ASSERT_EQ(notes.size(), 1u);
  EXPECT_NE(notes[0].find("1 of 10 GEMMs in octaves of fewer than 3 left out"), std::string::npos) << notes[0];
}

TEST(SustainedFit, FewerThanTwoOctavesIsNotFitted) {
  Json one = Json::array({record(1, 300e-6, 330e-6), record(2, 400e-6, 448e-6), record(3, 450e-6, 513e-6)});
  std::vector<std::string> notes;
  const Table t = fit_sustained_slowdown(parse_sustained(document("d", one).dump(), "s.json"), {}, notes);
  EXPECT_TRUE(t.x.empty());
  ASSERT_EQ(notes.size(), 1u);
  EXPECT_NE(notes[0].find("not fitted (1 octave(s)"), std::string::npos) << notes[0];
}

TEST(SustainedFit, BadFilesNameTheField) {
  const auto refusal = [](const Json& doc) {
    try {
      parse_sustained(doc.dump(), "bad.json");
    } catch (const ConfigError& e) {
      EXPECT_EQ(e.file(), "bad.json");
      return e.key() + ": " + e.message();
    }
    ADD_FAILURE() << "accepted " << doc.dump();
    return std::string();
  };
  Json doc = document("d", records());
  doc["type"] = "collective_bench";
  EXPECT_NE(refusal(doc).find("type: must be 'sustained_gemms'"), std::string::npos);
  doc = document("d", records());
  doc["records"][2]["m"] = 0;
  EXPECT_EQ(refusal(doc), "records[2].m: must be > 0");
  doc = document("d", records());
  doc["records"][1]["burst_s"] = -1;
  EXPECT_EQ(refusal(doc), "records[1].burst_s: must be a time > 0 s of an ok record");
  doc = document("d", records());
  doc["records"][0]["dtype"] = "bf17";
  EXPECT_NE(refusal(doc).find("records[0].dtype"), std::string::npos);
  doc = document("d", records());
  doc["records"][0].erase("sustained_s");
  EXPECT_EQ(refusal(doc), "records[0].sustained_s: missing");
  EXPECT_THROW(parse_sustained("{\"schema_version\": 1,", "bad.json"), ConfigError);
}

class SustainedCalibration : public test::SimCalibrationTest {
 protected:
  CalibrationOptions options(const std::string& device) {
    CalibrationOptions o;
    o.gpus = 8;
    o.quick = true;
    o.name = "sim_sustained";
    o.command = "test";
    o.sustained_path = tmp_.file("sustained.json");
    std::ofstream(o.sustained_path) << document(device, records()).dump();
    return o;
  }

  CalibrationResult run(const CalibrationOptions& o) { return calibrate_on_sim(o); }
};

TEST_F(SustainedCalibration, TheProfileTakesTheFitAndNamesTheFile) {
  const std::string device = make_sim_validator(params_)->capabilities().device;
  const CalibrationOptions o = options(device);
  const HardwareProfile hw = run(o).profile;
  ASSERT_EQ(hw.sustained_gemm_slowdown.x.size(), 3u);
  EXPECT_NEAR(hw.sustained_gemm_slowdown.y[2], 1.2, 1e-12);
  EXPECT_EQ(hw.sources.at("sustained_gemm_slowdown").ref, o.sustained_path);
  EXPECT_EQ(hw.provenance_details.at("sustained"), o.sustained_path);
  const HardwareProfile back = io::parse_profile(io::profile_yaml(hw), "written.yaml");
  EXPECT_EQ(back.sustained_gemm_slowdown.x, hw.sustained_gemm_slowdown.x);
}

TEST_F(SustainedCalibration, AnotherGpuOrATestFileIsRefused) {
  CalibrationOptions o = options("NVIDIA H200 x2");
  try {
    run(o);
    FAIL() << "accepted another GPU's file";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("--sustained: " + o.sustained_path + " was measured on 'NVIDIA H200 x2'"),
              std::string::npos)
        << e.what();
  }
  o = options(make_sim_validator(params_)->capabilities().device);
  o.splits.path = "splits.yaml";
  o.splits.entries.push_back({o.sustained_path, SplitKind::test, "sustained", std::nullopt, ""});
  try {
    run(o);
    FAIL() << "accepted a test file";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("calibrate --sustained"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace c3::validator
