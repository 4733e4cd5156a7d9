// io/resolve.cpp: embedded profiles and scenarios, and the name-or-path lookups
// the command line uses.
#include <algorithm>
#include <filesystem>

#include "c3/errors.hpp"
#include "c3/io.hpp"
#include "io/embedded.hpp"
#include "io/readers.hpp"

namespace c3::io {
namespace {

constexpr std::string_view kPaperScenarios = "paper";

std::string embedded_origin(std::string_view name) {
  return "data/profiles/" + std::string(name) + ".yaml";
}

bool is_file(const std::string& path) {
  std::error_code ec;
  return std::filesystem::is_regular_file(path, ec);
}

// A name that can only be a path (a folder in it, or a file extension): read as a file, so
// that a missing one says why ("cannot read: No such file or directory").
bool looks_like_path(const std::string& name) {
  const std::string ext = std::filesystem::path(name).extension().string();
  return name.find('/') != std::string::npos || ext == ".yaml" || ext == ".yml" || ext == ".json";
}

std::string joined_profile_names() {
  std::string out;
  for (const std::string& name : embedded_profile_names()) out += (out.empty() ? "" : ", ") + name;
  return out;
}

HardwareProfile parse_embedded_profile(std::string_view name) {
  const std::string origin = embedded_origin(name);
  const detail::Field root = detail::parse_document(embedded_profile_text(name), origin);
  HardwareProfile hw = detail::read_profile(root);
  if (hw.name != name) root.at("name").fail("must match the file name '" + std::string(name) + "'");
  return hw;
}

}  // namespace

std::vector<std::string> embedded_profile_names() {
  std::vector<std::string> names;
  for (const auto& [name, text] : detail::embedded_profiles()) names.emplace_back(name);
  std::sort(names.begin(), names.end());
  return names;
}

std::string_view embedded_profile_text(std::string_view name) {
  for (const auto& [embedded, text] : detail::embedded_profiles()) {
    if (embedded == name) return text;
  }
  throw InputError("unknown embedded profile '" + std::string(name) + "' (embedded: " +
                   joined_profile_names() + ")");
}

HardwareProfile resolve_profile(const std::string& name_or_path) {
  const auto& embedded = detail::embedded_profiles();
  const bool is_embedded = std::any_of(embedded.begin(), embedded.end(),
                                       [&](const auto& entry) { return entry.first == name_or_path; });
  if (is_embedded) return parse_embedded_profile(name_or_path);
  if (is_file(name_or_path) || looks_like_path(name_or_path)) return load_profile(name_or_path);
  throw InputError("unknown profile '" + name_or_path + "': neither an embedded profile (" +
                   joined_profile_names() + ") nor a profile file");
}

std::vector<C3Pair> resolve_scenarios(const std::string& name_or_path) {
  if (name_or_path == kPaperScenarios) {
    return parse_scenarios(detail::embedded_paper_scenarios(), "data/scenarios/paper.yaml");
  }
  if (is_file(name_or_path) || looks_like_path(name_or_path)) return load_scenarios(name_or_path);
  throw InputError("unknown scenarios '" + name_or_path + "': neither '" +
                   std::string(kPaperScenarios) + "' nor a scenarios file");
}

}  // namespace c3::io
