// evaluate/validation.cpp: what `validate` measures against: the backend, the strategies
// it is asked for, and the scenarios a replay file cannot answer (c3/evaluate.hpp).
#include <algorithm>

#include "backends/replay/replay.hpp"
#include "c3/errors.hpp"
#include "c3/evaluate.hpp"

namespace c3::validator {
namespace {

// Ranks at which `raw` holds concurrent measurements (for a hint when none match).
std::vector<int> recorded_ranks(const RawMeasurements& raw) {
  std::vector<int> out;
  for (const Record& r : raw.records)
    if (const auto* q = std::get_if<ConcurrentQuery>(&r.query))
      if (std::find(out.begin(), out.end(), q->collective.ranks) == out.end())
        out.push_back(q->collective.ranks);
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace

std::string scenario_label(const C3Pair& p) {
  return (p.name.empty() ? format_gemm(p.gemm) : p.name) + " (" +
         std::string(to_string(p.collective.kind)) + ")";
}

bool is_replay_spec(const std::string& spec) { return spec == "replay" || spec.rfind("replay:", 0) == 0; }

std::vector<std::string> replay_files_of(const std::string& spec) {
  if (!is_replay_spec(spec) || spec.size() <= 7) return {};
  return replay_files(spec.substr(7));
}

ValidationBackend make_validation_backend(const std::string& spec, const HardwareProfile& hw,
                                          const RunConfig& run, const MeasureOptions& planned,
                                          bool strategies_chosen) {
  ValidationBackend b;
  b.spec = spec;
  if (is_replay_spec(spec)) {
    if (strategies_chosen)
      throw InputError("--rp and --dma-rp choose what a live backend measures; a replay "
                       "validates every strategy recorded in its file");
    const std::string arg = spec.size() > 7 ? spec.substr(7) : "";
    if (arg.empty()) throw InputError("replay needs a measurements file: --backend replay:FILE");
    b.raw = load_replay_files(arg);  // one file, or the median over several ("A+B+C")
    b.validator = make_replay_validator(*b.raw, arg, replay_files(arg));
    b.strategies = recorded_strategy_source(*b.raw);
    return b;
  }
  b.validator = make_validator(spec, hw);
  b.validator->set_run_config(run);
  b.strategies = planned_strategy_source(planned);
  return b;
}

ValidationBackend measure_live(const std::string& spec, const HardwareProfile& hw, const RunConfig& run,
                               const std::vector<C3Pair>& pairs, const MeasureOptions& options,
                               const ProgressFn& progress) {
  if (is_replay_spec(spec)) throw InputError("measure_live needs a live backend, not '" + spec + "'");
  if (options.raw_path.empty()) throw InputError("measure_live needs a file for the raw measurements");
  if (options.gemms_only || options.isolated_only)
    throw InputError("measure_live measures every strategy of each pair: not gemms_only or isolated_only");
  ValidationBackend b;
  b.spec = spec;
  {
    const std::unique_ptr<Validator> live = make_validator(spec, hw);
    live->set_run_config(run);
    MeasureOptions chosen = options;
    // No variant asked for: the one the profile was calibrated with, where this backend has it.
    if (const auto it = hw.provenance_details.find("dma_variant");
        chosen.dma_variant.empty() && it != hw.provenance_details.end()) {
      const std::vector<std::string> offered = live->capabilities().dma_variants;
      if (std::find(offered.begin(), offered.end(), it->second) != offered.end()) chosen.dma_variant = it->second;
    }
    b.raw = measure(*live, pairs, chosen, progress);
    b.measured_on = live->capabilities();
  }  // the GPUs are released before the scoring
  // The file as written (not a replay spec: a '+' in its name is no list of files).
  b.validator = make_replay_validator(load_raw_measurements(options.raw_path), options.raw_path);
  // What was asked for (a resumed file may hold more strategies and pairs).
  b.strategies = planned_strategy_source(options);
  return b;
}

std::vector<SkippedScenario> drop_unrecorded(const RawMeasurements& raw, const std::string& path,
                                             std::vector<C3Pair>& pairs, bool skip_missing) {
  std::vector<SkippedScenario> missing;
  std::vector<C3Pair> kept;
  for (const C3Pair& p : pairs) {
    const std::vector<std::string> why = missing_measurements(raw, p);
    if (why.empty()) {
      kept.push_back(p);
      continue;
    }
    std::string reason;
    for (const std::string& w : why) reason += (reason.empty() ? "" : "; ") + w;
    missing.push_back({p, reason});
  }
  if (!missing.empty() && !skip_missing) {
    std::string list;
    const std::size_t shown = std::min<std::size_t>(missing.size(), 5);
    for (std::size_t i = 0; i < shown; ++i)
      list += (i ? "; " : "") + scenario_label(missing[i].pair) + ": " + missing[i].reason;
    if (missing.size() > shown) list += "; and " + std::to_string(missing.size() - shown) + " more";
    std::string hint;
    const std::vector<int> ranks = recorded_ranks(raw);
    const int asked = pairs.front().collective.ranks;
    if (!ranks.empty() && std::find(ranks.begin(), ranks.end(), asked) == ranks.end()) {
      std::string r;
      for (int x : ranks) r += (r.empty() ? "" : ",") + std::to_string(x);
      hint = " (the file has concurrent measurements at ranks " + r + " only: try --ranks " +
             std::to_string(ranks.front()) + ")";
    }
    throw InputError(path + " lacks measurements for " + std::to_string(missing.size()) + " of " +
                     std::to_string(pairs.size()) + " scenarios" + hint + ": " + list +
                     " (--skip-missing validates the others)");
  }
  pairs = std::move(kept);
  return missing;
}

}  // namespace c3::validator
