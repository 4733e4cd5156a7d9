// backends/device/collective_plan.cpp: collectives' and copies' element plans (collective_plan.hpp).
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

CopyPlan plan_copy(CopyPath path, std::int64_t size_bytes, int gpus) {
  if (path != CopyPath::device_local && gpus < 2) throw Failure("unsupported", "peer copies need at least 2 GPUs");
  const std::size_t elems_total = size_bytes > 0 ? static_cast<std::size_t>(size_bytes) / kElemBytes : 0;
  CopyPlan p;
  if (path == CopyPath::device_local || path == CopyPath::one_peer) {
    const int to = path == CopyPath::device_local ? 0 : 1;
    const CopyLane lane{0, path == CopyPath::device_local ? -1 : 1};
    p.piece_elems = elems_total;
    p.src_gpus = {0};
    p.dst_gpus = {to};
    p.dst_elems = p.piece_elems;
    p.pieces = {CopyPiece{0, to, 0, 0, lane}};
    p.timed_gpus = {0};
    p.timed_lanes = {lane};
  } else {
    const auto n = static_cast<std::size_t>(gpus);
    p.piece_elems = elems_total / (n - 1);
    p.dst_elems = p.piece_elems * n;
    for (int i = 0; i < gpus; ++i) {
      p.src_gpus.push_back(i);
      p.dst_gpus.push_back(i);
      p.timed_gpus.push_back(i);
    }
    for (int i = 0; i < gpus; ++i)
      for (int j = 0; j < gpus; ++j)
        if (i != j) {
          const CopyLane lane{i, j};
          p.pieces.push_back(CopyPiece{i, j, static_cast<std::size_t>(j), static_cast<std::size_t>(i) * p.piece_elems, lane});
          p.timed_lanes.push_back(lane);
        }
  }
  if (p.piece_elems == 0) throw Failure("unsupported", "copy size too small");
  p.moved_bytes = static_cast<std::int64_t>(p.piece_elems * kElemBytes *
                                            (path == CopyPath::all_peers ? static_cast<std::size_t>(gpus - 1) : 1));
  return p;
}

}  // namespace c3::device
