// The "timeline" of a measurement in the raw-measurements file (Measurement::timeline): a
// dependent pair's traced runs (a GPU backend's option trace=N). It round-trips, a file
// without it is written as before, every bad field names its key path, and rounds keep it.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "c3/errors.hpp"
#include "c3/io.hpp"
#include "io/query.hpp"
#include "io/raw_measurements.hpp"
#include "measure/measure.hpp"
#include "support/dependent_pair.hpp"
#include "support/test_io_support.hpp"

namespace c3::validator {
namespace {

using Json = nlohmann::ordered_json;

RawMeasurements traced() {
  const C3Pair p = test::dependent_pair(Gemm{1024, 512, 256, DType::bf16}, Dependency::collective_feeds_gemm,
                                        CollectiveKind::all_gather);
  Measurement m = summarize_runs({2e-3, 2.1e-3}, 1, true);
  m.timeline = {{"gemm", 0, 0, -1, 0.4e-3},       {"gemm", 0, 1, -1, 1.9e-3}, {"copy", 0, 0, 1, 0.9e-3},
                {"copy", 1, 0, 0, 0.95e-3},       {"gemm", 1, 0, -1, 0.41e-3}, {"gemm", 1, 1, -1, 2.0e-3}};
  RawMeasurements raw;
  raw.provenance.backend = "cuda";
  raw.provenance.device = "NVIDIA H200 x2";
  raw.records.push_back({ConcurrentQuery{p.gemm, p.collective, parse_strategy("chunked:2:dma"), p.dependency}, m});
  raw.records.push_back({ConcurrentQuery{p.gemm, p.collective, parse_strategy("serial"), p.dependency},
                         summarize_runs({2.5e-3}, 1, true)});
  return raw;
}

TEST(RawTimeline, RoundTripsAndIsWrittenOnlyWhereTraced) {
  const RawMeasurements raw = traced();
  const std::string text = raw_measurements_json(raw);
  const RawMeasurements back = parse_raw_measurements(text, "traced.json");
  ASSERT_EQ(back.records.size(), 2u);
  EXPECT_EQ(back.records[0].measurement.timeline, raw.records[0].measurement.timeline);
  EXPECT_TRUE(back.records[1].measurement.timeline.empty());
  EXPECT_EQ(raw_measurements_json(back), text);  // written back byte for byte
  const Json doc = Json::parse(text);
  const Json& first = doc["records"][0];
  const Json& m = first.contains("measurement") ? first["measurement"] : first;
  ASSERT_TRUE(m.contains("timeline")) << first.dump();
  EXPECT_FALSE(m["timeline"][0].contains("peer"));  // only copies carry a peer
  EXPECT_EQ(m["timeline"][2]["peer"], 1);
  const Json& second = doc["records"][1];
  EXPECT_FALSE((second.contains("measurement") ? second["measurement"] : second).contains("timeline"));
}

TEST(RawTimeline, BadMarksNameTheirKeyPath) {
  const Json good = Json::parse(raw_measurements_json(traced()));
  const bool nested = good["records"][0].contains("measurement");
  const auto mark = [&](Json& d, int i) -> Json& {
    Json& rec = d["records"][0];
    return (nested ? rec["measurement"] : rec)["timeline"][static_cast<std::size_t>(i)];
  };
  const auto timeline = [&](Json& d) -> Json& {
    Json& rec = d["records"][0];
    return (nested ? rec["measurement"] : rec)["timeline"];
  };
  const std::string base = nested ? "records[0].measurement.timeline" : "records[0].timeline";
  const std::vector<test::BadJson> cases{
      {base, [&](Json& d) { timeline(d) = Json::object(); }},
      {base + "[1]", [&](Json& d) { mark(d, 1) = 3; }},
      {base + "[0].stream", [&](Json& d) { mark(d, 0)["stream"] = "disk"; }},
      {base + "[0].stream", [&](Json& d) { mark(d, 0).erase("stream"); }},
      {base + "[1].rank", [&](Json& d) { mark(d, 1)["rank"] = "0"; }},
      {base + "[1]", [&](Json& d) { mark(d, 1)["rank"] = -1; }},
      {base + "[2]", [&](Json& d) { mark(d, 2).erase("peer"); }},  // a copy without its peer
      {base + "[0]", [&](Json& d) { mark(d, 0)["peer"] = 1; }},    // a GEMM job with one
      {base + "[3].end_s", [&](Json& d) { mark(d, 3)["end_s"] = -1e-3; }},
      {base + "[3].end_s", [&](Json& d) { mark(d, 3)["end_s"] = "late"; }},
  };
  test::expect_bad_json(good, cases, [](const std::string& text, const char* origin) {
    parse_raw_measurements(text, origin);
  });
}

TEST(RawTimeline, RoundsKeepTheFirstRoundsTimeline) {
  Measurement a = summarize_runs({3.0, 1.0}, 2, true);
  a.timeline = {{"gemm", 0, 0, -1, 0.5}};
  Measurement b = summarize_runs({2.0}, 2, true);
  b.timeline = {{"gemm", 0, 0, -1, 0.7}};
  EXPECT_EQ(merge_rounds({a, b}).timeline, a.timeline);
}

}  // namespace
}  // namespace c3::validator
