// The sim backend's event-driven core (backends/sim/sim_engine.hpp).
#include "backends/sim/sim_engine.hpp"

#include <algorithm>
#include <cstddef>
#include <limits>
#include <numeric>

#include "c3/errors.hpp"

namespace c3::validator::sim {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kTimeEps = 1e-13;    // seconds: instants closer than this coincide
constexpr double kWorkEps = 1e-12;    // a unit with less work left than this is done
constexpr long kMaxEvents = 10'000'000;

// Units of one kernel dispatched at the same instant: they progress identically.
struct Cohort {
  std::size_t kernel = 0;
  std::int64_t count = 0;
  double setup_left_s = 0;
  double work_left = 1;   // fraction of one unit's work
  double max_rate = 0;    // work per second with unlimited bandwidth
  double hbm_bytes = 0;   // HBM bytes per unit of work (one member)
  double link_bytes = 0;  // link bytes per unit of work (one member)
  double rate = 0;
  int engine = -1;        // copy engine (dma only)

  bool working() const { return setup_left_s <= 0; }
};

struct KernelState {
  std::int64_t dispatched = 0;
  std::int64_t retired = 0;
  double last_retire_s = 0;
};

std::int64_t total_units(const Launch& l) {
  switch (l.type) {
    case Launch::Type::gemm:
      return l.gemm.units;
    case Launch::Type::stream:
      return l.stream.units;
    case Launch::Type::dma:
      return l.dma.transfers;
  }
  return 0;
}

double link_capacity(const Launch& l) {
  return l.type == Launch::Type::dma ? l.dma.link_bw_bytes_per_s : l.stream.link_bw_bytes_per_s;
}

double gemm_bytes(const GemmTraffic& t, std::int64_t active_units, std::int64_t active_channels) {
  const double free_cache =
      std::max(0.0, t.llc_bytes - static_cast<double>(active_units) * t.unit_footprint_bytes -
                        static_cast<double>(active_channels) * t.channel_footprint_bytes);
  const double miss =
      t.reread_bytes > 0 ? std::clamp(1.0 - free_cache / t.reread_bytes, 0.0, 1.0) : 0.0;
  return t.fixed_bytes + t.reread_bytes * (1.0 + t.rereads * miss);
}

class Simulation {
 public:
  Simulation(const Machine& machine, const std::vector<Launch>& launches)
      : machine_(machine), launches_(launches), state_(launches.size()), free_(machine.pools) {
    for (const Launch& l : launches)
      if (l.type == Launch::Type::dma)
        engine_busy_.resize(std::max<std::size_t>(engine_busy_.size(), l.dma.engines), false);
  }

  std::vector<double> run() {
    for (long events = 0; !finished(); ++events) {
      if (events > kMaxEvents) throw BackendError("sim: too many events (a runaway simulation)");
      dispatch();
      assign_rates();
      const double dt = next_event_dt();
      if (dt == kInf) throw BackendError("sim: no progress possible (a kernel has no CUs to run on)");
      advance(dt);
      retire();
    }
    return end_times();
  }

 private:
  bool finished() const {
    for (std::size_t k = 0; k < launches_.size(); ++k)
      if (state_[k].retired < total_units(launches_[k])) return false;
    return true;
  }

  bool eligible(const Launch& l) const { return t_ + kTimeEps >= l.launch_s; }

  std::int64_t active_units(std::size_t kernel) const {
    std::int64_t n = 0;
    for (const Cohort& c : cohorts_)
      if (c.kernel == kernel) n += c.count;
    return n;
  }

  std::int64_t active_channels() const {
    std::int64_t n = 0;
    for (const Cohort& c : cohorts_) {
      const Launch& l = launches_[c.kernel];
      if (l.type == Launch::Type::stream && l.stream.is_collective) n += c.count;
    }
    return n;
  }

  // In launch order; a pool is blocked for later kernels while an earlier one still
  // has units to dispatch in it.
  void dispatch() {
    std::vector<bool> blocked(free_.size(), false);
    for (std::size_t k = 0; k < launches_.size(); ++k) {
      const Launch& l = launches_[k];
      if (state_[k].dispatched == total_units(l) || !eligible(l)) continue;
      if (l.type == Launch::Type::dma) {
        dispatch_dma(k);
        continue;
      }
      if (blocked[l.pool]) continue;
      dispatch_on_cus(k);
      if (state_[k].dispatched < total_units(l)) blocked[l.pool] = true;
    }
  }

  void dispatch_on_cus(std::size_t k) {
    const Launch& l = launches_[k];
    const std::int64_t n =
        std::min<std::int64_t>(free_[l.pool], total_units(l) - state_[k].dispatched);
    if (n == 0) return;
    Cohort c;
    c.kernel = k;
    c.count = n;
    if (l.type == Launch::Type::gemm) {
      const GemmKernel& g = l.gemm;
      const double bytes =
          gemm_bytes(g.traffic, active_units(k) + n, active_channels()) / static_cast<double>(g.units);
      c.max_rate = std::min(g.cu_flops_per_s / g.unit_flops, g.cu_max_bytes_per_s / bytes);
      c.hbm_bytes = bytes;
    } else {
      const StreamKernel& s = l.stream;
      c.setup_left_s = s.setup_s;
      c.max_rate = s.unit_max_bytes_per_s / s.unit_bytes;
      c.hbm_bytes = s.unit_bytes * s.hbm_bytes_per_byte;
      c.link_bytes = s.unit_bytes * s.link_bytes_per_byte;
    }
    cohorts_.push_back(c);
    free_[l.pool] -= static_cast<int>(n);
    state_[k].dispatched += n;
  }

  double issue_time(std::size_t k, std::int64_t transfer) const {
    const Launch& l = launches_[k];
    return l.launch_s + static_cast<double>(transfer + 1) * l.dma.issue_s;
  }

  void dispatch_dma(std::size_t k) {
    const DmaKernel& d = launches_[k].dma;
    while (state_[k].dispatched < d.transfers) {
      const std::int64_t i = state_[k].dispatched;
      const int engine = static_cast<int>(i % d.engines);
      if (t_ + kTimeEps < issue_time(k, i) || engine_busy_[engine]) return;
      Cohort c;
      c.kernel = k;
      c.count = 1;
      c.max_rate = d.engine_bw_bytes_per_s / d.transfer_bytes;
      c.hbm_bytes = d.transfer_bytes * d.hbm_bytes_per_byte;
      c.link_bytes = d.transfer_bytes;
      c.engine = engine;
      cohorts_.push_back(c);
      engine_busy_[engine] = true;
      ++state_[k].dispatched;
    }
  }

  // Link bandwidth is shared among one kernel's flows, then HBM among all flows.
  void assign_rates() {
    std::vector<double> link_limited(cohorts_.size());
    for (std::size_t i = 0; i < cohorts_.size(); ++i) link_limited[i] = cohorts_[i].max_rate;
    for (std::size_t k = 0; k < launches_.size(); ++k) share_link(k, link_limited);

    std::vector<Claim> claims;
    std::vector<std::size_t> who;
    for (std::size_t i = 0; i < cohorts_.size(); ++i) {
      Cohort& c = cohorts_[i];
      c.rate = 0;
      if (!c.working()) continue;
      if (c.hbm_bytes <= 0) {
        c.rate = link_limited[i];
        continue;
      }
      claims.push_back({static_cast<double>(c.count), link_limited[i] * c.hbm_bytes});
      who.push_back(i);
    }
    const std::vector<double> shares = water_fill(claims, machine_.hbm_bw_bytes_per_s);
    for (std::size_t j = 0; j < who.size(); ++j)
      cohorts_[who[j]].rate = shares[j] / cohorts_[who[j]].hbm_bytes;
  }

  void share_link(std::size_t k, std::vector<double>& limited) const {
    std::vector<Claim> claims;
    std::vector<std::size_t> who;
    for (std::size_t i = 0; i < cohorts_.size(); ++i) {
      const Cohort& c = cohorts_[i];
      if (c.kernel != k || !c.working() || c.link_bytes <= 0) continue;
      claims.push_back({static_cast<double>(c.count), c.max_rate * c.link_bytes});
      who.push_back(i);
    }
    if (claims.empty()) return;
    const std::vector<double> shares = water_fill(claims, link_capacity(launches_[k]));
    for (std::size_t j = 0; j < who.size(); ++j)
      limited[who[j]] = std::min(limited[who[j]], shares[j] / cohorts_[who[j]].link_bytes);
  }

  double next_event_dt() const {
    double dt = kInf;
    for (const Cohort& c : cohorts_) {
      if (!c.working()) dt = std::min(dt, c.setup_left_s);
      else if (c.rate > 0) dt = std::min(dt, c.work_left / c.rate);
    }
    for (std::size_t k = 0; k < launches_.size(); ++k) {
      const Launch& l = launches_[k];
      if (state_[k].dispatched == total_units(l)) continue;
      if (!eligible(l)) dt = std::min(dt, l.launch_s - t_);
      else if (l.type == Launch::Type::dma) {
        const double next = issue_time(k, state_[k].dispatched) - t_;
        if (next > kTimeEps) dt = std::min(dt, next);
      }
    }
    return dt;
  }

  void advance(double dt) {
    t_ += dt;
    for (Cohort& c : cohorts_) {
      if (!c.working()) {
        c.setup_left_s -= dt;
        if (c.setup_left_s <= kTimeEps) c.setup_left_s = 0;
      } else {
        c.work_left -= c.rate * dt;
      }
    }
  }

  void retire() {
    const auto done = [](const Cohort& c) { return c.working() && c.work_left <= kWorkEps; };
    for (const Cohort& c : cohorts_) {
      if (!done(c)) continue;
      const Launch& l = launches_[c.kernel];
      state_[c.kernel].retired += c.count;
      state_[c.kernel].last_retire_s = t_;
      if (l.type == Launch::Type::dma) engine_busy_[c.engine] = false;
      else free_[l.pool] += static_cast<int>(c.count);
    }
    cohorts_.erase(std::remove_if(cohorts_.begin(), cohorts_.end(), done), cohorts_.end());
  }

  std::vector<double> end_times() const {
    std::vector<double> out;
    for (std::size_t k = 0; k < launches_.size(); ++k) {
      const Launch& l = launches_[k];
      out.push_back(state_[k].last_retire_s + (l.type == Launch::Type::dma ? l.dma.sync_s : 0.0));
    }
    return out;
  }

  const Machine& machine_;
  const std::vector<Launch>& launches_;
  std::vector<KernelState> state_;
  std::vector<int> free_;
  std::vector<bool> engine_busy_;
  std::vector<Cohort> cohorts_;
  double t_ = 0;
};

}  // namespace

std::vector<double> water_fill(const std::vector<Claim>& claims, double capacity) {
  std::vector<std::size_t> order(claims.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::sort(order.begin(), order.end(),
            [&](std::size_t a, std::size_t b) { return claims[a].demand < claims[b].demand; });
  double members = 0;
  for (const Claim& c : claims) members += c.count;
  std::vector<double> share(claims.size(), 0.0);
  double left = capacity;
  for (const std::size_t i : order) {
    const double fair = members > 0 ? std::max(0.0, left) / members : 0.0;
    share[i] = std::min(claims[i].demand, fair);
    left -= share[i] * claims[i].count;
    members -= claims[i].count;
  }
  return share;
}

std::vector<double> run(const Machine& machine, const std::vector<Launch>& launches) {
  return Simulation(machine, launches).run();
}

}  // namespace c3::validator::sim
