// backends/cuda/runtime.hpp: internal to the cuda backend: the GPUs of one process, their
// streams, green-context partitions, NCCL communicators, and the CUDA calls of the timing
// loop that runs one "run" across all GPUs with a watchdog (backends/device/timing.hpp).
#pragma once

#include <cuda.h>
#include <cuda_runtime_api.h>
#include <nccl.h>

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "backends/cuda/common.hpp"
#include "backends/device/pair_placement.hpp"
#include "backends/device/runner.hpp"
#include "backends/device/timing.hpp"

namespace c3::cuda {

/// A stream and the event that marks its completion in a run. `ctx` is the green
/// context's CUcontext the stream belongs to (nullptr: the device's primary context).
struct Lane {
  int gpu = 0;  ///< index into Runtime::gpus
  cudaStream_t stream = nullptr;
  CUcontext ctx = nullptr;
  CUevent done = nullptr;  ///< created in ctx
  int sms = 0;             ///< SMs the stream's context can use
};

/// One side of a green-context split.
struct GreenSide {
  CUgreenCtx green = nullptr;
  CUcontext ctx = nullptr;
  int sms = 0;
  Lane lane;     ///< normal priority
  Lane lane_hi;  ///< highest priority
};

/// A split of one GPU's SMs: `group` holds the SMs asked for (rounded up by the driver),
/// `rest` the remainder. Collectives run in `group`, GEMMs in `rest`. `twin` is a second
/// green context on the group's SMs (created on demand, for the blocking probe).
struct Partition {
  int requested = 0;
  GreenSide group;
  GreenSide rest;
  GreenSide twin;
  CUdevResourceDesc group_desc = nullptr;
};

struct Gpu {
  int device = 0;
  CUdevice cu_device = 0;
  std::string name;
  int sms = 0;
  std::size_t l2_bytes = 0;
  std::size_t total_mem = 0;
  unsigned min_partition = 0;  ///< minSmPartitionSize
  unsigned alignment = 0;      ///< smCoscheduledAlignment
  bool green_ok = false;
  std::string green_error;
  cudaStream_t timing = nullptr;  ///< primary-context stream holding start/end events
  cudaEvent_t t_start = nullptr;
  cudaEvent_t t_end = nullptr;
  Lane work;     ///< primary-context stream for GEMMs (and serial)
  Lane coll;     ///< primary-context stream for collectives
  Lane coll_hi;  ///< the same at highest priority
  std::vector<Lane> peer;  ///< copy-engine streams, one per peer GPU index (own index: local copy)
  std::map<int, std::unique_ptr<Partition>> partitions;
  DeviceBuffer counters;  ///< 2 x u64 for check kernels
};

/// Runtime::comms' `ctas` value for communicators with NCCL_CTA_POLICY_ZERO.
inline constexpr int kCtaPolicyZero = -1;

/// Result of one timed run: device_s = max over GPUs of (end - start) on device events,
/// host_s = host clock from the first launch call to observed completion.
using device::RunTime;

class Runtime {
 public:
  explicit Runtime(int gpus_wanted);
  ~Runtime();
  Runtime(const Runtime&) = delete;
  Runtime& operator=(const Runtime&) = delete;

  std::vector<std::unique_ptr<Gpu>> gpus;
  bool peer_ok = true;          ///< every pair of GPUs can access each other
  /// The option of gated runs (CudaOptions::gate): the callers of timed() pass it on, but for
  /// a measurement's first run (RunHooks::prime).
  bool gate = false;
  /// The gate's words in mapped pinned host memory (gate_words(), allocated on first use):
  /// [0] the generation released last, [1] the generation whose blocking kernel gave up.
  int* gate_words();
  int gate_generation = 0;  ///< the generation released last
  std::string peer_note;
  int priority_high = 0;
  int priority_low = 0;

  int count() const { return static_cast<int>(gpus.size()); }
  Gpu& gpu(int i) { return *gpus.at(static_cast<std::size_t>(i)); }

  /// The driver's split for `sms` SMs taken off GPU `i` (created and cached).
  Partition& partition(int i, int sms);
  /// The driver's split sizes for `sms` without creating contexts: {group, rest}.
  std::pair<int, int> split_sizes(int i, int sms) const;
  /// Creates the twin green context of a partition (blocking probe).
  GreenSide& twin(int i, Partition& p);

  /// NCCL communicators for ranks 0..ranks-1 (GPU indices), maxCTAs = minCTAs = ctas
  /// (0: NCCL's defaults; kCtaPolicyZero: CTAPolicy = NCCL_CTA_POLICY_ZERO, the copy-engine
  /// path). Cached.
  const std::vector<ncclComm_t>& comms(int ranks, int ctas);
  /// Aborts every communicator (after a timeout).
  void abort_comms();

  /// Runs `launch` once, timed (device::timed_run): before it, on every GPU in `gpus_used`,
  /// records the start event on the timing stream and makes every lane of that GPU wait on
  /// it; after it, records every lane's done event, makes the timing stream wait on them,
  /// records the end event; then polls until all end events complete or `timeout_s` passes
  /// (then aborts NCCL, poisons the device and throws CudaFailure("timeout")). NCCL async
  /// errors of `watch` are checked while polling.
  /// `gated`: a gated run (device::GatedVendor; the option is `gate`, the first run of a
  /// measurement is not gated).
  RunTime timed(const std::vector<int>& gpus_used, const std::vector<Lane*>& lanes,
                const std::function<void()>& launch, double timeout_s,
                const std::vector<ncclComm_t>& watch, bool gated);

  /// Waits (with the same watchdog) until every stream of every GPU is idle.
  void sync_all(double timeout_s);
  /// Polls one event with a deadline.
  void wait_event(cudaEvent_t ev, double timeout_s, const char* what);

  void make_lane(Lane& lane, int gpu_index, cudaStream_t stream, CUcontext ctx, int sms);

 private:
  void create_side(Gpu& g, GreenSide& side, CUdevResource& res);
  void destroy_side(Gpu& g, GreenSide& side);
  std::map<std::pair<int, int>, std::vector<ncclComm_t>> comms_;
  int* gate_words_ = nullptr;
};

/// How long a blocking kernel waits for the host's release before it gives up (the run then
/// fails as "gate_timeout": its time would include the host's wait).
inline constexpr std::uint64_t kGateTimeout_ns = 5'000'000'000ull;

/// Current host time in seconds (steady clock).
using device::now_s;

/// The lane of a stream role on GPU g (nullptr: the copy engines' per-peer streams); `hi`:
/// the highest-priority lane of the collective's roles (coll_hi, the group's lane_hi);
/// `p`: the partition of the partition_* roles.
Lane* lane_of(device::StreamRole role, bool hi, Gpu& g, Partition* p);

}  // namespace c3::cuda
