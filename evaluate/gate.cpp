// evaluate/gate.cpp: the accuracy gate checked against, and rewritten from, a summary
// (c3/evaluate.hpp); the file format is io's (c3/io.hpp).
#include "c3/evaluate.hpp"

#include <optional>

namespace c3::validator {
namespace {

const io::MetricDirection kDirection = [](const std::string& metric) { return higher_is_better(metric); };

}  // namespace

std::vector<GateThreshold> default_gate_tolerances() {
  return {{"decision_accuracy", 0, 0.034},
          {"worst_loss_vs_oracle", 0, 0.01},
          {"prediction_error_median", 0, 0.01},
          {"advisor_fraction_of_ideal", 0, 0.02}};
}

std::vector<std::string> gate_file_failures(const AccuracySummary& summary, const std::string& path,
                                            const std::string& check, const std::string& split) {
  const io::GateCheck gate = io::load_gate_check(path, check, kDirection);
  std::vector<std::string> out = gate_failures(summary, gate.thresholds);
  if (gate.scenarios > 0 && gate.scenarios != summary.scenarios)
    out.push_back("check '" + check + "' was recorded on " + std::to_string(gate.scenarios) +
                  " scenarios, these are " + std::to_string(summary.scenarios) +
                  " (not the measurements of its command)");
  if (!gate.split.empty() && gate.split != split)
    out.push_back("check '" + check + "' is bound to the " + gate.split +
                  " split, but the measurements scored are " +
                  (split.empty() ? std::string("of no split") : split) + " (data/splits.yaml)");
  return out;
}

bool update_gate_file(const AccuracySummary& summary, const std::string& path, const std::string& check,
                      const std::string& command, const std::string& split) {
  return io::update_gate_check(path, check, kDirection, [&](const std::optional<io::GateCheck>& earlier) {
    const std::vector<GateThreshold> tolerances = earlier ? earlier->thresholds : default_gate_tolerances();
    io::GateCheck out;
    out.command = command;
    if (split == "train" || split == "test") out.split = split;
    out.scenarios = summary.scenarios;
    out.thresholds = gate_thresholds_from(summary, tolerances);
    for (const GateThreshold& t : out.thresholds) out.reached.push_back(summary_metric(summary, t.metric));
    return out;
  });
}

}  // namespace c3::validator
