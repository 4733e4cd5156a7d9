// Collective benchmarks (measure/collective_bench.hpp) on the sim backend: sizes,
// bandwidth formulas, which records are taken, failures recorded, save and resume, the
// file format and its errors, the table and the chart.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>

#include "c3/errors.hpp"
#include "c3/io.hpp"
#include "measure/collective_bench.hpp"
#include "views/bench_views.hpp"
#include "support/temp_dir.hpp"
#include "support/wrapped_validator.hpp"

namespace c3::validator {
namespace {

TEST(CollectiveBench, SizeSweepLikeNcclTests) {
  EXPECT_EQ(size_sweep(4096, 65536, 2), (std::vector<std::int64_t>{4096, 8192, 16384, 32768, 65536}));
  EXPECT_EQ(size_sweep(1000, 20000, 4), (std::vector<std::int64_t>{1000, 4000, 16000}));
  EXPECT_EQ(size_sweep(7, 7, 2), (std::vector<std::int64_t>{7}));
  const auto huge = size_sweep(1, std::numeric_limits<std::int64_t>::max(), 2);
  EXPECT_EQ(huge.size(), 63u);  // stops before overflowing
  EXPECT_THROW(size_sweep(0, 10, 2), InputError);
  EXPECT_THROW(size_sweep(10, 5, 2), InputError);
  EXPECT_THROW(size_sweep(1, 5, 1), InputError);
}

TEST(CollectiveBench, BandwidthAsNcclTests) {
  EXPECT_DOUBLE_EQ(bus_factor(CollectiveKind::all_gather, 4), 0.75);
  EXPECT_DOUBLE_EQ(bus_factor(CollectiveKind::all_to_all, 8), 0.875);
  EXPECT_DOUBLE_EQ(bus_factor(CollectiveKind::reduce_scatter, 2), 0.5);
  EXPECT_DOUBLE_EQ(bus_factor(CollectiveKind::all_reduce, 4), 1.5);
  BenchRecord r{CollectiveKind::all_gather, "nccl", 4, 1'000'000, {}};
  r.measurement.ok = true;
  r.measurement.median_s = 1e-3;
  EXPECT_DOUBLE_EQ(algbw_bytes_per_s(r), 1e9);
  EXPECT_DOUBLE_EQ(busbw_bytes_per_s(r), 0.75e9);
  r.measurement.ok = false;
  EXPECT_EQ(busbw_bytes_per_s(r), 0.0);
}

class BenchRun : public ::testing::Test {
 protected:
  BenchRun() : hw_(io::resolve_profile("h200x2")) {
    path_ = tmp_.file("c3_bench.json");
    options_.kinds = {CollectiveKind::all_gather, CollectiveKind::all_reduce};
    options_.transports = {"nccl", "ce"};
    options_.sizes = {65536, 1 << 24};
    options_.ranks = 2;
    options_.path = path_;
  }

  RawProvenance provenance(const Validator& v) const {
    RawProvenance p = provenance_of(v.capabilities());
    p.command = "test";
    return p;
  }

  HardwareProfile hw_;
  BenchOptions options_;
  test::TempDir tmp_;
  std::string path_;
};

TEST_F(BenchRun, MeasuresEveryKindTransportAndSizeButDmaReductions) {
  const auto v = make_validator("sim", hw_);
  v->set_run_config({0, 2});
  std::vector<std::size_t> steps;
  const BenchFile f = run_bench(*v, options_, provenance(*v), [&](const BenchStep& s) {
    steps.push_back(s.index);
    EXPECT_EQ(s.total, 6u);
  });
  ASSERT_EQ(f.records.size(), 6u);  // all_gather x {nccl, ce} x 2 sizes + all_reduce x nccl x 2 sizes
  EXPECT_EQ(steps, (std::vector<std::size_t>{1, 2, 3, 4, 5, 6}));
  for (const BenchRecord& r : f.records) {
    EXPECT_TRUE(r.measurement.ok) << r.measurement.error;
    EXPECT_FALSE(r.kind == CollectiveKind::all_reduce && r.transport == "ce");
  }
  const BenchFile back = load_bench(path_);  // saved, and read back the same
  ASSERT_EQ(back.records.size(), f.records.size());
  for (std::size_t i = 0; i < f.records.size(); ++i) {
    EXPECT_EQ(back.records[i].kind, f.records[i].kind);
    EXPECT_EQ(back.records[i].transport, f.records[i].transport);
    EXPECT_EQ(back.records[i].size_bytes, f.records[i].size_bytes);
    EXPECT_EQ(back.records[i].measurement.runs_s, f.records[i].measurement.runs_s);
    EXPECT_DOUBLE_EQ(back.records[i].measurement.median_s, f.records[i].measurement.median_s);
  }
  EXPECT_EQ(back.provenance, f.provenance);
}

TEST_F(BenchRun, UnknownVariantAndBackendFailuresBecomeFailedRecords) {
  options_.kinds = {CollectiveKind::all_gather};
  options_.transports = {"nccl", "ce_push_peer"};  // the simulator has only "ce"
  int calls = 0;
  WrappedValidator v(make_validator("sim", hw_), [&](int, const std::string&) {
    return ++calls == 1 ? WrappedValidator::Action::fail : WrappedValidator::Action::pass;
  });
  const BenchFile f = run_bench(v, options_, provenance(v), nullptr);
  ASSERT_EQ(f.records.size(), 4u);
  EXPECT_FALSE(f.records[0].measurement.ok);
  EXPECT_NE(f.records[0].measurement.error.find("simulated GPU failure"), std::string::npos);
  EXPECT_TRUE(f.records[1].measurement.ok);
  EXPECT_FALSE(f.records[2].measurement.ok);
  EXPECT_NE(f.records[2].measurement.error.find("no dma variant 'ce_push_peer'"), std::string::npos);
  EXPECT_NE(bench_table(f).find("failed: "), std::string::npos);
}

TEST_F(BenchRun, ResumeMeasuresOnlyWhatIsMissingOrFailed) {
  options_.kinds = {CollectiveKind::all_gather};
  int calls = 0;
  {
    WrappedValidator v(make_validator("sim", hw_), [&](int n, const std::string&) {
      ++calls;
      return n == 1 ? WrappedValidator::Action::fail : WrappedValidator::Action::pass;
    });
    run_bench(v, options_, provenance(v), nullptr);
  }
  EXPECT_EQ(calls, 4);
  options_.resume = true;
  calls = 0;
  WrappedValidator v(make_validator("sim", hw_), [&](int, const std::string&) {
    ++calls;
    return WrappedValidator::Action::pass;
  });
  std::size_t resumed = 0;
  const BenchFile f = run_bench(v, options_, provenance(v), [&](const BenchStep& s) { resumed += s.resumed; });
  EXPECT_EQ(calls, 1);  // only the failed one again
  EXPECT_EQ(resumed, 3u);
  for (const BenchRecord& r : f.records) EXPECT_TRUE(r.measurement.ok);
}

TEST_F(BenchRun, AFileOfEarlierRecordsIsKeptUnlessResumedOrOverwritten) {
  options_.kinds = {CollectiveKind::all_gather};
  const auto v = make_validator("sim", hw_);
  run_bench(*v, options_, provenance(*v), nullptr);
  const std::size_t before = load_bench(path_).records.size();
  ASSERT_GT(before, 0u);
  options_.kinds = {CollectiveKind::all_to_all};
  EXPECT_THROW(run_bench(*v, options_, provenance(*v), nullptr), InputError);  // neither resume nor overwrite
  EXPECT_EQ(load_bench(path_).records.size(), before);                         // left as it was
  options_.overwrite = true;
  const BenchFile replaced = run_bench(*v, options_, provenance(*v), nullptr);
  for (const BenchRecord& r : replaced.records) EXPECT_EQ(r.kind, CollectiveKind::all_to_all);
  EXPECT_EQ(load_bench(path_).records.size(), replaced.records.size());
}

TEST_F(BenchRun, RefusesBadOptions) {
  const auto v = make_validator("sim", hw_);
  BenchOptions o = options_;
  o.ranks = 1;
  EXPECT_THROW(run_bench(*v, o, provenance(*v), nullptr), InputError);
  o = options_;
  o.sizes = {0};
  EXPECT_THROW(run_bench(*v, o, provenance(*v), nullptr), InputError);
  o = options_;
  o.transports.clear();
  EXPECT_THROW(run_bench(*v, o, provenance(*v), nullptr), InputError);
  o = options_;
  o.path.clear();
  o.resume = true;
  EXPECT_THROW(run_bench(*v, o, provenance(*v), nullptr), InputError);
}

TEST_F(BenchRun, TableChartAndCurve) {
  const auto v = make_validator("sim", hw_);
  v->set_run_config({0, 1});
  options_.kinds = {CollectiveKind::all_gather};
  const BenchFile f = run_bench(*v, options_, provenance(*v), nullptr);
  const std::string table = bench_table(f);
  for (const char* column : {"size(B)", "count(bf16)", "time(us)", "algbw", "busbw", "#wrong", "transport ce"})
    EXPECT_NE(table.find(column), std::string::npos) << column;
  const std::string svg = bench_chart_svg(f, CollectiveKind::all_gather);
  EXPECT_NE(svg.find("data-series=\"nccl\""), std::string::npos);
  EXPECT_NE(svg.find("data-series=\"ce\""), std::string::npos);
  EXPECT_THROW(bench_chart_svg(f, CollectiveKind::all_to_all), InputError);
  const std::string csv = bench_chart_csv(f, CollectiveKind::all_gather);
  EXPECT_EQ(csv.rfind("series,size (bytes),bus bandwidth (GB/s)\n", 0), 0u) << csv;
  EXPECT_NE(csv.find("\nnccl,"), std::string::npos);
  EXPECT_NE(csv.find("\nce,"), std::string::npos);
  EXPECT_THROW(bench_chart_csv(f, CollectiveKind::all_to_all), InputError);
  const auto curve = bench_curve(f, CollectiveKind::all_gather, "ce", 2);
  ASSERT_EQ(curve.size(), 2u);
  EXPECT_LT(curve[0].first, curve[1].first);
  EXPECT_TRUE(bench_curve(f, CollectiveKind::all_gather, "ce", 4).empty());
}

TEST_F(BenchRun, TableGroupsInterleavedRecordsByTransport) {
  // torch_collectives.py writes nccl and torch_symm_pull size by size: one block each.
  const auto v = make_validator("sim", hw_);
  v->set_run_config({0, 1});
  options_.kinds = {CollectiveKind::all_gather};
  BenchFile f = run_bench(*v, options_, provenance(*v), nullptr);
  std::stable_sort(f.records.begin(), f.records.end(),
                   [](const BenchRecord& a, const BenchRecord& b) { return a.size_bytes < b.size_bytes; });
  ASSERT_EQ(f.records.size(), 4u);
  ASSERT_NE(f.records[0].transport, f.records[1].transport);  // interleaved
  const std::string table = bench_table(f);
  const auto count = [&](const std::string& text) {
    std::size_t n = 0;
    for (auto at = table.find(text); at != std::string::npos; at = table.find(text, at + 1)) ++n;
    return n;
  };
  EXPECT_EQ(count("transport nccl  ranks 2\n"), 1u) << table;
  EXPECT_EQ(count("transport ce  ranks 2\n"), 1u) << table;
  EXPECT_EQ(count("size(B)"), 2u) << table;
  // the first block holds both of its sizes, in file order, before the second block starts
  const auto first = std::min(table.find("transport nccl"), table.find("transport ce"));
  const auto second = std::max(table.find("transport nccl"), table.find("transport ce"));
  const std::string block = table.substr(first, second - first);
  const auto small = block.find(" 65536 "), large = block.find(" 16777216 ");
  ASSERT_NE(small, std::string::npos) << block;
  ASSERT_NE(large, std::string::npos) << block;
  EXPECT_LT(small, large);
}

std::string parse_error(const std::string& text) {
  try {
    parse_bench(text, "f.json");
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "parsed";
}

TEST_F(BenchRun, FileErrorsNameTheField) {
  const auto v = make_validator("sim", hw_);
  v->set_run_config({0, 1});
  options_.kinds = {CollectiveKind::all_gather};
  options_.sizes = {65536};
  const std::string good = bench_json(run_bench(*v, options_, provenance(*v), nullptr));
  EXPECT_EQ(parse_error(good), "parsed");
  auto replaced = [&](const std::string& from, const std::string& to) {
    std::string s = good;
    const auto at = s.find(from);
    EXPECT_NE(at, std::string::npos) << from;
    return s.replace(at, from.size(), to);
  };
  EXPECT_NE(parse_error("{").find("not valid JSON"), std::string::npos);
  EXPECT_NE(parse_error(replaced("\"collective_bench\"", "\"raw\"")).find("type"), std::string::npos);
  EXPECT_NE(parse_error(replaced("\"kind\": \"all_gather\"", "\"kind\": \"all_gatherr\"")).find("records[0].kind"),
            std::string::npos);
  EXPECT_NE(parse_error(replaced("\"size_bytes\": 65536", "\"size_bytes\": -1")).find("records[0].size_bytes"),
            std::string::npos);
  EXPECT_NE(parse_error(replaced("\"transport\": \"nccl\"", "\"transport\": 3")).find("records[0].transport"),
            std::string::npos);
}

TEST(CollectiveBench, RecordsAsCalibrationQueries) {
  const auto rec = [](CollectiveKind kind, const std::string& transport, int ranks, std::int64_t size, double t,
                      bool ok = true) {
    BenchRecord r{kind, transport, ranks, size, {}};
    r.measurement.ok = ok;
    r.measurement.median_s = ok ? t : 0;
    r.measurement.error = ok ? "" : "NCCL error";
    return r;
  };
  BenchFile f;
  f.records = {rec(CollectiveKind::all_gather, "nccl", 2, 4096, 1e-5),
               rec(CollectiveKind::all_gather, "ce_push_peer", 2, 4096, 2e-5),
               rec(CollectiveKind::all_gather, "ce_pull_peer", 2, 4096, 3e-5),    // another variant
               rec(CollectiveKind::all_gather, "nccl", 4, 4096, 4e-5),            // other ranks
               rec(CollectiveKind::all_to_all, "nccl", 2, 8192, 0, false),        // failed
               rec(CollectiveKind::all_reduce, "nccl", 2, 8192, 5e-5),
               rec(CollectiveKind::all_reduce, "ce_push_peer", 2, 8192, 6e-5),    // dma cannot reduce
               rec(CollectiveKind::all_gather, "nccl", 2, 4096, 7e-5)};           // a repeat: the first wins
  const std::vector<Record> q = bench_records_as_queries(f, 2, "ce_push_peer");
  ASSERT_EQ(q.size(), 3u);
  const auto collective = [](const Record& r) { return std::get<CollectiveQuery>(r.query); };
  EXPECT_EQ(collective(q[0]), (CollectiveQuery{Collective{CollectiveKind::all_gather, 4096, 2}, Transport::cu, 0}));
  EXPECT_DOUBLE_EQ(q[0].measurement.median_s, 1e-5);
  EXPECT_EQ(collective(q[1]), (CollectiveQuery{Collective{CollectiveKind::all_gather, 4096, 2}, Transport::dma, 0}));
  EXPECT_DOUBLE_EQ(q[1].measurement.median_s, 2e-5);
  EXPECT_EQ(collective(q[2]), (CollectiveQuery{Collective{CollectiveKind::all_reduce, 8192, 2}, Transport::cu, 0}));
  EXPECT_EQ(measurement_key(q[1].query), "collective all_gather size_bytes=4096 ranks=2 transport=dma cus=0");

  EXPECT_EQ(bench_records_as_queries(f, 4, "ce_push_peer").size(), 1u);
  EXPECT_EQ(bench_records_as_queries(f, 2, "").size(), 2u);  // no dma variant: nccl only
  EXPECT_EQ(bench_records_as_queries(f, 2, "ce_pull_peer").size(), 3u);
  EXPECT_TRUE(bench_records_as_queries(f, 8, "ce_push_peer").empty());
}

TEST(DmaVariant, SelectedByNameAndCheckedByTheBackend) {
  const auto v = make_validator("sim", io::resolve_profile("h200x2"));
  EXPECT_EQ(v->dma_variant(), "ce");
  v->set_dma_variant("");
  EXPECT_EQ(v->dma_variant(), "ce");
  try {
    v->set_dma_variant("ce_pull_peer");
    FAIL() << "accepted an unknown variant";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("(it has: ce)"), std::string::npos) << e.what();
  }
  EXPECT_EQ(v->dma_variant(), "ce");
}

}  // namespace
}  // namespace c3::validator
