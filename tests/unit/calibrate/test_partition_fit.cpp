// calibrate --collective-partitions (calibrate/partition_fit.hpp, docs/model.md §3): which
// records count, the ratios per file, the rows by size, and what is left unfitted.
#include <gtest/gtest.h>

#include <cmath>

#include "backends/sim/sim.hpp"
#include "c3/errors.hpp"
#include "c3/io.hpp"
#include "c3/measure.hpp"
#include "c3/strategy.hpp"
#include "calibrate/calibrate.hpp"
#include "calibrate/partition_fit.hpp"
#include "support/sim_calibration.hpp"
#include "support/temp_dir.hpp"

namespace c3::validator {
namespace {

Record collective_record(CollectiveKind kind, std::int64_t size, int cus, double median_s, int ranks = 2,
                         Transport transport = Transport::cu, bool ok = true, bool verified = true) {
  Measurement m;
  m.ok = ok;
  m.verified = verified;
  m.median_s = m.min_s = m.max_s = median_s;
  m.runs_s = {median_s};
  return Record{CollectiveQuery{Collective{kind, size, ranks}, transport, cus}, m};
}

// A size measured on the default CUs (1 ms) and on 8 and 16 CUs at the given slowdowns.
void add_size(RawMeasurements& file, CollectiveKind kind, std::int64_t size, double at8, double at16) {
  file.records.push_back(collective_record(kind, size, 0, 1e-3));
  file.records.push_back(collective_record(kind, size, 8, at8 * 1e-3));
  file.records.push_back(collective_record(kind, size, 16, at16 * 1e-3));
}

TEST(PartitionFit, RowsOfMediansBySizeFromRatiosWithinEachFile) {
  RawMeasurements a, b;
  // Three sizes within a factor of 4: one row; three more from 2^24: a second; one left at
  // the end joins it.
  add_size(a, CollectiveKind::all_gather, 1 << 16, 1.0, 1.0);
  add_size(a, CollectiveKind::all_gather, 1 << 17, 1.2, 1.1);
  add_size(a, CollectiveKind::all_gather, 1 << 18, 1.1, 1.0);
  add_size(a, CollectiveKind::all_gather, 1 << 24, 2.0, 1.2);
  add_size(a, CollectiveKind::all_gather, 1 << 25, 2.2, 1.3);
  add_size(a, CollectiveKind::all_gather, 1 << 26, 2.4, 1.4);
  add_size(a, CollectiveKind::all_gather, 1 << 30, 3.0, 1.5);
  // The same size in another file, timed slower on every CU count: its ratio is the file's
  // own (2.0 / 1.0), and the size's value the median over both files (2.0 and 3.0: 2.5).
  b.records = {collective_record(CollectiveKind::all_gather, 1 << 24, 0, 2e-3),
               collective_record(CollectiveKind::all_gather, 1 << 24, 8, 6e-3),
               collective_record(CollectiveKind::all_gather, 1 << 24, 16, 2.4e-3)};
  // Left out: other ranks, copy engines, failures, unverified, CUs not below compute_units,
  // a size without its default, and a size measured on 8 CUs only.
  b.records.push_back(collective_record(CollectiveKind::all_gather, 1 << 17, 8, 9.0, 4));
  b.records.push_back(collective_record(CollectiveKind::all_gather, 1 << 17, 0, 1e-3, 2, Transport::dma));
  b.records.push_back(collective_record(CollectiveKind::all_gather, 1 << 18, 8, 9.0, 2, Transport::cu, false));
  b.records.push_back(collective_record(CollectiveKind::all_gather, 1 << 18, 0, 9.0, 2, Transport::cu, true, false));
  b.records.push_back(collective_record(CollectiveKind::all_gather, 1 << 16, 132, 9.0));
  b.records.push_back(collective_record(CollectiveKind::all_gather, 1 << 20, 8, 9.0));
  b.records.push_back(collective_record(CollectiveKind::all_gather, 1 << 21, 0, 1e-3));
  b.records.push_back(collective_record(CollectiveKind::all_gather, 1 << 21, 8, 5e-3));
  std::vector<std::string> notes;
  const auto fit = fit_collective_partitions({a, b}, 2, 132, Provenance{SourceKind::measured, "iso.json"}, notes);
  ASSERT_EQ(fit.size(), 1u);
  const SizedSlowdown& t = fit.at(CollectiveKind::all_gather);
  EXPECT_EQ(t.name, "collective_slowdown_by_size.all_gather");
  EXPECT_EQ(t.provenance.ref, "iso.json");
  EXPECT_EQ(t.cus, (std::vector<double>{8, 16}));
  ASSERT_EQ(t.size_bytes.size(), 2u);
  EXPECT_EQ(t.size_bytes[0], std::exp2(17.0));  // the geometric mean of 2^16..2^18
  EXPECT_EQ(t.size_bytes[1], std::round(std::exp2((24 + 25 + 26 + 30) / 4.0)));
  EXPECT_NEAR(t.slowdown[0][0], 1.1, 1e-12);
  EXPECT_NEAR(t.slowdown[0][1], 1.0, 1e-12);
  EXPECT_NEAR(t.slowdown[1][0], 2.45, 1e-12);  // median of 2.5, 2.2, 2.4, 3.0
  EXPECT_NEAR(t.slowdown[1][1], 1.35, 1e-12);  // median of 1.2 (both files), 1.3, 1.4, 1.5
  ASSERT_EQ(notes.size(), 1u);
  EXPECT_NE(notes[0].find("all_gather: 2 rows over 8 sizes, at 8, 16 CUs"), std::string::npos) << notes[0];
}

TEST(PartitionFit, AKindWithTooFewSizesIsNotFitted) {
  RawMeasurements a;
  add_size(a, CollectiveKind::all_to_all, 1 << 20, 1.5, 1.1);
  add_size(a, CollectiveKind::all_to_all, 1 << 22, 1.6, 1.1);
  std::vector<std::string> notes;
  const auto fit = fit_collective_partitions({a}, 2, 132, Provenance{}, notes);
  EXPECT_TRUE(fit.empty());
  ASSERT_EQ(notes.size(), 2u);
  EXPECT_NE(notes[0].find("all_to_all: not fitted (fewer than 3 sizes"), std::string::npos) << notes[0];
  EXPECT_NE(notes[1].find("not fitted (no collective measured at 2 ranks"), std::string::npos) << notes[1];
  notes.clear();
  EXPECT_TRUE(fit_collective_partitions({}, 2, 132, Provenance{}, notes).empty());
  ASSERT_EQ(notes.size(), 1u);
}

// calibrate(): the table lands in the profile with its files named, a stale one of the base
// profile does not survive, and a file of another GPU, a test file or one with nothing to fit
// is refused.
class PartitionCalibration : public test::SimCalibrationTest {
 protected:
  CalibrationOptions options(const std::string& device, bool with_partitions = true) {
    RawMeasurements file;
    file.provenance.device = device;
    for (const std::int64_t size : {1 << 20, 1 << 21, 1 << 22})
      add_size(file, CollectiveKind::all_gather, size, with_partitions ? 1.5 : 1.0, 1.25);
    if (!with_partitions)
      for (Record& r : file.records) std::get<CollectiveQuery>(r.query).collective.ranks = 4;
    CalibrationOptions o;
    o.gpus = 2;
    o.quick = true;
    o.name = "sim_partitions";
    o.command = "test";
    o.collective_partitions_paths = {tmp_.file("isolated.json")};
    save_raw_measurements(o.collective_partitions_paths[0], file);
    return o;
  }

  CalibrationResult run(const CalibrationOptions& o) { return calibrate_on_sim(o); }

  std::string refusal(const CalibrationOptions& o) {
    try {
      run(o);
    } catch (const InputError& e) {
      return e.what();
    }
    return "accepted";
  }

  std::string device() { return sim_device(); }
};

TEST_F(PartitionCalibration, TheProfileTakesTheTableAndNamesTheFile) {
  base_.collective_slowdown_by_size[CollectiveKind::all_to_all] = SizedSlowdown{"stale", {1}, {8}, {{9.0}}, {}};
  const CalibrationOptions o = options(device());
  const HardwareProfile hw = run(o).profile;
  ASSERT_EQ(hw.collective_slowdown_by_size.size(), 1u);  // the base's all_to_all is gone
  const SizedSlowdown& t = hw.collective_slowdown_by_size.at(CollectiveKind::all_gather);
  EXPECT_EQ(t.slowdown, (std::vector<std::vector<double>>{{1.5, 1.25}}));
  EXPECT_EQ(hw.sources.at("tables.collective_slowdown_by_size.all_gather").ref, o.collective_partitions_paths[0]);
  EXPECT_EQ(hw.provenance_details.at("collective_partitions"), o.collective_partitions_paths[0]);
  const HardwareProfile back = io::parse_profile(io::profile_yaml(hw), "written.yaml");
  EXPECT_EQ(back.collective_slowdown_by_size.at(CollectiveKind::all_gather).slowdown, t.slowdown);
  EXPECT_EQ(io::profile_yaml(back), io::profile_yaml(hw));
}

TEST_F(PartitionCalibration, AnotherGpuATestFileOrNothingToFitIsRefused) {
  CalibrationOptions o = options("NVIDIA H200 x2");
  EXPECT_NE(refusal(o).find("--collective-partitions: " + o.collective_partitions_paths[0] +
                            " was measured on 'NVIDIA H200 x2'"),
            std::string::npos)
      << refusal(o);
  o = options(device());
  o.splits.path = "splits.yaml";
  o.splits.entries.push_back({o.collective_partitions_paths[0], SplitKind::test, "isolated", std::nullopt, ""});
  EXPECT_NE(refusal(o).find("calibrate --collective-partitions"), std::string::npos) << refusal(o);
  o = options(device(), false);  // measured at 4 ranks only
  EXPECT_NE(refusal(o).find("no collective measured at 2 ranks both on the default CUs and on fewer"),
            std::string::npos)
      << refusal(o);
}

// model.md §3: the table is fitted after --pairs, so the pairs' interference factors and
// GEMM-first delay are the ones fitted against the class tables, and the partitions'
// predictions take the table.
TEST_F(PartitionCalibration, ThePairsKeepTheirFitsAndThePartitionsTakeTheTable) {
  std::vector<C3Pair> pairs = io::resolve_scenarios("paper");
  pairs.resize(4);  // all_gather and all_to_all beside two GEMMs
  for (C3Pair& p : pairs) p.collective.ranks = 2;
  MeasureOptions measuring;
  measuring.parameters["rp"] = {8, 16};
  auto sim = make_sim_validator(params_);
  CalibrationOptions with = options(device());
  with.pairs_paths = {tmp_.file("pairs.json")};
  save_raw_measurements(with.pairs_paths[0], measure(*sim, pairs, measuring, nullptr));
  CalibrationOptions without = with;
  without.collective_partitions_paths.clear();
  const HardwareProfile a = run(without).profile;
  const HardwareProfile b = run(with).profile;
  ASSERT_TRUE(a.collective_slowdown_by_size.empty());
  ASSERT_EQ(b.collective_slowdown_by_size.count(CollectiveKind::all_gather), 1u);
  ASSERT_FALSE(a.interference_by_kind.empty());
  for (const auto& [kind, transports] : a.interference_by_kind)
    for (const auto& [transport, classes] : transports)
      for (const auto& [cls, f] : classes) {
        const Interference& g = b.interference_by_kind.at(kind).at(transport).at(cls);
        EXPECT_EQ(f.gemm_slowdown, g.gemm_slowdown) << to_string(kind) << " " << to_string(transport);
        EXPECT_EQ(f.collective_slowdown, g.collective_slowdown)
            << to_string(kind) << " " << to_string(transport);
      }
  EXPECT_EQ(a.gemm_first_delay_factor, b.gemm_first_delay_factor);
  const Strategy rp8{StrategyKind::rp, 8, 8};
  EXPECT_NE(strategies::predicted_time_s(a, pairs[0], rp8), strategies::predicted_time_s(b, pairs[0], rp8));
  const Strategy sp{StrategyKind::sp, 0, 0};
  EXPECT_EQ(strategies::predicted_time_s(a, pairs[0], sp), strategies::predicted_time_s(b, pairs[0], sp));
}

}  // namespace
}  // namespace c3::validator
