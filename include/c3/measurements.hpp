// c3/measurements.hpp: measurements as values and as files. A Query is one thing a
// Validator can measure; a Record is a query with its Measurement; RawMeasurements is
// the raw-measurements JSON file that `calibrate` and `measure` write after every
// measurement and the replay backend answers from; BenchFile is the file of
// `bench-collective` (docs/formats.md). Times are in seconds, sizes in bytes.
// Readers throw ConfigError naming the file and the key path of the bad field
// ("records[3].size_bytes"); writers throw c3::Error when the file cannot be written.
//
// Raw measurements:
// { "schema_version": 1,
//   "provenance": {backend, device, gpus, compute_units, versions{}, notes[], git_sha, date,
//                  command, c3advisor_version},
//   "records": [ {key, what, <the query's parameters>, ok, error, median_s, min_s, max_s,
//                 runs_s[], warmup_runs, verified} ],
//   "peers": [ {implementation, m, n, k, dtype, kind, size_bytes, ranks, dependency, ok, error,
//               median_s, min_s, max_s, runs_s[], warmup_runs, verified, device, versions{}} ] }
// Parameters by `what`: gemm: m n k dtype cus_removed; collective: kind size_bytes ranks
// transport cus; concurrent: m n k dtype kind size_bytes ranks strategy [dependency]; copy:
// path size_bytes. `key` is measurement_key() of those parameters and is checked on load.
// "peers" (optional, written only when there are some) holds a framework's own runs of
// dependent pairs, timed beside the records (scripts/gpu-jobs/async_tp.py: PyTorch's
// async tensor parallel and its serial path); no two entries share implementation and pair.
//
// Collective benchmarks:
// { "schema_version": 1, "type": "collective_bench", "provenance": {...},
//   "records": [ {kind, transport, ranks, size_bytes, count, ok, error, time_s, min_s, max_s,
//                 runs_s[], warmup_runs, verified, algbw_bytes_per_s, busbw_bytes_per_s} ] }
// `transport` is "nccl" (the library with its defaults: Transport::cu, no CU limit) or a
// dma variant of the backend (Capabilities::dma_variants: "ce_push_peer", "nccl_ce", ...).
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include "c3/types.hpp"
#include "c3/validator.hpp"

namespace c3::validator {

// ---- queries ----

struct GemmQuery {
  Gemm gemm;
  int cus_removed = 0;
  friend bool operator==(const GemmQuery&, const GemmQuery&) = default;
};

struct CollectiveQuery {
  Collective collective;
  Transport transport = Transport::cu;
  int cus = 0;  ///< 0 = the library's default; always 0 on DMA
  friend bool operator==(const CollectiveQuery&, const CollectiveQuery&) = default;
};

struct ConcurrentQuery {
  Gemm gemm;
  Collective collective;
  Strategy strategy;
  Dependency dependency = Dependency::none;  ///< of the pair (keys name it when not none)
  friend bool operator==(const ConcurrentQuery&, const ConcurrentQuery&) = default;
};

struct CopyQuery {
  CopyPath path = CopyPath::device_local;
  std::int64_t size_bytes = 0;
  friend bool operator==(const CopyQuery&, const CopyQuery&) = default;
};

using Query = std::variant<GemmQuery, CollectiveQuery, ConcurrentQuery, CopyQuery>;

/// "gemm", "collective", "concurrent" or "copy".
std::string_view what(const Query& query);

/// A stable key naming everything the result depends on (not the pair's name),
/// e.g. "collective all_gather size_bytes=67108864 ranks=4 transport=cu cus=16".
std::string measurement_key(const Query& query);

/// Short human-readable form for progress lines, e.g. "collective all_gather 64MiB cu cus=16".
std::string describe(const Query& query);

/// Runs the query on `validator` (through its checked public calls).
Measurement run(Validator& validator, const Query& query);

// ---- raw measurements ----

/// Where a set of measurements comes from.
struct RawProvenance {
  std::string backend;
  std::string device;
  int gpus = 0;
  int compute_units = 0;
  std::map<std::string, std::string> versions;
  std::vector<std::string> notes;
  std::string git_sha;
  std::string date;
  std::string command;
  std::string c3advisor_version;
  friend bool operator==(const RawProvenance&, const RawProvenance&) = default;
};

struct Record {
  Query query;
  Measurement measurement;
};

/// A framework's own implementation of a dependent pair, timed in the same run as the
/// records (docs/formats.md, "peers"): e.g. "torch_async_tp" (PyTorch's
/// fused_all_gather_matmul / fused_matmul_reduce_scatter) or "torch_serial" (the
/// collective and the GEMM one after the other in PyTorch). Not a Strategy: c3advisor
/// neither predicts nor runs it; it is what the advice is compared with.
struct PeerRecord {
  std::string implementation;  ///< non-empty, no spaces
  Gemm gemm;
  Collective collective;
  Dependency dependency = Dependency::collective_feeds_gemm;  ///< never none (validate_dependency holds)
  Measurement measurement;  ///< times in seconds; verified: its result was checked (async: against serial)
  std::string device;       ///< e.g. "NVIDIA H200 x2"
  std::map<std::string, std::string> versions;  ///< e.g. torch, cuda, nccl
};

/// True when `peer` is a run of `pair` (same GEMM, collective and dependency; the name
/// is ignored).
bool peer_of(const PeerRecord& peer, const C3Pair& pair);

struct RawMeasurements {
  RawProvenance provenance;
  std::vector<Record> records;
  std::vector<PeerRecord> peers;  ///< in file order; kept by `measure --resume`
};

/// Provenance from a backend's capabilities (git sha, date and command left empty).
RawProvenance provenance_of(const Capabilities& caps);

/// Parses the JSON text; `origin` (a path) names it in ConfigErrors, with the key path
/// of the bad field ("records[3].size_bytes").
RawMeasurements parse_raw_measurements(std::string_view json_text, const std::string& origin);
/// Reads a file. Throws ConfigError, also when it cannot be read.
RawMeasurements load_raw_measurements(const std::string& path);
/// The JSON text (pretty-printed, records in order).
std::string raw_measurements_json(const RawMeasurements& raw);
/// Writes `path` atomically (io::write_file: a temporary file beside it, fsync, then a
/// rename). Throws c3::Error naming `path` when it cannot be written.
void save_raw_measurements(const std::string& path, const RawMeasurements& raw);

// ---- collective benchmarks (`bench-collective`) ----

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
/// size / time and size / time x bus_factor, in bytes per second; 0 for a failed record.
double algbw_bytes_per_s(const BenchRecord& record);
double busbw_bytes_per_s(const BenchRecord& record);

/// The JSON text of a file; parsing and loading (ConfigError names the field at fault).
std::string bench_json(const BenchFile& file);
BenchFile parse_bench(std::string_view json_text, const std::string& origin);
BenchFile load_bench(const std::string& path);

/// The records of `file` (read from `origin`) whose kind is one of `kinds` and whose
/// transport is one of `transports`; an empty list of kinds, or of transports, keeps every
/// kind or transport (`bench-collective --from FILE --kinds K --transports T`). Throws
/// InputError naming `origin` and what it has when a kind or transport asked for has no
/// record in it.
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

// ---- sustained GEMMs (scripts/gpu-jobs/torch_sustained.py; calibrate --sustained) ----

/// One GEMM timed alone and back to back (docs/formats.md, "Sustained GEMMs").
struct SustainedRecord {
  Gemm gemm;
  bool ok = false;
  bool verified = false;   ///< its output matched the first run's on every rank
  std::string error;       ///< why not ok
  double burst_s = 0;      ///< alone (each run from an idle GPU), median; > 0 when ok
  double sustained_s = 0;  ///< per GEMM back to back after a soak, median of windows; > 0 when ok
};

struct SustainedFile {
  RawProvenance provenance;
  std::vector<SustainedRecord> records;
};

/// Parsing and loading (ConfigError names the file and the field at fault: a missing or
/// non-positive dimension, an unknown dtype, a non-positive time of an ok record).
SustainedFile parse_sustained(std::string_view json_text, const std::string& origin);
SustainedFile load_sustained(const std::string& path);

/// One kernel per GEMM shape: the successful GEMM records measured on every CU whose
/// backend reported the kernel (Measurement::gemm_kernel, cuBLASLt's choice for the shape);
/// a later file's record wins. Empty when no record has one.
std::vector<GemmKernelShape> measured_kernels(const std::vector<RawMeasurements>& files);

/// The GEMM query of a record that times a GEMM alone (docs/model.md §1.2): an ok, verified
/// GEMM record measured on every CU with a median > 0; nullptr for any other record.
const GemmQuery* gemm_time_query(const Record& record);

/// One time per GEMM shape (docs/model.md §1.2): from the records gemm_time_query takes,
/// each file's first record of a shape, the median over the files
/// that timed it (`files` their count); sorted by (dtype, layout, m, n, k), the order
/// model::measured_gemm_time looks up. Empty when no record qualifies.
std::vector<GemmTimeShape> measured_gemm_times(const std::vector<RawMeasurements>& files);

/// The prefix of the Capabilities note of a replay that answers from several processes'
/// files (backends/replay/replay.hpp, "replay:A+B+C"): "replays the median over N files: A,
/// B, C ...". `validate`'s text prints that note under its first line.
inline constexpr const char* kReplayMedianNote = "replays the median over ";

}  // namespace c3::validator
