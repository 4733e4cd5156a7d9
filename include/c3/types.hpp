// c3/types.hpp: the value types every part of c3advisor speaks: a GEMM, a
// collective, a C3 pair, a transport and a strategy; with parsing of the
// command-line spellings ("8192x8192x8192:bf16", "all_gather:896MiB", "3.25GiB").
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace c3 {

/// Element type of a GEMM's operands.
enum class DType { bf16, fp16, fp32, fp8 };

/// Bytes per element of `dtype`.
int bytes_per_element(DType dtype);
/// "bf16", "fp16", "fp32", "fp8".
std::string_view to_string(DType dtype);
/// Inverse of to_string(DType). Throws InputError naming the valid spellings.
DType parse_dtype(std::string_view text);

/// How a GEMM's operands lie in memory, which decides its leading dimensions (model.md §1.1:
/// a leading dimension that is not a multiple of 16 bytes costs the fast kernels).
enum class GemmLayout {
  /// "tn": cuBLAS column-major C (m x n) = A^T B, A stored k x m and B k x n; leading
  /// dimensions k, k and m. What c3advisor's runner (`measure`) runs; the default.
  tn,
  /// "row_major": PyTorch's x[m, k] @ W (torch.matmul, nn.functional.linear); leading
  /// dimensions k, k or n, and n.
  row_major
};

/// "tn", "row_major".
std::string_view to_string(GemmLayout layout);
/// Inverse of to_string(GemmLayout). Throws InputError naming the valid spellings.
GemmLayout parse_gemm_layout(std::string_view text);

/// C[m x n] = A[m x k] * B[k x n]; m, n, k > 0.
struct Gemm {
  std::int64_t m = 0;
  std::int64_t n = 0;
  std::int64_t k = 0;
  DType dtype = DType::bf16;
  GemmLayout layout = GemmLayout::tn;
  friend bool operator==(const Gemm&, const Gemm&) = default;
};

/// Which collective. Sizes follow nccl-tests: all_gather: the gathered output per
/// rank; all_to_all: the send buffer per rank; reduce_scatter: the input per rank;
/// all_reduce: the buffer per rank.
enum class CollectiveKind { all_gather, all_to_all, reduce_scatter, all_reduce };

std::string_view to_string(CollectiveKind kind);
/// Throws InputError naming the valid spellings.
CollectiveKind parse_collective_kind(std::string_view text);
/// Copy engines cannot reduce: all_reduce and reduce_scatter have no DMA transport.
bool dma_capable(CollectiveKind kind);

struct Collective {
  CollectiveKind kind = CollectiveKind::all_gather;
  std::int64_t size_bytes = 0;  ///< > 0
  int ranks = 0;                ///< >= 2
  friend bool operator==(const Collective&, const Collective&) = default;
};

/// A GEMM's class: compute-bound when its op:byte exceeds the machine's.
enum class GemmClass { compute_bound, memory_bound };
std::string_view to_string(GemmClass c);
/// Throws InputError naming the valid spellings.
GemmClass parse_gemm_class(std::string_view text);

/// How the collective's data relates to the GEMM's (docs/model.md §7):
///  none: independent (the collective moves other data; the pair may run at once);
///  collective_feeds_gemm: the collective's output is the GEMM's A, m x k
///    (all_gather: the gathered A; all_to_all: the tokens dispatched to this rank);
///  gemm_feeds_collective: the GEMM's output C, m x n, is the collective's input
///    (reduce_scatter; all_to_all: the tokens sent back).
enum class Dependency { none, collective_feeds_gemm, gemm_feeds_collective };
/// "none", "collective_feeds_gemm", "gemm_feeds_collective".
std::string_view to_string(Dependency dependency);
/// Inverse of to_string(Dependency). Throws InputError naming the valid spellings.
Dependency parse_dependency(std::string_view text);
/// Bytes of the GEMM operand a dependent collective moves, per rank, in the collective's
/// size convention: m k bytes/element (collective_feeds_gemm), m n bytes/element
/// (gemm_feeds_collective); 0 for none. Throws InputError when it overflows.
std::int64_t dependent_operand_bytes(const Gemm& gemm, Dependency dependency);
/// Checks that a dependency fits the pair: collective_feeds_gemm takes all_gather or
/// all_to_all, gemm_feeds_collective reduce_scatter or all_to_all, and the collective's
/// size is dependent_operand_bytes. Throws InputError naming the expected value.
void validate_dependency(const Gemm& gemm, const Collective& collective, Dependency dependency);

/// A GEMM and a collective: independent (to be run concurrently) or dependent (one
/// feeds the other; decomposed schedules overlap them piece by piece).
struct C3Pair {
  std::string name;  ///< e.g. "mb1_896M"; may be empty
  Gemm gemm;
  Collective collective;
  /// The GEMM's class where it was measured (the paper's cb/mb tags, or
  /// calibration); when set it wins over the roofline class (model.md §1).
  std::optional<GemmClass> gemm_class;
  /// The profile (by name) on which gemm_class was measured; empty = any. A class
  /// measured on one machine says nothing about another (model.md §1).
  std::string gemm_class_measured_on;
  /// Whether one feeds the other (none: independent).
  Dependency dependency = Dependency::none;
  /// Issued in a prefetch chain (docs/model.md §4.6): the previous pair's work still runs
  /// when this pair is launched, so the host is ahead of the GPU (no launch cost) and both
  /// kernels wait on the same event (the GEMM's workgroups take the CUs first). false: the
  /// pair alone, launched by the host from idle GPUs. Independent pairs only
  /// (validate_chained).
  bool chained = false;
  /// The GEMM runs back to back with the GEMMs of a sustained chain (a training step's
  /// prefetch chain): at the clocks of the GPU's power limit, so its isolated time is
  /// scaled by the profile's sustained_gemm_slowdown (docs/model.md §4.6). false: at the
  /// clocks of a GEMM timed alone, as `measure` times every pair, chained (queued ahead) or not.
  bool at_power_limit = false;
};

/// Checks that a chained pair is independent: a dependent pair is priced by its own
/// schedule (docs/model.md §7), never as a chained pair (§4.6). Throws InputError.
void validate_chained(const C3Pair& pair);

/// Where the collective runs: on compute units (NCCL/RCCL kernels) or on the
/// GPU's copy (DMA) engines.
enum class Transport { cu, dma };
std::string_view to_string(Transport transport);

/// How the two kernels are launched relative to each other.
enum class LaunchOrder { serial, gemm_first, collective_first };
std::string_view to_string(LaunchOrder order);

// Strategies (which kinds exist, their labels, how they run) are in c3/strategy.hpp.

/// Parses "896MiB", "3.25GiB", "512KiB", "4096", "1.5GB" (decimal units: KB, MB,
/// GB; binary: KiB, MiB, GiB, TiB; also the paper's "896M" / "3.25G", read as
/// binary). A size in bytes (no unit or "B") must be a whole number; a size in
/// larger units is rounded to whole bytes. Throws InputError on zero, negative,
/// non-finite, malformed or overflowing input.
std::int64_t parse_size_bytes(std::string_view text);
/// Human-readable binary size: "896MiB", "3.25GiB", "4096B".
std::string format_size(std::int64_t size_bytes);

/// Parses "MxNxK" or "MxNxK:dtype" (default bf16). Throws InputError.
Gemm parse_gemm(std::string_view text);
/// "8192x8192x8192:bf16".
std::string format_gemm(const Gemm& gemm);

/// Parses "kind:size" (e.g. "all_gather:896MiB") with the given ranks. Throws InputError.
Collective parse_collective(std::string_view text, int ranks);

/// Parses the collective of a pair: "KIND:SIZE", or "KIND" alone for a dependent pair
/// (its size is then dependent_operand_bytes(gemm, dependency)); checks the collective and
/// validate_dependency. Throws InputError.
Collective parse_collective(std::string_view text, int ranks, const Gemm& gemm, Dependency dependency);

/// Checks a GEMM (m, n, k > 0; flop count representable). Throws InputError.
void validate(const Gemm& gemm);
/// Checks a collective (0 < size <= 2^62 bytes, ranks >= 2). Throws InputError.
void validate(const Collective& collective);

}  // namespace c3
