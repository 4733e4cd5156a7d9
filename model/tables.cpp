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

}  // namespace

double interpolate(const Table& table, double x) {
  if (!covers(table, x)) {
    std::ostringstream msg;
    msg << "table '" << table.name << "' has no data at " << x;
    if (!table.x.empty()) msg << " (it covers " << table.x.front() << " to " << table.x.back() << ")";
    throw InputError(msg.str());
  }
  if (table.x.size() == 1) return table.y.front();
  std::size_t i = 1;  // first point with x[i] >= x
  while (table.x[i] < x) ++i;
  const double t = (x - table.x[i - 1]) / (table.x[i] - table.x[i - 1]);
  return table.y[i - 1] + t * (table.y[i] - table.y[i - 1]);
}

double interpolate_log_x_held(const Table& table, double x) {
  const double at = std::clamp(x, table.x.front(), table.x.back());
  std::size_t i = 1;  // first point with x[i] >= at
  while (i < table.x.size() && table.x[i] < at) ++i;
  if (i == table.x.size() || table.x.size() == 1) return table.y.back();
  const double t = (std::log(at) - std::log(table.x[i - 1])) / (std::log(table.x[i]) - std::log(table.x[i - 1]));
  return table.y[i - 1] + t * (table.y[i] - table.y[i - 1]);
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

namespace {

// One size row of a by-size table at `cus`, linear between its CU points (covered: checked).
double sized_row_at(const SizedSlowdown& t, std::size_t row, double cus) {
  std::size_t j = 1;  // first point with cus[j] >= cus
  while (j < t.cus.size() && t.cus[j] < cus) ++j;
  if (j == t.cus.size() || t.cus.size() == 1) return t.slowdown[row].back();
  const double w = (cus - t.cus[j - 1]) / (t.cus[j] - t.cus[j - 1]);
  return t.slowdown[row][j - 1] + w * (t.slowdown[row][j] - t.slowdown[row][j - 1]);
}

}  // namespace

double collective_partition_slowdown(const HardwareProfile& hw, const Collective& c, CollectiveClass cls,
                                     int cus) {
  const auto it = hw.collective_slowdown_by_size.find(c.kind);
  if (it == hw.collective_slowdown_by_size.end()) return collective_slowdown(hw, c.kind, cls, cus);
  const SizedSlowdown& t = it->second;
  if (t.cus.empty() || t.size_bytes.empty() || cus < t.cus.front() || cus > t.cus.back())
    return collective_slowdown(hw, c.kind, cls, cus);
  const double size = std::clamp(static_cast<double>(c.size_bytes), t.size_bytes.front(), t.size_bytes.back());
  std::size_t i = 1;  // first row with size_bytes[i] >= size
  while (i < t.size_bytes.size() && t.size_bytes[i] < size) ++i;
  if (i == t.size_bytes.size() || t.size_bytes.size() == 1) return sized_row_at(t, t.size_bytes.size() - 1, cus);
  const double w = (std::log(size) - std::log(t.size_bytes[i - 1])) /
                   (std::log(t.size_bytes[i]) - std::log(t.size_bytes[i - 1]));
  const double lo = sized_row_at(t, i - 1, cus);
  return lo + w * (sized_row_at(t, i, cus) - lo);
}

bool split_covered(const HardwareProfile& hw, GemmClass gcls, CollectiveKind kind,
                   CollectiveClass ccls, int cus) {
  const Table* g = find_gemm_table(hw, gcls);
  const Table* c = find_collective_table(hw, kind, ccls);
  return g != nullptr && c != nullptr && covers(*g, cus) && covers(*c, cus);
}

}  // namespace c3::model
