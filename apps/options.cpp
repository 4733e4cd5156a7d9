// apps/options.cpp: see options.hpp.
#include "apps/options.hpp"

#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <iostream>
#include <sstream>

#include "apps/commands.hpp"
#include "c3/errors.hpp"

namespace c3::apps {

void add_profile_option(CLI::App& sub, std::string& profile) {
  profile = kDefaultProfile;
  sub.add_option("--profile", profile,
                 "An embedded profile (see 'c3advisor profiles') or a profile YAML file")
      ->capture_default_str();
}

std::pair<CLI::Option*, CLI::Option*> add_resume_options(CLI::App& sub, bool& resume, bool& overwrite,
                                                         const std::string& file_option,
                                                         const std::string& scope) {
  const auto text = [&](std::string first_word, const std::string& rest) {
    if (!scope.empty())
      first_word[0] = static_cast<char>(std::tolower(static_cast<unsigned char>(first_word[0])));
    return scope + first_word + rest;
  };
  CLI::Option* keep =
      sub.add_flag("--resume", resume,
                   text("Keep", " the successful measurements of " + file_option + " and measure the rest"));
  CLI::Option* replace =
      sub.add_flag("--overwrite", overwrite,
                   text("Replace", " " + file_option +
                                       "'s file when it already holds measurements "
                                       "(without this or --resume such a file is refused)"))
          ->excludes(keep);
  return {keep, replace};
}

CLI::Option* add_ranks_option(CLI::App& sub, int& ranks, const std::string& default_text) {
  return sub.add_option("--ranks", ranks, "Ranks (GPUs) taking part in the collective (" +
                                              default_text + ")");
}

CLI::Validator unsigned_64_check() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        const bool digits = !text.empty() && text.find_first_not_of("0123456789") == std::string::npos;
        std::uint64_t value = 0;
        if (digits && std::from_chars(text.data(), text.data() + text.size(), value).ec == std::errc()) {
          text = std::to_string(value);  // decimal: CLI11 would read "010" as octal 8
          return {};
        }
        return "must be a whole number from 0 to 18446744073709551615 (2^64 - 1), got '" + text + "'";
      },
      "UINT64");
}

namespace {

// A number (as CLI11 reads one: strtod's spelling, finite) that passes `ok`.
CLI::Validator number_check(bool (*ok)(double), const std::string& what, const std::string& name) {
  return CLI::Validator(
      [ok, what](std::string& text) -> std::string {
        char* end = nullptr;
        const double x = std::strtod(text.c_str(), &end);
        if (!text.empty() && end == text.c_str() + text.size() && std::isfinite(x) && ok(x)) {
          // decimal: CLI11 would read an integer with a leading zero ("010") as octal
          const std::size_t digits = text.find_first_not_of('0');
          if (text.size() > 1 && text[0] == '0' && text.find_first_not_of("0123456789") == std::string::npos)
            text = digits == std::string::npos ? "0" : text.substr(digits);
          return {};
        }
        return "must be " + what + ", got '" + text + "'";
      },
      name);
}

}  // namespace

CLI::Validator positive_check() {
  return number_check([](double x) { return x > 0; }, "a number > 0", "POSITIVE");
}

CLI::Validator non_negative_check() {
  return number_check([](double x) { return x >= 0; }, "a number >= 0", "NONNEGATIVE");
}

std::vector<C3Pair> select_scenarios(std::vector<C3Pair> pairs, const std::string& only) {
  if (only.empty()) return pairs;
  std::vector<C3Pair> out;
  std::stringstream names(only);
  for (std::string name; std::getline(names, name, ',');) {
    const auto before = out.size();
    for (const C3Pair& p : pairs)
      if (p.name == name) out.push_back(p);
    if (out.size() == before) throw InputError("--only: no scenario named '" + name + "'");
  }
  return out;
}

void note_if_fitted_chained(const HardwareProfile& hw, bool chained) {
  const auto priced = hw.provenance_details.find("pairs_priced");
  if (chained || priced == hw.provenance_details.end() || priced->second != "chained") return;
  std::cerr << "note: profile '" << hw.name << "' was fitted for queued-ahead work (its train pairs priced "
            << "chained, docs/calibration.md): pass --chained to price independent pairs the same way\n";
}

}  // namespace c3::apps
