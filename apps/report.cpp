// apps/report.cpp: `c3advisor report`: SVG charts from a `validate --json` document
// (fraction of ideal per strategy family by collective and by overlap class, with the
// ConCCL paper's MI300X averages as marks; predicted vs measured time) and, with
// --raw, from calibration measurements (GEMM slowdown vs SMs removed, collective time
// vs CTAs). The charts are drawn by c3/views.hpp.
#include <filesystem>
#include <memory>

#include "apps/commands.hpp"
#include "c3/errors.hpp"
#include "c3/io.hpp"
#include "c3/measurements.hpp"
#include "c3/views.hpp"

namespace c3::apps {
namespace {

struct ReportOptions {
  std::string in;
  std::string out;
  std::string raw;
};

std::string run_report(const ReportOptions& o) {
  std::vector<validator::ChartFile> all = validator::accuracy_charts(io::load_validation_document(o.in));
  std::vector<std::string> notes;
  if (!o.raw.empty())
    for (validator::ChartFile& c : validator::calibration_charts(validator::load_raw_measurements(o.raw), o.raw, notes))
      all.push_back(std::move(c));

  std::error_code ec;
  std::filesystem::create_directories(o.out, ec);
  if (ec || !std::filesystem::is_directory(o.out))
    throw Error("--out " + o.out + ": cannot create the directory" +  // an output, exit 1 (docs/cli.md)
                (ec ? ": " + ec.message() : ""));
  std::string out;
  for (const validator::ChartFile& c : all) {
    const std::string path = (std::filesystem::path(o.out) / c.file).string();
    const std::string csv_path = std::filesystem::path(path).replace_extension(".csv").string();
    io::write_file(path, c.svg);
    io::write_file(csv_path, c.csv);
    std::string series;
    for (const std::string& s : c.series) series += (series.empty() ? "" : ", ") + s;
    out += "wrote " + path + ": " + c.title + " (series: " + series + "), its data in " + csv_path + "\n";
  }
  for (const std::string& n : notes) out += "note: " + n + "\n";
  return out;
}

}  // namespace

Command add_report(CLI::App& app) {
  auto o = std::make_shared<ReportOptions>();
  CLI::App* sub = app.add_subcommand(
      "report", "SVG charts from a `validate --json` document (and calibration measurements)");
  sub->add_option("--in", o->in, "The JSON written by `c3advisor validate --json`")->required();
  sub->add_option("--out", o->out, "Directory for the SVG files (created if missing)")->required();
  sub->add_option("--raw", o->raw,
                  "Raw calibration measurements (calibrate --raw): adds GEMM slowdown vs SMs "
                  "removed and collective time vs CTAs");
  sub->footer(
      "Examples:\n"
      "  c3advisor validate --profile h200x2 --ranks 2 --json \\\n"
      "      --backend replay:data/measurements/paper-h200x2-2026-11-21.json > /tmp/validate.json\n"
      "  c3advisor report --in /tmp/validate.json --out docs/img \\\n"
      "      --raw data/measurements/calibration-h200x2-2026-11-21.json\n");
  return {sub, [o] { return run_report(*o); }};
}

}  // namespace c3::apps
