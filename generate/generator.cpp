// generate/generator.cpp: drawing pairs from the catalog (docs/scenarios.md, "Draws"
// and "Filter"). Every choice is an Rng draw over a list in a fixed order; the only
// floating-point step is the filter's predicted time (model equations, IEEE doubles).
#include <set>
#include <tuple>

#include "c3/errors.hpp"
#include "c3/generate.hpp"
#include "c3/model.hpp"

namespace c3::generate {
namespace {

constexpr std::int64_t kKiB = 1024;
constexpr std::int64_t kMiB = kKiB * kKiB;

// A choice with its integer weight.
template <typename T>
struct Weighted {
  T value;
  std::uint64_t weight;
};

template <typename T>
const T& pick(Rng& rng, const std::vector<Weighted<T>>& choices) {
  std::vector<std::uint64_t> weights;
  for (const auto& c : choices) weights.push_back(c.weight);
  return choices[rng.weighted(weights)].value;
}

template <typename T>
const T& pick(Rng& rng, const std::vector<T>& choices) {
  return choices[rng.below(choices.size())];
}

// Parallelisms of a phase: FSDP and data parallelism only train (they move weights and
// gradients); tensor and expert parallelism run in every phase.
std::vector<Weighted<Parallelism>> parallelisms(Phase phase) {
  if (phase == Phase::training)
    return {{Parallelism::fsdp, 3}, {Parallelism::tp, 3}, {Parallelism::ep, 2}, {Parallelism::dp, 2}};
  return {{Parallelism::tp, 2}, {Parallelism::ep, 1}};
}

bool supports(const ModelConfig& model, Phase phase, Parallelism parallelism) {
  if (phase == Phase::decode && !model.decodes()) return false;
  return parallelism != Parallelism::ep || model.moe();
}

// Sequences per micro-batch (training), per prompt batch (prefill), or tokens per decode
// step. Encoders and vision models run larger batches of short sequences.
std::int64_t draw_tokens(Rng& rng, const ModelConfig& model, Phase phase, std::string& what) {
  if (phase == Phase::decode) {
    const std::int64_t batch = pick(rng, std::vector<std::int64_t>{1, 8, 32, 64, 128, 256});
    what = "decode batch " + std::to_string(batch);
    return batch;
  }
  const bool short_sequences = !model.decodes() || model.architecture == Architecture::encoder_decoder;
  const std::vector<std::int64_t> batches =
      short_sequences ? std::vector<std::int64_t>{8, 32, 128}
                      : (phase == Phase::training ? std::vector<std::int64_t>{1, 2, 4}
                                                  : std::vector<std::int64_t>{1, 2, 4, 8});
  const std::int64_t batch = pick(rng, batches);
  const std::int64_t seq = pick(rng, model.seq_lens);
  what = std::string(phase == Phase::training ? "micro-batch " : "prompt batch ") + std::to_string(batch) +
         " x seq " + std::to_string(seq) + " = " + std::to_string(batch * seq) + " tokens";
  return batch * seq;
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

std::string gemm_text(const Gemm& g) {
  return std::to_string(g.m) + " x " + std::to_string(g.n) + " x " + std::to_string(g.k);
}

std::string split_text(const Split& s) {
  std::string out;
  if (s.tp > 1) out += ", tp " + std::to_string(s.tp);
  if (s.ep > 1) out += ", ep " + std::to_string(s.ep);
  return out;
}

// "fsdp", "dp", "tp 4", "ep 8": the parallelism with its degree.
std::string parallelism_text(Parallelism p, const Split& s) {
  const std::int64_t degree = p == Parallelism::tp ? s.tp : (p == Parallelism::ep ? s.ep : 1);
  return std::string(to_string(p)) + (degree > 1 ? " " + std::to_string(degree) : "");
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
  if (pair_memory_bytes(pair.gemm, pair.collective) > o.max_memory_bytes) return "memory";
  C3Pair query;
  query.gemm = pair.gemm;
  query.collective = pair.collective;
  try {
    validate(query.gemm);
    const model::Isolated iso = model::isolated_times(hw, query);
    if (model::serial_time_s(iso) * 1e6 > static_cast<double>(o.max_serial_us)) return "time";
  } catch (const InputError&) {
    return "domain";
  }
  return "";
}

std::string padded(int value, int width) {
  std::string text = std::to_string(value);
  return std::string(text.size() < static_cast<std::size_t>(width) ? width - text.size() : 0, '0') + text;
}

void check(const Catalog& catalog, const Options& o) {
  if (o.count < 1) throw InputError("--count must be at least 1 (got " + std::to_string(o.count) + ")");
  if (o.ranks < 2) throw InputError("--ranks must be at least 2 (got " + std::to_string(o.ranks) + ")");
  if (catalog.models.empty()) throw InputError("the catalog has no model");
  if (o.min_size_bytes < 1 || o.max_size_bytes < o.min_size_bytes)
    throw InputError("collective size range: need 1 <= min <= max");
}

// Every pair would be outside the profile: say so once instead of drawing in vain.
void check_domain(const HardwareProfile& hw, const Options& o) {
  const model::Domain d = model::domain(hw);
  if (o.ranks > d.gpus_per_node * d.nodes)
    throw InputError("the filter's profile '" + hw.name + "' has " + std::to_string(d.gpus_per_node * d.nodes) +
                     " GPUs: --ranks " + std::to_string(o.ranks) + " needs a profile with at least as many (--profile)");
}

}  // namespace

Generated generate(const Catalog& catalog, const HardwareProfile& hw, const Options& o) {
  check(catalog, o);
  check_domain(hw, o);
  Generated out;
  out.options = o;
  out.catalog_digest = catalog.digest;
  out.catalog_files = catalog.files;
  out.profile = hw.name;
  Rng rng(o.seed);
  std::set<std::tuple<std::int64_t, std::int64_t, std::int64_t, int, std::int64_t>> seen;
  const std::int64_t max_draws = std::int64_t{1000} * o.count;
  const int width = static_cast<int>(std::to_string(o.count).size());
  while (static_cast<int>(out.pairs.size()) < o.count) {
    if (out.drawn >= max_draws)
      throw InputError("only " + std::to_string(out.pairs.size()) + " of " + std::to_string(o.count) +
                       " pairs pass the filter after " + std::to_string(out.drawn) +
                       " draws: loosen the filter or widen the catalog");
    ++out.drawn;
    GeneratedPair pair = draw(rng, catalog.models, o);
    std::string why = rejection(pair, hw, o);
    const auto key = std::make_tuple(pair.gemm.m, pair.gemm.n, pair.gemm.k, static_cast<int>(pair.collective.kind),
                                     pair.collective.size_bytes);
    if (why.empty() && seen.count(key)) why = "duplicate";
    if (!why.empty()) {
      ++out.rejected[why];
      continue;
    }
    seen.insert(key);
    pair.name = "p" + padded(static_cast<int>(out.pairs.size()) + 1, width) + "_" + pair.model + "_" +
                std::string(to_string(pair.phase)) + "_" + std::string(to_string(pair.parallelism)) + "_" +
                pair.gemm_role;
    out.pairs.push_back(std::move(pair));
  }
  return out;
}

}  // namespace c3::generate
