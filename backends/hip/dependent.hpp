// backends/hip/dependent.hpp: internal to the hip backend: a dependent pair (the
// collective feeds the GEMM, or the GEMM feeds the collective) run on every rank as the
// schedule validator::dependent_schedule lists, the cuda backend's DependentRun on HIP:
// undecomposed on one stream (serial), or decomposed in pieces on two streams joined by
// hipEvents (chunked, docs/model.md §7): steps on RCCL (NCCL on HIP's NVIDIA platform) or
// hipMemcpyPeerAsync on the per-peer (SDMA) streams, the GEMM jobs on hipBLASLt
// (RowGemm), chunked:C:cu:c in a CU-masked partition. What is vendor-neutral (refusals,
// stream roles, launch order, NaN ranges, checks and their host reference, the note) is
// backends/device/dependent_run.hpp's. hip_validator.cpp times it with the same loop as
// every other measurement.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "c3/strategy.hpp"
#include "c3/types.hpp"
#include "backends/device/dependent_run.hpp"
#include "backends/hip/runtime.hpp"

namespace c3::hip {

class DependentRun {
 public:
  /// Allocates and fills every rank's buffers, creates the events, chooses the GEMM plans.
  /// Throws HipFailure("unsupported") for what it cannot run (device::DependentLayout),
  /// without hipBLASLt (naming it), and for steps on the cu transport without RCCL.
  DependentRun(Runtime& rt, const C3Pair& pair, const ExecutionPlan& how, const device::DependentOptions& options);
  ~DependentRun();
  DependentRun(const DependentRun&) = delete;
  DependentRun& operator=(const DependentRun&) = delete;

  /// Enqueues one run on every rank.
  void launch();
  /// Fills every output, and every row the schedule moves or stages, with 0xFF (NaN).
  void poison(double timeout_s);
  /// Checks every rank: moved A rows bitwise on device (collective_feeds_gemm), sampled
  /// outputs against a double-precision host reference. Returns the mismatches.
  std::int64_t verify(std::string* first_error);

  const std::vector<int>& gpus() const { return gpus_; }
  const std::vector<Lane*>& lanes() const { return lanes_; }
  const std::vector<Comm>& watch() const { return comms_; }
  const device::DependentReport& report() const { return report_; }

 private:
  struct Rank;
  std::uint16_t* row_ptr(int rank, validator::DepBuffer b, std::int64_t row) const;
  void launch_step(int step);
  void launch_ccl_step(const validator::DepStep& st);
  void launch_gemm(int rank, std::size_t job);
  void wait_for_step(int rank, int step);

  Runtime& rt_;
  device::DependentLayout layout_;
  device::DependentCheck check_;
  const validator::DependentSchedule& sched_;
  std::vector<std::unique_ptr<Rank>> ranks_;
  // dma: per step, per copy, the event recorded after it (on its issuer's peer stream).
  std::vector<std::vector<hipEvent_t>> copy_done_;
  std::vector<int> gpus_;
  std::vector<Lane*> lanes_;
  std::vector<Comm> comms_;
  device::DependentReport report_;
};

}  // namespace c3::hip
