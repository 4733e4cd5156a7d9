// Fitting calibration measurements into a profile (calibrate/calibrate_fit.hpp).
#include "calibrate/calibrate_fit.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>

#include "c3/errors.hpp"
#include "c3/model.hpp"

namespace c3::validator {
namespace {

constexpr double kDefaultCusTolerance = 1.02;  // library default ~ smallest CU count within 2%
constexpr int kAlternations = 4;               // rounds of the alternating interference fit
constexpr double kSlowdownLo = 0.5, kSlowdownHi = 4.0;
constexpr double kDelayLo = 0.0, kDelayHi = 2.0;
constexpr std::int64_t kMinPairBytes = 1 << 20;

std::string kind_path(CollectiveKind kind, Transport t) {
  return "collectives." + std::string(to_string(kind)) + "." + std::string(to_string(t));
}

// x strictly increasing, y > 0: the points of a profile Table.
Table make_table(std::string name, std::vector<double> x, std::vector<double> y, const Provenance& source) {
  return Table{std::move(name), std::move(x), std::move(y), source};
}

struct Line {
  double intercept = 0;
  double slope = 0;
};

Line least_squares(const std::vector<double>& x, const std::vector<double>& y) {
  const double n = static_cast<double>(x.size());
  const double mx = std::accumulate(x.begin(), x.end(), 0.0) / n;
  const double my = std::accumulate(y.begin(), y.end(), 0.0) / n;
  double sxy = 0, sxx = 0;
  for (std::size_t i = 0; i < x.size(); ++i) {
    sxy += (x[i] - mx) * (y[i] - my);
    sxx += (x[i] - mx) * (x[i] - mx);
  }
  const double slope = sxx > 0 ? sxy / sxx : 0;
  return Line{my - slope * mx, slope};
}

class IsolatedFit {
 public:
  IsolatedFit(HardwareProfile& hw, const CalibrationPlan& plan, const MeasuredFn& measured,
              const Provenance& source, std::vector<std::string>& notes)
      : hw_(hw), plan_(plan), measured_(measured), source_(source), notes_(notes) {}

  void run() {
    peak();
    copies();
    memory_line();
    efficiency_curve();
    gemm_tables();
    for (const CollectiveKind kind : calibrated_kinds()) {
      for (const Transport t : transports_of(kind)) {
        alpha_beta(kind, t);
        unaligned(kind, t);
      }
      collective_tables(kind);
    }
  }

 private:
  // The measured time, or nullopt with a note naming what it was needed for.
  std::optional<double> time(const Query& q, const std::string& for_what) {
    const std::optional<double> t = measured_(q);
    if (!t) notes_.push_back(for_what + ": skipped '" + measurement_key(q) + "' (no successful measurement)");
    return t;
  }

  void set(const std::string& path, double& field, double value) {
    field = value;
    hw_.sources[path] = source_;
  }

  void peak() {
    const auto t = time(GemmQuery{plan_.peak_gemm, 0}, "peak_flops_per_s");
    if (!t) return;
    const double achieved = model::gemm_flops(plan_.peak_gemm) / *t;
    const DType dtype = plan_.peak_gemm.dtype;
    const std::string peak_path = "peak_flops_per_s." + std::string(to_string(dtype));
    double& peak = hw_.peak_flops_per_s[dtype];
    if (peak < achieved) set(peak_path, peak, achieved);
    set("gemm_efficiency_compute", hw_.gemm_efficiency_compute, achieved / peak);
  }

  void copies() {
    const auto bytes = static_cast<double>(plan_.copy_bytes);
    if (const auto t = time(CopyQuery{CopyPath::device_local, plan_.copy_bytes}, "hbm_bw_bytes_per_s"))
      set("hbm_bw_bytes_per_s", hw_.hbm_bw_bytes_per_s, 2 * bytes / *t);
    if (const auto t = time(CopyQuery{CopyPath::all_peers, plan_.copy_bytes}, "link_bw_bytes_per_s"))
      set("link_bw_bytes_per_s", hw_.link_bw_bytes_per_s, bytes / *t);
    if (const auto t = time(CopyQuery{CopyPath::one_peer, plan_.copy_bytes}, "one-peer bandwidth"))
      notes_.push_back("one-peer copy: " + std::to_string(bytes / *t / 1e9) +
                       " GB/s (recorded in the raw file; the profile has no per-peer value)");
  }

  // A line through the memory-bound GEMMs: time = latency + bytes / (hbm x efficiency).
  // Fitted together, so that the fixed cost is not also counted as lost bandwidth.
  void memory_line() {
    std::vector<double> bytes, times;
    for (const Gemm& g : plan_.memory_gemms)
      if (const auto t = time(GemmQuery{g, 0}, "gemm_efficiency_memory and gemm_latency_s")) {
        bytes.push_back(model::gemm_min_bytes(g));
        times.push_back(*t);
      }
    if (bytes.size() < 2 || hw_.hbm_bw_bytes_per_s <= 0) {
      notes_.push_back("gemm_efficiency_memory, gemm_latency_s: kept the previous values (fewer than 2 "
                       "memory-bound GEMMs measured)");
      return;
    }
    const Line line = least_squares(bytes, times);
    if (line.slope <= 0) {
      notes_.push_back("gemm_efficiency_memory, gemm_latency_s: kept the previous values (time does not grow "
                       "with bytes)");
      return;
    }
    set("gemm_efficiency_memory", hw_.gemm_efficiency_memory,
        std::min(1.0, 1.0 / (line.slope * hw_.hbm_bw_bytes_per_s)));
    if (line.intercept > 0)
      set("gemm_latency_s", hw_.gemm_latency_s, line.intercept);
    else  // a profile's latency floor must stay positive (docs/formats.md)
      notes_.push_back("gemm_latency_s: kept the previous value (the line's intercept is not positive)");
  }

  // Achieved / peak flops of the compute-bound GEMMs, against their flops.
  void efficiency_curve() {
    const DType dtype = plan_.peak_gemm.dtype;
    std::vector<double> x, y;
    for (const Gemm& g : plan_.efficiency_gemms)
      if (const auto t = time(GemmQuery{g, 0}, "gemm_efficiency_curve")) {
        x.push_back(model::gemm_flops(g));
        y.push_back(std::min(1.0, model::gemm_flops(g) / *t / hw_.peak_flops_per_s.at(dtype)));
      }
    if (x.size() < 2) {
      notes_.push_back("gemm_efficiency_curve: not fitted (fewer than 2 GEMMs measured)");
      return;
    }
    hw_.gemm_efficiency_curve = make_table("gemm_efficiency_curve", std::move(x), std::move(y), source_);
    hw_.sources["gemm_efficiency_curve"] = source_;
  }

  // Time with chunks off the alignment / time with aligned chunks, per transport.
  void unaligned(CollectiveKind kind, Transport t) {
    const std::string path = kind_path(kind, t) + ".unaligned_slowdown";
    const auto aligned = time(CollectiveQuery{{kind, plan_.bandwidth_bytes, plan_.ranks}, t, 0}, path);
    const auto off = time(CollectiveQuery{{kind, plan_.unaligned_bytes, plan_.ranks}, t, 0}, path);
    if (!aligned || !off) return;
    set(path, hw_.collectives[kind][t].unaligned_slowdown, *off / *aligned);
  }

  // y / y(first), against x; a table needs its reference and two points.
  void ratio_table(Table& table, const std::string& path, const std::vector<int>& xs,
                   const std::function<Query(int)>& query_at, int reference_x) {
    const auto reference = time(query_at(reference_x), path);
    if (!reference) return;
    std::vector<double> x, y;
    for (const int xi : xs)
      if (const auto t = time(query_at(xi), path)) {
        x.push_back(xi);
        y.push_back(*t / *reference);
      }
    if (x.size() < 2) {
      notes_.push_back(path + ": kept the previous table (fewer than 2 points)");
      return;
    }
    table = make_table(path.substr(path.find('.') + 1), std::move(x), std::move(y), source_);
    hw_.sources[path] = source_;
  }

  // Per x: the median over `gemms` of time(x) / time(0), from the GEMMs measured at both.
  void median_ratio_table(Table& table, const std::string& path, const std::vector<Gemm>& gemms) {
    std::vector<double> x, y;
    for (const int removed : plan_.cus_removed) {
      std::vector<double> ratios;
      for (const Gemm& g : gemms) {
        const auto t0 = measured_(GemmQuery{g, 0});
        const auto t = measured_(GemmQuery{g, removed});
        if (t0 && t) ratios.push_back(*t / *t0);
      }
      if (ratios.empty()) {
        notes_.push_back(path + ": no GEMM measured at " + std::to_string(removed) + " CUs removed");
        continue;
      }
      x.push_back(removed);
      y.push_back(median_of(std::move(ratios)));
    }
    if (x.size() < 2 || x.front() != 0) {
      notes_.push_back(path + ": kept the previous table (fewer than 2 points)");
      return;
    }
    table = make_table(path.substr(path.find('.') + 1), std::move(x), std::move(y), source_);
    hw_.sources[path] = source_;
  }

  void gemm_tables() {
    for (const GemmClass cls : {GemmClass::compute_bound, GemmClass::memory_bound}) {
      median_ratio_table(hw_.gemm_slowdown[cls], "tables.gemm_slowdown." + std::string(to_string(cls)),
                         slowdown_gemms(plan_, cls));
      if (hw_.gemm_slowdown[cls].x.empty()) hw_.gemm_slowdown.erase(cls);
    }
  }

  void collective_tables(CollectiveKind kind) {
    const std::vector<int> given(plan_.collective_cus.begin() + 1, plan_.collective_cus.end());
    const std::pair<CollectiveClass, std::int64_t> classes[] = {
        {CollectiveClass::latency_bound, plan_.latency_bytes},
        {CollectiveClass::bandwidth_bound, plan_.bandwidth_bytes}};
    for (const auto& [cls, size] : classes) {
      const Collective coll{kind, size, plan_.ranks};
      ratio_table(hw_.collective_slowdown[kind][cls],
                  "tables.collective_slowdown." + std::string(to_string(kind)) + "." +
                      std::string(to_string(cls)),
                  given, [&](int cus) { return Query{CollectiveQuery{coll, Transport::cu, cus}}; }, 0);
      if (hw_.collective_slowdown[kind][cls].x.empty()) hw_.collective_slowdown[kind].erase(cls);
    }
    if (hw_.collective_slowdown[kind].empty()) hw_.collective_slowdown.erase(kind);
  }

  void alpha_beta(CollectiveKind kind, Transport t) {
    if (!fit_collective_sweep(hw_, kind, t, plan_.ranks, plan_.sizes, measured_, source_, notes_)) return;
    CollectiveParams& p = hw_.collectives[kind][t];
    if (t == Transport::cu && p.default_cus <= 0) default_cus(kind, p, kind_path(kind, t));
  }

  // Without a known library default: the fewest CUs as fast as the default, within 2%.
  void default_cus(CollectiveKind kind, CollectiveParams& p, const std::string& path) {
    const Collective coll{kind, plan_.bandwidth_bytes, plan_.ranks};
    const auto t_default = time(CollectiveQuery{coll, Transport::cu, 0}, path + ".default_cus");
    if (!t_default) return;
    for (std::size_t i = 1; i < plan_.collective_cus.size(); ++i) {
      const int cus = plan_.collective_cus[i];
      const auto t = measured_(CollectiveQuery{coll, Transport::cu, cus});
      if (t && *t <= kDefaultCusTolerance * *t_default) {
        p.default_cus = cus;
        hw_.sources[path + ".default_cus"] = source_;
        return;
      }
    }
  }

  HardwareProfile& hw_;
  const CalibrationPlan& plan_;
  const MeasuredFn& measured_;
  const Provenance& source_;
  std::vector<std::string>& notes_;
};

// ---- interference ----

struct Observed {
  C3Pair pair;
  Strategy strategy;
  double time_s = 0;
};

// Sum of squared relative errors of the model against the observations.
double misfit(const HardwareProfile& hw, const std::vector<Observed>& obs) {
  double sum = 0;
  for (const Observed& o : obs) {
    const double r = strategies::predicted_time_s(hw, o.pair, o.strategy) / o.time_s - 1.0;
    sum += r * r;
  }
  return sum;
}

// Observations the current model can evaluate (others are noted and dropped).
std::vector<Observed> observations(const HardwareProfile& hw, const std::vector<InterferencePoint>& points,
                                   const MeasuredFn& measured, StrategyKind kind,
                                   std::optional<GemmClass> cls, std::vector<std::string>& notes) {
  std::vector<Observed> out;
  for (const InterferencePoint& p : points) {
    if (p.query.strategy.kind != kind || (cls && p.gemm_class != *cls)) continue;
    const auto t = measured(p.query);
    if (!t) {
      notes.push_back("interference: skipped '" + measurement_key(p.query) + "' (no successful measurement)");
      continue;
    }
    Observed o{C3Pair{"", p.query.gemm, p.query.collective, p.gemm_class, {}}, p.query.strategy, *t};
    try {
      strategies::predicted_time_s(hw, o.pair, o.strategy);
      out.push_back(o);
    } catch (const InputError& e) {
      notes.push_back("interference: skipped '" + measurement_key(p.query) + "': " + e.what());
    }
  }
  return out;
}

void fit_factors(HardwareProfile& hw, Transport transport, GemmClass cls, const std::vector<Observed>& obs,
                 const Provenance& source) {
  Interference& f = hw.interference[transport][cls];
  for (int round = 0; round < kAlternations; ++round) {
    f.gemm_slowdown = minimize_1d(
        [&](double g) { f.gemm_slowdown = g; return misfit(hw, obs); }, kSlowdownLo, kSlowdownHi);
    f.collective_slowdown = minimize_1d(
        [&](double c) { f.collective_slowdown = c; return misfit(hw, obs); }, kSlowdownLo, kSlowdownHi);
  }
  const std::string path =
      "interference." + std::string(to_string(transport)) + "." + std::string(to_string(cls));
  hw.sources[path + ".gemm_slowdown"] = source;
  hw.sources[path + ".collective_slowdown"] = source;
}

std::int64_t size_for_time(const CollectiveParams& p, double time_s, int ranks) {
  const double wire = std::max(0.0, time_s - p.latency_s) * p.bus_bw_bytes_per_s;
  const auto size = static_cast<std::int64_t>(wire * ranks / (ranks - 1));
  const std::int64_t align = 4096LL * ranks;
  return std::max(kMinPairBytes, (size + align - 1) / align * align);
}

}  // namespace

double minimize_1d(const std::function<double(double)>& f, double lo, double hi) {
  const double r = (std::sqrt(5.0) - 1.0) / 2.0;
  double a = lo, b = hi;
  double c = b - r * (b - a), d = a + r * (b - a);
  double fc = f(c), fd = f(d);
  while (b - a > 1e-6 * (1.0 + std::abs(a) + std::abs(b))) {
    if (fc < fd) {
      b = d;
      d = c;
      fd = fc;
      c = b - r * (b - a);
      fc = f(c);
    } else {
      a = c;
      c = d;
      fc = fd;
      d = a + r * (b - a);
      fd = f(d);
    }
  }
  return 0.5 * (a + b);
}

// Bandwidth: least squares on the largest third of the sizes; latency: the mean
// of time - wire/bw over the smallest third.
bool fit_collective_sweep(HardwareProfile& hw, CollectiveKind kind, Transport t, int ranks,
                          const std::vector<std::int64_t>& sizes_bytes, const MeasuredFn& measured,
                          const Provenance& source, std::vector<std::string>& notes) {
  const std::string path = kind_path(kind, t);
  std::vector<double> sizes, wire, times;
  for (const std::int64_t size : sizes_bytes) {
    const Collective coll{kind, size, ranks};
    const CollectiveQuery q{coll, t, 0};
    const std::optional<double> ti = measured(q);
    if (!ti) {
      notes.push_back(path + ": skipped '" + measurement_key(q) + "' (no successful measurement)");
      continue;
    }
    sizes.push_back(static_cast<double>(size));
    wire.push_back(model::wire_bytes(coll));
    times.push_back(*ti);
  }
  const std::size_t third = std::max<std::size_t>(2, (sizes.size() + 2) / 3);
  if (sizes.size() < third + 1) {
    notes.push_back(path + ": kept the previous parameters (too few sizes measured)");
    return false;
  }
  const std::size_t first_large = sizes.size() - third;
  const Line line = least_squares({wire.begin() + first_large, wire.end()},
                                  {times.begin() + first_large, times.end()});
  if (line.slope <= 0) {
    notes.push_back(path + ": kept the previous parameters (time does not grow with size)");
    return false;
  }
  // A collective never takes longer for fewer bytes: a time above a larger size's is a
  // hiccup of that measurement (seen at 64 KiB: 42 us between 22 and 23 us), so the
  // curve keeps the smallest time at or above each size.
  for (std::size_t i = times.size() - 1; i-- > 0;) times[i] = std::min(times[i], times[i + 1]);
  CollectiveParams& p = hw.collectives[kind][t];
  p.bus_bw_bytes_per_s = 1.0 / line.slope;
  hw.sources[path + ".bus_bw_bytes_per_s"] = source;
  double latency = 0;
  for (std::size_t i = 0; i < third; ++i) latency += times[i] - wire[i] * line.slope;
  if (latency > 0) {
    p.latency_s = latency / static_cast<double>(third);
    hw.sources[path + ".latency_s"] = source;
  } else {  // a profile's latency floor must stay positive (docs/formats.md)
    notes.push_back(path + ".latency_s: kept the previous value (the fitted latency is not positive)");
  }
  p.curve_time_s = make_table(path + ".curve", sizes, times, source);
  p.curve_ranks = ranks;
  return true;
}

void fit_isolated(HardwareProfile& hw, const CalibrationPlan& plan, const MeasuredFn& measured,
                  const Provenance& source, std::vector<std::string>& notes) {
  IsolatedFit(hw, plan, measured, source, notes).run();
}

std::vector<InterferencePoint> interference_points(const HardwareProfile& hw, const CalibrationPlan& plan,
                                                   const MeasuredFn& measured,
                                                   std::vector<std::string>& notes) {
  const auto kinds = hw.collectives.find(CollectiveKind::all_gather);
  if (kinds == hw.collectives.end() || !kinds->second.count(Transport::cu)) {
    notes.push_back("interference: skipped (no all_gather parameters to size the pairs)");
    return {};
  }
  const CollectiveParams& cu = kinds->second.at(Transport::cu);
  const std::pair<GemmClass, Gemm> classes[] = {{GemmClass::compute_bound, plan.compute_gemm},
                                                {GemmClass::memory_bound, plan.memory_gemm}};
  std::vector<InterferencePoint> points;
  for (const auto& [cls, gemm] : classes) {
    const auto t_gemm = measured(GemmQuery{gemm, 0});
    if (!t_gemm) {
      notes.push_back("interference: skipped the " + std::string(to_string(cls)) +
                      " pairs (the GEMM's isolated time failed)");
      continue;
    }
    for (const double ratio : plan.interference_ratios) {
      const Collective coll{CollectiveKind::all_gather, size_for_time(cu, ratio * *t_gemm, plan.ranks),
                            plan.ranks};
      for (const StrategyKind kind : kInterferenceStrategies) {
        if (kind == StrategyKind::dma && !kinds->second.count(Transport::dma)) continue;
        points.push_back({ConcurrentQuery{gemm, coll, Strategy{kind, 0, 0}}, cls});
      }
    }
  }
  return points;
}

void fit_interference(HardwareProfile& hw, const std::vector<InterferencePoint>& points,
                      const MeasuredFn& measured, const Provenance& source,
                      std::vector<std::string>& notes) {
  const std::pair<Transport, StrategyKind> transports[] = {{Transport::cu, StrategyKind::sp},
                                                           {Transport::dma, StrategyKind::dma}};
  for (const auto& [transport, kind] : transports)
    for (const GemmClass cls : {GemmClass::compute_bound, GemmClass::memory_bound}) {
      const bool had_factors = hw.interference[transport].try_emplace(cls).second == false;
      const std::vector<Observed> obs = observations(hw, points, measured, kind, cls, notes);
      if (obs.empty()) {
        if (!had_factors) hw.interference[transport].erase(cls);
        if (hw.interference[transport].empty()) hw.interference.erase(transport);
        notes.push_back("interference." + std::string(to_string(transport)) + "." +
                        std::string(to_string(cls)) + ": not fitted (no usable pairs)");
        continue;
      }
      fit_factors(hw, transport, cls, obs, source);
    }
  const std::vector<Observed> base = observations(hw, points, measured, StrategyKind::base, {}, notes);
  if (base.empty()) {
    notes.push_back("gemm_first_delay_factor: kept the previous value (no usable base pairs)");
    return;
  }
  hw.gemm_first_delay_factor = minimize_1d(
      [&](double f) { hw.gemm_first_delay_factor = f; return misfit(hw, base); }, kDelayLo, kDelayHi);
  hw.sources["gemm_first_delay_factor"] = source;
}

void fit_launch(HardwareProfile& hw, const CalibrationPlan& plan, const MeasuredFn& measured,
                const Provenance& source, std::vector<std::string>& notes) {
  // One value per tiny pair, then per transport the median over the kinds: the host
  // launch does not depend on the kind, and one pair's value moved by 0-30 us between
  // calibrations on 2x H200 (docs/model.md).
  std::map<Transport, std::vector<double>> fitted;
  for (const ConcurrentQuery& q : launch_queries(plan)) {
    const Transport transport = q.strategy.kind == StrategyKind::dma ? Transport::dma : Transport::cu;
    const std::string what = "launch_s (" + measurement_key(q) + ")";
    const auto t = measured(q);
    const auto kinds = hw.collectives.find(q.collective.kind);
    if (!t || kinds == hw.collectives.end() || !kinds->second.count(transport)) {
      notes.push_back(what + ": skipped (no successful measurement or no parameters)");
      continue;
    }
    double& launch = kinds->second.at(transport).launch_s;
    const double kept = launch;
    const C3Pair pair{"", q.gemm, q.collective, {}, ""};
    try {
      // in microseconds: minimize_1d's tolerance is absolute near zero
      fitted[transport].push_back(1e-6 * minimize_1d(
                                             [&](double l_us) {
                                               launch = 1e-6 * l_us;
                                               const double r =
                                                   strategies::predicted_time_s(hw, pair, q.strategy) / *t - 1.0;
                                               return r * r;
                                             },
                                             0.0, 2e6 * *t));
    } catch (const InputError& e) {
      notes.push_back(what + ": not fitted: " + e.what());
    }
    launch = kept;
  }
  for (const auto& [transport, values] : fitted) {
    const double median = median_of(values);
    for (auto& [kind, transports] : hw.collectives) {
      const auto it = transports.find(transport);
      if (it == transports.end()) continue;
      it->second.launch_s = median;
      hw.sources["collectives." + std::string(to_string(kind)) + "." + std::string(to_string(transport)) +
                 ".launch_s"] = source;
    }
  }
}

}  // namespace c3::validator
