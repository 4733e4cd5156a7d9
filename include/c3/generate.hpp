// c3/generate.hpp: the scenario generator (`c3advisor scenarios generate`,
// docs/scenarios.md). It draws GEMM + collective pairs from a catalog of public model
// configurations (c3/catalog.hpp): a model, a phase (training, prefill, decode), a
// parallelism (FSDP, tensor, expert, data) and the GEMM and collective that run side by
// side there, with the GEMM's shape derived from the model's fields and the phase's
// tokens, and the collective's size from the same. Deterministic: the same catalog,
// profile and options give the byte-identical YAML on every machine (an own integer
// PRNG, integer-only range mapping and formatting). Nothing here reads or writes files.
#pragma once

#include <compare>
#include <cstdint>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "c3/catalog.hpp"
#include "c3/profile.hpp"
#include "c3/types.hpp"

namespace c3::generate {

/// Bumped whenever the same seed would give another file (docs/scenarios.md).
inline constexpr int kGeneratorVersion = 1;

// ---- the pseudo-random numbers (docs/scenarios.md, "Determinism") ----

/// xoshiro256** (Blackman and Vigna), its state seeded by splitmix64 from one 64-bit
/// seed: the same sequence on every machine and compiler.
class Rng {
 public:
  explicit Rng(std::uint64_t seed);
  std::uint64_t next();
  /// Uniform in [0, n), n > 0, without modulo bias (rejection of the short last range).
  std::uint64_t below(std::uint64_t n);
  /// An index drawn with the given positive integer weights.
  std::size_t weighted(const std::vector<std::uint64_t>& weights);

 private:
  std::uint64_t s_[4];
};

// ---- shapes ----

enum class Phase { training, prefill, decode };
enum class Parallelism { fsdp, tp, ep, dp };
/// Which GEMM of a layer's training step: forward Y = X W, backward data dX = dY W^T,
/// backward weight dW = X^T dY.
enum class Pass { forward, backward_data, backward_weight };
std::string_view to_string(Phase phase);
std::string_view to_string(Parallelism parallelism);
std::string_view to_string(Pass pass);

/// How one layer is split: tokens through each rank's GEMMs, the tensor-parallel degree
/// (heads and FFN split tp ways) and the expert-parallel degree (each rank holds
/// experts / ep experts and receives the tokens of ep ranks).
struct Split {
  std::int64_t tokens = 1;
  std::int64_t tp = 1;
  std::int64_t ep = 1;
};

/// One forward GEMM of a model's layer (or its LM head).
struct LayerGemm {
  std::string role;  ///< "qkv", "out_proj", "mlp_up", "mlp_down", "expert_up", ...
  Gemm gemm;         ///< m: tokens (routed tokens per expert for experts), bf16
  bool column_parallel = false;  ///< split by output (qkv, up, LM head): fed by an all-gather
};

/// Every forward GEMM of one layer of `model` under `split` (docs/scenarios.md, "Shapes"):
/// attention (fused QKV and output projection, or MLA's down and up projections), the
/// dense MLP, the routed and shared experts, the LM head. Tensor parallelism divides heads
/// and FFN (rounded up); each routed expert sees ceil(tokens x top_k x ep / experts) tokens.
std::vector<LayerGemm> layer_gemms(const ModelConfig& model, const Split& split);

/// The GEMM of `pass` for forward GEMM `forward`: backward data (m, k, n), backward
/// weight (k, n, m).
Gemm pass_gemm(const Gemm& forward, Pass pass);

/// Elements of one transformer block's weights under tensor parallelism tp: attention
/// and MLP (MoE: every expert, the shared expert and the router); what FSDP gathers.
std::int64_t block_weight_elements(const ModelConfig& model, std::int64_t tp);

/// Bytes one GPU holds for a pair: the GEMM's A, B and C and the collective's input and
/// output buffers at its ranks (all_gather: size / ranks in, size out; reduce_scatter:
/// size in, size / ranks out; all_to_all and all_reduce: size in and out).
std::int64_t pair_memory_bytes(const Gemm& gemm, const Collective& collective);

// ---- the generator ----

/// Which pairs are drawn (docs/scenarios.md, "Dependent pairs"): independent ones (none:
/// the collective moves other data) or dependent ones, where the collective moves the
/// GEMM's own operand: collective_feeds_gemm (tensor-parallel all-gather -> GEMM, expert
/// dispatch all-to-all -> expert GEMM), gemm_feeds_collective (GEMM -> reduce-scatter,
/// expert GEMM -> combine all-to-all), or any (both).
enum class DependentDraw { none, any, collective_feeds_gemm, gemm_feeds_collective };
/// "none", "any", "collective_feeds_gemm", "gemm_feeds_collective".
std::string_view to_string(DependentDraw draw);
/// Inverse of to_string(DependentDraw). Throws InputError naming the valid spellings.
DependentDraw parse_dependent_draw(std::string_view text);

/// What makes two drawn pairs the same pair: the GEMM's m, n and k, the collective's kind and
/// size, and the dependency. Dtype and ranks are left out (one generation shares them), so a
/// pair measured at other ranks or in another dtype counts as the same.
struct PairKey {
  std::int64_t m = 0, n = 0, k = 0;
  CollectiveKind kind = CollectiveKind::all_gather;
  std::int64_t size_bytes = 0;
  Dependency dependency = Dependency::none;
  auto operator<=>(const PairKey&) const = default;
};
PairKey pair_key(const Gemm& gemm, const Collective& collective, Dependency dependency);

/// Pairs never to draw: a draw with one of these keys is drawn again (rejected as
/// "excluded"), e.g. every pair of the train split's scenario sets, so that a test set holds
/// only pairs no train file measured (docs/scenarios.md, "Excluding pairs").
struct Exclusion {
  std::set<PairKey> pairs;
  int sets = 0;        ///< scenario sets the pairs were read from
  std::string source;  ///< the options that named them, e.g. "--exclude-split train"; "" = none
};

struct Options {
  std::uint64_t seed = 0;
  int count = 0;  ///< pairs to generate, >= 1
  int ranks = 2;  ///< of every collective, >= 2
  /// The filter (docs/scenarios.md, "Filter"): a pair needing more memory per GPU, or
  /// whose serial time t_gemm + t_coll predicted by the profile exceeds max_serial_us, is
  /// drawn again.
  std::int64_t max_memory_bytes = 60'000'000'000;
  std::int64_t max_serial_us = 100'000;
  /// A pair whose serial time is below min_serial_us is drawn again too (0: no lower bound).
  std::int64_t min_serial_us = 0;
  std::int64_t min_size_bytes = std::int64_t{16} << 10;  ///< collective sizes are clamped to
  std::int64_t max_size_bytes = std::int64_t{16} << 30;  ///< [min, max]
  /// Independent pairs (none, the default: the draws of docs/scenarios.md "Draws") or
  /// dependent ones ("Dependent pairs"); a dependent pair's size is the operand it moves
  /// (never clamped: out of [min, max] it is drawn again) and its m a multiple of 16 x
  /// ranks, so that every chunk count of the decomposed strategies divides it.
  DependentDraw dependency = DependentDraw::none;
  Exclusion exclude;
  /// The command line's --catalog and --profile where they are not the defaults, as given
  /// (" --catalog FILE --profile P"; "" = the defaults): the file's header repeats them so
  /// that its command reruns as written.
  std::string inputs;
};

/// One generated pair, and where it comes from.
struct GeneratedPair {
  std::string name;
  Gemm gemm;
  Collective collective;
  std::string model;
  Phase phase = Phase::training;
  Parallelism parallelism = Parallelism::fsdp;
  Pass pass = Pass::forward;
  /// none, or how the collective's data is the GEMM's (the collective's size is then
  /// dependent_operand_bytes(gemm, dependency)).
  Dependency dependency = Dependency::none;
  std::string gemm_role;
  std::string gemm_ref;  ///< the GEMM: model, role, pass, split, m x n x k
  std::string ref;       ///< the pair: model, phase, tokens, parallelism, GEMM, collective
};

struct Generated {
  Options options;
  std::string catalog_digest;
  std::vector<std::string> catalog_files;
  std::string profile;  ///< the profile of the time filter
  std::vector<GeneratedPair> pairs;
  int drawn = 0;  ///< draws made, accepted or not
  /// by reason: "memory", "time", "duplicate", "excluded", "domain"; dependent draws also
  /// "size" (the operand outside [min, max]) and "chunks" (m not a multiple of 16 x ranks)
  std::map<std::string, int> rejected;
};

/// Draws options.count pairs from `catalog`, each passing the filter with `hw` (its model
/// only: the filter ignores hw.gemm_times, so that a refitted table moves no draw). Throws
/// InputError for bad options (count outside [1, kMaxCount], ranks < 2, an empty catalog, min_serial_us above
/// max_serial_us, a dependent draw no catalog model can make at these ranks) and when
/// 1000 x count draws do not give count pairs (a filter too strict for the catalog).
/// `progress`, when given, is called every kProgressDraws draws with the pairs kept so far and
/// the draws made (a large count or a strict filter can take minutes); it never changes a draw.
inline constexpr int kProgressDraws = 1 << 20;
/// The most pairs one call draws (its 1000 x count draws fit the int of Generated::drawn).
inline constexpr int kMaxCount = 1000000;
using GenerateProgress = std::function<void(int pairs, int drawn)>;
Generated generate(const Catalog& catalog, const HardwareProfile& hw, const Options& options,
                   const GenerateProgress& progress = {});

/// The scenarios YAML of `generated` (docs/formats.md, "Scenarios"), readable by
/// io::parse_scenarios; its `generated` mapping records the seed, count, ranks, catalog
/// digest, generator version and filter.
std::string scenarios_yaml(const Generated& generated);

/// A size in bytes as the scenarios YAML writes it: "NGiB", "NMiB", "NKiB" when exact,
/// else "N" (bytes); integers only.
std::string size_text(std::int64_t bytes);

}  // namespace c3::generate
