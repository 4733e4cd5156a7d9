// backends/cuda/dependent.cpp: dependent pairs on every rank, undecomposed or in pieces
// (dependent.hpp). The schedule (which rows each step moves, which rows each GEMM job
// computes) is validator::dependent_schedule's, everything else that is not a CUDA call
// device::DependentLayout's and device::DependentRunner's; this file only names the calls:
// NCCL or copy engines for the steps, RowGemm for the jobs, events between the streams.
#include "backends/cuda/dependent.hpp"

#include "c3/errors.hpp"
#include "backends/cuda/collectives.hpp"
#include "backends/cuda/kernels.hpp"
#include "backends/cuda/row_gemm.hpp"
#include "backends/device/dependent_runner_impl.hpp"

namespace c3::cuda {

struct DependentTypes::Calls {
  static void refuse(const device::DependentLayout&) {}
  static Lane* lane_of(device::StreamRole role, bool hi, Gpu& g, Partition* p) { return cuda::lane_of(role, hi, g, p); }
  static int compute_units(const Lane& lane) { return lane.sms; }
  static std::string ccl_name() { return "nccl"; }
  static void set_device(int device) { C3_CUDA(cudaSetDevice(device)); }
  static void nan_fill(void* p, std::size_t bytes, const Lane& lane) {
    C3_CUDA(cudaMemsetAsync(p, 0xFF, bytes, lane.stream));
  }
  static void fill(std::uint16_t* p, std::size_t count, kernels::FillKind kind, std::uint64_t seed,
                   std::uint64_t offset, const Lane& lane) {
    C3_CUDA(kernels::fill(p, count, kind, seed, offset, lane.stream));
  }
  static void to_device(void* dst, const void* src, std::size_t bytes) {
    C3_CUDA(cudaMemcpy(dst, src, bytes, cudaMemcpyHostToDevice));
  }
  static void gather16(const std::uint16_t* src, const std::int64_t* idx, std::uint16_t* dst, int count,
                       const Lane& lane) {
    C3_CUDA(kernels::gather16(src, idx, dst, count, lane.stream));
  }
  static void to_host(void* dst, const void* src, std::size_t bytes, const Lane& lane) {
    C3_CUDA(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToHost, lane.stream));
    C3_CUDA(cudaStreamSynchronize(lane.stream));
  }
  // An event in the lane's context (no lane, or a lane of the primary context: the primary
  // context of `device`); waited on from any stream (cuStreamWaitEvent takes events of other
  // contexts). make_timing_event's can be timed (trace), make_event's cannot (cheaper).
  static CUevent create_event(int device, const Lane* lane, unsigned flags) {
    const CUcontext ctx = lane ? lane->ctx : nullptr;
    if (!ctx) C3_CUDA(cudaSetDevice(device));
    ScopedContext scope(ctx);
    CUevent e = nullptr;
    C3_CU(driver().cuEventCreate(&e, flags));
    return e;
  }
  static CUevent make_event(int device, const Lane* lane) { return create_event(device, lane, CU_EVENT_DISABLE_TIMING); }
  static CUevent make_timing_event(int device, const Lane* lane) { return create_event(device, lane, CU_EVENT_DEFAULT); }
  static double elapsed_s(CUevent start, CUevent end) {
    float ms = 0;
    C3_CU(driver().cuEventElapsedTime(&ms, start, end));
    return 1e-3 * static_cast<double>(ms);
  }
  static void record(CUevent e, const Lane& lane, int device) {
    if (!lane.ctx) C3_CUDA(cudaSetDevice(device));
    ScopedContext scope(lane.ctx);
    C3_CU(driver().cuEventRecord(e, lane.stream));
  }
  static void wait(const Lane& lane, CUevent e) { C3_CU(driver().cuStreamWaitEvent(lane.stream, e, 0)); }
  static void destroy_event(CUevent e) noexcept { driver().cuEventDestroy(e); }
  static std::vector<Lane*> ce_lanes(Runtime& rt, int ranks) { return cuda::ce_lanes(rt, ranks); }
  // Host-launched: the pieces' copies are issued one by one between the GEMM jobs.
  static void ce_copy(void* dst, int dst_device, const void* src, int src_device, std::size_t bytes, const Lane& lane,
                      int lane_device, const CeOptions& options) {
    CeOptions ce = options;
    ce.launch = CeLaunch::host;
    cuda::ce_copy(dst, dst_device, src, src_device, bytes, lane, lane_device, ce);
  }
  static void ccl(const std::vector<device::CclCall>& calls, DType dtype, const std::vector<ncclComm_t>& comms,
                  const std::vector<Lane*>& lanes) {
    launch_nccl(calls, dtype == DType::fp16 ? ncclFloat16 : ncclBfloat16, comms, lanes);
  }
  static CheckResult run_check(Gpu& g, const kernels::CheckArgs& args) {
    C3_CUDA(cudaSetDevice(g.device));
    return cuda::run_check(g, args);
  }
};

DependentRun::DependentRun(Runtime& rt, const C3Pair& pair, const ExecutionPlan& how, const DependentOptions& options,
                           bool nccl_ce_selected)
    : DependentRunner(rt, pair, how, options,
                      {rt.count(), rt.peer_ok, rt.peer_note, nccl_ce_selected, kNcclCeVariant}) {}

}  // namespace c3::cuda

template class c3::device::DependentRunner<c3::cuda::DependentTypes>;
