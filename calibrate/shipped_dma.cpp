// A copy-engine implementation calibrated from its benchmark (calibrate/shipped_dma.hpp).
#include "calibrate/shipped_dma.hpp"

#include <algorithm>
#include <map>
#include <set>

#include "c3/errors.hpp"
#include "c3/strategy.hpp"
#include "calibrate/calibrate_fit.hpp"
#include "calibrate/calibrate_plan.hpp"
#include "calibrate/pairs_fit.hpp"

namespace c3::validator {
namespace {

constexpr std::size_t kMinSizes = 3;  // fit_collective_sweep: 2 for the bandwidth, 1 more

std::string joined(const std::set<std::string>& names) {
  std::string out;
  for (const std::string& n : names) out += (out.empty() ? "" : ", ") + n;
  return out.empty() ? "none" : out;
}

// Whether `path` ("interference.by_kind.all_gather.dma.compute_bound.gemm_slowdown") names
// a value of the dma transport.
bool dma_path(const std::string& path) {
  return ("." + path + ".").find(".dma.") != std::string::npos;
}

// The successful times of the variant's `kind` at `ranks`, by size (the smallest of repeats).
std::map<std::int64_t, double> times_by_size(const ShippedDma& s, CollectiveKind kind, int ranks) {
  std::map<std::int64_t, double> out;
  for (const auto& [size, time] : bench_curve(s.bench, kind, s.variant, ranks))
    out.emplace(static_cast<std::int64_t>(size), time);
  return out;
}

// The variant's own pairs (ShippedDma::pairs): interference per kind and class of the dma
// transport and its launch cost, refitted on the variant's curves.
void fit_own_pairs(HardwareProfile& hw, const ShippedDma& s, std::vector<std::string>& notes) {
  std::vector<PairObservation> observed = pair_observations(s.pairs);
  std::erase_if(observed, [](const PairObservation& o) { return o.strategy.kind != StrategyKind::dma; });
  const std::vector<PairObservation> dma = predictable(hw, observed, notes);
  if (dma.empty())
    throw InputError("--dma-pairs " + s.pairs_ref + ": no successful dma record of a pair with its serial record (" +
                     s.variant + "'s interference needs both)");
  const Provenance source{SourceKind::measured, s.pairs_ref};
  notes.push_back("dma pairs: " + std::to_string(dma.size()) + " pairs of " + s.variant + " from " + s.pairs_ref);
  // launch_s (§4.4): how long after the collective's launch starts the GEMM's launch starts,
  // measured on the host in each dma pair; one value for every kind, as fit_launch gives one
  // per transport (the median over them).
  std::vector<double> launches;
  for (const RawMeasurements& file : s.pairs)
    for (const Record& r : file.records)
      if (const auto* c = std::get_if<ConcurrentQuery>(&r.query))
        if (c->strategy.kind == StrategyKind::dma && r.measurement.ok && r.measurement.host_launch_s > 0)
          launches.push_back(r.measurement.host_launch_s);
  if (launches.empty()) {
    notes.push_back("dma launch_s: kept (no host_launch_s in the dma pair records of " + s.pairs_ref + ")");
  } else {
    const double launch = median_of(launches);
    for (const CollectiveKind kind : copy_engine_kinds()) {
      hw.collectives.at(kind).at(Transport::dma).launch_s = launch;
      hw.sources["collectives." + std::string(to_string(kind)) + ".dma.launch_s"] = source;
    }
    notes.push_back("dma launch_s: " + std::to_string(launch * 1e6) + " us, the median host time from the " +
                    s.variant + " launch to the GEMM's launch in " + std::to_string(launches.size()) + " pairs");
  }
  // Then the interference, on the variant's own launch cost (the dma times include it).
  fit_interference_by_kind(hw, dma, source, notes);
  hw.provenance_details["dma_pairs"] = s.pairs_ref;
}

}  // namespace

std::vector<CollectiveKind> copy_engine_kinds() {
  std::vector<CollectiveKind> out;
  for (const CollectiveKind kind : calibrated_kinds())
    if (dma_capable(kind)) out.push_back(kind);
  return out;
}

void check_shipped_dma(const ShippedDma& s, int ranks) {
  const std::string need = "calibrating --dma-variant " + s.variant + " from this file";
  std::set<std::string> transports, kinds, other_ranks;
  for (const BenchRecord& r : s.bench.records) {
    transports.insert(r.transport);
    if (r.transport != s.variant) continue;
    kinds.insert(std::string(to_string(r.kind)));
    if (r.ranks != ranks) other_ranks.insert(std::to_string(r.ranks));
  }
  if (!transports.count(s.variant))
    throw ConfigError(s.path, 0, "records[].transport",
                      "no record of '" + s.variant + "' (the file's transports: " + joined(transports) + "); " +
                          need + " needs them");
  for (const CollectiveKind kind : copy_engine_kinds()) {
    const std::string name(to_string(kind));
    if (!kinds.count(name))
      throw ConfigError(s.path, 0, "records[].kind",
                        "no '" + s.variant + "' record of " + name + " (its kinds in the file: " + joined(kinds) +
                            "); " + need + " needs every kind the copy engines run");
    bool at_ranks = false;
    std::size_t failed = 0;
    for (const BenchRecord& r : s.bench.records)
      if (r.transport == s.variant && r.kind == kind && r.ranks == ranks) {
        at_ranks = true;
        failed += r.measurement.ok ? 0 : 1;
      }
    if (!at_ranks)
      throw ConfigError(s.path, 0, "records[].ranks",
                        "no '" + s.variant + "' " + name + " record at " + std::to_string(ranks) +
                            " ranks (--gpus; the file's ranks for it: " + joined(other_ranks) + ")");
    const std::size_t sizes = times_by_size(s, kind, ranks).size();
    if (sizes < kMinSizes)
      throw ConfigError(s.path, 0, "records[].size_bytes",
                        std::to_string(sizes) + " successful sizes of '" + s.variant + "' " + name + " at " +
                            std::to_string(ranks) + " ranks (" + std::to_string(failed) + " failed records), " +
                            "fewer than the " + std::to_string(kMinSizes) +
                            " that a bandwidth and a latency need");
  }
}

void apply_shipped_dma(HardwareProfile& hw, const ShippedDma& s, int ranks, const std::string& measured_with,
                       std::vector<std::string>& notes) {
  check_shipped_dma(s, ranks);
  const std::string backend_variant = measured_with.empty() ? "the backend's copy engines" : measured_with;
  const std::string label = " (measured with " + backend_variant + ", not " + s.variant + ")";
  // Every other measured dma value, before the refit sets the file's refs.
  for (auto& [path, source] : hw.sources)
    if (source.source == SourceKind::measured && dma_path(path)) source.ref += label;
  const auto error_source = hw.sources.find("prediction_error");
  if (error_source != hw.sources.end() && error_source->second.source == SourceKind::measured &&
      (hw.prediction_error.count("dma") || hw.prediction_error.count("dma_rp")))
    error_source->second.ref += " (dma, dma_rp: pairs measured with " + backend_variant + ", not " + s.variant + ")";

  const Provenance source{SourceKind::measured, s.path};
  for (const CollectiveKind kind : copy_engine_kinds()) {
    const std::map<std::int64_t, double> times = times_by_size(s, kind, ranks);
    std::vector<std::int64_t> sizes;
    for (const auto& [size, time] : times) sizes.push_back(size);
    const MeasuredFn measured = [&](const Query& q) -> std::optional<double> {
      const auto* c = std::get_if<CollectiveQuery>(&q);
      if (!c) return std::nullopt;
      const auto it = times.find(c->collective.size_bytes);
      return it == times.end() ? std::nullopt : std::optional<double>(it->second);
    };
    std::vector<std::string> fit_notes;
    if (!fit_collective_sweep(hw, kind, Transport::dma, ranks, sizes, measured, source, fit_notes))
      throw ConfigError(s.path, 0, "records[].time_s",
                        "no bandwidth can be fitted to the '" + s.variant + "' " + std::string(to_string(kind)) +
                            " times at " + std::to_string(ranks) + " ranks: " +
                            (fit_notes.empty() ? std::string("no usable sizes") : fit_notes.back()));
    notes.insert(notes.end(), fit_notes.begin(), fit_notes.end());
    const CollectiveParams& p = hw.collectives.at(kind).at(Transport::dma);
    notes.push_back("collectives." + std::string(to_string(kind)) + ".dma: " + s.variant + " from " + s.path + ", " +
                    std::to_string(sizes.size()) + " sizes: " + std::to_string(p.bus_bw_bytes_per_s / 1e9) +
                    " GB/s, latency " + std::to_string(p.latency_s * 1e6) + " us");
  }
  hw.provenance_details["dma_variant"] = s.variant;
  if (s.pairs.empty()) {
    if (!measured_with.empty()) hw.provenance_details["dma_interference_variant"] = measured_with;
    hw.description += "; copy engines (dma): " + s.variant + "'s bandwidth, latency and curves from " + s.path +
                      ", their launch cost, unaligned chunks and interference with GEMMs measured with " +
                      backend_variant;
    return;
  }
  fit_own_pairs(hw, s, notes);
  hw.provenance_details["dma_interference_variant"] =
      s.variant + " per kind and GEMM class where its pairs fill a group, else " + backend_variant;
  hw.description += "; copy engines (dma): " + s.variant + "'s bandwidth, latency and curves from " + s.path +
                    ", its launch cost and interference with GEMMs per kind from its own pairs in " + s.pairs_ref +
                    "; unaligned chunks and groups without enough pairs measured with " + backend_variant;
}

}  // namespace c3::validator
