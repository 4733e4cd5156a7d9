// backends/cuda/gemm.hpp: internal to the cuda backend: a GEMM through cuBLASLt on one or
// more GPUs (same shape and inputs on each), with sampled checks against a host reference.
#pragma once

#include <cublasLt.h>

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "c3/types.hpp"
#include "c3/validator.hpp"
#include "backends/cuda/runtime.hpp"
#include "backends/device/gemm_check.hpp"

namespace c3::cuda {

/// D[m x n] = op(A)[m x k] * B[k x n], "TN": A stored m rows of k (row-major), B stored n
/// columns of k (column-major), D column-major; bf16 or fp16 in and out, fp32 accumulate.
class GemmRunner {
 public:
  /// Allocates and fills A, B, D and a workspace on GPUs 0..gpus-1.
  GemmRunner(Runtime& rt, const Gemm& gemm, int gpus, int check_samples, std::uint32_t epoch);
  ~GemmRunner();
  GemmRunner(const GemmRunner&) = delete;
  GemmRunner& operator=(const GemmRunner&) = delete;

  /// Enqueues the GEMM of GPU `gpu` on `lane` (its context made current). `sm_target` > 0
  /// passes CUBLASLT_MATMUL_DESC_SM_COUNT_TARGET (plan cached per target).
  void launch(int gpu, const Lane& lane, int sm_target);
  /// Chooses the algorithm for `sm_target` on every GPU now (outside timed runs).
  void prepare(int sm_target);
  /// Fills every D with 0xFF (NaN); synchronizes.
  void poison(double timeout_s);
  /// Gathers the sampled outputs and compares them with a double-precision host reference
  /// (device::GemmCheck); returns the number of mismatching samples over all GPUs.
  std::int64_t verify(double timeout_s, std::string* first_error = nullptr);

  const std::string& algo_description() const { return algo_desc_; }
  /// The kernel of the plan prepared or launched last: tile, split-K, CTAs, waves.
  const GemmKernel& kernel() const { return kernel_; }
  int gpus() const { return static_cast<int>(per_gpu_.size()); }

 private:
  struct Plan {
    cublasLtMatmulDesc_t op = nullptr;
    std::vector<cublasLtMatmulAlgo_t> candidates;  ///< heuristic order
    std::vector<float> waves;
    std::size_t current = 0;                       ///< the one in use
    std::string hint;
    std::string launch_errors;                     ///< why earlier candidates were dropped
  };
  std::string describe(const Plan& p) const;
  GemmKernel kernel_of(const Plan& p, int sm_target) const;
  struct PerGpu {
    int device = 0;
    cublasLtHandle_t lt = nullptr;
    cublasLtMatrixLayout_t a = nullptr, b = nullptr, d = nullptr;
    DeviceBuffer A, B, D, workspace, idx, samples;
    std::map<int, Plan> plans;
    std::map<int, bool> hint_dropped;  ///< sm_target whose hinted candidates all failed
  };
  Plan& plan(PerGpu& g, int sm_target);

  Runtime& rt_;
  Gemm gemm_;
  std::uint64_t seed_a_ = 0, seed_b_ = 0;
  std::optional<device::GemmCheck> check_;  ///< the sampled host-reference check
  std::vector<std::unique_ptr<PerGpu>> per_gpu_;
  std::string algo_desc_;
  GemmKernel kernel_;
};

}  // namespace c3::cuda
