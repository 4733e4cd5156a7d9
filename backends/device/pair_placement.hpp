// backends/device/pair_placement.hpp: where an independent pair's GEMM and collective run
// on each rank under a strategy's ExecutionPlan, in stream roles every GPU backend has
// (cuda: primary-context streams and green contexts; hip: streams and CU-masked streams):
//
//   serial:                GEMM, then the collective, on one stream (work);
//   GEMM with CUs removed: the GEMM in the remainder of a partition of that many compute
//                          units (rest); the collective (cu transport) in the partition's
//                          group when it has collective_cus and partition_collective is on,
//                          else on its own stream, with a CTA/channel budget of
//                          collective_cus; on copy engines it takes no compute stream;
//   otherwise:             the GEMM on every compute unit (work), the collective on its
//                          own stream (collective) or the copy engines.
#pragma once

#include "c3/strategy.hpp"

namespace c3::device {

/// A stream role on one GPU.
enum class StreamRole {
  work,             ///< every compute unit, the GEMM's stream
  collective,       ///< every compute unit, the collective's own stream
  partition_rest,   ///< the compute units left after a partition
  partition_group,  ///< the partition's compute units
  copy_engines,     ///< no compute stream: the copy engines' per-peer streams
};

struct PairPlacement {
  StreamRole gemm = StreamRole::work;
  StreamRole collective = StreamRole::collective;
  int partition_cus = 0;      ///< compute units taken into the partition (0: none)
  int collective_budget = 0;  ///< the collective library's CTA / channel budget (0: its default)
  bool collective_first = false;  ///< launch order: the collective first
};

/// The placement of `how` (an independent pair: chunks == 1). `partition_collective`: a
/// budgeted collective also runs inside the partition's group (CudaOptions /
/// HipOptions::partition_collective).
PairPlacement place_pair(const ExecutionPlan& how, bool partition_collective);

}  // namespace c3::device
