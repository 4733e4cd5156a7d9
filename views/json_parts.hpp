// views/json_parts.hpp: the pieces every JSON document shares (docs/cli.md).
#pragma once

#include <nlohmann/json.hpp>

#include <string>
#include <string_view>

#include "c3/advisor.hpp"
#include "c3/profile.hpp"
#include "c3/settings.hpp"

namespace c3::io::detail {

using Json = nlohmann::ordered_json;

/// {schema_version, c3advisor_version, profile}: the start of every document
/// about one profile.
Json document_header(std::string_view profile_name);
/// {counts: {published, spec, measured, assumed, fitted}, fitted: [{key, ref}, ...]}:
/// where the profile's values come from, and which were fitted to a published aggregate.
Json value_sources_json(const HardwareProfile& hw);
Json gemm_json(const Gemm& gemm);
Json collective_json(const Collective& collective);
Json taxonomy_json(const model::Taxonomy& taxonomy);
/// {gemm_s, collective_s, collective_dma_s}; collective_dma_s is null when the
/// collective cannot run on the copy engines.
Json isolated_json(const model::Isolated& isolated);
/// {name, kind, order, transport, collective_cus, gemm_cus, predicted_s, speedup,
/// fraction_of_ideal} of one strategy.
Json prediction_json(const StrategyPrediction& prediction);
/// Every strategy's prediction of an advice, in its order (advise --json, plan --json).
Json strategies_json(const Advice& advice);
/// {launch_order, overlap, prefetch, nccl: {max_ctas, min_ctas} | null,
/// green_contexts: {gemm_sms, collective_sms | null} | null, copy_engine:
/// {implementation} | null, chunks}: what a framework sets (c3/settings.hpp).
Json settings_json(const FrameworkSettings& settings);
/// Two-space indent, a final newline; invalid UTF-8 replaced, never thrown.
std::string dump(const Json& document);

}  // namespace c3::io::detail
