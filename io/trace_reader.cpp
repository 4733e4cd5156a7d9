// io/trace_reader.cpp: trace files for `c3advisor plan` (docs/formats.md, "Traces").
#include "c3/io.hpp"
#include "io/readers.hpp"

namespace c3::io {
namespace {

using detail::Field;

/// `MxNxK[:dtype]`; without a dtype, the file's default.
Gemm read_gemm_shape(const Field& field, DType default_dtype) {
  const std::string text = field.text();
  const bool has_dtype = text.find(':') != std::string::npos;
  return detail::at_field(field, [&] {
    return parse_gemm(has_dtype ? text : text + ":" + std::string(to_string(default_dtype)));
  });
}

/// The collective's size: given, or (a dependent entry only) the GEMM operand it moves,
/// checked against the dependency at the kind and at the size (docs/formats.md, "Traces").
std::int64_t read_entry_size(const Field& field, const Gemm& gemm, const Collective& collective,
                             Dependency dependency) {
  if (dependency == Dependency::none) return detail::read_size(field.at("size"));
  const std::int64_t operand =
      detail::at_field(field.at("gemm"), [&] { return dependent_operand_bytes(gemm, dependency); });
  Collective moved = collective;
  moved.size_bytes = operand;
  detail::at_field(field.at("collective"), [&] { validate_dependency(gemm, moved, dependency); });
  const auto size = field.find("size");
  if (!size) return operand;
  moved.size_bytes = detail::read_size(*size);
  detail::at_field(*size, [&] { validate_dependency(gemm, moved, dependency); });
  return moved.size_bytes;
}

TraceEntry read_entry(const Field& field, const detail::Defaults& defaults) {
  field.expect_keys({"name", "gemm", "gemm_class", "collective", "size", "repeat", "ranks", "dependency"});
  TraceEntry entry;
  entry.pair.name = detail::read_name(field.at("name"));
  entry.pair.gemm = read_gemm_shape(field.at("gemm"), defaults.dtype);
  entry.pair.gemm_class = detail::read_gemm_class(field);
  const auto dependency = field.find("dependency");
  entry.pair.dependency = dependency ? detail::read_dependency(*dependency) : Dependency::none;
  entry.pair.collective.kind = detail::read_collective_kind(field.at("collective"));
  entry.pair.collective.ranks = detail::ranks_or_default(field, defaults);
  entry.pair.collective.size_bytes =
      read_entry_size(field, entry.pair.gemm, entry.pair.collective, entry.pair.dependency);
  entry.repeat = field.at("repeat").positive_integer();
  return entry;
}

}  // namespace

Trace parse_trace(std::string_view yaml_text, const std::string& origin) {
  const Field root = detail::parse_document(yaml_text, origin);
  root.expect_keys({"schema_version", "name", "description", "provenance", "defaults", "chain", "entries"});
  const detail::FileHeader header = detail::read_header(root);
  const detail::Defaults defaults = detail::read_defaults(root);
  Trace trace{header.name, header.description, {}};
  if (const auto chain = root.find("chain")) {
    const std::string how = chain->text();
    if (how != "prefetch" && how != "none") chain->fail("'" + how + "': expected prefetch or none");
    trace.prefetch_chain = how == "prefetch";
  }
  const Field entries = root.at("entries");
  for (const Field& entry : entries.elements()) {
    trace.entries.push_back(read_entry(entry, defaults));
    C3Pair& pair = trace.entries.back().pair;
    pair.chained = trace.prefetch_chain && pair.dependency == Dependency::none;
    pair.at_power_limit = pair.chained;  // a step's GEMMs back to back (docs/model.md §4.6)
  }
  if (trace.entries.empty()) entries.fail("at least one entry is required");
  return trace;
}

Trace load_trace(const std::string& path) { return parse_trace(read_file(path), path); }

}  // namespace c3::io
