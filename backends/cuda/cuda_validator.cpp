// backends/cuda/cuda_validator.cpp: the "cuda" backend's Validator hooks, the strategies of
// DESIGN.md on real GPUs (dependent pairs: dependent.cpp), the partition probes, provenance
// and registration.
#include <dlfcn.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <set>
#include <sstream>
#include <thread>

#include "c3/errors.hpp"
#include "backends/cuda/collectives.hpp"
#include "backends/cuda/cuda_backend.hpp"
#include "backends/cuda/dependent.hpp"
#include "backends/cuda/gemm.hpp"
#include "backends/cuda/kernels.hpp"
#include "backends/cuda/runtime.hpp"
#include "backends/device/options.hpp"
#include "backends/device/pair_placement.hpp"
#include "backends/device/runner.hpp"

namespace c3 {
namespace cuda {
namespace {

std::string version_string(int v, int major_div, int minor_div, int minor_mod) {
  std::ostringstream os;
  os << v / major_div << "." << (v / minor_div) % minor_mod;
  return os.str();
}

// The real driver version ("580.159.04") comes from NVML, loaded at run time so that the
// backend needs no NVML at link time; the CUDA driver API version is the fallback.
std::string nvml_driver_version() {
  void* lib = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!lib) return {};
  using init_t = int (*)();
  using version_t = int (*)(char*, unsigned);
  auto init = reinterpret_cast<init_t>(dlsym(lib, "nvmlInit_v2"));
  auto version = reinterpret_cast<version_t>(dlsym(lib, "nvmlSystemGetDriverVersion"));
  auto shutdown = reinterpret_cast<init_t>(dlsym(lib, "nvmlShutdown"));
  std::string out;
  if (init && version && init() == 0) {
    char buf[96] = {};
    if (version(buf, sizeof buf) == 0) out = buf;
    if (shutdown) shutdown();
  }
  dlclose(lib);
  return out;
}

std::uint64_t pattern_seed_for_copy(std::uint32_t gpu, std::uint32_t epoch) {
  return pattern::seed_for(kRoleCopy, gpu, epoch);
}

const std::vector<std::string> kFaults = {"oom", "timeout", "drop_piece"};
bool known_fault(const std::string& fault) {
  return std::find(kFaults.begin(), kFaults.end(), fault) != kFaults.end();
}

using device::failed;

}  // namespace

// ---------------------------------------------------------------------------------------
CudaOptions parse_cuda_options(const std::string& arg) {
  CudaOptions o;
  const std::string b = "cuda";
  for (const auto& [key, v] : device::option_items(arg, b)) {
    if (key == "gpus") o.gpus = device::parse_int(v, key, 1, b);
    else if (key == "warmup") o.warmup_runs = device::parse_int(v, key, 0, b);
    else if (key == "runs") o.measured_runs = device::parse_int(v, key, 1, b);
    else if (key == "timeout") o.run_timeout_s = device::parse_int(v, key, 1, b);
    else if (key == "partition_collective") o.partition_collective = device::parse_bool(v, key, b);
    else if (key == "sm_hint") o.gemm_sm_count_hint = device::parse_bool(v, key, b);
    else if (key == "priority") o.collective_high_priority = device::parse_bool(v, key, b);
    else if (key == "verify") o.verify = device::parse_bool(v, key, b);
    else if (key == "samples") o.gemm_check_samples = device::parse_int(v, key, 0, b);
    else if (key == "trace") o.trace_runs = device::parse_int(v, key, 0, b);
    else if (key == "gate") o.gate = device::parse_bool(v, key, b);
    else if (key == "pad")
      o.pad_mib = device::parse_int(v, key, 0, b);
    else if (key == "ce") {
      if (v == "push") o.ce.direction = CeDirection::push;
      else if (v == "pull") o.ce.direction = CeDirection::pull;
      else throw InputError("cuda backend option ce: push or pull, got '" + v + "'");
    } else if (key == "ce_api") {
      if (v == "peer") o.ce.api = CeApi::peer_memcpy;
      else if (v == "batch") o.ce.api = CeApi::batch_memcpy;
      else throw InputError("cuda backend option ce_api: peer or batch, got '" + v + "'");
    } else if (key == "ce_chunks") o.ce.chunks = device::parse_int(v, key, 1, b);
    else if (key == "ce_overlap") o.ce.prefer_overlap = device::parse_bool(v, key, b);
    else if (key == "fault") {
      const device::FaultSpec f = device::parse_fault(v, kFaults, b);
      o.fault = f.name;
      o.fault_at = f.at;
    } else
      throw InputError(
          "cuda backend: unknown option '" + key +
          "' (valid: gpus, warmup, runs, timeout, partition_collective, sm_hint, "
          "priority, verify, samples, trace, gate, pad, ce, ce_api, ce_chunks, ce_overlap, fault)");
  }
  return o;
}

CudaProvenance cuda_provenance() {
  CudaProvenance p;
  int n = 0;
  const cudaError_t e = cudaGetDeviceCount(&n);
  if (e != cudaSuccess || n == 0)
    throw BackendError(std::string("cuda: no CUDA device (") +
                       (e == cudaSuccess ? "none visible" : cudaGetErrorString(e)) + ")");
  p.gpus = n;
  cudaDeviceProp prop{};
  if (cudaGetDeviceProperties(&prop, 0) == cudaSuccess) {
    p.device = prop.name;
    p.sm_count = prop.multiProcessorCount;
  }
  int drv = 0, rtv = 0;
  cudaDriverGetVersion(&drv);
  cudaRuntimeGetVersion(&rtv);
  p.driver = nvml_driver_version();
  const std::string cuda_api = version_string(drv, 1000, 10, 100);
  p.driver = p.driver.empty() ? "CUDA " + cuda_api : p.driver + " (CUDA " + cuda_api + ")";
  p.cuda_runtime = version_string(rtv, 1000, 10, 100);
  const std::size_t lt = cublasLtGetVersion();  // e.g. 130100
  p.cublas = std::to_string(lt / 10000) + "." + std::to_string((lt / 100) % 100) + "." +
             std::to_string(lt % 100);
  int nccl = 0;
  if (ncclGetVersion(&nccl) == ncclSuccess)
    p.nccl = std::to_string(nccl / 10000) + "." + std::to_string((nccl / 100) % 100) + "." +
             std::to_string(nccl % 100);
  bool all = true;
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) {
      if (i == j) continue;
      int can = 0;
      cudaDeviceCanAccessPeer(&can, i, j);
      all = all && can;
    }
  p.nvlink = n < 2 ? "single GPU" : (all ? "all pairs peer-capable" : "some pairs not peer-capable");
  return p;
}

// ---------------------------------------------------------------------------------------
struct CudaValidator::Impl {
  CudaOptions opt;
  std::string profile_name;
  int profile_cus = 0;
  bool nccl_ce = false;  // dma variant "nccl_ce" instead of opt.ce
  std::unique_ptr<Runtime> rt;
  RunDetail last;
  std::uint32_t epoch = 1;
  Capabilities caps;

  struct Job {
    std::vector<int> gpus;
    std::vector<Lane*> lanes;
    std::function<void()> launch;
    std::function<void()> poison;                      // before checked runs
    std::function<std::int64_t(std::string*)> verify;  // after checked runs
    std::vector<ncclComm_t> watch;
  };

  RunConfig cfg;  // mirrors Validator::run_config(), refreshed by each hook
  std::vector<DeviceBuffer> pads;  // CudaOptions::pad_mib: this measurement's placement pads

  // One measurement's runs (device::run_measurement) timed by Runtime::timed.
  Measurement run(Job& job) {
    device::RunHooks hooks;
    hooks.run = [&] { return rt->timed(job.gpus, job.lanes, job.launch, opt.run_timeout_s, job.watch, rt->gate); };
    if (rt->gate)  // gated runs: the first run without the gate (RunHooks::prime)
      hooks.prime = [&] { rt->timed(job.gpus, job.lanes, job.launch, opt.run_timeout_s, job.watch, false); };
    hooks.poison = job.poison;
    hooks.verify = job.verify;
    device::RunLog log;
    Measurement m = device::run_measurement(hooks, cfg, opt.verify, log);
    last.mismatches += log.mismatches;
    last.host_runs_s.insert(last.host_runs_s.end(), log.host_runs_s.begin(), log.host_runs_s.end());
    return m;
  }

  Measurement guarded(const std::function<Measurement()>& body) {
    return device::guarded(poison_state(), cfg.warmup_runs, [&] {
      place_pads();
      if (opt.fault_at == measurements) return with_fault(body);
      return body();
    });
  }

  long measurements = 0;  // begun in this process (fault injection counts them)
  bool drop_piece = false;  // fault drop_piece armed for this measurement (dependent pairs take it)

  // The injected fault of CudaOptions::fault, through the real failure paths.
  Measurement with_fault(const std::function<Measurement()>& body) {
    const std::string note = "fault injected (cuda option fault=" + opt.fault + "@" +
                             std::to_string(opt.fault_at) + ")";
    if (opt.fault == "oom") {
      Gpu& g = rt->gpu(0);
      C3_CUDA(cudaSetDevice(g.device));
      std::size_t free_bytes = 0, total_bytes = 0;
      C3_CUDA(cudaMemGetInfo(&free_bytes, &total_bytes));
      try {
        DeviceBuffer hog(g.device, total_bytes + (std::size_t{1} << 30));  // more than the GPU has
      } catch (const CudaFailure& e) {
        cudaGetLastError();  // the failed cudaMalloc's error is not sticky; clear it
        throw CudaFailure(e.code(), note + " (" + e.what() + ")");
      }
      throw CudaFailure("error", note + ": cudaMalloc of more than the GPU has succeeded");
    }
    if (opt.fault == "drop_piece") {
      drop_piece = true;
      Measurement m = body();
      const bool taken = !drop_piece;
      drop_piece = false;
      if (!taken) return failed("unsupported: " + note + " applies to a dependent pair's measurement only", cfg.warmup_runs);
      if (!m.ok) m.error += " [" + note + "]";
      return m;
    }
    struct Restore {
      double& field;
      double value;
      ~Restore() { field = value; }
    } restore{opt.run_timeout_s, opt.run_timeout_s};
    opt.run_timeout_s = 1e-4;
    Measurement m = body();
    if (!m.ok) m.error += " [" + note + "]";
    return m;
  }

  void begin(const std::string& what, const std::string& label, const RunConfig& config) {
    ++measurements;
    cfg = config;
    last = RunDetail{};
    last.what = what;
    last.label = label;
    ++epoch;
    pads.clear();  // the last measurement's pads (guarded() places this one's)
  }

  // This measurement's placement pads, before any of its buffers (a failed allocation is a
  // named failure of the measurement, inside guarded()).
  void place_pads() {
    if (opt.pad_mib <= 0 || !pads.empty()) return;
    for (int i = 0; i < rt->count(); ++i)
      pads.emplace_back(rt->gpu(i).device, device::placement_pad_bytes(epoch, i, opt.pad_mib));
  }

  Lane& coll_lane(Gpu& g) { return opt.collective_high_priority ? g.coll_hi : g.coll; }
  std::string dma_name() const { return nccl_ce ? std::string(kNcclCeVariant) : to_string(opt.ce); }
  Alloc dma_alloc(bool dma) const { return dma && nccl_ce ? Alloc::nccl_mem : Alloc::cuda_malloc; }
  // The dma collective of one measurement on `bufs` (nccl_ce runs on the ranks' collective lanes).
  std::unique_ptr<DmaCollective> make_dma(const CollBuffers& bufs) {
    std::vector<Lane*> nccl_lanes;
    for (int r = 0; r < bufs.plan().ranks; ++r) nccl_lanes.push_back(&coll_lane(rt->gpu(r)));
    return std::make_unique<DmaCollective>(*rt, bufs, opt.ce, nccl_ce, std::move(nccl_lanes));
  }
  Lane& side_lane(GreenSide& s, bool hi) { return hi ? s.lane_hi : s.lane; }

  // The most pieces a dependent pair is cut into (Mechanisms::max_chunks).
  static constexpr int kMaxChunks = device::kMaxDependentChunks;

  // A dependent pair (dependency != none): serial or decomposed, on DependentRun; timed and
  // checked by run() like every other measurement.
  Measurement dependent(const C3Pair& pair, const Strategy& s) {
    last.what = "dependent";
    const ExecutionPlan how = device::dependent_execution(pair, s);
    const DependentOptions o = device::dependent_options(opt, epoch, drop_piece);
    drop_piece = false;  // taken
    DependentRun dep(*rt, pair, how, o, nccl_ce);
    const DependentReport& rep = dep.report();
    device::describe(last, rep, pair.collective.ranks);
    Job job = device::dependent_job<Job>(dep, opt.run_timeout_s);
    Measurement m = run(job);
    m.gemm_kernel = rep.first_kernel;
    if (m.ok && opt.trace_runs > 0) m.timeline = dep.trace(opt.trace_runs, opt.run_timeout_s);
    return m;
  }

  void build_capabilities() {
    caps = Capabilities{};
    caps.backend = "cuda";
    Gpu& g0 = rt->gpu(0);
    caps.device = g0.name + " x" + std::to_string(rt->count());
    caps.gpus = rt->count();
    caps.compute_units = g0.sms;
    const bool multi = rt->count() >= 2;
    bool green = true;
    for (auto& g : rt->gpus) green = green && g->green_ok;
    if (multi) {
      caps.strategies = runnable_kinds({green, rt->peer_ok, kMaxChunks});
    }
    try {
      const CudaProvenance p = cuda_provenance();
      caps.versions = {{"driver", p.driver}, {"cuda", p.cuda_runtime}, {"cublas", p.cublas}, {"nccl", p.nccl}};
      caps.notes.push_back("versions: driver " + p.driver + ", CUDA runtime " + p.cuda_runtime +
                           ", cuBLASLt " + p.cublas + ", NCCL " + p.nccl);
    } catch (const std::exception& e) {
      caps.notes.push_back(std::string("versions unavailable: ") + e.what());
    }
    caps.notes.push_back(std::to_string(g0.sms) + " SMs per GPU, L2 " +
                         std::to_string(g0.l2_bytes >> 20) + " MiB; " + rt->peer_note);
    if (!multi) caps.notes.push_back("one GPU: collectives and pairs need at least 2 GPUs");
    if (green) {
      std::ostringstream os;
      os << "green contexts: minSmPartitionSize " << g0.min_partition << ", smCoscheduledAlignment "
         << g0.alignment << "; split of k SMs -> {group, rest}:";
      for (int k = 8; k < g0.sms; k += 8) {
        try {
          const auto [a, b] = rt->split_sizes(0, k);
          os << " " << k << "->{" << a << "," << b << "}";
        } catch (const std::exception&) {
          os << " " << k << "->none";
        }
      }
      caps.notes.push_back(os.str());
      caps.notes.push_back(
          "partitions: the collective runs in the group of collective_cus SMs (rounded up by the "
          "driver), the GEMM in the remainder; both in green contexts. RunDetail reports the SMs "
          "actually used");
    } else {
      caps.notes.push_back("green contexts unavailable (" + g0.green_error + "): no rp, dma_rp, or "
                           "GEMMs with CUs removed");
    }
    caps.notes.push_back(
        "NCCL inside a green context is not officially supported; tests/device probes whether a "
        "partition confines it (docs/device.md)");
    caps.notes.push_back("collectives in bf16; reduce_scatter and all_reduce have no dma transport "
                         "(copy engines cannot reduce)");
    caps.dma_variants = {to_string(opt.ce)};
    for (const char* v : {"ce_push_peer", "ce_pull_peer", "ce_push_batch", "ce_push_batch_ovl", "ce_pull_batch_ovl", "ce_push_peer_c4",
                          "ce_push_peer_graph", "ce_pull_peer_graph", "ce_push_peer_fixed", "nccl_ce"})
      if (v != caps.dma_variants.front()) caps.dma_variants.push_back(v);
    caps.notes.push_back("dma transport: " + to_string(opt.ce) +
                         " by default (one copy per peer, one stream per peer, issued and synchronized "
                         "from the host); other variants: set_dma_variant (docs/collectives.md)");
    caps.notes.push_back(
        "copy(): device_local = one cudaMemcpyAsync of size on GPU 0 (HBM traffic 2x size); "
        "one_peer = GPU 0 -> GPU 1; all_peers = every GPU pushes size/(n-1) to each peer at once "
        "(size per GPU per direction)");
    caps.notes.push_back(opt.gate ? "timing: gated runs: every GPU's launches queued behind a blocking kernel and "
                                    "released at once; device events from the release to after the last "
                                    "completion, max over GPUs; warm-up then measured runs (run_config)"
                                  : "timing: device events from before the first launch to after the last "
                                    "completion, max over GPUs; warm-up then measured runs (run_config)");
    if (multi)
      caps.notes.push_back(
          "dependent pairs (docs/device.md): serial = the whole collective and the GEMM of all rows on one "
          "stream in dependency order; chunked:C = the dependent operand in C pieces (up to " +
          std::to_string(kMaxChunks) +
          ", C a multiple of the ranks dividing m) on two streams joined by events: the GEMM on the local rows "
          "first, then each step's pieces once they arrived (collective_feeds_gemm), or each step's rows of "
          "every rank's block then their reduce-scatter / all-to-all (gemm_feeds_collective); steps on NCCL "
          "send/recv or reduce-scatter (cu, :c in a green context of c SMs with maxCTAs c) or copy engines "
          "(dma); the GEMM pieces strided-batched cuBLASLt calls on row-major operands. Checked against the "
          "undecomposed computation: moved A rows bitwise, outputs sampled (2 per piece) against a host "
          "reference; other strategies refuse dependent pairs");
    if (profile_cus > 0 && profile_cus != g0.sms)
      caps.notes.push_back("profile '" + profile_name + "' has " + std::to_string(profile_cus) +
                           " compute units, this GPU " + std::to_string(g0.sms) + " SMs");
  }
};

// ---------------------------------------------------------------------------------------
CudaValidator::CudaValidator(const CudaOptions& options, const HardwareProfile& hw)
    : impl_(std::make_unique<Impl>()) {
  impl_->opt = options;
  impl_->profile_name = hw.name;
  impl_->profile_cus = hw.compute_units;
  impl_->rt = std::make_unique<Runtime>(options.gpus);
  impl_->rt->gate = options.gate;
  impl_->build_capabilities();
  set_runs(options.warmup_runs, options.measured_runs);
}

CudaValidator::~CudaValidator() = default;

const CudaOptions& CudaValidator::options() const { return impl_->opt; }
void CudaValidator::set_runs(int warmup_runs, int measured_runs) {
  RunConfig c;
  c.warmup_runs = warmup_runs;
  c.measured_runs = measured_runs;
  set_run_config(c);  // throws InputError on bad counts
  impl_->opt.warmup_runs = warmup_runs;
  impl_->opt.measured_runs = measured_runs;
}
void CudaValidator::set_run_timeout(double seconds) {
  if (!(seconds > 0)) throw InputError("cuda: timeout must be > 0");
  impl_->opt.run_timeout_s = seconds;
}
void CudaValidator::set_ce_options(const CeOptions& ce) {
  impl_->opt.ce = ce;
  impl_->nccl_ce = false;
}
void CudaValidator::do_set_dma_variant(const std::string& name) {
  if (name == kNcclCeVariant) {
    impl_->nccl_ce = true;
    return;
  }
  impl_->opt.ce = parse_ce_variant(name);  // throws InputError
  impl_->nccl_ce = false;
}
void CudaValidator::set_partition_collective(bool on) { impl_->opt.partition_collective = on; }
void CudaValidator::set_gemm_sm_count_hint(bool on) { impl_->opt.gemm_sm_count_hint = on; }
void CudaValidator::set_collective_high_priority(bool on) { impl_->opt.collective_high_priority = on; }
void CudaValidator::set_trace_runs(int runs) {
  if (runs < 0) throw InputError("cuda: trace runs must be >= 0");
  impl_->opt.trace_runs = runs;
}
void CudaValidator::set_gate(bool on) {
  impl_->opt.gate = on;
  impl_->rt->gate = on;
  impl_->build_capabilities();  // the timing note says which runs
}
void CudaValidator::inject_fault_next(const std::string& fault) {
  if (!known_fault(fault)) throw InputError("cuda: fault oom, timeout or drop_piece, got '" + fault + "'");
  impl_->opt.fault = fault;
  impl_->opt.fault_at = impl_->measurements + 1;
}
int CudaValidator::gpu_count() const { return impl_->rt->count(); }
int CudaValidator::sm_count() const { return impl_->rt->gpu(0).sms; }
const RunDetail& CudaValidator::last_detail() const { return impl_->last; }
std::pair<int, int> CudaValidator::partition_for(int sms) { return impl_->rt->split_sizes(0, sms); }
bool CudaValidator::healthy() const { return !device_poisoned(); }

Capabilities CudaValidator::do_capabilities() const { return impl_->caps; }

// ---------------------------------------------------------------------------------------
Measurement CudaValidator::do_gemm(const Gemm& gemm, int cus_removed) {
  Impl& I = *impl_;
  I.begin("gemm", format_gemm(gemm) + (cus_removed ? " -" + std::to_string(cus_removed) + "SMs" : ""),
          run_config());
  return I.guarded([&]() -> Measurement {
    Runtime& rt = *I.rt;
    Gpu& g = rt.gpu(0);
    Lane* lane = &g.work;
    int target = 0;
    if (cus_removed > 0) {
      Partition& p = rt.partition(0, cus_removed);
      lane = &p.rest.lane;
      target = I.opt.gemm_sm_count_hint ? p.rest.sms : 0;
      I.last.note = "removed " + std::to_string(p.group.sms) + " SMs (asked " +
                    std::to_string(cus_removed) + ")";
    }
    I.last.gemm_sms = lane->sms;
    GemmRunner runner(rt, gemm, 1, I.opt.gemm_check_samples, I.epoch);
    runner.prepare(target);
    I.last.gemm_algo = runner.algo_description();
    Impl::Job job;
    job.gpus = {0};
    job.lanes = {lane};
    job.launch = [&] { runner.launch(0, *lane, target); };
    job.poison = [&] { runner.poison(I.opt.run_timeout_s); };
    job.verify = [&](std::string* first) { return runner.verify(I.opt.run_timeout_s, first); };
    Measurement m = I.run(job);
    m.gemm_kernel = runner.kernel();  // the plan of the last launch
    return m;
  });
}

Measurement CudaValidator::do_collective(const Collective& c, Transport transport, int cus) {
  Impl& I = *impl_;
  const bool dma = transport == Transport::dma;
  I.begin("collective", std::string(to_string(c.kind)) + ":" + format_size(c.size_bytes) + "/" +
                            (dma ? I.dma_name() : std::string("nccl")) +
                            (cus > 0 && !dma ? "/ctas=" + std::to_string(cus) : ""),
          run_config());
  return I.guarded([&]() -> Measurement {
    Runtime& rt = *I.rt;
    const CollPlan plan = plan_collective(c.kind, c.size_bytes, c.ranks);
    if (plan.ranks > rt.count())
      throw CudaFailure("unsupported", std::to_string(c.ranks) + " ranks but " +
                                           std::to_string(rt.count()) + " GPUs");
    if (dma && !dma_capable(c.kind))
      throw CudaFailure("unsupported", std::string(to_string(c.kind)) + " has no dma transport");
    I.last.ranks = plan.ranks;
    I.last.size_bytes = plan.size_bytes;
    I.last.transport = dma ? I.dma_name() : "nccl";
    CollBuffers bufs(rt, plan, I.epoch, I.dma_alloc(dma));
    Impl::Job job;
    for (int r = 0; r < plan.ranks; ++r) job.gpus.push_back(r);
    job.poison = [&] { bufs.poison(rt, I.opt.run_timeout_s); };
    job.verify = [&](std::string* first) { return bufs.check(rt, I.opt.run_timeout_s, first); };
    std::vector<Lane*> per_rank;
    std::unique_ptr<DmaCollective> dma_coll;
    if (dma) {
      dma_coll = I.make_dma(bufs);
      job.lanes = dma_coll->lanes();
      job.watch = dma_coll->watch();
      job.launch = [&] { dma_coll->launch(); };
    } else {
      const auto& comms = rt.comms(plan.ranks, cus > 0 ? cus : 0);
      for (int r = 0; r < plan.ranks; ++r) {
        Gpu& g = rt.gpu(r);
        if (cus > 0 && I.opt.partition_collective) {
          Partition& p = rt.partition(r, cus);
          per_rank.push_back(&I.side_lane(p.group, I.opt.collective_high_priority));
        } else {
          per_rank.push_back(&I.coll_lane(g));
        }
      }
      I.last.collective_sms = per_rank[0]->sms;
      I.last.collective_ctas = cus > 0 ? cus : 0;
      job.lanes = per_rank;
      job.watch = comms;
      job.launch = [&] { launch_nccl(bufs, comms, per_rank); };
    }
    return I.run(job);
  });
}

Measurement CudaValidator::do_concurrent(const C3Pair& pair, const Strategy& s) {
  Impl& I = *impl_;
  I.begin("concurrent", (pair.name.empty() ? format_gemm(pair.gemm) : pair.name) + "/" +
                            std::string(to_string(pair.collective.kind)) + "/" + s.label(),
          run_config());
  return I.guarded([&]() -> Measurement {
    if (pair.dependency != Dependency::none) return I.dependent(pair, s);
    Runtime& rt = *I.rt;
    const Collective& c = pair.collective;
    const CollPlan plan = plan_collective(c.kind, c.size_bytes, c.ranks);
    if (plan.ranks > rt.count())
      throw CudaFailure("unsupported", std::to_string(c.ranks) + " ranks but " +
                                           std::to_string(rt.count()) + " GPUs");
    const ExecutionPlan how = strategies::plan_of(s);
    const bool dma = how.transport == Transport::dma;
    if (dma && !dma_capable(c.kind))
      throw CudaFailure("unsupported", std::string(to_string(c.kind)) + " has no dma transport");
    if (how.chunks != 1)
      throw CudaFailure("unsupported", s.label() + " decomposes a dependent pair's operand; this pair is "
                                                   "independent (dependency none)");
    const int ranks = plan.ranks;
    I.last.ranks = ranks;
    I.last.size_bytes = plan.size_bytes;
    I.last.transport = dma ? I.dma_name() : "nccl";

    CollBuffers bufs(rt, plan, I.epoch, I.dma_alloc(dma));
    GemmRunner gemm(rt, pair.gemm, ranks, I.opt.gemm_check_samples, I.epoch);

    std::vector<Lane*> gemm_lanes(static_cast<std::size_t>(ranks));
    std::vector<Lane*> coll_lanes(static_cast<std::size_t>(ranks));
    int gemm_target = 0;
    const device::PairPlacement place = device::place_pair(how, I.opt.partition_collective);
    const int ctas = dma ? 0 : place.collective_budget;
    const bool hi = I.opt.collective_high_priority;
    for (int r = 0; r < ranks; ++r) {
      Gpu& g = rt.gpu(r);
      const auto ri = static_cast<std::size_t>(r);
      Partition* p = place.partition_cus > 0 ? &rt.partition(r, place.partition_cus) : nullptr;
      gemm_lanes[ri] = lane_of(place.gemm, hi, g, p);  // nullptr on copy engines: DmaCollective::lanes
      if (!dma) coll_lanes[ri] = lane_of(place.collective, hi, g, p);
      if (p) gemm_target = I.opt.gemm_sm_count_hint ? p->rest.sms : 0;
    }
    gemm.prepare(gemm_target);
    I.last.gemm_algo = gemm.algo_description();
    I.last.gemm_sms = gemm_lanes[0]->sms;
    I.last.collective_sms = dma ? 0 : coll_lanes[0]->sms;
    I.last.collective_ctas = ctas;

    const std::vector<ncclComm_t>* comms = nullptr;
    if (!dma) comms = &rt.comms(ranks, ctas);

    Impl::Job job;
    for (int r = 0; r < ranks; ++r) job.gpus.push_back(r);
    std::set<Lane*> lane_set(gemm_lanes.begin(), gemm_lanes.end());
    std::unique_ptr<DmaCollective> dma_coll;
    if (dma) {
      dma_coll = I.make_dma(bufs);
      for (Lane* l : dma_coll->lanes()) lane_set.insert(l);
      job.watch = dma_coll->watch();
    } else {
      lane_set.insert(coll_lanes.begin(), coll_lanes.end());
      job.watch = *comms;
    }
    job.lanes.assign(lane_set.begin(), lane_set.end());

    auto launch_gemms = [&] {
      for (int r = 0; r < ranks; ++r) gemm.launch(r, *gemm_lanes[static_cast<std::size_t>(r)], gemm_target);
    };
    auto launch_coll = [&] {
      if (dma)
        dma_coll->launch();
      else
        launch_nccl(bufs, *comms, coll_lanes);
    };
    if (how.order == LaunchOrder::collective_first)
      job.launch = [&] {
        launch_coll();
        launch_gemms();
      };
    else  // serial (same stream: GEMM then collective) and base (GEMM launched first)
      job.launch = [&] {
        launch_gemms();
        launch_coll();
      };
    job.poison = [&] {
      bufs.poison(rt, I.opt.run_timeout_s);
      gemm.poison(I.opt.run_timeout_s);
    };
    job.verify = [&](std::string* first) {
      return bufs.check(rt, I.opt.run_timeout_s, first) + gemm.verify(I.opt.run_timeout_s, first);
    };
    Measurement m = I.run(job);
    m.gemm_kernel = gemm.kernel();  // the plan of the last launch
    return m;
  });
}

Measurement CudaValidator::do_copy(CopyPath path, std::int64_t size_bytes) {
  Impl& I = *impl_;
  I.begin("copy", std::string(to_string(path)) + ":" + format_size(size_bytes), run_config());
  return I.guarded([&]() -> Measurement {
    Runtime& rt = *I.rt;
    const int n = rt.count();
    if (path != CopyPath::device_local && n >= 2 && !rt.peer_ok)
      throw CudaFailure("unsupported", "peer access unavailable: " + rt.peer_note);
    const device::CopyPlan plan = device::plan_copy(path, size_bytes, n);
    const auto lane_of = [&](const device::CopyLane& l) -> Lane& {
      return l.peer < 0 ? rt.gpu(l.gpu).work : rt.gpu(l.gpu).peer[static_cast<std::size_t>(l.peer)];
    };
    std::vector<DeviceBuffer> src, dst;
    for (int g : plan.src_gpus) src.emplace_back(rt.gpu(g).device, plan.piece_elems * 2);
    for (int g : plan.dst_gpus) dst.emplace_back(rt.gpu(g).device, plan.dst_elems * 2);
    CeOptions ce;  // plain cudaMemcpyPeerAsync / cudaMemcpyAsync
    Impl::Job job;
    job.gpus = plan.timed_gpus;
    for (const device::CopyLane& l : plan.timed_lanes) job.lanes.push_back(&lane_of(l));
    I.last.size_bytes = plan.moved_bytes;
    I.last.transport = "cudaMemcpy";
    for (std::size_t i = 0; i < src.size(); ++i) {
      Gpu& g = rt.gpu(plan.src_gpus[i]);
      C3_CUDA(cudaSetDevice(g.device));
      C3_CUDA(kernels::fill(src[i].as<std::uint16_t>(), plan.piece_elems, kernels::FillKind::random_bits,
                            pattern_seed_for_copy(static_cast<std::uint32_t>(plan.src_gpus[i]), I.epoch), 0,
                            g.work.stream));
    }
    rt.sync_all(I.opt.run_timeout_s);
    job.launch = [&] {
      for (const device::CopyPiece& p : plan.pieces)
        ce_copy(dst[p.dst].as<std::uint16_t>() + p.dst_offset_elems, rt.gpu(p.to).device,
                src[static_cast<std::size_t>(p.from)].get(), rt.gpu(p.from).device, plan.piece_elems * 2,
                lane_of(p.lane), rt.gpu(p.lane.gpu).device, ce);
    };
    job.poison = [&] {
      // On the GPU's work stream, which sync_all drains: a plain cudaMemset runs on the legacy
      // default stream, which the non-blocking streams of the copy do not wait for (a copy
      // could land before the poison and be overwritten by it).
      for (std::size_t i = 0; i < dst.size(); ++i) {
        Gpu& g = rt.gpu(plan.dst_gpus[i]);
        C3_CUDA(cudaSetDevice(g.device));
        C3_CUDA(cudaMemsetAsync(dst[i].get(), 0xFF, dst[i].bytes(), g.work.stream));
      }
      rt.sync_all(I.opt.run_timeout_s);
    };
    job.verify = [&](std::string* first) -> std::int64_t {
      std::int64_t bad = 0;
      for (const device::CopyPiece& p : plan.pieces) {
        Gpu& g = rt.gpu(p.to);
        kernels::CheckArgs a;
        a.kind = kernels::CheckKind::copy;
        a.out = dst[p.dst].as<std::uint16_t>() + p.dst_offset_elems;
        a.count = plan.piece_elems;
        a.copy_seed = pattern_seed_for_copy(static_cast<std::uint32_t>(p.from), I.epoch);
        const CheckResult c = run_check(g, a);
        bad += static_cast<std::int64_t>(c.mismatches);
        if (c.mismatches && first && first->empty())
          *first = "copy " + std::to_string(p.from) + "->" + std::to_string(p.to) + ": " +
                   std::to_string(c.mismatches) + " mismatches";
      }
      return bad;
    };
    return I.run(job);
  });
}

// ---------------------------------------------------------------------------------------
// Diagnostics
namespace {

// Records `lane`'s done event and polls it with a deadline.
void finish_lane(Runtime& rt, Lane& lane, double timeout_s) {
  {
    if (!lane.ctx) C3_CUDA(cudaSetDevice(rt.gpu(lane.gpu).device));
    ScopedContext scope(lane.ctx);
    C3_CU(driver().cuEventRecord(lane.done, lane.stream));
  }
  const double t0 = now_s();
  for (;;) {
    const CUresult q = driver().cuEventQuery(lane.done);
    if (q == CUDA_SUCCESS) return;
    if (q != CUDA_ERROR_NOT_READY) throw_driver(q, "cuEventQuery(lane)", __FILE__, __LINE__);
    if (now_s() - t0 > timeout_s) {
      poison_device("timeout in a probe");
      rt.abort_comms();
      throw CudaFailure("timeout", "probe did not complete within " + std::to_string(timeout_s) + " s");
    }
    std::this_thread::yield();
  }
}

std::set<unsigned> sm_ids_on(Runtime& rt, Lane& lane, double timeout_s) {
  Gpu& g = rt.gpu(lane.gpu);
  const int blocks = 4 * g.sms;
  DeviceBuffer ids(g.device, static_cast<std::size_t>(blocks) * sizeof(unsigned));
  {
    ScopedContext scope(lane.ctx);
    // On the probe's own stream, so that the probe's writes come after it.
    C3_CUDA(cudaMemsetAsync(ids.get(), 0xFF, ids.bytes(), lane.stream));
    C3_CUDA(kernels::probe_smid(ids.as<unsigned>(), blocks, 20000, lane.stream));
  }
  finish_lane(rt, lane, timeout_s);
  std::vector<unsigned> host(static_cast<std::size_t>(blocks));
  C3_CUDA(cudaSetDevice(g.device));
  C3_CUDA(cudaMemcpy(host.data(), ids.get(), ids.bytes(), cudaMemcpyDeviceToHost));
  return std::set<unsigned>(host.begin(), host.end());
}

}  // namespace

ProbeResult CudaValidator::probe_sm_ids(int removed) {
  ProbeResult out;
  out.name = "sm_ids/removed=" + std::to_string(removed);
  try {
    Runtime& rt = *impl_->rt;
    const double to = impl_->opt.run_timeout_s;
    Gpu& g = rt.gpu(0);
    if (removed <= 0) {
      const auto s = sm_ids_on(rt, g.work, to);
      out.values = {{"device_sms", g.sms}, {"primary_distinct_sms", static_cast<double>(s.size())}};
      out.ok = static_cast<int>(s.size()) <= g.sms;
      out.verdict = "primary context: blocks ran on " + std::to_string(s.size()) + " of " +
                    std::to_string(g.sms) + " SMs";
      return out;
    }
    Partition& p = rt.partition(0, removed);
    GreenSide& tw = rt.twin(0, p);
    const auto G = sm_ids_on(rt, p.group.lane, to);
    const auto R = sm_ids_on(rt, p.rest.lane, to);
    const auto T = sm_ids_on(rt, tw.lane, to);
    std::size_t overlap = 0;
    for (unsigned id : G) overlap += R.count(id);
    out.values = {{"group_sms", p.group.sms},
                  {"group_distinct_sms", static_cast<double>(G.size())},
                  {"rest_sms", p.rest.sms},
                  {"rest_distinct_sms", static_cast<double>(R.size())},
                  {"group_rest_overlap", static_cast<double>(overlap)},
                  {"twin_same_sms_as_group", T == G ? 1.0 : 0.0}};
    out.ok = static_cast<int>(G.size()) <= p.group.sms && static_cast<int>(R.size()) <= p.rest.sms &&
             overlap == 0;
    out.verdict = std::string(out.ok ? "holds" : "DOES NOT HOLD") + ": group of " +
                  std::to_string(p.group.sms) + " SMs ran on " + std::to_string(G.size()) +
                  " distinct SMs, rest of " + std::to_string(p.rest.sms) + " on " +
                  std::to_string(R.size()) + ", overlap " + std::to_string(overlap) +
                  (T == G ? "; twin context uses the group's SMs" : "; twin context differs");
  } catch (const std::exception& e) {
    out.ok = false;
    out.error = e.what();
  }
  return out;
}

ProbeResult CudaValidator::probe_blocking(const std::string& target, const std::string& where,
                                          int sms, double hog_ms, const Gemm& gemm_shape,
                                          std::int64_t coll_bytes) {
  ProbeResult out;
  out.name = "blocking/" + target + "/" + where + "/sms=" + std::to_string(sms);
  try {
    Impl& I = *impl_;
    Runtime& rt = *I.rt;
    const bool nccl = target == "nccl";
    if (!nccl && target != "gemm") throw InputError("probe_blocking: target gemm or nccl");
    if (where != "same" && where != "other" && where != "primary")
      throw InputError("probe_blocking: where = same, other or primary");
    const int ranks = nccl ? rt.count() : 1;
    if (nccl && ranks < 2) throw CudaFailure("unsupported", "NCCL probe needs 2 GPUs");
    ++I.epoch;
    std::vector<Partition*> parts;
    std::vector<GreenSide*> twins;
    std::vector<Lane*> lanes;
    std::vector<int> gpus;
    for (int r = 0; r < ranks; ++r) {
      Partition& p = rt.partition(r, sms);
      parts.push_back(&p);
      twins.push_back(&rt.twin(r, p));
      Gpu& g = rt.gpu(r);
      lanes.push_back(where == "same" ? &p.group.lane
                                      : where == "other" ? &p.rest.lane : (nccl ? &g.coll : &g.work));
      gpus.push_back(r);
    }
    std::unique_ptr<GemmRunner> runner;
    std::unique_ptr<CollBuffers> bufs;
    const std::vector<ncclComm_t>* comms = nullptr;
    int hint = 0;
    if (nccl) {
      bufs = std::make_unique<CollBuffers>(rt, plan_collective(CollectiveKind::all_gather, coll_bytes, ranks),
                                           I.epoch);
      comms = &rt.comms(ranks, where == "primary" ? 0 : sms);
    } else {
      runner = std::make_unique<GemmRunner>(rt, gemm_shape, 1, 0, I.epoch);
      hint = lanes[0]->ctx ? lanes[0]->sms : 0;
      runner->prepare(hint);
    }
    auto launch = [&] {
      if (nccl)
        launch_nccl(*bufs, *comms, lanes);
      else
        runner->launch(0, *lanes[0], hint);
    };
    const double to = I.opt.run_timeout_s;
    rt.timed(gpus, lanes, launch, to, nccl ? *comms : std::vector<ncclComm_t>{}, rt.gate);  // warm-up
    const RunTime alone = rt.timed(gpus, lanes, launch, to, nccl ? *comms : std::vector<ncclComm_t>{}, rt.gate);
    // Hog every thread slot of the partition's SMs through the twin context, then launch.
    const double hog_start = now_s();
    for (int r = 0; r < ranks; ++r) {
      GreenSide& tw = *twins[static_cast<std::size_t>(r)];
      ScopedContext scope(tw.ctx);
      C3_CUDA(kernels::hog(2 * tw.sms, static_cast<std::uint64_t>(hog_ms * 1e6), tw.lane.stream));
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
    const double t0 = now_s();
    launch();
    for (Lane* l : lanes) finish_lane(rt, *l, to + hog_ms * 1e-3);
    const double target_s = now_s() - t0;
    for (GreenSide* tw : twins) finish_lane(rt, tw->lane, to + hog_ms * 1e-3);
    const double hog_s = now_s() - hog_start;
    const bool blocked = target_s * 1e3 > 0.5 * (hog_ms - 5.0);
    out.values = {{"partition_sms", parts[0]->group.sms},
                  {"hog_ms", hog_ms},
                  {"hog_observed_ms", hog_s * 1e3},
                  {"target_alone_ms", alone.device_s * 1e3},
                  {"target_with_hog_ms", target_s * 1e3},
                  {"blocked", blocked ? 1.0 : 0.0}};
    if (nccl) {
      std::string first;
      const auto bad = bufs->check(rt, to, &first);
      out.values.push_back({"mismatches", static_cast<double>(bad)});
    }
    const bool expect_blocked = where == "same";
    out.ok = blocked == expect_blocked;
    out.verdict = target + " in " + (where == "primary" ? std::string("the primary context")
                                                         : "a green context on the " + where + " SMs") +
                  (blocked ? " waited for the hog" : " ran beside the hog") +
                  (out.ok ? " (as a partition that holds should)" : " (NOT what a holding partition does)");
  } catch (const std::exception& e) {
    out.ok = false;
    out.error = e.what();
  }
  return out;
}

}  // namespace cuda

namespace backends {

/// Called by c3::register_builtin_backends() (backends/cuda/CMakeLists.txt).
void register_cuda() {
  register_backend("cuda", [](const std::string& arg, const HardwareProfile& hw) -> std::unique_ptr<Validator> {
    return std::make_unique<cuda::CudaValidator>(cuda::parse_cuda_options(arg), hw);
  });
}

}  // namespace backends

}  // namespace c3
