// A key given twice in one JSON object is an error in every JSON file c3advisor reads
// (io/json_document.hpp's parse_strict): nlohmann would keep the last value silently.
// The error names the file and the key's path in the readers' spelling.
#include <gtest/gtest.h>

#include <fstream>
#include <string>

#include "c3/errors.hpp"
#include "c3/io.hpp"
#include "c3/measurements.hpp"
#include "c3/validator.hpp"
#include "io/json_document.hpp"
#include "io/raw_measurements.hpp"
#include "support/temp_dir.hpp"

namespace c3::validator {
namespace {

ConfigError strict_error(const std::string& text) {
  try {
    json::parse_strict(json::Reader("dup.json"), text);
  } catch (const ConfigError& e) {
    return e;
  }
  ADD_FAILURE() << "no error for " << text;
  return ConfigError("", 0, "", "");
}

TEST(JsonDuplicates, NamesTheKeyPath) {
  const struct {
    std::string text;
    std::string key;
  } cases[] = {
      {R"({"a": 1, "a": 2})", "a"},
      {R"({"a": {"b": 1, "c": 2, "b": 3}})", "a.b"},
      {R"({"records": [{"m": 1}, {"gemm": {"m": 1, "n": 2, "m": 3}}]})", "records[1].gemm.m"},
      // elements of every kind before it count: a scalar, an array, an object
      {R"({"r": [1, [2, 3], {"x": 1}, {"x": 1, "x": 1}]})", "r[3].x"},
      {R"([[{"a": 1}], [{}, {"b": 1, "b": 1}]])", "[1][1].b"},
      {R"({"a": {"x": [1, {"y": 2}]}, "b": 1, "a": 3})", "a"},
  };
  for (const auto& c : cases) {
    const ConfigError e = strict_error(c.text);
    EXPECT_EQ(e.file(), "dup.json") << c.text;
    EXPECT_EQ(e.key(), c.key) << c.text;
    EXPECT_EQ(e.message(), "duplicate key") << c.text;
  }
}

TEST(JsonDuplicates, TheSameKeyInOtherObjectsIsFine) {
  const std::string text = R"({"a": {"a": 1, "b": {"a": 2}}, "b": [{"a": 1}, {"a": 2}], "c": {"a": 3}})";
  const json::Json doc = json::parse_strict(json::Reader("ok.json"), text);
  EXPECT_EQ(doc, json::Json::parse(text));
  EXPECT_EQ(doc["b"][1]["a"], 2);
}

TEST(JsonDuplicates, InvalidJsonIsStillNlohmannsError) {
  EXPECT_THROW(json::parse_strict(json::Reader("bad.json"), "{\"a\": "), json::Json::parse_error);
}

TEST(JsonDuplicates, RawMeasurementsRefuseThem) {
  RawMeasurements raw;
  raw.provenance.backend = "sim";
  raw.records.push_back(
      {GemmQuery{Gemm{1024, 512, 256, DType::bf16}, 0}, summarize_runs({1e-3, 2e-3}, 1, true)});
  std::string text = raw_measurements_json(raw);
  const std::string warmup = "\"warmup_runs\": 1";
  const std::size_t at = text.find(warmup);
  ASSERT_NE(at, std::string::npos) << text;
  text.insert(at + warmup.size(), ", \"warmup_runs\": 5");
  try {
    parse_raw_measurements(text, "raw.json");
    ADD_FAILURE() << "a duplicate warmup_runs was read";
  } catch (const ConfigError& e) {
    EXPECT_EQ(e.file(), "raw.json");
    EXPECT_EQ(e.key(), "records[0].warmup_runs") << e.what();
    EXPECT_EQ(e.message(), "duplicate key");
  }
}

TEST(JsonDuplicates, BenchAndSustainedFilesRefuseThem) {
  const std::string text = R"({"schema_version": 1, "type": "x", "schema_version": 1})";
  for (const auto& parse : {+[](const std::string& t) { parse_bench(t, "f.json"); },
                            +[](const std::string& t) { parse_sustained(t, "f.json"); }}) {
    try {
      parse(text);
      ADD_FAILURE() << "a duplicate schema_version was read";
    } catch (const ConfigError& e) {
      EXPECT_EQ(e.key(), "schema_version") << e.what();
      EXPECT_EQ(e.message(), "duplicate key");
    }
  }
}

void write(const std::string& path, const std::string& text) { std::ofstream(path) << text; }

TEST(JsonDuplicates, GateFileRefusesThem) {
  const test::TempDir tmp;
  const std::string path = tmp.file("gate.json");
  write(
      path,
      R"({"schema_version": 1, "checks": {"a": {"thresholds": []}, "a": {"thresholds": [{"metric": "x", "at_least": 1}]}}})");
  try {
    io::load_gate_check(path, "a", [](const std::string&) { return true; });
    ADD_FAILURE() << "a duplicate check was read";
  } catch (const ConfigError& e) {
    EXPECT_EQ(e.file(), path);
    EXPECT_EQ(e.key(), "checks.a") << e.what();
    EXPECT_EQ(e.message(), "duplicate key");
  }
}

TEST(JsonDuplicates, ValidationDocumentRefusesThem) {
  const test::TempDir tmp;
  const std::string path = tmp.file("validate.json");
  write(path, R"({"summary": {}, "scenarios": [{"strategies": [{"name": "sp", "name": "dma"}]}]})");
  try {
    io::load_validation_document(path);
    ADD_FAILURE() << "a duplicate name was read";
  } catch (const ConfigError& e) {
    EXPECT_EQ(e.file(), path);
    EXPECT_EQ(e.key(), "scenarios[0].strategies[0].name") << e.what();
    EXPECT_EQ(e.message(), "duplicate key");
  }
}

}  // namespace
}  // namespace c3::validator
