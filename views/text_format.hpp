// views/text_format.hpp: number spellings and aligned text tables for the
// human-readable outputs (the shortest exact spelling is io/number_format.hpp).
#pragma once

#include <string>
#include <vector>

#include "c3/profile.hpp"
#include "io/number_format.hpp"

namespace c3::io::detail {

/// A time with a unit chosen for it: "1.234 s", "12.345 ms", "30.000 us", "5.000 ns".
std::string format_seconds(double seconds);
/// "1.37x".
std::string format_speedup(double speedup);
/// A fraction as a percentage: 0.2134 -> "21.3%".
std::string format_percent(double fraction);

/// How many of a profile's values come from each kind of source, the kinds it has only,
/// in kSourceKinds order: "22 published, 9 spec, 13 fitted, 1 assumed".
std::string source_counts_text(const HardwareProfile& hw);

/// One CSV line (RFC 4180): fields quoted where they hold a comma, quote or newline.
std::string csv_line(const std::vector<std::string>& fields);

/// Columns of text, separated by two spaces; numbers right-aligned.
class TextTable {
 public:
  enum class Align { left, right };
  struct Column {
    std::string header;
    Align align = Align::left;
  };

  explicit TextTable(std::vector<Column> columns);
  /// One row; it must have one cell per column.
  void add_row(std::vector<std::string> cells);
  /// The header, a rule and the rows, each line ending in '\n'; no trailing spaces.
  std::string render() const;

 private:
  std::string render_line(const std::vector<std::string>& cells,
                          const std::vector<std::size_t>& widths) const;

  std::vector<Column> columns_;
  std::vector<std::vector<std::string>> rows_;
};

}  // namespace c3::io::detail
