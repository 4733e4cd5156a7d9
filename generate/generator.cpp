// generate/generator.cpp: drawing pairs from the catalog (docs/scenarios.md, "Draws"
// and "Filter"). Every choice is an Rng draw over a list in a fixed order; the only
// floating-point step is the filter's predicted time (model equations, IEEE doubles).
#include <set>

#include "c3/errors.hpp"
#include "c3/generate.hpp"
#include "c3/model.hpp"
#include "generate/draws.hpp"

namespace c3::generate {
namespace {

using detail::draw_tokens;
using detail::gemm_text;
using detail::parallelism_text;
using detail::pick;
using detail::split_text;
using detail::supports;
using detail::Weighted;

constexpr std::int64_t kKiB = 1024;
constexpr std::int64_t kMiB = kKiB * kKiB;

// Parallelisms of a phase: FSDP and data parallelism only train (they move weights and
// gradients); tensor and expert parallelism run in every phase.
std::vector<Weighted<Parallelism>> parallelisms(Phase phase) {
  if (phase == Phase::training)
    return {{Parallelism::fsdp, 3}, {Parallelism::tp, 3}, {Parallelism::ep, 2}, {Parallelism::dp, 2}};
  return {{Parallelism::tp, 2}, {Parallelism::ep, 1}};
}

// Tensor-parallel degrees that divide the heads; expert-parallel degrees up to the experts.
std::vector<std::int64_t> degrees(std::int64_t divisible, bool must_divide) {
  std::vector<std::int64_t> out;
  for (const std::int64_t d : {2, 4, 8})
    if (must_divide ? divisible % d == 0 : d <= divisible) out.push_back(d);
  return out.empty() ? std::vector<std::int64_t>{1} : out;
}

std::vector<Pass> passes(Phase phase, Parallelism parallelism, CollectiveKind kind) {
  if (phase != Phase::training) return {Pass::forward};
  // Gradients exist only in the backward pass: FSDP's reduce-scatter and DP's all-reduce.
  if (parallelism == Parallelism::dp || (kind == CollectiveKind::reduce_scatter && parallelism == Parallelism::fsdp))
    return {Pass::backward_data, Pass::backward_weight};
  return {Pass::forward, Pass::backward_data, Pass::backward_weight};
}

std::vector<CollectiveKind> kinds(Phase phase, Parallelism parallelism) {
  switch (parallelism) {
    case Parallelism::fsdp: return {CollectiveKind::all_gather, CollectiveKind::reduce_scatter};
    case Parallelism::tp:
      // Sequence parallelism gathers and scatters the activations; without it (and in
      // inference) the row-parallel output is all-reduced.
      if (phase == Phase::decode) return {CollectiveKind::all_reduce, CollectiveKind::all_gather};
      return {CollectiveKind::all_gather, CollectiveKind::reduce_scatter, CollectiveKind::all_reduce};
    case Parallelism::ep: return {CollectiveKind::all_to_all};
    case Parallelism::dp: return {CollectiveKind::all_reduce};
  }
  return {};
}

// GEMMs that run beside the collective: under tensor parallelism in the forward pass the
// all-gather feeds a column-parallel GEMM and the reduce-scatter/all-reduce follows a
// row-parallel one; expert parallelism's all-to-all overlaps the experts, the shared
// expert or attention (dual micro-batches); FSDP and DP overlap any GEMM.
std::vector<LayerGemm> candidates(const std::vector<LayerGemm>& gemms, Parallelism parallelism,
                                  CollectiveKind kind, Pass pass) {
  std::vector<LayerGemm> out;
  for (const LayerGemm& g : gemms) {
    bool keep = true;
    if (parallelism == Parallelism::tp && pass == Pass::forward)
      keep = g.column_parallel == (kind == CollectiveKind::all_gather);
    if (parallelism == Parallelism::ep) keep = g.role != "lm_head";
    if (keep) out.push_back(g);
  }
  return out.empty() ? gemms : out;
}

struct CollectiveDraw {
  std::int64_t bytes = 0;
  std::string what;
};

CollectiveDraw fsdp_bytes(Rng& rng, const ModelConfig& model, CollectiveKind kind, const LayerGemm& gemm) {
  const bool head = gemm.role == "lm_head";
  const std::int64_t elements = head ? model.vocab * model.hidden : block_weight_elements(model, 1);
  const std::string unit = head ? "the LM head's" : "the next block's";
  if (kind == CollectiveKind::all_gather) return {2 * elements, unit + " bf16 weights"};
  const std::int64_t bytes_per = pick(rng, std::vector<std::int64_t>{2, 4});
  return {bytes_per * elements, unit + (bytes_per == 2 ? " bf16" : " fp32") + " gradients"};
}

CollectiveDraw dp_bytes(Rng& rng, const ModelConfig& model) {
  // PyTorch DDP's default bucket (bucket_cap_mb 25), larger buckets, or one block's gradients.
  const std::int64_t choice = static_cast<std::int64_t>(rng.below(5));
  if (choice < 3) {
    const std::int64_t mib = std::vector<std::int64_t>{25, 100, 512}[choice];
    return {mib * kMiB, "a " + std::to_string(mib) + " MiB gradient bucket"};
  }
  const std::int64_t bytes_per = choice == 3 ? 2 : 4;
  return {bytes_per * block_weight_elements(model, 1),
          std::string("one block's ") + (bytes_per == 2 ? "bf16" : "fp32") + " gradients"};
}

CollectiveDraw collective_bytes(Rng& rng, const ModelConfig& model, Parallelism parallelism, CollectiveKind kind,
                                const LayerGemm& gemm, const Split& split) {
  switch (parallelism) {
    case Parallelism::fsdp: return fsdp_bytes(rng, model, kind, gemm);
    case Parallelism::dp: return dp_bytes(rng, model);
    case Parallelism::tp:
      return {split.tokens * model.hidden * 2, "the activations (tokens x hidden, bf16)"};
    case Parallelism::ep:
      return {split.tokens * model.top_k * model.hidden * 2, "the token dispatch (tokens x top_k x hidden, bf16)"};
  }
  return {};
}

// Clamped to [min, max], then rounded to a multiple of 1 KiB x ranks (every rank's part
// whole KiB); never below min.
std::int64_t clamp_size(std::int64_t bytes, const Options& o) {
  const std::int64_t step = kKiB * o.ranks;
  const std::int64_t clamped = std::min(std::max(bytes, o.min_size_bytes), o.max_size_bytes);
  const std::int64_t down = clamped / step * step;
  return down >= o.min_size_bytes ? down : (o.min_size_bytes + step - 1) / step * step;
}

// One draw: a pair before the filter.
GeneratedPair draw(Rng& rng, const std::vector<ModelConfig>& models, const Options& o) {
  GeneratedPair pair;
  pair.phase = pick(rng, std::vector<Phase>{Phase::training, Phase::prefill, Phase::decode});
  // A parallelism no model supports in this phase is not offered.
  std::vector<Weighted<Parallelism>> offered;
  for (const auto& p : parallelisms(pair.phase))
    for (const ModelConfig& m : models)
      if (supports(m, pair.phase, p.value)) {
        offered.push_back(p);
        break;
      }
  if (offered.empty()) throw InputError("no catalog model has phase " + std::string(to_string(pair.phase)));
  pair.parallelism = pick(rng, offered);
  std::vector<const ModelConfig*> eligible;
  for (const ModelConfig& m : models)
    if (supports(m, pair.phase, pair.parallelism)) eligible.push_back(&m);
  const ModelConfig& model = *pick(rng, eligible);
  pair.model = model.name;

  std::string tokens_text;
  Split split;
  split.tokens = draw_tokens(rng, model, pair.phase, tokens_text);
  if (pair.parallelism == Parallelism::tp) split.tp = pick(rng, degrees(model.heads, true));
  if (pair.parallelism == Parallelism::ep) split.ep = pick(rng, degrees(model.experts, false));
  const CollectiveKind kind = pick(rng, kinds(pair.phase, pair.parallelism));
  pair.pass = pick(rng, passes(pair.phase, pair.parallelism, kind));
  const LayerGemm chosen = pick(rng, candidates(layer_gemms(model, split), pair.parallelism, kind, pair.pass));
  pair.gemm_role = chosen.role;
  pair.gemm = pass_gemm(chosen.gemm, pair.pass);

  const CollectiveDraw coll = collective_bytes(rng, model, pair.parallelism, kind, chosen, split);
  pair.collective = Collective{kind, clamp_size(coll.bytes, o), o.ranks};
  const std::string pass_text = pair.phase == Phase::training ? " " + std::string(to_string(pair.pass)) : "";
  pair.gemm_ref = model.name + " " + chosen.role + pass_text + split_text(split) + ": " + gemm_text(pair.gemm);
  pair.ref = model.name + " " + std::string(to_string(pair.phase)) + " (" + tokens_text + "), " +
             parallelism_text(pair.parallelism, split) + ": " + chosen.role + pass_text +
             " GEMM with the " + std::string(to_string(kind)) + " of " + coll.what + " (" +
             std::to_string(coll.bytes) + " bytes" +
             (coll.bytes == pair.collective.size_bytes ? "" : ", clamped/rounded to " +
                                                               size_text(pair.collective.size_bytes)) +
             ")";
  return pair;
}

// Why the filter drops `pair` ("" when it keeps it).
std::string rejection(const GeneratedPair& pair, const HardwareProfile& hw, const Options& o) {
  if (pair.dependency != Dependency::none) {
    // The operand is what it is: out of the size range it is drawn again, not clamped.
    const std::int64_t size = pair.collective.size_bytes;
    if (size < o.min_size_bytes || size > o.max_size_bytes) return "size";
    if (pair.gemm.m % (std::int64_t{16} * o.ranks) != 0) return "chunks";
  }
  if (pair_memory_bytes(pair.gemm, pair.collective) > o.max_memory_bytes) return "memory";
  C3Pair query;
  query.gemm = pair.gemm;
  query.collective = pair.collective;
  query.dependency = pair.dependency;
  try {
    validate(query.gemm);
    validate_dependency(query.gemm, query.collective, query.dependency);
    const model::Isolated iso = model::isolated_times(hw, query);
    const double serial_us = model::serial_time_s(iso) * 1e6;
    if (serial_us > static_cast<double>(o.max_serial_us) || serial_us < static_cast<double>(o.min_serial_us))
      return "time";
  } catch (const InputError&) {
    return "domain";
  }
  return "";
}

// The pair's name after its number: model, phase, parallelism, GEMM role; a dependent
// pair says its case (ag, rs, dispatch, combine) and "dgrad" for a backward-data GEMM.
std::string name_tail(const GeneratedPair& p) {
  std::string out = p.model + "_" + std::string(to_string(p.phase)) + "_" + std::string(to_string(p.parallelism));
  if (p.dependency != Dependency::none) {
    const bool feeds = p.dependency == Dependency::collective_feeds_gemm;
    if (p.parallelism == Parallelism::ep) out += feeds ? "_dispatch" : "_combine";
    else out += feeds ? "_ag" : "_rs";
  }
  out += "_" + p.gemm_role;
  if (p.dependency != Dependency::none && p.pass == Pass::backward_data) out += "_dgrad";
  return out;
}

std::string padded(int value, int width) {
  std::string text = std::to_string(value);
  return std::string(text.size() < static_cast<std::size_t>(width) ? width - text.size() : 0, '0') + text;
}

void check(const Catalog& catalog, const Options& o) {
  // at most 1000000: 1000 x count draws are counted in an int (Generated::drawn)
  if (o.count < 1 || o.count > kMaxCount)
    throw InputError("--count must be in [1, " + std::to_string(kMaxCount) + "] (got " + std::to_string(o.count) + ")");
  if (o.ranks < 2) throw InputError("--ranks must be at least 2 (got " + std::to_string(o.ranks) + ")");
  if (catalog.models.empty()) throw InputError("the catalog has no model");
  if (o.min_size_bytes < 1 || o.max_size_bytes < o.min_size_bytes)
    throw InputError("collective size range: need 1 <= min <= max");
  if (o.min_serial_us < 0 || o.min_serial_us > o.max_serial_us)
    throw InputError("serial time range: need 0 <= --min-serial-us <= --max-serial-us (got " +
                     std::to_string(o.min_serial_us) + " and " + std::to_string(o.max_serial_us) + ")");
}

// Every pair would be outside the profile: say so once instead of drawing in vain.
void check_domain(const HardwareProfile& hw, const Options& o) {
  const model::Domain d = model::domain(hw);
  if (o.ranks > d.gpus_per_node * d.nodes)
    throw InputError("the filter's profile '" + hw.name + "' has " + std::to_string(d.gpus_per_node * d.nodes) +
                     " GPUs: --ranks " + std::to_string(o.ranks) + " needs a profile with at least as many (--profile)");
}

}  // namespace

std::string_view to_string(DependentDraw draw) {
  switch (draw) {
    case DependentDraw::none: return "none";
    case DependentDraw::any: return "any";
    case DependentDraw::collective_feeds_gemm: return "collective_feeds_gemm";
    case DependentDraw::gemm_feeds_collective: return "gemm_feeds_collective";
  }
  return "?";
}

DependentDraw parse_dependent_draw(std::string_view text) {
  std::string valid;
  for (const DependentDraw d : {DependentDraw::none, DependentDraw::any, DependentDraw::collective_feeds_gemm,
                                DependentDraw::gemm_feeds_collective}) {
    if (to_string(d) == text) return d;
    valid += (valid.empty() ? "" : ", ") + std::string(to_string(d));
  }
  throw InputError("unknown dependency '" + std::string(text) + "' (valid: " + valid + ")");
}

PairKey pair_key(const Gemm& gemm, const Collective& collective, Dependency dependency) {
  return {gemm.m, gemm.n, gemm.k, collective.kind, collective.size_bytes, dependency};
}

Generated generate(const Catalog& catalog, const HardwareProfile& profile, const Options& o,
                   const GenerateProgress& progress) {
  // The time filter prices every GEMM by the model (§1), not by the profile's measured times
  // per shape (model.md §1.2): those grow with every train file, and a seed must keep drawing
  // the same pairs when a profile is refitted.
  HardwareProfile hw = profile;
  hw.gemm_times.clear();
  check(catalog, o);
  check_domain(hw, o);
  Generated out;
  out.options = o;
  out.catalog_digest = catalog.digest;
  out.catalog_files = catalog.files;
  out.profile = hw.name;
  Rng rng(o.seed);
  std::set<PairKey> seen;
  const std::int64_t max_draws = std::int64_t{1000} * o.count;
  const int width = static_cast<int>(std::to_string(o.count).size());
  while (static_cast<int>(out.pairs.size()) < o.count) {
    if (out.drawn >= max_draws)
      throw InputError("only " + std::to_string(out.pairs.size()) + " of " + std::to_string(o.count) +
                       " pairs pass the filter after " + std::to_string(out.drawn) +
                       " draws: loosen the filter or widen the catalog");
    ++out.drawn;
    if (progress && out.drawn % kProgressDraws == 0) progress(static_cast<int>(out.pairs.size()), out.drawn);
    GeneratedPair pair = o.dependency == DependentDraw::none ? draw(rng, catalog.models, o)
                                                             : detail::draw_dependent(rng, catalog.models, o);
    std::string why = rejection(pair, hw, o);
    const PairKey key = pair_key(pair.gemm, pair.collective, pair.dependency);
    if (why.empty() && seen.count(key)) why = "duplicate";
    if (why.empty() && o.exclude.pairs.count(key)) why = "excluded";
    if (!why.empty()) {
      ++out.rejected[why];
      continue;
    }
    seen.insert(key);
    pair.name = "p" + padded(static_cast<int>(out.pairs.size()) + 1, width) + "_" + name_tail(pair);
    out.pairs.push_back(std::move(pair));
  }
  return out;
}

}  // namespace c3::generate
