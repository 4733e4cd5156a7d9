// Fitting from measured pairs of the train split (calibrate/pairs_fit.hpp).
#include "calibrate/pairs_fit.hpp"

#include <Eigen/Core>
#include <unsupported/Eigen/NonLinearOptimization>
#include <unsupported/Eigen/NumericalDiff>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <tuple>
#include <variant>

#include "c3/advisor.hpp"
#include "c3/errors.hpp"
#include "c3/evaluate.hpp"
#include "c3/model.hpp"
#include "c3/strategy.hpp"
#include "calibrate/calibrate_fit.hpp"

namespace c3::validator {
namespace {

constexpr double kDelayLo = 0.0, kDelayHi = 2.0;
// fit_delay_factor's grid over [kDelayLo, kDelayHi], and how close two mean losses must be
// to count as equal.
constexpr int kDelaySteps = 40;
// fit_gemm_first's grid of gemm_launch_s: kLaunchSteps + 1 values over [0, kLaunchMaxLatencies
// x gemm_latency_s].
constexpr int kLaunchSteps = 24;
constexpr double kLaunchMaxLatencies = 4.0;
constexpr double kLossTie = 1e-9;
// A kernel never runs faster for having a neighbour: the factors are slowdowns, at least 1
// (docs/model.md §4.2). The 0.5 of before let the fit trade a latency error of the
// isolated times for a speed-up, so that tiny pairs were predicted below their longer
// kernel (all_reduce beside memory-bound GEMMs went to 0.5 on the 160 train pairs).
constexpr double kFactorLo = 1.0, kFactorHi = 4.0;

// A pair without its strategy: what the serial record and the others share.
std::string pair_key(const Gemm& g, const Collective& c, Dependency dependency) {
  return measurement_key(ConcurrentQuery{g, c, Strategy{StrategyKind::serial, 0, 0}, dependency});
}

// The strategies whose prediction uses the (kind, transport) factors.
bool uses_factors_of(const Strategy& s, Transport transport) {
  if (transport == Transport::cu) return s.kind == StrategyKind::sp || s.kind == StrategyKind::rp;
  return s.kind == StrategyKind::dma || s.kind == StrategyKind::dma_rp;
}

double sum_of_squares(const HardwareProfile& hw, const std::vector<PairObservation>& obs) {
  double sum = 0;
  for (const PairObservation& o : obs) {
    const double r = relative_residual(hw, o);
    sum += r * r;
  }
  return sum;
}

// Levenberg-Marquardt functor (Eigen's NonLinearOptimization conventions) over the two
// factors of one group, in log space so that both stay positive.
struct FactorResiduals {
  using Scalar = double;
  enum { InputsAtCompileTime = Eigen::Dynamic, ValuesAtCompileTime = Eigen::Dynamic };
  using InputType = Eigen::VectorXd;
  using ValueType = Eigen::VectorXd;
  using JacobianType = Eigen::MatrixXd;

  HardwareProfile* hw;
  Interference* factors;
  const std::vector<PairObservation>* obs;

  int inputs() const { return 2; }
  int values() const { return static_cast<int>(obs->size()); }
  int operator()(const InputType& log_factors, ValueType& residuals) const {
    factors->gemm_slowdown = std::clamp(std::exp(log_factors[0]), kFactorLo, kFactorHi);
    factors->collective_slowdown = std::clamp(std::exp(log_factors[1]), kFactorLo, kFactorHi);
    for (std::size_t i = 0; i < obs->size(); ++i)
      residuals[static_cast<Eigen::Index>(i)] = relative_residual(*hw, (*obs)[i]);
    return 0;
  }
};

void fit_group(HardwareProfile& hw, Interference& f, const std::vector<PairObservation>& obs) {
  // From inside [kFactorLo, kFactorHi]: outside, the clamp leaves the residuals flat in that
  // direction and Levenberg-Marquardt cannot move (a transport's factor fitted below 1).
  Eigen::VectorXd x(2);
  x << std::log(std::clamp(f.gemm_slowdown, kFactorLo, kFactorHi)),
      std::log(std::clamp(f.collective_slowdown, kFactorLo, kFactorHi));
  const FactorResiduals functor{&hw, &f, &obs};
  Eigen::NumericalDiff<FactorResiduals> numeric(functor);
  Eigen::LevenbergMarquardt<Eigen::NumericalDiff<FactorResiduals>> lm(numeric);
  lm.minimize(x);
  Eigen::VectorXd residuals(static_cast<Eigen::Index>(obs.size()));
  functor(x, residuals);  // leaves `f` at the solution
}

std::string group_path(CollectiveKind kind, Transport transport, GemmClass cls) {
  return "interference.by_kind." + std::string(to_string(kind)) + "." + std::string(to_string(transport)) +
         "." + std::string(to_string(cls));
}

// The pairs' measured strategies, grouped by pair, serial included: what the advisor
// chooses among when it is scored (evaluate/accuracy.cpp).
struct PairChoices {
  C3Pair pair;
  std::vector<Strategy> strategies;
  std::vector<double> measured_s;
};

std::vector<PairChoices> choices_by_pair(const std::vector<PairObservation>& obs) {
  std::map<std::string, PairChoices> by_key;
  for (const PairObservation& o : obs) {
    PairChoices& c = by_key[pair_key(o.pair.gemm, o.pair.collective, o.pair.dependency)];
    if (c.strategies.empty()) {
      c.pair = o.pair;
      c.strategies.push_back(Strategy{StrategyKind::serial, 0, 0});
      c.measured_s.push_back(o.serial_s);
    }
    c.strategies.push_back(o.strategy);
    c.measured_s.push_back(o.time_s);
  }
  std::vector<PairChoices> out;
  for (auto& [key, c] : by_key) out.push_back(std::move(c));
  return out;
}

double mean_loss_of_picks(const HardwareProfile& hw, const std::vector<PairChoices>& pairs) {
  double sum = 0;
  for (const PairChoices& c : pairs) {
    std::vector<double> predicted_s;
    for (const Strategy& s : c.strategies) predicted_s.push_back(strategies::predicted_time_s(hw, c.pair, s));
    const std::size_t pick = recommend(c.strategies, predicted_s);
    sum += c.measured_s[pick] / *std::min_element(c.measured_s.begin(), c.measured_s.end()) - 1.0;
  }
  return sum / static_cast<double>(pairs.size());
}

// The best point of a grid: the least mean loss; among equal losses (within kLossTie) a
// clearly smaller misfit; where both tie, the point offered first.
struct LeastLossThenMisfit {
  double loss = std::numeric_limits<double>::infinity();
  double misfit = std::numeric_limits<double>::infinity();
  bool offer(double l, double m) {
    const bool less_loss = l < loss - kLossTie;
    if (!less_loss && !(l <= loss + kLossTie && m < misfit * (1 - 1e-9) - 1e-15)) return false;
    loss = less_loss ? l : std::min(loss, l);
    misfit = m;
    return true;
  }
};

std::vector<PairObservation> base_observations(const std::vector<PairObservation>& obs) {
  std::vector<PairObservation> base;
  for (const PairObservation& o : obs)
    if (o.strategy.kind == StrategyKind::base) base.push_back(o);
  return base;
}

// fit_delay_factor on the pairs already grouped and their base observations.
double fit_delay_factor(HardwareProfile& hw, const std::vector<PairChoices>& pairs,
                        const std::vector<PairObservation>& base) {
  if (base.empty()) throw InputError("fit_delay_factor: no base pairs");
  const auto loss_at = [&](double f) {
    hw.gemm_first_delay_factor = f;
    return mean_loss_of_picks(hw, pairs);
  };
  const auto misfit_at = [&](double f) {
    hw.gemm_first_delay_factor = f;
    return sum_of_squares(hw, base);
  };
  // The grid: the least loss, and among its points the least misfit.
  double best_f = kDelayLo;
  LeastLossThenMisfit best;
  for (int i = 0; i <= kDelaySteps; ++i) {
    const double f = kDelayLo + (kDelayHi - kDelayLo) * i / kDelaySteps;
    if (best.offer(loss_at(f), misfit_at(f))) best_f = f;
  }
  // Refined between its neighbours by the misfit, where the picks lose no more.
  const double step = (kDelayHi - kDelayLo) / kDelaySteps;
  const double refined = minimize_1d(misfit_at, std::max(kDelayLo, best_f - step), std::min(kDelayHi, best_f + step));
  const double chosen = loss_at(refined) <= best.loss + kLossTie && misfit_at(refined) < best.misfit ? refined : best_f;
  hw.gemm_first_delay_factor = chosen;
  return chosen;
}

}  // namespace

double mean_pick_loss(const HardwareProfile& hw, const std::vector<PairObservation>& independent) {
  const std::vector<PairChoices> pairs = choices_by_pair(independent);
  if (pairs.empty()) throw InputError("mean_pick_loss: no pairs");
  return mean_loss_of_picks(hw, pairs);
}

double fit_delay_factor(HardwareProfile& hw, const std::vector<PairObservation>& independent) {
  return fit_delay_factor(hw, choices_by_pair(independent), base_observations(independent));
}

double fit_gemm_first(HardwareProfile& hw, const std::vector<PairObservation>& independent) {
  if (!(hw.gemm_latency_s > 0)) throw InputError("fit_gemm_first: the profile has no gemm_latency_s");
  const std::vector<PairChoices> pairs = choices_by_pair(independent);
  const std::vector<PairObservation> base = base_observations(independent);
  double best_launch = 0, best_factor = 0;
  LeastLossThenMisfit best;
  for (int i = 0; i <= kLaunchSteps; ++i) {
    hw.gemm_launch_s = kLaunchMaxLatencies * hw.gemm_latency_s * i / kLaunchSteps;
    fit_delay_factor(hw, pairs, base);  // throws without base observations
    if (best.offer(mean_loss_of_picks(hw, pairs), sum_of_squares(hw, base))) {  // ties: the shorter launch
      best_launch = hw.gemm_launch_s;
      best_factor = hw.gemm_first_delay_factor;
    }
  }
  hw.gemm_launch_s = best_launch;
  hw.gemm_first_delay_factor = best_factor;
  return best_launch;
}

namespace {

void fit_delay(HardwareProfile& hw, const std::vector<PairObservation>& all, const Provenance& source,
               std::vector<std::string>& notes) {
  if (base_observations(all).empty()) {
    notes.push_back("gemm_first_delay_factor: kept (no base pairs)");
    return;
  }
  const double before = hw.gemm_first_delay_factor, launch_before = hw.gemm_launch_s;
  if (hw.gemm_latency_s > 0) {
    fit_gemm_first(hw, all);
    hw.sources["gemm_launch_s"] = source;
  } else {  // no scale for the launch time's grid: the factor alone
    fit_delay_factor(hw, all);
  }
  hw.sources["gemm_first_delay_factor"] = source;
  notes.push_back("gemm_first_delay_factor: " + std::to_string(before) + " -> " +
                  std::to_string(hw.gemm_first_delay_factor) + ", gemm_launch_s: " + std::to_string(launch_before) +
                  " -> " + std::to_string(hw.gemm_launch_s) + " s (the picks' least mean loss over " +
                  std::to_string(choices_by_pair(all).size()) + " pairs, then the least misfit of base)");
}

}  // namespace


namespace {

// Every successful concurrent record of the files with a successful serial record of the
// same pair, of independent pairs or of dependent ones.
std::vector<PairObservation> observations(const std::vector<RawMeasurements>& files, bool dependent) {
  std::map<std::string, double> serial_s;
  std::vector<const Record*> concurrent;
  for (const RawMeasurements& file : files)
    for (const Record& r : file.records) {
      const auto* q = std::get_if<ConcurrentQuery>(&r.query);
      if (q == nullptr || !r.measurement.ok || (q->dependency != Dependency::none) != dependent) continue;
      if (q->strategy.kind == StrategyKind::serial)
        serial_s[pair_key(q->gemm, q->collective, q->dependency)] = r.measurement.median_s;
      else
        concurrent.push_back(&r);
    }
  std::vector<PairObservation> out;
  for (const Record* r : concurrent) {
    const auto& q = std::get<ConcurrentQuery>(r->query);
    const auto serial = serial_s.find(pair_key(q.gemm, q.collective, q.dependency));
    if (serial == serial_s.end()) continue;
    C3Pair pair{"", q.gemm, q.collective, {}, {}};
    pair.dependency = q.dependency;
    out.push_back({pair, q.strategy, r->measurement.median_s, serial->second});
  }
  return out;
}

}  // namespace

std::vector<PairObservation> pair_observations(const std::vector<RawMeasurements>& files) {
  return observations(files, false);
}

std::vector<PairObservation> dependent_observations(const std::vector<RawMeasurements>& files) {
  return observations(files, true);
}

double relative_residual(const HardwareProfile& hw, const PairObservation& o) {
  const double model_ratio = strategies::predicted_time_s(hw, o.pair, o.strategy) /
                             strategies::predicted_time_s(hw, o.pair, Strategy{StrategyKind::serial, 0, 0});
  return model_ratio / (o.time_s / o.serial_s) - 1.0;
}

std::map<std::string, double> prediction_errors(const HardwareProfile& hw,
                                                const std::vector<PairObservation>& obs) {
  std::map<std::string, std::vector<double>> errors;
  for (const PairObservation& o : obs) {
    errors[std::string(to_string(o.strategy.kind))].push_back(
        std::abs(strategies::predicted_time_s(hw, o.pair, o.strategy) / o.time_s - 1.0));
    errors["serial"].push_back(
        std::abs(strategies::predicted_time_s(hw, o.pair, Strategy{StrategyKind::serial, 0, 0}) / o.serial_s - 1.0));
  }
  std::map<std::string, double> p90;
  for (auto& [kind, e] : errors) {
    std::sort(e.begin(), e.end());
    // Nearest rank: the smallest error at or above 90% of the observations.
    const auto rank = static_cast<std::size_t>(std::ceil(0.9 * static_cast<double>(e.size())));
    p90[kind] = e[std::max<std::size_t>(rank, 1) - 1];
  }
  return p90;
}

double decomposed_ratio_error(const HardwareProfile& hw, const std::vector<PairObservation>& obs) {
  std::vector<double> e;
  for (const PairObservation& o : obs) e.push_back(std::abs(relative_residual(hw, o)));
  if (e.empty()) throw InputError("decomposed_ratio_error: no dependent pairs");
  std::sort(e.begin(), e.end());
  const std::size_t mid = e.size() / 2;
  return e.size() % 2 == 1 ? e[mid] : 0.5 * (e[mid - 1] + e[mid]);
}

std::map<std::string, double> decomposed_ratio_errors(const HardwareProfile& hw,
                                                      const std::vector<PairObservation>& obs) {
  std::vector<PairObservation> whole, partitioned;
  for (const PairObservation& o : obs) (o.strategy.collective_cus > 0 ? partitioned : whole).push_back(o);
  std::map<std::string, double> errors;
  if (obs.empty()) return errors;
  // "chunked" is every schedule's fallback (advisor.hpp): with no unpartitioned schedule to
  // measure it on, the partitioned ones' error stands for it rather than none (no hedge).
  errors["chunked"] = decomposed_ratio_error(hw, whole.empty() ? partitioned : whole);
  if (!partitioned.empty()) errors[kPartitionedScheduleError] = decomposed_ratio_error(hw, partitioned);
  return errors;
}

namespace {

// model.md §7.3: the fixed cost of a GEMM piece queued behind another, in [0, gemm_latency_s],
// by golden-section search on the decomposed schedules' relative residuals (against serial,
// which it does not change).
void fit_chunk_piece_latency(HardwareProfile& hw, const std::vector<PairObservation>& dependent,
                             const Provenance& source, std::vector<std::string>& notes) {
  if (dependent.empty()) {
    notes.push_back("chunk_piece_latency_s: kept (no decomposed schedules of dependent pairs)");
    return;
  }
  const double before = std::sqrt(sum_of_squares(hw, dependent) / static_cast<double>(dependent.size()));
  hw.chunk_piece_latency_s = minimize_1d(
      [&](double latency_s) {
        hw.chunk_piece_latency_s = latency_s;
        return sum_of_squares(hw, dependent);
      },
      0.0, hw.gemm_latency_s);
  hw.sources["chunk_piece_latency_s"] = source;
  const double after = std::sqrt(sum_of_squares(hw, dependent) / static_cast<double>(dependent.size()));
  notes.push_back("chunk_piece_latency_s: " + std::to_string(*hw.chunk_piece_latency_s) + " s from " +
                  std::to_string(dependent.size()) + " decomposed schedules, rms relative error " +
                  std::to_string(before) + " -> " + std::to_string(after));
}

}  // namespace

namespace {

// log(measured / measured serial) - log(predicted / predicted serial) of one observation.
double log_ratio_residual(const HardwareProfile& hw, const PairObservation& o) {
  return -std::log1p(relative_residual(hw, o));
}

// §4.7 and §7.4: per group with at least min_count residuals, exp of their median.
template <class Group>
std::map<Group, double> median_factors(const std::map<Group, std::vector<double>>& log_residuals,
                                       std::size_t min_count) {
  std::map<Group, double> fitted;
  for (const auto& [group, r] : log_residuals)
    if (r.size() >= min_count) fitted[group] = std::exp(median_of(r));
  return fitted;
}

}  // namespace

std::size_t fit_schedule_corrections(HardwareProfile& hw, const std::vector<PairObservation>& dependent) {
  hw.schedule_corrections.clear();
  std::map<ScheduleGroup, std::vector<double>> log_residuals;
  for (const PairObservation& o : dependent) {
    if (o.strategy.kind != StrategyKind::chunked) continue;
    const model::Decomposition d{o.strategy.chunks, o.strategy.chunk_transport, o.strategy.collective_cus};
    log_residuals[model::schedule_group(o.pair, d)].push_back(log_ratio_residual(hw, o));
  }
  hw.schedule_corrections = median_factors(log_residuals, kMinPairsPerGroup);
  return hw.schedule_corrections.size();
}

std::size_t fit_strategy_corrections(HardwareProfile& hw, const std::vector<PairObservation>& independent,
                                     double min_predicted_s) {
  if (!(min_predicted_s >= 0) || !std::isfinite(min_predicted_s))
    throw InputError("fit_strategy_corrections: the least predicted time must be a finite number of seconds >= 0");
  hw.strategy_corrections.clear();  // the predictions before: without corrections
  hw.strategy_correction_min_s = min_predicted_s;
  std::map<StrategyGroup, std::vector<double>> log_residuals;
  for (const PairObservation& o : independent) {
    if (o.pair.dependency != Dependency::none || o.strategy.kind == StrategyKind::serial ||
        o.strategy.kind == StrategyKind::chunked)
      continue;
    if (!(strategies::predicted_time_s(hw, o.pair, o.strategy) >= min_predicted_s)) continue;
    log_residuals[model::strategy_group(hw, o.pair, o.strategy.label())].push_back(log_ratio_residual(hw, o));
  }
  hw.strategy_corrections = median_factors(log_residuals, kMinPairsPerStrategyGroup);
  return hw.strategy_corrections.size();
}

std::optional<double> fit_chunk_batch_reread(HardwareProfile& hw, const std::vector<PairObservation>& dependent) {
  const std::optional<double> kept = hw.chunk_batch_reread;
  // The schedules the share changes: predicted differently when B is shared and when read again.
  std::vector<PairObservation> affected;
  for (const PairObservation& o : dependent) {
    hw.chunk_batch_reread = 0.0;
    const double shared_s = strategies::predicted_time_s(hw, o.pair, o.strategy);
    hw.chunk_batch_reread = 1.0;
    const double reread_s = strategies::predicted_time_s(hw, o.pair, o.strategy);
    if (std::abs(reread_s / shared_s - 1.0) > 1e-9) affected.push_back(o);
  }
  if (affected.empty()) {
    hw.chunk_batch_reread = kept;
    return std::nullopt;
  }
  hw.chunk_batch_reread = minimize_1d(
      [&](double share) {
        hw.chunk_batch_reread = share;
        return sum_of_squares(hw, affected);
      },
      0.0, 1.0);
  return hw.chunk_batch_reread;
}

bool fit_batch_reread(HardwareProfile& hw, const std::vector<PairObservation>& dependent, const Provenance& source,
                      std::vector<std::string>& notes) {
  const double before = hw.chunk_batch_reread.value_or(0.0);
  if (!fit_chunk_batch_reread(hw, dependent)) {
    notes.push_back("chunk_batch_reread: kept (no decomposed schedule whose batched step GEMM is memory-bound)");
    return false;
  }
  hw.sources["chunk_batch_reread"] = source;
  notes.push_back("chunk_batch_reread: " + std::to_string(before) + " -> " + std::to_string(*hw.chunk_batch_reread) +
                  " from the memory-bound batched steps of " + source.ref);
  return true;
}

namespace {

// One pair's choices with their predicted times, for scoring hedge errors.
struct PredictedChoices {
  PairChoices choices;
  std::vector<double> predicted_s;
};

// right decisions - kHedgeSlowerCost x picks slower than serial, over `pairs` with the
// unpartitioned schedules' hedge error `error` (evaluate.hpp's rules; serial is choice 0).
double hedge_score(const HardwareProfile& hw, const std::vector<PredictedChoices>& pairs, double error) {
  double score = 0;
  for (const PredictedChoices& p : pairs) {
    const PairChoices& c = p.choices;
    std::vector<double> errors;
    for (const Strategy& st : c.strategies)
      errors.push_back(st.kind == StrategyKind::chunked && st.collective_cus == 0
                           ? error
                           : schedule_error(hw, c.pair, st));
    const std::size_t pick = recommend_hedged(c.strategies, p.predicted_s, errors);
    const double fastest_s = *std::min_element(c.measured_s.begin(), c.measured_s.end());
    if (c.measured_s[pick] <= fastest_s * (1.0 + kDecisionTolerance)) score += 1.0;
    if (c.measured_s[pick] > c.measured_s.front() * (1.0 + kSerialSlack)) score -= kHedgeSlowerCost;
  }
  return score;
}

}  // namespace

std::size_t fit_schedule_hedges(HardwareProfile& hw, const std::vector<RawMeasurements>& files,
                                std::vector<std::string>& notes) {
  hw.schedule_hedges.clear();
  std::map<HedgeGroup, std::vector<PredictedChoices>> families;
  for (const RawMeasurements& file : files)  // per file: a pair's strategies from one process
    for (PairChoices& c : choices_by_pair(predictable(hw, dependent_observations({file}), notes))) {
      PredictedChoices p{std::move(c), {}};
      for (const Strategy& st : p.choices.strategies)
        p.predicted_s.push_back(strategies::predicted_time_s(hw, p.choices.pair, st));
      families[HedgeGroup{p.choices.pair.dependency, p.choices.pair.collective.kind}].push_back(std::move(p));
    }
  std::vector<double> grid;
  for (int i = 0; i * kHedgeGridStep <= kHedgeGridMax + 1e-12; ++i) grid.push_back(i * kHedgeGridStep);
  std::map<HedgeGroup, double> fitted;
  for (const auto& [family, pairs] : families) {
    if (pairs.size() < kMinPairsPerHedgeGroup) continue;
    // The family's present error: that of any of its schedules without a partition.
    const double present = schedule_error(hw, pairs.front().choices.pair, Strategy{StrategyKind::chunked, 0, 0});
    double best = present, best_score = hedge_score(hw, pairs, present);
    for (const double e : grid) {
      const double score = hedge_score(hw, pairs, e);
      if (score > best_score ||
          (score == best_score && best != present && std::abs(e - present) < std::abs(best - present))) {
        best = e;
        best_score = score;
      }
    }
    fitted[family] = best;
  }
  hw.schedule_hedges = std::move(fitted);
  return hw.schedule_hedges.size();
}

std::vector<PairObservation> predictable(const HardwareProfile& hw, const std::vector<PairObservation>& all,
                                         std::vector<std::string>& notes) {
  std::vector<PairObservation> out;
  for (const PairObservation& o : all) {
    try {
      relative_residual(hw, o);
      out.push_back(o);
    } catch (const InputError& e) {
      notes.push_back("pairs: skipped '" +
                      measurement_key(ConcurrentQuery{o.pair.gemm, o.pair.collective, o.strategy, o.pair.dependency}) +
                      "': " + e.what());
    }
  }
  return out;
}

std::vector<PairObservation> independent_observations(const HardwareProfile& hw, const std::vector<RawMeasurements>& files,
                                                      bool chained, std::vector<std::string>& notes) {
  std::vector<PairObservation> independent = pair_observations(files);
  if (chained)
    for (PairObservation& o : independent) o.pair.chained = true;
  return predictable(hw, independent, notes);
}

void fit_interference_by_kind(HardwareProfile& hw, const std::vector<PairObservation>& all,
                              const Provenance& source, std::vector<std::string>& notes) {
  using Group = std::tuple<CollectiveKind, Transport, GemmClass>;
  std::map<Group, std::vector<PairObservation>> groups;
  for (const PairObservation& o : all)
    for (const Transport transport : {Transport::cu, Transport::dma})
      if (uses_factors_of(o.strategy, transport))
        groups[{o.pair.collective.kind, transport, model::classify(hw, o.pair).gemm}].push_back(o);
  for (auto& [group, obs] : groups) {
    const auto [kind, transport, cls] = group;
    const std::string path = group_path(kind, transport, cls);
    const auto transport_factors = hw.interference.find(transport);
    if (transport_factors == hw.interference.end() || !transport_factors->second.count(cls)) {
      notes.push_back(path + ": not fitted (the profile has no " + std::string(to_string(transport)) +
                      " factors to start from)");
      continue;
    }
    if (obs.size() < kMinPairsPerGroup) {
      notes.push_back(path + ": not fitted (" + std::to_string(obs.size()) + " pairs, fewer than " +
                      std::to_string(kMinPairsPerGroup) + "); the transport's factors apply");
      continue;
    }
    auto& classes = hw.interference_by_kind[kind][transport];
    if (!classes.count(cls)) classes[cls] = transport_factors->second.at(cls);
    // Both classes must exist for the file format: the other starts as the transport's.
    for (const auto& [other_cls, factors] : transport_factors->second) classes.try_emplace(other_cls, factors);
    const double before = std::sqrt(sum_of_squares(hw, obs) / static_cast<double>(obs.size()));
    fit_group(hw, classes.at(cls), obs);
    const double after = std::sqrt(sum_of_squares(hw, obs) / static_cast<double>(obs.size()));
    hw.sources[path + ".gemm_slowdown"] = source;
    hw.sources[path + ".collective_slowdown"] = source;
    for (const auto& [other_cls, factors] : classes) {
      const std::string other = group_path(kind, transport, other_cls);
      hw.sources.try_emplace(other + ".gemm_slowdown", source);
      hw.sources.try_emplace(other + ".collective_slowdown", source);
    }
    notes.push_back(path + ": " + std::to_string(obs.size()) + " pairs, rms relative error " +
                    std::to_string(before) + " -> " + std::to_string(after));
  }
}

namespace {

void set_collective_launch_s(HardwareProfile& hw, Transport transport, double launch_s) {
  for (auto& [kind, transports] : hw.collectives)
    if (const auto it = transports.find(transport); it != transports.end()) it->second.launch_s = launch_s;
}

std::vector<PairObservation> using_factors_of(const std::vector<PairObservation>& obs, Transport transport) {
  std::vector<PairObservation> out;
  for (const PairObservation& o : obs)
    if (uses_factors_of(o.strategy, transport)) out.push_back(o);
  return out;
}

}  // namespace

std::optional<double> fit_collective_launch(HardwareProfile& hw, const std::vector<PairObservation>& obs,
                                            Transport transport) {
  if (!(hw.gemm_latency_s > 0)) throw InputError("fit_collective_launch: the profile has no gemm_latency_s");
  const std::vector<PairObservation> own = using_factors_of(obs, transport);
  if (own.empty()) return std::nullopt;
  const std::vector<PairChoices> pairs = choices_by_pair(obs);
  const HardwareProfile start = hw;
  double best_launch = 0;
  LeastLossThenMisfit best;
  for (int i = 0; i <= kLaunchSteps; ++i) {
    HardwareProfile trial = start;
    const double launch_s = kLaunchMaxLatencies * start.gemm_latency_s * i / kLaunchSteps;
    set_collective_launch_s(trial, transport, launch_s);
    std::vector<std::string> scratch;
    fit_interference_by_kind(trial, own, Provenance{}, scratch);
    if (best.offer(mean_loss_of_picks(trial, pairs), sum_of_squares(trial, own))) best_launch = launch_s;  // ties: the shorter
  }
  set_collective_launch_s(hw, transport, best_launch);
  return best_launch;
}

// §7.3: a decomposed schedule's factors per (kind, transport), fitted on the dependent
// pairs' schedules of that group (from the independent pairs' factors of the same kind),
// where the group has at least kMinPairsPerGroup of them.
void fit_pipeline_interference(HardwareProfile& hw, const std::vector<PairObservation>& dependent,
                               const Provenance& source, std::vector<std::string>& notes) {
  std::map<std::pair<CollectiveKind, Transport>, std::vector<PairObservation>> groups;
  for (const PairObservation& o : dependent)
    if (o.strategy.kind == StrategyKind::chunked && o.strategy.collective_cus == 0)  // partitions: §4.2's
      groups[{o.pair.collective.kind, o.strategy.chunk_transport}].push_back(o);
  for (auto& [group, obs] : groups) {
    const auto [kind, transport] = group;
    const std::string path =
        "interference.pipeline." + std::string(to_string(kind)) + "." + std::string(to_string(transport));
    if (obs.size() < kMinPairsPerGroup) {
      notes.push_back(path + ": not fitted (" + std::to_string(obs.size()) + " schedules, fewer than " +
                      std::to_string(kMinPairsPerGroup) + "); the independent pairs' factors apply");
      continue;
    }
    auto& by_transport = hw.pipeline_interference[kind];
    by_transport.erase(transport);
    // From the independent pairs' factors of the kind, nudged inside the bounds (at a bound
    // the clamp leaves the residuals flat in that direction, as in fit_group).
    Interference start = model::interference(hw, kind, transport, model::classify(hw, obs.front().pair).gemm);
    start.gemm_slowdown = std::max(start.gemm_slowdown, 1.05);
    start.collective_slowdown = std::max(start.collective_slowdown, 1.05);
    by_transport[transport] = start;
    const double before = std::sqrt(sum_of_squares(hw, obs) / static_cast<double>(obs.size()));
    fit_group(hw, by_transport[transport], obs);
    const double after = std::sqrt(sum_of_squares(hw, obs) / static_cast<double>(obs.size()));
    hw.sources[path + ".gemm_slowdown"] = source;
    hw.sources[path + ".collective_slowdown"] = source;
    notes.push_back(path + ": gemm_slowdown " + std::to_string(by_transport[transport].gemm_slowdown) +
                    ", collective_slowdown " + std::to_string(by_transport[transport].collective_slowdown) + " from " +
                    std::to_string(obs.size()) + " schedules, rms relative error " + std::to_string(before) + " -> " +
                    std::to_string(after));
  }
}

namespace {

void fit_corrections(HardwareProfile& hw, const std::vector<PairObservation>& dependent, const Provenance& source,
                     std::vector<std::string>& notes) {
  std::vector<PairObservation> schedules;
  for (const PairObservation& o : dependent)
    if (o.strategy.kind == StrategyKind::chunked) schedules.push_back(o);
  hw.schedule_corrections.clear();  // the predictions before: without corrections
  if (schedules.empty()) {
    notes.push_back("schedule_corrections: none (no decomposed schedules of dependent pairs)");
    return;
  }
  const double before = std::sqrt(sum_of_squares(hw, schedules) / static_cast<double>(schedules.size()));
  const std::size_t groups = fit_schedule_corrections(hw, schedules);
  const double after = std::sqrt(sum_of_squares(hw, schedules) / static_cast<double>(schedules.size()));
  if (groups > 0) hw.sources["schedule_corrections"] = source;
  std::string line;
  for (const auto& [g, factor] : hw.schedule_corrections)
    line += (line.empty() ? "" : ", ") + std::string(to_string(g.dependency)) + " " + std::string(to_string(g.kind)) +
            " " + std::string(to_string(g.transport)) +
            (g.collective_cus > 0 ? ":" + std::to_string(g.collective_cus) : "") + " x" + std::to_string(g.chunks) +
            " " + std::to_string(factor);
  notes.push_back("schedule_corrections: " + std::to_string(groups) + " groups of at least " +
                  std::to_string(kMinPairsPerGroup) + " schedules, rms relative error " + std::to_string(before) +
                  " -> " + std::to_string(after) + (line.empty() ? "" : " (" + line + ")"));
}

void fit_launches(HardwareProfile& hw, const std::vector<PairObservation>& all, const Provenance& source,
                  std::vector<std::string>& notes) {
  if (!(hw.gemm_latency_s > 0)) {
    notes.push_back("collectives.*.launch_s: kept (the profile has no gemm_latency_s to scale the grid)");
    return;
  }
  for (const Transport transport : {Transport::cu, Transport::dma}) {
    const std::string name(to_string(transport));
    double before = 0;
    for (const auto& [kind, transports] : hw.collectives)
      if (const auto it = transports.find(transport); it != transports.end()) before = it->second.launch_s;
    const std::optional<double> launch_s = fit_collective_launch(hw, all, transport);
    if (!launch_s) {
      notes.push_back("collectives.*." + name + ".launch_s: kept (no pair measured with the " + name +
                      " transport launched first)");
      continue;
    }
    for (const auto& [kind, transports] : hw.collectives)
      if (transports.count(transport))
        hw.sources["collectives." + std::string(to_string(kind)) + "." + name + ".launch_s"] = source;
    notes.push_back("collectives.*." + name + ".launch_s: " + std::to_string(before * 1e6) + " -> " +
                    std::to_string(*launch_s * 1e6) + " us (the picks' least mean loss over " +
                    std::to_string(choices_by_pair(all).size()) + " pairs, the kinds' " + name +
                    " factors refitted at each value)");
  }
}

}  // namespace

void fit_from_pairs(HardwareProfile& hw, const std::vector<RawMeasurements>& files, const Provenance& source,
                    std::vector<std::string>& notes, const PairFitOptions& options) {
  const std::vector<GemmKernelShape> kernels = measured_kernels(files);
  if (kernels.empty()) {
    notes.push_back("gemm_kernels: none recorded in the pairs' GEMM records; the profile's tile applies");
  } else {
    hw.gemm_kernels = kernels;
    hw.sources["gemm_kernels"] = source;
    notes.push_back("gemm_kernels: " + std::to_string(kernels.size()) + " shapes");
  }
  const std::vector<PairObservation> usable = independent_observations(hw, files, options.chained, notes);
  const std::vector<PairObservation> dependent = predictable(hw, dependent_observations(files), notes);
  if (options.launch) fit_launches(hw, usable, source, notes);
  fit_interference_by_kind(hw, usable, source, notes);
  fit_delay(hw, usable, source, notes);
  // The piece latency with the independent pairs' factors, then each group's pipeline
  // factors, then the latency again with them (the two trade off; its first value is a start).
  std::vector<std::string> first_pass;
  fit_chunk_piece_latency(hw, dependent, source, first_pass);
  fit_pipeline_interference(hw, dependent, source, notes);
  fit_chunk_piece_latency(hw, dependent, source, notes);
  fit_batch_reread(hw, dependent, source, notes);
  if (options.schedule_corrections) fit_corrections(hw, dependent, source, notes);
  if (usable.empty() && dependent.empty()) return;
  hw.prediction_error = usable.empty() ? std::map<std::string, double>{} : prediction_errors(hw, usable);
  for (auto& [key, e] : decomposed_ratio_errors(hw, dependent)) hw.prediction_error[key] = e;
  hw.sources["prediction_error"] = source;
  std::string line;
  for (const auto& [kind, e] : hw.prediction_error)
    line += (line.empty() ? "" : ", ") + kind + " " + std::to_string(e);
  notes.push_back("prediction_error (p90 of |predicted / measured - 1|, after the fits; chunked and " +
                  std::string(kPartitionedScheduleError) + ": the median error of a schedule's ratio to serial): " + line);
}

}  // namespace c3::validator
