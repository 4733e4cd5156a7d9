// backends/cuda/collectives.hpp: internal to the cuda backend: collective buffers with
// their input patterns and on-device checks, NCCL launches, and copy-engine (DMA)
// collectives issued from the host.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "c3/types.hpp"
#include "backends/cuda/cuda_backend.hpp"
#include "backends/cuda/kernels.hpp"
#include "backends/cuda/runtime.hpp"
#include "backends/device/collective_plan.hpp"
#include "backends/device/dependent_run.hpp"

namespace c3::cuda {

/// Element counts of one collective (bf16 elements, nccl-tests size convention) and the
/// pattern roles: vendor-neutral (backends/device/collective_plan.hpp).
using device::CollPlan;
using device::kRoleCollective;
using device::kRoleCopy;
using device::plan_collective;

/// A check kernel's verdict: mismatching elements and the first mismatching index.
struct CheckResult {
  std::uint64_t mismatches = 0;
  std::uint64_t first_bad = 0;
};
/// Runs one check kernel (kernels::check) on GPU `g`'s work stream and waits for it.
CheckResult run_check(Gpu& g, const kernels::CheckArgs& args);

/// Send and receive buffers on GPUs 0..ranks-1, inputs filled with the kind's pattern.
class CollBuffers {
 public:
  /// Alloc::nccl_mem: buffers NCCL can register in symmetric windows (nccl_ce).
  CollBuffers(Runtime& rt, const CollPlan& plan, std::uint32_t epoch, Alloc alloc = Alloc::cuda_malloc);
  /// Fills every output with 0xFF bytes (a NaN pattern no input has); synchronizes.
  void poison(Runtime& rt, double timeout_s);
  /// Checks every rank's output on its GPU; returns the number of mismatching elements.
  std::int64_t check(Runtime& rt, double timeout_s, std::string* first_error = nullptr);

  const CollPlan& plan() const { return plan_; }
  std::vector<DeviceBuffer> send;
  std::vector<DeviceBuffer> recv;

 private:
  CollPlan plan_;
  std::uint32_t epoch_ = 0;
};

/// Enqueues the NCCL collective on lanes[r] (one per rank) in one NCCL group. all_to_all is
/// a group of ncclSend/ncclRecv, or ncclAlltoAll with `alltoall_api` (NCCL's copy-engine
/// path implements only the latter).
void launch_nccl(const CollBuffers& buffers, const std::vector<ncclComm_t>& comms,
                 const std::vector<Lane*>& lanes, bool alltoall_api = false);

/// Runs `issue` (the NCCL calls of one group) between ncclGroupStart and ncclGroupEnd; when
/// a call throws, the group is ended before the exception goes on.
template <class Issue>
void nccl_group(Issue&& issue) {
  C3_NCCL(ncclGroupStart());
  try {
    issue();
  } catch (...) {
    ncclGroupEnd();
    throw;
  }
  C3_NCCL(ncclGroupEnd());
}

/// The collective calls of one step of a dependent pair (device::CclCall) in one group;
/// lanes[r]: rank r's stream.
void launch_nccl(const std::vector<device::CclCall>& calls, ncclDataType_t type, const std::vector<ncclComm_t>& comms,
                 const std::vector<Lane*>& lanes);

/// Copy-engine all_gather / all_to_all issued from the host: the transfers of
/// validator::ce_transfers on the per-peer streams (Gpu::peer) of the issuing GPU (push:
/// source; pull: target); the local piece on the GPU's own peer[self] stream. Ignores
/// ce.launch (see CeCollective).
void launch_ce(Runtime& rt, const CollBuffers& buffers, const CeOptions& ce);
/// The lanes a copy-engine collective uses (every peer stream of every rank).
std::vector<Lane*> ce_lanes(Runtime& rt, int ranks);

/// One copy on `lane`'s stream: cudaMemcpyPeerAsync (cudaMemcpyAsync when local, and with
/// cudaMemcpyDefault under CeLaunch::graph: the peer call cannot be captured) or a one-entry
/// cudaMemcpyBatchAsync.
void ce_copy(void* dst, int dst_device, const void* src, int src_device, std::size_t bytes,
             const Lane& lane, int lane_device, const CeOptions& ce);

/// A copy-engine collective ready to launch many times on the same buffers. Host launch:
/// every launch() issues the transfers (launch_ce). Graph launch (CeLaunch::graph): the
/// constructor captures the transfers once into one multi-GPU CUDA graph (fork/join through
/// events from GPU 0's local stream) and every launch() is one cudaGraphLaunch on that
/// stream. Throws CudaFailure (unsupported kind, no peer access, capture refused).
class CeCollective {
 public:
  CeCollective(Runtime& rt, const CollBuffers& buffers, const CeOptions& ce);
  ~CeCollective();
  CeCollective(const CeCollective&) = delete;
  CeCollective& operator=(const CeCollective&) = delete;
  void launch();

 private:
  void capture();
  void release() noexcept;
  Runtime& rt_;
  const CollBuffers& buffers_;
  CeOptions ce_;
  cudaGraphExec_t exec_ = nullptr;
  std::vector<std::pair<int, cudaEvent_t>> events_;
};

/// The name of NCCL's own copy-engine path as a dma variant.
inline constexpr const char* kNcclCeVariant = "nccl_ce";

/// The dma transport of one measurement on `buffers`: a CeCollective, or (nccl_ce) NCCL
/// 2.28's copy-engine path: communicators with CTAPolicy = NCCL_CTA_POLICY_ZERO, send and
/// receive buffers (Alloc::nccl_mem) registered in NCCL_WIN_COLL_SYMMETRIC windows, then
/// ncclAllGather / ncclAlltoAll on `nccl_lanes`. NCCL falls back to its kernels where the
/// path does not apply; docs/collectives.md says how that was told apart.
class DmaCollective {
 public:
  DmaCollective(Runtime& rt, const CollBuffers& buffers, const CeOptions& ce, bool nccl_ce,
                std::vector<Lane*> nccl_lanes);
  ~DmaCollective();
  DmaCollective(const DmaCollective&) = delete;
  DmaCollective& operator=(const DmaCollective&) = delete;
  void launch();
  /// Streams the timing engine waits on.
  std::vector<Lane*> lanes() const;
  /// Communicators to watch for asynchronous errors (nccl_ce only).
  std::vector<ncclComm_t> watch() const;

 private:
  Runtime& rt_;
  const CollBuffers& buffers_;
  std::unique_ptr<CeCollective> ce_;
  std::vector<ncclComm_t> comms_;
  std::vector<Lane*> nccl_lanes_;
  std::vector<ncclWindow_t> windows_;  ///< send and receive window per rank
};

}  // namespace c3::cuda
