// io/readers.cpp: see readers.hpp.
#include "io/readers.hpp"

#include <climits>

namespace c3::io::detail {

void check_schema_version(const Field& root) {
  const Field version = root.at("schema_version");
  const std::int64_t value = version.integer();
  if (value != 1) {
    version.fail("unsupported schema_version " + std::to_string(value) + " (this build reads 1)");
  }
}

FileHeader read_header(const Field& root) {
  check_schema_version(root);
  FileHeader header{read_name(root.at("name")), ""};
  if (const auto description = root.find("description")) header.description = description->text();
  if (const auto provenance = root.find("provenance")) {
    provenance->expect_keys({"source", "ref"});
    read_provenance(*provenance);
  }
  return header;
}

std::string read_name(const Field& field) {
  std::string text = field.text();
  if (text.empty()) field.fail("must not be empty");
  return text;
}

Provenance read_provenance(const Field& field) {
  const Field source = field.at("source");
  return Provenance{enum_named(source, source.text(), "source",
                               {SourceKind::published, SourceKind::spec, SourceKind::measured, SourceKind::assumed,
                                SourceKind::fitted}),
                    field.at("ref").text()};
}

CollectiveKind collective_kind_named(const Field& field, std::string_view name) {
  return enum_named(field, name, "collective",
                    {CollectiveKind::all_gather, CollectiveKind::all_to_all,
                     CollectiveKind::reduce_scatter, CollectiveKind::all_reduce});
}

CollectiveKind read_collective_kind(const Field& field) {
  return collective_kind_named(field, field.text());
}

DType dtype_named(const Field& field, std::string_view name) {
  return enum_named(field, name, "dtype", {DType::bf16, DType::fp16, DType::fp32, DType::fp8});
}

DType read_dtype(const Field& field) { return dtype_named(field, field.text()); }

GemmLayout read_gemm_layout(const Field& field) {
  return enum_named(field, field.text(), "GEMM layout", {GemmLayout::tn, GemmLayout::row_major});
}

std::optional<GemmClass> read_gemm_class(const Field& entry) {
  const auto field = entry.find("gemm_class");
  if (!field) return std::nullopt;
  return enum_named(*field, field->text(), "GEMM class",
                    {GemmClass::compute_bound, GemmClass::memory_bound});
}

std::int64_t read_size(const Field& field) {
  const std::string text = field.text();
  return at_field(field, [&] { return parse_size_bytes(text); });
}

int read_ranks(const Field& field) {
  const std::int64_t ranks = field.integer();
  if (ranks < 2) field.fail("ranks must be at least 2 (got " + std::to_string(ranks) + ")");
  if (ranks > INT_MAX) field.fail("integer out of range: " + std::to_string(ranks));
  return static_cast<int>(ranks);
}

Dependency read_dependency(const Field& field) {
  return enum_named(field, field.text(), "dependency",
                    {Dependency::none, Dependency::collective_feeds_gemm, Dependency::gemm_feeds_collective});
}

Defaults read_defaults(const Field& root, bool with_dependency) {
  Defaults out;
  const auto defaults = root.find("defaults");
  if (!defaults) return out;
  if (with_dependency) {
    defaults->expect_keys({"dtype", "ranks", "dependency"});
  } else {
    defaults->expect_keys({"dtype", "ranks"});
  }
  if (const auto dtype = defaults->find("dtype")) out.dtype = read_dtype(*dtype);
  if (const auto ranks = defaults->find("ranks")) out.ranks = read_ranks(*ranks);
  if (const auto dependency = defaults->find("dependency")) out.dependency = read_dependency(*dependency);
  return out;
}

int ranks_or_default(const Field& entry, const Defaults& defaults) {
  if (const auto ranks = entry.find("ranks")) return read_ranks(*ranks);
  if (defaults.ranks) return *defaults.ranks;
  throw ConfigError(entry.origin(), entry.line(), entry.path() + ".ranks",
                    "required key is missing (no defaults.ranks either)");
}

}  // namespace c3::io::detail
