// backends/device/pair_placement.cpp: an independent pair's stream roles (pair_placement.hpp).
#include "backends/device/pair_placement.hpp"

namespace c3::device {

PairPlacement place_pair(const ExecutionPlan& how, bool partition_collective) {
  PairPlacement p;
  const bool dma = how.transport == Transport::dma;
  p.collective_first = how.order == LaunchOrder::collective_first;
  if (how.order == LaunchOrder::serial) {  // one stream: GEMM, then the collective
    p.gemm = StreamRole::work;
    p.collective = StreamRole::work;
    return p;
  }
  if (how.gemm_cus_removed > 0) {  // the GEMM in the rest of a partition
    p.gemm = StreamRole::partition_rest;
    p.partition_cus = how.gemm_cus_removed;
    if (dma) {
      p.collective = StreamRole::copy_engines;
    } else if (how.collective_cus > 0) {
      p.collective = partition_collective ? StreamRole::partition_group : StreamRole::collective;
      p.collective_budget = how.collective_cus;
    } else {
      p.collective = StreamRole::collective;
    }
    return p;
  }
  p.gemm = StreamRole::work;
  p.collective = dma ? StreamRole::copy_engines : StreamRole::collective;
  return p;
}

}  // namespace c3::device
