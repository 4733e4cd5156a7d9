// backends/device/dependent_runner.hpp: a dependent pair's run on every rank, written once
// over the vendor's calls (a template, as timing.hpp is over the vendor's event calls): the
// buffers, fills, lanes, events, communicators, launch of steps and GEMM jobs, NaN fills
// and checks of the cuda and hip backends' DependentRun. What it issues is
// DependentLayout's (dependent_run.hpp); the vendor's V::Calls hold only vendor calls.
// The member definitions are in dependent_runner_impl.hpp, which only the vendor's
// dependent.cpp includes (it instantiates DependentRunner<V> explicitly).
//
// V: the vendor's types (cuda: backends/cuda/dependent.hpp, hip: backends/hip/dependent.hpp)
//   Runtime, Gpu, Lane, Partition, Buffer (DeviceBuffer), Gemm (RowGemm, with Gemm::Piece),
//   Event, Comm
// and V::Calls, its calls as static functions, defined in the vendor's dependent.cpp; each
// throws the vendor's Failure on an API error:
//   refuse(layout)            throws "unsupported" for what this build cannot run
//   lane_of(role, hi, gpu, partition) -> Lane*   (nullptr: the copy engines' streams)
//   compute_units(lane) -> int;  ccl_name() -> std::string ("nccl", "rccl")
//   set_device(device)
//   nan_fill(ptr, bytes, lane)          0xFF bytes, asynchronous on the lane's stream
//   fill(ptr, count, kind, seed, offset, lane)      a pattern (kernels::fill)
//   to_device(dst, src, bytes)          synchronous host-to-device copy
//   gather16(src, idx, dst, count, lane)  the sampled outputs (kernels::gather16)
//   to_host(dst, src, bytes, lane)      asynchronous copy on the lane's stream, then its sync
//   make_event(device, lane or nullptr) -> Event; record(event, lane, device);
//   wait(lane, event); destroy_event(event) noexcept
//   make_timing_event(device, lane) -> Event   (an event that can be timed, in the lane's context)
//   elapsed_s(start, end) -> double            (both recorded on one lane and complete)
//   ce_lanes(rt, ranks) -> std::vector<Lane*>
//   ce_copy(dst, dst_device, src, src_device, bytes, lane, lane_device, ce options)
//   ccl(calls, dtype, comms, lanes)     one group of collective calls; lanes[r]: rank r's
//   run_check(gpu, check args) -> { mismatches, first_bad }
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "backends/device/dependent_run.hpp"

namespace c3::device {

template <class V>
class DependentRunner {
 public:
  using Runtime = typename V::Runtime;
  using Lane = typename V::Lane;
  using Comm = typename V::Comm;

  /// Allocates and fills every rank's buffers, creates the events, chooses the GEMM plans.
  /// `how`: order serial (one stream, no decomposition) or collective_first with chunks >= 2
  /// (two streams per rank). Throws Failure("unsupported") for what it cannot run
  /// (DependentLayout, then V::Calls::refuse).
  DependentRunner(Runtime& rt, const C3Pair& pair, const ExecutionPlan& how, const DependentOptions& options,
                  const DependentSupport& support);
  ~DependentRunner();
  DependentRunner(const DependentRunner&) = delete;
  DependentRunner& operator=(const DependentRunner&) = delete;

  /// Enqueues one run on every rank.
  void launch();
  /// Fills every output, and every row the schedule moves or stages, with 0xFF (NaN).
  void poison(double timeout_s);
  /// Checks every rank: moved A rows bitwise on device (collective_feeds_gemm), sampled
  /// outputs against a double-precision host reference. Returns the mismatches.
  std::int64_t verify(std::string* first_error);
  /// `runs` more runs (>= 1), each with a timing event recorded at the start of every stream
  /// and after every job: when each GEMM job, step and copy ended, from the start of its
  /// stream's run, median over the runs (TimelineMark). Waits for each run up to timeout_s.
  std::vector<TimelineMark> trace(int runs, double timeout_s);

  const std::vector<int>& gpus() const { return gpus_; }
  const std::vector<Lane*>& lanes() const { return lanes_; }
  /// The communicators to watch for asynchronous errors (none on copy engines).
  const std::vector<Comm>& watch() const { return comms_; }
  const DependentReport& report() const { return report_; }

 private:
  struct Rank;
  std::uint16_t* row_ptr(int rank, validator::DepBuffer b, std::int64_t row) const;
  void launch_step(int step);
  void launch_gemm(int rank, std::size_t job);
  void wait_for_step(int rank, int step);
  std::int64_t check_moved_rows(std::string* first_error);
  std::int64_t check_samples(std::string* first_error);
  struct TraceLane;
  struct TraceMark;
  void trace_start();
  void trace_mark(Lane& lane, int device, const char* stream, int rank, int index, int peer);

  Runtime& rt_;
  DependentLayout layout_;
  DependentCheck check_;
  const validator::DependentSchedule& sched_;
  std::vector<std::unique_ptr<Rank>> ranks_;
  // dma: per step, per copy, the event recorded after it (on its issuer's peer stream).
  std::vector<std::vector<typename V::Event>> copy_done_;
  // cu: per step, its collective calls with the ranks' pointers; per rank, its collective lane.
  std::vector<std::vector<CclCall>> ccl_calls_;
  std::vector<Lane*> comm_lanes_;
  std::vector<int> gpus_;
  std::vector<Lane*> lanes_;
  std::vector<Comm> comms_;
  DependentReport report_;
  // trace(): each stream's start event, the marks in launch order (made in the first run).
  std::vector<TraceLane> trace_lanes_;
  std::vector<TraceMark> trace_marks_;
  std::size_t trace_next_ = 0;
  bool tracing_ = false;
};

/// A validator's timed job (gpus, lanes, watch, launch, poison, verify: the Job of
/// cuda_validator.cpp and hip_validator.cpp) running `dep`; `timeout_s` is read at each
/// poison. `dep` and `timeout_s` must outlive the job.
template <class Job, class V>
Job dependent_job(DependentRunner<V>& dep, const double& timeout_s) {
  Job job;
  job.gpus = dep.gpus();
  job.lanes = dep.lanes();
  job.watch = dep.watch();
  job.launch = [&dep] { dep.launch(); };
  job.poison = [&dep, &timeout_s] { dep.poison(timeout_s); };
  job.verify = [&dep](std::string* first) { return dep.verify(first); };
  return job;
}
template <class Job, class V>
Job dependent_job(DependentRunner<V>& dep, const double&& timeout_s) = delete;  // it would dangle

}  // namespace c3::device
