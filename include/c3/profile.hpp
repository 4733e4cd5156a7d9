// c3/profile.hpp: what the model knows about a GPU node. A HardwareProfile holds
// the machine's ceilings, the collective library's behaviour, the slowdown tables
// and the interference factors; every value records where it came from.
// Loaded from YAML by c3/io.hpp; see docs/formats.md ("Profile") for the file format.
#pragma once

#include <compare>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "c3/types.hpp"

namespace c3 {

/// The prediction_error key of decomposed schedules in an SM partition (chunked:C:cu:c).
inline constexpr const char* kPartitionedScheduleError = "chunked_partitioned";

/// Where a value comes from: a number printed in a paper or public report
/// (published), a datasheet (spec), a c3advisor measurement (measured), an order of
/// magnitude chosen where neither exists for this machine (assumed; its ref says from what),
/// or a value chosen so that the model reproduces a published aggregate (fitted; its ref
/// names the aggregate, e.g. "the paper's 21% of ideal for GEMM-first").
enum class SourceKind { published, spec, measured, assumed, fitted };
/// Every SourceKind, in declaration order (for readers, error messages and counts).
inline constexpr SourceKind kSourceKinds[] = {SourceKind::published, SourceKind::spec, SourceKind::measured,
                                              SourceKind::assumed, SourceKind::fitted};
std::string_view to_string(SourceKind kind);
SourceKind parse_source_kind(std::string_view text);  ///< throws InputError

struct Provenance {
  SourceKind source = SourceKind::spec;
  std::string ref;  ///< paper section, datasheet, or measurement file
};

/// A measured curve y(x): x strictly increasing, y finite and > 0. Interpolated
/// linearly (model::interpolate); a query outside [x.front(), x.back()] throws
/// InputError rather than extrapolating.
struct Table {
  std::string name;  ///< for error messages, e.g. "gemm_slowdown.compute_bound"
  std::vector<double> x;
  std::vector<double> y;
  Provenance provenance;
};

/// A collective's slowdown in a partition against its size and its CUs (model.md §3):
/// `slowdown[i][j]` = its time on `cus[j]` CUs / its time on the library's default CUs, for a
/// collective of `size_bytes[i]` bytes. Both axes strictly increasing, every value finite and
/// > 0. Interpolated linearly in the CUs and in log(size), held at the first and last size
/// (model::collective_partition_slowdown).
struct SizedSlowdown {
  std::string name;  ///< for error messages, e.g. "collective_slowdown_by_size.all_gather"
  std::vector<double> size_bytes;
  std::vector<double> cus;
  std::vector<std::vector<double>> slowdown;  ///< [size][cus]
  Provenance provenance;
};

/// A collective's class: latency-bound while its time does not grow with size.
enum class CollectiveClass { latency_bound, bandwidth_bound };
std::string_view to_string(CollectiveClass c);

/// The most compute units (CUs, SMs) a profile may give one GPU: today's GPUs have 80 to 304;
/// a larger count is an error on load (the strategies offered grow with it).
inline constexpr int kMaxComputeUnits = 4096;

/// Alpha-beta parameters of one collective kind on one transport:
/// time = latency_s + wire_bytes / bus_bw_bytes_per_s.
/// If `curve_time_s` is present (x: size_bytes, y: time_s, measured at
/// `curve_ranks`), it replaces the alpha-beta formula inside its range.
/// Chunks of this many bytes take the library's vectorized path (model.md §2).
inline constexpr long long kAlignedChunkBytes = 16;

struct CollectiveParams {
  double latency_s = 0;
  double bus_bw_bytes_per_s = 0;
  int default_cus = 0;  ///< CUs (CTAs, channels) the library uses by default; 0 for DMA
  /// Time factor when a rank's chunk (size / ranks) is not a multiple of
  /// kAlignedChunkBytes: the library falls back to narrower loads (model.md §2).
  double unaligned_slowdown = 1.0;
  /// Host time to launch this collective on every rank (NCCL's group, or the copy
  /// engines' per-peer copies) before the next launch call can be made: a strategy that
  /// launches the collective first starts the GEMM this much later (model.md §4).
  double launch_s = 0;
  Table curve_time_s;   ///< optional: empty x means none
  int curve_ranks = 0;
};

/// Interference while both kernels run: multiplicative slowdowns (>= 1 means
/// slower) of the GEMM and of the collective, for one transport and GEMM class.
/// The collective's factor applies in full when the GEMM holds every CU and
/// scales with the share of CUs the GEMM holds (model::collective_contention).
struct Interference {
  double gemm_slowdown = 1.0;
  double collective_slowdown = 1.0;
};

/// The GEMM kernel a backend measured for one shape: the output tile of one CTA
/// (workgroup) and the split-K factor cuBLASLt chose (model.md §1, `gemm_tile`).
struct GemmKernelShape {
  Gemm gemm;       ///< the shape measured
  int tile_m = 0;  ///< > 0, along m
  int tile_n = 0;  ///< > 0, along n
  int split_k = 1; ///< > 0
};

/// A GEMM's isolated time measured on the profile's machine (model.md §1.2, `gemm_time_s`):
/// the median over the train files that timed this exact shape, as the runner runs it
/// (cuBLASLt, `tn` layout, every CU).
struct GemmTimeShape {
  Gemm gemm;           ///< the shape measured (layout tn)
  double seconds = 0;  ///< > 0, the median of the files' medians
  int files = 0;       ///< how many files timed it (>= 1)
};

/// A group of decomposed schedules (model.md §7.4): the pair's dependency and collective
/// kind, the schedule's transport, its partition's CUs (0: none) and its chunk count.
struct ScheduleGroup {
  Dependency dependency = Dependency::collective_feeds_gemm;
  CollectiveKind kind = CollectiveKind::all_gather;
  Transport transport = Transport::cu;
  int collective_cus = 0;
  int chunks = 1;
  auto operator<=>(const ScheduleGroup&) const = default;
};

/// A family of dependent pairs whose decomposed schedules without a partition share one
/// hedge error (docs/model.md "The recommendation"): the pair's dependency and collective kind.
struct HedgeGroup {
  Dependency dependency = Dependency::collective_feeds_gemm;
  CollectiveKind kind = CollectiveKind::all_gather;
  auto operator<=>(const HedgeGroup&) const = default;
};

/// A group of an independent pair's strategies (model.md §4.7): the collective kind, the
/// GEMM's class (the model's, `classify`) and the strategy's label ("sp", "rp:32").
struct StrategyGroup {
  CollectiveKind kind = CollectiveKind::all_gather;
  GemmClass gemm_class = GemmClass::compute_bound;
  std::string strategy;
  auto operator<=>(const StrategyGroup&) const = default;
};

struct HardwareProfile {
  std::string name;  ///< "mi300x", "h200x4"
  std::string gpu;   ///< "AMD Instinct MI300X"
  int gpu_count = 0;
  std::string description;
  Provenance provenance;  ///< of the profile as a whole (measured: GPU, versions, date, command)
  /// Measured profiles: the rest of the file's `provenance` mapping (device, gpus,
  /// driver, cuda, cublas, nccl, git_sha, date, command), as written.
  std::map<std::string, std::string> provenance_details;

  // --- compute ---
  int compute_units = 0;        ///< CUs (AMD) or SMs (NVIDIA) per GPU
  int partition_min_cus = 1;    ///< smallest CU partition the hardware allows
  int partition_step_cus = 1;   ///< partitions are multiples of this
  std::map<DType, double> peak_flops_per_s;  ///< dense, per GPU
  int gemm_tile_m = 256;        ///< output tile of one GEMM workgroup (for waves)
  int gemm_tile_n = 128;
  int gemm_workgroups_per_cu = 1;
  /// Optional: kernels measured per shape (written by calibrate --pairs from the train
  /// split). A GEMM's tile is the one of the nearest measured shape (model::gemm_tile);
  /// without any, gemm_tile_m x gemm_tile_n.
  std::vector<GemmKernelShape> gemm_kernels;
  /// Optional: isolated GEMM times measured per exact shape (written by calibrate
  /// --gemm-times from the train split). A GEMM of one of these shapes takes its measured
  /// time instead of §1's roofline (model::gemm_time_s); sorted by (dtype, m, n, k).
  std::vector<GemmTimeShape> gemm_times;

  // --- memory ---
  double hbm_bw_bytes_per_s = 0;
  double llc_bytes = 0;

  // --- interconnect and copy engines ---
  double link_bw_bytes_per_s = 0;  ///< per GPU, per direction, all links together
  int copy_engines = 0;

  // --- efficiencies (roofline) ---
  double gemm_efficiency_compute = 0.70;  ///< achieved / peak flops, compute-bound GEMMs
  /// Optional: compute efficiency against the GEMM's flops (measured); replaces
  /// gemm_efficiency_compute, interpolated in log(flops), held at its end points.
  Table gemm_efficiency_curve;
  /// Optional: a GEMM's time back to back in a chain / its time alone, against its time
  /// alone in seconds (measured: calibrate --sustained). A GPU at its power limit lowers its
  /// clocks under a chain of GEMMs, which a GEMM timed alone does not show (model.md §4.6).
  /// Interpolated in log(x), held at its end points; empty: 1 (not measured).
  Table sustained_gemm_slowdown;
  /// Optional (model.md §1.1): a GEMM whose leading dimensions are not all multiples of 16
  /// bytes runs on slower kernels. x: the operands' alignment in bytes (1, 2, 4 or 8), y: the
  /// factor in (0, 1] on the compute efficiency (gemm_unaligned_compute) and on the memory
  /// efficiency (gemm_unaligned_memory) at that alignment (measured: calibrate
  /// --unaligned-gemms). Interpolated in log(x), held at its end points; empty: 1.
  Table gemm_unaligned_compute;
  Table gemm_unaligned_memory;
  /// Optional (model.md §1.1): the fixed time in seconds (>= 0) such a GEMM's kernel adds to
  /// gemm_latency_s, against the alignment in bytes; empty: 0.
  Table gemm_unaligned_latency_s;
  /// Fixed cost of one GEMM kernel (launch, prologue, epilogue), added to the roofline.
  double gemm_latency_s = 0;
  double gemm_efficiency_memory = 0.70;   ///< achieved / peak bandwidth, memory-bound GEMMs
  double heuristic_efficiency = 0.70;     ///< the paper's cheap CU-split heuristic

  // --- collectives: [kind][transport] ---
  std::map<CollectiveKind, std::map<Transport, CollectiveParams>> collectives;

  // --- slowdown tables ---
  /// GEMM time / isolated GEMM time, against CUs removed (x starts at 0, y(0) = 1).
  std::map<GemmClass, Table> gemm_slowdown;
  /// Collective time / time with default_cus, against CUs given to the collective.
  std::map<CollectiveKind, std::map<CollectiveClass, Table>> collective_slowdown;
  /// Optional, per collective kind: the slowdown by size and CUs (measured: calibrate
  /// --collective-partitions); where it covers the CUs it replaces collective_slowdown's
  /// class tables for a collective in a partition (model.md §3).
  std::map<CollectiveKind, SizedSlowdown> collective_slowdown_by_size;

  // --- interference while overlapped: [transport][gemm class] ---
  std::map<Transport, std::map<GemmClass, Interference>> interference;
  /// Optional, per collective kind: factors that replace the transport's for that kind
  /// (an all-gather and an all-to-all of one size need not interfere alike; model.md §4.2).
  std::map<CollectiveKind, std::map<Transport, std::map<GemmClass, Interference>>> interference_by_kind;
  /// Optional, per collective kind and transport: the factors of a dependent pair's
  /// decomposed schedule without a partition while its two streams run (model.md §7.3), in
  /// place of the independent pairs' factors above. calibrate --pairs fits them from
  /// dependent pairs.
  std::map<CollectiveKind, std::map<Transport, Interference>> pipeline_interference;

  // --- the model's own error, measured ---
  /// Optional: the expected relative prediction error per strategy kind ("serial", "sp",
  /// "dma", ...): the 90th percentile of |predicted / measured - 1| over the train split's
  /// pairs (calibrate --pairs). The advisor hedges where a margin is inside it (advisor.hpp).
  /// Dependent pairs: "chunked", the median error of a decomposed schedule's predicted ratio
  /// to serial, and kPartitionedScheduleError, the same for the schedules in an SM partition
  /// (chunked:C:cu:c), which fall back to "chunked" where the profile has no such entry.
  std::map<std::string, double> prediction_error;
  /// Optional: per family of dependent pairs (dependency, collective kind), the hedge error of
  /// its decomposed schedules without a partition, a fraction in [0, 1], in place of
  /// prediction_error["chunked"] (advisor.hpp, hedge_error): the value whose picks do best on
  /// the train pairs of that family (calibrate --hedge-pairs). A family absent: "chunked".
  std::map<HedgeGroup, double> schedule_hedges;

  // --- launch order ---
  /// GEMM first (base): the collective waits for the GEMM's last wave to be
  /// dispatched; this scales that delay (1 = waits for every wave but the last).
  double gemm_first_delay_factor = 1.0;
  /// Optional: host time, in seconds, to launch the GEMM on every rank before the next
  /// launch call (the collective's, under base) can be made: the collective starts no
  /// earlier than this after the GEMM (model.md §4.3), so a GEMM shorter than it leaves
  /// base serial. 0: not measured (the collective waits for the GEMM's waves only).
  /// calibrate --pairs fits it with the delay factor.
  double gemm_launch_s = 0;

  // --- decomposed schedules of dependent pairs (model.md §7) ---
  /// Optional: the cost of one cross-stream wait (a GEMM piece waiting for its data, or a
  /// collective piece for its GEMM piece: event record + stream wait), per wait. 0: none.
  double chunk_wait_s = 0;
  /// Optional: the fixed cost of a GEMM piece queued behind another on its stream (its
  /// launch overlaps the piece before it), in seconds; model.md §7.3. Unset: gemm_latency_s,
  /// as for a GEMM alone. calibrate --pairs fits it from dependent pairs.
  std::optional<double> chunk_piece_latency_s;
  /// Optional: the fixed cost of a copy-engine step queued behind another step of the same
  /// decomposed schedule, in seconds, in place of the transport's latency_s (its setup
  /// overlaps the step before it); model.md §7.3. Unset: latency_s, as for a collective alone.
  /// Set by calibrate --dma-step-latency-us (chosen on train, not fitted).
  std::optional<double> chunk_dma_step_latency_s;
  /// Optional, with chunk_dma_step_latency_s: a queued copy-engine step whose own time is
  /// below this (seconds) keeps the transport's latency_s: the host's issue of the steps, not
  /// the copy engine, paces short ones (model.md §7.3). Unset: 0, every queued step.
  std::optional<double> chunk_dma_step_min_s;
  /// Optional: of a strided-batched step GEMM (gemm_feeds_collective: one call over the
  /// ranks' blocks, sharing B), the share of B that each block after the first reads again
  /// from HBM, in [0, 1] (model.md §7.3; 0: the blocks share B through the L2, 1: each reads
  /// it). Unset: 0, the step priced as one GEMM of its rows. calibrate --pairs fits it from
  /// dependent pairs whose step GEMMs are memory-bound.
  std::optional<double> chunk_batch_reread;
  /// Optional: per group of decomposed schedules, the factor its predicted time is multiplied
  /// by (model.md §7.4, `schedule_correction`): exp of the median, over the group's train
  /// schedules, of log(measured / measured serial) - log(predicted / predicted serial).
  /// Positive; a group absent: 1. calibrate --pairs --schedule-corrections fits it.
  std::map<ScheduleGroup, double> schedule_corrections;
  /// Optional: per group of an independent pair's strategies, the factor a prediction of at
  /// least strategy_correction_min_s is multiplied by (model.md §4.7, `strategy_correction`):
  /// the median, over the group's train pairs, of (measured / measured serial) / (predicted /
  /// predicted serial). Positive; a group absent: 1. calibrate --strategy-correction-pairs
  /// fits it.
  std::map<StrategyGroup, double> strategy_corrections;
  /// Predictions shorter than this keep their time (model.md §4.7); seconds, >= 0.
  double strategy_correction_min_s = 0;

  /// Provenance per value, keyed by the YAML key path ("hbm_bw_bytes_per_s",
  /// "collectives.all_gather.cu.latency_s", "tables.gemm_slowdown.compute_bound").
  std::map<std::string, Provenance> sources;
};

/// How many of the profile's values (`sources`) come from each kind of source; every kind
/// is present, 0 where none.
std::map<SourceKind, int> source_counts(const HardwareProfile& hw);
/// The key paths of `sources` whose source is `kind`, in key order.
std::vector<std::string> keys_from(const HardwareProfile& hw, SourceKind kind);

/// What the profile's GPU calls its compute units, for sentences shown to users: "SMs"
/// when `hw.gpu` starts with "NVIDIA" (any case), else "CUs". Not for keys or option names.
std::string_view compute_unit_name(const HardwareProfile& hw);

}  // namespace c3
