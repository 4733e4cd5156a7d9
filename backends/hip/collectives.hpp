// backends/hip/collectives.hpp: internal to the hip backend: collective buffers with their
// input patterns and on-device checks, RCCL launches, and copy-engine (SDMA) collectives
// issued from the host with hipMemcpyPeerAsync on one stream per peer, as the ConCCL paper
// does.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "backends/device/collective_plan.hpp"
#include "backends/device/dependent_run.hpp"
#include "backends/hip/kernels.hpp"
#include "backends/hip/runtime.hpp"
#include "validator/ce_plan.hpp"

namespace c3::hip {

/// A check kernel's verdict: mismatching elements and the first mismatching index.
struct CheckResult {
  std::uint64_t mismatches = 0;
  std::uint64_t first_bad = 0;
};
/// Runs one check kernel on GPU `g`'s work stream and waits for it.
CheckResult run_check(Gpu& g, const kernels::CheckArgs& args);

/// Send and receive buffers on GPUs 0..ranks-1, inputs filled with the kind's pattern
/// (device::CollPlan sizes).
class CollBuffers {
 public:
  CollBuffers(Runtime& rt, const device::CollPlan& plan, std::uint32_t epoch);
  /// Fills every output with 0xFF bytes (a NaN pattern no input has); synchronizes.
  void poison(Runtime& rt, double timeout_s);
  /// Checks every rank's output on its GPU; returns the number of mismatching elements.
  std::int64_t check(Runtime& rt, std::string* first_error = nullptr);

  const device::CollPlan& plan() const { return plan_; }
  std::vector<DeviceBuffer> send;
  std::vector<DeviceBuffer> recv;

 private:
  device::CollPlan plan_;
  std::uint32_t epoch_ = 0;
};

/// Enqueues the collective through RCCL (NCCL on HIP's NVIDIA platform) on lanes[r], one
/// NCCL group; all_to_all as a group of send/recv pairs. Throws HipFailure("unsupported")
/// when built without RCCL.
void launch_ccl(const CollBuffers& buffers, const std::vector<Comm>& comms, const std::vector<Lane*>& lanes);

/// The collective calls of one step of a dependent pair (device::CclCall) in one group,
/// each in `dtype`; lanes[r]: rank r's stream. Throws HipFailure("unsupported") when built
/// without RCCL.
void launch_ccl(const std::vector<device::CclCall>& calls, DType dtype, const std::vector<Comm>& comms,
                const std::vector<Lane*>& lanes);

/// Throws HipFailure("unsupported") for what the copy engines cannot run here: a reduction,
/// no peer access, or a variant HIP has no API for (batch copies, graph capture).
void check_ce(const Runtime& rt, const device::CollPlan& plan, const validator::CeOptions& ce);

/// One copy on `lane`'s stream (the stream of GPU `lane_device`): hipMemcpyPeerAsync, or
/// hipMemcpyAsync when source and target are one GPU. ROCm runs both on an SDMA engine
/// (unless HSA_ENABLE_SDMA=0).
void ce_copy(void* dst, int dst_device, const void* src, int src_device, std::size_t bytes, const Lane& lane,
             int lane_device);

/// The copy-engine all_gather / all_to_all: the transfers of validator::ce_transfers on the
/// per-peer streams (Gpu::peer) of the issuing GPU (push: source; pull: target).
void launch_ce(Runtime& rt, const CollBuffers& buffers, const validator::CeOptions& ce);
/// The lanes a copy-engine collective uses (every peer stream of every rank).
std::vector<Lane*> ce_lanes(Runtime& rt, int ranks);

}  // namespace c3::hip
