// c3/views.hpp: every result for people and programs: text tables, JSON documents
// (schemas in docs/cli.md and docs/accuracy.md), CSV and SVG charts. Views only format
// what they are given; nothing here prints, reads or writes files. Times are in seconds,
// sizes in bytes; a view throws only for inconsistent input (InputError).
#pragma once

#include <string>
#include <vector>

#include "c3/advisor.hpp"
#include "c3/evaluate.hpp"
#include "c3/io.hpp"
#include "c3/measure.hpp"
#include "c3/measurements.hpp"
#include "c3/profile.hpp"
#include "c3/types.hpp"
#include "c3/validator.hpp"

namespace c3::io {

// ---- advice, sweeps, plans, profiles ----

/// A named heuristic's pick for a pair (Advisor::heuristic).
struct HeuristicPick {
  std::string name;
  Strategy strategy;
};
/// The pick of every heuristic of heuristic_names() for `pair`.
std::vector<HeuristicPick> heuristic_picks(const Advisor& advisor, const C3Pair& pair);

/// One `advise` document (schema in docs/cli.md); `heuristics` fills its
/// "heuristics" object (empty when none are given).
std::string advice_json(const HardwareProfile& hw, const Advice& advice,
                        const std::vector<HeuristicPick>& heuristics = {});
/// Human-readable advice; lists `heuristics` when given.
std::string advice_text(const HardwareProfile& hw, const Advice& advice,
                        const std::vector<HeuristicPick>& heuristics = {});

/// A sweep over many pairs: per scenario and averages by collective and taxonomy.
std::string sweep_json(const HardwareProfile& hw, const std::vector<Advice>& advice);
std::string sweep_csv(const HardwareProfile& hw, const std::vector<Advice>& advice);
std::string sweep_text(const HardwareProfile& hw, const std::vector<Advice>& advice);

std::string plan_json(const HardwareProfile& hw, const Trace& trace, const Plan& plan);
std::string plan_text(const HardwareProfile& hw, const Trace& trace, const Plan& plan);

std::string profiles_json(const std::vector<HardwareProfile>& profiles);
std::string profiles_text(const std::vector<HardwareProfile>& profiles);

}  // namespace c3::io

namespace c3::validator {

// ---- accuracy (`validate`) ----

/// The report of `validate`: per scenario (oracle, pick, loss, prediction error, fraction
/// of ideal), the summary, the fractions of ideal by collective and overlap class, skipped
/// scenarios and notes. `backend_spec` is what was asked ("replay:FILE"), `caps` the
/// backend that answered.
std::string accuracy_text(const HardwareProfile& hw, const std::string& backend_spec,
                          const Capabilities& caps, const AccuracyReport& report);
/// The same as a JSON document (schema in docs/accuracy.md), read back by
/// io::load_validation_document.
std::string accuracy_json(const HardwareProfile& hw, const std::string& backend_spec,
                          const Capabilities& caps, const AccuracyReport& report);

// ---- charts (`report`) ----

/// One SVG chart and the file name it is meant for.
struct ChartFile {
  std::string file;  ///< "fraction_of_ideal_by_collective.svg", ...
  std::string title;
  std::vector<std::string> series;  ///< legend entries, in order
  std::string svg;
  std::string csv;  ///< the chart's data, meant for `file` with ".csv" for ".svg"
};
/// From a validate document: fraction of ideal per strategy family by collective and by
/// overlap class (with the ConCCL paper's MI300X figures as marks), and predicted vs
/// measured time of every predicted strategy.
std::vector<ChartFile> accuracy_charts(const io::ValidationDocument& doc);
/// From calibration measurements (`origin` names them in subtitles): GEMM slowdown vs SMs
/// removed and collective time vs CTAs given. A chart without data is not drawn; `notes`
/// gets a line saying so.
std::vector<ChartFile> calibration_charts(const RawMeasurements& raw, const std::string& origin,
                                          std::vector<std::string>& notes);

// ---- collective benchmarks (`bench-collective`) ----

/// nccl-tests-style table: one block per kind and transport, columns size, count (bf16
/// elements), time (us), algbw and busbw (GB/s), and "#wrong" (0, or the error).
std::string bench_table(const BenchFile& file);
/// The bus-bandwidth-vs-size chart of one kind: one line per transport (log-log, sizes
/// in KiB/MiB/GiB), SVG.
std::string bench_chart_svg(const BenchFile& file, CollectiveKind kind);
/// The same chart's data as CSV (transport, size in bytes, bus bandwidth in GB/s).
std::string bench_chart_csv(const BenchFile& file, CollectiveKind kind);
// ---- progress lines (stderr of calibrate, measure, bench-collective) ----

/// A time for progress lines: "1.234 ms" from 1 ms up, else "56.7 us".
std::string format_run_time(double seconds);
/// One measurement done: "[12/87] collective all_gather 64MiB cu ... 1.234 ms" (or
/// "FAILED: why"), then " (resumed)" when taken from the file.
std::string step_line(const Step& step);
/// One progress line of a benchmark: "[3/24] all_gather nccl 64MiB ... 1.234 ms, busbw
/// 123.4 GB/s" (or "FAILED: why"), " (resumed)" when taken from the file.
std::string bench_progress_line(const BenchStep& step);

}  // namespace c3::validator
