// select_bench (io/bench_file.hpp): `bench-collective --from FILE --kinds --transports`.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "c3/errors.hpp"
#include "io/bench_file.hpp"

namespace {

using c3::CollectiveKind;
using c3::validator::BenchFile;
using c3::validator::BenchRecord;

BenchFile two_by_two() {
  BenchFile f;
  for (const CollectiveKind k : {CollectiveKind::all_gather, CollectiveKind::all_to_all})
    for (const char* t : {"nccl", "ce_push_peer"})
      for (const std::int64_t size : {4096, 8192}) f.records.push_back(BenchRecord{k, t, 2, size, {}});
  return f;
}

std::vector<std::string> labels(const BenchFile& f) {
  std::vector<std::string> out;
  for (const BenchRecord& r : f.records)
    out.push_back(std::string(c3::to_string(r.kind)) + " " + r.transport + " " + std::to_string(r.size_bytes));
  return out;
}

TEST(SelectBench, NothingAskedKeepsEverything) {
  EXPECT_EQ(labels(select_bench(two_by_two(), {}, {}, "f.json")), labels(two_by_two()));
  EXPECT_EQ(labels(select_bench(two_by_two(), {}, {"all"}, "f.json")), labels(two_by_two()));
}

TEST(SelectBench, KeepsTheKindsAndTransportsAskedInFileOrder) {
  EXPECT_EQ(labels(select_bench(two_by_two(), {CollectiveKind::all_gather}, {"nccl"}, "f.json")),
            (std::vector<std::string>{"all_gather nccl 4096", "all_gather nccl 8192"}));
  EXPECT_EQ(labels(select_bench(two_by_two(), {}, {"ce_push_peer"}, "f.json")),
            (std::vector<std::string>{"all_gather ce_push_peer 4096", "all_gather ce_push_peer 8192",
                                      "all_to_all ce_push_peer 4096", "all_to_all ce_push_peer 8192"}));
  EXPECT_EQ(labels(select_bench(two_by_two(), {CollectiveKind::all_to_all}, {}, "f.json")).size(), 4u);
}

TEST(SelectBench, WhatTheFileLacksIsAnError) {
  try {
    select_bench(two_by_two(), {}, {"nccl", "ce_pull_batch"}, "f.json");
    FAIL() << "no error";
  } catch (const c3::InputError& e) {
    EXPECT_EQ(std::string(e.what()),
              "f.json: no record of transport 'ce_pull_batch' (the file has transports: nccl, ce_push_peer)");
  }
  EXPECT_THROW(select_bench(two_by_two(), {CollectiveKind::all_reduce}, {}, "f.json"), c3::InputError);
}

}  // namespace
