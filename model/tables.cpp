// model.md §3: slowdown tables, interpolated, never extrapolated.
#include <algorithm>
#include <cmath>
#include <sstream>

#include "c3/errors.hpp"
#include "c3/model.hpp"

namespace c3::model {
namespace {

bool covers(const Table& table, double x) {
  return !table.x.empty() && x >= table.x.front() && x <= table.x.back();
}

const Table* find_gemm_table(const HardwareProfile& hw, GemmClass cls) {
  const auto it = hw.gemm_slowdown.find(cls);
  return it == hw.gemm_slowdown.end() ? nullptr : &it->second;
}

const Table* find_collective_table(const HardwareProfile& hw, CollectiveKind kind,
                                   CollectiveClass cls) {
  const auto by_kind = hw.collective_slowdown.find(kind);
  if (by_kind == hw.collective_slowdown.end()) return nullptr;
  const auto it = by_kind->second.find(cls);
  return it == by_kind->second.end() ? nullptr : &it->second;
}

std::string table_name(std::string_view kind, std::string_view cls) {
  return std::string(kind) + "." + std::string(cls);
}

// The two points of strictly increasing, non-empty `xs` around x (clamped to their range) and
// x's weight between them, linear in x or in log(x): y = y[lo] + w (y[hi] - y[lo]).
struct Bracket {
  std::size_t lo = 0, hi = 0;
  double w = 0;
};

Bracket bracket(const std::vector<double>& xs, double x, bool log_x) {
  const double at = std::clamp(x, xs.front(), xs.back());
  std::size_t i = 1;  // first point with xs[i] >= at
  while (i < xs.size() && xs[i] < at) ++i;
  if (i >= xs.size()) return {xs.size() - 1, xs.size() - 1, 0.0};
  const auto f = [log_x](double v) { return log_x ? std::log(v) : v; };
  return {i - 1, i, (f(at) - f(xs[i - 1])) / (f(xs[i]) - f(xs[i - 1]))};
}

double value_at(const std::vector<double>& y, const Bracket& b) { return y[b.lo] + b.w * (y[b.hi] - y[b.lo]); }

}  // namespace

double interpolate(const Table& table, double x) {
  if (!covers(table, x)) {
    std::ostringstream msg;
    msg << "table '" << table.name << "' has no data at " << x;
    if (!table.x.empty()) msg << " (it covers " << table.x.front() << " to " << table.x.back() << ")";
    throw InputError(msg.str());
  }
  return value_at(table.y, bracket(table.x, x, false));
}

double interpolate_log_x_held(const Table& table, double x) {
  return value_at(table.y, bracket(table.x, x, true));
}

double gemm_slowdown(const HardwareProfile& hw, GemmClass cls, int cus_removed) {
  if (cus_removed == 0) return 1.0;
  const Table* table = find_gemm_table(hw, cls);
  if (table == nullptr)
    throw InputError("profile '" + hw.name + "' has no table gemm_slowdown." +
                     std::string(to_string(cls)));
  return interpolate(*table, cus_removed);
}

Gemm slowdown_table_gemm() { return Gemm{8192, 8192, 8192, DType::bf16}; }

double gemm_cta_slowdown(const HardwareProfile& hw, int cus_removed) {
  if (cus_removed == 0) return 1.0;
  const std::int64_t table_ctas = gemm_workgroups(hw, slowdown_table_gemm());
  return gemm_slowdown(hw, GemmClass::compute_bound, cus_removed) *
         static_cast<double>(workgroup_waves(hw, table_ctas, hw.compute_units)) /
         static_cast<double>(workgroup_waves(hw, table_ctas, hw.compute_units - cus_removed));
}

double gemm_partition_slowdown(const HardwareProfile& hw, const Gemm& gemm, GemmClass cls, int cus_removed) {
  if (cus_removed == 0 || cls != GemmClass::compute_bound || hw.gemm_kernels.empty())
    return gemm_slowdown(hw, cls, cus_removed);
  const std::int64_t ctas = gemm_workgroups(hw, gemm);
  return gemm_cta_slowdown(hw, cus_removed) *
         static_cast<double>(workgroup_waves(hw, ctas, hw.compute_units - cus_removed)) /
         static_cast<double>(workgroup_waves(hw, ctas, hw.compute_units));
}

double collective_slowdown(const HardwareProfile& hw, CollectiveKind kind, CollectiveClass cls,
                           int cus) {
  const Table* table = find_collective_table(hw, kind, cls);
  if (table == nullptr)
    throw InputError("profile '" + hw.name + "' has no table collective_slowdown." +
                     table_name(to_string(kind), to_string(cls)));
  return interpolate(*table, cus);
}

double collective_partition_slowdown(const HardwareProfile& hw, const Collective& c, CollectiveClass cls,
                                     int cus) {
  const auto it = hw.collective_slowdown_by_size.find(c.kind);
  if (it == hw.collective_slowdown_by_size.end()) return collective_slowdown(hw, c.kind, cls, cus);
  const SizedSlowdown& t = it->second;
  if (t.cus.empty() || t.size_bytes.empty() || cus < t.cus.front() || cus > t.cus.back())
    return collective_slowdown(hw, c.kind, cls, cus);
  const Bracket by_cus = bracket(t.cus, cus, false);
  const Bracket by_size = bracket(t.size_bytes, static_cast<double>(c.size_bytes), true);
  const double lo = value_at(t.slowdown[by_size.lo], by_cus);
  return lo + by_size.w * (value_at(t.slowdown[by_size.hi], by_cus) - lo);
}

bool split_covered(const HardwareProfile& hw, GemmClass gcls, CollectiveKind kind,
                   CollectiveClass ccls, int cus) {
  const Table* g = find_gemm_table(hw, gcls);
  const Table* c = find_collective_table(hw, kind, ccls);
  return g != nullptr && c != nullptr && covers(*g, cus) && covers(*c, cus);
}

}  // namespace c3::model
