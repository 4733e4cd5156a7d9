// The raw-measurements file and the replay backend answering from it.
#include <gtest/gtest.h>

#include <filesystem>

#include "c3/errors.hpp"
#include "c3/io.hpp"
#include "c3/validator.hpp"
#include "io/raw_measurements.hpp"
#include "backends/replay/replay.hpp"
#include "backends/sim/sim.hpp"
#include "support/temp_dir.hpp"

namespace c3::validator {
namespace {

std::vector<Query> sample_queries() {
  return {GemmQuery{parse_gemm("8192x8192x8192"), 16},
          CollectiveQuery{parse_collective("all_gather:64MiB", 8), Transport::cu, 32},
          CollectiveQuery{parse_collective("all_to_all:64MiB", 8), Transport::dma, 0},
          ConcurrentQuery{parse_gemm("8192x8192x8192:fp16"), parse_collective("all_gather:896MiB", 8),
                          parse_strategy("rp:64")},
          CopyQuery{CopyPath::all_peers, 1 << 30}};
}

RawMeasurements measured_on_sim() {
  const HardwareProfile hw = io::resolve_profile("mi300x");
  SimParams params = sim_params(hw);
  apply_sim_arg(params, "noise=0.01,seed=3");
  auto sim = make_sim_validator(params);
  RawMeasurements raw;
  raw.provenance = provenance_of(sim->capabilities());
  raw.provenance.command = "test";
  for (const Query& q : sample_queries()) raw.records.push_back({q, run(*sim, q)});
  return raw;
}

void expect_same(const Measurement& a, const Measurement& b) {
  EXPECT_EQ(a.ok, b.ok);
  EXPECT_EQ(a.error, b.error);
  EXPECT_EQ(a.median_s, b.median_s);
  EXPECT_EQ(a.runs_s, b.runs_s);
  EXPECT_EQ(a.warmup_runs, b.warmup_runs);
  EXPECT_EQ(a.verified, b.verified);
}

TEST(Replay, AnswersExactlyWhatWasRecorded) {
  const RawMeasurements raw = measured_on_sim();
  const RawMeasurements back = parse_raw_measurements(raw_measurements_json(raw), "mem.json");
  EXPECT_EQ(back.provenance, raw.provenance);
  auto replay = make_replay_validator(back, "mem.json");
  for (const Record& r : raw.records) expect_same(run(*replay, r.query), r.measurement);
  EXPECT_EQ(replay->capabilities().device, raw.provenance.device);
}

TEST(Replay, AMissingMeasurementFailsNamingItsKey) {
  auto replay = make_replay_validator(measured_on_sim(), "mem.json");
  const Measurement m = replay->gemm(parse_gemm("8192x8192x8192"), 0);
  EXPECT_FALSE(m.ok);
  EXPECT_NE(m.error.find(measurement_key(GemmQuery{parse_gemm("8192x8192x8192"), 0})), std::string::npos)
      << m.error;
  EXPECT_NE(m.error.find("mem.json"), std::string::npos) << m.error;
}

TEST(Replay, ThroughTheRegistryFromAFile) {
  const test::TempDir tmp;
  const std::string path = tmp.file("c3_replay_test.json");
  const RawMeasurements raw = measured_on_sim();
  save_raw_measurements(path, raw);
  EXPECT_FALSE(std::filesystem::exists(path + ".tmp"));
  auto replay = make_validator("replay:" + path, io::resolve_profile("mi300x"));
  expect_same(run(*replay, raw.records[1].query), raw.records[1].measurement);
  EXPECT_THROW(make_validator("replay", io::resolve_profile("mi300x")), InputError);
  EXPECT_THROW(make_validator("replay:" + path + ".absent", io::resolve_profile("mi300x")), ConfigError);
}

TEST(Replay, DuplicateKeysAreAConfigError) {
  RawMeasurements raw = measured_on_sim();
  raw.records.push_back(raw.records.front());
  EXPECT_THROW(make_replay_validator(raw, "dup.json"), ConfigError);
}

TEST(RawMeasurements, ALayoutOtherThanTnIsWrittenAndReadBack) {
  RawMeasurements raw;
  Measurement m;
  m.ok = true;
  m.median_s = m.min_s = m.max_s = 1e-3;
  m.runs_s = {1e-3};
  const Gemm row{1093, 4096, 4096, DType::bf16, GemmLayout::row_major};
  raw.records = {Record{GemmQuery{row, 0}, m}, Record{GemmQuery{Gemm{1093, 4096, 4096, DType::bf16}, 0}, m}};
  const std::string text = raw_measurements_json(raw);
  EXPECT_NE(text.find("\"layout\": \"row_major\""), std::string::npos) << text;
  EXPECT_EQ(text.find("\"layout\": \"tn\""), std::string::npos);  // the default is not written
  const RawMeasurements back = parse_raw_measurements(text, "layout.json");
  ASSERT_EQ(back.records.size(), 2u);
  EXPECT_EQ(std::get<GemmQuery>(back.records[0].query).gemm, row);
  EXPECT_EQ(std::get<GemmQuery>(back.records[1].query).gemm.layout, GemmLayout::tn);
  // two records of one shape in the two layouts are two keys, not a duplicate
  EXPECT_NO_THROW(make_replay_validator(back, "layout.json"));
  std::string bad = text;
  bad.replace(bad.find("\"row_major\""), 11, "\"colmajor\"");
  EXPECT_THROW(parse_raw_measurements(bad, "bad.json"), ConfigError);
}

TEST(RawMeasurements, BadFieldsNameTheirKeyPath) {
  std::string text = raw_measurements_json(measured_on_sim());
  const auto expect_error_at = [](const std::string& json, const std::string& key) {
    try {
      parse_raw_measurements(json, "bad.json");
      ADD_FAILURE() << "no error for " << key;
    } catch (const ConfigError& e) {
      EXPECT_EQ(e.key(), key) << e.what();
      EXPECT_EQ(e.file(), "bad.json");
    }
  };
  std::string bad_dtype = text;
  bad_dtype.replace(bad_dtype.find("\"bf16\""), 6, "\"bf17\"");
  expect_error_at(bad_dtype, "records[0].dtype");
  std::string bad_key = text;
  bad_key.replace(bad_key.find("cus_removed=16"), 14, "cus_removed=17");
  expect_error_at(bad_key, "records[0].key");
  std::string bad_version = text;
  bad_version.replace(bad_version.find("\"schema_version\": 1"), 19, "\"schema_version\": 9");
  expect_error_at(bad_version, "schema_version");
  expect_error_at("{", "");
}

}  // namespace
}  // namespace c3::validator

namespace c3::validator {
namespace {

// A replay answers for the dma variant its file was measured with (the "dma variant:"
// note that calibrate and measure write), and for no other.
TEST(ReplayDmaVariant, OnlyTheRecordedOne) {
  RawMeasurements raw = measured_on_sim();
  const test::TempDir tmp;
  const std::string path = tmp.file("c3_replay_variant.json");
  raw.provenance.notes.push_back("dma variant: ce_push_batch_ovl");
  save_raw_measurements(path, raw);
  const auto replay = make_validator("replay:" + path, io::resolve_profile("mi300x"));
  EXPECT_EQ(replay->capabilities().dma_variants, std::vector<std::string>{"ce_push_batch_ovl"});
  EXPECT_EQ(replay->dma_variant(), "ce_push_batch_ovl");
  replay->set_dma_variant("ce_push_batch_ovl");
  EXPECT_THROW(replay->set_dma_variant("ce_push_peer"), InputError);

  raw.provenance.notes.pop_back();  // a file without the note: only the unnamed default
  save_raw_measurements(path, raw);
  const auto plain = make_validator("replay:" + path, io::resolve_profile("mi300x"));
  EXPECT_TRUE(plain->capabilities().dma_variants.empty());
  plain->set_dma_variant("");
  EXPECT_THROW(plain->set_dma_variant("ce_push_peer"), InputError);
}

}  // namespace
}  // namespace c3::validator
