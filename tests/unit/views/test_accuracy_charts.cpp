// The SVG charts of `c3advisor report` (views/charts.hpp): well-formed
// XML (balanced tags, one root), the expected series, titles and axis labels.
#include <gtest/gtest.h>

#include <vector>

#include "c3/errors.hpp"
#include "views/charts.hpp"

namespace c3::validator::charts {
namespace {

// A small well-formedness check: every element closed in order, one <svg> root,
// attribute values quoted, no stray '<' or '&' in text. Returns "" or the problem.
std::string xml_problem(const std::string& doc) {
  std::vector<std::string> open;
  bool root_seen = false;
  std::size_t i = 0;
  while (i < doc.size()) {
    if (doc[i] == '&') {
      const std::size_t semi = doc.find(';', i);
      if (semi == std::string::npos || semi - i > 6) return "bare & at " + std::to_string(i);
      i = semi + 1;
      continue;
    }
    if (doc[i] != '<') {
      if (doc[i] == '>') return "stray > at " + std::to_string(i);
      ++i;
      continue;
    }
    const std::size_t end = doc.find('>', i);
    if (end == std::string::npos) return "unterminated tag at " + std::to_string(i);
    std::string tag = doc.substr(i + 1, end - i - 1);
    i = end + 1;
    if (tag.starts_with("?")) continue;  // XML declaration
    // quotes must balance inside a tag
    if (std::count(tag.begin(), tag.end(), '"') % 2 != 0) return "unbalanced quotes in <" + tag + ">";
    if (tag.starts_with("/")) {
      const std::string name = tag.substr(1);
      if (open.empty() || open.back() != name) return "</" + name + "> closes nothing open";
      open.pop_back();
      continue;
    }
    const bool self_closing = tag.ends_with("/");
    const std::string name = tag.substr(0, tag.find_first_of(" /"));
    if (open.empty()) {
      if (root_seen) return "a second root <" + name + ">";
      if (name != "svg") return "root is <" + name + ">, not <svg>";
      root_seen = true;
    }
    if (!self_closing) open.push_back(name);
  }
  if (!open.empty()) return "<" + open.back() + "> never closed";
  return root_seen ? "" : "no root element";
}

bool has_series(const std::string& doc, const std::string& name) {
  return doc.find("<g class=\"series\" data-series=\"" + name + "\">") != std::string::npos &&
         doc.find("<g class=\"legend-entry\" data-series=\"" + name + "\">") != std::string::npos;
}

TEST(XmlCheck, CatchesWhatItShould) {
  EXPECT_EQ(xml_problem("<svg><g></g></svg>"), "");
  EXPECT_NE(xml_problem("<svg><g></svg>"), "");
  EXPECT_NE(xml_problem("<svg></svg><svg></svg>"), "");
  EXPECT_NE(xml_problem("<svg><text>a < b</text></svg>"), "");
  EXPECT_NE(xml_problem("<svg><text>R&D</text></svg>"), "");
}

TEST(Charts, EscapeXml) {
  EXPECT_EQ(escape_xml("rp(best) <a & \"b\"> 'c'"),
            "rp(best) &lt;a &amp; &quot;b&quot;&gt; &apos;c&apos;");
}

TEST(Charts, GroupedBarsAreWellFormedWithSeriesMarksTitleAndLabels) {
  BarChart c;
  c.title = "Fraction of ideal <by collective>";
  c.subtitle = "R&D";
  c.x_label = "collective";
  c.y = {"fraction of ideal", false, true};
  c.groups = {"all (30)", "all_gather (15)", "all_to_all (15)"};
  c.series = {{"base", {-0.02, 0.01, std::nullopt}}, {"dma", {0.75, 0.8, 0.7}},
              {"advisor", {0.74, 0.83, 0.64}}};
  c.references = {{0, 0, 0.21}, {1, 0, 0.66}};
  c.reference_label = "MI300X, paper";
  const std::string svg_text = svg(c);
  EXPECT_EQ(xml_problem(svg_text), "") << svg_text;
  for (const char* s : {"base", "dma", "advisor"}) EXPECT_TRUE(has_series(svg_text, s)) << s;
  EXPECT_NE(svg_text.find("<title>Fraction of ideal &lt;by collective&gt;</title>"), std::string::npos);
  EXPECT_NE(svg_text.find("R&amp;D"), std::string::npos);
  EXPECT_NE(svg_text.find("class=\"x-label\""), std::string::npos);
  EXPECT_NE(svg_text.find(">fraction of ideal</text>"), std::string::npos);
  EXPECT_NE(svg_text.find("data-series=\"MI300X, paper\""), std::string::npos);
  EXPECT_NE(svg_text.find(">all_to_all (15)</text>"), std::string::npos);
  EXPECT_NE(svg_text.find(">-20%</text>"), std::string::npos);  // room for the negative bar
  // 3 + 3 + 2 bars (one value missing).
  std::size_t bars = 0;
  for (std::size_t at = svg_text.find("<rect"); at != std::string::npos; at = svg_text.find("<rect", at + 1))
    ++bars;
  EXPECT_EQ(bars, 1u /* background */ + 8u + 3u /* legend swatches */);
}

TEST(Charts, LogLogScatterWithIdentityLine) {
  XYChart c;
  c.title = "Predicted vs measured";
  c.x = {"measured (ms)", true, false};
  c.y = {"predicted (ms)", true, false};
  c.style = XYChart::Style::points;
  c.identity_line = true;
  c.series = {{"sp", {1.0, 10.0, 0.0}, {1.1, 9.0, 5.0}}, {"dma", {50.0}, {45.0}}};
  const std::string svg_text = svg(c);
  EXPECT_EQ(xml_problem(svg_text), "") << svg_text;
  EXPECT_TRUE(has_series(svg_text, "sp"));
  EXPECT_TRUE(has_series(svg_text, "dma"));
  EXPECT_NE(svg_text.find("data-series=\"y = x\""), std::string::npos);
  // The point at x = 0 cannot be drawn on a log axis: 3 points, not 4.
  std::size_t points = 0;
  for (std::size_t at = svg_text.find("<circle"); at != std::string::npos;
       at = svg_text.find("<circle", at + 1))
    ++points;
  EXPECT_EQ(points, 3u + 2u /* legend markers */);
  EXPECT_NE(svg_text.find(">100</text>"), std::string::npos);  // decade ticks
}

TEST(Charts, LinesChart) {
  XYChart c;
  c.title = "GEMM slowdown vs SMs removed";
  c.x = {"SMs removed", false, false};
  c.y = {"slowdown", false, false};
  c.series = {{"8192x8192x8192:bf16", {0, 8, 16}, {1.0, 1.1, 1.2}}};
  const std::string svg_text = svg(c);
  EXPECT_EQ(xml_problem(svg_text), "");
  EXPECT_TRUE(has_series(svg_text, "8192x8192x8192:bf16"));
  EXPECT_NE(svg_text.find("<polyline"), std::string::npos);
}

TEST(Charts, EmptyChartsAreStillWellFormed) {
  EXPECT_EQ(xml_problem(svg(XYChart{})), "");
  EXPECT_EQ(xml_problem(svg(BarChart{})), "");
}

TEST(Charts, InconsistentInputIsAnInputError) {
  XYChart xy;
  xy.series = {{"bad", {1, 2}, {1}}};
  EXPECT_THROW(svg(xy), InputError);
  BarChart bars;
  bars.groups = {"a", "b"};
  bars.series = {{"s", {0.1}}};
  EXPECT_THROW(svg(bars), InputError);
  bars.series = {{"s", {0.1, 0.2}}};
  bars.references = {{3, 0, 0.5}};
  EXPECT_THROW(svg(bars), InputError);
}

TEST(Charts, LinearTicksCoverTheRange) {
  const std::vector<double> t = linear_ticks(-0.07, 0.84);
  ASSERT_FALSE(t.empty());
  EXPECT_LE(t.front(), -0.07);
  EXPECT_GE(t.back(), 0.84);
  EXPECT_NEAR(t[1] - t[0], 0.2, 1e-12);
  EXPECT_EQ(linear_ticks(8, 128), (std::vector<double>{0, 20, 40, 60, 80, 100, 120, 140}));
}

}  // namespace
}  // namespace c3::validator::charts
