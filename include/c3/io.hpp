// c3/io.hpp: the files c3advisor reads and writes: profiles, scenarios and traces
// (YAML), the accuracy gate file and the document of `validate --json` (JSON). Every
// malformed input throws ConfigError naming the file, the line (YAML) and the key path;
// a file that cannot be written throws c3::Error; nothing here prints. The files of
// measurements are in c3/measurements.hpp, the views of results in c3/views.hpp.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
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

// ---- the accuracy gate (data/accuracy-gate.json, docs/accuracy.md) ----
//
// {"schema_version": 1, "description": "...",
//  "checks": {"NAME": {"command": "...", "scenarios": N,
//                      "thresholds": [{"metric": M, "at_least"|"at_most": X,
//                                      "reached": V, "tolerance": T}, ...]}, ...}}

/// A limit on one summary metric (c3/evaluate.hpp names the metrics).
struct GateThreshold {
  std::string metric;
  double limit = 0;      ///< at least (higher is better) or at most
  double tolerance = 0;  ///< slack given when the limit was set from a measured value
};

/// True when higher is better for `metric` ("at_least"); throws InputError for a name
/// that is not a metric.
using MetricDirection = std::function<bool(const std::string& metric)>;

/// One check as written: each threshold with the value `reached` when it was set.
struct GateCheck {
  std::string command;  ///< reruns the check
  std::string split;    ///< the split it is bound to ("" = none; c3/splits.hpp)
  int scenarios = 0;
  std::vector<GateThreshold> thresholds;
  std::vector<double> reached;  ///< one per threshold
};
/// Check `name` of gate file `path`, the file read once: its thresholds; the split it is
/// bound to ("train", "test"; "" when it names none): such a check fails on measurements
/// of another split (docs/accuracy.md); the scenarios it was recorded on (0 when it records
/// none): such a check fails on another count (other measurements than its command's).
/// `command` and `reached` are left empty (save_gate_check writes them; nothing here reads
/// them back).
/// Throws ConfigError: not valid JSON, a key given twice, a schema_version missing or not 1
/// (with a hint for files written before it), no "checks" mapping, no check `name`
/// (naming the checks it has), a threshold without a known metric, its limit key, or with a
/// negative tolerance, a count that is not a positive integer, a split that is not a string.
GateCheck load_gate_check(const std::string& path, const std::string& name,
                          const MetricDirection& higher_is_better);
/// Check `name` of gate file `path` as load_gate_check reads it, the file read once; nullopt
/// when the file does not exist or has no such check. Throws as load_gate_check for a file
/// that is not a gate file or a malformed check.
std::optional<GateCheck> find_gate_check(const std::string& path, const std::string& name,
                                         const MetricDirection& higher_is_better);

/// Writes check `name` into gate file `path` atomically, keeping every other check (and
/// the place of `name` when it exists); creates the file when absent. Throws ConfigError
/// for an existing file that is not a gate file, c3::Error when it cannot be written.
void save_gate_check(const std::string& path, const std::string& name, const GateCheck& check,
                     const MetricDirection& higher_is_better);
/// Rewrites check `name` of gate file `path` with what `make` returns from the check as it
/// was (nullopt: no such check, or no file), reading the file once; returns true when the
/// check is new. Throws as find_gate_check and save_gate_check, and what `make` throws
/// (the file is then left as it was).
bool update_gate_check(const std::string& path, const std::string& name,
                       const MetricDirection& higher_is_better,
                       const std::function<GateCheck(const std::optional<GateCheck>&)>& make);

// ---- the document of `validate --json` (docs/accuracy.md), as `report` reads it ----

struct ValidationDocument {
  /// summary.fraction_of_ideal's "overall" and one group of by_collective / by_overlap.
  struct Group {
    std::string name;  ///< "all", a collective kind or an overlap class
    int scenarios = 0;
    std::map<std::string, double> fraction_of_ideal;  ///< the keys with a number
  };
  /// One strategy of one scenario that the model predicted.
  struct Prediction {
    Strategy strategy;
    double measured_s = 0;
    double predicted_s = 0;
  };
  std::string profile;  ///< "?" when absent
  std::string device;   ///< backend.device; "" when absent
  int scenarios = 0;    ///< summary.scenarios
  double prediction_error_median = 0;
  double prediction_error_p90 = 0;
  Group overall;
  std::vector<Group> by_collective;  ///< in the document's order
  std::vector<Group> by_overlap;
  std::vector<Prediction> predictions;  ///< in the document's order
};
/// Reads a `validate --json` document. Throws ConfigError naming the key path of what is
/// missing or of the wrong type (e.g. "summary: missing: expected the output of
/// `c3advisor validate --json`").
ValidationDocument load_validation_document(const std::string& path);

// ---- files ----

/// Reads a whole file; throws ConfigError(path, 0, "", "cannot read ...").
std::string read_file(const std::string& path);
/// Throws what read_file would where `path` cannot be opened for reading; reads nothing.
void require_readable(const std::string& path);
/// Writes `text` to `path` crash-safely, the one way c3advisor writes files: into a new
/// temporary file beside it (`PATH.tmp.PID.N`), flushed to disk (fsync) and renamed over
/// `path`, so that `path` holds either its previous content or all of `text`, never a
/// part, whenever the process is killed. Throws c3::Error("cannot write PATH: ...") when
/// it cannot (missing or read-only folder, full disk); `path` is then left as it was and
/// the temporary file removed. A symbolic link is written through: the file it names is
/// replaced that way and the link stays (not one the kernel's protected_symlinks would refuse:
/// an error). /dev/stdout, /dev/stderr, /dev/fd/N and /proc/self/fd/N are written to the
/// inherited descriptor; another path that is neither a regular file nor a folder (/dev/null,
/// a FIFO) is written in place, never replaced.
void write_file(const std::string& path, std::string_view text);
/// Throws what write_file would ("cannot write PATH: ...") where `path` cannot be written
/// (missing or read-only folder, a folder in the way), by making and removing a temporary
/// file beside it; writes nothing to `path`. For commands that write only at the end of a
/// long run, to fail before it.
void require_writable(const std::string& path);
/// The bytes `path` holds as a regular file (through links); 0 for a missing or empty file, a
/// folder, /dev/stdout and the like, devices and FIFOs: what an output file would replace.
std::uintmax_t data_bytes(const std::string& path);
/// Throws InputError ("OPTION PATH already holds N bytes: CHOICES") where `path` is a regular
/// file (through links) that is not empty: for commands that would replace a file of earlier
/// measurements (GPU time) with a new one, unless told to resume or overwrite it. A missing or
/// empty file, /dev/stdout and the like, devices and FIFOs pass. Writes nothing.
void require_no_earlier_data(const std::string& path, const std::string& option, const std::string& choices);

}  // namespace c3::io
