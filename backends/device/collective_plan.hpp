// backends/device/collective_plan.hpp: the element counts of one collective as the GPU
// backends run it (bf16 elements, the nccl-tests size convention), the check each kind's
// output gets, the pattern roles of collective and copy buffers, and what a copy
// measurement allocates and moves.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "c3/types.hpp"
#include "c3/validator.hpp"
#include "backends/device/kernel_args.hpp"

namespace c3::device {

/// Bytes per element of the collectives' buffers (bf16).
inline constexpr std::size_t kElemBytes = 2;

/// Role numbers for pattern seeds (pattern::seed_for).
inline constexpr std::uint32_t kRoleCollective = 1;
inline constexpr std::uint32_t kRoleCopy = 2;

/// Element counts of one collective.
struct CollPlan {
  CollectiveKind kind = CollectiveKind::all_gather;
  int ranks = 0;
  std::size_t chunk = 0;       ///< c: elements per rank chunk
  std::size_t send_elems = 0;  ///< per rank
  std::size_t recv_elems = 0;  ///< per rank
  std::int64_t size_bytes = 0; ///< the size actually used (nccl-tests convention)
};

/// Rounds `size_bytes` down to whole elements per rank: all_gather's size is the gathered
/// output per rank, all_to_all's and reduce_scatter's the send buffer per rank,
/// all_reduce's the buffer. Throws Failure("unsupported") for ranks < 1, a size <= 0 or
/// smaller than one element per rank.
CollPlan plan_collective(CollectiveKind kind, std::int64_t size_bytes, int ranks);

/// The check kernel's kind for a collective's output.
CheckKind check_kind(CollectiveKind kind);

/// The fill of a collective's inputs: small integers for reductions (sums stay exact in
/// bf16), any bits for movement.
FillKind input_fill(CollectiveKind kind);

/// A lane that issues copies: GPU `gpu`'s work lane (peer < 0) or its lane to `peer`.
struct CopyLane {
  int gpu = 0;
  int peer = -1;
  friend bool operator==(const CopyLane&, const CopyLane&) = default;
};

/// One piece of a copy measurement: GPU `from`'s source buffer into destination buffer
/// `dst` (on GPU `to`) at element `dst_offset_elems`, issued on `lane`.
struct CopyPiece {
  int from = 0;
  int to = 0;
  std::size_t dst = 0;               ///< index into CopyPlan::dst_gpus
  std::size_t dst_offset_elems = 0;
  CopyLane lane;
  friend bool operator==(const CopyPiece&, const CopyPiece&) = default;
};

/// What a copy measurement (Validator::copy) allocates and moves, in bf16 elements.
/// device_local: GPU 0 into itself on its work lane; one_peer: GPU 0 into GPU 1 on GPU 0's
/// lane to 1; all_peers: every GPU pushes size/(n-1) to each peer, into its own slot (its
/// index) of the peer's n-slot buffer, on its lane to that peer.
struct CopyPlan {
  std::size_t piece_elems = 0;       ///< elements of each piece (and of each source buffer)
  std::vector<int> src_gpus;         ///< a source buffer of piece_elems on each
  std::vector<int> dst_gpus;         ///< a destination buffer of dst_elems on each
  std::size_t dst_elems = 0;
  std::vector<CopyPiece> pieces;     ///< in issue order
  std::vector<int> timed_gpus;       ///< the GPUs whose lanes are timed
  std::vector<CopyLane> timed_lanes; ///< the lanes timed, in order
  std::int64_t moved_bytes = 0;      ///< what one sender moves: the record's size
};

/// Throws Failure("unsupported") when a peer path has fewer than 2 GPUs ("peer copies need
/// at least 2 GPUs") or the size leaves no element per piece ("copy size too small").
CopyPlan plan_copy(CopyPath path, std::int64_t size_bytes, int gpus);

}  // namespace c3::device
