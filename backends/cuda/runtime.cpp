// backends/cuda/runtime.cpp: GPUs, streams, green contexts, NCCL communicators and the
// CUDA calls of the timing loop (runtime.hpp; the loop itself: backends/device/timing.hpp).
#include "backends/cuda/runtime.hpp"

#include "backends/cuda/kernels.hpp"

#include <atomic>
#include <chrono>
#include <limits>
#include <cstdlib>
#include <thread>

namespace c3::cuda {

namespace {

// NVLink multicast must stay off on the shared machines (GPU.md): forced here too, so that
// a caller's environment cannot turn it on for this process's NCCL.
void force_safe_environment() {
  setenv("NCCL_NVLS_ENABLE", "0", 1);
  setenv("TORCH_SYMM_MEM_DISABLE_MULTICAST", "1", 1);
  setenv("NVSHMEM_DISABLE_NVLS", "1", 1);
}

}  // namespace

Runtime::Runtime(int gpus_wanted) {
  force_safe_environment();
  if (device_poisoned()) throw CudaFailure("device_unusable", poison_reason());
  C3_CU(driver().cuInit(0));
  int visible = 0;
  const cudaError_t e = cudaGetDeviceCount(&visible);
  if (e != cudaSuccess || visible == 0)
    throw CudaFailure("unsupported", std::string("no CUDA device: ") +
                                         (e == cudaSuccess ? "none visible" : cudaGetErrorString(e)));
  const int want = gpus_wanted > 0 ? gpus_wanted : visible;
  if (want > visible)
    throw CudaFailure("unsupported", "asked for " + std::to_string(want) + " GPUs, " +
                                         std::to_string(visible) + " visible");
  for (int i = 0; i < want; ++i) {
    auto g = std::make_unique<Gpu>();
    g->device = i;
    C3_CUDA(cudaSetDevice(i));
    C3_CUDA(cudaFree(nullptr));  // create the primary context now
    cudaDeviceProp prop{};
    C3_CUDA(cudaGetDeviceProperties(&prop, i));
    g->name = prop.name;
    g->sms = prop.multiProcessorCount;
    g->l2_bytes = static_cast<std::size_t>(prop.l2CacheSize);
    g->total_mem = prop.totalGlobalMem;
    C3_CU(driver().cuDeviceGet(&g->cu_device, i));
    CUdevResource res{};
    const CUresult gr = driver().cuDeviceGetDevResource(g->cu_device, &res, CU_DEV_RESOURCE_TYPE_SM);
    if (gr == CUDA_SUCCESS) {
      g->green_ok = true;
      g->min_partition = res.sm.minSmPartitionSize;
      g->alignment = res.sm.smCoscheduledAlignment;
    } else {
      const char* name = nullptr;
      driver().cuGetErrorName(gr, &name);
      g->green_error = std::string("cuDeviceGetDevResource: ") + (name ? name : "?");
    }
    if (i == 0) C3_CUDA(cudaDeviceGetStreamPriorityRange(&priority_low, &priority_high));
    C3_CUDA(cudaStreamCreateWithFlags(&g->timing, cudaStreamNonBlocking));
    C3_CUDA(cudaEventCreate(&g->t_start));
    C3_CUDA(cudaEventCreate(&g->t_end));
    gpus.push_back(std::move(g));
    Gpu& gg = *gpus.back();
    cudaStream_t s = nullptr;
    C3_CUDA(cudaStreamCreateWithPriority(&s, cudaStreamNonBlocking, priority_low));
    make_lane(gg.work, i, s, nullptr, gg.sms);
    C3_CUDA(cudaStreamCreateWithPriority(&s, cudaStreamNonBlocking, priority_low));
    make_lane(gg.coll, i, s, nullptr, gg.sms);
    C3_CUDA(cudaStreamCreateWithPriority(&s, cudaStreamNonBlocking, priority_high));
    make_lane(gg.coll_hi, i, s, nullptr, gg.sms);
    gg.peer.resize(static_cast<std::size_t>(want));
    for (int j = 0; j < want; ++j) {
      C3_CUDA(cudaSetDevice(i));
      C3_CUDA(cudaStreamCreateWithPriority(&s, cudaStreamNonBlocking, priority_low));
      make_lane(gg.peer[static_cast<std::size_t>(j)], i, s, nullptr, 0);
    }
    gg.counters = DeviceBuffer(i, 2 * sizeof(unsigned long long));
  }
  // Peer access between every pair (copy engines write straight into the peer's memory).
  for (int i = 0; i < want; ++i) {
    for (int j = 0; j < want; ++j) {
      if (i == j) continue;
      int can = 0;
      C3_CUDA(cudaDeviceCanAccessPeer(&can, i, j));
      if (!can) {
        peer_ok = false;
        peer_note += "GPU " + std::to_string(i) + " cannot access GPU " + std::to_string(j) + "; ";
        continue;
      }
      C3_CUDA(cudaSetDevice(i));
      const cudaError_t pe = cudaDeviceEnablePeerAccess(j, 0);
      if (pe == cudaErrorPeerAccessAlreadyEnabled) {
        cudaGetLastError();
      } else if (pe != cudaSuccess) {
        cudaGetLastError();
        peer_ok = false;
        peer_note += "enabling peer access " + std::to_string(i) + "->" + std::to_string(j) +
                     " failed: " + cudaGetErrorName(pe) + "; ";
      }
    }
  }
  if (peer_ok) peer_note = want > 1 ? "peer access enabled between every pair" : "single GPU";
}

Runtime::~Runtime() {
  // A blocking kernel still waiting (a run that never released it) must not hold the drain.
  if (gate_words_) std::atomic_ref<int>(gate_words_[0]).store(std::numeric_limits<int>::max());
  const bool poisoned = device_poisoned();
  if (!poisoned) {
    try {
      sync_all(30);
    } catch (...) {
    }
  }
  if (poisoned || device_poisoned()) {
    abort_comms();
  } else {
    // Finalize all communicators of one set together (they synchronize with each other),
    // then destroy.
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
  for (auto& gp : gpus) {
    Gpu& g = *gp;
    cudaSetDevice(g.device);
    auto drop_lane = [](Lane& l) {
      if (l.stream) driver().cuStreamDestroy(l.stream);
      if (l.done) driver().cuEventDestroy(l.done);
      l.stream = nullptr;
      l.done = nullptr;
    };
    for (auto& [k, p] : g.partitions) {
      for (GreenSide* side : {&p->group, &p->rest, &p->twin}) {
        if (!side->green) continue;
        {
          ScopedContext scope(side->ctx);
          drop_lane(side->lane);
          drop_lane(side->lane_hi);
        }
        driver().cuGreenCtxDestroy(side->green);
        side->green = nullptr;
      }
    }
    g.partitions.clear();
    cudaSetDevice(g.device);
    drop_lane(g.work);
    drop_lane(g.coll);
    drop_lane(g.coll_hi);
    for (auto& l : g.peer) drop_lane(l);
    if (g.t_start) cudaEventDestroy(g.t_start);
    if (g.t_end) cudaEventDestroy(g.t_end);
    if (g.timing) cudaStreamDestroy(g.timing);
    g.counters.reset();
  }
  // Freed only when every stream drained: a poisoned device may still run a blocking kernel.
  if (gate_words_ && !poisoned && !device_poisoned()) cudaFreeHost(gate_words_);
}

int* Runtime::gate_words() {
  if (!gate_words_) {
    void* p = nullptr;
    C3_CUDA(cudaSetDevice(gpu(0).device));
    C3_CUDA(cudaHostAlloc(&p, 2 * sizeof(int), cudaHostAllocPortable | cudaHostAllocMapped));
    gate_words_ = static_cast<int*>(p);
    gate_words_[0] = gate_generation;
    gate_words_[1] = 0;
  }
  return gate_words_;
}

void Runtime::make_lane(Lane& lane, int gpu_index, cudaStream_t stream, CUcontext ctx, int sms) {
  lane.gpu = gpu_index;
  lane.stream = stream;
  lane.ctx = ctx;
  lane.sms = sms;
  if (!ctx) C3_CUDA(cudaSetDevice(gpu(gpu_index).device));
  ScopedContext scope(ctx);
  C3_CU(driver().cuEventCreate(&lane.done, CU_EVENT_DISABLE_TIMING));
}

void Runtime::create_side(Gpu& g, GreenSide& side, CUdevResource& res) {
  CUdevResourceDesc desc = nullptr;
  C3_CU(driver().cuDevResourceGenerateDesc(&desc, &res, 1));
  C3_CU(driver().cuGreenCtxCreate(&side.green, desc, g.cu_device, CU_GREEN_CTX_DEFAULT_STREAM));
  C3_CU(driver().cuCtxFromGreenCtx(&side.ctx, side.green));
  side.sms = static_cast<int>(res.sm.smCount);
  const int gi = [&] {
    for (int i = 0; i < count(); ++i)
      if (gpus[static_cast<std::size_t>(i)].get() == &g) return i;
    return 0;
  }();
  CUstream s = nullptr;
  C3_CU(driver().cuGreenCtxStreamCreate(&s, side.green, CU_STREAM_NON_BLOCKING, priority_low));
  make_lane(side.lane, gi, s, side.ctx, side.sms);
  C3_CU(driver().cuGreenCtxStreamCreate(&s, side.green, CU_STREAM_NON_BLOCKING, priority_high));
  make_lane(side.lane_hi, gi, s, side.ctx, side.sms);
}

namespace {

struct SmSplit {
  CUdevResource group{};
  CUdevResource rest{};
};

// The driver's split of `g`'s SMs into a group of at least `sms` and the rest.
SmSplit split_sms(const Gpu& g, int sms) {
  if (!g.green_ok) throw CudaFailure("unsupported", "green contexts unavailable: " + g.green_error);
  CUdevResource input{};
  C3_CU(driver().cuDeviceGetDevResource(g.cu_device, &input, CU_DEV_RESOURCE_TYPE_SM));
  SmSplit split;
  unsigned groups = 1;
  C3_CU(driver().cuDevSmResourceSplitByCount(&split.group, &groups, &input, &split.rest, 0,
                                             static_cast<unsigned>(sms)));
  if (groups < 1) throw CudaFailure("unsupported", "no green-context group of " + std::to_string(sms) + " SMs");
  return split;
}

}  // namespace

std::pair<int, int> Runtime::split_sizes(int i, int sms) const {
  const SmSplit split = split_sms(*gpus.at(static_cast<std::size_t>(i)), sms);
  return {static_cast<int>(split.group.sm.smCount), static_cast<int>(split.rest.sm.smCount)};
}

Partition& Runtime::partition(int i, int sms) {
  Gpu& g = gpu(i);
  auto it = g.partitions.find(sms);
  if (it != g.partitions.end()) return *it->second;
  if (sms <= 0 || sms >= g.sms)
    throw CudaFailure("unsupported", "cannot take " + std::to_string(sms) + " of " +
                                         std::to_string(g.sms) + " SMs into a partition");
  C3_CUDA(cudaSetDevice(g.device));
  SmSplit split = split_sms(g, sms);
  if (split.rest.sm.smCount == 0)
    throw CudaFailure("unsupported", "the driver made no split of " + std::to_string(sms) + " SMs");
  auto p = std::make_unique<Partition>();
  p->requested = sms;
  create_side(g, p->group, split.group);
  create_side(g, p->rest, split.rest);
  C3_CU(driver().cuDevResourceGenerateDesc(&p->group_desc, &split.group, 1));
  return *g.partitions.emplace(sms, std::move(p)).first->second;
}

GreenSide& Runtime::twin(int i, Partition& p) {
  if (p.twin.green) return p.twin;
  Gpu& g = gpu(i);
  C3_CUDA(cudaSetDevice(g.device));
  C3_CU(driver().cuGreenCtxCreate(&p.twin.green, p.group_desc, g.cu_device, CU_GREEN_CTX_DEFAULT_STREAM));
  C3_CU(driver().cuCtxFromGreenCtx(&p.twin.ctx, p.twin.green));
  p.twin.sms = p.group.sms;
  CUstream s = nullptr;
  C3_CU(driver().cuGreenCtxStreamCreate(&s, p.twin.green, CU_STREAM_NON_BLOCKING, priority_low));
  make_lane(p.twin.lane, i, s, p.twin.ctx, p.twin.sms);
  C3_CU(driver().cuGreenCtxStreamCreate(&s, p.twin.green, CU_STREAM_NON_BLOCKING, priority_high));
  make_lane(p.twin.lane_hi, i, s, p.twin.ctx, p.twin.sms);
  return p.twin;
}

const std::vector<ncclComm_t>& Runtime::comms(int ranks, int ctas) {
  const auto key = std::make_pair(ranks, ctas);
  auto it = comms_.find(key);
  if (it != comms_.end()) return it->second;
  if (device_poisoned()) throw CudaFailure("device_unusable", poison_reason());
  if (ranks > count())
    throw CudaFailure("unsupported", std::to_string(ranks) + " ranks but " + std::to_string(count()) + " GPUs");
  ncclUniqueId id;
  C3_NCCL(ncclGetUniqueId(&id));
  std::vector<ncclComm_t> set(static_cast<std::size_t>(ranks), nullptr);
  std::vector<ncclConfig_t> configs(static_cast<std::size_t>(ranks));
  C3_NCCL(ncclGroupStart());
  ncclResult_t first = ncclSuccess;
  for (int r = 0; r < ranks; ++r) {
    ncclConfig_t cfg = NCCL_CONFIG_INITIALIZER;
    if (ctas == kCtaPolicyZero) cfg.CTAPolicy = NCCL_CTA_POLICY_ZERO;
    if (ctas > 0) {
      cfg.minCTAs = ctas;
      cfg.maxCTAs = ctas;
    }
    configs[static_cast<std::size_t>(r)] = cfg;
    cudaSetDevice(gpu(r).device);
    const ncclResult_t res = ncclCommInitRankConfig(&set[static_cast<std::size_t>(r)], ranks, id, r,
                                                    &configs[static_cast<std::size_t>(r)]);
    if (res != ncclSuccess && first == ncclSuccess) first = res;
  }
  const ncclResult_t end = ncclGroupEnd();
  if (first != ncclSuccess || end != ncclSuccess) {
    for (auto c : set)
      if (c) ncclCommAbort(c);
    throw_nccl(first != ncclSuccess ? first : end, "ncclCommInitRankConfig (group)", __FILE__, __LINE__);
  }
  return comms_.emplace(key, std::move(set)).first->second;
}

void Runtime::abort_comms() {
  for (auto& [key, set] : comms_)
    for (auto c : set)
      if (c) ncclCommAbort(c);
  comms_.clear();
}

namespace {

// The CUDA calls of device::timed_run: events on each GPU's timing stream, lanes' done
// events recorded in their (green) contexts, NCCL's asynchronous errors.
struct CudaTimed {
  Runtime& rt;
  const std::vector<ncclComm_t>& watch;
  bool gate = false;  ///< this run is gated

  void check_usable() {
    if (device_poisoned()) throw CudaFailure("device_unusable", poison_reason());
  }
  // The gate (device::GatedVendor): a blocking kernel per GPU waits for the next generation;
  // the host's release writes it to the mapped word every kernel polls.
  bool gated() { return gate; }
  void hold(int gi) {
    Gpu& g = rt.gpu(gi);
    C3_CUDA(cudaSetDevice(g.device));
    int* words = rt.gate_words();  // mapped portable memory: the same address on every GPU (UVA)
    C3_CUDA(kernels::gate(words, rt.gate_generation + 1, kGateTimeout_ns, words + 1, g.timing));
  }
  void release() {
    ++rt.gate_generation;
    std::atomic_ref<int>(rt.gate_words()[0]).store(rt.gate_generation, std::memory_order_seq_cst);
  }
  void check_gate() {
    if (std::atomic_ref<int>(rt.gate_words()[1]).load(std::memory_order_seq_cst) == rt.gate_generation)
      throw CudaFailure("gate_timeout", "a blocking kernel gave up waiting for the host's release after " +
                                            std::to_string(kGateTimeout_ns / 1'000'000'000ull) +
                                            " s: the run's launch took longer than that");
  }
  void record_start(int gi) {
    Gpu& g = rt.gpu(gi);
    C3_CUDA(cudaSetDevice(g.device));
    C3_CUDA(cudaEventRecord(g.t_start, g.timing));
  }
  void wait_start(Lane& l) { C3_CU(driver().cuStreamWaitEvent(l.stream, rt.gpu(l.gpu).t_start, 0)); }
  void join(Lane& l) {
    Gpu& g = rt.gpu(l.gpu);
    if (!l.ctx) C3_CUDA(cudaSetDevice(g.device));
    {
      ScopedContext scope(l.ctx);
      C3_CU(driver().cuEventRecord(l.done, l.stream));
    }
    C3_CU(driver().cuStreamWaitEvent(g.timing, l.done, 0));
  }
  void record_end(int gi) {
    Gpu& g = rt.gpu(gi);
    C3_CUDA(cudaSetDevice(g.device));
    C3_CUDA(cudaEventRecord(g.t_end, g.timing));
  }
  bool end_ready(int gi) {
    const cudaError_t q = cudaEventQuery(rt.gpu(gi).t_end);
    if (q == cudaErrorNotReady) return false;
    if (q != cudaSuccess) throw_cuda(q, "cudaEventQuery(end)", __FILE__, __LINE__);
    return true;
  }
  bool watches_async() { return !watch.empty(); }
  void check_async() {
    for (auto c : watch) {
      ncclResult_t async = ncclSuccess;
      if (ncclCommGetAsyncError(c, &async) == ncclSuccess && async != ncclSuccess && async != ncclInProgress) {
        poison_device("NCCL async error");
        rt.abort_comms();
        throw_nccl(async, "ncclCommGetAsyncError (during run)", __FILE__, __LINE__);
      }
    }
  }
  [[noreturn]] void timed_out(const std::string& why) {
    poison_device("timeout: " + why);
    rt.abort_comms();
    throw CudaFailure("timeout", why);
  }
  double elapsed_s(int gi) {
    float ms = 0;
    C3_CUDA(cudaEventElapsedTime(&ms, rt.gpu(gi).t_start, rt.gpu(gi).t_end));
    return static_cast<double>(ms) * 1e-3;
  }
};

}  // namespace

RunTime Runtime::timed(const std::vector<int>& gpus_used, const std::vector<Lane*>& lanes,
                       const std::function<void()>& launch, double timeout_s,
                       const std::vector<ncclComm_t>& watch, bool gated) {
  CudaTimed vendor{*this, watch, gated};
  return device::timed_run(vendor, gpus_used, lanes, launch, timeout_s);
}

void Runtime::sync_all(double timeout_s) {
  if (device_poisoned()) throw CudaFailure("device_unusable", poison_reason());
  std::vector<CUstream> streams;
  for (auto& gp : gpus) {
    Gpu& g = *gp;
    streams.push_back(g.timing);
    streams.push_back(g.work.stream);
    streams.push_back(g.coll.stream);
    streams.push_back(g.coll_hi.stream);
    for (auto& l : g.peer) streams.push_back(l.stream);
    for (auto& [k, p] : g.partitions)
      for (GreenSide* side : {&p->group, &p->rest, &p->twin})
        if (side->green) {
          streams.push_back(side->lane.stream);
          streams.push_back(side->lane_hi.stream);
        }
  }
  const double deadline = now_s() + timeout_s;
  for (CUstream s : streams)
    device::poll_until(
        [&] {
          const CUresult q = driver().cuStreamQuery(s);
          if (q == CUDA_SUCCESS) return true;
          if (q != CUDA_ERROR_NOT_READY) throw_driver(q, "cuStreamQuery", __FILE__, __LINE__);
          return false;
        },
        deadline,
        [&] {
          poison_device("timeout while synchronizing");
          abort_comms();
          throw CudaFailure("timeout", "streams did not drain within " + std::to_string(timeout_s) + " s");
        });
}

void Runtime::wait_event(cudaEvent_t ev, double timeout_s, const char* what) {
  device::poll_until(
      [&] {
        const cudaError_t q = cudaEventQuery(ev);
        if (q == cudaSuccess) return true;
        if (q != cudaErrorNotReady) throw_cuda(q, what, __FILE__, __LINE__);
        return false;
      },
      now_s() + timeout_s,
      [&] {
        poison_device(std::string("timeout: ") + what);
        abort_comms();
        throw CudaFailure("timeout", std::string(what) + " did not complete within " + std::to_string(timeout_s) +
                                         " s");
      });
}

Lane* lane_of(device::StreamRole role, bool hi, Gpu& g, Partition* p) {
  switch (role) {
    case device::StreamRole::work:
      return &g.work;
    case device::StreamRole::collective:
      return hi ? &g.coll_hi : &g.coll;
    case device::StreamRole::partition_rest:
      return &p->rest.lane;
    case device::StreamRole::partition_group:
      return hi ? &p->group.lane_hi : &p->group.lane;
    case device::StreamRole::copy_engines:
      break;
  }
  return nullptr;
}

}  // namespace c3::cuda
