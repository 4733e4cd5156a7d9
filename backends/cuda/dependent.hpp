// backends/cuda/dependent.hpp: internal to the cuda backend: a dependent pair (the
// collective feeds the GEMM, or the GEMM feeds the collective) run on every rank as the
// schedule validator::dependent_schedule lists: undecomposed on one stream (serial), or
// decomposed in pieces on two streams that wait for each other through events (chunked,
// docs/model.md §7), with the checks that its result is the undecomposed computation's.
// cuda_validator.cpp times it with the same loop as every other measurement.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "c3/strategy.hpp"
#include "c3/types.hpp"
#include "c3/validator.hpp"
#include "backends/cuda/cuda_backend.hpp"
#include "backends/cuda/runtime.hpp"
#include "validator/dependent_plan.hpp"

namespace c3::cuda {

class RowGemm;

struct DependentOptions {
  int check_samples = 48;            ///< hashed output samples per rank (plus 2 per piece, 4 corners)
  CeOptions ce;                      ///< dma: direction, API, overlap flag (one copy per piece)
  bool partition_collective = true;  ///< chunked:C:cu:c: the pieces' NCCL in a green context of c SMs
  bool collective_high_priority = false;
  std::uint32_t epoch = 1;           ///< pattern seeds
  /// Fault injection (CudaOptions::fault "drop_piece"): the last step moves nothing, so
  /// that the check must fail.
  bool drop_last_step = false;
};

/// What ran, for RunDetail.
struct DependentReport {
  int chunks = 1;
  int steps = 1;
  std::int64_t size_bytes = 0;  ///< the collective's size (nccl-tests convention)
  std::string transport;        ///< "nccl", "ce_push_peer", ...
  int gemm_sms = 0;
  int collective_sms = 0;       ///< 0 on copy engines
  int collective_ctas = 0;      ///< NCCL maxCTAs (0: default)
  std::string gemm_algo;        ///< the first GEMM job's plan
  GemmKernel first_kernel;      ///< the first GEMM job's kernel
  std::string note;             ///< the schedule in words
};

class DependentRun {
 public:
  /// Allocates and fills every rank's buffers, creates the events, chooses the GEMM plans.
  /// `how`: order serial (one stream, no decomposition) or collective_first with chunks >= 2
  /// (two streams per rank). Throws CudaFailure("unsupported") for what it cannot run
  /// (dependency none, sizes that do not match validate_dependency, chunks that do not cut
  /// m, copy engines for a reduction or without peer access, nccl_ce).
  DependentRun(Runtime& rt, const C3Pair& pair, const ExecutionPlan& how, const DependentOptions& options,
               bool nccl_ce_selected);
  ~DependentRun();
  DependentRun(const DependentRun&) = delete;
  DependentRun& operator=(const DependentRun&) = delete;

  /// Enqueues one run on every rank.
  void launch();
  /// Fills every output, and every row the schedule moves or stages, with 0xFF (NaN).
  void poison(double timeout_s);
  /// Checks every rank: moved A rows bitwise on device (collective_feeds_gemm), sampled
  /// outputs against a double-precision host reference. Returns the mismatches.
  std::int64_t verify(double timeout_s, std::string* first_error);

  const std::vector<int>& gpus() const { return gpus_; }
  const std::vector<Lane*>& lanes() const { return lanes_; }
  const std::vector<ncclComm_t>& watch() const { return watch_; }
  const DependentReport& report() const { return report_; }

 private:
  struct Rank;
  std::uint16_t* row_ptr(int rank, validator::DepBuffer b, std::int64_t row) const;
  std::int64_t width(validator::DepBuffer b) const;
  void launch_step(int step);
  void launch_gemm(int rank, std::size_t job);
  void wait_for_step(int rank, int step);
  std::int64_t check_moved_rows(double timeout_s, std::string* first_error);
  std::int64_t check_samples(std::string* first_error);

  Runtime& rt_;
  C3Pair pair_;
  DependentOptions opt_;
  validator::DependentSchedule sched_;
  bool serial_ = false;
  bool dma_ = false;
  std::int64_t n_ = 0, k_ = 0;
  std::vector<std::unique_ptr<Rank>> ranks_;
  // dma: per step, per copy, the event recorded after it (on its owner's peer stream).
  std::vector<std::vector<CUevent>> copy_done_;
  std::vector<int> gpus_;
  std::vector<Lane*> lanes_;
  std::vector<ncclComm_t> watch_;
  std::vector<ncclComm_t> comms_;
  DependentReport report_;
};

}  // namespace c3::cuda
