// backends/device/failure.hpp: named failures of the GPU backends, the record of a device
// that can no longer be used, and the wrapper that turns every failure of one measurement
// into a failed Measurement (never an exception out of a Validator hook).
#pragma once

#include <functional>
#include <mutex>
#include <string>
#include <vector>

#include "c3/errors.hpp"
#include "c3/validator.hpp"

namespace c3::device {

/// A failure with a short machine-readable code ("out_of_memory", "cuda_error",
/// "hip_error", "driver_error", "cublas_error", "hipblaslt_error", "nccl_error",
/// "rccl_error", "timeout", "verification_failed", "unsupported", "device_unusable",
/// "gate_timeout").
/// what() = "code: detail".
class Failure : public BackendError {
 public:
  Failure(std::string code, const std::string& detail)
      : BackendError(code + ": " + detail), code_(std::move(code)) {}
  const std::string& code() const { return code_; }

 private:
  std::string code_;
};

/// Set once a sticky error or a timeout happened on a vendor's devices: later work fails
/// fast ("device_unusable") and memory is no longer freed (freeing would wait for hung
/// kernels). One per vendor backend (each keeps its own), thread-safe.
class PoisonState {
 public:
  bool poisoned() const;
  /// Records the first reason; later calls keep it.
  void poison(const std::string& why);
  std::string reason() const;

 private:
  mutable std::mutex mutex_;
  bool poisoned_ = false;
  std::string reason_;
};

/// A failed Measurement: ok = false, `error`, the warm-up count and the runs measured so far.
Measurement failed(const std::string& error, int warmup_runs, std::vector<double> runs_s = {});

/// Runs one measurement's body: a poisoned device gives "device_unusable: <reason>" without
/// running it; a Failure gives its what() ("code: detail"), a host allocation failure
/// "out_of_memory: host allocation failed", any other exception "error: <what>".
Measurement guarded(const PoisonState& poison, int warmup_runs, const std::function<Measurement()>& body);

}  // namespace c3::device
