// io/bench_file.hpp: the records of `c3advisor bench-collective` and their JSON file
// (declared in c3/measurements.hpp).
#pragma once

<<<<<<< HEAD
#include "c3/measurements.hpp"
=======
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "c3/types.hpp"
#include "c3/validator.hpp"
#include "io/raw_measurements.hpp"

namespace c3::validator {

/// bf16, the element type of every backend's collectives (the file's `count`).
inline constexpr std::size_t kElemBytes = 2;

/// The transport name of NCCL (or the backend's CU library) with its defaults.
inline constexpr std::string_view kLibraryTransport = "nccl";

struct BenchRecord {
  CollectiveKind kind = CollectiveKind::all_gather;
  std::string transport;  ///< "nccl" or a dma variant name
  int ranks = 0;
  std::int64_t size_bytes = 0;  ///< nccl-tests convention (all_gather: the gathered buffer)
  Measurement measurement;      ///< median_s is the record's time_s
};

struct BenchFile {
  RawProvenance provenance;
  std::vector<BenchRecord> records;
};

/// nccl-tests' bus-bandwidth factor: busbw = algbw x factor ((n-1)/n; all_reduce 2(n-1)/n).
double bus_factor(CollectiveKind kind, int ranks);
/// size / time and size / time x bus_factor; 0 for a failed record.
double algbw_bytes_per_s(const BenchRecord& record);
double busbw_bytes_per_s(const BenchRecord& record);

/// The JSON text of a file; parsing and loading (ConfigError names the field at fault).
std::string bench_json(const BenchFile& file);
BenchFile parse_bench(std::string_view json_text, const std::string& origin);
BenchFile load_bench(const std::string& path);

/// The records of `file` (read from `origin`) whose kind is one of `kinds` and whose
/// transport is one of `transports`, in file order; an empty list, or "all" among the
/// transports, keeps every kind or transport (`bench-collective --from FILE --kinds K
/// --transports T`). Throws InputError naming `origin` and what it has when a kind or
/// transport asked for has no record in it.
BenchFile select_bench(BenchFile file, const std::vector<CollectiveKind>& kinds,
                       const std::vector<std::string>& transports, const std::string& origin);

/// Per kind and transport, measured times against size (successful records only, sorted),
/// for fitting a profile's collective curve. Empty when there is none.
std::vector<std::pair<double, double>> bench_curve(const BenchFile& file, CollectiveKind kind,
                                                   std::string_view transport, int ranks);

/// The file's measurements as calibration queries (docs/calibration.md, `--collectives`):
/// every successful record with `ranks` whose transport is "nccl" (-> Transport::cu, cus 0)
/// or `dma_variant` (-> Transport::dma, cus 0; none when `dma_variant` is empty), in file
/// order, the first of each measurement_key. Failed records and other ranks are skipped.
std::vector<Record> bench_records_as_queries(const BenchFile& file, int ranks, std::string_view dma_variant);

}  // namespace c3::validator
>>>>>>> crash
