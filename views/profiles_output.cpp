// views/profiles_output.cpp: the list of profiles (`c3advisor profiles`).
#include "c3/views.hpp"
#include "c3/model.hpp"
#include "views/json_parts.hpp"
#include "views/text_format.hpp"

namespace c3::io {
namespace {

detail::Json domain_json(const model::Domain& d) {
  detail::Json dtypes = detail::Json::array();
  for (DType t : d.dtypes) dtypes.push_back(to_string(t));
  detail::Json measured = detail::Json::array();
  for (const model::MeasuredRange& r : d.measured) {
    detail::Json m{{"what", r.what}, {"lo", r.lo}, {"hi", r.hi}};
    if (r.ranks > 0) m["ranks"] = r.ranks;
    measured.push_back(m);
  }
  return detail::Json{{"nodes", d.nodes}, {"gpus_per_node", d.gpus_per_node}, {"dtypes", dtypes},
                      {"measured", measured}};
}

std::string dtypes_text(const model::Domain& d) {
  std::string out;
  for (DType t : d.dtypes) out += (out.empty() ? "" : " ") + std::string(to_string(t));
  return out;
}

}  // namespace

std::string profiles_json(const std::vector<HardwareProfile>& profiles) {
  using detail::Json;
  Json doc{{"schema_version", kSchemaVersion}, {"c3advisor_version", version()}};
  doc["profiles"] = Json::array();
  for (const HardwareProfile& hw : profiles) {
    doc["profiles"].push_back(Json{{"name", hw.name},
                                   {"gpu", hw.gpu},
                                   {"gpu_count", hw.gpu_count},
                                   {"compute_units", hw.compute_units},
                                   {"description", hw.description},
                                   {"source", to_string(hw.provenance.source)},
                                   {"ref", hw.provenance.ref},
                                   {"value_sources", detail::value_sources_json(hw)},
                                   {"domain", domain_json(model::domain(hw))}});
  }
  return detail::dump(doc);
}

std::string profiles_text(const std::vector<HardwareProfile>& profiles) {
  using Align = detail::TextTable::Align;
  detail::TextTable table({{"name"}, {"gpu"}, {"gpus", Align::right}, {"CUs", Align::right},
                           {"source"}, {"dtypes"}, {"values"}});
  std::string fitted;
  for (const HardwareProfile& hw : profiles) {
    table.add_row({hw.name, hw.gpu, std::to_string(hw.gpu_count), std::to_string(hw.compute_units),
                   std::string(to_string(hw.provenance.source)), dtypes_text(model::domain(hw)),
                   detail::source_counts_text(hw)});
    const std::vector<std::string> keys = keys_from(hw, SourceKind::fitted);
    if (keys.empty()) continue;
    fitted += "\n" + hw.name + ": " + std::to_string(keys.size()) +
              " values fitted to published aggregates (each ref names the aggregate):\n";
    for (const std::string& key : keys) fitted += "  " + key + "\n";
  }
  return table.render() + fitted;
}

}  // namespace c3::io
