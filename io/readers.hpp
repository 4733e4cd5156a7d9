// io/readers.hpp: pieces shared by the profile, scenario and trace readers
// (docs/formats.md). Each reads one Field and throws ConfigError at it.
#pragma once

#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>

#include "c3/errors.hpp"
#include "c3/profile.hpp"
#include "c3/types.hpp"
#include "io/yaml_field.hpp"

namespace c3::io::detail {

/// Checks `schema_version: 1`.
void check_schema_version(const Field& root);

/// What scenario and trace files share: schema_version, name, optional
/// description and provenance (checked, not kept).
struct FileHeader {
  std::string name;
  std::string description;
};
FileHeader read_header(const Field& root);

/// A non-empty string.
std::string read_name(const Field& field);

/// `source` and `ref` of a mapping whose keys the caller has checked.
Provenance read_provenance(const Field& field);

/// The one of `values` spelled `text` (as to_string(value)); else an error at
/// `field` listing the spellings.
template <typename Enum>
Enum enum_named(const Field& field, std::string_view text, std::string_view what,
                std::initializer_list<Enum> values) {
  std::string valid;
  for (Enum value : values) {
    if (to_string(value) == text) return value;
    valid += (valid.empty() ? "" : ", ") + std::string(to_string(value));
  }
  field.fail("unknown " + std::string(what) + " '" + std::string(text) + "' (valid: " + valid + ")");
}

/// A collective kind spelled `name` (a value, or the key of `field`).
CollectiveKind collective_kind_named(const Field& field, std::string_view name);
CollectiveKind read_collective_kind(const Field& field);
DType dtype_named(const Field& field, std::string_view name);
DType read_dtype(const Field& field);
/// "tn" or "row_major" (model.md §1.1); a ConfigError naming the field otherwise.
GemmLayout read_gemm_layout(const Field& field);
/// The optional `gemm_class` key of `entry`: a class measured elsewhere (the
/// paper's cb/mb tags) that wins over the roofline class.
std::optional<GemmClass> read_gemm_class(const Field& entry);
/// A size spelling of parse_size_bytes ("896MiB", "3.25G", 4096).
std::int64_t read_size(const Field& field);
/// An integer >= 2.
int read_ranks(const Field& field);

/// Runs `parse` (a c3 text parser); an InputError it throws becomes a ConfigError
/// at `field`.
template <typename Parse>
auto at_field(const Field& field, Parse&& parse) -> decltype(parse()) {
  try {
    return parse();
  } catch (const ConfigError&) {
    throw;
  } catch (const InputError& e) {
    field.fail(e.what());
  }
}

/// `defaults: {dtype, ranks}` of scenario and trace files; both optional. Scenario
/// files may add `dependency` (docs/formats.md, "Scenarios").
struct Defaults {
  DType dtype = DType::bf16;
  std::optional<int> ranks;
  Dependency dependency = Dependency::none;
};
/// `with_dependency`: the `dependency` key is allowed (scenario files); else it is an
/// unknown key.
Defaults read_defaults(const Field& root, bool with_dependency = false);

/// A dependency spelled as to_string(Dependency) ("none", "collective_feeds_gemm",
/// "gemm_feeds_collective").
Dependency read_dependency(const Field& field);

/// An entry's `ranks`, else the defaults' ranks; an error when neither is set.
int ranks_or_default(const Field& entry, const Defaults& defaults);

/// The profile in a parsed document (docs/formats.md).
HardwareProfile read_profile(const Field& root);

}  // namespace c3::io::detail
