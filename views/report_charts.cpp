// views/report_charts.cpp: the charts of `c3advisor report` (c3/views.hpp), drawn with
// views/charts.hpp: fraction of ideal per strategy family by collective and by overlap
// class (the ConCCL paper's MI300X averages as marks), predicted vs measured time, and
// from calibration measurements GEMM slowdown vs SMs removed and collective time vs CTAs.
#include <algorithm>
#include <map>

#include "c3/views.hpp"
#include "views/charts.hpp"
#include "views/paper_figures.hpp"
#include "views/text_format.hpp"

namespace c3::validator {
namespace {

// Bars drawn per group, in order, where the document has them.
constexpr const char* kBarSeries[] = {"base", "sp", "rp(best)", "dma", "dma_rp(best)", "advisor",
                                      "oracle"};

std::optional<double> paper_figure(const std::string& series) {
  for (const PaperFigure& f : kPaperMi300xFractions)
    if (f.series == series) return f.fraction_of_ideal;
  return std::nullopt;
}

std::string subtitle_of(const io::ValidationDocument& d) {
  return std::to_string(d.scenarios) + " scenarios, profile " + d.profile +
         (d.device.empty() ? "" : ", measured on " + d.device);
}

template <class Chart>
ChartFile chart_file(std::string file, std::vector<std::string> series, const Chart& chart) {
  return ChartFile{std::move(file), chart.title, std::move(series), charts::svg(chart), charts::csv(chart)};
}

// Grouped bars: "all" then each group of the section.
ChartFile fraction_chart(const io::ValidationDocument& d,
                         const std::vector<io::ValidationDocument::Group>& section, const std::string& file,
                         const std::string& title, const std::string& x_label) {
  std::vector<const io::ValidationDocument::Group*> groups{&d.overall};
  for (const auto& g : section) groups.push_back(&g);

  charts::BarChart bars;
  bars.title = title;
  bars.subtitle = subtitle_of(d) + "; marks: the ConCCL paper on 8x MI300X";
  bars.x_label = x_label;
  bars.y = {"mean fraction of the ideal speedup realized (measured)", false, true};
  for (const auto* g : groups) bars.groups.push_back(g->name + " (" + std::to_string(g->scenarios) + ")");
  for (const char* key : kBarSeries) {
    charts::BarSeries s{key, {}};
    bool any = false;
    for (const auto* g : groups) {
      const auto it = g->fraction_of_ideal.find(key);
      if (it != g->fraction_of_ideal.end()) {
        s.values.push_back(it->second);
        any = true;
      } else {
        s.values.push_back(std::nullopt);
      }
    }
    if (!any) continue;
    const std::optional<double> paper = paper_figure(key);
    if (paper && s.values.front()) bars.references.push_back({bars.series.size(), 0, *paper});
    bars.series.push_back(std::move(s));
  }
  bars.reference_label = std::string(kPaperMi300xLabel);
  std::vector<std::string> names;
  for (const auto& s : bars.series) names.push_back(s.name);
  return chart_file(file, names, bars);
}

ChartFile prediction_chart(const io::ValidationDocument& d) {
  std::map<std::string, charts::Series> by_family;
  std::vector<std::string> order;
  for (const io::ValidationDocument::Prediction& p : d.predictions) {
    const std::string family(to_string(p.strategy.kind));
    if (!by_family.contains(family)) order.push_back(family);
    charts::Series& s = by_family[family];
    s.name = family;
    s.x.push_back(p.measured_s * 1e3);
    s.y.push_back(p.predicted_s * 1e3);
  }
  charts::XYChart xy;
  xy.title = "Predicted vs measured time of every strategy";
  xy.subtitle = subtitle_of(d) + "; |error| median " + io::detail::format_percent(d.prediction_error_median) +
                ", p90 " + io::detail::format_percent(d.prediction_error_p90);
  xy.x = {"measured time (ms, log)", true, false};
  xy.y = {"predicted time (ms, log)", true, false};
  xy.style = charts::XYChart::Style::points;
  xy.identity_line = true;
  // Families in the canonical order (serial, base, sp, rp, dma, dma_rp).
  std::sort(order.begin(), order.end(), [](const std::string& a, const std::string& b) {
    return parse_strategy_kind(a) < parse_strategy_kind(b);
  });
  for (const std::string& f : order) xy.series.push_back(by_family[f]);
  std::vector<std::string> names{"y = x"};
  for (const std::string& f : order) names.push_back(f);
  return chart_file("predicted_vs_measured.svg", names, xy);
}

}  // namespace

std::vector<ChartFile> accuracy_charts(const io::ValidationDocument& doc) {
  std::vector<ChartFile> out;
  out.push_back(fraction_chart(doc, doc.by_collective, "fraction_of_ideal_by_collective.svg",
                               "Fraction of ideal speedup by collective", "collective (scenarios)"));
  out.push_back(fraction_chart(doc, doc.by_overlap, "fraction_of_ideal_by_overlap.svg",
                               "Fraction of ideal speedup by overlap class", "overlap class (scenarios)"));
  out.push_back(prediction_chart(doc));
  return out;
}

std::vector<ChartFile> calibration_charts(const RawMeasurements& raw, const std::string& origin,
                                          std::vector<std::string>& notes) {
  std::vector<ChartFile> out;
  const std::string subtitle = "measured on " + raw.provenance.device + " (" + origin + ")";

  // GEMM slowdown: time(removed) / time(0).
  std::map<std::string, std::map<int, double>> gemms;
  std::vector<std::string> gemm_order;
  for (const Record& r : raw.records) {
    const auto* q = std::get_if<GemmQuery>(&r.query);
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
    notes.push_back("no GEMM measured at several CU counts in " + origin +
                    ": gemm_slowdown_vs_sms_removed.svg not written");
  } else {
    std::vector<std::string> names;
    for (const auto& s : g.series) names.push_back(s.name);
    out.push_back(chart_file("gemm_slowdown_vs_sms_removed.svg", names, g));
  }

  // Collective time against CTAs (CUs given), CU transport, explicit counts only.
  std::map<std::string, std::map<int, double>> colls;
  std::vector<std::string> coll_order;
  for (const Record& r : raw.records) {
    const auto* q = std::get_if<CollectiveQuery>(&r.query);
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
    notes.push_back("no collective measured at several CTA counts in " + origin +
                    ": collective_time_vs_ctas.svg not written");
  } else {
    std::vector<std::string> names;
    for (const auto& s : c.series) names.push_back(s.name);
    out.push_back(chart_file("collective_time_vs_ctas.svg", names, c));
  }
  return out;
}

}  // namespace c3::validator
