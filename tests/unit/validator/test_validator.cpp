// The Validator interface: registry, argument checks before any backend runs,
// summarize_runs.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include <algorithm>

#include "c3/errors.hpp"
#include "c3/io.hpp"
#include "c3/validator.hpp"

namespace c3 {
namespace {

// Counts hook calls; every call succeeds with a 1 ms measurement.
class CountingValidator final : public Validator {
 public:
  int calls = 0;
  std::vector<StrategyKind> strategies = {StrategyKind::serial, StrategyKind::base, StrategyKind::sp,
                                          StrategyKind::rp,     StrategyKind::dma,  StrategyKind::dma_rp};

 private:
  Capabilities do_capabilities() const override {
    Capabilities caps;
    caps.backend = "counting";
    caps.gpus = 4;
    caps.compute_units = 128;
    caps.strategies = strategies;
    return caps;
  }
  Measurement ok() {
    ++calls;
    return summarize_runs({1e-3}, 0, true);
  }
  Measurement do_gemm(const Gemm&, int) override { return ok(); }
  Measurement do_collective(const Collective&, Transport, int) override { return ok(); }
  Measurement do_concurrent(const C3Pair&, const Strategy&) override { return ok(); }
  Measurement do_copy(CopyPath, std::int64_t) override { return ok(); }
};

C3Pair pair_of(const char* gemm, const char* coll, int ranks) {
  C3Pair pair;
  pair.gemm = parse_gemm(gemm);
  pair.collective = parse_collective(coll, ranks);
  return pair;
}

TEST(ValidatorRegistry, BuiltinsAreRegistered) {
  const std::vector<std::string> names = backend_names();
  EXPECT_TRUE(std::is_sorted(names.begin(), names.end()));
  EXPECT_NE(std::find(names.begin(), names.end(), "sim"), names.end());
  EXPECT_NE(std::find(names.begin(), names.end(), "replay"), names.end());
}

TEST(ValidatorRegistry, UnknownNameListsTheKnownOnes) {
  try {
    make_validator("nosuch:1", io::resolve_profile("mi300x"));
    FAIL() << "no error";
  } catch (const InputError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("'nosuch'"), std::string::npos) << what;
    EXPECT_NE(what.find("replay, sim"), std::string::npos) << what;
  }
}

TEST(ValidatorRegistry, RegisteredBackendGetsItsArgument) {
  std::string seen;
  register_backend("test_counting", [&](const std::string& arg, const HardwareProfile&) {
    seen = arg;
    return std::make_unique<CountingValidator>();
  });
  const auto v = make_validator("test_counting:a:b", io::resolve_profile("mi300x"));
  EXPECT_EQ(seen, "a:b");
  EXPECT_EQ(v->capabilities().backend, "counting");
  EXPECT_THROW(register_backend("bad:name", [](const std::string&, const HardwareProfile&) {
                 return std::make_unique<CountingValidator>();
               }),
               InputError);
  EXPECT_THROW(register_backend("empty", nullptr), InputError);
}

TEST(ValidatorChecks, InvalidArgumentsNeverReachTheBackend) {
  CountingValidator v;
  EXPECT_THROW(v.gemm(Gemm{0, 8, 8, DType::bf16}, 0), InputError);
  EXPECT_THROW(v.gemm(parse_gemm("64x64x64"), -1), InputError);
  EXPECT_THROW(v.gemm(parse_gemm("64x64x64"), 128), InputError);  // would leave no CU
  EXPECT_THROW(v.collective(Collective{CollectiveKind::all_gather, 0, 4}, Transport::cu, 0), InputError);
  EXPECT_THROW(v.collective(parse_collective("all_gather:1MiB", 8), Transport::cu, 0), InputError);
  EXPECT_THROW(v.collective(parse_collective("reduce_scatter:1MiB", 4), Transport::dma, 0), InputError);
  EXPECT_THROW(v.collective(parse_collective("all_gather:1MiB", 4), Transport::cu, 129), InputError);
  EXPECT_THROW(v.collective(parse_collective("all_gather:1MiB", 4), Transport::cu, -8), InputError);
  EXPECT_THROW(v.copy(CopyPath::device_local, 0), InputError);
  EXPECT_EQ(v.calls, 0);
}

TEST(ValidatorChecks, StrategiesMustBeConsistent) {
  CountingValidator v;
  const C3Pair pair = pair_of("64x64x64", "all_gather:1MiB", 4);
  EXPECT_THROW(v.concurrent(pair, Strategy{StrategyKind::rp, 0, 0}), InputError);
  EXPECT_THROW(v.concurrent(pair, Strategy{StrategyKind::rp, 16, 8}), InputError);
  EXPECT_THROW(v.concurrent(pair, Strategy{StrategyKind::rp, 128, 128}), InputError);
  EXPECT_THROW(v.concurrent(pair, Strategy{StrategyKind::dma_rp, 8, 8}), InputError);
  EXPECT_THROW(v.concurrent(pair, Strategy{StrategyKind::sp, 0, 8}), InputError);
  EXPECT_THROW(v.concurrent(pair_of("64x64x64", "all_reduce:1MiB", 4), parse_strategy("dma")), InputError);
  EXPECT_EQ(v.calls, 0);
  EXPECT_TRUE(v.concurrent(pair, parse_strategy("rp:16")).ok);
  EXPECT_TRUE(v.concurrent(pair, parse_strategy("dma_rp:8")).ok);
  EXPECT_EQ(v.calls, 2);
}

TEST(ValidatorChecks, StrategyTheBackendCannotRunIsRefused) {
  CountingValidator v;
  v.strategies = {StrategyKind::serial, StrategyKind::sp};
  try {
    v.concurrent(pair_of("64x64x64", "all_gather:1MiB", 4), parse_strategy("dma"));
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("cannot run strategy 'dma'"), std::string::npos) << e.what();
  }
}

TEST(ValidatorChecks, RunConfigIsChecked) {
  CountingValidator v;
  EXPECT_THROW(v.set_run_config(RunConfig{-1, 9}), InputError);
  EXPECT_THROW(v.set_run_config(RunConfig{6, 0}), InputError);
  RunConfig bad{6, 9};
  bad.min_time_s = -1;
  EXPECT_THROW(v.set_run_config(bad), InputError);
  bad.min_time_s = std::nan("");
  EXPECT_THROW(v.set_run_config(bad), InputError);
  bad.min_time_s = 0.01;
  bad.min_warmup_s = std::numeric_limits<double>::infinity();
  EXPECT_THROW(v.set_run_config(bad), InputError);
  bad.min_warmup_s = 0.01;
  bad.max_runs = 8;  // fewer than the 9 measured runs
  EXPECT_THROW(v.set_run_config(bad), InputError);
  bad.max_runs = 100;
  v.set_run_config(bad);
  EXPECT_EQ(v.run_config().min_time_s, 0.01);
  v.set_run_config(RunConfig{2, 3});
  EXPECT_EQ(v.run_config().warmup_runs, 2);
  EXPECT_EQ(v.run_config().measured_runs, 3);
}

TEST(SummarizeRuns, MedianMinMaxKeepTheRunsInOrder) {
  const Measurement odd = summarize_runs({3.0, 1.0, 2.0}, 6, true);
  EXPECT_TRUE(odd.ok);
  EXPECT_DOUBLE_EQ(odd.median_s, 2.0);
  EXPECT_DOUBLE_EQ(odd.min_s, 1.0);
  EXPECT_DOUBLE_EQ(odd.max_s, 3.0);
  EXPECT_EQ(odd.runs_s, (std::vector<double>{3.0, 1.0, 2.0}));
  EXPECT_EQ(odd.warmup_runs, 6);
  EXPECT_TRUE(odd.verified);
  EXPECT_DOUBLE_EQ(summarize_runs({4.0, 1.0, 2.0, 3.0}, 0, false).median_s, 2.5);
}

TEST(SummarizeRuns, NoRunsOrABadRunIsAFailure) {
  const Measurement empty = summarize_runs({}, 6, true);
  EXPECT_FALSE(empty.ok);
  EXPECT_FALSE(empty.error.empty());
  EXPECT_FALSE(summarize_runs({1.0, -1.0}, 0, true).ok);
  EXPECT_FALSE(summarize_runs({1.0, std::numeric_limits<double>::quiet_NaN()}, 0, true).ok);
}

TEST(SimValidator, HonoursTheRunConfig) {
  auto sim = make_validator("sim", io::resolve_profile("mi300x"));
  sim->set_run_config(RunConfig{1, 4});
  const Measurement m = sim->copy(CopyPath::device_local, 1 << 30);
  ASSERT_TRUE(m.ok) << m.error;
  EXPECT_EQ(m.runs_s.size(), 4u);
  EXPECT_EQ(m.warmup_runs, 1);
}

}  // namespace
}  // namespace c3
