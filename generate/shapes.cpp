// generate/shapes.cpp: a model's GEMMs and weights from its configuration
// (docs/scenarios.md, "Shapes"). Pure integer arithmetic on the catalog's fields.
#include "c3/generate.hpp"

namespace c3::generate {
namespace {

std::int64_t ceil_div(std::int64_t a, std::int64_t b) { return (a + b - 1) / b; }

// The MLP's first projection: gate and up (2 x ffn) or up alone.
std::int64_t up_outputs(const ModelConfig& model, std::int64_t ffn) {
  return model.mlp == MlpKind::gated ? 2 * ffn : ffn;
}

// Weight matrices of one MLP: gate, up, down (gated) or up, down.
std::int64_t mlp_elements(const ModelConfig& model, std::int64_t ffn) {
  return (model.mlp == MlpKind::gated ? 3 : 2) * model.hidden * ffn;
}

void add(std::vector<LayerGemm>& out, std::string role, std::int64_t m, std::int64_t n, std::int64_t k,
         bool column_parallel) {
  out.push_back(LayerGemm{std::move(role), Gemm{m, n, k, DType::bf16}, column_parallel});
}

// Grouped-query attention: Q of heads / tp heads, K and V of kv_heads / tp heads each (at
// least one: fewer KV heads than ranks are replicated), one fused projection.
void attention(const ModelConfig& model, const Split& s, std::vector<LayerGemm>& out) {
  const std::int64_t q_heads = ceil_div(model.heads, s.tp);
  const std::int64_t kv_heads = ceil_div(model.kv_heads, s.tp);
  add(out, "qkv", s.tokens, (q_heads + 2 * kv_heads) * model.head_dim, model.hidden, true);
  add(out, "out_proj", s.tokens, model.hidden, q_heads * model.head_dim, false);
}

// Multi-head latent attention (DeepSeek-V3): the down projections of Q and of the
// compressed KV with its rotary key, fused and replicated; per-head up projections.
void latent_attention(const ModelConfig& model, const LatentAttention& a, const Split& s,
                      std::vector<LayerGemm>& out) {
  const std::int64_t heads = ceil_div(model.heads, s.tp);
  add(out, "qkv_down", s.tokens, a.q_lora_rank + a.kv_lora_rank + a.qk_rope_head_dim, model.hidden, true);
  add(out, "q_up", s.tokens, heads * (a.qk_nope_head_dim + a.qk_rope_head_dim), a.q_lora_rank, true);
  add(out, "kv_up", s.tokens, heads * (a.qk_nope_head_dim + a.v_head_dim), a.kv_lora_rank, true);
  add(out, "out_proj", s.tokens, model.hidden, heads * a.v_head_dim, false);
}

}  // namespace

std::string_view to_string(Phase phase) {
  switch (phase) {
    case Phase::training: return "training";
    case Phase::prefill: return "prefill";
    case Phase::decode: return "decode";
  }
  return "?";
}

std::string_view to_string(Parallelism parallelism) {
  switch (parallelism) {
    case Parallelism::fsdp: return "fsdp";
    case Parallelism::tp: return "tp";
    case Parallelism::ep: return "ep";
    case Parallelism::dp: return "dp";
  }
  return "?";
}

std::string_view to_string(Pass pass) {
  switch (pass) {
    case Pass::forward: return "forward";
    case Pass::backward_data: return "backward-data";
    case Pass::backward_weight: return "backward-weight";
  }
  return "?";
}

std::vector<LayerGemm> layer_gemms(const ModelConfig& model, const Split& s) {
  std::vector<LayerGemm> out;
  if (model.mla) {
    latent_attention(model, *model.mla, s, out);
  } else {
    attention(model, s, out);
  }
  if (model.ffn > 0) {
    const std::int64_t ffn = ceil_div(model.ffn, s.tp);
    add(out, "mlp_up", s.tokens, up_outputs(model, ffn), model.hidden, true);
    add(out, "mlp_down", s.tokens, model.hidden, ffn, false);
  }
  if (model.moe()) {
    // Balanced routing: tokens x top_k assignments over the experts, each rank's local
    // experts receiving from ep ranks.
    const std::int64_t routed = ceil_div(s.tokens * model.top_k * s.ep, model.experts);
    add(out, "expert_up", routed, up_outputs(model, model.expert_ffn), model.hidden, true);
    add(out, "expert_down", routed, model.hidden, model.expert_ffn, false);
    if (model.shared_expert_ffn > 0) {
      const std::int64_t ffn = ceil_div(model.shared_expert_ffn, s.tp);
      add(out, "shared_up", s.tokens, up_outputs(model, ffn), model.hidden, true);
      add(out, "shared_down", s.tokens, model.hidden, ffn, false);
    }
  }
  if (model.vocab > 0) add(out, "lm_head", s.tokens, ceil_div(model.vocab, s.tp), model.hidden, true);
  return out;
}

Gemm pass_gemm(const Gemm& forward, Pass pass) {
  switch (pass) {
    case Pass::forward: return forward;
    case Pass::backward_data: return Gemm{forward.m, forward.k, forward.n, forward.dtype};
    case Pass::backward_weight: return Gemm{forward.k, forward.n, forward.m, forward.dtype};
  }
  return forward;
}

std::int64_t block_weight_elements(const ModelConfig& model, std::int64_t tp) {
  std::int64_t attention = 0;
  if (model.mla) {
    const LatentAttention& a = *model.mla;
    attention = model.hidden * (a.q_lora_rank + a.kv_lora_rank + a.qk_rope_head_dim) +
                a.q_lora_rank * model.heads * (a.qk_nope_head_dim + a.qk_rope_head_dim) +
                a.kv_lora_rank * model.heads * (a.qk_nope_head_dim + a.v_head_dim) +
                model.heads * a.v_head_dim * model.hidden;
  } else {
    attention = model.hidden * (model.heads + 2 * model.kv_heads) * model.head_dim +
                model.heads * model.head_dim * model.hidden;
  }
  std::int64_t mlp = 0;
  if (model.moe()) {
    mlp = model.experts * mlp_elements(model, model.expert_ffn) + model.experts * model.hidden +
          (model.shared_expert_ffn > 0 ? mlp_elements(model, model.shared_expert_ffn) : 0);
  } else {
    mlp = mlp_elements(model, model.ffn);
  }
  return ceil_div(attention + mlp, tp);
}

std::int64_t pair_memory_bytes(const Gemm& gemm, const Collective& c) {
  const std::int64_t element = bytes_per_element(gemm.dtype);
  const std::int64_t gemm_bytes = (gemm.m * gemm.k + gemm.k * gemm.n + gemm.m * gemm.n) * element;
  const std::int64_t part = ceil_div(c.size_bytes, c.ranks);
  switch (c.kind) {
    case CollectiveKind::all_gather:
    case CollectiveKind::reduce_scatter: return gemm_bytes + c.size_bytes + part;
    case CollectiveKind::all_to_all:
    case CollectiveKind::all_reduce: return gemm_bytes + 2 * c.size_bytes;
  }
  return gemm_bytes + 2 * c.size_bytes;
}

}  // namespace c3::generate
