// io/number_format.cpp: see number_format.hpp.
#include "io/number_format.hpp"

#include <array>
#include <charconv>

namespace c3::io::detail {

std::string format_number(double x) {
  std::array<char, 32> buffer{};
  const auto result = std::to_chars(buffer.data(), buffer.data() + buffer.size(), x);
  return std::string(buffer.data(), result.ptr);
}

}  // namespace c3::io::detail
