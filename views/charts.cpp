// SVG charts (views/charts.hpp).
#include "views/charts.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <limits>

#include "c3/errors.hpp"
#include "c3/types.hpp"
#include "views/text_format.hpp"

namespace c3::validator::charts {
namespace {

constexpr double kWidth = 960;
constexpr double kHeight = 540;
constexpr double kLeft = 90;
constexpr double kRight = 230;  // legend column
constexpr double kTop = 70;
constexpr double kBottom = 70;
constexpr double kPlotW = kWidth - kLeft - kRight;
constexpr double kPlotH = kHeight - kTop - kBottom;

// Series that are not strategy kinds: Tableau 10 (distinguishable, colour-blind-aware),
// in order; a line whose colour is taken already is dashed (kDashes).
constexpr std::array<const char*, 10> kPalette{"#4e79a7", "#f28e2b", "#e15759", "#76b7b2",
                                               "#59a14f", "#edc948", "#b07aa1", "#ff9da7",
                                               "#9c755f", "#bab0ac"};
constexpr std::array<const char*, 4> kDashes{"", "8 4", "2 3", "10 3 2 3"};

// One colour per strategy kind in every chart (Okabe & Ito's colour-blind-safe set): the
// launch-order kinds in blues, the partition in green, the copy engines in red-purple.
struct KindColour {
  std::string_view name;
  const char* colour;
};
constexpr std::array<KindColour, 8> kKindColours{{{"serial", "#7f7f7f"},
                                                  {"base", "#56b4e9"},
                                                  {"sp", "#0072b2"},
                                                  {"rp", "#009e73"},
                                                  {"dma", "#d55e00"},
                                                  {"dma_rp", "#cc79a7"},
                                                  {"advisor", "#000000"},
                                                  {"oracle", "#e69f00"}}};

struct SeriesStyle {
  std::string colour;
  std::string dash;  // "" = solid
};

// "#rrggbb" mixed with black (amount < 0) or white (amount > 0), |amount| <= 1.
std::string shade(const std::string& colour, double amount) {
  if (amount == 0 || colour.size() != 7) return colour;
  std::string out = "#";
  for (int i = 0; i < 3; ++i) {
    const double c = std::stoi(colour.substr(1 + 2 * static_cast<std::size_t>(i), 2), nullptr, 16);
    const double mixed = amount < 0 ? c * (1 + amount) : c + (255 - c) * amount;
    char buf[3];
    std::snprintf(buf, sizeof buf, "%02x", static_cast<int>(std::lround(std::clamp(mixed, 0.0, 255.0))));
    out += buf;
  }
  return out;
}

// The colour and dash of each series, by name (series_colour) or else the palette. The
// n-th series of a colour taken already (a strategy kind's variants, a palette that
// wrapped) is dashed (kDashes) and, past the dashes, shaded darker or lighter.
std::vector<SeriesStyle> series_styles(const std::vector<std::string>& names) {
  constexpr std::array<double, 4> kShades{0, -0.45, 0.45, -0.7};
  std::vector<SeriesStyle> out;
  std::vector<std::string> base;  // each series' colour before shading
  std::size_t generic = 0;
  for (const std::string& name : names) {
    std::string colour = series_colour(name);
    if (colour.empty()) colour = kPalette[generic++ % kPalette.size()];
    const auto same = static_cast<std::size_t>(std::count(base.begin(), base.end(), colour));
    base.push_back(colour);
    out.push_back({shade(colour, kShades[same / kDashes.size() % kShades.size()]), kDashes[same % kDashes.size()]});
  }
  return out;
}

std::string dash_attribute(const SeriesStyle& s) {
  return s.dash.empty() ? "" : " stroke-dasharray=\"" + s.dash + "\"";
}

std::string num(double x) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2f", x);
  std::string s = buf;
  while (!s.empty() && s.back() == '0') s.pop_back();
  if (!s.empty() && s.back() == '.') s.pop_back();
  return s == "-0" ? "0" : s;
}

// Values an axis spans at most: within +-kLimit (log: [1/kLimit, kLimit]), so that its
// padding, ticks, labels and pixel positions stay finite. Values beyond are drawn past
// the edge and labelled as the limit.
constexpr double kLimit = 1e300;
// A linear axis draws values nearer 0 than this as 0 (so that padding and steps are not
// lost in denormals: 5e-324 padded by 10% is still 5e-324).
constexpr double kTiny = 1e-290;

std::string tick_label(double v, bool percent) {
  char buf[32];
  v = std::clamp(v, -kLimit, kLimit);  // v * 1000 below stays finite
  if (percent) {
    std::snprintf(buf, sizeof buf, "%g%%", std::round(v * 1000.0) / 10.0);
  } else {
    std::snprintf(buf, sizeof buf, "%g", v);
  }
  return buf;
}

std::string tick_label(double v, const Axis& axis) {
  return axis.bytes ? byte_label(v) : tick_label(v, axis.percent);
}

// A mapping from data to pixels along one axis.
struct Scale {
  double lo = 0;
  double hi = 1;
  bool log = false;
  double p0 = 0;  // pixel of lo
  double p1 = 1;  // pixel of hi
  std::vector<double> ticks;

  double t(double v) const {
    const double a = log ? std::log10(lo) : lo;
    const double b = log ? std::log10(hi) : hi;
    const double x = log ? std::log10(v) : v;
    return p0 + (x - a) / (b - a) * (p1 - p0);
  }
};

std::vector<double> log_ticks(double lo, double hi) {
  std::vector<double> out;
  const int a = static_cast<int>(std::floor(std::log10(lo) + 1e-9));
  const int b = static_cast<int>(std::ceil(std::log10(hi) - 1e-9));
  const bool dense = b - a <= 2;
  for (int e = a; e <= b; ++e)
    for (double m : dense ? std::vector<double>{1, 2, 5} : std::vector<double>{1}) {
      const double v = m * std::pow(10.0, e);
      if (v >= lo * (1 - 1e-9) && v <= hi * (1 + 1e-9)) out.push_back(v);
    }
  return out;
}

// Range of an axis: log axes snap to decades, linear ones to their ticks.
Scale make_scale(double lo, double hi, bool log, double p0, double p1, bool bytes = false) {
  Scale s;
  s.log = log;
  s.p0 = p0;
  s.p1 = p1;
  if (std::isnan(lo) || std::isnan(hi)) {
    lo = log ? 1 : 0;
    hi = log ? 10 : 1;
  }
  if (log) {  // only positive values have a place on a log axis
    if (!(hi > 0)) hi = 10;
    if (!(lo > 0)) lo = std::min(hi / 10, 1.0);
    lo = std::clamp(lo, 1 / kLimit, kLimit);
    hi = std::clamp(hi, 1 / kLimit, kLimit);
  } else {  // values too small to tell from 0 at any width a chart can show count as 0
    const auto tame = [](double v) { return std::fabs(v) < kTiny ? 0.0 : std::clamp(v, -kLimit, kLimit); };
    lo = tame(lo);
    hi = tame(hi);
  }
  // A range too narrow to tell its ends apart (at double precision) counts as one value.
  if (!(hi - lo > std::max(std::fabs(lo), std::fabs(hi)) * 1e-9)) {
    const double pad = lo == 0 ? 1.0 : std::fabs(lo) * 0.1;
    lo -= log ? lo / 2 : pad;
    hi += log ? hi : pad;
  }
  if (log && bytes) {  // whole powers of 2 at the ends
    s.lo = std::pow(2.0, std::floor(std::log2(lo) + 1e-9));
    s.hi = std::pow(2.0, std::ceil(std::log2(hi) - 1e-9));
    s.ticks = byte_ticks(s.lo, s.hi);
  } else if (log) {
    s.lo = std::pow(10.0, std::floor(std::log10(lo) + 1e-9));
    s.hi = std::pow(10.0, std::ceil(std::log10(hi) - 1e-9));
    s.ticks = log_ticks(s.lo, s.hi);
  } else {
    s.ticks = linear_ticks(lo, hi);
    s.lo = std::min(lo, s.ticks.front());
    s.hi = std::max(hi, s.ticks.back());
  }
  return s;
}

const std::vector<double>& ticks_of(const Scale& s) { return s.ticks; }

class Doc {
 public:
  Doc(const std::string& title, const std::string& subtitle) {
    out_ += "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
    out_ += "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" + num(kWidth) + "\" height=\"" +
            num(kHeight) + "\" viewBox=\"0 0 " + num(kWidth) + " " + num(kHeight) +
            "\" font-family=\"sans-serif\" font-size=\"12\">\n";
    out_ += "<title>" + escape_xml(title) + "</title>\n";
    out_ += "<rect x=\"0\" y=\"0\" width=\"" + num(kWidth) + "\" height=\"" + num(kHeight) +
            "\" fill=\"white\"/>\n";
    text(kWidth / 2 - kRight / 2 + kLeft / 2, 28, title, "middle", "class=\"title\" font-size=\"17\" font-weight=\"bold\"");
    if (!subtitle.empty())
      text(kWidth / 2 - kRight / 2 + kLeft / 2, 48, subtitle, "middle", "class=\"subtitle\" fill=\"#555\"");
  }

  void raw(const std::string& s) { out_ += s; }

  void text(double x, double y, const std::string& s, const char* anchor,
            const std::string& extra = "") {
    out_ += "<text x=\"" + num(x) + "\" y=\"" + num(y) + "\" text-anchor=\"" + anchor + "\"" +
            (extra.empty() ? "" : " " + extra) + ">" + escape_xml(s) + "</text>\n";
  }

  void line(double x1, double y1, double x2, double y2, const std::string& style) {
    out_ += "<line x1=\"" + num(x1) + "\" y1=\"" + num(y1) + "\" x2=\"" + num(x2) + "\" y2=\"" +
            num(y2) + "\" " + style + "/>\n";
  }

  void rect(double x, double y, double w, double h, const std::string& style) {
    out_ += "<rect x=\"" + num(x) + "\" y=\"" + num(y) + "\" width=\"" + num(w) + "\" height=\"" +
            num(h) + "\" " + style + "/>\n";
  }

  void axes(const Scale& xs, const Scale& ys, const Axis* x_axis, const Axis& y_axis,
            const std::string& x_label) {
    // y grid and ticks
    raw("<g class=\"axes\">\n");
    for (double v : ticks_of(ys)) {
      const double y = ys.t(v);
      line(kLeft, y, kLeft + kPlotW, y, "stroke=\"#e0e0e0\"");
      text(kLeft - 6, y + 4, tick_label(v, y_axis), "end");
    }
    if (x_axis != nullptr) {
      for (double v : ticks_of(xs)) {
        const double x = xs.t(v);
        line(x, kTop, x, kTop + kPlotH, "stroke=\"#f0f0f0\"");
        line(x, kTop + kPlotH, x, kTop + kPlotH + 5, "stroke=\"#333\"");
        text(x, kTop + kPlotH + 18, tick_label(v, *x_axis), "middle");
      }
    }
    line(kLeft, kTop + kPlotH, kLeft + kPlotW, kTop + kPlotH, "stroke=\"#333\"");
    line(kLeft, kTop, kLeft, kTop + kPlotH, "stroke=\"#333\"");
    text(kLeft + kPlotW / 2, kHeight - 22, x_label, "middle", "class=\"x-label\"");
    const double cy = kTop + kPlotH / 2;
    text(24, cy, y_axis.label, "middle",
         "class=\"y-label\" transform=\"rotate(-90 24 " + num(cy) + ")\"");
    raw("</g>\n");
  }

  // One legend entry; `swatch` draws the marker at (x, y) (its centre line).
  void legend_entry(std::size_t index, const std::string& name, const std::string& swatch) {
    const double x = kLeft + kPlotW + 20;
    const double y = kTop + 10 + 20 * static_cast<double>(index);
    out_ += "<g class=\"legend-entry\" data-series=\"" + escape_xml(name) + "\">\n";
    out_ += "<g transform=\"translate(" + num(x) + " " + num(y) + ")\">" + swatch + "</g>\n";
    text(x + 26, y + 4, name, "start");
    out_ += "</g>\n";
  }

  std::string finish() {
    out_ += "</svg>\n";
    return std::move(out_);
  }

 private:
  std::string out_;
};

std::string swatch_rect(const std::string& style) {
  return "<rect x=\"0\" y=\"-6\" width=\"18\" height=\"12\" " + style + "/>";
}

std::string swatch_line(const std::string& style) {
  return "<line x1=\"0\" y1=\"0\" x2=\"18\" y2=\"0\" " + style + "/>";
}

std::string swatch_point(const std::string& fill) {
  return "<circle cx=\"9\" cy=\"0\" r=\"4\" fill=\"" + fill + "\"/>";
}

bool usable(double v, bool log) { return std::isfinite(v) && (!log || v > 0); }

}  // namespace

std::string series_colour(std::string_view name) {
  // "nccl x8", "rp:32", "rp(best)": the kind or transport is the name's first word.
  const std::string_view head = name.substr(0, name.find_first_of(" :("));
  if (head == "nccl" || head == "cu") return series_colour("sp");  // on SMs, as sp runs it
  if (head == "ce" || head.starts_with("ce_") || head == "nccl_ce") return series_colour("dma");
  for (const KindColour& k : kKindColours)
    if (k.name == head) return k.colour;
  return "";
}

std::string byte_label(double bytes) {
  if (std::isfinite(bytes) && bytes >= 1 && bytes < 9e18 && bytes == std::floor(bytes))
    return format_size(static_cast<std::int64_t>(bytes));
  char buf[32];
  std::snprintf(buf, sizeof buf, "%gB", bytes);
  return buf;
}

std::vector<double> byte_ticks(double lo, double hi) {
  if (!(lo > 0) || !(hi >= lo) || !std::isfinite(hi)) return {lo};
  const int a = static_cast<int>(std::ceil(std::log2(lo) - 1e-9));
  const int b = static_cast<int>(std::floor(std::log2(hi) + 1e-9));
  int step = 1;
  for (int s : {1, 2, 5, 10, 20, 50, 100}) {  // 10: one tick per unit (KiB, MiB, GiB)
    step = s;
    if ((b - a) / s <= 10) break;
  }
  std::vector<double> out;
  for (int e = a; e <= b; ++e)
    if (((e % step) + step) % step == 0) out.push_back(std::pow(2.0, e));
  if (out.empty()) out.push_back(std::pow(2.0, a));
  return out;
}

std::string csv(const XYChart& chart) {
  using io::detail::csv_line;
  using io::detail::format_number;
  std::string out = csv_line({"series", chart.x.label, chart.y.label});
  for (const Series& s : chart.series) {
    if (s.x.size() != s.y.size())
      throw InputError("chart '" + chart.title + "': series '" + s.name + "' has x and y of different lengths");
    for (std::size_t i = 0; i < s.x.size(); ++i) out += csv_line({s.name, format_number(s.x[i]), format_number(s.y[i])});
  }
  return out;
}

std::string csv(const BarChart& chart) {
  using io::detail::csv_line;
  using io::detail::format_number;
  std::string out = csv_line({"group", "series", chart.y.label, chart.reference_label.empty() ? "reference" : chart.reference_label});
  for (std::size_t si = 0; si < chart.series.size(); ++si) {
    const BarSeries& s = chart.series[si];
    if (s.values.size() != chart.groups.size())
      throw InputError("chart '" + chart.title + "': series '" + s.name + "' has " + std::to_string(s.values.size()) +
                       " values for " + std::to_string(chart.groups.size()) + " groups");
    for (std::size_t gi = 0; gi < s.values.size(); ++gi) {
      std::string reference;
      for (const BarReference& r : chart.references)
        if (r.series == si && r.group == gi) reference = format_number(r.value);
      out += csv_line({chart.groups[gi], s.name, s.values[gi] ? format_number(*s.values[gi]) : "", reference});
    }
  }
  return out;
}

std::string escape_xml(std::string_view text) {
  std::string out;
  for (char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&apos;"; break;
      default: out += c;
    }
  }
  return out;
}

std::vector<double> linear_ticks(double lo, double hi, int target) {
  if (!(hi > lo) || !std::isfinite(lo) || !std::isfinite(hi)) return {lo};
  const double parts = std::max(1, target);
  const double raw_step = hi / parts - lo / parts;  // hi - lo may overflow
  if (!(raw_step > 0) || !std::isfinite(raw_step) ||
      !(raw_step > std::max(std::fabs(lo), std::fabs(hi)) * 1e-12))
    return {lo, hi};  // a range too narrow for steps to move at double precision
  const double mag = std::pow(10.0, std::floor(std::log10(raw_step)));
  double step = mag;
  for (double m : {1.0, 2.0, 5.0, 10.0}) {
    step = m * mag;
    if (step >= raw_step) break;
  }
  if (!(step > 0) || !std::isfinite(step)) return {lo, hi};  // denormal ranges
  std::vector<double> out;
  const double first = std::floor(lo / step + 1e-9) * step;
  const std::size_t most = 4 * static_cast<std::size_t>(parts) + 8;  // about parts + 2
  for (double v = first; v < hi + step * (1 - 1e-9) && out.size() < most; v += step)
    out.push_back(std::fabs(v) < step * 1e-9 ? 0.0 : v);
  if (out.empty()) return {lo, hi};
  return out;
}

std::string svg(const XYChart& chart) {
  double xlo = std::numeric_limits<double>::infinity(), xhi = -xlo;
  double ylo = xlo, yhi = -xlo;
  for (const Series& s : chart.series) {
    if (s.x.size() != s.y.size())
      throw InputError("chart '" + chart.title + "': series '" + s.name +
                       "' has x and y of different lengths");
    for (std::size_t i = 0; i < s.x.size(); ++i) {
      if (!usable(s.x[i], chart.x.log) || !usable(s.y[i], chart.y.log)) continue;
      xlo = std::min(xlo, s.x[i]);
      xhi = std::max(xhi, s.x[i]);
      ylo = std::min(ylo, s.y[i]);
      yhi = std::max(yhi, s.y[i]);
    }
  }
  if (!std::isfinite(xlo)) {  // nothing to draw: a unit range on each axis
    xlo = chart.x.log ? 1 : 0;
    xhi = chart.x.log ? 10 : 1;
    ylo = chart.y.log ? 1 : 0;
    yhi = chart.y.log ? 10 : 1;
  }
  if (chart.identity_line) {  // same range on both axes, so that y = x is the diagonal
    xlo = ylo = std::min(xlo, ylo);
    xhi = yhi = std::max(xhi, yhi);
  }
  if (!chart.y.log && ylo > 0 && !chart.identity_line) ylo = 0;
  const Scale xs = make_scale(xlo, xhi, chart.x.log, kLeft, kLeft + kPlotW, chart.x.bytes);
  const Scale ys = make_scale(ylo, yhi, chart.y.log, kTop + kPlotH, kTop, chart.y.bytes);

  Doc doc(chart.title, chart.subtitle);
  doc.axes(xs, ys, &chart.x, chart.y, chart.x.label);
  std::size_t legend = 0;
  if (chart.identity_line) {
    const double lo = std::max(xs.lo, ys.lo), hi = std::min(xs.hi, ys.hi);
    const std::string style = "stroke=\"#888\" stroke-dasharray=\"6 4\"";
    doc.raw("<g class=\"reference\" data-series=\"y = x\">\n");
    // Only where both axes have a place for it: over a log axis and a linear one holding
    // only negative values, y = x has none.
    if (lo < hi) doc.line(xs.t(lo), ys.t(lo), xs.t(hi), ys.t(hi), style);
    doc.raw("</g>\n");
    doc.legend_entry(legend++, "y = x", swatch_line(style));
  }
  std::vector<std::string> names;
  for (const Series& s : chart.series) names.push_back(s.name);
  const std::vector<SeriesStyle> styles = series_styles(names);
  for (std::size_t si = 0; si < chart.series.size(); ++si) {
    const Series& s = chart.series[si];
    const std::string& c = styles[si].colour;
    doc.raw("<g class=\"series\" data-series=\"" + escape_xml(s.name) + "\">\n");
    std::vector<std::pair<double, double>> pts;
    for (std::size_t i = 0; i < s.x.size(); ++i)
      if (usable(s.x[i], chart.x.log) && usable(s.y[i], chart.y.log))
        pts.emplace_back(xs.t(s.x[i]), ys.t(s.y[i]));
    if (chart.style == XYChart::Style::lines && pts.size() > 1) {
      std::string points;
      for (const auto& [x, y] : pts) points += (points.empty() ? "" : " ") + num(x) + "," + num(y);
      doc.raw("<polyline fill=\"none\" stroke=\"" + c + "\" stroke-width=\"2\"" + dash_attribute(styles[si]) +
              " points=\"" + points + "\"/>\n");
    }
    const double r = chart.style == XYChart::Style::lines ? 3 : 4;
    for (const auto& [x, y] : pts)
      doc.raw("<circle cx=\"" + num(x) + "\" cy=\"" + num(y) + "\" r=\"" + num(r) + "\" fill=\"" + c +
              "\" fill-opacity=\"0.8\"/>\n");
    doc.raw("</g>\n");
    doc.legend_entry(legend++, s.name,
                     chart.style == XYChart::Style::lines
                         ? swatch_line("stroke=\"" + c + "\" stroke-width=\"2\"" + dash_attribute(styles[si]))
                         : swatch_point(c));
  }
  return doc.finish();
}

std::string svg(const BarChart& chart) {
  if (chart.y.log) throw InputError("chart '" + chart.title + "': bars need a linear axis");
  double lo = 0, hi = chart.y.percent ? 1.0 : 0.0;
  for (const BarSeries& s : chart.series) {
    if (s.values.size() != chart.groups.size())
      throw InputError("chart '" + chart.title + "': series '" + s.name + "' has " +
                       std::to_string(s.values.size()) + " values for " +
                       std::to_string(chart.groups.size()) + " groups");
    for (const auto& v : s.values)
      if (v && std::isfinite(*v)) {
        lo = std::min(lo, *v);
        hi = std::max(hi, *v);
      }
  }
  for (const BarReference& r : chart.references) {
    if (r.series >= chart.series.size() || r.group >= chart.groups.size())
      throw InputError("chart '" + chart.title + "': a reference mark names no bar");
    lo = std::min(lo, r.value);
    hi = std::max(hi, r.value);
  }
  const Scale ys = make_scale(lo, hi, false, kTop + kPlotH, kTop);
  Doc doc(chart.title, chart.subtitle);
  doc.axes(ys, ys, nullptr, chart.y, chart.x_label);

  const double group_w = kPlotW / static_cast<double>(std::max<std::size_t>(1, chart.groups.size()));
  const double bar_w =
      group_w * 0.8 / static_cast<double>(std::max<std::size_t>(1, chart.series.size()));
  const auto bar_x = [&](std::size_t si, std::size_t gi) {
    return kLeft + group_w * static_cast<double>(gi) + group_w * 0.1 +
           bar_w * static_cast<double>(si);
  };
  for (std::size_t gi = 0; gi < chart.groups.size(); ++gi)
    doc.text(kLeft + group_w * (static_cast<double>(gi) + 0.5), kTop + kPlotH + 18,
             chart.groups[gi], "middle", "class=\"group-label\"");
  const double y0 = ys.t(0);
  std::size_t legend = 0;
  std::vector<std::string> names;
  for (const BarSeries& s : chart.series) names.push_back(s.name);
  const std::vector<SeriesStyle> styles = series_styles(names);
  for (std::size_t si = 0; si < chart.series.size(); ++si) {
    const BarSeries& s = chart.series[si];
    // A bar whose colour another series has already gets a dashed outline.
    const std::string fill = "fill=\"" + styles[si].colour + "\"" +
                             (styles[si].dash.empty() ? "" : " stroke=\"#333\"" + dash_attribute(styles[si]));
    doc.raw("<g class=\"series\" data-series=\"" + escape_xml(s.name) + "\">\n");
    for (std::size_t gi = 0; gi < s.values.size(); ++gi) {
      if (!s.values[gi] || !std::isfinite(*s.values[gi])) continue;
      const double y = ys.t(*s.values[gi]);
      doc.rect(bar_x(si, gi), std::min(y, y0), bar_w * 0.92, std::fabs(y0 - y), fill);
      doc.raw("<title>" + escape_xml(s.name + ", " + chart.groups[gi] + ": " +
                                     tick_label(*s.values[gi], chart.y.percent)) +
              "</title>\n");
    }
    doc.raw("</g>\n");
    doc.legend_entry(legend++, s.name, swatch_rect(fill));
  }
  if (!chart.references.empty()) {
    const std::string style = "stroke=\"black\" stroke-width=\"3\"";
    doc.raw("<g class=\"reference\" data-series=\"" + escape_xml(chart.reference_label) + "\">\n");
    for (const BarReference& r : chart.references) {
      const double x = bar_x(r.series, r.group);
      const double y = ys.t(r.value);
      doc.line(x - 2, y, x + bar_w * 0.92 + 2, y, style);
    }
    doc.raw("</g>\n");
    doc.legend_entry(legend++, chart.reference_label, swatch_line(style));
  }
  if (lo < 0) doc.line(kLeft, y0, kLeft + kPlotW, y0, "stroke=\"#333\"");
  return doc.finish();
}

}  // namespace c3::validator::charts
