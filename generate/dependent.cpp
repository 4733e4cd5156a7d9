// generate/dependent.cpp: dependent pairs (docs/scenarios.md, "Dependent pairs"): the
// collective moves the GEMM's own operand, the activations of a tensor-parallel layer
// with sequence parallelism or the tokens of an expert-parallel MoE layer. Four cases:
//   tp all-gather -> GEMM       the gathered activations are the A of a column-parallel GEMM
//   tp GEMM -> reduce-scatter   a row-parallel GEMM's output C is reduce-scattered
//   ep dispatch all-to-all -> expert GEMM, ep expert GEMM -> combine all-to-all
// and in training the backward-data GEMMs, where the roles swap (the gradient of a
// row-parallel layer's output is gathered; a column-parallel layer's input gradient is
// reduce-scattered). The collective's degree is the ranks (tp = ranks, ep = ranks).
#include "c3/errors.hpp"
#include "generate/draws.hpp"

namespace c3::generate::detail {
namespace {

struct Case {
  Parallelism parallelism;
  CollectiveKind kind;
  Dependency dependency;
  const char* forward;   ///< the data moved in the forward pass, for the ref
  const char* backward;  ///< and in the backward pass (backward-data GEMMs)
};

constexpr Case kCases[] = {
    {Parallelism::tp, CollectiveKind::all_gather, Dependency::collective_feeds_gemm,
     "the sequence-parallel activations (tokens x hidden, bf16)",
     "the sequence-parallel output gradient (tokens x hidden, bf16)"},
    {Parallelism::tp, CollectiveKind::reduce_scatter, Dependency::gemm_feeds_collective,
     "the partial outputs (tokens x hidden, bf16)", "the partial input gradients (tokens x hidden, bf16)"},
    {Parallelism::ep, CollectiveKind::all_to_all, Dependency::collective_feeds_gemm,
     "the token dispatch (tokens x top_k x hidden, bf16)",
     "the combine's gradient sent back to the experts (tokens x top_k x hidden, bf16)"},
    {Parallelism::ep, CollectiveKind::all_to_all, Dependency::gemm_feeds_collective,
     "the token combine (tokens x top_k x hidden, bf16)",
     "the dispatch's gradient sent back to the tokens' ranks (tokens x top_k x hidden, bf16)"},
};

bool wanted(const Case& c, DependentDraw draw) {
  switch (draw) {
    case DependentDraw::none: return false;
    case DependentDraw::any: return true;
    case DependentDraw::collective_feeds_gemm: return c.dependency == Dependency::collective_feeds_gemm;
    case DependentDraw::gemm_feeds_collective: return c.dependency == Dependency::gemm_feeds_collective;
  }
  return false;
}

// The model splits evenly over the ranks: its heads (TP) or its experts (EP).
bool fits(const ModelConfig& model, const Case& c, Phase phase, int ranks) {
  if (!supports(model, phase, c.parallelism)) return false;
  return c.parallelism == Parallelism::tp ? model.heads % ranks == 0 : model.experts % ranks == 0;
}

bool any_fits(const std::vector<ModelConfig>& models, const Case& c, Phase phase, int ranks) {
  for (const ModelConfig& m : models)
    if (fits(m, c, phase, ranks)) return true;
  return false;
}

// The GEMM on the layer's input side (column-parallel, with the hidden activations as A:
// QKV, MLA's fused down projection, MLP up, shared expert up, LM head; the experts' up
// projection) or on its output side (row-parallel, hidden outputs: out-proj, MLP down,
// shared expert down; the experts' down projection). The experts' GEMMs are one GEMM of
// every row the rank receives, tokens x top_k (a grouped GEMM of equal groups has its
// flops and its A).
std::vector<LayerGemm> side_gemms(const ModelConfig& model, const Case& c, const Split& split, bool input_side) {
  std::vector<LayerGemm> out;
  for (LayerGemm g : layer_gemms(model, split)) {
    const bool expert = g.role == "expert_up" || g.role == "expert_down";
    if (c.parallelism == Parallelism::ep) {
      if (g.role != (input_side ? "expert_up" : "expert_down")) continue;
      g.gemm.m = split.tokens * model.top_k;
      out.push_back(g);
      continue;
    }
    if (expert || g.gemm.m != split.tokens || g.column_parallel != input_side) continue;
    if (input_side ? g.gemm.k == model.hidden : g.gemm.n == model.hidden) out.push_back(g);
  }
  return out;
}

std::string pass_text(Phase phase, Pass pass) {
  return phase == Phase::training ? " " + std::string(to_string(pass)) : "";
}

}  // namespace

GeneratedPair draw_dependent(Rng& rng, const std::vector<ModelConfig>& models, const Options& o) {
  std::vector<const Case*> offered;
  for (const Case& c : kCases)
    if (wanted(c, o.dependency))
      for (const Phase phase : {Phase::training, Phase::prefill})
        if (any_fits(models, c, phase, o.ranks)) {
          offered.push_back(&c);
          break;
        }
  if (offered.empty())
    throw InputError("no catalog model has pairs of --dependency " + std::string(to_string(o.dependency)) + " at " +
                     std::to_string(o.ranks) + " ranks (tensor parallelism needs heads, expert parallelism "
                     "experts divisible by the ranks)");
  const Case& c = *pick(rng, offered);

  // Decode's pairs are small (a few tokens): fewer of them.
  std::vector<Weighted<Phase>> phases;
  for (const Weighted<Phase>& p : std::vector<Weighted<Phase>>{
           {Phase::training, 3}, {Phase::prefill, 3}, {Phase::decode, 1}})
    if (any_fits(models, c, p.value, o.ranks)) phases.push_back(p);
  GeneratedPair pair;
  pair.phase = pick(rng, phases);
  pair.parallelism = c.parallelism;
  pair.dependency = c.dependency;
  std::vector<const ModelConfig*> eligible;
  for (const ModelConfig& m : models)
    if (fits(m, c, pair.phase, o.ranks)) eligible.push_back(&m);
  const ModelConfig& model = *pick(rng, eligible);
  pair.model = model.name;

  std::string tokens_text;
  Split split;
  split.tokens = draw_tokens(rng, model, pair.phase, tokens_text);
  (c.parallelism == Parallelism::tp ? split.tp : split.ep) = o.ranks;
  pair.pass = pair.phase == Phase::training ? pick(rng, std::vector<Pass>{Pass::forward, Pass::backward_data})
                                            : Pass::forward;
  // Forward, the collective feeding the GEMM meets the input side; backward-data swaps.
  const bool input_side = (c.dependency == Dependency::collective_feeds_gemm) == (pair.pass == Pass::forward);
  const LayerGemm chosen = pick(rng, side_gemms(model, c, split, input_side));
  pair.gemm_role = chosen.role;
  pair.gemm = pass_gemm(chosen.gemm, pair.pass);
  pair.collective = Collective{c.kind, dependent_operand_bytes(pair.gemm, c.dependency), o.ranks};

  const std::string pass = pass_text(pair.phase, pair.pass);
  const bool backward = pair.pass != Pass::forward;
  const std::string rows = c.parallelism == Parallelism::ep ? ", the " + std::to_string(model.experts / o.ranks) +
                                                                  " local experts' rows as one GEMM"
                                                            : "";
  pair.gemm_ref = model.name + " " + chosen.role + pass + split_text(split) + rows + ": " + gemm_text(pair.gemm);
  const std::string what = backward ? c.backward : c.forward;
  const std::string gemm = "the " + chosen.role + pass + " GEMM";
  const std::string relation =
      c.dependency == Dependency::collective_feeds_gemm
          ? "the " + std::string(to_string(c.kind)) + " of " + what + " is the A (m x k) of " + gemm
          : gemm + "'s output C (m x n) is the " + std::string(to_string(c.kind)) + " of " + what;
  pair.ref = model.name + " " + std::string(to_string(pair.phase)) + " (" + tokens_text + "), " +
             parallelism_text(c.parallelism, split) + ", " + std::string(to_string(c.dependency)) + ": " +
             relation + " (" + std::to_string(pair.collective.size_bytes) + " bytes)";
  return pair;
}

}  // namespace c3::generate::detail
