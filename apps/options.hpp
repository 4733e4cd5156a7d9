// apps/options.hpp: options several subcommands share, spelled the same everywhere.
#pragma once

#include <CLI/CLI.hpp>

#include <string>
#include <utility>
#include <vector>

#include "c3/profile.hpp"
#include "c3/types.hpp"

namespace c3::apps {

/// --profile NAME|FILE, defaulting to kDefaultProfile.
void add_profile_option(CLI::App& sub, std::string& profile);

/// --ranks N. Returns the option: ->count() says whether it was given.
CLI::Option* add_ranks_option(CLI::App& sub, int& ranks, const std::string& default_text);

/// --resume and --overwrite (excluding each other) for a command that writes measurements
/// into FILE_OPTION (--out, --raw) after each one: `scope` starts the help texts (e.g. "Live
/// backends, with --out: "). Returns {resume, overwrite}, for more ->excludes().
std::pair<CLI::Option*, CLI::Option*> add_resume_options(CLI::App& sub, bool& resume, bool& overwrite,
                                                         const std::string& file_option,
                                                         const std::string& scope = "");

/// A check for options read into unsigned 64-bit integers: digits only and at most
/// 2^64 - 1. CLI11 alone would wrap "-1" and clamp a larger number to 2^64 - 1.
CLI::Validator unsigned_64_check();

/// CLI11's PositiveNumber / NonNegativeNumber with a readable message ("must be a number > 0,
/// got '0'"; CLI11's own prints its range up to DBL_MAX, 300 digits).
CLI::Validator positive_check();
CLI::Validator non_negative_check();

/// The pairs named in `only` (comma-separated), in that order; all when empty.
/// Throws InputError naming a name no pair has.
std::vector<C3Pair> select_scenarios(std::vector<C3Pair> pairs, const std::string& only);

/// A note on stderr where a profile fitted for queued-ahead work (calibrate --chained: its
/// provenance's pairs_priced is "chained") is asked without --chained.
void note_if_fitted_chained(const HardwareProfile& hw, bool chained);

}  // namespace c3::apps
