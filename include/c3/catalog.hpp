// c3/catalog.hpp: a catalog of public model configurations (data/catalog/*.yaml), the
// input of the scenario generator (c3/generate.hpp, docs/scenarios.md). Each model is
// the few fields of its config.json (or paper) that fix its GEMM shapes and its
// collectives' sizes, with the source it was copied from. Reading a catalog throws
// ConfigError naming the file, the line and the key path of a bad or missing field.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace c3 {

/// What a model is, which fixes the phases it has: decoders and encoder-decoders
/// generate (training, prefill, decode); encoders and vision models only train and
/// run forward passes (training, prefill).
enum class Architecture { decoder, encoder, encoder_decoder, vision };
std::string_view to_string(Architecture architecture);

/// The MLP's first projection: `gated` (SwiGLU/GeGLU: gate and up, 2 x ffn outputs) or
/// `plain` (one up projection of ffn outputs, GELU/ReLU).
enum class MlpKind { gated, plain };
std::string_view to_string(MlpKind kind);

/// Multi-head latent attention (DeepSeek-V2/V3): the low-rank query and key/value
/// projections of config.json.
struct LatentAttention {
  std::int64_t q_lora_rank = 0;
  std::int64_t kv_lora_rank = 0;
  std::int64_t qk_nope_head_dim = 0;
  std::int64_t qk_rope_head_dim = 0;
  std::int64_t v_head_dim = 0;
};

/// One model: sizes in elements (never bytes), all positive unless said otherwise.
struct ModelConfig {
  std::string name;    ///< unique in the catalog, e.g. "llama3-70b"
  std::string source;  ///< the config.json URL or the paper it was copied from
  std::string file;    ///< the catalog file it was read from (its base name)
  Architecture architecture = Architecture::decoder;
  std::int64_t hidden = 0;    ///< hidden_size / d_model
  std::int64_t ffn = 0;       ///< the dense MLP's intermediate size; 0: none (every layer MoE)
  MlpKind mlp = MlpKind::gated;
  std::int64_t heads = 0;     ///< attention heads
  std::int64_t kv_heads = 0;  ///< key/value heads (GQA); = heads when not given
  std::int64_t head_dim = 0;  ///< = hidden / heads when not given
  std::int64_t layers = 0;
  std::int64_t vocab = 0;     ///< 0: no LM head (vision)
  std::int64_t experts = 0;   ///< routed experts; 0: dense
  std::int64_t top_k = 0;     ///< experts per token (MoE)
  std::int64_t expert_ffn = 0;         ///< each routed expert's intermediate size (MoE)
  std::int64_t shared_expert_ffn = 0;  ///< the shared expert's intermediate size; 0: none
  std::optional<LatentAttention> mla;  ///< none: standard multi-head / grouped attention
  std::vector<std::int64_t> seq_lens;  ///< sequence lengths drawn for training and prefill

  bool moe() const { return experts > 0; }
  /// Whether the model generates tokens one at a time (decoder, encoder_decoder).
  bool decodes() const;
};

struct Catalog {
  std::vector<ModelConfig> models;  ///< sorted by name
  /// FNV-1a 64 of every file read, in name order (name, NUL, content, NUL), 16 hex
  /// digits: the same catalog gives the same digest on every machine.
  std::string digest;
  std::vector<std::string> files;  ///< base names of the files read, sorted
};

}  // namespace c3

namespace c3::io {

/// Parses one catalog file's text; `origin` names it in errors. Checks every field
/// (positive integers, known spellings, MoE fields all or none, heads divisible for
/// GQA) and that names are unique within the file.
std::vector<ModelConfig> parse_catalog(std::string_view yaml_text, const std::string& origin);

/// Reads a catalog: a YAML file, or every *.yaml file of a folder (sorted by name).
/// Throws ConfigError for a missing path, an empty folder, a bad file, or a model name
/// defined twice (naming both files).
Catalog load_catalog(const std::string& file_or_dir);

}  // namespace c3::io
