// io/catalog_reader.cpp: model catalogs (c3/catalog.hpp, docs/scenarios.md).
#include <algorithm>
#include <filesystem>
#include <map>
#include <set>

#include "c3/catalog.hpp"
#include "c3/errors.hpp"
#include "c3/io.hpp"
#include "io/readers.hpp"

namespace c3 {

std::string_view to_string(Architecture architecture) {
  switch (architecture) {
    case Architecture::decoder: return "decoder";
    case Architecture::encoder: return "encoder";
    case Architecture::encoder_decoder: return "encoder_decoder";
    case Architecture::vision: return "vision";
  }
  return "?";
}

std::string_view to_string(MlpKind kind) { return kind == MlpKind::gated ? "gated" : "plain"; }

bool ModelConfig::decodes() const {
  return architecture == Architecture::decoder || architecture == Architecture::encoder_decoder;
}

}  // namespace c3

namespace c3::io {
namespace {

using detail::Field;

// Sizes far beyond any model (2^31 elements) are a typo, not a configuration.
constexpr std::int64_t kMaxDimension = std::int64_t{1} << 31;

std::int64_t dimension(const Field& field) { return field.integer_in(1, kMaxDimension); }

std::int64_t optional_dimension(const Field& entry, std::string_view key, std::int64_t otherwise) {
  const auto field = entry.find(key);
  return field ? dimension(*field) : otherwise;
}

[[noreturn]] void missing(const Field& entry, std::string_view key, const std::string& why) {
  throw ConfigError(entry.origin(), entry.line(), entry.path() + "." + std::string(key),
                    "required key is missing (" + why + ")");
}

LatentAttention read_mla(const Field& field) {
  field.expect_keys({"q_lora_rank", "kv_lora_rank", "qk_nope_head_dim", "qk_rope_head_dim", "v_head_dim"});
  return LatentAttention{dimension(field.at("q_lora_rank")), dimension(field.at("kv_lora_rank")),
                         dimension(field.at("qk_nope_head_dim")), dimension(field.at("qk_rope_head_dim")),
                         dimension(field.at("v_head_dim"))};
}

std::vector<std::int64_t> read_seq_lens(const Field& field) {
  std::vector<std::int64_t> out;
  for (const Field& element : field.elements()) out.push_back(dimension(element));
  if (out.empty()) field.fail("at least one sequence length is required");
  return out;
}

// The MoE fields come together: experts, top_k <= experts and expert_ffn.
void read_moe(const Field& entry, ModelConfig& model) {
  const auto experts = entry.find("experts");
  const auto top_k = entry.find("top_k");
  const auto expert_ffn = entry.find("expert_ffn");
  const auto shared = entry.find("shared_expert_ffn");
  if (!experts) {
    for (const auto& moe_only : {top_k, expert_ffn, shared})
      if (moe_only) moe_only->fail("is a MoE field: give experts too");
    return;
  }
  model.experts = dimension(*experts);
  model.top_k = entry.at("top_k").integer_in(1, model.experts);
  model.expert_ffn = dimension(entry.at("expert_ffn"));
  model.shared_expert_ffn = shared ? dimension(*shared) : 0;
}

ModelConfig read_model(const Field& entry, const std::string& file) {
  entry.expect_keys({"name", "source", "architecture", "hidden", "ffn", "mlp", "heads", "kv_heads", "head_dim",
                     "layers", "vocab", "experts", "top_k", "expert_ffn", "shared_expert_ffn", "mla", "seq_lens"});
  ModelConfig model;
  model.name = detail::read_name(entry.at("name"));
  model.source = detail::read_name(entry.at("source"));
  model.file = file;
  const Field architecture = entry.at("architecture");
  model.architecture = detail::enum_named(architecture, architecture.text(), "architecture",
                                          {Architecture::decoder, Architecture::encoder,
                                           Architecture::encoder_decoder, Architecture::vision});
  model.hidden = dimension(entry.at("hidden"));
  const Field mlp = entry.at("mlp");
  model.mlp = detail::enum_named(mlp, mlp.text(), "mlp", {MlpKind::gated, MlpKind::plain});
  model.heads = dimension(entry.at("heads"));
  model.kv_heads = optional_dimension(entry, "kv_heads", model.heads);
  if (model.heads % model.kv_heads != 0)
    entry.at("kv_heads").fail("heads (" + std::to_string(model.heads) + ") must be a multiple of kv_heads (" +
                              std::to_string(model.kv_heads) + ")");
  if (!entry.find("head_dim") && model.hidden % model.heads != 0)
    entry.at("heads").fail("hidden is not a multiple of heads: give head_dim");
  model.head_dim = optional_dimension(entry, "head_dim", model.hidden / model.heads);
  model.layers = dimension(entry.at("layers"));
  model.vocab = optional_dimension(entry, "vocab", 0);
  read_moe(entry, model);
  model.ffn = optional_dimension(entry, "ffn", 0);
  if (model.ffn == 0 && !model.moe()) missing(entry, "ffn", "a dense model needs its FFN size");
  if (const auto mla = entry.find("mla")) model.mla = read_mla(*mla);
  model.seq_lens = read_seq_lens(entry.at("seq_lens"));
  if (model.vocab == 0 && model.architecture != Architecture::vision)
    missing(entry, "vocab", "only vision models have no LM head");
  return model;
}

std::string base_name(const std::string& path) { return std::filesystem::path(path).filename().string(); }

// FNV-1a, 64 bits (docs/scenarios.md): a digest of bytes that every machine computes alike.
struct Fnv1a64 {
  std::uint64_t state = 14695981039346656037ULL;
  void add(std::string_view bytes) {
    for (const char c : bytes) {
      state ^= static_cast<unsigned char>(c);
      state *= 1099511628211ULL;
    }
    state ^= 0;  // the separator (NUL)
    state *= 1099511628211ULL;
  }
  std::string hex() const {
    static constexpr char kDigits[] = "0123456789abcdef";
    std::string out(16, '0');
    for (int i = 0; i < 16; ++i) out[15 - i] = kDigits[(state >> (4 * i)) & 0xF];
    return out;
  }
};

std::vector<std::string> catalog_files(const std::string& file_or_dir) {
  namespace fs = std::filesystem;
  std::error_code error;
  if (!fs::is_directory(file_or_dir, error)) return {file_or_dir};  // read_file names a missing file
  std::vector<std::string> files;
  for (const fs::directory_entry& entry : fs::directory_iterator(file_or_dir, error))
    if (entry.path().extension() == ".yaml" && entry.is_regular_file(error)) files.push_back(entry.path().string());
  if (error) throw ConfigError(file_or_dir, 0, "", "cannot list the folder: " + error.message());
  if (files.empty()) throw ConfigError(file_or_dir, 0, "", "no *.yaml catalog file in this folder");
  std::sort(files.begin(), files.end(),
            [](const std::string& a, const std::string& b) { return base_name(a) < base_name(b); });
  return files;
}

}  // namespace

std::vector<ModelConfig> parse_catalog(std::string_view yaml_text, const std::string& origin) {
  const Field root = detail::parse_document(yaml_text, origin);
  root.expect_keys({"schema_version", "description", "models"});
  detail::check_schema_version(root);
  if (const auto description = root.find("description")) description->text();
  const Field models = root.at("models");
  std::vector<ModelConfig> out;
  std::set<std::string> names;
  for (const Field& entry : models.elements()) {
    out.push_back(read_model(entry, base_name(origin)));
    if (!names.insert(out.back().name).second)
      entry.at("name").fail("model '" + out.back().name + "' is defined twice");
  }
  if (out.empty()) models.fail("at least one model is required");
  return out;
}

Catalog load_catalog(const std::string& file_or_dir) {
  Catalog catalog;
  Fnv1a64 digest;
  std::map<std::string, std::string> defined_in;
  for (const std::string& path : catalog_files(file_or_dir)) {
    const std::string text = read_file(path);
    const std::string name = base_name(path);
    digest.add(name);
    digest.add(text);
    catalog.files.push_back(name);
    for (ModelConfig& model : parse_catalog(text, path)) {
      const auto [it, fresh] = defined_in.emplace(model.name, path);
      if (!fresh)
        throw ConfigError(path, 0, "models",
                          "model '" + model.name + "' is defined twice (also in " + it->second + ")");
      catalog.models.push_back(std::move(model));
    }
  }
  std::sort(catalog.models.begin(), catalog.models.end(),
            [](const ModelConfig& a, const ModelConfig& b) { return a.name < b.name; });
  catalog.digest = digest.hex();
  return catalog;
}

}  // namespace c3::io
