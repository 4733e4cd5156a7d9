// The "peers" of the raw-measurements file (c3/measurements.hpp): a framework's own runs
// of dependent pairs, written by scripts/gpu-jobs/async_tp.py beside c3advisor's records.
// They round-trip, every bad field names its key path, and `measure --resume` keeps them.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "c3/errors.hpp"
#include "c3/io.hpp"
#include "io/query.hpp"
#include "io/raw_measurements.hpp"
#include "measure/measure.hpp"
#include "support/temp_dir.hpp"
#include "support/test_io_support.hpp"

namespace c3::validator {
namespace {

using Json = nlohmann::ordered_json;

C3Pair dependent(Dependency dependency) {
  C3Pair p;
  p.gemm = Gemm{1024, 512, 256, DType::bf16};
  p.dependency = dependency;
  const CollectiveKind kind = dependency == Dependency::collective_feeds_gemm
                                  ? CollectiveKind::all_gather
                                  : CollectiveKind::reduce_scatter;
  p.collective = {kind, dependent_operand_bytes(p.gemm, dependency), 2};
  return p;
}

PeerRecord peer(const std::string& implementation, const C3Pair& pair, Measurement m) {
  PeerRecord p;
  p.implementation = implementation;
  p.gemm = pair.gemm;
  p.collective = pair.collective;
  p.dependency = pair.dependency;
  p.measurement = std::move(m);
  p.device = "NVIDIA H200 x2";
  p.versions = {{"torch", "2.11.0"}, {"nccl", "2.28.9"}, {"cuda", "13.0"}};
  return p;
}

Measurement failed(const std::string& error) {
  Measurement m;
  m.error = error;
  m.warmup_runs = 5;
  return m;
}

RawMeasurements with_peers() {
  const C3Pair ag = dependent(Dependency::collective_feeds_gemm);
  const C3Pair rs = dependent(Dependency::gemm_feeds_collective);
  RawMeasurements raw;
  raw.provenance.backend = "cuda";
  raw.provenance.device = "NVIDIA H200 x2";
  raw.records.push_back({ConcurrentQuery{ag.gemm, ag.collective, parse_strategy("serial"), ag.dependency},
                         summarize_runs({2e-3, 2.1e-3}, 1, true)});
  raw.peers.push_back(peer("torch_serial", ag, summarize_runs({2.2e-3, 2.0e-3, 2.1e-3}, 5, true)));
  raw.peers.push_back(peer("torch_async_tp", ag, summarize_runs({2.4e-3, 2.3e-3, 2.5e-3}, 5, true)));
  raw.peers.push_back(peer("torch_async_tp", rs, failed("OutOfMemoryError: CUDA out of memory")));
  return raw;
}

void expect_same(const PeerRecord& a, const PeerRecord& b) {
  EXPECT_EQ(a.implementation, b.implementation);
  EXPECT_EQ(a.gemm, b.gemm);
  EXPECT_EQ(a.collective, b.collective);
  EXPECT_EQ(a.dependency, b.dependency);
  EXPECT_EQ(a.measurement.ok, b.measurement.ok);
  EXPECT_EQ(a.measurement.error, b.measurement.error);
  EXPECT_EQ(a.measurement.median_s, b.measurement.median_s);
  EXPECT_EQ(a.measurement.min_s, b.measurement.min_s);
  EXPECT_EQ(a.measurement.max_s, b.measurement.max_s);
  EXPECT_EQ(a.measurement.runs_s, b.measurement.runs_s);
  EXPECT_EQ(a.measurement.warmup_runs, b.measurement.warmup_runs);
  EXPECT_EQ(a.measurement.verified, b.measurement.verified);
  EXPECT_EQ(a.device, b.device);
  EXPECT_EQ(a.versions, b.versions);
}

TEST(RawPeers, RoundTripInOrder) {
  const RawMeasurements raw = with_peers();
  const std::string text = raw_measurements_json(raw);
  const RawMeasurements back = parse_raw_measurements(text, "peers.json");
  ASSERT_EQ(back.peers.size(), raw.peers.size());
  for (std::size_t i = 0; i < raw.peers.size(); ++i) expect_same(back.peers[i], raw.peers[i]);
  EXPECT_EQ(back.records.size(), 1u);
  EXPECT_EQ(raw_measurements_json(back), text);  // written back byte for byte
  EXPECT_EQ(Json::parse(text)["peers"][0]["dependency"], "collective_feeds_gemm");
}

TEST(RawPeers, AFileWithoutPeersIsWrittenAsBefore) {
  RawMeasurements raw = with_peers();
  raw.peers.clear();
  const std::string text = raw_measurements_json(raw);
  EXPECT_FALSE(Json::parse(text).contains("peers"));
  EXPECT_TRUE(parse_raw_measurements(text, "none.json").peers.empty());
}

TEST(RawPeers, PeerOfMatchesGemmCollectiveAndDependency) {
  const C3Pair ag = dependent(Dependency::collective_feeds_gemm);
  const PeerRecord p = peer("torch_async_tp", ag, summarize_runs({1e-3}, 0, true));
  C3Pair named = ag;
  named.name = "any name";
  EXPECT_TRUE(peer_of(p, named));
  C3Pair independent = ag;
  independent.dependency = Dependency::none;
  EXPECT_FALSE(peer_of(p, independent));
  C3Pair other = ag;
  other.collective.ranks = 4;
  EXPECT_FALSE(peer_of(p, other));
}

TEST(RawPeers, BadEntriesNameTheirKeyPath) {
  const Json good = Json::parse(raw_measurements_json(with_peers()));
  const std::vector<test::BadJson> cases{
      {"peers", [](Json& d) { d["peers"] = Json::object(); }},
      {"peers[1]", [](Json& d) { d["peers"][1] = 3; }},
      {"peers[0].implementation", [](Json& d) { d["peers"][0]["implementation"] = ""; }},
      {"peers[0].implementation", [](Json& d) { d["peers"][0]["implementation"] = "torch async"; }},
      {"peers[2].implementation", [](Json& d) { d["peers"][2].erase("implementation"); }},
      {"peers[0].m", [](Json& d) { d["peers"][0]["m"] = "1024"; }},
      {"peers[0].dtype", [](Json& d) { d["peers"][0]["dtype"] = "bf17"; }},
      {"peers[1].kind", [](Json& d) { d["peers"][1]["kind"] = "gather"; }},
      {"peers[0].dependency", [](Json& d) { d["peers"][0]["dependency"] = "none"; }},
      {"peers[0].dependency", [](Json& d) { d["peers"][0]["dependency"] = "sideways"; }},
      // the all_gather must move the GEMM's A (m x k x 2 bytes)
      {"peers[0].dependency", [](Json& d) { d["peers"][0]["size_bytes"] = 4096; }},
      {"peers[2].dependency", [](Json& d) { d["peers"][2]["kind"] = "all_gather"; }},
      {"peers[1].median_s", [](Json& d) { d["peers"][1]["median_s"] = 0.0; }},
      {"peers[1].runs_s[1]", [](Json& d) { d["peers"][1]["runs_s"][1] = "fast"; }},
      {"peers[2].ok", [](Json& d) { d["peers"][2].erase("ok"); }},
      {"peers[0].device", [](Json& d) { d["peers"][0]["device"] = 2; }},
      {"peers[0].versions", [](Json& d) { d["peers"][0]["versions"] = Json::array(); }},
      {"peers[0].versions.torch", [](Json& d) { d["peers"][0]["versions"]["torch"] = 2.11; }},
      // the same implementation of the same pair twice
      {"peers[2]", [](Json& d) { d["peers"][2] = d["peers"][1]; }},
  };
  test::expect_bad_json(good, cases, [](const std::string& text, const char* origin) {
    parse_raw_measurements(text, origin);
  });
}

// `measure --resume` rewrites the file after each new record: the peers stay, in order.
TEST(RawPeers, ResumingAMeasurementKeepsThem) {
  const test::TempDir tmp;
  const std::string path = tmp.file("dependent.json");
  const HardwareProfile hw = io::resolve_profile("mi300x");
  auto sim = make_validator("sim", hw);
  const std::vector<C3Pair> pairs{dependent(Dependency::collective_feeds_gemm)};
  MeasureOptions options;
  options.parameters["rp"] = {16};
  options.parameters["dma_rp"] = {8};
  options.parameters["chunked"] = {2};
  options.raw_path = path;
  RawMeasurements first = measure(*sim, pairs, options, nullptr);
  // a partial file (the last record lost) with the peers of a framework added to it
  first.records.pop_back();
  const RawMeasurements peers = with_peers();
  first.peers = peers.peers;
  save_raw_measurements(path, first);

  options.resume = true;
  const RawMeasurements resumed = measure(*sim, pairs, options, nullptr);
  EXPECT_EQ(resumed.records.size(), first.records.size() + 1);
  const RawMeasurements saved = load_raw_measurements(path);
  ASSERT_EQ(saved.peers.size(), peers.peers.size());
  for (std::size_t i = 0; i < saved.peers.size(); ++i) expect_same(saved.peers[i], peers.peers[i]);

  // without --resume the file is refused (its measurements would be lost), and left as it was
  options.resume = false;
  EXPECT_THROW(measure(*sim, pairs, options, nullptr), InputError);
  EXPECT_EQ(load_raw_measurements(path).peers.size(), peers.peers.size());
  // with --overwrite it is measured afresh: nothing of the old one is kept
  options.overwrite = true;
  EXPECT_TRUE(measure(*sim, pairs, options, nullptr).peers.empty());
  EXPECT_TRUE(load_raw_measurements(path).peers.empty());
}

}  // namespace
}  // namespace c3::validator
