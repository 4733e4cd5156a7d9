// measure/collective_bench.hpp: `c3advisor bench-collective`: times collectives of a
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
#include "io/bench_file.hpp"

namespace c3::validator {

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

}  // namespace c3::validator
