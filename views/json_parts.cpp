// views/json_parts.cpp: see json_parts.hpp.
#include "views/json_parts.hpp"

#include "c3/io.hpp"

namespace c3::io::detail {

Json document_header(std::string_view profile_name) {
  return Json{{"schema_version", kSchemaVersion},
              {"c3advisor_version", version()},
              {"profile", profile_name}};
}

Json value_sources_json(const HardwareProfile& hw) {
  Json counts = Json::object();
  for (const auto& [kind, count] : source_counts(hw)) counts[std::string(to_string(kind))] = count;
  Json fitted = Json::array();
  for (const std::string& key : keys_from(hw, SourceKind::fitted))
    fitted.push_back(Json{{"key", key}, {"ref", hw.sources.at(key).ref}});
  return Json{{"counts", counts}, {"fitted", fitted}};
}

Json gemm_json(const Gemm& gemm) {
  return Json{{"m", gemm.m},
              {"n", gemm.n},
              {"k", gemm.k},
              {"dtype", to_string(gemm.dtype)},
              {"layout", to_string(gemm.layout)}};
}

Json collective_json(const Collective& collective) {
  return Json{{"kind", to_string(collective.kind)},
              {"size_bytes", collective.size_bytes},
              {"ranks", collective.ranks}};
}

Json taxonomy_json(const model::Taxonomy& taxonomy) {
  return Json{{"overlap", model::to_string(taxonomy.overlap)},
              {"gemm", to_string(taxonomy.gemm)},
              {"collective", to_string(taxonomy.collective)}};
}

Json isolated_json(const model::Isolated& isolated) {
  // The model gives 0 for a collective the copy engines cannot run.
  const Json dma = isolated.collective_dma_s > 0 ? Json(isolated.collective_dma_s) : Json(nullptr);
  return Json{{"gemm_s", isolated.gemm_s},
              {"collective_s", isolated.collective_s},
              {"collective_dma_s", dma}};
}

Json prediction_json(const StrategyPrediction& p) {
  return Json{{"name", p.strategy.label()},
              {"kind", to_string(p.strategy.kind)},
              {"order", to_string(p.strategy.order())},
              {"transport", to_string(p.strategy.transport())},
              {"collective_cus", p.collective_cus},
              {"gemm_cus", p.gemm_cus},
              {"chunks", p.strategy.chunks},
              {"predicted_s", p.predicted_s},
              {"speedup", p.speedup},
              {"fraction_of_ideal", p.fraction_of_ideal}};
}

Json strategies_json(const Advice& advice) {
  Json out = Json::array();
  for (const StrategyPrediction& p : advice.strategies) out.push_back(prediction_json(p));
  return out;
}

Json settings_json(const FrameworkSettings& s) {
  Json nccl = nullptr;
  if (s.nccl) nccl = Json{{"max_ctas", s.nccl->max_ctas}, {"min_ctas", s.nccl->min_ctas}};
  Json green = nullptr;
  if (s.green_contexts) {
    const int coll = s.green_contexts->collective_sms;
    green = Json{{"gemm_sms", s.green_contexts->gemm_sms},
                 {"collective_sms", coll > 0 ? Json(coll) : Json(nullptr)}};
  }
  Json copy_engine = nullptr;
  if (s.copy_engine) copy_engine = Json{{"implementation", *s.copy_engine}};
  return Json{{"launch_order", to_string(s.launch_order)},
              {"overlap", s.overlap},
              {"prefetch", s.prefetch},
              {"nccl", nccl},
              {"green_contexts", green},
              {"copy_engine", copy_engine},
              {"chunks", s.chunks}};
}

std::string dump(const Json& document) {
  return document.dump(2, ' ', false, Json::error_handler_t::replace) + "\n";
}

}  // namespace c3::io::detail
