// The raw-measurements file and the replay backend answering from it.
#include <gtest/gtest.h>

#include <filesystem>
#include <stdexcept>

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
  // counts are >= 0
  const auto with = [&](const std::string& from, const std::string& to) {
    std::string out = text;
    const auto at = out.find(from);
    EXPECT_NE(at, std::string::npos) << from;
    return at == std::string::npos ? out : out.replace(at, from.size(), to);
  };
  const std::string gpus = "\"gpus\": " + std::to_string(measured_on_sim().provenance.gpus);
  expect_error_at(with(gpus, "\"gpus\": -2"), "provenance.gpus");
  expect_error_at(with("\"warmup_runs\": ", "\"warmup_runs\": -"), "records[0].warmup_runs");
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

namespace c3::validator {
namespace {

// ---- replay:A+B+C: the median over files of the same scenarios, one process each ----

const GemmQuery kSmall{parse_gemm("1024x1024x1024"), 0};
const GemmQuery kLarge{parse_gemm("8192x8192x8192"), 0};
const CollectiveQuery kGather{parse_collective("all_gather:64MiB", 2), Transport::cu, 0};

Measurement timed(double median_s, double spread_s = 1e-6, bool verified = true) {
  Measurement m;
  m.ok = true;
  m.median_s = median_s;
  m.min_s = median_s - spread_s;
  m.max_s = median_s + spread_s;
  m.runs_s = {m.min_s, median_s, m.max_s};
  m.warmup_runs = 2;
  m.verified = verified;
  return m;
}

Measurement failed(const std::string& error) {
  Measurement m;
  m.error = error;
  return m;
}

// One process's file: the records given, a provenance naming `device`.
RawMeasurements process(std::vector<Record> records, const std::string& device = "GPU x2") {
  RawMeasurements raw;
  raw.provenance.backend = "cuda";
  raw.provenance.device = device;
  raw.provenance.notes = {"dma variant: ce_push_peer"};
  raw.records = std::move(records);
  return raw;
}

const Measurement& merged(const RawMeasurements& raw, const Query& q) {
  for (const Record& r : raw.records)
    if (measurement_key(r.query) == measurement_key(q)) return r.measurement;
  throw std::runtime_error("no record " + measurement_key(q));
}

TEST(ReplayMedian, OfThreeFilesTheMiddleMedian) {
  Measurement first = timed(3e-3, 1e-4, false);
  first.gemm_kernel.tile_m = 128;
  first.gemm_kernel.tile_n = 256;
  first.host_launch_s = 5e-6;
  first.warmup_runs = 4;
  const RawMeasurements raw =
      median_over_processes({process({{kSmall, first}, {kGather, timed(9e-3)}}, "first"),
                             process({{kSmall, timed(1e-3, 5e-4)}, {kGather, timed(7e-3)}}, "second"),
                             process({{kSmall, timed(2e-3, 1e-4)}, {kGather, timed(8e-3, 2e-3)}}, "third")},
                            {"a.json", "b.json", "c.json"});
  ASSERT_EQ(raw.records.size(), 2u);
  EXPECT_EQ(measurement_key(raw.records[0].query), measurement_key(kSmall));  // the first file's order
  const Measurement& m = merged(raw, kSmall);
  EXPECT_TRUE(m.ok);
  EXPECT_EQ(m.median_s, 2e-3);                                   // not the first file's 3e-3, not their mean
  EXPECT_EQ(m.runs_s, (std::vector<double>{3e-3, 1e-3, 2e-3}));  // the files' medians, in file order
  EXPECT_EQ(median_of(m.runs_s), m.median_s);
  EXPECT_DOUBLE_EQ(m.min_s, 1e-3 - 5e-4);
  EXPECT_DOUBLE_EQ(m.max_s, 3e-3 + 1e-4);
  EXPECT_FALSE(m.verified);     // one file's was not
  EXPECT_EQ(m.warmup_runs, 4);  // the first ok file's
  EXPECT_EQ(m.gemm_kernel.tile_n, 256);
  EXPECT_EQ(m.host_launch_s, 5e-6);
  EXPECT_TRUE(m.timeline.empty());
  EXPECT_EQ(merged(raw, kGather).median_s, 8e-3);
  EXPECT_DOUBLE_EQ(merged(raw, kGather).max_s, 1e-2);
  EXPECT_TRUE(merged(raw, kGather).verified);
  // the first file's provenance, with the files named
  EXPECT_EQ(raw.provenance.device, "first");
  ASSERT_EQ(raw.provenance.notes.size(), 2u);
  EXPECT_EQ(raw.provenance.notes[1], "replay: the median over 3 processes' files: a.json, b.json, c.json");
}

TEST(ReplayMedian, OfTwoFilesTheMeanOfTheMiddleTwo) {
  const RawMeasurements raw = median_over_processes(
      {process({{kSmall, timed(1e-3)}}), process({{kSmall, timed(2e-3)}})}, {"a.json", "b.json"});
  EXPECT_DOUBLE_EQ(merged(raw, kSmall).median_s, 1.5e-3);
  EXPECT_EQ(merged(raw, kSmall).runs_s, (std::vector<double>{1e-3, 2e-3}));
}

TEST(ReplayMedian, AKeyMissingInOneFileIsTheMedianOfTheOthers) {
  const RawMeasurements raw = median_over_processes({process({{kSmall, timed(1e-3)}}),
                                                     process({{kSmall, timed(4e-3)}, {kLarge, timed(9e-3)}}),
                                                     process({{kSmall, timed(2e-3)}, {kLarge, timed(5e-3)}})},
                                                    {"a.json", "b.json", "c.json"});
  ASSERT_EQ(raw.records.size(), 2u);
  EXPECT_EQ(measurement_key(raw.records[1].query), measurement_key(kLarge));  // first seen in b.json
  EXPECT_DOUBLE_EQ(merged(raw, kLarge).median_s, 7e-3);                       // of b and c only
  EXPECT_EQ(merged(raw, kSmall).median_s, 2e-3);
}

TEST(ReplayMedian, AKeyFailedInOneFileIsTheMedianOfTheOkOnes) {
  const RawMeasurements raw =
      median_over_processes({process({{kSmall, failed("out of memory")}}), process({{kSmall, timed(3e-3)}}),
                             process({{kSmall, timed(1e-3)}})},
                            {"a.json", "b.json", "c.json"});
  const Measurement& m = merged(raw, kSmall);
  EXPECT_TRUE(m.ok);
  EXPECT_TRUE(m.error.empty());
  EXPECT_DOUBLE_EQ(m.median_s, 2e-3);
  EXPECT_EQ(m.runs_s, (std::vector<double>{3e-3, 1e-3}));
}

TEST(ReplayMedian, AKeyFailedInEveryFileKeepsTheFirstError) {
  const RawMeasurements raw = median_over_processes(
      {process({{kSmall, timed(1e-3)}}), process({{kSmall, timed(1e-3)}, {kLarge, failed("nccl timeout")}}),
       process({{kLarge, failed("out of memory")}})},
      {"a.json", "b.json", "c.json"});
  const Measurement& m = merged(raw, kLarge);
  EXPECT_FALSE(m.ok);
  EXPECT_EQ(m.error, "nccl timeout");
  // and a replay of it answers with that failure
  auto replay = make_replay_validator(raw, "a.json+b.json+c.json", {"a.json", "b.json", "c.json"});
  EXPECT_EQ(run(*replay, kLarge).error, "nccl timeout");
}

TEST(ReplayMedian, ADuplicateKeyInOneFileIsStillAConfigError) {
  try {
    median_over_processes({process({{kSmall, timed(1e-3)}}),
                           process({{kSmall, timed(1e-3)}, {kSmall, timed(2e-3)}})},
                          {"a.json", "b.json"});
    ADD_FAILURE() << "a duplicate key was merged";
  } catch (const ConfigError& e) {
    EXPECT_EQ(e.file(), "b.json");
    EXPECT_EQ(e.key(), "records[1].key");
  }
}

TEST(ReplayMedian, PeersAreThoseOfTheFirstFileWithAny) {
  RawMeasurements b = process({{kSmall, timed(1e-3)}});
  PeerRecord peer;
  peer.implementation = "torch_async_tp";
  peer.measurement = timed(1e-3);
  b.peers = {peer};
  RawMeasurements c = b;
  c.peers[0].implementation = "torch_serial";
  const RawMeasurements raw =
      median_over_processes({process({{kSmall, timed(1e-3)}}), b, c}, {"a", "b", "c"});
  ASSERT_EQ(raw.peers.size(), 1u);
  EXPECT_EQ(raw.peers[0].implementation, "torch_async_tp");
}

TEST(ReplayMedian, TheSpecSplitsOnPlus) {
  EXPECT_EQ(replay_files("a.json"), std::vector<std::string>{"a.json"});
  EXPECT_EQ(replay_files("d/a.json+b.json+c.json"),
            (std::vector<std::string>{"d/a.json", "b.json", "c.json"}));
  for (const std::string bad : {"a.json++b.json", "a.json+", "+a.json", "+"}) {
    try {
      replay_files(bad);
      ADD_FAILURE() << "no error for " << bad;
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find("replay:" + bad + ":"), std::string::npos) << e.what();
    }
  }
  EXPECT_THROW(replay_files(""), InputError);
  EXPECT_THROW(make_validator("replay:a.json++b.json", io::resolve_profile("mi300x")), InputError);
  EXPECT_THROW(median_over_processes({}, {}), InputError);
}

TEST(ReplayMedian, OneFileIsReplayedAsRecorded) {
  const test::TempDir tmp;
  const std::string path = tmp.file("one.json");
  const RawMeasurements raw = measured_on_sim();
  save_raw_measurements(path, raw);
  const RawMeasurements loaded = load_replay_files(path);
  EXPECT_EQ(raw_measurements_json(loaded), raw_measurements_json(load_raw_measurements(path)));
  const auto replay = make_validator("replay:" + path, io::resolve_profile("mi300x"));
  for (const Record& r : raw.records) expect_same(run(*replay, r.query), r.measurement);
  EXPECT_EQ(replay->capabilities().notes.size(), 1u);  // no median note
}

TEST(ReplayMedian, ThroughTheRegistryFromFiles) {
  const test::TempDir tmp;
  const std::vector<std::string> paths = {tmp.file("p1.json"), tmp.file("p2.json"), tmp.file("p3.json")};
  save_raw_measurements(paths[0], process({{kSmall, timed(5e-3)}, {kLarge, timed(1e-3)}}));
  save_raw_measurements(paths[1], process({{kSmall, timed(1e-3)}}));
  save_raw_measurements(paths[2], process({{kSmall, timed(4e-3)}, {kLarge, timed(3e-3)}}));
  const std::string arg = paths[0] + "+" + paths[1] + "+" + paths[2];
  const auto replay = make_validator("replay:" + arg, io::resolve_profile("mi300x"));
  EXPECT_EQ(run(*replay, kSmall).median_s, 4e-3);
  EXPECT_DOUBLE_EQ(run(*replay, kLarge).median_s, 2e-3);
  const std::vector<std::string> notes = replay->capabilities().notes;
  ASSERT_EQ(notes.size(), 2u);
  EXPECT_EQ(notes[1].rfind(std::string(kReplayMedianNote) + "3 files: " + paths[0] + ", ", 0), 0u)
      << notes[1];
  EXPECT_EQ(replay->capabilities().dma_variants, std::vector<std::string>{"ce_push_peer"});
  // a file that cannot be read is named
  try {
    make_validator("replay:" + paths[0] + "+" + tmp.file("absent.json"), io::resolve_profile("mi300x"));
    ADD_FAILURE() << "no error for an absent file";
  } catch (const ConfigError& e) {
    EXPECT_EQ(e.file(), tmp.file("absent.json"));
  }
}

}  // namespace
}  // namespace c3::validator
