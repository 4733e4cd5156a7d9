// fuzz/raw_seeds.hpp: seeds for the raw-measurements and validate targets: slices of
// data/measurements/*.json small enough to mutate (the files are 160-280 KB). Each slice
// is one pair's records (its GEMM, its collective on every transport, every strategy
// measured concurrently), as validate needs them; plus each file's first records.
#pragma once

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include "c3/errors.hpp"
#include "seeds.hpp"
#include "c3/measurements.hpp"
#include "c3/measurements.hpp"

namespace c3::fuzz {

inline void write_raw_seeds(const std::string& dir) {
  using namespace c3::validator;
  constexpr std::size_t kPairsPerFile = 4;
  constexpr std::size_t kFirstRecords = 16;
  const std::filesystem::path data = std::filesystem::path(C3_SOURCE_DIR) / "data" / "measurements";
  std::vector<std::filesystem::path> files;
  for (const auto& entry : std::filesystem::directory_iterator(data))
    if (entry.path().extension() == ".json") files.push_back(entry.path());
  std::sort(files.begin(), files.end());
  for (const auto& file : files) {
    RawMeasurements raw;
    try {
      raw = load_raw_measurements(file.string());
    } catch (const c3::Error&) {
      continue;  // not a raw-measurements file (collective benchmarks, probes)
    }
    const std::string stem = file.stem().string();
    RawMeasurements first{raw.provenance, {}, {}};
    for (std::size_t i = 0; i < raw.records.size() && i < kFirstRecords; ++i)
      first.records.push_back(raw.records[i]);
    write_seed(dir, stem + "-first", raw_measurements_json(first));

    std::vector<ConcurrentQuery> pairs;
    for (const Record& r : raw.records) {
      const auto* q = std::get_if<ConcurrentQuery>(&r.query);
      if (q == nullptr) continue;
      const bool seen = std::any_of(pairs.begin(), pairs.end(), [&](const ConcurrentQuery& p) {
        return p.gemm == q->gemm && p.collective == q->collective;
      });
      if (!seen && pairs.size() < kPairsPerFile) pairs.push_back(*q);
    }
    for (std::size_t i = 0; i < pairs.size(); ++i) {
      RawMeasurements slice{raw.provenance, {}, {}};
      for (const Record& r : raw.records) {
        bool keep = false;
        if (const auto* g = std::get_if<GemmQuery>(&r.query)) keep = g->gemm == pairs[i].gemm;
        if (const auto* c = std::get_if<CollectiveQuery>(&r.query))
          keep = c->collective == pairs[i].collective && c->cus == 0;
        if (const auto* q = std::get_if<ConcurrentQuery>(&r.query))
          keep = q->gemm == pairs[i].gemm && q->collective == pairs[i].collective;
        if (keep) slice.records.push_back(r);
      }
      write_seed(dir, stem + "-pair" + std::to_string(i), raw_measurements_json(slice));
    }
  }
}

}  // namespace c3::fuzz
