// io/embedded.hpp: the data compiled into the library. Defined in the file that
// cmake/embed.cmake generates from data/profiles/*.yaml and data/scenarios/paper.yaml.
#pragma once

#include <string_view>
#include <utility>
#include <vector>

namespace c3::io::detail {

/// (name, YAML text) of every embedded profile; the name is the file stem.
const std::vector<std::pair<std::string_view, std::string_view>>& embedded_profiles();
/// The YAML text of data/scenarios/paper.yaml.
std::string_view embedded_paper_scenarios();

}  // namespace c3::io::detail
