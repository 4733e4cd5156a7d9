// fuzz_report_charts: the charts of `c3advisor report` (validator/accuracy_charts.hpp,
// internal) on arbitrary numbers. apps/report.cpp reads the validate document's
// numbers (any finite JSON number) and hands them to charts::svg unchecked, so the
// charts must take any finite value: typed errors only (InputError for inconsistent
// series), a finite drawing (no nan/inf in the SVG), and in bounded time.
// Input: one flags byte, then series of finite doubles (non-finite bytes are skipped:
// a JSON document cannot hold them). Seeds: fuzz/corpus/report_charts.
#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>

#include "fuzz_support.hpp"
#include "views/charts.hpp"

namespace {

using namespace c3;
using namespace c3::fuzz;
namespace charts = c3::validator::charts;

class Bytes {
 public:
  Bytes(const std::uint8_t* data, std::size_t size) : data_(data), size_(size) {}
  bool empty() const { return at_ >= size_; }
  std::uint8_t byte() { return at_ < size_ ? data_[at_++] : 0; }
  /// The next finite double (8 bytes); false at the end of the input.
  bool number(double& out) {
    while (at_ + 8 <= size_) {
      std::memcpy(&out, data_ + at_, 8);
      at_ += 8;
      if (std::isfinite(out)) return true;
    }
    at_ = size_;
    return false;
  }

 private:
  const std::uint8_t* data_;
  std::size_t size_;
  std::size_t at_ = 0;
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  Bytes in(data, size);
  const std::uint8_t flags = in.byte();
  const std::uint8_t shape = in.byte();
  const std::size_t series = 1 + shape % 4;        // 1..4 series
  const std::size_t points = 1 + (shape / 4) % 8;  // 1..8 points (groups for bars)

  charts::XYChart xy;
  xy.title = "xy";
  xy.x = {"x", (flags & 1) != 0, (flags & 2) != 0};
  xy.y = {"y", (flags & 4) != 0, (flags & 8) != 0};
  xy.style = (flags & 16) != 0 ? charts::XYChart::Style::points : charts::XYChart::Style::lines;
  xy.identity_line = (flags & 32) != 0;
  charts::BarChart bars;
  bars.title = "bars";
  bars.y = {"y", false, (flags & 64) != 0};
  for (std::size_t g = 0; g < points; ++g) bars.groups.push_back("g" + std::to_string(g));

  for (std::size_t s = 0; s < series; ++s) {
    charts::Series line{"s" + std::to_string(s), {}, {}};
    charts::BarSeries bar{"s" + std::to_string(s), {}};
    for (std::size_t p = 0; p < points; ++p) {
      double x = 0, y = 0;
      if (!in.number(x) || !in.number(y)) break;
      line.x.push_back(x);
      line.y.push_back(y);
      bar.values.push_back((flags & 128) != 0 && p % 2 == 1 ? std::nullopt : std::optional<double>(y));
    }
    xy.series.push_back(std::move(line));
    // A bar series has one value per group (documented); pad, as report does with nullopt.
    bar.values.resize(bars.groups.size());
    bars.series.push_back(std::move(bar));
  }
  if (!bars.series.empty() && bars.series[0].values[0]) bars.references.push_back({0, 0, *bars.series[0].values[0]});

  std::string svg;
  if (typed("charts::svg(xy)", [&] { svg = charts::svg(xy); })) check_text(svg, "xy chart");
  if (typed("charts::svg(bars)", [&] { svg = charts::svg(bars); })) check_text(svg, "bar chart");
  return 0;
}
