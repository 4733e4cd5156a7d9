// backends/device/collective_plan.hpp: the element counts of one collective as the GPU
// backends run it (bf16 elements, the nccl-tests size convention), the check each kind's
// output gets, and the pattern roles of collective and copy buffers.
#pragma once

#include <cstddef>
#include <cstdint>

#include "c3/types.hpp"
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

}  // namespace c3::device
