// model.md §6: what a profile covers (model::domain) and where a query leaves it
// (model::domain_warnings; Advisor::advise refuses or warns).
#include <gtest/gtest.h>

#include "c3/advisor.hpp"
#include "c3/errors.hpp"
#include "c3/io.hpp"
#include "c3/model.hpp"
#include "support/toy_profile.hpp"

namespace c3 {
namespace {

C3Pair pair_of(Gemm g, CollectiveKind kind, std::int64_t size, int ranks) {
  return C3Pair{"", g, {kind, size, ranks}, {}, ""};
}

TEST(Domain, ARankCountBeyondTheNodeIsAnError) {
  const HardwareProfile hw = io::resolve_profile("mi300x");
  const Advisor advisor(hw);
  const Gemm g{8192, 8192, 8192, DType::bf16};
  EXPECT_NO_THROW(advisor.advise(pair_of(g, CollectiveKind::all_gather, 1 << 20, 8)));
  try {
    advisor.advise(pair_of(g, CollectiveKind::all_gather, 1 << 20, 1000000));
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("exceed the 8 GPUs"), std::string::npos) << e.what();
  }
  EXPECT_THROW(advisor.heuristic("cu_split", pair_of(g, CollectiveKind::all_gather, 1 << 20, 9)), InputError);
}

TEST(Domain, InsideEverythingMeasuredThereIsNoWarning) {
  const HardwareProfile hw = io::resolve_profile("h200x2");
  const Gemm g{8192, 8192, 8192, DType::bf16};
  EXPECT_TRUE(model::domain_warnings(hw, pair_of(g, CollectiveKind::all_gather, 1LL << 30, 2)).empty());
}

TEST(Domain, ExtrapolationIsNamed) {
  const HardwareProfile hw = io::resolve_profile("h200x2");
  const Gemm g{8192, 8192, 8192, DType::bf16};
  const auto w = model::domain_warnings(hw, pair_of(g, CollectiveKind::all_gather, 16LL << 30, 2));
  ASSERT_FALSE(w.empty());
  EXPECT_NE(w.front().find("outside the measured curve"), std::string::npos) << w.front();
  const Advice a = Advisor(hw).advise(pair_of(g, CollectiveKind::all_gather, 16LL << 30, 2));
  EXPECT_EQ(a.warnings, w);
  const auto tiny = model::domain_warnings(hw, pair_of({1, 1, 1, DType::bf16}, CollectiveKind::all_gather, 1LL << 30, 2));
  ASSERT_FALSE(tiny.empty());
  EXPECT_NE(tiny.front().find("outside the measured efficiency curve"), std::string::npos) << tiny.front();
}

TEST(Domain, TheProfileSaysWhatItCovers) {
  const model::Domain d = model::domain(io::resolve_profile("h200x2"));
  EXPECT_EQ(d.gpus_per_node, 2);
  EXPECT_EQ(d.nodes, 1);
  EXPECT_FALSE(d.dtypes.empty());
  ASSERT_FALSE(d.measured.empty());
  for (const model::MeasuredRange& r : d.measured) EXPECT_LT(r.lo, r.hi) << r.what;
  EXPECT_TRUE(model::domain(io::resolve_profile("mi300x")).measured.empty());  // nothing measured
}

// Every embedded profile has a latency floor per kernel kind: no GEMM or collective is
// predicted faster than it.
TEST(Domain, EveryEmbeddedProfileHasALatencyFloorPerKernelKind) {
  for (const std::string& name : io::embedded_profile_names()) {
    const HardwareProfile hw = io::resolve_profile(name);
    EXPECT_GT(hw.gemm_latency_s, 0) << name;
    EXPECT_GE(model::gemm_time_s(hw, {1, 1, 1, DType::bf16}), hw.gemm_latency_s) << name;
    for (const auto& [kind, transports] : hw.collectives)
      for (const auto& [transport, p] : transports) {
        EXPECT_GT(p.latency_s, 0) << name << " " << to_string(kind) << " " << to_string(transport);
        if (transport == Transport::dma && !dma_capable(kind)) continue;
        EXPECT_GT(model::collective_time_s(hw, {kind, 16, std::min(2, hw.gpu_count)}, transport), 1e-7) << name;
      }
  }
}

TEST(Domain, SizesAreWholeBytes) {
  EXPECT_THROW(parse_size_bytes("0.5"), InputError);
  EXPECT_THROW(parse_size_bytes("1.5B"), InputError);
  EXPECT_EQ(parse_size_bytes("1.5KiB"), 1536);
  EXPECT_EQ(parse_size_bytes("4096"), 4096);
  EXPECT_EQ(parse_size_bytes("4096.0"), 4096);
}

}  // namespace
}  // namespace c3
