// views/text_format.cpp: see text_format.hpp.
#include "views/text_format.hpp"

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <stdexcept>

namespace c3::io::detail {
namespace {

std::string printf_double(const char* format, double x) {
  std::array<char, 64> buffer{};
  const int n = std::snprintf(buffer.data(), buffer.size(), format, x);
  if (n < 0) return {};
  if (static_cast<std::size_t>(n) < buffer.size()) return std::string(buffer.data(), static_cast<std::size_t>(n));
  // "%.3f" of a huge value (1e200 s from a profile's tiny peak) needs more room.
  std::string out(static_cast<std::size_t>(n) + 1, '\0');
  std::snprintf(out.data(), out.size(), format, x);
  out.resize(static_cast<std::size_t>(n));
  return out;
}

}  // namespace

std::string format_seconds(double seconds) {
  struct Unit {
    double scale;
    const char* format;
  };
  constexpr std::array<Unit, 3> kUnits{{{1.0, "%.3f s"}, {1e-3, "%.3f ms"}, {1e-6, "%.3f us"}}};
  for (const Unit& unit : kUnits) {
    if (std::fabs(seconds) >= unit.scale) return printf_double(unit.format, seconds / unit.scale);
  }
  return printf_double("%.3f ns", seconds / 1e-9);
}

std::string format_speedup(double speedup) { return printf_double("%.2fx", speedup); }

std::string format_percent(double fraction) { return printf_double("%.1f%%", fraction * 100.0); }

TextTable::TextTable(std::vector<Column> columns) : columns_(std::move(columns)) {}

void TextTable::add_row(std::vector<std::string> cells) {
  if (cells.size() != columns_.size()) throw std::logic_error("TextTable: wrong number of cells");
  rows_.push_back(std::move(cells));
}

std::string TextTable::render_line(const std::vector<std::string>& cells,
                                   const std::vector<std::size_t>& widths) const {
  std::string line;
  for (std::size_t i = 0; i < cells.size(); ++i) {
    const std::string pad(widths[i] - cells[i].size(), ' ');
    if (i > 0) line += "  ";
    line += columns_[i].align == Align::right ? pad + cells[i] : cells[i] + pad;
  }
  line.erase(line.find_last_not_of(' ') + 1);
  return line + "\n";
}

std::string TextTable::render() const {
  std::vector<std::size_t> widths;
  std::vector<std::string> headers;
  for (const Column& column : columns_) {
    widths.push_back(column.header.size());
    headers.push_back(column.header);
  }
  for (const auto& row : rows_) {
    for (std::size_t i = 0; i < row.size(); ++i) widths[i] = std::max(widths[i], row[i].size());
  }
  std::vector<std::string> rule;
  for (std::size_t i = 0; i < widths.size(); ++i)  // no rule under an untitled column
    rule.emplace_back(columns_[i].header.empty() ? 0 : widths[i], '-');
  std::string out = render_line(headers, widths) + render_line(rule, widths);
  for (const auto& row : rows_) out += render_line(row, widths);
  return out;
}

std::string source_counts_text(const HardwareProfile& hw) {
  std::string out;
  for (const auto& [kind, count] : source_counts(hw)) {
    if (count > 0) out += (out.empty() ? "" : ", ") + std::to_string(count) + " " + std::string(to_string(kind));
  }
  return out;
}

std::string csv_line(const std::vector<std::string>& fields) {
  std::string line;
  for (const std::string& field : fields) {
    if (!line.empty()) line += ",";
    if (field.find_first_of(",\"\n\r") == std::string::npos) {
      line += field;
      continue;
    }
    line += "\"";
    for (const char c : field) line += c == '"' ? std::string("\"\"") : std::string(1, c);
    line += "\"";
  }
  return line + "\n";
}

}  // namespace c3::io::detail
