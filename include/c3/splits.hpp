// c3/splits.hpp: the train/test protocol, kept in data (data/splits.yaml,
// docs/accuracy.md "Train and test"). The manifest names every measured file
// (data/measurements/*.json) as `train` (may be used to calibrate or fit anything) or
// `test` (only scored, by validate), with what made it (scenarios, seed). Calibration
// and every fit refuse a test file; validate says which split it scored.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace c3 {

enum class SplitKind { train, test, unlisted };
std::string_view to_string(SplitKind split);

struct SplitEntry {
  std::string file;       ///< as written: a path relative to the repository root
  SplitKind split = SplitKind::train;
  std::string scenarios;  ///< what was measured: a scenarios file, "paper", a calibration plan
  std::optional<std::uint64_t> seed;  ///< the generator's seed, for generated scenarios
  std::string note;
};

/// A manifest; empty (no path) when there is none, and then every file is unlisted.
struct Splits {
  std::string path;  ///< the manifest file ("" = none)
  std::vector<SplitEntry> entries;

  /// The split of measurement file `file`: the entry with the same file name (entries'
  /// file names are unique), else unlisted. A copy of a test file elsewhere stays test.
  SplitKind split_of(const std::string& file) const;
};

/// The manifest used when --splits is not given.
inline constexpr const char* kDefaultSplits = "data/splits.yaml";

}  // namespace c3

namespace c3::io {

/// Parses a manifest's YAML text; `origin` names it in errors. Throws ConfigError for a
/// bad field, an unknown split, or a file name listed twice.
Splits parse_splits(std::string_view yaml_text, const std::string& origin);
/// Reads `path`; with `optional`, a path that does not exist gives an empty manifest.
Splits load_splits(const std::string& path, bool optional = false);

/// The scenario sets whose pairs the entries of `split` measured, each once, in manifest order:
/// the leading word of each entry's `scenarios` field when it is a `.yaml` path or "paper"
/// (the embedded paper pairs); entries of calibration plans, scripts or subsets of another
/// entry's file name none. Paths are as written (relative to the repository root).
std::vector<std::string> scenario_sets_of(const Splits& splits, SplitKind split);

/// Throws InputError when `file` is listed as test in `splits`: test files are only
/// scored, never used by `use` (e.g. "calibrate --collectives"), so that a score on them
/// stays a score on data nothing was fitted to.
void require_not_test(const Splits& splits, const std::string& file, const std::string& use);

}  // namespace c3::io
