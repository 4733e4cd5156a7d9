// c3/io.hpp: reading profiles, scenarios and traces (YAML) and writing results
// (JSON, CSV, text tables). Every malformed input throws ConfigError naming the
// file, the line and the key path; nothing here prints.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "c3/advisor.hpp"
#include "c3/profile.hpp"
#include "c3/types.hpp"

namespace c3::io {

/// Version of every JSON document c3advisor writes (`schema_version`).
inline constexpr int kSchemaVersion = 1;
/// The library's version string ("0.1.0").
std::string_view version();

// ---- profiles ----

/// Parses a profile from YAML text; `origin` names it in errors (a file path).
HardwareProfile parse_profile(std::string_view yaml_text, const std::string& origin);
/// Reads a profile file. Throws ConfigError (also for a missing file).
HardwareProfile load_profile(const std::string& path);
/// Names of the profiles compiled into the library, sorted.
std::vector<std::string> embedded_profile_names();
/// Writes a profile as YAML that parse_profile reads back (values, sources, tables).
std::string profile_yaml(const HardwareProfile& hw);
/// The YAML text of an embedded profile. Throws InputError for an unknown name.
std::string_view embedded_profile_text(std::string_view name);
/// An embedded profile by name, or else a profile file by path. Throws InputError
/// naming the embedded profiles when neither exists.
HardwareProfile resolve_profile(const std::string& name_or_path);

// ---- scenarios ----

/// Parses a scenarios file: GEMMs by tag and pairs. See docs/cli.md.
std::vector<C3Pair> parse_scenarios(std::string_view yaml_text, const std::string& origin);
std::vector<C3Pair> load_scenarios(const std::string& path);
/// "paper" (the embedded paper scenarios), or a file path.
std::vector<C3Pair> resolve_scenarios(const std::string& name_or_path);
/// Overrides the ranks of every pair (e.g. paper scenarios at 4 ranks on 4 GPUs).
void set_ranks(std::vector<C3Pair>& pairs, int ranks);

// ---- traces ----

Trace parse_trace(std::string_view yaml_text, const std::string& origin);
Trace load_trace(const std::string& path);

// ---- output ----

/// A named heuristic's pick for a pair (Advisor::heuristic).
struct HeuristicPick {
  std::string name;
  Strategy strategy;
};
/// The pick of every heuristic of heuristic_names() for `pair`.
std::vector<HeuristicPick> heuristic_picks(const Advisor& advisor, const C3Pair& pair);

/// One `advise` document (schema in docs/cli.md); `heuristics` fills its
/// "heuristics" object (empty when none are given).
std::string advice_json(const HardwareProfile& hw, const Advice& advice,
                        const std::vector<HeuristicPick>& heuristics = {});
/// Human-readable advice; lists `heuristics` when given.
std::string advice_text(const HardwareProfile& hw, const Advice& advice,
                        const std::vector<HeuristicPick>& heuristics = {});

/// A sweep over many pairs: per scenario and averages by collective and taxonomy.
std::string sweep_json(const HardwareProfile& hw, const std::vector<Advice>& advice);
std::string sweep_csv(const HardwareProfile& hw, const std::vector<Advice>& advice);
std::string sweep_text(const HardwareProfile& hw, const std::vector<Advice>& advice);

std::string plan_json(const HardwareProfile& hw, const Trace& trace, const Plan& plan);
std::string plan_text(const HardwareProfile& hw, const Trace& trace, const Plan& plan);

std::string profiles_json(const std::vector<HardwareProfile>& profiles);
std::string profiles_text(const std::vector<HardwareProfile>& profiles);

/// Reads a whole file; throws ConfigError(path, 0, "", "cannot read ...").
std::string read_file(const std::string& path);

/// Writes `text` to `path` crash-safely, the one way c3advisor writes files: into a new
/// temporary file beside it (`PATH.tmp.PID.N`), flushed to disk (fsync) and renamed over
/// `path`, so that `path` holds either its previous content or all of `text`, never a
/// part, whenever the process is killed. Throws c3::Error("cannot write PATH: ...") when
/// it cannot (missing or read-only folder, full disk); `path` is then left as it was and
/// the temporary file removed.
void write_file(const std::string& path, std::string_view text);

}  // namespace c3::io
