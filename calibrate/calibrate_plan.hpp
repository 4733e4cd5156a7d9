// calibrate/calibrate_plan.hpp: what `calibrate` measures (docs/calibration.md,
// "What it measures"): shapes, sizes and CU grids, derived from the profile being
// calibrated and the --quick choice.
#pragma once

#include <cstdint>
#include <vector>

#include "c3/profile.hpp"
#include "io/query.hpp"

namespace c3::validator {

struct CalibrationPlan {
  int ranks = 0;  ///< every collective's ranks (--gpus)
  Gemm peak_gemm;      ///< large and compute-bound: peak flops
  Gemm compute_gemm;   ///< the compute-bound GEMM of the slowdown table
  Gemm memory_gemm;    ///< the memory-bound GEMM of the slowdown table (decode-shaped)
  Gemm latency_gemm;   ///< tiny and memory-bound: the fixed cost of one GEMM kernel
  /// Memory-bound GEMMs from latency_gemm to memory_gemm: time = gemm_latency_s +
  /// bytes / (hbm_bw x gemm_efficiency_memory), fitted as a line through them
  std::vector<Gemm> memory_gemms;
  std::vector<Gemm> efficiency_gemms;  ///< compute-bound, increasing flops: efficiency curve
  std::int64_t copy_bytes = 0;        ///< ceilings: HBM and link copies
  std::int64_t latency_bytes = 0;     ///< a latency-bound collective size
  std::int64_t bandwidth_bytes = 0;   ///< a bandwidth-bound collective size
  std::int64_t unaligned_bytes = 0;   ///< bandwidth_bytes with chunks off kAlignedChunkBytes
  std::vector<std::int64_t> sizes;    ///< the size sweep, increasing
  std::vector<int> cus_removed;       ///< GEMM: 0, then the partition grid
  std::vector<int> collective_cus;    ///< collective: 0 (the library default), then the grid
  std::vector<double> interference_ratios;  ///< collective time / GEMM time of the pairs
};

/// The plan for `hw` (its compute_units and partition grid) at `ranks` ranks.
CalibrationPlan make_plan(const HardwareProfile& hw, int ranks, bool quick);

/// The GEMMs whose time against CUs removed gives a class's slowdown table: the
/// compute-bound GEMM; the memory-bound GEMM and the other decode shapes of memory_gemms
/// (one shape's wave quantization is not its class's behaviour; the table takes the
/// median ratio over the shapes).
std::vector<Gemm> slowdown_gemms(const CalibrationPlan& plan, GemmClass cls);

/// The measurements that need no fitted values, in the order they are taken:
/// ceilings, GEMM slowdowns, collectives against CUs, collectives against size.
std::vector<Query> isolated_queries(const CalibrationPlan& plan);

/// Strategies of the interference pairs: sp and dma fit the factors, base the delay.
inline constexpr StrategyKind kInterferenceStrategies[] = {StrategyKind::sp, StrategyKind::dma,
                                                           StrategyKind::base};
/// Concurrent measurements taken after the isolated fit: per GEMM class, ratio and strategy.
std::size_t interference_query_count(const CalibrationPlan& plan);

/// Tiny pairs launched collective first, which fit each collective's launch_s: the
/// latency GEMM with a latency_bytes collective of every calibrated kind, under sp, and
/// under dma where the kind can use copy engines.
std::vector<ConcurrentQuery> launch_queries(const CalibrationPlan& plan);

/// The collective kinds calibrated, and the transports each supports.
std::vector<CollectiveKind> calibrated_kinds();
std::vector<Transport> transports_of(CollectiveKind kind);

}  // namespace c3::validator
