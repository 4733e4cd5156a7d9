// The sim backend: the paper's qualitative findings must emerge from the simulator
// (they are not coded into it), it is deterministic, and its noise is seeded.
#include <gtest/gtest.h>


#include "c3/errors.hpp"
#include "c3/io.hpp"
#include "c3/validator.hpp"
#include "backends/sim/sim.hpp"

namespace c3::validator {
namespace {

class SimTest : public ::testing::Test {
 protected:
  SimTest() : hw_(io::resolve_profile("mi300x")), sim_(make_validator("sim", hw_)) {}

  double gemm_s(const char* shape, int removed) { return ok(sim_->gemm(parse_gemm(shape), removed)); }
  double coll_s(const char* spec, Transport t, int cus) {
    return ok(sim_->collective(parse_collective(spec, ranks()), t, cus));
  }
  double pair_s(const char* gemm, const char* coll, const char* strategy) {
    C3Pair pair;
    pair.gemm = parse_gemm(gemm);
    pair.collective = parse_collective(coll, ranks());
    return ok(sim_->concurrent(pair, parse_strategy(strategy)));
  }
  int ranks() const { return hw_.gpu_count; }

  static double ok(const Measurement& m) {
    EXPECT_TRUE(m.ok) << m.error;
    return m.median_s;
  }

  HardwareProfile hw_;
  std::unique_ptr<Validator> sim_;
};

constexpr const char* kComputeBound = "8192x8192x8192";
constexpr const char* kMemoryBound = "32768x32768x64";

TEST_F(SimTest, ComputeBoundGemmSlowsAsCusAreRemovedMemoryBoundBarely) {
  EXPECT_GT(gemm_s(kComputeBound, 64) / gemm_s(kComputeBound, 0), 1.10);
  EXPECT_LT(gemm_s(kMemoryBound, 64) / gemm_s(kMemoryBound, 0), 1.03);
}

TEST_F(SimTest, GemmFirstIsNearSerialAndCollectiveFirstIsBetter) {
  const double serial = pair_s(kComputeBound, "all_gather:896MiB", "serial");
  const double base = pair_s(kComputeBound, "all_gather:896MiB", "base");
  const double sp = pair_s(kComputeBound, "all_gather:896MiB", "sp");
  EXPECT_GT(base, 0.85 * serial);
  EXPECT_LT(sp, 0.9 * base);
}

TEST_F(SimTest, DmaLeavesTheGemmItsCus) {
  // G-long: on CUs the collective takes CUs from the GEMM; on copy engines it does not.
  const double gemm = gemm_s("16384x16384x8192", 0);
  const double dma = pair_s("16384x16384x8192", "all_gather:512MiB", "dma");
  const double sp = pair_s("16384x16384x8192", "all_gather:512MiB", "sp");
  EXPECT_LT(dma, sp);
  EXPECT_LT(dma, 1.05 * gemm);
}

TEST_F(SimTest, DmaCollectivePaysLaunchAndSyncAtSmallSizes) {
  EXPECT_GT(coll_s("all_gather:64KiB", Transport::dma, 0), 2 * coll_s("all_gather:64KiB", Transport::cu, 0));
  const double large_ratio =
      coll_s("all_gather:1GiB", Transport::dma, 0) / coll_s("all_gather:1GiB", Transport::cu, 0);
  EXPECT_LT(large_ratio, 1.2);
}

TEST_F(SimTest, CollectivesStopGainingFromCusOnceTheLinksAreFull) {
  const auto at = [&](const char* spec, int cus) { return coll_s(spec, Transport::cu, cus); };
  EXPECT_GT(at("all_gather:1GiB", 8) / at("all_gather:1GiB", 32), 2.0);
  EXPECT_LT(at("all_gather:1GiB", 32) / at("all_gather:1GiB", 128), 1.05);
  EXPECT_GT(at("all_to_all:1GiB", 32) / at("all_to_all:1GiB", 128), 1.3);  // needs more CUs
  EXPECT_LT(at("all_gather:64KiB", 8) / at("all_gather:64KiB", 128), 1.1);  // latency-bound
}

TEST_F(SimTest, PartitionHoldsForBothKernels) {
  // rp: the GEMM runs on 304 - 64 CUs for its whole run; never faster than that alone.
  const double gemm_on_rest = gemm_s(kComputeBound, 64);
  EXPECT_GE(pair_s(kComputeBound, "all_gather:64MiB", "rp:64"), gemm_on_rest);
}

TEST_F(SimTest, NoiseIsSeededPerQuery) {
  SimParams params = sim_params(hw_);
  apply_sim_arg(params, "noise=0.02,seed=7");
  auto a = make_sim_validator(params);
  auto b = make_sim_validator(params);
  const Gemm g = parse_gemm(kComputeBound);
  const Measurement first = a->gemm(g, 0);
  a->gemm(g, 8);  // what ran before does not change a query's runs
  EXPECT_EQ(a->gemm(g, 0).runs_s, first.runs_s);
  EXPECT_EQ(b->gemm(g, 0).runs_s, first.runs_s);
  EXPECT_GT(first.max_s, first.min_s);
  EXPECT_EQ(first.runs_s.size(), 9u);

  const Measurement quiet = sim_->gemm(g, 0);
  EXPECT_EQ(quiet.min_s, quiet.max_s);
  EXPECT_FALSE(quiet.verified);  // the simulator computes no outputs to check
}

TEST_F(SimTest, ArgumentsAreCheckedAndNamed) {
  EXPECT_THROW(make_validator("sim:noise=abc", hw_), InputError);
  EXPECT_THROW(make_validator("sim:noise=0.5", hw_), InputError);
  EXPECT_THROW(make_validator("sim:seed=-1", hw_), InputError);
  try {
    make_validator("sim:speed=2", hw_);
    FAIL() << "no error for an unknown key";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("noise, seed"), std::string::npos) << e.what();
  }
}

TEST_F(SimTest, ADtypeWithoutPeakIsAFailedMeasurementNotAThrow) {
  HardwareProfile bf16_only = hw_;
  bf16_only.peak_flops_per_s = {{DType::bf16, hw_.peak_flops_per_s.at(DType::bf16)}};
  const Measurement m = make_validator("sim", bf16_only)->gemm(parse_gemm("1024x1024x1024:fp8"), 0);
  EXPECT_FALSE(m.ok);
  EXPECT_NE(m.error.find("fp8"), std::string::npos) << m.error;
}

}  // namespace
}  // namespace c3::validator
