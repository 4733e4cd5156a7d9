// The accuracy gate file (c3/io.hpp, data/accuracy-gate.json): io::load_gate_check reads a
// whole check (thresholds, split, scenario count) at once, and names the key of a bad one.
#include <gtest/gtest.h>

#include <fstream>
#include <iterator>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "c3/errors.hpp"
#include "c3/io.hpp"
#include "support/temp_dir.hpp"
#include "support/test_io_support.hpp"

namespace c3 {
namespace {

using test::config_error;

// "accuracy" is better higher, "error" lower; anything else is not a metric.
const io::MetricDirection kDirection = [](const std::string& metric) {
  if (metric == "accuracy") return true;
  if (metric == "error") return false;
  throw InputError("unknown accuracy metric '" + metric + "'");
};

class GateFile : public ::testing::Test {
 protected:
  std::string write(const std::string& text) {
    std::ofstream(path_) << text;
    return path_;
  }
  test::TempDir tmp_;
  std::string path_ = tmp_.file("gate.json");
};

TEST_F(GateFile, ReadsTheWholeCheck) {
  const std::string path = write(R"({"schema_version": 1, "checks": {
    "other": {"thresholds": []},
    "bound": {"command": "c3advisor validate ...", "scenarios": 48, "split": "test", "thresholds": [
      {"metric": "accuracy", "at_least": 0.75, "reached": 0.8, "tolerance": 0.05},
      {"metric": "error", "at_most": 0.1}]}}})");
  const io::GateCheck check = io::load_gate_check(path, "bound", kDirection);
  EXPECT_EQ(check.split, "test");
  EXPECT_EQ(check.scenarios, 48);
  ASSERT_EQ(check.thresholds.size(), 2u);
  EXPECT_EQ(check.thresholds[0].metric, "accuracy");
  EXPECT_EQ(check.thresholds[0].limit, 0.75);
  EXPECT_EQ(check.thresholds[0].tolerance, 0.05);
  EXPECT_EQ(check.thresholds[1].metric, "error");
  EXPECT_EQ(check.thresholds[1].limit, 0.1);
  EXPECT_EQ(check.thresholds[1].tolerance, 0);
  EXPECT_TRUE(check.command.empty());
  EXPECT_TRUE(check.reached.empty());

  const io::GateCheck other = io::load_gate_check(path, "other", kDirection);
  EXPECT_EQ(other.split, "");
  EXPECT_EQ(other.scenarios, 0);
  EXPECT_TRUE(other.thresholds.empty());
}

TEST_F(GateFile, ReadsBackWhatItSaves) {
  io::GateCheck saved;
  saved.command = "c3advisor validate --gate gate.json";
  saved.split = "train";
  saved.scenarios = 30;
  saved.thresholds = {{"accuracy", 0.7, 0.03}, {"error", 0.2, 0.01}};
  saved.reached = {0.73, 0.19};
  io::save_gate_check(path_, "c", saved, kDirection);
  const io::GateCheck back = io::load_gate_check(path_, "c", kDirection);
  EXPECT_EQ(back.split, saved.split);
  EXPECT_EQ(back.scenarios, saved.scenarios);
  ASSERT_EQ(back.thresholds.size(), 2u);
  for (std::size_t i = 0; i < 2; ++i) {
    EXPECT_EQ(back.thresholds[i].metric, saved.thresholds[i].metric);
    EXPECT_EQ(back.thresholds[i].limit, saved.thresholds[i].limit);
    EXPECT_EQ(back.thresholds[i].tolerance, saved.thresholds[i].tolerance);
  }
}

TEST_F(GateFile, NamesTheKeyOfABadCheck) {
  const struct {
    std::string check;
    std::string key;
    std::string message;
  } cases[] = {
      {R"({"scenarios": 0, "thresholds": []})", "checks.c.scenarios", "must be a positive integer"},
      {R"({"scenarios": 2.5, "thresholds": []})", "checks.c.scenarios", "must be a positive integer"},
      {R"({"split": 1, "thresholds": []})", "checks.c.split", "not a string"},
      {R"({"split": "test"})", "checks.c.thresholds", "missing, or not a list"},
      {R"({"thresholds": [{"metric": "speed", "at_least": 1}]})", "checks.c.thresholds[0].metric",
       "unknown accuracy metric 'speed'"},
      {R"({"thresholds": [{"metric": "error", "at_least": 1}]})", "checks.c.thresholds[0].at_most",
       "missing, or not a number (error needs at_most)"},
      {R"({"thresholds": [{"metric": "error", "at_most": 1, "tolerance": -1}]})",
       "checks.c.thresholds[0].tolerance", "must be a number >= 0"},
      // the thresholds are checked first, as when each part was read on its own
      {R"({"split": 1, "thresholds": [{"metric": "speed", "at_least": 1}]})", "checks.c.thresholds[0].metric",
       "unknown accuracy metric 'speed'"},
  };
  for (const auto& c : cases) {
    const std::string path = write(R"({"schema_version": 1, "checks": {"c": )" + c.check + "}}");
    const ConfigError e = config_error([&] { io::load_gate_check(path, "c", kDirection); });
    EXPECT_EQ(e.file(), path);
    EXPECT_EQ(e.key(), c.key) << c.check;
    EXPECT_EQ(e.message(), c.message) << c.check;
  }
}

TEST_F(GateFile, NamesTheChecksItHas) {
  const std::string path =
      write(R"({"schema_version": 1, "checks": {"a": {"thresholds": []}, "b": {"thresholds": []}}})");
  const ConfigError e = config_error([&] { io::load_gate_check(path, "nope", kDirection); });
  EXPECT_EQ(e.key(), "checks");
  EXPECT_EQ(e.message(), "no check named 'nope' (it has: a, b); choose one with --gate-check");
}

TEST_F(GateFile, RefusesAMissingOrOtherSchemaVersion) {
  const std::string hint = "; a gate file written before 2026-11-29 has none: add \"schema_version\": 1";
  for (const auto& [doc, why] : std::vector<std::pair<std::string, std::string>>{
           {R"({"checks": {"a": {"thresholds": []}}})", "missing"},
           {R"({"schema_version": 2, "checks": {"a": {"thresholds": []}}})",
            "unsupported (this build reads 1)"},
           {R"({"schema_version": "1", "checks": {"a": {"thresholds": []}}})", "must be an integer"}}) {
    const std::string path = write(doc);
    const ConfigError e = config_error([&] { io::load_gate_check(path, "a", kDirection); });
    EXPECT_EQ(e.key(), "schema_version") << doc;
    EXPECT_EQ(e.message(), why + hint) << doc;
  }
}

TEST_F(GateFile, RefusesTextThatIsNotJsonOrNotAnObject) {
  const ConfigError text =
      config_error([&] { io::load_gate_check(write("not a gate file\n"), "a", kDirection); });
  EXPECT_EQ(text.key(), "");
  EXPECT_EQ(text.message().rfind("not valid JSON: ", 0), 0u) << text.message();
  const ConfigError list = config_error([&] { io::load_gate_check(write("[1, 2]"), "a", kDirection); });
  EXPECT_EQ(list.key(), "");
  EXPECT_EQ(list.message(), "must be an object");
}

TEST_F(GateFile, FindsACheckOrNothing) {
  EXPECT_FALSE(io::find_gate_check(path_, "a", kDirection).has_value());  // no file yet
  const std::string path = write(R"({"schema_version": 1, "checks": {"a": {"scenarios": 3, "thresholds": [
      {"metric": "accuracy", "at_least": 0.5}]}}})");
  const std::optional<io::GateCheck> a = io::find_gate_check(path, "a", kDirection);
  ASSERT_TRUE(a.has_value());
  EXPECT_EQ(a->scenarios, 3);
  ASSERT_EQ(a->thresholds.size(), 1u);
  EXPECT_EQ(a->thresholds[0].limit, 0.5);
  EXPECT_FALSE(io::find_gate_check(path, "b", kDirection).has_value());
  // A file that is there but no gate file, or a bad check, is an error, as for load_gate_check.
  write(R"({"checks": {"a": {"thresholds": []}}})");
  EXPECT_EQ(config_error([&] { io::find_gate_check(path, "a", kDirection); }).key(), "schema_version");
  write(R"({"schema_version": 1, "checks": {"a": {"thresholds": [{"metric": "speed"}]}}})");
  EXPECT_EQ(config_error([&] { io::find_gate_check(path, "a", kDirection); }).key(),
            "checks.a.thresholds[0].metric");
}

TEST_F(GateFile, UpdatesACheckFromWhatItWas) {
  // No file: make sees nothing, the check is new and written.
  std::vector<bool> seen;
  const auto make = [&](double limit) {
    return [&seen, limit](const std::optional<io::GateCheck>& earlier) {
      seen.push_back(earlier.has_value());
      io::GateCheck c;
      c.scenarios = 4;
      c.thresholds = {{"accuracy", limit, earlier ? earlier->thresholds[0].tolerance : 0.02}};
      c.reached = {limit + 0.02};
      return c;
    };
  };
  EXPECT_TRUE(io::update_gate_check(path_, "a", kDirection, make(0.6)));
  EXPECT_FALSE(io::update_gate_check(path_, "a", kDirection, make(0.7)));  // the same check again
  EXPECT_TRUE(io::update_gate_check(path_, "b", kDirection, make(0.5)));   // another beside it
  EXPECT_EQ(seen, (std::vector<bool>{false, true, false}));
  EXPECT_EQ(io::load_gate_check(path_, "a", kDirection).thresholds[0].limit, 0.7);
  EXPECT_EQ(io::load_gate_check(path_, "b", kDirection).thresholds[0].limit, 0.5);
  // What make throws leaves the file as it was; a file that is no gate file is not rewritten.
  EXPECT_THROW(io::update_gate_check(path_, "a", kDirection,
                                     [](const std::optional<io::GateCheck>&) -> io::GateCheck {
                                       throw InputError("no");
                                     }),
               InputError);
  EXPECT_EQ(io::load_gate_check(path_, "a", kDirection).thresholds[0].limit, 0.7);
  write("[1]");
  EXPECT_THROW(io::update_gate_check(path_, "a", kDirection, make(0.1)), ConfigError);
  EXPECT_EQ(seen.size(), 3u);
  std::ifstream left(path_);
  EXPECT_EQ(std::string(std::istreambuf_iterator<char>(left), {}), "[1]");
}

}  // namespace
}  // namespace c3
