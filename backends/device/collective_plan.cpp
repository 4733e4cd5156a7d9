// backends/device/collective_plan.cpp: collectives' element plans (collective_plan.hpp).
#include "backends/device/collective_plan.hpp"

#include <string>

#include "backends/device/failure.hpp"

namespace c3::device {

CollPlan plan_collective(CollectiveKind kind, std::int64_t size_bytes, int ranks) {
  if (ranks < 1) throw Failure("unsupported", "a collective needs at least one rank");
  if (size_bytes <= 0) throw Failure("unsupported", "collective size must be positive");
  CollPlan p;
  p.kind = kind;
  p.ranks = ranks;
  const auto n = static_cast<std::size_t>(ranks);
  const auto elems = static_cast<std::size_t>(size_bytes) / kElemBytes;
  switch (kind) {
    case CollectiveKind::all_gather:  // size = gathered output per rank
      p.chunk = elems / n;
      p.send_elems = p.chunk;
      p.recv_elems = p.chunk * n;
      p.size_bytes = static_cast<std::int64_t>(p.recv_elems * kElemBytes);
      break;
    case CollectiveKind::all_to_all:  // size = send buffer per rank
      p.chunk = elems / n;
      p.send_elems = p.chunk * n;
      p.recv_elems = p.chunk * n;
      p.size_bytes = static_cast<std::int64_t>(p.send_elems * kElemBytes);
      break;
    case CollectiveKind::reduce_scatter:  // size = input per rank
      p.chunk = elems / n;
      p.send_elems = p.chunk * n;
      p.recv_elems = p.chunk;
      p.size_bytes = static_cast<std::int64_t>(p.send_elems * kElemBytes);
      break;
    case CollectiveKind::all_reduce:  // size = buffer per rank
      p.chunk = elems;
      p.send_elems = elems;
      p.recv_elems = elems;
      p.size_bytes = static_cast<std::int64_t>(elems * kElemBytes);
      break;
  }
  if (p.chunk == 0)
    throw Failure("unsupported", "collective of " + std::to_string(size_bytes) +
                                     " bytes is smaller than one bf16 element per rank");
  return p;
}

CheckKind check_kind(CollectiveKind kind) {
  switch (kind) {
    case CollectiveKind::all_to_all:
      return CheckKind::all_to_all;
    case CollectiveKind::reduce_scatter:
      return CheckKind::reduce_scatter;
    case CollectiveKind::all_reduce:
      return CheckKind::all_reduce;
    case CollectiveKind::all_gather:
      break;
  }
  return CheckKind::all_gather;
}

FillKind input_fill(CollectiveKind kind) {
  return kind == CollectiveKind::reduce_scatter || kind == CollectiveKind::all_reduce ? FillKind::small_int
                                                                                      : FillKind::random_bits;
}

}  // namespace c3::device
