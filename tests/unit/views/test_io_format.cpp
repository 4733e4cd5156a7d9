// Number spellings and text tables of the human-readable outputs.
#include <gtest/gtest.h>

#include <charconv>

#include "views/text_format.hpp"

namespace c3::io::detail {
namespace {

double read_back(const std::string& text) {
  double value = 0;
  std::from_chars(text.data(), text.data() + text.size(), value);
  return value;
}

TEST(IoFormat, NumbersReadBackExactly) {
  for (const double x : {0.7, 1.3074e15, 3.0e-5, 1.0 / 3.0, 268435456.0, 5e-324}) {
    EXPECT_EQ(read_back(format_number(x)), x) << format_number(x);
  }
  EXPECT_EQ(format_number(0.7), "0.7");
  EXPECT_EQ(format_number(64), "64");
}

TEST(IoFormat, SecondsPickAUnit) {
  EXPECT_EQ(format_seconds(2.5), "2.500 s");
  EXPECT_EQ(format_seconds(0.0123456), "12.346 ms");
  EXPECT_EQ(format_seconds(3e-5), "30.000 us");
  EXPECT_EQ(format_seconds(5e-9), "5.000 ns");
  EXPECT_EQ(format_seconds(0), "0.000 ns");
}

TEST(IoFormat, SpeedupsAndPercentages) {
  EXPECT_EQ(format_speedup(1.3749), "1.37x");
  EXPECT_EQ(format_percent(0.2134), "21.3%");
  EXPECT_EQ(format_percent(-1.327), "-132.7%");
}

TEST(IoFormat, TableAlignsColumns) {
  TextTable table({{"name"}, {"value", TextTable::Align::right}, {"note"}});
  table.add_row({"a", "1", ""});
  table.add_row({"longer", "12345", "x"});
  EXPECT_EQ(table.render(),
            "name    value  note\n"
            "------  -----  ----\n"
            "a           1\n"
            "longer  12345  x\n");
  EXPECT_THROW(table.add_row({"too", "few"}), std::logic_error);
}

}  // namespace
}  // namespace c3::io::detail
