// apps/profiles.cpp: `c3advisor profiles`: the embedded profiles, and those of a folder.
#include <algorithm>
#include <filesystem>
#include <memory>

#include "apps/commands.hpp"
#include "c3/errors.hpp"
#include "c3/io.hpp"
#include "c3/views.hpp"

namespace c3::apps {
namespace {

struct ProfilesOptions {
  std::string profile_dir;
  bool json = false;
};

/// The *.yaml files of `dir`, sorted.
std::vector<std::string> yaml_files(const std::string& dir) {
  std::error_code ec;
  if (!std::filesystem::is_directory(dir, ec)) {
    throw InputError("--profile-dir: '" + dir + "' is not a directory");
  }
  std::vector<std::string> files;
  for (const auto& entry : std::filesystem::directory_iterator(dir, ec)) {
    if (entry.is_regular_file(ec) && entry.path().extension() == ".yaml") {
      files.push_back(entry.path().string());
    }
  }
  if (ec) throw InputError("--profile-dir: cannot list '" + dir + "': " + ec.message());
  std::sort(files.begin(), files.end());
  return files;
}

std::string run_profiles(const ProfilesOptions& o) {
  std::vector<HardwareProfile> profiles;
  for (const std::string& name : io::embedded_profile_names()) profiles.push_back(io::resolve_profile(name));
  if (!o.profile_dir.empty()) {
    for (const std::string& file : yaml_files(o.profile_dir)) profiles.push_back(io::load_profile(file));
  }
  return o.json ? io::profiles_json(profiles) : io::profiles_text(profiles);
}

}  // namespace

Command add_profiles(CLI::App& app) {
  auto o = std::make_shared<ProfilesOptions>();
  CLI::App* sub = app.add_subcommand("profiles", "List the embedded hardware profiles");
  sub->add_option("--profile-dir", o->profile_dir,
                  "Also list (and check) every *.yaml profile in this folder");
  sub->add_flag("--json", o->json, "Print a JSON document (schema in docs/cli.md)");
  sub->footer(
      "Examples:\n"
      "  c3advisor profiles\n"
      "  c3advisor profiles --profile-dir data/profiles --json\n");
  return {sub, [o] { return run_profiles(*o); }};
}

}  // namespace c3::apps
