// io/scenario_reader.cpp: scenario files (docs/formats.md, "Scenarios").
#include <algorithm>
#include <map>
#include <optional>

#include "c3/io.hpp"
#include "io/readers.hpp"

namespace c3::io {
namespace {

using detail::Field;

/// A GEMM of the `gemms` mapping, with its measured class when given.
struct TaggedGemm {
  Gemm gemm;
  std::optional<GemmClass> gemm_class;
};

TaggedGemm read_gemm(const Field& field, const detail::Defaults& defaults) {
  field.expect_keys({"m", "n", "k", "dtype", "layout", "gemm_class", "ref"});
  TaggedGemm tagged;
  Gemm& gemm = tagged.gemm;
  gemm.m = field.at("m").positive_integer();
  gemm.n = field.at("n").positive_integer();
  gemm.k = field.at("k").positive_integer();
  const auto dtype = field.find("dtype");
  gemm.dtype = dtype ? detail::read_dtype(*dtype) : defaults.dtype;
  if (const auto layout = field.find("layout")) gemm.layout = detail::read_gemm_layout(*layout);
  tagged.gemm_class = detail::read_gemm_class(field);
  if (const auto ref = field.find("ref")) ref->text();
  detail::at_field(field, [&] { validate(gemm); });
  return tagged;
}

std::map<std::string, TaggedGemm> read_gemms(const Field& gemms, const detail::Defaults& defaults) {
  std::map<std::string, TaggedGemm> out;
  for (const auto& [tag, field] : gemms.entries()) out[tag] = read_gemm(field, defaults);
  if (out.empty()) gemms.fail("at least one GEMM is required");
  return out;
}

const TaggedGemm& gemm_named(const Field& field, const std::map<std::string, TaggedGemm>& gemms) {
  const std::string tag = field.text();
  const auto it = gemms.find(tag);
  if (it != gemms.end()) return it->second;
  std::string known;
  for (const auto& [name, gemm] : gemms) known += (known.empty() ? "" : ", ") + name;
  field.fail("unknown GEMM '" + tag + "' (defined in gemms: " + known + ")");
}

// The pair's dependency (its own, else the defaults'), checked against each collective
// kind and the size: a dependent pair's size may be omitted (it is then the GEMM operand
// the collective moves, dependent_operand_bytes) and must match when given.
void append_pair(const Field& field, const std::map<std::string, TaggedGemm>& gemms,
                 const detail::Defaults& defaults, std::vector<C3Pair>& out) {
  field.expect_keys({"name", "gemm", "size", "collectives", "ranks", "dependency", "ref"});
  if (const auto ref = field.find("ref")) ref->text();
  C3Pair pair;
  pair.name = detail::read_name(field.at("name"));
  const Field gemm_field = field.at("gemm");
  const TaggedGemm& gemm = gemm_named(gemm_field, gemms);
  pair.gemm = gemm.gemm;
  pair.gemm_class = gemm.gemm_class;
  const auto dependency = field.find("dependency");
  pair.dependency = dependency ? detail::read_dependency(*dependency) : defaults.dependency;
  const bool dependent = pair.dependency != Dependency::none;
  const std::int64_t operand_bytes =
      dependent ? detail::at_field(gemm_field, [&] { return dependent_operand_bytes(pair.gemm, pair.dependency); })
                : 0;
  const auto size = dependent ? field.find("size") : std::optional<Field>(field.at("size"));
  pair.collective.size_bytes = size ? detail::read_size(*size) : operand_bytes;
  pair.collective.ranks = detail::ranks_or_default(field, defaults);
  const Field kinds = field.at("collectives");
  const std::vector<Field> elements = kinds.elements();
  if (elements.empty()) kinds.fail("at least one collective is required");
  std::vector<CollectiveKind> seen;
  for (const Field& kind : elements) {
    pair.collective.kind = detail::read_collective_kind(kind);
    if (std::find(seen.begin(), seen.end(), pair.collective.kind) != seen.end())
      kind.fail("collective '" + std::string(to_string(pair.collective.kind)) + "' listed twice");
    seen.push_back(pair.collective.kind);
    if (dependent) {
      // The kind first (at the kind), then the size (at the size).
      Collective moved = pair.collective;
      moved.size_bytes = operand_bytes;
      detail::at_field(kind, [&] { validate_dependency(pair.gemm, moved, pair.dependency); });
      if (size) detail::at_field(*size, [&] { validate_dependency(pair.gemm, pair.collective, pair.dependency); });
    }
    out.push_back(pair);
  }
}

}  // namespace

std::vector<C3Pair> parse_scenarios(std::string_view yaml_text, const std::string& origin) {
  const Field root = detail::parse_document(yaml_text, origin);
  root.expect_keys({"schema_version", "name", "description", "provenance", "defaults",
                    "gemm_class_measured_on", "generated", "gemms", "pairs"});
  detail::read_header(root);
  // What made a generated file (docs/scenarios.md): recorded for people, not used here.
  if (const auto generated = root.find("generated")) generated->entries();
  const detail::Defaults defaults = detail::read_defaults(root, /*with_dependency=*/true);
  const std::map<std::string, TaggedGemm> gemms = read_gemms(root.at("gemms"), defaults);
  const Field pairs = root.at("pairs");
  std::vector<C3Pair> out;
  std::map<std::string, int> lines;  // each pair's name once: --only and every report name pairs by it
  for (const Field& pair : pairs.elements()) {
    append_pair(pair, gemms, defaults, out);  // first: its keys checked, its name read
    const Field name = pair.at("name");
    const auto [first, fresh] = lines.emplace(out.back().name, name.line());
    if (!fresh) name.fail("pair name '" + first->first + "' used twice (first at line " + std::to_string(first->second) + ")");
  }
  if (out.empty()) pairs.fail("at least one pair is required");
  if (const auto on = root.find("gemm_class_measured_on")) {
    const std::string profile = on->text();
    for (C3Pair& pair : out) pair.gemm_class_measured_on = profile;
  }
  return out;
}

std::vector<C3Pair> load_scenarios(const std::string& path) {
  return parse_scenarios(read_file(path), path);
}

void set_ranks(std::vector<C3Pair>& pairs, int ranks) {
  for (C3Pair& pair : pairs) pair.collective.ranks = ranks;
}

}  // namespace c3::io
