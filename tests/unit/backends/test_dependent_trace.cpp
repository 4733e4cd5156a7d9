// DependentRunner::trace (backends/device/dependent_runner_impl.hpp) over a fake vendor whose
// streams keep a clock: a GEMM job advances its stream by its rows, a step's collective
// joins the ranks' streams and advances them, a copy advances its copy-engine stream, an
// event records its stream's clock and a wait moves the stream to it. The marks must be the
// jobs' ends on that clock, from each stream's start; on a GPU the device tests check the same
// on real events.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include "c3/errors.hpp"
#include "c3/strategy.hpp"
#include "backends/device/dependent_runner_impl.hpp"
#include "support/dependent_pair.hpp"

namespace c3::device {
namespace {

struct FakeLane {
  mutable double clock_us = 0;
};

struct FakeGpu {
  int device = 0;
  FakeLane work, coll;
  std::vector<FakeLane> peer;  // copy-engine streams, own index included
};

struct FakePartition {};

struct FakeBuffer {
  std::vector<std::uint16_t> mem;
  FakeBuffer() = default;
  FakeBuffer(int, std::size_t bytes) : mem((bytes + 1) / 2) {}
  template <class T>
  T* as() {
    return reinterpret_cast<T*>(mem.data());
  }
  void* get() const { return const_cast<std::uint16_t*>(mem.data()); }
  std::size_t bytes() const { return mem.size() * 2; }
};

struct FakeEvent {
  double t_us = 0;
};

// A GEMM job takes 10 us per 1024 rows (all pieces of a batched call).
struct FakeGemm {
  using Piece = RowPiece;
  FakeGemm(int, DType, std::int64_t, std::int64_t, const std::uint16_t*) {}
  void prepare(const Piece&) {}
  void launch(const Piece& p, const FakeLane& lane) { lane.clock_us += 10.0 * static_cast<double>(p.rows * p.count) / 1024; }
  GemmKernel kernel(const Piece&) { return {}; }
  std::string describe(const Piece&) { return "fake"; }
};

struct FakeRuntime {
  std::vector<FakeGpu> gpus;
  FakePartition part;
  explicit FakeRuntime(int n) : gpus(static_cast<std::size_t>(n)) {
    for (int r = 0; r < n; ++r) {
      gpus[static_cast<std::size_t>(r)].device = r;
      gpus[static_cast<std::size_t>(r)].peer.resize(static_cast<std::size_t>(n));
    }
  }
  FakeGpu& gpu(int r) { return gpus.at(static_cast<std::size_t>(r)); }
  FakePartition& partition(int, int) { return part; }
  std::vector<int> comms(int ranks, int) { return std::vector<int>(static_cast<std::size_t>(ranks), 0); }
  // Every stream idles until the slowest is done.
  void sync_all(double) {
    double t = 0;
    for_each_lane([&](FakeLane& l) { t = std::max(t, l.clock_us); });
    for_each_lane([&](FakeLane& l) { l.clock_us = t; });
  }
  template <class F>
  void for_each_lane(F f) {
    for (FakeGpu& g : gpus) {
      f(g.work);
      f(g.coll);
      for (FakeLane& p : g.peer) f(p);
    }
  }
};

struct FakeVendor {
  using Runtime = FakeRuntime;
  using Gpu = FakeGpu;
  using Lane = FakeLane;
  using Partition = FakePartition;
  using Buffer = FakeBuffer;
  using Gemm = FakeGemm;
  using Event = FakeEvent*;
  using Comm = int;
  struct Calls {
    static void refuse(const DependentLayout&) {}
    static FakeLane* lane_of(StreamRole role, bool, FakeGpu& g, FakePartition*) {
      if (role == StreamRole::copy_engines) return nullptr;
      return role == StreamRole::collective || role == StreamRole::partition_group ? &g.coll : &g.work;
    }
    static int compute_units(const FakeLane&) { return 132; }
    static std::string ccl_name() { return "fake"; }
    static void set_device(int) {}
    static void nan_fill(void*, std::size_t, const FakeLane&) {}
    static void fill(std::uint16_t*, std::size_t, FillKind, std::uint64_t, std::uint64_t, const FakeLane&) {}
    static void to_device(void*, const void*, std::size_t) {}
    static FakeEvent* make_event(int, const FakeLane*) { return new FakeEvent; }
    static FakeEvent* make_timing_event(int, const FakeLane*) { return new FakeEvent; }
    static void record(FakeEvent* e, const FakeLane& lane, int) { e->t_us = lane.clock_us; }
    static void wait(const FakeLane& lane, FakeEvent* e) { lane.clock_us = std::max(lane.clock_us, e->t_us); }
    static void destroy_event(FakeEvent* e) noexcept { delete e; }
    static double elapsed_s(FakeEvent* start, FakeEvent* end) { return (end->t_us - start->t_us) * 1e-6; }
    static std::vector<FakeLane*> ce_lanes(FakeRuntime& rt, int) {
      std::vector<FakeLane*> out;
      for (FakeGpu& g : rt.gpus)
        for (FakeLane& p : g.peer) out.push_back(&p);
      return out;
    }
    // A copy takes 3 us on its stream.
    static void ce_copy(void*, int, const void*, int, std::size_t, const FakeLane& lane, int, const validator::CeOptions&) {
      lane.clock_us += 3;
    }
    // A step's collective starts when every rank's stream is ready and takes 5 us.
    static void ccl(const std::vector<CclCall>&, DType, const std::vector<int>&, const std::vector<FakeLane*>& lanes) {
      double t = 0;
      for (const FakeLane* l : lanes) t = std::max(t, l->clock_us);
      for (FakeLane* l : lanes) l->clock_us = t + 5;
    }
  };
};

C3Pair dependent_pair(Dependency dependency, CollectiveKind kind) {
  return test::dependent_pair(Gemm{2048, 256, 256, DType::bf16}, dependency, kind);
}

std::vector<TimelineMark> trace(const C3Pair& pair, const char* strategy, int runs) {
  FakeRuntime rt(2);
  DependentOptions options;
  options.check_samples = 4;
  DependentRunner<FakeVendor> run(rt, pair, strategies::plan_of(parse_strategy(strategy)), options,
                                  DependentSupport{2, true, "", false, "nccl_ce"});
  run.launch();  // a timed run: no marks
  return run.trace(runs, 1.0);
}

std::vector<double> ends_us(const std::vector<TimelineMark>& marks, const std::string& stream, int rank) {
  std::vector<double> out;
  for (const TimelineMark& m : marks)
    if (m.stream == stream && m.rank == rank) out.push_back(m.end_s * 1e6);
  return out;
}

TEST(DependentTrace, ReduceScatterStepsFollowTheirGemmJobs) {
  // chunked:4:cu on 2 ranks: 2 steps; each GEMM job 512 rows of both ranks' blocks (10 us),
  // each step after its job, 5 us.
  const std::vector<TimelineMark> marks =
      trace(dependent_pair(Dependency::gemm_feeds_collective, CollectiveKind::reduce_scatter), "chunked:4:cu", 3);
  ASSERT_EQ(marks.size(), 8u);
  for (int r = 0; r < 2; ++r) {
    const std::vector<double> g = ends_us(marks, "gemm", r), c = ends_us(marks, "collective", r);
    ASSERT_EQ(g.size(), 2u);
    ASSERT_EQ(c.size(), 2u);
    EXPECT_NEAR(g[0], 10, 1e-9);
    EXPECT_NEAR(g[1], 20, 1e-9);
    EXPECT_NEAR(c[0], 15, 1e-9);
    EXPECT_NEAR(c[1], 25, 1e-9);
  }
  for (const TimelineMark& m : marks) EXPECT_EQ(m.peer, -1);
}

TEST(DependentTrace, CopiesAreMarkedOnTheirIssuersStreamsLocalOnesToo) {
  // An all-to-all combine on copy engines: every step copies each rank's piece to every rank,
  // its own included (a local copy on the own index's stream, which has its start event).
  const std::vector<TimelineMark> marks =
      trace(dependent_pair(Dependency::gemm_feeds_collective, CollectiveKind::all_to_all), "chunked:4:dma", 2);
  int copies = 0, local = 0;
  for (const TimelineMark& m : marks) {
    if (m.stream != "copy") continue;
    ++copies;
    local += m.peer == m.rank;
    EXPECT_GE(m.peer, 0);
    EXPECT_GT(m.end_s, 0);
  }
  EXPECT_EQ(ends_us(marks, "gemm", 0).size(), 2u);
  EXPECT_GE(copies, 4);  // 2 steps x 2 ordered pairs of ranks
  EXPECT_GT(local, 0);
}

TEST(DependentTrace, SerialIsOneStream) {
  // All-gather then the GEMM of all 2048 rows (20 us) on the one stream, after the 5 us gather.
  const std::vector<TimelineMark> marks =
      trace(dependent_pair(Dependency::collective_feeds_gemm, CollectiveKind::all_gather), "serial", 1);
  ASSERT_EQ(marks.size(), 4u);
  EXPECT_NEAR(ends_us(marks, "collective", 0).at(0), 5, 1e-9);
  EXPECT_NEAR(ends_us(marks, "gemm", 1).at(0), 25, 1e-9);
}

}  // namespace
}  // namespace c3::device
