// The `sim` backend (backends/sim/sim.hpp): builds the engine's launches for each
// query and turns the simulated time into a Measurement.
#include "backends/sim/sim.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <random>

#include "c3/errors.hpp"
#include "io/query.hpp"
#include "backends/sim/sim_engine.hpp"
#include "validator/dependent_plan.hpp"

namespace c3::validator {
namespace {

// ---- default parameters (docs/sim.md, "Parameters") ----
constexpr double kComputeFraction = 0.85;  // a CU reaches this share of its datasheet peak
constexpr double kHbmFraction = 0.85;      // attainable share of datasheet HBM bandwidth
constexpr double kLinkFraction = 0.90;     // attainable share of the link bandwidth
constexpr double kCuBwFairShares = 4.0;    // one CU draws at most 4x its fair share of HBM
constexpr double kEnginesToSaturateLinks = 4.0;
constexpr int kKTileElements = 64;         // a GEMM unit stages k in tiles of 64 ...
constexpr int kPipelineStages = 4;         // ... four deep, in cache
constexpr double kKernelLaunchS = 4e-6;
constexpr double kCollectiveLaunchS = 12e-6;
constexpr double kStepLatencyS = 1.5e-6;
constexpr double kChunkBytes = 512.0 * 1024;
constexpr double kChunkOverheadS = 0.5e-6;
constexpr double kDmaIssueS = 8e-6;
constexpr double kDmaSyncS = 15e-6;
constexpr double kEventWaitS = 0.2e-6;  // a cross-stream event wait on the device
constexpr int kMaxSettleRounds = 200;   // decomposed schedules: rounds until the starts settle
constexpr double kMinNoiseFactor = 0.5;  // a noisy run is never faster than half the time

constexpr CollectiveKind kKinds[] = {CollectiveKind::all_gather, CollectiveKind::all_to_all,
                                     CollectiveKind::reduce_scatter, CollectiveKind::all_reduce};

// Channels a kind needs before the links, not the channels, limit it: all-to-all
// spreads each channel over every peer and needs twice as many.
int channels_to_saturate(CollectiveKind kind) { return kind == CollectiveKind::all_to_all ? 64 : 32; }

bool reduces(CollectiveKind kind) {
  return kind == CollectiveKind::reduce_scatter || kind == CollectiveKind::all_reduce;
}

// Bytes each rank sends (the nccl-tests definition). Kept here rather than taken
// from c3::model so that the simulator shares no code with the model it checks.
double sent_bytes(const Collective& c) {
  const double share = static_cast<double>(c.ranks - 1) / c.ranks;
  return static_cast<double>(c.size_bytes) * share * (c.kind == CollectiveKind::all_reduce ? 2 : 1);
}

int algorithm_steps(const Collective& c) {
  return (c.ranks - 1) * (c.kind == CollectiveKind::all_reduce ? 2 : 1);
}

std::int64_t ceil_div(std::int64_t a, std::int64_t b) { return (a + b - 1) / b; }

void require(bool ok, const HardwareProfile& hw, std::string_view field) {
  if (!ok)
    throw InputError("sim: profile '" + hw.name + "' needs a positive " + std::string(field));
}

// ---- the engine's launches for each kind of work ----

sim::Launch gemm_launch(const SimParams& p, const Gemm& g, int pool) {
  const auto cu_flops = p.cu_flops_per_s.find(g.dtype);
  if (cu_flops == p.cu_flops_per_s.end())
    throw BackendError("sim: no peak flops for " + std::string(to_string(g.dtype)));
  const std::int64_t tiles_m = ceil_div(g.m, p.gemm_tile_m);
  const std::int64_t tiles_n = ceil_div(g.n, p.gemm_tile_n);
  const double bpe = bytes_per_element(g.dtype);
  const double a = static_cast<double>(g.m) * g.k * bpe;
  const double b = static_cast<double>(g.k) * g.n * bpe;
  const double c = static_cast<double>(g.m) * g.n * bpe;
  // Tiles are visited so that the cheaper operand is the one read again per row.
  const bool reread_b = b * (tiles_m - 1) <= a * (tiles_n - 1);

  sim::Launch l;
  l.type = sim::Launch::Type::gemm;
  l.pool = pool;
  l.launch_s = p.kernel_launch_s;
  sim::GemmKernel& k = l.gemm;
  k.units = ceil_div(tiles_m * tiles_n, p.gemm_workgroups_per_cu);
  k.unit_flops = 2.0 * p.gemm_workgroups_per_cu * p.gemm_tile_m * p.gemm_tile_n * g.k;
  k.cu_flops_per_s = cu_flops->second;
  k.cu_max_bytes_per_s = p.cu_max_bw_bytes_per_s;
  k.traffic.fixed_bytes = c + (reread_b ? a : b);
  k.traffic.reread_bytes = reread_b ? b : a;
  k.traffic.rereads = static_cast<double>(reread_b ? tiles_m - 1 : tiles_n - 1);
  k.traffic.llc_bytes = p.llc_bytes;
  k.traffic.unit_footprint_bytes = p.gemm_unit_cache_bytes;
  k.traffic.channel_footprint_bytes = p.channel_cache_bytes;
  return l;
}

sim::Launch collective_launch(const SimParams& p, const Collective& coll, int channels, int pool) {
  sim::Launch l;
  l.type = sim::Launch::Type::stream;
  l.pool = pool;
  l.launch_s = p.kernel_launch_s;
  sim::StreamKernel& s = l.stream;
  s.units = channels;
  s.unit_bytes = sent_bytes(coll) / channels;
  const double chunks = std::ceil(s.unit_bytes / p.chunk_bytes);
  s.setup_s = p.collective_launch_s + algorithm_steps(coll) * p.step_latency_s +
              chunks * p.chunk_overhead_s;
  s.unit_max_bytes_per_s = p.channel_bw_bytes_per_s.at(coll.kind);
  s.link_bytes_per_byte = 1;
  s.hbm_bytes_per_byte = reduces(coll.kind) ? 3 : 2;  // read, write (+ read the partial sum)
  s.link_bw_bytes_per_s = p.link_bw_bytes_per_s;
  return l;
}

sim::Launch dma_launch(const SimParams& p, const Collective& coll) {
  if (p.copy_engines <= 0) throw BackendError("sim: the profile has no copy engines");
  sim::Launch l;
  l.type = sim::Launch::Type::dma;
  l.launch_s = 0;  // the host issues the first transfer itself
  sim::DmaKernel& d = l.dma;
  d.transfers = coll.ranks - 1;
  d.transfer_bytes = static_cast<double>(coll.size_bytes) / coll.ranks;
  d.issue_s = p.dma_issue_s;
  d.sync_s = p.dma_sync_s;
  d.engines = p.copy_engines;
  d.engine_bw_bytes_per_s = p.engine_bw_bytes_per_s;
  d.link_bw_bytes_per_s = p.link_bw_bytes_per_s;
  d.hbm_bytes_per_byte = 2;
  return l;
}

// A copy kernel on every CU: device-local copies read and write HBM, peer copies
// read it and cross the links.
sim::Launch copy_launch(const SimParams& p, CopyPath path, std::int64_t size_bytes) {
  sim::Launch l;
  l.type = sim::Launch::Type::stream;
  l.launch_s = p.kernel_launch_s;
  sim::StreamKernel& s = l.stream;
  s.is_collective = false;
  s.units = p.compute_units;
  s.unit_bytes = static_cast<double>(size_bytes) / p.compute_units;
  const bool local = path == CopyPath::device_local;
  s.hbm_bytes_per_byte = local ? 2 : 1;
  s.unit_max_bytes_per_s = p.cu_max_bw_bytes_per_s / s.hbm_bytes_per_byte;
  s.link_bytes_per_byte = local ? 0 : 1;
  const double peers = std::max(1, p.gpus - 1);
  s.link_bw_bytes_per_s = path == CopyPath::one_peer
                              ? p.peer_link_bw_bytes_per_s
                              : std::min(p.link_bw_bytes_per_s, peers * p.peer_link_bw_bytes_per_s);
  return l;
}

// ---- the backend ----

std::uint64_t fnv1a(std::string_view text) {
  std::uint64_t h = 1469598103934665603ull;
  for (const char ch : text) h = (h ^ static_cast<unsigned char>(ch)) * 1099511628211ull;
  return h;
}

class SimValidator final : public Validator {
 public:
  explicit SimValidator(SimParams params) : p_(std::move(params)) {}

 private:
  Capabilities do_capabilities() const override {
    Capabilities caps;
    caps.backend = "sim";
    caps.device = p_.device;
    caps.gpus = p_.gpus;
    caps.compute_units = p_.compute_units;
    caps.strategies = runnable_kinds({true, true, 16});
    caps.dma_variants = {"ce"};
    caps.notes = {"simulated: wave-level simulator (docs/sim.md), not hardware",
                  "noise=" + std::to_string(p_.noise) + " seed=" + std::to_string(p_.seed)};
    return caps;
  }

  Measurement do_gemm(const Gemm& g, int cus_removed) override {
    return measure(GemmQuery{g, cus_removed}, [&] { return gemm_s(g, p_.compute_units - cus_removed); });
  }

  Measurement do_collective(const Collective& coll, Transport transport, int cus) override {
    return measure(CollectiveQuery{coll, transport, cus}, [&] {
      return transport == Transport::dma ? run_alone(dma_launch(p_, coll), {})
                                         : cu_collective_s(coll, cus);
    });
  }

  Measurement do_concurrent(const C3Pair& pair, const Strategy& s) override {
    return measure(ConcurrentQuery{pair.gemm, pair.collective, s, pair.dependency},
                   [&] { return concurrent_s(pair, s); });
  }

  Measurement do_copy(CopyPath path, std::int64_t size_bytes) override {
    return measure(CopyQuery{path, size_bytes},
                   [&] { return run_alone(copy_launch(p_, path, size_bytes), {p_.compute_units}); });
  }

  double run_alone(const sim::Launch& launch, std::vector<int> pools) const {
    return sim::run(sim::Machine{std::move(pools), p_.hbm_bw_bytes_per_s}, {launch}).front();
  }

  double gemm_s(const Gemm& g, int cus) const { return run_alone(gemm_launch(p_, g, 0), {cus}); }

  int channels(const Collective& coll, int cus) const {
    return cus > 0 ? cus : p_.default_channels.at(coll.kind);
  }

  double cu_collective_s(const Collective& coll, int cus) const {
    return run_alone(collective_launch(p_, coll, channels(coll, cus), 0), {p_.compute_units});
  }

  // Runs the strategy's ExecutionPlan: one stream (serial), two kernels sharing every
  // CU in launch order, a hard split (the collective in its own partition), or copy
  // engines beside a GEMM on all CUs but the removed ones.
  double concurrent_s(const C3Pair& pair, const Strategy& s) const {
    const ExecutionPlan plan = strategies::plan_of(s);
    const int all = p_.compute_units;
    if (pair.dependency != Dependency::none && plan.order != LaunchOrder::serial) return decomposed_s(pair, plan);
    if (plan.order == LaunchOrder::serial)
      return gemm_s(pair.gemm, all) + cu_collective_s(pair.collective, 0);
    if (plan.transport == Transport::dma)
      return together({all - plan.gemm_cus_removed},
                      {gemm_launch(p_, pair.gemm, 0), dma_launch(p_, pair.collective)});
    if (plan.collective_cus > 0)
      return together({plan.collective_cus, all - plan.collective_cus},
                      {collective_launch(p_, pair.collective, plan.collective_cus, 0),
                       gemm_launch(p_, pair.gemm, 1)});
    const sim::Launch coll = collective_launch(p_, pair.collective, channels(pair.collective, 0), 0);
    const sim::Launch gemm = gemm_launch(p_, pair.gemm, 0);
    return plan.order == LaunchOrder::gemm_first ? together({all}, {gemm, coll}) : together({all}, {coll, gemm});
  }

  // A dependent pair's decomposed schedule (validator/dependent_plan.hpp, the schedule the
  // cuda backend runs): rank 0's GEMM jobs on one stream, the collective's steps on
  // another, each job launched when its stream's previous job and the job it waits for
  // have ended (+ event_wait_s). The engine knows no dependencies, so the launch times are
  // settled by rounds: simulate, move each launch to the ends just simulated, repeat until
  // no launch moves (they only move later). Launches go to the engine in time order, the
  // collective's first at equal times, so a step that finds a GEMM dispatching queues
  // behind its waves as any later kernel does.
  double decomposed_s(const C3Pair& pair, const ExecutionPlan& plan) const {
    const Collective& c = pair.collective;
    DependentSchedule sched;
    try {
      sched = dependent_schedule(pair.dependency, c.kind, pair.gemm.m, c.ranks, plan.chunks);
    } catch (const InputError& e) {
      throw BackendError(std::string("sim: ") + e.what());  // a failed measurement, like the cuda backend's
    }
    const Collective step{c.kind, c.size_bytes / sched.steps, c.ranks};
    const bool dma = plan.transport == Transport::dma;
    const bool split = !dma && plan.collective_cus > 0;
    const std::vector<int> pools =
        split ? std::vector<int>{plan.collective_cus, p_.compute_units - plan.collective_cus}
              : std::vector<int>{p_.compute_units};
    std::vector<sim::Launch> comm, gemm;
    std::vector<int> comm_waits, gemm_waits;
    for (const DepStep& s : sched.comm) {
      comm.push_back(dma ? dma_launch(p_, step)
                         : collective_launch(p_, step, split ? plan.collective_cus : channels(step, 0), 0));
      comm_waits.push_back(s.waits_for_gemm);
    }
    for (const DepGemm& g : sched.gemms.front()) {
      gemm.push_back(gemm_launch(p_, Gemm{g.rows * g.count, pair.gemm.n, pair.gemm.k, pair.gemm.dtype}, split ? 1 : 0));
      gemm_waits.push_back(g.waits_for_step);
    }
    std::vector<double> comm_at(comm.size(), 0.0), gemm_at(gemm.size(), 0.0);
    for (int round = 0; round < kMaxSettleRounds; ++round) {
      // Launch order: by time, the collective's first at equal times.
      std::vector<std::pair<double, int>> order;  // (time, index; comm >= 0, gemm < 0)
      for (std::size_t i = 0; i < comm.size(); ++i) order.emplace_back(comm_at[i], static_cast<int>(i));
      for (std::size_t i = 0; i < gemm.size(); ++i) order.emplace_back(gemm_at[i], -1 - static_cast<int>(i));
      std::stable_sort(order.begin(), order.end(), [](const auto& a, const auto& b) {
        return a.first < b.first || (a.first == b.first && a.second >= 0 && b.second < 0);
      });
      std::vector<sim::Launch> launches;
      for (const auto& [at, i] : order) {
        sim::Launch l = i >= 0 ? comm[static_cast<std::size_t>(i)] : gemm[static_cast<std::size_t>(-1 - i)];
        l.launch_s += at;
        launches.push_back(l);
      }
      const std::vector<double> ends = sim::run(sim::Machine{pools, p_.hbm_bw_bytes_per_s}, launches);
      std::vector<double> comm_end(comm.size()), gemm_end(gemm.size());
      for (std::size_t j = 0; j < order.size(); ++j) {
        const int i = order[j].second;
        (i >= 0 ? comm_end[static_cast<std::size_t>(i)] : gemm_end[static_cast<std::size_t>(-1 - i)]) = ends[j];
      }
      bool moved = false;
      const auto settle = [&](std::vector<double>& at, const std::vector<double>& own_end,
                              const std::vector<int>& waits, const std::vector<double>& other_end) {
        for (std::size_t i = 0; i < at.size(); ++i) {
          double t = i == 0 ? 0.0 : own_end[i - 1];
          if (waits[i] >= 0) t = std::max(t, other_end[static_cast<std::size_t>(waits[i])] + p_.event_wait_s);
          if (t > at[i] + 1e-12) {
            at[i] = t;
            moved = true;
          }
        }
      };
      settle(comm_at, comm_end, comm_waits, gemm_end);
      settle(gemm_at, gemm_end, gemm_waits, comm_end);
      if (!moved) return std::max(*std::max_element(comm_end.begin(), comm_end.end()),
                                  *std::max_element(gemm_end.begin(), gemm_end.end()));
    }
    throw BackendError("sim: the decomposed schedule's launch times did not settle in " +
                       std::to_string(kMaxSettleRounds) + " rounds");
  }

  double together(std::vector<int> pools, const std::vector<sim::Launch>& launches) const {
    const std::vector<double> ends =
        sim::run(sim::Machine{std::move(pools), p_.hbm_bw_bytes_per_s}, launches);
    return *std::max_element(ends.begin(), ends.end());
  }

  // Simulates once; each measured run is that time with its own seeded noise, so a
  // query's result never depends on what was measured before it.
  template <class Simulate>
  Measurement measure(const Query& query, Simulate simulate) const {
    double t = 0;
    try {
      t = simulate();
    } catch (const BackendError& e) {
      Measurement failed;
      failed.error = e.what();
      return failed;
    }
    std::mt19937_64 rng(fnv1a(measurement_key(query)) ^ p_.seed);
    std::normal_distribution<double> z(0.0, 1.0);
    std::vector<double> runs;
    for (int i = 0; i < run_config().measured_runs; ++i)
      runs.push_back(t * std::max(kMinNoiseFactor, 1.0 + p_.noise * z(rng)));
    return summarize_runs(std::move(runs), run_config().warmup_runs, false);
  }

  SimParams p_;
};

double parse_number(std::string_view key, std::string_view text) {
  double v = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || end != text.data() + text.size() || !std::isfinite(v))
    throw InputError("sim: " + std::string(key) + "='" + std::string(text) + "' is not a number");
  return v;
}

}  // namespace

SimParams sim_params(const HardwareProfile& hw) {
  require(hw.compute_units > 0, hw, "compute_units");
  require(hw.hbm_bw_bytes_per_s > 0, hw, "hbm_bw_bytes_per_s");
  require(hw.gpu_count < 2 || hw.link_bw_bytes_per_s > 0, hw, "link_bw_bytes_per_s");
  require(!hw.peak_flops_per_s.empty(), hw, "peak_flops_per_s");
  SimParams p;
  p.device = "simulated " + hw.name;
  p.gpus = hw.gpu_count;
  p.compute_units = hw.compute_units;
  p.gemm_tile_m = hw.gemm_tile_m;
  p.gemm_tile_n = hw.gemm_tile_n;
  p.gemm_workgroups_per_cu = hw.gemm_workgroups_per_cu;
  for (const auto& [dtype, peak] : hw.peak_flops_per_s)
    p.cu_flops_per_s[dtype] = peak * kComputeFraction / hw.compute_units;
  p.hbm_bw_bytes_per_s = hw.hbm_bw_bytes_per_s * kHbmFraction;
  p.cu_max_bw_bytes_per_s = kCuBwFairShares * p.hbm_bw_bytes_per_s / hw.compute_units;
  p.gemm_unit_cache_bytes = static_cast<double>(hw.gemm_workgroups_per_cu) *
                            (hw.gemm_tile_m + hw.gemm_tile_n) * kKTileElements * 2 * kPipelineStages;
  p.kernel_launch_s = kKernelLaunchS;
  p.llc_bytes = hw.llc_bytes;

  p.link_bw_bytes_per_s = hw.link_bw_bytes_per_s * kLinkFraction;
  p.peer_link_bw_bytes_per_s = p.link_bw_bytes_per_s;
  for (const CollectiveKind kind : kKinds) {
    p.channel_bw_bytes_per_s[kind] = p.link_bw_bytes_per_s / channels_to_saturate(kind);
    int channels = channels_to_saturate(kind);
    if (const auto k = hw.collectives.find(kind); k != hw.collectives.end())
      if (const auto cu = k->second.find(Transport::cu); cu != k->second.end() && cu->second.default_cus > 0)
        channels = cu->second.default_cus;
    p.default_channels[kind] = std::min(channels, hw.compute_units);
  }
  p.collective_launch_s = kCollectiveLaunchS;
  p.step_latency_s = kStepLatencyS;
  p.chunk_bytes = kChunkBytes;
  p.chunk_overhead_s = kChunkOverheadS;
  p.channel_cache_bytes = kChunkBytes;

  p.copy_engines = hw.copy_engines;
  p.engine_bw_bytes_per_s = p.link_bw_bytes_per_s / kEnginesToSaturateLinks;
  p.dma_issue_s = kDmaIssueS;
  p.dma_sync_s = kDmaSyncS;
  p.event_wait_s = kEventWaitS;
  return p;
}

void apply_sim_arg(SimParams& params, std::string_view arg) {
  while (!arg.empty()) {
    const auto comma = arg.find(',');
    const std::string_view item = arg.substr(0, comma);
    arg = comma == std::string_view::npos ? std::string_view() : arg.substr(comma + 1);
    const auto eq = item.find('=');
    if (eq == std::string_view::npos)
      throw InputError("sim: argument '" + std::string(item) + "' is not key=value (keys: noise, seed)");
    const std::string_view key = item.substr(0, eq);
    const double value = parse_number(key, item.substr(eq + 1));
    if (key == "noise") {
      if (value < 0 || value > 0.2) throw InputError("sim: noise must be in [0, 0.2]");
      params.noise = value;
    } else if (key == "seed") {
      if (value < 0 || value != std::floor(value) || value > 9.0e15)
        throw InputError("sim: seed must be a non-negative integer");
      params.seed = static_cast<std::uint64_t>(value);
    } else {
      throw InputError("sim: unknown argument '" + std::string(key) + "' (keys: noise, seed)");
    }
  }
}

std::unique_ptr<Validator> make_sim_validator(const SimParams& params) {
  return std::make_unique<SimValidator>(params);
}

std::unique_ptr<Validator> make_sim_validator(const std::string& arg, const HardwareProfile& hw) {
  SimParams params = sim_params(hw);
  apply_sim_arg(params, arg);
  return make_sim_validator(params);
}

}  // namespace c3::validator

namespace c3::backends {

/// Called by c3::register_builtin_backends() (backends/sim/CMakeLists.txt).
void register_sim() {
  register_backend("sim", [](const std::string& arg, const HardwareProfile& hw) {
    return validator::make_sim_validator(arg, hw);
  });
}

}  // namespace c3::backends
