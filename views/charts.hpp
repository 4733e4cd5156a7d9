// views/charts.hpp: the charts of `c3advisor report`, as SVG text
// written by the project (no plotting library): grouped bars (fraction of ideal per
// strategy family and group) and x-y charts, linear or log axes, lines or points
// (predicted vs measured time, GEMM slowdown vs SMs removed, collective time vs
// CTAs). Every chart has a title, axis labels and a legend; each series is one
// <g class="series" data-series="NAME"> element, so tests and tools can find it.
// Colours: a strategy kind (and the transport of a collective benchmark) has one colour
// in every chart (series_colour); other series take a colour-blind-safe palette in
// order; a line whose colour an earlier line already has is dashed, so that every series
// can be told apart. Each chart's data is also written as CSV (csv()).
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace c3::validator::charts {

struct Axis {
  std::string label;
  bool log = false;      ///< log10 scale: non-positive values are left out
  bool percent = false;  ///< tick labels as percentages of 1
  /// Values are sizes in bytes: ticks at powers of 2 labelled "64KiB", "1GiB" (log axes).
  bool bytes = false;
};

/// One named line or point set; x and y have the same length.
struct Series {
  std::string name;
  std::vector<double> x;
  std::vector<double> y;
};

struct XYChart {
  enum class Style { lines, points };
  std::string title;
  std::string subtitle;  ///< optional second line under the title
  Axis x;
  Axis y;
  Style style = Style::lines;
  std::vector<Series> series;
  bool identity_line = false;  ///< draws y = x across the plot (predicted vs measured)
};

struct BarSeries {
  std::string name;
  std::vector<std::optional<double>> values;  ///< one per group; none = no bar
};

/// A mark drawn across one bar at a reference value (the paper's published figure).
struct BarReference {
  std::size_t series = 0;
  std::size_t group = 0;
  double value = 0;
};

struct BarChart {
  std::string title;
  std::string subtitle;
  std::string x_label;
  Axis y;  ///< linear; log is not supported for bars
  std::vector<std::string> groups;
  std::vector<BarSeries> series;
  std::vector<BarReference> references;
  std::string reference_label;  ///< legend entry of the marks (when there are any)
};

/// The fixed colour of a strategy kind's series ("serial", "base", "sp", "rp", "dma",
/// "dma_rp", a label such as "rp:32" or "rp(best)", "advisor", "oracle") or of a
/// collective benchmark's transport ("nccl", "cu": on SMs as sp; "ce", "ce_*",
/// "nccl_ce", "dma": on copy engines as dma), "#rrggbb"; "" for any other name.
std::string series_colour(std::string_view name);

/// A size in bytes as an axis label: "512B", "64KiB", "1.5MiB", "2GiB".
std::string byte_label(double bytes);

/// Tick positions of a log axis of sizes in bytes over [lo, hi]: powers of 2, every
/// 2nd, 4th... so that there are at most about 10.
std::vector<double> byte_ticks(double lo, double hi);

/// The chart's data as CSV (RFC 4180, a header row, numbers in their shortest exact
/// spelling): x-y charts one row per point (series, x, y; the axis labels in the header),
/// bar charts one row per bar (group, series, value, and the reference mark's value).
std::string csv(const XYChart& chart);
std::string csv(const BarChart& chart);

/// The chart as a standalone SVG document. Throws InputError for inconsistent input
/// (series of unequal lengths, a bar series without one value per group).
std::string svg(const XYChart& chart);
std::string svg(const BarChart& chart);

/// `text` with &, <, >, " and ' escaped for XML text and attributes.
std::string escape_xml(std::string_view text);

/// Tick positions of a linear axis over [lo, hi]: multiples of 1, 2 or 5 x 10^k,
/// about `target` of them, covering the range.
std::vector<double> linear_ticks(double lo, double hi, int target = 6);

}  // namespace c3::validator::charts
