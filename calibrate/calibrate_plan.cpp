// What calibration measures (calibrate/calibrate_plan.hpp).
#include "calibrate/calibrate_plan.hpp"

#include <set>
#include <string>

#include "c3/errors.hpp"
#include "c3/model.hpp"

namespace c3::validator {
namespace {

constexpr std::int64_t kKiB = 1024;
constexpr std::int64_t kMiB = 1024 * kKiB;
constexpr std::int64_t kGiB = 1024 * kMiB;

// Multiples of the partition step, at least the minimum, below compute_units;
// --quick keeps the power-of-two multiples of the step.
std::vector<int> partition_grid(const HardwareProfile& hw, bool quick) {
  if (hw.partition_step_cus < 1) throw InputError("profile '" + hw.name + "' has no partition step");
  std::vector<int> grid;
  for (int c = hw.partition_step_cus; c < hw.compute_units; c += hw.partition_step_cus) {
    const int multiple = c / hw.partition_step_cus;
    if (c < hw.partition_min_cus || (quick && (multiple & (multiple - 1)) != 0)) continue;
    grid.push_back(c);
  }
  return grid;
}

// Sizes from `first` to `last` in steps of `factor`.
std::vector<std::int64_t> geometric(std::int64_t first, std::int64_t last, std::int64_t factor) {
  std::vector<std::int64_t> sizes;
  for (std::int64_t s = first; s <= last; s *= factor) sizes.push_back(s);
  return sizes;
}

// The first occurrence of each key (the ceilings' tiny DMA collective is also the
// first point of the DMA size sweep).
std::vector<Query> without_repeats(const std::vector<Query>& queries) {
  std::set<std::string> seen;
  std::vector<Query> out;
  for (const Query& q : queries)
    if (seen.insert(measurement_key(q)).second) out.push_back(q);
  return out;
}

}  // namespace

std::vector<CollectiveKind> calibrated_kinds() {
  return {CollectiveKind::all_gather, CollectiveKind::all_to_all, CollectiveKind::reduce_scatter,
          CollectiveKind::all_reduce};
}

std::vector<Transport> transports_of(CollectiveKind kind) {
  if (dma_capable(kind)) return {Transport::cu, Transport::dma};
  return {Transport::cu};
}

CalibrationPlan make_plan(const HardwareProfile& hw, int ranks, bool quick) {
  if (ranks < 2) throw InputError("calibration needs at least 2 GPUs (got " + std::to_string(ranks) + ")");
  if (hw.compute_units < 1) throw InputError("profile '" + hw.name + "' has no compute_units");
  CalibrationPlan p;
  p.ranks = ranks;
  p.peak_gemm = Gemm{32768, 32768, 8192, DType::bf16};  // many waves: little quantization
  p.compute_gemm = model::slowdown_table_gemm();  // model.md §3 takes its waves out
  // Decode-shaped: a few rows streaming a 1 GiB weight matrix (op:byte ~ 128).
  p.memory_gemm = Gemm{128, 65536, 8192, DType::bf16};
  p.latency_gemm = Gemm{64, 4096, 4096, DType::bf16};
  // Decode shapes between the two (34 MB to 1.07 GB of weights); none is a held-out shape.
  p.memory_gemms = {p.latency_gemm, Gemm{128, 16384, 4096, DType::bf16}, Gemm{96, 24576, 8192, DType::bf16},
                    p.memory_gemm};
  p.efficiency_gemms = {Gemm{4096, 4096, 4096, DType::bf16}, p.compute_gemm,
                        Gemm{16384, 16384, 8192, DType::bf16}, p.peak_gemm,
                        Gemm{65536, 32768, 8192, DType::bf16}};
  p.copy_bytes = kGiB;
  p.latency_bytes = 64 * kKiB;
  p.bandwidth_bytes = quick ? 256 * kMiB : kGiB;
  p.unaligned_bytes = p.bandwidth_bytes + 2 * ranks;  // chunks of bandwidth_bytes / ranks + 2 bytes
  p.sizes = quick ? geometric(4 * kKiB, kGiB, 8) : geometric(4 * kKiB, 4 * kGiB, 4);
  const std::vector<int> grid = partition_grid(hw, quick);
  p.cus_removed = {0};
  for (const int c : grid)
    if (hw.compute_units - c >= hw.partition_min_cus) p.cus_removed.push_back(c);
  p.collective_cus = {0};
  p.collective_cus.insert(p.collective_cus.end(), grid.begin(), grid.end());
  p.interference_ratios = {0.5, 2.0};
  return p;
}

std::vector<Gemm> slowdown_gemms(const CalibrationPlan& p, GemmClass cls) {
  if (cls == GemmClass::compute_bound) return {p.compute_gemm};
  std::vector<Gemm> out = {p.memory_gemm};  // the reference shape first
  for (const Gemm& g : p.memory_gemms)
    if (!(g == p.memory_gemm)) out.push_back(g);
  return out;
}

std::vector<Query> isolated_queries(const CalibrationPlan& p) {
  const auto coll = [&](CollectiveKind kind, std::int64_t size) { return Collective{kind, size, p.ranks}; };
  std::vector<Query> q = {
      GemmQuery{p.peak_gemm, 0},
      CopyQuery{CopyPath::device_local, p.copy_bytes},
      CopyQuery{CopyPath::one_peer, p.copy_bytes},
      CopyQuery{CopyPath::all_peers, p.copy_bytes},
      CollectiveQuery{coll(CollectiveKind::all_gather, p.sizes.front()), Transport::dma, 0},
  };
  for (const Gemm& g : p.efficiency_gemms) q.push_back(GemmQuery{g, 0});
  for (const Gemm& g : p.memory_gemms) q.push_back(GemmQuery{g, 0});
  for (const Gemm& g : slowdown_gemms(p, GemmClass::compute_bound))
    for (const int removed : p.cus_removed) q.push_back(GemmQuery{g, removed});
  for (const Gemm& g : slowdown_gemms(p, GemmClass::memory_bound))
    for (const int removed : p.cus_removed) q.push_back(GemmQuery{g, removed});
  for (const CollectiveKind kind : calibrated_kinds())
    for (const Transport t : transports_of(kind))
      for (const std::int64_t size : {p.bandwidth_bytes, p.unaligned_bytes})
        q.push_back(CollectiveQuery{coll(kind, size), t, 0});
  for (const CollectiveKind kind : calibrated_kinds())
    for (const std::int64_t size : {p.latency_bytes, p.bandwidth_bytes})
      for (const int cus : p.collective_cus) q.push_back(CollectiveQuery{coll(kind, size), Transport::cu, cus});
  for (const CollectiveKind kind : calibrated_kinds())
    for (const Transport t : transports_of(kind))
      for (const std::int64_t size : p.sizes) q.push_back(CollectiveQuery{coll(kind, size), t, 0});
  return without_repeats(q);
}

std::size_t interference_query_count(const CalibrationPlan& plan) {
  return 2 * plan.interference_ratios.size() * std::size(kInterferenceStrategies) + launch_queries(plan).size();
}

std::vector<ConcurrentQuery> launch_queries(const CalibrationPlan& p) {
  std::vector<ConcurrentQuery> q;
  for (const CollectiveKind kind : calibrated_kinds())
    for (const Transport t : transports_of(kind))
      q.push_back(ConcurrentQuery{p.latency_gemm, Collective{kind, p.latency_bytes, p.ranks},
                                  Strategy{t == Transport::dma ? StrategyKind::dma : StrategyKind::sp, 0, 0}});
  return q;
}

}  // namespace c3::validator
