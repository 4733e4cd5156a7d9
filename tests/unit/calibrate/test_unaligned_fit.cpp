// calibrate --unaligned-gemms (calibrate/unaligned_fit.hpp, docs/model.md §1.1): which
// records count, the factors per alignment, and what is left unfitted.
#include <gtest/gtest.h>

#include "c3/model.hpp"
#include "calibrate/unaligned_fit.hpp"
#include "support/toy_profile.hpp"

namespace c3::validator {
namespace {

Record gemm_record(const Gemm& gemm, double median_s, int cus_removed = 0, bool ok = true, bool verified = true) {
  Measurement m;
  m.ok = ok;
  m.verified = verified;
  m.median_s = m.min_s = m.max_s = median_s;
  m.runs_s = {median_s};
  return Record{GemmQuery{gemm, cus_removed}, m};
}

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
  // Left out: partitions, failures, unverified, aligned GEMMs, one under twice the latency.
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
  ASSERT_EQ(notes.size(), 2u);
  EXPECT_NE(notes[0].find("3 at 2 B, 1 at 4 B"), std::string::npos) << notes[0];
}

TEST(UnalignedFit, NothingToFitLeavesBothTablesEmpty) {
  const HardwareProfile hw = profile();
  RawMeasurements file;
  file.records = {gemm_record(Gemm{10001, 10000, 10000, DType::bf16}, 0.5)};  // one: too few
  std::vector<std::string> notes;
  const UnalignedFit fit = fit_unaligned_gemms(hw, {file}, Provenance{SourceKind::measured, "u.json"}, notes);
  EXPECT_TRUE(fit.compute.x.empty());
  EXPECT_TRUE(fit.memory.x.empty());
  ASSERT_EQ(notes.size(), 2u);
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
