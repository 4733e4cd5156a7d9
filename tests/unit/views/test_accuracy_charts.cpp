// The SVG charts of `c3advisor report` (views/charts.hpp): well-formed
// XML (balanced tags, one root), the expected series, titles and axis labels.
#include <gtest/gtest.h>

#include <algorithm>
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

TEST(Charts, ByteAxesAreLabelledInBinaryUnits) {
  EXPECT_EQ(byte_label(512), "512B");
  EXPECT_EQ(byte_label(64 * 1024), "64KiB");
  EXPECT_EQ(byte_label(896.0 * (1 << 20)), "896MiB");
  EXPECT_EQ(byte_label(1024.0 * 1024 * 1024), "1GiB");
  // 1 KiB .. 1 GiB: 21 powers of 2, thinned to one tick per unit and a half.
  const std::vector<double> t = byte_ticks(1024, 1024.0 * 1024 * 1024);
  ASSERT_FALSE(t.empty());
  EXPECT_LE(t.size(), 11u);
  EXPECT_EQ(t.front(), 1024);
  EXPECT_EQ(t.back(), 1024.0 * 1024 * 1024);
  EXPECT_EQ(byte_ticks(4096, 65536), (std::vector<double>{4096, 8192, 16384, 32768, 65536}));

  XYChart c;
  c.title = "busbw";
  c.x = {"size", true, false, true};
  c.y = {"GB/s", true, false};
  c.series = {{"nccl", {4096, 1 << 20, 1 << 30}, {1, 50, 300}}};
  const std::string svg_text = svg(c);
  EXPECT_EQ(xml_problem(svg_text), "");
  for (const char* label : {">4KiB</text>", ">1MiB</text>", ">1GiB</text>"})
    EXPECT_NE(svg_text.find(label), std::string::npos) << label;
  EXPECT_EQ(svg_text.find(">1e+06</text>"), std::string::npos);
}

TEST(Charts, OneColourPerStrategyKindInEveryChart) {
  const std::vector<std::string> kinds{"serial", "base", "sp", "rp", "dma", "dma_rp", "advisor", "oracle"};
  std::vector<std::string> colours;
  for (const std::string& k : kinds) {
    const std::string c = series_colour(k);
    EXPECT_EQ(c.size(), 7u) << k;
    EXPECT_EQ(std::count(colours.begin(), colours.end(), c), 0) << k << " shares " << c;
    colours.push_back(c);
  }
  EXPECT_EQ(series_colour("rp:32"), series_colour("rp"));
  EXPECT_EQ(series_colour("rp(best)"), series_colour("rp"));
  EXPECT_EQ(series_colour("dma_rp(best)"), series_colour("dma_rp"));
  EXPECT_EQ(series_colour("nccl x8"), series_colour("sp"));  // benchmarks: NCCL runs on SMs
  EXPECT_EQ(series_colour("ce_push_batch_ovl"), series_colour("dma"));
  EXPECT_EQ(series_colour("8192x8192x8192:bf16"), "");

  // The same kind has the same fill in a bar chart and a scatter, whatever its position.
  BarChart bars;
  bars.groups = {"all"};
  bars.series = {{"dma", {0.5}}, {"sp", {0.4}}};
  XYChart xy;
  xy.style = XYChart::Style::points;
  xy.series = {{"sp", {1}, {1}}, {"rp", {2}, {2}}, {"dma", {3}, {3}}};
  const std::string fill = "fill=\"" + series_colour("dma") + "\"";
  EXPECT_NE(svg(bars).find(fill), std::string::npos);
  EXPECT_NE(svg(xy).find(fill), std::string::npos);
}

TEST(Charts, ManySeriesCanBeToldApart) {
  XYChart c;
  for (int i = 0; i < 14; ++i) c.series.push_back({"gemm " + std::to_string(i), {0, 1}, {1, 2}});
  c.series.push_back({"ce_a", {0, 1}, {1, 3}});
  c.series.push_back({"ce_b", {0, 1}, {1, 4}});  // copy-engine variants: the dma colour, dashed
  for (int i = 0; i < 8; ++i) c.series.push_back({"ce_" + std::to_string(i), {0, 1}, {2, 3}});
  const std::string svg_text = svg(c);
  EXPECT_EQ(xml_problem(svg_text), "");
  // Every line's (stroke, dash) pair is its own.
  std::vector<std::string> styles;
  for (std::size_t at = svg_text.find("<polyline"); at != std::string::npos; at = svg_text.find("<polyline", at + 1)) {
    const std::size_t end = svg_text.find("points=", at);
    styles.push_back(svg_text.substr(at, end - at));
  }
  ASSERT_EQ(styles.size(), 24u);
  EXPECT_NE(styles[14].find("stroke=\"" + series_colour("dma") + "\""), std::string::npos) << styles[14];
  for (std::size_t i = 0; i < styles.size(); ++i)
    for (std::size_t j = i + 1; j < styles.size(); ++j) EXPECT_NE(styles[i], styles[j]) << i << " " << j;
}

TEST(Charts, CsvHoldsEachChartsData) {
  XYChart c;
  c.x = {"size (bytes)", true, false, true};
  c.y = {"bus bandwidth, GB/s", true, false};
  c.series = {{"nccl", {4096, 8192}, {1.5, 3}}, {"ce", {4096}, {0.25}}};
  EXPECT_EQ(csv(c), "series,size (bytes),\"bus bandwidth, GB/s\"\nnccl,4096,1.5\nnccl,8192,3\nce,4096,0.25\n");
  BarChart bars;
  bars.y = {"fraction of ideal", false, true};
  bars.groups = {"all (30)", "all_gather (15)"};
  bars.series = {{"sp", {0.5, std::nullopt}}, {"dma", {0.75, 0.7}}};
  bars.references = {{1, 0, 0.8}};
  bars.reference_label = "paper";
  EXPECT_EQ(csv(bars),
            "group,series,fraction of ideal,paper\n"
            "all (30),sp,0.5,\nall_gather (15),sp,,\nall (30),dma,0.75,0.8\nall_gather (15),dma,0.7,\n");
  XYChart bad;
  bad.series = {{"bad", {1, 2}, {1}}};
  EXPECT_THROW(csv(bad), InputError);
}

}  // namespace
}  // namespace c3::validator::charts
