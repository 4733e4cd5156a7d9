// backends/device/run_detail.hpp: what one measurement of a GPU backend actually ran (the
// Measurement type has no room for it), and the result of a partition probe. Plain data
// shared by the cuda and hip backends and their device tests.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace c3::device {

/// What one measurement actually ran: partitions after rounding, CTAs, bytes after
/// rounding, host-clock times. "SMs" are the compute units of the GPU (CUs on AMD).
struct RunDetail {
  std::string what;                ///< "gemm", "collective", "concurrent", "dependent", "copy"
  std::string label;               ///< e.g. "rp:16", "all_gather:256MiB/nccl"
  int chunks = 1;                  ///< dependent pairs: pieces the operand was cut into (1: undecomposed)
  int gemm_sms = 0;                ///< compute units the GEMM could use (0: not run)
  int collective_sms = 0;          ///< compute units the collective could use (0: copy engines / not run)
  int collective_ctas = 0;         ///< NCCL maxCTAs / RCCL channels asked for (0: the library's default)
  int ranks = 0;
  std::int64_t size_bytes = 0;     ///< bytes actually moved per rank (rounded to whole elements)
  std::vector<double> host_runs_s;  ///< host clock, launch to observed completion, per run
  std::vector<double> gemm_alone_runs_s;  ///< serial only: GEMM part of each run (events)
  std::string transport;           ///< "nccl", "rccl", "ce_push_peer", ... (dependent pairs: of the pieces)
  std::string gemm_algo;           ///< the BLAS library's algorithm (dependent pairs: the first GEMM piece)
  std::int64_t mismatches = 0;     ///< output elements that did not match
  std::string note;
};

/// A diagnostic result: did a partition hold?
struct ProbeResult {
  bool ok = false;
  std::string error;
  std::string name;
  std::vector<std::pair<std::string, double>> values;  ///< named numbers
  std::string verdict;                                 ///< one sentence
};

}  // namespace c3::device
