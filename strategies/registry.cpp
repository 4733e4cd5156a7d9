// The family registry and what is defined for every strategy through its family
// (include/c3/strategy.hpp): labels, parsing, candidates, predictions, plans.
#include <algorithm>
#include <charconv>
#include <limits>
#include <tuple>

#include "c3/errors.hpp"
#include "c3/model.hpp"
#include "c3/strategy.hpp"
#include "strategies/families.hpp"

namespace c3 {
namespace strategies {
namespace {

std::vector<const Family*> sorted_families() {
  std::vector<const Family*> out = registered_families();
  std::stable_sort(out.begin(), out.end(),
                   [](const Family* a, const Family* b) { return a->position() < b->position(); });
  return out;
}


std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

}  // namespace

int parse_cu_count(std::string_view text) {
  text = trim(text);
  std::int64_t value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec == std::errc::result_out_of_range)
    throw InputError("CU count '" + std::string(text) + "' is too large");
  if (ec != std::errc() || end != text.data() + text.size() || text.empty())
    throw InputError("CU count '" + std::string(text) + "' is not an integer");
  if (value <= 0) throw InputError("CU count must be positive (got " + std::string(text) + ")");
  if (value > std::numeric_limits<int>::max()) throw InputError("CU count is too large");
  return static_cast<int>(value);
}

std::string Family::label(const Strategy& s) const {
  std::string out(s.kind.name());
  if (parametrized(s.kind)) out += ":" + std::to_string(parameter(s));
  return out;
}

Strategy Family::parse(StrategyKind kind, std::optional<std::string_view> args) const {
  const bool takes_cus = parametrized(kind);
  if (takes_cus != args.has_value())
    throw InputError("strategy '" + std::string(kind.name()) + (args ? ":" + std::string(*args) : "") + "': " +
                     (takes_cus ? "needs a CU count, e.g. rp:32" : "takes no CU count"));
  return make(kind, takes_cus ? parse_cu_count(*args) : 0);
}

const std::vector<const Family*>& families() {
  static const std::vector<const Family*> all = sorted_families();
  return all;
}

namespace {

// Every kind with its family, in canonical order; built once (the query path calls
// family_of for every strategy it predicts, labels or ranks).
const std::vector<std::pair<StrategyKind, const Family*>>& kind_table() {
  static const std::vector<std::pair<StrategyKind, const Family*>> table = [] {
    std::vector<std::pair<StrategyKind, const Family*>> t;
    for (const Family* f : families())
      for (StrategyKind k : f->kinds()) t.emplace_back(k, f);
    return t;
  }();
  return table;
}

}  // namespace

const Family& family_of(StrategyKind kind) {
  for (const auto& [k, f] : kind_table())
    if (k == kind) return *f;
  throw InputError("unknown strategy '" + std::string(kind.name()) + "'");
}

std::vector<StrategyKind> all_kinds() {
  std::vector<StrategyKind> out;
  for (const auto& [k, f] : kind_table()) out.push_back(k);
  return out;
}

std::vector<Strategy> candidates(const HardwareProfile& hw, const C3Pair& pair) {
  std::vector<Strategy> out;
  for (const Family* f : families()) {
    if (!f->handles(pair.dependency)) continue;
    std::vector<Strategy> more = f->candidates(hw, pair);
    out.insert(out.end(), more.begin(), more.end());
  }
  return out;
}

Estimate predict(const HardwareProfile& hw, const C3Pair& pair, const Strategy& s) {
  const Family& f = family_of(s.kind);
  f.check(s, hw.compute_units);
  if (!f.handles(pair.dependency))
    throw InputError("strategy '" + s.label() + "' runs the GEMM and the collective " +
                     (pair.dependency == Dependency::none
                          ? std::string("piece by piece, which only a dependent pair needs")
                          : "at once; a " + std::string(to_string(pair.dependency)) +
                                " pair cannot run that way (serial or chunked:C:TRANSPORT)"));
  Estimate e = f.predict(hw, pair, s);
  // model.md §4.7; the label is built only where a correction can apply.
  if (s.kind != StrategyKind::serial && model::strategy_correction_applies(hw, pair, e.time_s))
    e.time_s *= model::strategy_correction(hw, pair, s.label(), e.time_s);
  return e;
}

double predicted_time_s(const HardwareProfile& hw, const C3Pair& pair, const Strategy& s) {
  return predict(hw, pair, s).time_s;
}

ExecutionPlan plan_of(const Strategy& s) { return family_of(s.kind).plan(s); }
int complexity(const Strategy& s) { return family_of(s.kind).complexity(s); }
void check(const Strategy& s, int compute_units) { family_of(s.kind).check(s, compute_units); }

// Position of a kind in all_kinds(); -1 when unregistered.
int kind_index(StrategyKind kind) {
  const auto& table = kind_table();
  for (std::size_t i = 0; i < table.size(); ++i)
    if (table[i].first == kind) return static_cast<int>(i);
  return -1;
}

bool canonical_less(const Strategy& a, const Strategy& b) {
  return std::tuple(kind_index(a.kind), a.chunks, a.chunk_transport, a.collective_cus, a.gemm_cus_removed) <
         std::tuple(kind_index(b.kind), b.chunks, b.chunk_transport, b.collective_cus, b.gemm_cus_removed);
}

}  // namespace strategies

std::string_view to_string(StrategyKind kind) { return kind.name(); }

StrategyKind parse_strategy_kind(std::string_view text) {
  text = strategies::trim(text);
  for (const auto& [k, f] : strategies::kind_table())
    if (k.name() == text) return k;
  std::string valid;
  for (StrategyKind k : strategies::all_kinds()) valid += (valid.empty() ? "" : ", ") + std::string(k.name());
  throw InputError("unknown strategy '" + std::string(text) + "' (valid: " + valid + ")");
}

LaunchOrder Strategy::order() const { return strategies::plan_of(*this).order; }
Transport Strategy::transport() const { return strategies::plan_of(*this).transport; }

std::string Strategy::label() const { return strategies::family_of(kind).label(*this); }

Strategy parse_strategy(std::string_view label) {
  label = strategies::trim(label);
  const auto colon = label.find(':');
  const StrategyKind kind = parse_strategy_kind(label.substr(0, colon));
  std::optional<std::string_view> args;
  if (colon != std::string_view::npos) args = label.substr(colon + 1);
  return strategies::family_of(kind).parse(kind, args);
}

}  // namespace c3
