// Every model function against numbers derived by hand on the toy profile
// (tests/unit/support/toy_profile.hpp): the derivation is in each test's comments.
#include <gtest/gtest.h>

#include <algorithm>
#include <tuple>

#include <limits>

#include "c3/errors.hpp"
#include "c3/model.hpp"
#include "c3/strategy.hpp"
#include "support/toy_profile.hpp"

namespace c3::model {
namespace {

using testing::toy_profile;

const Gemm kSmall{1000, 1000, 1000, DType::bf16};    // memory-bound on the toy
const Gemm kBig{10000, 10000, 10000, DType::bf16};  // compute-bound on the toy

TEST(Gemm, FlopsBytesAndClass) {
  const auto hw = toy_profile();
  EXPECT_DOUBLE_EQ(gemm_flops(kSmall), 2e9);
  EXPECT_DOUBLE_EQ(gemm_min_bytes(kSmall), 6e6);  // 3 * 1e6 elements * 2 bytes
  EXPECT_NEAR(gemm_op_per_byte(kSmall), 333.333, 1e-3);
  EXPECT_DOUBLE_EQ(machine_op_per_byte(hw, DType::bf16), 1000.0);
  EXPECT_EQ(gemm_class(hw, kSmall), GemmClass::memory_bound);
  EXPECT_EQ(gemm_class(hw, kBig), GemmClass::compute_bound);  // op:byte 3333
}

TEST(Gemm, RooflineTime) {
  const auto hw = toy_profile();
  // small: max(2e9 / 5e14, 6e6 / 5e11) = max(4 us, 12 us)
  EXPECT_NEAR(gemm_time_s(hw, kSmall), 12e-6, 1e-15);
  // big: max(2e12 / 5e14, 6e8 / 5e11) = max(4 ms, 1.2 ms)
  EXPECT_NEAR(gemm_time_s(hw, kBig), 4e-3, 1e-15);
  // at 100%: max(2e12 / 1e15, 6e8 / 1e12) = 2 ms
  EXPECT_NEAR(gemm_roofline_time_s(hw, kBig, 1.0), 2e-3, 1e-15);
}

TEST(Gemm, MeasuredEfficiencyCurveAndLatency) {
  auto hw = toy_profile();
  // efficiency 0.8 at 2e9 flops, 0.4 at 2e12: log-linear between, held outside
  hw.gemm_efficiency_curve = testing::table("gemm_efficiency_curve", {2e9, 2e12}, {0.8, 0.4});
  EXPECT_DOUBLE_EQ(gemm_compute_efficiency(hw, kSmall), 0.8);
  EXPECT_DOUBLE_EQ(gemm_compute_efficiency(hw, kBig), 0.4);
  const Gemm mid{10000, 10000, 100, DType::bf16};  // 2e10 flops: a third of the way in log
  EXPECT_NEAR(gemm_compute_efficiency(hw, mid), 0.8 - 0.4 / 3.0, 1e-12);
  EXPECT_DOUBLE_EQ(gemm_compute_efficiency(hw, Gemm{1, 1, 1, DType::bf16}), 0.8);
  EXPECT_DOUBLE_EQ(gemm_compute_efficiency(hw, Gemm{100000, 100000, 100000, DType::bf16}), 0.4);
  // big at 0.4: 2e12 / 4e14 = 5 ms, plus a 7 us kernel latency
  hw.gemm_latency_s = 7e-6;
  EXPECT_NEAR(gemm_time_s(hw, kBig), 5e-3 + 7e-6, 1e-15);
  // without a curve the single efficiency applies
  EXPECT_DOUBLE_EQ(gemm_compute_efficiency(toy_profile(), kBig), 0.5);
}

TEST(Gemm, SustainedSlowdownIsLogLinearAndHeldAtItsEnds) {
  auto hw = toy_profile();
  EXPECT_DOUBLE_EQ(sustained_gemm_slowdown(hw, 4e-3), 1.0);  // not measured: 1
  // 1.0 at 100 us, 1.2 at 10 ms: at 1 ms (half way in log) 1.1
  hw.sustained_gemm_slowdown = testing::table("sustained_gemm_slowdown", {1e-4, 1e-2}, {1.0, 1.2});
  EXPECT_DOUBLE_EQ(sustained_gemm_slowdown(hw, 1e-4), 1.0);
  EXPECT_NEAR(sustained_gemm_slowdown(hw, 1e-3), 1.1, 1e-12);
  EXPECT_DOUBLE_EQ(sustained_gemm_slowdown(hw, 1e-6), 1.0);
  EXPECT_DOUBLE_EQ(sustained_gemm_slowdown(hw, 10.0), 1.2);
  const Table one = testing::table("one", {1e-3}, {1.3});
  EXPECT_DOUBLE_EQ(interpolate_log_x_held(one, 5.0), 1.3);
}

TEST(Gemm, AlignmentOfTheLeadingDimensions) {
  // tn (the runner's): k and m lead; bf16: 8 elements are 16 bytes
  EXPECT_EQ(gemm_alignment_bytes(Gemm{4096, 4096, 4096, DType::bf16}), 16);
  EXPECT_EQ(gemm_alignment_bytes(Gemm{1093, 4096, 4096, DType::bf16}), 2);   // odd m: 2 bytes
  EXPECT_EQ(gemm_alignment_bytes(Gemm{4370, 4096, 4096, DType::bf16}), 4);   // m = 2 (mod 8)
  EXPECT_EQ(gemm_alignment_bytes(Gemm{1028, 4096, 4096, DType::bf16}), 8);   // m = 4 (mod 8)
  EXPECT_EQ(gemm_alignment_bytes(Gemm{4096, 4096, 50257, DType::bf16}), 2);  // odd k
  EXPECT_EQ(gemm_alignment_bytes(Gemm{4096, 1093, 4096, DType::bf16}), 16);  // n does not lead in tn
  EXPECT_EQ(gemm_alignment_bytes(Gemm{1, 4096, 4096, DType::bf16}), 16);     // m = 1: no stride
  EXPECT_EQ(gemm_alignment_bytes(Gemm{1093, 4096, 4096, DType::fp32}), 4);   // 4-byte elements
  EXPECT_EQ(gemm_alignment_bytes(Gemm{4098, 4096, 4096, DType::fp32}), 8);
  EXPECT_EQ(gemm_alignment_bytes(Gemm{4097, 4096, 4096, DType::fp8}), 1);
  // the largest valid dimensions do not overflow: INT64_MAX is odd
  EXPECT_EQ(gemm_alignment_bytes(Gemm{std::numeric_limits<std::int64_t>::max(), 1, 16, DType::bf16}), 2);
  EXPECT_EQ(gemm_alignment_bytes(Gemm{std::numeric_limits<std::int64_t>::max() - 7, 1, 16, DType::fp32}), 16);
  // row_major (PyTorch's): k and n lead
  EXPECT_EQ(gemm_alignment_bytes(Gemm{1093, 4096, 4096, DType::bf16, GemmLayout::row_major}), 16);
  EXPECT_EQ(gemm_alignment_bytes(Gemm{4096, 1093, 4096, DType::bf16, GemmLayout::row_major}), 2);
  EXPECT_EQ(gemm_alignment_bytes(Gemm{4096, 4096, 4100, DType::bf16, GemmLayout::row_major}), 8);
}

TEST(Gemm, UnalignedFactorsScaleTheRooflineTerms) {
  auto hw = toy_profile();
  const Gemm big4{10002, 10000, 10000, DType::bf16};   // 4-byte aligned, compute-bound
  const Gemm small4{1002, 1000, 1000, DType::bf16};    // 4-byte aligned, memory-bound
  // no tables: factor 1, the roofline of §1: 2.0004e12 / 5e14
  EXPECT_NEAR(gemm_time_s(hw, big4), 4.0008e-3, 1e-15);
  const GemmRoofline r = gemm_aligned_roofline_s(hw, big4);
  EXPECT_NEAR(r.compute_s, 4.0008e-3, 1e-15);
  EXPECT_NEAR(r.memory_s, (10002.0 * 10000 + 10000.0 * 10000 + 10002.0 * 10000) * 2 / 5e11, 1e-15);
  // u_c 0.1 at 2 bytes, 0.4 at 8: at 4, half way in log, 0.25; u_m 0.5 at 4 only (held)
  hw.gemm_unaligned_compute = testing::table("gemm_unaligned_compute", {2, 8}, {0.1, 0.4});
  hw.gemm_unaligned_memory = testing::table("gemm_unaligned_memory", {4}, {0.5});
  const UnalignedFactors u = gemm_unaligned_factors(hw, big4);
  EXPECT_NEAR(u.compute, 0.25, 1e-12);
  EXPECT_DOUBLE_EQ(u.memory, 0.5);
  EXPECT_NEAR(gemm_time_s(hw, big4), 4.0008e-3 / 0.25, 1e-14);
  // memory-bound: bytes 6.008e6 / (1e12 * 0.5 * 0.5) = 24.032 us against compute
  // 2.004e9 / (1e15 * 0.5 * 0.25) = 16.032 us
  EXPECT_NEAR(gemm_time_s(hw, small4), 24.032e-6, 1e-15);
  // aligned GEMMs are untouched by the tables
  EXPECT_DOUBLE_EQ(gemm_unaligned_factors(hw, kBig).compute, 1.0);
  EXPECT_NEAR(gemm_time_s(hw, kBig), 4e-3, 1e-15);
  // a fixed time for the fallback kernel: added at its alignment, not to aligned GEMMs
  hw.gemm_unaligned_latency_s = testing::table("gemm_unaligned_latency_s", {2, 4}, {20e-6, 5e-6});
  EXPECT_DOUBLE_EQ(gemm_unaligned_factors(hw, big4).latency_s, 5e-6);
  EXPECT_NEAR(gemm_time_s(hw, small4), 24.032e-6 + 5e-6, 1e-15);
  EXPECT_NEAR(gemm_time_s(hw, kBig), 4e-3, 1e-15);
  hw.gemm_unaligned_latency_s = {};
  // the same shape, row-major: m no longer leads
  EXPECT_NEAR(gemm_time_s(hw, Gemm{10002, 10000, 10000, DType::bf16, GemmLayout::row_major}), 4.0008e-3, 1e-15);
}

TEST(Gemm, AMeasuredTimeOfTheExactShapeWinsOverTheRoofline) {
  auto hw = toy_profile();
  const Gemm g{4096, 4096, 4096, DType::bf16};
  const double roofline_s = gemm_time_s(hw, g);
  hw.gemm_times = {{Gemm{64, 4096, 4096, DType::bf16}, 3e-5, 2}, {g, 1.5 * roofline_s, 4}};
  std::sort(hw.gemm_times.begin(), hw.gemm_times.end(), [](const GemmTimeShape& a, const GemmTimeShape& b) {
    return std::tuple(a.gemm.dtype, a.gemm.m, a.gemm.n, a.gemm.k) <
           std::tuple(b.gemm.dtype, b.gemm.m, b.gemm.n, b.gemm.k);
  });
  ASSERT_NE(measured_gemm_time(hw, g), nullptr);
  EXPECT_EQ(measured_gemm_time(hw, g)->files, 4);
  EXPECT_DOUBLE_EQ(gemm_time_s(hw, g), 1.5 * roofline_s);
  EXPECT_DOUBLE_EQ(gemm_time_s(hw, Gemm{64, 4096, 4096, DType::bf16}), 3e-5);
  // another dtype, a neighbouring shape, or the same shape row-major (a dependent pair's, not
  // what the runner timed) keep the roofline
  EXPECT_EQ(measured_gemm_time(hw, Gemm{4096, 4096, 4096, DType::fp16}), nullptr);
  EXPECT_EQ(measured_gemm_time(hw, Gemm{4096, 4096, 4097, DType::bf16}), nullptr);
  const Gemm row{4096, 4096, 4096, DType::bf16, GemmLayout::row_major};
  EXPECT_EQ(measured_gemm_time(hw, row), nullptr);
  EXPECT_DOUBLE_EQ(gemm_time_s(hw, row), roofline_s);
  // the isolated time of an independent pair takes it; a dependent pair's GEMM runs row-major
  C3Pair pair{"p", g, Collective{CollectiveKind::all_gather, 1 << 20, 2}};
  EXPECT_DOUBLE_EQ(isolated_times(hw, pair).gemm_s, 1.5 * roofline_s);
  pair.dependency = Dependency::collective_feeds_gemm;
  pair.collective.size_bytes = dependent_operand_bytes(pair.gemm, pair.dependency);
  EXPECT_DOUBLE_EQ(isolated_times(hw, pair).gemm_s, roofline_s);
}

TEST(Gemm, AGivenTimeReplacesTheTablesAndKeepsItsLayout) {
  auto hw = toy_profile();
  const Gemm g{4096, 4096, 4096, DType::bf16};
  const Gemm row{4096, 4096, 4096, DType::bf16, GemmLayout::row_major};
  hw = with_gemm_times(hw, {{g, 2e-3, 3}, {Gemm{64, 64, 64, DType::bf16}, 1e-5, 1}});
  ASSERT_EQ(hw.gemm_times.size(), 2u);
  EXPECT_EQ(hw.gemm_times[0].gemm.m, 64);  // kept in lookup order
  hw = with_gemm_times(hw, {{g, 1e-3, 0}, {row, 5e-4, 0}});
  ASSERT_EQ(hw.gemm_times.size(), 3u);
  EXPECT_DOUBLE_EQ(gemm_time_s(hw, g), 1e-3);  // replaced
  EXPECT_EQ(measured_gemm_time(hw, g)->files, 0);
  EXPECT_DOUBLE_EQ(gemm_time_s(hw, row), 5e-4);  // its own layout
  EXPECT_THROW(with_gemm_times(hw, {{g, 0.0, 0}}), InputError);
  EXPECT_THROW(with_gemm_times(hw, {{g, std::numeric_limits<double>::infinity(), 0}}), InputError);
  EXPECT_THROW(with_gemm_times(hw, {{Gemm{0, 1, 1, DType::bf16}, 1e-3, 0}}), InputError);
}

TEST(Gemm, ADependentPairsGemmRunsRowMajor) {
  C3Pair pair{"p", Gemm{1093, 4096, 4096, DType::bf16}, Collective{CollectiveKind::all_gather, 1 << 20, 2}};
  EXPECT_EQ(gemm_as_run(pair).layout, GemmLayout::tn);
  pair.dependency = Dependency::collective_feeds_gemm;
  pair.collective.size_bytes = dependent_operand_bytes(pair.gemm, pair.dependency);
  EXPECT_EQ(gemm_as_run(pair), (Gemm{1093, 4096, 4096, DType::bf16, GemmLayout::row_major}));
  auto hw = toy_profile();
  hw.gemm_unaligned_compute = testing::table("gemm_unaligned_compute", {2}, {0.1});
  // the dependent pair's isolated GEMM is not slowed by its odd m; the independent one's is
  EXPECT_DOUBLE_EQ(isolated_times(hw, pair).gemm_s, gemm_time_s(hw, gemm_as_run(pair)));
  EXPECT_LT(isolated_times(hw, pair).gemm_s, gemm_time_s(hw, pair.gemm));
}

TEST(Gemm, WorkgroupsAndWaves) {
  const auto hw = toy_profile();
  EXPECT_EQ(gemm_workgroups(hw, kBig), 10000);  // 100 x 100 tiles
  EXPECT_EQ(gemm_waves(hw, kBig, 100), 100);
  EXPECT_EQ(gemm_waves(hw, kBig, 30), 334);  // ceil(10000 / 30)
  EXPECT_EQ(gemm_workgroups(hw, Gemm{101, 1, 5, DType::bf16}), 2);
  EXPECT_THROW(gemm_waves(hw, kBig, 0), InputError);
}

TEST(Gemm, MissingDtypeIsAnError) {
  const auto hw = toy_profile();
  EXPECT_THROW(gemm_time_s(hw, Gemm{8, 8, 8, DType::fp8}), InputError);
}

TEST(Collective, WireBytesPerKind) {
  EXPECT_DOUBLE_EQ(wire_bytes({CollectiveKind::all_gather, 8000, 8}), 7000.0);
  EXPECT_DOUBLE_EQ(wire_bytes({CollectiveKind::all_to_all, 8000, 4}), 6000.0);
  EXPECT_DOUBLE_EQ(wire_bytes({CollectiveKind::reduce_scatter, 8000, 2}), 4000.0);
  EXPECT_DOUBLE_EQ(wire_bytes({CollectiveKind::all_reduce, 8000, 8}), 14000.0);
}

TEST(Collective, AlphaBetaTimeAndClass) {
  const auto hw = toy_profile();
  const Collective big{CollectiveKind::all_gather, 1'000'000'000, 8};
  // 10 us + 0.875e9 / 1e11 = 8.76 ms
  EXPECT_NEAR(collective_time_s(hw, big, Transport::cu), 8.76e-3, 1e-15);
  // DMA: 100 us + 8.75 ms
  EXPECT_NEAR(collective_time_s(hw, big, Transport::dma), 8.85e-3, 1e-15);
  EXPECT_EQ(collective_class(hw, big), CollectiveClass::bandwidth_bound);
  // 4096 B: 3584 / 1e11 = 36 ns < 10 us
  EXPECT_EQ(collective_class(hw, {CollectiveKind::all_gather, 4096, 8}),
            CollectiveClass::latency_bound);
  EXPECT_EQ(collective_default_cus(hw, CollectiveKind::all_gather), 20);
}

TEST(Collective, NoDmaForReductionsAndMissingParams) {
  const auto hw = toy_profile();
  EXPECT_THROW(collective_time_s(hw, {CollectiveKind::reduce_scatter, 4096, 8}, Transport::dma),
               InputError);
  EXPECT_THROW(collective_time_s(hw, {CollectiveKind::all_to_all, 4096, 8}, Transport::cu),
               InputError);  // the toy has no all_to_all
  EXPECT_THROW(collective_time_s(hw, {CollectiveKind::all_gather, 0, 8}, Transport::cu),
               InputError);
}

TEST(Collective, MeasuredCurveWinsInsideItsRangeAndScalesWithRanks) {
  auto hw = toy_profile();
  auto& p = hw.collectives[CollectiveKind::all_gather][Transport::cu];
  p.curve_time_s = testing::table("curve", {1000, 100000}, {1e-5, 1e-3});
  p.curve_ranks = 4;
  // log-log midpoint of (1e3, 1e-5) and (1e5, 1e-3) at 1e4 is 1e-4; at 4 ranks
  // wire fraction 3/4; at 8 ranks 7/8: scale 7/6.
  EXPECT_NEAR(collective_time_s(hw, {CollectiveKind::all_gather, 10000, 4}, Transport::cu), 1e-4,
              1e-12);
  EXPECT_NEAR(collective_time_s(hw, {CollectiveKind::all_gather, 10000, 8}, Transport::cu),
              1e-4 * 7.0 / 6.0, 1e-12);
  // outside the curve: alpha-beta (10 us + 1.75e6 / 1e11)
  EXPECT_NEAR(collective_time_s(hw, {CollectiveKind::all_gather, 2'000'000, 8}, Transport::cu),
              1e-5 + 1.75e-5, 1e-15);
}

TEST(Collective, UnalignedChunksTakeTheSlowPath) {
  EXPECT_TRUE(chunk_aligned({CollectiveKind::all_gather, 1 << 20, 2}));
  EXPECT_FALSE(chunk_aligned({CollectiveKind::all_gather, (1 << 20) + 2, 2}));  // 524289 B chunks
  EXPECT_FALSE(chunk_aligned({CollectiveKind::all_gather, 1717986918, 2}));    // "1.6GiB"
  EXPECT_FALSE(chunk_aligned({CollectiveKind::all_gather, 48, 8}));            // 6 B chunks
  auto hw = toy_profile();
  hw.collectives[CollectiveKind::all_gather][Transport::cu].unaligned_slowdown = 1.5;
  // (10 us + 0.5 * 2000016 / 1e11) * 1.5
  const Collective odd{CollectiveKind::all_gather, 2000016 + 2, 2};
  EXPECT_NEAR(collective_time_s(hw, odd, Transport::cu), (1e-5 + 1000009.0 / 1e11) * 1.5, 1e-15);
  EXPECT_NEAR(collective_time_s(hw, {CollectiveKind::all_gather, 2000000, 2}, Transport::cu),
              1e-5 + 1e6 / 1e11, 1e-15);
}

TEST(Tables, InterpolateInsideAndRefuseOutside) {
  const Table t = testing::table("t", {0, 10, 30}, {1.0, 2.0, 4.0});
  EXPECT_DOUBLE_EQ(interpolate(t, 0), 1.0);
  EXPECT_DOUBLE_EQ(interpolate(t, 5), 1.5);
  EXPECT_DOUBLE_EQ(interpolate(t, 10), 2.0);
  EXPECT_DOUBLE_EQ(interpolate(t, 20), 3.0);
  EXPECT_DOUBLE_EQ(interpolate(t, 30), 4.0);
  EXPECT_THROW(interpolate(t, 31), InputError);
  EXPECT_THROW(interpolate(t, -1), InputError);
  EXPECT_THROW(interpolate(testing::table("empty", {}, {}), 0), InputError);
  try {
    interpolate(t, 40);
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("covers 0 to 30"), std::string::npos) << e.what();
  }
}

TEST(Tables, SlowdownsAndCoverage) {
  const auto hw = toy_profile();
  EXPECT_DOUBLE_EQ(gemm_slowdown(hw, GemmClass::compute_bound, 0), 1.0);
  EXPECT_DOUBLE_EQ(gemm_slowdown(hw, GemmClass::compute_bound, 20), 1.2);
  EXPECT_DOUBLE_EQ(collective_slowdown(hw, CollectiveKind::all_gather,
                                       CollectiveClass::bandwidth_bound, 15),
                   1.5);
  EXPECT_THROW(gemm_slowdown(hw, GemmClass::compute_bound, 60), InputError);
  EXPECT_TRUE(split_covered(hw, GemmClass::compute_bound, CollectiveKind::all_gather,
                            CollectiveClass::bandwidth_bound, 50));
  EXPECT_FALSE(split_covered(hw, GemmClass::compute_bound, CollectiveKind::all_gather,
                             CollectiveClass::bandwidth_bound, 60));
  EXPECT_FALSE(split_covered(hw, GemmClass::compute_bound, CollectiveKind::all_to_all,
                             CollectiveClass::bandwidth_bound, 20));
}

TEST(Tables, PartitionSlowdownBySizeInterpolatesInLogSizeAndFallsBackToTheClassTables) {
  auto hw = toy_profile();
  const double class_table = collective_slowdown(hw, CollectiveKind::all_gather, CollectiveClass::bandwidth_bound, 15);
  const Collective small{CollectiveKind::all_gather, 1 << 16, 2}, large{CollectiveKind::all_gather, 1 << 24, 2};
  // No by-size table: the class tables.
  EXPECT_DOUBLE_EQ(collective_partition_slowdown(hw, small, CollectiveClass::bandwidth_bound, 15), class_table);
  hw.collective_slowdown_by_size[CollectiveKind::all_gather] =
      SizedSlowdown{"collective_slowdown_by_size.all_gather", {1 << 16, 1 << 24}, {8, 16}, {{1.0, 1.0}, {2.0, 1.5}}, {}};
  // Linear in the CUs within a row.
  EXPECT_DOUBLE_EQ(collective_partition_slowdown(hw, large, CollectiveClass::latency_bound, 12), 1.75);
  // Linear in log(size) between rows: 2^20 is halfway from 2^16 to 2^24.
  const Collective mid{CollectiveKind::all_gather, 1 << 20, 2};
  EXPECT_DOUBLE_EQ(collective_partition_slowdown(hw, mid, CollectiveClass::bandwidth_bound, 8), 1.5);
  EXPECT_DOUBLE_EQ(collective_partition_slowdown(hw, mid, CollectiveClass::bandwidth_bound, 16), 1.25);
  // Held at the first and last size; the class does not matter inside the table.
  EXPECT_DOUBLE_EQ(collective_partition_slowdown(hw, Collective{CollectiveKind::all_gather, 1024, 2},
                                                 CollectiveClass::bandwidth_bound, 8),
                   1.0);
  EXPECT_DOUBLE_EQ(collective_partition_slowdown(hw, Collective{CollectiveKind::all_gather, 1LL << 34, 2},
                                                 CollectiveClass::latency_bound, 8),
                   2.0);
  // CUs outside the table's, or another kind: the class tables.
  EXPECT_DOUBLE_EQ(collective_partition_slowdown(hw, large, CollectiveClass::bandwidth_bound, 20),
                   collective_slowdown(hw, CollectiveKind::all_gather, CollectiveClass::bandwidth_bound, 20));
  EXPECT_DOUBLE_EQ(collective_partition_slowdown(hw, Collective{CollectiveKind::reduce_scatter, 1 << 20, 2},
                                                 CollectiveClass::bandwidth_bound, 12),
                   1.8);
  // One row: held at every size.
  hw.collective_slowdown_by_size[CollectiveKind::all_gather] =
      SizedSlowdown{"one", {1 << 20}, {8}, {{1.25}}, {}};
  EXPECT_DOUBLE_EQ(collective_partition_slowdown(hw, large, CollectiveClass::bandwidth_bound, 8), 1.25);
  EXPECT_DOUBLE_EQ(collective_partition_slowdown(hw, large, CollectiveClass::bandwidth_bound, 12), 1.8);
  // Outside both: the class table's error.
  EXPECT_THROW(collective_partition_slowdown(hw, large, CollectiveClass::bandwidth_bound, 9), InputError);
}

TEST(Overlap, BothStartTogether) {
  // 4 and 3 s, no contention: the pair takes the longer one.
  EXPECT_DOUBLE_EQ(overlapped_time_s({4, 4, 1.0}, {3, 3, 1.0}, 0), 4.0);
  // first slowed 1.5x while overlapped: after 3 s it has done 3/6; 0.5 * 4 s left.
  EXPECT_DOUBLE_EQ(overlapped_time_s({4, 4, 1.5}, {3, 3, 1.0}, 0), 5.0);
  // first runs on fewer CUs while overlapped (6 s) and recovers after (4 s).
  EXPECT_NEAR(overlapped_time_s({6, 4, 1.0}, {2, 2, 1.0}, 0), 2.0 + (1.0 - 2.0 / 6.0) * 4.0, 1e-12);
  // the second one survives
  EXPECT_DOUBLE_EQ(overlapped_time_s({1, 1, 1.0}, {3, 3, 2.0}, 0), 1.0 + (1.0 - 1.0 / 6.0) * 3.0);
}

TEST(Overlap, DelayedSecondKernel) {
  // first alone 2 s (half done), then both for 2 s, the second's last third alone (1 s).
  EXPECT_DOUBLE_EQ(overlapped_time_s({4, 4, 1.0}, {3, 3, 1.0}, 2), 5.0);
  // a delay past the first's end is serial
  EXPECT_DOUBLE_EQ(overlapped_time_s({4, 4, 1.0}, {3, 3, 1.0}, 10), 7.0);
}

TEST(Concurrent, ContentionScalesWithTheGemmsShare) {
  const auto hw = toy_profile();
  const Interference f{1.2, 1.5};
  EXPECT_DOUBLE_EQ(collective_contention(hw, f, 100), 1.5);
  EXPECT_DOUBLE_EQ(collective_contention(hw, f, 60), 1.3);
  EXPECT_DOUBLE_EQ(collective_contention(hw, f, 0), 1.0);
}

TEST(Concurrent, GemmFirstDelayWaitsForTheLastWaveAndItsIdleCus) {
  const auto hw = toy_profile();  // 100 CUs, 100x100 tiles, one workgroup per CU
  // 100 full waves: the last one leaves no CU idle, so the collective waits for all of it.
  EXPECT_EQ(gemm_last_wave_idle_cus(hw, kBig, 100), 0);
  EXPECT_NEAR(gemm_first_delay_s(hw, kBig, 4e-3, 10), 4e-3, 1e-15);
  // 90 x 101 = 9090 workgroups: 91 waves, the last of 90 leaves 10 CUs idle.
  const Gemm partial{9000, 10050, 100, DType::bf16};
  EXPECT_EQ(gemm_waves(hw, partial, 100), 91);
  EXPECT_EQ(gemm_last_wave_idle_cus(hw, partial, 100), 10);
  // 10 idle CUs hold a 10-CU collective: it starts when the last wave is dispatched.
  EXPECT_NEAR(gemm_first_delay_s(hw, partial, 1.0, 10), 1.0 - 1.0 / 91, 1e-12);
  // A 20-CU collective gets half its CUs during the last wave: half of that wave more.
  EXPECT_NEAR(gemm_first_delay_s(hw, partial, 1.0, 20), 1.0 - 0.5 / 91, 1e-12);
  // A single small wave: no delay.
  EXPECT_DOUBLE_EQ(gemm_first_delay_s(hw, Gemm{100, 100, 100, DType::bf16}, 1.0, 24), 0.0);
  EXPECT_THROW(gemm_first_delay_s(hw, kBig, 1.0, 0), InputError);
}

// §4.3: under base the collective's launch call waits for the GEMM's on every rank.
TEST(Concurrent, GemmFirstTheCollectiveStartsNoEarlierThanTheGemmsLaunch) {
  auto hw = toy_profile();
  // One small wave: no wave delay, so the two overlap...
  C3Pair pair{"", Gemm{100, 100, 100, DType::bf16}, {CollectiveKind::all_gather, 1 << 20, 8}, {}, {}};
  const Isolated iso = isolated_times(hw, pair);
  const Taxonomy tax = classify(hw, pair);
  const double overlapped = gemm_first_time_s(hw, pair, iso, tax);
  EXPECT_LT(overlapped, iso.gemm_s + iso.collective_s);
  // ...unless launching the GEMM takes longer than the GEMM runs: then base is serial.
  hw.gemm_launch_s = 2 * iso.gemm_s;
  EXPECT_DOUBLE_EQ(gemm_first_time_s(hw, pair, iso, tax), iso.gemm_s + iso.collective_s);
  // A launch shorter than the GEMM starts the collective that much later.
  hw.gemm_launch_s = 0.5 * iso.gemm_s;
  const double later = gemm_first_time_s(hw, pair, iso, tax);
  EXPECT_GT(later, overlapped);
  EXPECT_LT(later, iso.gemm_s + iso.collective_s);
  // In a chain the host is ahead of the GPU (§4.6): no launch cost.
  pair.chained = true;
  EXPECT_DOUBLE_EQ(gemm_first_time_s(hw, pair, iso, tax), overlapped);
  // A GEMM of many waves waits for them anyway: a short launch changes nothing.
  const C3Pair big{"big", kBig, {CollectiveKind::all_gather, 1'000'000'000, 8}, {}};
  const Isolated big_iso = isolated_times(hw, big);
  const Taxonomy big_tax = classify(hw, big);
  hw.gemm_launch_s = 0;
  const double waves = gemm_first_time_s(hw, big, big_iso, big_tax);
  hw.gemm_launch_s = 1e-6;
  EXPECT_DOUBLE_EQ(gemm_first_time_s(hw, big, big_iso, big_tax), waves);
}

TEST(Gemm, ATileIsParsedAsAdviseSpellsIt) {
  const GemmTile t = parse_gemm_tile(" 192x128 ");
  EXPECT_EQ(t.m, 192);
  EXPECT_EQ(t.n, 128);
  EXPECT_EQ(t.split_k, 1);
  EXPECT_EQ(parse_gemm_tile("128X256:2").split_k, 2);
  for (const char* bad : {"", "192", "192x", "x128", "192x0", "192x128:", "192x128:0", "-8x8", "1.5x8", "8x8:2:2",
                          "65537x8", "8x99999999999999999999", ":2x8"}) {
    try {
      parse_gemm_tile(bad);
      ADD_FAILURE() << "accepted '" << bad << "'";
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find("'" + std::string(bad) + "': expected TILE_MxTILE_N"), std::string::npos)
          << e.what();
    }
  }
}

TEST(Gemm, TileComesFromTheNearestMeasuredKernel) {
  auto hw = toy_profile();
  EXPECT_EQ(gemm_tile(hw, kBig).m, 100);  // no kernels: the profile's tile
  hw.gemm_kernels = {{Gemm{8192, 8192, 8192, DType::bf16}, 128, 256, 1},
                     {Gemm{64, 4096, 4096, DType::bf16}, 64, 128, 4},
                     {Gemm{64, 4096, 4096, DType::fp16}, 32, 32, 1}};
  const GemmTile decode = gemm_tile(hw, Gemm{128, 4096, 8192, DType::bf16});
  EXPECT_EQ(decode.m, 64);
  EXPECT_EQ(decode.n, 128);
  EXPECT_EQ(decode.split_k, 4);
  // 2 x 32 tiles x split-K 4
  EXPECT_EQ(gemm_workgroups(hw, Gemm{128, 4096, 8192, DType::bf16}), 256);
  EXPECT_EQ(gemm_tile(hw, Gemm{16384, 16384, 8192, DType::bf16}).n, 256);
  // Same dtype first, even when another dtype's shape is nearer.
  EXPECT_EQ(gemm_tile(hw, Gemm{64, 4096, 4096, DType::bf16}).m, 64);
  hw.gemm_kernels.erase(hw.gemm_kernels.begin(), hw.gemm_kernels.begin() + 2);
  EXPECT_EQ(gemm_tile(hw, Gemm{64, 4096, 4096, DType::bf16}).m, 32);  // only fp16: nearest
  // A list of the same length with other shapes is another list (the lookup caches the
  // last list's log shapes per thread): swapping the shapes in place swaps the answer.
  const Gemm big_shape{8192, 8192, 8192, DType::bf16}, decode_shape{64, 4096, 4096, DType::bf16};
  hw.gemm_kernels = {{big_shape, 128, 256, 1}, {decode_shape, 64, 128, 1}};
  EXPECT_EQ(gemm_tile(hw, decode_shape).m, 64);
  hw.gemm_kernels[0].gemm = decode_shape;
  hw.gemm_kernels[0].tile_m = 16;
  hw.gemm_kernels[1].gemm = big_shape;
  EXPECT_EQ(gemm_tile(hw, decode_shape).m, 16);
  EXPECT_EQ(gemm_tile(hw, big_shape).m, 64);
}

TEST(Gemm, AGemmsOwnKernelWinsOverTheNearestShape) {
  auto hw = toy_profile();
  hw.gemm_kernels = {{Gemm{8192, 8192, 8192, DType::bf16}, 128, 256, 1}};
  const Gemm own{2048, 4608, 6144, DType::bf16};
  EXPECT_EQ(gemm_workgroups(hw, own), 16 * 18);  // the nearest shape's 128x256 tiles
  const HardwareProfile with = with_gemm_kernels(hw, {{own, 192, 192, 1}});
  EXPECT_EQ(gemm_workgroups(with, own), 11 * 24);  // its own 192x192: 264 CTAs
  EXPECT_EQ(with.gemm_kernels.size(), 2u);
  EXPECT_EQ(hw.gemm_kernels.size(), 1u);  // a copy: the profile given is unchanged
  // The same shape and dtype again replaces, another dtype adds.
  const HardwareProfile again =
      with_gemm_kernels(with, {{own, 128, 128, 2}, {Gemm{2048, 4608, 6144, DType::fp16}, 64, 64, 1}});
  EXPECT_EQ(again.gemm_kernels.size(), 3u);
  EXPECT_EQ(gemm_tile(again, own).split_k, 2);
}

TEST(Tables, PartitionSlowdownCountsTheGemmsOwnWaves) {
  auto hw = toy_profile();  // 100 CUs, compute-bound table: 20 removed -> 1.2
  const Gemm one_wave{1280, 2560, 8192, DType::bf16};
  // No measured kernel: the table, whatever the GEMM.
  EXPECT_DOUBLE_EQ(gemm_partition_slowdown(hw, one_wave, GemmClass::compute_bound, 20), 1.2);
  hw.gemm_kernels = {{slowdown_table_gemm(), 128, 256, 1}};
  // The table GEMM: 64 x 32 = 2048 CTAs, 21 waves on 100 CUs, 26 on 80: per CTA 1.2 * 21 / 26.
  const double per_cta = 1.2 * 21.0 / 26.0;
  EXPECT_DOUBLE_EQ(gemm_cta_slowdown(hw, 20), per_cta);
  EXPECT_DOUBLE_EQ(gemm_cta_slowdown(hw, 0), 1.0);
  // The table GEMM itself gets its table back.
  EXPECT_DOUBLE_EQ(gemm_partition_slowdown(hw, slowdown_table_gemm(), GemmClass::compute_bound, 20), 1.2);
  // 10 x 10 = 100 CTAs: one wave on 100 CUs, two on 80.
  EXPECT_DOUBLE_EQ(gemm_partition_slowdown(hw, one_wave, GemmClass::compute_bound, 20), per_cta * 2.0);
  // 80 CTAs fit on 80 CUs: one wave either way.
  EXPECT_DOUBLE_EQ(gemm_partition_slowdown(hw, Gemm{1024, 2560, 8192, DType::bf16}, GemmClass::compute_bound, 20),
                   per_cta);
  // Memory-bound GEMMs keep the table (their CTAs slow with their number).
  EXPECT_DOUBLE_EQ(gemm_partition_slowdown(hw, one_wave, GemmClass::memory_bound, 20),
                   gemm_slowdown(hw, GemmClass::memory_bound, 20));
  EXPECT_DOUBLE_EQ(gemm_partition_slowdown(hw, one_wave, GemmClass::compute_bound, 0), 1.0);
}

// The big compute-bound GEMM (4 ms) with a 1 GB all_gather on 8 ranks (8.76 ms):
// C-long, bandwidth-bound; cu interference is neutral for compute-bound GEMMs.
C3Pair big_pair() { return C3Pair{"big", kBig, {CollectiveKind::all_gather, 1'000'000'000, 8}, {}}; }

TEST(Concurrent, EveryStrategyByHand) {
  const auto hw = toy_profile();
  const C3Pair pair = big_pair();
  constexpr double g = 4e-3, c = 8.76e-3, c_dma = 8.85e-3;
  EXPECT_NEAR(strategies::predicted_time_s(hw, pair, {StrategyKind::serial, 0, 0}), g + c, 1e-12);
  // base: 100 full waves leave no CU idle in the last: the collective waits for the
  // whole GEMM (§4.3), then runs alone: serial.
  EXPECT_NEAR(strategies::predicted_time_s(hw, pair, {StrategyKind::base, 0, 0}), g + c, 1e-12);
  // sp: collective on its 20 default CUs; GEMM without 20 CUs is 1.2x slower
  // (4.8 ms) but finishes before the collective: the pair takes c.
  EXPECT_NEAR(strategies::predicted_time_s(hw, pair, {StrategyKind::sp, 0, 0}), c, 1e-12);
  // rp:10: the collective on 10 CUs is 2x slower (17.52 ms); GEMM 1.1x (4.4 ms).
  EXPECT_NEAR(strategies::predicted_time_s(hw, pair, {StrategyKind::rp, 10, 10}), 2 * c, 1e-12);
  // rp:50: collective at 1.0x, GEMM 1.5x = 6 ms: max is c.
  EXPECT_NEAR(strategies::predicted_time_s(hw, pair, {StrategyKind::rp, 50, 50}), c, 1e-12);
  // dma: no interference for compute-bound GEMMs: max(g, c_dma).
  EXPECT_NEAR(strategies::predicted_time_s(hw, pair, {StrategyKind::dma, 0, 0}), c_dma, 1e-12);
  EXPECT_NEAR(strategies::predicted_time_s(hw, pair, {StrategyKind::dma_rp, 0, 20}), c_dma, 1e-12);
}

TEST(Concurrent, AChainedPairHasNoLaunchCostAndRunsGemmFirstOnSharedCus) {
  auto hw = toy_profile();
  for (auto& [kind, transports] : hw.collectives)
    for (auto& [transport, params] : transports) params.launch_s = 10e-3;  // 10 ms to launch
  C3Pair pair = big_pair();
  const auto t = [&](Strategy s) { return strategies::predicted_time_s(hw, pair, s); };
  const double alone_dma = t({StrategyKind::dma, 0, 0});
  const double alone_rp = t({StrategyKind::rp, 50, 50});
  pair.chained = true;
  // §4.6: sp, collective-first on the library's CUs, runs as base does (here: serial).
  EXPECT_DOUBLE_EQ(t({StrategyKind::sp, 0, 0}), t({StrategyKind::base, 0, 0}));
  // Copy engines and partitions keep their order and lose the launch cost.
  C3Pair free_launch = big_pair();
  HardwareProfile no_launch = toy_profile();
  EXPECT_GT(t({StrategyKind::sp, 0, 0}), strategies::predicted_time_s(no_launch, free_launch, {StrategyKind::sp, 0, 0}));
  EXPECT_DOUBLE_EQ(t({StrategyKind::dma, 0, 0}), strategies::predicted_time_s(no_launch, free_launch, {StrategyKind::dma, 0, 0}));
  EXPECT_DOUBLE_EQ(t({StrategyKind::rp, 50, 50}), strategies::predicted_time_s(no_launch, free_launch, {StrategyKind::rp, 50, 50}));
  EXPECT_LT(t({StrategyKind::dma, 0, 0}), alone_dma);
  EXPECT_LT(t({StrategyKind::rp, 50, 50}), alone_rp);
  EXPECT_DOUBLE_EQ(t({StrategyKind::serial, 0, 0}), 4e-3 + 8.76e-3);
}

TEST(Concurrent, AStrategyCorrectionScalesItsGroupAboveTheLeastTime) {
  auto hw = toy_profile();
  const C3Pair pair = big_pair();  // a compute-bound GEMM, an all-gather; every strategy >= 8 ms
  const auto t = [&](const C3Pair& p, Strategy s) { return strategies::predicted_time_s(hw, p, s); };
  const double sp = t(pair, {StrategyKind::sp, 0, 0}), rp = t(pair, {StrategyKind::rp, 50, 50});
  const double serial = t(pair, {StrategyKind::serial, 0, 0}), base = t(pair, {StrategyKind::base, 0, 0});
  EXPECT_DOUBLE_EQ(strategy_correction(hw, pair, "sp", sp), 1.0);  // none: 1
  hw.strategy_corrections[StrategyGroup{CollectiveKind::all_gather, GemmClass::compute_bound, "sp"}] = 1.1;
  hw.strategy_corrections[StrategyGroup{CollectiveKind::all_gather, GemmClass::compute_bound, "rp:50"}] = 0.9;
  hw.strategy_corrections[StrategyGroup{CollectiveKind::all_gather, GemmClass::compute_bound, "base"}] = 1.2;
  hw.strategy_correction_min_s = 1e-3;
  EXPECT_DOUBLE_EQ(t(pair, {StrategyKind::sp, 0, 0}), 1.1 * sp);
  EXPECT_DOUBLE_EQ(t(pair, {StrategyKind::rp, 50, 50}), 0.9 * rp);
  EXPECT_DOUBLE_EQ(t(pair, {StrategyKind::base, 0, 0}), 1.2 * base);
  // Another count of the family takes the one it has, held (the next test interpolates);
  // a strategy without a group and serial are untouched.
  EXPECT_DOUBLE_EQ(t(pair, {StrategyKind::rp, 10, 10}),
                   0.9 * strategies::predicted_time_s(toy_profile(), pair, {StrategyKind::rp, 10, 10}));
  EXPECT_DOUBLE_EQ(t(pair, {StrategyKind::dma, 0, 0}), strategies::predicted_time_s(toy_profile(), pair, {StrategyKind::dma, 0, 0}));
  EXPECT_DOUBLE_EQ(t(pair, {StrategyKind::serial, 0, 0}), serial);
  EXPECT_DOUBLE_EQ(strategy_correction(hw, pair, "serial", serial), 1.0);
  // Another kind is another group.
  C3Pair scatter = pair;
  scatter.collective.kind = CollectiveKind::reduce_scatter;
  EXPECT_DOUBLE_EQ(t(scatter, {StrategyKind::sp, 0, 0}), strategies::predicted_time_s(toy_profile(), scatter, {StrategyKind::sp, 0, 0}));
  // A prediction below the least time keeps its time (the factor applies from it on).
  EXPECT_DOUBLE_EQ(strategy_correction(hw, pair, "sp", 0.999e-3), 1.0);
  EXPECT_DOUBLE_EQ(strategy_correction(hw, pair, "sp", 1e-3), 1.1);
  hw.strategy_correction_min_s = 1.0;  // longer than every prediction here
  EXPECT_DOUBLE_EQ(t(pair, {StrategyKind::sp, 0, 0}), sp);
  hw.strategy_correction_min_s = 1e-3;
  // Chained, sp runs as base (§4.6) and takes base's factor, so the two stay equal.
  C3Pair chained = pair;
  chained.chained = true;
  EXPECT_DOUBLE_EQ(strategy_correction(hw, chained, "sp", 1.0), 1.2);
  EXPECT_DOUBLE_EQ(t(chained, {StrategyKind::sp, 0, 0}), t(chained, {StrategyKind::base, 0, 0}));
  // The least time is the uncorrected prediction's: a factor may take it below.
  hw.strategy_correction_min_s = 0.9 * sp;
  hw.strategy_corrections[StrategyGroup{CollectiveKind::all_gather, GemmClass::compute_bound, "sp"}] = 0.5;
  EXPECT_DOUBLE_EQ(t(pair, {StrategyKind::sp, 0, 0}), 0.5 * sp);
  hw.strategy_correction_min_s = 1e-3;
  // A dependent pair keeps its schedules' own corrections (§7.4), not these.
  C3Pair dependent = pair;
  dependent.dependency = Dependency::collective_feeds_gemm;
  EXPECT_DOUBLE_EQ(strategy_correction(hw, dependent, "sp", 1.0), 1.0);
  // The cheap test strategies::predict asks first agrees with the factor's own.
  EXPECT_TRUE(strategy_correction_applies(hw, pair, 1e-3));
  EXPECT_FALSE(strategy_correction_applies(hw, pair, 0.999e-3));
  EXPECT_FALSE(strategy_correction_applies(hw, dependent, 1.0));
  EXPECT_FALSE(strategy_correction_applies(toy_profile(), pair, 1.0));
}

TEST(Concurrent, APartitionWithoutItsOwnCorrectionIsInterpolatedInItsFamily) {
  auto hw = toy_profile();
  const C3Pair pair = big_pair();
  const auto group = [](const char* label) {
    return StrategyGroup{CollectiveKind::all_gather, GemmClass::compute_bound, label};
  };
  hw.strategy_corrections[group("rp:10")] = 0.9;
  hw.strategy_corrections[group("rp:50")] = 1.1;
  hw.strategy_corrections[group("dma_rp:20")] = 0.8;
  EXPECT_DOUBLE_EQ(strategy_correction(hw, pair, "rp:10", 1.0), 0.9);  // its own
  EXPECT_NEAR(strategy_correction(hw, pair, "rp:30", 1.0), 1.0, 1e-12);  // halfway between 10 and 50
  EXPECT_NEAR(strategy_correction(hw, pair, "rp:20", 1.0), 0.95, 1e-12);
  EXPECT_DOUBLE_EQ(strategy_correction(hw, pair, "rp:4", 1.0), 0.9);   // held below the first
  EXPECT_DOUBLE_EQ(strategy_correction(hw, pair, "rp:90", 1.0), 1.1);  // and above the last
  // Only its own family: dma_rp takes dma_rp's, held at its one count; dma and sp have no count.
  EXPECT_DOUBLE_EQ(strategy_correction(hw, pair, "dma_rp:40", 1.0), 0.8);
  EXPECT_DOUBLE_EQ(strategy_correction(hw, pair, "dma", 1.0), 1.0);
  EXPECT_DOUBLE_EQ(strategy_correction(hw, pair, "sp", 1.0), 1.0);
  // Nor another kind's or class's.
  C3Pair scatter = pair;
  scatter.collective.kind = CollectiveKind::reduce_scatter;
  EXPECT_DOUBLE_EQ(strategy_correction(hw, scatter, "rp:30", 1.0), 1.0);
}

TEST(Concurrent, AGemmAtThePowerLimitRunsAtItsSustainedSlowdown) {
  auto hw = toy_profile();
  // The big GEMM alone takes 4 ms; back to back 1.25x (held past the table's 2 ms end).
  hw.sustained_gemm_slowdown = testing::table("sustained_gemm_slowdown", {1e-4, 2e-3}, {1.0, 1.25});
  C3Pair pair = big_pair();
  EXPECT_DOUBLE_EQ(isolated_times(hw, pair).gemm_s, 4e-3);  // alone: as measured alone
  pair.chained = true;  // queued ahead but measured one pair at a time: as measured alone
  EXPECT_DOUBLE_EQ(isolated_times(hw, pair).gemm_s, 4e-3);
  pair.at_power_limit = true;  // back to back in a step's chain
  const Isolated chained = isolated_times(hw, pair);
  EXPECT_DOUBLE_EQ(chained.gemm_s, 5e-3);
  EXPECT_DOUBLE_EQ(chained.collective_s, isolated_times(hw, big_pair()).collective_s);  // not slowed
  // Every strategy starts from it: serial is 5 ms + the collective's 8.76 ms.
  EXPECT_NEAR(strategies::predicted_time_s(hw, pair, {StrategyKind::serial, 0, 0}), 5e-3 + 8.76e-3, 1e-12);
  // The taxonomy starts from the same times: at 2.1x the GEMM (8.4 ms) is within 15% of the
  // collective (8.76 ms), where alone (4 ms) the collective is longer.
  EXPECT_EQ(classify(hw, big_pair()).overlap, OverlapClass::c_long);
  hw.sustained_gemm_slowdown.y = {1.0, 2.1};
  EXPECT_EQ(classify(hw, pair).overlap, OverlapClass::gc_equal);
  // A small GEMM (12 us) is below the table: held at 1.
  C3Pair small{"small", kSmall, {CollectiveKind::all_gather, 4096, 8}, {}};
  small.chained = small.at_power_limit = true;
  EXPECT_DOUBLE_EQ(isolated_times(hw, small).gemm_s, 12e-6);
}

TEST(Concurrent, MemoryBoundGemmFeelsInterference) {
  const auto hw = toy_profile();
  // 1000^3 GEMM (12 us, memory-bound) with a 4096 B all_gather (10.0358 us, latency-bound).
  const C3Pair pair{"small", kSmall, {CollectiveKind::all_gather, 4096, 8}, {}};
  const double g = 12e-6, c = 1e-5 + 3584.0 / 1e11;
  // sp: gemm slowdown table is flat (1.0); GEMM contended 1.2x -> 14.4 us, the
  // collective 1 + 0.5 * 80/100 = 1.4x -> 14.05 us; collective ends first, at
  // which point the GEMM has done 14.05/14.4 and finishes the rest at 12 us.
  const double coll_s = c * 1.4, gemm_s = g * 1.2;
  const double expected = coll_s + (1.0 - coll_s / gemm_s) * g;
  EXPECT_NEAR(strategies::predicted_time_s(hw, pair, {StrategyKind::sp, 0, 0}), expected, 1e-15);
}

TEST(Concurrent, InvalidStrategiesAreErrors) {
  const auto hw = toy_profile();
  const C3Pair rs{"rs", kBig, {CollectiveKind::reduce_scatter, 1 << 20, 8}, {}};
  EXPECT_THROW(strategies::predicted_time_s(hw, rs, {StrategyKind::dma, 0, 0}), InputError);
  EXPECT_THROW(strategies::predicted_time_s(hw, big_pair(), {StrategyKind::rp, 0, 0}), InputError);
  EXPECT_THROW(strategies::predicted_time_s(hw, big_pair(), {StrategyKind::rp, 100, 100}), InputError);
  EXPECT_THROW(strategies::predicted_time_s(hw, big_pair(), {StrategyKind::rp, 60, 60}), InputError);  // off-table
}

TEST(Taxonomy, OverlapClassesAndMetrics) {
  EXPECT_EQ(overlap_class(1.16, 1.0), OverlapClass::g_long);
  EXPECT_EQ(overlap_class(1.0, 1.16), OverlapClass::c_long);
  EXPECT_EQ(overlap_class(1.15, 1.0), OverlapClass::gc_equal);
  EXPECT_EQ(overlap_class(1.0, 1.15), OverlapClass::gc_equal);
  EXPECT_DOUBLE_EQ(ideal_speedup(4, 4), 2.0);
  EXPECT_DOUBLE_EQ(ideal_speedup(3, 1), 4.0 / 3.0);
  EXPECT_DOUBLE_EQ(speedup(3, 1, 3.2), 1.25);
  EXPECT_DOUBLE_EQ(fraction_of_ideal(1.5, 2.0), 0.5);
  EXPECT_DOUBLE_EQ(fraction_of_ideal(0.9, 2.0), -0.1);  // slower than serial
  EXPECT_DOUBLE_EQ(fraction_of_ideal(1.0, 1.0), 0.0);
}

TEST(Taxonomy, ClassifyHonoursAMeasuredGemmClass) {
  const auto hw = toy_profile();
  C3Pair pair = big_pair();
  Taxonomy t = classify(hw, pair);
  EXPECT_EQ(t.overlap, OverlapClass::c_long);
  EXPECT_EQ(t.gemm, GemmClass::compute_bound);
  EXPECT_EQ(t.collective, CollectiveClass::bandwidth_bound);
  pair.gemm_class = GemmClass::memory_bound;
  EXPECT_EQ(classify(hw, pair).gemm, GemmClass::memory_bound);
  pair.gemm_class_measured_on = "toy";  // measured on this profile: it wins
  EXPECT_EQ(classify(hw, pair).gemm, GemmClass::memory_bound);
  pair.gemm_class_measured_on = "mi300x";  // measured elsewhere: the roofline decides
  EXPECT_EQ(classify(hw, pair).gemm, GemmClass::compute_bound);
}

TEST(Splits, AllowedCusFollowGridAndTables) {
  const auto hw = toy_profile();
  EXPECT_EQ(allowed_collective_cus(hw, big_pair()), (std::vector<int>{10, 20, 30, 40, 50}));
  EXPECT_EQ(allowed_dma_rp_cus(hw, big_pair()), (std::vector<int>{10, 20}));  // <= 100/4
  const C3Pair rs{"rs", kBig, {CollectiveKind::reduce_scatter, 1 << 20, 8}, {}};
  EXPECT_TRUE(allowed_dma_rp_cus(hw, rs).empty());
}

}  // namespace
}  // namespace c3::model
