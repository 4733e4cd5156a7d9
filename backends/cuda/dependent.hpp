// backends/cuda/dependent.hpp: internal to the cuda backend: a dependent pair (the
// collective feeds the GEMM, or the GEMM feeds the collective) run on every rank as the
// schedule validator::dependent_schedule lists: undecomposed on one stream (serial), or
// decomposed in pieces on two streams that wait for each other through events (chunked,
// docs/model.md §7), with the checks that its result is the undecomposed computation's.
// What is vendor-neutral (support checks, stream roles, launch order, poison ranges,
// checks and their host reference, the note) is backends/device/dependent_run.hpp's, the
// run itself (buffers, events, launches, checks) backends/device/dependent_runner.hpp's;
// this file names its CUDA, cuBLASLt and NCCL calls. cuda_validator.cpp times it with the
// same loop as every other measurement.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "c3/strategy.hpp"
#include "c3/types.hpp"
#include "c3/validator.hpp"
#include "backends/cuda/cuda_backend.hpp"
#include "backends/cuda/runtime.hpp"
#include "backends/device/dependent_runner.hpp"

namespace c3::cuda {

class RowGemm;

using device::DependentOptions;
using device::DependentReport;

/// The types of device::DependentRunner on CUDA; its calls (DependentTypes::Calls:
/// cudaMemsetAsync, kernels::fill/gather16, cudaMemcpy, events in the lane's context,
/// ce_copy, one NCCL group per step, run_check) are dependent.cpp's.
struct DependentTypes {
  using Runtime = cuda::Runtime;
  using Gpu = cuda::Gpu;
  using Lane = cuda::Lane;
  using Partition = cuda::Partition;
  using Buffer = DeviceBuffer;
  using Gemm = RowGemm;
  using Event = CUevent;
  using Comm = ncclComm_t;
  struct Calls;
};

class DependentRun : public device::DependentRunner<DependentTypes> {
 public:
  /// device::DependentRunner on CUDA; throws CudaFailure("unsupported") for what it cannot
  /// run (device::DependentLayout; and nccl_ce, which moves whole collectives only).
  DependentRun(Runtime& rt, const C3Pair& pair, const ExecutionPlan& how, const DependentOptions& options,
               bool nccl_ce_selected);
};

}  // namespace c3::cuda

extern template class c3::device::DependentRunner<c3::cuda::DependentTypes>;
