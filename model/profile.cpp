// Enum spellings and small helpers of include/c3/profile.hpp.
#include "c3/profile.hpp"

#include <cctype>

#include "c3/errors.hpp"

namespace c3 {

std::string_view to_string(SourceKind kind) {
  switch (kind) {
    case SourceKind::published:
      return "published";
    case SourceKind::spec:
      return "spec";
    case SourceKind::measured:
      return "measured";
    case SourceKind::assumed:
      return "assumed";
    case SourceKind::fitted:
      return "fitted";
  }
  return "?";
}

SourceKind parse_source_kind(std::string_view text) {
  std::string valid;
  for (const SourceKind kind : kSourceKinds) {
    if (to_string(kind) == text) return kind;
    valid += (valid.empty() ? "" : ", ") + std::string(to_string(kind));
  }
  throw InputError("unknown source '" + std::string(text) + "' (valid: " + valid + ")");
}

std::map<SourceKind, int> source_counts(const HardwareProfile& hw) {
  std::map<SourceKind, int> counts;
  for (const SourceKind kind : kSourceKinds) counts[kind] = 0;
  for (const auto& [key, provenance] : hw.sources) ++counts[provenance.source];
  return counts;
}

std::vector<std::string> keys_from(const HardwareProfile& hw, SourceKind kind) {
  std::vector<std::string> keys;
  for (const auto& [key, provenance] : hw.sources)
    if (provenance.source == kind) keys.push_back(key);
  return keys;
}

std::string_view compute_unit_name(const HardwareProfile& hw) {
  constexpr std::string_view kNvidia = "NVIDIA";
  const std::string_view gpu = hw.gpu;
  bool nvidia = gpu.size() >= kNvidia.size();
  for (std::size_t i = 0; nvidia && i < kNvidia.size(); ++i)
    nvidia = std::toupper(static_cast<unsigned char>(gpu[i])) == kNvidia[i];
  return nvidia ? "SMs" : "CUs";
}

std::string_view to_string(GemmClass c) {
  return c == GemmClass::compute_bound ? "compute_bound" : "memory_bound";
}

GemmClass parse_gemm_class(std::string_view text) {
  for (auto c : {GemmClass::compute_bound, GemmClass::memory_bound})
    if (to_string(c) == text) return c;
  throw InputError("unknown GEMM class '" + std::string(text) +
                   "' (valid: compute_bound, memory_bound)");
}

std::string_view to_string(CollectiveClass c) {
  return c == CollectiveClass::latency_bound ? "latency_bound" : "bandwidth_bound";
}

}  // namespace c3
