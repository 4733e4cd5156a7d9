// The GPU backends' vendor-neutral layer (backends/device/) without a GPU: the run loop
// of one measurement, the timing loop and its watchdog against a scripted vendor, the
// collectives' element plans and checks (a host all_gather, all_to_all, reduce_scatter
// and all_reduce, moved by the copy-engine transfer lists, pass the check kernels'
// expected values; a wrong source fails them), the sampled GEMM check against a host
// GEMM, where each strategy puts an independent pair, and the option parser.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <new>
#include <set>
#include <stdexcept>

#include "c3/errors.hpp"
#include "backends/device/collective_plan.hpp"
#include "backends/device/cu_masks.hpp"
#include "backends/device/failure.hpp"
#include "backends/device/gemm_check.hpp"
#include "backends/device/kernel_args.hpp"
#include "backends/device/options.hpp"
#include "backends/device/pair_placement.hpp"
#include "backends/device/runner.hpp"
#include "backends/device/timing.hpp"
#include "validator/ce_plan.hpp"

namespace c3::device {
namespace {

std::string failure_text(const std::function<void()>& f) {
  try {
    f();
  } catch (const std::exception& e) {
    return e.what();
  }
  return "no exception";
}

// ---- run loop ----

TEST(DeviceRunner, WarmupThenMeasuredRunsCheckedFirstAndLast) {
  int runs = 0, poisons = 0, checks = 0;
  RunHooks h;
  h.run = [&] {
    ++runs;
    return RunTime{0.001 * runs, 0.002 * runs};
  };
  h.poison = [&] { ++poisons; };
  h.verify = [&](std::string*) -> std::int64_t {
    ++checks;
    return 0;
  };
  RunLog log;
  const Measurement m = run_measurement(h, RunConfig{2, 3}, true, log);
  ASSERT_TRUE(m.ok) << m.error;
  EXPECT_EQ(runs, 5);
  EXPECT_EQ(poisons, 2);  // before the first and the last run
  EXPECT_EQ(checks, 2);
  EXPECT_TRUE(m.verified);
  EXPECT_EQ(m.warmup_runs, 2);
  ASSERT_EQ(m.runs_s.size(), 3u);  // runs 3..5
  EXPECT_DOUBLE_EQ(m.runs_s.front(), 0.003);
  EXPECT_DOUBLE_EQ(m.median_s, 0.004);
  ASSERT_EQ(log.host_runs_s.size(), 3u);
  EXPECT_DOUBLE_EQ(log.host_runs_s.back(), 0.010);

  RunLog unchecked_log;
  checks = 0;
  const Measurement unchecked = run_measurement(h, RunConfig{0, 2}, false, unchecked_log);
  EXPECT_TRUE(unchecked.ok);
  EXPECT_FALSE(unchecked.verified);
  EXPECT_EQ(checks, 0);
}

TEST(DeviceRunner, ThePrimingRunComesFirstAndIsNotKept) {
  std::vector<std::string> calls;
  RunHooks h;
  h.prime = [&] { calls.push_back("prime"); };
  h.run = [&] {
    calls.push_back("run");
    return RunTime{0.001, 0.001};
  };
  h.poison = [&] { calls.push_back("poison"); };
  h.verify = [&](std::string*) -> std::int64_t { return 0; };
  RunLog log;
  const Measurement m = run_measurement(h, RunConfig{1, 1}, true, log);
  ASSERT_TRUE(m.ok) << m.error;
  EXPECT_EQ(calls, (std::vector<std::string>{"prime", "poison", "run", "poison", "run"}));
  EXPECT_EQ(m.runs_s.size(), 1u);
  EXPECT_EQ(m.warmup_runs, 1);

  h.prime = [] { throw Failure("cuda_error", "the priming run failed"); };  // a failure names the measurement
  EXPECT_EQ(run_measurement(h, RunConfig{1, 1}, true, log).error, "cuda_error: the priming run failed");
}

// RunConfig's time bounds: a short measurement runs until its runs add up to the time.
TEST(DeviceRunner, ShortRunsGoOnUntilTheirTimeAddsUpAndTheLastIsChecked) {
  int runs = 0, poisons = 0, checks = 0;
  RunHooks h;
  h.run = [&] {
    ++runs;
    return RunTime{0.001, 0.002};  // 1 ms a run
  };
  h.poison = [&] { ++poisons; };
  h.verify = [&](std::string*) -> std::int64_t {
    ++checks;
    return 0;
  };
  RunConfig cfg{1, 3};
  cfg.min_warmup_s = 0.0045;  // 5 warm-up runs
  cfg.min_time_s = 0.0105;    // 11 runs reach it; the 11th was not checked, so a 12th is
  RunLog log;
  const Measurement m = run_measurement(h, cfg, true, log);
  ASSERT_TRUE(m.ok) << m.error;
  EXPECT_EQ(m.warmup_runs, 5);
  EXPECT_EQ(m.runs_s.size(), 12u);
  EXPECT_EQ(runs, 17);
  EXPECT_EQ(checks, 2);  // the first warm-up run and the last measured one
  EXPECT_EQ(poisons, 2);
  EXPECT_EQ(log.host_runs_s.size(), 12u);
  // Unchecked, the run that reaches the time is the last.
  runs = 0;
  RunLog unchecked;
  EXPECT_EQ(run_measurement(h, cfg, false, unchecked).runs_s.size(), 11u);
  // max_runs bounds each phase; the max_runs-th measured run is the last, and checked.
  cfg.max_runs = 4;
  checks = 0;
  RunLog capped;
  const Measurement c = run_measurement(h, cfg, true, capped);
  EXPECT_EQ(c.warmup_runs, 4);
  EXPECT_EQ(c.runs_s.size(), 4u);
  EXPECT_EQ(checks, 2);
  // Long runs: the counts alone, as without the bounds.
  h.run = [&] { return RunTime{1.0, 1.0}; };
  cfg.max_runs = 1000;
  RunLog counted;
  const Measurement l = run_measurement(h, cfg, false, counted);
  EXPECT_EQ(l.warmup_runs, 1);
  EXPECT_EQ(l.runs_s.size(), 3u);
}

TEST(DeviceRunner, MismatchEndsTheMeasurementNamed) {
  int runs = 0;
  RunHooks h;
  h.run = [&] {
    ++runs;
    return RunTime{0.001, 0.001};
  };
  h.verify = [&](std::string* first) -> std::int64_t {
    if (runs < 4) return 0;  // the first check passes, the last fails
    *first = "rank 1: 7 mismatches";
    return 7;
  };
  RunLog log;
  const Measurement m = run_measurement(h, RunConfig{1, 3}, true, log);
  EXPECT_FALSE(m.ok);
  EXPECT_EQ(m.error, "verification_failed: 7 mismatching elements (rank 1: 7 mismatches)");
  EXPECT_EQ(m.runs_s.size(), 2u);  // the measured runs before the failing one
  EXPECT_EQ(log.mismatches, 7);
}

TEST(DeviceRunner, FailuresAreNamedAndOthersPropagate) {
  int runs = 0;
  RunHooks h;
  h.run = [&]() -> RunTime {
    if (++runs == 3) throw Failure("timeout", "run did not complete within 1 s");
    return RunTime{0.5, 0.5};
  };
  RunLog log;
  const Measurement m = run_measurement(h, RunConfig{1, 5}, true, log);
  EXPECT_FALSE(m.ok);
  EXPECT_EQ(m.error, "timeout: run did not complete within 1 s");
  EXPECT_EQ(m.runs_s.size(), 1u);
  h.run = []() -> RunTime { throw std::runtime_error("boom"); };
  EXPECT_THROW(run_measurement(h, RunConfig{0, 1}, false, log), std::runtime_error);
}

TEST(DeviceFailure, GuardedNamesEveryFailure) {
  PoisonState poison;
  EXPECT_TRUE(guarded(poison, 3, [] { return summarize_runs({1.0}, 3, false); }).ok);
  EXPECT_EQ(guarded(poison, 3, []() -> Measurement { throw Failure("out_of_memory", "hipMalloc"); }).error,
            "out_of_memory: hipMalloc");
  EXPECT_EQ(guarded(poison, 3, []() -> Measurement { throw std::bad_alloc(); }).error,
            "out_of_memory: host allocation failed");
  EXPECT_EQ(guarded(poison, 3, []() -> Measurement { throw std::logic_error("x"); }).error, "error: x");
  poison.poison("timeout: run did not complete");
  poison.poison("a later reason is not kept");
  bool ran = false;
  const Measurement m = guarded(poison, 3, [&] {
    ran = true;
    return Measurement{};
  });
  EXPECT_FALSE(ran);
  EXPECT_EQ(m.error, "device_unusable: timeout: run did not complete");
  EXPECT_EQ(m.warmup_runs, 3);
}

// ---- timing loop ----

struct FakeLane {
  int gpu = 0;
  int waited = 0, joined = 0;
};

// A vendor whose end events complete after `polls_to_end` polls (never when negative).
struct FakeVendor {
  std::vector<std::string> calls;
  std::vector<int> polls;
  int polls_to_end = 3;
  bool watch = false;
  int async_checks = 0;
  std::vector<double> elapsed;
  void check_usable() { calls.push_back("usable"); }
  void record_start(int g) { calls.push_back("start" + std::to_string(g)); }
  void wait_start(FakeLane& l) { ++l.waited; }
  void join(FakeLane& l) { ++l.joined; }
  void record_end(int g) { calls.push_back("end" + std::to_string(g)); }
  bool end_ready(int g) { return polls_to_end >= 0 && ++polls[static_cast<std::size_t>(g)] > polls_to_end; }
  bool watches_async() { return watch; }
  void check_async() { ++async_checks; }
  [[noreturn]] void timed_out(const std::string& why) { throw Failure("timeout", why); }
  double elapsed_s(int g) { return elapsed[static_cast<std::size_t>(g)]; }
};

TEST(DeviceTiming, OneRunRecordsWaitsLaunchesAndTakesTheSlowestGpu) {
  FakeVendor v;
  v.polls = {0, 0};
  v.elapsed = {0.002, 0.005};
  FakeLane a{0}, b{1};
  bool launched = false;
  const RunTime t = timed_run(v, std::vector<int>{0, 1}, std::vector<FakeLane*>{&a, &b}, [&] {
    EXPECT_EQ(a.waited, 1);  // lanes wait for the start before the launch
    EXPECT_EQ(a.joined, 0);
    launched = true;
  }, 10.0);
  EXPECT_TRUE(launched);
  EXPECT_EQ(a.joined, 1);
  EXPECT_EQ(b.joined, 1);
  EXPECT_EQ(v.calls, (std::vector<std::string>{"usable", "start0", "start1", "end0", "end1"}));
  EXPECT_DOUBLE_EQ(t.device_s, 0.005);
  EXPECT_GE(t.host_s, 0.0);
}

TEST(DeviceTiming, WatchdogNamesATimeoutAndChecksAsyncErrors) {
  FakeVendor v;
  v.polls = {0};
  v.polls_to_end = -1;  // never completes
  v.watch = true;
  v.elapsed = {0};
  FakeLane a{0};
  const std::string text = failure_text(
      [&] { timed_run(v, std::vector<int>{0}, std::vector<FakeLane*>{&a}, [] {}, 0.12); });
  EXPECT_EQ(text.rfind("timeout: run did not complete within 0.12", 0), 0u) << text;
  EXPECT_GE(v.async_checks, 1);  // every 50 ms while polling
}

// The same vendor with a blocking kernel (GatedVendor): holds, releases, checks the gate.
struct FakeGatedVendor : FakeVendor {
  bool gate = true;
  bool gate_gave_up = false;
  bool gated() { return gate; }
  void hold(int g) { calls.push_back("hold" + std::to_string(g)); }
  void release() { calls.push_back("release"); }
  void check_gate() {
    calls.push_back("check_gate");
    if (gate_gave_up) throw Failure("gate_timeout", "the blocking kernel gave up");
  }
};
static_assert(GatedVendor<FakeGatedVendor>);
static_assert(!GatedVendor<FakeVendor>);

TEST(DeviceTiming, AGatedRunHoldsEveryGpuBeforeItsStartAndReleasesThemAfterTheLastLaunch) {
  FakeGatedVendor v;
  v.polls = {0, 0};
  v.elapsed = {0.001, 0.003};
  FakeLane a{0}, b{1};
  const RunTime t = timed_run(v, std::vector<int>{0, 1}, std::vector<FakeLane*>{&a, &b}, [&] {
    v.calls.push_back("launch");
  }, 10.0);
  EXPECT_EQ(v.calls, (std::vector<std::string>{"usable", "hold0", "hold1", "start0", "start1", "launch", "end0",
                                               "end1", "release", "check_gate"}));
  EXPECT_DOUBLE_EQ(t.device_s, 0.003);

  FakeGatedVendor off;  // gated() false: the plain loop
  off.gate = false;
  off.polls = {0};
  off.elapsed = {0.001};
  timed_run(off, std::vector<int>{0}, std::vector<FakeLane*>{&a}, [] {}, 10.0);
  EXPECT_EQ(off.calls, (std::vector<std::string>{"usable", "start0", "end0"}));
}

TEST(DeviceTiming, AGateThatGaveUpFailsTheRunAndAThrowingLaunchStillReleases) {
  FakeGatedVendor v;
  v.polls = {0};
  v.elapsed = {0.001};
  v.gate_gave_up = true;
  FakeLane a{0};
  EXPECT_EQ(failure_text([&] { timed_run(v, std::vector<int>{0}, std::vector<FakeLane*>{&a}, [] {}, 10.0); }),
            "gate_timeout: the blocking kernel gave up");

  FakeGatedVendor w;
  w.polls = {0};
  w.elapsed = {0.001};
  EXPECT_EQ(failure_text([&] {
              timed_run(w, std::vector<int>{0}, std::vector<FakeLane*>{&a},
                        [] { throw Failure("cuda_error", "launch failed"); }, 10.0);
            }),
            "cuda_error: launch failed");
  EXPECT_EQ(w.calls, (std::vector<std::string>{"usable", "hold0", "start0", "release"}));
}

TEST(DeviceTiming, PollUntilExpires) {
  int polls = 0;
  poll_until([&] { return ++polls == 3; }, now_s() + 10, [] { throw Failure("timeout", "never"); });
  EXPECT_EQ(polls, 3);
  EXPECT_THROW(poll_until([] { return false; }, now_s() + 0.01, [] { throw Failure("timeout", "drain"); }), Failure);
}

// ---- collectives: plans, fills and checks ----

TEST(DeviceCollectivePlan, SizesFollowTheNcclTestsConvention) {
  const CollPlan ag = plan_collective(CollectiveKind::all_gather, 1000, 4);  // 500 elements gathered
  EXPECT_EQ(ag.chunk, 125u);
  EXPECT_EQ(ag.send_elems, 125u);
  EXPECT_EQ(ag.recv_elems, 500u);
  EXPECT_EQ(ag.size_bytes, 1000);
  const CollPlan rs = plan_collective(CollectiveKind::reduce_scatter, 1002, 4);  // rounded down
  EXPECT_EQ(rs.chunk, 125u);
  EXPECT_EQ(rs.send_elems, 500u);
  EXPECT_EQ(rs.recv_elems, 125u);
  EXPECT_EQ(rs.size_bytes, 1000);
  const CollPlan ar = plan_collective(CollectiveKind::all_reduce, 64, 8);
  EXPECT_EQ(ar.chunk, 32u);
  EXPECT_EQ(plan_collective(CollectiveKind::all_to_all, 64, 8).recv_elems, 32u);
  EXPECT_EQ(failure_text([] { plan_collective(CollectiveKind::all_gather, 14, 8); }),
            "unsupported: collective of 14 bytes is smaller than one bf16 element per rank");
  EXPECT_EQ(failure_text([] { plan_collective(CollectiveKind::all_gather, 64, 0); }),
            "unsupported: a collective needs at least one rank");
}

TEST(DeviceCopyPlan, EachPathsBuffersPiecesAndLanes) {
  // device_local: 1000 bytes = 500 elements, GPU 0 into itself on its work lane.
  const CopyPlan local = plan_copy(CopyPath::device_local, 1000, 1);
  EXPECT_EQ(local.piece_elems, 500u);
  EXPECT_EQ(local.src_gpus, std::vector<int>{0});
  EXPECT_EQ(local.dst_gpus, std::vector<int>{0});
  EXPECT_EQ(local.dst_elems, 500u);
  ASSERT_EQ(local.pieces.size(), 1u);
  EXPECT_EQ(local.pieces[0], (CopyPiece{0, 0, 0, 0, CopyLane{0, -1}}));
  EXPECT_EQ(local.timed_lanes, (std::vector<CopyLane>{CopyLane{0, -1}}));
  EXPECT_EQ(local.moved_bytes, 1000);
  // one_peer: GPU 0 into GPU 1 on GPU 0's lane to 1.
  const CopyPlan one = plan_copy(CopyPath::one_peer, 1000, 4);
  EXPECT_EQ(one.dst_gpus, std::vector<int>{1});
  EXPECT_EQ(one.pieces[0], (CopyPiece{0, 1, 0, 0, CopyLane{0, 1}}));
  EXPECT_EQ(one.timed_gpus, std::vector<int>{0});
  // all_peers on 3 GPUs, 1204 bytes = 602 elements: 301 to each of the 2 peers, into slot
  // `from` of the peer's 3-slot buffer; rounded down, 602 x 2 bytes moved per sender.
  const CopyPlan all = plan_copy(CopyPath::all_peers, 1205, 3);
  EXPECT_EQ(all.piece_elems, 301u);
  EXPECT_EQ(all.dst_elems, 903u);
  EXPECT_EQ(all.src_gpus, (std::vector<int>{0, 1, 2}));
  EXPECT_EQ(all.timed_gpus, (std::vector<int>{0, 1, 2}));
  ASSERT_EQ(all.pieces.size(), 6u);
  EXPECT_EQ(all.pieces[0], (CopyPiece{0, 1, 1, 0, CopyLane{0, 1}}));
  EXPECT_EQ(all.pieces[3], (CopyPiece{1, 2, 2, 301, CopyLane{1, 2}}));
  EXPECT_EQ(all.pieces[5], (CopyPiece{2, 1, 1, 602, CopyLane{2, 1}}));
  EXPECT_EQ(all.timed_lanes.size(), 6u);
  EXPECT_EQ(all.moved_bytes, 1204);
  EXPECT_EQ(failure_text([] { plan_copy(CopyPath::one_peer, 1000, 1); }),
            "unsupported: peer copies need at least 2 GPUs");
  EXPECT_EQ(failure_text([] { plan_copy(CopyPath::all_peers, 3, 4); }), "unsupported: copy size too small");
  EXPECT_EQ(failure_text([] { plan_copy(CopyPath::device_local, 0, 1); }), "unsupported: copy size too small");
}

// Host buffers of a collective, inputs filled as the backends fill them.
struct HostCollective {
  CollPlan plan;
  std::uint32_t epoch = 5;
  std::vector<std::vector<std::uint16_t>> send, recv;
  explicit HostCollective(const CollPlan& p) : plan(p) {
    for (int r = 0; r < p.ranks; ++r) {
      send.emplace_back(p.send_elems);
      recv.emplace_back(p.recv_elems, 0xFFFF);
      for (std::size_t i = 0; i < p.send_elems; ++i)
        send.back()[i] = fill_value(input_fill(p.kind), pattern::seed_for(kRoleCollective, r, epoch), i);
    }
  }
  // The check kernel's count of mismatches on every rank.
  std::size_t mismatches() const {
    std::size_t bad = 0;
    for (int r = 0; r < plan.ranks; ++r) {
      CheckArgs a;
      a.kind = check_kind(plan.kind);
      a.out = recv[static_cast<std::size_t>(r)].data();
      a.count = plan.chunk;
      a.ranks = plan.ranks;
      a.rank = r;
      a.role = kRoleCollective;
      a.epoch = epoch;
      EXPECT_EQ(check_elements(a), plan.recv_elems);
      for (std::size_t i = 0; i < check_elements(a); ++i) bad += a.out[i] != expected_value(a, i);
    }
    return bad;
  }
};

TEST(DeviceChecks, CopyEngineTransfersPassTheCollectiveChecks) {
  for (CollectiveKind kind : {CollectiveKind::all_gather, CollectiveKind::all_to_all})
    for (const char* variant : {"ce_push_peer", "ce_pull_peer_c3", "ce_push_peer_fixed"}) {
      HostCollective c(plan_collective(kind, 8 * 1000, 4));
      EXPECT_GT(c.mismatches(), 0u);  // nothing moved yet
      for (const validator::CeTransfer& t : validator::ce_transfers(kind, 4, c.plan.chunk * kElemBytes,
                                                                    validator::parse_ce_variant(variant)))
        std::memcpy(reinterpret_cast<char*>(c.recv[static_cast<std::size_t>(t.dst_rank)].data()) + t.dst_offset,
                    reinterpret_cast<const char*>(c.send[static_cast<std::size_t>(t.src_rank)].data()) + t.src_offset,
                    t.bytes);
      EXPECT_EQ(c.mismatches(), 0u) << to_string(kind) << " " << variant;
      // Rank 0's slot 1 from the wrong source (slot 2's bytes): every element of it fails.
      std::copy_n(c.recv[0].begin() + 2 * static_cast<std::ptrdiff_t>(c.plan.chunk), c.plan.chunk,
                  c.recv[0].begin() + static_cast<std::ptrdiff_t>(c.plan.chunk));
      EXPECT_EQ(c.mismatches(), c.plan.chunk);
    }
}

TEST(DeviceChecks, ReductionsPassTheirChecksExactly) {
  for (CollectiveKind kind : {CollectiveKind::reduce_scatter, CollectiveKind::all_reduce}) {
    HostCollective c(plan_collective(kind, 2 * 96, 8));
    for (int q = 0; q < 8; ++q)
      for (std::size_t e = 0; e < c.plan.recv_elems; ++e) {
        const std::size_t src = kind == CollectiveKind::reduce_scatter ? static_cast<std::size_t>(q) * c.plan.chunk + e : e;
        float sum = 0;
        for (int r = 0; r < 8; ++r) sum += static_cast<float>(pattern::bf16_to_double(c.send[static_cast<std::size_t>(r)][src]));
        std::uint32_t bits = 0;
        std::memcpy(&bits, &sum, sizeof bits);
        c.recv[static_cast<std::size_t>(q)][e] = static_cast<std::uint16_t>(bits >> 16);  // exact: sums <= 248
      }
    EXPECT_EQ(c.mismatches(), 0u) << to_string(kind);
    c.recv[3][1] = static_cast<std::uint16_t>(c.recv[3][1] + 1);
    EXPECT_EQ(c.mismatches(), 1u);
  }
}

TEST(DeviceChecks, GemmSamplesMatchAHostGemmAndCatchAWrongElement) {
  for (DType t : {DType::bf16, DType::fp16}) {
    Gemm g;
    g.m = 37;
    g.n = 23;
    g.k = 300;
    g.dtype = t;
    const std::uint64_t sa = pattern::seed_for(11, 0, 9), sb = pattern::seed_for(12, 0, 9);
    const GemmCheck check(g, 20, 9, sa, sb);
    ASSERT_EQ(check.size(), 20u);
    EXPECT_EQ(check.indices()[0], 0);                    // corner (0, 0)
    EXPECT_EQ(check.indices()[1], 22 * 37 + 36);         // corner (m-1, n-1), column-major
    // D in float, rounded to the output type as a GPU's fp32 accumulate and bf16/fp16 store does.
    std::vector<std::uint16_t> got;
    for (std::int64_t idx : check.indices()) {
      const std::int64_t i = idx % g.m, j = idx / g.m;
      float acc = 0;
      for (std::int64_t l = 0; l < g.k; ++l)
        acc += static_cast<float>(decode(t, operand_bits(t, sa, static_cast<std::uint64_t>(i * g.k + l))) *
                                  decode(t, operand_bits(t, sb, static_cast<std::uint64_t>(j * g.k + l))));
      std::uint16_t bits = 0;
      if (t == DType::bf16) {
        std::uint32_t f = 0;
        std::memcpy(&f, &acc, sizeof f);
        bits = static_cast<std::uint16_t>((f + 0x8000u) >> 16);
      } else {
        bits = 0;  // fp16: search the nearest value (small exact decoder, no half type on the host)
        double best = 1e300;
        for (std::uint32_t b = 0; b < 0x10000; ++b) {
          const double v = decode(t, static_cast<std::uint16_t>(b));
          if (std::isfinite(v) && std::fabs(v - acc) < best) {
            best = std::fabs(v - acc);
            bits = static_cast<std::uint16_t>(b);
          }
        }
      }
      got.push_back(bits);
    }
    std::string first;
    EXPECT_EQ(check.compare(got, 0, &first), 0) << first;
    got[5] = operand_bits(t, sa, 1);  // a wrong value
    EXPECT_EQ(check.compare(got, 1, &first), 1);
    EXPECT_EQ(first.rfind("GPU 1 D(", 0), 0u) << first;
    got.pop_back();
    EXPECT_THROW(check.compare(got, 0, nullptr), InputError);
  }
}

// ---- where a pair runs ----

TEST(DevicePairPlacement, EveryStrategyFamilyHasItsStreams) {
  ExecutionPlan serial;
  serial.order = LaunchOrder::serial;
  PairPlacement p = place_pair(serial, true);
  EXPECT_EQ(p.gemm, StreamRole::work);
  EXPECT_EQ(p.collective, StreamRole::work);

  ExecutionPlan sp;
  sp.order = LaunchOrder::collective_first;
  p = place_pair(sp, true);
  EXPECT_TRUE(p.collective_first);
  EXPECT_EQ(p.collective, StreamRole::collective);
  EXPECT_EQ(p.partition_cus, 0);

  ExecutionPlan rp;
  rp.order = LaunchOrder::gemm_first;
  rp.collective_cus = rp.gemm_cus_removed = 32;
  p = place_pair(rp, true);
  EXPECT_FALSE(p.collective_first);
  EXPECT_EQ(p.gemm, StreamRole::partition_rest);
  EXPECT_EQ(p.collective, StreamRole::partition_group);
  EXPECT_EQ(p.partition_cus, 32);
  EXPECT_EQ(p.collective_budget, 32);
  EXPECT_EQ(place_pair(rp, false).collective, StreamRole::collective);  // budget only
  EXPECT_EQ(place_pair(rp, false).collective_budget, 32);

  ExecutionPlan dma_rp = rp;
  dma_rp.transport = Transport::dma;
  dma_rp.collective_cus = 0;
  dma_rp.gemm_cus_removed = 8;
  p = place_pair(dma_rp, true);
  EXPECT_EQ(p.gemm, StreamRole::partition_rest);
  EXPECT_EQ(p.collective, StreamRole::copy_engines);
  EXPECT_EQ(p.collective_budget, 0);

  ExecutionPlan dma;
  dma.order = LaunchOrder::gemm_first;
  dma.transport = Transport::dma;
  p = place_pair(dma, true);
  EXPECT_EQ(p.gemm, StreamRole::work);
  EXPECT_EQ(p.collective, StreamRole::copy_engines);
}

// ---- options ----

TEST(DeviceOptions, ItemsAndValuesAreNamedWhenWrong) {
  const auto items = option_items("2,,warmup=1,fault=oom@3", "hip");
  ASSERT_EQ(items.size(), 3u);
  EXPECT_EQ(items[0], (std::pair<std::string, std::string>{"gpus", "2"}));
  EXPECT_EQ(items[2].second, "oom@3");
  EXPECT_EQ(failure_text([] { option_items("warmup=1,3", "hip"); }), "hip backend: unexpected '3' (want key=value)");
  EXPECT_TRUE(parse_bool("on", "verify", "hip"));
  EXPECT_FALSE(parse_bool("0", "verify", "hip"));
  EXPECT_EQ(failure_text([] { parse_bool("maybe", "verify", "hip"); }),
            "hip backend option verify: expected 0/1, got 'maybe'");
  EXPECT_EQ(parse_int("12", "runs", 1, "cuda"), 12);
  EXPECT_EQ(failure_text([] { parse_int("0", "runs", 1, "cuda"); }),
            "cuda backend option runs: expected an integer >= 1, got '0'");
  EXPECT_THROW(parse_int("3x", "runs", 1, "cuda"), InputError);
  const FaultSpec f = parse_fault("timeout@4", {"oom", "timeout"}, "hip");
  EXPECT_EQ(f.name, "timeout");
  EXPECT_EQ(f.at, 4);
  EXPECT_EQ(failure_text([] { parse_fault("drop_piece@2", {"oom", "timeout"}, "hip"); }),
            "hip backend option fault: oom@N or timeout@N (the N-th measurement), got 'drop_piece@2'");
  EXPECT_EQ(failure_text([] { parse_fault("oom", {"oom", "timeout", "drop_piece"}, "cuda"); }),
            "cuda backend option fault: oom@N, timeout@N or drop_piece@N (the N-th measurement), got 'oom'");
}

TEST(DeviceOptions, PlacementPadsAreWholePagesInTheirRangeAndVaryByMeasurementAndGpu) {
  constexpr std::size_t kPage = std::size_t{2} << 20;
  EXPECT_EQ(placement_pad_bytes(7, 0, 0), 0u);
  EXPECT_EQ(placement_pad_bytes(7, 1, -3), 0u);
  std::set<std::size_t> seen;
  for (std::uint64_t epoch = 1; epoch <= 200; ++epoch)
    for (int gpu = 0; gpu < 2; ++gpu) {
      const std::size_t b = placement_pad_bytes(epoch, gpu, 64);
      EXPECT_EQ(b % kPage, 0u);
      EXPECT_LE(b, std::size_t{64} << 20);
      EXPECT_EQ(b, placement_pad_bytes(epoch, gpu, 64));  // a rerun draws the same
      seen.insert(b);
    }
  EXPECT_EQ(seen.size(), 33u);  // every page count 0 .. 32 is drawn in 400 draws
  EXPECT_NE(placement_pad_bytes(5, 0, 1024), placement_pad_bytes(5, 1, 1024));
  EXPECT_LE(placement_pad_bytes(9, 0, 1), 0u);  // less than a page: no pad
}

}  // namespace
}  // namespace c3::device

namespace c3::device {
namespace {

// ---- CU masks (the hip backend's partitions) ----

TEST(DeviceCuMasks, GroupsRoundUpToTheGranuleAndMasksAreDisjoint) {
  const CuPartition p = cu_partition(304, 12, 8);  // MI300X: 8 XCDs
  EXPECT_EQ(p.requested, 12);
  EXPECT_EQ(p.group, 16);
  EXPECT_EQ(p.rest, 288);
  ASSERT_EQ(p.group_mask.size(), 10u);  // 304 bits
  EXPECT_EQ(p.group_mask[0], 0xFFFFu);
  EXPECT_EQ(p.rest_mask[0], 0xFFFF0000u);
  EXPECT_EQ(p.rest_mask[9], 0xFFFFu);  // bits 288..303
  EXPECT_EQ(mask_count(p.group_mask), 16);
  EXPECT_EQ(mask_count(p.rest_mask), 288);
  for (std::size_t w = 0; w < p.group_mask.size(); ++w) EXPECT_EQ(p.group_mask[w] & p.rest_mask[w], 0u);
  EXPECT_EQ(cu_partition(304, 8, 8).group, 8);  // the paper's minimum
  EXPECT_EQ(cu_partition(304, 296, 8).rest, 8);
  EXPECT_EQ(cu_partition(120, 5, 1).group, 5);
  EXPECT_EQ(failure_text([] { cu_partition(304, 300, 8); }),
            "unsupported: 300 CUs round up to 304 (a multiple of 8), leaving none of 304 CUs to the rest");
  EXPECT_EQ(failure_text([] { cu_partition(304, 0, 8); }), "unsupported: cannot take 0 of 304 CUs into a partition");
  EXPECT_THROW(cu_partition(304, 8, 0), Failure);
}

}  // namespace
}  // namespace c3::device
