// apps/options.hpp: options several subcommands share, spelled the same everywhere.
#pragma once

#include <CLI/CLI.hpp>

#include <string>

namespace c3::apps {

/// --profile NAME|FILE, defaulting to kDefaultProfile.
void add_profile_option(CLI::App& sub, std::string& profile);

/// --ranks N. Returns the option: ->count() says whether it was given.
CLI::Option* add_ranks_option(CLI::App& sub, int& ranks, const std::string& default_text);

}  // namespace c3::apps
