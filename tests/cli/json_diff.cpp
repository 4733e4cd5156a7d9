// tests/cli/json_diff.cpp: c3_json_diff EXPECTED ACTUAL. Compares two JSON
// documents structurally: objects by key (order ignored), arrays in order, numbers
// with a relative tolerance of 1e-9, everything else exactly. Prints the first
// difference by its path and exits 1; exits 0 when they match, 2 on bad input.
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <iostream>
#include <optional>
#include <string>

namespace {

using Json = nlohmann::json;

constexpr double kRelativeTolerance = 1e-9;

std::optional<Json> load(const std::string& path) {
  std::ifstream in(path);
  if (!in) {
    std::cerr << "c3_json_diff: cannot read " << path << "\n";
    return std::nullopt;
  }
  try {
    return Json::parse(in);
  } catch (const Json::parse_error& e) {
    std::cerr << "c3_json_diff: " << path << ": " << e.what() << "\n";
    return std::nullopt;
  }
}

bool numbers_match(double a, double b) {
  return a == b || std::fabs(a - b) <= kRelativeTolerance * std::max(std::fabs(a), std::fabs(b));
}

/// The first difference as "path: what", or nullopt when the values match.
std::optional<std::string> difference(const Json& expected, const Json& actual, const std::string& path) {
  if (expected.is_number() && actual.is_number()) {
    if (numbers_match(expected.get<double>(), actual.get<double>())) return std::nullopt;
    return path + ": expected " + expected.dump() + ", got " + actual.dump();
  }
  if (expected.type() != actual.type()) {
    return path + ": expected " + expected.type_name() + ", got " + actual.type_name();
  }
  if (expected.is_object()) {
    for (const auto& [key, value] : expected.items()) {
      if (!actual.contains(key)) return path + "." + key + ": missing";
      if (auto d = difference(value, actual.at(key), path + "." + key)) return d;
    }
    for (const auto& [key, value] : actual.items()) {
      if (!expected.contains(key)) return path + "." + key + ": unexpected";
    }
    return std::nullopt;
  }
  if (expected.is_array()) {
    if (expected.size() != actual.size()) {
      return path + ": expected " + std::to_string(expected.size()) + " elements, got " +
             std::to_string(actual.size());
    }
    for (std::size_t i = 0; i < expected.size(); ++i) {
      if (auto d = difference(expected[i], actual[i], path + "[" + std::to_string(i) + "]")) return d;
    }
    return std::nullopt;
  }
  if (expected == actual) return std::nullopt;
  return path + ": expected " + expected.dump() + ", got " + actual.dump();
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    std::cerr << "usage: c3_json_diff EXPECTED.json ACTUAL.json\n";
    return 2;
  }
  const auto expected = load(argv[1]);
  const auto actual = load(argv[2]);
  if (!expected || !actual) return 2;
  if (const auto d = difference(*expected, *actual, "$")) {
    std::cout << *d << "\n";
    return 1;
  }
  return 0;
}
