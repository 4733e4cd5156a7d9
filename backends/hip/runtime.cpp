// backends/hip/runtime.cpp: GPUs, streams, CU-mask partitions, RCCL communicators and the
// HIP calls of the timing loop (runtime.hpp; the loop itself: backends/device/timing.hpp).
#include "backends/hip/runtime.hpp"

#include <cstdlib>

#if defined(__HIP_PLATFORM_AMD__)
#include <hip/hip_ext.h>
#endif

namespace c3::hip {

#if C3_HIP_HAVE_RCCL
void throw_ccl(ncclResult_t e, const char* call, const char* file, int line) {
  const char* last = ncclGetLastError(nullptr);
  std::string detail = std::string(ncclGetErrorString(e)) + " in " + where(call, file, line);
  if (last && *last) detail += ": " + std::string(last);
  throw HipFailure(std::string(ccl_name()) + "_error", detail);
}
#endif

namespace {

// NVLink multicast must stay off on the shared NVIDIA machines (HIP's NVIDIA platform runs
// NCCL there); forced for this process as the cuda backend does.
void force_safe_environment() {
  if (!amd_platform()) setenv("NCCL_NVLS_ENABLE", "0", 1);
}

}  // namespace

Runtime::Runtime(int gpus_wanted, int granule) : cu_granule(granule) {
  force_safe_environment();
  if (device_poisoned()) throw HipFailure("device_unusable", poison_reason());
  int visible = 0;
  const hipError_t e = hipGetDeviceCount(&visible);
  if (e != hipSuccess || visible == 0)
    throw HipFailure("unsupported", std::string("no HIP device (") + platform_name() + " platform): " +
                                        (e == hipSuccess ? "none visible" : hipGetErrorString(e)));
  const int want = gpus_wanted > 0 ? gpus_wanted : visible;
  if (want > visible)
    throw HipFailure("unsupported", "asked for " + std::to_string(want) + " GPUs, " + std::to_string(visible) +
                                        " visible");
  for (int i = 0; i < want; ++i) {
    auto g = std::make_unique<Gpu>();
    g->device = i;
    C3_HIP(hipSetDevice(i));
    hipDeviceProp_t prop{};
    C3_HIP(hipGetDeviceProperties(&prop, i));
    g->name = prop.name;
#if defined(__HIP_PLATFORM_AMD__)
    g->arch = prop.gcnArchName;
#endif
    g->cus = prop.multiProcessorCount;
    g->l2_bytes = static_cast<std::size_t>(prop.l2CacheSize);
    g->total_mem = prop.totalGlobalMem;
    if (i == 0) C3_HIP(hipDeviceGetStreamPriorityRange(&priority_low, &priority_high));
    C3_HIP(hipStreamCreateWithFlags(&g->timing, hipStreamNonBlocking));
    C3_HIP(hipEventCreate(&g->t_start));
    C3_HIP(hipEventCreate(&g->t_end));
    gpus.push_back(std::move(g));
    Gpu& gg = *gpus.back();
    hipStream_t s = nullptr;
    C3_HIP(hipStreamCreateWithPriority(&s, hipStreamNonBlocking, priority_low));
    make_lane(gg.work, i, s, gg.cus);
    C3_HIP(hipStreamCreateWithPriority(&s, hipStreamNonBlocking, priority_low));
    make_lane(gg.coll, i, s, gg.cus);
    C3_HIP(hipStreamCreateWithPriority(&s, hipStreamNonBlocking, priority_high));
    make_lane(gg.coll_hi, i, s, gg.cus);
    gg.peer.resize(static_cast<std::size_t>(want));
    for (int j = 0; j < want; ++j) {
      C3_HIP(hipStreamCreateWithPriority(&s, hipStreamNonBlocking, priority_low));
      make_lane(gg.peer[static_cast<std::size_t>(j)], i, s, 0);
    }
    gg.counters = DeviceBuffer(i, 2 * sizeof(unsigned long long));
  }
  // Peer access between every pair (SDMA engines write straight into the peer's memory).
  for (int i = 0; i < want; ++i)
    for (int j = 0; j < want; ++j) {
      if (i == j) continue;
      int can = 0;
      C3_HIP(hipDeviceCanAccessPeer(&can, i, j));
      if (!can) {
        peer_ok = false;
        peer_note += "GPU " + std::to_string(i) + " cannot access GPU " + std::to_string(j) + "; ";
        continue;
      }
      C3_HIP(hipSetDevice(i));
      const hipError_t pe = hipDeviceEnablePeerAccess(j, 0);
      if (pe != hipSuccess) (void)hipGetLastError();
      if (pe != hipSuccess && pe != hipErrorPeerAccessAlreadyEnabled) {
        peer_ok = false;
        peer_note += "enabling peer access " + std::to_string(i) + "->" + std::to_string(j) + " failed: " +
                     hipGetErrorName(pe) + "; ";
      }
    }
  if (peer_ok) peer_note = want > 1 ? "peer access enabled between every pair" : "single GPU";
}

Runtime::~Runtime() {
  const bool poisoned = device_poisoned();
  if (!poisoned) {
    try {
      sync_all(30);
    } catch (...) {
    }
  }
#if C3_HIP_HAVE_RCCL
  if (poisoned || device_poisoned()) {
    abort_comms();
  } else {
    for (auto& [key, set] : comms_) {
      ncclGroupStart();
      for (auto c : set)
        if (c) ncclCommFinalize(c);
      ncclGroupEnd();
      for (auto c : set)
        if (c) ncclCommDestroy(c);
    }
    comms_.clear();
  }
#endif
  for (auto& gp : gpus) {
    Gpu& g = *gp;
    (void)hipSetDevice(g.device);
    auto drop = [](Lane& l) {
      if (l.stream) (void)hipStreamDestroy(l.stream);
      if (l.done) (void)hipEventDestroy(l.done);
      l.stream = nullptr;
      l.done = nullptr;
    };
    for (auto& [k, p] : g.partitions) {
      drop(p->group);
      drop(p->rest);
    }
    g.partitions.clear();
    drop(g.work);
    drop(g.coll);
    drop(g.coll_hi);
    for (auto& l : g.peer) drop(l);
    if (g.t_start) (void)hipEventDestroy(g.t_start);
    if (g.t_end) (void)hipEventDestroy(g.t_end);
    if (g.timing) (void)hipStreamDestroy(g.timing);
    g.counters.reset();
  }
}

void Runtime::make_lane(Lane& lane, int gpu_index, hipStream_t stream, int cus) {
  lane.gpu = gpu_index;
  lane.stream = stream;
  lane.cus = cus;
  C3_HIP(hipSetDevice(gpu(gpu_index).device));
  C3_HIP(hipEventCreateWithFlags(&lane.done, hipEventDisableTiming));
}

bool Runtime::has_cu_masks() { return amd_platform(); }

std::pair<int, int> Runtime::split_sizes(int i, int cus) const {
  const device::CuPartition p = device::cu_partition(gpus.at(static_cast<std::size_t>(i))->cus, cus, cu_granule);
  return {p.group, p.rest};
}

Partition& Runtime::partition(int i, int cus) {
  Gpu& g = gpu(i);
  auto it = g.partitions.find(cus);
  if (it != g.partitions.end()) return *it->second;
  if (!has_cu_masks())
    throw HipFailure("unsupported", std::string("CU masks (hipExtStreamCreateWithCUMask) exist on AMD GPUs only; "
                                                "this build runs on HIP's ") + platform_name() + " platform");
  auto p = std::make_unique<Partition>();
  p->split = device::cu_partition(g.cus, cus, cu_granule);
#if defined(__HIP_PLATFORM_AMD__)
  C3_HIP(hipSetDevice(g.device));
  hipStream_t s = nullptr;
  C3_HIP(hipExtStreamCreateWithCUMask(&s, static_cast<std::uint32_t>(p->split.group_mask.size()),
                                      p->split.group_mask.data()));
  make_lane(p->group, i, s, p->split.group);
  C3_HIP(hipExtStreamCreateWithCUMask(&s, static_cast<std::uint32_t>(p->split.rest_mask.size()),
                                      p->split.rest_mask.data()));
  make_lane(p->rest, i, s, p->split.rest);
#endif
  return *g.partitions.emplace(cus, std::move(p)).first->second;
}

const std::vector<Comm>& Runtime::comms(int ranks, int ctas) {
  const auto key = std::make_pair(ranks, ctas);
  auto it = comms_.find(key);
  if (it != comms_.end()) return it->second;
  if (device_poisoned()) throw HipFailure("device_unusable", poison_reason());
  if (ranks > count())
    throw HipFailure("unsupported", std::to_string(ranks) + " ranks but " + std::to_string(count()) + " GPUs");
#if C3_HIP_HAVE_RCCL
  ncclUniqueId id;
  C3_CCL(ncclGetUniqueId(&id));
  std::vector<Comm> set(static_cast<std::size_t>(ranks), nullptr);
  std::vector<ncclConfig_t> configs(static_cast<std::size_t>(ranks));
  C3_CCL(ncclGroupStart());
  ncclResult_t first = ncclSuccess;
  for (int r = 0; r < ranks; ++r) {
    ncclConfig_t cfg = NCCL_CONFIG_INITIALIZER;
    if (ctas > 0) {
      cfg.minCTAs = ctas;
      cfg.maxCTAs = ctas;
    }
    configs[static_cast<std::size_t>(r)] = cfg;
    (void)hipSetDevice(gpu(r).device);
    const ncclResult_t res =
        ncclCommInitRankConfig(&set[static_cast<std::size_t>(r)], ranks, id, r, &configs[static_cast<std::size_t>(r)]);
    if (res != ncclSuccess && first == ncclSuccess) first = res;
  }
  const ncclResult_t end = ncclGroupEnd();
  if (first != ncclSuccess || end != ncclSuccess) {
    for (auto c : set)
      if (c) ncclCommAbort(c);
    throw_ccl(first != ncclSuccess ? first : end, "ncclCommInitRankConfig (group)", __FILE__, __LINE__);
  }
  return comms_.emplace(key, std::move(set)).first->second;
#else
  (void)ctas;
  throw HipFailure("unsupported", "this hip backend was built without RCCL (C3_HIP_RCCL=OFF): collectives run on "
                                  "the copy engines (dma) only");
#endif
}

void Runtime::abort_comms() {
#if C3_HIP_HAVE_RCCL
  for (auto& [key, set] : comms_)
    for (auto c : set)
      if (c) ncclCommAbort(c);
#endif
  comms_.clear();
}

namespace {

// The HIP calls of device::timed_run: events on each GPU's timing stream, the lanes' done
// events, RCCL's asynchronous errors.
struct HipTimed {
  Runtime& rt;
  const std::vector<Comm>& watch;

  void check_usable() {
    if (device_poisoned()) throw HipFailure("device_unusable", poison_reason());
  }
  void record_start(int gi) {
    Gpu& g = rt.gpu(gi);
    C3_HIP(hipSetDevice(g.device));
    C3_HIP(hipEventRecord(g.t_start, g.timing));
  }
  void wait_start(Lane& l) {
    C3_HIP(hipSetDevice(rt.gpu(l.gpu).device));
    C3_HIP(hipStreamWaitEvent(l.stream, rt.gpu(l.gpu).t_start, 0));
  }
  void join(Lane& l) {
    Gpu& g = rt.gpu(l.gpu);
    C3_HIP(hipSetDevice(g.device));
    C3_HIP(hipEventRecord(l.done, l.stream));
    C3_HIP(hipStreamWaitEvent(g.timing, l.done, 0));
  }
  void record_end(int gi) {
    Gpu& g = rt.gpu(gi);
    C3_HIP(hipSetDevice(g.device));
    C3_HIP(hipEventRecord(g.t_end, g.timing));
  }
  bool end_ready(int gi) {
    const hipError_t q = hipEventQuery(rt.gpu(gi).t_end);
    if (q == hipErrorNotReady) return false;
    if (q != hipSuccess) throw_hip(q, "hipEventQuery(end)", __FILE__, __LINE__);
    return true;
  }
  bool watches_async() { return !watch.empty(); }
  void check_async() {
#if C3_HIP_HAVE_RCCL
    for (auto c : watch) {
      ncclResult_t async = ncclSuccess;
      if (ncclCommGetAsyncError(c, &async) == ncclSuccess && async != ncclSuccess && async != ncclInProgress) {
        poison_device(std::string(ccl_name()) + " async error");
        rt.abort_comms();
        throw_ccl(async, "ncclCommGetAsyncError (during run)", __FILE__, __LINE__);
      }
    }
#endif
  }
  [[noreturn]] void timed_out(const std::string& why) {
    poison_device("timeout: " + why);
    rt.abort_comms();
    throw HipFailure("timeout", why);
  }
  double elapsed_s(int gi) {
    float ms = 0;
    C3_HIP(hipEventElapsedTime(&ms, rt.gpu(gi).t_start, rt.gpu(gi).t_end));
    return static_cast<double>(ms) * 1e-3;
  }
};

}  // namespace

device::RunTime Runtime::timed(const std::vector<int>& gpus_used, const std::vector<Lane*>& lanes,
                               const std::function<void()>& launch, double timeout_s, const std::vector<Comm>& watch) {
  HipTimed vendor{*this, watch};
  return device::timed_run(vendor, gpus_used, lanes, launch, timeout_s);
}

void Runtime::sync_all(double timeout_s) {
  if (device_poisoned()) throw HipFailure("device_unusable", poison_reason());
  std::vector<hipStream_t> streams;
  for (auto& gp : gpus) {
    Gpu& g = *gp;
    for (hipStream_t s : {g.timing, g.work.stream, g.coll.stream, g.coll_hi.stream}) streams.push_back(s);
    for (auto& l : g.peer) streams.push_back(l.stream);
    for (auto& [k, p] : g.partitions) {
      streams.push_back(p->group.stream);
      streams.push_back(p->rest.stream);
    }
  }
  const double deadline = device::now_s() + timeout_s;
  for (hipStream_t s : streams)
    device::poll_until(
        [&] {
          const hipError_t q = hipStreamQuery(s);
          if (q == hipSuccess) return true;
          if (q != hipErrorNotReady) throw_hip(q, "hipStreamQuery", __FILE__, __LINE__);
          return false;
        },
        deadline,
        [&] {
          poison_device("timeout while synchronizing");
          abort_comms();
          throw HipFailure("timeout", "streams did not drain within " + std::to_string(timeout_s) + " s");
        });
}

void Runtime::finish(Lane& lane, double timeout_s) {
  C3_HIP(hipSetDevice(gpu(lane.gpu).device));
  C3_HIP(hipEventRecord(lane.done, lane.stream));
  device::poll_until(
      [&] {
        const hipError_t q = hipEventQuery(lane.done);
        if (q == hipSuccess) return true;
        if (q != hipErrorNotReady) throw_hip(q, "hipEventQuery(lane)", __FILE__, __LINE__);
        return false;
      },
      device::now_s() + timeout_s,
      [&] {
        poison_device("timeout in a probe");
        abort_comms();
        throw HipFailure("timeout", "probe did not complete within " + std::to_string(timeout_s) + " s");
      });
}

Lane* lane_of(device::StreamRole role, bool hi, Gpu& g, Partition* p) {
  switch (role) {
    case device::StreamRole::work:
      return &g.work;
    case device::StreamRole::collective:
      return hi ? &g.coll_hi : &g.coll;
    case device::StreamRole::partition_rest:
      return &p->rest;
    case device::StreamRole::partition_group:
      return &p->group;
    case device::StreamRole::copy_engines:
      break;
  }
  return nullptr;
}

}  // namespace c3::hip
