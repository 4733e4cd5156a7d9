// apps/run_support.cpp: see run_support.hpp.
#include "apps/run_support.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <iostream>
#include <memory>
#include <string_view>

#include "c3/errors.hpp"
#include "c3/io.hpp"
#include "c3/views.hpp"

namespace c3::apps {

std::string git_sha() {
  // A copy of the tree without .git (the GPU machines) is told its commit.
  if (const char* given = std::getenv("C3_GIT_SHA"); given != nullptr && *given != '\0') return given;
  std::unique_ptr<FILE, int (*)(FILE*)> pipe(popen("git rev-parse HEAD 2>/dev/null", "r"), pclose);
  if (!pipe) return "";
  std::array<char, 256> buffer{};
  std::string out = fgets(buffer.data(), buffer.size(), pipe.get()) ? buffer.data() : "";
  while (!out.empty() && (out.back() == '\n' || out.back() == '\r')) out.pop_back();
  return out;
}

std::string utc_now() {
  const std::time_t now = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&now, &tm);
  std::array<char, 32> text{};
  std::strftime(text.data(), text.size(), "%Y-%m-%dT%H:%M:%SZ", &tm);
  return text.data();
}

void print_step(const validator::Step& s) { std::cerr << validator::step_line(s) << std::endl; }

std::string join_ints(const std::vector<int>& values) {
  std::string s;
  for (int x : values) s += (s.empty() ? "" : ",") + std::to_string(x);
  return s;
}

std::string shell_word(const std::string& value) {
  const bool plain = !value.empty() && std::all_of(value.begin(), value.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) != 0 ||
           std::string_view("_./:=,@+%-").find(c) != std::string_view::npos;
  });
  if (plain) return value;
  std::string quoted = "'";
  for (const char c : value) quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return quoted + "'";
}

std::size_t count_failed(const validator::RawMeasurements& raw) {
  std::size_t failed = 0;
  for (const validator::Record& r : raw.records) failed += r.measurement.ok ? 0 : 1;
  return failed;
}


}  // namespace c3::apps
