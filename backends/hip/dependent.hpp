// backends/hip/dependent.hpp: internal to the hip backend: a dependent pair (the
// collective feeds the GEMM, or the GEMM feeds the collective) run on every rank as the
// schedule validator::dependent_schedule lists, the cuda backend's DependentRun on HIP:
// undecomposed on one stream (serial), or decomposed in pieces on two streams joined by
// hipEvents (chunked, docs/model.md §7): steps on RCCL (NCCL on HIP's NVIDIA platform) or
// hipMemcpyPeerAsync on the per-peer (SDMA) streams, the GEMM jobs on hipBLASLt
// (RowGemm), chunked:C:cu:c in a CU-masked partition. What is vendor-neutral (refusals,
// stream roles, launch order, NaN ranges, checks and their host reference, the note) is
// backends/device/dependent_run.hpp's, the run itself (buffers, events, launches, checks)
// backends/device/dependent_runner.hpp's; this file names its HIP, hipBLASLt and RCCL
// calls. hip_validator.cpp times it with the same loop as every other measurement.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "c3/strategy.hpp"
#include "c3/types.hpp"
#include "backends/device/dependent_runner.hpp"
#include "backends/hip/runtime.hpp"

namespace c3::hip {

class RowGemm;

/// The types of device::DependentRunner on HIP; its calls (DependentTypes::Calls:
/// hipMemsetAsync, kernels::fill/gather16, hipMemcpy, hipEvents, hipMemcpyPeerAsync, one
/// RCCL group per step, run_check) are dependent.cpp's.
struct DependentTypes {
  using Runtime = hip::Runtime;
  using Gpu = hip::Gpu;
  using Lane = hip::Lane;
  using Partition = hip::Partition;
  using Buffer = DeviceBuffer;
  using Gemm = RowGemm;
  using Event = hipEvent_t;
  using Comm = hip::Comm;
  struct Calls;
};

class DependentRun : public device::DependentRunner<DependentTypes> {
 public:
  /// device::DependentRunner on HIP; throws HipFailure("unsupported") for what it cannot
  /// run (device::DependentLayout), without hipBLASLt (naming it), and for steps on the cu
  /// transport without RCCL.
  DependentRun(Runtime& rt, const C3Pair& pair, const ExecutionPlan& how, const device::DependentOptions& options);
};

}  // namespace c3::hip

extern template class c3::device::DependentRunner<c3::hip::DependentTypes>;
