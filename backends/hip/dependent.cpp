// backends/hip/dependent.cpp: dependent pairs on every rank, undecomposed or in pieces
// (dependent.hpp). The schedule is validator::dependent_schedule's, everything else that
// is not a HIP call device::DependentLayout's and device::DependentRunner's; this file only
// names the calls: RCCL or SDMA peer copies for the steps, RowGemm (hipBLASLt) for the
// jobs, hipEvents between streams.
#include "backends/hip/dependent.hpp"

#include "backends/device/dependent_runner_impl.hpp"
#include "backends/hip/blaslt.hpp"
#include "backends/hip/collectives.hpp"
#include "backends/hip/gemm.hpp"
#include "backends/hip/kernels.hpp"
#include "backends/hip/row_gemm.hpp"

namespace c3::hip {

struct DependentTypes::Calls {
  static void refuse(const device::DependentLayout& layout) {
    if (!have_hipblaslt()) throw_no_hipblaslt();
    if (!layout.dma() && !C3_HIP_HAVE_RCCL)
      throw HipFailure("unsupported", "this hip backend was built without RCCL: the steps of a dependent pair on "
                                      "the cu transport cannot run (dma schedules can)");
  }
  // A CU-masked stream has the default priority: `hi` applies to the collective's own stream.
  static Lane* lane_of(device::StreamRole role, bool hi, Gpu& g, Partition* p) { return hip::lane_of(role, hi, g, p); }
  static int compute_units(const Lane& lane) { return lane.cus; }
  static std::string ccl_name() { return hip::ccl_name(); }
  static void set_device(int device) { C3_HIP(hipSetDevice(device)); }
  static void nan_fill(void* p, std::size_t bytes, const Lane& lane) {
    C3_HIP(hipMemsetAsync(p, 0xFF, bytes, lane.stream));
  }
  static void fill(std::uint16_t* p, std::size_t count, kernels::FillKind kind, std::uint64_t seed,
                   std::uint64_t offset, const Lane& lane) {
    C3_HIP(kernels::fill(p, count, kind, seed, offset, lane.stream));
  }
  static void to_device(void* dst, const void* src, std::size_t bytes) {
    C3_HIP(hipMemcpy(dst, src, bytes, hipMemcpyHostToDevice));
  }
  static void gather16(const std::uint16_t* src, const std::int64_t* idx, std::uint16_t* dst, int count,
                       const Lane& lane) {
    C3_HIP(kernels::gather16(src, idx, dst, count, lane.stream));
  }
  static void to_host(void* dst, const void* src, std::size_t bytes, const Lane& lane) {
    C3_HIP(hipMemcpyAsync(dst, src, bytes, hipMemcpyDeviceToHost, lane.stream));
    C3_HIP(hipStreamSynchronize(lane.stream));
  }
  // make_timing_event's can be timed (trace), make_event's cannot (cheaper).
  static hipEvent_t create_event(int device, unsigned flags) {
    C3_HIP(hipSetDevice(device));
    hipEvent_t e = nullptr;
    C3_HIP(hipEventCreateWithFlags(&e, flags));
    return e;
  }
  static hipEvent_t make_event(int device, const Lane*) { return create_event(device, hipEventDisableTiming); }
  static hipEvent_t make_timing_event(int device, const Lane*) { return create_event(device, hipEventDefault); }
  static double elapsed_s(hipEvent_t start, hipEvent_t end) {
    float ms = 0;
    C3_HIP(hipEventElapsedTime(&ms, start, end));
    return 1e-3 * static_cast<double>(ms);
  }
  static void record(hipEvent_t e, const Lane& lane, int device) {
    C3_HIP(hipSetDevice(device));
    C3_HIP(hipEventRecord(e, lane.stream));
  }
  static void wait(const Lane& lane, hipEvent_t e) { C3_HIP(hipStreamWaitEvent(lane.stream, e, 0)); }
  static void destroy_event(hipEvent_t e) noexcept { (void)hipEventDestroy(e); }
  static std::vector<Lane*> ce_lanes(Runtime& rt, int ranks) { return hip::ce_lanes(rt, ranks); }
  // hipMemcpyPeerAsync: HIP has one copy API (the other variants are refused up front).
  static void ce_copy(void* dst, int dst_device, const void* src, int src_device, std::size_t bytes, const Lane& lane,
                      int lane_device, const validator::CeOptions&) {
    hip::ce_copy(dst, dst_device, src, src_device, bytes, lane, lane_device);
  }
  static void ccl(const std::vector<device::CclCall>& calls, DType dtype, const std::vector<Comm>& comms,
                  const std::vector<Lane*>& lanes) {
    launch_ccl(calls, dtype, comms, lanes);
  }
  static CheckResult run_check(Gpu& g, const kernels::CheckArgs& args) { return hip::run_check(g, args); }
};

DependentRun::DependentRun(Runtime& rt, const C3Pair& pair, const ExecutionPlan& how,
                           const device::DependentOptions& options)
    : DependentRunner(rt, pair, how, options, {rt.count(), rt.peer_ok, rt.peer_note}) {}

}  // namespace c3::hip

template class c3::device::DependentRunner<c3::hip::DependentTypes>;
