// c3/model.hpp: the analytical model, as pure functions on value types. Each
// function is one equation of docs/model.md (the section is named next to it).
// Times in seconds, sizes in bytes, rates per second. Functions throw InputError
// for invalid inputs (zero sizes, queries outside a table) and never print.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "c3/profile.hpp"
#include "c3/types.hpp"

namespace c3::model {

// ---- 1. Isolated GEMM (model.md §1) ----

/// 2 m n k.
double gemm_flops(const Gemm& gemm);
/// Each operand read once, the output written once: (m k + k n + m n) * bytes/element.
double gemm_min_bytes(const Gemm& gemm);
/// gemm_flops / gemm_min_bytes.
double gemm_op_per_byte(const Gemm& gemm);
/// peak_flops(dtype) / hbm_bw: the machine's balance point.
double machine_op_per_byte(const HardwareProfile& hw, DType dtype);
/// compute_bound when the GEMM's op:byte exceeds the machine's.
GemmClass gemm_class(const HardwareProfile& hw, const Gemm& gemm);
/// Compute efficiency of this GEMM: the measured curve against flops when the
/// profile has one (log-linear inside, held at its end points), else
/// gemm_efficiency_compute.
double gemm_compute_efficiency(const HardwareProfile& hw, const Gemm& gemm);
/// §1.1: the alignment in bytes of the GEMM's operands: over the leading dimensions of its
/// layout (tn: k and m; row_major: k and n; a dimension of 1 has no stride and is left
/// out), the largest power of two up to 16 that divides each leading dimension's bytes.
int gemm_alignment_bytes(const Gemm& gemm);
/// §1.1: the factors on the compute and the memory efficiency of a GEMM at its alignment,
/// and the fixed time its kernel adds: 1, 1 and 0 at 16 bytes; else the profile's
/// gemm_unaligned_compute / gemm_unaligned_memory / gemm_unaligned_latency_s at it
/// (log-linear, held at the end points), 1, 1 and 0 where the profile has no table.
struct UnalignedFactors {
  double compute = 1;
  double memory = 1;
  double latency_s = 0;
};
UnalignedFactors gemm_unaligned_factors(const HardwareProfile& hw, const Gemm& gemm);
/// The two roofline terms of §1 without the latency and without the unaligned factors:
/// flops / (peak * eff_c) and bytes / (hbm_bw * eff_m) (what calibrate --unaligned-gemms
/// divides a measured time by).
struct GemmRoofline {
  double compute_s = 0;
  double memory_s = 0;
};
GemmRoofline gemm_aligned_roofline_s(const HardwareProfile& hw, const Gemm& gemm);
/// The profile's measured time of this exact GEMM (HardwareProfile::gemm_times, model.md §1.2):
/// the same m, n, k, dtype and layout (a profile's table is the runner's, tn; a dependent pair's
/// GEMM runs row-major, gemm_as_run); nullptr if none.
const GemmTimeShape* measured_gemm_time(const HardwareProfile& hw, const Gemm& gemm);
/// `hw` with `times` added to its gemm_times, each replacing an entry of the same shape, dtype
/// and layout, the table kept in lookup order: a GEMM's own time (measured in the replay file
/// validated, or given by the user) then wins over the profile's. Throws InputError for a time
/// that is not > 0 or an invalid GEMM.
HardwareProfile with_gemm_times(HardwareProfile hw, const std::vector<GemmTimeShape>& times);
/// The measured time of measured_gemm_time where there is one; else latency + l_u +
/// max(flops / (peak * eff_c * u_c), bytes / (hbm_bw * eff_m * u_m)), u_c, u_m and l_u of
/// gemm_unaligned_factors (1, 1 and 0 for aligned operands). Throws InputError for an
/// invalid GEMM.
double gemm_time_s(const HardwareProfile& hw, const Gemm& gemm);
/// §4.6: a GEMM's time in a chain (back to back, the GPU at its power limit) / its time
/// alone `gemm_s`: the profile's sustained_gemm_slowdown at gemm_s (log-linear, held at its
/// end points), 1 where the profile has none.
double sustained_gemm_slowdown(const HardwareProfile& hw, double gemm_s);
/// A GEMM piece of a decomposed schedule (model.md §7.3): `latency_s` + max(flops(piece) /
/// (peak * eff_c(whole)), bytes(piece) / (hbm_bw * eff_m)): the piece's roofline at the
/// compute efficiency of the whole GEMM it is cut from (the pieces run back to back, so
/// the GPU holds the clock of the whole run, not of one short kernel), plus the latency the
/// caller gives (gemm_latency_s for the first piece of a stream, chunk_piece_latency_s for
/// the ones queued behind it). Throws InputError for an invalid GEMM or negative latency.
double gemm_piece_time_s(const HardwareProfile& hw, const Gemm& piece, const Gemm& whole, double latency_s);
/// `blocks` pieces of `block` (same n, k) run as one strided-batched GEMM sharing B
/// (model.md §7.3): gemm_piece_time_s of their rows together, with B's bytes counted
/// 1 + (blocks - 1) * reread times. reread = 0 gives gemm_piece_time_s of blocks * block.m
/// rows. Throws InputError for an invalid GEMM, blocks < 1, reread outside [0, 1] or a
/// negative latency.
double gemm_batched_piece_time_s(const HardwareProfile& hw, const Gemm& block, int blocks, const Gemm& whole,
                                 double latency_s, double reread);
/// Roofline at one efficiency for both terms (the paper's heuristic uses 0.70).
double gemm_roofline_time_s(const HardwareProfile& hw, const Gemm& gemm, double efficiency);
/// The tile a GEMM runs with (§1): the measured kernel (HardwareProfile::gemm_kernels) whose
/// shape is nearest in log m, log n, log k, among those of the same dtype when there are
/// any; else the profile's gemm_tile_m x gemm_tile_n without split-K.
struct GemmTile {
  int m = 0;
  int n = 0;
  int split_k = 1;
};
GemmTile gemm_tile(const HardwareProfile& hw, const Gemm& gemm);
/// The largest tile dimension or split-K a kernel may be given (no GEMM kernel comes close).
inline constexpr int kMaxTileDim = 65536;
/// Parses a kernel's tile as `advise --gemm-tile` spells it: "TMxTN" or "TMxTN:S" (split-K),
/// positive integers up to kMaxTileDim. Throws InputError naming the text.
GemmTile parse_gemm_tile(std::string_view text);
/// True when every field is in [1, kMaxTileDim] (what parse_gemm_tile accepts).
bool valid_gemm_tile(const GemmTile& tile);
/// `hw` with `kernels` added to its gemm_kernels, each replacing a kernel of the same shape
/// and dtype: a GEMM's own kernel (cuBLASLt's choice for that shape, recorded by a backend
/// or named by the user) then wins over the nearest measured shape in gemm_tile.
HardwareProfile with_gemm_kernels(HardwareProfile hw, const std::vector<GemmKernelShape>& kernels);
/// Workgroups (CTAs) the GEMM launches: ceil(m/tile.m) * ceil(n/tile.n) * tile.split_k,
/// saturated at INT64_MAX.
std::int64_t gemm_workgroups(const HardwareProfile& hw, const Gemm& gemm);
/// Waves on `cus` CUs: ceil(workgroups / (cus * workgroups_per_cu)).
std::int64_t gemm_waves(const HardwareProfile& hw, const Gemm& gemm, int cus);
/// The same for a CTA count already known (one tile lookup for several CU counts).
std::int64_t workgroup_waves(const HardwareProfile& hw, std::int64_t workgroups, int cus);
/// CUs the GEMM's last wave leaves idle on `cus` CUs:
/// floor((waves * cus * workgroups_per_cu - workgroups) / workgroups_per_cu), in [0, cus).
int gemm_last_wave_idle_cus(const HardwareProfile& hw, const Gemm& gemm, int cus);

// ---- 2. Isolated collective (model.md §2) ----

/// Bytes each rank sends: (n-1)/n of the buffer; 2(n-1)/n for all_reduce.
double wire_bytes(const Collective& coll);
/// The profile's alpha-beta parameters (and curve) of this kind on this transport.
/// Throws InputError if the transport cannot run this kind (DMA cannot reduce)
/// or the profile has no parameters for it.
const CollectiveParams& collective_params(const HardwareProfile& hw, CollectiveKind kind,
                                          Transport transport);
/// True when a rank's chunk (size / ranks) is a whole multiple of kAlignedChunkBytes.
bool chunk_aligned(const Collective& coll);
/// (latency + wire_bytes / bus_bw, or the measured curve where it covers the size
/// scaled from curve_ranks to coll.ranks by the wire-byte ratio), times
/// unaligned_slowdown when the chunk is not aligned.
/// Throws InputError if the transport cannot run this kind (DMA cannot reduce)
/// or the profile has no parameters for it.
double collective_time_s(const HardwareProfile& hw, const Collective& coll, Transport transport);
/// latency_bound while the latency term is at least the bandwidth term.
CollectiveClass collective_class(const HardwareProfile& hw, const Collective& coll);
/// The library's default CU count for this kind (CU transport).
int collective_default_cus(const HardwareProfile& hw, CollectiveKind kind);

// ---- 3. Slowdown tables (model.md §3) ----

/// Linear interpolation in a Table. Throws InputError outside [x.front(), x.back()].
double interpolate(const Table& table, double x);
/// Interpolation in log(x) in a Table of positive x, held at its end points (no throw);
/// the table must not be empty.
double interpolate_log_x_held(const Table& table, double x);
/// GEMM time with `cus_removed` CUs taken / isolated GEMM time.
double gemm_slowdown(const HardwareProfile& hw, GemmClass cls, int cus_removed);
/// The compute-bound GEMM the gemm_slowdown table is measured with (calibrate's
/// compute_gemm): 8192 x 8192 x 8192 bf16.
Gemm slowdown_table_gemm();
/// §3: a compute-bound GEMM's time per CTA on N - cus_removed CUs / on all N, the table's
/// slowdown with the table GEMM's own wave quantization taken out:
/// gemm_slowdown(compute, r) * waves(table GEMM, N) / waves(table GEMM, N - r).
double gemm_cta_slowdown(const HardwareProfile& hw, int cus_removed);
/// §3: `gemm`'s slowdown with `cus_removed` CUs taken for its whole run. A compute-bound GEMM
/// whose CTA count comes from a measured kernel (HardwareProfile::gemm_kernels not empty):
/// gemm_cta_slowdown(r) * waves(gemm, N - r) / waves(gemm, N); otherwise gemm_slowdown.
double gemm_partition_slowdown(const HardwareProfile& hw, const Gemm& gemm, GemmClass cls, int cus_removed);
/// Collective time with `cus` CUs / its time with the default CUs.
double collective_slowdown(const HardwareProfile& hw, CollectiveKind kind, CollectiveClass cls,
                           int cus);
/// §3: `c`'s time on `cus` CUs for its whole run / its time on the default CUs. Where the
/// profile has a collective_slowdown_by_size table for c.kind whose CUs cover `cus`: linear in
/// the CUs within each size row, linear in log(c.size_bytes) between rows, held at the first
/// and last row; otherwise collective_slowdown(hw, c.kind, cls, cus). Throws InputError as
/// collective_slowdown does.
double collective_partition_slowdown(const HardwareProfile& hw, const Collective& c, CollectiveClass cls,
                                     int cus);
/// True if both tables cover the split (collective gets `cus`, GEMM loses `cus`).
bool split_covered(const HardwareProfile& hw, GemmClass gcls, CollectiveKind kind,
                   CollectiveClass ccls, int cus);

// ---- 4. Concurrent time (model.md §4) ----

/// One kernel of a concurrent pair: its time alone while the other runs
/// (`overlap_s`, before interference) and after the other finished (`after_s`).
struct Job {
  double overlap_s = 0;
  double after_s = 0;
  double contention = 1.0;  ///< slowdown while overlapped (>= 1 slower)
};

/// Two kernels, `second` starting `delay_s` after `first`: `first` runs alone at
/// its after_s rate for min(delay, its time); then both run, each at
/// overlap_s * contention, until one finishes; the survivor finishes at its
/// after_s rate. Returns the time from first launch to last completion.
double overlapped_time_s(const Job& first, const Job& second, double delay_s);

/// The interference factors of a collective kind on a transport beside a GEMM class
/// (§4.2): the kind's own where the profile has them, else the transport's. Throws
/// InputError when the profile has neither.
const Interference& interference(const HardwareProfile& hw, CollectiveKind kind, Transport transport,
                                 GemmClass cls);
/// Collective's contention factor given the GEMM's CU share (§4.2):
/// 1 + (factor - 1) * gemm_cus / compute_units.
double collective_contention(const HardwareProfile& hw, const Interference& f, int gemm_cus);

/// Delay of the collective when the GEMM is launched first (§4.3): it waits for the
/// GEMM's last wave to be dispatched, then can use only the CUs that wave leaves idle:
/// factor * ((1 - 1/W) + (1 - min(1, idle / collective_cus)) / W) * gemm_s, W = waves on
/// every CU, idle = gemm_last_wave_idle_cus. Throws InputError for collective_cus <= 0.
double gemm_first_delay_s(const HardwareProfile& hw, const Gemm& gemm, double gemm_s, int collective_cus);

/// §1.1: the pair's GEMM as it runs: a dependent pair's is row-major whatever its layout
/// (its schedules cut rows of row-major operands, as PyTorch's and the cuda backend's do);
/// an independent pair's as given.
Gemm gemm_as_run(const C3Pair& pair);

/// Isolated times the strategies start from.
struct Isolated {
  double gemm_s = 0;
  double collective_s = 0;      ///< CU transport, default CUs
  double collective_dma_s = 0;  ///< copy engines; 0 when the kind cannot use DMA
};
Isolated isolated_times(const HardwareProfile& hw, const C3Pair& pair);

// §4.5: one equation per way of running a pair; the strategy families
// (strategies/, c3/strategy.hpp) choose which one a strategy uses. Each throws
// InputError when the pair cannot run that way (a split outside the tables, copy
// engines for a reduction, a profile without the interference factors).
struct Taxonomy;

/// One after the other: t_g + t_c.
double serial_time_s(const Isolated& iso);
/// GEMM launched first; the collective waits for its waves (§4.3).
double gemm_first_time_s(const HardwareProfile& hw, const C3Pair& pair, const Isolated& iso,
                         const Taxonomy& tax);
/// Collective launched first on its default CUs; the GEMM takes the rest and gets them
/// back when the collective ends; the GEMM's launch waits for launch_s (§4.4).
double collective_first_time_s(const HardwareProfile& hw, const C3Pair& pair, const Isolated& iso,
                               const Taxonomy& tax);
/// Collective first in a partition of `collective_cus`, the GEMM in the rest, for both
/// kernels' whole runs.
double partition_time_s(const HardwareProfile& hw, const C3Pair& pair, const Isolated& iso,
                        const Taxonomy& tax, int collective_cus);
/// Collective on copy engines, launched first; the GEMM runs on all compute units but
/// `gemm_cus_removed` (0: all of them).
double copy_engine_time_s(const HardwareProfile& hw, const C3Pair& pair, const Isolated& iso,
                          const Taxonomy& tax, int gemm_cus_removed);

// ---- 5. Taxonomy and metrics (model.md §5) ----

enum class OverlapClass { g_long, c_long, gc_equal };
std::string_view to_string(OverlapClass c);

/// G-long if gemm > 115% of collective, C-long if collective > 115% of gemm.
OverlapClass overlap_class(double gemm_s, double collective_s);
/// (t_gemm + t_coll) / max(t_gemm, t_coll).
double ideal_speedup(double gemm_s, double collective_s);
/// (t_gemm + t_coll) / t_concurrent.
double speedup(double gemm_s, double collective_s, double concurrent_s);
/// The ideal with the faster transport of the collective: (t_gemm + t_cu) /
/// max(t_gemm, min(t_cu, t_dma)); t_dma <= 0 means no copy-engine transport (reductions),
/// and then it is ideal_speedup (model.md §5).
double fast_ideal_speedup(double gemm_s, double collective_cu_s, double collective_dma_s);
/// (realized - 1) / (ideal - 1); 0 when ideal is 1.
double fraction_of_ideal(double realized_speedup, double ideal);

struct Taxonomy {
  OverlapClass overlap = OverlapClass::gc_equal;
  GemmClass gemm = GemmClass::compute_bound;
  CollectiveClass collective = CollectiveClass::bandwidth_bound;
};
Taxonomy classify(const HardwareProfile& hw, const C3Pair& pair);

/// §4.7: the group of an independent pair's strategy labelled `strategy` ("sp", "rp:32"): the
/// collective's kind, the GEMM's class (`classify`) and the label, where a chained pair's `sp`,
/// which runs as `base` (§4.6), is base's group. The fit and the model both key by it.
StrategyGroup strategy_group(const HardwareProfile& hw, const C3Pair& pair, std::string_view strategy);

/// §4.7: whether a prediction of `time_s` for this pair can be corrected at all: the profile
/// has corrections, the pair is independent and time_s >= strategy_correction_min_s. Cheap;
/// strategy_correction is 1 where it is false.
bool strategy_correction_applies(const HardwareProfile& hw, const C3Pair& pair, double time_s);

/// §4.7: the factor on `time_s`, an independent pair's uncorrected prediction under the
/// strategy labelled `strategy`: the profile's strategy_corrections for its strategy_group
/// where time_s >= strategy_correction_min_s; a partition count without a group of its own
/// (rp:24) takes the factor interpolated linearly in the CU count between the nearest counts
/// of its family with one (rp:16, rp:32), held beyond them. 1 for serial, a dependent pair, a
/// shorter prediction or a group without a factor.
double strategy_correction(const HardwareProfile& hw, const C3Pair& pair, std::string_view strategy, double time_s);

/// CU splits the hardware and tables allow for this pair: multiples of the
/// partition step, at least the minimum, fewer than compute_units, covered by both
/// slowdown tables.
std::vector<int> allowed_collective_cus(const HardwareProfile& hw, const C3Pair& pair);
/// CUs a memory-bound GEMM may give up under dma_rp: the same grid, covered by the
/// GEMM table, at most a quarter of the CUs.
std::vector<int> allowed_dma_rp_cus(const HardwareProfile& hw, const C3Pair& pair);

// ---- 6. Domain: what a profile covers (model.md §6) ----

/// A measured curve's range: where the model interpolates rather than extrapolates.
struct MeasuredRange {
  std::string what;  ///< "all_gather cu sizes", "GEMM flops"
  double lo = 0;
  double hi = 0;
  int ranks = 0;     ///< collective curves: the ranks they were measured at
};

/// What a profile covers: one node of `gpus_per_node` GPUs (the model has no
/// inter-node term), the dtypes with a peak, and the measured ranges of its curves.
struct Domain {
  int gpus_per_node = 0;
  int nodes = 1;
  std::vector<DType> dtypes;
  std::vector<MeasuredRange> measured;
};
Domain domain(const HardwareProfile& hw);

/// Checks a pair against the profile's domain. Throws InputError naming the limit when
/// the profile cannot answer (more ranks than GPUs in its node, a dtype without a peak,
/// a collective kind it has no parameters for); returns one warning per extrapolation
/// it makes (a size outside a measured collective curve, a GEMM outside the measured
/// efficiency curve), empty when the pair is inside everything measured.
std::vector<std::string> domain_warnings(const HardwareProfile& hw, const C3Pair& pair);

// ---- 7. Dependent pairs: decomposed schedules (model.md §7) ----

/// How a decomposed schedule cuts a dependent pair: the dependent operand (A of a
/// collective_feeds_gemm pair, C of a gemm_feeds_collective one) in `chunks` pieces of
/// m / chunks rows, chunks / ranks of them per rank, moved in steps = chunks / ranks;
/// each step's pieces on `transport`, the collective's pieces in a partition of
/// `collective_cus` compute units (0: the library's default CUs, no partition; cu only).
struct Decomposition {
  int chunks = 1;
  Transport transport = Transport::cu;
  int collective_cus = 0;
};

/// A decomposed schedule's step `step` of `step_s` seconds when it is queued behind another
/// step (§7.3): on the copy engines, with the profile's chunk_dma_step_latency_s, its
/// transport's latency_s replaced by that (never below it) when step_s is at least
/// chunk_dma_step_min_s; else `step_s` unchanged.
double queued_step_time_s(const HardwareProfile& hw, const Collective& step, Transport transport,
                          double step_s);

/// A decomposed schedule's factors while both streams run (§7.3): the profile's
/// pipeline_interference for (kind, d.transport) where present and the schedule has no
/// partition (d.collective_cus == 0), else interference() (§4.2).
const Interference& pipeline_interference(const HardwareProfile& hw, CollectiveKind kind, const Decomposition& d,
                                          GemmClass cls);

/// Throws InputError unless the pair is dependent, ranks divides chunks, chunks divides
/// m, the transport can run the kind (copy engines cannot reduce) and collective_cus is
/// a split the profile covers (or 0).
void check_decomposition(const HardwareProfile& hw, const C3Pair& pair, const Decomposition& d);

/// One kernel of a pipeline: its time alone, and the job on the other stream it waits
/// for (index, -1: none).
struct PipelineJob {
  double time_s = 0;
  int waits_for = -1;
};

/// Two streams of jobs, each in stream order, with cross-stream waits (§7.2).
///  gemm_contention / comm_contention: time factor of a job while the other stream runs;
///  wait_s: added to a job's start for each cross-stream wait;
///  comm_entry_fraction: per GEMM job, the fraction of its run a collective job that
///    becomes ready while it runs waits for before it gets compute units (§4.3 for that
///    piece; 0 on copy engines and in partitions).
/// At equal times the collective's job starts first (it is launched first).
struct Pipeline {
  std::vector<PipelineJob> gemm;
  std::vector<PipelineJob> comm;
  double gemm_contention = 1.0;
  double comm_contention = 1.0;
  double wait_s = 0;
  std::vector<double> comm_entry_fraction;
};

/// When each job of a pipeline ends.
struct PipelineTimes {
  std::vector<double> gemm_end_s;
  std::vector<double> comm_end_s;
  double total_s = 0;  ///< the last end
};
/// Runs the two streams (§7.2). Throws InputError for a wait on a job that does not
/// exist or a cycle.
PipelineTimes pipeline_times(const Pipeline& p);

/// The pipeline of a decomposed schedule (§7.1, §7.3): collective_feeds_gemm: the
/// local rows' GEMM first, then one GEMM per step, each after its step's pieces arrived;
/// gemm_feeds_collective: one GEMM per step of m / steps rows, each step's collective
/// after its GEMM. Pieces' times from §1 and §2, contention as §4.5 for the transport.
Pipeline decomposed_pipeline(const HardwareProfile& hw, const C3Pair& pair, const Decomposition& d);
/// §7.4: the group of the pair's schedule `d` (ScheduleGroup).
ScheduleGroup schedule_group(const C3Pair& pair, const Decomposition& d);
/// §7.4: the profile's schedule_corrections factor of that group; 1 where it has none.
double schedule_correction(const HardwareProfile& hw, const C3Pair& pair, const Decomposition& d);
/// pipeline_times(decomposed_pipeline(...)).total_s * schedule_correction(...) (§7.4; the
/// pipeline's own times, e.g. a predicted timeline, are not corrected).
double decomposed_time_s(const HardwareProfile& hw, const C3Pair& pair, const Decomposition& d);

}  // namespace c3::model
