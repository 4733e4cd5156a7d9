// validator/cuda/collectives.hpp: internal to the cuda backend: collective buffers with
// their input patterns and on-device checks, NCCL launches, and copy-engine (DMA)
// collectives issued from the host.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "c3/types.hpp"
#include "validator/cuda/cuda_backend.hpp"
#include "validator/cuda/runtime.hpp"

namespace c3::cuda {

/// Element counts of one collective (bf16 elements, nccl-tests size convention).
struct CollPlan {
  CollectiveKind kind = CollectiveKind::all_gather;
  int ranks = 0;
  std::size_t chunk = 0;       ///< c: elements per rank chunk
  std::size_t send_elems = 0;  ///< per rank
  std::size_t recv_elems = 0;  ///< per rank
  std::int64_t size_bytes = 0; ///< the size actually used (nccl-tests convention)
};

/// Rounds `size_bytes` down to whole elements per rank. Throws CudaFailure("unsupported")
/// when it is smaller than one element per rank.
CollPlan plan_collective(CollectiveKind kind, std::int64_t size_bytes, int ranks);

/// Role numbers for pattern seeds.
inline constexpr std::uint32_t kRoleCollective = 1;
inline constexpr std::uint32_t kRoleCopy = 2;

/// Send and receive buffers on GPUs 0..ranks-1, inputs filled with the kind's pattern.
class CollBuffers {
 public:
  CollBuffers(Runtime& rt, const CollPlan& plan, std::uint32_t epoch);
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

/// Enqueues the NCCL collective on lanes[r] (one per rank) in one NCCL group.
void launch_nccl(const CollBuffers& buffers, const std::vector<ncclComm_t>& comms,
                 const std::vector<Lane*>& lanes);

/// Copy-engine all_gather / all_to_all: one transfer per (source, target) pair on the
/// per-peer streams (Gpu::peer) of the issuing GPU (push: source; pull: target), split in
/// `ce.chunks` pieces; the local piece on the GPU's own peer[self] stream.
void launch_ce(Runtime& rt, const CollBuffers& buffers, const CeOptions& ce);
/// The lanes a copy-engine collective uses (every peer stream of every rank).
std::vector<Lane*> ce_lanes(Runtime& rt, int ranks);

/// One copy on `lane`'s stream: cudaMemcpyPeerAsync or a one-entry cudaMemcpyBatchAsync.
void ce_copy(void* dst, int dst_device, const void* src, int src_device, std::size_t bytes,
             const Lane& lane, int lane_device, const CeOptions& ce, int chunks);

}  // namespace c3::cuda
