// strategies/families.hpp: what the family files share (internal to c3_strategies).
// Each family_NAME.cpp defines `const Family& family_NAME()`; the build generates
// registered_families() from the files present (strategies/CMakeLists.txt).
#pragma once

#include <string>
#include <vector>

#include "c3/errors.hpp"
#include "c3/model.hpp"
#include "c3/strategy.hpp"

namespace c3::strategies {

/// Every family compiled in, in no particular order (generated).
std::vector<const Family*> registered_families();

/// A family of kinds that take no compute-unit count.
class UnparametrizedFamily : public Family {
 public:
  bool parametrized(StrategyKind) const override { return false; }
  int parameter(const Strategy&) const override { return 0; }
  Strategy make(StrategyKind kind, int) const override { return Strategy{kind, 0, 0}; }
  /// Both compute-unit fields must be 0.
  void check(const Strategy& s, int compute_units) const override;
};

/// A positive CU count in a label ("32" of "rp:32"). Throws InputError.
int parse_cu_count(std::string_view text);
/// Throws InputError unless 0 <= cus < compute_units (compute_units 0: unchecked).
void check_cus(int cus, int compute_units, std::string_view what);
/// Throws InputError "strategy 'LABEL': WHY".
[[noreturn]] void fail(const Strategy& s, std::string_view why);

/// The pieces a description is made of: the collective's name, the GEMM's class,
/// the unit name ("SMs" or "CUs"), all compute units.
std::string collective_name(const DescribeContext& c);
std::string gemm_class_name(const DescribeContext& c);
std::string unit_name(const DescribeContext& c);
std::string all_units(const DescribeContext& c);

}  // namespace c3::strategies
