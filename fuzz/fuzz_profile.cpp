// fuzz_profile: c3::io::parse_profile on arbitrary YAML. A profile that parses must
// (1) hold what profile.hpp promises (tables with x strictly increasing and y finite
// and > 0, positive counts), (2) be written by profile_yaml as YAML that parse_profile
// reads back to the same profile (io.hpp), and (3) either be refused by Advisor's
// constructor with an InputError or give finite, non-negative predictions for a few
// fixed pairs, printed without nan/inf. Seeds: data/profiles, tests/unit/fixtures/profiles.
#include <cmath>
#include <cstdint>
#include <string>

#include "c3/advisor.hpp"
#include "c3/io.hpp"
#include "fuzz_support.hpp"

namespace {

using namespace c3;
using namespace c3::fuzz;

void check_table(const Table& t, const char* what) {
  C3_FUZZ_CHECK(t.x.size() == t.y.size(), "%s: %zu x and %zu y", what, t.x.size(), t.y.size());
  for (std::size_t i = 0; i < t.x.size(); ++i) {
    C3_FUZZ_CHECK(std::isfinite(t.x[i]) && std::isfinite(t.y[i]) && t.y[i] > 0,
                  "%s[%zu] = (%g, %g)", what, i, t.x[i], t.y[i]);
    if (i > 0) C3_FUZZ_CHECK(t.x[i] > t.x[i - 1], "%s: x not increasing at %zu", what, i);
  }
}

void check_profile(const HardwareProfile& hw) {
  C3_FUZZ_CHECK(hw.compute_units > 0 && hw.gpu_count > 0, "compute_units %d, gpu_count %d",
                hw.compute_units, hw.gpu_count);
  C3_FUZZ_CHECK(hw.partition_min_cus >= 1 && hw.partition_step_cus >= 1, "partition %d step %d",
                hw.partition_min_cus, hw.partition_step_cus);
  check_table(hw.gemm_efficiency_curve, "gemm_efficiency_curve");
  check_table(hw.sustained_gemm_slowdown, "sustained_gemm_slowdown");
  check_table(hw.gemm_unaligned_compute, "gemm_unaligned_compute");
  check_table(hw.gemm_unaligned_memory, "gemm_unaligned_memory");
  check_table(hw.gemm_unaligned_latency_s, "gemm_unaligned_latency_s");
  for (const auto& [cls, t] : hw.gemm_slowdown) check_table(t, "gemm_slowdown");
  for (const auto& [kind, by_class] : hw.collective_slowdown)
    for (const auto& [cls, t] : by_class) check_table(t, "collective_slowdown");
  for (const auto& [kind, t] : hw.collective_slowdown_by_size) {
    C3_FUZZ_CHECK(!t.cus.empty() && !t.size_bytes.empty() && t.slowdown.size() == t.size_bytes.size(),
                  "collective_slowdown_by_size: %zu CU counts, %zu sizes, %zu rows", t.cus.size(),
                  t.size_bytes.size(), t.slowdown.size());
    for (std::size_t i = 0; i < t.size_bytes.size(); ++i) {
      C3_FUZZ_CHECK(t.size_bytes[i] > 0 && (i == 0 || t.size_bytes[i] > t.size_bytes[i - 1]),
                    "collective_slowdown_by_size: size %zu", i);
      C3_FUZZ_CHECK(t.slowdown[i].size() == t.cus.size(), "collective_slowdown_by_size: row %zu", i);
      for (const double s : t.slowdown[i])
        C3_FUZZ_CHECK(std::isfinite(s) && s > 0, "collective_slowdown_by_size: %g", s);
    }
  }
  for (const auto& [kind, by_transport] : hw.collectives)
    for (const auto& [transport, p] : by_transport) {
      check_table(p.curve_time_s, "collectives.curve");
      check_time(p.latency_s, "collectives.latency_s", false);
      check_time(p.launch_s, "collectives.launch_s", false);
      C3_FUZZ_CHECK(std::isfinite(p.bus_bw_bytes_per_s) && p.bus_bw_bytes_per_s > 0, "bus_bw %g",
                    p.bus_bw_bytes_per_s);
    }
}

// A few pairs every profile is asked about: compute- and memory-bound GEMMs, every
// collective kind, the profile's own GPU count as ranks (at least 2).
std::vector<C3Pair> probe_pairs(const HardwareProfile& hw) {
  const int ranks = std::max(hw.gpu_count, 2);
  std::vector<C3Pair> out;
  for (int kind = 0; kind < 4; ++kind) {
    const auto k = static_cast<CollectiveKind>(kind);
    out.push_back({"cb", Gemm{8192, 8192, 8192, DType::bf16}, Collective{k, 896LL << 20, ranks}, {}, {}});
    out.push_back({"mb", Gemm{8192, 1024, 256, DType::fp16}, Collective{k, 3LL << 10, ranks}, {}, {}});
  }
  return out;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  HardwareProfile hw;
  if (!typed("parse_profile", [&] { hw = io::parse_profile(as_text(data, size), "fuzz.yaml"); }))
    return 0;
  check_profile(hw);

  // profile_yaml writes what parse_profile reads back: the same profile, so the same YAML.
  std::string yaml;
  no_throw("profile_yaml", [&] { yaml = io::profile_yaml(hw); });
  HardwareProfile back;
  try {
    back = io::parse_profile(yaml, "profile_yaml");
  } catch (const std::exception& e) {
    finding("parse_profile(profile_yaml(hw)) failed: %s\n--- profile_yaml ---\n%s", e.what(), yaml.c_str());
  }
  std::string again;
  no_throw("profile_yaml(back)", [&] { again = io::profile_yaml(back); });
  C3_FUZZ_CHECK(again == yaml, "profile_yaml does not read back the same:\n--- first ---\n%s\n--- second ---\n%s",
                yaml.c_str(), again.c_str());
  no_throw("profiles_text", [&] {
    io::profiles_text({hw});
    check_text(io::profiles_text({scrubbed(hw)}), "profiles_text");
  });
  no_throw("profiles_json", [&] { check_json_text(io::profiles_json({hw}), "profiles_json"); });

  std::unique_ptr<Advisor> advisor;
  if (!typed("Advisor(profile)", [&] { advisor = std::make_unique<Advisor>(hw); })) return 0;
  for (const C3Pair& pair : probe_pairs(hw)) advise_and_print(*advisor, pair);
  return 0;
}
