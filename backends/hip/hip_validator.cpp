// backends/hip/hip_validator.cpp: the "hip" backend's Validator hooks: GEMMs, collectives,
// independent pairs under every strategy of the ConCCL paper, dependent pairs (serial and
// chunked:*, dependent.cpp), copies, the CU-mask probe, provenance and registration. What is vendor-neutral (the run loop, the timing loop,
// failure names, where a pair runs, the checks' expected values) is backends/device/.
#include <hip/hip_runtime_api.h>

#include <algorithm>
#include <set>
#include <sstream>

#include "c3/errors.hpp"
#include "backends/device/options.hpp"
#include "backends/device/pair_placement.hpp"
#include "backends/device/runner.hpp"
#include "backends/hip/collectives.hpp"
#include "backends/hip/dependent.hpp"
#include "backends/hip/gemm.hpp"
#include "backends/hip/hip_backend.hpp"
#include "backends/hip/kernels.hpp"
#include "backends/hip/runtime.hpp"

namespace c3 {
namespace hip {
namespace {

const std::vector<std::string> kFaults = {"oom", "timeout"};

using device::failed;

std::string version_string(int v) {  // HIP: major * 10^7 + minor * 10^5 + patch
  return std::to_string(v / 10000000) + "." + std::to_string((v / 100000) % 100) + "." + std::to_string(v % 100000);
}

}  // namespace

// ---------------------------------------------------------------------------------------
HipOptions parse_hip_options(const std::string& arg) {
  HipOptions o;
  const std::string b = "hip";
  for (const auto& [key, v] : device::option_items(arg, b)) {
    if (key == "gpus") o.gpus = device::parse_int(v, key, 1, b);
    else if (key == "warmup") o.warmup_runs = device::parse_int(v, key, 0, b);
    else if (key == "runs") o.measured_runs = device::parse_int(v, key, 1, b);
    else if (key == "timeout") o.run_timeout_s = device::parse_int(v, key, 1, b);
    else if (key == "partition_collective") o.partition_collective = device::parse_bool(v, key, b);
    else if (key == "priority") o.collective_high_priority = device::parse_bool(v, key, b);
    else if (key == "verify") o.verify = device::parse_bool(v, key, b);
    else if (key == "samples") o.gemm_check_samples = device::parse_int(v, key, 0, b);
    else if (key == "trace") o.trace_runs = device::parse_int(v, key, 0, b);
    else if (key == "cu_granule") o.cu_granule = device::parse_int(v, key, 1, b);
    else if (key == "gate")
      throw InputError("hip backend: option 'gate' (gated runs) is the cuda backend's only; the hip backend "
                       "times runs as the host launches them");
    else if (key == "ce") {
      if (v == "push") o.ce.direction = validator::CeDirection::push;
      else if (v == "pull") o.ce.direction = validator::CeDirection::pull;
      else throw InputError("hip backend option ce: push or pull, got '" + v + "'");
    } else if (key == "ce_chunks") o.ce.chunks = device::parse_int(v, key, 1, b);
    else if (key == "fault") {
      const device::FaultSpec f = device::parse_fault(v, kFaults, b);
      o.fault = f.name;
      o.fault_at = f.at;
    } else
      throw InputError("hip backend: unknown option '" + key +
                       "' (valid: gpus, warmup, runs, timeout, partition_collective, priority, verify, samples, trace, "
                       "cu_granule, ce, ce_chunks, fault)");
  }
  return o;
}

HipProvenance hip_provenance() {
  HipProvenance p;
  p.platform = platform_name();
  int n = 0;
  const hipError_t e = hipGetDeviceCount(&n);
  if (e != hipSuccess || n == 0)
    throw BackendError(std::string("hip: no HIP device (") + platform_name() + " platform: " +
                       (e == hipSuccess ? "none visible" : hipGetErrorString(e)) + ")");
  p.gpus = n;
  hipDeviceProp_t prop{};
  if (hipGetDeviceProperties(&prop, 0) == hipSuccess) {
    p.device = prop.name;
    p.cus = prop.multiProcessorCount;
#if defined(__HIP_PLATFORM_AMD__)
    p.arch = prop.gcnArchName;
#endif
  }
  int drv = 0, rtv = 0;
  (void)hipDriverGetVersion(&drv);
  (void)hipRuntimeGetVersion(&rtv);
  p.driver = amd_platform() ? version_string(drv) : std::to_string(drv);
  p.runtime = amd_platform() ? version_string(rtv) : std::to_string(rtv);
  p.hipblaslt = have_hipblaslt() ? "built in" : "not built in";
#if C3_HIP_HAVE_RCCL
  int v = 0;
  if (ncclGetVersion(&v) == ncclSuccess)
    p.rccl = std::to_string(v / 10000) + "." + std::to_string((v / 100) % 100) + "." + std::to_string(v % 100);
#else
  p.rccl = "not built in";
#endif
  bool all = true;
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) {
      if (i == j) continue;
      int can = 0;
      (void)hipDeviceCanAccessPeer(&can, i, j);
      all = all && can;
    }
  p.peers = n < 2 ? "single GPU" : (all ? "all pairs peer-capable" : "some pairs not peer-capable");
  return p;
}

// ---------------------------------------------------------------------------------------
struct HipValidator::Impl {
  HipOptions opt;
  std::string profile_name;
  int profile_cus = 0;
  std::unique_ptr<Runtime> rt;
  RunDetail last;
  std::uint32_t epoch = 1;
  Capabilities caps;
  RunConfig cfg;         // mirrors Validator::run_config(), refreshed by each hook
  long measurements = 0;  // begun in this process (fault injection counts them)

  struct Job {
    std::vector<int> gpus;
    std::vector<Lane*> lanes;
    std::function<void()> launch;
    std::function<void()> poison;                      // before checked runs
    std::function<std::int64_t(std::string*)> verify;  // after checked runs
    std::vector<Comm> watch;
  };

  Measurement run(Job& job) {
    device::RunHooks hooks;
    hooks.run = [&] { return rt->timed(job.gpus, job.lanes, job.launch, opt.run_timeout_s, job.watch); };
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
      if (opt.fault_at == measurements) return with_fault(body);
      return body();
    });
  }

  // The injected fault of HipOptions::fault, through the real failure paths.
  Measurement with_fault(const std::function<Measurement()>& body) {
    const std::string note =
        "fault injected (hip option fault=" + opt.fault + "@" + std::to_string(opt.fault_at) + ")";
    if (opt.fault == "oom") {
      Gpu& g = rt->gpu(0);
      try {
        DeviceBuffer hog(g.device, g.total_mem + (std::size_t{1} << 30));  // more than the GPU has
      } catch (const HipFailure& e) {
        throw HipFailure(e.code(), note + " (" + e.what() + ")");
      }
      throw HipFailure("error", note + ": hipMalloc of more than the GPU has succeeded");
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
  }

  Lane& coll_lane(Gpu& g) { return opt.collective_high_priority ? g.coll_hi : g.coll; }
  std::string dma_name() const { return validator::to_string(opt.ce); }

  // A dependent pair (dependency != none): serial or decomposed, on DependentRun; timed and
  // checked by run() like every other measurement.
  Measurement dependent(const C3Pair& pair, const Strategy& s) {
    last.what = "dependent";
    const ExecutionPlan how = device::dependent_execution(pair, s);
    DependentRun dep(*rt, pair, how, device::dependent_options(opt, epoch, false));
    const device::DependentReport& rep = dep.report();
    device::describe(last, rep, pair.collective.ranks);
    Job job = device::dependent_job<Job>(dep, opt.run_timeout_s);
    Measurement m = run(job);
    m.gemm_kernel = rep.first_kernel;
    if (m.ok && opt.trace_runs > 0) m.timeline = dep.trace(opt.trace_runs, opt.run_timeout_s);
    return m;
  }

  void build_capabilities() {
    caps.backend = "hip";
    Gpu& g0 = rt->gpu(0);
    caps.device = g0.name + " x" + std::to_string(rt->count());
    caps.gpus = rt->count();
    caps.compute_units = g0.cus;
    const bool multi = rt->count() >= 2;
    const bool masks = Runtime::has_cu_masks();
    const bool libraries = have_hipblaslt() && C3_HIP_HAVE_RCCL;
    if (multi && libraries) caps.strategies = runnable_kinds({masks, rt->peer_ok, device::kMaxDependentChunks});
    try {
      const HipProvenance p = hip_provenance();
      caps.versions = {{"driver", p.driver}, {"hip", p.runtime}, {"hipblaslt", p.hipblaslt}, {"rccl", p.rccl}};
      caps.notes.push_back("versions: HIP (" + p.platform + " platform) runtime " + p.runtime + ", driver " +
                           p.driver + ", hipBLASLt " + p.hipblaslt + ", " + ccl_name() + " " + p.rccl +
                           (p.arch.empty() ? "" : "; " + p.arch));
    } catch (const std::exception& e) {
      caps.notes.push_back(std::string("versions unavailable: ") + e.what());
    }
    caps.notes.push_back(std::to_string(g0.cus) + " CUs per GPU, L2 " + std::to_string(g0.l2_bytes >> 20) +
                         " MiB; " + rt->peer_note);
    if (!multi) caps.notes.push_back("one GPU: collectives and pairs need at least 2 GPUs");
    if (!libraries)
      caps.notes.push_back(std::string("built without ") +
                           (!have_hipblaslt() && !C3_HIP_HAVE_RCCL ? "hipBLASLt and RCCL"
                            : !have_hipblaslt()                   ? "hipBLASLt"
                                                                  : "RCCL") +
                           ": no strategies (pairs need both); what runs: copies, dma collectives" +
                           (C3_HIP_HAVE_RCCL ? std::string(", ") + ccl_name() + " collectives" : std::string()));
    if (masks)
      caps.notes.push_back("partitions: CU-masked streams (hipExtStreamCreateWithCUMask), groups rounded up to "
                           "multiples of " + std::to_string(rt->cu_granule) +
                           " CUs (mask bit i on XCC i mod n); the collective in the group with "
                           "minCTAs = maxCTAs = its CUs, the GEMM in the rest");
    else
      caps.notes.push_back(std::string("no CU masks on HIP's ") + platform_name() +
                           " platform: no rp, dma_rp, or GEMMs with CUs removed");
    caps.notes.push_back("collectives in bf16; reduce_scatter and all_reduce have no dma transport "
                         "(copy engines cannot reduce); all_to_all as grouped send/recv");
    caps.dma_variants = {validator::to_string(opt.ce)};
    for (const char* v : {"ce_push_peer", "ce_pull_peer", "ce_push_peer_c4", "ce_push_peer_fixed"})
      if (v != caps.dma_variants.front()) caps.dma_variants.push_back(v);
    caps.notes.push_back("dma transport: " + validator::to_string(opt.ce) +
                         " by default (hipMemcpyPeerAsync, one stream per peer, issued and synchronized from the "
                         "host; ROCm runs peer copies on SDMA engines unless HSA_ENABLE_SDMA=0)");
    caps.notes.push_back("timing: device events from before the first launch to after the last completion, max "
                         "over GPUs; warm-up then measured runs (run_config)");
    if (multi)
      caps.notes.push_back(
          "dependent pairs (docs/device.md): serial = the whole collective and the GEMM of all rows on one "
          "stream in dependency order; chunked:C = the dependent operand in C pieces (up to " +
          std::to_string(device::kMaxDependentChunks) +
          ", C a multiple of the ranks dividing m) on two streams joined by hipEvents: the GEMM on the local rows "
          "first, then each step's pieces once they arrived (collective_feeds_gemm), or each step's rows of every "
          "rank's block then their reduce-scatter / all-to-all (gemm_feeds_collective); steps on " +
          std::string(ccl_name()) +
          " send/recv or reduce-scatter (cu, :c in a CU-masked partition of c CUs with c channels) or "
          "hipMemcpyPeerAsync on the SDMA streams (dma); the GEMM pieces strided-batched hipBLASLt calls on "
          "row-major operands. Checked against the undecomposed computation: moved A rows bitwise, outputs sampled "
          "(2 per piece) against a host reference; other strategies refuse dependent pairs" +
          (have_hipblaslt() ? std::string() : std::string("; this build has no hipBLASLt: they report unsupported")));
    if (profile_cus > 0 && profile_cus != g0.cus)
      caps.notes.push_back("profile '" + profile_name + "' has " + std::to_string(profile_cus) +
                           " compute units, this GPU " + std::to_string(g0.cus) + " CUs");
  }
};

// ---------------------------------------------------------------------------------------
HipValidator::HipValidator(const HipOptions& options, const HardwareProfile& hw) : impl_(std::make_unique<Impl>()) {
  impl_->opt = options;
  impl_->profile_name = hw.name;
  impl_->profile_cus = hw.compute_units;
  impl_->rt = std::make_unique<Runtime>(options.gpus, options.cu_granule);
  impl_->build_capabilities();
  set_runs(options.warmup_runs, options.measured_runs);
}

HipValidator::~HipValidator() = default;

const HipOptions& HipValidator::options() const { return impl_->opt; }
void HipValidator::set_runs(int warmup_runs, int measured_runs) {
  RunConfig c;
  c.warmup_runs = warmup_runs;
  c.measured_runs = measured_runs;
  set_run_config(c);  // throws InputError on bad counts
  impl_->opt.warmup_runs = warmup_runs;
  impl_->opt.measured_runs = measured_runs;
}
void HipValidator::set_run_timeout(double seconds) {
  if (!(seconds > 0)) throw InputError("hip: timeout must be > 0");
  impl_->opt.run_timeout_s = seconds;
}
void HipValidator::set_ce_options(const validator::CeOptions& ce) { impl_->opt.ce = ce; }
void HipValidator::do_set_dma_variant(const std::string& name) {
  const validator::CeOptions ce = validator::parse_ce_variant(name);  // throws InputError
  if (ce.api != validator::CeApi::peer_memcpy || ce.launch != validator::CeLaunch::host)
    throw InputError("backend 'hip' has no dma variant '" + name +
                     "': HIP has no batched copy API and the hip backend launches from the host (ce_{push|pull}_peer"
                     "[_cN][_fixed])");
  impl_->opt.ce = ce;
}
void HipValidator::set_partition_collective(bool on) { impl_->opt.partition_collective = on; }
void HipValidator::set_collective_high_priority(bool on) { impl_->opt.collective_high_priority = on; }
void HipValidator::inject_fault_next(const std::string& fault) {
  if (std::find(kFaults.begin(), kFaults.end(), fault) == kFaults.end())
    throw InputError("hip: fault oom or timeout, got '" + fault + "'");
  impl_->opt.fault = fault;
  impl_->opt.fault_at = impl_->measurements + 1;
}
int HipValidator::gpu_count() const { return impl_->rt->count(); }
int HipValidator::cu_count() const { return impl_->rt->gpu(0).cus; }
const RunDetail& HipValidator::last_detail() const { return impl_->last; }
std::pair<int, int> HipValidator::partition_for(int cus) { return impl_->rt->split_sizes(0, cus); }
bool HipValidator::healthy() const { return !device_poisoned(); }

Capabilities HipValidator::do_capabilities() const { return impl_->caps; }

// ---------------------------------------------------------------------------------------
Measurement HipValidator::do_gemm(const Gemm& gemm, int cus_removed) {
  Impl& I = *impl_;
  I.begin("gemm", format_gemm(gemm) + (cus_removed ? " -" + std::to_string(cus_removed) + "CUs" : ""), run_config());
  return I.guarded([&]() -> Measurement {
    Runtime& rt = *I.rt;
    Gpu& g = rt.gpu(0);
    Lane* lane = &g.work;
    if (cus_removed > 0) {
      Partition& p = rt.partition(0, cus_removed);
      lane = &p.rest;
      I.last.note = "removed " + std::to_string(p.split.group) + " CUs (asked " + std::to_string(cus_removed) + ")";
    }
    I.last.gemm_sms = lane->cus;
    GemmRunner runner(rt, gemm, 1, I.opt.gemm_check_samples, I.epoch);
    I.last.gemm_algo = runner.algo_description();
    Impl::Job job;
    job.gpus = {0};
    job.lanes = {lane};
    job.launch = [&] { runner.launch(0, *lane); };
    job.poison = [&] { runner.poison(I.opt.run_timeout_s); };
    job.verify = [&](std::string* first) { return runner.verify(first); };
    Measurement m = I.run(job);
    m.gemm_kernel = runner.kernel();
    return m;
  });
}

Measurement HipValidator::do_collective(const Collective& c, Transport transport, int cus) {
  Impl& I = *impl_;
  const bool dma = transport == Transport::dma;
  I.begin("collective", std::string(to_string(c.kind)) + ":" + format_size(c.size_bytes) + "/" +
                            (dma ? I.dma_name() : std::string(ccl_name())) +
                            (cus > 0 && !dma ? "/ctas=" + std::to_string(cus) : ""),
          run_config());
  return I.guarded([&]() -> Measurement {
    Runtime& rt = *I.rt;
    const device::CollPlan plan = device::plan_collective(c.kind, c.size_bytes, c.ranks);
    if (plan.ranks > rt.count())
      throw HipFailure("unsupported", std::to_string(c.ranks) + " ranks but " + std::to_string(rt.count()) + " GPUs");
    if (dma) check_ce(rt, plan, I.opt.ce);
    I.last.ranks = plan.ranks;
    I.last.size_bytes = plan.size_bytes;
    I.last.transport = dma ? I.dma_name() : ccl_name();
    CollBuffers bufs(rt, plan, I.epoch);
    Impl::Job job;
    for (int r = 0; r < plan.ranks; ++r) job.gpus.push_back(r);
    job.poison = [&] { bufs.poison(rt, I.opt.run_timeout_s); };
    job.verify = [&](std::string* first) { return bufs.check(rt, first); };
    std::vector<Lane*> per_rank;
    if (dma) {
      job.lanes = ce_lanes(rt, plan.ranks);
      job.launch = [&] { launch_ce(rt, bufs, I.opt.ce); };
    } else {
      const auto& comms = rt.comms(plan.ranks, cus > 0 ? cus : 0);
      for (int r = 0; r < plan.ranks; ++r) {
        Gpu& g = rt.gpu(r);
        per_rank.push_back(cus > 0 && I.opt.partition_collective ? &rt.partition(r, cus).group : &I.coll_lane(g));
      }
      I.last.collective_sms = per_rank[0]->cus;
      I.last.collective_ctas = cus > 0 ? cus : 0;
      job.lanes = per_rank;
      job.watch = comms;
      job.launch = [&] { launch_ccl(bufs, comms, per_rank); };
    }
    return I.run(job);
  });
}

Measurement HipValidator::do_concurrent(const C3Pair& pair, const Strategy& s) {
  Impl& I = *impl_;
  I.begin("concurrent", (pair.name.empty() ? format_gemm(pair.gemm) : pair.name) + "/" +
                            std::string(to_string(pair.collective.kind)) + "/" + s.label(),
          run_config());
  return I.guarded([&]() -> Measurement {
    if (pair.dependency != Dependency::none) return I.dependent(pair, s);
    Runtime& rt = *I.rt;
    const Collective& c = pair.collective;
    const device::CollPlan plan = device::plan_collective(c.kind, c.size_bytes, c.ranks);
    if (plan.ranks > rt.count())
      throw HipFailure("unsupported", std::to_string(c.ranks) + " ranks but " + std::to_string(rt.count()) + " GPUs");
    const ExecutionPlan how = strategies::plan_of(s);
    const bool dma = how.transport == Transport::dma;
    if (dma) check_ce(rt, plan, I.opt.ce);
    if (how.chunks != 1)
      throw HipFailure("unsupported", s.label() + " decomposes a dependent pair's operand; this pair is "
                                                  "independent (dependency none)");
    const int ranks = plan.ranks;
    I.last.ranks = ranks;
    I.last.size_bytes = plan.size_bytes;
    I.last.transport = dma ? I.dma_name() : ccl_name();

    CollBuffers bufs(rt, plan, I.epoch);
    GemmRunner gemm(rt, pair.gemm, ranks, I.opt.gemm_check_samples, I.epoch);
    const device::PairPlacement place = device::place_pair(how, I.opt.partition_collective);
    const int ctas = dma ? 0 : place.collective_budget;
    std::vector<Lane*> gemm_lanes(static_cast<std::size_t>(ranks));
    std::vector<Lane*> coll_lanes(static_cast<std::size_t>(ranks));
    for (int r = 0; r < ranks; ++r) {
      Gpu& g = rt.gpu(r);
      Partition* p = place.partition_cus > 0 ? &rt.partition(r, place.partition_cus) : nullptr;
      const bool hi = I.opt.collective_high_priority;
      gemm_lanes[static_cast<std::size_t>(r)] = lane_of(place.gemm, hi, g, p);
      if (!dma) coll_lanes[static_cast<std::size_t>(r)] = lane_of(place.collective, hi, g, p);
    }
    I.last.gemm_algo = gemm.algo_description();
    I.last.gemm_sms = gemm_lanes[0]->cus;
    I.last.collective_sms = dma ? 0 : coll_lanes[0]->cus;
    I.last.collective_ctas = ctas;
    const std::vector<Comm>* comms = dma ? nullptr : &rt.comms(ranks, ctas);

    Impl::Job job;
    for (int r = 0; r < ranks; ++r) job.gpus.push_back(r);
    std::set<Lane*> lane_set(gemm_lanes.begin(), gemm_lanes.end());
    if (dma) {
      for (Lane* l : ce_lanes(rt, ranks)) lane_set.insert(l);
    } else {
      lane_set.insert(coll_lanes.begin(), coll_lanes.end());
      job.watch = *comms;
    }
    job.lanes.assign(lane_set.begin(), lane_set.end());
    auto launch_gemms = [&] {
      for (int r = 0; r < ranks; ++r) gemm.launch(r, *gemm_lanes[static_cast<std::size_t>(r)]);
    };
    auto launch_coll = [&] {
      if (dma)
        launch_ce(rt, bufs, I.opt.ce);
      else
        launch_ccl(bufs, *comms, coll_lanes);
    };
    job.launch = [&] {
      if (place.collective_first) {
        launch_coll();
        launch_gemms();
      } else {  // serial (one stream: GEMM then collective) and GEMM first
        launch_gemms();
        launch_coll();
      }
    };
    job.poison = [&] {
      bufs.poison(rt, I.opt.run_timeout_s);
      gemm.poison(I.opt.run_timeout_s);
    };
    job.verify = [&](std::string* first) { return bufs.check(rt, first) + gemm.verify(first); };
    Measurement m = I.run(job);
    m.gemm_kernel = gemm.kernel();
    return m;
  });
}

Measurement HipValidator::do_copy(CopyPath path, std::int64_t size_bytes) {
  Impl& I = *impl_;
  I.begin("copy", std::string(to_string(path)) + ":" + format_size(size_bytes), run_config());
  return I.guarded([&]() -> Measurement {
    Runtime& rt = *I.rt;
    const int n = rt.count();
    if (path != CopyPath::device_local && n >= 2 && !rt.peer_ok)
      throw HipFailure("unsupported", "peer access unavailable: " + rt.peer_note);
    const device::CopyPlan plan = device::plan_copy(path, size_bytes, n);
    const auto lane_of = [&](const device::CopyLane& l) -> Lane& {
      return l.peer < 0 ? rt.gpu(l.gpu).work : rt.gpu(l.gpu).peer[static_cast<std::size_t>(l.peer)];
    };
    std::vector<DeviceBuffer> src, dst;
    for (int g : plan.src_gpus) src.emplace_back(rt.gpu(g).device, plan.piece_elems * 2);
    for (int g : plan.dst_gpus) dst.emplace_back(rt.gpu(g).device, plan.dst_elems * 2);
    Impl::Job job;
    job.gpus = plan.timed_gpus;
    for (const device::CopyLane& l : plan.timed_lanes) job.lanes.push_back(&lane_of(l));
    I.last.size_bytes = plan.moved_bytes;
    I.last.transport = "hipMemcpy";
    const auto seed_of = [&](int gpu) {
      return pattern::seed_for(device::kRoleCopy, static_cast<std::uint32_t>(gpu), I.epoch);
    };
    for (std::size_t i = 0; i < src.size(); ++i) {
      Gpu& g = rt.gpu(plan.src_gpus[i]);
      C3_HIP(hipSetDevice(g.device));
      C3_HIP(kernels::fill(src[i].as<std::uint16_t>(), plan.piece_elems, kernels::FillKind::random_bits,
                           seed_of(plan.src_gpus[i]), 0, g.work.stream));
    }
    rt.sync_all(I.opt.run_timeout_s);
    job.launch = [&] {
      for (const device::CopyPiece& p : plan.pieces)
        ce_copy(dst[p.dst].as<std::uint16_t>() + p.dst_offset_elems, rt.gpu(p.to).device,
                src[static_cast<std::size_t>(p.from)].get(), rt.gpu(p.from).device, plan.piece_elems * 2,
                lane_of(p.lane), rt.gpu(p.lane.gpu).device);
    };
    job.poison = [&] {
      // On the GPU's work stream, which sync_all drains (a plain hipMemset runs on the null
      // stream, which the copy's non-blocking streams do not wait for).
      for (std::size_t i = 0; i < dst.size(); ++i) {
        Gpu& g = rt.gpu(plan.dst_gpus[i]);
        C3_HIP(hipSetDevice(g.device));
        C3_HIP(hipMemsetAsync(dst[i].get(), 0xFF, dst[i].bytes(), g.work.stream));
      }
      rt.sync_all(I.opt.run_timeout_s);
    };
    job.verify = [&](std::string* first) -> std::int64_t {
      std::int64_t bad = 0;
      for (const device::CopyPiece& p : plan.pieces) {
        kernels::CheckArgs a;
        a.kind = kernels::CheckKind::copy;
        a.out = dst[p.dst].as<std::uint16_t>() + p.dst_offset_elems;
        a.count = plan.piece_elems;
        a.copy_seed = seed_of(p.from);
        const CheckResult c = run_check(rt.gpu(p.to), a);
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
namespace {

std::set<unsigned> cu_ids_on(Runtime& rt, Lane& lane, double timeout_s) {
  Gpu& g = rt.gpu(lane.gpu);
  const int blocks = 4 * g.cus;
  DeviceBuffer ids(g.device, static_cast<std::size_t>(blocks) * sizeof(unsigned));
  C3_HIP(hipMemsetAsync(ids.get(), 0xFF, ids.bytes(), lane.stream));  // ordered before the probe's writes
  C3_HIP(kernels::probe_cu_ids(ids.as<unsigned>(), blocks, 20, lane.stream));
  rt.finish(lane, timeout_s);
  std::vector<unsigned> host(static_cast<std::size_t>(blocks));
  C3_HIP(hipMemcpy(host.data(), ids.get(), ids.bytes(), hipMemcpyDeviceToHost));
  return std::set<unsigned>(host.begin(), host.end());
}

}  // namespace

ProbeResult HipValidator::probe_cu_ids(int removed) {
  ProbeResult out;
  out.name = "cu_ids/removed=" + std::to_string(removed);
  try {
    Runtime& rt = *impl_->rt;
    const double to = impl_->opt.run_timeout_s;
    Gpu& g = rt.gpu(0);
    if (removed <= 0) {
      const auto s = cu_ids_on(rt, g.work, to);
      out.values = {{"device_cus", g.cus}, {"unmasked_distinct_cus", static_cast<double>(s.size())}};
      out.ok = !s.empty();
      out.verdict = "unmasked stream: blocks ran on " + std::to_string(s.size()) + " distinct CU ids (" +
                    std::to_string(g.cus) + " CUs)";
      return out;
    }
    Partition& p = rt.partition(0, removed);
    const auto G = cu_ids_on(rt, p.group, to);
    const auto R = cu_ids_on(rt, p.rest, to);
    std::size_t overlap = 0;
    for (unsigned id : G) overlap += R.count(id);
    out.values = {{"group_cus", p.split.group},
                  {"group_distinct_cus", static_cast<double>(G.size())},
                  {"rest_cus", p.split.rest},
                  {"rest_distinct_cus", static_cast<double>(R.size())},
                  {"group_rest_overlap", static_cast<double>(overlap)}};
    out.ok = static_cast<int>(G.size()) <= p.split.group && static_cast<int>(R.size()) <= p.split.rest && overlap == 0;
    out.verdict = std::string(out.ok ? "holds" : "DOES NOT HOLD") + ": group of " + std::to_string(p.split.group) +
                  " CUs ran on " + std::to_string(G.size()) + " distinct CU ids, rest of " +
                  std::to_string(p.split.rest) + " on " + std::to_string(R.size()) + ", overlap " +
                  std::to_string(overlap);
  } catch (const std::exception& e) {
    out.ok = false;
    out.error = e.what();
  }
  return out;
}

}  // namespace hip

namespace backends {

/// Called by c3::register_builtin_backends() (backends/hip/CMakeLists.txt).
void register_hip() {
  register_backend("hip", [](const std::string& arg, const HardwareProfile& hw) -> std::unique_ptr<Validator> {
    return std::make_unique<hip::HipValidator>(hip::parse_hip_options(arg), hw);
  });
}

}  // namespace backends

}  // namespace c3
