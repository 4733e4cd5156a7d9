// backends/cuda/dependent.hpp: internal to the cuda backend: a dependent pair (the
// collective feeds the GEMM, or the GEMM feeds the collective) run on every rank as the
// schedule validator::dependent_schedule lists: undecomposed on one stream (serial), or
// decomposed in pieces on two streams that wait for each other through events (chunked,
// docs/model.md §7), with the checks that its result is the undecomposed computation's.
// What is vendor-neutral (support checks, stream roles, launch order, poison ranges,
// checks and their host reference, the note) is backends/device/dependent_run.hpp's;
// this file issues it with CUDA, cuBLASLt and NCCL. cuda_validator.cpp times it with the
// same loop as every other measurement.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "c3/strategy.hpp"
#include "c3/types.hpp"
#include "c3/validator.hpp"
#include "backends/cuda/cuda_backend.hpp"
#include "backends/cuda/runtime.hpp"
#include "backends/device/dependent_run.hpp"

namespace c3::cuda {

class RowGemm;

using device::DependentOptions;
using device::DependentReport;

class DependentRun {
 public:
  /// Allocates and fills every rank's buffers, creates the events, chooses the GEMM plans.
  /// `how`: order serial (one stream, no decomposition) or collective_first with chunks >= 2
  /// (two streams per rank). Throws CudaFailure("unsupported") for what it cannot run
  /// (device::DependentLayout; and nccl_ce, which moves whole collectives only).
  DependentRun(Runtime& rt, const C3Pair& pair, const ExecutionPlan& how, const DependentOptions& options,
               bool nccl_ce_selected);
  ~DependentRun();
  DependentRun(const DependentRun&) = delete;
  DependentRun& operator=(const DependentRun&) = delete;

  /// Enqueues one run on every rank.
  void launch();
  /// Fills every output, and every row the schedule moves or stages, with 0xFF (NaN).
  void poison(double timeout_s);
  /// Checks every rank: moved A rows bitwise on device (collective_feeds_gemm), sampled
  /// outputs against a double-precision host reference. Returns the mismatches.
  std::int64_t verify(double timeout_s, std::string* first_error);

  const std::vector<int>& gpus() const { return gpus_; }
  const std::vector<Lane*>& lanes() const { return lanes_; }
  const std::vector<ncclComm_t>& watch() const { return watch_; }
  const DependentReport& report() const { return report_; }

 private:
  struct Rank;
  std::uint16_t* row_ptr(int rank, validator::DepBuffer b, std::int64_t row) const;
  void launch_step(int step);
  void launch_gemm(int rank, std::size_t job);
  void wait_for_step(int rank, int step);
  std::int64_t check_moved_rows(std::string* first_error);
  std::int64_t check_samples(std::string* first_error);

  Runtime& rt_;
  device::DependentLayout layout_;
  device::DependentCheck check_;
  const validator::DependentSchedule& sched_;
  std::vector<std::unique_ptr<Rank>> ranks_;
  // dma: per step, per copy, the event recorded after it (on its owner's peer stream).
  std::vector<std::vector<CUevent>> copy_done_;
  std::vector<int> gpus_;
  std::vector<Lane*> lanes_;
  std::vector<ncclComm_t> watch_;
  std::vector<ncclComm_t> comms_;
  DependentReport report_;
};

}  // namespace c3::cuda
