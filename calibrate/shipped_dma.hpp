// calibrate/shipped_dma.hpp: calibrating a copy-engine implementation that the measuring
// backend cannot run, e.g. `torch_symm_pull` (c3advisor.torch's, one process per GPU),
// from its bench-collective measurements (docs/calibration.md, "A copy-engine
// implementation the backend cannot run"). The backend measures everything else with its
// own dma variant; afterwards the dma transport's bandwidth, latency and curve are refitted
// from the file, and every other measured dma value keeps the backend's, labelled so.
#pragma once

#include <string>
#include <vector>

#include "c3/measurements.hpp"
#include "c3/profile.hpp"

namespace c3::validator {

/// A copy-engine implementation's collectives, measured elsewhere.
struct ShippedDma {
  std::string variant;  ///< its transport name in the file, e.g. "torch_symm_pull"
  std::string path;     ///< the bench-collective file, named in refs and errors
  BenchFile bench;
  /// Pairs timed with the variant itself (scripts/gpu-jobs/torch_pairs.py; may be empty):
  /// each pair's serial and dma times, the dma ones with the host time from the variant's
  /// launch to the GEMM's (Measurement::host_launch_s).
  std::vector<RawMeasurements> pairs;
  std::string pairs_ref;  ///< their paths, comma-separated, named in refs and notes
};

/// The kinds calibrated on copy engines (all_gather, all_to_all): each needs the file's records.
std::vector<CollectiveKind> copy_engine_kinds();

/// Checks that `s.bench` has, for every copy_engine_kinds() kind, successful records of
/// `s.variant` at `ranks` ranks at 3 sizes or more (what a bandwidth and a latency need).
/// Throws InputError naming s.path and the field at fault (`records[].transport`: no record
/// of the variant; `records[].kind`: none of a kind; `records[].ranks`: none at `ranks`;
/// `records[].size_bytes`: fewer than 3 successful sizes), with what the file has.
void check_shipped_dma(const ShippedDma& s, int ranks);

/// After the calibration and its pairs fit: refits `hw`'s collectives.KIND.dma bus bandwidth,
/// latency and curve of every copy_engine_kinds() kind from s's records at `ranks`
/// (fit_collective_sweep; source measured, ref s.path); appends to the ref of every other
/// measured value of the dma transport (launch_s, unaligned_slowdown, interference.dma.*,
/// interference.by_kind.*.dma.*, and prediction_error when it has dma entries) that it was
/// measured with `measured_with` (the backend's variant), not s.variant; records
/// provenance dma_variant = s.variant and dma_interference_variant = `measured_with`, and
/// says so in the description. Throws InputError naming s.path when a kind's times do not
/// grow with size (no bandwidth can be fitted).
///
/// With s.pairs, then, on the variant's own curves: interference.by_kind.KIND.dma.CLASS of
/// every group with kMinPairsPerGroup dma pairs or more (fit_interference_by_kind: each dma
/// time against its own pair's serial time) is refitted, and every copy-engine kind's dma
/// launch_s becomes the median host_launch_s of the files' dma pair records (§4.4: the
/// GEMM launched after the collective waits for its launch call); their ref is
/// s.pairs_ref. Provenance dma_pairs = s.pairs_ref; dma_interference_variant names both
/// variants. Throws InputError naming s.pairs_ref when the files hold no dma record with
/// its pair's serial record.
void apply_shipped_dma(HardwareProfile& hw, const ShippedDma& s, int ranks, const std::string& measured_with,
                       std::vector<std::string>& notes);

}  // namespace c3::validator
