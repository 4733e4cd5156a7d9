// apps/options.cpp: see options.hpp.
#include "apps/options.hpp"

#include "apps/commands.hpp"

namespace c3::apps {

void add_profile_option(CLI::App& sub, std::string& profile) {
  profile = kDefaultProfile;
  sub.add_option("--profile", profile,
                 "An embedded profile (see 'c3advisor profiles') or a profile YAML file")
      ->capture_default_str();
}

CLI::Option* add_ranks_option(CLI::App& sub, int& ranks, const std::string& default_text) {
  return sub.add_option("--ranks", ranks, "Ranks (GPUs) taking part in the collective (" +
                                              default_text + ")");
}

}  // namespace c3::apps
