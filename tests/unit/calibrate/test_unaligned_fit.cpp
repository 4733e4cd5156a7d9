// calibrate --unaligned-gemms (calibrate/unaligned_fit.hpp, docs/model.md §1.1): which
// records count, the factors per alignment, and what is left unfitted.
#include <gtest/gtest.h>

#include "c3/model.hpp"
#include "calibrate/unaligned_fit.hpp"
#include "support/gemm_record.hpp"
#include "support/toy_profile.hpp"

namespace c3::validator {
namespace {

using testing::gemm_record;

// The toy profile (peak 1e15, HBM 1e12, both efficiencies 0.5) with a 10 us GEMM latency.
HardwareProfile profile() {
  HardwareProfile hw = testing::toy_profile();
  hw.gemm_latency_s = 10e-6;
  return hw;
}

TEST(UnalignedFit, MediansPerAlignmentFromTheAlignedRoofline) {
  const HardwareProfile hw = profile();
  const auto measured_at = [&](const Gemm& g, double factor) {
    const model::GemmRoofline r = model::gemm_aligned_roofline_s(hw, g);
    return hw.gemm_latency_s + std::max(r.compute_s, r.memory_s) / factor;
  };
  const Gemm c1{10001, 10000, 10000, DType::bf16}, c2{10003, 10000, 10000, DType::bf16},
      c3{10000, 10000, 10001, DType::bf16};                           // compute-bound, 2 bytes
  const Gemm c4{10002, 10000, 10000, DType::bf16};                     // compute-bound, 4 bytes: one only
  const Gemm m1{2, 100000, 20000, DType::bf16}, m2{6, 100000, 20000, DType::bf16};  // memory-bound, 4 bytes
  RawMeasurements file;
  file.records = {gemm_record(c1, measured_at(c1, 0.10)), gemm_record(c2, measured_at(c2, 0.20)),
                  gemm_record(c3, measured_at(c3, 0.12)), gemm_record(c4, measured_at(c4, 0.3)),
                  gemm_record(m1, measured_at(m1, 0.7)),  gemm_record(m2, measured_at(m2, 0.8))};
  // Left out: partitions, failures, unverified, aligned GEMMs; a tiny GEMM (its roofline
  // under the latency) counts for the latency only, and alone at its alignment gives no point.
  RawMeasurements other;
  other.records = {gemm_record(c1, 1.0, 8), gemm_record(c1, 1.0, 0, false), gemm_record(c2, 1.0, 0, true, false),
                   gemm_record(Gemm{10000, 10000, 10000, DType::bf16}, 1.0),
                   gemm_record(Gemm{9, 16, 16, DType::bf16}, 15e-6)};
  std::vector<std::string> notes;
  const Provenance source{SourceKind::measured, "u.json"};
  const UnalignedFit fit = fit_unaligned_gemms(hw, {file, other}, source, notes);
  ASSERT_EQ(fit.compute.x, std::vector<double>{2});
  EXPECT_NEAR(fit.compute.y[0], 0.12, 1e-9);  // the median of 0.10, 0.12, 0.20
  EXPECT_EQ(fit.compute.name, "gemm_unaligned_compute");
  EXPECT_EQ(fit.compute.provenance.ref, "u.json");
  ASSERT_EQ(fit.memory.x, std::vector<double>{4});
  EXPECT_NEAR(fit.memory.y[0], 0.75, 1e-9);
  EXPECT_TRUE(fit.latency_s.x.empty());
  ASSERT_EQ(notes.size(), 3u);
  EXPECT_NE(notes[0].find("3 at 2 B, 1 at 4 B"), std::string::npos) << notes[0];
  EXPECT_NE(notes[2].find("gemm_unaligned_latency_s: not fitted (1 at 2 B"), std::string::npos) << notes[2];
}

TEST(UnalignedFit, TinyGemmsGiveTheKernelsFixedTimeAndTheThroughputFitTakesItOff) {
  const HardwareProfile hw = profile();
  // Tiny 2-byte GEMMs (rooflines well under the 10 us latency) at L + roofline + 5, 6, 9 us.
  const Gemm t1{9, 64, 64, DType::bf16}, t2{11, 64, 64, DType::bf16}, t3{13, 64, 64, DType::bf16};
  const auto tiny = [&](const Gemm& g, double extra_s) {
    const model::GemmRoofline r = model::gemm_aligned_roofline_s(hw, g);
    return gemm_record(g, hw.gemm_latency_s + std::max(r.compute_s, r.memory_s) + extra_s);
  };
  // Two long 2-byte GEMMs at u_c 0.2 with the same 6 us added: the second pass takes it off.
  const Gemm c1{10001, 10000, 10000, DType::bf16}, c2{10003, 10000, 10000, DType::bf16};
  const auto long_one = [&](const Gemm& g) {
    return gemm_record(g, hw.gemm_latency_s + 6e-6 + model::gemm_aligned_roofline_s(hw, g).compute_s / 0.2);
  };
  RawMeasurements file;
  file.records = {tiny(t1, 5e-6), tiny(t2, 6e-6), tiny(t3, 9e-6), long_one(c1), long_one(c2)};
  std::vector<std::string> notes;
  const UnalignedFit fit = fit_unaligned_gemms(hw, {file}, Provenance{SourceKind::measured, "u.json"}, notes);
  ASSERT_EQ(fit.latency_s.x, std::vector<double>{2});
  // the tiny ones' compute is priced at u_c = 0.2 too: a few ns on top of their aligned roofline
  EXPECT_NEAR(fit.latency_s.y[0], 6e-6, 1e-7);
  ASSERT_EQ(fit.compute.x, std::vector<double>{2});
  EXPECT_NEAR(fit.compute.y[0], 0.2, 1e-3);
  EXPECT_EQ(fit.latency_s.name, "gemm_unaligned_latency_s");
}

TEST(UnalignedFit, NothingToFitLeavesBothTablesEmpty) {
  const HardwareProfile hw = profile();
  RawMeasurements file;
  file.records = {gemm_record(Gemm{10001, 10000, 10000, DType::bf16}, 0.5)};  // one: too few
  std::vector<std::string> notes;
  const UnalignedFit fit = fit_unaligned_gemms(hw, {file}, Provenance{SourceKind::measured, "u.json"}, notes);
  EXPECT_TRUE(fit.compute.x.empty());
  EXPECT_TRUE(fit.memory.x.empty());
  ASSERT_EQ(notes.size(), 3u);
  EXPECT_NE(notes[0].find("gemm_unaligned_compute: not fitted (1 at 2 B"), std::string::npos) << notes[0];
  EXPECT_NE(notes[1].find("gemm_unaligned_memory: not fitted (no GEMM"), std::string::npos) << notes[1];
  // a held factor is never above 1: a GEMM faster than its aligned roofline gives 1
  file.records.push_back(gemm_record(Gemm{10003, 10000, 10000, DType::bf16}, 1e-3));
  notes.clear();
  const UnalignedFit held = fit_unaligned_gemms(hw, {file}, Provenance{SourceKind::measured, "u.json"}, notes);
  ASSERT_EQ(held.compute.y.size(), 1u);
  EXPECT_LE(held.compute.y[0], 1.0);
}

}  // namespace
}  // namespace c3::validator
