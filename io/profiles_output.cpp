// io/profiles_output.cpp: the list of profiles (`c3advisor profiles`).
#include "c3/io.hpp"
#include "io/json_parts.hpp"
#include "io/text_format.hpp"

namespace c3::io {

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
                                   {"ref", hw.provenance.ref}});
  }
  return detail::dump(doc);
}

std::string profiles_text(const std::vector<HardwareProfile>& profiles) {
  using Align = detail::TextTable::Align;
  detail::TextTable table({{"name"}, {"gpu"}, {"gpus", Align::right}, {"CUs", Align::right},
                           {"source"}});
  for (const HardwareProfile& hw : profiles) {
    table.add_row({hw.name, hw.gpu, std::to_string(hw.gpu_count), std::to_string(hw.compute_units),
                   std::string(to_string(hw.provenance.source))});
  }
  return table.render();
}

}  // namespace c3::io
