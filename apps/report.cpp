// apps/report.cpp: `c3advisor report`: SVG charts from a `validate --json` document
// (fraction of ideal per strategy family by collective and by overlap class, with the
// ConCCL paper's MI300X averages as marks; predicted vs measured time) and, with
// --raw, from calibration measurements (GEMM slowdown vs SMs removed, collective time
// vs CTAs). The charts are drawn by validator/accuracy_charts.hpp.
#include <nlohmann/json.hpp>

#include <filesystem>
#include <map>
#include <memory>

#include "apps/commands.hpp"
#include "apps/run_support.hpp"
#include "c3/errors.hpp"
#include "c3/io.hpp"
#include "io/text_format.hpp"
#include "validator/accuracy_charts.hpp"
#include "validator/raw_measurements.hpp"

namespace c3::apps {
namespace {

using Json = nlohmann::ordered_json;
namespace charts = validator::charts;

struct ReportOptions {
  std::string in;
  std::string out;
  std::string raw;
};

// The ConCCL paper's averages on 8x MI300X (fraction of ideal), per family.
const std::map<std::string, double>& paper_figures() {
  static const std::map<std::string, double> figures{
      {"base", 0.21}, {"sp", 0.42}, {"rp(best)", 0.41}, {"dma", 0.66}, {"dma_rp(best)", 0.72}};
  return figures;
}

// Bars drawn per group, in order, where the document has them.
constexpr const char* kBarSeries[] = {"base", "sp", "rp(best)", "dma", "dma_rp(best)", "advisor",
                                      "oracle"};

// Checked access to the validate document: errors name the file and the key path.
class Doc {
 public:
  Doc(std::string path) : path_(std::move(path)) {
    const std::string text = io::read_file(path_);
    try {
      root_ = Json::parse(text);
    } catch (const Json::exception& e) {  // parse_error; out_of_range for "1e400"
      throw ConfigError(path_, 0, "", std::string("not JSON: ") + e.what());
    }
    if (!root_.is_object() || !root_.contains("summary") || !root_.contains("scenarios"))
      throw ConfigError(path_, 0, "summary",
                        "missing: expected the output of `c3advisor validate --json`");
  }

  const Json& at(const Json& j, const std::string& key, const std::string& where) const {
    if (!j.is_object() || !j.contains(key)) throw ConfigError(path_, 0, where + key, "missing");
    return j[key];
  }
  double number(const Json& j, const std::string& key, const std::string& where) const {
    const Json& v = at(j, key, where);
    if (!v.is_number()) throw ConfigError(path_, 0, where + key, "not a number");
    return v.get<double>();
  }
  std::string string(const Json& j, const std::string& key, const std::string& where) const {
    const Json& v = at(j, key, where);
    if (!v.is_string()) throw ConfigError(path_, 0, where + key, "not a string");
    return v.get<std::string>();
  }
  const Json& root() const { return root_; }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
  Json root_;
};

struct Chart {
  std::string file;
  std::string title;
  std::vector<std::string> series;
  std::string svg;
};

std::string subtitle_of(const Doc& d) {
  const Json& r = d.root();
  const int n = static_cast<int>(d.number(r["summary"], "scenarios", "summary."));
  std::string device;
  if (r.contains("backend") && r["backend"].contains("device") && r["backend"]["device"].is_string())
    device = r["backend"]["device"].get<std::string>();
  std::string profile = r.contains("profile") && r["profile"].is_string()
                            ? r["profile"].get<std::string>()
                            : std::string("?");
  return std::to_string(n) + " scenarios, profile " + profile +
         (device.empty() ? "" : ", measured on " + device);
}

// Grouped bars: "all" then each group of summary.fraction_of_ideal.<section>.
Chart fraction_chart(const Doc& d, const std::string& section, const std::string& file,
                     const std::string& title, const std::string& x_label) {
  const std::string where = "summary.fraction_of_ideal.";
  const Json& fractions = d.at(d.root()["summary"], "fraction_of_ideal", "summary.");
  std::vector<std::pair<std::string, const Json*>> groups{
      {"all", &d.at(fractions, "overall", where)}};
  for (const auto& [name, g] : d.at(fractions, section, where).items())
    groups.emplace_back(name, &g);

  charts::BarChart bars;
  bars.title = title;
  bars.subtitle = subtitle_of(d) + "; marks: the ConCCL paper on 8x MI300X";
  bars.x_label = x_label;
  bars.y = {"mean fraction of the ideal speedup realized (measured)", false, true};
  for (const auto& [name, g] : groups) {
    const int n = static_cast<int>(d.number(*g, "scenarios", where + name + "."));
    bars.groups.push_back(name + " (" + std::to_string(n) + ")");
  }
  for (const char* key : kBarSeries) {
    charts::BarSeries s{key, {}};
    bool any = false;
    for (const auto& [name, g] : groups) {
      const Json& f = d.at(*g, "fraction_of_ideal", where + name + ".");
      if (f.contains(key) && f[key].is_number()) {
        s.values.push_back(f[key].get<double>());
        any = true;
      } else {
        s.values.push_back(std::nullopt);
      }
    }
    if (!any) continue;
    const auto paper = paper_figures().find(key);
    if (paper != paper_figures().end() && s.values.front())
      bars.references.push_back({bars.series.size(), 0, paper->second});
    bars.series.push_back(std::move(s));
  }
  bars.reference_label = "MI300X, paper (all)";
  Chart c{file, title, {}, charts::svg(bars)};
  for (const auto& s : bars.series) c.series.push_back(s.name);
  return c;
}

Chart prediction_chart(const Doc& d) {
  std::map<std::string, charts::Series> by_family;
  std::vector<std::string> order;
  const Json& scenarios = d.root()["scenarios"];
  if (!scenarios.is_array()) throw ConfigError(d.path(), 0, "scenarios", "not a list");
  for (std::size_t i = 0; i < scenarios.size(); ++i) {
    const std::string where = "scenarios[" + std::to_string(i) + "].";
    const Json& strategies = d.at(scenarios[i], "strategies", where);
    for (std::size_t k = 0; k < strategies.size(); ++k) {
      const std::string w = where + "strategies[" + std::to_string(k) + "].";
      const Json& st = strategies[k];
      if (!d.at(st, "predicted_s", w).is_number()) continue;  // not predicted
      Strategy strategy;
      try {
        strategy = parse_strategy(d.string(st, "name", w));
      } catch (const InputError& e) {
        throw ConfigError(d.path(), 0, w + "name", e.what());
      }
      const std::string family(to_string(strategy.kind));
      if (!by_family.contains(family)) order.push_back(family);
      charts::Series& s = by_family[family];
      s.name = family;
      s.x.push_back(d.number(st, "measured_s", w) * 1e3);
      s.y.push_back(d.number(st, "predicted_s", w) * 1e3);
    }
  }
  charts::XYChart xy;
  xy.title = "Predicted vs measured time of every strategy";
  const Json& sm = d.root()["summary"];
  xy.subtitle = subtitle_of(d) + "; |error| median " +
                io::detail::format_percent(d.number(sm, "prediction_error_median", "summary.")) +
                ", p90 " +
                io::detail::format_percent(d.number(sm, "prediction_error_p90", "summary."));
  xy.x = {"measured time (ms, log)", true, false};
  xy.y = {"predicted time (ms, log)", true, false};
  xy.style = charts::XYChart::Style::points;
  xy.identity_line = true;
  // Families in the canonical order (serial, base, sp, rp, dma, dma_rp).
  std::sort(order.begin(), order.end(), [](const std::string& a, const std::string& b) {
    return parse_strategy_kind(a) < parse_strategy_kind(b);
  });
  for (const std::string& f : order) xy.series.push_back(by_family[f]);
  Chart c{"predicted_vs_measured.svg", xy.title, {"y = x"}, charts::svg(xy)};
  for (const std::string& f : order) c.series.push_back(f);
  return c;
}

// From calibration raw measurements: time against CUs, one series per GEMM / collective.
std::vector<Chart> calibration_charts(const std::string& raw_path, std::vector<std::string>& notes) {
  const validator::RawMeasurements raw = validator::load_raw_measurements(raw_path);
  std::vector<Chart> out;
  const std::string subtitle = "measured on " + raw.provenance.device + " (" + raw_path + ")";

  // GEMM slowdown: time(removed) / time(0).
  std::map<std::string, std::map<int, double>> gemms;
  std::vector<std::string> gemm_order;
  for (const validator::Record& r : raw.records) {
    const auto* q = std::get_if<validator::GemmQuery>(&r.query);
    if (q == nullptr || !r.measurement.ok) continue;
    const std::string name = format_gemm(q->gemm);
    if (!gemms.contains(name)) gemm_order.push_back(name);
    gemms[name][q->cus_removed] = r.measurement.median_s;
  }
  charts::XYChart g;
  g.title = "GEMM slowdown vs SMs removed";
  g.subtitle = subtitle;
  g.x = {"SMs (CUs) removed from the GEMM", false, false};
  g.y = {"time / time with every SM", false, false};
  for (const std::string& name : gemm_order) {
    const auto& pts = gemms[name];
    if (pts.size() < 2 || !pts.contains(0)) continue;
    charts::Series s{name, {}, {}};
    for (const auto& [removed, t] : pts) {
      s.x.push_back(removed);
      s.y.push_back(t / pts.at(0));
    }
    g.series.push_back(std::move(s));
  }
  if (g.series.empty()) {
    notes.push_back("no GEMM measured at several CU counts in " + raw_path +
                    ": gemm_slowdown_vs_sms_removed.svg not written");
  } else {
    Chart c{"gemm_slowdown_vs_sms_removed.svg", g.title, {}, charts::svg(g)};
    for (const auto& s : g.series) c.series.push_back(s.name);
    out.push_back(std::move(c));
  }

  // Collective time against CTAs (CUs given), CU transport, explicit counts only.
  std::map<std::string, std::map<int, double>> colls;
  std::vector<std::string> coll_order;
  for (const validator::Record& r : raw.records) {
    const auto* q = std::get_if<validator::CollectiveQuery>(&r.query);
    if (q == nullptr || !r.measurement.ok || q->transport != Transport::cu || q->cus <= 0) continue;
    const std::string name = std::string(to_string(q->collective.kind)) + " " +
                             format_size(q->collective.size_bytes) + " x" +
                             std::to_string(q->collective.ranks);
    if (!colls.contains(name)) coll_order.push_back(name);
    colls[name][q->cus] = r.measurement.median_s;
  }
  charts::XYChart c;
  c.title = "Collective time vs CTAs (SMs) given";
  c.subtitle = subtitle;
  c.x = {"CTAs (SMs) given to the collective", false, false};
  c.y = {"time (ms, log)", true, false};
  for (const std::string& name : coll_order) {
    const auto& pts = colls[name];
    if (pts.size() < 2) continue;
    charts::Series s{name, {}, {}};
    for (const auto& [cus, t] : pts) {
      s.x.push_back(cus);
      s.y.push_back(t * 1e3);
    }
    c.series.push_back(std::move(s));
  }
  if (c.series.empty()) {
    notes.push_back("no collective measured at several CTA counts in " + raw_path +
                    ": collective_time_vs_ctas.svg not written");
  } else {
    Chart chart{"collective_time_vs_ctas.svg", c.title, {}, charts::svg(c)};
    for (const auto& s : c.series) chart.series.push_back(s.name);
    out.push_back(std::move(chart));
  }
  return out;
}

std::string draw_report(const ReportOptions& o);

// Doc checks the fields the charts need; a value of another JSON type further down
// ("strategies": "x") makes nlohmann throw: a bad document too, named as such.
std::string run_report(const ReportOptions& o) {
  try {
    return draw_report(o);
  } catch (const nlohmann::json::exception& e) {
    throw ConfigError(o.in, 0, "", std::string("not a `validate --json` document: ") + e.what());
  }
}

std::string draw_report(const ReportOptions& o) {
  const Doc doc(o.in);
  std::vector<Chart> all;
  all.push_back(fraction_chart(doc, "by_collective", "fraction_of_ideal_by_collective.svg",
                               "Fraction of ideal speedup by collective", "collective (scenarios)"));
  all.push_back(fraction_chart(doc, "by_overlap", "fraction_of_ideal_by_overlap.svg",
                               "Fraction of ideal speedup by overlap class",
                               "overlap class (scenarios)"));
  all.push_back(prediction_chart(doc));
  std::vector<std::string> notes;
  if (!o.raw.empty())
    for (Chart& c : calibration_charts(o.raw, notes)) all.push_back(std::move(c));

  std::error_code ec;
  std::filesystem::create_directories(o.out, ec);
  if (ec || !std::filesystem::is_directory(o.out))
    throw InputError("--out " + o.out + ": cannot create the directory" +
                     (ec ? ": " + ec.message() : ""));
  std::string out;
  for (const Chart& c : all) {
    const std::string path = (std::filesystem::path(o.out) / c.file).string();
    write_file(path, c.svg);
    std::string series;
    for (const std::string& s : c.series) series += (series.empty() ? "" : ", ") + s;
    out += "wrote " + path + ": " + c.title + " (series: " + series + ")\n";
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
