// model.md §7: the two-stream pipeline by hand, the decomposed schedules' pipelines on
// the toy profile (tests/unit/support/toy_profile.hpp), and the checks of a decomposition.
#include <gtest/gtest.h>

#include <numeric>

#include "c3/errors.hpp"
#include "c3/model.hpp"
#include "support/toy_profile.hpp"

namespace c3::model {
namespace {

using testing::toy_profile;

const Gemm kGemm{1000, 1000, 1000, DType::bf16};  // memory-bound on the toy; A and C: 2e6 bytes

C3Pair dependent(CollectiveKind kind, Dependency dependency, int ranks = 2) {
  C3Pair p;
  p.gemm = kGemm;
  p.collective = {kind, dependent_operand_bytes(kGemm, dependency), ranks};
  p.dependency = dependency;
  return p;
}

TEST(Pipeline, WaitsForTheOtherStream) {
  // g0 (2) runs beside c0 (4); g1 (3) waits for c0: starts at 4, ends at 7.
  const Pipeline p{{{2, -1}, {3, 0}}, {{4, -1}}, 1.0, 1.0, 0.0, {}};
  const PipelineTimes t = pipeline_times(p);
  EXPECT_DOUBLE_EQ(t.gemm_end_s[0], 2);
  EXPECT_DOUBLE_EQ(t.comm_end_s[0], 4);
  EXPECT_DOUBLE_EQ(t.gemm_end_s[1], 7);
  EXPECT_DOUBLE_EQ(t.total_s, 7);
  // Each cross-stream wait costs wait_s: g1 starts at 4.5.
  Pipeline waited = p;
  waited.wait_s = 0.5;
  EXPECT_DOUBLE_EQ(pipeline_times(waited).total_s, 7.5);
}

TEST(Pipeline, ContentionWhileBothRun) {
  // Both from 0: g0 at 2 x 2 = 4 ends at 4; c0 at 4 x 1.5 = 6 has 1/3 left, alone 4/3 more:
  // ends at 16/3; g1 then runs alone for 3: 25/3.
  const Pipeline p{{{2, -1}, {3, 0}}, {{4, -1}}, 2.0, 1.5, 0.0, {}};
  const PipelineTimes t = pipeline_times(p);
  EXPECT_NEAR(t.gemm_end_s[0], 4, 1e-12);
  EXPECT_NEAR(t.comm_end_s[0], 16.0 / 3, 1e-12);
  EXPECT_NEAR(t.total_s, 25.0 / 3, 1e-12);
}

TEST(Pipeline, CollectiveWaitsForTheGemmsWaves) {
  // c1 is ready at 1, while g0 (4) has run 1/4; it enters at half of g0's run, t = 2.
  const Pipeline p{{{4, -1}}, {{1, -1}, {1, -1}}, 1.0, 1.0, 0.0, {0.5}};
  const PipelineTimes t = pipeline_times(p);
  EXPECT_DOUBLE_EQ(t.comm_end_s[0], 1);
  EXPECT_DOUBLE_EQ(t.comm_end_s[1], 3);
  EXPECT_DOUBLE_EQ(t.total_s, 4);
  // Without the entry fraction it starts at once.
  EXPECT_DOUBLE_EQ(pipeline_times(Pipeline{p.gemm, p.comm, 1.0, 1.0, 0.0, {}}).comm_end_s[1], 2);
}

TEST(Pipeline, RefusesCyclesAndMissingJobs) {
  EXPECT_THROW(pipeline_times(Pipeline{{{1, 0}}, {{1, 0}}, 1, 1, 0, {}}), InputError);
  EXPECT_THROW(pipeline_times(Pipeline{{{1, 5}}, {{1, -1}}, 1, 1, 0, {}}), InputError);
  EXPECT_THROW(pipeline_times(Pipeline{{{-1, -1}}, {}, 1, 1, 0, {}}), InputError);
  EXPECT_DOUBLE_EQ(pipeline_times(Pipeline{}).total_s, 0);
}

TEST(Decomposed, CollectiveFeedsGemmRunsTheLocalRowsFirst) {
  const auto hw = toy_profile();
  const C3Pair pair = dependent(CollectiveKind::all_gather, Dependency::collective_feeds_gemm);
  // 4 chunks at 2 ranks: 2 steps of 1e6 bytes; GEMMs of 500 (local), 250, 250 rows.
  const Pipeline p = decomposed_pipeline(hw, pair, {4, Transport::dma, 0});
  ASSERT_EQ(p.gemm.size(), 3u);
  ASSERT_EQ(p.comm.size(), 2u);
  EXPECT_EQ(p.gemm[0].waits_for, -1);
  EXPECT_EQ(p.gemm[1].waits_for, 0);
  EXPECT_EQ(p.gemm[2].waits_for, 1);
  EXPECT_DOUBLE_EQ(p.gemm[0].time_s, gemm_time_s(hw, Gemm{500, 1000, 1000, DType::bf16}));
  EXPECT_DOUBLE_EQ(p.gemm[1].time_s, gemm_time_s(hw, Gemm{250, 1000, 1000, DType::bf16}));
  const double step_s = collective_time_s(hw, {CollectiveKind::all_gather, 1'000'000, 2}, Transport::dma);
  EXPECT_DOUBLE_EQ(p.comm[0].time_s, step_s);
  EXPECT_EQ(p.comm[1].waits_for, -1);
  // dma, memory-bound GEMM: f = {1.1, 1.2}; the collective's contention with all 100 CUs.
  EXPECT_DOUBLE_EQ(p.gemm_contention, 1.1);
  EXPECT_DOUBLE_EQ(p.comm_contention, 1.2);
  for (double f : p.comm_entry_fraction) EXPECT_EQ(f, 0.0);
}

TEST(Decomposed, ThePipelinesOwnFactorsReplaceTheIndependentPairsOnes) {
  auto hw = toy_profile();
  const C3Pair pair = dependent(CollectiveKind::all_gather, Dependency::collective_feeds_gemm);
  hw.pipeline_interference[CollectiveKind::all_gather][Transport::dma] = {1.4, 1.6};
  const Pipeline p = decomposed_pipeline(hw, pair, {4, Transport::dma, 0});
  EXPECT_DOUBLE_EQ(p.gemm_contention, 1.4);
  EXPECT_DOUBLE_EQ(p.comm_contention, 1.6);  // 1 + (1.6 - 1) * 100 / 100 CUs
  // Another transport or kind keeps the independent pairs' factors (§4.2).
  EXPECT_DOUBLE_EQ(decomposed_pipeline(hw, pair, {4, Transport::cu, 0}).comm_contention,
                   decomposed_pipeline(toy_profile(), pair, {4, Transport::cu, 0}).comm_contention);
  EXPECT_EQ(&pipeline_interference(hw, CollectiveKind::all_to_all, {4, Transport::dma, 0}, GemmClass::memory_bound),
            &interference(hw, CollectiveKind::all_to_all, Transport::dma, GemmClass::memory_bound));
  // Without a partition the cu pieces take the pipeline's factors; a partition keeps the
  // independent pairs' factors.
  hw.pipeline_interference[CollectiveKind::all_gather][Transport::cu] = {3.0, 3.0};
  EXPECT_DOUBLE_EQ(decomposed_pipeline(hw, pair, {4, Transport::cu, 0}).gemm_contention,
                   3.0 * decomposed_pipeline(toy_profile(), pair, {4, Transport::cu, 0}).gemm_contention /
                       interference(hw, CollectiveKind::all_gather, Transport::cu, GemmClass::memory_bound).gemm_slowdown);
  const Pipeline partition = decomposed_pipeline(hw, pair, {4, Transport::cu, 20});
  const Pipeline partition_alone = decomposed_pipeline(toy_profile(), pair, {4, Transport::cu, 20});
  EXPECT_DOUBLE_EQ(partition.gemm_contention, partition_alone.gemm_contention);
  EXPECT_DOUBLE_EQ(partition.comm_contention, partition_alone.comm_contention);
  // Pairs alone never see them.
  EXPECT_DOUBLE_EQ(interference(hw, CollectiveKind::all_gather, Transport::dma, GemmClass::memory_bound).gemm_slowdown,
                   1.1);
}

TEST(Decomposed, AScheduleCorrectionScalesItsGroupOnly) {
  auto hw = toy_profile();
  const C3Pair pair = dependent(CollectiveKind::all_gather, Dependency::collective_feeds_gemm);
  const Decomposition partition{4, Transport::cu, 20};
  const double before = decomposed_time_s(hw, pair, partition);
  EXPECT_DOUBLE_EQ(schedule_correction(hw, pair, partition), 1.0);  // none: 1
  const ScheduleGroup group = schedule_group(pair, partition);
  EXPECT_EQ(group, (ScheduleGroup{Dependency::collective_feeds_gemm, CollectiveKind::all_gather, Transport::cu, 20, 4}));
  hw.schedule_corrections[group] = 1.2;
  EXPECT_DOUBLE_EQ(decomposed_time_s(hw, pair, partition), 1.2 * before);
  // Another partition, chunk count, transport, kind or dependency is another group.
  for (const Decomposition& d : {Decomposition{4, Transport::cu, 0}, Decomposition{8, Transport::cu, 20},
                                 Decomposition{4, Transport::dma, 0}, Decomposition{4, Transport::cu, 40}})
    EXPECT_DOUBLE_EQ(decomposed_time_s(hw, pair, d), decomposed_time_s(toy_profile(), pair, d));
  const C3Pair scatter = dependent(CollectiveKind::reduce_scatter, Dependency::gemm_feeds_collective);
  EXPECT_DOUBLE_EQ(decomposed_time_s(hw, scatter, partition), decomposed_time_s(toy_profile(), scatter, partition));
  // The pipeline itself (its jobs' times, a predicted timeline) is not corrected.
  EXPECT_DOUBLE_EQ(pipeline_times(decomposed_pipeline(hw, pair, partition)).total_s, before);
}

TEST(Decomposed, PiecesRunAtTheWholeGemmsEfficiencyAndQueuedOnesPayThePieceLatency) {
  auto hw = toy_profile();
  // Compute-bound on the toy (peak 1e15, HBM 1e12): a 10000^3 GEMM (2e12 flops) cut in 4.
  const Gemm whole{10000, 10000, 10000, DType::bf16}, piece{2500, 10000, 10000, DType::bf16};
  hw.gemm_efficiency_curve = Table{"curve", {1e11, 1e12}, {0.8, 0.5}, {}};  // held at its ends
  // Alone the piece (5e11 flops) runs at the curve's value between its points (above 0.5);
  // as a piece of the whole (2e12 >= 1e12) at 0.5: 5e11 / (1e15 * 0.5) = 1 ms.
  EXPECT_DOUBLE_EQ(gemm_piece_time_s(hw, piece, whole, 0.0), 1e-3);
  EXPECT_DOUBLE_EQ(gemm_piece_time_s(hw, piece, whole, 2e-6), 1e-3 + 2e-6);
  EXPECT_LT(gemm_time_s(hw, piece) - hw.gemm_latency_s, 1e-3);  // the short kernel alone is faster
  EXPECT_THROW(gemm_piece_time_s(hw, piece, whole, -1.0), InputError);

  C3Pair pair;
  pair.gemm = whole;
  pair.dependency = Dependency::collective_feeds_gemm;
  pair.collective = {CollectiveKind::all_gather, dependent_operand_bytes(whole, pair.dependency), 2};
  hw.chunk_piece_latency_s = 1e-6;
  const Pipeline p = decomposed_pipeline(hw, pair, {4, Transport::dma, 0});
  ASSERT_EQ(p.gemm.size(), 3u);
  // The first piece (the local 5000 rows) launches like a GEMM alone; the others are queued.
  EXPECT_DOUBLE_EQ(p.gemm[0].time_s, gemm_piece_time_s(hw, {5000, 10000, 10000, DType::bf16}, whole, hw.gemm_latency_s));
  EXPECT_DOUBLE_EQ(p.gemm[1].time_s, 1e-6 + 1e-3);
  EXPECT_DOUBLE_EQ(p.gemm[2].time_s, 1e-6 + 1e-3);
}

TEST(Decomposed, GemmFeedsCollectiveSendsEachStepAfterItsRows) {
  const auto hw = toy_profile();
  const C3Pair pair = dependent(CollectiveKind::reduce_scatter, Dependency::gemm_feeds_collective);
  const Pipeline p = decomposed_pipeline(hw, pair, {4, Transport::cu, 0});
  ASSERT_EQ(p.gemm.size(), 2u);
  ASSERT_EQ(p.comm.size(), 2u);
  EXPECT_EQ(p.comm[0].waits_for, 0);
  EXPECT_EQ(p.comm[1].waits_for, 1);
  EXPECT_DOUBLE_EQ(p.gemm[0].time_s, gemm_time_s(hw, Gemm{500, 1000, 1000, DType::bf16}));
  // cu, memory-bound: f.g = 1.2 times s_g(20 CUs) = 1.0; the collective beside 80 CUs:
  // 1 + 0.5 * 0.8 = 1.4; a collective piece waits for the running GEMM piece's waves.
  EXPECT_DOUBLE_EQ(p.gemm_contention, 1.2);
  EXPECT_DOUBLE_EQ(p.comm_contention, 1.4);
  ASSERT_EQ(p.comm_entry_fraction.size(), 2u);
  EXPECT_DOUBLE_EQ(p.comm_entry_fraction[0],
                   gemm_first_delay_s(hw, Gemm{500, 1000, 1000, DType::bf16}, 1.0, 20));
}

TEST(Decomposed, AGemmFeedsCollectiveStepIsOneBatchedGemmThatMayReadBAgain) {
  auto hw = toy_profile();  // peak 1e15, HBM 1e12: the 1000^3 GEMM is memory-bound
  const C3Pair pair = dependent(CollectiveKind::reduce_scatter, Dependency::gemm_feeds_collective);
  const Gemm block{250, 1000, 1000, DType::bf16}, step{500, 1000, 1000, DType::bf16};
  // Unset (or 0): the step priced as one GEMM of its rows, as before the term.
  EXPECT_DOUBLE_EQ(gemm_batched_piece_time_s(hw, block, 2, kGemm, 1e-6, 0.0), gemm_piece_time_s(hw, step, kGemm, 1e-6));
  const Pipeline shared = decomposed_pipeline(hw, pair, {4, Transport::cu, 0});
  // Read again in full, the second block adds B's 2e6 bytes: 2 us on 1e12 B/s at eff_m.
  const double b_s = 2e6 / (hw.hbm_bw_bytes_per_s * hw.gemm_efficiency_memory);
  EXPECT_NEAR(gemm_batched_piece_time_s(hw, block, 2, kGemm, 0.0, 1.0) - gemm_batched_piece_time_s(hw, block, 2, kGemm, 0.0, 0.0),
              b_s, 1e-15);
  hw.chunk_batch_reread = 0.5;
  const Pipeline half = decomposed_pipeline(hw, pair, {4, Transport::cu, 0});
  ASSERT_EQ(half.gemm.size(), shared.gemm.size());
  for (std::size_t i = 0; i < half.gemm.size(); ++i)  // each memory-bound step: half of B again
    EXPECT_NEAR(half.gemm[i].time_s - shared.gemm[i].time_s, 0.5 * b_s, 1e-15);
  // The collective feeds the GEMM: its pieces are not batched over the ranks (2 ranks: one peer).
  const C3Pair feeds = dependent(CollectiveKind::all_gather, Dependency::collective_feeds_gemm);
  hw.chunk_batch_reread = 1.0;
  const Pipeline f1 = decomposed_pipeline(hw, feeds, {4, Transport::cu, 0});
  hw.chunk_batch_reread.reset();
  const Pipeline f0 = decomposed_pipeline(hw, feeds, {4, Transport::cu, 0});
  for (std::size_t i = 0; i < f1.gemm.size(); ++i) EXPECT_DOUBLE_EQ(f1.gemm[i].time_s, f0.gemm[i].time_s);
  // A compute-bound step does not move: its bytes are not what it waits for.
  const Gemm big_block{2500, 10000, 10000, DType::bf16}, big{10000, 10000, 10000, DType::bf16};
  EXPECT_DOUBLE_EQ(gemm_batched_piece_time_s(hw, big_block, 2, big, 0.0, 1.0),
                   gemm_batched_piece_time_s(hw, big_block, 2, big, 0.0, 0.0));
  EXPECT_THROW(gemm_batched_piece_time_s(hw, block, 0, kGemm, 0.0, 0.5), InputError);
  EXPECT_THROW(gemm_batched_piece_time_s(hw, block, 2, kGemm, 0.0, 1.5), InputError);
  EXPECT_THROW(gemm_batched_piece_time_s(hw, block, 2, kGemm, -1.0, 0.5), InputError);
}

TEST(Decomposed, BoundedByEachStreamAndBySerial) {
  const auto hw = toy_profile();
  for (const auto& [kind, dep] : {std::pair{CollectiveKind::all_gather, Dependency::collective_feeds_gemm},
                                  std::pair{CollectiveKind::reduce_scatter, Dependency::gemm_feeds_collective}}) {
    const C3Pair pair = dependent(kind, dep);
    for (int chunks : {2, 4, 8}) {
      const Pipeline p = decomposed_pipeline(hw, pair, {chunks, Transport::cu, 0});
      const double gemm_sum = std::accumulate(p.gemm.begin(), p.gemm.end(), 0.0,
                                              [](double a, const PipelineJob& j) { return a + j.time_s; });
      const double comm_sum = std::accumulate(p.comm.begin(), p.comm.end(), 0.0,
                                              [](double a, const PipelineJob& j) { return a + j.time_s; });
      const double t = pipeline_times(p).total_s;
      EXPECT_GE(t, gemm_sum - 1e-15) << chunks;
      EXPECT_GE(t, comm_sum - 1e-15) << chunks;
      const double worst = (gemm_sum + comm_sum) * std::max(p.gemm_contention, p.comm_contention);
      EXPECT_LE(t, worst + 1e-15) << chunks;
    }
  }
}

TEST(Decomposed, QueuedCopyEngineStepsPayTheirOwnLatency) {
  auto hw = toy_profile();
  const C3Pair pair = dependent(CollectiveKind::all_gather, Dependency::collective_feeds_gemm);
  const Decomposition d{8, Transport::dma, 0};  // 4 steps at 2 ranks
  const Collective step{CollectiveKind::all_gather, pair.collective.size_bytes / 4, 2};
  const double full_s = collective_time_s(hw, step, Transport::dma);  // the toy's 100 us latency + wire
  // Without chunk_dma_step_latency_s every step pays the transport's latency (as before).
  const Pipeline before = decomposed_pipeline(hw, pair, d);
  ASSERT_EQ(before.comm.size(), 4u);
  for (const PipelineJob& j : before.comm) EXPECT_DOUBLE_EQ(j.time_s, full_s);

  hw.chunk_dma_step_latency_s = 2e-6;
  const Pipeline p = decomposed_pipeline(hw, pair, d);
  ASSERT_EQ(p.comm.size(), 4u);
  EXPECT_DOUBLE_EQ(p.comm[0].time_s, full_s);  // the first step is queued behind nothing
  for (std::size_t s = 1; s < p.comm.size(); ++s) EXPECT_DOUBLE_EQ(p.comm[s].time_s, full_s - 1e-4 + 2e-6) << s;
  EXPECT_LT(pipeline_times(p).total_s, pipeline_times(before).total_s);
  // Never below the queued latency; a step on NCCL's kernels keeps its latency.
  EXPECT_DOUBLE_EQ(queued_step_time_s(hw, step, Transport::dma, 5e-5), 2e-6);
  EXPECT_DOUBLE_EQ(queued_step_time_s(hw, step, Transport::cu, full_s), full_s);

  // A step shorter than chunk_dma_step_min_s keeps the latency (the host paces it).
  hw.chunk_dma_step_min_s = 2 * full_s;
  EXPECT_DOUBLE_EQ(queued_step_time_s(hw, step, Transport::dma, full_s), full_s);
  for (const PipelineJob& j : decomposed_pipeline(hw, pair, d).comm) EXPECT_DOUBLE_EQ(j.time_s, full_s);
  hw.chunk_dma_step_min_s = full_s;  // at the threshold: queued
  EXPECT_DOUBLE_EQ(queued_step_time_s(hw, step, Transport::dma, full_s), full_s - 1e-4 + 2e-6);
}

TEST(Decomposed, GemmFeedsCollectiveQueuesItsCopyEngineStepsToo) {
  auto hw = toy_profile();
  hw.collectives[CollectiveKind::all_to_all][Transport::dma] = {.latency_s = 1e-4,
                                                                .bus_bw_bytes_per_s = 1e11};
  hw.collectives[CollectiveKind::all_to_all][Transport::cu] = {
      .latency_s = 1e-5, .bus_bw_bytes_per_s = 1e11, .default_cus = 20};
  for (CollectiveClass cls : {CollectiveClass::latency_bound, CollectiveClass::bandwidth_bound})
    hw.collective_slowdown[CollectiveKind::all_to_all][cls] =
        hw.collective_slowdown[CollectiveKind::all_gather][cls];
  const C3Pair pair = dependent(CollectiveKind::all_to_all, Dependency::gemm_feeds_collective);
  const Collective step{CollectiveKind::all_to_all, pair.collective.size_bytes / 4, 2};
  const double full_s = collective_time_s(hw, step, Transport::dma);
  hw.chunk_dma_step_latency_s = 2e-6;
  const Pipeline p = decomposed_pipeline(hw, pair, {8, Transport::dma, 0});
  ASSERT_EQ(p.comm.size(), 4u);
  EXPECT_DOUBLE_EQ(p.comm[0].time_s, full_s);
  for (std::size_t s = 1; s < p.comm.size(); ++s) {
    EXPECT_DOUBLE_EQ(p.comm[s].time_s, full_s - 1e-4 + 2e-6) << s;
    EXPECT_EQ(p.comm[s].waits_for, static_cast<int>(s));  // still after its own GEMM piece
  }
  // A profile without the kind's parameters is an InputError, not a lookup failure.
  hw.collectives.erase(CollectiveKind::all_to_all);
  EXPECT_THROW(queued_step_time_s(hw, step, Transport::dma, full_s), InputError);
}

TEST(Decomposed, RefusesWhatCannotBeCut) {
  const auto hw = toy_profile();
  const C3Pair ag = dependent(CollectiveKind::all_gather, Dependency::collective_feeds_gemm);
  EXPECT_THROW(decomposed_pipeline(hw, ag, {3, Transport::cu, 0}), InputError);   // ranks do not divide
  EXPECT_THROW(decomposed_pipeline(hw, ag, {16, Transport::cu, 0}), InputError);  // does not divide m
  EXPECT_THROW(decomposed_pipeline(hw, ag, {4, Transport::dma, 20}), InputError);
  EXPECT_THROW(decomposed_pipeline(hw, ag, {4, Transport::cu, 5}), InputError);   // outside the slowdown tables (from 10)
  const C3Pair rs = dependent(CollectiveKind::reduce_scatter, Dependency::gemm_feeds_collective);
  EXPECT_THROW(decomposed_pipeline(hw, rs, {4, Transport::dma, 0}), InputError);  // copy engines cannot reduce
  C3Pair independent = ag;
  independent.dependency = Dependency::none;
  EXPECT_THROW(decomposed_pipeline(hw, independent, {4, Transport::cu, 0}), InputError);
  C3Pair wrong_size = ag;
  wrong_size.collective.size_bytes /= 2;
  EXPECT_THROW(decomposed_pipeline(hw, wrong_size, {4, Transport::cu, 0}), InputError);
}

TEST(Decomposed, LocalRowsFirstHideTheTransfer) {
  // One step at 2 ranks: the local 500 rows run beside the remote half's transfer, then
  // the other 500 rows: shorter than serial when both are of similar length.
  const auto hw = toy_profile();
  const C3Pair ag = dependent(CollectiveKind::all_gather, Dependency::collective_feeds_gemm);
  const Isolated iso = isolated_times(hw, ag);
  EXPECT_LT(decomposed_time_s(hw, ag, {2, Transport::dma, 0}), iso.gemm_s + iso.collective_dma_s);
}

}  // namespace
}  // namespace c3::model
