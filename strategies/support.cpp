// Checks and description pieces the families share (strategies/families.hpp).
#include "strategies/families.hpp"

namespace c3::strategies {

void check_cus(int cus, int compute_units, std::string_view what) {
  if (cus < 0) throw InputError(std::string(what) + " must be >= 0 (got " + std::to_string(cus) + ")");
  if (compute_units > 0 && cus >= compute_units)
    throw InputError(std::string(what) + " must be below the " + std::to_string(compute_units) +
                     " compute units (got " + std::to_string(cus) + ")");
}

void fail(const Strategy& s, std::string_view why) {
  throw InputError("strategy '" + s.label() + "': " + std::string(why));
}

void UnparametrizedFamily::check(const Strategy& s, int) const {
  if (s.collective_cus != 0 || s.gemm_cus_removed != 0) fail(s, "takes no CU split");
}

std::string collective_name(const DescribeContext& c) { return std::string(to_string(c.pair.collective.kind)); }
std::string gemm_class_name(const DescribeContext& c) { return std::string(to_string(c.gemm_class)); }
std::string unit_name(const DescribeContext& c) { return std::string(compute_unit_name(c.hw)); }
std::string all_units(const DescribeContext& c) { return std::to_string(c.hw.compute_units); }

}  // namespace c3::strategies
