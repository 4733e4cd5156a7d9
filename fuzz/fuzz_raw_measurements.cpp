// fuzz_raw_measurements: c3::validator::parse_raw_measurements (validator/
// raw_measurements.hpp, an internal header: the reader is not public API) on arbitrary
// text. A file that parses must (1) hold finite, non-negative times in every successful
// measurement (median, min, max, runs), (2) be written by raw_measurements_json as JSON
// that reads back to the same file, and (3) be answered by the replay backend built
// from it (or refused with a typed error), each record's query giving back its own
// measurement. The same text is also read as a sustained-GEMM file (calibrate --sustained):
// what parses must fit into a table a profile accepts (x > 0 and increasing, y finite and
// >= 1) or into none. Seeds: slices of data/measurements/*.json written by
// `fuzz_raw_measurements --c3-make-seeds=DIR`, and fuzz/corpus/raw_measurements.
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <set>
#include <string>

#include "c3/io.hpp"
#include "fuzz_support.hpp"
#include "raw_seeds.hpp"
#include "seeds.hpp"
#include "c3/measurements.hpp"
#include "backends/replay/replay.hpp"
#include "calibrate/sustained_fit.hpp"

namespace {

using namespace c3;
using namespace c3::fuzz;
using namespace c3::validator;

constexpr std::size_t kMaxReplayed = 64;

void check_measurement(const Measurement& m, const std::string& key) {
  if (!m.ok) return;
  check_time(m.median_s, (key + ": median_s").c_str());
  check_time(m.min_s, (key + ": min_s").c_str(), false);
  check_time(m.max_s, (key + ": max_s").c_str(), false);
  for (double r : m.runs_s) check_time(r, (key + ": runs_s[]").c_str(), false);
}

void check_sustained(std::string_view text) {
  SustainedFile file;
  if (!typed("parse_sustained", [&] { file = parse_sustained(text, "fuzz.json"); })) return;
  std::vector<std::string> notes;
  Table t;
  no_throw("fit_sustained_slowdown", [&] { t = fit_sustained_slowdown(file, {}, notes); });
  C3_FUZZ_CHECK(t.x.size() == t.y.size() && t.x.size() != 1, "sustained table of %zu x and %zu y", t.x.size(),
                t.y.size());
  for (std::size_t i = 0; i < t.x.size(); ++i) {
    C3_FUZZ_CHECK(std::isfinite(t.x[i]) && t.x[i] > 0 && (i == 0 || t.x[i] > t.x[i - 1]),
                  "sustained x[%zu] = %g", i, t.x[i]);
    C3_FUZZ_CHECK(std::isfinite(t.y[i]) && t.y[i] >= 1, "sustained y[%zu] = %g", i, t.y[i]);
  }
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int* argc, char*** argv) {
  make_seeds_if_asked(*argc, *argv, [](const std::string& dir) { write_raw_seeds(dir); });
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  check_sustained(as_text(data, size));
  RawMeasurements raw;
  if (!typed("parse_raw_measurements", [&] { raw = parse_raw_measurements(as_text(data, size), "fuzz.json"); }))
    return 0;
  for (const Record& r : raw.records) check_measurement(r.measurement, measurement_key(r.query));

  // Written and read back: the same document.
  std::string json;
  no_throw("raw_measurements_json", [&] { json = raw_measurements_json(raw); });
  RawMeasurements back;
  try {
    back = parse_raw_measurements(json, "raw_measurements_json");
  } catch (const std::exception& e) {
    finding("parse_raw_measurements(raw_measurements_json(raw)) failed: %s", e.what());
  }
  C3_FUZZ_CHECK(back.provenance == raw.provenance, "provenance does not read back the same");
  std::string again;
  no_throw("raw_measurements_json(back)", [&] { again = raw_measurements_json(back); });
  C3_FUZZ_CHECK(again == json, "raw_measurements_json does not read back the same");

  // The replay backend answers each record's query with the record.
  std::unique_ptr<Validator> replay;
  if (!typed("make_replay_validator", [&] { replay = make_replay_validator(raw, "fuzz.json"); }))
    return 0;
  for (std::size_t i = 0; i < raw.records.size() && i < kMaxReplayed; ++i) {
    const Record& r = raw.records[i];
    Measurement m;
    // The backend's argument checks (Validator's NVI) may refuse a record's query.
    if (!typed("replay run", [&] { m = run(*replay, r.query); })) continue;
    C3_FUZZ_CHECK(m.ok == r.measurement.ok && (!m.ok || m.median_s == r.measurement.median_s),
                  "replay of '%s' gave another measurement", measurement_key(r.query).c_str());
  }
  return 0;
}
