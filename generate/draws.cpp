// generate/draws.cpp: see draws.hpp.
#include "generate/draws.hpp"

namespace c3::generate::detail {

bool supports(const ModelConfig& model, Phase phase, Parallelism parallelism) {
  if (phase == Phase::decode && !model.decodes()) return false;
  return parallelism != Parallelism::ep || model.moe();
}

// Encoders and vision models run larger batches of short sequences.
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

std::string gemm_text(const Gemm& g) {
  return std::to_string(g.m) + " x " + std::to_string(g.n) + " x " + std::to_string(g.k);
}

std::string split_text(const Split& s) {
  std::string out;
  if (s.tp > 1) out += ", tp " + std::to_string(s.tp);
  if (s.ep > 1) out += ", ep " + std::to_string(s.ep);
  return out;
}

std::string parallelism_text(Parallelism p, const Split& s) {
  const std::int64_t degree = p == Parallelism::tp ? s.tp : (p == Parallelism::ep ? s.ep : 1);
  return std::string(to_string(p)) + (degree > 1 ? " " + std::to_string(degree) : "");
}

}  // namespace c3::generate::detail
