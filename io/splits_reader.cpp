// io/splits_reader.cpp: the train/test manifest (c3/splits.hpp, docs/formats.md "Splits").
#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <map>

#include "c3/errors.hpp"
#include "c3/io.hpp"
#include "c3/splits.hpp"
#include "io/readers.hpp"

namespace c3 {

std::string_view to_string(SplitKind split) {
  switch (split) {
    case SplitKind::train: return "train";
    case SplitKind::test: return "test";
    case SplitKind::unlisted: return "unlisted";
  }
  return "?";
}

namespace {
std::string file_name(const std::string& path) { return std::filesystem::path(path).filename().string(); }
}  // namespace

SplitKind Splits::split_of(const std::string& file) const {
  const std::string name = file_name(file);
  for (const SplitEntry& entry : entries)
    if (file_name(entry.file) == name) return entry.split;
  return SplitKind::unlisted;
}

}  // namespace c3

namespace c3::io {
namespace {

using detail::Field;

SplitEntry read_entry(const Field& field) {
  field.expect_keys({"file", "split", "scenarios", "seed", "note"});
  SplitEntry entry;
  entry.file = detail::read_name(field.at("file"));
  const Field split = field.at("split");
  entry.split = detail::enum_named(split, split.text(), "split", {SplitKind::train, SplitKind::test});
  entry.scenarios = detail::read_name(field.at("scenarios"));
  if (const auto seed = field.find("seed")) entry.seed = static_cast<std::uint64_t>(seed->integer_in(0, INT64_MAX));
  if (const auto note = field.find("note")) entry.note = note->text();
  return entry;
}

}  // namespace

Splits parse_splits(std::string_view yaml_text, const std::string& origin) {
  const Field root = detail::parse_document(yaml_text, origin);
  root.expect_keys({"schema_version", "description", "files"});
  detail::check_schema_version(root);
  if (const auto description = root.find("description")) description->text();
  Splits splits;
  splits.path = origin;
  std::map<std::string, int> line_of;
  for (const Field& field : root.at("files").elements()) {
    SplitEntry entry = read_entry(field);
    const std::string name = std::filesystem::path(entry.file).filename().string();
    const auto [it, fresh] = line_of.emplace(name, field.line());
    if (!fresh)
      field.at("file").fail("'" + name + "' is listed twice (also at line " + std::to_string(it->second) + ")");
    splits.entries.push_back(std::move(entry));
  }
  return splits;
}

Splits load_splits(const std::string& path, bool optional) {
  std::error_code error;
  if (optional && !std::filesystem::exists(path, error)) return {};
  return parse_splits(read_file(path), path);
}

std::vector<std::string> scenario_sets_of(const Splits& splits, SplitKind split) {
  std::vector<std::string> sets;
  for (const SplitEntry& entry : splits.entries) {
    if (entry.split != split) continue;
    const std::string word = entry.scenarios.substr(0, entry.scenarios.find_first_of(" ,"));
    const bool yaml = word.size() > 5 && word.compare(word.size() - 5, 5, ".yaml") == 0;
    if ((yaml || word == "paper") && std::find(sets.begin(), sets.end(), word) == sets.end())
      sets.push_back(word);
  }
  return sets;
}

void require_not_test(const Splits& splits, const std::string& file, const std::string& use) {
  if (splits.split_of(file) != SplitKind::test) return;
  throw InputError(file + " is listed as test in " + splits.path + ": test files are only scored (validate), never used by " +
                   use + " (docs/accuracy.md, \"Train and test\")");
}

}  // namespace c3::io
