// c3/strategy.hpp: strategies and the families that own them. A strategy is one
// concrete way to run a pair ("sp", "rp:32", "dma_rp:8"); a family (serial, launch
// order, partition, copy engine) owns a set of strategy kinds: it lists the candidates
// for a pair, predicts each one from the model's equations, describes it in one
// sentence, and turns it into an ExecutionPlan that backends run without knowing the
// family. Adding a family is adding one file in strategies/ (docs/architecture.md).
#pragma once

#include <compare>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "c3/profile.hpp"
#include "c3/types.hpp"

namespace c3 {

/// A strategy kind: an open set of names, each owned by one family. The name must
/// have static storage duration (a string literal). The built-in families' kinds are
/// the static members below; a new family declares its own in its own header
/// (`inline constexpr StrategyKind kChunked{"chunked"};`).
class StrategyKind {
 public:
  constexpr StrategyKind() = default;
  constexpr explicit StrategyKind(std::string_view name) : name_(name) {}
  constexpr std::string_view name() const { return name_; }
  friend constexpr bool operator==(StrategyKind a, StrategyKind b) { return a.name_ == b.name_; }
  friend constexpr auto operator<=>(StrategyKind a, StrategyKind b) { return a.name_ <=> b.name_; }

  static const StrategyKind serial;  ///< serial family
  static const StrategyKind base;    ///< launch-order family: GEMM first
  static const StrategyKind sp;      ///< launch-order family: collective first
  static const StrategyKind rp;      ///< partition family
  static const StrategyKind dma;     ///< copy-engine family
  static const StrategyKind dma_rp;  ///< copy-engine family, GEMM gives up CUs
  static const StrategyKind chunked; ///< decomposed family (dependent pairs)

 private:
  std::string_view name_ = "serial";
};
inline constexpr StrategyKind StrategyKind::serial{"serial"};
inline constexpr StrategyKind StrategyKind::base{"base"};
inline constexpr StrategyKind StrategyKind::sp{"sp"};
inline constexpr StrategyKind StrategyKind::rp{"rp"};
inline constexpr StrategyKind StrategyKind::dma{"dma"};
inline constexpr StrategyKind StrategyKind::dma_rp{"dma_rp"};
inline constexpr StrategyKind StrategyKind::chunked{"chunked"};

/// The kind's name ("rp").
std::string_view to_string(StrategyKind kind);
/// A registered kind by name. Throws InputError naming the valid spellings.
StrategyKind parse_strategy_kind(std::string_view text);

/// One concrete way to run a pair.
/// collective_cus: compute units reserved for the collective (rp); 0 = the library's
/// own choice (serial, base, sp) or none (dma, dma_rp).
/// gemm_cus_removed: compute units the GEMM gives up (rp: = collective_cus; dma_rp: g).
/// chunks, chunk_transport: the decomposed family's pieces and their transport
/// ("chunked:4:dma"); 1 and cu for every other family.
struct Strategy {
  StrategyKind kind = StrategyKind::serial;
  int collective_cus = 0;
  int gemm_cus_removed = 0;
  int chunks = 1;
  Transport chunk_transport = Transport::cu;

  /// The launch order of its ExecutionPlan.
  LaunchOrder order() const;
  /// The collective's transport in its ExecutionPlan.
  Transport transport() const;
  /// "serial", "sp", "rp:32", "dma_rp:8", "chunked:4:dma", "chunked:4:cu:16": stable, used
  /// as key in JSON and tables.
  std::string label() const;
  friend bool operator==(const Strategy&, const Strategy&) = default;
};

/// Parses a label produced by Strategy::label(). Throws InputError.
/// (Strategy::label and parse_strategy go through the kind's family: Family::label/parse.)
Strategy parse_strategy(std::string_view label);

/// What a backend needs to run a strategy; no backend looks at the kind.
///  order: serial (one stream, GEMM then collective), gemm_first or collective_first
///         (two streams, launched in that host order);
///  transport: cu (the collective library's kernels) or dma (copy engines);
///  collective_cus: > 0: the collective runs in its own partition of this many compute
///         units, with a CTA budget of the same number; 0: the library's default, no partition;
///  gemm_cus_removed: > 0: the GEMM runs in a partition of all compute units but these;
///  chunks: pieces the pair is decomposed into (1 = the whole pair at once).
struct ExecutionPlan {
  LaunchOrder order = LaunchOrder::serial;
  Transport transport = Transport::cu;
  int collective_cus = 0;
  int gemm_cus_removed = 0;
  int chunks = 1;
  friend bool operator==(const ExecutionPlan&, const ExecutionPlan&) = default;
};

namespace strategies {

/// A family's prediction for one of its strategies (model.md §4.5).
struct Estimate {
  double time_s = 0;       ///< from the first launch to the last completion
  int collective_cus = 0;  ///< compute units the collective uses (0 on copy engines)
  int gemm_cus = 0;        ///< compute units the GEMM may use
};

/// What a family's one-sentence description may refer to.
struct DescribeContext {
  const HardwareProfile& hw;
  const C3Pair& pair;
  GemmClass gemm_class;
  const Strategy& strategy;
  const Estimate& estimate;
};

/// A strategy family. Implementations are stateless singletons; every call is const
/// and thread-safe.
class Family {
 public:
  virtual ~Family() = default;
  /// "serial", "launch_order", "partition", "copy_engine".
  virtual std::string_view name() const = 0;
  /// Where the family's strategies come in candidate lists and tables (ascending).
  virtual int position() const = 0;
  /// Its kinds, in their canonical order.
  virtual std::vector<StrategyKind> kinds() const = 0;
  /// True when a kind takes a compute-unit count ("rp:32"); its label carries it.
  virtual bool parametrized(StrategyKind kind) const = 0;
  /// The count in a parametrized label (rp: collective_cus; dma_rp: gemm_cus_removed).
  virtual int parameter(const Strategy& s) const = 0;
  /// The strategy of `kind` with parameter `cus` (ignored when not parametrized).
  virtual Strategy make(StrategyKind kind, int cus) const = 0;
  /// Its label: the kind's name, then ":" and parameter() when parametrized. A family
  /// whose strategies carry more than one count overrides it (and parse).
  virtual std::string label(const Strategy& s) const;
  /// The strategy of a label: `args` is the text after the kind's first ':' (nullopt
  /// when there is none). Throws InputError.
  virtual Strategy parse(StrategyKind kind, std::optional<std::string_view> args) const;
  /// Whether its strategies can run a pair of this dependency (default: independent
  /// pairs only; the serial family runs any, the decomposed family dependent ones).
  virtual bool handles(Dependency dependency) const { return dependency == Dependency::none; }
  /// Checks the compute-unit fields; throws InputError naming the field.
  virtual void check(const Strategy& s, int compute_units) const = 0;
  /// Every strategy of this family the profile can predict for the pair, in order.
  virtual std::vector<Strategy> candidates(const HardwareProfile& hw, const C3Pair& pair) const = 0;
  /// Predicted time and compute units. Throws InputError when the strategy cannot run
  /// the pair (copy engines for a reduction, a split outside the tables).
  virtual Estimate predict(const HardwareProfile& hw, const C3Pair& pair, const Strategy& s) const = 0;
  /// What the strategy does, as the start of the advisor's one-sentence reason.
  virtual std::string describe(const DescribeContext& c) const = 0;
  /// How a backend runs it.
  virtual ExecutionPlan plan(const Strategy& s) const = 0;
  /// How much it changes about the way the kernels run (0 = nothing); among ties the
  /// advisor recommends the least.
  virtual int complexity(const Strategy& s) const = 0;
};

/// Every registered family, by position. Built at first use from the families
/// compiled into c3_strategies (strategies/CMakeLists.txt lists none by hand).
const std::vector<const Family*>& families();
/// The family owning `kind`. Throws InputError for an unregistered kind.
const Family& family_of(StrategyKind kind);
/// Every kind of every family, in canonical order.
std::vector<StrategyKind> all_kinds();

/// Every candidate of every family that handles the pair's dependency, families by position.
std::vector<Strategy> candidates(const HardwareProfile& hw, const C3Pair& pair);
/// family_of(s.kind).predict(...). Throws InputError when the family does not handle the
/// pair's dependency (the GEMM and the collective of a dependent pair cannot run at once).
Estimate predict(const HardwareProfile& hw, const C3Pair& pair, const Strategy& s);
/// predict(...).time_s: the model's predicted time of a strategy (model.md §4.5).
double predicted_time_s(const HardwareProfile& hw, const C3Pair& pair, const Strategy& s);
/// family_of(s.kind).plan(s).
ExecutionPlan plan_of(const Strategy& s);
/// family_of(s.kind).complexity(s).
int complexity(const Strategy& s);
/// family_of(s.kind).check(s, compute_units).
void check(const Strategy& s, int compute_units);
/// Canonical order: families by position, kinds in family order, then by chunks, chunk
/// transport and compute units.
bool canonical_less(const Strategy& a, const Strategy& b);

}  // namespace strategies
}  // namespace c3
