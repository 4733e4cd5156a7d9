// backends/hip/gemm.hpp: internal to the hip backend: a GEMM through hipBLASLt on one or
// more GPUs (same shape and inputs on each), checked by device::GemmCheck's sampled host
// reference. The same "TN" layout as the cuda backend's: A stored m rows of k, B stored n
// columns of k, D column-major; bf16 or fp16 in and out, fp32 accumulate.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "c3/types.hpp"
#include "c3/validator.hpp"
#include "backends/hip/runtime.hpp"

namespace c3::hip {

/// True when the backend was built with hipBLASLt (C3_HIP_HAVE_HIPBLASLT).
bool have_hipblaslt();

class GemmRunner {
 public:
  /// Allocates and fills A, B, D and a workspace on GPUs 0..gpus-1 and chooses the
  /// algorithm (hipBLASLt's heuristic, up to 8 candidates). Throws HipFailure
  /// ("unsupported": built without hipBLASLt, a dtype other than bf16/fp16, no algorithm).
  GemmRunner(Runtime& rt, const Gemm& gemm, int gpus, int check_samples, std::uint32_t epoch);
  ~GemmRunner();
  GemmRunner(const GemmRunner&) = delete;
  GemmRunner& operator=(const GemmRunner&) = delete;

  /// Enqueues the GEMM of GPU `gpu` on `lane` (a CU-masked stream confines it). A candidate
  /// that fails to launch is replaced by the next one.
  void launch(int gpu, const Lane& lane);
  /// Fills every D with 0xFF (NaN); synchronizes.
  void poison(double timeout_s);
  /// Gathers the sampled outputs and compares them with the host reference; returns the
  /// mismatching samples over all GPUs.
  std::int64_t verify(std::string* first_error = nullptr);

  /// "heuristic choice N of M, waves W" of the algorithm in use.
  std::string algo_description() const;
  /// What is known of the kernel: hipBLASLt's waves (tiles are not exposed: unknown).
  GemmKernel kernel() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace c3::hip
