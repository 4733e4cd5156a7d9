// The fixture of calibrate/'s tests that calibrate on the sim backend: an MI300X base profile,
// the sim's parameters from it (with an optional backend argument, e.g. "noise=0.005,seed=11"),
// a temporary folder for the files a test writes, and one call of calibrate.
#pragma once

#include <gtest/gtest.h>

#include <string>

#include "backends/sim/sim.hpp"
#include "c3/io.hpp"
#include "calibrate/calibrate.hpp"
#include "support/temp_dir.hpp"

namespace c3::test {

class SimCalibrationTest : public ::testing::Test {
 protected:
  explicit SimCalibrationTest(const std::string& sim_arg = "")
      : base_(io::resolve_profile("mi300x")), params_(validator::sim_params(base_)) {
    if (!sim_arg.empty()) validator::apply_sim_arg(params_, sim_arg);
  }

  /// calibrate on a fresh sim backend of params_, from `base` (base_ when not given).
  validator::CalibrationResult calibrate_on_sim(const validator::CalibrationOptions& o) const {
    return calibrate_on_sim(o, base_);
  }
  validator::CalibrationResult calibrate_on_sim(const validator::CalibrationOptions& o,
                                                const HardwareProfile& base) const {
    auto sim = validator::make_sim_validator(params_);
    return validator::calibrate(*sim, base, o, nullptr);
  }

  /// The device name the sim backend reports (what a file must name to be its own).
  std::string sim_device() const { return validator::make_sim_validator(params_)->capabilities().device; }

  TempDir tmp_;
  HardwareProfile base_;
  validator::SimParams params_;
};

}  // namespace c3::test
