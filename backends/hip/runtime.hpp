// backends/hip/runtime.hpp: internal to the hip backend: the GPUs of one process, their
// streams, CU-mask partitions, RCCL communicators, and the HIP calls of the timing loop
// (backends/device/timing.hpp) that runs one "run" across all GPUs with a watchdog.
#pragma once

#include <hip/hip_runtime_api.h>

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "backends/device/cu_masks.hpp"
#include "backends/device/pair_placement.hpp"
#include "backends/device/runner.hpp"
#include "backends/device/timing.hpp"
#include "backends/hip/ccl.hpp"
#include "backends/hip/common.hpp"

namespace c3::hip {

/// A stream and the event that marks its completion in a run.
struct Lane {
  int gpu = 0;  ///< index into Runtime::gpus
  hipStream_t stream = nullptr;
  hipEvent_t done = nullptr;
  int cus = 0;  ///< compute units the stream can use (0: copy-engine stream)
};

/// A split of one GPU's CUs into two CU-masked streams: `group` holds the CUs asked for
/// (rounded up to the granule, device::cu_partition), `rest` the remainder. Collectives
/// run in `group`, GEMMs in `rest`. A CU-masked stream has the default priority (HIP takes
/// a mask or a priority, not both).
struct Partition {
  device::CuPartition split;
  Lane group;
  Lane rest;
};

struct Gpu {
  int device = 0;
  std::string name;   ///< "AMD Instinct MI300X"
  std::string arch;   ///< gcnArchName, e.g. "gfx942:sramecc+:xnack-" (AMD)
  int cus = 0;
  std::size_t l2_bytes = 0;
  std::size_t total_mem = 0;
  hipStream_t timing = nullptr;  ///< holds the start/end events of a run
  hipEvent_t t_start = nullptr;
  hipEvent_t t_end = nullptr;
  Lane work;     ///< GEMMs (and serial)
  Lane coll;     ///< collectives
  Lane coll_hi;  ///< the same at the highest priority
  std::vector<Lane> peer;  ///< copy-engine (SDMA) streams, one per peer GPU index (own index: local copy)
  std::map<int, std::unique_ptr<Partition>> partitions;
  DeviceBuffer counters;  ///< 2 x u64 for check kernels
};

class Runtime {
 public:
  /// `cu_granule`: CU-mask groups are multiples of it (device::cu_partition).
  Runtime(int gpus_wanted, int cu_granule);
  ~Runtime();
  Runtime(const Runtime&) = delete;
  Runtime& operator=(const Runtime&) = delete;

  std::vector<std::unique_ptr<Gpu>> gpus;
  bool peer_ok = true;  ///< every pair of GPUs can access each other
  std::string peer_note;
  int priority_high = 0;
  int priority_low = 0;
  int cu_granule = 8;

  int count() const { return static_cast<int>(gpus.size()); }
  Gpu& gpu(int i) { return *gpus.at(static_cast<std::size_t>(i)); }

  /// True where HIP has CU masks (the AMD platform).
  static bool has_cu_masks();
  /// The partition taking `cus` CUs of GPU `i` (streams created and cached). Throws
  /// HipFailure("unsupported") without CU masks or for a size cu_partition refuses.
  Partition& partition(int i, int cus);
  /// The split sizes for `cus` without creating streams: {group, rest}.
  std::pair<int, int> split_sizes(int i, int cus) const;

  /// Communicators for ranks 0..ranks-1 with minCTAs = maxCTAs = ctas (0: the library's
  /// defaults); RCCL runs one channel per CTA, one CTA per CU. Cached. Throws
  /// HipFailure("unsupported") when built without RCCL.
  const std::vector<Comm>& comms(int ranks, int ctas);
  /// Aborts every communicator (after a timeout).
  void abort_comms();

  /// Runs `launch` once, timed (device::timed_run; see backends/device/timing.hpp), the
  /// asynchronous errors of `watch` checked while polling.
  device::RunTime timed(const std::vector<int>& gpus_used, const std::vector<Lane*>& lanes,
                        const std::function<void()>& launch, double timeout_s, const std::vector<Comm>& watch = {});
  /// Waits (with the same watchdog) until every stream of every GPU is idle.
  void sync_all(double timeout_s);
  /// Records `lane`'s done event and waits for it with the watchdog (probes).
  void finish(Lane& lane, double timeout_s);

 private:
  void make_lane(Lane& lane, int gpu_index, hipStream_t stream, int cus);
  std::map<std::pair<int, int>, std::vector<Comm>> comms_;
};

/// The lane of a stream role on GPU g (nullptr: the copy engines' per-peer streams); `hi`:
/// the collective's highest-priority stream (a CU-masked stream has the default priority:
/// `hi` does not apply to the partition's lanes); `p`: the partition of the partition_* roles.
Lane* lane_of(device::StreamRole role, bool hi, Gpu& g, Partition* p);

}  // namespace c3::hip
