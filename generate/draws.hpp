// generate/draws.hpp: the pieces of a draw that independent (generator.cpp) and dependent
// (dependent.cpp) pairs share (docs/scenarios.md, "Draws"). Every choice is an Rng draw
// over a list in a fixed order.
#pragma once

#include <string>
#include <vector>

#include "c3/generate.hpp"

namespace c3::generate::detail {

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

/// Whether `model` runs `phase` (decode: decoders and encoder-decoders) under
/// `parallelism` (EP: MoE models).
bool supports(const ModelConfig& model, Phase phase, Parallelism parallelism);

/// Sequences per micro-batch (training), per prompt batch (prefill), or tokens per decode
/// step; `what` says which, for the pair's ref.
std::int64_t draw_tokens(Rng& rng, const ModelConfig& model, Phase phase, std::string& what);

/// "M x N x K".
std::string gemm_text(const Gemm& g);
/// ", tp 4", ", ep 2" or "".
std::string split_text(const Split& s);
/// "fsdp", "dp", "tp 4", "ep 8": the parallelism with its degree.
std::string parallelism_text(Parallelism p, const Split& s);

/// One dependent draw (dependent.cpp), before the filter: a case among those of
/// o.dependency, a model, phase, tokens and pass, the GEMM that produces or consumes the
/// collective's data, and the collective moving exactly that operand.
GeneratedPair draw_dependent(Rng& rng, const std::vector<ModelConfig>& models, const Options& o);

}  // namespace c3::generate::detail
