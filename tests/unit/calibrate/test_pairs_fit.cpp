// Fitting from measured pairs (calibrate/pairs_fit.hpp): measurements made by a known
// "true" profile are fitted back from a profile that does not have its values.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <map>
#include <string>

#include "c3/errors.hpp"
#include "c3/model.hpp"
#include "c3/strategy.hpp"
#include "calibrate/calibrate_fit.hpp"
#include "calibrate/pairs_fit.hpp"
#include "support/toy_profile.hpp"

namespace c3::validator {
namespace {

Measurement measured(double t) {
  Measurement m;
  m.ok = true;
  m.median_s = m.min_s = m.max_s = t;
  m.runs_s = {t};
  return m;
}

// The pairs of the file: compute-bound GEMMs (C-long to G-long) with all-gathers of
// several sizes, each under serial, base, sp, rp:20 and dma, timed by `truth`.
// `chained`: timed queued ahead (C3Pair::chained).
RawMeasurements measured_by(const HardwareProfile& truth, bool chained = false) {
  RawMeasurements raw;
  raw.provenance.device = "toy";
  const Gemm gemms[] = {{4000, 4000, 4000, DType::bf16}, {8000, 8000, 2000, DType::bf16},
                        {9000, 10050, 3000, DType::bf16}};
  const std::int64_t sizes[] = {50'000'000, 200'000'000, 800'000'000};
  const Strategy strategies[] = {{StrategyKind::serial, 0, 0}, {StrategyKind::base, 0, 0},
                                 {StrategyKind::sp, 0, 0},     {StrategyKind::rp, 20, 20},
                                 {StrategyKind::dma, 0, 0}};
  for (const Gemm& g : gemms) {
    Measurement gm = measured(model::gemm_time_s(truth, g));
    gm.gemm_kernel = GemmKernel{66, 209, 100, 50, 1, 35, 1, 1.0, 0};
    raw.records.push_back({GemmQuery{g, 0}, gm});
    for (const std::int64_t size : sizes) {
      C3Pair pair{"", g, {CollectiveKind::all_gather, size, 8}, {}, {}};
      pair.chained = chained;
      for (const Strategy& s : strategies)
        raw.records.push_back({ConcurrentQuery{g, pair.collective, s},
                               measured(strategies::predicted_time_s(truth, pair, s))});
    }
  }
  return raw;
}

TEST(PairsFit, RecoversEachKindsFactorsAndTheDelay) {
  HardwareProfile truth = testing::toy_profile();
  truth.gemm_kernels = {{Gemm{4000, 4000, 4000, DType::bf16}, 100, 50, 1}};
  truth.interference_by_kind[CollectiveKind::all_gather][Transport::cu][GemmClass::compute_bound] = {1.15, 1.6};
  truth.interference_by_kind[CollectiveKind::all_gather][Transport::cu][GemmClass::memory_bound] =
      truth.interference[Transport::cu][GemmClass::memory_bound];
  truth.gemm_first_delay_factor = 0.7;

  HardwareProfile hw = testing::toy_profile();  // transport factors {1, 1}, delay 1
  std::vector<std::string> notes;
  fit_from_pairs(hw, {measured_by(truth)}, Provenance{SourceKind::measured, "pairs.json"}, notes);

  ASSERT_EQ(hw.gemm_kernels.size(), 3u);  // one per GEMM shape, tiles from the records
  EXPECT_EQ(hw.gemm_kernels[0].tile_m, 100);
  EXPECT_EQ(hw.gemm_kernels[0].tile_n, 50);
  const Interference& f =
      hw.interference_by_kind.at(CollectiveKind::all_gather).at(Transport::cu).at(GemmClass::compute_bound);
  EXPECT_NEAR(f.gemm_slowdown, 1.15, 1e-3);
  EXPECT_NEAR(f.collective_slowdown, 1.6, 1e-3);
  EXPECT_NEAR(hw.gemm_first_delay_factor, 0.7, 1e-3);
  // The transport's own factors are untouched: other kinds keep them.
  EXPECT_EQ(hw.interference.at(Transport::cu).at(GemmClass::compute_bound).collective_slowdown, 1.0);
  EXPECT_EQ(hw.sources.at("gemm_first_delay_factor").ref, "pairs.json");
}

// Where base runs slower than serial on some pairs (which no factor can predict: the delay
// is at most the GEMM's time), least squares pushes the factor towards serial for every
// pair; the fit takes the factor whose picks lose least.
TEST(PairsFit, TheDelayFactorIsTheOneWhosePicksLoseLeast) {
  HardwareProfile truth = testing::toy_profile();
  truth.gemm_first_delay_factor = 0.7;
  RawMeasurements raw = measured_by(truth);
  std::map<std::string, double> serial_s;
  for (const Record& r : raw.records)
    if (const auto* q = std::get_if<ConcurrentQuery>(&r.query); q && q->strategy.kind == StrategyKind::serial)
      serial_s[std::to_string(q->gemm.m) + "/" + std::to_string(q->collective.size_bytes)] = r.measurement.median_s;
  int slowed = 0;
  for (Record& r : raw.records) {
    const auto* q = std::get_if<ConcurrentQuery>(&r.query);
    if (q == nullptr || q->strategy.kind != StrategyKind::base || q->collective.size_bytes == 50'000'000) continue;
    const double t = 1.3 * serial_s.at(std::to_string(q->gemm.m) + "/" + std::to_string(q->collective.size_bytes));
    r.measurement.median_s = r.measurement.min_s = r.measurement.max_s = t;
    r.measurement.runs_s = {t};
    ++slowed;
  }
  ASSERT_EQ(slowed, 6);
  // The choice between serial and base only.
  std::vector<PairObservation> obs;
  for (const PairObservation& o : pair_observations({raw}))
    if (o.strategy.kind == StrategyKind::base) obs.push_back(o);

  HardwareProfile hw = testing::toy_profile();
  const double fitted = fit_delay_factor(hw, obs);
  EXPECT_EQ(hw.gemm_first_delay_factor, fitted);
  const double fitted_loss = mean_pick_loss(hw, obs);
  // No factor of the grid picks better, and the least-squares one picks worse.
  HardwareProfile probe = testing::toy_profile();
  const double least_squares = minimize_1d(
      [&](double f) {
        probe.gemm_first_delay_factor = f;
        double sum = 0;
        for (const PairObservation& o : obs) sum += std::pow(relative_residual(probe, o), 2);
        return sum;
      },
      0.0, 2.0);
  for (double f = 0.0; f <= 2.0 + 1e-9; f += 0.05) {
    probe.gemm_first_delay_factor = f;
    EXPECT_LE(fitted_loss, mean_pick_loss(probe, obs) + 1e-12) << "factor " << f;
  }
  probe.gemm_first_delay_factor = least_squares;
  const double least_squares_loss = mean_pick_loss(probe, obs);
  EXPECT_LT(fitted_loss, least_squares_loss);
  EXPECT_THROW(fit_delay_factor(hw, {}), InputError);
  EXPECT_THROW(mean_pick_loss(hw, {}), InputError);
}

// Decode-size pairs (GEMMs of one wave, shorter than a launch on every rank) under serial,
// base and sp, timed by a profile that launches its GEMMs in `truth.gemm_launch_s`.
TEST(PairsFit, TheGemmsLaunchTimeIsFittedWithTheDelay) {
  HardwareProfile truth = testing::toy_profile();
  truth.gemm_latency_s = 20e-6;
  truth.gemm_first_delay_factor = 0.7;
  truth.gemm_launch_s = 2.0 * truth.gemm_latency_s;  // on the fit's grid: 12 of 24 steps
  RawMeasurements raw;
  raw.provenance.device = "toy";
  std::vector<Gemm> gemms{{100, 100, 100, DType::bf16}, {200, 400, 800, DType::bf16}, {800, 800, 800, DType::bf16}};
  // And GEMMs a little longer than the launch, whose base tells the launch time apart from
  // its neighbours on the grid.
  for (std::int64_t m = 100; gemms.size() < 5 && m < 1'000'000; m += 100) {
    const Gemm g{m, 2000, 2000, DType::bf16};
    const double t = model::gemm_time_s(truth, g);
    if (t > 1.01 * truth.gemm_launch_s && t < 1.08 * truth.gemm_launch_s) gemms.push_back(g);
  }
  ASSERT_EQ(gemms.size(), 5u);
  const std::int64_t sizes[] = {1 << 16, 1 << 20, 1 << 24};
  for (const Gemm& g : gemms)
    for (const std::int64_t size : sizes) {
      const C3Pair pair{"", g, {CollectiveKind::all_gather, size, 8}, {}, {}};
      for (const char* label : {"serial", "base", "sp"}) {
        const Strategy s = parse_strategy(label);
        raw.records.push_back({ConcurrentQuery{g, pair.collective, s}, measured(strategies::predicted_time_s(truth, pair, s))});
      }
    }
  const std::vector<PairObservation> obs = pair_observations({raw});
  HardwareProfile hw = testing::toy_profile();  // no launch time, delay 1
  hw.gemm_latency_s = truth.gemm_latency_s;
  ASSERT_EQ(hw.gemm_launch_s, 0.0);
  const double launch = fit_gemm_first(hw, obs);
  EXPECT_EQ(hw.gemm_launch_s, launch);
  EXPECT_NEAR(launch, truth.gemm_launch_s, 1e-12);
  EXPECT_EQ(mean_pick_loss(hw, obs), 0.0);
  // Without the launch time the same pairs are picked worse: base predicted to overlap.
  HardwareProfile no_launch = hw;
  no_launch.gemm_launch_s = 0;
  EXPECT_GT(mean_pick_loss(no_launch, obs), 0.0);
  HardwareProfile no_latency = testing::toy_profile();
  no_latency.gemm_latency_s = 0;
  EXPECT_THROW(fit_gemm_first(no_latency, obs), InputError);
}

// Pairs under serial, base, sp and rp:20 timed by a profile whose NCCL launch, made before
// the GEMM's when the collective goes first, takes two GEMM latencies: short collectives
// beside GEMMs of 20 us to 1 ms, where sp pays the launch and base hides it.
TEST(PairsFit, TheCollectivesLaunchIsTheOneWhosePicksLoseLeast) {
  HardwareProfile truth = testing::toy_profile();
  truth.gemm_latency_s = 20e-6;
  for (auto& [kind, transports] : truth.collectives) transports.at(Transport::cu).launch_s = 2.0 * truth.gemm_latency_s;
  RawMeasurements raw;
  raw.provenance.device = "toy";
  for (const std::int64_t m : {200, 800, 2000, 4000, 8000}) {
    const Gemm g{m, 4096, 4096, DType::bf16};
    for (const std::int64_t size : {std::int64_t{1} << 16, std::int64_t{1} << 22, std::int64_t{1} << 26}) {
      const C3Pair pair{"", g, {CollectiveKind::all_gather, size, 8}, {}, {}};
      for (const char* label : {"serial", "base", "sp", "rp:20"}) {
        const Strategy s = parse_strategy(label);
        raw.records.push_back({ConcurrentQuery{g, pair.collective, s}, measured(strategies::predicted_time_s(truth, pair, s))});
      }
    }
  }
  const std::vector<PairObservation> obs = pair_observations({raw});
  HardwareProfile hw = testing::toy_profile();
  hw.gemm_latency_s = truth.gemm_latency_s;
  ASSERT_EQ(hw.collectives.at(CollectiveKind::all_gather).at(Transport::cu).launch_s, 0.0);
  const double before_loss = mean_pick_loss(hw, obs);
  const std::optional<double> launch = fit_collective_launch(hw, obs, Transport::cu);
  ASSERT_TRUE(launch.has_value());
  EXPECT_NEAR(*launch, 40e-6, 1e-12);  // on the grid: 12 of 24 steps of 4 x 20 us
  for (const auto& [kind, transports] : hw.collectives)
    EXPECT_EQ(transports.at(Transport::cu).launch_s, *launch) << to_string(kind);  // one value for every kind
  EXPECT_EQ(mean_pick_loss(hw, obs), 0.0);
  EXPECT_GT(before_loss, 0.0);  // without the launch, sp is picked where base is faster
  // No pair ran on copy engines: nothing to fit, nothing changed.
  const HardwareProfile kept = hw;
  EXPECT_FALSE(fit_collective_launch(hw, obs, Transport::dma).has_value());
  EXPECT_EQ(hw.collectives.at(CollectiveKind::all_gather).at(Transport::dma).launch_s,
            kept.collectives.at(CollectiveKind::all_gather).at(Transport::dma).launch_s);
  HardwareProfile no_latency = testing::toy_profile();
  no_latency.gemm_latency_s = 0;
  EXPECT_THROW(fit_collective_launch(no_latency, obs, Transport::cu), InputError);
  // fit_from_pairs refits it only when asked.
  HardwareProfile asked = testing::toy_profile(), not_asked = testing::toy_profile();
  asked.gemm_latency_s = not_asked.gemm_latency_s = truth.gemm_latency_s;
  std::vector<std::string> notes;
  fit_from_pairs(asked, {raw}, Provenance{SourceKind::measured, "pairs.json"}, notes, PairFitOptions{true});
  fit_from_pairs(not_asked, {raw}, Provenance{SourceKind::measured, "pairs.json"}, notes);
  EXPECT_NEAR(asked.collectives.at(CollectiveKind::all_gather).at(Transport::cu).launch_s, 40e-6, 1e-12);
  EXPECT_EQ(asked.sources.at("collectives.all_gather.cu.launch_s").ref, "pairs.json");
  EXPECT_EQ(not_asked.collectives.at(CollectiveKind::all_gather).at(Transport::cu).launch_s, 0.0);
}

// Pairs timed queued ahead (C3Pair::chained: no launch cost, sp runs as base) by a profile
// whose collectives take 40 us to launch: fitted with PairFitOptions::chained, the profile
// prices them back, its delay factor the truth's; the same profile priced unchained would
// charge sp the launch the measurements never paid.
TEST(PairsFit, ChainedFitsPriceThePairsQueuedAhead) {
  HardwareProfile truth = testing::toy_profile();
  truth.interference_by_kind[CollectiveKind::all_gather][Transport::cu][GemmClass::compute_bound] = {1.15, 1.6};
  truth.interference_by_kind[CollectiveKind::all_gather][Transport::cu][GemmClass::memory_bound] =
      truth.interference[Transport::cu][GemmClass::memory_bound];
  truth.gemm_first_delay_factor = 0.7;
  for (auto& [kind, transports] : truth.collectives) transports.at(Transport::cu).launch_s = 40e-6;
  const RawMeasurements raw = measured_by(truth, true);

  HardwareProfile hw = testing::toy_profile();  // transport factors {1, 1}, delay 1
  hw.collectives = truth.collectives;           // the calibration's launch, as measured
  std::vector<std::string> notes;
  fit_from_pairs(hw, {raw}, Provenance{SourceKind::measured, "pairs.json"}, notes, PairFitOptions{false, true});
  const Interference& f =
      hw.interference_by_kind.at(CollectiveKind::all_gather).at(Transport::cu).at(GemmClass::compute_bound);
  EXPECT_NEAR(f.gemm_slowdown, 1.15, 5e-3);
  EXPECT_NEAR(f.collective_slowdown, 1.6, 5e-3);
  EXPECT_NEAR(hw.gemm_first_delay_factor, 0.7, 5e-3);
  std::vector<PairObservation> obs = pair_observations({raw});
  ASSERT_EQ(obs.size(), 36u);  // 9 pairs x base, sp, rp:20, dma
  double worst_chained = 0, worst_sp_unchained = 0;
  for (PairObservation& o : obs) {
    o.pair.chained = true;
    worst_chained = std::max(worst_chained, std::abs(relative_residual(hw, o)));
    if (o.strategy.kind != StrategyKind::sp) continue;
    o.pair.chained = false;
    worst_sp_unchained = std::max(worst_sp_unchained, std::abs(relative_residual(hw, o)));
  }
  EXPECT_LT(worst_chained, 5e-3);  // the fits stop within their tolerance
  EXPECT_GT(worst_sp_unchained, 0.05);  // unchained, sp pays the 40 us launch it never paid
}

// Dependent pairs under serial and chunked:C:dma, timed by `truth` (`more`: four more
// shapes, enough to tell the piece latency from the pipeline's factors).
RawMeasurements dependent_measured_by(const HardwareProfile& truth, bool more = false) {
  RawMeasurements raw;
  raw.provenance.device = "toy";
  std::vector<Gemm> gemms{Gemm{4000, 4000, 4000, DType::bf16}, Gemm{800, 4000, 4000, DType::bf16}};
  if (more)
    for (const Gemm& g : {Gemm{16000, 4000, 4000, DType::bf16}, Gemm{2400, 8000, 2000, DType::bf16},
                          Gemm{160, 4000, 4000, DType::bf16}, Gemm{8000, 1000, 8000, DType::bf16}})
      gemms.push_back(g);
  for (const Gemm& g : gemms) {
    C3Pair pair{"", g, {CollectiveKind::all_gather, 0, 2}, {}, {}};
    pair.dependency = Dependency::collective_feeds_gemm;
    pair.collective.size_bytes = dependent_operand_bytes(g, pair.dependency);
    for (const char* label : {"serial", "chunked:2:dma", "chunked:4:dma", "chunked:8:dma"}) {
      const Strategy s = parse_strategy(label);
      raw.records.push_back({ConcurrentQuery{g, pair.collective, s, pair.dependency},
                             measured(strategies::predicted_time_s(truth, pair, s))});
    }
  }
  return raw;
}

TEST(PairsFit, TheBatchedStepsRereadIsFittedWhereMemoryBoundStepsDependOnIt) {
  HardwareProfile truth = testing::toy_profile();
  truth.chunk_batch_reread = 0.4;
  // gemm_feeds_collective pairs, memory-bound on the toy (HBM 1e12): their steps' B counts.
  RawMeasurements raw;
  for (const Gemm& g : {Gemm{1000, 1000, 1000, DType::bf16}, Gemm{64, 4000, 8000, DType::bf16}, Gemm{256, 2000, 4000, DType::bf16}}) {
    C3Pair pair{"", g, {CollectiveKind::reduce_scatter, 0, 2}, {}, {}};
    pair.dependency = Dependency::gemm_feeds_collective;
    pair.collective.size_bytes = dependent_operand_bytes(g, pair.dependency);
    for (const char* label : {"serial", "chunked:4:cu", "chunked:8:cu"}) {
      const Strategy st = parse_strategy(label);
      raw.records.push_back({ConcurrentQuery{g, pair.collective, st, pair.dependency},
                             summarize_runs({strategies::predicted_time_s(truth, pair, st)}, 0, true)});
    }
  }
  HardwareProfile hw = testing::toy_profile();
  const std::optional<double> fitted = fit_chunk_batch_reread(hw, dependent_observations({raw}));
  ASSERT_TRUE(fitted.has_value());
  EXPECT_NEAR(*fitted, 0.4, 1e-3);
  EXPECT_EQ(hw.chunk_batch_reread, fitted);
  // Nothing depends on it (the collective feeds the GEMM: no batched steps at 2 ranks): kept.
  HardwareProfile kept = testing::toy_profile();
  kept.chunk_batch_reread = 0.9;
  EXPECT_FALSE(fit_chunk_batch_reread(kept, dependent_observations({dependent_measured_by(truth, true)})).has_value());
  EXPECT_EQ(kept.chunk_batch_reread, 0.9);
}

TEST(PairsFit, DependentPairsGiveThePieceLatencyThePipelineFactorsAndTheHedgeError) {
  HardwareProfile truth = testing::toy_profile();
  truth.chunk_piece_latency_s = 0.25 * truth.gemm_latency_s;
  truth.pipeline_interference[CollectiveKind::all_gather][Transport::dma] = {1.3, 1.1};
  HardwareProfile hw = testing::toy_profile();  // unset: every piece pays gemm_latency_s
  std::vector<std::string> notes;
  fit_from_pairs(hw, {measured_by(testing::toy_profile()), dependent_measured_by(truth, true)},
                 Provenance{SourceKind::measured, "pairs.json"}, notes);
  ASSERT_TRUE(hw.chunk_piece_latency_s.has_value());
  EXPECT_NEAR(*hw.chunk_piece_latency_s, 0.25 * truth.gemm_latency_s, 2e-2 * truth.gemm_latency_s);
  EXPECT_EQ(hw.sources.at("chunk_piece_latency_s").ref, "pairs.json");
  const Interference& f = hw.pipeline_interference.at(CollectiveKind::all_gather).at(Transport::dma);
  EXPECT_NEAR(f.gemm_slowdown, 1.3, 1e-2);
  EXPECT_NEAR(f.collective_slowdown, 1.1, 2e-2);
  EXPECT_EQ(hw.sources.at("interference.pipeline.all_gather.dma.gemm_slowdown").ref, "pairs.json");
  // The independent pairs' factors are not the pipeline's: untouched.
  EXPECT_EQ(hw.interference.at(Transport::dma).at(GemmClass::compute_bound).gemm_slowdown, 1.0);
  // Fitted, the schedules' ratios to serial are the measured ones.
  ASSERT_TRUE(hw.prediction_error.count("chunked"));
  EXPECT_NEAR(hw.prediction_error.at("chunked"), 0.0, 2e-3);
  EXPECT_FALSE(hw.prediction_error.count(kPartitionedScheduleError));  // no partitioned schedule measured
  // The dependent records are not independent pairs: the interference fits never see them.
  EXPECT_EQ(pair_observations({dependent_measured_by(truth)}).size(), 0u);
  EXPECT_EQ(dependent_observations({dependent_measured_by(truth)}).size(), 6u);
}

TEST(PairsFit, ScheduleCorrectionsAreEachGroupsMedianRatioToTheModel) {
  // The truth prices 4-chunk copy-engine all-gathers 15% slower than the model does, and
  // nothing else differently: only that group gets a factor far from 1, and it is 1.15.
  HardwareProfile truth = testing::toy_profile();
  const ScheduleGroup slow{Dependency::collective_feeds_gemm, CollectiveKind::all_gather, Transport::dma, 0, 4};
  truth.schedule_corrections[slow] = 1.15;
  HardwareProfile hw = testing::toy_profile();
  hw.schedule_corrections[slow] = 3.0;  // a stale value: replaced, not compounded
  const std::vector<PairObservation> obs = dependent_observations({dependent_measured_by(truth, true)});
  EXPECT_EQ(fit_schedule_corrections(hw, obs), 3u);  // 2, 4 and 8 chunks, six schedules each
  EXPECT_NEAR(hw.schedule_corrections.at(slow), 1.15, 1e-9);
  for (const int chunks : {2, 8})
    EXPECT_NEAR(hw.schedule_corrections.at(ScheduleGroup{Dependency::collective_feeds_gemm, CollectiveKind::all_gather,
                                                         Transport::dma, 0, chunks}),
                1.0, 1e-9);
  // Corrected, every schedule's ratio to serial is the measured one.
  for (const PairObservation& o : obs) EXPECT_NEAR(relative_residual(hw, o), 0.0, 1e-9);
  // Groups with fewer schedules than kMinPairsPerGroup (two pairs here) get none.
  EXPECT_EQ(fit_schedule_corrections(hw, dependent_observations({dependent_measured_by(truth)})), 0u);
  EXPECT_TRUE(hw.schedule_corrections.empty());
}

TEST(PairsFit, ScheduleCorrectionsOnlyWhenAsked) {
  HardwareProfile truth = testing::toy_profile();
  truth.schedule_corrections[ScheduleGroup{Dependency::collective_feeds_gemm, CollectiveKind::all_gather,
                                           Transport::dma, 0, 8}] = 0.9;
  const std::vector<RawMeasurements> files{measured_by(testing::toy_profile()), dependent_measured_by(truth, true)};
  std::vector<std::string> notes;
  HardwareProfile plain = testing::toy_profile();
  fit_from_pairs(plain, files, Provenance{SourceKind::measured, "pairs.json"}, notes);
  EXPECT_TRUE(plain.schedule_corrections.empty());
  EXPECT_FALSE(plain.sources.count("schedule_corrections"));
  HardwareProfile corrected = testing::toy_profile();
  PairFitOptions options;
  options.schedule_corrections = true;
  fit_from_pairs(corrected, files, Provenance{SourceKind::measured, "pairs.json"}, notes, options);
  EXPECT_EQ(corrected.schedule_corrections.size(), 3u);
  EXPECT_EQ(corrected.sources.at("schedule_corrections").ref, "pairs.json");
  // Fitted last, after the pipeline's factors (which take part of the 8-chunk bias for every
  // chunk count): the hedge error falls.
  EXPECT_GT(plain.prediction_error.at("chunked"), 0.02);
  EXPECT_LT(corrected.prediction_error.at("chunked"), 0.5 * plain.prediction_error.at("chunked"));
}

TEST(PairsFit, StrategyCorrectionsAreEachGroupsMedianRatioToTheModel) {
  // The truth prices sp on compute-bound all-gathers 15% slower than the model does, and
  // nothing else differently: only that group gets a factor far from 1, and it is 1.15.
  HardwareProfile truth = testing::toy_profile();
  const StrategyGroup slow{CollectiveKind::all_gather, GemmClass::compute_bound, "sp"};
  truth.strategy_corrections[slow] = 1.15;
  HardwareProfile hw = testing::toy_profile();
  hw.strategy_corrections[slow] = 3.0;  // a stale value: replaced, not compounded
  const RawMeasurements file = measured_by(truth);
  const std::vector<PairObservation> obs = pair_observations({file, file, file});  // 27 pairs per strategy
  EXPECT_EQ(fit_strategy_corrections(hw, obs, 0.0), 4u);  // base, sp, rp:20, dma
  EXPECT_NEAR(hw.strategy_corrections.at(slow), 1.15, 1e-9);
  for (const char* label : {"base", "rp:20", "dma"})
    EXPECT_NEAR(hw.strategy_corrections.at(StrategyGroup{CollectiveKind::all_gather, GemmClass::compute_bound, label}),
                1.0, 1e-9)
        << label;
  EXPECT_FALSE(hw.strategy_corrections.count(StrategyGroup{CollectiveKind::all_gather, GemmClass::compute_bound, "serial"}));
  EXPECT_EQ(hw.strategy_correction_min_s, 0.0);
  // Corrected, every strategy's ratio to serial is the measured one.
  for (const PairObservation& o : obs) EXPECT_NEAR(relative_residual(hw, o), 0.0, 1e-9);
  // Groups of fewer than kMinPairsPerStrategyGroup (9 pairs in one file) get none.
  EXPECT_EQ(fit_strategy_corrections(hw, pair_observations({file}), 0.0), 0u);
  EXPECT_TRUE(hw.strategy_corrections.empty());
  // Only predictions of at least the least time count, and the profile keeps that time.
  EXPECT_EQ(fit_strategy_corrections(hw, obs, 10.0), 0u);
  EXPECT_EQ(hw.strategy_correction_min_s, 10.0);
  for (const double bad : {-1.0, std::numeric_limits<double>::quiet_NaN(), std::numeric_limits<double>::infinity()})
    EXPECT_THROW(fit_strategy_corrections(hw, obs, bad), InputError) << bad;
  // Chained, sp runs as base (§4.6): its observations are base's group, as the model keys them.
  HardwareProfile queued = testing::toy_profile();
  queued.strategy_corrections[StrategyGroup{CollectiveKind::all_gather, GemmClass::compute_bound, "base"}] = 1.2;
  const RawMeasurements chained_file = measured_by(queued, true);
  std::vector<PairObservation> chained = pair_observations({chained_file, chained_file, chained_file});
  for (PairObservation& o : chained) o.pair.chained = true;
  HardwareProfile fitted = testing::toy_profile();
  EXPECT_EQ(fit_strategy_corrections(fitted, chained, 0.0), 3u);  // base (with sp's), rp:20, dma
  EXPECT_FALSE(fitted.strategy_corrections.count(StrategyGroup{CollectiveKind::all_gather, GemmClass::compute_bound, "sp"}));
  EXPECT_NEAR(fitted.strategy_corrections.at(StrategyGroup{CollectiveKind::all_gather, GemmClass::compute_bound, "base"}),
              1.2, 1e-9);
  for (const PairObservation& o : chained) EXPECT_NEAR(relative_residual(fitted, o), 0.0, 1e-9);
  // Dependent pairs' schedules are not independent strategies: nothing to fit from them.
  EXPECT_EQ(fit_strategy_corrections(hw, dependent_observations({dependent_measured_by(truth, true)}), 0.0), 0u);
}

TEST(PairsFit, DecomposedRatioErrorIsTheMedianOfTheRatioErrors) {
  const HardwareProfile hw = testing::toy_profile();
  std::vector<PairObservation> obs = dependent_observations({dependent_measured_by(hw)});
  ASSERT_EQ(obs.size(), 6u);
  // Measured times made 0%, 0%, 10%, 20%, 30% and 50% longer than predicted against the
  // same serial: |ratio error| = 1/1.0 - 1 ... -> 0, 0, 0.0909, 0.1667, 0.2308, 0.3333.
  const double slower[] = {1.0, 1.0, 1.1, 1.2, 1.3, 1.5};
  for (std::size_t i = 0; i < obs.size(); ++i) obs[i].time_s *= slower[i];
  EXPECT_NEAR(decomposed_ratio_error(hw, obs), 0.5 * (1 - 1 / 1.1 + 1 - 1 / 1.2), 1e-12);
  EXPECT_THROW(decomposed_ratio_error(hw, {}), InputError);
}

TEST(PairsFit, DecomposedRatioErrorsGiveSchedulesInAPartitionTheirOwn) {
  const HardwareProfile hw = testing::toy_profile();
  std::vector<PairObservation> obs = dependent_observations({dependent_measured_by(hw)});
  ASSERT_EQ(obs.size(), 6u);
  // Without a partition only: one family, "chunked", the median of all (as above).
  for (std::size_t i = 0; i < obs.size(); ++i) obs[i].time_s *= 1.0 + 0.1 * static_cast<double>(i);
  const auto whole = decomposed_ratio_errors(hw, obs);
  EXPECT_EQ(whole.size(), 1u);
  EXPECT_DOUBLE_EQ(whole.at("chunked"), decomposed_ratio_error(hw, obs));
  // The same pairs' schedules in a 16-CU partition, measured 40% slower than predicted: their
  // own entry, and "chunked" still the unpartitioned schedules' alone.
  std::vector<PairObservation> with = obs;
  for (const PairObservation& o : obs) {
    PairObservation p = o;
    p.strategy = parse_strategy("chunked:" + std::to_string(o.strategy.chunks) + ":cu:16");
    p.time_s = 1.4 * strategies::predicted_time_s(hw, p.pair, p.strategy) * (o.serial_s /
               strategies::predicted_time_s(hw, p.pair, parse_strategy("serial")));
    with.push_back(p);
  }
  const auto both = decomposed_ratio_errors(hw, with);
  ASSERT_EQ(both.size(), 2u);
  EXPECT_DOUBLE_EQ(both.at("chunked"), whole.at("chunked"));
  EXPECT_NEAR(both.at(kPartitionedScheduleError), 1 - 1 / 1.4, 1e-12);
  EXPECT_TRUE(decomposed_ratio_errors(hw, {}).empty());
  // Only partitioned schedules: their error is also "chunked", every schedule's fallback, so
  // that an unpartitioned schedule asked later is still hedged.
  const std::vector<PairObservation> only(with.begin() + static_cast<std::ptrdiff_t>(obs.size()), with.end());
  const auto partitioned_only = decomposed_ratio_errors(hw, only);
  ASSERT_EQ(partitioned_only.size(), 2u);
  EXPECT_NEAR(partitioned_only.at("chunked"), 1 - 1 / 1.4, 1e-12);
  EXPECT_NEAR(partitioned_only.at(kPartitionedScheduleError), 1 - 1 / 1.4, 1e-12);
}

// `count` dependent pairs of `kind` (`dependency`) under serial and `label` whose schedule `hw`
// predicts at least 6% faster than serial, the schedule measured `factor` times its prediction
// and serial as predicted.
RawMeasurements hedge_family(const HardwareProfile& hw, Dependency dependency, CollectiveKind kind,
                             const char* label, double factor, std::size_t count) {
  RawMeasurements raw;
  raw.provenance.device = "toy";
  const Strategy serial = parse_strategy("serial"), schedule = parse_strategy(label);
  for (std::int64_t m = 2000; m <= 64000 && raw.records.size() < 2 * count; m += 2000)
    for (const std::int64_t nk : {2000, 4000, 8000}) {
      if (raw.records.size() >= 2 * count) break;
      const Gemm g{m, nk, nk, DType::bf16};
      C3Pair pair{"", g, {kind, 0, 2}, {}, {}};
      pair.dependency = dependency;
      pair.collective.size_bytes = dependent_operand_bytes(g, dependency);
      const double serial_s = strategies::predicted_time_s(hw, pair, serial);
      const double schedule_s = strategies::predicted_time_s(hw, pair, schedule);
      if (serial_s / schedule_s - 1 < 0.06) continue;
      raw.records.push_back({ConcurrentQuery{g, pair.collective, serial, dependency}, measured(serial_s)});
      raw.records.push_back(
          {ConcurrentQuery{g, pair.collective, schedule, dependency}, measured(factor * schedule_s)});
    }
  return raw;
}

TEST(PairsFit, ScheduleHedgesAreTheErrorsWhosePicksDoBest) {
  HardwareProfile hw = testing::toy_profile();
  hw.prediction_error["chunked"] = 0.6;  // hedges every pair below: serial kept everywhere
  const HedgeGroup gathers{Dependency::collective_feeds_gemm, CollectiveKind::all_gather};
  const HedgeGroup scatters{Dependency::gemm_feeds_collective, CollectiveKind::reduce_scatter};
  hw.schedule_hedges[gathers] = 0.3;  // a stale value: replaced
  // The all-gathers' schedules are as fast as predicted (6% or more faster than serial): any
  // grid point picks them, all right, so the fit leaves 0.6 for the point nearest it, the
  // grid's largest. The reduce-scatters' are 50% slower than predicted (slower than serial):
  // every grid point picks them, all wrong and slower, so the present 0.6 stays.
  RawMeasurements fast = hedge_family(hw, Dependency::collective_feeds_gemm, CollectiveKind::all_gather,
                                      "chunked:2:dma", 1.0, kMinPairsPerHedgeGroup);
  RawMeasurements slow = hedge_family(hw, Dependency::gemm_feeds_collective, CollectiveKind::reduce_scatter,
                                      "chunked:8:cu", 1.5, kMinPairsPerHedgeGroup);
  ASSERT_EQ(fast.records.size(), 2 * kMinPairsPerHedgeGroup);
  ASSERT_EQ(slow.records.size(), 2 * kMinPairsPerHedgeGroup);
  std::vector<std::string> notes;
  EXPECT_EQ(fit_schedule_hedges(hw, {fast, slow}, notes), 2u);
  EXPECT_TRUE(notes.empty());
  EXPECT_DOUBLE_EQ(hw.schedule_hedges.at(gathers), kHedgeGridMax);
  EXPECT_DOUBLE_EQ(hw.schedule_hedges.at(scatters), 0.6);
  // Too few pairs for a family: none; a pair counts once per file, so the same pairs in two
  // files make one.
  const RawMeasurements few = hedge_family(hw, Dependency::collective_feeds_gemm, CollectiveKind::all_gather,
                                           "chunked:2:dma", 1.0, kMinPairsPerHedgeGroup - 1);
  EXPECT_EQ(fit_schedule_hedges(hw, {few}, notes), 0u);
  EXPECT_TRUE(hw.schedule_hedges.empty());
  EXPECT_EQ(fit_schedule_hedges(hw, {few, few}, notes), 1u);
  EXPECT_DOUBLE_EQ(hw.schedule_hedges.at(gathers), kHedgeGridMax);
  // Independent pairs only: no family, none kept.
  EXPECT_EQ(fit_schedule_hedges(hw, {measured_by(testing::toy_profile())}, notes), 0u);
  EXPECT_TRUE(hw.schedule_hedges.empty());
}

TEST(PairsFit, TooFewPairsKeepTheTransportsFactors) {
  const HardwareProfile truth = testing::toy_profile();
  RawMeasurements raw = measured_by(truth);
  // Keep one GEMM's pairs at one size: 1 sp + 1 rp pair for cu, fewer than kMinPairsPerGroup.
  std::vector<Record> kept;
  for (const Record& r : raw.records) {
    const auto* q = std::get_if<ConcurrentQuery>(&r.query);
    if (q == nullptr || (q->gemm.m == 4000 && q->collective.size_bytes == 50'000'000)) kept.push_back(r);
  }
  raw.records = kept;
  HardwareProfile hw = testing::toy_profile();
  std::vector<std::string> notes;
  fit_from_pairs(hw, {raw}, Provenance{SourceKind::measured, "pairs.json"}, notes);
  EXPECT_TRUE(hw.interference_by_kind.empty());
  bool noted = false;
  for (const std::string& n : notes) noted |= n.find("fewer than") != std::string::npos;
  EXPECT_TRUE(noted);
}

TEST(PairsFit, ObservationsNeedTheSerialRecordOfTheirPair) {
  RawMeasurements raw = measured_by(testing::toy_profile());
  const std::size_t with_serial = pair_observations({raw}).size();
  EXPECT_EQ(with_serial, 3u * 3u * 4u);  // 3 GEMMs x 3 sizes x 4 strategies besides serial
  std::erase_if(raw.records, [](const Record& r) {
    const auto* q = std::get_if<ConcurrentQuery>(&r.query);
    return q != nullptr && q->strategy.kind == StrategyKind::serial;
  });
  EXPECT_TRUE(pair_observations({raw}).empty());
}

}  // namespace
}  // namespace c3::validator
