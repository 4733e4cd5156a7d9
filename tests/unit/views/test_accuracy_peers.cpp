// Peers in `validate` (evaluate/peers.cpp, views/accuracy_views.cpp): a framework's own
// runs of a dependent pair (RawMeasurements::peers) attached to its scenario, summarized
// per implementation, and shown beside the pick and serial in the text and the JSON.
#include <gtest/gtest.h>

#include <cmath>
#include <nlohmann/json.hpp>

#include "c3/evaluate.hpp"
#include "c3/io.hpp"
#include "c3/views.hpp"
#include "support/dependent_pair.hpp"

namespace c3::validator {
namespace {

using Json = nlohmann::json;

C3Pair dependent(CollectiveKind kind, Dependency dependency) {
  return test::dependent_pair(Gemm{2048, 1024, 512, DType::bf16}, dependency, kind);
}

StrategyResult result(const char* label, double measured_s) {
  StrategyResult r;
  r.strategy = parse_strategy(label);
  r.measured_s = measured_s;
  r.predicted_s = measured_s;
  return r;
}

// serial then the pick, chunked:2:cu (index 1, the oracle too).
ScenarioResult scenario(const char* name, C3Pair pair, double serial_s, double pick_s) {
  ScenarioResult s;
  s.pair = std::move(pair);
  s.pair.name = name;
  s.gemm_s = serial_s / 2;
  s.collective_s = serial_s / 2;
  s.strategies = {result("serial", serial_s), result("chunked:2:cu", pick_s)};
  s.oracle = s.pick = 1;
  return s;
}

PeerRecord peer(const std::string& implementation, const C3Pair& pair, std::optional<double> time_s) {
  PeerRecord p;
  p.implementation = implementation;
  p.gemm = pair.gemm;
  p.collective = pair.collective;
  p.dependency = pair.dependency;
  if (time_s) {
    p.measurement = summarize_runs({*time_s}, 5, true);
  } else {
    p.measurement.error = "OutOfMemoryError: CUDA out of memory";
  }
  p.device = "NVIDIA H200 x2";
  p.versions = {{"torch", "2.11.0"}};
  return p;
}

class AccuracyPeers : public ::testing::Test {
 protected:
  AccuracyPeers() {
    const C3Pair ag = dependent(CollectiveKind::all_gather, Dependency::collective_feeds_gemm);
    const C3Pair rs = dependent(CollectiveKind::reduce_scatter, Dependency::gemm_feeds_collective);
    // all_gather: serial 12 ms, pick 9 ms; reduce_scatter: serial 10 ms, pick 8 ms
    report_.scenarios = {scenario("qkv", ag, 12e-3, 9e-3), scenario("down", rs, 10e-3, 8e-3)};
    report_.summary = summarize_accuracy(report_.scenarios);
    C3Pair other = ag;
    other.collective.ranks = 4;  // no scenario of this pair
    raw_.peers = {peer("torch_async_tp", ag, 10e-3), peer("torch_serial", ag, 12e-3),
                  peer("torch_async_tp", other, 1e-3), peer("torch_async_tp", rs, std::nullopt)};
  }

  std::string text() const {
    return accuracy_text(io::resolve_profile("h200x2"), "replay:peers.json", Capabilities{}, report_);
  }
  Json json() const {
    return Json::parse(
        accuracy_json(io::resolve_profile("h200x2"), "replay:peers.json", Capabilities{}, report_));
  }

  AccuracyReport report_;
  RawMeasurements raw_;
};

TEST_F(AccuracyPeers, AttachedToTheirPairAndSummarized) {
  attach_peers(report_, raw_);
  ASSERT_EQ(report_.scenarios[0].peers.size(), 2u);
  EXPECT_EQ(report_.scenarios[0].peers[0].implementation, "torch_async_tp");
  EXPECT_EQ(report_.scenarios[0].peers[1].implementation, "torch_serial");
  ASSERT_EQ(report_.scenarios[1].peers.size(), 1u);  // the failed one, never the other ranks' pair
  EXPECT_FALSE(report_.scenarios[1].peers[0].measurement.ok);
  EXPECT_EQ(measured_serial_s(report_.scenarios[1]), 10e-3);

  ASSERT_EQ(report_.peers.size(), 2u);  // in order of first appearance
  const PeerSummary& async = report_.peers[0];
  EXPECT_EQ(async.implementation, "torch_async_tp");
  EXPECT_EQ(async.scenarios, 1);  // the failed reduce_scatter run does not count
  EXPECT_NEAR(async.pick_geomean_vs_peer, 0.9, 1e-12);
  EXPECT_EQ(async.serial_scenarios, 1);
  EXPECT_NEAR(async.serial_geomean_vs_peer, 1.2, 1e-12);
  EXPECT_NEAR(report_.peers[1].pick_geomean_vs_peer, 0.75, 1e-12);

  attach_peers(report_, raw_);  // again: the same, not twice as many
  EXPECT_EQ(report_.scenarios[0].peers.size(), 2u);
  EXPECT_EQ(report_.peers.size(), 2u);
}

TEST_F(AccuracyPeers, GeometricMeanOverScenarios) {
  const C3Pair ag = dependent(CollectiveKind::all_gather, Dependency::collective_feeds_gemm);
  C3Pair ag2 = ag;
  ag2.gemm.m = 4096;
  ag2.collective.size_bytes = dependent_operand_bytes(ag2.gemm, ag2.dependency);
  report_.scenarios = {scenario("a", ag, 12e-3, 9e-3), scenario("b", ag2, 24e-3, 16e-3)};
  raw_.peers = {peer("torch_async_tp", ag, 10e-3), peer("torch_async_tp", ag2, 20e-3)};
  attach_peers(report_, raw_);
  ASSERT_EQ(report_.peers.size(), 1u);
  EXPECT_EQ(report_.peers[0].scenarios, 2);
  EXPECT_NEAR(report_.peers[0].pick_geomean_vs_peer, std::sqrt(0.9 * 0.8), 1e-12);
  EXPECT_NEAR(report_.peers[0].serial_geomean_vs_peer, std::sqrt(1.2 * 1.2), 1e-12);
}

TEST_F(AccuracyPeers, TextShowsThemBesideThePickAndSerial) {
  EXPECT_EQ(text().find("peers:"), std::string::npos);  // none attached: no section
  attach_peers(report_, raw_);
  const std::string out = text();
  const std::size_t section = out.find("\npeers:");
  ASSERT_NE(section, std::string::npos) << out;
  const std::string peers = out.substr(section);
  for (const char* want :
       {"torch_async_tp", "torch_serial", "chunked:2:cu", "0.900", "1.200", "0.750",
        "FAILED: OutOfMemoryError: CUDA out of memory",
        "pick vs torch_async_tp: geometric mean 0.900 over 1 scenarios (serial 1.200 over 1)",
        "pick vs torch_serial: geometric mean 0.750 over 1 scenarios (serial 1.000 over 1)"})
    EXPECT_NE(peers.find(want), std::string::npos) << want << "\n" << peers;
}

TEST_F(AccuracyPeers, JsonHasThemPerScenarioAndSummarized) {
  Json doc = json();
  EXPECT_FALSE(doc.contains("peers"));
  EXPECT_FALSE(doc["scenarios"][0].contains("peers"));
  attach_peers(report_, raw_);
  doc = json();
  const Json& first = doc["scenarios"][0]["peers"];
  ASSERT_EQ(first.size(), 2u);
  EXPECT_EQ(first[0]["implementation"], "torch_async_tp");
  EXPECT_EQ(first[0]["ok"], true);
  EXPECT_NEAR(first[0]["measured_s"].get<double>(), 10e-3, 1e-15);
  EXPECT_NEAR(first[0]["pick_vs_peer"].get<double>(), 0.9, 1e-12);
  EXPECT_NEAR(first[0]["serial_vs_peer"].get<double>(), 1.2, 1e-12);
  EXPECT_EQ(first[0]["versions"]["torch"], "2.11.0");
  const Json& failed = doc["scenarios"][1]["peers"][0];
  EXPECT_EQ(failed["ok"], false);
  EXPECT_TRUE(failed["measured_s"].is_null());
  EXPECT_TRUE(failed["pick_vs_peer"].is_null());
  EXPECT_EQ(failed["error"], "OutOfMemoryError: CUDA out of memory");
  ASSERT_EQ(doc["peers"].size(), 2u);
  EXPECT_EQ(doc["peers"][0]["implementation"], "torch_async_tp");
  EXPECT_NEAR(doc["peers"][0]["pick_geomean_vs_peer"].get<double>(), 0.9, 1e-12);
}

// Notes in the text: a note that several scenarios share is printed once, with how many and
// the first three names; a scenario's own note keeps its own line. The JSON keeps each.
TEST(AccuracyNotes, SharedNotesArePrintedOnceWithTheirCount) {
  AccuracyReport report;
  const C3Pair ag = dependent(CollectiveKind::all_gather, Dependency::collective_feeds_gemm);
  for (const char* name : {"a", "b", "c", "d", "e"}) {
    ScenarioResult s = scenario(name, ag, 12e-3, 9e-3);
    s.notes = {"launch_order not scored: shared"};
    report.scenarios.push_back(s);
  }
  report.scenarios[1].notes.push_back("chunked:16:cu was not measured; not scored");
  report.scenarios[3].notes.push_back("chunked:16:cu was not measured; not scored");
  report.scenarios[4].notes.push_back("its own note");
  report.summary = summarize_accuracy(report.scenarios);
  const std::string text =
      accuracy_text(io::resolve_profile("h200x2"), "replay:x.json", Capabilities{}, report);
  const std::string notes = text.substr(text.find("\nnotes\n"));
  EXPECT_EQ(notes,
            "\nnotes\n"
            "  5 scenarios (a (all_gather), b (all_gather), c (all_gather) and 2 more): launch_order not "
            "scored: shared\n"
            "  2 scenarios (b (all_gather), d (all_gather)): chunked:16:cu was not measured; not scored\n"
            "  e (all_gather): its own note\n");
  const Json doc =
      Json::parse(accuracy_json(io::resolve_profile("h200x2"), "replay:x.json", Capabilities{}, report));
  EXPECT_EQ(doc["scenarios"][4]["notes"].size(), 2u);
}

TEST(AccuracyNotes, NoNotesNoSection) {
  AccuracyReport report;
  report.scenarios = {
      scenario("a", dependent(CollectiveKind::all_gather, Dependency::collective_feeds_gemm), 12e-3, 9e-3)};
  report.summary = summarize_accuracy(report.scenarios);
  const std::string text =
      accuracy_text(io::resolve_profile("h200x2"), "replay:x.json", Capabilities{}, report);
  EXPECT_EQ(text.find("\nnotes\n"), std::string::npos);
}

}  // namespace
}  // namespace c3::validator
