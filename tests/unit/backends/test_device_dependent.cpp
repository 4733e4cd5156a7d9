// The vendor-neutral half of a dependent pair's run on the GPU backends
// (backends/device/dependent_run.hpp) without a GPU: what is refused and why, the stream
// roles, the host launch order (every step and job once; a GEMM job after the step it
// waits for, a step after the GEMM job it moves, the collective one step ahead), the
// sampled positions (every piece's first and last row, the corners), the host reference
// against a brute-force GEMM of the patterns moved by hand, the NaN ranges, the moved-row
// checks against the input fills, and the note.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "c3/errors.hpp"
#include "backends/device/dependent_run.hpp"
#include "backends/device/failure.hpp"
#include "backends/device/gemm_check.hpp"

namespace c3::device {
namespace {

using validator::DepBuffer;

C3Pair dependent_pair(Dependency dep, CollectiveKind kind, std::int64_t m, std::int64_t n, std::int64_t k, int ranks,
                      DType dtype = DType::bf16) {
  C3Pair p;
  p.gemm = {m, n, k, dtype};
  p.dependency = dep;
  p.collective.kind = kind;
  p.collective.ranks = ranks;
  p.collective.size_bytes = dependent_operand_bytes(p.gemm, dep);
  return p;
}

ExecutionPlan serial() { return {}; }
ExecutionPlan chunked(int chunks, Transport t = Transport::cu, int cus = 0) {
  ExecutionPlan e;
  e.order = LaunchOrder::collective_first;
  e.transport = t;
  e.collective_cus = cus;
  e.chunks = chunks;
  return e;
}

DependentSupport support(int gpus = 8) { return {gpus, true, "all peers", false}; }

std::string refusal(const std::function<void()>& f) {
  try {
    f();
  } catch (const Failure& e) {
    return e.what();
  }
  return "no failure";
}

const CollectiveKind kFeedsKinds[] = {CollectiveKind::all_gather, CollectiveKind::all_to_all};
const CollectiveKind kFedKinds[] = {CollectiveKind::reduce_scatter, CollectiveKind::all_to_all};

// ---- refusals ----

TEST(DeviceDependent, RefusesWhatItCannotRunAsUnsupported) {
  const C3Pair ag = dependent_pair(Dependency::collective_feeds_gemm, CollectiveKind::all_gather, 64, 32, 16, 2);
  const DependentOptions o;
  const auto run = [&](const C3Pair& p, const ExecutionPlan& how, const DependentSupport& s = support()) {
    return refusal([&] { DependentLayout l(p, how, o, s); });
  };
  C3Pair none = ag;
  none.dependency = Dependency::none;
  EXPECT_EQ(run(none, serial()), "unsupported: an independent pair has no dependent schedule");
  C3Pair fp32 = ag;
  fp32.gemm.dtype = DType::fp32;
  fp32.collective.size_bytes = dependent_operand_bytes(fp32.gemm, fp32.dependency);
  EXPECT_EQ(run(fp32, serial()), "unsupported: dependent pairs run in bf16 or fp16 (got fp32)");
  C3Pair wrong_size = ag;
  wrong_size.collective.size_bytes += 2;
  EXPECT_NE(run(wrong_size, serial()).find("unsupported: dependency collective_feeds_gemm"), std::string::npos);
  EXPECT_EQ(run(ag, serial(), support(1)), "unsupported: 2 ranks but 1 GPUs");
  ExecutionPlan gemm_first = chunked(2);
  gemm_first.order = LaunchOrder::gemm_first;
  EXPECT_EQ(run(ag, gemm_first),
            "unsupported: a dependent pair runs serial or decomposed (chunked), not concurrently as one piece");
  ExecutionPlan serial2 = serial();
  serial2.chunks = 2;
  EXPECT_EQ(run(ag, serial2), "unsupported: a serial plan takes no chunks");
  EXPECT_EQ(run(ag, chunked(1)), "unsupported: a decomposed schedule needs at least 2 chunks");
  const C3Pair rs = dependent_pair(Dependency::gemm_feeds_collective, CollectiveKind::reduce_scatter, 64, 32, 16, 2);
  EXPECT_EQ(run(rs, chunked(2, Transport::dma)),
            "unsupported: reduce_scatter has no dma transport (copy engines cannot reduce)");
  EXPECT_EQ(run(ag, chunked(2, Transport::dma), {2, false, "GPU 0 cannot reach GPU 1", false}),
            "unsupported: peer access is not available: GPU 0 cannot reach GPU 1");
  EXPECT_EQ(run(ag, chunked(2, Transport::dma), {2, true, "", true}),
            "unsupported: dma variant nccl_ce moves whole collectives only; the pieces of a decomposed schedule "
            "run on the ce_* variants");
  EXPECT_EQ(run(ag, chunked(2, Transport::dma, 16)), "unsupported: pieces on copy engines take no SM partition");
  EXPECT_EQ(run(ag, chunked(3)).substr(0, 13), "unsupported: ");  // 3 is no multiple of 2 ranks
  EXPECT_EQ(run(ag, chunked(4)), "no failure");
}

TEST(DeviceDependent, StrategiesThatRunWholeKernelsAtOnceAreRefused) {
  const C3Pair ag = dependent_pair(Dependency::collective_feeds_gemm, CollectiveKind::all_gather, 64, 32, 16, 2);
  EXPECT_EQ(dependent_execution(ag, parse_strategy("serial")), serial());
  EXPECT_EQ(dependent_execution(ag, parse_strategy("chunked:4:cu")), chunked(4));
  const std::string why = refusal([&] { dependent_execution(ag, parse_strategy("base")); });
  EXPECT_EQ(why, "unsupported: base runs the GEMM and the collective at once as whole kernels, but in this "
                 "pair (collective_feeds_gemm) one needs the other's output: a dependent pair runs serial or "
                 "chunked:* only");
  EXPECT_EQ(refusal([&] { dependent_execution(ag, parse_strategy("chunked:32:cu")); }),
            "unsupported: chunked:32:cu: at most 16 chunks");
}

// ---- stream roles and transport ----

TEST(DeviceDependent, StreamRolesPerSchedule) {
  const C3Pair ag = dependent_pair(Dependency::collective_feeds_gemm, CollectiveKind::all_gather, 64, 32, 16, 2);
  DependentOptions hi;
  hi.collective_high_priority = true;
  const DependentLayout s(ag, serial(), hi, support());
  EXPECT_EQ(s.gemm_role(), StreamRole::work);
  EXPECT_EQ(s.comm_role(), StreamRole::work);
  EXPECT_FALSE(s.comm_high_priority());
  const DependentLayout c(ag, chunked(2), hi, support());
  EXPECT_EQ(c.gemm_role(), StreamRole::work);
  EXPECT_EQ(c.comm_role(), StreamRole::collective);
  EXPECT_TRUE(c.comm_high_priority());
  EXPECT_EQ(c.partition_cus(), 0);
  EXPECT_EQ(c.transport("rccl"), "rccl");
  const DependentLayout d(ag, chunked(2, Transport::dma), hi, support());
  EXPECT_EQ(d.comm_role(), StreamRole::copy_engines);
  EXPECT_EQ(d.transport("rccl"), "ce_push_peer");
  EXPECT_TRUE(d.copy_events());
  EXPECT_FALSE(d.step_events());
  const DependentLayout p(ag, chunked(2, Transport::cu, 16), DependentOptions{}, support());
  EXPECT_EQ(p.gemm_role(), StreamRole::partition_rest);
  EXPECT_EQ(p.comm_role(), StreamRole::partition_group);
  EXPECT_EQ(p.partition_cus(), 16);
  EXPECT_EQ(p.ctas(), 16);
  DependentOptions outside;
  outside.partition_collective = false;
  const DependentLayout q(ag, chunked(2, Transport::cu, 16), outside, support());
  EXPECT_EQ(q.comm_role(), StreamRole::collective);
  EXPECT_EQ(q.partition_cus(), 16);
  EXPECT_EQ(q.note("rccl"),
            "collective_feeds_gemm all_gather, 2 chunks of 32 rows in 1 steps on rccl (16 CTAs): the GEMM computes "
            "the local 32 rows first, then each step's pieces after the step (one strided-batched GEMM per run of "
            "peers)");
  EXPECT_EQ(s.note("nccl"), "collective_feeds_gemm all_gather, undecomposed on one stream: the whole collective, "
                            "then the GEMM of all 64 rows");
}

// ---- launch order ----

void expect_launch_order(const DependentLayout& l) {
  const validator::DependentSchedule& s = l.schedule();
  std::map<std::size_t, std::size_t> step_at;                   // step -> position
  std::map<std::pair<int, std::size_t>, std::size_t> jobs_at;  // (rank, job) -> position
  const auto job_at = [&](int r, std::size_t j) { return jobs_at.at(std::pair{r, j}); };
  const auto& actions = l.actions();
  for (std::size_t i = 0; i < actions.size(); ++i) {
    const DependentAction& a = actions[i];
    if (a.kind == DependentAction::Kind::step)
      EXPECT_TRUE(step_at.emplace(a.index, i).second) << "step " << a.index << " twice";
    else
      EXPECT_TRUE(jobs_at.emplace(std::pair{a.rank, a.index}, i).second) << "job twice";
  }
  ASSERT_EQ(step_at.size(), s.comm.size());
  std::size_t jobs = 0;
  for (int r = 0; r < s.ranks; ++r) {
    const auto& g = s.gemms[static_cast<std::size_t>(r)];
    jobs += g.size();
    for (std::size_t j = 0; j < g.size(); ++j) {
      ASSERT_TRUE(jobs_at.count({r, j}));
      if (j > 0) EXPECT_LT(job_at(r, j - 1), job_at(r, j));  // stream order
      const int w = g[j].waits_for_step;
      if (w < 0) continue;
      EXPECT_LT(step_at[static_cast<std::size_t>(w)], job_at(r, j));
      // The collective one step ahead: the next step is already issued.
      if (static_cast<std::size_t>(w) + 1 < s.comm.size())
        EXPECT_LT(step_at[static_cast<std::size_t>(w) + 1], job_at(r, j));
    }
  }
  EXPECT_EQ(jobs_at.size(), jobs);
  for (std::size_t st = 0; st < s.comm.size(); ++st) {
    if (st > 0) EXPECT_LT(step_at[st - 1], step_at[st]);
    const int w = s.comm[st].waits_for_gemm;
    if (w < 0) continue;
    for (int r = 0; r < s.ranks; ++r) EXPECT_LT(job_at(r, static_cast<std::size_t>(w)), step_at[st]);
  }
}

TEST(DeviceDependent, LaunchOrderEveryDependencyAndChunkCount) {
  for (int ranks : {2, 4})
    for (int chunks : {1, ranks, 2 * ranks, 4 * ranks})
      for (Dependency dep : {Dependency::collective_feeds_gemm, Dependency::gemm_feeds_collective})
        for (CollectiveKind kind : dep == Dependency::collective_feeds_gemm ? kFeedsKinds : kFedKinds) {
          if (chunks > 16) continue;
          SCOPED_TRACE(std::string(to_string(dep)) + " " + std::string(to_string(kind)) + " ranks " +
                       std::to_string(ranks) + " chunks " + std::to_string(chunks));
          const C3Pair p = dependent_pair(dep, kind, 64, 32, 16, ranks);
          const DependentLayout l(p, chunks == 1 ? serial() : chunked(chunks), DependentOptions{}, support());
          expect_launch_order(l);
        }
}

TEST(DeviceDependent, LaunchOrderOfTwoRanksFourChunks) {
  using K = DependentAction::Kind;
  // all_gather, 2 ranks, 4 chunks (2 steps): step 0, the local jobs, step 1, the jobs of
  // step 0, then the jobs of step 1.
  const DependentLayout ag(dependent_pair(Dependency::collective_feeds_gemm, CollectiveKind::all_gather, 64, 32, 16, 2),
                           chunked(4), DependentOptions{}, support());
  const std::vector<DependentAction> feeds = {{K::step, 0, 0}, {K::gemm, 0, 0}, {K::gemm, 1, 0}, {K::step, 0, 1},
                                              {K::gemm, 0, 1}, {K::gemm, 1, 1}, {K::gemm, 0, 2}, {K::gemm, 1, 2}};
  EXPECT_EQ(ag.actions(), feeds);
  // reduce_scatter: each step right after the GEMM job it reduces.
  const DependentLayout rs(
      dependent_pair(Dependency::gemm_feeds_collective, CollectiveKind::reduce_scatter, 64, 32, 16, 2), chunked(4),
      DependentOptions{}, support());
  const std::vector<DependentAction> fed = {{K::gemm, 0, 0}, {K::gemm, 1, 0}, {K::step, 0, 0},
                                            {K::gemm, 0, 1}, {K::gemm, 1, 1}, {K::step, 0, 1}};
  EXPECT_EQ(rs.actions(), fed);
  EXPECT_TRUE(rs.gemm_events());
  EXPECT_FALSE(rs.step_events());
  EXPECT_TRUE(ag.step_events());
}

// ---- NaN ranges, fills, moved rows ----

TEST(DeviceDependent, PoisonRangesCoverEveryMovedOrStagedRow) {
  const DependentLayout ag(dependent_pair(Dependency::collective_feeds_gemm, CollectiveKind::all_gather, 64, 32, 16, 4),
                           chunked(4), DependentOptions{}, support());
  // Rank 1 of 4: all of out, A but its own rows 16..31.
  EXPECT_EQ(ag.poison_ranges(1), (std::vector<RowRange>{{DepBuffer::out, 0, 64}, {DepBuffer::a, 0, 16}, {DepBuffer::a, 32, 32}}));
  EXPECT_EQ(ag.poison_ranges(0), (std::vector<RowRange>{{DepBuffer::out, 0, 64}, {DepBuffer::a, 16, 48}}));
  EXPECT_EQ(ag.poison_ranges(3), (std::vector<RowRange>{{DepBuffer::out, 0, 64}, {DepBuffer::a, 0, 48}}));
  const DependentLayout a2a(dependent_pair(Dependency::collective_feeds_gemm, CollectiveKind::all_to_all, 64, 32, 16, 2),
                            chunked(2), DependentOptions{}, support());
  EXPECT_EQ(a2a.poison_ranges(0), (std::vector<RowRange>{{DepBuffer::out, 0, 64}, {DepBuffer::a, 0, 64}}));
  const DependentLayout rs(
      dependent_pair(Dependency::gemm_feeds_collective, CollectiveKind::reduce_scatter, 64, 32, 16, 2), chunked(2),
      DependentOptions{}, support());
  EXPECT_EQ(rs.poison_ranges(1), (std::vector<RowRange>{{DepBuffer::out, 0, 32}, {DepBuffer::staged, 0, 64}}));
  EXPECT_EQ(rs.rows(DepBuffer::out), 32);
  EXPECT_EQ(rs.rows(DepBuffer::send), 0);
  EXPECT_EQ(rs.rows(DepBuffer::staged), 64);
  EXPECT_EQ(rs.width(DepBuffer::staged), 32);
  EXPECT_EQ(rs.width(DepBuffer::a), 16);
}

TEST(DeviceDependent, MovedRowChecksExpectTheSourcesFills) {
  for (CollectiveKind kind : kFeedsKinds)
    for (bool undecomposed : {true, false}) {
      SCOPED_TRACE(std::string(to_string(kind)) + (undecomposed ? " serial" : " chunked:3"));
      const int R = 3;
      DependentOptions o;
      o.epoch = 7;
      const DependentLayout l(dependent_pair(Dependency::collective_feeds_gemm, kind, 48, 8, 10, R, DType::fp16),
                              undecomposed ? serial() : chunked(3), o, support());
      const std::vector<MovedRowsCheck> checks = l.moved_row_checks();
      const bool skip_own = kind == CollectiveKind::all_to_all && !undecomposed;
      ASSERT_EQ(checks.size(), static_cast<std::size_t>(skip_own ? R * (R - 1) : R * R));
      for (const MovedRowsCheck& c : checks) {
        EXPECT_EQ(c.row, c.from * 16);
        EXPECT_EQ(c.args.count, 16u * 10u);
        EXPECT_TRUE(c.args.fp16);
        EXPECT_EQ(c.args.kind, CheckKind::operand);
        // What the check expects at element e is what the source's fill wrote there.
        const RowFill f = l.input_fills(c.from).front();
        EXPECT_EQ(f.kind, FillKind::gemm_fp16);
        EXPECT_EQ(c.args.copy_seed, f.seed);
        // all_gather: the source's own shard; all_to_all: its send block for this rank.
        const std::uint64_t fill_elem = kind == CollectiveKind::all_gather ? 0 : static_cast<std::uint64_t>(c.rank) * 16 * 10;
        EXPECT_EQ(c.args.copy_offset, f.offset + fill_elem);
        for (std::size_t e : {std::size_t{0}, std::size_t{17}, c.args.count - 1})
          EXPECT_EQ(expected_value(c.args, e), fill_value(f.kind, f.seed, f.offset + fill_elem + e));
      }
      EXPECT_EQ(l.moved_rows_error(checks.back(), 3, 25),
                "rank 2: A rows from rank " + std::to_string(checks.back().from) + ": 3 elements wrong, first in row " +
                    std::to_string(checks.back().from * 16 + 2));
    }
  const DependentLayout rs(
      dependent_pair(Dependency::gemm_feeds_collective, CollectiveKind::reduce_scatter, 64, 32, 16, 2), chunked(2),
      DependentOptions{}, support());
  EXPECT_TRUE(rs.moved_row_checks().empty());
}

TEST(DeviceDependent, CclCallsAreTheStepsCallsInGroupOrder) {
  // What the vendors issued from each step before the calls were data: all_gather in place
  // (rank r's block of A inside A), reduce_scatter from staged into out, copies as
  // send/recv pairs; counts in elements of the sent rows (reduce_scatter: received).
  for (bool undecomposed : {true, false})
    for (Dependency dep : {Dependency::collective_feeds_gemm, Dependency::gemm_feeds_collective})
      for (CollectiveKind kind : dep == Dependency::collective_feeds_gemm ? kFeedsKinds : kFedKinds) {
        SCOPED_TRACE(std::string(to_string(dep)) + " " + std::string(to_string(kind)) + (undecomposed ? " serial" : " chunked:4"));
        const int R = 4;
        const DependentLayout l(dependent_pair(dep, kind, 64, 24, 40, R), undecomposed ? serial() : chunked(4),
                                DependentOptions{}, support());
        const validator::DependentSchedule& sched = l.schedule();
        for (int s = 0; s < static_cast<int>(sched.comm.size()); ++s) {
          const validator::DepStep& st = sched.comm[static_cast<std::size_t>(s)];
          std::vector<CclCall> want;
          const auto call = [&](CclCall::Op op, int rank, int peer, RowRange send, RowRange recv, std::int64_t count) {
            CclCall c;
            c.op = op;
            c.rank = rank;
            c.peer = peer;
            c.send = send;
            c.recv = recv;
            c.count = static_cast<std::size_t>(count);
            want.push_back(c);
          };
          switch (st.op) {
            case validator::DepStep::Op::all_gather:
              for (int r = 0; r < R; ++r)
                call(CclCall::Op::all_gather, r, 0, {DepBuffer::a, r * st.rows, st.rows}, {DepBuffer::a, 0, R * st.rows},
                     st.rows * 40);
              break;
            case validator::DepStep::Op::reduce_scatter:
              for (int r = 0; r < R; ++r)
                call(CclCall::Op::reduce_scatter, r, 0, {DepBuffer::staged, st.src_row, R * st.rows},
                     {DepBuffer::out, st.dst_row, st.rows}, st.rows * 24);
              break;
            case validator::DepStep::Op::copies:
              for (const validator::RowCopy& cp : st.copies) {
                const std::int64_t count = cp.rows * l.width(cp.src);
                call(CclCall::Op::send, cp.src_rank, cp.dst_rank, {cp.src, cp.src_row, cp.rows}, {}, count);
                call(CclCall::Op::recv, cp.dst_rank, cp.src_rank, {}, {cp.dst, cp.dst_row, cp.rows}, count);
              }
              break;
          }
          const std::vector<CclCall> got = l.ccl_calls(s);
          ASSERT_EQ(got.size(), want.size());
          ASSERT_FALSE(got.empty());
          for (std::size_t i = 0; i < got.size(); ++i) {
            EXPECT_EQ(got[i].op, want[i].op) << i;
            EXPECT_EQ(got[i].rank, want[i].rank) << i;
            if (got[i].op == CclCall::Op::send || got[i].op == CclCall::Op::recv) EXPECT_EQ(got[i].peer, want[i].peer) << i;
            if (got[i].op != CclCall::Op::recv) EXPECT_EQ(got[i].send, want[i].send) << i;
            if (got[i].op != CclCall::Op::send) EXPECT_EQ(got[i].recv, want[i].recv) << i;
            EXPECT_EQ(got[i].count, want[i].count) << i;
            EXPECT_EQ(got[i].send_ptr, nullptr);
            EXPECT_EQ(got[i].recv_ptr, nullptr);
          }
        }
      }
}

TEST(DeviceDependent, RowPieceKeyAndSinglePieces) {
  // A BLAS plan depends on the shape, the strides of a run and the alignments only.
  alignas(256) static std::uint16_t a[4096], out[4096];
  const RowPiece run{a, 8, out, 16, 4, 3};
  const std::int64_t n = 24, k = 40;
  EXPECT_EQ(row_piece_key(run, n, k), (RowPieceKey{4, 3, 8, 16, 16u, 16u}));  // 40*2, 8*40*2 bytes: 16
  const RowPiece second = run.single(1, n, k);
  EXPECT_EQ(second.a, a + 8 * 40);
  EXPECT_EQ(second.out, out + 16 * 24);
  EXPECT_EQ(second.count, 1);
  EXPECT_EQ(second.rows, 4);
  // One piece: no strides in the key, whatever the piece says; a row offset of 3 k-rows
  // leaves 3 * 80 bytes = 16-byte alignment.
  RowPiece one = run.single(0, n, k);
  one.a_stride_rows = 99;
  EXPECT_EQ(row_piece_key(one, n, k), (RowPieceKey{4, 1, 0, 0, 16u, 16u}));
  EXPECT_EQ(std::get<4>(row_piece_key({a + 3 * 40, 0, out, 0, 4, 1}, n, k)), 16u);
  EXPECT_EQ(std::get<4>(row_piece_key({a + 1, 0, out, 0, 4, 1}, n, k)), 2u);
  EXPECT_EQ(common_alignment({0, 1024}), 256u);
}

// ---- samples and the host reference ----

TEST(DeviceDependent, SamplesCoverEveryPiecesFirstAndLastRowAndTheCorners) {
  for (int chunks : {1, 2, 4, 8}) {
    DependentOptions o;
    o.check_samples = 5;
    const DependentLayout l(dependent_pair(Dependency::collective_feeds_gemm, CollectiveKind::all_to_all, 64, 24, 8, 2),
                            chunks == 1 ? serial() : chunked(chunks), o, support());
    const DependentCheck c(l);
    const std::int64_t group = chunks == 1 ? 32 : 64 / chunks;  // serial: per block
    for (int r = 0; r < 2; ++r) {
      std::set<std::int64_t> rows;
      std::set<std::pair<std::int64_t, std::int64_t>> cells;
      for (std::size_t s = 0; s < c.size(r); ++s) {
        rows.insert(c.row(r, s));
        cells.insert({c.row(r, s), c.col(r, s)});
        EXPECT_GE(c.col(r, s), 0);
        EXPECT_LT(c.col(r, s), 24);
        EXPECT_EQ(c.indices(r)[s], c.row(r, s) * 24 + c.col(r, s));
      }
      EXPECT_EQ(c.size(r), static_cast<std::size_t>(2 * (64 / group) + 4 + 5));
      for (std::int64_t g0 = 0; g0 < 64; g0 += group) {
        EXPECT_TRUE(rows.count(g0)) << g0;
        EXPECT_TRUE(rows.count(g0 + group - 1)) << g0 + group - 1;
      }
      for (auto corner : {std::pair<std::int64_t, std::int64_t>{0, 0}, {0, 23}, {63, 0}, {63, 23}})
        EXPECT_TRUE(cells.count(corner));
    }
  }
}

// The undecomposed computation by hand: every rank's inputs from its fills, moved as the
// collective moves them, multiplied in double.
std::vector<std::vector<double>> brute_force_out(const DependentLayout& l) {
  const validator::DependentSchedule& s = l.schedule();
  const DType t = l.pair().gemm.dtype;
  const std::int64_t m = s.m, n = l.n(), k = l.k(), block = l.block();
  const int R = s.ranks;
  // in[r][b]: rank r's buffer b (a or send) as the run starts, element-wise (NaN: unset).
  std::vector<std::map<DepBuffer, std::vector<double>>> in(static_cast<std::size_t>(R));
  for (int r = 0; r < R; ++r) {
    for (DepBuffer b : {DepBuffer::a, DepBuffer::send})
      in[static_cast<std::size_t>(r)][b].assign(static_cast<std::size_t>(m * k), NAN);
    for (const RowFill& f : l.input_fills(r))
      for (std::int64_t e = 0; e < f.range.rows * k; ++e)
        in[static_cast<std::size_t>(r)][f.range.buffer][static_cast<std::size_t>(f.range.row * k + e)] =
            decode(t, fill_value(f.kind, f.seed, f.offset + static_cast<std::uint64_t>(e)));
  }
  const auto B = [&](std::int64_t j, std::int64_t l_) {
    return decode(t, fill_value(l.fill_kind(), l.b_seed(), static_cast<std::uint64_t>(j * k + l_)));
  };
  const auto dot = [&](const std::vector<double>& a, std::int64_t row, std::int64_t j) {
    double acc = 0;
    for (std::int64_t x = 0; x < k; ++x) acc += a[static_cast<std::size_t>(row * k + x)] * B(j, x);
    return acc;
  };
  std::vector<std::vector<double>> out(static_cast<std::size_t>(R),
                                       std::vector<double>(static_cast<std::size_t>(s.out_rows * n)));
  for (int q = 0; q < R; ++q)
    for (std::int64_t i = 0; i < s.out_rows; ++i)
      for (std::int64_t j = 0; j < n; ++j) {
        double v = 0;
        const std::int64_t p = i / block, local = i % block;  // the block i lies in
        if (l.feeds() && s.kind == CollectiveKind::all_gather)
          v = dot(in[static_cast<std::size_t>(p)][DepBuffer::a], i, j);  // rank p's shard
        else if (l.feeds())  // rank q's block p is rank p's send block q
          v = dot(in[static_cast<std::size_t>(p)][DepBuffer::send], q * block + local, j);
        else if (s.kind == CollectiveKind::reduce_scatter)
          for (int r = 0; r < R; ++r) v += dot(in[static_cast<std::size_t>(r)][DepBuffer::a], q * block + i, j);
        else  // all_to_all of C: rank q's block p is rank p's C block q
          v = dot(in[static_cast<std::size_t>(p)][DepBuffer::a], q * block + local, j);
        out[static_cast<std::size_t>(q)][static_cast<std::size_t>(i * n + j)] = v;
      }
  return out;
}

std::uint16_t to_bf16(double v) {  // round to nearest even
  const float f = static_cast<float>(v);
  std::uint32_t bits = 0;
  std::memcpy(&bits, &f, sizeof bits);
  bits += 0x7FFFu + ((bits >> 16) & 1u);
  return static_cast<std::uint16_t>(bits >> 16);
}

TEST(DeviceDependent, HostReferenceIsTheBruteForceComputation) {
  for (Dependency dep : {Dependency::collective_feeds_gemm, Dependency::gemm_feeds_collective})
    for (CollectiveKind kind : dep == Dependency::collective_feeds_gemm ? kFeedsKinds : kFedKinds)
      for (int chunks : {1, 4}) {
        SCOPED_TRACE(std::string(to_string(dep)) + " " + std::string(to_string(kind)) + " chunks " +
                     std::to_string(chunks));
        DependentOptions o;
        o.check_samples = 30;
        o.epoch = 3;
        const DependentLayout l(dependent_pair(dep, kind, 8, 5, 6, 2), chunks == 1 ? serial() : chunked(chunks), o,
                                support());
        const DependentCheck c(l);
        const auto truth = brute_force_out(l);
        for (int r = 0; r < 2; ++r) {
          std::vector<std::uint16_t> got;
          for (std::size_t s = 0; s < c.size(r); ++s) {
            const double v = truth[static_cast<std::size_t>(r)][static_cast<std::size_t>(c.indices(r)[s])];
            EXPECT_NEAR(c.reference(r, s), v, 1e-9 * (1 + std::fabs(v)));
            EXPECT_GT(c.tolerance(r, s), 0);
            got.push_back(to_bf16(v));
          }
          std::string first;
          EXPECT_EQ(c.compare(r, got, &first), 0) << first;
          got[3] = 0x7FC0;  // NaN
          EXPECT_EQ(c.compare(r, got, &first), 1);
          EXPECT_EQ(first.rfind("rank " + std::to_string(r) + " output(" + std::to_string(c.row(r, 3)) + "," +
                                    std::to_string(c.col(r, 3)) + ") = nan, expected ",
                                0),
                    0u)
              << first;
          got.pop_back();
          EXPECT_THROW(c.compare(r, got, nullptr), InputError);
        }
      }
}

TEST(DeviceDependent, ReportGoesIntoRunDetail) {
  DependentReport rep;
  rep.chunks = 4;
  rep.size_bytes = 1024;
  rep.transport = "rccl";
  rep.gemm_sms = 288;
  rep.collective_sms = 16;
  rep.collective_ctas = 16;
  rep.gemm_algo = "hipBLASLt";
  rep.note = "n";
  RunDetail d;
  describe(d, rep, 8);
  EXPECT_EQ(d.ranks, 8);
  EXPECT_EQ(d.chunks, 4);
  EXPECT_EQ(d.size_bytes, 1024);
  EXPECT_EQ(d.transport, "rccl");
  EXPECT_EQ(d.gemm_sms, 288);
  EXPECT_EQ(d.collective_sms, 16);
  EXPECT_EQ(d.collective_ctas, 16);
  EXPECT_EQ(d.gemm_algo, "hipBLASLt");
  EXPECT_EQ(d.note, "n");
}

}  // namespace
}  // namespace c3::device
