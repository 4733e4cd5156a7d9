// model.md §4: concurrent time of a pair under each strategy.
#include <algorithm>
#include <charconv>
#include <optional>
#include <utility>
#include <vector>

#include "c3/errors.hpp"
#include "c3/model.hpp"

namespace c3::model {
namespace {

const Interference* find_factors(const std::map<Transport, std::map<GemmClass, Interference>>& factors,
                                 Transport transport, GemmClass cls) {
  const auto by_transport = factors.find(transport);
  if (by_transport == factors.end()) return nullptr;
  const auto it = by_transport->second.find(cls);
  return it == by_transport->second.end() ? nullptr : &it->second;
}

}  // namespace

// The kind's own factors where the profile has them (§4.2), else the transport's.
const Interference& interference(const HardwareProfile& hw, CollectiveKind kind, Transport transport,
                                 GemmClass cls) {
  if (const auto by_kind = hw.interference_by_kind.find(kind); by_kind != hw.interference_by_kind.end())
    if (const Interference* f = find_factors(by_kind->second, transport, cls)) return *f;
  if (const Interference* f = find_factors(hw.interference, transport, cls)) return *f;
  throw InputError("profile '" + hw.name + "' has no interference factors for " +
                   std::string(to_string(transport)) + " with " + std::string(to_string(cls)) +
                   " GEMMs");
}

namespace {

// `what` names the count around the unit: {"the collective's ", ""} -> "the collective's SMs".
void check_split(const HardwareProfile& hw, int cus, const char* what_before, const char* what_after) {
  const std::string units(compute_unit_name(hw));
  if (cus <= 0 || cus >= hw.compute_units)
    throw InputError(what_before + units + what_after + " must be between 1 and " +
                     std::to_string(hw.compute_units - 1) + " " + units + " (got " + std::to_string(cus) +
                     ")");
}

// A kernel that keeps the same allocation for its whole run.
Job steady(double time_s, double contention) { return Job{time_s, time_s, contention}; }

}  // namespace

double overlapped_time_s(const Job& first, const Job& second, double delay_s) {
  // Phase 0: the first kernel runs alone until the second may start.
  const double alone_s = std::min(std::max(delay_s, 0.0), first.after_s);
  double first_left = 1.0 - alone_s / first.after_s;  // fraction of work left
  if (first_left <= 0.0) return first.after_s + second.after_s;
  // Phase 1: both run, each at its overlapped, contended rate.
  const double first_s = first.overlap_s * first.contention;
  const double second_s = second.overlap_s * second.contention;
  const double both_s = std::min(first_left * first_s, second_s);
  first_left -= both_s / first_s;
  const double second_left = 1.0 - both_s / second_s;
  // Phase 2: the survivor finishes at its rate after the other is done.
  return alone_s + both_s + std::max(first_left, 0.0) * first.after_s +
         std::max(second_left, 0.0) * second.after_s;
}

double collective_contention(const HardwareProfile& hw, const Interference& f, int gemm_cus) {
  const double share = static_cast<double>(gemm_cus) / hw.compute_units;
  return 1.0 + (f.collective_slowdown - 1.0) * share;
}

double gemm_first_delay_s(const HardwareProfile& hw, const Gemm& gemm, double gemm_s, int collective_cus) {
  if (collective_cus <= 0)
    throw InputError("the collective needs at least one CU (got " + std::to_string(collective_cus) + ")");
  const auto waves = static_cast<double>(gemm_waves(hw, gemm, hw.compute_units));
  const double idle_share =
      std::min(1.0, static_cast<double>(gemm_last_wave_idle_cus(hw, gemm, hw.compute_units)) / collective_cus);
  return hw.gemm_first_delay_factor * ((1.0 - 1.0 / waves) + (1.0 - idle_share) / waves) * gemm_s;
}

namespace {

// The collective launched first: the GEMM's launch waits for the collective's host launch
// (launch_s), even when the collective has finished by then (§4.4).
double collective_first_s(const Job& coll, const Job& gemm, double launch_s) {
  if (launch_s >= coll.after_s) return launch_s + gemm.after_s;
  return overlapped_time_s(coll, gemm, launch_s);
}

// §4.4; §4.6: in a chain the host is ahead of the GPU, so the launch costs nothing.
double collective_launch_s(const HardwareProfile& hw, const C3Pair& pair, Transport transport) {
  if (pair.chained) return 0.0;
  const auto kinds = hw.collectives.find(pair.collective.kind);
  if (kinds == hw.collectives.end()) return 0.0;
  const auto params = kinds->second.find(transport);
  return params == kinds->second.end() ? 0.0 : params->second.launch_s;
}

}  // namespace

Gemm gemm_as_run(const C3Pair& pair) {
  Gemm gemm = pair.gemm;
  if (pair.dependency != Dependency::none) gemm.layout = GemmLayout::row_major;
  return gemm;
}

Isolated isolated_times(const HardwareProfile& hw, const C3Pair& pair) {
  Isolated t;
  t.gemm_s = gemm_time_s(hw, gemm_as_run(pair));
  // §4.6: in a sustained chain the GEMM runs at the clocks the GPU holds under its power limit.
  if (pair.at_power_limit) t.gemm_s *= sustained_gemm_slowdown(hw, t.gemm_s);
  t.collective_s = collective_time_s(hw, pair.collective, Transport::cu);
  if (dma_capable(pair.collective.kind))
    t.collective_dma_s = collective_time_s(hw, pair.collective, Transport::dma);
  return t;
}

double serial_time_s(const Isolated& iso) { return iso.gemm_s + iso.collective_s; }

StrategyGroup strategy_group(const HardwareProfile& hw, const C3Pair& pair, std::string_view strategy) {
  // Queued ahead, sp runs as base (§4.6) and is base's group.
  const std::string_view as_run = pair.chained && strategy == "sp" ? std::string_view("base") : strategy;
  return StrategyGroup{pair.collective.kind, classify(hw, pair).gemm, std::string(as_run)};
}

namespace {

// "rp:24" -> {"rp:", 24}; a label without a CU count -> nullopt.
std::optional<std::pair<std::string_view, int>> partition_label(std::string_view label) {
  const auto colon = label.find(':');
  if (colon == std::string_view::npos) return std::nullopt;
  int cus = 0;
  const char* end = label.data() + label.size();
  const auto [ptr, ec] = std::from_chars(label.data() + colon + 1, end, cus);
  if (ec != std::errc() || ptr != end) return std::nullopt;
  return std::pair{label.substr(0, colon + 1), cus};
}

// A partition with no group of its own: linear in the CU count between the nearest counts of
// its family (rp:, dma_rp:) that have one in the same kind and class, held beyond them.
std::optional<double> partition_factor(const HardwareProfile& hw, const StrategyGroup& g) {
  const auto wanted = partition_label(g.strategy);
  if (!wanted) return std::nullopt;
  std::vector<std::pair<int, double>> points;  // (CU count, factor), sorted below: the map orders labels
  for (const auto& [group, factor] : hw.strategy_corrections) {
    if (group.kind != g.kind || group.gemm_class != g.gemm_class) continue;
    const auto have = partition_label(group.strategy);
    if (have && have->first == wanted->first) points.emplace_back(have->second, factor);
  }
  if (points.empty()) return std::nullopt;
  std::sort(points.begin(), points.end());
  const int c = wanted->second;
  if (c <= points.front().first) return points.front().second;
  if (c >= points.back().first) return points.back().second;
  const auto hi = std::lower_bound(points.begin(), points.end(), std::pair{c, 0.0},
                                   [](const auto& a, const auto& b) { return a.first < b.first; });
  const auto lo = std::prev(hi);
  const double w = static_cast<double>(c - lo->first) / static_cast<double>(hi->first - lo->first);
  return lo->second + w * (hi->second - lo->second);
}

}  // namespace

bool strategy_correction_applies(const HardwareProfile& hw, const C3Pair& pair, double time_s) {
  return !hw.strategy_corrections.empty() && pair.dependency == Dependency::none &&
         time_s >= hw.strategy_correction_min_s;
}

double strategy_correction(const HardwareProfile& hw, const C3Pair& pair, std::string_view strategy, double time_s) {
  if (!strategy_correction_applies(hw, pair, time_s) || strategy == "serial") return 1.0;
  const StrategyGroup group = strategy_group(hw, pair, strategy);
  if (const auto it = hw.strategy_corrections.find(group); it != hw.strategy_corrections.end()) return it->second;
  return partition_factor(hw, group).value_or(1.0);
}

double gemm_first_time_s(const HardwareProfile& hw, const C3Pair& pair, const Isolated& iso,
                         const Taxonomy& tax) {
  // The collective waits for the GEMM's waves.
  const Interference& f = interference(hw, pair.collective.kind, Transport::cu, tax.gemm);
  const Job gemm = steady(iso.gemm_s, f.gemm_slowdown);
  const Job coll = steady(iso.collective_s, collective_contention(hw, f, hw.compute_units));
  const int coll_cus = std::min(collective_default_cus(hw, pair.collective.kind), hw.compute_units);
  // ... and for the host to launch the GEMM on every rank (§4.3); in a chain the host is ahead (§4.6).
  const double launch_s = pair.chained ? 0.0 : hw.gemm_launch_s;
  return overlapped_time_s(gemm, coll, std::max(gemm_first_delay_s(hw, pair.gemm, iso.gemm_s, coll_cus), launch_s));
}

double collective_first_time_s(const HardwareProfile& hw, const C3Pair& pair, const Isolated& iso,
                               const Taxonomy& tax) {
  // §4.6: chained, both wait on the previous pair's end and the GEMM's workgroups take the
  // CUs first, whatever the host's order: the pair runs GEMM-first.
  if (pair.chained) return gemm_first_time_s(hw, pair, iso, tax);
  // The collective takes its default CUs, the GEMM the rest.
  const int all_cus = hw.compute_units;
  const CollectiveKind kind = pair.collective.kind;
  const Interference& f = interference(hw, pair.collective.kind, Transport::cu, tax.gemm);
  const int coll_cus = std::min(collective_default_cus(hw, kind), all_cus - 1);
  const Job coll = steady(iso.collective_s, collective_contention(hw, f, all_cus - coll_cus));
  const Job gemm{iso.gemm_s * gemm_slowdown(hw, tax.gemm, coll_cus), iso.gemm_s, f.gemm_slowdown};
  return collective_first_s(coll, gemm, collective_launch_s(hw, pair, Transport::cu));
}

double partition_time_s(const HardwareProfile& hw, const C3Pair& pair, const Isolated& iso,
                        const Taxonomy& tax, int collective_cus) {
  // A hard split for both kernels' whole runs.
  check_split(hw, collective_cus, "the collective's ", "");
  const Interference& f = interference(hw, pair.collective.kind, Transport::cu, tax.gemm);
  const Job coll =
      steady(iso.collective_s * collective_partition_slowdown(hw, pair.collective, tax.collective, collective_cus),
             collective_contention(hw, f, hw.compute_units - collective_cus));
  const Job gemm = steady(iso.gemm_s * gemm_partition_slowdown(hw, pair.gemm, tax.gemm, collective_cus),
                          f.gemm_slowdown);
  return collective_first_s(coll, gemm, collective_launch_s(hw, pair, Transport::cu));
}

double copy_engine_time_s(const HardwareProfile& hw, const C3Pair& pair, const Isolated& iso,
                          const Taxonomy& tax, int gemm_cus_removed) {
  // Copy engines; the GEMM keeps all CUs but gemm_cus_removed.
  const CollectiveKind kind = pair.collective.kind;
  if (!dma_capable(kind))
    throw InputError(std::string(to_string(kind)) + " cannot run on copy engines: they cannot reduce");
  if (gemm_cus_removed != 0) check_split(hw, gemm_cus_removed, "the ", " the GEMM gives up");
  const Interference& f = interference(hw, kind, Transport::dma, tax.gemm);
  const Job coll =
      steady(iso.collective_dma_s, collective_contention(hw, f, hw.compute_units - gemm_cus_removed));
  const Job gemm =
      steady(iso.gemm_s * gemm_partition_slowdown(hw, pair.gemm, tax.gemm, gemm_cus_removed), f.gemm_slowdown);
  return collective_first_s(coll, gemm, collective_launch_s(hw, pair, Transport::dma));
}

}  // namespace c3::model
