// validator/collective_bench.hpp: `c3advisor bench-collective`: times collectives of a
// Validator across sizes and transports, the way nccl-tests does (size, time, algbw,
// busbw), and keeps every record in a versioned JSON file (docs/formats.md,
// "Collective benchmarks"):
//
// { "schema_version": 1, "type": "collective_bench",
//   "provenance": {backend, device, gpus, compute_units, versions{}, notes[], git_sha, date,
//                  command, c3advisor_version},
//   "records": [ {kind, transport, ranks, size_bytes, count, ok, error, time_s, min_s, max_s,
//                 runs_s[], warmup_runs, verified, algbw_bytes_per_s, busbw_bytes_per_s} ] }
//
// `transport` is "nccl" (the library with its defaults: Transport::cu, no CU limit) or a
// dma variant of the backend (Capabilities::dma_variants: "ce_push_peer", "nccl_ce", ...).
// The file is rewritten after every record, so a crash keeps what was measured and
// --resume measures only what is missing or failed.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "c3/types.hpp"
#include "c3/validator.hpp"
#include "validator/raw_measurements.hpp"

namespace c3::validator {

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

/// Sizes from `min_bytes` to `max_bytes` (inclusive when reached), each `factor` times the
/// last (nccl-tests -b -e -f). Throws InputError for min < 1, max < min or factor < 2.
std::vector<std::int64_t> size_sweep(std::int64_t min_bytes, std::int64_t max_bytes, std::int64_t factor);

struct BenchOptions {
  std::vector<CollectiveKind> kinds;
  std::vector<std::string> transports;  ///< "nccl" and dma variant names, in this order
  std::vector<std::int64_t> sizes;
  int ranks = 0;
  std::string path;     ///< the JSON file, rewritten after every record ("" = not saved)
  bool resume = false;  ///< keep path's successful records and measure the rest
};

/// One record done (measured or resumed), for progress lines.
struct BenchStep {
  std::size_t index = 0;  ///< 1-based
  std::size_t total = 0;
  const BenchRecord* record = nullptr;
  bool resumed = false;
};
using BenchProgress = std::function<void(const BenchStep&)>;

/// Measures every kind x transport x size on `validator` (a dma transport the kind cannot
/// use, e.g. all_reduce on copy engines, is skipped). A backend failure or an unknown
/// variant becomes a failed record, never an exception. Throws InputError for bad options
/// (no kinds, sizes or transports; ranks < 2 or above the backend's GPUs; a resume file from
/// another backend or device); c3::Error when the file cannot be written.
BenchFile run_bench(Validator& validator, const BenchOptions& options, RawProvenance provenance,
                    const BenchProgress& progress);

/// The JSON text of a file; parsing and loading (ConfigError names the field at fault).
std::string bench_json(const BenchFile& file);
BenchFile parse_bench(std::string_view json_text, const std::string& origin);
BenchFile load_bench(const std::string& path);

/// nccl-tests-style table: one block per kind and transport, columns size, count (bf16
/// elements), time (us), algbw and busbw (GB/s), and "#wrong" (0, or the error).
std::string bench_table(const BenchFile& file);

/// The bus-bandwidth-vs-size chart of one kind: one line per transport (log-log), SVG.
std::string bench_chart_svg(const BenchFile& file, CollectiveKind kind);

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
