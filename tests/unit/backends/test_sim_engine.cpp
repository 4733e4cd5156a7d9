// The sim backend's event engine: fair sharing, wave dispatch, launch order.
#include <gtest/gtest.h>

#include "c3/errors.hpp"
#include "backends/sim/sim_engine.hpp"

namespace c3::validator::sim {
namespace {

TEST(SimWaterFill, SmallDemandsAreMetAndTheRestShareEqually) {
  const std::vector<double> share = water_fill({{2, 1.0}, {1, 10.0}, {1, 10.0}}, 10.0);
  EXPECT_DOUBLE_EQ(share[0], 1.0);
  EXPECT_DOUBLE_EQ(share[1], 4.0);
  EXPECT_DOUBLE_EQ(share[2], 4.0);
}

TEST(SimWaterFill, NeverHandsOutMoreThanTheCapacity) {
  const std::vector<Claim> claims = {{3, 5.0}, {7, 2.0}, {1, 100.0}};
  const std::vector<double> share = water_fill(claims, 20.0);
  double total = 0;
  for (std::size_t i = 0; i < claims.size(); ++i) total += share[i] * claims[i].count;
  EXPECT_NEAR(total, 20.0, 1e-12);
}

Launch compute_bound_gemm(std::int64_t units, int pool) {
  Launch l;
  l.type = Launch::Type::gemm;
  l.pool = pool;
  l.gemm.units = units;
  l.gemm.unit_flops = 1.0;
  l.gemm.cu_flops_per_s = 1.0;  // one unit takes 1 s
  l.gemm.cu_max_bytes_per_s = 1e9;
  l.gemm.traffic.fixed_bytes = 1.0;
  return l;
}

TEST(SimEngine, GemmRunsInWavesOfItsCus) {
  const Machine machine{{4}, 1e12};
  EXPECT_NEAR(run(machine, {compute_bound_gemm(8, 0)})[0], 2.0, 1e-9);
  EXPECT_NEAR(run(machine, {compute_bound_gemm(9, 0)})[0], 3.0, 1e-9);
}

TEST(SimEngine, HbmBoundGemmMovesFewerBytesWithFewerCusWhenItsOperandOverflowsTheCache) {
  Launch l;
  l.type = Launch::Type::gemm;
  l.gemm.units = 8;
  l.gemm.unit_flops = 1e-9;
  l.gemm.cu_flops_per_s = 1.0;
  l.gemm.cu_max_bytes_per_s = 1e9;
  l.gemm.traffic = GemmTraffic{0, 100, 1, 100, 10, 0};  // reread 100 B once; 100 B cache
  // 4 running units hold 40 B of cache: 40% of the reread misses, 140 B in all at 10 B/s.
  EXPECT_NEAR(run(Machine{{4}, 10}, {l})[0], 14.0, 1e-6);
  // 2 running units hold 20 B: 20% misses, 120 B.
  EXPECT_NEAR(run(Machine{{2}, 10}, {l})[0], 12.0, 1e-6);
}

TEST(SimEngine, SecondKernelInAPoolWaitsUntilTheFirstDispatchedEverything) {
  const Machine machine{{4}, 1e12};
  // 6 units on 4 CUs: the second kernel's single unit gets a CU only when the
  // first wave retires (t = 1) and the 2 remaining units leave 2 CUs free.
  const std::vector<double> ends = run(machine, {compute_bound_gemm(6, 0), compute_bound_gemm(1, 0)});
  EXPECT_NEAR(ends[0], 2.0, 1e-9);
  EXPECT_NEAR(ends[1], 2.0, 1e-9);
  // In separate pools both start at once.
  const std::vector<double> split =
      run(Machine{{3, 1}, 1e12}, {compute_bound_gemm(6, 0), compute_bound_gemm(1, 1)});
  EXPECT_NEAR(split[1], 1.0, 1e-9);
}

TEST(SimEngine, StreamChannelsShareTheLinkAfterTheirSetup) {
  Launch l;
  l.type = Launch::Type::stream;
  l.stream.units = 4;
  l.stream.setup_s = 0.5;
  l.stream.unit_bytes = 100;
  l.stream.unit_max_bytes_per_s = 100;  // 4 channels could move 400 B/s ...
  l.stream.link_bytes_per_byte = 1;
  l.stream.hbm_bytes_per_byte = 2;
  l.stream.link_bw_bytes_per_s = 200;  // ... but the link carries 200
  EXPECT_NEAR(run(Machine{{8}, 1e12}, {l})[0], 0.5 + 400.0 / 200.0, 1e-9);
  // With HBM the bottleneck instead: 400 B moved means 800 B of HBM traffic.
  EXPECT_NEAR(run(Machine{{8}, 100}, {l})[0], 0.5 + 800.0 / 100.0, 1e-9);
}

TEST(SimEngine, CopyEngineTransfersQueueOnBusyEnginesAndEndWithASync) {
  Launch l;
  l.type = Launch::Type::dma;
  l.dma.transfers = 3;
  l.dma.transfer_bytes = 10;
  l.dma.issue_s = 1;
  l.dma.sync_s = 0.25;
  l.dma.engines = 1;
  l.dma.engine_bw_bytes_per_s = 10;  // one transfer: 1 s
  l.dma.link_bw_bytes_per_s = 1e9;
  l.dma.hbm_bytes_per_byte = 2;
  // Issued at 1, 2, 3; one engine runs them back to back: 1-2, 2-3, 3-4; sync.
  EXPECT_NEAR(run(Machine{{1}, 1e12}, {l})[0], 4.25, 1e-9);
  l.dma.engines = 3;  // in parallel: the last is issued at 3 and ends at 4
  EXPECT_NEAR(run(Machine{{1}, 1e12}, {l})[0], 4.25, 1e-9);
  l.dma.issue_s = 0.1;  // issued at 0.1, 0.2, 0.3 on 3 engines: ends at 1.3
  EXPECT_NEAR(run(Machine{{1}, 1e12}, {l})[0], 1.55, 1e-9);
}

TEST(SimEngine, AKernelWithoutCusIsAnError) {
  EXPECT_THROW(run(Machine{{0}, 1e12}, {compute_bound_gemm(1, 0)}), c3::BackendError);
}

}  // namespace
}  // namespace c3::validator::sim
